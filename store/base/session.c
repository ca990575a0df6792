/* Session files: create (schema, WAL, marker), open (with the checks that
 * turn a wrong file into one clear sentence), close. The base schema is
 * documented in docs/schema.md; keep the two in step. */
#include "store/base/base_priv.h"
#include "store/base/session_check_priv.h"
#include "store/agg/agg.h"
#include "store/query/query.h"
#include "store/writer/writer.h"
#include "store/base/session_files.h"
#include "store/base/sample_vtab.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STORE_MARKER_FORMAT "c2ctui session"

#define BASE_SCHEMA \
	"CREATE TABLE c2ctui_session (id INTEGER PRIMARY KEY CHECK (id = 1), format TEXT NOT NULL," \
	" schema_version INTEGER NOT NULL, created_at INTEGER NOT NULL, program TEXT);" \
	"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;" \
	"CREATE TABLE events (idx INTEGER PRIMARY KEY, name TEXT NOT NULL, attr_type INTEGER, config INTEGER," \
	" sample_type INTEGER, sample_period INTEGER, freq INTEGER);" \
	"CREATE TABLE cpus (cpu INTEGER PRIMARY KEY, core INTEGER, socket INTEGER, node INTEGER);" \
	"CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;" \
	"CREATE TABLE comms (id INTEGER PRIMARY KEY, time INTEGER, pid INTEGER, tid INTEGER, exec INTEGER," \
	" comm TEXT);" \
	"CREATE TABLE tasks (id INTEGER PRIMARY KEY, time INTEGER, kind TEXT NOT NULL, pid INTEGER," \
	" ppid INTEGER, tid INTEGER, ptid INTEGER);" \
	"CREATE TABLE maps (id INTEGER PRIMARY KEY, time INTEGER, pid INTEGER, tid INTEGER, start INTEGER," \
	" len INTEGER, pgoff INTEGER, prot INTEGER, flags INTEGER, cpumode INTEGER, maj INTEGER, min INTEGER," \
	" ino INTEGER, ino_generation INTEGER, build_id BLOB, filename TEXT);" \
	"CREATE TABLE sites (id INTEGER PRIMARY KEY, ip INTEGER NOT NULL, pid INTEGER NOT NULL," \
	" cpumode INTEGER, function TEXT, offset INTEGER, dso TEXT, file TEXT, line INTEGER, rel_addr INTEGER);" \
	"CREATE INDEX sites_ip ON sites (ip);" \
	"CREATE TABLE dsyms (id INTEGER PRIMARY KEY, name TEXT NOT NULL, start INTEGER, size INTEGER," \
	" pid INTEGER, dso TEXT);" \
	"CREATE TABLE callchains (id INTEGER PRIMARY KEY, sites BLOB NOT NULL);" \
	"CREATE TABLE lock_waits (id INTEGER PRIMARY KEY, time INTEGER, pid INTEGER, tid INTEGER, cpu INTEGER," \
	" lock_addr INTEGER, line INTEGER, flags INTEGER, wait_ns INTEGER, site INTEGER, dsym INTEGER," \
	" callchain INTEGER);"
/* Sessions before schema version 2 kept one row a sample (still read). */
#define SAMPLES_TABLE_SCHEMA \
	"CREATE TABLE samples (id INTEGER PRIMARY KEY, time INTEGER, event INTEGER, cpu INTEGER, node INTEGER," \
	" pid INTEGER, tid INTEGER, cpumode INTEGER, ip INTEGER, site INTEGER, addr INTEGER, phys_addr INTEGER," \
	" class_bits INTEGER, weight INTEGER, ins_lat INTEGER, data_src INTEGER," \
	" period INTEGER, dsym INTEGER, dsym_offset INTEGER, callchain INTEGER, raw BLOB, line_var INTEGER);"
/* Since version 2 samples are column blocks (store/base/sample_codec.c):
 * ids first_id .. first_id + n - 1, their time range, read as the table
 * samples (store/base/sample_vtab.c). */
#define SAMPLE_BLOCKS_SCHEMA \
	"CREATE TABLE sample_blocks (first_id INTEGER PRIMARY KEY, n INTEGER NOT NULL, tmin INTEGER," \
	" tmax INTEGER, data BLOB NOT NULL);"
