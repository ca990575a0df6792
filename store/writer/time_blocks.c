/* Time ranges of blocks of samples: for every TIME_BLOCK consecutive
 * sample ids, the smallest and largest sample time (table
 * sample_time_blocks, written with the samples at each commit). A query
 * with a time window then scans only the ids of the blocks that overlap
 * it (samples come in time order, so a window of a tenth of the session
 * reads about a tenth of the rows) instead of every sample; the time
 * condition is still checked on each row, so the answer is the same.
 * Only sessions created with the table use it (meta time_blocks = 1); the
 * writer turns it off if the ids it expected ever differ from the file's.
 * The condition a time window adds to a scan is store/filter/filter_sql.c's. */
#include "store/writer/writer_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define TIME_BLOCK 4096

const char store_time_blocks_schema[] =
	"CREATE TABLE IF NOT EXISTS sample_time_blocks (block INTEGER PRIMARY KEY, first_id INTEGER NOT NULL,"
	" last_id INTEGER NOT NULL, tmin INTEGER NOT NULL, tmax INTEGER NOT NULL);";

static int set_meta(struct store *st, const char *value, struct c2c_error *err)
{
	sqlite3_stmt *s;
	int r;

	if ((r = store_prepare(st, &s, "INSERT OR REPLACE INTO main.meta (key, value) VALUES ('time_blocks', ?1)", err)) < 0)
		return r;
	sqlite3_bind_text(s, 1, value, -1, SQLITE_STATIC);
	r = sqlite3_step(s);
	sqlite3_finalize(s);
	return r == SQLITE_DONE ? 0 : store_sqlerr(st, err, "writing sample_time_blocks");
}

int store_time_blocks_create(struct store *st, struct c2c_error *err)
{
	int r;

	if ((r = store_exec(st, store_time_blocks_schema, err)) < 0 || (r = set_meta(st, "1", err)) < 0)
		return r;
	st->time_blocks = true;
	st->writer->tb.next_id = 1;
	return 0;
}

bool store_time_blocks_load(struct store *st)
{
	char v[8];

	st->time_blocks = store_get_meta(st, "time_blocks", v, sizeof(v)) > 0 && !strcmp(v, "1");
	return st->time_blocks;
}

int store_time_blocks_start(struct store *st, struct c2c_error *err)
{
	sqlite3_stmt *s;
	int r;

	if (!st->time_blocks)
		return 0;
	if (st->sample_blocks) {
		int64_t id = store_blocks_next_id(st, err);
		if (id < 0)
			return (int)id;
		st->writer->tb.next_id = id;
		return 0;
	}
	if ((r = store_prepare(st, &s, "SELECT COALESCE(MAX(id), 0) + 1 FROM main.samples", err)) < 0)
		return r;
	r = sqlite3_step(s);
	st->writer->tb.next_id = r == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	sqlite3_finalize(s);
	return r == SQLITE_ROW ? 0 : store_sqlerr(st, err, "reading the last sample id");
}

int store_time_blocks_add(struct store *st, uint64_t time)
{
	struct store_time_blocks *tb = &st->writer->tb;
	int64_t id = tb->next_id++;
	int64_t block = (id - 1) / TIME_BLOCK;

	if (!st->time_blocks)
		return 0;
	if (tb->cur.used && tb->cur.block != block) {
		if (store_grow((void **)&tb->done, &tb->done_cap, tb->ndone + 1, sizeof(*tb->done)) < 0)
			return -ENOMEM;
		tb->done[tb->ndone++] = tb->cur;
		tb->cur.used = false;
	}
	if (!tb->cur.used) {
		tb->cur = (struct store_time_block){ .block = block, .first_id = id, .last_id = id, .tmin = time,
						     .tmax = time, .used = true };
		return 0;
	}
	tb->cur.last_id = id;
	if (time < tb->cur.tmin)
		tb->cur.tmin = time;
	if (time > tb->cur.tmax)
		tb->cur.tmax = time;
	return 0;
}

static int upsert(struct store *st, sqlite3_stmt *s, const struct store_time_block *b, struct c2c_error *err)
{
	sqlite3_bind_int64(s, 1, b->block);
	sqlite3_bind_int64(s, 2, b->first_id);
	sqlite3_bind_int64(s, 3, b->last_id);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)b->tmin);
	sqlite3_bind_int64(s, 5, (sqlite3_int64)b->tmax);
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : store_sqlerr(st, err, "writing sample_time_blocks");
}

int store_time_blocks_flush(struct store *st, struct c2c_error *err)
{
	struct store_time_blocks *tb = &st->writer->tb;
	sqlite3_stmt *s;
	int64_t last = 0;
	int r;

	if (!st->time_blocks || (!tb->ndone && !tb->cur.used))
		return 0;
	/* The ids were counted, not read back: check the count. */
	if (st->sample_blocks) {
		last = store_blocks_next_id(st, err);
		if (last < 0)
			return (int)last;
		last--;
	} else {
		if ((r = store_prepare(st, &s, "SELECT COALESCE(MAX(id), 0) FROM main.samples", err)) < 0)
			return r;
		if (sqlite3_step(s) == SQLITE_ROW)
			last = sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
	}
	if (last != tb->next_id - 1) {
		st->time_blocks = false;
		tb->ndone = 0;
		tb->cur.used = false;
		return set_meta(st, "0", err);
	}
	/* The block being filled is written too and widened at later commits. */
	if ((r = store_prepare(st, &s, "INSERT INTO main.sample_time_blocks (block, first_id, last_id, tmin, tmax)"
				 " VALUES (?,?,?,?,?) ON CONFLICT(block) DO UPDATE SET"
				 " first_id = MIN(first_id, excluded.first_id), last_id = MAX(last_id, excluded.last_id),"
				 " tmin = MIN(tmin, excluded.tmin), tmax = MAX(tmax, excluded.tmax)", err)) < 0)
		return r;
	for (size_t i = 0; i < tb->ndone && r == 0; i++)
		r = upsert(st, s, &tb->done[i], err);
	if (r == 0 && tb->cur.used)
		r = upsert(st, s, &tb->cur, err);
	sqlite3_finalize(s);
	if (r == 0)
		tb->ndone = 0;
	return r;
}

void store_time_blocks_free(struct store_time_blocks *tb)
{
	free(tb->done);
	memset(tb, 0, sizeof(*tb));
}
