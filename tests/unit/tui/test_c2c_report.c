/* The report model end to end without perf: a session written through the
 * store's writer with known samples, then report_model_build and the
 * printers. Checks perf's rules as the report applies them: shared lines,
 * the 0.1% filter, line and Pareto order, percentages, averages, the
 * physical-address columns, display modes and --show-all. */
#include "tests/unit/test.h"
#include "collector/c2c/c2c.h"
#include "store/store.h"
#include "tui/report/report.h"

#include <linux/perf_event.h>

#define S(a, s) PERF_MEM_S(a, s)
#define LD_RMT_HITM (S(OP, LOAD) | S(LVL, HIT) | S(LVL, REM_CCE1) | S(SNOOP, HITM))
#define LD_LCL_HITM (S(OP, LOAD) | S(LVL, HIT) | S(LVL, L3) | S(SNOOP, HITM))
#define LD_L1 (S(OP, LOAD) | S(LVL, HIT) | S(LVL, L1))
#define LD_LCL_PEER (S(OP, LOAD) | S(LVL, HIT) | S(LVL, L2) | S(SNOOPX, PEER))
#define ST_L1 (S(OP, STORE) | S(LVL, HIT) | S(LVL, L1))

static uint64_t now;

static int add(struct store *st, uint64_t addr, uint64_t ip, uint64_t ds, uint32_t cpu, uint64_t phys,
	       uint64_t weight)
{
	struct c2c_sample s = {
		.has = C2C_HAS_IP | C2C_HAS_TID | C2C_HAS_TIME | C2C_HAS_ADDR | C2C_HAS_CPU | C2C_HAS_WEIGHT |
		       C2C_HAS_DATA_SRC | C2C_HAS_PHYS_ADDR,
		.cpumode = C2C_MODE_USER, .time = ++now * 1000, .ip = ip, .pid = 42, .tid = 43, .cpu = cpu,
		.addr = addr, .phys_addr = phys, .weight = weight, .data_src = ds,
	};
	struct store_sample_ctx ctx = {
		.class_bits = c2c_classify(ds, addr, addr != 0, true),
		.node = cpu < 4 ? 0 : 1,
	};
	struct c2c_error err = { 0 };

	return store_add_sample(st, &s, &ctx, &err);
}

/* The session: see each block's comment for what perf would show. */
static struct store *make_session(void)
{
	static char path[512];
	struct c2c_error err = { 0 };
	struct store *st = NULL;
	struct store_event ev = { .index = 0, .name = "cpu/mem-loads,ldlat=30/P", .attr_type = 4 };
	struct c2c_mem_range ranges[] = { { 0, 1ull << 30, 0 }, { 1ull << 30, 2ull << 30, 1 } };
	int rc = 0;

	snprintf(path, sizeof(path), "%s/report%lu.db", test_tmpdir(), (unsigned long)now);
	if (store_create(&st, path, &err) < 0) {
		fprintf(stderr, "# store_create: %s\n", err.msg);
		return NULL;
	}
	rc |= store_set_meta(st, STORE_META_ARCH, "x86_64", &err);
	rc |= store_add_event(st, &ev, &err);
	/* a name with bytes that are not UTF-8: the JSON must still parse */
	ev.index = 1;
	ev.name = "odd\xff\x01name";
	rc |= store_add_event(st, &ev, &err);
	for (uint32_t c = 0; c < 8; c++) {
		struct store_cpu cpu = { .cpu = c, .core = (int32_t)c, .socket = c < 4 ? 0 : 1, .node = c < 4 ? 0 : 1 };
		rc |= store_add_cpu(st, &cpu, &err);
	}
	rc |= store_set_mem_ranges(st, ranges, 2, &err);
	/* line 0x1000: 9 remote HITM at +8 (weights 100..108, phys alternating
	 * nodes), 5 local HITM at +0x10, 4 stores at +8 from another ip */
	for (int i = 0; i < 9; i++)
		rc |= add(st, 0x1008, 0x400100, LD_RMT_HITM, 5, (i & 1) ? 0x40001000 : 0x1000, 100 + (uint64_t)i);
	for (int i = 0; i < 5; i++)
		rc |= add(st, 0x1010, 0x400200, LD_LCL_HITM, 1, 0x1000, 50);
	for (int i = 0; i < 4; i++)
		rc |= add(st, 0x1008, 0x400300, ST_L1, 2, 0, 0);
	/* line 0x2000: one local HITM (1/15 of all HITM: displayed) and 3 L1 loads */
	rc |= add(st, 0x2000, 0x400400, LD_LCL_HITM, 0, 0x2000, 30);
	for (int i = 0; i < 3; i++)
		rc |= add(st, 0x2004, 0x400400, LD_L1, 0, 0x2000, 4);
	/* line 0x3000: stores only (not shared) */
	rc |= add(st, 0x3000, 0x400500, ST_L1, 3, 0x3000, 0);
	rc |= add(st, 0x3000, 0x400500, ST_L1, 3, 0x3000, 0);
	/* line 0x4000: local peer loads only (shared, hidden in HITM modes) */
	rc |= add(st, 0x4000, 0x400600, LD_LCL_PEER, 6, 0x4000, 20);
	rc |= add(st, 0x4008, 0x400600, LD_LCL_PEER, 7, 0x4000, 40);
	/* two loads without a data address */
	rc |= add(st, 0, 0x400700, LD_L1, 0, 0, 4);
	rc |= add(st, 0, 0x400700, LD_L1, 0, 0, 4);
	if (rc < 0 || store_finalize(st, &err) < 0) {
		fprintf(stderr, "# writing the session: %s\n", err.msg);
		store_close(st);
		return NULL;
	}
	store_close(st);
	st = NULL;
	if (store_open(&st, path, STORE_OPEN_RDONLY, &err) < 0) {
		fprintf(stderr, "# store_open: %s\n", err.msg);
		return NULL;
	}
	return st;
}

