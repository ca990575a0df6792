/* Test program for the re-layout diff (tests/e2e/diff_relayout.sh). Built
 * twice at test time with -g -O2: as is ("before") and with -DRELAYOUT
 * ("after"), the kind of patch c2ctui exists to prove:
 *
 *  - struct group (a task_group in miniature, on the heap): the write-hot
 *    load_avg shares cache line 0 with parent/rt_se/rt_rq, which other
 *    threads read; after, load_avg sits alone on a line at the end (line 0
 *    is split: load_avg leaves it). group_account() also skips the store
 *    when nothing changed after ("fewer stores from the same function").
 *  - struct counters (a global): before, writes is aligned to a line of its
 *    own; after, the alignment is dropped and reads/writes share one line
 *    (two lines merged: a regression the diff must show too). The same in
 *    a global array, element 1 (ctr_table[1]): matched by element index.
 *
 * Run, it prints the addresses of its objects and of one function, so the
 * test generator (tests/tools/relayout_perfdata.c) can write a recording
 * with real addresses. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct group {
	struct group *parent;        /* read by walkers */
	void *rt_se;                 /* read-mostly */
	void *rt_rq;                 /* read-mostly */
#ifndef RELAYOUT
	long load_avg;               /* write-hot, in line 0 with the readers */
#endif
	long shares;
	char name[24];
	long nr_running __attribute__((aligned(64)));  /* line 1 in both builds */
	long runtime;
#ifdef RELAYOUT
	long load_avg __attribute__((aligned(64)));    /* write-hot, own line */
#endif
};

struct counters {
	long reads;
#ifndef RELAYOUT
	long writes __attribute__((aligned(64)));      /* own line before */
#else
	long writes;                                   /* after: beside reads */
#endif
};

struct counters stats_ctr;
struct counters ctr_table[2];
static struct group *heap_group;

/* One function per access, noinline: the pointer stays in the argument
 * register the DWARF location list describes. */
__attribute__((noinline)) void update_load_avg(struct group *g, long v)
{
	g->load_avg = v;
}

__attribute__((noinline)) struct group *walk_parent(const struct group *g)
{
	return g->parent;
}

__attribute__((noinline)) void *read_rt_se(const struct group *g)
{
	return g->rt_se;
}

__attribute__((noinline)) void group_account(struct group *g, long n)
{
#ifdef RELAYOUT
	if (g->nr_running != n)      /* skip the update when nothing changed */
#endif
		g->nr_running = n;
}

__attribute__((noinline)) long read_runtime(const struct group *g)
{
	return g->runtime;
}

void counters_read(void);
void counters_write(void);
__attribute__((noinline)) void counters_write(void)
{
	stats_ctr.writes++;
}

static volatile long sink;
__attribute__((noinline)) void counters_read(void)
{
	sink = stats_ctr.reads;
}

void table_write(void);
void table_read(void);
__attribute__((noinline)) void table_write(void)
{
	ctr_table[1].writes++;
}

__attribute__((noinline)) void table_read(void)
{
	sink = ctr_table[1].reads;
}

int main(int argc, char **argv)
{
	long sum = 0;

	(void)argv;
	heap_group = aligned_alloc(64, (sizeof(*heap_group) + 63) / 64 * 64);
	if (!heap_group)
		return 1;
	heap_group->parent = heap_group;
	for (int i = 0; i < argc * 1000; i++) {
		update_load_avg(heap_group, i);
		sum += walk_parent(heap_group) != NULL;
		sum += read_rt_se(heap_group) != NULL;
		group_account(heap_group, i / 16);
		sum += read_runtime(heap_group);
		counters_write();
		counters_read();
		table_write();
		table_read();
	}
	printf("stats_ctr %p\nctr_table %p\nheap_group %p\nupdate_load_avg %p\nsizeof %zu\n",
	       (void *)&stats_ctr, (void *)ctr_table, (void *)heap_group, (void *)(uintptr_t)update_load_avg,
	       sizeof(struct group));
	free(heap_group);
	return sum == 42;
}