/* Since version 3 a block holds one CPU's samples (store/writer/
 * sample_blocks.c), and a small index says what each block holds: its
 * rows, time range, the CPUs and nodes of its rows as bits cpu % 64 and
 * node % 64, and whether its rows' times never go back; a filtered or
 * time-ordered scan (store/base/sample_merge.c) reads it instead of the
 * blocks' own rows, which share their pages with the data. */
#define SAMPLE_BLOCK_INDEX_COLS \
	"first_id INTEGER PRIMARY KEY, n INTEGER NOT NULL, tmin INTEGER," \
	" tmax INTEGER, cpus INTEGER NOT NULL, nodes INTEGER NOT NULL, sorted INTEGER NOT NULL"
#define SAMPLE_BLOCK_INDEX_SCHEMA "CREATE TABLE sample_block_index (" SAMPLE_BLOCK_INDEX_COLS ");"
/* Since 2026-12-07 the index also has the processes and threads of a
 * block's rows as bits pid % 64 and tid % 64 (NULL: not known, as rows an
 * older c2ctui appended have), so a process or thread filter skips the
 * blocks without them. Sessions made before have neither column: they are
 * read as before (and checked against the schema without them). */
#define SAMPLE_BLOCK_INDEX_TASKS_SCHEMA \
	"CREATE TABLE sample_block_index (" SAMPLE_BLOCK_INDEX_COLS ", pids INTEGER, tids INTEGER);"

/* What a new session is made of; what an opened one may hold. */
static const char base_schema[] = BASE_SCHEMA SAMPLE_BLOCKS_SCHEMA SAMPLE_BLOCK_INDEX_TASKS_SCHEMA;
static const char known_schema[] = BASE_SCHEMA SAMPLES_TABLE_SCHEMA SAMPLE_BLOCKS_SCHEMA SAMPLE_BLOCK_INDEX_SCHEMA;

/* Samples in blocks (schema 2) or in rows (a real samples table, which
 * is also what every query then reads). */
static int sample_format(struct store *st, struct c2c_error *err)
{
	sqlite3_stmt *s;
	bool rows = false, blocks = false, parts = false;

	if (sqlite3_prepare_v2(st->db, "SELECT name FROM main.sqlite_schema WHERE type = 'table' AND name IN"
			       " ('samples', 'sample_blocks', 'sample_block_index')", -1, &s, NULL) != SQLITE_OK)
		return store_sqlerr(st, err, "reading the schema");
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 0);
		if (name && !strcmp(name, "samples"))
			rows = true;
		else if (name && !strcmp(name, "sample_blocks"))
			blocks = true;
		else if (name)
			parts = true;
	}
	sqlite3_finalize(s);
	st->sample_blocks = blocks && !rows;
	st->sample_parts = st->sample_blocks && parts;
	st->block_tasks = false;
	if (st->sample_parts) {
		/* both columns, as c2ctui declares them; else they are not used */
		int n = 0;
		if (sqlite3_prepare_v2(st->db, "SELECT count(*) FROM main.pragma_table_xinfo('sample_block_index')"
				       " WHERE name IN ('pids', 'tids') AND type = 'INTEGER' AND hidden = 0", -1, &s,
				       NULL) != SQLITE_OK)
			return store_sqlerr(st, err, "reading the schema");
		if (sqlite3_step(s) == SQLITE_ROW)
			n = sqlite3_column_int(s, 0);
		sqlite3_finalize(s);
		st->block_tasks = n == 2;
	}
	return 0;
}

static int set_pragmas(struct store *st, struct c2c_error *err)
{
	/* NORMAL is safe with WAL: a crash can lose the last commit, never
	 * corrupt the file. The cache is bounded so RSS stays small. */
	return store_exec(st, "PRAGMA synchronous = NORMAL; PRAGMA cache_size = -32768;"
			  " PRAGMA temp_store = MEMORY; PRAGMA foreign_keys = OFF;", err);
}

/* SQLite's allocation statistics take a global mutex on every malloc
 * and free; nothing here reads them. Only possible before SQLite starts
 * (refused harmlessly when the program started it already). */
