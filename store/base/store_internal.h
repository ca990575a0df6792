/* Private to store/: the struct store handle, the in-memory aggregator the
 * writer keeps (and the queries reuse for filtered views), and helpers the
 * store/ files share. Nothing outside store/ includes this. */
#ifndef C2C_STORE_INTERNAL_H
#define C2C_STORE_INTERNAL_H

#include <sqlite3.h>

#include "store/store.h"

/* ---- small helpers (store/base/util.c) ---------------------------------- */

/* Sets err from the database's last error: "PATH: WHAT: sqlite message". */
int store_sqlerr(struct store *st, struct c2c_error *err, const char *what);
/* Runs SQL with no result rows. */
int store_exec(struct store *st, const char *sql, struct c2c_error *err);
/* Prepares SQL (persistent for cached statements). */
int store_prepare(struct store *st, sqlite3_stmt **stmt, const char *sql, struct c2c_error *err);
/* A column as text copied into buf ("" for NULL). */
void store_col_text(sqlite3_stmt *s, int col, char *buf, size_t size);
/* Grows *arr (element size elem) to hold at least need elements. */
int store_grow(void **arr, size_t *cap, size_t need, size_t elem);
/* A zeroed block (free() it); big ones come in huge-page-advised 2 MiB
 * multiples. NULL when out of memory. */
void *store_zalloc_big(size_t size);
/* Text copied with truncation (buf always NUL-terminated). */
void store_copy(char *buf, size_t size, const char *src);

/* ---- c2c_stats <-> SQL columns (store/base/cols.c) ---------------------- */

/* "nr_entries,locks,...,noparse" (all 32 counters, C2C_COUNTER_MAX). */
const char *store_stats_cols(void);
/* "lat_rmt_hitm_n,lat_rmt_hitm_sum,lat_rmt_hitm_mean,..." (15 columns). */
const char *store_lat_cols(void);
#define STORE_NR_LAT_COLS (3 * STORE_LAT__MAX)
/* Column definitions for CREATE TABLE ("nr_entries INTEGER NOT NULL DEFAULT 0,..."). */
const char *store_stats_coldefs(void);
const char *store_lat_coldefs(void);
/* "SUM(nr_entries),SUM(locks),..." */
const char *store_stats_sums(void);
/* Binds stats then lat starting at parameter `first`; returns the next index. */
int store_bind_stats(sqlite3_stmt *s, int first, const struct c2c_stats *stats);
int store_bind_lat(sqlite3_stmt *s, int first, const struct store_lat *lat);
/* Reads stats (C2C_COUNTER_MAX columns) / lat starting at column `first`. */
int store_read_stats(sqlite3_stmt *s, int first, struct c2c_stats *stats);
int store_read_lat(sqlite3_stmt *s, int first, struct store_lat *lat);
/* Adds b into a (counts, sums, count-weighted means). */
void store_lat_merge(struct store_lat *a, const struct store_lat *b);
/* Feeds one sample's weight into the accumulator its class bits choose. */
void store_lat_add(struct store_lat *lat, uint64_t bits, uint64_t weight);

/* ---- hash tables (store/base/hash.c) ------------------------------------- */

#define AGG_KEY_WORDS 4

/* Aggregate entry. Which fields are used depends on the table. */
struct agg_ent {
	uint64_t key[AGG_KEY_WORDS];
	struct c2c_stats stats;
	struct store_lat lat;
	uint64_t *cpus;              /* CPU bitmap, cpu_words words: cpus_inline for
	                                CPUs < 256 (no extra cache miss), heap beyond */
	uint32_t cpu_words;
	uint64_t cpus_inline[4];
	uint32_t nr_cpus;
	uint32_t nr_threads, nr_sites, nr_offsets;
	uint64_t node_mask;
	int64_t dsym;                /* data symbol, 0 none */
	uint64_t dsym_start;
	int64_t site;                /* pareto: a site of this ip */
	uint64_t lock_waits, lock_wait_ns, lock_wait_max, lock_flags;
	/* Coarser entries this one always feeds (set when it is created), so
	 * a sample costs one lookup per chain: Pareto -> offset, line; cell ->
	 * line x CPU, line x node. */
	struct agg_ent *up1, *up2;
	void *rep;                   /* the report's sample-order entry
	                                (store/agg/agg_report.c): line or row */
	bool dirty;
	uint32_t tl_idx;             /* line entries: the timeline log's index, 0 none yet */
};

