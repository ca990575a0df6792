/* Unit tests of the report's precomputed sample-order numbers
 * (store/agg/agg_report.c): for every line and Pareto row, what the writer
 * kept equals what one ordered scan of the samples computes (Node, PA cnt,
 * running means, line key), across several commits and an append. */
#include "tests/unit/test.h"

/* store_lines_seq_precomputed: to know which path answered */
#include "store/agg/agg.h"

#include <linux/perf_event.h>

#define NS 4000

static uint64_t ds(uint64_t op, uint64_t lvl, uint64_t snoop)
{
	return (op << PERF_MEM_OP_SHIFT) | (lvl << PERF_MEM_LVL_SHIFT) | (snoop << PERF_MEM_SNOOP_SHIFT);
}

static const char *tmp_path(const char *name)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s/%s", test_tmpdir(), name);
	return buf;
}

/* Samples [from, to) of a deterministic mix: 30 lines (some kernel, some
 * without a map), physical addresses over two memory nodes that move
 * between a few pages, varying latencies. */
static int write_samples(struct store *st, int from, int to, struct c2c_error *err)
{
	uint64_t dsrc[5] = {
		ds(PERF_MEM_OP_LOAD, PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_HITM),
		ds(PERF_MEM_OP_LOAD, PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_HITM),
		ds(PERF_MEM_OP_STORE, PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NA),
		ds(PERF_MEM_OP_LOAD, PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NONE),
		ds(PERF_MEM_OP_LOAD, PERF_MEM_LVL_LFB | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NONE),
	};
	uint32_t seed = 777;

	for (int i = 0; i < to; i++) {
		struct c2c_sample s;
		struct store_sample_ctx ctx = { .node = -1 };
		uint32_t r, line;

		seed = seed * 1103515245u + 12345u;
		r = seed >> 8;
		if (i < from)
			continue;
		memset(&s, 0, sizeof(s));
		s.has = C2C_HAS_IP | C2C_HAS_TID | C2C_HAS_TIME | C2C_HAS_ADDR | C2C_HAS_CPU | C2C_HAS_WEIGHT |
			C2C_HAS_DATA_SRC | C2C_HAS_PHYS_ADDR;
		s.time = 1000000 + (uint64_t)i * 1000;
		s.cpu = r % 8;
		s.pid = 100 + (int32_t)(r % 3);
		s.tid = s.pid * 10 + (int32_t)((r >> 4) % 4);
		line = (r >> 6) % 30;
		if ((r >> 12) % 3 == 0)
			line %= 3;
		s.cpumode = line % 7 == 5 ? C2C_MODE_KERNEL : C2C_MODE_USER;
		s.addr = (line >= 25 ? 0x9000000000ull : 0x7f0000001000ull) + line * 64 + ((r >> 14) % 8) * 8;
		if (s.cpumode == C2C_MODE_KERNEL)
			s.addr |= 0xffff800000000000ull;
		s.ip = 0x401000 + ((r >> 18) % 5) * 0x10;
		s.weight = 20 + (r >> 20) % 300;
		/* nodes 0 and 1 own [1G, 2G) and [2G, 3G); some outside both */
		s.phys_addr = ((r >> 3) % 4 == 0 ? 0x40000000ull : 0x80000000ull) + ((r >> 9) % 3) * 0x1000 +
			      line * 64 + ((r >> 25) % 2 ? 0xc0000000ull : 0);
		if ((r >> 27) % 5 == 0)
			s.phys_addr = 0;
		s.data_src = dsrc[(r >> 22) % 5];
		ctx.class_bits = c2c_classify(s.data_src, s.addr, true, true);
		ctx.node = (int32_t)(s.cpu / 4);
		if (store_add_sample(st, &s, &ctx, err) < 0)
			return -1;
		if (i % 700 == 0 && store_commit(st, err) < 0)
			return -1;
	}
	return store_commit(st, err);
}

