/* Lock waits from lock:contention_begin / lock:contention_end: begin and end
 * are paired per task and lock into one wait (begin time, duration, lock
 * address, flags, and the begin's call chain, which says where the lock was
 * taken). Used by the live collector and by the perf.data import pipeline,
 * so both produce the same waits from the same records.
 *
 * Pairing rules are those of perf lock contention (tools/perf/builtin-lock.c,
 * report_lock_contention_begin/end_event): every (task, lock address) has
 * its own sequence, so a task may wait on several locks at once (a spinlock
 * taken while waiting for a mutex, in an interrupt); a begin while that
 * task's wait on that lock is open is the nested begin of mutex spinning
 * then sleeping and is ignored (the first begin's time and flags are kept);
 * an end with no open wait on that task and lock (the wait began before the
 * recording) is counted in unmatched_ends; a begin never ended (the
 * recording stopped first) stays pending. perf counts a wait ("contended")
 * at its begin and adds its time at its end; lockwait_feed_event reports
 * both moments.
 *
 * LOCKWAIT_BY_CALLER pairs as perf's default (caller) table does: each
 * sample carries a key, the hash of its call stack (lockwait_stack_key),
 * and an end whose key no begin has had yet is dropped (the wait stays open,
 * so the task's next begin on that lock is nested and the next end closes
 * the first wait); an end's time goes to the end's key.
 *
 * Records must arrive in time order per task. Ownership:
 * lockwait_new/lockwait_free. Not thread-safe. */
#ifndef C2C_LOCKWAIT_H
#define C2C_LOCKWAIT_H

#include <stdbool.h>
#include <stdint.h>

#include "collector/base/error.h"
#include "collector/base/sample.h"
#include "collector/tracepoint/tracepoint.h"

struct lockwait_pairer;

/* A completed wait. callchain points into the pairer and is valid until
 * the next call on it. */
struct lockwait {
	uint64_t time;           /* begin time, ns */
	uint64_t wait_ns;        /* end time - begin time */
	int32_t pid, tid;
	uint32_t cpu;            /* CPU of the begin */
	uint64_t lock_addr;
	uint32_t flags;          /* contention_begin flags (LCB_F_*) */
	int32_t ret;             /* contention_end ret */
	uint8_t cpumode;         /* of the begin sample */
	uint32_t nr_callchain;   /* begin's chain, as recorded (with context markers) */
	const uint64_t *callchain;
};

struct lockwait_stats {
	uint64_t begins;
	uint64_t ends;
	uint64_t paired;
	uint64_t nested_begins;  /* repeated begin on the same task and lock: ignored */
	uint64_t dropped_begins; /* always 0 (kept for the stats line) */
	uint64_t unmatched_ends; /* no open wait on that task and lock */
	uint64_t dropped_ends;   /* BY_CALLER: no begin had the end's key */
	uint64_t pending;        /* begins still waiting for their end */
};

enum lockwait_mode {
	LOCKWAIT_BY_TASK,        /* perf lock contention -t (and by lock address) */
	LOCKWAIT_BY_CALLER,      /* perf lock contention's default table */
};

enum lockwait_event_kind {
	LOCKWAIT_EV_NONE,
	LOCKWAIT_EV_BEGIN,       /* a begin: counted (a wait starts) and/or a new key */
	LOCKWAIT_EV_ACQUIRED,    /* an end closed a wait */
};

struct lockwait_event {
	enum lockwait_event_kind kind;
	bool counted;            /* BEGIN: a wait starts (perf's nr_contended++) */
	bool new_key;            /* BEGIN: first begin with this key (BY_CALLER) */
	uint64_t time;           /* begin time */
	uint64_t wait_ns;        /* ACQUIRED */
	int32_t pid, tid;
	uint64_t lock_addr;
	uint32_t flags;          /* the begin's flags (ACQUIRED: the wait's first begin) */
	uint64_t key;            /* BEGIN: the begin's key; ACQUIRED: the end's key */
};

/* lockwait_new is lockwait_new_mode(LOCKWAIT_BY_TASK). */
struct lockwait_pairer *lockwait_new(struct c2c_error *err);
struct lockwait_pairer *lockwait_new_mode(enum lockwait_mode mode, struct c2c_error *err);
void lockwait_free(struct lockwait_pairer *p);

