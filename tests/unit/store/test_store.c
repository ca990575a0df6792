/* Unit tests of the session store: create/write/reopen, aggregates equal a
 * recomputation from the samples, row ranges, filters, rejection of wrong
 * files, validity after every commit, append, locks, timeline, search; a
 * bulk load (threads, deferred ids, per-field-set statements, timeline
 * log) writes the same file contents as the plain writer. */
#include "tests/unit/test.h"

#include "store/store.h"
#include "tests/unit/sql_dump.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#define NS 3000

struct tsample {
	struct c2c_sample s;
	struct store_sample_ctx ctx;
};

static struct tsample samples[NS];

static uint64_t ds(uint64_t op, uint64_t lvl, uint64_t snoop)
{
	return (op << PERF_MEM_OP_SHIFT) | (lvl << PERF_MEM_LVL_SHIFT) | (snoop << PERF_MEM_SNOOP_SHIFT);
}

/* A deterministic mix: 40 lines, a few hot with HITMs, stores, L1 hits. */
static void make_samples(void)
{
	static const uint64_t kinds[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* filled below */
	};
	uint64_t dsrc[6];
	uint32_t seed = 12345;
	(void)kinds;
	dsrc[0] = ds(PERF_MEM_OP_LOAD, PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_HITM);        /* lcl hitm */
	dsrc[1] = ds(PERF_MEM_OP_LOAD, PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_HITM);  /* rmt hitm */
	dsrc[2] = ds(PERF_MEM_OP_STORE, PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NA);         /* st l1 hit */
	dsrc[3] = ds(PERF_MEM_OP_LOAD, PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NONE);        /* l1 hit */
	dsrc[4] = ds(PERF_MEM_OP_LOAD, PERF_MEM_LVL_LFB | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NONE);       /* lfb */
	dsrc[5] = ds(PERF_MEM_OP_STORE, PERF_MEM_LVL_L1 | PERF_MEM_LVL_MISS, PERF_MEM_SNOOP_NA);        /* st l1 miss */
	for (int i = 0; i < NS; i++) {
		seed = seed * 1103515245u + 12345u;
		uint32_t r = seed >> 8;
		struct c2c_sample *s = &samples[i].s;
		memset(&samples[i], 0, sizeof(samples[i]));
		s->has = C2C_HAS_IP | C2C_HAS_TID | C2C_HAS_TIME | C2C_HAS_ADDR | C2C_HAS_CPU | C2C_HAS_WEIGHT |
			 C2C_HAS_DATA_SRC;
		s->time = 1000000 + (uint64_t)i * 1000;
		s->cpu = r % 8;
		s->pid = 100 + (int32_t)(r % 3);
		s->tid = s->pid * 10 + (int32_t)((r >> 4) % 4);
		/* Lines: skewed so that a few are hot. */
		uint32_t line = (r >> 6) % 40;
		if ((r >> 12) % 3 == 0)
			line %= 4;
		s->addr = 0x7f0000001000ull + line * 64 + ((r >> 14) % 8) * 8;
		s->ip = 0x401000 + ((r >> 18) % 6) * 0x10;
		s->weight = 20 + (r >> 20) % 300;
		s->data_src = dsrc[line < 4 ? (r >> 22) % 6 : 2 + (r >> 22) % 4];
		s->cpumode = C2C_MODE_USER;
		samples[i].ctx.class_bits = c2c_classify(s->data_src, s->addr, true, true);
		samples[i].ctx.node = (int32_t)(s->cpu / 4);
	}
}

static const char *tmp_path(const char *name)
{
	static char buf[8][512];
	static int k;
	char *p = buf[k++ % 8];
	snprintf(p, 512, "%s/%s", test_tmpdir(), name);
	return p;
}

/* Writes samples [from, to) with sites and a data symbol. */
static int write_samples(struct store *st, int from, int to, struct c2c_error *err)
{
	for (int i = from; i < to; i++) {
		struct tsample *t = &samples[i];
		char fn[32];
		snprintf(fn, sizeof(fn), "func_%llx", (unsigned long long)(t->s.ip & 0xfff));
		struct store_site_info si = { .ip = t->s.ip, .pid = t->s.pid, .cpumode = C2C_MODE_USER, .function = fn,
					      .offset = 4, .dso = "/usr/bin/demo", .file = "demo.c", .line = 42 };
		int64_t site = store_site_intern(st, &si, err);
		if (site <= 0)
			return -1;
		struct store_dsym_info di = { .name = "shared_counters", .start = 0x7f0000001000ull, .size = 40 * 64,
					      .pid = t->s.pid, .dso = "[heap]" };
		int64_t dsym = store_dsym_intern(st, &di, err);
		if (dsym <= 0)
			return -1;
		t->ctx.site = site;
		t->ctx.dsym = dsym;
		t->ctx.dsym_offset = t->s.addr - di.start;
		int64_t chain[3] = { site, site + 1000, 77 };
		(void)chain;
		if (store_add_sample(st, &t->s, &t->ctx, err) < 0)
			return -1;
	}
	return 0;
}

static struct store *make_session(const char *name, int nsamples)
{
	struct c2c_error err = { 0 };
	struct store *st;
	static int made;

	if (!made++)
		make_samples();
	if (store_create(&st, tmp_path(name), &err) < 0) {
		printf("# %s\n", err.msg);
		return NULL;
	}
	store_set_meta(st, STORE_META_HOST, "testhost", &err);
	store_set_meta(st, STORE_META_CACHELINE, "64", &err);
	struct store_event ev = { .index = 0, .name = "cpu/mem-loads,ldlat=30/P", .attr_type = 4, .config = 0x1cd };
	store_add_event(st, &ev, &err);
	for (uint32_t c = 0; c < 8; c++) {
		struct store_cpu cpu = { .cpu = c, .core = (int32_t)c, .socket = (int32_t)(c / 4), .node = (int32_t)(c / 4) };
		store_add_cpu(st, &cpu, &err);
	}
	if (write_samples(st, 0, nsamples, &err) < 0 || store_finalize(st, &err) < 0) {
		printf("# %s\n", err.msg);
		store_close(st);
		return NULL;
	}
	return st;
}

static bool stats_eq(const struct c2c_stats *a, const struct c2c_stats *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* Recomputed from the sample array. */
static void recompute(int n, uint64_t line, int cpu, uint64_t t0, uint64_t t1, struct c2c_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < n; i++) {
		const struct c2c_sample *s = &samples[i].s;
		if (line != UINT64_MAX && (s->addr & ~63ull) != line)
			continue;
		if (cpu >= 0 && (int)s->cpu != cpu)
			continue;
		if (t0 && s->time < t0)
			continue;
		if (t1 && s->time >= t1)
			continue;
		c2c_stats_add_bits(out, samples[i].ctx.class_bits);
	}
}