struct agg_slot {
	uint64_t hash;               /* of e->key: probes compare it without touching e */
	struct agg_ent *e;           /* NULL: free */
};

struct agg_table {
	struct agg_slot *slots;
	size_t cap, count;
	struct agg_ent **slabs;      /* entries come from slabs (store/base/hash.c),
	                                freed together */
	size_t nslabs, slab_used;    /* entries used in the last slab */
	size_t heap_cpus;            /* entries whose CPU bitmap is on the heap */
	struct agg_ent **dirty;      /* entries changed since the last flush */
	size_t ndirty, dirty_cap;
};

/* Returns the entry for key (created zeroed when absent; *created set).
 * NULL on allocation failure. */
struct agg_ent *agg_table_get(struct agg_table *t, const uint64_t *key, bool *created);
struct agg_ent *agg_table_find(const struct agg_table *t, const uint64_t *key);
int agg_table_mark_slow(struct agg_table *t, struct agg_ent *e);
static inline int agg_table_mark(struct agg_table *t, struct agg_ent *e)
{
	return e->dirty ? 0 : agg_table_mark_slow(t, e);
}
void agg_table_fini(struct agg_table *t);

/* Key-only set. Returns 1 when added, 0 when present, -ENOMEM. */
struct key_set {
	uint64_t *keys;              /* cap * AGG_KEY_WORDS */
	uint8_t *used;
	size_t cap, count;
};
int key_set_add(struct key_set *s, const uint64_t *key);
void key_set_fini(struct key_set *s);

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
/* Rebuilds a from the samples and lock_waits tables, keeping the samples
 * the filter selects (all when f is NULL): the append-mode load and the
 * filtered views' recomputation. */
int agg_rebuild(struct agg *a, struct store *st, const struct store_filter *f, struct c2c_error *err);

/* ---- the report's sample-order numbers (store/agg/agg_report.c) ---------- */

/* Starts keeping them in a (the writer's aggregator, before its first
 * sample): reads the session's memory topology, creates the tables. */
int agg_rep_enable(struct agg *a, struct store *st, struct c2c_error *err);
void agg_rep_free(struct agg *a);
/* One sample on line_ent / par_ent (the AGG_LINE and AGG_PARETO entries). */
int agg_rep_add(struct agg *a, struct agg_ent *line_ent, struct agg_ent *par_ent, const struct agg_sample *s);
/* Writes the changed entries into main.agg_line_seq / main.agg_prow. */
int agg_rep_flush(struct agg *a, struct store *st, struct c2c_error *err);
/* Answers store_query_lines_seq from those tables when they hold exactly
 * what it would compute: 1 done, 0 not applicable (scan), <0 error. */
int store_lines_seq_precomputed(struct store *st, const struct store_filter *f, unsigned coalesce,
				struct store_seq_line *lines, size_t n, struct c2c_error *err);

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

/* ---- time ranges of sample blocks (store/writer/time_blocks.c) ------------- */

/* A new session: creates the table (in the creating transaction). */
int store_time_blocks_create(struct store *st, struct c2c_error *err);
/* An opened session: whether it keeps them (sets st->tb.on). */
bool store_time_blocks_load(struct store *st);
/* A writer appending: the next sample id. */
int store_time_blocks_start(struct store *st, struct c2c_error *err);
/* The next sample (in insertion order) has this time; -ENOMEM. */
int store_time_blocks_add(struct store *st, uint64_t time);
/* At a commit, after every sample row is in the table. */
int store_time_blocks_flush(struct store *st, struct c2c_error *err);
void store_time_blocks_free(struct store *st);
/* A condition on samples.id (using f's :t0/:t1) that keeps the blocks
 * overlapping f's time window, or NULL (no window, or no blocks). */
