/* Symbols against real perf.data files: the "No Page Map Rejects" count
 * of `perf c2c report` must come out of symtab_sample_nomap(), and on a
 * fresh software-event recording made here, every code address must get
 * the function+offset and binary that `perf script` shows. The walker
 * here is deliberately tiny and test-only (little-endian file format,
 * no compression, the sample fields c2c files carry) so that this test
 * does not depend on the perf.data reader it is meant to cross-check. */
#include <stdbool.h>

#include "collector/perfdata/perfdata.h"
#include "collector/symbols/symbols.h"
#include "tests/unit/test.h"

#define ST_IP (1u << 0)
#define ST_TID (1u << 1)
#define ST_TIME (1u << 2)
#define ST_ADDR (1u << 3)
#define ST_READ (1u << 4)
#define ST_CALLCHAIN (1u << 5)
#define ST_ID (1u << 6)
#define ST_CPU (1u << 7)
#define ST_PERIOD (1u << 8)
#define ST_STREAM_ID (1u << 9)
#define ST_RAW (1u << 10)
#define ST_BRANCH (1u << 11)
#define ST_REGS_USER (1u << 12)
#define ST_STACK_USER (1u << 13)
#define ST_WEIGHT (1u << 14)
#define ST_DATA_SRC (1u << 15)
#define ST_IDENTIFIER (1u << 16)
#define ST_WEIGHT_STRUCT (1u << 24)

struct rec {
	const uint8_t *p;        /* record header */
	uint64_t time;
	size_t idx;
};

struct walk {
	uint8_t *buf;
	size_t len;
	uint64_t sample_type;
	bool sample_id_all;
	struct rec *recs;
	size_t nrecs;
};

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static uint16_t rd16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return v;
}

static int rec_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Time of a non-sample record from its sample_id trailer (0 if none). */
static uint64_t trailer_time(const struct walk *w, const uint8_t *p, uint16_t size)
{
	uint64_t st = w->sample_type;
	if (!w->sample_id_all || !(st & ST_TIME))
		return 0;
	size_t n = 0;
	uint64_t bits[] = { ST_TID, ST_TIME, ST_ID, ST_STREAM_ID, ST_CPU, ST_IDENTIFIER };
	for (size_t i = 0; i < 6; i++)
		n += (st & bits[i]) ? 8 : 0;
	if (n > size - 8u)
		return 0;
	const uint8_t *t = p + size - n;
	return rd64(t + ((st & ST_TID) ? 8 : 0));
}

/* Sample fields c2c needs; false when the layout is beyond this walker. */
static bool parse_sample(const struct walk *w, const uint8_t *p, struct c2c_sample *s)
{
	uint64_t st = w->sample_type;
	uint16_t size = rd16(p + 6);
	const uint8_t *q = p + 8, *end = p + size;
	memset(s, 0, sizeof(*s));
	s->cpumode = rd16(p + 4) & 7;
	if (st & (ST_READ | ST_BRANCH | ST_REGS_USER | ST_STACK_USER))
		return false;
	if (st & ST_IDENTIFIER) q += 8;
	if (st & ST_IP) { s->ip = rd64(q); q += 8; }
	if (st & ST_TID) { s->pid = (int32_t)rd32(q); s->tid = (int32_t)rd32(q + 4); q += 8; }
	if (st & ST_TIME) { s->time = rd64(q); q += 8; }
	if (st & ST_ADDR) { s->addr = rd64(q); q += 8; }
	if (st & ST_ID) q += 8;
	if (st & ST_STREAM_ID) q += 8;
	if (st & ST_CPU) { s->cpu = rd32(q); q += 8; }
	if (st & ST_PERIOD) q += 8;
	if (st & ST_CALLCHAIN) { uint64_t nr = rd64(q); q += 8 + 8 * nr; }
	if (st & ST_RAW) { uint32_t rs = rd32(q); q += 4 + rs; }
	if (st & (ST_WEIGHT | ST_WEIGHT_STRUCT)) q += 8;
	if (st & ST_DATA_SRC) { s->data_src = rd64(q); q += 8; }
	return q <= end;
}

/* Loads the file and its records sorted by time (perf's ordered events
 * flush in time order; ties keep file order). */
