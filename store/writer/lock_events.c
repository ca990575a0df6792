/* Writing lock_contention rows (store/writer/lock_contention.c decides when):
 * one event at once, or the block a bulk load kept, in order. Calls nothing
 * of the transaction (store/writer/txn.c), which calls the flush at commit. */
#include "store/store.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/base/base.h"
#include "store/writer/writer_priv.h"

const char store_lock_contention_schema[] =
	"CREATE TABLE IF NOT EXISTS lock_contention (id INTEGER PRIMARY KEY, mode INTEGER, kind INTEGER,"
	" time INTEGER, pid INTEGER, tid INTEGER, lock_addr INTEGER, flags INTEGER, wait_ns INTEGER,"
	" key INTEGER, caller TEXT);";

#define LOCK_EVENT_COLS 10
/* Rows a statement of the kept events inserts: the statement's per-row
 * overhead (step, reset, bind checks) was half an event's cost. */
#define LOCK_EVENT_BATCH 32

static int prepare(struct store *st, sqlite3_stmt **s, unsigned rows, struct c2c_error *err)
{
	char sql[160 + LOCK_EVENT_BATCH * 24];
	size_t n;
	int r;

	if ((r = store_exec(st, store_lock_contention_schema, err)) < 0)
		return r;
	n = (size_t)snprintf(sql, sizeof(sql), "INSERT INTO lock_contention (mode, kind, time, pid, tid, lock_addr,"
			     " flags, wait_ns, key, caller) VALUES ");
	for (unsigned i = 0; i < rows && n < sizeof(sql); i++)
		n += (size_t)snprintf(sql + n, sizeof(sql) - n, "%s(?,?,?,?,?,?,?,?,?,?)", i ? "," : "");
	return store_prepare(st, s, sql, err);
}

/* Binds e from parameter first on. */
static void bind_event(sqlite3_stmt *s, int first, const struct store_lock_event *e)
{
	sqlite3_bind_int(s, first, e->mode);
	sqlite3_bind_int(s, first + 1, e->kind);
	sqlite3_bind_int64(s, first + 2, (sqlite3_int64)e->time);
	sqlite3_bind_int64(s, first + 3, e->pid);
	sqlite3_bind_int64(s, first + 4, e->tid);
	sqlite3_bind_int64(s, first + 5, (sqlite3_int64)e->lock_addr);
	sqlite3_bind_int64(s, first + 6, e->flags);
	if (e->kind == STORE_LOCK_EV_ACQUIRED)
		sqlite3_bind_int64(s, first + 7, (sqlite3_int64)e->wait_ns);
	else
		sqlite3_bind_null(s, first + 7);
	sqlite3_bind_int64(s, first + 8, (sqlite3_int64)e->key);
	if (e->caller)
		sqlite3_bind_text(s, first + 9, e->caller, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, first + 9);
}

/* Inserts one event (the writer's transaction is open, the sample thread idle). */
int store_lock_event_write(struct store *st, const struct store_lock_event *e, struct c2c_error *err)
{
	struct store_writer *w = st->writer;
	int r;

	if (!w->lock_event && (r = prepare(st, &w->lock_event, 1, err)) < 0)
		return r;
	bind_event(w->lock_event, 1, e);
	return store_step_done(st, w->lock_event, true, err, "writing a lock contention event");
}

int store_lock_events_flush(struct store *st, struct c2c_error *err)
{
	struct store_writer *w = st->writer;
	size_t i = 0;
	int r = 0;

	if (w->nlev >= LOCK_EVENT_BATCH && !w->lock_events && (r = prepare(st, &w->lock_events, LOCK_EVENT_BATCH, err)) < 0) {
		store_lock_events_free(w);
		return r;
	}
	for (; i + LOCK_EVENT_BATCH <= w->nlev && r == 0; i += LOCK_EVENT_BATCH) {
		for (unsigned k = 0; k < LOCK_EVENT_BATCH; k++)
			bind_event(w->lock_events, 1 + (int)k * LOCK_EVENT_COLS, &w->lev[i + k]);
		r = store_step_done(st, w->lock_events, false, err, "writing lock contention events");
	}
	for (; i < w->nlev && r == 0; i++)
		r = store_lock_event_write(st, &w->lev[i], err);
	/* the callers are freed below: no statement may keep them bound */
	if (w->lock_events)
		sqlite3_clear_bindings(w->lock_events);
	store_lock_events_free(w);
	return r;
}

void store_lock_events_free(struct store_writer *w)
{
	for (size_t i = 0; i < w->nlev; i++)
		free((void *)w->lev[i].caller);
	w->nlev = 0;
}
