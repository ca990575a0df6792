/* Pairing lock:contention_begin/end per task into waits (collector/tracepoint/lockwait.h).
 * Pending begins live in an open-addressing table keyed by tid. */
#include "collector/tracepoint/lockwait.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CTX_MAX_MARKER 0xfffffffffffff000ull /* PERF_CONTEXT_* are >= -4095 */

struct pending {
	int32_t tid;             /* 0: empty slot (tid 0 is the idle task: never waits) */
	int32_t pid;
	uint32_t cpu;
	uint8_t cpumode;
	uint64_t time;
	uint64_t lock_addr;
	uint32_t flags;
	uint32_t nr_chain, cap_chain;
	uint64_t *chain;
	bool used;
};

struct lockwait_pairer {
	struct pending *slots;
	size_t cap;              /* power of two */
	size_t used;
	struct lockwait_stats st;
	uint64_t *out_chain;     /* handed out with the last completed wait */
	uint32_t out_cap;
};

struct lockwait_pairer *lockwait_new(struct c2c_error *err)
{
	struct lockwait_pairer *p = calloc(1, sizeof(*p));

	if (p) {
		p->cap = 256;
		p->slots = calloc(p->cap, sizeof(*p->slots));
	}
	if (!p || !p->slots) {
		free(p);
		c2c_error_set(err, -ENOMEM, "out of memory for lock wait pairing");
		return NULL;
	}
	return p;
}

void lockwait_free(struct lockwait_pairer *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->cap; i++)
		free(p->slots[i].chain);
	free(p->slots);
	free(p->out_chain);
	free(p);
}

static size_t hash_tid(int32_t tid, size_t cap)
{
	return ((uint32_t)tid * 2654435761u) & (cap - 1);
}

/* Slot for tid: the existing one, or the empty one where it would go. */
static struct pending *find_slot(struct pending *slots, size_t cap, int32_t tid)
{
	size_t i = hash_tid(tid, cap);