static void test_create_reopen(void)
{
	struct c2c_error err = { 0 };
	struct store *st = make_session("a.db", NS);
	char buf[64];

	CHECK(st);
	store_close(st);
	CHECK(store_open(&st, tmp_path("a.db"), STORE_OPEN_RDONLY, &err) == 0);
	CHECK(store_get_meta(st, STORE_META_HOST, buf, sizeof(buf)) == 8);
	CHECK_STR(buf, "testhost");
	CHECK(store_get_meta(st, "nope", buf, sizeof(buf)) == -ENOENT);
	CHECK(store_get_meta(st, STORE_META_FINALIZED, buf, sizeof(buf)) == 1);
	CHECK_EQ_U64(store_get_counter(st, STORE_CNT_SAMPLES), NS);
	CHECK(store_cpu_node(st, 5) == 1);
	CHECK(store_cpu_node(st, 99) == -1);
	struct store_event_row *ev;
	size_t nev;
	CHECK(store_query_events(st, &ev, &nev, &err) == 0);
	CHECK(nev == 1);
	CHECK_STR(ev[0].name, "cpu/mem-loads,ldlat=30/P");
	CHECK_EQ_U64(ev[0].nr_samples, NS);
	free(ev);
	/* Writing to a read-only session fails cleanly. */
	CHECK(store_set_meta(st, "x", "y", &err) == -EROFS);
	store_close(st);
}

static void test_aggregates_match(void)
{
	struct c2c_error err = { 0 };
	struct store *st = make_session("b.db", NS);
	struct store_summary sum;
	struct c2c_stats want, acc;

	CHECK(st);
	CHECK(store_query_summary(st, NULL, &sum, &err) == 0);
	recompute(NS, UINT64_MAX, -1, 0, 0, &want);
	CHECK(stats_eq(&sum.total, &want));
	CHECK(want.tot_hitm > 0 && want.store > 0);
	CHECK_EQ_U64(sum.nr_samples, NS);
	CHECK_EQ_U64(sum.nr_lines, 40);
	CHECK_EQ_U64(sum.nr_cpus_seen, 8);
	CHECK_EQ_U64(sum.nr_nodes_seen, 2);
	CHECK_EQ_U64(sum.nr_shared_lines, 4);
	CHECK_EQ_U64(sum.time_first, 1000000);

	struct store_lines_query q;
	struct store_line_row *rows;
	size_t n;
	uint64_t total;
	store_lines_query_init(&q);
	q.show_all = true;
	CHECK(store_query_lines(st, &q, &rows, &n, &total, &err) == 0);
	CHECK_EQ_U64(total, 40);
	CHECK_EQ_U64(n, 40);
	memset(&acc, 0, sizeof(acc));
	for (size_t i = 0; i < n; i++) {
		recompute(NS, rows[i].addr, -1, 0, 0, &want);
		if (!stats_eq(&rows[i].stats, &want)) {
			free(rows);
			CHECK(!"line stats differ from recomputation");
		}
		c2c_stats_add(&acc, &rows[i].stats);
		if (i)
			CHECK(rows[i - 1].stats.tot_hitm >= rows[i].stats.tot_hitm);
		CHECK_STR(rows[i].symbol, "shared_counters");
		CHECK(rows[i].nr_cpus >= 1 && rows[i].nr_cpus <= 8);
	}
	CHECK(stats_eq(&acc, &sum.total));

	/* Offsets, Pareto rows, CPUs and nodes of the hottest line add up. */
	uint64_t hot = rows[0].addr;
	struct c2c_stats line_stats = rows[0].stats;
	uint32_t nr_offsets = rows[0].nr_offsets;
	free(rows);
	struct store_offset_row *offs;
	CHECK(store_query_line_offsets(st, hot, NULL, false, &offs, &n, &err) == 0);
	CHECK_EQ_U64(n, nr_offsets);
	memset(&acc, 0, sizeof(acc));
	for (size_t i = 0; i < n; i++)
		c2c_stats_add(&acc, &offs[i].stats);
	free(offs);
	CHECK(stats_eq(&acc, &line_stats));
	struct store_pareto_row *par;
	CHECK(store_query_line_pareto(st, hot, NULL, STORE_MODE_TOT, STORE_COALESCE_DEFAULT, true, &par, &n, &err) == 0);
	memset(&acc, 0, sizeof(acc));
	for (size_t i = 0; i < n; i++) {
		c2c_stats_add(&acc, &par[i].stats);
		if (i)
			CHECK(par[i - 1].offset <= par[i].offset);
	}
	CHECK(n > 0 && strncmp(par[0].function, "func_", 5) == 0);
	CHECK_STR(par[0].dso, "/usr/bin/demo");
	free(par);
	CHECK(stats_eq(&acc, &line_stats));
	/* Same totals when coalescing by pid,tid. */
	CHECK(store_query_line_pareto(st, hot, NULL, STORE_MODE_TOT, STORE_COALESCE_PID | STORE_COALESCE_TID, true, &par,
				      &n, &err) == 0);
	memset(&acc, 0, sizeof(acc));
	for (size_t i = 0; i < n; i++) {
		c2c_stats_add(&acc, &par[i].stats);
		CHECK(par[i].pid >= 100 && par[i].tid >= 1000);
	}
	free(par);
	CHECK(stats_eq(&acc, &line_stats));
	struct store_cpu_row *cpus;
	CHECK(store_query_cpus(st, hot, NULL, &cpus, &n, &err) == 0);
	memset(&acc, 0, sizeof(acc));
	for (size_t i = 0; i < n; i++)
		c2c_stats_add(&acc, &cpus[i].stats);
	free(cpus);
	CHECK(stats_eq(&acc, &line_stats));
	struct store_node_row *nodes;
	CHECK(store_query_nodes(st, STORE_ALL_LINES, NULL, &nodes, &n, &err) == 0);
	CHECK_EQ_U64(n, 2);
	CHECK(nodes[0].nr_cpus == 4 && nodes[1].nr_cpus == 4);
	free(nodes);
	struct store_cell_row *cells;
	CHECK(store_query_line_matrix(st, hot, NULL, &cells, &n, &err) == 0);
	memset(&acc, 0, sizeof(acc));
	for (size_t i = 0; i < n; i++)
		c2c_stats_add(&acc, &cells[i].stats);
	free(cells);
	CHECK(stats_eq(&acc, &line_stats));
	store_close(st);
}

