/* Small helpers shared by the store files: SQLite error reporting,
 * statement preparation, text columns, array growth, big zeroed blocks. */
#include "store/base/base.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define HUGE_PAGE ((size_t)2 << 20)

/* The progress handler (session_check.c) stopped a statement: SQLite
 * only says "interrupted". A stop asked for (cancel.c) says so; otherwise
 * it was the work budget. */
static int stopped(struct store *st, struct c2c_error *err)
{
	if (store_cancelled(st))
		return c2c_error_set(err, -ECANCELED, "interrupted");
	return c2c_error_set(err, -E2BIG, "%s: a query was stopped after too much work for a session this size;"
			     " the file may be crafted or damaged", st && st->path ? st->path : "session");
}

int store_sqlerr(struct store *st, struct c2c_error *err, const char *what)
{
	int rc = st && st->db ? sqlite3_errcode(st->db) : SQLITE_ERROR;

	if (rc == SQLITE_INTERRUPT)
		return stopped(st, err);
	int code = rc == SQLITE_NOMEM ? -ENOMEM : rc == SQLITE_FULL ? -ENOSPC :
		   rc == SQLITE_READONLY ? -EROFS : rc == SQLITE_BUSY ? -EBUSY : -EIO;

	return c2c_error_set(err, code, "%s: %s: %s", st && st->path ? st->path : "session", what,
			     st && st->db ? sqlite3_errmsg(st->db) : "no database");
}

int store_exec(struct store *st, const char *sql, struct c2c_error *err)
{
	char *msg = NULL;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		if (sqlite3_errcode(st->db) == SQLITE_INTERRUPT) {
			sqlite3_free(msg);
			return stopped(st, err);
		}
		int code = sqlite3_errcode(st->db) == SQLITE_FULL ? -ENOSPC : -EIO;
		c2c_error_set(err, code, "%s: %s", st->path, msg ? msg : "SQL error");
		sqlite3_free(msg);
		return code;
	}
	return 0;
}

int store_exec_wait(struct store *st, const char *sql, int wait_ms, struct c2c_error *err)
{
	const struct timespec pause = { 0, 5 * 1000 * 1000 };

	for (int waited = 0; waited < wait_ms; waited += 5) {
		if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) == SQLITE_OK)
			return 0;
		if ((sqlite3_errcode(st->db) & 0xff) != SQLITE_BUSY)
			break;
		nanosleep(&pause, NULL);
	}
	return store_exec(st, sql, err);  /* the last try says what went wrong */
}

int store_prepare(struct store *st, sqlite3_stmt **stmt, const char *sql, struct c2c_error *err)
{
	if (sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, stmt, NULL) != SQLITE_OK) {
		*stmt = NULL;
		return store_sqlerr(st, err, "preparing a query");
	}
	return 0;
}

void store_copy(char *buf, size_t size, const char *src)
{
	if (!size)
		return;
	if (!src)
		src = "";
	size_t n = strlen(src);
	if (n >= size)
		n = size - 1;
	memcpy(buf, src, n);
	buf[n] = 0;
}

void store_col_text(sqlite3_stmt *s, int col, char *buf, size_t size)
{
	store_copy(buf, size, (const char *)sqlite3_column_text(s, col));
}

int store_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need)
		ncap *= 2;
	void *p = realloc(*arr, ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

void *store_zalloc_big(size_t size)
{
	void *p;

	if (size < HUGE_PAGE / 2)
		return calloc(1, size);
	/* Whole 2 MiB pages the kernel may back with huge pages: on a VM a
	 * page fault costs microseconds, and the aggregates of a big import
	 * touch hundreds of MiB once each. */
	size = (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	if (posix_memalign(&p, HUGE_PAGE, size) != 0)
		return NULL;
	madvise(p, size, MADV_HUGEPAGE);  /* advice only: fine when refused */
	memset(p, 0, size);
	return p;
}

int store_step_done(struct store *st, sqlite3_stmt *s, bool clear, struct c2c_error *err, const char *what)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	if (clear)
		sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE ? 0 : store_sqlerr(st, err, what);
}

void store_bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}