	while (slots[i].used && slots[i].tid != tid)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static int grow(struct lockwait_pairer *p)
{
	size_t ncap = p->cap * 2;
	struct pending *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	/* Slots are never removed from the probe sequence (ended ones keep
	 * used=true with lock_addr 0 = idle), so rehash everything. */
	for (size_t i = 0; i < p->cap; i++)
		if (p->slots[i].used)
			*find_slot(ns, ncap, p->slots[i].tid) = p->slots[i];
	free(p->slots);
	p->slots = ns;
	p->cap = ncap;
	return 0;
}

static int copy_chain(uint64_t **dst, uint32_t *cap, uint32_t *nr, const struct c2c_sample *s)
{
	uint32_t n = (s->has & C2C_HAS_CALLCHAIN) && s->callchain ? s->nr_callchain : 0;

	if (n > *cap) {
		uint64_t *nc = realloc(*dst, n * sizeof(**dst));
		if (!nc)
			return -ENOMEM;
		*dst = nc;
		*cap = n;
	}
	if (n)
		memcpy(*dst, s->callchain, n * sizeof(**dst));
	*nr = n;
	return 0;
}

/* A slot is "pending" when lock_addr != 0 || flags marks it; use time. */
static bool is_pending(const struct pending *e)
{
	return e->used && e->time != UINT64_MAX;
}

int lockwait_feed(struct lockwait_pairer *p, const struct c2c_sample *s,
		  const struct tp_record *rec, struct lockwait *out, struct c2c_error *err)
{
	struct pending *e;

	if (rec->kind != TP_CONTENTION_BEGIN && rec->kind != TP_CONTENTION_END)
		return 0;
	if (rec->kind == TP_CONTENTION_BEGIN) {
		p->st.begins++;
		if ((p->used + 1) * 4 > p->cap * 3 && grow(p) < 0)
			return c2c_error_set(err, -ENOMEM, "out of memory for lock wait pairing");
		e = find_slot(p->slots, p->cap, s->tid);
		if (is_pending(e)) {
			if (e->lock_addr == rec->lock_addr) {
				/* Mutex: spin begin, then sleep begin; keep the first. */
				p->st.nested_begins++;
				return 0;
			}
			p->st.dropped_begins++;
		} else {
			if (!e->used)
				p->used++;
			p->st.pending++;
		}
		e->used = true;
		e->tid = s->tid;
		e->pid = s->pid;
		e->cpu = s->cpu;
		e->cpumode = s->cpumode;
		e->time = s->time;
		e->lock_addr = rec->lock_addr;
		e->flags = rec->flags;
		if (copy_chain(&e->chain, &e->cap_chain, &e->nr_chain, s) < 0)
			return c2c_error_set(err, -ENOMEM, "out of memory for lock wait pairing");
		return 0;
	}
	p->st.ends++;
	e = find_slot(p->slots, p->cap, s->tid);
	if (!is_pending(e) || e->lock_addr != rec->lock_addr || s->time < e->time) {
		p->st.unmatched_ends++;
		return 0;
	}
	if (e->nr_chain > p->out_cap) {
		uint64_t *nc = realloc(p->out_chain, e->nr_chain * sizeof(*nc));
		if (!nc)
			return c2c_error_set(err, -ENOMEM, "out of memory for lock wait pairing");
		p->out_chain = nc;
		p->out_cap = e->nr_chain;
	}
	if (e->nr_chain)
		memcpy(p->out_chain, e->chain, e->nr_chain * sizeof(*e->chain));
	*out = (struct lockwait){
		.time = e->time,
		.wait_ns = s->time - e->time,
		.pid = e->pid,
		.tid = e->tid,
		.cpu = e->cpu,
		.lock_addr = e->lock_addr,
		.flags = e->flags,
		.ret = rec->ret,
		.cpumode = e->cpumode,
		.nr_callchain = e->nr_chain,
		.callchain = e->nr_chain ? p->out_chain : NULL,
	};
	e->time = UINT64_MAX; /* idle; the slot stays in its probe chain */
	p->st.pending--;
	p->st.paired++;
	return 1;
}

int lockwait_feed_raw(struct lockwait_pairer *p, struct tp_decoder *dec, const struct c2c_sample *s,
		      struct lockwait *out, struct c2c_error *err)
{
	struct tp_record rec;

	if (!(s->has & C2C_HAS_RAW) || !s->raw)
		return 0;
	if (tp_decode(dec, s->raw, s->raw_size, &rec, NULL) < 0)
		return 0;
	return lockwait_feed(p, s, &rec, out, err);
}

void lockwait_get_stats(const struct lockwait_pairer *p, struct lockwait_stats *out)
{
	*out = p->st;
}

bool lockwait_is_lock_function(const char *name)
{
	static const char *const prefixes[] = {
		"_raw_spin_", "_raw_read_", "_raw_write_", "queued_spin_", "queued_read_",
		"queued_write_", "native_queued_spin", "__pv_queued_spin", "pv_queued_spin",
		"__mutex_lock", "mutex_lock", "__ww_mutex", "ww_mutex_lock", "rwsem_down_",
		"down_read", "down_write", "__down", "down_killable", "down_interruptible",
		"rt_mutex", "__rt_mutex", "rt_spin_lock", "percpu_down_", "__percpu_down_",
		"do_raw_spin_lock", "spin_lock", "__lock_", "osq_lock", "mutex_spin_on_owner",
		"rwsem_optimistic_spin", "rwsem_spin_on_owner", "schedule", "__schedule",
		"preempt_schedule", "io_schedule", "lock_acquire",
	};

	if (!name)
		return false;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

int lockwait_caller_index(const uint64_t *chain, uint32_t nr,
			  const char *(*name_of)(void *ctx, uint64_t ip), void *ctx)
{
	int first_real = -1;

	for (uint32_t i = 0; i < nr; i++) {
		if (chain[i] >= CTX_MAX_MARKER)
			continue;
		if (first_real < 0)
			first_real = (int)i;
		if (!name_of || !lockwait_is_lock_function(name_of(ctx, chain[i])))
			return (int)i;
	}
	return first_real;
}
