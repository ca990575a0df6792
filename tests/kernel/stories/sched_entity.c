/* Story (a), "move sched_entity::avg into its own cache line": a
 * kernel-shaped image (built like tests/kernel/kvm.c: -mcmodel=kernel,
 * kernel.lds, DWARF, build-id) holding struct sched_entity as 6.x lays it
 * out, and the functions of kernel/sched/fair.c that touch it, reduced to
 * those accesses. Never run: tests/tools/story_perfdata.c writes kernel-mode
 * samples at its instructions for heap (direct-map) entities.
 *
 * Before: struct sched_avg is not cache-line aligned and sits where it used
 * to, right after vruntime, so the owner CPU's writes to exec_start,
 * sum_exec_runtime, vruntime (update_curr) and prev_sum_exec_runtime
 * (set_next_entity) share lines with avg.load_avg and avg.util_avg, which
 * other CPUs read (task_h_load, task_util on wake-up placement).
 * After (-DAFTER): avg is last and ____cacheline_aligned, as in 6.x. */
#include "ktypes.h"

struct load_weight {
	unsigned long weight;
	u32 inv_weight;
};

struct util_est {
	unsigned int enqueued;
	unsigned int ewma;
} __attribute__((aligned(sizeof(u64))));

struct sched_avg {
	u64 last_update_time;
	u64 load_sum;
	u64 runnable_sum;
	u32 util_sum;
	u32 period_contrib;
	unsigned long load_avg;
	unsigned long runnable_avg;
	unsigned long util_avg;
	struct util_est util_est;
};

struct cfs_rq;

struct sched_entity {
	struct load_weight load;
	struct rb_node run_node;
	struct list_head group_node;
	unsigned int on_rq;
	u64 exec_start;
	u64 sum_exec_runtime;
	u64 vruntime;
#ifndef AFTER
	struct sched_avg avg;
#endif
	u64 prev_sum_exec_runtime;
	u64 nr_migrations;
	int depth;
	struct sched_entity *parent;
	struct cfs_rq *cfs_rq;
	struct cfs_rq *my_q;
	unsigned long runnable_weight;
#ifdef AFTER
	struct sched_avg avg ____cacheline_aligned;
#endif
};

struct sched_entity init_se;

/* First in .text, where _text is: the functions sampled never alias it. */
__attribute__((noinline)) void startup_64(void)
{
	__asm__ volatile("nop");
}

/* The owner CPU, at every tick and switch. */
__attribute__((noinline)) void update_curr(struct sched_entity *curr, u64 now)
{
	u64 delta_exec = now - curr->exec_start;

	curr->exec_start = now;
	curr->sum_exec_runtime += delta_exec;
	curr->vruntime += delta_exec;
}

__attribute__((noinline)) void set_next_entity(struct sched_entity *se)
{
	se->prev_sum_exec_runtime = se->sum_exec_runtime;
}

/* Other CPUs: load balancing and wake-up placement. */
__attribute__((noinline)) unsigned long task_h_load(const struct sched_entity *se)
{
	return se->avg.load_avg;
}

__attribute__((noinline)) unsigned long task_util(const struct sched_entity *se)
{
	return se->avg.util_avg;
}

void start_kernel(void)
{
	update_curr(&init_se, 1);
	set_next_entity(&init_se);
	task_h_load(&init_se);
	task_util(&init_se);
}
