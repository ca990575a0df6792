/* The user's own SQL over a session (`c2ctui sql`): read-only statements
 * only, rows handed out as text. The connection may be writable (a live
 * session's reader); a statement that would write is refused before it
 * runs, so reading never changes the file. */
#include "store/query/query_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A blob as SQLite writes a blob literal: X'0aff..'. */
static char *blob_text(const void *p, int n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *b = p;
	char *s = malloc((size_t)n * 2 + 4);

	if (!s)
		return NULL;
	s[0] = 'X';
	s[1] = '\'';
	for (int i = 0; i < n; i++) {
		s[2 + 2 * i] = hex[b[i] >> 4];
		s[3 + 2 * i] = hex[b[i] & 15];
	}
	s[2 + 2 * n] = '\'';
	s[3 + 2 * n] = 0;
	return s;
}

static int run_one(struct store *st, sqlite3_stmt *s, store_sql_row_fn fn, void *ctx, struct c2c_error *err)
{
	int ncols = sqlite3_column_count(s), r = 0, rc;
	const char **names = calloc((size_t)ncols + 1, sizeof(*names));
	const char **vals = calloc((size_t)ncols + 1, sizeof(*vals));
	char **blobs = calloc((size_t)ncols + 1, sizeof(*blobs));

	if (!names || !vals || !blobs) {
		r = c2c_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (int i = 0; i < ncols; i++)
		names[i] = sqlite3_column_name(s, i);
	if ((r = fn(ctx, ncols, names, NULL)) < 0)
		goto out;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		for (int i = 0; i < ncols; i++) {
			free(blobs[i]);
			blobs[i] = NULL;
			switch (sqlite3_column_type(s, i)) {
			case SQLITE_NULL:
				vals[i] = NULL;
				break;
			case SQLITE_BLOB:
				blobs[i] = blob_text(sqlite3_column_blob(s, i), sqlite3_column_bytes(s, i));
				if (!blobs[i]) {
					r = c2c_error_set(err, -ENOMEM, "out of memory");
					goto out;
				}
				vals[i] = blobs[i];
				break;
			default:
				vals[i] = (const char *)sqlite3_column_text(s, i);
				break;
			}
		}
		if ((r = fn(ctx, ncols, names, vals)) < 0)
			goto out;
	}
	if (rc != SQLITE_DONE)
		r = store_sqlerr(st, err, "sql");
out:
	if (blobs)
		for (int i = 0; i < ncols; i++)
			free(blobs[i]);
	free(blobs);
	free(vals);
	free(names);
	return r;
}

/* ATTACH counts as read-only for SQLite (it changes the connection, not a
 * file), but it could create a file: refused at prepare. */
static int no_attach(void *ctx, int action, const char *a, const char *b, const char *c, const char *d)
{
	(void)ctx, (void)a, (void)b, (void)c, (void)d;
	return action == SQLITE_ATTACH || action == SQLITE_DETACH ? SQLITE_DENY : SQLITE_OK;
}

int store_sql(struct store *st, const char *sql, store_sql_row_fn fn, void *ctx, struct c2c_error *err)
{
	const char *tail = sql;
	int r = 0, n = 0;

	while (tail && *tail && r == 0) {
		sqlite3_stmt *s = NULL;
		const char *next = NULL;

		sqlite3_set_authorizer(st->db, no_attach, NULL);
		int prc = sqlite3_prepare_v2(st->db, tail, -1, &s, &next);
		sqlite3_set_authorizer(st->db, NULL, NULL);
		if (prc != SQLITE_OK)
			return c2c_error_set(err, -EINVAL, "%s: sql: %s", st->path, sqlite3_errmsg(st->db));
		if (!s) {           /* only blanks or a comment were left */
			tail = next;
			continue;
		}
		if (!sqlite3_stmt_readonly(s)) {
			int len = (int)(next - tail);
			while (len > 0 && (tail[len - 1] == ';' || tail[len - 1] == ' ' || tail[len - 1] == '\n'))
				len--;
			sqlite3_finalize(s);
			return c2c_error_set(err, -EPERM, "%s: sql: '%.*s%s' would change the session: only "
					     "statements that read (SELECT, WITH, read-only PRAGMAs) run",
					     st->path, len > 60 ? 60 : len, tail, len > 60 ? "..." : "");
		}
		r = run_one(st, s, fn, ctx, err);
		sqlite3_finalize(s);
		tail = next;
		n++;
	}
	if (r == 0 && n == 0)
		return c2c_error_set(err, -EINVAL, "sql: no statement");
	return r;
}
