/* relayout_perfdata: writes a perf c2c recording (with the test perf.data
 * writer) of tests/types/relayout.c, before or after its re-layout, as if
 * it had run on a machine with a PMU: real instruction addresses (from
 * disassembling the built binary), real object addresses (from running it)
 * and the binary's segments as MMAP2 records, so that `c2ctui import` and
 * the type attribution see what a recording would hold.
 *
 *   relayout_perfdata BINARY OUT.data [--after] [--seconds N]
 *
 * Per round (5 rounds), the same workload in both builds:
 *   tid 101 stores load_avg (update_load_avg) 8;
 *   tid 102 loads parent (walk_parent) 6: local HITM before, L1 hits after;
 *   tid 103 loads rt_se (read_rt_se) 6: remote HITM before, L1 hits after;
 *   tid 104 group_account: 6 stores of nr_running before; after it
 *     compares first and stores only on a change: 4 loads + 2 stores;
 *   tid 104 loads runtime (read_runtime) 2;
 *   tid 106 increments stats_ctr.writes (counters_write) 4;
 *   tid 105 loads stats_ctr.reads (counters_read) 4: L1 hits before (own
 *     line), local HITM after (the two lines merged);
 *   the same for ctr_table[1] (table_write by tid 106, table_read by 105),
 *     2 each.
 * Load latency (weight): 300 cycles for a HITM, 30 for an L1 hit. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/types/types.h"
#include "tests/gen/perfdata_writer.h"
#include "tests/gen/prog_probe.h"

static struct prog_probe *prog;

/* The first instruction of fn that writes (store) or reads memory. */
static uint64_t mem_insn(const char *fn, bool store)
{
	return prog_probe_mem_access(prog, fn, store);
}

static uint64_t member_offset(struct types_db *db, const char *type, const char *member)
{
	uint32_t id = types_find(db, type);
	const struct types_member *m;
	size_t n = types_members(db, id, &m);

	for (size_t i = 0; i < n; i++)
		if (m[i].name && !strcmp(m[i].name, member))
			return m[i].bit_offset / 8;
	fprintf(stderr, "relayout_perfdata: struct %s has no %s\n", type, member);
	exit(1);
}

struct runtime {
	uint64_t global, table, heap, fn;
};

/* Runs the program once: it prints where its objects and code live. */
static void run_binary(struct runtime *rt)
{
	static const char *const names[] = { "stats_ctr", "ctr_table", "heap_group", "update_load_avg" };
	uint64_t v[4];

	prog_probe_run(prog, names, v, 4);
	rt->global = v[0];
	rt->table = v[1];
	rt->heap = v[2];
	rt->fn = v[3];
}

struct ctx {
	struct pdw *w;
	int ld, st;
	uint64_t step, t;
};

static void sample(struct ctx *c, int32_t tid, uint32_t cpu, uint64_t ip, uint64_t addr,
		   enum pdw_mem_class cls, int n)
{
	bool store = cls >= PDW_ST_L1_HIT;
	bool hitm = cls == PDW_LD_LCL_HITM || cls == PDW_LD_RMT_HITM;

	for (int i = 0; i < n; i++) {
		struct c2c_sample s = {
			.event = (uint32_t)(store ? c->st : c->ld),
			.cpumode = C2C_MODE_USER, .exact_ip = 1,
			.time = c->t, .ip = ip, .pid = 100, .tid = tid, .cpu = cpu,
			.addr = addr, .period = 1, .weight = store ? 0 : hitm ? 300 : 30,
			.data_src = pdw_data_src(cls, 0),
		};
		c->t += c->step;
		if (pdw_sample(c->w, &s) < 0) {
			fprintf(stderr, "relayout_perfdata: %s\n", pdw_error(c->w)->msg);
			exit(1);
		}
	}
}

static void side_band(struct ctx *c, uint64_t base, uint64_t heap)
{
	struct pdw_sid sid = { .time = c->t - 1000 };
	struct c2c_comm cm = { .pid = 100, .tid = 100, .exec = 1, .comm = "relayout" };
	struct c2c_mmap h = { .pid = 100, .tid = 100, .cpumode = C2C_MODE_USER, .prot = 3,
			      .flags = 2, .start = heap & ~0xfffffULL, .len = 0x200000,
			      .filename = "[heap]" };

	pdw_comm(c->w, &cm, &sid);
	for (int32_t t = 101; t <= 106; t++) {
		struct c2c_task tk = { .pid = 100, .ppid = 100, .tid = t, .ptid = 100, .time = sid.time };
		pdw_fork(c->w, &tk, &sid);
	}
	/* the binary's segments, as the kernel maps them */
	prog_probe_mmaps(prog, c->w, 100, base, &sid);
	pdw_mmap2(c->w, &h, &sid);
}

