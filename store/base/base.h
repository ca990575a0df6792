/* What every store/ sub-module may use of store/base: the session handle
 * (the connection, its path and mode, the session's shape) with pointers to
 * the parts that own the rest (store/writer, store/agg, store/query), and
 * the small SQL helpers and stats <-> column mappings. The hash tables are
 * in store/base/hash.h, the worker queue in store/base/block_queue.h.
 * Nothing outside store/ includes this. */
#ifndef C2C_STORE_BASE_H
#define C2C_STORE_BASE_H

#include <sqlite3.h>
#include <stdatomic.h>

#include "store/store.h"

struct store_writer;        /* store/writer/writer.h */
struct store_aggs;          /* store/agg/agg.h */
struct store_query_state;   /* store/query/query.h */

struct store {
	sqlite3 *db;
	char *path;
	char *scratch;               /* the private copy a hot journal was rolled back in (removed at close) */
	bool writable;
	bool recovered;              /* read through a private copy whose hot journal was rolled back */
	uint32_t line_size;          /* cache line size of the session */
	uint32_t verdict_min_evidence; /* typeinfo_set_min_evidence(), when verdict_min_set */
	bool verdict_min_set;
	bool sample_blocks;          /* samples are column blocks (schema 2), not rows */
	bool sample_parts;           /* blocks hold one CPU's samples each (schema 3):
	                                ids follow time only within a block */
	bool block_tasks;            /* sample_block_index has pids and tids (bits
	                                pid % 64, tid % 64; sessions made since 2026-12-07) */
	bool time_blocks;            /* the session keeps sample_time_blocks
	                                (store/writer/time_blocks.c turns it off) */
	uint64_t generation;         /* bumped at every commit: invalidates query caches */
	atomic_int interrupted;      /* store_interrupt: every statement stops (cancel.c) */
	uint64_t counters[STORE_CNT__MAX];
	int32_t *cpu_node;           /* cpu -> node from the cpus table */
	size_t nr_cpu_node;
	sqlite3_stmt *meta_get;      /* store_get_meta */

	/* The parts, each owning its state (always allocated by store_alloc):
	 * the writer's batch and intern maps, the session aggregates and their
	 * thread, the query side's caches. */
	struct store_writer *writer;
	struct store_aggs *aggs;
	struct store_query_state *query;
};

/* Records node for cpu in the topology cache (st->cpu_node); -ENOMEM. */
int store_set_cpu_node(struct store *st, uint32_t cpu, int32_t node);

/* ---- stopping queries (store/base/cancel.c) ----------------------------- */

/* From a connection's progress handler: nonzero when its statement must
 * stop (own: the handle's store_interrupt flag, NULL for a connection
 * without a struct store; or the thread's poll said so). */
int store_cancel_check(atomic_int *own);
/* A statement starts on this thread: the thread's poll has not stopped it. */
void store_cancel_statement_start(void);
/* Whether st's last SQLITE_INTERRUPT was a stop asked for (store_interrupt
 * or the thread's poll) rather than the work budget. */
bool store_cancelled(struct store *st);

/* ---- small helpers (store/base/util.c) ---------------------------------- */

/* Sets err from the database's last error: "PATH: WHAT: sqlite message". */
int store_sqlerr(struct store *st, struct c2c_error *err, const char *what);
/* Runs SQL with no result rows. */
int store_exec(struct store *st, const char *sql, struct c2c_error *err);
/* store_exec for statements SQLite runs without its busy handler (a
 * journal-mode change needs the file to itself and gives up at once when
 * a reader is looking): retried for up to wait_ms while it says busy. */
int store_exec_wait(struct store *st, const char *sql, int wait_ms, struct c2c_error *err);
/* Prepares SQL (persistent for cached statements). */
int store_prepare(struct store *st, sqlite3_stmt **stmt, const char *sql, struct c2c_error *err);
/* Steps a statement that returns no rows and resets it (and clears its
 * bindings when clear): 0, or err set from the database naming what. */
int store_step_done(struct store *st, sqlite3_stmt *s, bool clear, struct c2c_error *err, const char *what);
/* Binds text, or NULL for a NULL pointer. */
void store_bind_text(sqlite3_stmt *s, int i, const char *v);
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

#endif /* C2C_STORE_BASE_H */
