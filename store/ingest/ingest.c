/* The rules that turn a decoded record into session rows (ingest.h): one
 * copy for import and live, so that the two paths cannot drift apart (they
 * did: the live copy lost rel_addr and looked symbols up before its cache). */
#include "store/ingest/ingest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/c2c/c2c.h"
#include "collector/perfdata/perf_record.h"
#include "collector/tracepoint/lockwait.h"
#include "collector/tracepoint/tracepoint.h"
#include "store/store.h"

#define CACHE_BITS 16                 /* 64K entries per lookup cache */
#define MAX_CHAIN 256

/* Direct-mapped caches: (pid, address) -> id, so that the symbol lookups
 * run once per distinct address rather than once per sample. */
struct cache_ent {
	uint64_t addr;
	int32_t pid;
	bool used;
	int64_t id;
	uint64_t start;               /* data symbols: symbol start */
};

struct ingest {
	struct store *st;
	struct symtab *sym;
	struct tp_decoder *dec;
	struct lockwait_pairer *locks;       /* by task: lock_waits and perf's -t table */
	struct lockwait_pairer *perf_locks;  /* by caller: perf's default table */
	struct lockwait_text lock_text;
	int32_t *cpu_node;
	size_t nr_cpu_node;
	struct cache_ent *sites;
	struct cache_ent *dsyms;
	int64_t chain[MAX_CHAIN];
	struct ingest_stats stats;
};

static size_t cache_slot(uint64_t addr, int32_t pid)
{
	uint64_t h = (addr ^ ((uint64_t)(uint32_t)pid << 40)) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> (64 - CACHE_BITS));
}

static bool kernel_mode(uint8_t m)
{
	return m == C2C_MODE_KERNEL || m == C2C_MODE_GUEST_KERNEL;
}

int ingest_new(struct ingest **out, struct store *st, const struct symtab_options *so, struct c2c_error *err)
{
	struct ingest *in = calloc(1, sizeof(*in));

	*out = NULL;
	if (!in)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	in->st = st;
	in->sites = calloc((size_t)1 << CACHE_BITS, sizeof(*in->sites));
	in->dsyms = calloc((size_t)1 << CACHE_BITS, sizeof(*in->dsyms));
	if (!in->sites || !in->dsyms) {
		ingest_free(in);
		return c2c_error_set(err, -ENOMEM, "out of memory");
	}
	if (!(in->sym = symtab_new(so, err)) || !(in->dec = tp_decoder_new(err)) ||
	    !(in->locks = lockwait_new(err)) || !(in->perf_locks = lockwait_new_mode(LOCKWAIT_BY_CALLER, err))) {
		ingest_free(in);
		return err && err->code ? err->code : -ENOMEM;
	}
	/* perf's lock functions: the kernel's sched and lock text (none known:
	 * no frame is skipped as one, as in perf). */
	lockwait_text_load(&in->lock_text, so->kallsyms ? so->kallsyms
			   : so->use_host_kallsyms ? "/proc/kallsyms" : NULL);
	*out = in;
	return 0;
}

void ingest_free(struct ingest *in)
{
	if (!in)
		return;
	lockwait_free(in->locks);
	lockwait_free(in->perf_locks);
	tp_decoder_free(in->dec);
	symtab_free(in->sym);
	free(in->sites);
	free(in->dsyms);
	free(in->cpu_node);
	free(in);
}

struct symtab *ingest_symtab(struct ingest *in)
{
	return in->sym;
}

struct tp_decoder *ingest_decoder(struct ingest *in)
{
	return in->dec;
}

int ingest_set_cpu_node(struct ingest *in, uint32_t cpu, int32_t node, struct c2c_error *err)
{
	if (cpu >= (1u << 16))
		return 0;
	if (cpu >= in->nr_cpu_node) {
		size_t n = (size_t)cpu + 1;
		int32_t *p = realloc(in->cpu_node, n * sizeof(*p));
		if (!p)
			return c2c_error_set(err, -ENOMEM, "out of memory");
		for (size_t i = in->nr_cpu_node; i < n; i++)
			p[i] = -1;
		in->cpu_node = p;
		in->nr_cpu_node = n;
	}
	in->cpu_node[cpu] = node;
	return 0;
}

/* ---- resolution ---------------------------------------------------------- */

static int64_t site_of(struct ingest *in, int32_t pid, int32_t tid, uint8_t cpumode, uint64_t ip,
		       struct c2c_error *err)
{
	struct sym_code code;
	int32_t key_pid;

