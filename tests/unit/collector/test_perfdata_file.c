/* Unit tests of the perf.data reader on hand-built files: both byte orders,
 * attr sizes, the pipe format (from a file and from a real pipe), feature
 * sections, compressed records, ordering across FINISHED_ROUND, unknown
 * records, and every kind of damage. */
#include "tests/unit/test.h"
#include "tests/unit/test_perfdata_build.h"

#include "collector/perfdata/perfdata.h"

#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

enum {
	S_IP = 1u << 0, S_TID = 1u << 1, S_TIME = 1u << 2, S_ADDR = 1u << 3,
	S_ID = 1u << 6, S_CPU = 1u << 7, S_PERIOD = 1u << 8, S_WEIGHT = 1u << 14,
	S_DATA_SRC = 1u << 15, S_IDENTIFIER = 1u << 16,
	STD_TYPE = S_IDENTIFIER | S_IP | S_TID | S_TIME | S_ADDR | S_CPU | S_PERIOD | S_WEIGHT | S_DATA_SRC,
	ID_LOADS = 101, ID_STORES = 201,
};

static struct tattr std_attr(uint32_t size, uint64_t config, uint64_t id0)
{
	struct tattr a = { .type = 4, .size = size, .config = config, .period = 4000,
			   .sample_type = STD_TYPE, .read_format = 4,
			   .flags = PERF_ATTR_SAMPLE_ID_ALL | PERF_ATTR_FREQ | PERF_ATTR_MMAP | PERF_ATTR_COMM,
			   .nids = 2 };
	a.ids[0] = id0;
	a.ids[1] = id0 + 1;
	return a;
}

/* sample_id_all trailer for STD_TYPE: TID, TIME, CPU, IDENTIFIER */
static void trailer(struct pdb *p, int32_t pid, uint64_t ts, uint64_t id)
{
	pdb_u32(p, (uint32_t)pid);
	pdb_u32(p, (uint32_t)pid);
	pdb_u64(p, ts);
	pdb_u32(p, 1);
	pdb_u32(p, 0);
	pdb_u64(p, id);
}

static void add_sample(struct pdb *p, uint64_t id, uint64_t ip, int32_t pid, uint64_t ts, uint64_t addr)
{
	size_t at = pdb_rec_begin(p, PERF_REC_SAMPLE, 2);
	pdb_u64(p, id);
	pdb_u64(p, ip);
	pdb_u32(p, (uint32_t)pid);
	pdb_u32(p, (uint32_t)pid + 1);
	pdb_u64(p, ts);
	pdb_u64(p, addr);
	pdb_u32(p, 2);
	pdb_u32(p, 0);
	pdb_u64(p, 4000);
	pdb_u64(p, 77);                 /* weight */
	pdb_u64(p, 0x68100142);         /* data_src */
	pdb_rec_end(p, at);
}

static void add_mmap2(struct pdb *p, int32_t pid, uint64_t start, const char *fn, uint64_t ts, uint64_t id)
{
	size_t at = pdb_rec_begin(p, PERF_REC_MMAP2, 2);
	size_t len = strlen(fn) + 1;
	pdb_u32(p, (uint32_t)pid);
	pdb_u32(p, (uint32_t)pid);
	pdb_u64(p, start);
	pdb_u64(p, 0x1000);
	pdb_u64(p, 0);
	pdb_u32(p, 8);
	pdb_u32(p, 1);
	pdb_u64(p, 99);
	pdb_u64(p, 0);
	pdb_u32(p, 5);
	pdb_u32(p, 2);
	pdb_bytes(p, fn, len);
	pdb_bytes(p, NULL, ((len + 7) & ~(size_t)7) - len);
	trailer(p, pid, ts, id);
	pdb_rec_end(p, at);
}

static void add_comm(struct pdb *p, int32_t pid, const char *comm, uint64_t ts, uint64_t id)
{
	size_t at = pdb_rec_begin(p, PERF_REC_COMM, PERF_REC_MISC_COMM_EXEC);
	size_t len = strlen(comm) + 1;
	pdb_u32(p, (uint32_t)pid);
	pdb_u32(p, (uint32_t)pid);
	pdb_bytes(p, comm, len);
	pdb_bytes(p, NULL, ((len + 7) & ~(size_t)7) - len);
	trailer(p, pid, ts, id);
	pdb_rec_end(p, at);
}

static void add_round(struct pdb *p)
{
	pdb_rec_end(p, pdb_rec_begin(p, PERF_REC_FINISHED_ROUND, 0));
}

static void add_lost(struct pdb *p, uint64_t id, uint64_t n, uint64_t ts)
{
	size_t at = pdb_rec_begin(p, PERF_REC_LOST, 0);
	pdb_u64(p, id);
	pdb_u64(p, n);
	trailer(p, -1, ts, id);
	pdb_rec_end(p, at);
	at = pdb_rec_begin(p, PERF_REC_LOST_SAMPLES, 0);
	pdb_u64(p, n * 2);
	trailer(p, -1, ts, id);
	pdb_rec_end(p, at);
}

/* The usual data section: COMM, MMAP2, samples of both events, a round, a
 * LOST pair, an unknown record type, a THROTTLE. */
static void std_data(struct pdb *d)
{
	size_t at;

	add_comm(d, 42, "bench", 1000, ID_LOADS);
	add_mmap2(d, 42, 0x400000, "/usr/bin/bench", 1001, ID_LOADS);
	add_sample(d, ID_LOADS, 0x400100, 42, 2000, 0x7f0000000040);
	add_sample(d, ID_STORES + 1, 0x400200, 42, 2001, 0x7f0000000080);
	add_round(d);
	add_lost(d, ID_LOADS, 3, 2100);
	at = pdb_rec_begin(d, 50, 0);           /* unknown kernel record type */
	pdb_u64(d, 1);
	pdb_rec_end(d, at);
	at = pdb_rec_begin(d, 200, 0);          /* unknown user record type */
	pdb_rec_end(d, at);
	at = pdb_rec_begin(d, PERF_REC_THROTTLE, 0);
	pdb_u64(d, 2200);
	pdb_u64(d, ID_LOADS);
	pdb_u64(d, 0);
	trailer(d, -1, 2200, ID_LOADS);
	pdb_rec_end(d, at);
	add_sample(d, ID_LOADS + 1, 0x400300, 43, 2300, 0x7f00000000c0);
}

static void feat_strings(struct tfeat *f, unsigned bit, const char *const *s, int n, bool list, bool be)
{
	f->bit = bit;
	f->body = (struct pdb){ .be = be };
	if (list)
		pdb_u32(&f->body, (uint32_t)n);
	for (int i = 0; i < n; i++)
		pdb_str(&f->body, s[i]);
}

