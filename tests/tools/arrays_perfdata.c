/* arrays_perfdata: writes a perf c2c recording (with the test perf.data
 * writer) of tests/types/arrays.c as if it had run on a machine with a PMU:
 * the real addresses of its accessing instructions (from disassembling the
 * built binary), of its global array and heap array (from running it) and
 * the binary's segments as MMAP2 records.
 *
 *   arrays_perfdata BINARY OUT.data
 *
 * Prints "table ADDR", "heap ADDR", "size N" (the element size) for the
 * test to recount from `perf script`. The workload, 5 rounds of:
 *   table[3]: tid 201 increments counter (line 1) 4; tid 202 reads slots[2]
 *   (+64, line 1) 3 HITM and stats.avg (line 0) 2 HITM; tid 204 reads
 *   slots[0] (+56, line 0) 2 and writes fd (anonymous union, line 0) 2;
 *   tid 203 reads hi (anonymous struct, line 0) 1 HITM;
 *   table[5]: tid 204 writes fd 1; tid 203 reads stats.load_avg 2 HITM;
 *   heap_table[2]: tid 205 increments counter through a pointer 2. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/types/types.h"
#include "tests/gen/perfdata_writer.h"
#include "tests/gen/prog_probe.h"

struct ctx {
	struct pdw *w;
	int ld, st;
	uint64_t t, step;
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
		};
		c->t += c->step;
		if (pdw_sample(c->w, &s) < 0) {
			fprintf(stderr, "arrays_perfdata: %s\n", pdw_error(c->w)->msg);
			exit(1);
		}
	}
}

/* Byte offset of a member path in struct slot_table, from the debug info
 * (types_resolve walks the other way: find the offset naming the path). */
static uint64_t member_offset(struct types_db *db, uint32_t id, uint64_t size, const char *path)
{
	for (uint64_t off = 0; off < size; off++) {
		struct types_hit hit;
		if (types_resolve(db, id, off, &hit) == 0 && !strcmp(hit.path, path))
			return off;
	}
	fprintf(stderr, "arrays_perfdata: struct slot_table has no %s\n", path);
	exit(1);
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "table", "heap_table", "arr_bump" };
	uint64_t rt[3];
	struct prog_probe *p;
	struct types_db *db;
	struct c2c_error err = { 0 };
	struct pdw_attr la, sa;
	struct ctx c = { .pid = 200 };
	struct pdw_sid sid = { 0 };
	uint64_t base, esize, t3, t5, h2;
	uint32_t id;

	if (argc != 3) {
		fprintf(stderr, "usage: arrays_perfdata BINARY OUT.data\n");
		return 2;
	}
	p = prog_probe_open(argv[1]);
	if (types_open_dwarf(&db, argv[1], NULL, &err) < 0) {
		fprintf(stderr, "arrays_perfdata: %s\n", err.msg);
		return 1;
	}
	id = types_find(db, "slot_table");
	if (!id || !types_get(db, id)) {
		fprintf(stderr, "arrays_perfdata: no struct slot_table in %s\n", argv[1]);
		return 1;
	}
	esize = types_get(db, id)->size;
	prog_probe_run(p, names, rt, 3);
	base = rt[2] - prog_probe_sym(p, "arr_bump");
	t3 = rt[0] + 3 * esize;
	t5 = rt[0] + 5 * esize;
	h2 = rt[1] + 2 * esize;

	c.w = pdw_new(argv[2], NULL, &err);
	if (!c.w) {
		fprintf(stderr, "arrays_perfdata: %s\n", err.msg);
		return 1;
	}
	pdw_describe_machine(c.w, 1, 4, "arrays-test");
	pdw_attr_mem_loads(&la, 30, 4);
	pdw_attr_mem_stores(&sa, 4);
	c.ld = pdw_add_attr(c.w, &la);
	c.st = pdw_add_attr(c.w, &sa);
	c.t = 1000000000ULL;
	c.step = 10000000ULL;   /* 90 samples over 0.9 s */
	sid.time = c.t - 1000;
	{
		struct c2c_comm cm = { .pid = 200, .tid = 200, .exec = 1, .comm = "arrays" };
		pdw_comm(c.w, &cm, &sid);
		for (int32_t t = 201; t <= 205; t++) {
			struct c2c_task tk = { .pid = 200, .ppid = 200, .tid = t, .ptid = 200,
					       .time = sid.time };
			pdw_fork(c.w, &tk, &sid);
		}
	}
	prog_probe_mmaps(p, c.w, 200, base, &sid);
	{
		struct c2c_mmap h = { .pid = 200, .tid = 200, .cpumode = C2C_MODE_USER, .prot = 3,
				      .flags = 2, .start = rt[1] & ~0xfffffULL, .len = 0x200000,
				      .filename = "[heap]" };
		pdw_mmap2(c.w, &h, &sid);
	}
	{
		uint64_t o_counter = member_offset(db, id, esize, "counter");
		uint64_t o_slot0 = member_offset(db, id, esize, "slots[0]");
		uint64_t o_slot2 = member_offset(db, id, esize, "slots[2]");
		uint64_t o_avg = member_offset(db, id, esize, "stats.avg");
		uint64_t o_lavg = member_offset(db, id, esize, "stats.load_avg");
		uint64_t o_fd = member_offset(db, id, esize, "fd");
		uint64_t o_hi = member_offset(db, id, esize, "hi");
		uint64_t ip_bump = base + prog_probe_mem_insn(p, "arr_bump", 0);
		uint64_t ip_slot = base + prog_probe_mem_insn(p, "arr_read_slot", 0);
		uint64_t ip_avg = base + prog_probe_mem_insn(p, "arr_read_avg", 0);
		uint64_t ip_lavg = base + prog_probe_mem_insn(p, "arr_read_load_avg", 0);
		uint64_t ip_fd = base + prog_probe_mem_insn(p, "arr_set_fd", 0);
		uint64_t ip_hi = base + prog_probe_mem_insn(p, "arr_read_hi", 0);
		uint64_t ip_heap = base + prog_probe_mem_insn(p, "heap_bump", 0);

		for (int round = 0; round < 5; round++) {
			sample(&c, 201, 0, ip_bump, t3 + o_counter, PDW_ST_L1_HIT, 4);
			sample(&c, 202, 1, ip_slot, t3 + o_slot2, PDW_LD_LCL_HITM, 3);
			sample(&c, 202, 1, ip_avg, t3 + o_avg, PDW_LD_LCL_HITM, 2);
			sample(&c, 204, 3, ip_slot, t3 + o_slot0, PDW_LD_L1_HIT, 2);
			sample(&c, 204, 3, ip_fd, t3 + o_fd, PDW_ST_L1_HIT, 2);
			sample(&c, 203, 2, ip_hi, t3 + o_hi, PDW_LD_LCL_HITM, 1);
			sample(&c, 204, 3, ip_fd, t5 + o_fd, PDW_ST_L1_HIT, 1);
			sample(&c, 203, 2, ip_lavg, t5 + o_lavg, PDW_LD_LCL_HITM, 2);
			sample(&c, 205, 0, ip_heap, h2 + o_counter, PDW_ST_L1_HIT, 2);
			pdw_finished_round(c.w);
		}
	}
	if (pdw_close(c.w, &err) < 0) {
		fprintf(stderr, "arrays_perfdata: %s\n", err.msg);
		return 1;
	}
	printf("table %#" PRIx64 "\nheap %#" PRIx64 "\nsize %" PRIu64 "\n", rt[0], rt[1], esize);
	types_free(db);
	prog_probe_close(p);
	return 0;
}