static const char *walk_open(struct walk *w, const char *path)
{
	memset(w, 0, sizeof(*w));
	FILE *f = fopen(path, "rb");
	if (!f)
		return "cannot open";
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	w->buf = malloc((size_t)len);
	if (!w->buf || fread(w->buf, 1, (size_t)len, f) != (size_t)len) {
		fclose(f);
		return "cannot read";
	}
	fclose(f);
	w->len = (size_t)len;
	if (w->len < 104 || memcmp(w->buf, "PERFILE2", 8) != 0)
		return "not a little-endian PERFILE2 file";
	uint64_t attr_size = rd64(w->buf + 16);
	uint64_t attrs_off = rd64(w->buf + 24), attrs_sz = rd64(w->buf + 32);
	uint64_t data_off = rd64(w->buf + 40), data_sz = rd64(w->buf + 48);
	if (attr_size < 48 || attrs_off + attrs_sz > w->len || data_off + data_sz > w->len)
		return "bad header";
	for (uint64_t a = 0; a + attr_size <= attrs_sz; a += attr_size) {
		const uint8_t *attr = w->buf + attrs_off + a;
		uint64_t st = rd64(attr + 24);
		if (a && st != w->sample_type)
			return "attrs with different sample_type";
		w->sample_type = st;
		w->sample_id_all = (rd64(attr + 40) >> 18) & 1;
	}
	size_t cap = 0;
	for (uint64_t o = data_off; o + 8 <= data_off + data_sz;) {
		const uint8_t *p = w->buf + o;
		uint16_t size = rd16(p + 6);
		if (size < 8)
			return "bad record size";
		uint32_t type = rd32(p);
		if (type == 81)
			return "compressed records";
		if (w->nrecs == cap) {
			cap = cap ? cap * 2 : 1024;
			w->recs = realloc(w->recs, cap * sizeof(*w->recs));
		}
		uint64_t t = 0;
		if (type == 9) {
			struct c2c_sample s;
			if (!parse_sample(w, p, &s))
				return "sample layout not handled by the test walker";
			t = s.time;
		} else {
			t = trailer_time(w, p, size);
		}
		w->recs[w->nrecs] = (struct rec){ p, t, w->nrecs };
		w->nrecs++;
		o += size;
	}
	qsort(w->recs, w->nrecs, sizeof(*w->recs), rec_cmp);
	return NULL;
}

static void walk_close(struct walk *w)
{
	free(w->buf);
	free(w->recs);
}

