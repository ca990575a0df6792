/* Unit tests of the timeline's per-time-slice aggregate (store/
 * agg_timeline.c): after finalize, the timeline answered from the slices
 * equals the sample scan's answer bucket for bucket (session, hot line,
 * line key variants, lock-wait line, a line outside the aggregate), in
 * every mode and for bucket counts below, near and above the slice count;
 * both agree with a recount from the written samples; filtered and
 * appended-to sessions scan; the aggregate built from the writer's
 * timeline log is the one the samples-table scan builds, row for row. */
#include "tests/unit/test.h"

#include "store/agg/agg_timeline.h"
#include "store/store.h"
#include "tests/unit/sql_dump.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <sqlite3.h>

#define NS 4000
#define NLOCK 50
#define BASE 0x7f0000002000ull

struct tsample {
	struct c2c_sample s;
	struct store_sample_ctx ctx;
	struct c2c_line_ident id;
};

static struct tsample smp[NS];
static struct store_lock_wait lw[NLOCK];

static uint64_t ds(uint64_t op, uint64_t lvl, uint64_t snoop)
{
	return (op << PERF_MEM_OP_SHIFT) | (lvl << PERF_MEM_LVL_SHIFT) | (snoop << PERF_MEM_SNOOP_SHIFT);
}

static const char *tmp_path(const char *name)
{
	static char buf[4][512];
	static int k;
	char *p = buf[k++ % 4];
	snprintf(p, 512, "%s/%s", test_tmpdir(), name);
	return p;
}

/* Lines 0-3 hot (HITM, stores; line 1 in one identity per pid, so keys
 * 1|0, 1|1, 1|2), 4-19 loads only, line 20 only lock waits. Irregular
 * times (bursts and gaps), and every 97th sample without a time. */
static void make_data(void)
{
	uint64_t dsrc[6] = {
		ds(PERF_MEM_OP_LOAD, PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_HITM),
		ds(PERF_MEM_OP_LOAD, PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_HITM),
		ds(PERF_MEM_OP_STORE, PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NA),
		ds(PERF_MEM_OP_LOAD, PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NONE),
		ds(PERF_MEM_OP_LOAD, PERF_MEM_LVL_LFB | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NONE),
		ds(PERF_MEM_OP_LOAD, PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_HIT),
	};
	uint32_t seed = 777;
	uint64_t t = 5000000;

	for (int i = 0; i < NS; i++) {
		seed = seed * 1103515245u + 12345u;
		uint32_t r = seed >> 8;
		struct tsample *x = &smp[i];
		memset(x, 0, sizeof(*x));
		t += (i / 500) % 2 ? 37 + r % 50 : 900 + r % 4000;
		x->s.has = C2C_HAS_IP | C2C_HAS_TID | C2C_HAS_ADDR | C2C_HAS_CPU | C2C_HAS_WEIGHT | C2C_HAS_DATA_SRC;
		if (i % 97) {
			x->s.has |= C2C_HAS_TIME;
			x->s.time = t;
		}
		x->s.cpu = r % 8;
		x->s.pid = 200 + (int32_t)(r % 3);
		x->s.tid = x->s.pid;
		uint32_t line = (r >> 5) % 20;
		if ((r >> 11) % 2)
			line %= 4;
		x->s.addr = BASE + line * 64 + ((r >> 13) % 8) * 8;
		x->s.ip = 0x401000 + ((r >> 16) % 4) * 0x10;
		x->s.weight = 30 + (r >> 18) % 200;
		x->s.data_src = dsrc[line < 4 ? (r >> 20) % 6 : 3 + (r >> 20) % 2];
		x->s.cpumode = C2C_MODE_USER;
		x->ctx.class_bits = c2c_classify(x->s.data_src, x->s.addr, true, true);
		x->ctx.node = (int32_t)(x->s.cpu / 4);
		if (line == 1) {
			c2c_line_ident_init(&x->id, C2C_MODE_USER, x->s.pid, NULL);
			x->id.pid = x->s.pid;
			x->ctx.line_ident = &x->id;
		}
	}
	for (int i = 0; i < NLOCK; i++) {
		struct store_lock_wait *w = &lw[i];
		memset(w, 0, sizeof(*w));
		w->time = 5000000 + (uint64_t)i * 61231;
		w->pid = w->tid = 300;
		w->cpu = (uint32_t)(i % 8);
		w->lock_addr = BASE + (i % 2 ? 20 : 2) * 64 + 8;
		w->flags = STORE_LOCK_SPIN;
		w->wait_ns = 100 + (uint64_t)i * 13;
	}
	/* a lock wait before the first sample widens the slicing */
	lw[0].time = 4000000;
}