/* Every feature the reader decodes, plus one unknown bit. */
static int std_features(struct tfeat *f, bool be, const struct tattr *attrs)
{
	int n = 0;
	const char *host[] = { "testhost" }, *osr[] = { "6.12.0-test" }, *ver[] = { "6.12" };
	const char *arch[] = { "x86_64" }, *desc[] = { "Test CPU @ 1GHz" }, *cpuid[] = { "GenuineIntel,6,85,4" };
	const char *cmd[] = { "perf", "c2c", "record", "./bench" };
	struct pdb *b;

	feat_strings(&f[n++], PERFDATA_FEAT_HOSTNAME, host, 1, false, be);
	feat_strings(&f[n++], PERFDATA_FEAT_OSRELEASE, osr, 1, false, be);
	feat_strings(&f[n++], PERFDATA_FEAT_VERSION, ver, 1, false, be);
	feat_strings(&f[n++], PERFDATA_FEAT_ARCH, arch, 1, false, be);
	feat_strings(&f[n++], PERFDATA_FEAT_CPUDESC, desc, 1, false, be);
	feat_strings(&f[n++], PERFDATA_FEAT_CPUID, cpuid, 1, false, be);
	feat_strings(&f[n++], PERFDATA_FEAT_CMDLINE, cmd, 4, true, be);

	f[n] = (struct tfeat){ .bit = PERFDATA_FEAT_NRCPUS, .body = { .be = be } };
	pdb_u32(&f[n].body, 4);             /* avail */
	pdb_u32(&f[n].body, 3);             /* online */
	n++;
	f[n] = (struct tfeat){ .bit = PERFDATA_FEAT_TOTAL_MEM, .body = { .be = be } };
	pdb_u64(&f[n].body, 16270240);
	n++;

	f[n] = (struct tfeat){ .bit = PERFDATA_FEAT_EVENT_DESC, .body = { .be = be } };
	b = &f[n].body;
	pdb_u32(b, 2);
	pdb_u32(b, attrs[0].size);
	for (int i = 1; i >= 0; i--) {      /* reverse order: matched by id, not position */
		pdb_attr(b, &attrs[i], attrs[i].size);
		pdb_u32(b, 2);
		pdb_str(b, i == 0 ? "cpu/mem-loads,ldlat=30/P" : "cpu/mem-stores/P");
		pdb_u64(b, attrs[i].ids[0]);
		pdb_u64(b, attrs[i].ids[1]);
	}
	n++;

	f[n] = (struct tfeat){ .bit = PERFDATA_FEAT_CPU_TOPOLOGY, .body = { .be = be } };
	b = &f[n].body;
	pdb_u32(b, 2);
	pdb_str(b, "0-1");
	pdb_str(b, "2-3");
	pdb_u32(b, 4);
	pdb_str(b, "0");
	pdb_str(b, "1");
	pdb_str(b, "2");
	pdb_str(b, "3");
	for (uint32_t c = 0; c < 4; c++) {
		pdb_u32(b, c % 2);              /* core */
		pdb_u32(b, c / 2);              /* socket */
	}
	pdb_u32(b, 1);
	pdb_str(b, "0-3");
	for (uint32_t c = 0; c < 4; c++)
		pdb_u32(b, 0);
	n++;

	f[n] = (struct tfeat){ .bit = PERFDATA_FEAT_NUMA_TOPOLOGY, .body = { .be = be } };
	b = &f[n].body;
	pdb_u32(b, 2);
	for (uint32_t node = 0; node < 2; node++) {
		pdb_u32(b, node);
		pdb_u64(b, 1000 + node);
		pdb_u64(b, 500 + node);
		pdb_str(b, node ? "2-3" : "0-1");
	}
	n++;

	f[n] = (struct tfeat){ .bit = PERFDATA_FEAT_CACHE, .body = { .be = be } };
	b = &f[n].body;
	pdb_u32(b, 1);
	pdb_u32(b, 2);
	pdb_u32(b, 1); pdb_u32(b, 64); pdb_u32(b, 64); pdb_u32(b, 8);
	pdb_str(b, "Data"); pdb_str(b, "32K"); pdb_str(b, "0-1");
	pdb_u32(b, 3); pdb_u32(b, 64); pdb_u32(b, 16384); pdb_u32(b, 16);
	pdb_str(b, "Unified"); pdb_str(b, "16384K"); pdb_str(b, "0-3");
	n++;

	f[n] = (struct tfeat){ .bit = PERFDATA_FEAT_MEM_TOPOLOGY, .body = { .be = be } };
	b = &f[n].body;
	pdb_u64(b, 1);
	pdb_u64(b, 128ull << 20);
	pdb_u64(b, 1);
	pdb_u64(b, 0);                      /* node */
	pdb_u64(b, 70);                     /* size */
	pdb_u64(b, 70);                     /* bitmap bits */
	pdb_u64(b, 0xffull);                /* 8 blocks */
	pdb_u64(b, 0x3ull);                 /* 2 more */
	n++;

	f[n] = (struct tfeat){ .bit = PERFDATA_FEAT_BUILD_ID, .body = { .be = be } };
	b = &f[n].body;
	{
		size_t at = pdb_rec_begin(b, PERF_REC_HEADER_BUILD_ID, 2 | (1u << 15));
		pdb_u32(b, 42);
		for (int i = 0; i < 20; i++)
			pdb_u8(b, (uint8_t)i);
		pdb_u8(b, 20);
		pdb_bytes(b, NULL, 3);
		pdb_bytes(b, "/usr/bin/bench\0\0", 16);
		pdb_rec_end(b, at);
	}
	n++;

	f[n] = (struct tfeat){ .bit = PERFDATA_FEAT_TRACING_DATA, .body = { .be = be } };
	pdb_bytes(&f[n].body, "\027\010\104tracing0.6", 13);
	n++;

	f[n] = (struct tfeat){ .bit = PERFDATA_FEAT_COMPRESSED, .body = { .be = be } };
	for (uint32_t v = 1; v <= 5; v++)
		pdb_u32(&f[n].body, v);
	n++;

	f[n] = (struct tfeat){ .bit = 40, .body = { .be = be } };   /* unknown feature */
	pdb_u64(&f[n].body, 123);
	n++;
	return n;
}

static void free_features(struct tfeat *f, int n)
{
	for (int i = 0; i < n; i++)
		pdb_free(&f[i].body);
}

/* Reads the whole stream, recording kinds and times. */
struct got {
	int n;
	enum perfdata_kind kind[64];
	uint32_t type[64];
	uint64_t ts[64];
	uint64_t ip[64];
	int attr[64];
	int rc;
	struct c2c_error err;
};

static void read_all(struct perfdata *pd, struct got *g)
{
	struct perfdata_record r;
	int rc;

	memset(g, 0, sizeof(*g));
	while ((rc = perfdata_next(pd, &r, &g->err)) > 0) {
		if (g->n < 64) {
			g->kind[g->n] = r.kind;
			g->type[g->n] = r.type;
			g->ts[g->n] = r.kind == PERFDATA_SAMPLE ? r.u.sample.time : r.sid.time;
			g->ip[g->n] = r.kind == PERFDATA_SAMPLE ? r.u.sample.ip : 0;
			g->attr[g->n] = r.attr;
		}
		g->n++;
	}
	g->rc = rc;
	/* further calls keep returning 0 */
	if (perfdata_next(pd, &r, NULL) != 0)
		g->rc = 99;
}

