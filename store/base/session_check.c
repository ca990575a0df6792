/* What makes reading a session file someone sent harmless: every
 * connection is hardened (defensive mode, untrusted schema, no extensions,
 * views or triggers, limits sized to c2ctui's own SQL, a work budget per
 * statement), and an opened file's schema is checked before the first
 * query: c2ctui makes only tables and indexes, with the columns
 * session.c and store/agg/ give them. Names taken from the file are
 * printed sanitized (they may hold anything). */
#include "store/base/session_check_priv.h"
#include "store/agg/agg.h"
#include "store/agg/agg_timeline.h"
#include "store/types/typeinfo_schema.h"
#include "store/writer/writer.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* Per-connection state of the work budget (owned by the connection). */
struct guard {
	atomic_int *cancel;         /* the handle's store_interrupt flag (NULL: none) */
	unsigned long long ops;     /* steps since the running statement started */
	unsigned long long budget;
	char path[];                /* the file whose size sets the budget */
};

#define GUARD_STEP 4096  /* steps between progress calls */

static unsigned long long file_bytes(const char *path)
{
	struct stat sb;
	char wal[4200];
	unsigned long long n = 0;

	if (stat(path, &sb) == 0)
		n += (unsigned long long)sb.st_size;
	snprintf(wal, sizeof(wal), "%s-wal", path);
	if (stat(wal, &sb) == 0)
		n += (unsigned long long)sb.st_size;
	return n;
}

static unsigned long long guard_budget(const char *path)
{
	return C2C_GUARD_BASE_OPS + C2C_GUARD_OPS_PER_BYTE * file_bytes(path);
}

static int guard_progress(void *arg)
{
	struct guard *g = arg;

	/* A stop asked for (cancel.c) comes before the budget. */
	if (store_cancel_check(g->cancel))
		return 1;
	g->ops += GUARD_STEP;
	if (g->ops <= g->budget)
		return 0;
	/* A session being written grows: measure again before giving up. */
	g->budget = guard_budget(g->path);
	return g->ops > g->budget;
}

/* A statement starts (or restarts after a reset): its own budget. */
static int guard_trace(unsigned type, void *arg, void *p, void *x)
{
	(void)type;
	(void)p;
	(void)x;
	((struct guard *)arg)->ops = 0;
	store_cancel_statement_start();
	return 0;
}

static void guard_noop(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	(void)argv;
	sqlite3_result_null(ctx);
}

int store_guard_connection(sqlite3 *db, const char *path, atomic_int *cancel)
{
	/* Limits: c2ctui's biggest value is a call chain or a timeline
	 * blob (well under a MiB), its longest SQL a few KiB, its deepest
	 * expression a few dozen levels; it attaches nothing and makes no
	 * triggers. A crafted file asking for more fails with SQLite's
	 * "too big" instead of eating memory. */
	static const struct { int id, value; } limits[] = {
		{ SQLITE_LIMIT_LENGTH, 64 << 20 },
		{ SQLITE_LIMIT_SQL_LENGTH, 1 << 20 },
		{ SQLITE_LIMIT_EXPR_DEPTH, 256 },
		{ SQLITE_LIMIT_COMPOUND_SELECT, 16 },
		{ SQLITE_LIMIT_VDBE_OP, 1 << 20 },
		{ SQLITE_LIMIT_ATTACHED, 0 },
		{ SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 4096 },
		{ SQLITE_LIMIT_TRIGGER_DEPTH, 1 },
	};
	size_t n = strlen(path);
	struct guard *g = malloc(sizeof(*g) + n + 1);

	if (!g)
		return -ENOMEM;
	memcpy(g->path, path, n + 1);
	g->cancel = cancel;
	g->ops = 0;
	g->budget = guard_budget(path);
	/* The connection owns g: SQLite frees it with the function at close
	 * (and at once when registering fails). */
	if (sqlite3_create_function_v2(db, "c2c_guard", 0, SQLITE_UTF8 | SQLITE_DIRECTONLY, g, guard_noop, NULL,
				       NULL, free) != SQLITE_OK)
		return -ENOMEM;
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
	sqlite3_exec(db, "PRAGMA trusted_schema = OFF;", NULL, NULL, NULL);
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++)
		sqlite3_limit(db, limits[i].id, limits[i].value);
	sqlite3_trace_v2(db, SQLITE_TRACE_STMT, guard_trace, g);
	sqlite3_progress_handler(db, GUARD_STEP, guard_progress, g);
	return 0;
}

