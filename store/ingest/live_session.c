/* A live collection written into a session file (store/ingest/live_session.h). The
 * sink runs in the collector's writer thread: each record is symbolized,
 * lock:contention_* are paired into lock waits, and rows go to the store in
 * the batch the collector flushes (commits) at least every 250 ms. */
#include "store/ingest/live_session.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>

#include "collector/c2c/c2c.h"
#include "collector/tracepoint/lockwait.h"
#include "collector/perfdata/perf_record.h"
#include "collector/symbols/symbols.h"
#include "collector/tracepoint/tracepoint.h"
#include "store/store.h"

#define MAX_CHAIN 256
#define SITE_CACHE_BITS 16

struct site_slot {
	uint64_t ip;
	int32_t pid;
	int64_t id;
};

struct dsym_slot {
	uint64_t addr;
	int32_t pid;
	bool used;
	int64_t id;
	uint64_t start;
};

struct live_session {
	struct live *lv;
	struct store *st;
	struct symtab *sym;
	struct tp_decoder *dec;
	struct lockwait_pairer *pairer;
	struct live_sink sink;
	int32_t *cpu_node;
	uint32_t nr_cpu_node;
	struct site_slot *sites;             /* (pid, ip) -> site id */
	struct dsym_slot *dsyms;             /* (pid, addr) -> data symbol id */
	int64_t chain_buf[MAX_CHAIN];
	uint64_t per_event[16];
	uint64_t samples, lock_waits, lock_wait_ns;
	atomic_uint_fast64_t commits;
	struct live_counts last_counts;
	struct timespec t0, t1;
	bool started, stopped;
	struct c2c_error err;                /* writer-thread failures */
};

static double elapsed(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* ---- symbolization into interned store ids ----------------------------
 * These follow store/ingest/import_pipeline.c rule for rule (which sites are shared
 * by all processes, the data-symbol fallback to the map name, call-chain
 * modes, where a lock wait's caller is, the order lock waits and samples
 * are written), so that a live session and an import of the same records
 * hold the same aggregates (tests/e2e/live_vs_import.sh checks it). */

static bool kernel_mode(uint8_t cpumode)
{
	return cpumode == C2C_MODE_KERNEL || cpumode == C2C_MODE_GUEST_KERNEL;
}

static size_t cache_slot(uint64_t addr, int32_t pid)
{
	uint64_t h = (addr ^ ((uint64_t)(uint32_t)pid << 40)) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> (64 - SITE_CACHE_BITS));
}

static int64_t site_of(struct live_session *ls, int32_t pid, int32_t tid, uint8_t cpumode, uint64_t ip)
{
	struct sym_code code;
	struct site_slot *slot;
	struct store_site_info info;
	int32_t key_pid;
	int64_t id;

	if (!ip)
		return 0;
	memset(&code, 0, sizeof(code));
	if (symtab_resolve_ip(ls->sym, pid, tid, cpumode, ip, &code) < 0)
		return c2c_error_set(&ls->err, -ENOMEM, "out of memory resolving symbols");
	/* Kernel code is shared by every process: one site per address. */
	key_pid = (code.dso && !strncmp(code.dso, "[kernel", 7)) || kernel_mode(cpumode) ? -1 : pid;
	slot = &ls->sites[cache_slot(ip, key_pid)];
	if (slot->id > 0 && slot->ip == ip && slot->pid == key_pid)
		return slot->id;
	info = (struct store_site_info){
		.ip = ip, .pid = key_pid, .cpumode = cpumode, .function = code.function,
		.offset = code.offset, .dso = code.dso, .file = code.srcfile, .line = code.line,
	};
	id = store_site_intern(ls->st, &info, &ls->err);
	if (id > 0)
		*slot = (struct site_slot){ ip, key_pid, id };
	return id;
}