int main(int argc, char **argv)
{
	struct runtime rt = { 0 };
	struct types_db *db;
	struct c2c_error err = { 0 };
	struct pdw_attr la, sa;
	struct ctx c = { 0 };
	bool after = false;
	double seconds = 1;
	uint64_t base;

	if (argc < 3) {
		fprintf(stderr, "usage: relayout_perfdata BINARY OUT.data [--after] [--seconds N]\n");
		return 2;
	}
	const char *bin_path = argv[1];
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--after"))
			after = true;
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
	}
	prog = prog_probe_open(bin_path);
	if (types_open_dwarf(&db, bin_path, NULL, &err) < 0) {
		fprintf(stderr, "relayout_perfdata: %s\n", err.msg);
		return 1;
	}
	run_binary(&rt);
	base = rt.fn - prog_probe_sym(prog, "update_load_avg");

	c.w = pdw_new(argv[2], NULL, &err);
	if (!c.w) {
		fprintf(stderr, "relayout_perfdata: %s\n", err.msg);
		return 1;
	}
	pdw_describe_machine(c.w, 1, 4, "relayout-test");
	pdw_attr_mem_loads(&la, 30, 4);
	pdw_attr_mem_stores(&sa, 4);
	c.ld = pdw_add_attr(c.w, &la);
	c.st = pdw_add_attr(c.w, &sa);
	c.t = 1000000000ULL;
	/* 200 samples spread over the run */
	c.step = (uint64_t)(seconds * 1e9 / 200);
	side_band(&c, base, rt.heap);
	{
		uint64_t o_load = member_offset(db, "group", "load_avg");
		uint64_t o_parent = member_offset(db, "group", "parent");
		uint64_t o_rt_se = member_offset(db, "group", "rt_se");
		uint64_t o_nr = member_offset(db, "group", "nr_running");
		uint64_t o_runtime = member_offset(db, "group", "runtime");
		uint64_t o_reads = member_offset(db, "counters", "reads");
		uint64_t o_writes = member_offset(db, "counters", "writes");
		uint64_t ip_load = base + mem_insn("update_load_avg", true);
		uint64_t ip_parent = base + mem_insn("walk_parent", false);
		uint64_t ip_rt_se = base + mem_insn("read_rt_se", false);
		uint64_t ip_acct_st = base + mem_insn("group_account", true);
		uint64_t ip_runtime = base + mem_insn("read_runtime", false);
		uint64_t ip_cw = base + mem_insn("counters_write", true);
		uint64_t ip_cr = base + mem_insn("counters_read", false);
		uint64_t ip_tw = base + mem_insn("table_write", true);
		uint64_t ip_tr = base + mem_insn("table_read", false);
		const struct types_type *ct = types_get(db, types_find(db, "counters"));
		uint64_t elem1 = rt.table + (ct ? ct->size : 0);
		enum pdw_mem_class lcl = after ? PDW_LD_L1_HIT : PDW_LD_LCL_HITM;
		enum pdw_mem_class rmt = after ? PDW_LD_L1_HIT : PDW_LD_RMT_HITM;

		for (int round = 0; round < 5; round++) {
			sample(&c, 101, 0, ip_load, rt.heap + o_load, PDW_ST_L1_HIT, 8);
			sample(&c, 102, 1, ip_parent, rt.heap + o_parent, lcl, 6);
			sample(&c, 103, 2, ip_rt_se, rt.heap + o_rt_se, rmt, 6);
			if (after) {
				sample(&c, 104, 3, base + mem_insn("group_account", false), rt.heap + o_nr,
				       PDW_LD_L1_HIT, 4);
				sample(&c, 104, 3, ip_acct_st, rt.heap + o_nr, PDW_ST_L1_HIT, 2);
			} else {
				sample(&c, 104, 3, ip_acct_st, rt.heap + o_nr, PDW_ST_L1_HIT, 6);
			}
			sample(&c, 104, 3, ip_runtime, rt.heap + o_runtime, PDW_LD_L1_HIT, 2);
			sample(&c, 106, 0, ip_cw, rt.global + o_writes, PDW_ST_L1_HIT, 4);
			sample(&c, 105, 1, ip_cr, rt.global + o_reads,
			       after ? PDW_LD_LCL_HITM : PDW_LD_L1_HIT, 4);
			sample(&c, 106, 0, ip_tw, elem1 + o_writes, PDW_ST_L1_HIT, 2);
			sample(&c, 105, 1, ip_tr, elem1 + o_reads, after ? PDW_LD_LCL_HITM : PDW_LD_L1_HIT, 2);
			pdw_finished_round(c.w);
		}
	}
	if (pdw_close(c.w, &err) < 0) {
		fprintf(stderr, "relayout_perfdata: %s\n", err.msg);
		return 1;
	}
	printf("base %#" PRIx64 "\nheap %#" PRIx64 "\nglobal %#" PRIx64 "\n", base, rt.heap, rt.global);
	types_free(db);
	prog_probe_close(prog);
	return 0;
}
