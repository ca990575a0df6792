/* Samples of a block session written as column blocks of the
 * sample_blocks table (store/base/sample_codec.c).
 *
 * Since schema version 3 (the session has sample_block_index) a block
 * holds one CPU's samples: rows are gathered per partition (a CPU class,
 * cpu % 64; timed samples without a CPU; samples without a time (or at
 * time 0), which keep their arrival order among themselves), so a CPU or node filter reads
 * only its CPUs' blocks. Each block reserves BLOCK_ROWS ids when it is
 * started, so ids stay unique and follow time within a block, and a
 * block's ids are first_id .. first_id + n - 1 as before; across blocks
 * time order is ORDER BY time, id (store/base/sample_merge.c). Older block
 * sessions (version 2) appended to keep one partition: contiguous ids in
 * arrival order.
 *
 * A full block is encoded and inserted at once; at each commit the blocks
 * being filled are written too, so the file holds every committed sample,
 * and the next commit rewrites them (same first_id) with the rows added
 * since: a live collection's small commits still make full-size blocks.
 * Runs on the thread that owns the connection at the time (the sample
 * thread in bulk loads, else the writer's). */
#include "store/writer/writer_priv.h"
#include "store/base/sample_codec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_ROWS 4096
#define PART_UNTIMED 0
#define PART_NO_CPU 1
#define PART_CPU0 2

