/* What the other store/ sub-modules may use of store/agg: the in-memory
 * aggregator (the writer feeds it, store/filter rebuilds it, the queries
 * create its temp tables), its thread for bulk loads, perf's line identity
 * and the timeline build. Internals of store/agg are in agg_priv.h. */
#ifndef C2C_STORE_AGG_H
#define C2C_STORE_AGG_H

#include "store/base/base.h"
#include "store/base/hash.h"

/* ---- the aggregator (store/agg/agg.c) ----------------------------------- */

enum agg_kind {
	AGG_LINE,       /* (line) */
	AGG_OFFSET,     /* (line, offset) */
	AGG_PARETO,     /* (line, offset, ip) */
	AGG_LINE_CPU,   /* (line, cpu) */
	AGG_LINE_NODE,  /* (line, node) */
	AGG_CELL,       /* (line, offset, cpu) */
	AGG_CPU,        /* (cpu) */
	AGG_NODE,       /* (node) */
	AGG_LOCK,       /* (lock address) */
	AGG__MAX
};

enum agg_set {
	SET_LINE_TID, SET_LINE_SITE, SET_OFF_TID, SET_OFF_SITE, SET_LOCK_TID, SET_LOCK_SITE,
	SET_TID, SET_NODE_CPU,
	SET__MAX
};

/* One sample, as the aggregator needs it. */
struct agg_sample {
	uint64_t time;
	uint64_t addr;               /* the key address (virtual or physical) */
	uint32_t cpu;                /* UINT32_MAX when absent */
	int32_t node;
	int32_t pid, tid;
	uint64_t ip;
	int64_t site;
	int64_t dsym;
	uint64_t dsym_start;
	uint64_t bits;
	uint64_t weight;
	uint32_t event;
	uint64_t vaddr;              /* data virtual address (0 none) */
	uint64_t phys;               /* physical address (0 none) */
	uint8_t cpumode;
	uint8_t line_var;            /* line identity variant: the line key is cl | line_var */
};

struct agg_lock_sample {
	uint64_t lock_addr;
	int32_t tid;
	int64_t site;
	int64_t dsym;
	uint64_t dsym_start;
	uint32_t flags;
	uint64_t wait_ns;
};

struct agg {
	uint32_t line_size;          /* bytes per line (64, or 128 for double_cl) */
	struct agg_table t[AGG__MAX];
	struct key_set sets[SET__MAX];
	uint64_t nr_threads;
	uint64_t time_first, time_last;
	uint64_t nr_samples;
	uint64_t *ev_samples;        /* samples per event index */
	size_t nr_ev;
	struct agg_rep *rep;         /* the report's sample-order numbers; only
	                                the session writer's aggregator keeps them */
	struct tl_log *tl;           /* the timeline log; the writer's aggregator only */
	struct agg_ent *cpu_ent[256];  /* AGG_CPU / AGG_NODE entries by number: */
	struct agg_ent *node_ent[64];  /* two hash lookups fewer per sample */
};

void agg_init(struct agg *a, uint32_t line_size);
void agg_fini(struct agg *a);
int agg_add_sample(struct agg *a, const struct agg_sample *s);
int agg_add_lock(struct agg *a, const struct agg_lock_sample *w);
/* Creates the aggregate tables in schema ("main" or "temp") if absent. */
int agg_create_tables(struct store *st, const char *schema, struct c2c_error *err);
/* Writes every dirty entry into schema's tables (INSERT OR REPLACE). */
int agg_flush(struct agg *a, struct store *st, const char *schema, struct c2c_error *err);
/* agg_flush_tables' mask: a bit per enum agg_kind's table, and these. */
#define AGG_FLUSH_SESSION (1u << AGG__MAX)       /* agg_session: counts, times, the lines summary */
#define AGG_FLUSH_REP (1u << (AGG__MAX + 1))     /* agg_line_seq, agg_prow (agg_rep_enable) */
#define AGG_FLUSH_ALL ((1u << (AGG__MAX + 2)) - 1)
/* agg_flush for some tables only: a view that reads a few of them need
 * not wait for the rest (the others stay dirty for a later call). */
int agg_flush_tables(struct agg *a, struct store *st, const char *schema, unsigned mask, struct c2c_error *err);
/* ---- the lines table's summary (store/agg/line_summary.c) --------------- */

struct store_line_summary {
	uint64_t nr_lines;           /* lines with samples */
	uint64_t nr_shared_lines;
	struct c2c_stats shared;     /* summed counters of the shared lines */
};
/* Writes a's summary of its lines through upsert, an INSERT OR REPLACE
 * INTO <schema>.agg_session (name, value) VALUES (?, ?). */
