/* The perf.data reader on the real recordings in fixtures/real/: header,
 * attrs and record counts against known values, and, when perf is
 * installed, against perf itself: `perf report --stats` (records per type),
 * `perf report --header-only` (host facts) and `perf script` (the exact
 * delivery order of samples and side-band, which decides what is mapped
 * when a sample is resolved). */
#include "tests/unit/test.h"

#include "collector/perfdata/perfdata.h"

#include <ctype.h>
#include <sys/wait.h>

struct want_attr {
	uint32_t size;
	uint64_t sample_type;
	uint32_t nr_ids;
	const char *name;
};

struct want {
	const char *file;
	const char *hostname;
	const char *cpudesc;
	uint32_t online, avail;
	size_t nr_attrs;
	struct want_attr attrs[2];
	uint64_t records, samples, mmap, mmap2, comm, rounds;
	bool cpu_topo, caches;
};

/* From `perf report --header-only`, `perf evlist -v` and `perf report
 * --stats` (perf 6.1) on each file. */
static const struct want wants[] = {
	{ "amd-zen2-ibs-c2c.data", "zeik", "AMD Ryzen 5 3600 6-Core Processor", 12, 12, 1,
	  { { 128, 0x8c18f, 12, "ibs_op//" } }, 1327, 1152, 150, 0, 2, 1, true, true },
	{ "intel-cml-c2c-stores.data", "vipin-hppc", "Intel(R) Core(TM) i7-10700 CPU @ 2.90GHz", 16, 16, 2,
	  { { 112, 0x8c1cf, 16, "cpu/mem-loads,ldlat=30/P" }, { 112, 0x8c1cf, 16, "cpu/mem-stores/P" } },
	  42, 18, 0, 13, 2, 1, true, true },
	{ "intel-ivb-perf-mem-old-abi.data", "seapearl.pnl.gov", "Intel(R) Xeon(R) CPU E5-2650 v2 @ 2.60GHz", 32, 32,
	  1, { { 96, 0xc00f, 0, "cpu/mem-loads/pp" } }, 275, 253, 20, 0, 1, 0, false, false },
	{ "intel-ivb-perf-mem-percpu.data", "server3", "Intel(R) Xeon(R) CPU E5-4610 v2 @ 2.30GHz", 32, 64, 1,
	  { { 112, 0xc10f, 0, "cpu/mem-loads/pp" } }, 148, 14, 87, 43, 2, 1, false, false },
	{ "intel-skx-weight-struct.data", "oxco15.prod.google.com", "Intel(R) Xeon(R) Platinum 8173M CPU @ 2.00GHz",
	  112, 112, 2,
	  { { 96, 0x10080cf, 112, "MEM_TRANS_RETIRED.LOAD_LATENCY:ldlat=64:precise=2:mh:mg:pinned" },
	    { 96, 0x10080cf, 112, "dummy:HG" } },
	  12964, 14, 15, 6930, 2959, 30, true, false },
};

static bool have_perf(void)
{
	return system("perf --version >/dev/null 2>&1") == 0;
}

static const char *fixture_or_skip(const char *name)
{
	char rel[128];
	const char *path;

	snprintf(rel, sizeof(rel), "real/%s", name);
	path = test_fixture(rel);
	if (!path)
		test_skip("fixture absent (set C2C_FIXTURES)");
	return path;
}