static void check_std_file(bool be, uint32_t attr_size)
{
	struct tattr attrs[2] = { std_attr(attr_size, 0x1cd, ID_LOADS), std_attr(attr_size, 0x82d0, ID_STORES) };
	struct pdb data = { .be = be }, file = { .be = be };
	struct tfeat feats[24];
	int nf;
	struct perfdata *pd = NULL;
	struct c2c_error err = { 0 };
	const struct perfdata_header *h;
	const struct perfdata_stats *st;
	struct got g;
	char name[64];
	const char *path;

	std_data(&data);
	nf = std_features(feats, be, attrs);
	pdb_file(&file, attrs, 2, &data, feats, nf);
	snprintf(name, sizeof(name), "std-%s-%u.data", be ? "be" : "le", attr_size);
	path = pdb_save(&file, test_tmpdir(), name);
	free_features(feats, nf);
	pdb_free(&data);
	pdb_free(&file);
	CHECK(path != NULL);

	CHECK(perfdata_open(&pd, path, &err) == 0);
	h = perfdata_header(pd);
	CHECK(!h->pipe);
	CHECK(h->swapped == be);
	CHECK_STR(h->hostname, "testhost");
	CHECK_STR(h->osrelease, "6.12.0-test");
	CHECK_STR(h->version, "6.12");
	CHECK_STR(h->arch, "x86_64");
	CHECK_STR(h->cpudesc, "Test CPU @ 1GHz");
	CHECK_STR(h->cpuid, "GenuineIntel,6,85,4");
	CHECK_STR(h->cmdline, "perf c2c record ./bench");
	CHECK_EQ_U64(h->nr_cpus_avail, 4);
	CHECK_EQ_U64(h->nr_cpus_online, 3);
	CHECK_EQ_U64(h->total_mem_kb, 16270240);
	CHECK_EQ_U64(h->nr_core_siblings, 2);
	CHECK_STR(h->core_siblings[1], "2-3");
	CHECK_EQ_U64(h->nr_thread_siblings, 4);
	CHECK_EQ_U64(h->nr_cpu_topo, 4);
	CHECK_EQ_U64(h->cpu_topo[3].core_id, 1);
	CHECK_EQ_U64(h->cpu_topo[3].socket_id, 1);
	CHECK_EQ_U64(h->cpu_topo[3].die_id, 0);
	CHECK_EQ_U64(h->nr_die_siblings, 1);
	CHECK_EQ_U64(h->nr_numa_nodes, 2);
	CHECK_EQ_U64(h->numa_nodes[1].node, 1);
	CHECK_EQ_U64(h->numa_nodes[1].mem_total_kb, 1001);
	CHECK_STR(h->numa_nodes[1].cpus, "2-3");
	CHECK_EQ_U64(h->nr_caches, 2);
	CHECK_EQ_U64(h->caches[0].line_size, 64);
	CHECK_STR(h->caches[1].type, "Unified");
	CHECK_STR(h->caches[1].size, "16384K");
	CHECK_EQ_U64(h->nr_mem_nodes, 1);
	CHECK_EQ_U64(h->mem_nodes[0].nr_blocks, 10);
	CHECK_EQ_U64(h->mem_nodes[0].bytes, 10 * (128ull << 20));
	CHECK_EQ_U64(h->nr_build_ids, 1);
	CHECK_EQ_U64(h->build_ids[0].pid, 42);
	CHECK_EQ_U64(h->build_ids[0].size, 20);
	CHECK_EQ_U64(h->build_ids[0].build_id[19], 19);
	CHECK_STR(h->build_ids[0].filename, "/usr/bin/bench");
	CHECK_EQ_U64(h->tracing_data_size, 13);
	CHECK(memcmp(h->tracing_data, "\027\010\104tracing", 10) == 0);
	CHECK_EQ_U64(h->comp_type, 2);
	CHECK_EQ_U64(h->comp_mmap_len, 5);
	CHECK_EQ_U64(h->nr_unknown_features, 1);
	CHECK_EQ_U64(h->nr_bad_features, 0);
	CHECK(perfdata_has_feature(h, PERFDATA_FEAT_NUMA_TOPOLOGY));
	CHECK(!perfdata_has_feature(h, PERFDATA_FEAT_GROUP_DESC));

	CHECK_EQ_U64(perfdata_nr_attrs(pd), 2);
	CHECK_EQ_U64(perfdata_attr(pd, 0)->size, attr_size);
	CHECK_EQ_U64(perfdata_attr(pd, 1)->config, 0x82d0);
	CHECK_EQ_U64(perfdata_attr(pd, 0)->sample_type, STD_TYPE);
	CHECK(perfdata_attr(pd, 0)->sample_id_all);
	CHECK_EQ_U64(perfdata_attr(pd, 1)->nr_ids, 2);
	CHECK_STR(perfdata_attr(pd, 0)->name, "cpu/mem-loads,ldlat=30/P");
	CHECK_STR(perfdata_attr(pd, 1)->name, "cpu/mem-stores/P");
	CHECK(perfdata_attr(pd, 2) == NULL);
	CHECK_EQ_U64(perfdata_attr_by_id(pd, ID_STORES + 1), 1);

	read_all(pd, &g);
	CHECK(g.rc == 0);
	/* comm 1000, mmap 1001, samples 2000/2001, round, then the final
	 * flush: lost 2100, lost_samples 2100, throttle 2200, sample 2300 */
	CHECK_EQ_U64(g.n, 9);
	CHECK(g.kind[0] == PERFDATA_FINISHED_ROUND);   /* first round flushes nothing */
	CHECK(g.kind[1] == PERFDATA_COMM);
	CHECK_EQ_U64(g.ts[1], 1000);
	CHECK(g.kind[2] == PERFDATA_MMAP);
	CHECK(g.kind[3] == PERFDATA_SAMPLE);
	CHECK_EQ_U64(g.attr[3], 0);
	CHECK(g.kind[4] == PERFDATA_SAMPLE);
	CHECK_EQ_U64(g.attr[4], 1);
	CHECK(g.kind[5] == PERFDATA_LOST);
	CHECK(g.kind[6] == PERFDATA_LOST_SAMPLES);
	CHECK(g.kind[7] == PERFDATA_THROTTLE);
	CHECK(g.kind[8] == PERFDATA_SAMPLE);
	CHECK_EQ_U64(g.ip[8], 0x400300);

	st = perfdata_stats(pd);
	CHECK_EQ_U64(st->records[PERF_REC_SAMPLE], 3);
	CHECK_EQ_U64(st->records[PERF_REC_MMAP2], 1);
	CHECK_EQ_U64(st->records_total, 11);
	CHECK_EQ_U64(st->unknown_records, 2);
	CHECK_EQ_U64(st->lost_events, 3 + 6);
	CHECK_EQ_U64(st->bad_records, 0);
	CHECK(!st->truncated);
	CHECK_EQ_U64(st->dropped_bytes, 0);
	perfdata_close(pd);
}

static void test_file_native(void) { check_std_file(false, 128); }
static void test_file_foreign_endian(void) { check_std_file(true, 128); }
static void test_file_attr_136(void) { check_std_file(false, 136); }
static void test_file_attr_136_foreign(void) { check_std_file(true, 136); }
static void test_file_attr_future_size(void) { check_std_file(false, 168); }
static void test_file_attr_sizes_72_to_120(void)
{
	static const uint32_t sizes[] = { 72, 80, 96, 104, 112, 120 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]) && !test_current.failed; i++)
		check_std_file(false, sizes[i]);
}

/* The oldest ABI: 64-byte attrs whose size field is 0, no features, no ids. */
static void test_file_abi0(void)
{
	struct tattr a = std_attr(64, 0x1cd, 0);
	struct pdb data = { 0 }, file = { 0 };
	struct perfdata *pd;
	struct c2c_error err;
	struct got g;
	const char *path;

	a.nids = 0;
	a.sample_type = S_IP | S_TID | S_TIME | S_ADDR | S_WEIGHT | S_DATA_SRC;
	a.flags = 0;    /* no sample_id_all */
	{
		size_t at = pdb_rec_begin(&data, PERF_REC_SAMPLE, 2);
		pdb_u64(&data, 0x401000);
		pdb_u32(&data, 5);
		pdb_u32(&data, 5);
		pdb_u64(&data, 1234);
		pdb_u64(&data, 0xdead0000);
		pdb_u64(&data, 9);
		pdb_u64(&data, 0x42);
		pdb_rec_end(&data, at);
	}
	/* header + one attr entry with size field 0 */
	pdb_bytes(&file, "PERFILE2", 8);
	pdb_u64(&file, 104);
	pdb_u64(&file, 64 + 16);
	pdb_u64(&file, 104);
	pdb_u64(&file, 80);
	pdb_u64(&file, 184);
	pdb_u64(&file, data.n);
	pdb_bytes(&file, NULL, 16 + 32);
	pdb_attr(&file, &a, 0);
	pdb_u64(&file, 0);
	pdb_u64(&file, 0);
	pdb_bytes(&file, data.b, data.n);
	path = pdb_save(&file, test_tmpdir(), "abi0.data");
	pdb_free(&data);
	pdb_free(&file);

	CHECK(perfdata_open(&pd, path, &err) == 0);
	CHECK_EQ_U64(perfdata_attr(pd, 0)->size, 64);
	CHECK_STR(perfdata_attr(pd, 0)->name, "type4/config=0x1cd/");
	CHECK(perfdata_header(pd)->hostname == NULL);
	read_all(pd, &g);
	CHECK(g.rc == 0);
	CHECK_EQ_U64(g.n, 1);
	CHECK_EQ_U64(g.ts[0], 1234);
	CHECK_EQ_U64(g.attr[0], 0);
	perfdata_close(pd);
}

/* ---- pipe format ---- */