int agg_line_summary_write(const struct agg *a, struct store *st, sqlite3_stmt *upsert, struct c2c_error *err);
/* schema's summary: 1 when it is there and was written for the session's
 * samples as they are, 0 otherwise (sum agg_line then). */
int store_line_summary_read(struct store *st, const char *schema, struct store_line_summary *out);

/* ---- the report's sample-order numbers (store/agg/agg_report.c) ---------- */

/* Starts keeping them in a, for its tables in schema: the writer's
 * aggregator ("main", before its first sample) and a filtered view's
 * ("temp"). Reads the session's memory topology, creates the tables. */
int agg_rep_enable(struct agg *a, struct store *st, const char *schema, struct c2c_error *err);
/* Their tables in schema ("main" or "temp"), if absent. */
int agg_rep_create_tables(struct store *st, const char *schema, struct c2c_error *err);
/* Answers store_query_lines_seq from those tables in schema (the one
 * store_agg_schema gives for f) when they hold exactly what it would
 * compute: 1 done, 0 not applicable (scan), <0 error. */
int store_lines_seq_precomputed(struct store *st, const char *schema, const struct store_filter *f,
				unsigned coalesce, struct store_seq_line *lines, size_t n, struct c2c_error *err);

/* ---- perf's line identity (store/agg/line_key.c) ------------------------ */

struct store_map_ent {
	int32_t pid;
	uint64_t start, end, time;
	uint32_t maj, min, flags;
	uint64_t ino, gen;
};
/* The recorded maps, in recording order. */
struct store_maps {
	struct store_map_ent *v;
	size_t n;
};
int store_maps_load(struct store *st, struct store_maps *out, struct c2c_error *err);
void store_maps_free(struct store_maps *m);
/* Fills k from a line's first sample: cpumode, pid, data address, time
 * and whether perf found no map for it (C2C_NOMAP). */
void store_line_key_set(struct store_line_key *k, const struct store_maps *maps, uint8_t cpumode, int32_t pid,
			uint64_t daddr, uint64_t time, bool nomap);

/* ---- the timeline log (store/agg/timeline_log.c) ------------------------ */

struct tl_log;
/* NULL when out of memory. The writer's aggregator keeps one (agg->tl). */
struct tl_log *tl_log_new(void);

/* ---- the aggregator's thread for bulk loads (store/agg/agg_thread.c) ----- */

struct agg_worker;
/* Starts a thread that feeds a; 0 or a negative errno. */
int agg_worker_start(struct agg_worker **w, struct agg *a);
/* Queue one sample / lock wait (copied). Returns a previous failure of
 * the aggregation (-ENOMEM) if there was one. */
int agg_worker_add_sample(struct agg_worker *w, const struct agg_sample *s);
int agg_worker_add_lock(struct agg_worker *w, const struct agg_lock_sample *l);
/* Waits until everything queued is in the aggregates (w may be NULL). */
int agg_worker_drain(struct agg_worker *w);
/* Drains, stops and frees (w may be NULL). */
void agg_worker_stop(struct agg_worker *w);

/* ---- the session's aggregates (store/agg/aggs.c) ------------------------ */

/* What struct store keeps of the aggregates: the session aggregates the
 * writer feeds (all in memory; the queries read their tables), the thread
 * that feeds them during bulk loads, and the line identity numbering. */
struct store_aggs {
	struct agg agg;              /* session aggregates */
	struct agg_worker *worker;   /* bulk loads: agg is updated by this
	                                thread; drained before agg is read */
	struct c2c_lineid *lineid;   /* line identity variants (store/agg/lineid.c), lazily */
};

/* Zeroed (store_create / store_open agg_init the aggregator once the
 * session's line size is known); NULL when out of memory. */
struct store_aggs *store_aggs_new(void);
/* Stops the worker and frees everything (a may be NULL). */
void store_aggs_free(struct store_aggs *a);

/* The variant of (addr's line, id) in the session's numbering
 * (store/agg/lineid.c); 0..63, or -ENOMEM. */
int store_line_variant(struct store *st, uint64_t addr, const struct c2c_line_ident *id);

/* ---- timeline slices (store/agg/agg_timeline.c; more in agg_timeline.h) -- */

/* (Re)builds the per-time-slice aggregate (agg_time_slice, agg_time_line)
 * in its own transaction: the writer's batch must be committed first
 * (store_finalize calls it after its commit). */
int store_timeline_build(struct store *st, struct c2c_error *err);

#endif /* C2C_STORE_AGG_H */
