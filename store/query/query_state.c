/* The query side's state of a handle, and the temp aggregates of the
 * filtered views: tables shaped like the main aggregates, rebuilt by
 * store/filter/rebuild.c and cached until the options or the session
 * change. */
#include "store/query/query_priv.h"
#include "store/agg/agg.h"
#include "store/filter/filter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct store_query_state *store_query_state_new(void)
{
	return calloc(1, sizeof(struct store_query_state));
}

/* The aggregates of the filtered view kept for the tables not written yet. */
static void drop_tmp_agg(struct store_query_state *q)
{
	if (q->tmp_agg) {
		agg_fini(q->tmp_agg);
		free(q->tmp_agg);
		q->tmp_agg = NULL;
	}
}

void store_query_state_free(struct store_query_state *q)
{
	if (q)
		drop_tmp_agg(q);
	free(q);
}

static bool same_filter(const struct store *st, const struct store_filter *f)
{
	const struct store_filter *o = &st->query->tmp_filter;
	return o->cpu == f->cpu && o->node == f->node && o->pid == f->pid && o->tid == f->tid &&
	       o->time_from == f->time_from && o->time_to == f->time_to && o->double_cl == f->double_cl &&
	       o->phys_lines == f->phys_lines && !memcmp(&o->cpus, &f->cpus, sizeof(f->cpus)) &&
	       !memcmp(&o->nodes, &f->nodes, sizeof(f->nodes)) && !memcmp(&o->pids, &f->pids, sizeof(f->pids)) &&
	       !memcmp(&o->tids, &f->tids, sizeof(f->tids));
}

/* Changes whenever this handle or another connection commits, so temp
 * aggregates of a reader follow a live writer. */
static uint64_t data_version(struct store *st)
{
	sqlite3_stmt *s;
	uint64_t v = 0;
	if (sqlite3_prepare_v2(st->db, "PRAGMA data_version", -1, &s, NULL) == SQLITE_OK) {
		if (sqlite3_step(s) == SQLITE_ROW)
			v = (uint64_t)sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
	}
	return (v << 32) ^ st->generation;
}

/* Writes the tables of need the filtered view's aggregates still hold;
 * once all are written the aggregates go. */
static int write_tables(struct store *st, unsigned need, struct c2c_error *err)
{
	struct store_query_state *q = st->query;
	unsigned todo = need & ~q->tmp_written;

	if (todo && q->tmp_agg) {
		if (agg_flush_tables(q->tmp_agg, st, "temp", todo, err) < 0)
			return -1;
		q->tmp_written |= todo;
	}
	if ((q->tmp_written & AGG_FLUSH_ALL) == AGG_FLUSH_ALL)
		drop_tmp_agg(q);
	return 0;
}

const char *store_agg_schema(struct store *st, const struct store_filter *f, struct c2c_error *err)
{
	return store_agg_schema_for(st, f, AGG_FLUSH_ALL, err);
}

const char *store_agg_schema_for(struct store *st, const struct store_filter *f, unsigned tables,
				 struct c2c_error *err)
{
	static const char *const names[] = { "agg_line", "agg_offset", "agg_pareto", "agg_line_cpu", "agg_line_node",
					     "agg_cell", "agg_cpu", "agg_node", "agg_lock", "agg_session", "agg_line_seq",
					     "agg_prow" };
	struct store_query_state *q = st->query;
	char sql[64];

	if (!store_filter_needs_recompute(f))
		return "main";
	uint64_t version = data_version(st);
	if (q->tmp_valid && q->tmp_generation == version && same_filter(st, f)) {
		if (write_tables(st, tables, err) < 0) {
			q->tmp_valid = false;
			drop_tmp_agg(q);
			return NULL;
		}
		return "temp";
	}
	q->tmp_valid = false;
	drop_tmp_agg(q);
	if (agg_create_tables(st, "temp", err) < 0 || agg_rep_create_tables(st, "temp", err) < 0)
		return NULL;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(sql, sizeof(sql), "DELETE FROM temp.%s;", names[i]);
		if (store_exec(st, sql, err) < 0)
			return NULL;
	}
	if (!(q->tmp_agg = malloc(sizeof(*q->tmp_agg)))) {
		c2c_error_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	agg_init(q->tmp_agg, store_line_size(st, f));
	q->tmp_written = 0;
	/* a view reads a few tables first (the lines view: its lines and the
	 * session's totals): the others are written when a query asks */
	if (agg_rebuild(q->tmp_agg, st, f, "temp", err) < 0 || write_tables(st, tables, err) < 0) {
		drop_tmp_agg(q);
		return NULL;
	}
	q->tmp_valid = true;
	q->tmp_generation = version;
	q->tmp_filter = *f;
	q->tmp_filter.symbol = NULL;
	return "temp";
}