static int64_t dsym_of(struct live_session *ls, int32_t pid, int32_t tid, uint8_t cpumode, uint64_t addr,
		       uint64_t *start)
{
	struct sym_data d;
	struct store_dsym_info info;
	int32_t key_pid = kernel_mode(cpumode) ? -1 : pid;
	struct dsym_slot *slot = &ls->dsyms[cache_slot(addr, key_pid)];
	int64_t id;

	*start = 0;
	if (!addr)
		return 0;
	if (slot->used && slot->addr == addr && slot->pid == key_pid) {
		*start = slot->start;
		return slot->id;
	}
	memset(&d, 0, sizeof(d));
	if (symtab_resolve_data(ls->sym, pid, tid, cpumode, addr, &d) < 0)
		return c2c_error_set(&ls->err, -ENOMEM, "out of memory resolving symbols");
	info = (struct store_dsym_info){ .pid = key_pid, .dso = d.dso };
	if (d.symbol) {
		info.name = d.symbol;
		info.start = d.sym_start;
		info.size = d.sym_size;
	} else if (d.dso) {
		/* No object symbol: the region's map name ("[heap]", "//anon"). */
		info.name = d.dso;
		info.start = d.map_start;
	} else {
		*slot = (struct dsym_slot){ addr, key_pid, true, 0, 0 };
		return 0;
	}
	if (info.start > addr)
		info.start = addr;
	id = store_dsym_intern(ls->st, &info, &ls->err);
	if (id > 0) {
		*slot = (struct dsym_slot){ addr, key_pid, true, id, info.start };
		*start = info.start;
	}
	return id;
}

/* Call chain -> site ids, innermost first, context markers dropped. */
static int chain_sites(struct live_session *ls, int32_t pid, int32_t tid, uint8_t cpumode, const uint64_t *chain,
		       uint32_t nr, uint32_t *out_nr)
{
	uint8_t mode = cpumode;
	uint32_t n = 0;

	for (uint32_t i = 0; i < nr && n < MAX_CHAIN; i++) {
		uint64_t ip = chain[i];
		int64_t id;
		if (perf_callchain_marker(ip, &mode))
			continue;
		id = site_of(ls, pid, tid, mode, ip);
		if (id < 0)
			return (int)id;
		if (id > 0)
			ls->chain_buf[n++] = id;
	}
	*out_nr = n;
	return 0;
}

static const char *kernel_name_of(void *ctx, uint64_t ip)
{
	struct live_session *ls = ctx;
	struct sym_code code;

	memset(&code, 0, sizeof(code));
	if (symtab_resolve_ip(ls->sym, -1, -1, C2C_MODE_KERNEL, ip, &code) < 0)
		return NULL;
	return code.function;
}

static int add_lock_wait(struct live_session *ls, const struct lockwait *w)
{
	struct store_lock_wait sw = {
		.time = w->time, .pid = w->pid, .tid = w->tid, .cpu = w->cpu,
		.lock_addr = w->lock_addr, .flags = w->flags, .wait_ns = w->wait_ns,
	};
	uint64_t start;
	int rc;

	if (w->nr_callchain) {
		int idx = lockwait_caller_index(w->callchain, w->nr_callchain, kernel_name_of, ls);
		if (idx >= 0) {
			/* The chain's mode at idx: kernel unless a USER marker came first. */
			uint8_t mode = w->cpumode;
			for (int i = 0; i < idx; i++)
				perf_callchain_marker(w->callchain[i], &mode);
			sw.site = site_of(ls, w->pid, w->tid, mode, w->callchain[idx]);
			if (sw.site < 0)
				return (int)sw.site;
		}
		rc = chain_sites(ls, w->pid, w->tid, w->cpumode, w->callchain, w->nr_callchain, &sw.nr_chain_sites);
		if (rc < 0)
			return rc;
		sw.chain_sites = sw.nr_chain_sites ? ls->chain_buf : NULL;
	}
	sw.dsym = dsym_of(ls, w->pid, w->tid, C2C_MODE_KERNEL, w->lock_addr, &start);
	if (sw.dsym < 0)
		return (int)sw.dsym;
	rc = store_add_lock_wait(ls->st, &sw, &ls->err);
	if (rc < 0)
		return rc;
	ls->lock_waits++;
	ls->lock_wait_ns += w->wait_ns;
	return 0;
}

