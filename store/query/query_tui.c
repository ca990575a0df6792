/* Queries the explorer needs beyond the report's tables: the call sites a
 * lock was waited on from (lock waits grouped by their caller site), for
 * the line view's lock section. */
#include "store/query/query_priv.h"
#include "store/filter/filter.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int store_query_lock_sites(struct store *st, uint64_t lock_addr, const struct store_filter *f,
			   struct store_lock_site_row **rows, size_t *n, struct c2c_error *err)
{
	/* The raw lock_waits table answers every filter key but node and
	 * symbol directly; it is small next to the samples. */
	static const char head[] =
		"SELECT w.site, COUNT(*), SUM(w.wait_ns), MAX(w.wait_ns), COUNT(DISTINCT w.tid),"
		" s.function, s.offset, s.dso, s.ip FROM lock_waits w LEFT JOIN sites s ON s.id = w.site"
		" WHERE w.lock_addr = ?1 AND (?2 < 0 OR w.cpu = ?2) AND (?3 < 0 OR w.pid = ?3)"
		" AND (?4 < 0 OR w.tid = ?4) AND w.time >= ?5 AND (?6 = 0 OR w.time < ?6)";
	struct store_filter none;
	char *sql;
	sqlite3_stmt *s;
	size_t cap = 0;
	int rc, r;

	*rows = NULL;
	*n = 0;
	if (!f) {
		store_filter_init(&none);
		f = &none;
	}
	if (!(sql = store_sql_with_sets(head, f, "w.", " GROUP BY w.site ORDER BY 3 DESC, 2 DESC, w.site")))
		return c2c_error_set(err, -ENOMEM, "out of memory");
	r = store_prepare(st, &s, sql, err);
	free(sql);
	if (r < 0)
		return r;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)lock_addr);
	sqlite3_bind_int64(s, 2, f->cpu);
	sqlite3_bind_int64(s, 3, f->pid);
	sqlite3_bind_int64(s, 4, f->tid);
	sqlite3_bind_int64(s, 5, (sqlite3_int64)f->time_from);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)f->time_to);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_lock_site_row *row;
		if (store_grow((void **)rows, &cap, *n + 1, sizeof(**rows)) < 0) {
			sqlite3_finalize(s);
			free(*rows);
			*rows = NULL;
			*n = 0;
			return c2c_error_set(err, -ENOMEM, "out of memory");
		}
		row = &(*rows)[(*n)++];
		memset(row, 0, sizeof(*row));
		row->site = sqlite3_column_int64(s, 0);
		row->waits = (uint64_t)sqlite3_column_int64(s, 1);
		row->wait_ns = (uint64_t)sqlite3_column_int64(s, 2);
		row->max_wait_ns = (uint64_t)sqlite3_column_int64(s, 3);
		row->nr_threads = (uint32_t)sqlite3_column_int64(s, 4);
		store_col_text(s, 5, row->function, sizeof(row->function));
		row->offset = (uint64_t)sqlite3_column_int64(s, 6);
		store_col_text(s, 7, row->dso, sizeof(row->dso));
		row->ip = (uint64_t)sqlite3_column_int64(s, 8);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		free(*rows);
		*rows = NULL;
		*n = 0;
		return store_sqlerr(st, err, "reading a lock's call sites");
	}
	return 0;
}

const char *store_lock_kind(uint32_t flags)
{
	/* lock:contention_begin's flags (LCB_F_*), named as perf lock does;
	 * a mutex that spins first says MUTEX|SPIN. */
	bool rw = flags & (STORE_LOCK_READ | STORE_LOCK_WRITE);

	if (flags & STORE_LOCK_MUTEX)
		return "mutex";
	if (flags & STORE_LOCK_PERCPU)
		return "percpu-rwsem";
	if (flags & STORE_LOCK_RT)
		return rw ? "rwlock-rt" : "rt-mutex";
	if (flags & STORE_LOCK_SPIN)
		return rw ? "rwlock" : "spinlock";
	if (rw)
		return "rwsem";
	return "semaphore";
}
