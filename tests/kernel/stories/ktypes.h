/* The kernel's basic types as the story images (tests/kernel/stories/*.c)
 * need them: x86-64 sizes, no headers (the images are freestanding). */
#ifndef C2C_TESTS_KTYPES_H
#define C2C_TESTS_KTYPES_H

typedef unsigned int u32;
typedef int s32;
typedef unsigned long long u64;
typedef long long s64;

#define ____cacheline_aligned __attribute__((aligned(64)))
#define __percpu

struct list_head {
	struct list_head *next, *prev;
};

struct rb_node {
	unsigned long __rb_parent_color;
	struct rb_node *rb_right;
	struct rb_node *rb_left;
} __attribute__((aligned(sizeof(long))));

struct callback_head {
	struct callback_head *next;
	void (*func)(struct callback_head *head);
};

typedef struct {
	long counter;
} atomic_long_t;

typedef struct {
	u32 val;    /* qspinlock without lock debugging: 4 bytes */
} raw_spinlock_t;

static inline void raw_spin_lock(raw_spinlock_t *l)
{
	while (__atomic_exchange_n(&l->val, 1, __ATOMIC_ACQUIRE))
		__asm__ volatile("pause");
}

static inline void raw_spin_unlock(raw_spinlock_t *l)
{
	__atomic_store_n(&l->val, 0, __ATOMIC_RELEASE);
}

static inline void atomic_long_add(long i, atomic_long_t *v)
{
	__atomic_fetch_add(&v->counter, i, __ATOMIC_RELAXED);
}

static inline long atomic_long_read(const atomic_long_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

#endif /* C2C_TESTS_KTYPES_H */
