/* Private to store/base: what makes opening a session file someone sent
 * harmless (session_check.c). session.c calls these on every connection
 * and before the first query of an opened file. */
#ifndef C2C_STORE_BASE_SESSION_CHECK_PRIV_H
#define C2C_STORE_BASE_SESSION_CHECK_PRIV_H

#include "store/base/base.h"

#include <sqlite3.h>

/* Work a statement may do before it is stopped: this many VDBE steps plus
 * C2C_GUARD_OPS_PER_BYTE per byte of the file (and its -wal), so a real
 * session's biggest query never meets it and a small crafted one is cut in
 * about a second. */
#define C2C_GUARD_BASE_OPS     20000000ULL
#define C2C_GUARD_OPS_PER_BYTE 100ULL

/* Hardens a fresh connection to path (the file it reads, for the work
 * budget): defensive mode, untrusted schema, no extensions, no views or
 * triggers, limits sized to what c2ctui's own SQL needs, and the work
 * budget (a progress handler, reset at every statement start), which
 * also stops a statement on request (cancel: the handle's store_interrupt
 * flag, or NULL; and the thread's poll, cancel.c). The budget's state
 * belongs to the connection (freed when it closes). 0 or -ENOMEM. */
int store_guard_connection(sqlite3 *db, const char *path, atomic_int *cancel);

/* Checks the schema of an opened file before anything reads it: a
 * c2ctui_session table, then only tables and indexes (no view, trigger,
 * virtual table, generated column). 0, -EINVAL with no_marker set when
 * there is no c2ctui_session table (the caller words that), or -EINVAL
 * and err set naming path and what is wrong. */
int store_check_kinds(sqlite3 *db, const char *path, bool *no_marker, struct c2c_error *err);

/* Checks that every table c2ctui creates (base_schema, then the aggregate
 * tables) that the file holds has the columns c2ctui gives it, with the
 * same declared types. 0, or -EINVAL and err set. */
int store_check_columns(sqlite3 *db, const char *path, const char *base_schema, struct c2c_error *err);

#endif /* C2C_STORE_BASE_SESSION_CHECK_PRIV_H */
