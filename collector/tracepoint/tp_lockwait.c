/* Pairing lock:contention_begin/end per task and lock into waits, as perf
 * lock contention does (collector/tracepoint/lockwait.h). Sequences live in
 * an open-addressing table keyed by (tid, lock address); the caller mode
 * adds the set of stack keys begins have had. */
#include "collector/tracepoint/lockwait.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CTX_MAX_MARKER 0xfffffffffffff000ull /* PERF_CONTEXT_* are >= -4095 */
#define GOLDEN_RATIO_64 0x61C8864680B583EBull     /* tools/include/linux/hash.h */

/* One (task, lock) sequence, as perf's lock_seq_stat: open (contended) or
 * not. Entries are never removed: a closed one behaves as a new one. */
struct pending {
	int32_t tid;
	int32_t pid;
	uint64_t lock_addr;
	uint32_t cpu;
	uint8_t cpumode;
	bool used;
	bool open;
	uint64_t time;
	uint32_t flags;
	uint32_t nr_chain, cap_chain;
	uint64_t *chain;
};

struct lockwait_pairer {
	enum lockwait_mode mode;
	struct pending *slots;
	size_t cap;              /* power of two */
	size_t used;
	uint64_t *keys;          /* BY_CALLER: keys begins have had (open addressing) */
	bool *key_used;
	size_t kcap, kused;
	struct lockwait_stats st;
	uint64_t *out_chain;     /* handed out with the last completed wait */
	uint32_t out_cap;
};

struct lockwait_pairer *lockwait_new_mode(enum lockwait_mode mode, struct c2c_error *err)
{
	struct lockwait_pairer *p = calloc(1, sizeof(*p));

	if (p) {
		p->mode = mode;
		p->cap = 256;
		p->slots = calloc(p->cap, sizeof(*p->slots));
		p->kcap = 256;
		p->keys = calloc(p->kcap, sizeof(*p->keys));
		p->key_used = calloc(p->kcap, sizeof(*p->key_used));
	}
	if (!p || !p->slots || !p->keys || !p->key_used) {
		if (p) {
			free(p->slots);
			free(p->keys);
			free(p->key_used);
		}
		free(p);
		c2c_error_set(err, -ENOMEM, "out of memory for lock wait pairing");
		return NULL;
	}
	return p;
}

struct lockwait_pairer *lockwait_new(struct c2c_error *err)
{
	return lockwait_new_mode(LOCKWAIT_BY_TASK, err);
}

void lockwait_free(struct lockwait_pairer *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->cap; i++)
		free(p->slots[i].chain);
	free(p->slots);
	free(p->keys);
	free(p->key_used);
	free(p->out_chain);
	free(p);
}

static size_t hash_seq(int32_t tid, uint64_t addr, size_t cap)
{
	uint64_t h = (addr ^ ((uint64_t)(uint32_t)tid << 32 | (uint32_t)tid)) * GOLDEN_RATIO_64;
	return (size_t)(h >> 32) & (cap - 1);
}

/* Slot for (tid, addr): the existing one, or the empty one where it would go. */
static struct pending *find_slot(struct pending *slots, size_t cap, int32_t tid, uint64_t addr)
{
	size_t i = hash_seq(tid, addr, cap);

	while (slots[i].used && (slots[i].tid != tid || slots[i].lock_addr != addr))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static int grow(struct lockwait_pairer *p)
{
	size_t ncap = p->cap * 2;
	struct pending *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < p->cap; i++)
		if (p->slots[i].used)
			*find_slot(ns, ncap, p->slots[i].tid, p->slots[i].lock_addr) = p->slots[i];
	free(p->slots);
	p->slots = ns;
	p->cap = ncap;
	return 0;
}

static size_t key_slot(const struct lockwait_pairer *p, const uint64_t *keys, const bool *used, size_t cap,
		       uint64_t key)
{
	size_t i = (size_t)((key * GOLDEN_RATIO_64) >> 32) & (cap - 1);

	(void)p;
	while (used[i] && keys[i] != key)
		i = (i + 1) & (cap - 1);
	return i;
}

