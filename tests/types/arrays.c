/* Test program for arrays of structs (tests/e2e/types_arrays.sh, the
 * types unit tests): a global array of a line-aligned struct with an
 * embedded struct, an anonymous union and an anonymous struct, an int[4]
 * member that straddles the first cache line boundary, and a member that
 * starts the third line exactly; a heap array and a stack array of the
 * same struct. Built
 * with -g -O2 at test time. Run, it prints where its objects and one
 * function live, so that tests can build sessions with real addresses. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct load {
	long avg;
	long load_avg;
};

struct slot_table {
	unsigned int id;            /* 0, then a 4 byte hole */
	struct load stats;          /* 8..23: embedded */
	union {                     /* 24..31: anonymous */
		int fd;
		void *handle;
	};
	struct {                    /* 32..35: anonymous */
		short lo, hi;
	};
	char name[20];              /* 36..55 */
	int slots[4];               /* 56..71: across the line 0/1 boundary */
	long counter;               /* 72..79: write-hot, line 1 */
	char pad[48];               /* 80..127 */
	long tail;                  /* 128: starts line 2 */
} __attribute__((aligned(64)));

struct slot_table table[16];
static struct slot_table *heap_table;

/* One accessor per access, noinline, so that a test finds each sampled
 * instruction by symbol. */
__attribute__((noinline)) void arr_bump(int i)
{
	table[i].counter++;
}

__attribute__((noinline)) int arr_read_slot(int i, int k)
{
	return table[i].slots[k];
}

__attribute__((noinline)) long arr_read_avg(int i)
{
	return table[i].stats.avg;
}

__attribute__((noinline)) long arr_read_load_avg(int i)
{
	return table[i].stats.load_avg;
}

__attribute__((noinline)) void arr_set_fd(int i, int fd)
{
	table[i].fd = fd;
}

__attribute__((noinline)) int arr_read_hi(int i)
{
	return table[i].hi;
}

/* The heap array: the pointer parameter's type names the element. */
__attribute__((noinline)) void heap_bump(struct slot_table *t)
{
	t->counter++;
}

/* A stack array of the struct: the stack variable's element is the object. */
__attribute__((noinline)) long arr_on_stack(long v)
{
	volatile struct slot_table loc[2];

	loc[1].counter = v;
	loc[0].stats.avg = v * 2;
	return loc[1].counter + loc[0].stats.avg;
}

int main(int argc, char **argv)
{
	long sum = 0;

	(void)argv;
	heap_table = aligned_alloc(64, 8 * sizeof(*heap_table));
	if (!heap_table)
		return 1;
	for (int i = 0; i < argc * 1000; i++) {
		arr_bump(i & 15);
		sum += arr_read_slot(i & 15, i & 3) + arr_read_avg(i & 15) + arr_read_load_avg(i & 15);
		arr_set_fd(i & 15, i);
		sum += arr_read_hi(i & 15);
		heap_bump(&heap_table[i & 7]);
		sum += arr_on_stack(i);
	}
	printf("table %p\nheap_table %p\narr_bump %p\nsizeof %zu\n", (void *)table,
	       (void *)heap_table, (void *)(uintptr_t)arr_bump, sizeof(struct slot_table));
	free(heap_table);
	return sum == 42;
}