/* ---- sink callbacks (writer thread) ------------------------------------ */

static int on_sample(void *ctx, const struct live_event *ev, const struct c2c_sample *s)
{
	struct live_session *ls = ctx;
	struct store_sample_ctx sc = { .node = -1 };
	struct lockwait w;
	uint64_t start = 0;
	uint32_t cpu;
	int rc;

	/* Lock waits first, as the import pipeline does. */
	if ((s->has & C2C_HAS_RAW) && s->raw_size) {
		rc = lockwait_feed_raw(ls->pairer, ls->dec, s, &w, &ls->err);
		if (rc < 0)
			return rc;
		if (rc == 1 && (rc = add_lock_wait(ls, &w)) < 0)
			return rc;
	}
	bool dmapped = s->addr && symtab_addr_mapped(ls->sym, s->pid, s->tid, s->cpumode, s->addr);
	bool imapped = symtab_ip_mapped(ls->sym, s->pid, s->tid, s->ip);
	sc.class_bits = c2c_classify(s->data_src, s->addr, dmapped, imapped);
	/* perf accounts a sample without a CPU to CPU 0's node. */
	cpu = (s->has & C2C_HAS_CPU) ? s->cpu : 0;
	sc.node = cpu < ls->nr_cpu_node ? ls->cpu_node[cpu] : -1;
	if (sc.node < 0 && ls->nr_cpu_node == 0)
		sc.node = 0;
	sc.site = site_of(ls, s->pid, s->tid, s->cpumode, s->ip);
	if (sc.site < 0)
		return (int)sc.site;
	sc.dsym = dsym_of(ls, s->pid, s->tid, s->cpumode, s->addr, &start);
	if (sc.dsym < 0)
		return (int)sc.dsym;
	sc.dsym_offset = sc.dsym ? s->addr - start : 0;
	if ((s->has & C2C_HAS_CALLCHAIN) && s->nr_callchain) {
		rc = chain_sites(ls, s->pid, s->tid, s->cpumode, s->callchain, s->nr_callchain, &sc.nr_chain_sites);
		if (rc < 0)
			return rc;
		sc.chain_sites = sc.nr_chain_sites ? ls->chain_buf : NULL;
	}
	struct c2c_line_ident lid;   /* perf's line identity, as the import pipeline */
	symtab_line_ident(ls->sym, s, &lid);
	sc.line_ident = &lid;
	rc = store_add_sample(ls->st, s, &sc, &ls->err);
	if (rc < 0)
		return rc;
	ls->samples++;
	if (ev->attr.index < 16)
		ls->per_event[ev->attr.index]++;
	return 0;
}

static int on_mmap(void *ctx, const struct c2c_mmap *m, uint64_t time)
{
	struct live_session *ls = ctx;

	if (symtab_mmap(ls->sym, m) < 0)
		return -ENOMEM;
	return store_add_mmap(ls->st, m, time, &ls->err);
}

static int on_comm(void *ctx, const struct c2c_comm *c)
{
	struct live_session *ls = ctx;

	if (symtab_comm(ls->sym, c) < 0)
		return -ENOMEM;
	return store_add_comm(ls->st, c, &ls->err);
}

static int on_task(void *ctx, const struct c2c_task *t, bool is_exit)
{
	struct live_session *ls = ctx;

	if ((is_exit ? symtab_exit(ls->sym, t) : symtab_fork(ls->sym, t)) < 0)
		return -ENOMEM;
	return store_add_task(ls->st, t, is_exit, &ls->err);
}