const char *store_time_blocks_where(const struct store *st, const struct store_filter *f);

/* ---- rows written at the next commit (store/writer/defer.c) ---------------- */

struct store_defer;
enum store_defer_kind { DEFER_SITE, DEFER_DSYM, DEFER_CHAIN };
/* Starts deferring (bulk loads): reads the next ids. The writer's thread
 * owns the connection when it calls this. */
int store_defer_start(struct store *st, struct c2c_error *err);
/* New rows (copied); their ids, or -ENOMEM. st->defer must be set. */
int64_t store_defer_site(struct store *st, const struct store_site_info *si);
int64_t store_defer_dsym(struct store *st, const struct store_dsym_info *di);
int64_t store_defer_chain(struct store *st, const int64_t *sites, uint32_t n);
/* A row of kind written at once (outside a transaction) took id. */
void store_defer_note_id(struct store *st, enum store_defer_kind kind, int64_t id);
/* Writes them (in a commit, the sample thread idle). */
int store_defer_flush(struct store *st, struct c2c_error *err);
void store_defer_free(struct store *st);
/* One row each (store/writer/writer.c); id 0: the next rowid. */
int store_write_site(struct store *st, int64_t id, const struct store_site_info *si, struct c2c_error *err);
int store_write_dsym(struct store *st, int64_t id, const struct store_dsym_info *di, struct c2c_error *err);
int store_write_chain(struct store *st, int64_t id, const int64_t *sites, uint32_t n, struct c2c_error *err);

/* ---- the timeline log (store/agg/timeline_log.c) ------------------------ */

#define TL_LOG_COUNTERS 6        /* load, store, lcl/rmt/tot HITM, tot peer */
struct tl_log;
/* NULL when out of memory. */
struct tl_log *tl_log_new(void);
void tl_log_free(struct tl_log *l);
/* One sample on line key `line`; *line_idx is the line's slot for the
 * log's index (0 until the log gives it one). Untimed samples are only
 * counted. Out of budget or memory, the log gives up silently. */
void tl_log_add(struct tl_log *l, uint64_t time, uint64_t line, uint32_t *line_idx, uint64_t bits);
/* Writes v as a LEB128 varint at p (at most 10 bytes); its length. */
size_t store_put_varint(unsigned char *p, uint64_t v);
/* A sample's counts in tl_log_each's order. */
void tl_log_counts(uint64_t bits, unsigned *v);
/* Whether l holds every sample of a session of nr_samples. */
bool tl_log_usable(const struct tl_log *l, uint64_t nr_samples);
/* Calls fn for each timed sample in the order added, with its counts of
 * load, store, lcl_hitm, rmt_hitm, tot_hitm, tot_peer; stops at fn's
 * first non-zero return and returns it. */
int tl_log_each(const struct tl_log *l, int (*fn)(void *ctx, uint64_t time, uint64_t line, const unsigned *counts),
		void *ctx);

/* ---- a bounded block queue to one worker thread (store/writer/block_queue.c) */

struct block_queue;
struct bq_ops {
	/* The worker thread: processes a block and leaves it empty for reuse;
	 * failed: an earlier block failed. 0, or <0 with *err filled. */
	int (*process)(void *ctx, void *block, bool failed, struct c2c_error *err);
	void *(*alloc)(void);            /* a new empty block, NULL when out of memory */
	void (*free)(void *block);
	bool (*empty)(const void *block);
};
/* Starts the worker; 0 or a negative errno. */
int bq_start(struct block_queue **q, const struct bq_ops *ops, void *ctx);
/* The block the writer fills (a spare or a new one); NULL when out of memory. */
void *bq_current(struct block_queue *q);
/* Hands the current block to the worker, waiting while the queue is full;
 * returns the failure the worker has kept so far (0 none). */