	if (!ip)
		return 0;
	/* The cache is keyed by the sample's pid, so a hit skips the symbol
	 * lookup altogether. */
	struct cache_ent *c = &in->sites[cache_slot(ip, pid)];
	if (c->used && c->addr == ip && c->pid == pid)
		return c->id;
	memset(&code, 0, sizeof(code));
	if (symtab_resolve_ip(in->sym, pid, tid, cpumode, ip, &code) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory resolving symbols");
	/* Kernel code is shared by every process: one site per address. */
	key_pid = (code.dso && !strncmp(code.dso, "[kernel", 7)) || kernel_mode(cpumode) ? -1 : pid;
	struct store_site_info si = {
		.ip = ip, .pid = key_pid, .cpumode = cpumode, .function = code.function, .offset = code.offset,
		.dso = code.dso, .file = code.srcfile, .line = code.line, .rel_addr = code.rel_addr,
	};
	int64_t id = store_site_intern(in->st, &si, err);
	if (id > 0)
		*c = (struct cache_ent){ .addr = ip, .pid = pid, .used = true, .id = id };
	return id;
}

static int64_t dsym_of(struct ingest *in, int32_t pid, int32_t tid, uint8_t cpumode, uint64_t addr,
		       uint64_t *start, struct c2c_error *err)
{
	struct sym_data d;
	int32_t key_pid = kernel_mode(cpumode) ? -1 : pid;
	struct cache_ent *c = &in->dsyms[cache_slot(addr, key_pid)];

	*start = 0;
	if (!addr)
		return 0;
	if (c->used && c->addr == addr && c->pid == key_pid) {
		*start = c->start;
		return c->id;
	}
	memset(&d, 0, sizeof(d));
	if (symtab_resolve_data(in->sym, pid, tid, cpumode, addr, &d) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory resolving symbols");
	struct store_dsym_info di = { .pid = key_pid, .dso = d.dso };
	if (d.symbol) {
		di.name = d.symbol;
		di.start = d.sym_start;
		di.size = d.sym_size;
	} else if (d.dso) {
		/* No object symbol: name the region by its map ("[heap]",
		 * "[stack]", "//anon", a file). */
		di.name = d.dso;
		di.start = d.map_start;
	} else {
		*c = (struct cache_ent){ .addr = addr, .pid = key_pid, .used = true, .id = 0 };
		return 0;
	}
	if (di.start > addr)
		di.start = addr;
	int64_t id = store_dsym_intern(in->st, &di, err);
	if (id > 0) {
		*c = (struct cache_ent){ .addr = addr, .pid = key_pid, .used = true, .id = id, .start = di.start };
		*start = di.start;
	}
	return id;
}

/* Resolves a call chain to sites, innermost first, markers dropped. */
static int chain_of(struct ingest *in, int32_t pid, int32_t tid, uint8_t cpumode, const uint64_t *chain,
		    uint32_t nr, uint32_t *out_n, struct c2c_error *err)
{
	uint8_t mode = cpumode;
	uint32_t n = 0;

	for (uint32_t i = 0; i < nr && n < MAX_CHAIN; i++) {
		uint64_t ip = chain[i];
		if (perf_callchain_marker(ip, &mode))
			continue;
		int64_t id = site_of(in, pid, tid, mode, ip, err);
		if (id < 0)
			return (int)id;
		if (id > 0)
			in->chain[n++] = id;
	}
	*out_n = n;
	return 0;
}

static const char *kernel_name_of(void *ctx, uint64_t ip)
{
	struct ingest *in = ctx;
	struct sym_code code;

	memset(&code, 0, sizeof(code));
	if (symtab_resolve_ip(in->sym, -1, -1, C2C_MODE_KERNEL, ip, &code) < 0)
		return NULL;
	return code.function;
}

/* ---- records --------------------------------------------------------------- */

static int add_lock_wait(struct ingest *in, const struct lockwait *w, struct c2c_error *err)
{
	uint32_t nchain = 0;
	int64_t site = 0;
	uint64_t start;
	int r;

	if (w->nr_callchain) {
		int idx = lockwait_caller_index(w->callchain, w->nr_callchain, kernel_name_of, in);
		if (idx >= 0) {
			/* The chain's mode at idx: kernel unless a USER marker came first. */
			uint8_t mode = w->cpumode;
			for (int i = 0; i < idx; i++)
				perf_callchain_marker(w->callchain[i], &mode);
			site = site_of(in, w->pid, w->tid, mode, w->callchain[idx], err);
			if (site < 0)
				return (int)site;
		}
		if ((r = chain_of(in, w->pid, w->tid, w->cpumode, w->callchain, w->nr_callchain, &nchain, err)) < 0)
			return r;
	}
	struct store_lock_wait lw = {
		.time = w->time, .pid = w->pid, .tid = w->tid, .cpu = w->cpu, .lock_addr = w->lock_addr,
		.flags = w->flags, .wait_ns = w->wait_ns, .site = site, .chain_sites = nchain ? in->chain : NULL,
		.nr_chain_sites = nchain,
	};
	/* Locks live in kernel memory: named as kernel data, shared by all. */
	int64_t dsym = dsym_of(in, w->pid, w->tid, C2C_MODE_KERNEL, w->lock_addr, &start, err);
	if (dsym < 0)
		return (int)dsym;
	lw.dsym = dsym;
	if ((r = store_add_lock_wait(in->st, &lw, err)) < 0)
		return r;
	in->stats.lock_waits++;
	in->stats.lock_wait_ns += w->wait_ns;
	return 0;
}

/* perf's frame tests for one sample's chain (lockwait_frames). */
struct frame_ctx {
	struct ingest *in;
	const struct c2c_sample *s;
};

static bool frame_resolved(void *ctx, uint64_t ip)
{
	struct frame_ctx *f = ctx;
	struct sym_code code;

	memset(&code, 0, sizeof(code));
	uint8_t mode = ip >= 0xffff800000000000ull ? C2C_MODE_KERNEL : C2C_MODE_USER;
	return symtab_resolve_ip(f->in->sym, f->s->pid, f->s->tid, mode, ip, &code) == 0 && code.function;
}

static bool frame_is_lock(void *ctx, uint64_t ip)
{
	return lockwait_text_has(&((struct frame_ctx *)ctx)->in->lock_text, ip);
}

static int add_lock_event(struct ingest *in, uint8_t mode, const struct lockwait_event *ev, const char *caller,
			  struct c2c_error *err)
{
	struct store_lock_event e = {
		.mode = mode, .time = ev->time, .pid = ev->pid, .tid = ev->tid, .lock_addr = ev->lock_addr,
		.flags = ev->flags, .wait_ns = ev->wait_ns, .key = ev->key, .caller = caller,
	};

	if (ev->kind == LOCKWAIT_EV_NONE)
		return 0;
	e.kind = ev->kind == LOCKWAIT_EV_ACQUIRED ? STORE_LOCK_EV_ACQUIRED
	       : ev->counted ? STORE_LOCK_EV_BEGIN : STORE_LOCK_EV_KEY;
	return store_add_lock_event(in->st, &e, err);
}

/* A lock:contention_* sample: the wait it ends (lock_waits), and perf's
 * moments for its by-task and by-caller tables (lock_contention). */
static int lock_sample(struct ingest *in, const struct c2c_sample *s, struct c2c_error *err)
{
	struct tp_record rec;
	struct lockwait_event ev;
	struct lockwait w;
	int r;

	if (tp_decode(in->dec, s->raw, s->raw_size, &rec, NULL) < 0 ||
	    (rec.kind != TP_CONTENTION_BEGIN && rec.kind != TP_CONTENTION_END))
		return 0;
	if ((r = lockwait_feed_event(in->locks, s, &rec, 0, &ev, &w, NULL)) < 0)
		return c2c_error_set(err, r, "out of memory pairing lock waits");
	if (ev.kind == LOCKWAIT_EV_ACQUIRED && (r = add_lock_wait(in, &w, err)) < 0)
		return r;
	if ((r = add_lock_event(in, STORE_LOCK_MODE_TASK, &ev, NULL, err)) < 0)
		return r;

	struct frame_ctx fc = { .in = in, .s = s };
	struct lockwait_frames fr = { .is_lock = frame_is_lock, .resolved = frame_resolved, .ctx = &fc,
				      .max_stack = 8, .skip = 3 };
	const uint64_t *chain = (s->has & C2C_HAS_CALLCHAIN) ? s->callchain : NULL;
	uint32_t nr = chain ? s->nr_callchain : 0;
	uint64_t key = lockwait_stack_key(chain, nr, &fr);
	char caller[128] = "Unknown";

	if ((r = lockwait_feed_event(in->perf_locks, s, &rec, key, &ev, NULL, NULL)) < 0)
		return c2c_error_set(err, r, "out of memory pairing lock waits");
	if (ev.kind == LOCKWAIT_EV_BEGIN && ev.new_key) {
		int idx = lockwait_perf_caller(chain, nr, &fr);
		struct sym_code code;
		memset(&code, 0, sizeof(code));
		if (idx >= 0) {
			uint64_t ip = chain[idx];
			uint8_t mode = ip >= 0xffff800000000000ull ? C2C_MODE_KERNEL : C2C_MODE_USER;
			if (symtab_resolve_ip(in->sym, s->pid, s->tid, mode, ip, &code) == 0 && code.function) {
				if (code.offset)
					snprintf(caller, sizeof(caller), "%s+%#llx", code.function,
						 (unsigned long long)code.offset);
				else
					snprintf(caller, sizeof(caller), "%s", code.function);
			}
		}
	}
	return add_lock_event(in, STORE_LOCK_MODE_CALLER, &ev, ev.new_key ? caller : NULL, err);
}

int ingest_sample(struct ingest *in, const struct c2c_sample *s, struct c2c_error *err)
{
	struct store_sample_ctx ctx = { .node = -1 };
	uint32_t nchain = 0;
	uint64_t start = 0;
	int r;

	/* A sample that ends a lock wait writes the wait first. */
	if ((s->has & C2C_HAS_RAW) && s->raw && s->raw_size && (r = lock_sample(in, s, err)) < 0)
		return r;

	bool dmapped = s->addr && symtab_addr_mapped(in->sym, s->pid, s->tid, s->cpumode, s->addr);
	bool imapped = symtab_ip_mapped(in->sym, s->pid, s->tid, s->ip);
	ctx.class_bits = c2c_classify(s->data_src, s->addr, dmapped, imapped);
	/* perf accounts a sample without a CPU to CPU 0's node. */
	uint32_t cpu = (s->has & C2C_HAS_CPU) ? s->cpu : 0;
	ctx.node = cpu < in->nr_cpu_node ? in->cpu_node[cpu] : -1;
	if (ctx.node < 0 && in->nr_cpu_node == 0)
		ctx.node = 0;   /* no topology recorded: one node, as perf assumes */
	int64_t site = site_of(in, s->pid, s->tid, s->cpumode, s->ip, err);
	if (site < 0)
		return (int)site;
	ctx.site = site;
	int64_t dsym = dsym_of(in, s->pid, s->tid, s->cpumode, s->addr, &start, err);
	if (dsym < 0)
		return (int)dsym;
	ctx.dsym = dsym;
	ctx.dsym_offset = dsym ? s->addr - start : 0;
	if ((s->has & C2C_HAS_CALLCHAIN) && s->nr_callchain) {
		if ((r = chain_of(in, s->pid, s->tid, s->cpumode, s->callchain, s->nr_callchain, &nchain, err)) < 0)
			return r;
		ctx.chain_sites = nchain ? in->chain : NULL;
		ctx.nr_chain_sites = nchain;
	}
	struct c2c_line_ident lid;   /* perf's line identity (c2c_lineid.h) */
	symtab_line_ident(in->sym, s, &lid);
	ctx.line_ident = &lid;
	if ((r = store_add_sample(in->st, s, &ctx, err)) < 0)
		return r;
	in->stats.samples++;
	if (s->event < 16)
		in->stats.per_event[s->event]++;
	return 0;
}

int ingest_mmap(struct ingest *in, const struct c2c_mmap *m, uint64_t time, struct c2c_error *err)
{
	if (symtab_mmap(in->sym, m) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	in->stats.sideband++;
	return store_add_mmap(in->st, m, time, err);
}

int ingest_comm(struct ingest *in, const struct c2c_comm *c, struct c2c_error *err)
{
	if (symtab_comm(in->sym, c) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	in->stats.sideband++;
	return store_add_comm(in->st, c, err);
}

int ingest_task(struct ingest *in, const struct c2c_task *t, bool is_exit, struct c2c_error *err)
{
	if ((is_exit ? symtab_exit(in->sym, t) : symtab_fork(in->sym, t)) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	in->stats.sideband++;
	return store_add_task(in->st, t, is_exit, err);
}

void ingest_get_stats(struct ingest *in, struct ingest_stats *out)
{
	struct lockwait_stats ls;

	*out = in->stats;
	lockwait_get_stats(in->locks, &ls);
	out->unmatched_ends = ls.unmatched_ends;
	out->pending_begins = ls.pending;
	out->nested_begins = ls.nested_begins;
}