static int write_counters(struct live_session *ls, const struct live_counts *c)
{
	struct { enum store_counter k; uint64_t v; } set[] = {
		{ STORE_CNT_LOST, c->lost_records },
		{ STORE_CNT_LOST_SAMPLES, c->lost_samples },
		{ STORE_CNT_THROTTLE, c->throttle },
		{ STORE_CNT_UNTHROTTLE, c->unthrottle },
		{ STORE_CNT_QUEUE_DROPS, c->queue_drops },
		{ STORE_CNT_SIDEBAND, c->sideband },
		{ STORE_CNT_UNKNOWN_RECORDS, c->unknown_ids + c->decode_errors },
	};
	for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++) {
		int rc = store_set_counter(ls->st, set[i].k, set[i].v, &ls->err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int on_flush(void *ctx, const struct live_counts *c, bool final)
{
	struct live_session *ls = ctx;
	int rc;

	(void)final;
	ls->last_counts = *c;
	rc = write_counters(ls, c);
	if (rc == 0)
		rc = store_commit(ls->st, &ls->err);
	if (rc == 0)
		atomic_fetch_add(&ls->commits, 1);
	return rc;
}

/* ---- session metadata ---------------------------------------------------- */

static int read_int_file(const char *path, int fallback)
{
	FILE *f = fopen(path, "r");
	int v = fallback;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = fallback;
		fclose(f);
	}
	return v;
}

static int write_topology(struct live_session *ls, struct c2c_error *err)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	if (n <= 0)
		n = 1;
	ls->cpu_node = malloc((size_t)n * sizeof(*ls->cpu_node));
	if (!ls->cpu_node)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	ls->nr_cpu_node = (uint32_t)n;
	for (long cpu = 0; cpu < n; cpu++) {
		char path[128];
		struct store_cpu c = { .cpu = (uint32_t)cpu, .node = -1 };
		DIR *d;
		struct dirent *de;
		int rc;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/topology/core_id", cpu);
		c.core = read_int_file(path, -1);
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/topology/physical_package_id", cpu);
		c.socket = read_int_file(path, -1);
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld", cpu);
		if ((d = opendir(path))) {
			while ((de = readdir(d)))
				if (!strncmp(de->d_name, "node", 4) && de->d_name[4] >= '0' && de->d_name[4] <= '9')
					c.node = atoi(de->d_name + 4);
			closedir(d);
		}
		ls->cpu_node[cpu] = c.node;
		if ((rc = store_add_cpu(ls->st, &c, err)) < 0)
			return rc;
	}
	return 0;
}

static int write_meta(struct live_session *ls, const char *kind, const char *cmdline, struct c2c_error *err)
{
	struct utsname u;
	char buf[256];
	int rc = 0;
	size_t nev;
	const struct live_event *ev = live_events(ls->lv, &nev);
	FILE *f;

	if (uname(&u) == 0) {
		rc = store_set_meta(ls->st, STORE_META_HOST, u.nodename, err);
		if (!rc)
			rc = store_set_meta(ls->st, STORE_META_OS_RELEASE, u.release, err);
		if (!rc)
			rc = store_set_meta(ls->st, STORE_META_ARCH, u.machine, err);
	}
	snprintf(buf, sizeof(buf), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	if (!rc)
		rc = store_set_meta(ls->st, STORE_META_NR_CPUS, buf, err);
	snprintf(buf, sizeof(buf), "%ld", sysconf(_SC_NPROCESSORS_CONF));
	if (!rc)
		rc = store_set_meta(ls->st, STORE_META_NR_CPUS_AVAIL, buf, err);
	if ((f = fopen("/proc/cpuinfo", "r"))) {
		char line[512];
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
				char *v = strchr(line, ':') + 1;
				while (*v == ' ')
					v++;
				v[strcspn(v, "\n")] = '\0';
				if (!rc)
					rc = store_set_meta(ls->st, STORE_META_CPU_DESC, v, err);
				break;
			}
		fclose(f);
	}
	if (!rc)
		rc = store_set_meta(ls->st, STORE_META_SOURCE_KIND, kind, err);
	if (!rc && cmdline)
		rc = store_set_meta(ls->st, STORE_META_CMDLINE, cmdline, err);
	snprintf(buf, sizeof(buf), "%lld", (long long)time(NULL));
	if (!rc)
		rc = store_set_meta(ls->st, STORE_META_RECORDED_AT, buf, err);
	snprintf(buf, sizeof(buf), "%d",
		 read_int_file("/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size", 64));
	if (!rc)
		rc = store_set_meta(ls->st, STORE_META_CACHELINE, buf, err);
	for (size_t i = 0; !rc && i < nev; i++) {
		struct store_event se = {
			.index = ev[i].attr.index,
			.name = ev[i].name,
			.attr_type = ev[i].attr.type,
			.config = ev[i].attr.config,
			.sample_type = ev[i].attr.sample_type,
			.sample_period = ev[i].attr.sample_period,
			.freq = ev[i].attr.freq,
		};
		rc = store_add_event(ls->st, &se, err);
	}
	if (!rc)
		rc = write_topology(ls, err);
	if (!rc)
		rc = store_commit(ls->st, err);
	return rc;
}