static void test_row_ranges(void)
{
	struct c2c_error err = { 0 };
	struct store *st = make_session("c.db", NS);
	struct store_lines_query q;
	struct store_line_row *all, *page;
	size_t n, np;
	uint64_t total, t2;

	CHECK(st);
	store_lines_query_init(&q);
	q.show_all = true;
	q.sort = STORE_SORT_LOADS;
	CHECK(store_query_lines(st, &q, &all, &n, &total, &err) == 0);
	for (uint64_t off = 0; off < total; off += 7) {
		q.offset = off;
		q.limit = 7;
		CHECK(store_query_lines(st, &q, &page, &np, &t2, &err) == 0);
		CHECK_EQ_U64(t2, total);
		CHECK_EQ_U64(np, total - off < 7 ? total - off : 7);
		for (size_t i = 0; i < np; i++) {
			CHECK_EQ_U64(page[i].addr, all[off + i].addr);
			CHECK_EQ_U64(page[i].rank, off + i);
		}
		free(page);
	}
	/* Ascending address order. */
	q.offset = 0;
	q.limit = 0;
	q.sort = STORE_SORT_ADDR;
	q.ascending = true;
	CHECK(store_query_lines(st, &q, &page, &np, NULL, &err) == 0);
	for (size_t i = 1; i < np; i++)
		CHECK(page[i - 1].addr < page[i].addr);
	free(page);
	free(all);
	store_close(st);
}

static void test_filters(void)
{
	struct c2c_error err = { 0 };
	struct store *st = make_session("d.db", NS);
	struct store_summary sum;
	struct store_filter f;
	struct c2c_stats want;

	CHECK(st);
	/* CPU filter: recomputed from the samples table. */
	store_filter_init(&f);
	f.cpu = 3;
	CHECK(store_query_summary(st, &f, &sum, &err) == 0);
	recompute(NS, UINT64_MAX, 3, 0, 0, &want);
	CHECK(stats_eq(&sum.total, &want));
	CHECK(want.nr_entries > 0 && want.nr_entries < NS);
	/* Time window. */
	store_filter_init(&f);
	f.time_from = 1500000;
	f.time_to = 2000000;
	CHECK(store_query_summary(st, &f, &sum, &err) == 0);
	recompute(NS, UINT64_MAX, -1, 1500000, 2000000, &want);
	CHECK(stats_eq(&sum.total, &want));
	CHECK_EQ_U64(want.nr_entries, 500);
	/* Line table under the time filter: per-line numbers match too. */
	struct store_lines_query q;
	struct store_line_row *rows;
	size_t n;
	uint64_t total;
	store_lines_query_init(&q);
	q.filter = f;
	q.show_all = true;
	CHECK(store_query_lines(st, &q, &rows, &n, &total, &err) == 0);
	for (size_t i = 0; i < n; i++) {
		recompute(NS, rows[i].addr, -1, 1500000, 2000000, &want);
		if (!stats_eq(&rows[i].stats, &want)) {
			free(rows);
			CHECK(!"filtered line differs");
		}
	}
	free(rows);
	/* min HITM and the default (perf) filter: only lines with HITMs. */
	store_lines_query_init(&q);
	CHECK(store_query_lines(st, &q, &rows, &n, &total, &err) == 0);
	CHECK_EQ_U64(total, 4);
	for (size_t i = 0; i < n; i++)
		CHECK(rows[i].stats.tot_hitm > 0);
	uint64_t second = n > 1 ? rows[1].stats.tot_hitm : 0;
	free(rows);
	q.filter.min_hitm = second;
	CHECK(store_query_lines(st, &q, &rows, &n, &total, &err) == 0);
	CHECK(total >= 2 && total < 4);
	free(rows);
	/* Symbol substring (data symbol, case-insensitive) and function. */
	store_lines_query_init(&q);
	q.show_all = true;
	q.filter.symbol = "SHARED_COUNT";
	CHECK(store_query_lines(st, &q, &rows, &n, &total, &err) == 0);
	CHECK_EQ_U64(total, 40);
	free(rows);
	q.filter.symbol = "no_such_symbol";
	CHECK(store_query_lines(st, &q, &rows, &n, &total, &err) == 0);
	CHECK_EQ_U64(total, 0);
	CHECK(rows == NULL);
	/* 128-byte lines: half as many lines, same totals. */
	store_lines_query_init(&q);
	q.show_all = true;
	q.filter.double_cl = true;
	CHECK(store_query_lines(st, &q, &rows, &n, &total, &err) == 0);
	CHECK_EQ_U64(total, 20);
	for (size_t i = 0; i < n; i++)
		CHECK((rows[i].addr & 127) == 0);
	free(rows);
	store_close(st);
}

static void test_reject_newer(void)
{
	struct c2c_error err = { 0 };
	struct store *st = make_session("e.db", 10);
	sqlite3 *db;

	CHECK(st);
	store_close(st);
	CHECK(sqlite3_open(tmp_path("e.db"), &db) == SQLITE_OK);
	char sql[64];
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", STORE_SCHEMA_VERSION + 1);
	CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	CHECK(store_open(&st, tmp_path("e.db"), STORE_OPEN_RDONLY, &err) == -EPROTONOSUPPORT);
	CHECK(st == NULL);
	CHECK(strstr(err.msg, "newer") != NULL);
	CHECK(strstr(err.msg, "e.db") != NULL);
}

