/* The import driver (see import_pipeline.h): reads records in perf's
 * order, writes the recording's header as metadata, hands every record to
 * ingest (the rules shared with live) and commits in big transactions. */
#include "store/ingest/import_pipeline.h"

#include "collector/base/appendf.h"
#include "collector/c2c/c2c.h"
#include "collector/perfdata/perfdata.h"
#include "collector/symbols/symbols.h"
#include "collector/tracepoint/tracepoint.h"
#include "store/base/session_files.h"
#include "store/ingest/ingest.h"
#include "store/store.h"

#include <errno.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_BATCH 16000000     /* a commit rewrites every changed aggregate row: few of them */
/* ... but at least one a second, so that a killed import keeps nearly
 * everything it read (the session then says it was never finalized) —
 * unless commits are slow (every changed aggregate row is rewritten: many
 * lines x threads x sites): then the next one waits ten times as long as
 * the last one took, so commits cost at most a tenth of the import. */
#define COMMIT_EVERY_NS 1000000000ull
#define COMMIT_COST_SHARE 10
struct pipeline {
	struct perfdata *pd;
	struct store *st;
	struct ingest *in;
	const struct import_options *opt;
	struct import_result *res;
	uint32_t nr_cpu_node;         /* CPUs the recording's topology names */
	int32_t *cpu_node;            /* their nodes (-1: none) */
	bool tracing_loaded;
	uint64_t lost_events;         /* sum of LOST records' counts */
	uint64_t lost_samples;        /* sum of LOST_SAMPLES records' counts */
	struct timespec t0;
	uint64_t last_progress_ns;
	uint64_t last_commit_ns;      /* when the last commit ended */
	uint64_t commit_every_ns;     /* the wait before the next one */
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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
	for (uint32_t c = 0; c < pl->nr_cpu_node; c++)
		if ((r = ingest_set_cpu_node(pl->in, c, pl->cpu_node[c], err)) < 0)
			return r;

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
		symtab_set_build_id(ingest_symtab(pl->in), h->build_ids[i].filename, h->build_ids[i].build_id,
				    h->build_ids[i].size);
	if (h->tracing_data && !pl->tracing_loaded) {
		tp_decoder_load_tracing_data(ingest_decoder(pl->in), h->tracing_data, h->tracing_data_size, NULL);
		pl->tracing_loaded = true;
	}
	return 0;
}

/* ---- commits and how the import ended ---------------------------------------- */

static int commit(struct pipeline *pl, struct c2c_error *err)
{
	uint64_t t = now_ns();
	int r = store_commit(pl->st, err);

	pl->last_commit_ns = now_ns();
	pl->commit_every_ns = (pl->last_commit_ns - t) * COMMIT_COST_SHARE;
	if (pl->commit_every_ns < COMMIT_EVERY_NS)
		pl->commit_every_ns = COMMIT_EVERY_NS;
	return r;
}

/* What cut the import short, kept in the session for every reader: the
 * signal that stopped it, or the reader's sentence about the damage. */
static int write_stop_reason(struct pipeline *pl, int read_rc, const struct c2c_error *rerr, struct c2c_error *err)
{
	char why[512];

	if (pl->res->interrupted) {
		int sig = pl->res->signal;
		const char *abbrev = sig > 0 ? sigabbrev_np(sig) : NULL;
		snprintf(why, sizeof(why), "import interrupted%s%s after %" PRIu64 " records; the rest of %s was not read",
			 abbrev ? " by SIG" : "", abbrev ? abbrev : "", pl->res->records, perfdata_path(pl->pd));
	} else if (read_rc < 0) {
		c2c_appendf(why, sizeof(why), 0, "damaged input: %s", rerr->msg[0] ? rerr->msg : "read error");
	} else {
		return 0;
	}
	return store_set_stop_reason(pl->st, why, err);
}

/* ---- records --------------------------------------------------------------- */

static void show_progress(struct pipeline *pl, bool last)
{
	uint64_t t = now_ns();
	if (!pl->opt || !pl->opt->progress || (!last && t - pl->last_progress_ns < 250000000ull))
		return;
	pl->last_progress_ns = t;
	struct ingest_stats is;
	ingest_get_stats(pl->in, &is);
	struct import_progress p = {
		.path = perfdata_path(pl->pd), .records = pl->res->records, .samples = is.samples,
		.seconds = (double)(t - ((uint64_t)pl->t0.tv_sec * 1000000000ull + (uint64_t)pl->t0.tv_nsec)) / 1e9,
		.last = last,
	};
	pl->opt->progress(pl->opt->progress_ctx, &p);
}