static void check_known(const struct want *w)
{
	const char *path = fixture_or_skip(w->file);
	struct perfdata *pd;
	struct c2c_error err;
	struct perfdata_record r;
	const struct perfdata_header *h;
	const struct perfdata_stats *st;
	uint64_t samples = 0, with_addr = 0, n = 0;
	int rc;

	if (!path)
		return;
	CHECK(perfdata_open(&pd, path, &err) == 0);
	h = perfdata_header(pd);
	CHECK_STR(h->hostname, w->hostname);
	CHECK_STR(h->cpudesc, w->cpudesc);
	CHECK_EQ_U64(h->nr_cpus_online, w->online);
	CHECK_EQ_U64(h->nr_cpus_avail, w->avail);
	CHECK(h->arch && strcmp(h->arch, "x86_64") == 0);
	CHECK(h->cmdline != NULL);
	CHECK(h->nr_numa_nodes >= 1);
	CHECK_EQ_U64(h->nr_cpu_topo != 0, w->cpu_topo);
	CHECK_EQ_U64(h->nr_caches != 0, w->caches);
	if (w->caches)
		CHECK_EQ_U64(h->caches[0].line_size, 64);
	CHECK_EQ_U64(h->nr_bad_features, 0);
	CHECK_EQ_U64(perfdata_nr_attrs(pd), w->nr_attrs);
	for (size_t i = 0; i < w->nr_attrs; i++) {
		const struct perf_attr_info *a = perfdata_attr(pd, i);
		CHECK_EQ_U64(a->size, w->attrs[i].size);
		CHECK_EQ_U64(a->sample_type, w->attrs[i].sample_type);
		CHECK_EQ_U64(a->nr_ids, w->attrs[i].nr_ids);
		CHECK_STR(a->name, w->attrs[i].name);
		CHECK(a->sample_id_all);
	}
	while ((rc = perfdata_next(pd, &r, &err)) > 0) {
		n++;
		if (r.kind == PERFDATA_SAMPLE) {
			samples++;
			with_addr += r.u.sample.addr != 0;
			CHECK(r.u.sample.has & C2C_HAS_DATA_SRC);
			CHECK(r.u.sample.has & C2C_HAS_WEIGHT);
		}
	}
	if (rc < 0) {
		test_failf(__FILE__, __LINE__, "read failed: %s", err.msg);
		perfdata_close(pd);
		return;
	}
	st = perfdata_stats(pd);
	CHECK_EQ_U64(samples, w->samples);
	CHECK(with_addr > 0);
	CHECK_EQ_U64(st->records_total, w->records);
	CHECK_EQ_U64(st->records[PERF_REC_SAMPLE], w->samples);
	CHECK_EQ_U64(st->records[PERF_REC_MMAP], w->mmap);
	CHECK_EQ_U64(st->records[PERF_REC_MMAP2], w->mmap2);
	CHECK_EQ_U64(st->records[PERF_REC_COMM], w->comm);
	CHECK_EQ_U64(st->records[PERF_REC_FINISHED_ROUND], w->rounds);
	CHECK_EQ_U64(st->unknown_records + st->bad_records + st->unknown_id_samples, 0);
	CHECK(!st->truncated);
	perfdata_close(pd);
}

static void test_fixtures_known_values(void)
{
	for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++) {
		check_known(&wants[i]);
		if (test_current.failed || test_current.skipped) {
			if (test_current.failed)
				printf("# in %s\n", wants[i].file);
			return;
		}
	}
}

/* `perf report --stats`: every "NAME events: N" of the aggregated block. */
static void compare_stats(const char *path)
{
	char cmd[1024], line[512];
	struct perfdata *pd;
	struct c2c_error err;
	struct perfdata_record r;
	const struct perfdata_stats *st;
	FILE *f;
	int checked = 0;

	CHECK(perfdata_open(&pd, path, &err) == 0);
	while (perfdata_next(pd, &r, &err) > 0)
		;
	st = perfdata_stats(pd);
	snprintf(cmd, sizeof(cmd), "perf report -f --stats -i '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	CHECK(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		char name[64];
		unsigned long long n;
		if (strstr(line, " stats:") && checked)
			break;   /* per-event blocks follow the aggregated one */
		if (sscanf(line, " %63s events: %llu", name, &n) != 2)
			continue;
		if (strcmp(name, "TOTAL") == 0) {
			if (st->records_total != n)
				test_failf(__FILE__, __LINE__, "%s: TOTAL %llu per perf, %" PRIu64 " read", path, n,
					   st->records_total);
		} else {
			uint32_t t;
			for (t = 0; t < PERF_REC_TYPE_MAX; t++)
				if (strcmp(perfdata_type_name(t), name) == 0)
					break;
			if (t == PERF_REC_TYPE_MAX)
				test_failf(__FILE__, __LINE__, "%s: perf counts unknown record type %s", path, name);
			else if (st->records[t] != n)
				test_failf(__FILE__, __LINE__, "%s: %s %llu per perf, %" PRIu64 " read", path, name, n,
					   st->records[t]);
		}
		checked++;
	}
	pclose(f);
	perfdata_close(pd);
	if (!test_current.failed && checked < 3)
		test_failf(__FILE__, __LINE__, "%s: perf report --stats printed too little", path);
}