static bool key_known(const struct lockwait_pairer *p, uint64_t key)
{
	return p->key_used[key_slot(p, p->keys, p->key_used, p->kcap, key)];
}

/* Adds key; returns 1 when it is new, 0 when known, -ENOMEM. */
static int key_add(struct lockwait_pairer *p, uint64_t key)
{
	size_t i;

	if ((p->kused + 1) * 4 > p->kcap * 3) {
		size_t ncap = p->kcap * 2;
		uint64_t *nk = calloc(ncap, sizeof(*nk));
		bool *nu = calloc(ncap, sizeof(*nu));
		if (!nk || !nu) {
			free(nk);
			free(nu);
			return -ENOMEM;
		}
		for (size_t j = 0; j < p->kcap; j++)
			if (p->key_used[j]) {
				size_t k = key_slot(p, nk, nu, ncap, p->keys[j]);
				nk[k] = p->keys[j];
				nu[k] = true;
			}
		free(p->keys);
		free(p->key_used);
		p->keys = nk;
		p->key_used = nu;
		p->kcap = ncap;
	}
	i = key_slot(p, p->keys, p->key_used, p->kcap, key);
	if (p->key_used[i])
		return 0;
	p->keys[i] = key;
	p->key_used[i] = true;
	p->kused++;
	return 1;
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

static int feed_begin(struct lockwait_pairer *p, const struct c2c_sample *s, const struct tp_record *rec,
		      uint64_t key, struct lockwait_event *ev)
{
	struct pending *e;
	int r;

	p->st.begins++;
	if (p->mode == LOCKWAIT_BY_CALLER) {
		/* perf creates the caller's entry before looking at the
		 * sequence: a nested begin can still bring a new key. */
		if ((r = key_add(p, key)) < 0)
			return r;
		ev->new_key = r == 1;
	}
	if ((p->used + 1) * 4 > p->cap * 3 && grow(p) < 0)
		return -ENOMEM;
	e = find_slot(p->slots, p->cap, s->tid, rec->lock_addr);
	ev->time = s->time;
	ev->pid = s->pid;
	ev->tid = s->tid;
	ev->lock_addr = rec->lock_addr;
	ev->flags = rec->flags;
	ev->key = key;
	if (e->used && e->open) {
		/* Mutex: spin begin, then sleep begin; keep the first. */
		p->st.nested_begins++;
		if (ev->new_key)
			ev->kind = LOCKWAIT_EV_BEGIN;
		return 0;
	}
	if (!e->used) {
		p->used++;
		e->used = true;
		e->tid = s->tid;
		e->lock_addr = rec->lock_addr;
	}
	e->open = true;
	e->pid = s->pid;
	e->cpu = s->cpu;
	e->cpumode = s->cpumode;
	e->time = s->time;
	e->flags = rec->flags;
	p->st.pending++;
	ev->kind = LOCKWAIT_EV_BEGIN;
	ev->counted = true;
	return copy_chain(&e->chain, &e->cap_chain, &e->nr_chain, s);
}

static int feed_end(struct lockwait_pairer *p, const struct c2c_sample *s, const struct tp_record *rec,
		    uint64_t key, struct lockwait_event *ev, struct lockwait *out)
{
	struct pending *e;

	p->st.ends++;
	if (p->mode == LOCKWAIT_BY_CALLER && !key_known(p, key)) {
		/* perf: no lock_stat for the end's stack -> ignored, the wait stays open. */
		p->st.dropped_ends++;
		return 0;
	}
	e = find_slot(p->slots, p->cap, s->tid, rec->lock_addr);
	if (!e->used || !e->open) {
		p->st.unmatched_ends++;
		return 0;
	}
	/* perf subtracts in u64 too; records come in time order. */
	uint64_t wait = s->time - e->time;
	*ev = (struct lockwait_event){
		.kind = LOCKWAIT_EV_ACQUIRED, .time = e->time, .wait_ns = wait, .pid = e->pid, .tid = e->tid,
		.lock_addr = e->lock_addr, .flags = e->flags, .key = key,
	};
	if (out) {
		if (e->nr_chain > p->out_cap) {
			uint64_t *nc = realloc(p->out_chain, e->nr_chain * sizeof(*nc));
			if (!nc)
				return -ENOMEM;
			p->out_chain = nc;
			p->out_cap = e->nr_chain;
		}
		if (e->nr_chain)
			memcpy(p->out_chain, e->chain, e->nr_chain * sizeof(*e->chain));
		*out = (struct lockwait){
			.time = e->time,
			.wait_ns = wait,
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
	}
	e->open = false;
	p->st.pending--;
	p->st.paired++;
	return 0;
}

int lockwait_feed_event(struct lockwait_pairer *p, const struct c2c_sample *s, const struct tp_record *rec,
			uint64_t key, struct lockwait_event *ev, struct lockwait *wait, struct c2c_error *err)
{
	int r = 0;

	*ev = (struct lockwait_event){ .kind = LOCKWAIT_EV_NONE };
	if (rec->kind == TP_CONTENTION_BEGIN)
		r = feed_begin(p, s, rec, key, ev);
	else if (rec->kind == TP_CONTENTION_END)
		r = feed_end(p, s, rec, key, ev, wait);
	if (r < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory for lock wait pairing");
	return 0;
}

int lockwait_feed(struct lockwait_pairer *p, const struct c2c_sample *s,
		  const struct tp_record *rec, struct lockwait *out, struct c2c_error *err)
{
	struct lockwait_event ev;
	int r = lockwait_feed_event(p, s, rec, 0, &ev, out, err);

	if (r < 0)
		return r;
	return ev.kind == LOCKWAIT_EV_ACQUIRED;
}

/* The chain's real frames, as perf's callchain cursor holds them. */
static uint32_t real_frames(const uint64_t *chain, uint32_t nr, unsigned max_stack, uint32_t *idx)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < nr && n < max_stack; i++)
		if (chain[i] < CTX_MAX_MARKER)
			idx[n++] = i;
	return n;
}

uint64_t lockwait_stack_key(const uint64_t *chain, uint32_t nr, const struct lockwait_frames *f)
{
	uint32_t idx[64];
	uint32_t n = real_frames(chain, nr, f->max_stack < 64 ? f->max_stack : 64, idx);
	uint64_t hash = 0;

	for (uint32_t i = f->skip; i < n; i++) {
		uint64_t ip = chain[idx[i]];
		if (f->resolved(f->ctx, ip) && f->is_lock(f->ctx, ip))
			continue;
		hash ^= ip * GOLDEN_RATIO_64;
	}
	return hash;
}

int lockwait_perf_caller(const uint64_t *chain, uint32_t nr, const struct lockwait_frames *f)
{
	uint32_t idx[64];
	uint32_t n = real_frames(chain, nr, f->max_stack < 64 ? f->max_stack : 64, idx);

	for (uint32_t i = f->skip; i < n; i++) {
		uint64_t ip = chain[idx[i]];
		if (f->resolved(f->ctx, ip) && !f->is_lock(f->ctx, ip))
			return (int)idx[i];
	}
	return -1;
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

int lockwait_text_load(struct lockwait_text *t, const char *kallsyms_path)
{
	static const char *const names[4] = { "__sched_text_start", "__sched_text_end", "__lock_text_start",
					      "__lock_text_end" };
	uint64_t *dst[4] = { &t->sched_start, &t->sched_end, &t->lock_start, &t->lock_end };
	unsigned found = 0;
	char line[512];
	FILE *f;

	memset(t, 0, sizeof(*t));
	if (!kallsyms_path || !(f = fopen(kallsyms_path, "r")))
		return -ENOENT;
	while (found != 15 && fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[256];
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		for (int i = 0; i < 4; i++)
			if (!(found & (1u << i)) && !strcmp(name, names[i])) {
				*dst[i] = addr;
				found |= 1u << i;
			}
	}
	fclose(f);
	/* perf needs __sched_text_start; an unreadable (zero) address is as none. */
	t->known = found == 15 && t->sched_start;
	return t->known ? 0 : -ENOENT;
}

bool lockwait_text_has(const struct lockwait_text *t, uint64_t ip)
{
	if (!t->known)
		return false;
	return (t->sched_start <= ip && ip < t->sched_end) || (t->lock_start <= ip && ip < t->lock_end);
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