static int handle(struct pipeline *pl, struct perfdata_record *rec, struct c2c_error *err)
{
	struct store *st = pl->st;
	int r = 0;

	switch (rec->kind) {
	case PERFDATA_SAMPLE:
		return ingest_sample(pl->in, &rec->u.sample, err);
	case PERFDATA_MMAP:
		return ingest_mmap(pl->in, &rec->u.mmap, rec->sid.time, err);
	case PERFDATA_COMM:
		return ingest_comm(pl->in, &rec->u.comm, err);
	case PERFDATA_FORK:
		return ingest_task(pl->in, &rec->u.task, false, err);
	case PERFDATA_EXIT:
		return ingest_task(pl->in, &rec->u.task, true, err);
	case PERFDATA_LOST:
	case PERFDATA_LOST_SAMPLES:
		/* perf 6.x writes both for the same losses: LOST (events the
		 * ring overwrote) and, at the end, LOST_SAMPLES (the samples
		 * the kernel counted as lost). perf counts lost samples from
		 * LOST_SAMPLES alone; older recordings only have LOST. */
		if (rec->kind == PERFDATA_LOST) {
			pl->lost_events += rec->u.lost.lost;
			r = store_add_counter(st, STORE_CNT_LOST, 1, err);
		} else {
			pl->lost_samples += rec->u.lost.lost;
		}
		pl->res->lost = pl->lost_samples ? pl->lost_samples : pl->lost_events;
		pl->res->lost_samples_records = pl->lost_samples;
		return r ? r : store_set_counter(st, STORE_CNT_LOST_SAMPLES, pl->res->lost, err);
	case PERFDATA_THROTTLE:
		return store_add_counter(st, STORE_CNT_THROTTLE, 1, err);
	case PERFDATA_UNTHROTTLE:
		return store_add_counter(st, STORE_CNT_UNTHROTTLE, 1, err);
	case PERFDATA_TRACING_DATA: {
		const struct perfdata_header *h = perfdata_header(pl->pd);
		if (h->tracing_data && !pl->tracing_loaded) {
			tp_decoder_load_tracing_data(ingest_decoder(pl->in), h->tracing_data, h->tracing_data_size,
						     NULL);
			pl->tracing_loaded = true;
		}
		return 0;
	}
	default:
		return 0;
	}
}

int import_write_header(struct perfdata *pd, struct store *st, struct ingest *in, const struct import_options *opt,
			struct c2c_error *err)
{
	struct import_result res = { 0 };
	struct pipeline pl = { .pd = pd, .st = st, .in = in, .opt = opt, .res = &res };
	int r = write_header(&pl, err);

	free(pl.cpu_node);
	return r;
}

/* The kernel image the import named kernel code with (-k, or found by
 * build-id), so that reading the session later (types of kernel heap
 * objects need its DWARF) finds it without -k. */
static int write_vmlinux(struct pipeline *pl, struct c2c_error *err)
{
	uint8_t bid[20];
	size_t bn = 0;
	char hex[41] = "";
	const char *path = symtab_kernel_image(ingest_symtab(pl->in), bid, &bn);
	int r;

	if (!path)
		return 0;
	for (size_t i = 0; i < bn && i < 20; i++)
		snprintf(hex + 2 * i, 3, "%02x", bid[i]);
	if ((r = store_set_meta(pl->st, STORE_META_VMLINUX, path, err)) < 0)
		return r;
	return store_set_meta(pl->st, STORE_META_VMLINUX_BID, hex, err);
}

/* The modules symbolization met with a .ko of another build, for the
 * command layer to say once each. */