/* `perf report --header-only`: hostname, nrcpus, cpudesc lines. */
static void compare_header(const char *path)
{
	char cmd[1024], line[1024];
	struct perfdata *pd;
	struct c2c_error err;
	const struct perfdata_header *h;
	FILE *f;
	int checked = 0;

	CHECK(perfdata_open(&pd, path, &err) == 0);
	h = perfdata_header(pd);
	snprintf(cmd, sizeof(cmd), "perf report -f --header-only -i '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	CHECK(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		char *v = strstr(line, " : ");
		unsigned long long n;
		if (!v)
			continue;
		v += 3;
		v[strcspn(v, "\n")] = 0;
		if (strncmp(line, "# hostname ", 11) == 0) {
			checked++;
			if (strcmp(v, h->hostname) != 0)
				test_failf(__FILE__, __LINE__, "hostname \"%s\" per perf, \"%s\" read", v, h->hostname);
		} else if (strncmp(line, "# cpudesc ", 10) == 0) {
			checked++;
			if (strcmp(v, h->cpudesc) != 0)
				test_failf(__FILE__, __LINE__, "cpudesc \"%s\" per perf, \"%s\" read", v, h->cpudesc);
		} else if (strncmp(line, "# nrcpus online ", 16) == 0 && sscanf(v, "%llu", &n) == 1) {
			checked++;
			if (n != h->nr_cpus_online)
				test_failf(__FILE__, __LINE__, "nrcpus online %llu per perf, %u read", n, h->nr_cpus_online);
		} else if (strncmp(line, "# nrcpus avail ", 15) == 0 && sscanf(v, "%llu", &n) == 1) {
			checked++;
			if (n != h->nr_cpus_avail)
				test_failf(__FILE__, __LINE__, "nrcpus avail %llu per perf, %u read", n, h->nr_cpus_avail);
		} else if (strncmp(line, "# total memory ", 15) == 0 && sscanf(v, "%llu", &n) == 1) {
			checked++;
			if (n != h->total_mem_kb)
				test_failf(__FILE__, __LINE__, "total memory %llu per perf, %" PRIu64 " read", n,
					   h->total_mem_kb);
		} else if (strncmp(line, "# os release ", 13) == 0) {
			checked++;
			if (strcmp(v, h->osrelease) != 0)
				test_failf(__FILE__, __LINE__, "os release \"%s\" per perf, \"%s\" read", v, h->osrelease);
		}
	}
	pclose(f);
	perfdata_close(pd);
	if (!test_current.failed && checked != 6)
		test_failf(__FILE__, __LINE__, "%s: found %d of 6 header lines in perf's output", path, checked);
}

/* One delivered record, in the shape perf script prints it. */
static void format_record(const struct perfdata_record *r, char *buf, size_t len)
{
	uint64_t t;
	int32_t pid, tid;

	if (r->kind == PERFDATA_SAMPLE) {
		t = r->u.sample.time;
		snprintf(buf, len, "SAMPLE %d/%d %" PRIu64 ".%06" PRIu64 " %" PRIx64, r->u.sample.pid, r->u.sample.tid,
			 t / 1000000000, t % 1000000000 / 1000, r->u.sample.ip);
		return;
	}
	t = r->sid.time;
	pid = (r->sid.has & PERF_SID_TID) ? r->sid.pid : -1;
	tid = (r->sid.has & PERF_SID_TID) ? r->sid.tid : -1;
	snprintf(buf, len, "PERF_RECORD_%s %d/%d %" PRIu64 ".%06" PRIu64, perfdata_type_name(r->type), pid, tid,
		 t / 1000000000, t % 1000000000 / 1000);
}

/* The order perf script delivers samples, MMAP/MMAP2 and COMM/FORK/EXIT
 * must be ours, record for record. */
