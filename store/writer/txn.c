/* The writer's batch transaction: opened by the first write after a
 * commit (after the bulk load's sample thread is idle), committed with
 * every waiting row, deferred row, time block, changed aggregate and the
 * counters, so the file is complete at every commit. */
#include "store/writer/writer_priv.h"
#include "store/agg/agg.h"
#include "store/base/meta_names.h"

#include <errno.h>
#include <string.h>

/* A sample row's statement: every parameter is bound for each row. */
static int step_row(struct store *st, sqlite3_stmt *s, struct c2c_error *err)
{
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : store_sqlerr(st, err, "writing a sample");
}

/* Opens the batch transaction on the first write after a commit. */
int store_begin_write(struct store *st, struct c2c_error *err)
{
	if (!st->writable)
		return c2c_error_set(err, -EROFS, "%s: opened read-only", st->path);
	/* a bulk load's sample thread must be idle before this thread uses
	 * the connection (store/writer/sample_thread.c) */
	int rs = store_sample_sync(st, err);
	if (rs < 0)
		return rs;
	if (!st->writer->in_txn) {
		int r = store_exec(st, "BEGIN;", err);
		if (r < 0)
			return r;
		st->writer->in_txn = true;
	}
	return 0;
}

int store_write_counters(struct store *st, struct c2c_error *err)
{
	sqlite3_stmt *s = st->writer->stmt[STMT_COUNTER];
	for (int c = 0; c < STORE_CNT__MAX; c++) {
		sqlite3_bind_text(s, 1, store_counter_names[c], -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)st->counters[c]);
		int r = store_step_done(st, s, true, err, "writing counters");
		if (r < 0)
			return r;
	}
	st->writer->counters_dirty = false;
	return 0;
}

int store_flush_samples(struct store *st, struct c2c_error *err)
{
	struct store_writer *w = st->writer;
	int r = 0;

	if (w->nrows == SAMPLE_BATCH && w->samplew) {
		if (sample_worker_queue(w->samplew, w->rows, w->raw_buf, w->raw_len) < 0)
			r = c2c_error_set(err, -ENOMEM, "out of memory");
	} else if (w->nrows == SAMPLE_BATCH) {
		r = store_insert_sample_batch(st, w->rows, w->raw_buf, err);
	} else if (w->nrows && st->sample_blocks) {
		if ((r = store_sample_sync(st, err)) == 0)
			r = store_blocks_append(st, w->rows, w->nrows, w->raw_buf, err);
	} else if (w->nrows && (r = store_sample_sync(st, err)) == 0) {
		sqlite3_stmt *s = w->stmt[STMT_SAMPLE];
		for (unsigned i = 0; i < w->nrows && r == 0; i++) {
			store_bind_sample_row(s, 1, w->raw_buf, &w->rows[i]);
			r = step_row(st, s, err);
		}
	}
	/* On failure the rows are dropped with the transaction's other
	 * uncommitted writes (the caller's commit fails). */
	w->nrows = 0;
	w->raw_len = 0;
	return r;
}

int store_commit(struct store *st, struct c2c_error *err)
{
	int r;

	if (!st->writable)
		return c2c_error_set(err, -EROFS, "%s: opened read-only", st->path);
	if (!st->writer->in_txn && !st->writer->nlev)
		return 0;
	if (!st->writer->in_txn && (r = store_begin_write(st, err)) < 0)
		return r;
	if ((r = store_sample_sync(st, err)) < 0)
		return r;
	if (agg_worker_drain(st->aggs->worker) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory while aggregating samples");
	if ((r = store_defer_flush(st, err)) < 0 || (r = store_flush_samples(st, err)) < 0 ||
	    (st->sample_blocks && (r = store_blocks_flush(st, err)) < 0) ||
	    (r = store_lock_events_flush(st, err)) < 0 || (r = store_lock_waits_flush(st, err)) < 0 ||
	    (r = store_time_blocks_flush(st, err)) < 0 || (r = agg_flush(&st->aggs->agg, st, "main", err)) < 0 ||
	    (r = store_write_counters(st, err)) < 0)
		return r;
	if ((r = store_exec(st, "COMMIT;", err)) < 0)
		return r;
	st->writer->in_txn = false;
	st->writer->pending = 0;
	st->generation++;
	return 0;
}