static void sqlite_setup(void)
{
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

static void store_free(struct store *st)
{
	store_writer_free(st);  /* its thread and statements before the connection */
	sqlite3_finalize(st->meta_get);
	if (st->db)
		sqlite3_close_v2(st->db);
	store_aggs_free(st->aggs);
	store_query_state_free(st->query);
	free(st->cpu_node);
	if (st->scratch) {
		store_remove_files(st->scratch, NULL);
		free(st->scratch);
	}
	free(st->path);
	free(st);
}

/* fresh: a new session (the writer has nothing to load). */
static struct store *store_alloc(const char *path, bool fresh)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, sqlite_setup);
	struct store *st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->line_size = 64;
	st->path = strdup(path);
	st->writer = store_writer_new(fresh);
	st->aggs = store_aggs_new();
	st->query = store_query_state_new();
	if (!st->path || !st->writer || !st->aggs || !st->query) {
		store_free(st);
		return NULL;
	}
	return st;
}

/* The statements of every handle (the writer prepares its own). */
static int prepare_stmts(struct store *st, struct c2c_error *err)
{
	int r = store_prepare(st, &st->meta_get, "SELECT value FROM meta WHERE key = ?", err);
	return r < 0 ? r : store_writer_prepare(st, err);
}

const char *store_path(const struct store *st)
{
	return st->path;
}

const char *store_data_path(const struct store *st)
{
	return st->scratch ? st->scratch : st->path;
}


static int load_counters(struct store *st, struct c2c_error *err)
{
	sqlite3_stmt *s;
	int r = store_prepare(st, &s, "SELECT name, value FROM counters", err);
	if (r < 0)
		return r;
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 0);
		for (int c = 0; c < STORE_CNT__MAX && name; c++)
			if (!strcmp(name, store_counter_name((enum store_counter)c)))
				st->counters[c] = (uint64_t)sqlite3_column_int64(s, 1);
	}
	sqlite3_finalize(s);
	return 0;
}

static void load_line_size(struct store *st)
{
	char buf[32];
	if (store_get_meta(st, STORE_META_CACHELINE, buf, sizeof(buf)) > 0) {
		unsigned long v = strtoul(buf, NULL, 10);
		if (v >= 16 && v <= 4096 && !(v & (v - 1)))
			st->line_size = (uint32_t)v;
	}
}

/* Who writes the session: a reader of an unfinished session tells a
 * collection still running from one that was killed (store/base/status.c). */
static int write_writer_meta(struct store *st, struct c2c_error *err)
{
	char host[256] = "";
	char *sql;
	int r;

	gethostname(host, sizeof(host) - 1);
	sql = sqlite3_mprintf("INSERT INTO meta (key, value) VALUES ('%q', '%d'), ('%q', %Q);", STORE_META_WRITER_PID,
			      (int)getpid(), STORE_META_WRITER_HOST, host);
	if (!sql)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	r = store_exec(st, sql, err);
	sqlite3_free(sql);
	return r;
}

int store_create(struct store **out, const char *path, struct c2c_error *err)
{
	struct store *st;
	char sql[256];
	int r;

	*out = NULL;
	/* Made here, exclusively: of two commands creating the same file at
	 * once one gets -EEXIST and leaves the other's file alone. SQLite
	 * takes an empty file as a new database. */
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = -errno;
		if (r == -EEXIST)
			return c2c_error_set(err, r, "%s: already exists (remove it or choose another name)", path);
		return c2c_error_set(err, r, "%s: cannot create: %s", path, strerror(-r));
	}
	close(fd);
	st = store_alloc(path, true);
	if (!st) {
		unlink(path);
		return c2c_error_set(err, -ENOMEM, "out of memory");
	}
	st->writable = true;
	st->sample_blocks = true;
	st->sample_parts = true;
	st->block_tasks = true;
	if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL)
	    != SQLITE_OK) {
		r = c2c_error_set(err, -EIO, "%s: cannot create: %s", path,
				  st->db ? sqlite3_errmsg(st->db) : "out of memory");
		store_free(st);
		unlink(path);
		return r;
	}
	if (store_guard_connection(st->db, path, &st->interrupted) < 0 || store_sample_vtab_register(st->db) < 0) {
		store_free(st);
		unlink(path);
		return c2c_error_set(err, -ENOMEM, "out of memory");
	}
	sqlite3_busy_timeout(st->db, 5000);
	snprintf(sql, sizeof(sql),
		 "INSERT INTO c2ctui_session (id, format, schema_version, created_at, program)"
		 " VALUES (1, '%s', %d, %lld, 'c2ctui');", STORE_MARKER_FORMAT, STORE_SCHEMA_VERSION,
		 (long long)time(NULL));
	/* Larger pages: a third less work per appended sample row, and
	 * fewer, larger writes. Only possible before the first table. */
	if ((r = store_exec(st, "PRAGMA page_size = 16384;", err)) < 0 ||
	    (r = store_exec(st, "PRAGMA journal_mode = WAL;", err)) < 0 ||
	    (r = set_pragmas(st, err)) < 0 ||
	    (r = store_exec(st, "BEGIN;", err)) < 0 ||
	    (r = store_exec(st, base_schema, err)) < 0 ||
	    (r = agg_create_tables(st, "main", err)) < 0 ||
	    (r = store_exec(st, sql, err)) < 0 ||
	    (r = write_writer_meta(st, err)) < 0 ||
	    (r = store_exec(st, "PRAGMA user_version = " /* keep in step with STORE_SCHEMA_VERSION */ "3;", err)) < 0 ||
	    (r = store_exec(st, "COMMIT;", err)) < 0 ||
	    (r = prepare_stmts(st, err)) < 0 ||
	    (r = store_register_functions(st, err)) < 0) {
		store_free(st);
		unlink(path);
		return r;
	}
	agg_init(&st->aggs->agg, st->line_size);
	*out = st;
	return 0;
}

