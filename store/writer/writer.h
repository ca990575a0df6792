/* What the other store/ sub-modules may use of store/writer (the session
 * writer): its state's life cycle and the sample time blocks a new or
 * opened session sets up. struct store_writer and the writer's internals
 * are in writer_priv.h. */
#ifndef C2C_STORE_WRITER_H
#define C2C_STORE_WRITER_H

#include "store/base/base.h"

/* The writer's state of a handle (store/writer/writer.c). fresh: a new
 * session (nothing to load before the first write). NULL when out of
 * memory. */
struct store_writer *store_writer_new(bool fresh);
/* Prepares the writer's statements (nothing when st is read-only). */
int store_writer_prepare(struct store *st, struct c2c_error *err);
/* Commits an open batch (rolling back when that fails): store_close. */
void store_writer_close(struct store *st);
/* A finalized session to rollback-journal mode (one file), when this is
 * the only connection; silently kept as it is otherwise. */
void store_settle(struct store *st);
/* Stops the writer's thread and frees its state, before the connection
 * closes (st->writer may be NULL). */
void store_writer_free(struct store *st);

/* ---- time ranges of sample blocks (store/writer/time_blocks.c) ------------- */

/* A new session: creates the table (in the creating transaction). */
int store_time_blocks_create(struct store *st, struct c2c_error *err);
/* The CREATE statements of the tables the writer adds (the session check
 * compares a file's tables with them). */
extern const char store_time_blocks_schema[];
extern const char store_lock_contention_schema[];
/* An opened session: whether it keeps them (sets st->time_blocks). */
bool store_time_blocks_load(struct store *st);

#endif /* C2C_STORE_WRITER_H */
