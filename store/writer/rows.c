/* The writer's rows: code sites, data symbols and call chains (written at
 * once or, in bulk loads, by store/writer/defer.c at the commit) and
 * batches of sample rows (written here or on the sample thread,
 * store/writer/sample_thread.c). Nothing here waits for that thread: the
 * callers do. */
#include "store/writer/writer_priv.h"
#include "collector/base/appendf.h"

#include <stdio.h>

static void bind_id(sqlite3_stmt *s, int64_t id)
{
	if (id)
		sqlite3_bind_int64(s, 1, id);
	else
		sqlite3_bind_null(s, 1);
}

int store_write_site(struct store *st, int64_t id, const struct store_site_info *si, struct c2c_error *err)
{
	sqlite3_stmt *s = st->writer->stmt[STMT_SITE];

	bind_id(s, id);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)si->ip);
	sqlite3_bind_int64(s, 3, si->pid);
	sqlite3_bind_int(s, 4, si->cpumode);
	store_bind_text(s, 5, si->function);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)si->offset);
	store_bind_text(s, 7, si->dso);
	store_bind_text(s, 8, si->file);
	sqlite3_bind_int64(s, 9, si->line);
	sqlite3_bind_int64(s, 10, (sqlite3_int64)si->rel_addr);
	return store_step_done(st, s, false, err, "writing a code site");
}

int store_write_dsym(struct store *st, int64_t id, const struct store_dsym_info *d, struct c2c_error *err)
{
	sqlite3_stmt *s = st->writer->stmt[STMT_DSYM];

	bind_id(s, id);
	store_bind_text(s, 2, d->name);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)d->start);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)d->size);
	sqlite3_bind_int64(s, 5, d->pid);
	store_bind_text(s, 6, d->dso);
	return store_step_done(st, s, false, err, "writing a data symbol");
}

int store_write_chain(struct store *st, int64_t id, const int64_t *sites, uint32_t n, struct c2c_error *err)
{
	sqlite3_stmt *s = st->writer->stmt[STMT_CHAIN];

	bind_id(s, id);
	/* Little-endian int64 array, as documented in docs/schema.md. */
	sqlite3_bind_blob(s, 2, sites, (int)(n * sizeof(int64_t)), SQLITE_TRANSIENT);
	return store_step_done(st, s, false, err, "writing a call chain");
}

void store_bind_sample_row(sqlite3_stmt *s, int first, const unsigned char *raw, const struct store_sample_rec *row)
{
	for (int c = 0; c < SAMPLE_COLS; c++) {
		if (!(row->present & (1u << c)))
			sqlite3_bind_null(s, first + c);
		else if (c == 19)
			sqlite3_bind_blob(s, first + c, raw + row->raw_off, (int)row->raw_len, SQLITE_STATIC);
		else
			sqlite3_bind_int64(s, first + c, row->v[c]);
	}
}

const char *const store_sample_cols[SAMPLE_COLS] = {
	"time", "event", "cpu", "node", "pid", "tid", "cpumode", "ip", "site", "addr", "phys_addr", "class_bits",
	"weight", "ins_lat", "data_src", "period", "dsym", "dsym_offset", "callchain", "raw", "line_var",
};

void store_batch_stmts_free(struct store *st)
{
	for (size_t i = 0; i < sizeof(st->writer->batch_stmt) / sizeof(st->writer->batch_stmt[0]); i++) {
		sqlite3_finalize(st->writer->batch_stmt[i].s);
		st->writer->batch_stmt[i].s = NULL;
	}
}

/* The batch INSERT naming exactly the columns in present: cached (a few
 * masks), else NULL (the generic statement then binds NULLs). */
static sqlite3_stmt *batch_stmt_for(struct store *st, uint32_t present)
{
	const size_t n = sizeof(st->writer->batch_stmt) / sizeof(st->writer->batch_stmt[0]);
	char sql[4096], one[256];
	size_t i, len = 0, olen = 0;

	for (i = 0; i < n && st->writer->batch_stmt[i].s; i++)
		if (st->writer->batch_stmt[i].present == present)
			return st->writer->batch_stmt[i].s;
	if (i == n)
		return NULL;
	len = (size_t)snprintf(sql, sizeof(sql), "INSERT INTO samples (");
	for (int c = 0; c < SAMPLE_COLS; c++) {
		if (!(present & (1u << c)))
			continue;
		len = c2c_appendf(sql, sizeof(sql), len, "%s%s", olen ? "," : "", store_sample_cols[c]);
		olen = c2c_appendf(one, sizeof(one), olen, "%s?", olen ? "," : "(");
	}
	if (!olen)
		return NULL;
	olen = c2c_appendf(one, sizeof(one), olen, ")");
	len = c2c_appendf(sql, sizeof(sql), len, ") VALUES ");
	for (int r = 0; r < SAMPLE_BATCH && len < sizeof(sql); r++)
		len = c2c_appendf(sql, sizeof(sql), len, "%s%s", r ? "," : "", one);
	if (len >= sizeof(sql) || sqlite3_prepare_v2(st->db, sql, -1, &st->writer->batch_stmt[i].s, NULL) != SQLITE_OK) {
		sqlite3_finalize(st->writer->batch_stmt[i].s);
		st->writer->batch_stmt[i].s = NULL;
		return NULL;
	}
	st->writer->batch_stmt[i].present = present;
	return st->writer->batch_stmt[i].s;
}

int store_insert_sample_batch(struct store *st, const struct store_sample_rec *rows, const unsigned char *raw,
			      struct c2c_error *err)
{
	uint32_t present = rows[0].present;
	sqlite3_stmt *s;
	unsigned i;

	if (st->sample_blocks)
		return store_blocks_append(st, rows, SAMPLE_BATCH, raw, err);

	for (i = 1; i < SAMPLE_BATCH && rows[i].present == present; i++)
		;
	if (i == SAMPLE_BATCH && (s = batch_stmt_for(st, present))) {
		int k = 1;
		for (i = 0; i < SAMPLE_BATCH; i++)
			for (int c = 0; c < SAMPLE_COLS; c++) {
				if (!(present & (1u << c)))
					continue;
				if (c == 19)
					sqlite3_bind_blob(s, k++, raw + rows[i].raw_off, (int)rows[i].raw_len, SQLITE_STATIC);
				else
					sqlite3_bind_int64(s, k++, rows[i].v[c]);
			}
		return store_step_done(st, s, false, err, "writing samples");
	}
	s = st->writer->stmt[STMT_SAMPLE_BATCH];
	for (i = 0; i < SAMPLE_BATCH; i++)
		store_bind_sample_row(s, 1 + (int)i * SAMPLE_COLS, raw, &rows[i]);
	return store_step_done(st, s, false, err, "writing samples");
}
