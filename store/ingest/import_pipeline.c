/* The import pipeline (see import_pipeline.h): reads records in perf's
 * order, keeps the symbol tables current from side-band records, resolves
 * each sample's code and data addresses, classifies it with c2c_classify,
 * pairs lock:contention_begin/end into lock waits, and hands everything to
 * the store writer in big transactions. */
#include "store/ingest/import_pipeline.h"

#include "collector/c2c/c2c.h"
#include "collector/tracepoint/lockwait.h"
#include "collector/perfdata/perfdata.h"
#include "collector/perfdata/perf_record.h"
#include "collector/symbols/symbols.h"
#include "collector/tracepoint/tracepoint.h"
#include "store/store.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_BATCH 16000000     /* a commit rewrites every changed aggregate row: few of them */
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

struct pipeline {
	struct perfdata *pd;
	struct store *st;
	struct symtab *sym;
	struct tp_decoder *dec;
	struct lockwait_pairer *locks;
	const struct import_options *opt;
	struct import_result *res;
	int32_t *cpu_node;
	size_t nr_cpu_node;
	struct cache_ent *sites;
	struct cache_ent *dsyms;
	int64_t chain[MAX_CHAIN];
	uint64_t next_commit;
	bool progress;
	bool tracing_loaded;
	struct timespec t0;
	uint64_t last_progress_ns;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static size_t cache_slot(uint64_t addr, int32_t pid)
{
	uint64_t h = (addr ^ ((uint64_t)(uint32_t)pid << 40)) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> (64 - CACHE_BITS));
}

/* ---- header -> metadata -------------------------------------------------- */

static int set_meta_u64(struct store *st, const char *key, uint64_t v, struct c2c_error *err)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return store_set_meta(st, key, buf, err);
}

/* Parses a cpu list ("0-3,8,10-11") calling fn for each cpu. */
static void cpulist_each(const char *list, void (*fn)(void *ctx, uint32_t cpu), void *ctx)
{
	const char *p = list;
	while (p && *p) {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b;
		if (end == p)
			break;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtoul(p, &end, 10);
			if (end == p)
				break;
		}
		for (unsigned long c = a; c <= b && c < (1ul << 16); c++)
			fn(ctx, (uint32_t)c);
		p = *end == ',' ? end + 1 : end;
		if (*p && *p != ',' && (*p < '0' || *p > '9'))
			break;
	}
}

struct node_ctx {
	struct pipeline *pl;
	int32_t node;
};

static void set_cpu_node(void *vctx, uint32_t cpu)
{
	struct node_ctx *c = vctx;
	struct pipeline *pl = c->pl;
	if (cpu >= pl->nr_cpu_node) {
		size_t n = cpu + 1;
		int32_t *p = realloc(pl->cpu_node, n * sizeof(*p));
		if (!p)
			return;
		for (size_t i = pl->nr_cpu_node; i < n; i++)
			p[i] = -1;
		pl->cpu_node = p;
		pl->nr_cpu_node = n;
	}
	pl->cpu_node[cpu] = c->node;
}

static const char *event_name(const struct perf_attr_info *a, char *buf, size_t size)
{
	const char *name = a->name;
	if (name && *name)
		return name;
	snprintf(buf, size, "type%u/config%#" PRIx64, a->type, a->config);
	return buf;
}

/* Events (INSERT OR REPLACE): written with the header and again at the
 * end, since a pipe-format file may name its events after the samples. */
static int write_events(struct pipeline *pl, struct c2c_error *err)
{
	for (size_t i = 0; i < perfdata_nr_attrs(pl->pd); i++) {
		const struct perf_attr_info *a = perfdata_attr(pl->pd, i);
		char buf[64];
		struct store_event ev = {
			.index = (uint32_t)i, .name = event_name(a, buf, sizeof(buf)), .attr_type = a->type,
			.config = a->config, .sample_type = a->sample_type, .sample_period = a->sample_period,
			.freq = a->freq,
		};
		int r = store_add_event(pl->st, &ev, err);
		if (r < 0)
			return r;
	}
	return 0;
}