static void build_pipe(struct pdb *p, bool be)
{
	struct tattr attrs[2] = { std_attr(136, 0x1cd, ID_LOADS), std_attr(136, 0x82d0, ID_STORES) };
	size_t at;

	pdb_bytes(p, be ? "2ELIFREP" : "PERFILE2", 8);
	pdb_u64(p, 16);
	for (int i = 0; i < 2; i++) {
		at = pdb_rec_begin(p, PERF_REC_HEADER_ATTR, 0);
		pdb_attr(p, &attrs[i], attrs[i].size);
		pdb_u64(p, attrs[i].ids[0]);
		pdb_u64(p, attrs[i].ids[1]);
		pdb_rec_end(p, at);
	}
	at = pdb_rec_begin(p, PERF_REC_HEADER_FEATURE, 0);
	pdb_u64(p, PERFDATA_FEAT_HOSTNAME);
	pdb_str(p, "pipehost");
	pdb_rec_end(p, at);
	at = pdb_rec_begin(p, PERF_REC_HEADER_FEATURE, 0);
	pdb_u64(p, PERFDATA_FEAT_NRCPUS);
	pdb_u32(p, 8);
	pdb_u32(p, 8);
	pdb_rec_end(p, at);
	/* perf writes a 12-byte record whose size is already 8-aligned, then
	 * the payload: the next record starts 4 bytes off 8-alignment. */
	at = pdb_rec_begin(p, PERF_REC_HEADER_TRACING_DATA, 0);
	pdb_u32(p, 16);
	pdb_rec_end(p, at);
	pdb_bytes(p, "tracingdata\0\0\0\0\0", 16);
	at = pdb_rec_begin(p, PERF_REC_HEADER_BUILD_ID, 2);
	pdb_u32(p, 42);
	pdb_bytes(p, "01234567890123456789", 20);
	pdb_bytes(p, NULL, 4);
	pdb_bytes(p, "/bin/x\0\0", 8);
	pdb_rec_end(p, at);
	std_data(p);
	add_round(p);
}

static void check_pipe(struct perfdata *pd)
{
	const struct perfdata_header *h = perfdata_header(pd);
	struct got g;
	int samples = 0;

	CHECK(h->pipe);
	read_all(pd, &g);
	CHECK(g.rc == 0);
	CHECK_EQ_U64(perfdata_nr_attrs(pd), 2);
	CHECK_EQ_U64(perfdata_attr(pd, 1)->size, 136);
	CHECK_STR(h->hostname, "pipehost");
	CHECK_EQ_U64(h->nr_cpus_avail, 8);
	CHECK_EQ_U64(h->tracing_data_size, 16);
	CHECK(memcmp(h->tracing_data, "tracingdata", 11) == 0);
	CHECK_EQ_U64(h->nr_build_ids, 1);
	CHECK_STR(h->build_ids[0].filename, "/bin/x");
	for (int i = 0; i < g.n && i < 64; i++)
		samples += g.kind[i] == PERFDATA_SAMPLE;
	CHECK_EQ_U64(samples, 3);
	CHECK_EQ_U64(perfdata_stats(pd)->records[PERF_REC_HEADER_ATTR], 2);
	CHECK_EQ_U64(perfdata_stats(pd)->lost_events, 9);
}

static void test_pipe_format_file(void)
{
	for (int be = 0; be < 2 && !test_current.failed; be++) {
		struct pdb p = { .be = be };
		struct perfdata *pd;
		struct c2c_error err;
		const char *path;

		build_pipe(&p, be);
		path = pdb_save(&p, test_tmpdir(), be ? "pipe-be.data" : "pipe.data");
		pdb_free(&p);
		CHECK(perfdata_open(&pd, path, &err) == 0);
		check_pipe(pd);
		perfdata_close(pd);
	}
}

/* Attrs arriving one by one (pipe format) do not move the earlier ones. */
static void test_pipe_attr_pointers_stable(void)
{
	struct pdb p = { 0 };
	struct perfdata *pd;
	struct perfdata_record r;
	struct c2c_error err;
	const struct perf_attr_info *first;
	const char *path;

	pdb_bytes(&p, "PERFILE2", 8);
	pdb_u64(&p, 16);
	for (int i = 0; i < 40; i++) {
		struct tattr a = std_attr(128, 0x100 + (uint64_t)i, 1000 + 10 * (uint64_t)i);
		size_t at = pdb_rec_begin(&p, PERF_REC_HEADER_ATTR, 0);
		pdb_attr(&p, &a, a.size);
		pdb_u64(&p, a.ids[0]);
		pdb_rec_end(&p, at);
	}
	add_sample(&p, 1000 + 10 * 39, 1, 1, 10, 0);
	path = pdb_save(&p, test_tmpdir(), "pipe-40-attrs.data");
	pdb_free(&p);
	CHECK(perfdata_open(&pd, path, &err) == 0);
	CHECK(perfdata_next(pd, &r, &err) == 1);
	CHECK(r.kind == PERFDATA_OTHER && r.type == PERF_REC_HEADER_ATTR);
	first = perfdata_attr(pd, 0);
	CHECK(first != NULL);
	while (perfdata_next(pd, &r, &err) == 1)
		if (r.kind == PERFDATA_SAMPLE)
			CHECK_EQ_U64(r.attr, 39);
	CHECK_EQ_U64(perfdata_nr_attrs(pd), 40);
	CHECK(perfdata_attr(pd, 0) == first);
	CHECK_EQ_U64(first->config, 0x100);
	CHECK_STR(perfdata_attr(pd, 39)->name, "type4/config=0x127/");
	perfdata_close(pd);
}

/* PERF_RECORD_EVENT_UPDATE: u64 type, u64 id, then the payload (a NUL-padded
 * name for NAME). */
enum { EVUPD_UNIT = 0, EVUPD_SCALE = 1, EVUPD_NAME = 2, EVUPD_CPUS = 3 };

static void add_event_update(struct pdb *p, uint64_t type, uint64_t id, const void *payload, size_t len)
{
	size_t at = pdb_rec_begin(p, PERF_REC_EVENT_UPDATE, 0);
	pdb_u64(p, type);
	pdb_u64(p, id);
	pdb_bytes(p, payload, len);
	pdb_bytes(p, NULL, ((len + 7) & ~(size_t)7) - len);
	pdb_rec_end(p, at);
}

static void add_update_name(struct pdb *p, uint64_t id, const char *name)
{
	add_event_update(p, EVUPD_NAME, id, name, strlen(name) + 1);
}

/* A pipe stream as perf record -o - writes it: each HEADER_ATTR followed by
 * EVENT_UPDATE NAME records, here also mid-stream ones, the other update
 * types, and damaged ones that must be skipped. */
static void build_pipe_event_update(struct pdb *p)
{
	struct tattr loads = std_attr(136, 0x1cd, ID_LOADS), stores = std_attr(136, 0x82d0, ID_STORES);
	size_t at;

	pdb_bytes(p, p->be ? "2ELIFREP" : "PERFILE2", 8);
	pdb_u64(p, 16);
	at = pdb_rec_begin(p, PERF_REC_HEADER_ATTR, 0);
	pdb_attr(p, &loads, loads.size);
	pdb_u64(p, loads.ids[0]);
	pdb_u64(p, loads.ids[1]);
	pdb_rec_end(p, at);
	add_update_name(p, ID_LOADS, "old-name");
	/* the attr's second id names it too; the latest name wins */
	add_update_name(p, ID_LOADS + 1, "cpu/mem-loads,ldlat=30/P");
	add_sample(p, ID_LOADS, 0x400100, 42, 2000, 0x40);
	add_round(p);
	at = pdb_rec_begin(p, PERF_REC_HEADER_ATTR, 0);
	pdb_attr(p, &stores, stores.size);
	pdb_u64(p, stores.ids[0]);
	pdb_u64(p, stores.ids[1]);
	pdb_rec_end(p, at);
	add_sample(p, ID_STORES, 0x400200, 42, 2001, 0x80);
	add_round(p);
	/* named only after its samples */
	add_update_name(p, ID_STORES, "cpu/mem-stores/P");
	/* kept or ignored, never renaming */
	add_event_update(p, EVUPD_UNIT, ID_LOADS, "ns", 3);
	{
		struct pdb sc = { .be = p->be };
		pdb_u64(&sc, 0x3ff0000000000000ull);   /* 1.0 */
		add_event_update(p, EVUPD_SCALE, ID_LOADS, sc.b, sc.n);
		pdb_free(&sc);
	}
	add_event_update(p, EVUPD_CPUS, ID_STORES, "\0\0\1\0\0\0\0\0", 8);
	add_event_update(p, 77, ID_LOADS, "whatever", 8);           /* unknown type: ignored */
	/* damaged: each skipped and counted as a bad record */
	add_event_update(p, EVUPD_NAME, ID_LOADS, "sixteen-bytes-xx", 16);   /* no NUL */
	{
		/* unterminated exactly at the record end */
		at = pdb_rec_begin(p, PERF_REC_EVENT_UPDATE, 0);
		pdb_u64(p, EVUPD_NAME);
		pdb_u64(p, ID_LOADS);
		pdb_bytes(p, "ABCDEFGH", 8);
		pdb_rec_end(p, at);
	}
	add_update_name(p, 999, "no-such-event");
	add_update_name(p, ID_STORES, "");
	at = pdb_rec_begin(p, PERF_REC_EVENT_UPDATE, 0);         /* no id: too small */
	pdb_u64(p, EVUPD_NAME);
	pdb_rec_end(p, at);
	at = pdb_rec_begin(p, PERF_REC_EVENT_UPDATE, 0);         /* header only */
	pdb_rec_end(p, at);
	add_event_update(p, EVUPD_UNIT, ID_LOADS, "sixteen-bytes-xx", 16);
	add_event_update(p, EVUPD_SCALE, ID_LOADS, NULL, 0);
	add_sample(p, ID_LOADS, 0x400300, 42, 2002, 0xc0);
	add_round(p);
}

