/* The lock_contention table: perf lock contention's two moments of every
 * wait (a counted begin, an acquired end), for the by-task and the by-caller
 * pairings (collector/tracepoint/lockwait.h), so that `c2ctui locks` can
 * give perf's tables from a session. The table is created on first use:
 * sessions without lock tracepoints, and older ones, have none. */
#include "store/store.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "store/base/base.h"
#include "store/writer/writer_priv.h"

enum { LOCK_EVENT_BLOCK = 16384 };

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS lock_contention (id INTEGER PRIMARY KEY, mode INTEGER, kind INTEGER,"
	" time INTEGER, pid INTEGER, tid INTEGER, lock_addr INTEGER, flags INTEGER, wait_ns INTEGER,"
	" key INTEGER, caller TEXT);";

/* Inserts one event (the writer's transaction is open, the sample thread idle). */
static int write_event(struct store *st, const struct store_lock_event *e, struct c2c_error *err)
{
	struct store_writer *w = st->writer;
	int r;

	if (!w->lock_event) {
		if ((r = store_exec(st, schema, err)) < 0 ||
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

int store_add_lock_event(struct store *st, const struct store_lock_event *e, struct c2c_error *err)
{
	struct store_writer *w = st->writer;
	int r;

	if (!st->writable)
		return c2c_error_set(err, -EROFS, "%s: opened read-only", st->path);
	/* A bulk load keeps them for the commit: writing one now would wait
	 * for the sample thread to drain its queue, for every lock sample. */
	if (w->bulk) {
		if (store_grow((void **)&w->lev, &w->caplev, w->nlev + 1, sizeof(*w->lev)) < 0)
			return c2c_error_set(err, -ENOMEM, "out of memory");
		struct store_lock_event *k = &w->lev[w->nlev];
		*k = *e;
		if (e->caller && !(k->caller = strdup(e->caller)))
			return c2c_error_set(err, -ENOMEM, "out of memory");
		w->nlev++;
		w->pending++;
		/* Bounded: a block at a time (one wait for the sample thread per
		 * block, not per event; memory stays small). */
		if (w->nlev >= LOCK_EVENT_BLOCK && ((r = store_begin_write(st, err)) < 0 ||
						    (r = store_lock_events_flush(st, err)) < 0))
			return r;
		return 0;
	}
	if ((r = store_begin_write(st, err)) < 0)
		return r;
	return write_event(st, e, err);
}

int store_lock_events_flush(struct store *st, struct c2c_error *err)
{
	struct store_writer *w = st->writer;
	int r = 0;

	for (size_t i = 0; i < w->nlev && r == 0; i++)
		r = write_event(st, &w->lev[i], err);
	store_lock_events_free(w);
	return r;
}

void store_lock_events_free(struct store_writer *w)
{
	for (size_t i = 0; i < w->nlev; i++)
		free((void *)w->lev[i].caller);
	w->nlev = 0;
}