static void compare_order(const char *path)
{
	char cmd[1024], line[4096], mine[256], theirs[256];
	struct perfdata *pd;
	struct c2c_error err;
	struct perfdata_record r;
	FILE *f;
	uint64_t n = 0;
	int rc;

	CHECK(perfdata_open(&pd, path, &err) == 0);
	snprintf(cmd, sizeof(cmd),
		 "perf script -f -i '%s' --show-mmap-events --show-task-events -F pid,tid,time,ip 2>/dev/null", path);
	f = popen(cmd, "r");
	CHECK(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		int pid, tid;
		unsigned long long s, us;
		char tok[128];

		if (sscanf(line, " %d/%d %llu.%llu: %127s", &pid, &tid, &s, &us, tok) != 5)
			continue;
		if (strncmp(tok, "PERF_RECORD_", 12) == 0) {
			size_t k = 12;
			while (tok[k] && (isupper((unsigned char)tok[k]) || isdigit((unsigned char)tok[k]) || tok[k] == '_'))
				k++;
			tok[k] = 0;
			snprintf(theirs, sizeof(theirs), "%s %d/%d %llu.%06llu", tok, pid, tid, s, us);
		} else {
			snprintf(theirs, sizeof(theirs), "SAMPLE %d/%d %llu.%06llu %llx", pid, tid, s, us,
				 strtoull(tok, NULL, 16));
		}
		/* our next record of a kind perf script shows */
		for (;;) {
			rc = perfdata_next(pd, &r, &err);
			if (rc <= 0)
				break;
			if (r.kind == PERFDATA_SAMPLE || r.kind == PERFDATA_MMAP || r.kind == PERFDATA_COMM ||
			    r.kind == PERFDATA_FORK || r.kind == PERFDATA_EXIT)
				break;
		}
		if (rc <= 0) {
			test_failf(__FILE__, __LINE__, "%s: perf shows more records, from #%" PRIu64 ": %s", path, n,
				   theirs);
			break;
		}
		format_record(&r, mine, sizeof(mine));
		if (strcmp(mine, theirs) != 0) {
			test_failf(__FILE__, __LINE__, "%s: record #%" PRIu64 " is \"%s\", perf script says \"%s\"",
				   path, n, mine, theirs);
			break;
		}
		n++;
	}
	pclose(f);
	if (!test_current.failed) {
		while ((rc = perfdata_next(pd, &r, &err)) > 0)
			if (r.kind == PERFDATA_SAMPLE || r.kind == PERFDATA_MMAP)
				break;
		if (rc > 0)
			test_failf(__FILE__, __LINE__, "%s: we deliver more records than perf script", path);
		if (n < 10)
			test_failf(__FILE__, __LINE__, "%s: perf script printed only %" PRIu64 " records", path, n);
	}
	perfdata_close(pd);
}

static void for_each_fixture_with_perf(void (*fn)(const char *path))
{
	if (!have_perf()) {
		test_skip("perf is not installed");
		return;
	}
	for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++) {
		const char *path = fixture_or_skip(wants[i].file);
		if (!path)
			return;
		fn(path);
		if (test_current.failed)
			return;
	}
}

static void test_fixtures_stats_match_perf(void) { for_each_fixture_with_perf(compare_stats); }
static void test_fixtures_header_matches_perf(void) { for_each_fixture_with_perf(compare_header); }
static void test_fixtures_order_matches_perf_script(void) { for_each_fixture_with_perf(compare_order); }

/* Ordered delivery is a permutation of file order: the same samples come
 * out, none lost or doubled by the queue. */
static void test_fixtures_ordered_vs_file_order(void)
{
	for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++) {
		const char *path = fixture_or_skip(wants[i].file);
		struct perfdata *a, *b;
		struct c2c_error err;
		struct perfdata_record r;
		uint64_t sum_a = 0, sum_b = 0, na = 0, nb = 0;

		if (!path)
			return;
		CHECK(perfdata_open(&a, path, &err) == 0);
		CHECK(perfdata_open(&b, path, &err) == 0);
		perfdata_set_ordered(b, false);
		while (perfdata_next(a, &r, &err) > 0)
			if (r.kind == PERFDATA_SAMPLE) {
				na++;
				sum_a += r.u.sample.time ^ r.u.sample.addr;
			}
		while (perfdata_next(b, &r, &err) > 0)
			if (r.kind == PERFDATA_SAMPLE) {
				nb++;
				sum_b += r.u.sample.time ^ r.u.sample.addr;
			}
		perfdata_close(a);
		perfdata_close(b);
		CHECK_EQ_U64(na, nb);
		CHECK_EQ_U64(sum_a, sum_b);
	}
}

