/* conn_perfdata: writes a perf c2c recording (with the test perf.data
 * writer) of tests/types/conn.c as if it had run on a machine with a PMU:
 * real instruction addresses (from disassembling the built binary), real
 * object addresses (from running it: its global and its heap object) and
 * the binary's real segments as MMAP2 records, so that `c2ctui import` and
 * the types attribution see exactly what a recording would hold.
 *
 *   conn_perfdata BINARY OUT.data [--after] [--seconds N]
 *
 * --after: the accesses of the after build (counter on its own line): the
 * readers of name/limit/st no longer miss (L1 hits instead of HITM).
 * The workload (same in both builds), per object:
 *   tid 101 increments counter (conn_bump), 40 samples; 10 more through an
 *   integer used as an address (conn_bump_raw: no pointer type, not
 *   attributable by instruction); tid 102 and 103 read limit (conn_read_limit), 30 each;
 *   tid 104 reads st.hits (conn_hits) 10 and slots[2] (conn_read_slot) 10;
 *   the global: tid 101 increments global_conn.counter (global_bump) 20,
 *   tid 102 reads global_conn.limit 20; tid 105 writes a stack struct
 *   (conn_on_stack) 5. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/types/types.h"
#include "tests/gen/perfdata_writer.h"
#include "tests/gen/prog_probe.h"

static struct prog_probe *probe;

static uint64_t sym_value(const char *name)
{
	return prog_probe_sym(probe, name);
}

static uint64_t mem_insn(const char *fn, int nth)
{
	return prog_probe_mem_insn(probe, fn, nth);
}

static uint64_t member_offset(struct types_db *db, const char *member)
{
	uint32_t id = types_find(db, "conn");
	const struct types_member *m;
	size_t n = types_members(db, id, &m);

	for (size_t i = 0; i < n; i++)
		if (m[i].name && !strcmp(m[i].name, member))
			return m[i].bit_offset / 8;
	fprintf(stderr, "conn_perfdata: struct conn has no %s\n", member);
	exit(1);
}

struct runtime {
	uint64_t global, heap, bump;
};

/* Runs the program once: it prints where its objects and code live. */
static void run_binary(struct runtime *rt)
{
	static const char *const names[] = { "global_conn", "heap_conn", "conn_bump" };
	uint64_t v[3];

	prog_probe_run(probe, names, v, 3);
	rt->global = v[0];
	rt->heap = v[1];
	rt->bump = v[2];
}

struct ctx {
	struct pdw *w;
	int ld, st;
	uint64_t t0, step, t;
	int32_t pid;
};

static void sample(struct ctx *c, int32_t tid, uint32_t cpu, uint64_t ip, uint64_t addr,
		   enum pdw_mem_class cls, int n)
{
	bool store = cls >= PDW_ST_L1_HIT;

	for (int i = 0; i < n; i++) {
		struct c2c_sample s = {
			.event = (uint32_t)(store ? c->st : c->ld),
			.cpumode = C2C_MODE_USER, .exact_ip = 1,
			.time = c->t, .ip = ip, .pid = c->pid, .tid = tid, .cpu = cpu,
			.addr = addr, .period = 1, .weight = store ? 0 : 120,
			.data_src = pdw_data_src(cls, 0),
			.phys_addr = 0,
		};
		c->t += c->step;
		if (pdw_sample(c->w, &s) < 0) {
			fprintf(stderr, "conn_perfdata: %s\n", pdw_error(c->w)->msg);
			exit(1);
		}
	}
}