static int write_header(struct pipeline *pl, struct c2c_error *err)
{
	const struct perfdata_header *h = perfdata_header(pl->pd);
	struct store *st = pl->st;
	uint32_t line_size = 0;
	int r = 0;

	if (h->hostname)
		r = r ? r : store_set_meta(st, STORE_META_HOST, h->hostname, err);
	if (h->osrelease)
		r = r ? r : store_set_meta(st, STORE_META_OS_RELEASE, h->osrelease, err);
	if (h->arch)
		r = r ? r : store_set_meta(st, STORE_META_ARCH, h->arch, err);
	if (h->cpudesc)
		r = r ? r : store_set_meta(st, STORE_META_CPU_DESC, h->cpudesc, err);
	if (h->cpuid)
		r = r ? r : store_set_meta(st, STORE_META_CPUID, h->cpuid, err);
	if (h->cmdline)
		r = r ? r : store_set_meta(st, STORE_META_CMDLINE, h->cmdline, err);
	if (h->version)
		r = r ? r : store_set_meta(st, STORE_META_PERF_VERSION, h->version, err);
	if (h->nr_cpus_online)
		r = r ? r : set_meta_u64(st, STORE_META_NR_CPUS, h->nr_cpus_online, err);
	if (h->nr_cpus_avail)
		r = r ? r : set_meta_u64(st, STORE_META_NR_CPUS_AVAIL, h->nr_cpus_avail, err);
	if (h->total_mem_kb)
		r = r ? r : set_meta_u64(st, STORE_META_TOTAL_MEM, h->total_mem_kb, err);
	/* The L1 data cache's line size when recorded, else 64 (what perf
	 * assumes on the machines it runs on). */
	for (uint32_t i = 0; i < h->nr_caches; i++)
		if (h->caches[i].level == 1 && h->caches[i].type && !strcmp(h->caches[i].type, "Data"))
			line_size = h->caches[i].line_size;
	if (line_size < 16 || line_size > 4096 || (line_size & (line_size - 1)))
		line_size = 64;
	r = r ? r : set_meta_u64(st, STORE_META_CACHELINE, line_size, err);
	r = r ? r : store_set_meta(st, STORE_META_SOURCE, perfdata_path(pl->pd), err);
	r = r ? r : store_set_meta(st, STORE_META_SOURCE_KIND, "import", err);
	r = r ? r : set_meta_u64(st, STORE_META_RECORDED_AT, (uint64_t)time(NULL), err);
	if (pl->opt && pl->opt->generated)
		r = r ? r : store_set_meta(st, STORE_META_GENERATED, "1", err);
	if (r < 0)
		return r;

	if ((r = write_events(pl, err)) < 0)
		return r;

	for (uint32_t i = 0; i < h->nr_numa_nodes; i++) {
		struct node_ctx c = { pl, (int32_t)h->numa_nodes[i].node };
		cpulist_each(h->numa_nodes[i].cpus, set_cpu_node, &c);
	}
	uint32_t ncpu = h->nr_cpu_topo > pl->nr_cpu_node ? h->nr_cpu_topo : (uint32_t)pl->nr_cpu_node;
	for (uint32_t c = 0; c < ncpu; c++) {
		struct store_cpu cpu = {
			.cpu = c,
			.core = c < h->nr_cpu_topo ? h->cpu_topo[c].core_id : -1,
			.socket = c < h->nr_cpu_topo ? h->cpu_topo[c].socket_id : -1,
			.node = c < pl->nr_cpu_node ? pl->cpu_node[c] : -1,
		};
		if ((r = store_add_cpu(st, &cpu, err)) < 0)
			return r;
	}

	/* MEM_TOPOLOGY: physical address -> memory node, for perf's "Node"
	 * and "PA cnt" columns (the report reads it back). */
	if (h->nr_mem_nodes && h->mem_block_size) {
		struct c2c_mem_range *ranges = NULL;
		size_t nranges = 0;
		for (uint32_t i = 0; i < h->nr_mem_nodes && r == 0; i++)
			if (h->mem_nodes[i].blocks &&
			    c2c_mem_ranges_from_blocks(&ranges, &nranges, (int)h->mem_nodes[i].node, h->mem_nodes[i].blocks,
						       h->mem_nodes[i].nr_blocks_total, h->mem_block_size) < 0)
				r = c2c_error_set(err, -ENOMEM, "out of memory");
		if (r == 0 && nranges)
			r = store_set_mem_ranges(st, ranges, nranges, err);
		free(ranges);
		if (r < 0)
			return r;
	}

	for (uint32_t i = 0; i < h->nr_build_ids; i++)
		symtab_set_build_id(pl->sym, h->build_ids[i].filename, h->build_ids[i].build_id, h->build_ids[i].size);
	if (h->tracing_data && pl->dec && !pl->tracing_loaded) {
		tp_decoder_load_tracing_data(pl->dec, h->tracing_data, h->tracing_data_size, NULL);
		pl->tracing_loaded = true;
	}
	return 0;
}

