/* story_perfdata: writes a perf c2c recording of kernel-mode samples for
 * one of the kernel acceptance stories (issue 10 point 6; tests/kernel/
 * stories/, tests/e2e/kernel_stories.sh), before or after its patch, as
 * perf record holds them on a KASLR kernel (tests/gen/kernel_rec.h): at
 * the real accessing instructions of the image (found by the member's
 * displacement, the member's offset read from the image's own DWARF), on
 * heap objects in the direct map, several objects, threads, CPUs and two
 * NUMA nodes (CPUs 0-3 node 0, 4-7 node 1).
 *
 *   story_perfdata STORY VMLINUX OUT.data [--after] [--shift HEX]
 *
 * Load latency (weight): 300 cycles for a HITM, 30 for an L1 hit. Per round
 * (5 rounds, one every 200 ms: both runs last 0.8 s), per object:
 *
 * sched_entity (3 entities, 0xffff888104a00000 + i * 0x400): the owner
 *   (tid 301+i, CPU i) stores exec_start, sum_exec_runtime, vruntime
 *   (update_curr) 2 each and prev_sum_exec_runtime (set_next_entity) 1;
 *   tid 311 (CPU 3) loads avg.load_avg (task_h_load) 2: local HITM before,
 *   L1 hits after; tid 312 (CPU 4) loads avg.util_avg (task_util) 2:
 *   remote HITM before, L1 hits after.
 *
 * task_group (3 groups, 0xffff888105c00000 + i * 0x200): tids 401, 402,
 *   405, 406 (CPUs 0, 1, 4, 5) add to load_avg (update_tg_load_avg) 4
 *   stores and 2 loads each (HITM: local on node 0, remote on node 1), in
 *   both builds; tid 411 (CPU 2) loads rt_se (tg_rt_se) 2, tid 412 (CPU 6)
 *   rt_rq (tg_rt_rq) 2, tid 413 (CPU 3) parent 2 and shares 1
 *   (tg_parent_shares): rt_se and parent local HITM, rt_rq remote HITM
 *   before, L1 hits after; shares L1 hits in both.
 *
 * tg_load_skip: task_group's before; after (the -DSKIP_UNCHANGED image,
 *   same layout), three of four updates had nothing to add and store
 *   nothing: each adder 1 store and 1 load (HITM); each reader of rt_se,
 *   rt_rq, parent 1 HITM and 1 L1 hit.
 *
 * percpu_counter (2 superblocks, 0xffff888106e00000 + i * 0x400, the
 *   counter at s_freeclusters_counter): the slow path (tid 501 on CPU 0 for
 *   the first, tid 505 on CPU 4 for the second) stores lock (the xchg) 2
 *   and count 2; the fast paths (tids 502, 503, 506, 507 on CPUs 1, 2, 5, 6)
 *   load counters 2 each: HITM before (local on the slow path's node,
 *   remote on the other), L1 hits after. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/types/types.h"
#include "tests/gen/kernel_rec.h"
#include "tests/gen/prog_probe.h"
#include "tests/gen/type_probe.h"

#define ROUNDS 5
/* A round starts every 200 ms and its samples are 10 us apart: before and
 * after runs last the same 0.8 s whatever their sample counts, so rates
 * per second compare as the counts do. */
#define ROUND_NS 200000000ULL
#define STEP_NS 10000ULL
#define HITM_LAT 300
#define HIT_LAT 30

struct story {
	struct kernel_rec k;
	struct prog_probe *img;
	struct types_db *db;
	bool after;
};

/* Round r starts at its fixed time (the writer's clock starts at 1 s). */
static void round_start(struct story *s, int r)
{
	s->k.t = 1000000000ULL + (uint64_t)r * ROUND_NS;
}

/* n accesses of member path of struct type in object obj by function fn. */
static void access(struct story *s, int32_t tid, uint32_t cpu, const char *fn, const char *type,
		   const char *path, uint64_t obj, enum pdw_mem_class cls, int n)
{
	bool store = cls >= PDW_ST_L1_HIT;
	bool hitm = cls == PDW_LD_LCL_HITM || cls == PDW_LD_RMT_HITM;
	uint64_t off = type_probe_offset(s->db, type, path);
	uint64_t ip = prog_probe_member_access(s->img, fn, (int64_t)off, store);

	if (n > 0)
		kernel_rec_sample(&s->k, tid, cpu, ip, obj + off, cls, hitm ? HITM_LAT : HIT_LAT, n);
}

static void sched_entity(struct story *s)
{
	const char *t = "sched_entity";

	kernel_rec_side_band(&s->k, s->img, 300, "stress-ng", 301, 12);
	for (int r = 0; r < ROUNDS; r++) {
		round_start(s, r);
		for (uint32_t i = 0; i < 3; i++) {
			uint64_t se = 0xffff888104a00000ULL + i * 0x400;
			access(s, 301 + (int32_t)i, i, "update_curr", t, "exec_start", se, PDW_ST_L1_HIT, 2);
			access(s, 301 + (int32_t)i, i, "update_curr", t, "sum_exec_runtime", se,
			       PDW_ST_L1_HIT, 2);
			access(s, 301 + (int32_t)i, i, "update_curr", t, "vruntime", se, PDW_ST_L1_HIT, 2);
			access(s, 301 + (int32_t)i, i, "set_next_entity", t, "prev_sum_exec_runtime", se,
			       PDW_ST_L1_HIT, 1);
			access(s, 311, 3, "task_h_load", t, "avg.load_avg", se,
			       s->after ? PDW_LD_L1_HIT : PDW_LD_LCL_HITM, 2);
			access(s, 312, 4, "task_util", t, "avg.util_avg", se,
			       s->after ? PDW_LD_L1_HIT : PDW_LD_RMT_HITM, 2);
		}
		kernel_rec_round(&s->k);
	}
}