int bq_submit(struct block_queue *q);
/* Hands over a partly filled block and waits until the worker is idle;
 * returns the kept failure (its message in *err when err), forgetting it
 * when clear. q may be NULL. */
int bq_drain(struct block_queue *q, bool clear, struct c2c_error *err);
/* Drains, stops and frees (q may be NULL). */
void bq_stop(struct block_queue *q);

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

/* ---- the samples table's thread for bulk loads (store/writer/sample_thread.c) */

struct sample_row;
struct sample_worker;
int sample_worker_start(struct sample_worker **w, struct store *st);
/* Queues one full batch (SAMPLE_BATCH rows; raw: their payloads, copied).
 * Waits while the queue is full. */
int sample_worker_queue(struct sample_worker *w, const struct sample_row *rows, const unsigned char *raw,
			size_t raw_len);
/* Waits until every queued batch is in the table; returns (and clears) the
 * first insert failure, with its message in err. w may be NULL. */
int sample_worker_sync(struct sample_worker *w, struct c2c_error *err);
void sample_worker_stop(struct sample_worker *w);
/* The writer's thread calls this before any other use of the connection
 * while a bulk load may have batches in flight. */
int store_sample_sync(struct store *st, struct c2c_error *err);
/* Inserts one full batch (store/writer/writer.c; the sample thread calls it). */
int store_insert_sample_batch(struct store *st, const struct sample_row *rows, const unsigned char *raw,
			      struct c2c_error *err);

/* ---- the handle ----------------------------------------------------- */

#define SAMPLE_BATCH 16
/* The variant of (addr's line, id) in the session's numbering
 * (store/agg/lineid.c); 0..63, or -ENOMEM. */
int store_line_variant(struct store *st, uint64_t addr, const struct c2c_line_ident *id);

#define SAMPLE_COLS 21               /* columns of samples an INSERT writes */
/* Their names, in the order of struct sample_row's values. */
extern const char *const store_sample_cols[SAMPLE_COLS];
/* Finalizes the batch statements (store_close, or before a schema change). */
void store_batch_stmts_free(struct store *st);
/* Writes the rows waiting in the batch (store_commit calls it). */
int store_flush_samples(struct store *st, struct c2c_error *err);

enum store_stmt {
	STMT_SAMPLE, STMT_LOCK, STMT_COMM, STMT_TASK, STMT_MMAP, STMT_SITE, STMT_DSYM, STMT_CHAIN,
	STMT_META_SET, STMT_META_GET, STMT_COUNTER, STMT_EVENT, STMT_CPU, STMT_SAMPLE_BATCH,
	STMT__MAX
};

struct store {
	struct c2c_lineid *lineid;   /* line identity variants (store/agg/lineid.c), lazily */
	sqlite3 *db;
	char *path;
	bool writable;
	bool in_txn;
	bool bulk;                   /* store_set_bulk_load on */
	uint32_t line_size;          /* cache line size of the session */
	sqlite3_stmt *stmt[STMT__MAX];