static int next_id(struct store *st, struct c2c_error *err)
{
	sqlite3_stmt *s;
	int r;

	/* blocks own disjoint id ranges in first_id order: the last one's
	 * used ids end after every other block's */
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

static unsigned part_of(const struct store *st, const struct store_sample_rec *r)
{
	if (!st->sample_parts)
		return PART_UNTIMED;
	/* time 0 is a recording without times: arrival order is all it has */
	if (!(r->present & 1u) || r->v[0] == 0)
		return PART_UNTIMED;
	if (!(r->present & 4u) || r->v[2] < 0)
		return PART_NO_CPU;
	return PART_CPU0 + (unsigned)(r->v[2] % 64);
}

/* tmin, tmax at parameters i, i + 1: NULL when no row has a time */
static void bind_times(sqlite3_stmt *s, int i, int64_t tmin, int64_t tmax)
{
	if (tmin <= tmax) {
		sqlite3_bind_int64(s, i, tmin);
		sqlite3_bind_int64(s, i + 1, tmax);
	} else {
		sqlite3_bind_null(s, i);
		sqlite3_bind_null(s, i + 1);
	}
}

static int write_block(struct store *st, struct store_block_part *p, struct c2c_error *err)
{
	struct store_block_acc *b = &st->writer->blocks;
	unsigned char *data = NULL;
	size_t len = 0;
	int64_t tmin = INT64_MAX, tmax = INT64_MIN;
	int r;

	if (sample_block_encode(p->rows, p->n, p->raw, &data, &len) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory while encoding samples");
	for (size_t i = 0; i < p->n; i++)
		if (p->rows[i].present & 1u) {
			if (p->rows[i].v[0] < tmin)
				tmin = p->rows[i].v[0];
			if (p->rows[i].v[0] > tmax)
				tmax = p->rows[i].v[0];
		}
	if (!b->insert && (r = store_prepare(st, &b->insert, "INSERT OR REPLACE INTO main.sample_blocks"
					     " (first_id, n, tmin, tmax, data) VALUES (?,?,?,?,?)", err)) < 0) {
		free(data);
		return r;
	}
	sqlite3_bind_int64(b->insert, 1, p->first_id);
	sqlite3_bind_int64(b->insert, 2, (sqlite3_int64)p->n);
	bind_times(b->insert, 3, tmin, tmax);
	sqlite3_bind_blob(b->insert, 5, data, (int)len, free);
	if ((r = store_step_done(st, b->insert, true, err, "writing samples")) < 0 || !st->sample_parts)
		return r;
	if (!b->insert_index &&
	    (r = store_prepare(st, &b->insert_index, st->block_tasks
			       ? "INSERT OR REPLACE INTO main.sample_block_index"
				 " (first_id, n, tmin, tmax, cpus, nodes, sorted, pids, tids) VALUES (?,?,?,?,?,?,?,?,?)"
			       : "INSERT OR REPLACE INTO main.sample_block_index"
				 " (first_id, n, tmin, tmax, cpus, nodes, sorted) VALUES (?,?,?,?,?,?,?)", err)) < 0)
		return r;
	sqlite3_bind_int64(b->insert_index, 1, p->first_id);
	sqlite3_bind_int64(b->insert_index, 2, (sqlite3_int64)p->n);
	bind_times(b->insert_index, 3, tmin, tmax);
	sqlite3_bind_int64(b->insert_index, 5, (sqlite3_int64)p->cpus);
	sqlite3_bind_int64(b->insert_index, 6, (sqlite3_int64)p->nodes);
	sqlite3_bind_int(b->insert_index, 7, p->sorted);
	if (st->block_tasks) {
		/* a row without a pid or tid, or with a negative one: -1, so
		 * every process or thread filter reads the block */
		sqlite3_bind_int64(b->insert_index, 8, p->tasks_all ? -1 : (sqlite3_int64)p->pids);
		sqlite3_bind_int64(b->insert_index, 9, p->tasks_all ? -1 : (sqlite3_int64)p->tids);
	}
	return store_step_done(st, b->insert_index, true, err, "writing samples");
}

static struct store_block_part *part_get(struct store_block_acc *b, unsigned k)
{
	if (!b->part[k])
		b->part[k] = calloc(1, sizeof(*b->part[k]));
	return b->part[k];
}

int store_blocks_append(struct store *st, const struct store_sample_rec *rows, size_t n, const unsigned char *raw,
			struct c2c_error *err)
{
	struct store_block_acc *b = &st->writer->blocks;
	int r;

	if (!b->started && (r = next_id(st, err)) < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		struct store_block_part *p = part_get(b, part_of(st, &rows[i]));
		if (!p)
			return c2c_error_set(err, -ENOMEM, "out of memory");
		if (p->n == 0) {
			p->first_id = b->next_id;
			/* one partition: ids stay contiguous (a version 2 session) */
			b->next_id += st->sample_parts ? BLOCK_ROWS : 0;
			p->raw_len = 0;
			p->cpus = p->nodes = p->pids = p->tids = 0;
			p->tasks_all = false;
			p->sorted = true;
		}
		if (store_grow((void **)&p->rows, &p->cap, p->n + 1, sizeof(*p->rows)) < 0)
			return c2c_error_set(err, -ENOMEM, "out of memory");
		struct store_sample_rec *to = &p->rows[p->n];
		*to = rows[i];
		if (to->present & (1u << STORE_SAMPLE_RAW_COL)) {
			if (store_grow((void **)&p->raw, &p->raw_cap, p->raw_len + to->raw_len + 1, 1) < 0)
				return c2c_error_set(err, -ENOMEM, "out of memory");
			if (to->raw_len)
				memcpy(p->raw + p->raw_len, raw + rows[i].raw_off, to->raw_len);
			to->raw_off = p->raw_len;
			p->raw_len += to->raw_len;
		}
		if ((to->present & 4u) && to->v[2] >= 0)
			p->cpus |= 1ull << (to->v[2] % 64);
		if ((to->present & 8u) && to->v[3] >= 0)
			p->nodes |= 1ull << (to->v[3] % 64);
		if ((to->present & 16u) && to->v[4] >= 0)
			p->pids |= 1ull << (to->v[4] % 64);
		else
			p->tasks_all = true;
		if ((to->present & 32u) && to->v[5] >= 0)
			p->tids |= 1ull << (to->v[5] % 64);
		else
			p->tasks_all = true;
		if (p->n && ((to->present ^ p->rows[p->n - 1].present) & 1u ||
			     ((to->present & 1u) && to->v[0] < p->rows[p->n - 1].v[0])))
			p->sorted = false;
		p->n++;
		if (!st->sample_parts)
			b->next_id++;
		if (p->n == BLOCK_ROWS) {
			if ((r = write_block(st, p, err)) < 0)
				return r;
			p->n = 0;
		}
	}
	return 0;
}

int store_blocks_flush(struct store *st, struct c2c_error *err)
{
	struct store_block_acc *b = &st->writer->blocks;
	int r;

	/* kept: the next commit writes them again, fuller */
	for (unsigned k = 0; k < STORE_BLOCK_PARTS; k++)
		if (b->part[k] && b->part[k]->n && (r = write_block(st, b->part[k], err)) < 0)
			return r;
	return 0;
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
	sqlite3_finalize(b->insert_index);
	for (unsigned k = 0; k < STORE_BLOCK_PARTS; k++) {
		if (!b->part[k])
			continue;
		free(b->part[k]->rows);
		free(b->part[k]->raw);
		free(b->part[k]);
	}
	memset(b, 0, sizeof(*b));
}