/* Feeds one decoded tracepoint sample. s must carry TID and TIME; rec is
 * tp_decode()'s result for s->raw. Returns 1 with *out filled when s ends a
 * wait, 0 when it does not (a begin, another tracepoint, an unmatched end),
 * or -ENOMEM. */
int lockwait_feed(struct lockwait_pairer *p, const struct c2c_sample *s,
		  const struct tp_record *rec, struct lockwait *out, struct c2c_error *err);

/* The same, reporting perf's two moments: *ev is BEGIN for a begin that
 * starts a wait or brings a new key, ACQUIRED for an end that closes one,
 * NONE otherwise. key is the sample's lockwait_stack_key (BY_CALLER; 0
 * otherwise). When wait is not NULL and ev is ACQUIRED it is filled as by
 * lockwait_feed. Returns 0 or -ENOMEM. */
int lockwait_feed_event(struct lockwait_pairer *p, const struct c2c_sample *s, const struct tp_record *rec,
			uint64_t key, struct lockwait_event *ev, struct lockwait *wait, struct c2c_error *err);

/* Convenience for producers that hold a decoder: decodes s->raw (when the
 * sample has RAW) and feeds it. Returns as lockwait_feed; a payload the
 * decoder does not know returns 0 and is not an error. */
int lockwait_feed_raw(struct lockwait_pairer *p, struct tp_decoder *dec, const struct c2c_sample *s,
		      struct lockwait *out, struct c2c_error *err);

void lockwait_get_stats(const struct lockwait_pairer *p, struct lockwait_stats *out);

/* perf's caller rules on a call chain (builtin-lock.c callchain_id and
 * lock_contention_caller): the chain's first max_stack real frames (context
 * markers skipped, not counted), of which the first skip are lock
 * machinery. is_lock(ctx, ip) says whether ip is in the kernel's sched or
 * lock text; resolved(ctx, ip) whether it has a symbol (only resolved
 * frames can be skipped as lock functions or name the caller). */
struct lockwait_frames {
	bool (*is_lock)(void *ctx, uint64_t ip);
	bool (*resolved)(void *ctx, uint64_t ip);
	void *ctx;
	unsigned max_stack;      /* perf's default 8 */
	unsigned skip;           /* perf's default 3 */
};
/* The key perf's caller table groups by: XOR of hash_long(ip) of the
 * frames after skip that are not resolved lock functions. */
uint64_t lockwait_stack_key(const uint64_t *chain, uint32_t nr, const struct lockwait_frames *f);
/* Index into chain of the frame perf names as the caller (the first
 * resolved frame after skip that is not a lock function), or -1 ("Unknown"). */
int lockwait_perf_caller(const uint64_t *chain, uint32_t nr, const struct lockwait_frames *f);

/* The kernel's sched and lock text (perf's machine__is_lock_function:
 * mutex and rwsem slow paths live in the first, spinlocks in the second),
 * from a kallsyms file's __sched_text_start/end and __lock_text_start/end. */
struct lockwait_text {
	uint64_t sched_start, sched_end, lock_start, lock_end;
	bool known;
};
/* Returns 0, or -errno when the file cannot be read or lacks the symbols
 * (then t->known is false and no address is lock text, as in perf). */
int lockwait_text_load(struct lockwait_text *t, const char *kallsyms_path);
bool lockwait_text_has(const struct lockwait_text *t, uint64_t ip);

/* The first frame of a call chain that is not lock machinery: skips
 * PERF_CONTEXT_* markers and kernel frames whose function name (given by
 * the caller's resolver) looks like the lock implementation. name_of may be
 * NULL (then the first real frame is returned). Returns the index into
 * chain, or -1 when the chain has no real frame. */
int lockwait_caller_index(const uint64_t *chain, uint32_t nr,
			  const char *(*name_of)(void *ctx, uint64_t ip), void *ctx);

/* True for kernel function names of lock implementations
 * ("_raw_spin_lock", "__mutex_lock", "rwsem_down_read_slowpath", ...). */
bool lockwait_is_lock_function(const char *name);

#endif /* C2C_LOCKWAIT_H */
