/* The files of one session on disk: the database and SQLite's companions
 * (-wal, -shm, -journal). One place removes them all, for the commands
 * that drop a half-written or temporary session. */
#ifndef C2C_STORE_SESSION_FILES_H
#define C2C_STORE_SESSION_FILES_H

#include "collector/base/error.h"

/* Removes path and its companions; a missing file is not an error.
 * Returns 0, or the first failure with one sentence in err (may be NULL). */
int store_remove_files(const char *path, struct c2c_error *err);

#endif /* C2C_STORE_SESSION_FILES_H */