static void kmods_refused(const struct symtab *sy, struct import_result *res)
{
	const char *mod, *file;
	size_t len = 0;
	for (size_t i = 0; symtab_kmod_refused(sy, i, &mod, &file); i++) {
		/* A map named by its path: the path once. */
		bool same = strcmp(mod, file) == 0;
		len = c2c_appendf(res->kmod_refused, sizeof(res->kmod_refused), len, "%s%s%s%s",
				  i ? "\n" : "", mod, same ? "" : ": ", same ? "" : file);
		res->kmods_refused++;
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
	pl.last_commit_ns = now_ns();
	pl.commit_every_ns = COMMIT_EVERY_NS;

	struct symtab_options so = { .symfs = opt ? opt->symfs : NULL, .kallsyms = opt ? opt->kallsyms : NULL,
				     .vmlinux = opt ? opt->vmlinux : NULL, .osrelease = h->osrelease };
	if (!so.kallsyms)
		so.use_host_kallsyms = symtab_same_host(h->hostname, h->osrelease);
	/* Tracepoint payloads (lock contention) are decoded when the file
	 * carries their formats; pipe files may deliver them later. */
	if ((r = ingest_new(&pl.in, st, &so, err)) < 0)
		goto out;
	/* A -k vmlinux that cannot be the recorded kernel is said before any
	 * sample (pipe files bring their build-ids later: checked as known). */
	for (uint32_t i = 0; i < h->nr_build_ids; i++)
		symtab_set_build_id(ingest_symtab(pl.in), h->build_ids[i].filename, h->build_ids[i].build_id,
				    h->build_ids[i].size);
	if ((r = symtab_check_vmlinux(ingest_symtab(pl.in), err)) < 0)
		goto out;
	/* What the session is, committed before the first sample: a session
	 * killed early still names its source (and a rerun can redo it). */
	if ((r = store_set_meta(st, STORE_META_SOURCE_KIND, "import", err)) < 0 ||
	    (r = store_set_meta(st, STORE_META_SOURCE, perfdata_path(pd), err)) < 0 || (r = commit(&pl, err)) < 0)
		goto out;
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
		if (store_pending(st) >= batch && (r = commit(&pl, err)) < 0)
			goto out;
		if (opt && opt->stop && *opt->stop) {
			result->interrupted = true;
			result->signal = (int)*opt->stop;
			break;
		}
		if (!(result->records & 0xfff)) {
			if (store_pending(st) && now_ns() - pl.last_commit_ns >= pl.commit_every_ns &&
			    (r = commit(&pl, err)) < 0)
				goto out;
			if (!(result->records & 0xffff))
				show_progress(&pl, false);
		}
	}
	show_progress(&pl, true);
	kmods_refused(ingest_symtab(pl.in), result);
	if ((!header_done && (r = write_header(&pl, err)) < 0) || (header_done && (r = write_events(&pl, err)) < 0))
		goto out;
	if ((r = write_vmlinux(&pl, err)) < 0)
		goto out;

	const struct perfdata_stats *ps = perfdata_stats(pd);
	result->unknown_records = ps->unknown_records + ps->bad_records + ps->unknown_id_samples;
	result->bytes_dropped = ps->dropped_bytes;
	result->truncated = ps->truncated;
	result->bad_records = ps->bad_records + ps->unknown_id_samples;
	result->bad_features = h->nr_bad_features;
	if ((r = store_add_counter(st, STORE_CNT_UNKNOWN_RECORDS, result->unknown_records, err)) < 0 ||
	    (r = store_add_counter(st, STORE_CNT_BAD_RECORDS, result->bad_records, err)) < 0 ||
	    (r = store_add_counter(st, STORE_CNT_UNKNOWN_FEATURES, h->nr_unknown_features + h->nr_bad_features, err)) < 0 ||
	    (r = store_add_counter(st, STORE_CNT_BAD_FEATURES, h->nr_bad_features, err)) < 0 ||
	    (r = store_add_counter(st, STORE_CNT_BYTES_DROPPED, ps->dropped_bytes, err)) < 0 ||
	    (r = write_stop_reason(&pl, rc, &rerr, err)) < 0 ||
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
	if (pl.in) {
		struct ingest_stats is;
		ingest_get_stats(pl.in, &is);
		result->samples = is.samples;
		result->lock_waits = is.lock_waits;
		result->sideband = is.sideband;
	}
	ingest_free(pl.in);
	free(pl.cpu_node);
	return r;
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
	result->created = true;
	if ((r = store_set_bulk_load(st, true, err)) < 0) {
		store_close(st);
		perfdata_close(pd);
		store_remove_files(db_path, NULL);
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
		store_remove_files(db_path, NULL);
	return r;
}

int import_pipeline_file(const char *perf_data, const char *db_path, const struct import_options *opt,
			 struct c2c_error *err)
{
	return import_pipeline_file_ex(perf_data, db_path, opt, NULL, err);
}