/* Feeds side-band records only; calls fn for each sample in time order. */
static int walk_samples(struct walk *w, struct symtab *st,
			int (*fn)(void *arg, const struct c2c_sample *s), void *arg)
{
	for (size_t i = 0; i < w->nrecs; i++) {
		const uint8_t *p = w->recs[i].p;
		uint32_t type = rd32(p);
		uint16_t misc = rd16(p + 4);
		int rc = 0;
		if (type == 1 || type == 10) {
			struct c2c_mmap m = { 0 };
			m.pid = (int32_t)rd32(p + 8);
			m.tid = (int32_t)rd32(p + 12);
			m.start = rd64(p + 16);
			m.len = rd64(p + 24);
			m.pgoff = rd64(p + 32);
			m.cpumode = misc & 7;
			const uint8_t *q = p + 40;
			if (type == 10) {
				if (misc & (1u << 14)) {
					m.build_id_size = q[0] > 20 ? 20 : q[0];
					memcpy(m.build_id, q + 4, m.build_id_size);
				}
				q += 32;
			}
			m.filename = (const char *)q;
			rc = symtab_mmap(st, &m);
		} else if (type == 3) {
			struct c2c_comm c = {
				.pid = (int32_t)rd32(p + 8), .tid = (int32_t)rd32(p + 12),
				.comm = (const char *)p + 16,
			};
			rc = symtab_comm(st, &c);
		} else if (type == 7 || type == 4) {
			struct c2c_task t = {
				.pid = (int32_t)rd32(p + 8), .ppid = (int32_t)rd32(p + 12),
				.tid = (int32_t)rd32(p + 16), .ptid = (int32_t)rd32(p + 20),
			};
			rc = type == 7 ? symtab_fork_misc(st, &t, misc) : symtab_exit(st, &t);
		} else if (type == 9) {
			struct c2c_sample s;
			parse_sample(w, p, &s);
			rc = fn(arg, &s);
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

struct nomap_count {
	struct symtab *st;
	unsigned nomap, nsamples;
};

/* Only samples that are a load or a store with a data address get as far
 * as the nomap test in c2c_decode_stats (util/mem-events.c). */
static int nomap_sample(void *arg, const struct c2c_sample *s)
{
	struct nomap_count *nc = arg;
	unsigned op = s->data_src & 0x1f;
	nc->nsamples++;
	if ((op & 0x2 || op & 0x4) && s->addr && symtab_sample_nomap(nc->st, s))
		nc->nomap++;
	return 0;
}

/* What perf 6.1 prints for the file, or -1 when perf is not usable.
 * Remembered per file: perf c2c report takes a while. */
static long perf_nomap_run(const char *path);

static long perf_nomap(const char *path)
{
	static struct { char path[4096]; long v; } memo[8];
	static size_t nmemo;
	for (size_t i = 0; i < nmemo; i++)
		if (strcmp(memo[i].path, path) == 0)
			return memo[i].v;
	long v = perf_nomap_run(path);
	if (nmemo < 8) {
		snprintf(memo[nmemo].path, sizeof(memo[nmemo].path), "%s", path);
		memo[nmemo++].v = v;
	}
	return v;
}

static long perf_nomap_run(const char *path)
{
	char cmd[4200];
	snprintf(cmd, sizeof(cmd),
		 "perf c2c report --stdio -i '%s' 2>/dev/null | sed -n 's/.*No Page Map Rejects *: *//p'",
		 path);
	FILE *pf = popen(cmd, "r");
	if (!pf)
		return -1;
	char line[64];
	long v = -1;
	if (fgets(line, sizeof(line), pf))
		v = strtol(line, NULL, 10);
	pclose(pf);
	return v;
}

static void check_fixture(const char *name, long expected_without_perf)
{
	char rel[256];
	snprintf(rel, sizeof(rel), "real/%s", name);
	const char *path = test_fixture(rel);
	if (!path) {
		test_skip("fixture absent");
		return;
	}
	char pathcopy[4096];
	snprintf(pathcopy, sizeof(pathcopy), "%s", path);
	struct walk w;
	const char *why = walk_open(&w, pathcopy);
	if (why) {
		walk_close(&w);
		test_skip(why);
		return;
	}
	struct nomap_count nc = { .st = symtab_new(NULL, NULL) };
	int rc = nc.st ? walk_samples(&w, nc.st, nomap_sample, &nc) : -1;
	unsigned nomap = nc.nomap, ns = nc.nsamples;
	symtab_free(nc.st);
	walk_close(&w);
	CHECK(rc == 0);
	CHECK(ns > 0);
	long want = perf_nomap(pathcopy);
	if (want < 0)
		want = expected_without_perf;  /* what perf 6.1 printed for the file */
	printf("# %s: %u samples, nomap %u, perf says %ld\n", name, ns, nomap, want);
	CHECK_EQ_U64(nomap, want);
}

/* The importer's path: the project's perf.data reader feeding symtab.
 * Same counts as perf, for every fixture. */
static void nomap_through_reader(void)
{
	static const char *const names[] = {
		"amd-zen2-ibs-c2c.data", "intel-cml-c2c-stores.data", "intel-ivb-perf-mem-old-abi.data",
		"intel-ivb-perf-mem-percpu.data", "intel-skx-weight-struct.data",
	};
	unsigned checked = 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char rel[256], path[4096];
		snprintf(rel, sizeof(rel), "real/%s", names[i]);
		const char *fx = test_fixture(rel);
		if (!fx)
			continue;
		snprintf(path, sizeof(path), "%s", fx);
		long want = perf_nomap(path);
		if (want < 0)
			continue;
		struct perfdata *pd;
		struct c2c_error err = { 0 };
		if (perfdata_open(&pd, path, &err) < 0) {
			test_failf(__FILE__, __LINE__, "%s: %s", names[i], err.msg);
			return;
		}
		const struct perfdata_header *h = perfdata_header(pd);
		struct nomap_count nc = { .st = symtab_new(NULL, NULL) };
		CHECK(nc.st);
		for (uint32_t b = 0; b < h->nr_build_ids; b++)
			CHECK(symtab_set_build_id(nc.st, h->build_ids[b].filename, h->build_ids[b].build_id,
						  h->build_ids[b].size) == 0);
		struct perfdata_record rec;
		int rc;
		while ((rc = perfdata_next(pd, &rec, &err)) > 0) {
			int r = 0;
			switch (rec.kind) {
			case PERFDATA_SAMPLE: r = nomap_sample(&nc, &rec.u.sample); break;
			case PERFDATA_MMAP: r = symtab_mmap(nc.st, &rec.u.mmap); break;
			case PERFDATA_COMM: r = symtab_comm(nc.st, &rec.u.comm); break;
			case PERFDATA_FORK: r = symtab_fork_misc(nc.st, &rec.u.task, rec.misc); break;
			case PERFDATA_EXIT: r = symtab_exit(nc.st, &rec.u.task); break;
			default: break;
			}
			if (r < 0)
				rc = r;
			if (rc < 0)
				break;
		}
		symtab_free(nc.st);
		perfdata_close(pd);
		if (rc < 0) {
			test_failf(__FILE__, __LINE__, "%s: %s", names[i], err.msg);
			return;
		}
		printf("# reader %s: nomap %u, perf says %ld\n", names[i], nc.nomap, want);
		CHECK_EQ_U64(nc.nomap, want);
		checked++;
	}
	if (!checked)
		test_skip("no fixture or no perf");
}

static void nomap_amd_zen2_ibs(void) { check_fixture("amd-zen2-ibs-c2c.data", 13); }
static void nomap_intel_cml_stores(void) { check_fixture("intel-cml-c2c-stores.data", 0); }
static void nomap_intel_ivb_old_abi(void) { check_fixture("intel-ivb-perf-mem-old-abi.data", 0); }
static void nomap_intel_ivb_percpu(void) { check_fixture("intel-ivb-perf-mem-percpu.data", 12); }
static void nomap_intel_skx_weight_struct(void) { check_fixture("intel-skx-weight-struct.data", 9); }

struct xcheck {
	struct symtab *st;
	bool data;               /* check the data address, not the ip */
	FILE *perf;              /* perf script output, one line per sample */
	unsigned n, user_sym, kernel_sym, bad;
	char why[1024];
};

static int xcheck_sample(void *arg, const struct c2c_sample *s)
{
	struct xcheck *x = arg;
	char line[1024], sym[512], dso[512];
	unsigned long long ip, off = 0;
	if (!fgets(line, sizeof(line), x->perf)) {
		snprintf(x->why, sizeof(x->why), "perf script printed fewer samples");
		x->bad++;
		return -1;
	}
	x->n++;
	/* " ip sym+0xoff (dso)" or " ip [unknown] (dso)" */
	char *open_p = strrchr(line, '('), *close_p = strrchr(line, ')');
	if (sscanf(line, " %llx %511s", &ip, sym) != 2 || !open_p || !close_p || close_p < open_p)
		return 0;
	snprintf(dso, sizeof(dso), "%.*s", (int)(close_p - open_p - 1), open_p + 1);
	uint64_t want_addr = x->data ? s->addr : s->ip;
	if (ip != want_addr) {
		snprintf(x->why, sizeof(x->why), "sample order differs: perf %llx, walker %" PRIx64,
			 ip, want_addr);
		x->bad++;
		return -1;
	}
	if (strcmp(sym, "[unknown]") == 0)
		return 0;
	char *plus = strrchr(sym, '+');
	if (!plus)
		return 0;
	*plus = '\0';
	off = strtoull(plus + 1, NULL, 16);
	struct sym_code c;
	if (x->data) {
		/* Same fields, from the data address. */
		struct sym_data d;
		if (symtab_resolve_data(x->st, s->pid, s->tid, s->cpumode, s->addr, &d) < 0)
			return -1;
		c = (struct sym_code){ .status = d.status, .dso = d.dso, .function = d.symbol,
				       .offset = d.offset };
	} else if (symtab_resolve_ip(x->st, s->pid, s->tid, s->cpumode, s->ip, &c) < 0) {
		return -1;
	}
	bool kernel = strcmp(dso, "[kernel.kallsyms]") == 0;
	bool same = c.function && strcmp(c.function, sym) == 0 && c.offset == off &&
		    c.dso && (kernel || strcmp(c.dso, dso) == 0);
	if (!same) {
		if (getenv("C2C_SYM_DEBUG"))
			printf("# differ: ip %llx perf %s+0x%llx (%s), ours %s+0x%" PRIx64 " (%s)\n", ip, sym, off,
			       dso, c.function ? c.function : "?", c.offset, sym_status_str(c.status));
		if (!x->bad)
			snprintf(x->why, sizeof(x->why), "ip %llx: perf %.100s+0x%llx (%.150s), ours %.100s+0x%" PRIx64 " (%.150s, %s)",
				 ip, sym, off, dso, c.function ? c.function : "?", c.offset,
				 c.dso ? c.dso : "?", sym_status_str(c.status));
		x->bad++;
	} else if (kernel) {
		x->kernel_sym++;
	} else {
		x->user_sym++;
	}
	return 0;
}

static const char spin_src[] =
	"#include <stdlib.h>\n#include <string.h>\n"
	"volatile long sink;\n"
	"__attribute__((noinline)) long work(long n)\n"
	"{ long s = 0; for (long i = 0; i < n; i++) s += i * 7 % 13; return s; }\n"
	"int main(void)\n{\n\tchar *b = malloc(1 << 20);\n"
	"\tfor (int k = 0; k < 10; k++) { memset(b, k, 1 << 20); sink += work(2000000); }\n"
	"\tfree(b);\n\treturn 0;\n}\n";

/* Touches every page of a .data and a .bss array, the heap, a small global. */
static const char faults_src[] =
	"#include <stdlib.h>\n#include <string.h>\n"
	"char big_data[1 << 20] = { 1 };\n"
	"static char big_bss[1 << 20];\n"
	"long small_var = 3;\n"
	"int main(void)\n{\n"
	"\tfor (int i = 0; i < (1 << 20); i += 4096) { big_data[i + 123] = 2; big_bss[i + 77] = 3; }\n"
	"\tchar *h = malloc(1 << 22);\n\tmemset(h, 1, 1 << 22);\n"
	"\tsmall_var += big_data[5] + big_bss[9] + h[7];\n\tfree(h);\n"
	"\treturn (int)small_var & 1;\n}\n";

/* Compiles src, records it with `perf record EVENT`, then checks every
 * sample's symbol against `perf script` (ip, or with data the address). */
static void perf_script_check(const char *name, const char *src_text, const char *event,
			      bool data, unsigned *nsym)
{
	const char *dir = test_tmpdir();
	char src[512], bin[512], out[512], cmd[2048];
	snprintf(src, sizeof(src), "%s/%s.c", dir, name);
	snprintf(bin, sizeof(bin), "%s/%s", dir, name);
	snprintf(out, sizeof(out), "%s/%s.data", dir, name);
	FILE *f = fopen(src, "w");
	CHECK(f);
	fputs(src_text, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -g -O1 -o '%s' '%s' 2>/dev/null", bin, src);
	if (system(cmd) != 0) {
		test_skip("no C compiler");
		return;
	}
	snprintf(cmd, sizeof(cmd), "perf record -q %s -o '%s' '%s' >/dev/null 2>&1", event, out, bin);
	if (system(cmd) != 0) {
		test_skip("perf record with a software event is not possible here");
		return;
	}
	struct walk w;
	const char *why = walk_open(&w, out);
	if (why) {
		walk_close(&w);
		test_skip(why);
		return;
	}
	snprintf(cmd, sizeof(cmd), "perf script -i '%s' -F %s,sym,symoff,dso 2>/dev/null", out,
		 data ? "addr" : "ip");
	struct symtab_options o = { .use_host_kallsyms = true };
	struct xcheck x = { .st = symtab_new(&o, NULL), .data = data, .perf = popen(cmd, "r") };
	int rc = x.st && x.perf ? walk_samples(&w, x.st, xcheck_sample, &x) : -1;
	if (x.perf)
		pclose(x.perf);
	symtab_free(x.st);
	walk_close(&w);
	printf("# %s: %u samples: %u user and %u kernel symbols as perf script, %u differ%s%s\n",
	       name, x.n, x.user_sym, x.kernel_sym, x.bad, x.bad ? ": " : "", x.why);
	*nsym = x.user_sym;
	CHECK(rc == 0);
	CHECK(x.n > 0);
	CHECK_EQ_U64(x.bad, 0);
}

static void perf_script_agrees(void)
{
	unsigned n = 0;
	perf_script_check("spin", spin_src, "-e cpu-clock -c 50000", false, &n);
	if (!test_current.failed && !test_current.skipped)
		CHECK(n > 0);
}

static void perf_script_data_agrees(void)
{
	unsigned n = 0;
	perf_script_check("faults", faults_src, "-e page-faults -c 1 -d", true, &n);
	if (!test_current.failed && !test_current.skipped)
		CHECK(n >= 256);     /* at least every page of big_data */
}

TEST_MAIN(
	TEST_CASE(nomap_amd_zen2_ibs),
	TEST_CASE(nomap_intel_cml_stores),
	TEST_CASE(nomap_intel_ivb_old_abi),
	TEST_CASE(nomap_intel_ivb_percpu),
	TEST_CASE(nomap_intel_skx_weight_struct),
	TEST_CASE(nomap_through_reader),
	TEST_CASE(perf_script_agrees),
	TEST_CASE(perf_script_data_agrees),
)
