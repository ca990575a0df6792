/* Test program for collector/types, collector/insn and the layout/diff tests.
 * Built twice at test time with -g -O2: as is ("before": the write-hot
 * `counter` shares cache line 0 with the read-mostly `name`, `limit` and
 * `st`) and with -DLAYOUT_AFTER ("after": `counter` moved to the end and
 * aligned to a cache line of its own). It holds the struct as a global, in an array, on the heap and
 * on the stack, and prints the addresses of its objects and functions when
 * run, so that tests can build sessions with real addresses. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct stats {
	long hits;
	long misses;
};

struct conn {
	unsigned int id;
	unsigned int flags : 3, kind : 5, prio : 8;
	const char *name;            /* read-mostly */
	long limit;                  /* read-mostly */
#ifndef LAYOUT_AFTER
	long counter;                /* write-hot, in line 0 with the readers */
#endif
	struct stats st;             /* nested */
	union {                      /* anonymous */
		int fd;
		void *handle;
	};
	int slots[4];
	long config[2];
#ifdef LAYOUT_AFTER
	long counter __attribute__((aligned(64)));  /* write-hot, own line */
#endif
};

struct conn global_conn;
struct conn conn_table[4];
static struct conn *heap_conn;

/* Each accessor is a separate function so that the test finds its
 * instruction by symbol; noinline keeps the pointer in the argument
 * register the DWARF location list describes. */
__attribute__((noinline)) void conn_bump(struct conn *c)
{
	c->counter++;
}

__attribute__((noinline)) long conn_read_limit(const struct conn *c)
{
	return c->limit;
}

__attribute__((noinline)) int conn_read_slot(const struct conn *c)
{
	return c->slots[2];
}

__attribute__((noinline)) void conn_set_kind(struct conn *c, unsigned k)
{
	c->kind = k & 31;
}

__attribute__((noinline)) long conn_hits(const struct conn *c)
{
	return c->st.hits;
}

/* A pointer loaded from memory: the base register holds no variable. */
__attribute__((noinline)) void conn_bump_indirect(struct conn **pc)
{
	(*pc)->counter++;
}

/* An integer used as an address: no pointer type anywhere (unresolvable
 * from the instruction; a by-hand assignment covers it). */
__attribute__((noinline)) void conn_bump_raw(uintptr_t a)
{
	((struct conn *)a)->counter++;
}

__attribute__((noinline)) long conn_on_stack(long v)
{
	volatile struct conn local;

	local.counter = v;
	local.limit = v * 2;
	return local.limit + local.counter;
}

void global_bump(void);
__attribute__((noinline)) void global_bump(void)
{
	global_conn.counter++;
}

int main(int argc, char **argv)
{
	long sum = 0;

	(void)argv;
	heap_conn = aligned_alloc(64, sizeof(*heap_conn) + 64 - sizeof(*heap_conn) % 64);
	if (!heap_conn)
		return 1;
	for (int i = 0; i < argc * 1000; i++) {
		conn_bump(heap_conn);
		sum += conn_read_limit(heap_conn) + conn_read_slot(heap_conn) + conn_hits(heap_conn);
		conn_set_kind(heap_conn, (unsigned)i);
		conn_bump_indirect(&heap_conn);
		conn_bump_raw((uintptr_t)heap_conn);
		global_bump();
		sum += conn_on_stack(i);
	}
	printf("global_conn %p\nheap_conn %p\nconn_bump %p\nsizeof %zu\n",
	       (void *)&global_conn, (void *)heap_conn, (void *)(uintptr_t)conn_bump,
	       sizeof(struct conn));
	free(heap_conn);
	return sum == 42;
}
