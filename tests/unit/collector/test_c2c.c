/* Unit tests for collector/c2c: one test per c2c class, data_src values
 * built from perf_event.h constants, expected counters as perf 6.1's
 * `perf c2c report` counts them; plus the display rules. */
#include "tests/unit/test.h"
#include "collector/c2c/c2c.h"

#include <linux/perf_event.h>

#define S(a, s) PERF_MEM_S(a, s)
#define DADDR 0x7f0000001040ull

/* Counters one sample adds, as a struct. */
static struct c2c_stats one(uint64_t ds, uint64_t daddr, bool dmap, bool imap)
{
	struct c2c_stats s;

	c2c_stats_from_bits(&s, c2c_classify(ds, daddr, dmap, imap));
	return s;
}

/* Checks that exactly the listed counters are 1 and every other is 0. */
static int only(const struct c2c_stats *s, const enum c2c_counter *set, size_t n, char *why, size_t wsz)
{
	for (unsigned c = 0; c < C2C_COUNTER_MAX; c++) {
		uint64_t want = 0;

		for (size_t i = 0; i < n; i++)
			if (set[i] == (enum c2c_counter)c)
				want++;
		if (c2c_stats_get(s, (enum c2c_counter)c) != want) {
			snprintf(why, wsz, "%s = %" PRIu64 ", want %" PRIu64, c2c_counter_name((enum c2c_counter)c),
				 c2c_stats_get(s, (enum c2c_counter)c), want);
			return 0;
		}
	}
	return 1;
}

#define EXPECT_ONLY(st, ...) do { \
	static const enum c2c_counter set_[] = { C2C_NR_ENTRIES, __VA_ARGS__ }; \
	char why_[128]; \
	if (!only(&(st), set_, sizeof(set_) / sizeof(set_[0]), why_, sizeof(why_))) { \
		test_failf(__FILE__, __LINE__, "%s", why_); return; } \
} while (0)

#define LOAD S(OP, LOAD)
#define STORE S(OP, STORE)

static void test_load_l1(void)
{
	struct c2c_stats s = one(LOAD | S(LVL, HIT) | S(LVL, L1) | S(SNOOP, NONE), DADDR, true, true);
	EXPECT_ONLY(s, C2C_LOAD, C2C_LD_L1HIT);
	CHECK_EQ_U64(c2c_class_of(c2c_classify(LOAD | S(LVL, HIT) | S(LVL, L1), DADDR, true, true)), C2C_CLASS_LD_L1);
}

static void test_load_lfb(void)
{
	struct c2c_stats s = one(LOAD | S(LVL, HIT) | S(LVL, LFB), DADDR, true, true);
	EXPECT_ONLY(s, C2C_LOAD, C2C_LD_FBHIT);
}

static void test_load_l2(void)
{
	struct c2c_stats s = one(LOAD | S(LVL, HIT) | S(LVL, L2) | S(SNOOP, NONE), DADDR, true, true);
	EXPECT_ONLY(s, C2C_LOAD, C2C_LD_L2HIT);
}

static void test_load_llc_hit(void)
{
	struct c2c_stats s = one(LOAD | S(LVL, HIT) | S(LVL, L3) | S(SNOOP, HIT), DADDR, true, true);
	EXPECT_ONLY(s, C2C_LOAD, C2C_LD_LLCHIT);
	CHECK_EQ_U64(c2c_llc_hit(&s), 1);
}

static void test_load_lcl_hitm(void)
{
	struct c2c_stats s = one(LOAD | S(LVL, HIT) | S(LVL, L3) | S(SNOOP, HITM), DADDR, true, true);
	EXPECT_ONLY(s, C2C_LOAD, C2C_LCL_HITM, C2C_TOT_HITM);
	CHECK_EQ_U64(c2c_llc_hit(&s), 1);      /* perf's "Load LLC hit" includes local HITM */
	CHECK_EQ_U64(c2c_cache_hits(&s), 1);
	CHECK(c2c_line_is_shared(&s));
}

