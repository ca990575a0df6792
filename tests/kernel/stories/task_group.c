/* Stories (b) and (d): struct task_group as 6.x lays it out (group
 * scheduling on, RT bandwidth's hrtimer left out) in a kernel-shaped image
 * (built like tests/kernel/kvm.c), with the kernel/sched functions that
 * touch it reduced to those accesses. Never run: tests/tools/
 * story_perfdata.c writes kernel-mode samples at its instructions for heap
 * (direct-map) task groups.
 *
 * load_avg is updated by every CPU (update_tg_load_avg: an atomic add);
 * rt_se, rt_rq, parent and shares are read by others (the RT and
 * hierarchy walks).
 *  - Before: load_avg starts a cache line, but rt_se, rt_rq and parent
 *    follow it on that line: the readers take HITM from the adders.
 *  - (b) -DAFTER, "re-layout struct task_group": rt_se starts the next
 *    line, so load_avg is alone on its own.
 *  - (d) -DSKIP_UNCHANGED, "skip the tg->load_avg update when nothing
 *    changed": the layout of before, but update_tg_load_avg adds only a
 *    non-zero delta. */
#include "ktypes.h"

struct cgroup;
struct cgroup_subsys;
struct sched_entity;
struct cfs_rq;
struct sched_rt_entity;
struct rt_rq;

struct cgroup_subsys_state {
	struct cgroup *cgroup;
	struct cgroup_subsys *ss;
	unsigned long refcnt[2];     /* struct percpu_ref */
	struct list_head sibling;
	struct list_head children;
	int id;
	unsigned int flags;
	u64 serial_nr;
	struct cgroup_subsys_state *parent;
};

struct task_group {
	struct cgroup_subsys_state css;
	struct sched_entity **se;
	struct cfs_rq **cfs_rq;
	unsigned long shares;
	int idle;
	atomic_long_t load_avg ____cacheline_aligned;
#ifdef AFTER
	struct sched_rt_entity **rt_se ____cacheline_aligned;
#else
	struct sched_rt_entity **rt_se;
#endif
	struct rt_rq **rt_rq;
	struct callback_head rcu;
	struct list_head list;
	struct task_group *parent;
	struct list_head siblings;
	struct list_head children;
};

struct task_group root_task_group;

/* First in .text, where _text is: the functions sampled never alias it. */
__attribute__((noinline)) void startup_64(void)
{
	__asm__ volatile("nop");
}

/* Every CPU, when its cfs_rq's contribution changed (or not). */
__attribute__((noinline)) void update_tg_load_avg(struct task_group *tg, long delta)
{
#ifdef SKIP_UNCHANGED
	if (!delta)
		return;
#endif
	atomic_long_add(delta, &tg->load_avg);
}

/* Other CPUs: the RT class and the hierarchy walks. */
__attribute__((noinline)) struct sched_rt_entity *tg_rt_se(const struct task_group *tg, int cpu)
{
	return tg->rt_se[cpu];
}

__attribute__((noinline)) struct rt_rq *tg_rt_rq(const struct task_group *tg, int cpu)
{
	return tg->rt_rq[cpu];
}

__attribute__((noinline)) unsigned long tg_parent_shares(const struct task_group *tg)
{
	unsigned long shares = 0;

	for (; tg; tg = tg->parent)
		shares += tg->shares;
	return shares;
}

void start_kernel(void)
{
	update_tg_load_avg(&root_task_group, 1);
	tg_rt_se(&root_task_group, 0);
	tg_rt_rq(&root_task_group, 0);
	tg_parent_shares(&root_task_group);
}