static int setup(struct store *st, struct c2c_error *err)
{
	struct c2c_mem_range ranges[2] = { { 0x40000000ull, 0x80000000ull, 0 }, { 0x80000000ull, 0xc0000000ull, 1 } };
	struct c2c_mmap m = { .pid = 100, .tid = 100, .start = 0x7f0000000000ull, .len = 0x100000, .prot = 3,
			      .flags = 2, .cpumode = C2C_MODE_USER, .filename = "//anon" };
	struct c2c_mmap f = { .pid = 101, .tid = 101, .start = 0x7f0000000000ull, .len = 0x100000, .prot = 3,
			      .flags = 1, .cpumode = C2C_MODE_USER, .maj = 8, .min = 1, .ino = 1234,
			      .filename = "/dev/shm/x" };

	store_set_meta(st, STORE_META_CACHELINE, "64", err);
	for (uint32_t c = 0; c < 8; c++) {
		struct store_cpu cpu = { .cpu = c, .core = (int32_t)c, .socket = (int32_t)(c / 4), .node = (int32_t)(c / 4) };

		if (store_add_cpu(st, &cpu, err) < 0)
			return -1;
	}
	if (store_set_mem_ranges(st, ranges, 2, err) < 0 || store_add_mmap(st, &m, 0, err) < 0 ||
	    store_add_mmap(st, &f, 500, err) < 0)
		return -1;
	return 0;
}

static bool same_seq(const struct store_seq_line *a, const struct store_seq_line *b)
{
	bool same = a->seen == b->seen && a->phys.node_mask == b->phys.node_mask && a->phys.pa_cnt == b->phys.pa_cnt &&
		    store_line_key_cmp(&a->key, a->addr, &b->key, b->addr) == 0 && a->key.pid == b->key.pid &&
		    a->key.anon == b->key.anon && a->key.mapped == b->key.mapped;

	for (size_t j = 0; j < a->nrows; j++)
		same = same && a->row_phys[j].node_mask == b->row_phys[j].node_mask &&
		       a->row_phys[j].pa_cnt == b->row_phys[j].pa_cnt &&
		       !memcmp(&a->row_lat[j], &b->row_lat[j], sizeof(a->row_lat[j]));
	return same;
}

/* Compares, for every line, the session's precomputed answer (no filter),
 * the scan of the samples (forced: asking for node details too) and a
 * filtered view's precomputed answer (a time filter that keeps every
 * sample: its rebuild keeps the numbers in temp tables). */
static void compare(struct store *st, bool expect_pre)
{
	static struct store_row_nodes rn[64];
	struct c2c_error err = { 0 };
	struct store_filter all, view;
	struct store_lines_query q;
	struct store_line_row *lines = NULL;
	size_t nl = 0;
	uint64_t total = 0;
	size_t nrows_checked = 0;

	store_filter_init(&all);
	store_filter_init(&view);
	view.time_from = 1;
	store_lines_query_init(&q);
	q.show_all = true;
	CHECK(store_query_lines(st, &q, &lines, &nl, &total, &err) >= 0);
	CHECK(nl >= 20);
	for (size_t i = 0; i < nl; i++) {
		struct store_pareto_row *rows = NULL;
		size_t nr = 0;
		struct store_seq_line a, b, c;
		struct store_phys pa[64], pb[64], pc[64];
		struct store_lat la[64], lb[64], lc[64];

		CHECK(store_query_line_pareto(st, lines[i].addr, &all, STORE_MODE_TOT, STORE_COALESCE_DEFAULT, true,
					      &rows, &nr, &err) >= 0);
		CHECK(nr <= 64);
		a = (struct store_seq_line){ .addr = lines[i].addr, .rows = rows, .nrows = nr, .row_phys = pa,
					     .row_lat = la };
		b = a;
		b.row_phys = pb;
		b.row_lat = lb;
		b.row_nodes = rn;
		c = a;
		c.row_phys = pc;
		c.row_lat = lc;
		int pre = store_lines_seq_precomputed(st, "main", &all, STORE_COALESCE_DEFAULT, &a, 1, &err);

		if (pre != (expect_pre ? 1 : 0)) {
			free(rows);
			test_failf(__FILE__, __LINE__, "precomputed path answered %d, expected %d", pre, expect_pre);
			return;
		}
		if ((!pre && store_query_lines_seq(st, &all, STORE_COALESCE_DEFAULT, &a, 1, &err) < 0) ||
		    store_query_lines_seq(st, &all, STORE_COALESCE_DEFAULT, &b, 1, &err) < 0 ||
		    store_query_lines_seq(st, &view, STORE_COALESCE_DEFAULT, &c, 1, &err) < 0) {
			free(rows);
			CHECK(!"query failed");
		}
		/* the view's numbers came from its rebuild (its temp tables,
		 * made by the query above), not from a scan */
		CHECK(store_lines_seq_precomputed(st, "temp", &view, STORE_COALESCE_DEFAULT, &c, 1, &err) == 1);
		CHECK(store_lines_seq_precomputed(st, "temp", &all, STORE_COALESCE_DEFAULT, &c, 1, &err) == 0);
		nrows_checked += nr;
		free(rows);
		if (!same_seq(&a, &b))
			test_failf(__FILE__, __LINE__, "line %#" PRIx64 ": precomputed != scanned", lines[i].addr);
		if (!same_seq(&c, &b))
			test_failf(__FILE__, __LINE__, "line %#" PRIx64 ": the view's precomputed != scanned", lines[i].addr);
		CHECK(same_seq(&a, &b) && same_seq(&c, &b));
		CHECK(a.seen);
	}
	free(lines);
	CHECK(nrows_checked > nl);
}