static void test_load_rmt_hitm(void)
{
	struct c2c_stats s = one(LOAD | S(LVL, HIT) | S(LVL, REM_CCE1) | S(SNOOP, HITM), DADDR, true, true);
	EXPECT_ONLY(s, C2C_LOAD, C2C_RMT_HITM, C2C_TOT_HITM);
	CHECK_EQ_U64(c2c_llc_misses(&s), 1);
	CHECK_EQ_U64(c2c_class_of(c2c_classify(LOAD | S(LVL, HIT) | S(LVL, REM_CCE2) | S(SNOOP, HITM), DADDR, true, true)),
		     C2C_CLASS_LD_RMT_HITM);
}

static void test_load_rmt_hitm_skl_remote_bit(void)
{
	/* Skylake: L3 miss with the remote bit and no hops is a remote access */
	uint64_t ds = LOAD | S(LVL, MISS) | S(LVL, L3) | S(SNOOP, HITM) | S(REMOTE, REMOTE);
	struct c2c_stats s = one(ds, DADDR, true, true);
	EXPECT_ONLY(s, C2C_LOAD, C2C_RMT_HITM, C2C_TOT_HITM, C2C_LD_MISS);
	/* with a hop count (POWER) the remote bit is not "remote" */
	s = one(ds | S(HOPS, 0), DADDR, true, true);
	EXPECT_ONLY(s, C2C_LOAD, C2C_LD_MISS);
}

static void test_load_rmt_hit(void)
{
	struct c2c_stats s = one(LOAD | S(LVL, HIT) | S(LVL, REM_CCE1) | S(SNOOP, HIT), DADDR, true, true);
	EXPECT_ONLY(s, C2C_LOAD, C2C_RMT_HIT);
}

static void test_load_lcl_peer(void)
{
	struct c2c_stats s = one(LOAD | S(LVL, HIT) | S(LVL, L2) | S(SNOOPX, PEER), DADDR, true, true);
	EXPECT_ONLY(s, C2C_LOAD, C2C_LD_L2HIT, C2C_LCL_PEER, C2C_TOT_PEER);
	CHECK(c2c_line_is_shared(&s));
	/* L2 and L3 both set: perf counts the peer twice */
	s = one(LOAD | S(LVL, HIT) | S(LVL, L2) | S(LVL, L3) | S(SNOOPX, PEER), DADDR, true, true);
	CHECK_EQ_U64(s.lcl_peer, 2);
	CHECK_EQ_U64(s.tot_peer, 2);
	CHECK_EQ_U64(s.ld_llchit, 1);
}

static void test_load_rmt_peer(void)
{
	struct c2c_stats s = one(LOAD | S(LVL, REM_CCE1) | S(SNOOPX, PEER), DADDR, true, true);
	EXPECT_ONLY(s, C2C_LOAD, C2C_RMT_HIT, C2C_RMT_PEER, C2C_TOT_PEER);
	CHECK_EQ_U64(c2c_class_of(c2c_classify(LOAD | S(LVL, REM_CCE1) | S(SNOOPX, PEER), DADDR, true, true)),
		     C2C_CLASS_LD_RMT_PEER);
}

static void test_load_lcl_dram(void)
{
	struct c2c_stats s = one(LOAD | S(LVL, HIT) | S(LVL, LOC_RAM) | S(SNOOP, MISS), DADDR, true, true);
	EXPECT_ONLY(s, C2C_LOAD, C2C_LCL_DRAM, C2C_LD_EXCL);
	s = one(LOAD | S(LVL, HIT) | S(LVL, LOC_RAM) | S(SNOOP, HIT), DADDR, true, true);
	EXPECT_ONLY(s, C2C_LOAD, C2C_LCL_DRAM, C2C_LD_SHARED);
}