/* ---- lifecycle ----------------------------------------------------------- */

/* The session appears under its name only once it is a complete, committed
 * session (schema, metadata, events, topology): it is built under a hidden
 * name and renamed, so a SIGKILL at any moment never leaves a file at path
 * that is not a session. */
static int create_session(struct live_session *ls, const char *path, const char *kind, const char *cmdline,
			  struct c2c_error *err)
{
	char tmp[4096];
	const char *slash = strrchr(path, '/');
	int rc;

	if (slash)
		snprintf(tmp, sizeof(tmp), "%.*s/.%s.creating", (int)(slash - path), path, slash + 1);
	else
		snprintf(tmp, sizeof(tmp), ".%s.creating", path);
	unlink(tmp);
	if ((rc = store_create(&ls->st, tmp, err)) < 0)
		return rc;
	rc = write_meta(ls, kind, cmdline, err);
	store_close(ls->st);  /* last connection: the WAL folds into the file */
	ls->st = NULL;
	if (rc == 0 && link(tmp, path) < 0)
		rc = c2c_error_set(err, -errno, "cannot create %s: %s", path, strerror(errno));
	unlink(tmp);
	if (rc < 0)
		return rc;
	return store_open(&ls->st, path, STORE_OPEN_APPEND, err);
}

int live_session_new(struct live_session **out, const char *path, const struct live_options *opt,
		     const char *source_kind, const char *cmdline, struct c2c_error *err)
{
	struct live_session *ls = calloc(1, sizeof(*ls));
	struct symtab_options so = { .use_host_kallsyms = true };
	size_t nev;
	const struct live_event *ev;
	int rc;

	*out = NULL;
	if (!ls)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	ls->sites = calloc((size_t)1 << SITE_CACHE_BITS, sizeof(*ls->sites));
	ls->dsyms = calloc((size_t)1 << SITE_CACHE_BITS, sizeof(*ls->dsyms));
	if (!ls->sites || !ls->dsyms) {
		free(ls->sites);
		free(ls->dsyms);
		free(ls);
		return c2c_error_set(err, -ENOMEM, "out of memory");
	}
	if ((rc = live_new(&ls->lv, opt, err)) < 0)
		goto fail;
	/* The decoder for pairing gets exactly the formats the events use. */
	ls->dec = tp_decoder_new(err);
	ls->pairer = lockwait_new(err);
	ls->sym = symtab_new(&so, err);
	if (!ls->dec || !ls->pairer || !ls->sym) {
		rc = -ENOMEM;
		goto fail;
	}
	ev = live_events(ls->lv, &nev);
	for (size_t i = 0; i < nev; i++) {
		char tracefs[256];
		const char *colon = strchr(ev[i].name, ':');
		char sys[64];
		if (ev[i].kind != LIVE_EV_TRACEPOINT || !colon)
			continue;
		if (opt->tracefs)
			snprintf(tracefs, sizeof(tracefs), "%s", opt->tracefs);
		else if ((rc = tp_find_tracefs(tracefs, sizeof(tracefs), err)) < 0)
			goto fail;
		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - ev[i].name), ev[i].name);
		if ((rc = tp_decoder_load_tracefs(ls->dec, tracefs, sys, colon + 1, err)) < 0)
			goto fail;
	}
	if ((rc = create_session(ls, path, source_kind, cmdline, err)) < 0)
		goto fail;
	ls->sink = (struct live_sink){ ls, on_sample, on_mmap, on_comm, on_task, on_flush };
	*out = ls;
	return 0;