static void check_pipe_event_update(struct perfdata *pd, const char *what)
{
	struct perfdata_record r;
	struct c2c_error err;
	int rc, updates = 0, samples = 0;

	while ((rc = perfdata_next(pd, &r, &err)) > 0) {
		if (r.type == PERF_REC_EVENT_UPDATE && updates++ == 1)
			/* names are visible once their record has been delivered */
			CHECK_STR(perfdata_attr(pd, 0)->name, "cpu/mem-loads,ldlat=30/P");
		if (r.kind == PERFDATA_SAMPLE) {
			CHECK(r.attr >= 0 && perfdata_attr(pd, (size_t)r.attr) != NULL);
			samples++;
		}
	}
	if (rc != 0)
		test_failf(__FILE__, __LINE__, "%s: perfdata_next %d: %s", what, rc, err.msg);
	CHECK(rc == 0);
	CHECK_EQ_U64(samples, 3);
	CHECK_EQ_U64(perfdata_nr_attrs(pd), 2);
	CHECK_STR(perfdata_attr(pd, 0)->name, "cpu/mem-loads,ldlat=30/P");
	CHECK_STR(perfdata_attr(pd, 1)->name, "cpu/mem-stores/P");
	CHECK_EQ_U64(perfdata_stats(pd)->records[PERF_REC_EVENT_UPDATE], 15);
	CHECK_EQ_U64(perfdata_stats(pd)->bad_records, 8);
}

static void test_pipe_event_update_names(void)
{
	for (int be = 0; be < 2 && !test_current.failed; be++) {
		struct pdb p = { .be = be };
		struct perfdata *pd;
		struct c2c_error err;
		const char *path;

		build_pipe_event_update(&p);
		path = pdb_save(&p, test_tmpdir(), be ? "pipe-evupd-be.data" : "pipe-evupd.data");
		CHECK(perfdata_open(&pd, path, &err) == 0);
		check_pipe_event_update(pd, be ? "big-endian file" : "file");
		perfdata_close(pd);
		/* the same bytes from memory, unordered */
		CHECK(perfdata_open_mem(&pd, p.b, p.n, "mem", &err) == 0);
		perfdata_set_ordered(pd, false);
		check_pipe_event_update(pd, "unordered memory");
		perfdata_close(pd);
		pdb_free(&p);
	}
}

/* The same through a real pipe (the stream path copies each record). */
static void test_pipe_event_update_real_pipe(void)
{
	struct pdb p = { 0 };
	struct perfdata *pd;
	struct c2c_error err;
	int fds[2];
	pid_t child;

	build_pipe_event_update(&p);
	CHECK(pipe(fds) == 0);
	child = fork();
	CHECK(child >= 0);
	if (child == 0) {
		size_t off = 0;
		close(fds[0]);
		while (off < p.n) {
			ssize_t w = write(fds[1], p.b + off, p.n - off);
			if (w <= 0)
				_exit(1);
			off += (size_t)w;
		}
		_exit(0);
	}
	close(fds[1]);
	pdb_free(&p);
	CHECK(perfdata_open_fd(&pd, fds[0], "pipe:", &err) == 0);
	check_pipe_event_update(pd, "real pipe");
	perfdata_close(pd);
	waitpid(child, NULL, 0);
}

/* A real pipe: the reader cannot map it and reads it as a stream. */
static void test_pipe_format_real_pipe(void)
{
	struct pdb p = { 0 };
	struct perfdata *pd;
	struct c2c_error err;
	int fds[2];
	pid_t child;
	int status;

	build_pipe(&p, false);
	CHECK(pipe(fds) == 0);
	child = fork();
	CHECK(child >= 0);
	if (child == 0) {
		close(fds[0]);
		/* dribble it out in small writes to exercise refills */
		for (size_t off = 0; off < p.n; off += 100) {
			size_t n = p.n - off < 100 ? p.n - off : 100;
			if (write(fds[1], p.b + off, n) != (ssize_t)n)
				_exit(1);
		}
		_exit(0);
	}
	close(fds[1]);
	pdb_free(&p);
	CHECK(perfdata_open_fd(&pd, fds[0], "pipe:", &err) == 0);
	check_pipe(pd);
	perfdata_close(pd);
	CHECK(waitpid(child, &status, 0) == child);
}

/* "-" reads standard input: here a pipe carrying the pipe format. */
static void test_open_stdin(void)
{
	struct pdb p = { 0 };
	struct perfdata *pd = NULL;
	struct c2c_error err;
	int fds[2], saved, status, rc;
	pid_t child;

	build_pipe(&p, false);
	CHECK(pipe(fds) == 0);
	child = fork();
	CHECK(child >= 0);
	if (child == 0) {
		close(fds[0]);
		_exit(write(fds[1], p.b, p.n) == (ssize_t)p.n ? 0 : 1);
	}
	close(fds[1]);
	pdb_free(&p);
	saved = dup(STDIN_FILENO);
	CHECK(saved >= 0);
	CHECK(dup2(fds[0], STDIN_FILENO) == STDIN_FILENO);
	close(fds[0]);
	rc = perfdata_open(&pd, "-", &err);
	dup2(saved, STDIN_FILENO);
	close(saved);
	CHECK(rc == 0);
	CHECK_STR(perfdata_path(pd), "(stdin)");
	check_pipe(pd);
	perfdata_close(pd);
	CHECK(waitpid(child, &status, 0) == child);
}

/* A file-format perf.data arriving through a pipe is read into memory. */
static void test_file_format_through_pipe(void)
{
	struct tattr attrs[2] = { std_attr(128, 0x1cd, ID_LOADS), std_attr(128, 0x82d0, ID_STORES) };
	struct pdb data = { 0 }, file = { 0 };
	struct tfeat feats[24];
	int nf, fds[2], status;
	struct perfdata *pd;
	struct c2c_error err;
	struct got g;
	pid_t child;

	std_data(&data);
	nf = std_features(feats, false, attrs);
	pdb_file(&file, attrs, 2, &data, feats, nf);
	free_features(feats, nf);
	pdb_free(&data);
	CHECK(pipe(fds) == 0);
	child = fork();
	CHECK(child >= 0);
	if (child == 0) {
		close(fds[0]);
		_exit(write(fds[1], file.b, file.n) == (ssize_t)file.n ? 0 : 1);
	}
	close(fds[1]);
	pdb_free(&file);
	CHECK(perfdata_open_fd(&pd, fds[0], "pipe:", &err) == 0);
	CHECK_STR(perfdata_header(pd)->hostname, "testhost");
	read_all(pd, &g);
	CHECK(g.rc == 0);
	CHECK_EQ_U64(g.n, 9);
	perfdata_close(pd);
	CHECK(waitpid(child, &status, 0) == child);
}

/* ---- ordering ---- */