static int build(struct report_model *m, struct store *st, enum c2c_display d, bool show_all)
{
	struct report_opts o = { .display = d, .display_set = true, .coalesce = STORE_COALESCE_DEFAULT,
				 .show_all = show_all, .no_source = true };
	struct c2c_error err = { 0 };
	int rc = report_model_build(m, st, "t.db", &o, &err);

	if (rc < 0)
		fprintf(stderr, "# report_model_build: %s\n", err.msg);
	return rc;
}

static uint64_t value(const struct report_model *m, bool shared, const char *label)
{
	struct report_value v[64];
	size_t n = shared ? report_shared_values(m, v, 64) : report_trace_values(m, v, 64);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].label, label))
			return v[i].count;
	return UINT64_MAX;
}

static void test_summary(void)
{
	struct store *st = make_session();
	struct report_model m;

	CHECK(st);
	CHECK(build(&m, st, C2C_DISPLAY_TOT, false) == 0);
	CHECK_EQ_U64(value(&m, false, "Total records"), 28);
	CHECK_EQ_U64(value(&m, false, "Load Operations"), 22);
	CHECK_EQ_U64(value(&m, false, "Loads - no mapping"), 2);
	CHECK_EQ_U64(value(&m, false, "Load LLC hit"), 6);
	CHECK_EQ_U64(value(&m, false, "Load Remote HITM"), 9);
	CHECK_EQ_U64(value(&m, false, "Load HIT Local Peer"), 2);
	CHECK_EQ_U64(value(&m, false, "Store Operations"), 6);
	CHECK_EQ_U64(value(&m, true, "Total Shared Cache Lines"), 3);
	CHECK_EQ_U64(value(&m, true, "Load HITs on shared lines"), 20);
	CHECK_EQ_U64(value(&m, true, "Store HITs on shared lines"), 4);
	CHECK_EQ_U64(value(&m, true, "Total Merged records"), 19);
	CHECK_EQ_U64(value(&m, true, "Load hits on peer cache or nodes"), 2);
	CHECK_STR(report_sort_title(&m), "Total HITMs");
	CHECK_STR(m.cl_sort, "offset,iaddr");
	report_model_fini(&m);
	store_close(st);
}

static void test_lines_and_pareto(void)
{
	struct store *st = make_session();
	struct report_model m;
	struct report_line_cols c;
	struct report_pareto_cols p;

	CHECK(st);
	CHECK(build(&m, st, C2C_DISPLAY_TOT, false) == 0);
	CHECK_EQ_U64(m.nlines, 2);
	CHECK_EQ_U64(m.lines[0].row.addr, 0x1000);
	CHECK_EQ_U64(m.lines[1].row.addr, 0x2000);
	report_line_cols(&m, &m.lines[0], &c);
	CHECK_EQ_U64(c.tot, 14);
	CHECK_EQ_U64(c.rmt, 9);
	CHECK_EQ_U64(c.records, 18);
	CHECK_EQ_U64(c.loads, 14);
	CHECK_EQ_U64(c.stores, 4);
	CHECK_EQ_U64((uint64_t)(c.costly_pct * 100 + 0.5), 9333); /* 14 of 15 */
	CHECK_STR(c.node, "0-1");
	CHECK_EQ_U64(c.pa_cnt, 9); /* 9 alternating; the lcl HITMs stay on the last one */

	/* Pareto: +8 (rmt HITM row before the store row), then +0x10 */
	CHECK_EQ_U64(m.lines[0].npareto, 3);
	CHECK_EQ_U64(m.lines[0].pareto[0].iaddr, 0x400100);
	CHECK_EQ_U64(m.lines[0].pareto[1].iaddr, 0x400300);
	CHECK_EQ_U64(m.lines[0].pareto[2].offset, 0x10);
	report_pareto_cols(&m, &m.lines[0], 0, &p);
	CHECK_EQ_U64((uint64_t)(p.rmt_pct * 100 + 0.5), 10000);
	CHECK_EQ_U64((uint64_t)(p.cyc_rmt + 0.5), 104);
	CHECK_EQ_U64(p.records, 9);
	CHECK_EQ_U64(p.cpu_cnt, 1);
	CHECK_STR(p.node, "0-1");
	CHECK_EQ_U64(p.pa_cnt, 9);
	CHECK_STR(p.nodes, "1");
	report_pareto_cols(&m, &m.lines[0], 1, &p);
	CHECK_EQ_U64((uint64_t)(p.st_l1hit_pct * 100 + 0.5), 10000);
	CHECK_STR(p.node, "N/A"); /* stores without phys address */
	CHECK_EQ_U64(p.pa_cnt, 0);
	report_model_fini(&m);
	store_close(st);
}

