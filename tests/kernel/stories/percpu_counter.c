/* Story (c), "move percpu_counter::counters off the line of its lock":
 * struct percpu_counter embedded in a file system's superblock info (an
 * ext4_sb_info in miniature) in a kernel-shaped image (built like
 * tests/kernel/kvm.c), with lib/percpu_counter.c's add reduced to its
 * accesses. Never run: tests/tools/story_perfdata.c writes kernel-mode
 * samples at its instructions for heap (direct-map) superblocks.
 *
 * Every CPU's fast path reads fbc->counters; the one CPU whose local count
 * passed the batch takes the slow path and writes lock and count.
 *  - Before: lock, count, list and counters share one line: the fast
 *    paths take HITM from the slow path.
 *  - After (-DAFTER): counters starts a line of its own. */
#include "ktypes.h"

struct percpu_counter {
	raw_spinlock_t lock;
	s64 count;
	struct list_head list;
#ifdef AFTER
	s32 __percpu *counters ____cacheline_aligned;
#else
	s32 __percpu *counters;
#endif
};

struct sb_info {
	unsigned long s_mount_opt;
	unsigned long s_flags;
	unsigned long s_blocks_count;
	u32 s_blocks_per_group;
	u32 s_inodes_per_group;
	unsigned long s_groups_count;
	void *s_es;
	void *s_group_desc;
	unsigned long s_overhead;
	struct percpu_counter s_freeclusters_counter ____cacheline_aligned;
	unsigned long s_resuid;
};

struct sb_info root_sbi;

/* First in .text, where _text is: the functions sampled never alias it. */
__attribute__((noinline)) void startup_64(void)
{
	__asm__ volatile("nop");
}

/* this_cpu_*(*fbc->counters) spelled with an explicit CPU number. */
__attribute__((noinline)) void percpu_counter_add_batch(struct percpu_counter *fbc, s64 amount,
							 s32 batch, int cpu)
{
	s32 *pcount = &fbc->counters[cpu];
	s64 count = *pcount + amount;

	if (count >= batch || count <= -batch) {
		raw_spin_lock(&fbc->lock);
		fbc->count += count;
		*pcount -= (s32)(count - amount);
		raw_spin_unlock(&fbc->lock);
	} else {
		*pcount = (s32)count;
	}
}

void start_kernel(void)
{
	percpu_counter_add_batch(&root_sbi.s_freeclusters_counter, 1, 32, 0);
}