static void test_ordering_rounds(void)
{
	struct tattr attrs[1] = { std_attr(128, 0x1cd, ID_LOADS) };
	struct pdb data = { 0 }, file = { 0 };
	struct perfdata *pd;
	struct c2c_error err;
	struct got g;
	const char *path;
	/* expected delivery, as perf's ordered-events would do it */
	static const struct { enum perfdata_kind k; uint64_t ts; uint64_t ip; } want[] = {
		{ PERFDATA_FINISHED_ROUND, 0, 0 },   /* round 1: next_flush was 0 */
		{ PERFDATA_MMAP, 0, 0 },             /* no timestamp: straight through */
		{ PERFDATA_SAMPLE, 10, 1 },          /* round 2 flushes <= 30 (round 1's max) */
		{ PERFDATA_SAMPLE, 20, 3 },
		{ PERFDATA_SAMPLE, 25, 4 },
		{ PERFDATA_SAMPLE, 30, 2 },
		{ PERFDATA_FINISHED_ROUND, 0, 0 },
		{ PERFDATA_SAMPLE, 5, 8 },           /* late: older than the last flush */
		{ PERFDATA_SAMPLE, 35, 7 },
		{ PERFDATA_SAMPLE, 40, 5 },          /* ties keep arrival order */
		{ PERFDATA_SAMPLE, 40, 6 },
		{ PERFDATA_SAMPLE, 50, 9 },
	};

	add_sample(&data, ID_LOADS, 1, 1, 10, 0);
	add_sample(&data, ID_LOADS, 2, 1, 30, 0);
	add_sample(&data, ID_LOADS, 3, 1, 20, 0);
	add_round(&data);
	add_sample(&data, ID_LOADS, 4, 1, 25, 0);
	add_sample(&data, ID_LOADS, 5, 1, 40, 0);
	add_mmap2(&data, 1, 0x1000, "/x", 0, ID_LOADS);   /* synthesized: time 0 */
	add_sample(&data, ID_LOADS, 6, 1, 40, 0);
	add_round(&data);
	add_sample(&data, ID_LOADS, 7, 1, 35, 0);
	add_sample(&data, ID_LOADS, 8, 1, 5, 0);
	add_sample(&data, ID_LOADS, 9, 1, 50, 0);
	pdb_file(&file, attrs, 1, &data, NULL, 0);
	path = pdb_save(&file, test_tmpdir(), "order.data");
	pdb_free(&data);
	pdb_free(&file);

	CHECK(perfdata_open(&pd, path, &err) == 0);
	read_all(pd, &g);
	CHECK(g.rc == 0);
	CHECK_EQ_U64(g.n, sizeof(want) / sizeof(want[0]));
	for (int i = 0; i < g.n; i++) {
		if (g.kind[i] != want[i].k || (want[i].k == PERFDATA_SAMPLE && (g.ts[i] != want[i].ts ||
										 g.ip[i] != want[i].ip))) {
			test_failf(__FILE__, __LINE__, "record %d: kind %d ts %" PRIu64 " ip %" PRIu64
				   ", want kind %d ts %" PRIu64 " ip %" PRIu64, i, g.kind[i], g.ts[i], g.ip[i],
				   want[i].k, want[i].ts, want[i].ip);
			perfdata_close(pd);
			return;
		}
	}
	CHECK_EQ_U64(perfdata_stats(pd)->unordered_records, 1);
	perfdata_close(pd);

	/* Unordered: file order. */
	CHECK(perfdata_open(&pd, path, &err) == 0);
	perfdata_set_ordered(pd, false);
	read_all(pd, &g);
	CHECK_EQ_U64(g.n, 12);
	CHECK_EQ_U64(g.ip[0], 1);
	CHECK_EQ_U64(g.ip[1], 2);
	CHECK_EQ_U64(g.ip[2], 3);
	CHECK(g.kind[3] == PERFDATA_FINISHED_ROUND);
	perfdata_close(pd);
}

/* No FINISHED_ROUND at all: the queue limit flushes the older half. */
static void test_queue_limit(void)
{
	struct tattr attrs[1] = { std_attr(128, 0x1cd, ID_LOADS) };
	struct pdb data = { 0 }, file = { 0 };
	struct perfdata *pd;
	struct c2c_error err;
	struct got g;
	const char *path;
	static const uint64_t ts[] = { 10, 20, 30, 40, 15, 50, 60 };
	static const uint64_t want[] = { 10, 20, 15, 30, 40, 50, 60 };

	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++)
		add_sample(&data, ID_LOADS, i, 1, ts[i], 0);
	pdb_file(&file, attrs, 1, &data, NULL, 0);
	path = pdb_save(&file, test_tmpdir(), "no-rounds.data");
	pdb_free(&data);
	pdb_free(&file);
	CHECK(perfdata_open(&pd, path, &err) == 0);
	perfdata_set_queue_limit(pd, 4);
	read_all(pd, &g);
	CHECK(g.rc == 0);
	CHECK_EQ_U64(g.n, 7);
	/* 10..40 queued: flush <= 25 (10, 20); 15 is late; 15, 30, 40, 50:
	 * flush <= 32 (15, 30); the end flushes 40, 50, 60 */
	for (int i = 0; i < 7; i++)
		CHECK_EQ_U64(g.ts[i], want[i]);
	CHECK_EQ_U64(perfdata_stats(pd)->half_flushes, 2);
	CHECK_EQ_U64(perfdata_stats(pd)->unordered_records, 1);
	CHECK(perfdata_stats(pd)->max_queued <= 4);
	perfdata_close(pd);
}

/* A sample whose id matches no attr is skipped and counted. */
static void test_unknown_sample_id(void)
{
	struct tattr attrs[2] = { std_attr(128, 0x1cd, ID_LOADS), std_attr(128, 0x82d0, ID_STORES) };
	struct pdb data = { 0 }, file = { 0 };
	struct perfdata *pd;
	struct c2c_error err;
	struct got g;
	const char *path;

	add_sample(&data, 999, 1, 1, 10, 0);
	add_sample(&data, ID_STORES, 2, 1, 11, 0);
	pdb_file(&file, attrs, 2, &data, NULL, 0);
	path = pdb_save(&file, test_tmpdir(), "unknown-id.data");
	pdb_free(&data);
	pdb_free(&file);
	CHECK(perfdata_open(&pd, path, &err) == 0);
	read_all(pd, &g);
	CHECK(g.rc == 0);
	CHECK_EQ_U64(g.n, 1);
	CHECK_EQ_U64(g.attr[0], 1);
	CHECK_EQ_U64(perfdata_stats(pd)->unknown_id_samples, 1);
	perfdata_close(pd);
}

/* ---- compressed records ---- */

/* Compresses `in` into COMPRESSED records of at most `max_payload` bytes of
 * zstd output each, so records straddle compressed records. */
static void add_compressed(struct pdb *out, const struct pdb *in, size_t max_payload)
{
	ZSTD_CStream *cs = ZSTD_createCStream();
	size_t cap = ZSTD_compressBound(in->n) + 64, n;
	unsigned char *buf = malloc(cap);
	ZSTD_inBuffer zin = { in->b, in->n, 0 };
	ZSTD_outBuffer zout = { buf, cap, 0 };

	ZSTD_initCStream(cs, 3);
	while (zin.pos < zin.size)
		ZSTD_compressStream(cs, &zout, &zin);
	ZSTD_endStream(cs, &zout);
	n = zout.pos;
	for (size_t off = 0; off < n; off += max_payload) {
		size_t len = n - off < max_payload ? n - off : max_payload;
		size_t at = pdb_rec_begin(out, PERF_REC_COMPRESSED, 0);
		pdb_bytes(out, buf + off, len);
		/* records are a multiple of 8 bytes; zstd ignores nothing, so the
		 * padding must not exist: only the last piece may be odd-sized. */
		pdb_rec_end(out, at);
	}
	free(buf);
	ZSTD_freeCStream(cs);
}