static void test_display_modes(void)
{
	struct store *st = make_session();
	struct report_model m;

	CHECK(st);
	CHECK(build(&m, st, C2C_DISPLAY_RMT, false) == 0);
	CHECK_EQ_U64(m.nlines, 1);               /* only 0x1000 has remote HITM */
	report_model_fini(&m);
	CHECK(build(&m, st, C2C_DISPLAY_PEER, false) == 0);
	CHECK_EQ_U64(m.nlines, 1);
	CHECK_EQ_U64(m.lines[0].row.addr, 0x4000);
	CHECK_STR(report_sort_title(&m), "Peer Snoop");
	report_model_fini(&m);
	CHECK(build(&m, st, C2C_DISPLAY_TOT, true) == 0);
	CHECK(m.nlines >= 4);                     /* every line, shared or not */
	report_model_fini(&m);
	store_close(st);
}

static void test_printers(void)
{
	struct store *st = make_session();
	struct report_model m;
	char path[512], buf[65536];
	size_t n;
	FILE *f;

	CHECK(st);
	CHECK(build(&m, st, C2C_DISPLAY_TOT, false) == 0);
	snprintf(path, sizeof(path), "%s/out.json", test_tmpdir());
	f = fopen(path, "w+");
	CHECK(f);
	CHECK(report_print_json(&m, f) == 0);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	CHECK(strstr(buf, "\"lines_total\":2,"));
	CHECK(strstr(buf, "{\"label\":\"Total records\",\"key\":\"nr_entries\",\"value\":28}"));
	CHECK(strstr(buf, "\"costly_pct\":93.33,"));
	CHECK(strstr(buf, "\"cycles_rmt\":104,"));
	CHECK(strstr(buf, "\"odd\\u00ff\\u0001name\""));
	fclose(f);
	f = fopen(path, "w+");
	CHECK(f);
	CHECK(report_print_text(&m, f) == 0);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	CHECK(strstr(buf, "  Total records                     :         28\n"));
	CHECK(strstr(buf, "  LLC Misses to Local DRAM          :        0.0%\n"));
	CHECK(strstr(buf, "0x1000"));
	fclose(f);
	f = fopen(path, "w+");
	CHECK(f);
	CHECK(report_print_csv(&m, f) == 0);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	CHECK(strstr(buf, "trace,nr_entries,\"Total records\",28\n"));
	CHECK(strstr(buf, "\nline,0,0x1000,0-1,9,93.33,14,5,9,"));
	fclose(f);
	report_model_fini(&m);
	store_close(st);
}

static void test_line_key_order(void)
{
	struct store_line_key kern = { .cpumode = C2C_MODE_KERNEL, .mapped = true };
	struct store_line_key user = { .cpumode = C2C_MODE_USER, .mapped = true, .anon = true, .pid = 7 };
	struct store_line_key user2 = user, file = user, nomap = { .cpumode = C2C_MODE_USER, .pid = 7 };

	user2.pid = 9;
	file.anon = false;
	file.maj = 8;
	file.ino = 1234;
	/* perf: kernel samples first, then mapped before unmapped, then the
	 * map's device/inode, pid for private anonymous memory, address */
	CHECK(store_line_key_cmp(&kern, 0xffffffff81000000ull, &user, 0x1000) < 0);
	CHECK(store_line_key_cmp(&nomap, 0x10, &user, 0x7f0000000000ull) > 0);
	CHECK(store_line_key_cmp(&user, 0x7f0000000000ull, &file, 0x400000) < 0);
	CHECK(store_line_key_cmp(&user2, 0x1000, &user, 0x2000) > 0);
	CHECK(store_line_key_cmp(&user, 0x1000, &user, 0x2000) < 0);
	CHECK_EQ_U64(store_line_key_cmp(&user, 0x1000, &user, 0x1000), 0);
}

TEST_MAIN(
	TEST_CASE(test_summary),
	TEST_CASE(test_lines_and_pareto),
	TEST_CASE(test_display_modes),
	TEST_CASE(test_printers),
	TEST_CASE(test_line_key_order),
)