	/* writer: samples are inserted SAMPLE_BATCH rows per statement (a
	 * third less SQLite work per row); rows wait here until the batch is
	 * full or the transaction commits. */
	struct sample_row {
		int64_t v[SAMPLE_COLS];
		uint32_t present;        /* bit i: v[i] bound (else NULL) */
		uint32_t raw_len;
		size_t raw_off;          /* in raw_buf */
	} rows[SAMPLE_BATCH];
	unsigned nrows;
	/* Batch INSERTs that name only the columns a batch's rows all have
	 * (the usual case: every row of a recording has the same fields);
	 * absent ones are NULL without a bind each. store/writer/writer.c. */
	struct {
		uint32_t present;
		sqlite3_stmt *s;
	} batch_stmt[4];
	unsigned char *raw_buf;
	size_t raw_len, raw_cap;
	struct agg agg;              /* session aggregates, all in memory */
	struct sample_worker *samplew; /* bulk loads: inserts the sample batches */
	struct store_time_blocks {   /* store/writer/time_blocks.c */
		bool on;                 /* the session keeps sample_time_blocks */
		int64_t next_id;         /* writer: the id the next sample gets */
		struct store_time_block {
			int64_t block, first_id, last_id;
			uint64_t tmin, tmax;
			bool used;
		} cur, *done;            /* being filled; finished since the last commit */
		size_t ndone, done_cap;
	} tb;
	struct store_defer *defer;   /* bulk loads: new sites, dsyms, chains to
	                                write at the next commit (store/writer/defer.c) */
	struct agg_worker *aggw;     /* bulk loads: agg is updated by this
	                                thread; drained before agg is read */
	bool agg_loaded;
	uint64_t pending;
	uint64_t counters[STORE_CNT__MAX];
	bool counters_dirty;
	struct agg_table sites;      /* (pid, ip) -> id (ent->site) */
	struct agg_table dsyms;      /* (pid, start, name hash) -> id */
	struct agg_table chains;     /* (hash, n) -> id */
	uint64_t *dsym_start;        /* dsym id -> symbol start (ids are dense rowids) */
	size_t nr_dsym_start;
	int32_t *cpu_node;           /* cpu -> node from the cpus table */
	size_t nr_cpu_node;
	uint64_t generation;         /* bumped at every commit: invalidates query caches */

	/* query side: temp aggregates for filtered views */
	bool tmp_valid;
	uint64_t tmp_generation;
	struct store_filter tmp_filter;  /* symbol not kept (not part of the key) */
	struct c2c_stats q_shared;       /* shared-line totals for c2c_displayed() in SQL */
	bool sql_funcs;
};

/* Schema of the aggregates a query reads: "main" unless the filter needs a
 * recomputation, in which case the temp tables are (re)built first.
 * Returns "main"/"temp" or NULL with err set. */
const char *store_agg_schema(struct store *st, const struct store_filter *f, struct c2c_error *err);
/* True when the filter forces recomputation from samples. */
bool store_filter_needs_recompute(const struct store_filter *f);
/* Line size for a filter (doubled with double_cl). */
uint32_t store_line_size(const struct store *st, const struct store_filter *f);

/* " WHERE cpu = :cpu AND ..." for the sample filters of f ("" when none);
 * lock_table: the lock_waits table (node through the cpus table). */
int store_filter_sql(const struct store *st, const struct store_filter *f, char *buf, size_t size, bool lock_table);
/* Binds the named parameters store_filter_sql used. */
void store_filter_bind(sqlite3_stmt *s, const struct store_filter *f);

/* Registers the SQL functions the queries use (c2c rules). */
int store_register_functions(struct store *st, struct c2c_error *err);
/* Totals of the shared lines in schema (and how many). */
int store_shared_totals(struct store *st, const char *schema, struct c2c_stats *out, uint64_t *nlines,
			struct c2c_error *err);
/* Reads the columns LINE_ROW_COLS selects into a row. */
#define LINE_ROW_COLS_FMT "l.line, %s, %s, l.nr_cpus, l.nr_threads, l.nr_sites, l.nr_offsets, l.node_mask," \
	" l.dsym_start, l.lock_waits, l.lock_wait_ns, d.name, d.dso, %s"
void store_read_line_row(sqlite3_stmt *s, struct store_line_row *row);

/* Read the cpus table into st->cpu_node. */
int store_load_topology(struct store *st, struct c2c_error *err);
/* Opens the batch transaction if none is open (-EROFS when read-only). */
int store_begin_write(struct store *st, struct c2c_error *err);
/* Writes the in-memory counters into the counters table. */
int store_write_counters(struct store *st, struct c2c_error *err);

/* ---- timeline slices (store/agg/agg_timeline.c; more in agg_timeline.h) -- */

/* (Re)builds the per-time-slice aggregate (agg_time_slice, agg_time_line)
 * in its own transaction; store_finalize calls it after its commit. */
int store_timeline_build(struct store *st, struct c2c_error *err);

#endif /* C2C_STORE_INTERNAL_H */