/* skip: the after of tg_load_skip (three of four updates store nothing). */
static void task_group(struct story *s, bool skip)
{
	static const uint32_t adders[] = { 0, 1, 4, 5 };
	const char *t = "task_group";
	bool relaid = s->after && !skip;

	kernel_rec_side_band(&s->k, s->img, 400, "kworker", 401, 13);
	for (int r = 0; r < ROUNDS; r++) {
		round_start(s, r);
		for (uint32_t i = 0; i < 3; i++) {
			uint64_t tg = 0xffff888105c00000ULL + i * 0x200;
			for (int a = 0; a < 4; a++) {
				uint32_t cpu = adders[a];
				enum pdw_mem_class hitm = cpu < 4 ? PDW_LD_LCL_HITM : PDW_LD_RMT_HITM;
				access(s, 401 + (int32_t)cpu, cpu, "update_tg_load_avg", t, "load_avg", tg,
				       PDW_ST_L1_HIT, skip ? 1 : 4);
				access(s, 401 + (int32_t)cpu, cpu, "update_tg_load_avg", t, "load_avg", tg,
				       hitm, skip ? 1 : 2);
			}
			static const struct { int32_t tid; uint32_t cpu; const char *fn, *member; } rd[] = {
				{ 411, 2, "tg_rt_se", "rt_se" },
				{ 412, 6, "tg_rt_rq", "rt_rq" },
				{ 413, 3, "tg_parent_shares", "parent" },
			};
			for (size_t k = 0; k < sizeof(rd) / sizeof(rd[0]); k++) {
				enum pdw_mem_class hitm = rd[k].cpu < 4 ? PDW_LD_LCL_HITM : PDW_LD_RMT_HITM;
				int nhitm = relaid ? 0 : skip ? 1 : 2;
				access(s, rd[k].tid, rd[k].cpu, rd[k].fn, t, rd[k].member, tg, hitm, nhitm);
				access(s, rd[k].tid, rd[k].cpu, rd[k].fn, t, rd[k].member, tg, PDW_LD_L1_HIT,
				       2 - nhitm);
			}
			access(s, 413, 3, "tg_parent_shares", t, "shares", tg, PDW_LD_L1_HIT, 1);
		}
		kernel_rec_round(&s->k);
	}
}

static void percpu_counter(struct story *s)
{
	const char *t = "percpu_counter";
	uint64_t fbc_off = type_probe_offset(s->db, "sb_info", "s_freeclusters_counter");

	kernel_rec_side_band(&s->k, s->img, 500, "fio", 501, 8);
	for (int r = 0; r < ROUNDS; r++) {
		round_start(s, r);
		for (uint32_t i = 0; i < 2; i++) {
			uint64_t fbc = 0xffff888106e00000ULL + i * 0x400 + fbc_off;
			uint32_t slow = i * 4;
			access(s, 501 + (int32_t)slow, slow, "percpu_counter_add_batch", t, "lock", fbc,
			       PDW_ST_L1_HIT, 2);
			access(s, 501 + (int32_t)slow, slow, "percpu_counter_add_batch", t, "count", fbc,
			       PDW_ST_L1_HIT, 2);
			for (uint32_t cpu = 1; cpu < 8; cpu++) {
				if (cpu == 3 || cpu == 4 || cpu == 7)
					continue;
				enum pdw_mem_class hitm = (cpu < 4) == (slow < 4) ? PDW_LD_LCL_HITM
										  : PDW_LD_RMT_HITM;
				access(s, 501 + (int32_t)cpu, cpu, "percpu_counter_add_batch", t, "counters",
				       fbc, s->after ? PDW_LD_L1_HIT : hitm, 2);
			}
		}
		kernel_rec_round(&s->k);
	}
}

int main(int argc, char **argv)
{
	struct story s = { 0 };
	uint64_t shift = 0x2a00000;
	const char *story;

	if (argc < 4) {
		fprintf(stderr, "usage: story_perfdata sched_entity|task_group|tg_load_skip|percpu_counter "
				"VMLINUX OUT.data [--after] [--shift HEX]\n");
		return 2;
	}
	story = argv[1];
	for (int i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "--after"))
			s.after = true;
		else if (!strcmp(argv[i], "--shift") && i + 1 < argc)
			shift = strtoull(argv[++i], NULL, 16);
	}
	s.k.step = STEP_NS;
	s.img = prog_probe_open(argv[2]);
	s.db = type_probe_open(argv[2]);
	kernel_rec_open(&s.k, "story_perfdata", s.img, argv[3], shift, 2, 4, "story-test");
	if (!strcmp(story, "sched_entity"))
		sched_entity(&s);
	else if (!strcmp(story, "task_group"))
		task_group(&s, false);
	else if (!strcmp(story, "tg_load_skip"))
		task_group(&s, s.after);
	else if (!strcmp(story, "percpu_counter"))
		percpu_counter(&s);
	else {
		fprintf(stderr, "story_perfdata: unknown story '%s'\n", story);
		return 2;
	}
	kernel_rec_close(&s.k);
	printf("shift %#" PRIx64 "\n", shift);
	types_free(s.db);
	prog_probe_close(s.img);
	return 0;
}
