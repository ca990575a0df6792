/* Writing lock_waits rows (store/writer/writer.c decides when): one at
 * once, or the ones a bulk load kept for the next commit, in order (ids
 * stay in arrival order). Writing one at once means waiting for the sample
 * thread to drain its queue (the connection is not shared): once for every
 * wait of a lock recording, which stalled its import. Calls nothing of
 * the transaction (store/writer/txn.c), which calls the flush at commit. */
#include "store/store.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>

#include "store/base/base.h"
#include "store/writer/writer_priv.h"

int store_lock_wait_write(struct store *st, const struct store_lock_wait_row *w, struct c2c_error *err)
{
	sqlite3_stmt *s = st->writer->stmt[STMT_LOCK];

	sqlite3_bind_int64(s, 1, (sqlite3_int64)w->time);
	sqlite3_bind_int64(s, 2, w->pid);
	sqlite3_bind_int64(s, 3, w->tid);
	sqlite3_bind_int64(s, 4, w->cpu);
	sqlite3_bind_int64(s, 5, (sqlite3_int64)w->lock_addr);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)w->line);
	sqlite3_bind_int64(s, 7, w->flags);
	sqlite3_bind_int64(s, 8, (sqlite3_int64)w->wait_ns);
	sqlite3_bind_int64(s, 9, w->site);
	sqlite3_bind_int64(s, 10, w->dsym);
	sqlite3_bind_int64(s, 11, w->chain);
	return store_step_done(st, s, false, err, "writing a lock wait");
}

int store_lock_waits_flush(struct store *st, struct c2c_error *err)
{
	struct store_writer *w = st->writer;
	int r = 0;

	for (size_t i = 0; i < w->nlw && r == 0; i++)
		r = store_lock_wait_write(st, &w->lw[i], err);
	/* on failure the transaction rolls back with them */
	w->nlw = 0;
	return r;
}

int store_lock_wait_keep(struct store *st, const struct store_lock_wait_row *row)
{
	struct store_writer *w = st->writer;

	if (store_grow((void **)&w->lw, &w->caplw, w->nlw + 1, sizeof(*w->lw)) < 0)
		return -ENOMEM;
	w->lw[w->nlw++] = *row;
	return 0;
}