static void test_load_rmt_dram(void)
{
	struct c2c_stats s = one(LOAD | S(LVL, HIT) | S(LVL, REM_RAM1) | S(SNOOP, NONE), DADDR, true, true);
	EXPECT_ONLY(s, C2C_LOAD, C2C_RMT_DRAM, C2C_LD_EXCL);
	s = one(LOAD | S(LVL, HIT) | S(LVL, REM_RAM2) | S(SNOOP, HIT), DADDR, true, true);
	EXPECT_ONLY(s, C2C_LOAD, C2C_RMT_DRAM, C2C_LD_SHARED);
}

static void test_load_uncached_io_miss(void)
{
	struct c2c_stats s = one(LOAD | S(LVL, HIT) | S(LVL, UNC), DADDR, true, true);
	EXPECT_ONLY(s, C2C_LOAD, C2C_LD_UNCACHE);
	s = one(LOAD | S(LVL, HIT) | S(LVL, IO), DADDR, true, true);
	EXPECT_ONLY(s, C2C_LOAD, C2C_LD_IO);
	s = one(LOAD | S(LVL, MISS) | S(LVL, L1), DADDR, true, true);
	EXPECT_ONLY(s, C2C_LOAD, C2C_LD_MISS);
	/* without HIT the level bits do not count (only remote cache does) */
	s = one(LOAD | S(LVL, L1), DADDR, true, true);
	EXPECT_ONLY(s, C2C_LOAD);
}

static void test_load_noaddr(void)
{
	struct c2c_stats s = one(LOAD | S(LVL, HIT) | S(LVL, L1), 0, false, true);
	EXPECT_ONLY(s, C2C_LOAD, C2C_LD_NOADRS);
	CHECK_EQ_U64(c2c_class_of(c2c_classify(LOAD | S(LVL, HIT) | S(LVL, L1), 0, false, true)), C2C_CLASS_LD_NOADDR);
}

static void test_load_nomap(void)
{
	struct c2c_stats s = one(LOAD | S(LVL, HIT) | S(LVL, L1), DADDR, false, true);
	EXPECT_ONLY(s, C2C_LOAD, C2C_LD_L1HIT, C2C_NOMAP);
	s = one(LOAD | S(LVL, HIT) | S(LVL, L1), DADDR, true, false);
	EXPECT_ONLY(s, C2C_LOAD, C2C_LD_L1HIT, C2C_NOMAP);
}

static void test_store_l1(void)
{
	struct c2c_stats s = one(STORE | S(LVL, HIT) | S(LVL, L1), DADDR, true, true);
	EXPECT_ONLY(s, C2C_STORE, C2C_ST_L1HIT);
	s = one(STORE | S(LVL, MISS) | S(LVL, L1), DADDR, true, true);
	EXPECT_ONLY(s, C2C_STORE, C2C_ST_L1MISS);
	CHECK_EQ_U64(c2c_class_of(c2c_classify(STORE | S(LVL, MISS) | S(LVL, L1), DADDR, true, true)), C2C_CLASS_ST_L1MISS);
}

static void test_store_na_uncached_noaddr(void)
{
	struct c2c_stats s = one(STORE | S(LVL, NA), DADDR, true, true);
	EXPECT_ONLY(s, C2C_STORE, C2C_ST_NA);
	CHECK_EQ_U64(c2c_stores_total(&s), 1);
	s = one(STORE | S(LVL, HIT) | S(LVL, UNC), DADDR, true, true);
	EXPECT_ONLY(s, C2C_STORE, C2C_ST_UNCACHE);
	s = one(STORE | S(LVL, HIT) | S(LVL, L1), 0, true, true);
	EXPECT_ONLY(s, C2C_STORE, C2C_ST_NOADRS);
}

static void test_locked_blocked(void)
{
	struct c2c_stats s = one(LOAD | S(LVL, HIT) | S(LVL, L1) | S(LOCK, LOCKED) | S(BLK, DATA), DADDR, true, true);
	EXPECT_ONLY(s, C2C_LOAD, C2C_LD_L1HIT, C2C_LOCKS, C2C_BLK_DATA);
	/* blocked is counted even when the op is unparsable */
	s = one(S(BLK, ADDR), DADDR, true, true);
	EXPECT_ONLY(s, C2C_BLK_ADDR, C2C_NOPARSE);
}