static struct store *make_session(const char *name, bool finalize)
{
	struct c2c_error err = { 0 };
	struct store *st;

	if (store_create(&st, tmp_path(name), &err) < 0) {
		printf("# %s\n", err.msg);
		return NULL;
	}
	store_set_meta(st, STORE_META_CACHELINE, "64", &err);
	for (uint32_t c = 0; c < 8; c++) {
		struct store_cpu cpu = { .cpu = c, .core = (int32_t)c, .socket = (int32_t)(c / 4), .node = (int32_t)(c / 4) };
		store_add_cpu(st, &cpu, &err);
	}
	for (int i = 0; i < NS; i++)
		if (store_add_sample(st, &smp[i].s, &smp[i].ctx, &err) < 0)
			goto fail;
	for (int i = 0; i < NLOCK; i++)
		if (store_add_lock_wait(st, &lw[i], &err) < 0)
			goto fail;
	if ((finalize ? store_finalize(st, &err) : store_commit(st, &err)) < 0)
		goto fail;
	return st;
fail:
	printf("# %s\n", err.msg);
	store_close(st);
	return NULL;
}

/* The timeline both ways; true when every bucket is equal. */
static bool same_both_ways(struct store *st, uint64_t line, const struct store_filter *f, enum store_mode mode,
			   uint32_t nb, size_t *n_out, uint64_t *samples, uint64_t *hitm, uint64_t *waits)
{
	struct c2c_error err = { 0 };
	struct store_time_row *a, *b;
	size_t na, nb2;
	bool ok;

	store_timeline_force_scan(false);
	if (store_query_timeline(st, line, f, mode, nb, &a, &na, &err) < 0)
		return false;
	store_timeline_force_scan(true);
	if (store_query_timeline(st, line, f, mode, nb, &b, &nb2, &err) < 0) {
		store_timeline_force_scan(false);
		free(a);
		return false;
	}
	store_timeline_force_scan(false);
	ok = na == nb2 && na > 0 && na <= nb && !memcmp(a, b, na * sizeof(*a));
	*n_out = na;
	*samples = *hitm = *waits = 0;
	for (size_t i = 0; i < na; i++) {
		*samples += a[i].samples;
		*hitm += a[i].hitm;
		*waits += a[i].lock_waits;
		if (i && a[i].t_start != a[i - 1].t_end)
			ok = false;
	}
	if (!ok)
		for (size_t i = 0; i < na && i < nb2; i++)
			if (memcmp(&a[i], &b[i], sizeof(*a)))
				printf("# bucket %zu: %" PRIu64 "/%" PRIu64 " samples %" PRIu64 "/%" PRIu64 "\n", i,
				       a[i].t_start, b[i].t_start, a[i].samples, b[i].samples);
	free(a);
	free(b);
	return ok;
}

static enum c2c_counter counter_of(enum store_mode m)
{
	return m == STORE_MODE_LCL ? C2C_LCL_HITM : m == STORE_MODE_RMT ? C2C_RMT_HITM
	       : m == STORE_MODE_PEER ? C2C_TOT_PEER : C2C_TOT_HITM;
}

/* Recount from the arrays: timed samples of a display line (any variant
 * when var < 0), and its lock waits. */
static void recount(uint64_t disp, int var, struct store *st, enum store_mode mode, uint64_t *samples,
		    uint64_t *hitm, uint64_t *waits)
{
	(void)st;
	*samples = *hitm = *waits = 0;
	for (int i = 0; i < NS; i++) {
		const struct tsample *x = &smp[i];
		if (!x->s.time || (disp && (x->s.addr & ~63ull) != disp))
			continue;
		if (var >= 0 && disp == BASE + 64) {
			/* variants follow the order each pid first appears */
			static int32_t order[3];
			static int norder;
			if (!norder) {
				for (int j = 0; j < NS; j++) {
					if ((smp[j].s.addr & ~63ull) != BASE + 64)
						continue;
					int k;
					for (k = 0; k < norder && order[k] != smp[j].s.pid; k++)
						;
					if (k == norder && norder < 3)
						order[norder++] = smp[j].s.pid;
				}
			}
			if (order[var] != x->s.pid)
				continue;
		}
		(*samples)++;
		*hitm += c2c_bits_count(x->ctx.class_bits, counter_of(mode));
	}
	for (int i = 0; i < NLOCK; i++)
		if (!disp || (lw[i].lock_addr & ~63ull) == disp)
			(*waits)++;
}