/* ---- resolution ---------------------------------------------------------- */

static bool kernel_mode(uint8_t m)
{
	return m == C2C_MODE_KERNEL || m == C2C_MODE_GUEST_KERNEL;
}

static int64_t site_of(struct pipeline *pl, int32_t pid, int32_t tid, uint8_t cpumode, uint64_t ip,
		       struct c2c_error *err)
{
	struct sym_code code;
	int32_t key_pid;

	if (!ip)
		return 0;
	/* The cache is keyed by the sample's pid, so a hit skips the symbol
	 * lookup altogether. */
	struct cache_ent *c = &pl->sites[cache_slot(ip, pid)];
	if (c->used && c->addr == ip && c->pid == pid)
		return c->id;
	memset(&code, 0, sizeof(code));
	if (symtab_resolve_ip(pl->sym, pid, tid, cpumode, ip, &code) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory resolving symbols");
	/* Kernel code is shared by every process: one site per address. */
	key_pid = (code.dso && !strncmp(code.dso, "[kernel", 7)) || kernel_mode(cpumode) ? -1 : pid;
	struct store_site_info si = {
		.ip = ip, .pid = key_pid, .cpumode = cpumode, .function = code.function, .offset = code.offset,
		.dso = code.dso, .file = code.srcfile, .line = code.line, .rel_addr = code.rel_addr,
	};
	int64_t id = store_site_intern(pl->st, &si, err);
	if (id > 0)
		*c = (struct cache_ent){ .addr = ip, .pid = pid, .used = true, .id = id };
	return id;
}

static int64_t dsym_of(struct pipeline *pl, const struct c2c_sample *s, uint64_t *start, struct c2c_error *err)
{
	struct sym_data d;
	int32_t key_pid = kernel_mode(s->cpumode) ? -1 : s->pid;
	struct cache_ent *c = &pl->dsyms[cache_slot(s->addr, key_pid)];

	if (!s->addr)
		return 0;
	if (c->used && c->addr == s->addr && c->pid == key_pid) {
		*start = c->start;
		return c->id;
	}
	memset(&d, 0, sizeof(d));
	if (symtab_resolve_data(pl->sym, s->pid, s->tid, s->cpumode, s->addr, &d) < 0)
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
		*c = (struct cache_ent){ .addr = s->addr, .pid = key_pid, .used = true, .id = 0 };
		return 0;
	}
	if (di.start > s->addr)
		di.start = s->addr;
	int64_t id = store_dsym_intern(pl->st, &di, err);
	if (id > 0) {
		*c = (struct cache_ent){ .addr = s->addr, .pid = key_pid, .used = true, .id = id, .start = di.start };
		*start = di.start;
	}
	return id;
}

/* Resolves a call chain to sites, innermost first, markers dropped. */
static int chain_of(struct pipeline *pl, int32_t pid, int32_t tid, uint8_t cpumode, const uint64_t *chain,
		    uint32_t nr, uint32_t *out_n, struct c2c_error *err)
{
	uint8_t mode = cpumode;
	uint32_t n = 0;

	for (uint32_t i = 0; i < nr && n < MAX_CHAIN; i++) {
		uint64_t ip = chain[i];
		if (perf_callchain_marker(ip, &mode))
			continue;
		int64_t id = site_of(pl, pid, tid, mode, ip, err);
		if (id < 0)
			return (int)id;
		if (id > 0)
			pl->chain[n++] = id;
	}
	*out_n = n;
	return 0;
}

static const char *kernel_name_of(void *ctx, uint64_t ip)
{
	struct pipeline *pl = ctx;
	struct sym_code code;
	memset(&code, 0, sizeof(code));
	if (symtab_resolve_ip(pl->sym, -1, -1, C2C_MODE_KERNEL, ip, &code) < 0)
		return NULL;
	return code.function;
}

/* ---- records --------------------------------------------------------------- */

