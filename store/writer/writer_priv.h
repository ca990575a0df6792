/* Private to store/writer: the writer's state (struct store_writer) and
 * how its files call each other: rows.c writes rows, sample_thread.c and
 * defer.c queue them for later, txn.c opens and commits the batch
 * transaction, writer.c and meta_write.c are the entry points. */
#ifndef C2C_STORE_WRITER_PRIV_H
#define C2C_STORE_WRITER_PRIV_H

#include "store/writer/writer.h"
#include "store/base/hash.h"

#include "store/base/sample_codec.h"

#define SAMPLE_BATCH 16
#define SAMPLE_COLS STORE_SAMPLE_COLS /* columns of samples an INSERT writes */

/* Samples are handed on SAMPLE_BATCH rows at a time (a row session:
 * inserted by one statement, a third less SQLite work per row); rows
 * wait in the writer until the batch is full or the transaction commits.
 * raw_off: in the writer's raw_buf. */

/* A block session's samples being gathered into blocks
 * (store/writer/sample_blocks.c): one block a partition (a CPU, see
 * sample_blocks.c), each with its own reserved range of ids. */
struct store_block_part {
	int64_t first_id;            /* of rows[0]; the block owns first_id .. + BLOCK_ROWS - 1 */
	uint64_t cpus, nodes;        /* bit cpu % 64 (node % 64) of every row with one */
	uint64_t pids, tids;         /* bit pid % 64 (tid % 64) alike */
	bool tasks_all;              /* a row without a pid or tid: both masks mean "any" */
	bool sorted;                 /* times never go back; all rows timed, or none */
	struct store_sample_rec *rows;
	size_t n, cap;
	unsigned char *raw;
	size_t raw_len, raw_cap;
};

#define STORE_BLOCK_PARTS 66         /* untimed, timed without a CPU, 64 CPU classes */

struct store_block_acc {
	bool started;                /* next_id read from the file */
	int64_t next_id;             /* the first id of the next block */
	struct store_block_part *part[STORE_BLOCK_PARTS];
	sqlite3_stmt *insert, *insert_index;
};

enum store_stmt {
	STMT_SAMPLE, STMT_LOCK, STMT_COMM, STMT_TASK, STMT_MMAP, STMT_SITE, STMT_DSYM, STMT_CHAIN,
	STMT_META_SET, STMT_COUNTER, STMT_EVENT, STMT_CPU, STMT_SAMPLE_BATCH,
	STMT__MAX
};

struct store_time_blocks {
	int64_t next_id;             /* the id the next sample gets */
	struct store_time_block {
		int64_t block, first_id, last_id;
		uint64_t tmin, tmax;
		bool used;
	} cur, *done;                /* being filled; finished since the last commit */
	size_t ndone, done_cap;
};

struct store_writer {
	bool in_txn;
	bool bulk;                   /* store_set_bulk_load on */
	bool loaded;                 /* the intern maps and the session
	                                aggregates hold what the file holds */
	sqlite3_stmt *stmt[STMT__MAX];
	struct store_sample_rec rows[SAMPLE_BATCH];
	unsigned nrows;
	/* Batch INSERTs that name only the columns a batch's rows all have
	 * (the usual case: every row of a recording has the same fields);
	 * absent ones are NULL without a bind each. store/writer/rows.c. */
	struct {
		uint32_t present;
		sqlite3_stmt *s;
	} batch_stmt[4];
	unsigned char *raw_buf;
	size_t raw_len, raw_cap;
	struct sample_worker *samplew; /* bulk loads: inserts the sample batches */
	struct store_time_blocks tb;
	struct store_block_acc blocks; /* block sessions (st->sample_blocks) */
	struct store_defer *defer;   /* bulk loads: new sites, dsyms, chains to
	                                write at the next commit (store/writer/defer.c) */
	uint64_t pending;
	bool counters_dirty;
	struct agg_table sites;      /* (pid, ip) -> id (ent->site) */
	struct agg_table dsyms;      /* (pid, start, name hash) -> id */
	struct agg_table chains;     /* (hash, n) -> id */
	uint64_t *dsym_start;        /* dsym id -> symbol start (ids are dense rowids) */
	size_t nr_dsym_start;
	sqlite3_stmt *lock_event;    /* lock_contention INSERT (store/writer/lock_events.c) */
	sqlite3_stmt *lock_events;   /* ... of LOCK_EVENT_BATCH rows */
	struct store_lock_event *lev; /* bulk loads: lock events written at the next commit */
	size_t nlev, caplev;
	struct store_lock_wait_row *lw; /* bulk loads: lock waits written at the next commit */
	size_t nlw, caplw;
};

