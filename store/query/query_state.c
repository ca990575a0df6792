/* The query side's state of a handle, and the temp aggregates of the
 * filtered views: tables shaped like the main aggregates, rebuilt by
 * store/filter/rebuild.c and cached until the options or the session
 * change. */
#include "store/query/query_priv.h"
#include "store/agg/agg.h"
#include "store/filter/filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct store_query_state *store_query_state_new(void)
{
	return calloc(1, sizeof(struct store_query_state));
}

void store_query_state_free(struct store_query_state *q)
{
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

const char *store_agg_schema(struct store *st, const struct store_filter *f, struct c2c_error *err)
{
	static const char *const names[] = { "agg_line", "agg_offset", "agg_pareto", "agg_line_cpu", "agg_line_node",
					     "agg_cell", "agg_cpu", "agg_node", "agg_lock", "agg_session", "agg_line_seq",
					     "agg_prow" };
	struct agg a;
	char sql[64];

	if (!store_filter_needs_recompute(f))
		return "main";
	uint64_t version = data_version(st);
	if (st->query->tmp_valid && st->query->tmp_generation == version && same_filter(st, f))
		return "temp";
	st->query->tmp_valid = false;
	if (agg_create_tables(st, "temp", err) < 0 || agg_rep_create_tables(st, "temp", err) < 0)
		return NULL;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(sql, sizeof(sql), "DELETE FROM temp.%s;", names[i]);
		if (store_exec(st, sql, err) < 0)
			return NULL;
	}
	agg_init(&a, store_line_size(st, f));
	if (agg_rebuild(&a, st, f, "temp", err) < 0 || agg_flush(&a, st, "temp", err) < 0) {
		agg_fini(&a);
		return NULL;
	}
	agg_fini(&a);
	st->query->tmp_valid = true;
	st->query->tmp_generation = version;
	st->query->tmp_filter = *f;
	st->query->tmp_filter.symbol = NULL;
	return "temp";
}