static void test_precomputed_equals_scan(void)
{
	struct c2c_error err = { 0 };
	struct store *st;

	CHECK(store_create(&st, tmp_path("a.db"), &err) >= 0);
	if (setup(st, &err) < 0 || write_samples(st, 0, NS, &err) < 0 || store_finalize(st, &err) < 0) {
		printf("# %s\n", err.msg);
		store_close(st);
		CHECK(!"writing the session failed");
	}
	compare(st, true);
	store_close(st);
	CHECK(store_open(&st, tmp_path("a.db"), STORE_OPEN_RDONLY, &err) >= 0);
	compare(st, true);
	store_close(st);
}

static void test_precomputed_after_append(void)
{
	struct c2c_error err = { 0 };
	struct store *st;

	CHECK(store_create(&st, tmp_path("b.db"), &err) >= 0);
	if (setup(st, &err) < 0 || write_samples(st, 0, NS / 2, &err) < 0 || store_finalize(st, &err) < 0) {
		printf("# %s\n", err.msg);
		store_close(st);
		CHECK(!"writing the session failed");
	}
	store_close(st);
	CHECK(store_open(&st, tmp_path("b.db"), STORE_OPEN_APPEND, &err) >= 0);
	if (write_samples(st, NS / 2, NS, &err) < 0 || store_finalize(st, &err) < 0) {
		printf("# %s\n", err.msg);
		store_close(st);
		CHECK(!"appending failed");
	}
	compare(st, true);
	store_close(st);
}

/* A topology set after the samples were aggregated makes the stored
 * numbers stale: the query must notice and scan. */
static void test_topology_change_falls_back(void)
{
	struct c2c_error err = { 0 };
	struct c2c_mem_range one = { 0x40000000ull, 0x60000000ull, 1 };
	struct store *st;

	CHECK(store_create(&st, tmp_path("c.db"), &err) >= 0);
	if (setup(st, &err) < 0 || write_samples(st, 0, NS / 4, &err) < 0 ||
	    store_set_mem_ranges(st, &one, 1, &err) < 0 || store_finalize(st, &err) < 0) {
		printf("# %s\n", err.msg);
		store_close(st);
		CHECK(!"writing the session failed");
	}
	compare(st, false);
	store_close(st);
}

TEST_MAIN(TEST_CASE(test_precomputed_equals_scan), TEST_CASE(test_precomputed_after_append),
	  TEST_CASE(test_topology_change_falls_back))