int main(int argc, char **argv)
{
	struct runtime rt = { 0 };
	struct types_db *db;
	struct c2c_error err = { 0 };
	struct pdw_attr la, sa;
	struct ctx c = { .pid = 100 };
	struct pdw_sid sid = { 0 };
	bool after = false;
	double seconds = 1;
	uint64_t base, stack = 0x7ffd4a3c1e40ULL;
	enum pdw_mem_class rd;

	if (argc < 3) {
		fprintf(stderr, "usage: conn_perfdata BINARY OUT.data [--after] [--seconds N]\n");
		return 2;
	}
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--after"))
			after = true;
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
	}
	rd = after ? PDW_LD_L1_HIT : PDW_LD_LCL_HITM;
	probe = prog_probe_open(argv[1]);
	if (types_open_dwarf(&db, argv[1], NULL, &err) < 0) {
		fprintf(stderr, "conn_perfdata: %s\n", err.msg);
		return 1;
	}
	run_binary(&rt);
	base = rt.bump - sym_value("conn_bump");

	c.w = pdw_new(argv[2], NULL, &err);
	if (!c.w) {
		fprintf(stderr, "conn_perfdata: %s\n", err.msg);
		return 1;
	}
	pdw_describe_machine(c.w, 1, 4, "conn-test");
	pdw_attr_mem_loads(&la, 30, 4);
	pdw_attr_mem_stores(&sa, 4);
	c.ld = pdw_add_attr(c.w, &la);
	c.st = pdw_add_attr(c.w, &sa);
	c.t0 = c.t = 1000000000ULL;
	/* 175 samples spread over the run */
	c.step = (uint64_t)(seconds * 1e9 / 175);

	sid.time = c.t0 - 1000;
	{
		struct c2c_comm cm = { .pid = 100, .tid = 100, .exec = 1, .comm = "conn" };
		pdw_comm(c.w, &cm, &sid);
		for (int32_t t = 101; t <= 105; t++) {
			struct c2c_task tk = { .pid = 100, .ppid = 100, .tid = t, .ptid = 100,
					       .time = sid.time };
			pdw_fork(c.w, &tk, &sid);
		}
	}
	/* the binary's segments, as the kernel maps them */
	prog_probe_mmaps(probe, c.w, 100, base, &sid);
	{
		struct c2c_mmap h = { .pid = 100, .tid = 100, .cpumode = C2C_MODE_USER, .prot = 3,
				      .flags = 2, .start = rt.heap & ~0xfffffULL, .len = 0x200000,
				      .filename = "[heap]" };
		struct c2c_mmap s = h;
		pdw_mmap2(c.w, &h, &sid);
		s.start = stack & ~0xfffffULL;
		s.len = 0x100000;
		s.filename = "[stack]";
		pdw_mmap2(c.w, &s, &sid);
	}
	{
		uint64_t o_counter = member_offset(db, "counter"), o_limit = member_offset(db, "limit");
		uint64_t o_st = member_offset(db, "st"), o_slots = member_offset(db, "slots");
		uint64_t ip_bump = base + mem_insn("conn_bump", 0);
		uint64_t ip_limit = base + mem_insn("conn_read_limit", 0);
		uint64_t ip_hits = base + mem_insn("conn_hits", 0);
		uint64_t ip_slot = base + mem_insn("conn_read_slot", 0);
		uint64_t ip_raw = base + mem_insn("conn_bump_raw", 0);
		uint64_t ip_gbump = base + mem_insn("global_bump", 0);
		uint64_t ip_stack = base + mem_insn("conn_on_stack", 0);

		for (int round = 0; round < 5; round++) {
			sample(&c, 101, 0, ip_bump, rt.heap + o_counter, PDW_ST_L1_HIT, 8);
			sample(&c, 102, 1, ip_limit, rt.heap + o_limit, rd, 6);
			sample(&c, 103, 2, ip_limit, rt.heap + o_limit, rd, 6);
			sample(&c, 104, 3, ip_hits, rt.heap + o_st, rd, 2);
			sample(&c, 104, 3, ip_slot, rt.heap + o_slots + 8, PDW_LD_L1_HIT, 2);
			sample(&c, 101, 0, ip_raw, rt.heap + o_counter, PDW_ST_L1_HIT, 2);
			sample(&c, 101, 0, ip_gbump, rt.global + o_counter, PDW_ST_L1_HIT, 4);
			sample(&c, 102, 1, ip_limit, rt.global + o_limit, rd, 4);
			sample(&c, 105, 3, ip_stack, stack, PDW_ST_L1_HIT, 1);
			pdw_finished_round(c.w);
		}
	}
	if (pdw_close(c.w, &err) < 0) {
		fprintf(stderr, "conn_perfdata: %s\n", err.msg);
		return 1;
	}
	printf("base %#" PRIx64 "\nheap %#" PRIx64 "\nglobal %#" PRIx64 "\nstack %#" PRIx64 "\n",
	       base, rt.heap, rt.global, stack);
	types_free(db);
	prog_probe_close(probe);
	return 0;
}