/* One lock_waits row (store/writer/lock_waits.c). */
struct store_lock_wait_row {
	uint64_t time, lock_addr, line, wait_ns;
	int32_t pid, tid;
	uint32_t cpu, flags;
	int64_t site, dsym, chain;
};
/* Writes one, the transaction open and the sample thread idle. */
int store_lock_wait_write(struct store *st, const struct store_lock_wait_row *row, struct c2c_error *err);
/* A bulk load keeps it for the commit; -ENOMEM. */
int store_lock_wait_keep(struct store *st, const struct store_lock_wait_row *row);
/* Writes the lock waits kept, in order, and forgets them. */
int store_lock_waits_flush(struct store *st, struct c2c_error *err);

/* One lock_contention row, the transaction open (store/writer/lock_events.c). */
int store_lock_event_write(struct store *st, const struct store_lock_event *e, struct c2c_error *err);
/* Writes the lock events a bulk load kept for the commit, in order
 * (store/writer/lock_events.c); frees them. */
int store_lock_events_flush(struct store *st, struct c2c_error *err);
void store_lock_events_free(struct store_writer *w);

/* ---- the batch transaction (store/writer/txn.c) ------------------------- */

/* Opens the batch transaction if none is open (-EROFS when read-only). */
int store_begin_write(struct store *st, struct c2c_error *err);
/* Writes the in-memory counters into the counters table. */
int store_write_counters(struct store *st, struct c2c_error *err);
/* Writes the rows waiting in the batch (store_commit calls it). */
int store_flush_samples(struct store *st, struct c2c_error *err);

/* ---- rows (store/writer/rows.c) ----------------------------------------- */

/* Their names, in the order of struct store_sample_rec's values. */
extern const char *const store_sample_cols[SAMPLE_COLS];
/* Binds row's SAMPLE_COLS values (absent ones NULL) from parameter first. */
void store_bind_sample_row(sqlite3_stmt *s, int first, const unsigned char *raw, const struct store_sample_rec *row);
/* Finalizes the batch statements (store_close, or before a schema change). */
void store_batch_stmts_free(struct store *st);

/* ---- time ranges of sample blocks (store/writer/time_blocks.c) ----------- */

/* A writer appending: the next sample id. */
int store_time_blocks_start(struct store *st, struct c2c_error *err);
/* The next sample (in insertion order) has this time; -ENOMEM. */
int store_time_blocks_add(struct store *st, uint64_t time);
/* At a commit, after every sample row is in the table. */
int store_time_blocks_flush(struct store *st, struct c2c_error *err);
void store_time_blocks_free(struct store_time_blocks *tb);

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

/* One row each (store/writer/rows.c); id 0: the next rowid. */
int store_write_site(struct store *st, int64_t id, const struct store_site_info *si, struct c2c_error *err);
int store_write_dsym(struct store *st, int64_t id, const struct store_dsym_info *di, struct c2c_error *err);
int store_write_chain(struct store *st, int64_t id, const int64_t *sites, uint32_t n, struct c2c_error *err);

/* ---- a block session's samples (store/writer/sample_blocks.c) ------------ */

/* Appends n rows (payloads at raw + rows[i].raw_off, copied); full blocks
 * are written. */
int store_blocks_append(struct store *st, const struct store_sample_rec *rows, size_t n, const unsigned char *raw,
			struct c2c_error *err);
/* At a commit: writes the block being filled (kept for the next one). */
int store_blocks_flush(struct store *st, struct c2c_error *err);
/* The id the next sample gets (reads the file the first time); < 0: error. */
int64_t store_blocks_next_id(struct store *st, struct c2c_error *err);
void store_blocks_free(struct store_block_acc *b);

/* ---- the samples table's thread for bulk loads (store/writer/sample_thread.c) */

struct sample_worker;
int sample_worker_start(struct sample_worker **w, struct store *st);
/* Queues one full batch (SAMPLE_BATCH rows; raw: their payloads, copied).
 * Waits while the queue is full. */
int sample_worker_queue(struct sample_worker *w, const struct store_sample_rec *rows, const unsigned char *raw,
			size_t raw_len);
/* Waits until every queued batch is in the table; returns (and clears) the
 * first insert failure, with its message in err. w may be NULL. */
int sample_worker_sync(struct sample_worker *w, struct c2c_error *err);
void sample_worker_stop(struct sample_worker *w);
/* The writer's thread calls this before any other use of the connection
 * while a bulk load may have batches in flight. */
int store_sample_sync(struct store *st, struct c2c_error *err);
/* Inserts one full batch (store/writer/rows.c; the sample thread calls it). */
int store_insert_sample_batch(struct store *st, const struct store_sample_rec *rows, const unsigned char *raw,
			      struct c2c_error *err);

#endif /* C2C_STORE_WRITER_PRIV_H */