/* Distinguishes "not SQLite at all" from "SQLite but not ours" before
 * SQLite gets a chance to say something vaguer. */
static int check_header(const char *path, struct c2c_error *err)
{
	static const char magic[16] = "SQLite format 3";
	char buf[16];
	struct stat sb;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return c2c_error_set(err, -errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		close(fd);
		return c2c_error_set(err, -EISDIR, "%s: is a directory, not a c2ctui session", path);
	}
	ssize_t n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n != (ssize_t)sizeof(buf) || memcmp(buf, magic, sizeof(buf)) != 0)
		return c2c_error_set(err, -EINVAL, "%s: not a c2ctui session (not an SQLite database)", path);
	return 0;
}

/* Opens the connection; immutable: as a read-only file nobody writes
 * (a URI, so the path is percent-encoded). */
static int open_connection(struct store *st, const char *path, bool immutable, struct c2c_error *err)
{
	int flags = (st->writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_NOMUTEX;
	char *uri = NULL;
	int rc;

	if (immutable) {
		size_t n = strlen(path);
		char *p = uri = malloc(3 * n + 32);
		if (!uri)
			return c2c_error_set(err, -ENOMEM, "out of memory");
		p += sprintf(p, "file:");
		for (const unsigned char *c = (const unsigned char *)path; *c; c++)
			p += (*c == '%' || *c == '?' || *c == '#' || *c < 0x21 || *c >= 0x7f)
				     ? sprintf(p, "%%%02X", *c) : sprintf(p, "%c", *c);
		strcpy(p, "?immutable=1");
		flags |= SQLITE_OPEN_URI;
	}
	rc = sqlite3_open_v2(uri ? uri : path, &st->db, flags, NULL);
	free(uri);
	if (rc != SQLITE_OK)
		return c2c_error_set(err, -EIO, "%s: cannot open: %s", path,
				     st->db ? sqlite3_errmsg(st->db) : "out of memory");
	/* Before the first statement: the file may come from anyone. */
	if (store_guard_connection(st->db, path, &st->interrupted) < 0 || store_sample_vtab_register(st->db) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	sqlite3_busy_timeout(st->db, 5000);
	return 0;
}

/* PRAGMA user_version: SQLITE_OK with *version, or SQLite's error code
 * (the first statement is where a file that cannot be read says why). */
static int read_user_version(struct store *st, int *version)
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &s, NULL);

	if (rc != SQLITE_OK)
		return sqlite3_extended_errcode(st->db) & 0xff;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*version = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Whether a read failed because the WAL index (-shm) cannot be made: the
 * file is in WAL mode (header byte 18 is 2) and its folder or -shm is not
 * writable by us. */
static bool wal_needs_shm(int rc, const char *path)
{
	unsigned char hdr[20];
	char shm[4200], dir[4200];
	int fd;
	bool wal;

	if (rc != SQLITE_CANTOPEN && rc != SQLITE_READONLY && rc != SQLITE_IOERR)
		return false;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	wal = read(fd, hdr, sizeof(hdr)) == (ssize_t)sizeof(hdr) && hdr[18] == 2;
	close(fd);
	if (!wal)
		return false;
	snprintf(shm, sizeof(shm), "%s-shm", path);
	if (access(shm, F_OK) == 0)
		return access(shm, W_OK) != 0;
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	return access(dir, W_OK) != 0;
}

/* What to do about an SQLite error on the first read of a session. */
static const char *open_hint(int rc)
{
	switch (rc) {
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return " (the file is damaged: import its perf.data again, or copy what SQLite can save with"
		       " `sqlite3 FILE .recover`)";
	case SQLITE_READONLY:
		return " (its folder or file cannot be written where SQLite needs to: copy the session to a"
		       " writable folder)";
	case SQLITE_CANTOPEN:
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return " (check the file's and its folder's permissions)";
	case SQLITE_IOERR:
		return " (the disk or file system failed to read it)";
	case SQLITE_NOMEM:
	case SQLITE_FULL:
		return " (out of memory or disk space)";
	default:
		return "";
	}
}

/* A rollback journal beside the file that still holds pages: the write
 * that made it never finished (SQLite calls it hot). */
static bool hot_journal(const char *path)
{
	char j[4200];
	struct stat sb;

	snprintf(j, sizeof(j), "%s-journal", path);
	return stat(j, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0;
}

static int copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, r = 0;
	char buf[1 << 16];
	ssize_t n;

	if (in < 0)
		return -errno;
	if ((out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) {
		r = -errno;
		close(in);
		return r;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			r = errno ? -errno : -EIO;
			break;
		}
	if (n < 0)
		r = -errno;
	close(in);
	if (close(out) < 0 && !r)
		r = -errno;
	return r;
}

/* The session and its hot journal copied under $TMPDIR and opened there
 * (SQLite rolls the journal back in the copy); removed at close, like a
 * scratch copy. The status then says the file was read this way. */
static int open_recovered(struct store **out, const char *path, struct c2c_error *err)
{
	const char *tmpdir = getenv("TMPDIR");
	char tmp[4096], jfrom[4200], jto[4200];
	int fd, r;

	snprintf(tmp, sizeof(tmp), "%s/c2ctui-recover.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if ((fd = mkstemp(tmp)) < 0)
		return c2c_error_set(err, -errno, "%s: its journal needs rolling back, and a private copy cannot be made "
				     "in %s: %s", path, tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
	close(fd);
	snprintf(jfrom, sizeof(jfrom), "%s-journal", path);
	snprintf(jto, sizeof(jto), "%s-journal", tmp);
	if ((r = copy_file(path, tmp)) < 0 || (r = copy_file(jfrom, jto)) < 0) {
		store_remove_files(tmp, NULL);
		return c2c_error_set(err, r, "%s: its journal needs rolling back, and a private copy cannot be made in "
				     "%s: %s", path, tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(-r));
	}
	if ((r = store_open(out, tmp, STORE_OPEN_APPEND, err)) < 0) {
		store_remove_files(tmp, NULL);
		return r;
	}
	char *orig = strdup(path), *copy = strdup(tmp);
	if (!orig || !copy) {
		free(orig);
		free(copy);
		store_close(*out);
		*out = NULL;
		store_remove_files(tmp, NULL);
		return c2c_error_set(err, -ENOMEM, "out of memory");
	}
	free((*out)->path);
	(*out)->path = orig;
	(*out)->scratch = copy;
	(*out)->writable = false;   /* a reader: what it computes stays in the copy anyway */
	(*out)->recovered = true;
	return 0;
}

int store_open(struct store **out, const char *path, unsigned flags, struct c2c_error *err)
{
	struct store *st;
	sqlite3_stmt *s;
	int r, version = 0;
	bool marker = false;

	*out = NULL;
	if ((r = check_header(path, err)) < 0)
		return r;
	st = store_alloc(path, false);
	if (!st)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	st->writable = (flags & STORE_OPEN_APPEND) != 0;
	if ((r = open_connection(st, path, false, err)) < 0) {
		store_free(st);
		return r;
	}
	int rc = read_user_version(st, &version);
	struct stat wst;
	char walp[4200];
	snprintf(walp, sizeof(walp), "%s-wal", path);
	bool wal_frames = stat(walp, &wst) == 0 && wst.st_size > 0;
	if (rc != SQLITE_OK && !st->writable && wal_needs_shm(rc, path) && wal_frames) {
		r = c2c_error_set(err, -EROFS, "%s: its write-ahead log (%s, %lld bytes) needs a writable folder to be "
				  "read; copy the session and its -wal to one", path, walp, (long long)wst.st_size);
		store_free(st);
		return r;
	}
	if (rc != SQLITE_OK && !st->writable && wal_needs_shm(rc, path)) {
		/* A session left in WAL mode (older c2ctui, or a live one that
		 * was never settled) where we cannot create its -shm: a
		 * read-only folder or mount, another user's file. Nothing can
		 * be writing it then, so it is read as an immutable file. */
		sqlite3_close_v2(st->db);
		st->db = NULL;
		if ((r = open_connection(st, path, true, err)) < 0) {
			store_free(st);
			return r;
		}
		rc = read_user_version(st, &version);
	}
	if (rc != SQLITE_OK && !st->writable && rc == SQLITE_READONLY && hot_journal(path)) {
		/* A write was cut (a killed import or record): its journal must
		 * be rolled back before the file reads as its last commit. Done
		 * on a private copy, so that reading never changes the file. */
		store_free(st);
		return open_recovered(out, path, err);
	}
	if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) {
		r = c2c_error_set(err, -EBUSY, "%s: cannot read the session: %s (another c2ctui import or record is "
				  "writing it now: read it when that has finished)", path, sqlite3_errstr(rc));
		store_free(st);
		return r;
	}
	if (rc != SQLITE_OK) {
		/* SQLite's own words (corrupt, not a database, read-only, cannot
		 * open), and what the user can do about it. */
		r = c2c_error_set(err, rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT ? -EINVAL : -EIO,
				  "%s: cannot read the session: %s%s", path, sqlite3_errstr(rc), open_hint(rc));
		store_free(st);
		return r;
	}
	/* The schema's kinds before any query: a view or a trigger would run
	 * the file's own SQL inside ours. */
	bool no_marker = false;
	if ((r = store_check_kinds(st->db, path, &no_marker, err)) < 0 && !no_marker) {
		store_free(st);
		return r;
	}
	if (!no_marker &&
	    sqlite3_prepare_v2(st->db, "SELECT format FROM c2ctui_session WHERE id = 1", -1, &s, NULL) == SQLITE_OK) {
		if (sqlite3_step(s) == SQLITE_ROW) {
			const char *fmt = (const char *)sqlite3_column_text(s, 0);
			marker = fmt && !strcmp(fmt, STORE_MARKER_FORMAT);
		}
		sqlite3_finalize(s);
	}
	if (!marker) {
		r = c2c_error_set(err, -EINVAL, "%s: an SQLite database, but not a c2ctui session (no c2ctui_session table)",
				  path);
		store_free(st);
		return r;
	}
	if (version > STORE_SCHEMA_VERSION) {
		r = c2c_error_set(err, -EPROTONOSUPPORT,
				  "%s: session schema version %d is newer than this c2ctui understands (%d); use a newer c2ctui",
				  path, version, STORE_SCHEMA_VERSION);
		store_free(st);
		return r;
	}
	if (version < 1) {
		r = c2c_error_set(err, -EINVAL, "%s: c2ctui session with an invalid schema version (%d)", path, version);
		store_free(st);
		return r;
	}
	/* After the version: a newer schema may differ, and says so above. */
	if ((r = store_check_columns(st->db, path, known_schema, err)) < 0 ||
	    (r = sample_format(st, err)) < 0 ||
	    (r = set_pragmas(st, err)) < 0 ||
	    ((flags & STORE_OPEN_TEMP_FILES) && (r = store_exec(st, "PRAGMA temp_store = FILE;", err)) < 0) ||
	    (r = prepare_stmts(st, err)) < 0 || (r = store_register_functions(st, err)) < 0 ||
	    (r = load_counters(st, err)) < 0 || (r = store_load_topology(st, err)) < 0) {
		store_free(st);
		return r;
	}
	load_line_size(st);
	store_time_blocks_load(st);
	agg_init(&st->aggs->agg, st->line_size);
	*out = st;
	return 0;
}

void store_close(struct store *st)
{
	if (!st)
		return;
	store_writer_close(st);
	store_free(st);
}