static void test_sliced_equals_scan(void)
{
	static const uint32_t nbs[] = { 1, 7, 10, 190, 4095, 5000 };
	static const enum store_mode modes[] = { STORE_MODE_TOT, STORE_MODE_LCL, STORE_MODE_RMT, STORE_MODE_PEER };
	/* session, hot line, its variants 1 and 2, lock-wait line with
	 * samples, lock-only line, load-only line (scan fallback) */
	static const uint64_t lines[] = { STORE_ALL_LINES, BASE, BASE + 64, BASE + 65, BASE + 66, BASE + 2 * 64,
					  BASE + 20 * 64, BASE + 9 * 64 };
	struct store *st = make_session("tl.db", true);
	struct store_slicing sl;

	CHECK(st);
	CHECK(store_timeline_slicing(st, &sl));
	CHECK(sl.nslices > STORE_TIMELINE_SLICES / 2 && sl.nslices <= STORE_TIMELINE_SLICES);
	CHECK_EQ_U64(sl.t0, 4000000);
	for (size_t li = 0; li < sizeof(lines) / sizeof(lines[0]); li++)
		for (size_t mi = 0; mi < 4; mi++)
			for (size_t bi = 0; bi < sizeof(nbs) / sizeof(nbs[0]); bi++) {
				size_t n;
				uint64_t s, h, w, ws, wh, ww;
				if (!same_both_ways(st, lines[li], NULL, modes[mi], nbs[bi], &n, &s, &h, &w))
					test_failf(__FILE__, __LINE__, "line %zu mode %zu buckets %u differ", li, mi,
						   nbs[bi]);
				CHECK(!test_current.failed);
				uint64_t disp = lines[li] == STORE_ALL_LINES ? 0 : lines[li] & ~63ull;
				int var = lines[li] == STORE_ALL_LINES ? -1 : (int)(lines[li] & 63);
				recount(disp, var, st, modes[mi], &ws, &wh, &ww);
				CHECK_EQ_U64(s, ws);
				CHECK_EQ_U64(h, wh);
				CHECK_EQ_U64(w, ww);
			}
	store_close(st);
}

/* The aggregate holds the session, the hot lines and the lock lines, not
 * the load-only lines; the slices' sums are the session's. */