static void test_noparse(void)
{
	/* AMD IBS ops that are neither load nor store */
	struct c2c_stats s = one(S(OP, NA) | S(LVL, NA), DADDR, true, true);
	EXPECT_ONLY(s, C2C_NOPARSE);
	s = one(0, 0, false, false);
	EXPECT_ONLY(s, C2C_NOPARSE);
	CHECK_EQ_U64(c2c_class_of(c2c_classify(0, 0, false, false)), C2C_CLASS_NOPARSE);
}

static void test_add_and_derived(void)
{
	struct c2c_stats tot = { 0 }, part = { 0 };

	c2c_stats_add_bits(&tot, c2c_classify(LOAD | S(LVL, HIT) | S(LVL, L3) | S(SNOOP, HITM), DADDR, true, true));
	c2c_stats_add_bits(&tot, c2c_classify(LOAD | S(LVL, HIT) | S(LVL, REM_CCE1) | S(SNOOP, HIT), DADDR, true, true));
	c2c_stats_add_bits(&tot, c2c_classify(STORE | S(LVL, HIT) | S(LVL, L1), DADDR, true, true));
	c2c_stats_add_bits(&tot, c2c_classify(STORE | S(LVL, NA), DADDR, true, true));
	c2c_stats_add_bits(&part, c2c_classify(LOAD | S(LVL, HIT) | S(LVL, LOC_RAM), DADDR, true, true));
	c2c_stats_add(&tot, &part);
	CHECK_EQ_U64(tot.nr_entries, 5);
	CHECK_EQ_U64(c2c_total_loads(&tot), 3);
	CHECK_EQ_U64(c2c_total_records(&tot), 5);
	CHECK_EQ_U64(c2c_llc_misses(&tot), 2);
	CHECK_EQ_U64(c2c_stats_get(&tot, C2C_LCL_DRAM), 1);
	CHECK_STR(c2c_counter_name(C2C_LD_LLCHIT), "ld_llchit");
	CHECK_STR(c2c_counter_name(C2C_NOPARSE), "noparse");
}

static void test_display_filter(void)
{
	struct c2c_stats total = { .tot_hitm = 2000, .lcl_hitm = 1000, .rmt_hitm = 1000 };
	struct c2c_stats a = { .tot_hitm = 2, .lcl_hitm = 2 };   /* 0.1% of tot: shown */
	struct c2c_stats b = { .tot_hitm = 1, .rmt_hitm = 1 };   /* 0.05%: hidden */
	struct c2c_stats st = { .store = 5 };

	CHECK(c2c_line_displayed(&a, &total, C2C_DISPLAY_TOT, false));
	CHECK(!c2c_line_displayed(&b, &total, C2C_DISPLAY_TOT, false));
	CHECK(c2c_line_displayed(&b, &total, C2C_DISPLAY_RMT, false));  /* 1/1000 */
	CHECK(!c2c_line_displayed(&a, &total, C2C_DISPLAY_RMT, false)); /* 0 rmt */
	CHECK(c2c_line_displayed(&b, &total, C2C_DISPLAY_TOT, true));
	CHECK(!c2c_line_displayed(&st, &(struct c2c_stats){ 0 }, C2C_DISPLAY_TOT, false));
	CHECK(!c2c_line_is_shared(&st));
	CHECK(c2c_line_cmp(&a, &b, C2C_DISPLAY_TOT) < 0);
	CHECK(c2c_line_cmp(&a, &b, C2C_DISPLAY_RMT) > 0);
	CHECK_EQ_U64(c2c_line_cmp(&a, &a, C2C_DISPLAY_TOT), 0);
	CHECK(c2c_row_valid(&st, C2C_DISPLAY_RMT));
	CHECK(!c2c_row_valid(&a, C2C_DISPLAY_RMT));
	CHECK(c2c_row_valid(&a, C2C_DISPLAY_LCL));
	CHECK(c2c_row_cmp(0, &b, 8, &a, C2C_DISPLAY_TOT) < 0);  /* offset first */
	CHECK(c2c_row_cmp(8, &b, 8, &a, C2C_DISPLAY_TOT) > 0);
	CHECK(c2c_row_cmp(8, &b, 8, &a, C2C_DISPLAY_RMT) < 0);
	CHECK_EQ_U64(c2c_display_parse("rmt"), C2C_DISPLAY_RMT);
	CHECK_EQ_U64(c2c_display_parse("peer"), C2C_DISPLAY_PEER);
	CHECK(c2c_display_parse("xyz") < 0);
	CHECK_EQ_U64(c2c_display_default("arm64"), C2C_DISPLAY_PEER);
	CHECK_EQ_U64(c2c_display_default("x86_64"), C2C_DISPLAY_TOT);
	CHECK_STR(c2c_display_title(C2C_DISPLAY_TOT), "Total HITMs");
}