/* A name from the file, printable and short, for a message. */
static const char *clean_name(const unsigned char *name, char *buf, size_t size)
{
	size_t i = 0;

	if (!name)
		name = (const unsigned char *)"";
	for (; *name && i + 4 < size; name++)
		buf[i++] = isprint(*name) ? (char)*name : '?';
	if (*name)
		buf[i++] = '.', buf[i++] = '.', buf[i++] = '.';
	buf[i] = '\0';
	return buf;
}

static int hostile(struct c2c_error *err, const char *path, const char *what, const unsigned char *name)
{
	char nb[80];

	return c2c_error_set(err, -EINVAL,
			     "%s: not a session c2ctui made: it holds %s '%s' (c2ctui makes only tables and indexes);"
			     " refusing to read it", path, what, clean_name(name, nb, sizeof(nb)));
}

static bool starts_with_word(const unsigned char *sql, const char *word)
{
	if (!sql)
		return false;
	while (isspace(*sql))
		sql++;
	return !strncasecmp((const char *)sql, word, strlen(word));
}

static int unreadable(struct c2c_error *err, const char *path, sqlite3 *db)
{
	return c2c_error_set(err, -EINVAL, "%s: cannot read the session's schema: %s", path, sqlite3_errmsg(db));
}

int store_check_kinds(sqlite3 *db, const char *path, bool *no_marker, struct c2c_error *err)
{
	sqlite3_stmt *s;
	int rc, r = 0;
	bool marker = false;

	*no_marker = false;
	/* sqlite_schema itself is always a real table: reading it runs
	 * nothing the file defines. */
	if (sqlite3_prepare_v2(db, "SELECT type, name, sql FROM main.sqlite_master", -1, &s, NULL) != SQLITE_OK)
		return unreadable(err, path, db);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const unsigned char *type = sqlite3_column_text(s, 0);
		const unsigned char *name = sqlite3_column_text(s, 1);
		const unsigned char *sql = sqlite3_column_text(s, 2);
		if (!type)
			type = (const unsigned char *)"";
		if (!strcmp((const char *)type, "table")) {
			if (starts_with_word(sql, "CREATE VIRTUAL")) {
				r = hostile(err, path, "a virtual table", name);
				break;
			}
			if (name && !strcasecmp((const char *)name, "c2ctui_session"))
				marker = true;
		} else if (!strcmp((const char *)type, "view")) {
			r = hostile(err, path, "a view", name);
			break;
		} else if (!strcmp((const char *)type, "trigger")) {
			r = hostile(err, path, "a trigger", name);
			break;
		} else if (strcmp((const char *)type, "index") != 0) {
			r = hostile(err, path, "an object of an unknown kind", name);
			break;
		}
	}
	if (!r && rc != SQLITE_DONE)
		r = unreadable(err, path, db);
	sqlite3_finalize(s);
	if (!r && !marker) {
		*no_marker = true;
		r = -EINVAL;
	}
	return r;
}

/* The columns of table in db: names and declared types, "" when absent;
 * *generated when one is computed (hidden 2 or 3). */
struct cols {
	char (*name)[64];
	char (*type)[32];
	size_t n;
	bool generated;
};

static void cols_free(struct cols *c)
{
	free(c->name);
	free(c->type);
	memset(c, 0, sizeof(*c));
}

