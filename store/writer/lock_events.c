/* Writing lock_contention rows (store/writer/lock_contention.c decides when):
 * one event at once, or the block a bulk load kept, in order. Calls nothing
 * of the transaction (store/writer/txn.c), which calls the flush at commit. */
#include "store/store.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "store/base/base.h"
#include "store/writer/writer_priv.h"

const char store_lock_contention_schema[] =
	"CREATE TABLE IF NOT EXISTS lock_contention (id INTEGER PRIMARY KEY, mode INTEGER, kind INTEGER,"
	" time INTEGER, pid INTEGER, tid INTEGER, lock_addr INTEGER, flags INTEGER, wait_ns INTEGER,"
	" key INTEGER, caller TEXT);";

/* Inserts one event (the writer's transaction is open, the sample thread idle). */
int store_lock_event_write(struct store *st, const struct store_lock_event *e, struct c2c_error *err)
{
	struct store_writer *w = st->writer;
	int r;

	if (!w->lock_event) {
		if ((r = store_exec(st, store_lock_contention_schema, err)) < 0 ||
		    (r = store_prepare(st, &w->lock_event, "INSERT INTO lock_contention (mode, kind, time, pid,"
				       " tid, lock_addr, flags, wait_ns, key, caller) VALUES (?,?,?,?,?,?,?,?,?,?)",
				       err)) < 0)
			return r;
	}
	sqlite3_stmt *s = w->lock_event;
	sqlite3_bind_int(s, 1, e->mode);
	sqlite3_bind_int(s, 2, e->kind);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)e->time);
	sqlite3_bind_int64(s, 4, e->pid);
	sqlite3_bind_int64(s, 5, e->tid);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)e->lock_addr);
	sqlite3_bind_int64(s, 7, e->flags);
	if (e->kind == STORE_LOCK_EV_ACQUIRED)
		sqlite3_bind_int64(s, 8, (sqlite3_int64)e->wait_ns);
	else
		sqlite3_bind_null(s, 8);
	sqlite3_bind_int64(s, 9, (sqlite3_int64)e->key);
	if (e->caller)
		sqlite3_bind_text(s, 10, e->caller, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, 10);
	return store_step_done(st, s, true, err, "writing a lock contention event");
}

int store_lock_events_flush(struct store *st, struct c2c_error *err)
{
	struct store_writer *w = st->writer;
	int r = 0;

	for (size_t i = 0; i < w->nlev && r == 0; i++)
		r = store_lock_event_write(st, &w->lev[i], err);
	store_lock_events_free(w);
	return r;
}

void store_lock_events_free(struct store_writer *w)
{
	for (size_t i = 0; i < w->nlev; i++)
		free((void *)w->lev[i].caller);
	w->nlev = 0;
}