static int add_lock_wait(struct pipeline *pl, const struct lockwait *w, struct c2c_error *err)
{
	uint32_t nchain = 0;
	int64_t site = 0;
	int r;

	if (w->nr_callchain) {
		int idx = lockwait_caller_index(w->callchain, w->nr_callchain, kernel_name_of, pl);
		if (idx >= 0) {
			/* The chain's mode at idx: kernel unless a USER marker came first. */
			uint8_t mode = w->cpumode;
			for (int i = 0; i < idx; i++)
				perf_callchain_marker(w->callchain[i], &mode);
			site = site_of(pl, w->pid, w->tid, mode, w->callchain[idx], err);
			if (site < 0)
				return (int)site;
		}
		if ((r = chain_of(pl, w->pid, w->tid, w->cpumode, w->callchain, w->nr_callchain, &nchain, err)) < 0)
			return r;
	}
	struct store_lock_wait lw = {
		.time = w->time, .pid = w->pid, .tid = w->tid, .cpu = w->cpu, .lock_addr = w->lock_addr,
		.flags = w->flags, .wait_ns = w->wait_ns, .site = site, .chain_sites = nchain ? pl->chain : NULL,
		.nr_chain_sites = nchain,
	};
	struct c2c_sample fake = { .addr = w->lock_addr, .pid = w->pid, .tid = w->tid, .cpumode = C2C_MODE_KERNEL };
	uint64_t start = 0;
	int64_t dsym = dsym_of(pl, &fake, &start, err);
	if (dsym < 0)
		return (int)dsym;
	lw.dsym = dsym;
	if ((r = store_add_lock_wait(pl->st, &lw, err)) < 0)
		return r;
	pl->res->lock_waits++;
	return 0;
}

static int add_sample(struct pipeline *pl, const struct c2c_sample *s, struct c2c_error *err)
{
	struct store_sample_ctx ctx = { .node = -1 };
	uint32_t nchain = 0;
	uint64_t start = 0;
	int r;

	if (pl->dec && (s->has & C2C_HAS_RAW) && s->raw_size) {
		struct lockwait w;
		r = lockwait_feed_raw(pl->locks, pl->dec, s, &w, NULL);
		if (r < 0)
			return c2c_error_set(err, r, "out of memory pairing lock waits");
		if (r == 1 && (r = add_lock_wait(pl, &w, err)) < 0)
			return r;
	}

	bool dmapped = s->addr && symtab_addr_mapped(pl->sym, s->pid, s->tid, s->cpumode, s->addr);
	bool imapped = symtab_ip_mapped(pl->sym, s->pid, s->tid, s->ip);
	ctx.class_bits = c2c_classify(s->data_src, s->addr, dmapped, imapped);
	/* perf accounts a sample without a CPU to CPU 0's node. */
	uint32_t cpu = (s->has & C2C_HAS_CPU) ? s->cpu : 0;
	ctx.node = cpu < pl->nr_cpu_node ? pl->cpu_node[cpu] : -1;
	if (ctx.node < 0 && pl->nr_cpu_node == 0)
		ctx.node = 0;   /* no topology recorded: one node, as perf assumes */
	int64_t site = site_of(pl, s->pid, s->tid, s->cpumode, s->ip, err);
	if (site < 0)
		return (int)site;
	ctx.site = site;
	int64_t dsym = dsym_of(pl, s, &start, err);
	if (dsym < 0)
		return (int)dsym;
	ctx.dsym = dsym;
	ctx.dsym_offset = dsym ? s->addr - start : 0;
	if ((s->has & C2C_HAS_CALLCHAIN) && s->nr_callchain) {
		if ((r = chain_of(pl, s->pid, s->tid, s->cpumode, s->callchain, s->nr_callchain, &nchain, err)) < 0)
			return r;
		ctx.chain_sites = nchain ? pl->chain : NULL;
		ctx.nr_chain_sites = nchain;
	}
	struct c2c_line_ident lid;   /* perf's line identity (c2c_lineid.h) */
	symtab_line_ident(pl->sym, s, &lid);
	ctx.line_ident = &lid;
	if ((r = store_add_sample(pl->st, s, &ctx, err)) < 0)
		return r;
	pl->res->samples++;
	return 0;
}

static void show_progress(struct pipeline *pl, bool last)
{
	uint64_t t = now_ns();
	if (!pl->progress || (!last && t - pl->last_progress_ns < 250000000ull))
		return;
	pl->last_progress_ns = t;
	double secs = (double)(t - ((uint64_t)pl->t0.tv_sec * 1000000000ull + (uint64_t)pl->t0.tv_nsec)) / 1e9;
	fprintf(stderr, "\rimporting %s: %" PRIu64 " records, %" PRIu64 " samples, %.1f s%s",
		perfdata_path(pl->pd), pl->res->records, pl->res->samples, secs, last ? "\n" : "");
	fflush(stderr);
}