static void test_reject_foreign(void)
{
	struct c2c_error err = { 0 };
	struct store *st;
	sqlite3 *db;

	CHECK(sqlite3_open(tmp_path("foreign.db"), &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "CREATE TABLE t (x); INSERT INTO t VALUES (1);", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	CHECK(store_open(&st, tmp_path("foreign.db"), STORE_OPEN_RDONLY, &err) < 0);
	CHECK(strstr(err.msg, "not a c2ctui session") != NULL);
	CHECK(strstr(err.msg, "SQLite database") != NULL);
}

static void test_reject_non_sqlite(void)
{
	struct c2c_error err = { 0 };
	struct store *st;
	FILE *f = fopen(tmp_path("text.db"), "w");

	CHECK(f);
	fputs("PERFILE2 this is not a database at all\n", f);
	fclose(f);
	CHECK(store_open(&st, tmp_path("text.db"), STORE_OPEN_RDONLY, &err) == -EINVAL);
	CHECK(strstr(err.msg, "not an SQLite database") != NULL);
	CHECK(store_open(&st, tmp_path("missing.db"), STORE_OPEN_RDONLY, &err) == -ENOENT);
	/* Creating over an existing file is refused. */
	CHECK(store_create(&st, tmp_path("text.db"), &err) == -EEXIST);
}

static void test_valid_after_commit(void)
{
	struct c2c_error err = { 0 };
	struct store *w, *r;
	struct store_summary sum;
	struct c2c_stats want;

	store_close(make_session("warm.db", 1));  /* samples[] initialised */
	CHECK(store_create(&w, tmp_path("live.db"), &err) == 0);
	CHECK(write_samples(w, 0, 500, &err) == 0);
	CHECK_EQ_U64(store_pending(w), 500);
	CHECK(store_commit(w, &err) == 0);
	CHECK_EQ_U64(store_pending(w), 0);
	CHECK(store_open(&r, tmp_path("live.db"), STORE_OPEN_RDONLY, &err) == 0);
	for (int batch = 1; batch <= 3; batch++) {
		CHECK(store_query_summary(r, NULL, &sum, &err) == 0);
		recompute(500 * batch, UINT64_MAX, -1, 0, 0, &want);
		CHECK(stats_eq(&sum.total, &want));
		CHECK_EQ_U64(sum.counters[STORE_CNT_SAMPLES], 500 * batch);
		/* Pending, uncommitted samples are invisible to the reader. */
		CHECK(write_samples(w, 500 * batch, 500 * batch + 500, &err) == 0);
		CHECK(store_query_summary(r, NULL, &sum, &err) == 0);
		CHECK_EQ_U64(sum.total.nr_entries, 500 * batch);
		CHECK(store_commit(w, &err) == 0);
	}
	/* The reader's integrity check passes while the writer is open. */
	sqlite3 *db;
	sqlite3_stmt *s;
	CHECK(sqlite3_open_v2(tmp_path("live.db"), &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(s) == SQLITE_ROW);
	CHECK_STR((const char *)sqlite3_column_text(s, 0), "ok");
	sqlite3_finalize(s);
	sqlite3_close(db);
	store_close(r);
	store_close(w);
}

static void test_append(void)
{
	struct c2c_error err = { 0 };
	struct store *st = make_session("app.db", 1000);
	struct store_summary sum;
	struct c2c_stats want;

	CHECK(st);
	store_close(st);
	CHECK(store_open(&st, tmp_path("app.db"), STORE_OPEN_APPEND, &err) == 0);
	CHECK(write_samples(st, 1000, 2000, &err) == 0);
	CHECK(store_finalize(st, &err) == 0);
	store_close(st);
	CHECK(store_open(&st, tmp_path("app.db"), STORE_OPEN_RDONLY, &err) == 0);
	CHECK(store_query_summary(st, NULL, &sum, &err) == 0);
	recompute(2000, UINT64_MAX, -1, 0, 0, &want);
	CHECK(stats_eq(&sum.total, &want));
	CHECK_EQ_U64(sum.counters[STORE_CNT_SAMPLES], 2000);
	struct store_line_row row;
	recompute(2000, 0x7f0000001000ull, -1, 0, 0, &want);
	CHECK(store_query_line(st, 0x7f0000001000ull, NULL, &row, &err) == 0);
	CHECK(stats_eq(&row.stats, &want));
	CHECK(store_query_line(st, 0x10, NULL, &row, &err) == -ENOENT);
	store_close(st);
}

static void test_locks_sites_timeline_search(void)
{
	struct c2c_error err = { 0 };
	struct store *st;

	store_close(make_session("warm2.db", 1));
	CHECK(store_create(&st, tmp_path("lock.db"), &err) == 0);
	CHECK(write_samples(st, 0, 300, &err) == 0);
	struct store_site_info si = { .ip = 0xffffffff81000010ull, .pid = -1, .cpumode = C2C_MODE_KERNEL,
				      .function = "queued_spin_lock_slowpath", .dso = "[kernel.kallsyms]" };
	int64_t lock_site = store_site_intern(st, &si, &err);
	struct store_site_info ci = { .ip = 0xffffffff81000200ull, .pid = -1, .cpumode = C2C_MODE_KERNEL,
				      .function = "do_work", .dso = "[kernel.kallsyms]" };
	int64_t caller = store_site_intern(st, &ci, &err);
	CHECK(lock_site > 0 && caller > 0 && caller != lock_site);
	CHECK(store_site_intern(st, &si, &err) == lock_site);
	int64_t chain[2] = { lock_site, caller };
	for (int i = 0; i < 10; i++) {
		struct store_lock_wait w = { .time = 1000000 + (uint64_t)i * 10000, .pid = 5, .tid = 5 + i % 2, .cpu = 1,
					     .lock_addr = 0x7f0000001008ull, .flags = STORE_LOCK_SPIN,
					     .wait_ns = 100 * (uint64_t)(i + 1), .site = lock_site, .chain_sites = chain,
					     .nr_chain_sites = 2 };
		CHECK(store_add_lock_wait(st, &w, &err) == 0);
	}
	CHECK(store_finalize(st, &err) == 0);

	struct store_lock_row *locks;
	size_t n;
	CHECK(store_query_locks(st, 0x7f0000001000ull, NULL, &locks, &n, &err) == 0);
	CHECK_EQ_U64(n, 1);
	CHECK_EQ_U64(locks[0].waits, 10);
	CHECK_EQ_U64(locks[0].wait_ns, 5500);
	CHECK_EQ_U64(locks[0].max_wait_ns, 1000);
	CHECK_EQ_U64(locks[0].nr_threads, 2);
	free(locks);
	struct store_summary sum;
	CHECK(store_query_summary(st, NULL, &sum, &err) == 0);
	CHECK_EQ_U64(sum.lock_waits, 10);
	CHECK_EQ_U64(sum.counters[STORE_CNT_LOCK_WAITS], 10);

	struct store_caller_row *callers;
	CHECK(store_query_site_callers(st, lock_site, &callers, &n, &err) == 0);
	CHECK_EQ_U64(n, 1);
	CHECK_EQ_U64(callers[0].site, caller);
	CHECK_EQ_U64(callers[0].count, 10);
	CHECK_STR(callers[0].function, "do_work");
	free(callers);

	struct store_site site;
	CHECK(store_get_site(st, samples[0].ctx.site, &site, &err) == 0);
	CHECK(site.stats.nr_entries > 0);
	CHECK_STR(site.file, "demo.c");
	struct store_site_access_row *acc;
	CHECK(store_query_site_accesses(st, samples[0].ctx.site, NULL, STORE_MODE_TOT, &acc, &n, &err) == 0);
	uint64_t tot = 0;
	for (size_t i = 0; i < n; i++)
		tot += acc[i].stats.nr_entries;
	free(acc);
	CHECK_EQ_U64(tot, site.stats.nr_entries);

	struct store_time_row *tl;
	CHECK(store_query_timeline(st, STORE_ALL_LINES, NULL, STORE_MODE_TOT, 10, &tl, &n, &err) == 0);
	CHECK_EQ_U64(n, 10);
	uint64_t ns = 0, nl = 0;
	for (size_t i = 0; i < n; i++) {
		ns += tl[i].samples;
		nl += tl[i].lock_waits;
	}
	free(tl);
	CHECK_EQ_U64(ns, 300);
	CHECK_EQ_U64(nl, 10);

	struct store_search_row *hits;
	CHECK(store_search(st, "0x7f0000001004", 0, &hits, &n, &err) == 0);
	CHECK_EQ_U64(n, 1);
	CHECK(hits[0].kind == STORE_HIT_LINE && hits[0].addr == 0x7f0000001000ull);
	free(hits);
	CHECK(store_search(st, "0x7f0000001008", 0, &hits, &n, &err) == 0);
	CHECK_EQ_U64(n, 2);
	CHECK(hits[1].kind == STORE_HIT_LOCK && hits[1].addr == 0x7f0000001008ull);
	free(hits);
	CHECK(store_search(st, "SPIN_LOCK", 0, &hits, &n, &err) == 0);
	CHECK_EQ_U64(n, 1);
	CHECK(hits[0].kind == STORE_HIT_SITE && hits[0].site == lock_site);
	free(hits);
	CHECK(store_search(st, "shared_counters", 5, &hits, &n, &err) == 0);
	CHECK_EQ_U64(n, 5);
	free(hits);
	store_close(st);
}

/* A writer that dies after a commit, in the middle of its next batch, loses
 * only that batch: the file opens, passes the integrity check and holds
 * every committed sample with matching aggregates. WAL and bulk mode. */
static void crash_case(const char *name, bool bulk)
{
	struct c2c_error err = { 0 };
	struct store *st;
	struct store_summary sum;
	struct c2c_stats want;
	pid_t pid;
	int status;

	store_close(make_session(bulk ? "warm3b.db" : "warm3.db", 1));
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		if (store_create(&st, tmp_path(name), &err) < 0 || (bulk && store_set_bulk_load(st, true, &err) < 0) ||
		    write_samples(st, 0, 700, &err) < 0 || store_commit(st, &err) < 0 ||
		    write_samples(st, 700, 1500, &err) < 0) {
			printf("# %s\n", err.msg);
			_exit(3);
		}
		_exit(0);   /* no commit, no close: as if killed */
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(store_open(&st, tmp_path(name), STORE_OPEN_RDONLY, &err) == 0);
	CHECK(store_query_summary(st, NULL, &sum, &err) == 0);
	recompute(700, UINT64_MAX, -1, 0, 0, &want);
	CHECK(stats_eq(&sum.total, &want));
	CHECK_EQ_U64(sum.counters[STORE_CNT_SAMPLES], 700);
	store_close(st);
	sqlite3 *db;
	sqlite3_stmt *s;
	CHECK(sqlite3_open_v2(tmp_path(name), &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	/* a plain SQLite reader sees the committed samples' blocks */
	CHECK(sqlite3_prepare_v2(db, "SELECT SUM(n) FROM sample_blocks", -1, &s, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(s) == SQLITE_ROW);
	CHECK_EQ_U64(sqlite3_column_int64(s, 0), 700);
	sqlite3_finalize(s);
	CHECK(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(s) == SQLITE_ROW);
	CHECK_STR((const char *)sqlite3_column_text(s, 0), "ok");
	sqlite3_finalize(s);
	sqlite3_close(db);
}

static void test_crash_after_commit_wal(void)
{
	crash_case("crash_wal.db", false);
}

static void test_crash_after_commit_bulk(void)
{
	crash_case("crash_bulk.db", true);
}

/* One session written the plain way or as a bulk load, with commits every
 * 97 samples (new sites, data symbols and chains both inside and outside a
 * transaction), rows of two field sets (some without weight), untimed
 * samples, lock waits with call chains and lock events. */
static bool write_mixed(const char *name, bool bulk)
{
	struct c2c_error err = { 0 };
	struct store *st;

	if (store_create(&st, tmp_path(name), &err) < 0 || (bulk && store_set_bulk_load(st, true, &err) < 0))
		goto fail;
	store_set_meta(st, STORE_META_CACHELINE, "64", &err);
	for (uint32_t c = 0; c < 8; c++) {
		struct store_cpu cpu = { .cpu = c, .core = (int32_t)c, .socket = (int32_t)(c / 4), .node = (int32_t)(c / 4) };
		if (store_add_cpu(st, &cpu, &err) < 0)
			goto fail;
	}
	for (int i = 0; i < NS; i++) {
		struct tsample t = samples[i];
		char fn[32];
		snprintf(fn, sizeof(fn), "f%d", i % 50);
		struct store_site_info si = { .ip = t.s.ip + (uint64_t)(i % 50), .pid = t.s.pid, .function = fn,
					      .dso = "/usr/bin/demo", .line = (uint32_t)i % 7 };
		struct store_dsym_info di = { .name = i % 2 ? "odd" : "even", .start = 0x7f0000001000ull + (i % 3) * 64,
					      .size = 64, .pid = t.s.pid };
		int64_t site = store_site_intern(st, &si, &err), dsym = store_dsym_intern(st, &di, &err);
		if (site <= 0 || dsym <= 0)
			goto fail;
		int64_t chain[2] = { site, 1 + i % 13 };
		t.ctx.site = site;
		t.ctx.dsym = dsym;
		t.ctx.dsym_offset = t.s.addr - di.start;
		t.ctx.chain_sites = chain;
		t.ctx.nr_chain_sites = 2;
		if (i % 37 == 0)
			t.s.has &= ~C2C_HAS_WEIGHT;
		if (i % 41 == 0)
			t.s.time = 0;
		if (store_add_sample(st, &t.s, &t.ctx, &err) < 0)
			goto fail;
		if (i % 150 == 0) {
			struct store_lock_wait w = { .time = t.s.time + 5, .pid = t.s.pid, .tid = t.s.tid, .cpu = t.s.cpu,
						     .lock_addr = 0x7f0000001008ull, .flags = 2, .wait_ns = 1000 + (uint64_t)i,
						     .site = site, .chain_sites = chain, .nr_chain_sites = 1 + i % 2 };
			if (store_add_lock_wait(st, &w, &err) < 0)
				goto fail;
		}
		/* lock events: about a hundred a commit, so a bulk load writes
		 * whole statements of them and single ones */
		if (i % 2 == 0) {
			struct store_lock_event e = { .mode = (uint8_t)(i % 4 == 0), .kind = STORE_LOCK_EV_BEGIN,
						      .time = t.s.time, .pid = t.s.pid, .tid = t.s.tid,
						      .lock_addr = 0x7f0000001008ull + (uint64_t)(i % 5) * 8, .flags = 2,
						      .key = (uint64_t)i % 7, .caller = i % 3 ? fn : NULL };
			if (store_add_lock_event(st, &e, &err) < 0)
				goto fail;
			e.kind = STORE_LOCK_EV_ACQUIRED;
			e.wait_ns = 100 + (uint64_t)i;
			e.caller = NULL;
			if (store_add_lock_event(st, &e, &err) < 0)
				goto fail;
		}
		if (i % 97 == 96 && store_commit(st, &err) < 0)
			goto fail;
	}
	if (store_finalize(st, &err) < 0)
		goto fail;
	store_close(st);
	return true;
fail:
	printf("# %s: %s\n", name, err.msg);
	store_close(st);
	return false;
}

static void test_bulk_equals_plain(void)
{
	static const char *const q[] = {
		"SELECT * FROM sample_blocks ORDER BY first_id", "SELECT * FROM sites ORDER BY id", "SELECT * FROM dsyms ORDER BY id",
		"SELECT * FROM callchains ORDER BY id", "SELECT * FROM lock_waits ORDER BY id",
		"SELECT * FROM lock_contention ORDER BY id",
		"SELECT * FROM agg_line", "SELECT * FROM agg_offset", "SELECT * FROM agg_pareto", "SELECT * FROM agg_cell",
		"SELECT * FROM agg_line_cpu", "SELECT * FROM agg_line_node", "SELECT * FROM agg_lock",
		"SELECT * FROM agg_prow", "SELECT * FROM agg_line_seq", "SELECT * FROM agg_session",
		"SELECT * FROM agg_time_slice", "SELECT * FROM agg_time_line",
		"SELECT * FROM meta WHERE key LIKE 'timeline%' ORDER BY key",
	};

	store_close(make_session("bulkwarm.db", 1));   /* makes the samples */
	CHECK(write_mixed("plain.db", false));
	CHECK(write_mixed("bulk.db", true));
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		char *a = dump_rows(tmp_path("plain.db"), q[i]), *b = dump_rows(tmp_path("bulk.db"), q[i]);
		CHECK(a && b && *a);
		if (a && b && strcmp(a, b))
			printf("# differs: %s\n", q[i]);
		if (a && b)
			CHECK(!strcmp(a, b));
		free(a);
		free(b);
	}
}

/* Time windows read only the sample blocks that overlap them
 * (sample_time_blocks): the same answers as the full scan of a copy that
 * has them turned off, for windows inside, across and outside the blocks,
 * open at either end; samples written over several commits (partial
 * blocks widened later) and out of time order at the seam. */
/* Collects store_sql's rows as "v,v,...;" (the header skipped). */
struct sql_text {
	char *buf;
	size_t len, cap;
};

static int sql_collect(void *ctx, int ncols, const char *const *names, const char *const *values)
{
	struct sql_text *t = ctx;

	(void)names;
	if (!values)
		return 0;
	for (int i = 0; i < ncols; i++) {
		size_t need = t->len + (values[i] ? strlen(values[i]) : 0) + 3;
		if (need > t->cap) {
			char *p = realloc(t->buf, need * 2);
			if (!p)
				return -ENOMEM;
			t->buf = p;
			t->cap = need * 2;
		}
		t->len += (size_t)sprintf(t->buf + t->len, "%s%c", values[i] ? values[i] : "", i + 1 < ncols ? ',' : ';');
	}
	return 0;
}

static char *sql_rows(struct store *st, const char *sql)
{
	struct c2c_error err = { 0 };
	struct sql_text t = { 0 };

	if (store_sql(st, sql, sql_collect, &t, &err) < 0) {
		printf("# %s\n", err.msg);
		free(t.buf);
		return NULL;
	}
	return t.buf ? t.buf : strdup("");
}

/* Schema 3: a block holds one CPU's samples, ids are unique, ORDER BY
 * time, id is the recording order (and costs no sort); a recording
 * without times (time 0) keeps its arrival order in ids. */
static void test_sample_order(void)
{
	struct c2c_error err = { 0 };
	char *expect = malloc((size_t)NS * 24 + 1), *got;
	size_t len = 0;
	struct store *st;

	CHECK(expect != NULL);
	if (!expect)
		return;
	for (int pass = 0; pass < 2; pass++) {
		const char *name = pass ? "order0.db" : "order.db";
		len = 0;
		CHECK(store_create(&st, tmp_path(name), &err) == 0);
		for (int i = 0; i < NS; i++) {
			struct tsample t = samples[i];
			if (pass)
				t.s.time = 0;
			CHECK(store_add_sample(st, &t.s, &t.ctx, &err) == 0);
			if (i % 700 == 699)
				CHECK(store_commit(st, &err) == 0);
			len += (size_t)sprintf(expect + len, "%d,%d,%llu;", (int)t.s.cpu, (int)t.s.tid,
					       (unsigned long long)t.s.addr);
		}
		CHECK(store_finalize(st, &err) == 0);
		store_close(st);
		CHECK(store_open(&st, tmp_path(name), STORE_OPEN_RDONLY, &err) == 0);
		got = sql_rows(st, pass ? "SELECT cpu, tid, addr FROM samples ORDER BY id"
					: "SELECT cpu, tid, addr FROM samples ORDER BY time, id");
		CHECK(got && !strcmp(got, expect));
		free(got);
		got = sql_rows(st, "SELECT count(*) = count(DISTINCT id), count(*) FROM samples");
		char want[64];
		snprintf(want, sizeof(want), "1,%d;", NS);
		CHECK(got && !strcmp(got, want));
		free(got);
		/* one CPU a block with times; one block run of ids without */
		got = sql_rows(st, pass ? "SELECT max(id) - min(id) + 1 = count(*) FROM samples"
					: "SELECT (SELECT count(*) FROM (SELECT i.first_id FROM sample_block_index i JOIN samples s"
					  " ON s.id BETWEEN i.first_id AND i.first_id + i.n - 1 GROUP BY i.first_id"
					  " HAVING count(DISTINCT s.cpu) = 1)) = (SELECT count(*) FROM sample_blocks)");
		CHECK(got && !strcmp(got, "1;"));
		free(got);
		if (!pass) {
			got = sql_rows(st, "EXPLAIN QUERY PLAN SELECT id FROM samples ORDER BY time, id");
			CHECK(got && !strstr(got, "TEMP B-TREE"));
			free(got);
			/* the block hint skips only other CPUs' samples */
			got = sql_rows(st, "SELECT (SELECT count(*) FROM samples WHERE cpu = 5 AND block_cpus = 32) ="
					   " (SELECT count(*) FROM samples WHERE cpu = 5), (SELECT count(*) FROM samples"
					   " WHERE cpu = 5) > 0");
			CHECK(got && !strcmp(got, "1,1;"));
			free(got);
		}
		store_close(st);
	}
	free(expect);
}

static void test_time_blocks(void)
{
	static const uint64_t win[][2] = {
		{ 1500000, 2000000 }, { 0, 1200000 }, { 3500000, 0 }, { 2990000, 4300000 },
		{ 1, 2 }, { 9000000, 0 }, { 4000000, 4000001 }, { 0, 0 },
	};
	struct c2c_error err = { 0 };
	struct store *st, *a, *b;

	store_close(make_session("tbwarm.db", 1));
	CHECK(store_create(&st, tmp_path("tb.db"), &err) == 0);
	for (int pass = 0; pass < 3; pass++)
		for (int i = 0; i < NS; i++) {
			struct tsample t = samples[i];
			/* the third pass steps back in time */
			t.s.time += (uint64_t)pass * (NS * 1000 - (pass == 2 ? 700000 : 0));
			CHECK(store_add_sample(st, &t.s, &t.ctx, &err) == 0);
			if (i % 500 == 499)
				CHECK(store_commit(st, &err) == 0);
		}
	CHECK(store_finalize(st, &err) == 0);
	store_close(st);
	/* the index says what each block holds: every sample once, the
	 * blocks' times, and the step back in time marks a block unsorted */
	char *blocks = dump_rows(tmp_path("tb.db"), "SELECT count(*), sum(i.n), sum(i.n = b.n AND i.tmin = b.tmin AND"
				 " i.tmax = b.tmax), sum(i.sorted = 0) > 0, (SELECT count(*) FROM sample_blocks)"
				 " FROM sample_block_index i JOIN sample_blocks b USING (first_id)");
	int nidx = 0, nsame = 0, nblocks = 0;
	CHECK(blocks && sscanf(blocks, "%d|9000|%d|1|%d|", &nidx, &nsame, &nblocks) == 3);
	CHECK(nidx > 0 && nidx == nsame && nidx == nblocks);
	free(blocks);
	sqlite3 *db;
	/* the copy whose index skips nothing */
	char cmd[1200];
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", tmp_path("tb.db"), tmp_path("tboff.db"));
	CHECK(system(cmd) == 0);
	CHECK(sqlite3_open(tmp_path("tboff.db"), &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "UPDATE sample_block_index SET tmin = NULL, tmax = NULL, cpus = -1, nodes = -1",
			   NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	CHECK(store_open(&a, tmp_path("tb.db"), STORE_OPEN_RDONLY, &err) == 0);
	CHECK(store_open(&b, tmp_path("tboff.db"), STORE_OPEN_RDONLY, &err) == 0);
	for (size_t w = 0; w < sizeof(win) / sizeof(win[0]); w++) {
		struct store_filter f;
		struct store_summary sa, sb;
		store_filter_init(&f);
		f.time_from = win[w][0];
		f.time_to = win[w][1];
		/* and CPU filters, which skip the other CPUs' blocks */
		f.cpu = w % 3 == 1 ? (int32_t)(w % 4) : -1;
		if (w % 3 == 2)
			CHECK(store_id_set_parse(&f.cpus, "0,2-3") == 0);
		CHECK(store_query_summary(a, &f, &sa, &err) == 0);
		CHECK(store_query_summary(b, &f, &sb, &err) == 0);
		CHECK(stats_eq(&sa.total, &sb.total));
		CHECK_EQ_U64(sa.nr_lines, sb.nr_lines);
		CHECK_EQ_U64(sa.nr_shared_lines, sb.nr_shared_lines);
	}
	/* a window with samples in it finds them (the check is not vacuous) */
	struct store_filter f;
	struct store_summary sa;
	store_filter_init(&f);
	f.time_from = 2990000;
	f.time_to = 4300000;
	CHECK(store_query_summary(a, &f, &sa, &err) == 0);
	CHECK(sa.total.nr_entries > 1000);
	store_close(a);
	store_close(b);
}

static int count_row(void *ctx, int ncols, const char *const *names, const char *const *values)
{
	(void)ncols;
	(void)names;
	if (values)
		*(long *)ctx = values[0] ? atol(values[0]) : 0;
	return 0;
}

static long count_of(struct store *st, const char *sql)
{
	struct c2c_error err = { 0 };
	long n = -1;

	/* -2: the query failed (no count can match it) */
	return store_sql(st, sql, count_row, &n, &err) == 0 ? n : -2;
}

static bool pareto_eq(struct store *a, struct store *b, uint64_t line, const struct store_filter *f)
{
	struct c2c_error err = { 0 };
	struct store_pareto_row *ra = NULL, *rb = NULL;
	struct store_offset_row *oa = NULL, *ob = NULL;
	size_t na = 0, nb = 0, noa = 0, nob = 0;
	bool same = store_query_line_pareto(a, line, f, STORE_MODE_TOT, STORE_COALESCE_DEFAULT, true, &ra, &na,
					    &err) == 0 &&
		    store_query_line_pareto(b, line, f, STORE_MODE_TOT, STORE_COALESCE_DEFAULT, true, &rb, &nb,
					    &err) == 0 &&
		    store_query_line_offsets(a, line, f, false, &oa, &noa, &err) == 0 &&
		    store_query_line_offsets(b, line, f, false, &ob, &nob, &err) == 0 && na == nb && noa == nob;

	for (size_t i = 0; same && i < na; i++)
		same = ra[i].offset == rb[i].offset && ra[i].iaddr == rb[i].iaddr &&
		       stats_eq(&ra[i].stats, &rb[i].stats) && ra[i].nr_cpus == rb[i].nr_cpus;
	for (size_t i = 0; same && i < noa; i++)
		same = oa[i].offset == ob[i].offset && stats_eq(&oa[i].stats, &ob[i].stats) &&
		       oa[i].nr_threads == ob[i].nr_threads;
	free(ra);
	free(rb);
	free(oa);
	free(ob);
	return same;
}

/* A filtered view writes the tables a query reads (summary, lines) and the
 * others when a query asks for them: the answers equal those of a view
 * whose first query wrote every table. */
static void test_filter_tables_on_demand(void)
{
	struct c2c_error err = { 0 };
	struct store *w = make_session("od.db", NS), *a, *b;
	struct store_lines_query q;
	struct store_line_row *la = NULL, *lb = NULL, *l0 = NULL;
	struct store_summary sa, sb;
	size_t na = 0, nb = 0, n0 = 0;
	uint64_t total;

	CHECK(w);
	store_close(w);
	CHECK(store_open(&a, tmp_path("od.db"), STORE_OPEN_RDONLY, &err) == 0);
	CHECK(store_open(&b, tmp_path("od.db"), STORE_OPEN_RDONLY, &err) == 0);
	store_lines_query_init(&q);
	q.show_all = true;
	CHECK(store_query_lines(b, &q, &l0, &n0, &total, &err) == 0 && n0 > 1);
	q.filter.cpu = 3;
	/* b: a line's Pareto first (every table written), then the lists */
	CHECK(pareto_eq(b, b, l0[0].addr, &q.filter));
	CHECK(count_of(b, "SELECT count(*) FROM temp.agg_pareto") > 0);
	CHECK(store_query_summary(b, &q.filter, &sb, &err) == 0);
	CHECK(store_query_lines(b, &q, &lb, &nb, &total, &err) == 0);
	/* a: the lists first; the Pareto table is not written for them */
	CHECK(store_query_summary(a, &q.filter, &sa, &err) == 0);
	CHECK(store_query_lines(a, &q, &la, &na, &total, &err) == 0);
	CHECK_EQ_U64(count_of(a, "SELECT count(*) FROM temp.agg_pareto"), 0);
	CHECK(count_of(a, "SELECT count(*) FROM temp.agg_line") > 0);
	CHECK(stats_eq(&sa.total, &sb.total));
	CHECK(sa.total.nr_entries > 0 && sa.total.nr_entries < NS);
	CHECK_EQ_U64(sa.nr_lines, sb.nr_lines);
	CHECK_EQ_U64(sa.nr_shared_lines, sb.nr_shared_lines);
	CHECK_EQ_U64(sa.nr_samples, sb.nr_samples);
	CHECK(na == nb && na > 1);
	for (size_t i = 0; i < na && na == nb; i++)
		CHECK(la[i].addr == lb[i].addr && stats_eq(&la[i].stats, &lb[i].stats));
	/* then each line's tables, written when asked, equal b's */
	for (size_t i = 0; i < na && na == nb; i++)
		CHECK(pareto_eq(a, b, la[i].addr, &q.filter));
	CHECK(count_of(a, "SELECT count(*) FROM temp.agg_pareto") ==
	      count_of(b, "SELECT count(*) FROM temp.agg_pareto"));
	free(la);
	free(lb);
	free(l0);
	store_close(a);
	store_close(b);
}

/* The aggregates' CPU bitmaps leave their trailing zero words out: a line
 * of CPUs below 64 keeps one word, one with CPU 130 three; readers count
 * the CPUs of both alike. */
static void test_cpu_bitmap_words(void)
{
	static const struct {
		uint32_t cpu;
		uint64_t addr;
	} put[] = { { 3, 0x7f0000001000ull }, { 130, 0x7f0000001004ull }, { 5, 0x7f0000002000ull },
		    { 3, 0x7f0000002008ull } };
	struct c2c_error err = { 0 };
	struct store *st;
	struct store_offset_row *rows = NULL;
	size_t n = 0;

	store_close(make_session("cpuwarm.db", 1));
	CHECK(store_create(&st, tmp_path("cpuw.db"), &err) == 0);
	for (size_t i = 0; i < sizeof(put) / sizeof(put[0]); i++) {
		struct tsample t = samples[0];
		t.s.cpu = put[i].cpu;
		t.s.addr = put[i].addr;
		t.s.time += i;
		t.ctx.node = 0;
		CHECK(store_add_sample(st, &t.s, &t.ctx, &err) == 0);
	}
	CHECK(store_finalize(st, &err) == 0);
	CHECK_EQ_U64(count_of(st, "SELECT length(cpus) FROM agg_line WHERE line = 0x7f0000001000"), 24);
	CHECK_EQ_U64(count_of(st, "SELECT length(cpus) FROM agg_line WHERE line = 0x7f0000002000"), 8);
	CHECK_EQ_U64(count_of(st, "SELECT max(length(cpus)) FROM agg_pareto WHERE line = 0x7f0000002000"), 8);
	CHECK(store_query_line_offsets(st, 0x7f0000001000ull, NULL, false, &rows, &n, &err) == 0);
	CHECK_EQ_U64(n, 2);
	for (size_t i = 0; i < n; i++)
		CHECK_EQ_U64(rows[i].nr_cpus, 1);
	free(rows);
	/* words=true merges the two offsets: both CPUs, from a short and a long bitmap */
	CHECK(store_query_line_offsets(st, 0x7f0000001000ull, NULL, true, &rows, &n, &err) == 0);
	CHECK_EQ_U64(n, 1);
	CHECK_EQ_U64(n ? rows[0].nr_cpus : 0, 2);
	free(rows);
	store_close(st);
}

TEST_MAIN(TEST_CASE(test_create_reopen), TEST_CASE(test_aggregates_match), TEST_CASE(test_row_ranges),
	  TEST_CASE(test_filters), TEST_CASE(test_reject_newer), TEST_CASE(test_reject_foreign),
	  TEST_CASE(test_reject_non_sqlite), TEST_CASE(test_valid_after_commit), TEST_CASE(test_append),
	  TEST_CASE(test_locks_sites_timeline_search), TEST_CASE(test_crash_after_commit_wal),
	  TEST_CASE(test_crash_after_commit_bulk), TEST_CASE(test_bulk_equals_plain),
	  TEST_CASE(test_time_blocks), TEST_CASE(test_sample_order), TEST_CASE(test_filter_tables_on_demand), TEST_CASE(test_cpu_bitmap_words))