fail:
	live_session_free(ls);
	return rc;
}

void live_session_free(struct live_session *ls)
{
	if (!ls)
		return;
	live_free(ls->lv);  /* stops the threads first if still running */
	store_close(ls->st);
	symtab_free(ls->sym);
	tp_decoder_free(ls->dec);
	lockwait_free(ls->pairer);
	free(ls->cpu_node);
	free(ls->sites);
	free(ls->dsyms);
	free(ls);
}

struct live *live_session_live(struct live_session *ls)
{
	return ls->lv;
}

int live_session_start(struct live_session *ls, struct c2c_error *err)
{
	clock_gettime(CLOCK_MONOTONIC, &ls->t0);
	ls->started = true;
	return live_start(ls->lv, &ls->sink, err);
}

int live_session_stop(struct live_session *ls, struct c2c_error *err)
{
	int rc;

	if (ls->stopped)
		return 0;
	ls->stopped = true;
	rc = live_stop(ls->lv, err);
	clock_gettime(CLOCK_MONOTONIC, &ls->t1);
	live_get_counts(ls->lv, &ls->last_counts);
	if (rc < 0) {
		if (err && ls->err.msg[0])
			*err = ls->err;
		/* Keep what was committed: still finalize below. */
	}
	{
		int r2 = write_counters(ls, &ls->last_counts);
		if (r2 == 0)
			r2 = store_finalize(ls->st, rc < 0 ? NULL : err);
		if (rc == 0)
			rc = r2;
	}
	return rc;
}

uint64_t live_session_commits(struct live_session *ls)
{
	return atomic_load(&ls->commits);
}

void live_session_totals(struct live_session *ls, struct live_session_totals *out)
{
	struct lockwait_stats st;
	struct timespec now;

	memset(out, 0, sizeof(*out));
	out->samples = ls->samples;
	out->lock_waits = ls->lock_waits;
	out->lock_wait_ns = ls->lock_wait_ns;
	memcpy(out->per_event, ls->per_event, sizeof(out->per_event));
	lockwait_get_stats(ls->pairer, &st);
	out->unmatched_ends = st.unmatched_ends;
	out->pending_begins = st.pending;
	out->nested_begins = st.nested_begins;
	live_get_counts(ls->lv, &out->counts);
	clock_gettime(CLOCK_MONOTONIC, &now);
	out->seconds = elapsed(&ls->t0, ls->stopped ? &ls->t1 : &now);
}

void live_session_summary(struct live_session *ls, char *buf, size_t size)
{
	struct live_session_totals t;

	live_session_totals(ls, &t);
	snprintf(buf, size,
		 "%s: %llu samples, %llu lock waits (%.3f ms waited), %llu lost, %llu throttled, "
		 "%llu dropped (queue), %.1f s",
		 store_path(ls->st), (unsigned long long)t.samples, (unsigned long long)t.lock_waits,
		 (double)t.lock_wait_ns / 1e6, (unsigned long long)t.counts.lost_samples,
		 (unsigned long long)t.counts.throttle, (unsigned long long)t.counts.queue_drops, t.seconds);
}