static void test_tables(void)
{
	sqlite3 *db;
	sqlite3_stmt *s;

	CHECK(sqlite3_open_v2(tmp_path("tl.db"), &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db, "SELECT SUM(samples), SUM(lock_waits), COUNT(*) FROM agg_time_slice", -1, &s,
				 NULL) == SQLITE_OK);
	CHECK(sqlite3_step(s) == SQLITE_ROW);
	CHECK_EQ_U64(sqlite3_column_int64(s, 0), NS - (NS + 96) / 97);
	CHECK_EQ_U64(sqlite3_column_int64(s, 1), NLOCK);
	CHECK(sqlite3_column_int64(s, 2) > 100);
	sqlite3_finalize(s);
	CHECK(sqlite3_prepare_v2(db, "SELECT COUNT(DISTINCT line), SUM(line = ?1), SUM(line = ?2), SUM(line = ?3)"
				 " FROM agg_time_line", -1, &s, NULL) == SQLITE_OK);
	sqlite3_bind_int64(s, 1, (sqlite3_int64)(BASE + 9 * 64));
	sqlite3_bind_int64(s, 2, (sqlite3_int64)(BASE + 20 * 64));
	sqlite3_bind_int64(s, 3, (sqlite3_int64)(BASE + 66));
	CHECK(sqlite3_step(s) == SQLITE_ROW);
	CHECK_EQ_U64(sqlite3_column_int64(s, 0), 7);   /* 0, 1|0, 1|1, 1|2, 2, 3, 20 */
	CHECK_EQ_U64(sqlite3_column_int64(s, 1), 0);
	CHECK(sqlite3_column_int64(s, 2) > 0);
	CHECK(sqlite3_column_int64(s, 3) > 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
}

/* Filters scan, on the same bucket edges as the unfiltered answer. */
static void test_filtered_scan(void)
{
	struct c2c_error err = { 0 };
	struct store *st;
	struct store_filter f;
	struct store_time_row *a, *b;
	size_t na, nb;

	CHECK(store_open(&st, tmp_path("tl.db"), STORE_OPEN_RDONLY, &err) == 0);
	store_filter_init(&f);
	f.cpu = 3;
	CHECK(store_query_timeline(st, STORE_ALL_LINES, NULL, STORE_MODE_TOT, 190, &a, &na, &err) == 0);
	CHECK(store_query_timeline(st, STORE_ALL_LINES, &f, STORE_MODE_TOT, 190, &b, &nb, &err) == 0);
	CHECK(na == nb && na > 150 && na <= 190);
	uint64_t sa = 0, sb = 0, want = 0;
	for (size_t i = 0; i < na; i++) {
		CHECK_EQ_U64(a[i].t_start, b[i].t_start);
		CHECK_EQ_U64(a[i].t_end, b[i].t_end);
		CHECK(b[i].samples <= a[i].samples);
		sa += a[i].samples;
		sb += b[i].samples;
	}
	for (int i = 0; i < NS; i++)
		want += smp[i].s.time && smp[i].s.cpu == 3;
	CHECK_EQ_U64(sb, want);
	CHECK(sa > sb);
	free(a);
	free(b);
	/* a time window: the scan's own equal buckets */
	f.cpu = -1;
	f.time_from = 6000000;
	f.time_to = 6000000 + 100 * 1000;
	CHECK(store_query_timeline(st, STORE_ALL_LINES, &f, STORE_MODE_TOT, 100, &a, &na, &err) == 0);
	CHECK_EQ_U64(na, 100);
	CHECK_EQ_U64(a[0].t_start, 6000000);
	CHECK_EQ_U64(a[99].t_end, 6100000);
	free(a);
	store_close(st);
}

/* Not finalized: no aggregate. Appended after finalize: the aggregate is
 * stale and the scan answers (the new samples count). */
static void test_stale_and_absent(void)
{
	struct c2c_error err = { 0 };
	struct store_slicing sl;
	struct store *st = make_session("nofin.db", false);
	size_t n;
	uint64_t s, h, w;

	CHECK(st);
	CHECK(!store_timeline_slicing(st, &sl));
	CHECK(same_both_ways(st, STORE_ALL_LINES, NULL, STORE_MODE_TOT, 50, &n, &s, &h, &w));
	CHECK_EQ_U64(n, 50);
	store_close(st);

	CHECK(store_open(&st, tmp_path("tl.db"), STORE_OPEN_APPEND, &err) == 0);
	struct c2c_sample extra = smp[1].s;
	extra.time = smp[NS - 1].s.time + 10;
	CHECK(store_add_sample(st, &extra, &smp[1].ctx, &err) == 0);
	CHECK(store_commit(st, &err) == 0);
	CHECK(!store_timeline_slicing(st, &sl));
	CHECK(same_both_ways(st, STORE_ALL_LINES, NULL, STORE_MODE_TOT, 50, &n, &s, &h, &w));
	CHECK_EQ_U64(s, NS - (NS + 96) / 97 + 1);
	CHECK(store_finalize(st, &err) == 0);
	CHECK(store_timeline_slicing(st, &sl));
	CHECK(same_both_ways(st, STORE_ALL_LINES, NULL, STORE_MODE_TOT, 50, &n, &s, &h, &w));
	CHECK_EQ_U64(s, NS - (NS + 96) / 97 + 1);
	store_close(st);
}

/* The writer's timeline log and the samples-table scan build the same
 * tables (the log is what finalize uses; forcing the scan builds from the
 * table). */
static void test_log_equals_scan(void)
{
	static const char *const q[] = {
		"SELECT * FROM agg_time_slice ORDER BY slice",
		"SELECT * FROM agg_time_line ORDER BY line",
		"SELECT key, value FROM meta WHERE key LIKE 'timeline%' ORDER BY key",
	};
	struct store *st;

	CHECK((st = make_session("log.db", true)) != NULL);
	store_close(st);
	store_timeline_force_scan(true);
	st = make_session("scan.db", true);
	store_timeline_force_scan(false);
	CHECK(st != NULL);
	store_close(st);
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		char *a = dump_rows(tmp_path("log.db"), q[i]), *b = dump_rows(tmp_path("scan.db"), q[i]);
		CHECK(a && b && strlen(a) > 10);
		if (a && b)
			CHECK_STR(a, b);
		free(a);
		free(b);
	}
}

static void setup(void)
{
	make_data();
}

static void test_setup(void)
{
	setup();
}

TEST_MAIN(TEST_CASE(test_setup), TEST_CASE(test_sliced_equals_scan), TEST_CASE(test_tables),
	  TEST_CASE(test_filtered_scan), TEST_CASE(test_stale_and_absent), TEST_CASE(test_log_equals_scan))
