/* The thread table, with perf's rules (util/machine.c, util/thread.c):
 * threads are found by tid; a process leader owns its maps, other
 * threads share the leader's; a thread first seen in a sample or side-band
 * record is created on the fly. Chained hash on tid. */
#include <stdlib.h>

#include "collector/symbols/sym_priv.h"

struct thread_node {
	struct sym_thread th;
	struct thread_node *next;
};

struct sym_threads {
	struct thread_node **buckets;
	size_t nbuckets, n;      /* nbuckets is a power of two */
};

static size_t tid_hash(int32_t tid, size_t nb)
{
	uint32_t x = (uint32_t)tid * 2654435761u;
	return (x ^ (x >> 16)) & (nb - 1);
}

struct sym_threads *sym_threads_new(void)
{
	struct sym_threads *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->nbuckets = 256;
	t->buckets = calloc(t->nbuckets, sizeof(*t->buckets));
	if (!t->buckets) {
		free(t);
		return NULL;
	}
	return t;
}

static void node_free(struct thread_node *n)
{
	sym_maps_put(n->th.maps);
	free(n);
}

void sym_threads_free(struct sym_threads *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nbuckets; i++) {
		struct thread_node *n = t->buckets[i];
		while (n) {
			struct thread_node *next = n->next;
			node_free(n);
			n = next;
		}
	}
	free(t->buckets);
	free(t);
}

struct sym_thread *sym_threads_find(struct sym_threads *t, int32_t tid)
{
	for (struct thread_node *n = t->buckets[tid_hash(tid, t->nbuckets)]; n; n = n->next)
		if (n->th.tid == tid)
			return &n->th;
	return NULL;
}

static void threads_grow(struct sym_threads *t)
{
	size_t nb = t->nbuckets * 2;
	struct thread_node **b = calloc(nb, sizeof(*b));
	if (!b)
		return;          /* keep the longer chains; still correct */
	for (size_t i = 0; i < t->nbuckets; i++) {
		struct thread_node *n = t->buckets[i];
		while (n) {
			struct thread_node *next = n->next;
			size_t h = tid_hash(n->th.tid, nb);
			n->next = b[h];
			b[h] = n;
			n = next;
		}
	}
	free(t->buckets);
	t->buckets = b;
	t->nbuckets = nb;
}

void sym_threads_remove(struct sym_threads *t, int32_t tid)
{
	struct thread_node **pp = &t->buckets[tid_hash(tid, t->nbuckets)];
	for (; *pp; pp = &(*pp)->next) {
		if ((*pp)->th.tid == tid) {
			struct thread_node *n = *pp;
			*pp = n->next;
			node_free(n);
			t->n--;
			return;
		}
	}
}

static struct sym_thread *threads_add(struct sym_threads *t, int32_t pid, int32_t tid)
{
	struct thread_node *n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->th.pid = pid;
	n->th.tid = tid;
	if (t->n + 1 > t->nbuckets)
		threads_grow(t);
	size_t h = tid_hash(tid, t->nbuckets);
	n->next = t->buckets[h];
	t->buckets[h] = n;
	t->n++;
	return &n->th;
}

/* A thread learns its pid late (it was created from a record without
 * one): it then shares the leader's maps (machine__update_thread_pid). */
static void thread_update_pid(struct sym_threads *t, struct sym_thread *th, int32_t pid)
{
	if (pid == th->pid || pid == -1 || th->pid != -1)
		return;
	th->pid = pid;
	if (th->pid == th->tid)
		return;
	int32_t tid = th->tid;
	struct sym_thread *leader = sym_threads_findnew(t, pid, pid);
	th = sym_threads_find(t, tid);   /* findnew may have rehashed; nodes stay put */
	if (!leader || !th || th->maps == leader->maps)
		return;
	sym_maps_put(th->maps);
	th->maps = sym_maps_get(leader->maps);
}

struct sym_thread *sym_threads_findnew(struct sym_threads *t, int32_t pid, int32_t tid)
{
	struct sym_thread *th = sym_threads_find(t, tid);
	if (th) {
		thread_update_pid(t, th, pid);
		return th;
	}
	th = threads_add(t, pid, tid);
	if (!th)
		return NULL;
	if (pid == tid || pid == -1) {
		th->maps = sym_maps_new(false);
	} else {
		struct sym_thread *leader = sym_threads_findnew(t, pid, pid);
		if (leader)
			th->maps = sym_maps_get(leader->maps);
	}
	if (!th->maps) {
		sym_threads_remove(t, tid);
		return NULL;
	}
	return th;
}