static int handle(struct pipeline *pl, struct perfdata_record *rec, struct c2c_error *err)
{
	struct store *st = pl->st;
	int r = 0;

	switch (rec->kind) {
	case PERFDATA_SAMPLE:
		return add_sample(pl, &rec->u.sample, err);
	case PERFDATA_MMAP:
		if (symtab_mmap(pl->sym, &rec->u.mmap) < 0)
			return c2c_error_set(err, -ENOMEM, "out of memory");
		pl->res->sideband++;
		return store_add_mmap(st, &rec->u.mmap, rec->sid.time, err);
	case PERFDATA_COMM:
		if (symtab_comm(pl->sym, &rec->u.comm) < 0)
			return c2c_error_set(err, -ENOMEM, "out of memory");
		pl->res->sideband++;
		return store_add_comm(st, &rec->u.comm, err);
	case PERFDATA_FORK:
		if (symtab_fork(pl->sym, &rec->u.task) < 0)
			return c2c_error_set(err, -ENOMEM, "out of memory");
		pl->res->sideband++;
		return store_add_task(st, &rec->u.task, false, err);
	case PERFDATA_EXIT:
		if (symtab_exit(pl->sym, &rec->u.task) < 0)
			return c2c_error_set(err, -ENOMEM, "out of memory");
		pl->res->sideband++;
		return store_add_task(st, &rec->u.task, true, err);
	case PERFDATA_LOST:
	case PERFDATA_LOST_SAMPLES:
		pl->res->lost += rec->u.lost.lost;
		if (rec->kind == PERFDATA_LOST)
			r = store_add_counter(st, STORE_CNT_LOST, 1, err);
		return r ? r : store_add_counter(st, STORE_CNT_LOST_SAMPLES, rec->u.lost.lost, err);
	case PERFDATA_THROTTLE:
		return store_add_counter(st, STORE_CNT_THROTTLE, 1, err);
	case PERFDATA_UNTHROTTLE:
		return store_add_counter(st, STORE_CNT_UNTHROTTLE, 1, err);
	case PERFDATA_TRACING_DATA: {
		const struct perfdata_header *h = perfdata_header(pl->pd);
		if (pl->dec && h->tracing_data && !pl->tracing_loaded) {
			tp_decoder_load_tracing_data(pl->dec, h->tracing_data, h->tracing_data_size, NULL);
			pl->tracing_loaded = true;
		}
		return 0;
	}
	default:
		return 0;
	}
}

int import_pipeline_run(struct perfdata *pd, struct store *st, const struct import_options *opt,
			struct import_result *result, struct c2c_error *err)
{
	struct import_result dummy;
	struct pipeline pl;
	struct perfdata_record rec;
	bool header_done = false;
	struct c2c_error rerr = { 0 };
	const struct perfdata_header *h = perfdata_header(pd);
	uint64_t batch = opt && opt->batch ? opt->batch : DEFAULT_BATCH;
	int r = 0, rc;

	if (!result)
		result = &dummy;
	memset(result, 0, sizeof(*result));
	memset(&pl, 0, sizeof(pl));
	pl.pd = pd;
	pl.st = st;
	pl.opt = opt;
	pl.res = result;
	clock_gettime(CLOCK_MONOTONIC, &pl.t0);
	pl.progress = !(opt && opt->no_progress) && isatty(STDERR_FILENO);

