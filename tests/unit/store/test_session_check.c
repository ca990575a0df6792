/* The hardening of session connections (store/base/session_check.c): the
 * work budget stops a runaway statement with SQLITE_INTERRUPT in bounded
 * time, so do a handle's interrupt flag and the thread's poll (cancel.c), the limits refuse oversized values and ATTACH, views and triggers
 * do not run, and the kinds check names what c2ctui never makes. */
#include "tests/unit/test.h"

#include "store/base/session_check_priv.h"
#include "store/base/base.h"

#include <errno.h>
#include <sqlite3.h>
#include <time.h>

static sqlite3 *guarded_cancel(atomic_int *cancel)
{
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		return NULL;
	if (store_guard_connection(db, "/nonexistent/c2ctui-test.db", cancel) < 0) {
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

static sqlite3 *guarded(void)
{
	return guarded_cancel(NULL);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_runaway_query_is_stopped(void)
{
	sqlite3 *db = guarded();
	CHECK(db);
	double t0 = now_s();
	int rc = sqlite3_exec(db, "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r)"
			      " SELECT count(*) FROM r;", NULL, NULL, NULL);
	double dt = now_s() - t0;
	CHECK(rc == SQLITE_INTERRUPT);
	CHECK(dt < 60.0);  /* work-bounded: about a second alone, longer on a loaded machine */
	/* the next statement has its own budget */
	CHECK(sqlite3_exec(db, "SELECT 1;", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
}

#define RUNAWAY "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r;"

static int polls;

/* Stops the statement at the third call. */
static int poll_third(void *ctx)
{
	(void)ctx;
	return ++polls >= 3;
}

static void test_stop_on_request(void)
{
	atomic_int cancel = 0;
	sqlite3 *db = guarded_cancel(&cancel);
	double t0;

	CHECK(db);
	/* The handle's flag: every statement stops until it is cleared. */
	atomic_store(&cancel, 1);
	t0 = now_s();
	CHECK(sqlite3_exec(db, RUNAWAY, NULL, NULL, NULL) == SQLITE_INTERRUPT);
	CHECK(now_s() - t0 < 0.5);
	CHECK(sqlite3_exec(db, RUNAWAY, NULL, NULL, NULL) == SQLITE_INTERRUPT);
	atomic_store(&cancel, 0);
	CHECK(sqlite3_exec(db, "SELECT 1;", NULL, NULL, NULL) == SQLITE_OK);
	/* The thread's poll: called while the statement runs, nonzero stops it. */
	polls = 0;
	store_set_thread_poll(poll_third, NULL);
	t0 = now_s();
	CHECK(sqlite3_exec(db, RUNAWAY, NULL, NULL, NULL) == SQLITE_INTERRUPT);
	CHECK(now_s() - t0 < 0.5);
	CHECK(polls == 3);
	CHECK(store_cancelled(NULL));
	/* A new statement starts afresh; without a poll nothing is called. */
	store_set_thread_poll(NULL, NULL);
	CHECK(sqlite3_exec(db, "SELECT 1;", NULL, NULL, NULL) == SQLITE_OK);
	CHECK(!store_cancelled(NULL));
	CHECK(polls == 3);
	sqlite3_close(db);
}

static void test_limits(void)
{
	sqlite3 *db = guarded();
	CHECK(db);
	CHECK(sqlite3_exec(db, "SELECT length(zeroblob(100000000));", NULL, NULL, NULL) == SQLITE_TOOBIG);
	CHECK(sqlite3_exec(db, "SELECT length(zeroblob(1000000));", NULL, NULL, NULL) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "ATTACH ':memory:' AS other;", NULL, NULL, NULL) != SQLITE_OK);
	CHECK(sqlite3_exec(db, "SELECT load_extension('x');", NULL, NULL, NULL) != SQLITE_OK);
	/* views and triggers c2ctui never makes do not run even if present */
	CHECK(sqlite3_exec(db, "CREATE TABLE t (a INTEGER); CREATE VIEW v AS SELECT * FROM t;", NULL, NULL, NULL)
	      == SQLITE_OK);
	CHECK(sqlite3_exec(db, "SELECT * FROM v;", NULL, NULL, NULL) != SQLITE_OK);
	sqlite3_close(db);
}

static void test_kinds(void)
{
	struct c2c_error err = { 0 };
	bool no_marker;
	sqlite3 *db = guarded();
	CHECK(db);
	CHECK(store_check_kinds(db, "x.db", &no_marker, &err) == -EINVAL);
	CHECK(no_marker);
	CHECK(sqlite3_exec(db, "CREATE TABLE c2ctui_session (id INTEGER); CREATE INDEX i ON c2ctui_session (id);",
			   NULL, NULL, NULL) == SQLITE_OK);
	CHECK(store_check_kinds(db, "x.db", &no_marker, &err) == 0);
	CHECK(sqlite3_exec(db, "CREATE VIEW \"agg\nline\" AS SELECT 1;", NULL, NULL, NULL) == SQLITE_OK);
	CHECK(store_check_kinds(db, "x.db", &no_marker, &err) == -EINVAL);
	CHECK(!no_marker);
	CHECK(strstr(err.msg, "x.db: not a session c2ctui made: it holds a view 'agg?line'"));
	CHECK(!strchr(err.msg, '\n'));
	sqlite3_close(db);
}

TEST_MAIN(TEST_CASE(test_runaway_query_is_stopped), TEST_CASE(test_stop_on_request), TEST_CASE(test_limits), TEST_CASE(test_kinds))