static void test_percent_and_mean(void)
{
	char buf[32];
	struct c2c_mean m = { 0 };
	struct c2c_stats line = { .tot_hitm = 1 }, all = { .tot_hitm = 3 };

	CHECK_STR(c2c_format_percent(buf, sizeof(buf), c2c_percent(1, 3)), "33.33%");
	CHECK_STR(c2c_format_percent(buf, sizeof(buf), c2c_percent(1, 0)), "0.00%");
	CHECK_STR(c2c_format_percent(buf, sizeof(buf), c2c_percent_costly(&line, &all, C2C_DISPLAY_TOT)), "33.33%");
	c2c_mean_update(&m, 100);
	c2c_mean_update(&m, 201);
	CHECK_EQ_U64(m.n, 2);
	CHECK_STR(c2c_format_mean(buf, sizeof(buf), m.mean), "150"); /* 150.5 rounds to even */
	CHECK_STR(c2c_format_mean(buf, sizeof(buf), 0), "0");
	CHECK_EQ_U64(c2c_cycles_kind_of(c2c_classify(LOAD | S(LVL, HIT) | S(LVL, REM_CCE1) | S(SNOOP, HITM), DADDR, true, true)),
		     C2C_CYCLES_RMT_HITM);
	CHECK_EQ_U64(c2c_cycles_kind_of(c2c_classify(LOAD | S(LVL, HIT) | S(LVL, L1), 0, true, true)), C2C_CYCLES_LOAD);
	CHECK(c2c_cycles_kind_of(c2c_classify(STORE | S(LVL, HIT) | S(LVL, L1), DADDR, true, true)) == C2C_CYCLES_NONE);
}

static void test_lines_nodes_paddr(void)
{
	char buf[64];
	uint64_t set[2] = { 0x2f, 1 }; /* 0-3,5,64 */
	struct c2c_paddr_track t = { 0 };

	CHECK_EQ_U64(c2c_cl_address(0x1234567f, 64, false), 0x12345640);
	CHECK_EQ_U64(c2c_cl_offset(0x1234567f, 64, false), 0x3f);
	CHECK_EQ_U64(c2c_cl_address(0x1234567f, 64, true), 0x12345600);
	CHECK_EQ_U64(c2c_cl_offset(0x1234567f, 64, true), 0x7f);
	c2c_bitmap_format(set, 128, buf, sizeof(buf));
	CHECK_STR(buf, "0-3,5,64");
	set[0] = set[1] = 0;
	c2c_bitmap_format(set, 128, buf, sizeof(buf));
	CHECK_STR(buf, "");
	c2c_paddr_track_update(&t, 0x1000);
	c2c_paddr_track_update(&t, 0x1000);
	c2c_paddr_track_update(&t, 0);
	c2c_paddr_track_update(&t, 0x2000);
	c2c_paddr_track_update(&t, 0x1000);
	CHECK_EQ_U64(t.count, 3);
}