	struct symtab_options so = { .symfs = opt ? opt->symfs : NULL, .kallsyms = opt ? opt->kallsyms : NULL };
	if (!so.kallsyms)
		so.use_host_kallsyms = symtab_same_host(h->hostname, h->osrelease);
	pl.sym = symtab_new(&so, err);
	pl.sites = calloc(1u << CACHE_BITS, sizeof(*pl.sites));
	pl.dsyms = calloc(1u << CACHE_BITS, sizeof(*pl.dsyms));
	if (!pl.sym || !pl.sites || !pl.dsyms) {
		r = c2c_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	/* Tracepoint payloads (lock contention) are decoded when the file
	 * carries their formats; pipe files may deliver them later. */
	pl.dec = tp_decoder_new(NULL);
	if (pl.dec)
		pl.locks = lockwait_new(NULL);
	if (pl.dec && !pl.locks) {
		tp_decoder_free(pl.dec);
		pl.dec = NULL;
	}
	/* The header is written at the first sample: in pipe-format files the
	 * attrs and header features arrive as records before it. */
	while ((rc = perfdata_next(pd, &rec, &rerr)) == 1) {
		result->records++;
		if (!header_done && rec.kind == PERFDATA_SAMPLE) {
			if ((r = write_header(&pl, err)) < 0)
				goto out;
			header_done = true;
		}
		if ((r = handle(&pl, &rec, err)) < 0)
			goto out;
		if (store_pending(st) >= batch && (r = store_commit(st, err)) < 0)
			goto out;
		if (opt && opt->stop && *opt->stop) {
			result->interrupted = true;
			break;
		}
		if (!(result->records & 0xffff))
			show_progress(&pl, false);
	}
	show_progress(&pl, true);
	if ((!header_done && (r = write_header(&pl, err)) < 0) || (header_done && (r = write_events(&pl, err)) < 0))
		goto out;

	const struct perfdata_stats *ps = perfdata_stats(pd);
	result->unknown_records = ps->unknown_records + ps->bad_records + ps->unknown_id_samples;
	result->bytes_dropped = ps->dropped_bytes;
	result->truncated = ps->truncated;
	if ((r = store_add_counter(st, STORE_CNT_UNKNOWN_RECORDS, result->unknown_records, err)) < 0 ||
	    (r = store_add_counter(st, STORE_CNT_UNKNOWN_FEATURES, h->nr_unknown_features + h->nr_bad_features, err)) < 0 ||
	    (r = store_add_counter(st, STORE_CNT_BYTES_DROPPED, ps->dropped_bytes, err)) < 0 ||
	    (r = store_commit(st, err)) < 0)
		goto out;
	/* Everything read is committed: from here on the session is valid. */
	result->session_valid = true;
	if (rc < 0) {
		/* The reader's sentence names the file and the bytes dropped. */
		r = c2c_error_set(err, rc, "%s; kept the %" PRIu64 " complete records before it", rerr.msg,
				  result->records);
		goto out;
	}
	if (result->interrupted) {
		r = c2c_error_set(err, -EINTR, "%s: interrupted after %" PRIu64 " records; the session holds what was read",
				  perfdata_path(pd), result->records);
		goto out;
	}
out:
	result->seconds = (double)(now_ns() - ((uint64_t)pl.t0.tv_sec * 1000000000ull + (uint64_t)pl.t0.tv_nsec)) / 1e9;
	lockwait_free(pl.locks);
	tp_decoder_free(pl.dec);
	symtab_free(pl.sym);
	free(pl.sites);
	free(pl.dsyms);
	free(pl.cpu_node);
	return r;
}

static void remove_session(const char *path)
{
	static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
	char p[4096];
	for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", path, suffix[i]);
		unlink(p);
	}
}

int import_pipeline_file_ex(const char *perf_data, const char *db_path, const struct import_options *opt,
			    struct import_result *result, struct c2c_error *err)
{
	struct import_result dummy;
	struct perfdata *pd = NULL;
	struct store *st = NULL;
	int r;

	if (!result)
		result = &dummy;
	memset(result, 0, sizeof(*result));
	if ((r = perfdata_open(&pd, perf_data, err)) < 0)
		return r;
	if ((r = store_create(&st, db_path, err)) < 0) {
		perfdata_close(pd);
		return r;
	}
	if ((r = store_set_bulk_load(st, true, err)) < 0) {
		store_close(st);
		perfdata_close(pd);
		remove_session(db_path);
		return r;
	}
	r = import_pipeline_run(pd, st, opt, result, err);
	if (result->session_valid) {
		struct c2c_error ferr = { 0 };
		int f = store_finalize(st, &ferr);
		if (f < 0) {
			result->session_valid = false;
			if (r == 0) {
				*err = ferr;
				r = f;
			}
		}
	}
	store_close(st);
	perfdata_close(pd);
	if (r < 0 && !result->session_valid)
		remove_session(db_path);
	return r;
}

int import_pipeline_file(const char *perf_data, const char *db_path, const struct import_options *opt,
			 struct c2c_error *err)
{
	return import_pipeline_file_ex(perf_data, db_path, opt, NULL, err);
}