static void test_compressed(void)
{
	struct tattr attrs[2] = { std_attr(128, 0x1cd, ID_LOADS), std_attr(128, 0x82d0, ID_STORES) };
	struct pdb inner = { 0 }, data = { 0 }, file = { 0 };
	struct perfdata *pd;
	struct c2c_error err;
	struct got g;
	const char *path;
	int samples = 0;

	add_comm(&inner, 42, "bench", 1000, ID_LOADS);
	for (int i = 0; i < 40; i++)
		add_sample(&inner, ID_LOADS, 0x400000 + (uint64_t)i, 42, 2000 + (uint64_t)i, 0x7f0000000000 + 64 * (uint64_t)i);
	add_compressed(&data, &inner, 64);
	add_round(&data);
	add_sample(&data, ID_STORES, 0x500000, 42, 5000, 0);
	pdb_file(&file, attrs, 2, &data, NULL, 0);
	path = pdb_save(&file, test_tmpdir(), "compressed.data");

	CHECK(perfdata_open(&pd, path, &err) == 0);
	read_all(pd, &g);
	CHECK(g.rc == 0);
	for (int i = 0; i < g.n && i < 64; i++)
		samples += g.kind[i] == PERFDATA_SAMPLE;
	CHECK_EQ_U64(samples, 41);
	CHECK_EQ_U64(g.n, 43);
	CHECK(perfdata_stats(pd)->compressed_records > 2);
	CHECK_EQ_U64(perfdata_stats(pd)->decompressed_bytes, inner.n);
	CHECK_EQ_U64(perfdata_stats(pd)->records[PERF_REC_SAMPLE], 41);
	perfdata_close(pd);

	/* The compressed stream stops inside a record: the whole records come
	 * out, the cut one is reported. */
	data.n = 0;
	{
		struct pdb cut = { 0 };
		pdb_bytes(&cut, inner.b, inner.n - 30);
		add_compressed(&data, &cut, 4096);
		pdb_free(&cut);
	}
	pdb_free(&file);
	pdb_file(&file, attrs, 2, &data, NULL, 0);
	path = pdb_save(&file, test_tmpdir(), "compressed-cut.data");
	CHECK(perfdata_open(&pd, path, &err) == 0);
	read_all(pd, &g);
	CHECK(g.rc < 0);
	CHECK_EQ_U64(g.n, 40);            /* COMM + 39 whole samples */
	CHECK(strstr(g.err.msg, "compressed data ends inside a record") != NULL);
	CHECK_EQ_U64(perfdata_stats(pd)->dropped_bytes, 80 - 30);
	perfdata_close(pd);
	pdb_free(&file);

	/* Garbage inside a compressed record: records before it delivered, then
	 * one clear error. */
	data.n = 0;
	add_sample(&data, ID_LOADS, 1, 1, 10, 0);
	{
		size_t at = pdb_rec_begin(&data, PERF_REC_COMPRESSED, 0);
		pdb_bytes(&data, "this is not zstd at all!", 24);
		pdb_rec_end(&data, at);
	}
	add_sample(&data, ID_LOADS, 2, 1, 11, 0);
	pdb_file(&file, attrs, 2, &data, NULL, 0);
	path = pdb_save(&file, test_tmpdir(), "compressed-bad.data");
	CHECK(perfdata_open(&pd, path, &err) == 0);
	read_all(pd, &g);
	CHECK(g.rc < 0);
	CHECK_EQ_U64(g.n, 1);
	CHECK(strstr(g.err.msg, "compressed-bad.data") != NULL);
	CHECK(strstr(g.err.msg, "decompress") != NULL);
	CHECK(perfdata_stats(pd)->dropped_bytes > 0);
	perfdata_close(pd);
	pdb_free(&file);
	pdb_free(&data);
	pdb_free(&inner);
}

/* ---- damage ---- */

/* A good two-attr file, as bytes, with its data offset. */
static void good_file(struct pdb *file, size_t *data_off, size_t *data_len)
{
	struct tattr attrs[2] = { std_attr(128, 0x1cd, ID_LOADS), std_attr(128, 0x82d0, ID_STORES) };
	struct pdb data = { 0 };
	const char *host[] = { "h" };
	struct tfeat f[1];

	for (int i = 0; i < 5; i++)
		add_sample(&data, ID_LOADS, (uint64_t)i, 1, 10 + (uint64_t)i, 0);
	feat_strings(&f[0], PERFDATA_FEAT_HOSTNAME, host, 1, false, false);
	pdb_file(file, attrs, 2, &data, f, 1);
	*data_off = 104 + 4 * 8 + 2 * (128 + 16);
	*data_len = data.n;
	pdb_free(&f[0].body);
	pdb_free(&data);
}

static int open_bytes(const struct pdb *p, const char *name, struct perfdata **pd, struct c2c_error *err)
{
	const char *path = pdb_save(p, test_tmpdir(), name);
	memset(err, 0, sizeof(*err));
	return path ? perfdata_open(pd, path, err) : -EIO;
}

static void expect_open_error(const struct pdb *p, const char *name, const char *words)
{
	struct perfdata *pd = NULL;
	struct c2c_error err;

	if (open_bytes(p, name, &pd, &err) == 0) {
		test_failf(__FILE__, __LINE__, "%s opened", name);
		perfdata_close(pd);
		return;
	}
	CHECK(pd == NULL);
	if (!strstr(err.msg, name) || !strstr(err.msg, words))
		test_failf(__FILE__, __LINE__, "%s: message \"%s\" lacks the file name or \"%s\"", name, err.msg, words);
}

static void test_damage_header(void)
{
	struct pdb f = { 0 };
	size_t doff, dlen;

	good_file(&f, &doff, &dlen);
	memcpy(f.b, "PERFILE3", 8);
	expect_open_error(&f, "bad-magic.data", "bad magic");
	memcpy(f.b, "PERFILE2", 8);
	{
		struct pdb t = f;
		t.n = 50;
		expect_open_error(&t, "short-header.data", "truncated");
		t.n = 5;
		expect_open_error(&t, "tiny.data", "not a perf.data");
		t.n = 0;
		expect_open_error(&t, "empty.data", "empty");
	}
	pdb_patch(&f, 32, 1000000 * 144, 8);        /* attrs.size: far more attrs than fit */
	expect_open_error(&f, "attr-count.data", "past the end");
	pdb_patch(&f, 32, 2 * 144, 8);
	pdb_patch(&f, 16, 0, 8);                    /* attr_size 0 */
	expect_open_error(&f, "attr-size-0.data", "attribute entry size");
	pdb_patch(&f, 16, 1ull << 40, 8);           /* absurd */
	expect_open_error(&f, "attr-size-huge.data", "attribute entry size");
	pdb_patch(&f, 16, 144, 8);
	pdb_patch(&f, 104 + 32 + 4, 4096, 4);      /* first attr's own size > entry */
	expect_open_error(&f, "attr-own-size.data", "attr 0");
	pdb_patch(&f, 104 + 32 + 4, 128, 4);
	pdb_patch(&f, 104 + 32 + 128, 1ull << 50, 8);   /* ids section offset */
	expect_open_error(&f, "ids-off.data", "id list");
	pdb_free(&f);
}

/* Damage in the data section: the records before it come out, then one
 * error; the stats say what was dropped. */
static void expect_data_damage(const struct pdb *p, const char *name, int want_records, const char *words,
			       bool truncated)
{
	struct perfdata *pd = NULL;
	struct c2c_error err;
	struct got g;

	if (open_bytes(p, name, &pd, &err) < 0) {
		test_failf(__FILE__, __LINE__, "%s: open failed: %s", name, err.msg);
		return;
	}
	read_all(pd, &g);
	CHECK(g.rc < 0);
	CHECK_EQ_U64(g.n, want_records);
	if (!strstr(g.err.msg, name) || !strstr(g.err.msg, words)) {
		test_failf(__FILE__, __LINE__, "%s: message \"%s\" lacks the file name or \"%s\"", name, g.err.msg, words);
		perfdata_close(pd);
		return;
	}
	CHECK(perfdata_stats(pd)->truncated == truncated);
	perfdata_close(pd);
}