/* Records with the installed perf (software events and tracepoints work
 * without a PMU) into the test's temp dir; pipe: with -o - into the file.
 * The sleeps block, so sched:sched_switch fires even on an idle machine
 * where the busy loop alone is never switched out. */
static const char *record_with_perf(const char *name, const char *opts, bool pipe)
{
	static char path[512];
	char cmd[1536];

	if (!have_perf()) {
		test_skip("perf is not installed");
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/%s", test_tmpdir(), name);
	snprintf(cmd, sizeof(cmd),
		 "perf record -q %s -o %s -- sh -c 'i=0; while [ $i -lt 10000 ]; do i=$((i+1)); done; sleep 0.01; sleep 0.01' %s'%s' 2>/dev/null",
		 opts, pipe ? "-" : path, pipe ? ">" : ">/dev/null; : ", path);
	if (system(cmd) != 0) {
		test_skip("perf record cannot record these events here");
		return NULL;
	}
	return path;
}

static void check_recorded(const char *path, bool compressed, bool tracepoint, bool pipe)
{
	struct perfdata *pd;
	struct c2c_error err;
	struct perfdata_record r;
	uint64_t raw = 0, samples = 0;
	int rc;

	/* perf 6.1's report --stats stops early on pipe files with tracing
	 * data ("unexpected end of event stream"); perf script reads them. */
	if (!pipe)
		compare_stats(path);
	if (test_current.failed)
		return;
	compare_order(path);
	if (test_current.failed)
		return;
	CHECK(perfdata_open(&pd, path, &err) == 0);
	CHECK(perfdata_header(pd)->pipe == pipe);
	while ((rc = perfdata_next(pd, &r, &err)) > 0) {
		if (r.kind != PERFDATA_SAMPLE)
			continue;
		samples++;
		raw += r.u.sample.raw_size != 0;
	}
	CHECK(rc == 0);
	CHECK(samples > 0);
	CHECK(perfdata_header(pd)->hostname != NULL);
	CHECK(perfdata_header(pd)->cmdline != NULL);
	if (compressed)
		CHECK(perfdata_stats(pd)->compressed_records > 0);
	if (tracepoint) {
		CHECK(raw > 0);
		CHECK(perfdata_header(pd)->tracing_data_size > 0);
		CHECK_EQ_U64(perfdata_nr_attrs(pd), 2);
		CHECK_STR(perfdata_attr(pd, 1)->name, "sched:sched_switch");
	}
	perfdata_close(pd);
}

static void test_perf_recorded_compressed(void)
{
	const char *path = record_with_perf("z.data", "-z -e cpu-clock/period=200000/", false);
	if (path)
		check_recorded(path, true, false, false);
}

static void test_perf_recorded_tracepoint(void)
{
	const char *path = record_with_perf("tp.data", "-e cpu-clock/period=200000/ -e sched:sched_switch", false);
	if (path)
		check_recorded(path, false, true, false);
}

static void test_perf_recorded_pipe(void)
{
	const char *path = record_with_perf("pipe.data", "-e cpu-clock/period=200000/ -e sched:sched_switch", true);
	if (path)
		check_recorded(path, false, true, true);
}

TEST_MAIN(
	TEST_CASE(test_fixtures_known_values),
	TEST_CASE(test_perf_recorded_compressed),
	TEST_CASE(test_perf_recorded_tracepoint),
	TEST_CASE(test_perf_recorded_pipe),
	TEST_CASE(test_fixtures_stats_match_perf),
	TEST_CASE(test_fixtures_header_matches_perf),
	TEST_CASE(test_fixtures_order_matches_perf_script),
	TEST_CASE(test_fixtures_ordered_vs_file_order),
)
