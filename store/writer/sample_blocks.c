/* Samples of a block session (schema version 2) written as column blocks
 * of the sample_blocks table (store/base/sample_codec.c): rows gather
 * here, a full block (BLOCK_ROWS) is encoded and inserted at once, and at
 * each commit the block being filled is written too, so the file holds
 * every committed sample; the next commit rewrites that block (same
 * first_id) with the rows added since, so a live collection's small
 * commits still make full-size blocks. Runs on the thread that owns the
 * connection at the time (the sample thread in bulk loads, else the
 * writer's), like the row INSERTs it replaces. */
#include "store/writer/writer_priv.h"
#include "store/base/sample_codec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_ROWS 4096

static int next_id(struct store *st, struct c2c_error *err)
{
	sqlite3_stmt *s;
	int r;

	if ((r = store_prepare(st, &s, "SELECT first_id + n FROM main.sample_blocks ORDER BY first_id DESC LIMIT 1",
			       err)) < 0)
		return r;
	r = sqlite3_step(s);
	st->writer->blocks.next_id = r == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 1;
	sqlite3_finalize(s);
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return store_sqlerr(st, err, "reading the last sample block");
	st->writer->blocks.started = true;
	return 0;
}

static int write_block(struct store *st, struct c2c_error *err)
{
	struct store_block_acc *b = &st->writer->blocks;
	unsigned char *data = NULL;
	size_t len = 0;
	int64_t tmin = INT64_MAX, tmax = INT64_MIN;
	int r;

	if (sample_block_encode(b->rows, b->n, b->raw, &data, &len) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory while encoding samples");
	for (size_t i = 0; i < b->n; i++)
		if (b->rows[i].present & 1u) {
			if (b->rows[i].v[0] < tmin)
				tmin = b->rows[i].v[0];
			if (b->rows[i].v[0] > tmax)
				tmax = b->rows[i].v[0];
		}
	if (!b->insert && (r = store_prepare(st, &b->insert, "INSERT OR REPLACE INTO main.sample_blocks"
					     " (first_id, n, tmin, tmax, data) VALUES (?,?,?,?,?)", err)) < 0) {
		free(data);
		return r;
	}
	sqlite3_bind_int64(b->insert, 1, b->first_id);
	sqlite3_bind_int64(b->insert, 2, (sqlite3_int64)b->n);
	if (tmin <= tmax) {
		sqlite3_bind_int64(b->insert, 3, tmin);
		sqlite3_bind_int64(b->insert, 4, tmax);
	} else {
		sqlite3_bind_null(b->insert, 3);
		sqlite3_bind_null(b->insert, 4);
	}
	sqlite3_bind_blob(b->insert, 5, data, (int)len, free);
	return store_step_done(st, b->insert, true, err, "writing samples");
}

int store_blocks_append(struct store *st, const struct store_sample_rec *rows, size_t n, const unsigned char *raw,
			struct c2c_error *err)
{
	struct store_block_acc *b = &st->writer->blocks;
	int r;

	if (!b->started && (r = next_id(st, err)) < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		if (b->n == 0) {
			b->first_id = b->next_id;
			b->raw_len = 0;
		}
		if (store_grow((void **)&b->rows, &b->cap, b->n + 1, sizeof(*b->rows)) < 0)
			return c2c_error_set(err, -ENOMEM, "out of memory");
		struct store_sample_rec *to = &b->rows[b->n];
		*to = rows[i];
		if (to->present & (1u << STORE_SAMPLE_RAW_COL)) {
			if (store_grow((void **)&b->raw, &b->raw_cap, b->raw_len + to->raw_len + 1, 1) < 0)
				return c2c_error_set(err, -ENOMEM, "out of memory");
			if (to->raw_len)
				memcpy(b->raw + b->raw_len, raw + rows[i].raw_off, to->raw_len);
			to->raw_off = b->raw_len;
			b->raw_len += to->raw_len;
		}
		b->n++;
		b->next_id++;
		if (b->n == BLOCK_ROWS) {
			if ((r = write_block(st, err)) < 0)
				return r;
			b->n = 0;
		}
	}
	return 0;
}

int store_blocks_flush(struct store *st, struct c2c_error *err)
{
	/* kept: the next commit writes it again, fuller */
	return st->writer->blocks.n ? write_block(st, err) : 0;
}

int64_t store_blocks_next_id(struct store *st, struct c2c_error *err)
{
	int r;

	if (!st->writer->blocks.started && (r = next_id(st, err)) < 0)
		return r;
	return st->writer->blocks.next_id;
}

void store_blocks_free(struct store_block_acc *b)
{
	sqlite3_finalize(b->insert);
	free(b->rows);
	free(b->raw);
	memset(b, 0, sizeof(*b));
}