static void test_damage_data(void)
{
	struct pdb f = { 0 };
	size_t doff, dlen, rec = 80;   /* each sample is 80 bytes */

	good_file(&f, &doff, &dlen);
	CHECK_EQ_U64(dlen, 5 * rec);

	pdb_patch(&f, doff + 2 * rec + 6, 0, 2);               /* third record: size 0 */
	expect_data_damage(&f, "size0.data", 2, "invalid size 0", false);
	pdb_patch(&f, doff + 2 * rec + 6, 4, 2);               /* size below the header */
	expect_data_damage(&f, "size4.data", 2, "invalid size 4", false);
	pdb_patch(&f, doff + 2 * rec + 6, 65000, 2);           /* runs past the data section */
	expect_data_damage(&f, "past-end.data", 2, "runs past the end", false);
	pdb_patch(&f, doff + 2 * rec + 6, rec, 2);

	/* Truncated file: cut in the middle of the fourth record. */
	{
		struct pdb t = f;
		struct perfdata *pd;
		struct c2c_error err;
		struct got g;

		t.n = doff + 3 * rec + 20;
		CHECK(open_bytes(&t, "truncated.data", &pd, &err) == 0);
		read_all(pd, &g);
		CHECK(g.rc < 0);
		CHECK_EQ_U64(g.n, 3);
		CHECK(strstr(g.err.msg, "truncated.data") != NULL);
		CHECK(strstr(g.err.msg, "truncated") != NULL);
		CHECK(perfdata_stats(pd)->truncated);
		CHECK_EQ_U64(perfdata_stats(pd)->dropped_bytes, 20);
		/* the features after the data are gone too: not fatal */
		CHECK(perfdata_header(pd)->hostname == NULL);
		CHECK_EQ_U64(perfdata_header(pd)->nr_bad_features, 1);
		perfdata_close(pd);

		/* cut exactly between records */
		t.n = doff + 4 * rec;
		CHECK(open_bytes(&t, "truncated-clean.data", &pd, &err) == 0);
		read_all(pd, &g);
		CHECK(g.rc < 0);
		CHECK_EQ_U64(g.n, 4);
		CHECK(strstr(g.err.msg, "truncated") != NULL);
		CHECK_EQ_U64(perfdata_stats(pd)->dropped_bytes, 0);
		perfdata_close(pd);
	}

	/* A record too short for its sample_type is skipped, not fatal. */
	{
		struct pdb t = { 0 };
		size_t n = f.n;
		pdb_bytes(&t, f.b, f.n);
		pdb_patch(&t, doff + 6, 16, 2);       /* first record claims 16 bytes... */
		/* ...and the remaining 56 bytes become a record of their own */
		pdb_patch(&t, doff + 16, PERF_REC_FINISHED_INIT, 4);
		pdb_patch(&t, doff + 16 + 4, 0, 2);
		pdb_patch(&t, doff + 16 + 6, rec - 16, 2);
		CHECK(t.n == n);
		struct perfdata *pd;
		struct c2c_error err;
		struct got g;
		CHECK(open_bytes(&t, "short-sample.data", &pd, &err) == 0);
		read_all(pd, &g);
		CHECK(g.rc == 0);
		CHECK_EQ_U64(perfdata_stats(pd)->bad_records, 1);
		CHECK_EQ_U64(g.n, 5);                 /* FINISHED_INIT + 4 samples */
		perfdata_close(pd);
		pdb_free(&t);
	}
	pdb_free(&f);
}

/* perf record killed before it wrote the data size: read to the end. */
static void test_unfinished_file(void)
{
	struct pdb f = { 0 };
	size_t doff, dlen;
	struct perfdata *pd;
	struct c2c_error err;
	struct got g;

	good_file(&f, &doff, &dlen);
	f.n = doff + dlen;              /* no features written yet */
	pdb_patch(&f, 48, 0, 8);        /* data.size 0 */
	CHECK(open_bytes(&f, "unfinished.data", &pd, &err) == 0);
	CHECK(perfdata_header(pd)->unfinished);
	CHECK_EQ_U64(perfdata_header(pd)->data_size, dlen);
	CHECK(perfdata_header(pd)->hostname == NULL);
	CHECK_EQ_U64(perfdata_header(pd)->nr_bad_features, 1);
	read_all(pd, &g);
	CHECK(g.rc == 0);
	CHECK_EQ_U64(g.n, 5);
	perfdata_close(pd);
	pdb_free(&f);
}

/* A damaged feature section is counted, the rest of the file still reads. */
static void test_damage_feature(void)
{
	struct tattr attrs[1] = { std_attr(128, 0x1cd, ID_LOADS) };
	struct pdb data = { 0 }, file = { 0 };
	struct tfeat f[2];
	struct perfdata *pd;
	struct c2c_error err;
	const char *path;

	add_sample(&data, ID_LOADS, 1, 1, 10, 0);
	f[0] = (struct tfeat){ .bit = PERFDATA_FEAT_HOSTNAME, .body = { 0 } };
	pdb_u32(&f[0].body, 1000);                  /* string longer than its section */
	pdb_bytes(&f[0].body, "abc", 3);
	f[1] = (struct tfeat){ .bit = PERFDATA_FEAT_NUMA_TOPOLOGY, .body = { 0 } };
	pdb_u32(&f[1].body, 0x7fffffff);            /* absurd node count */
	pdb_file(&file, attrs, 1, &data, f, 2);
	path = pdb_save(&file, test_tmpdir(), "bad-feature.data");
	free_features(f, 2);
	pdb_free(&data);
	pdb_free(&file);
	CHECK(perfdata_open(&pd, path, &err) == 0);
	CHECK_EQ_U64(perfdata_header(pd)->nr_bad_features, 2);
	CHECK(perfdata_header(pd)->hostname == NULL);
	CHECK_EQ_U64(perfdata_header(pd)->nr_numa_nodes, 0);
	perfdata_close(pd);
}

static void test_open_missing(void)
{
	struct perfdata *pd = (struct perfdata *)1;
	struct c2c_error err;

	CHECK(perfdata_open(&pd, "/nonexistent/perf.data", &err) == -ENOENT);
	CHECK(pd == NULL);
	CHECK(strstr(err.msg, "/nonexistent/perf.data") != NULL);
}

static void test_open_mem(void)
{
	struct pdb f = { 0 };
	size_t doff, dlen;
	struct perfdata *pd;
	struct c2c_error err;
	struct got g;

	good_file(&f, &doff, &dlen);
	CHECK(perfdata_open_mem(&pd, f.b, f.n, "mem", &err) == 0);
	CHECK_STR(perfdata_header(pd)->hostname, "h");
	read_all(pd, &g);
	CHECK(g.rc == 0);
	CHECK_EQ_U64(g.n, 5);
	perfdata_close(pd);
	pdb_free(&f);
}

static void test_names(void)
{
	CHECK_STR(perfdata_type_name(PERF_REC_MMAP2), "MMAP2");
	CHECK_STR(perfdata_type_name(PERF_REC_FINISHED_INIT), "FINISHED_INIT");
	CHECK_STR(perfdata_type_name(PERF_REC_COMPRESSED), "COMPRESSED");
	CHECK_STR(perfdata_type_name(63), "UNKNOWN");
	CHECK_STR(perfdata_feature_name(PERFDATA_FEAT_MEM_TOPOLOGY), "MEM_TOPOLOGY");
	CHECK(perfdata_feature_name(40) == NULL);
}

TEST_MAIN(
	TEST_CASE(test_file_native),
	TEST_CASE(test_file_foreign_endian),
	TEST_CASE(test_file_attr_136),
	TEST_CASE(test_file_attr_136_foreign),
	TEST_CASE(test_file_attr_future_size),
	TEST_CASE(test_file_attr_sizes_72_to_120),
	TEST_CASE(test_file_abi0),
	TEST_CASE(test_pipe_format_file),
	TEST_CASE(test_pipe_attr_pointers_stable),
	TEST_CASE(test_pipe_format_real_pipe),
	TEST_CASE(test_pipe_event_update_names),
	TEST_CASE(test_pipe_event_update_real_pipe),
	TEST_CASE(test_file_format_through_pipe),
	TEST_CASE(test_open_stdin),
	TEST_CASE(test_ordering_rounds),
	TEST_CASE(test_queue_limit),
	TEST_CASE(test_unknown_sample_id),
	TEST_CASE(test_compressed),
	TEST_CASE(test_damage_header),
	TEST_CASE(test_damage_data),
	TEST_CASE(test_damage_feature),
	TEST_CASE(test_unfinished_file),
	TEST_CASE(test_open_missing),
	TEST_CASE(test_open_mem),
	TEST_CASE(test_names),
)