static void test_mem_ranges(void)
{
	/* node 0: blocks 0-1 and 4; node 1: blocks 2-3 (block size 0x1000) */
	uint64_t n0 = 0x13, n1 = 0x0c;
	struct c2c_mem_range *r = NULL;
	size_t n = 0;

	CHECK(c2c_mem_ranges_from_blocks(&r, &n, 0, &n0, 5, 0x1000) == 0);
	CHECK(c2c_mem_ranges_from_blocks(&r, &n, 1, &n1, 5, 0x1000) == 0);
	CHECK(c2c_mem_ranges_from_blocks(&r, &n, 2, NULL, 5, 0x1000) == 0); /* no bitmap: nothing */
	if (n != 3) {
		free(r);
		CHECK_EQ_U64(n, 3);
	}
	CHECK_EQ_U64(r[0].start, 0);
	CHECK_EQ_U64(r[0].end, 0x2000);
	CHECK_EQ_U64(r[1].start, 0x4000);
	CHECK_EQ_U64(c2c_mem_node(r, n, 0x1fff), 0);
	CHECK_EQ_U64(c2c_mem_node(r, n, 0x2000), 1);
	CHECK_EQ_U64(c2c_mem_node(r, n, 0x4abc), 0);
	CHECK(c2c_mem_node(r, n, 0x5000) < 0);
	CHECK(c2c_mem_node(r, n, 0) < 0); /* no phys address: no node */
	free(r);
}

static void test_data_src_text(void)
{
	char buf[160];

	c2c_data_src_format(LOAD | S(LVL, HIT) | S(LVL, REM_CCE1) | S(SNOOP, HITM) | S(TLB, HIT) | S(TLB, L1) |
			    S(TLB, L2) | S(LOCK, NA) | S(BLK, NA), buf, sizeof(buf));
	CHECK_STR(buf, "LOAD|Remote Cache (1 hop) hit|SNP HitM|TLB L1 or L2 hit|LCK N/A|BLK N/A");
	c2c_data_src_format(STORE | S(LVL, MISS) | S(LVL, L1) | S(LOCK, LOCKED), buf, sizeof(buf));
	CHECK_STR(buf, "STORE|L1 miss|SNP N/A|TLB N/A|LCK Yes|BLK N/A");
	c2c_data_src_format(LOAD | S(LVLNUM, L2) | S(LVL, HIT) | S(SNOOPX, PEER) | S(BLK, DATA), buf, sizeof(buf));
	CHECK_STR(buf, "LOAD|L2 hit|SNP Peer|TLB N/A|LCK No|BLK Data");
	/* truncation keeps a terminated string */
	CHECK(c2c_data_src_format(LOAD | S(LVL, HIT) | S(LVL, L1), buf, 8) > 8);
	CHECK_EQ_U64(strlen(buf), 7);
	CHECK_STR(c2c_class_label(C2C_CLASS_LD_LCL_HITM), "LclHITM");
}

TEST_MAIN(
	TEST_CASE(test_load_l1),
	TEST_CASE(test_load_lfb),
	TEST_CASE(test_load_l2),
	TEST_CASE(test_load_llc_hit),
	TEST_CASE(test_load_lcl_hitm),
	TEST_CASE(test_load_rmt_hitm),
	TEST_CASE(test_load_rmt_hitm_skl_remote_bit),
	TEST_CASE(test_load_rmt_hit),
	TEST_CASE(test_load_lcl_peer),
	TEST_CASE(test_load_rmt_peer),
	TEST_CASE(test_load_lcl_dram),
	TEST_CASE(test_load_rmt_dram),
	TEST_CASE(test_load_uncached_io_miss),
	TEST_CASE(test_load_noaddr),
	TEST_CASE(test_load_nomap),
	TEST_CASE(test_store_l1),
	TEST_CASE(test_store_na_uncached_noaddr),
	TEST_CASE(test_locked_blocked),
	TEST_CASE(test_noparse),
	TEST_CASE(test_add_and_derived),
	TEST_CASE(test_display_filter),
	TEST_CASE(test_percent_and_mean),
	TEST_CASE(test_lines_nodes_paddr),
	TEST_CASE(test_mem_ranges),
	TEST_CASE(test_data_src_text),
)
