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
	return store_lock_event_write(st, e, err);
}

