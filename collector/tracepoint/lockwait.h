/* Lock waits from lock:contention_begin / lock:contention_end: begin and end
 * are paired per task into one wait (begin time, duration, lock address,
 * flags, and the begin's call chain, which says where the lock was taken).
 * Used by the live collector and by the perf.data import pipeline, so both
 * produce the same waits from the same records.
 *
 * Pairing rules (as perf lock contention): a second begin on the same lock
 * while one is pending is the nested begin of mutex spinning then sleeping,
 * and the first begin is kept; a begin on another lock replaces the pending
 * one (counted in dropped_begins); an end without a pending begin on that
 * task and lock is counted in unmatched_ends. Records must arrive in time
 * order per task (per-CPU order is enough: a task's begin and end are on
 * the same CPU, the task waits in between).
 *
 * Ownership: lockwait_new/lockwait_free. Not thread-safe. */
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
	uint64_t nested_begins;  /* repeated begin on the same lock: ignored */
	uint64_t dropped_begins; /* begin replaced by a begin on another lock */
	uint64_t unmatched_ends;
	uint64_t pending;        /* begins still waiting for their end */
};

struct lockwait_pairer *lockwait_new(struct c2c_error *err);
void lockwait_free(struct lockwait_pairer *p);

/* Feeds one decoded tracepoint sample. s must carry TID and TIME; rec is
 * tp_decode()'s result for s->raw. Returns 1 with *out filled when s ends a
 * wait, 0 when it does not (a begin, another tracepoint, an unmatched end),
 * or -ENOMEM. */
int lockwait_feed(struct lockwait_pairer *p, const struct c2c_sample *s,
		  const struct tp_record *rec, struct lockwait *out, struct c2c_error *err);

/* Convenience for producers that hold a decoder: decodes s->raw (when the
 * sample has RAW) and feeds it. Returns as lockwait_feed; a payload the
 * decoder does not know returns 0 and is not an error. */
int lockwait_feed_raw(struct lockwait_pairer *p, struct tp_decoder *dec, const struct c2c_sample *s,
		      struct lockwait *out, struct c2c_error *err);

void lockwait_get_stats(const struct lockwait_pairer *p, struct lockwait_stats *out);

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