static int cols_read(sqlite3 *db, const char *table, struct cols *c)
{
	sqlite3_stmt *s;
	size_t cap = 0;
	int rc;

	memset(c, 0, sizeof(*c));
	if (sqlite3_prepare_v2(db, "SELECT name, type, hidden FROM main.pragma_table_xinfo(?1)", -1, &s, NULL)
	    != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (c->n == cap) {
			size_t ncap = cap ? cap * 2 : 32;
			void *nn = realloc(c->name, ncap * sizeof(*c->name));
			if (nn)
				c->name = nn;
			void *nt = nn ? realloc(c->type, ncap * sizeof(*c->type)) : NULL;
			if (!nt) {
				sqlite3_finalize(s);
				cols_free(c);
				return -ENOMEM;
			}
			c->type = nt;
			cap = ncap;
		}
		store_copy(c->name[c->n], sizeof(c->name[0]), (const char *)sqlite3_column_text(s, 0));
		store_copy(c->type[c->n], sizeof(c->type[0]), (const char *)sqlite3_column_text(s, 1));
		if (sqlite3_column_int(s, 2) >= 2)
			c->generated = true;
		c->n++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		cols_free(c);
		return -EIO;
	}
	return 0;
}

static int compare_table(sqlite3 *ref, sqlite3 *db, const char *path, const char *table, struct c2c_error *err)
{
	struct cols want, have;
	char nb[80];
	int r;

	if ((r = cols_read(ref, table, &want)) < 0)
		return c2c_error_set(err, r, "%s: cannot check the session's columns", path);
	if ((r = cols_read(db, table, &have)) < 0) {
		cols_free(&want);
		return r == -ENOMEM ? c2c_error_set(err, r, "out of memory") : unreadable(err, path, db);
	}
	r = 0;
	if (have.n && have.generated)
		r = c2c_error_set(err, -EINVAL, "%s: not a session c2ctui made: table '%s' has a generated column"
				  " (c2ctui makes none); refusing to read it", path, table);
	/* An empty list: the file has no such table (an older session that
	 * never made it); the code that reads it checks first. */
	for (size_t i = 0; !r && have.n && i < want.n; i++) {
		size_t j = 0;
		while (j < have.n && strcasecmp(have.name[j], want.name[i]))
			j++;
		if (j == have.n)
			r = c2c_error_set(err, -EINVAL, "%s: not a session c2ctui made: table '%s' has no column '%s';"
					  " refusing to read it", path, table, want.name[i]);
		else if (strcasecmp(have.type[j], want.type[i]))
			r = c2c_error_set(err, -EINVAL, "%s: not a session c2ctui made: column '%s.%s' is declared '%s',"
					  " c2ctui makes it '%s'; refusing to read it", path, table, want.name[i],
					  clean_name((const unsigned char *)have.type[j], nb, sizeof(nb)), want.type[i]);
	}
	cols_free(&want);
	cols_free(&have);
	return r;
}

int store_check_columns(sqlite3 *db, const char *path, const char *base_schema, struct c2c_error *err)
{
	/* The reference: the same CREATE statements, in memory. */
	struct store ref = { .path = (char *)"reference schema" };
	struct c2c_error rerr;
	sqlite3_stmt *s = NULL;
	int r;

	if (sqlite3_open_v2(":memory:", &ref.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		sqlite3_close(ref.db);
		return c2c_error_set(err, -ENOMEM, "out of memory");
	}
	/* Every table c2ctui makes, whichever module makes it. */
	if ((r = store_exec(&ref, base_schema, &rerr)) < 0 || (r = agg_create_tables(&ref, "main", &rerr)) < 0 ||
	    (r = agg_rep_create_tables(&ref, "main", &rerr)) < 0 || (r = store_exec(&ref, agg_timeline_schema, &rerr)) < 0 ||
	    (r = store_exec(&ref, store_time_blocks_schema, &rerr)) < 0 ||
	    (r = store_exec(&ref, store_lock_contention_schema, &rerr)) < 0 ||
	    (r = store_exec(&ref, typeinfo_schema, &rerr)) < 0) {
		r = c2c_error_set(err, r, "%s: cannot check the session's columns: %s", path, rerr.msg);
		goto out;
	}
	if (sqlite3_prepare_v2(ref.db, "SELECT name FROM main.sqlite_master WHERE type = 'table' ORDER BY rowid", -1,
			       &s, NULL) != SQLITE_OK) {
		r = c2c_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	while (!r && sqlite3_step(s) == SQLITE_ROW) {
		char name[64];
		store_copy(name, sizeof(name), (const char *)sqlite3_column_text(s, 0));
		r = compare_table(ref.db, db, path, name, err);
	}
out:
	sqlite3_finalize(s);
	sqlite3_close(ref.db);
	return r;
}
