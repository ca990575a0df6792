/* Queries: the session summary, events, and the SQL functions through
 * which the queries apply collector/c2c/c2c.h's rules. */
#include "store/query/query_priv.h"
#include "store/agg/agg.h"
#include "store/filter/filter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* c2c_displayed(mode, show_all, <32 counters>): perf's line filter
 * against the shared totals of the running query (st->query->q_shared). */
static void sql_displayed(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct store *st = sqlite3_user_data(ctx);
	struct c2c_stats line;

	if (argc != 2 + C2C_COUNTER_MAX) {
		sqlite3_result_error(ctx, "c2c_displayed: wrong number of arguments", -1);
		return;
	}
	for (int c = 0; c < C2C_COUNTER_MAX; c++)
		*c2c_stats_ref(&line, (enum c2c_counter)c) = (uint64_t)sqlite3_value_int64(argv[2 + c]);
	sqlite3_result_int(ctx, c2c_line_displayed(&line, &st->query->q_shared, (enum c2c_display)sqlite3_value_int(argv[0]),
						   sqlite3_value_int(argv[1]) != 0));
}

/* c2c_row_valid(mode, <32 counters>) */
static void sql_row_valid(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct c2c_stats row;

	if (argc != 1 + C2C_COUNTER_MAX) {
		sqlite3_result_error(ctx, "c2c_row_valid: wrong number of arguments", -1);
		return;
	}
	for (int c = 0; c < C2C_COUNTER_MAX; c++)
		*c2c_stats_ref(&row, (enum c2c_counter)c) = (uint64_t)sqlite3_value_int64(argv[1 + c]);
	sqlite3_result_int(ctx, c2c_row_valid(&row, (enum c2c_display)sqlite3_value_int(argv[0])));
}

/* c2c_value(mode, tot_hitm, lcl_hitm, rmt_hitm, tot_peer) */
static void sql_value(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct c2c_stats s;
	memset(&s, 0, sizeof(s));
	(void)argc;
	s.tot_hitm = (uint64_t)sqlite3_value_int64(argv[1]);
	s.lcl_hitm = (uint64_t)sqlite3_value_int64(argv[2]);
	s.rmt_hitm = (uint64_t)sqlite3_value_int64(argv[3]);
	s.tot_peer = (uint64_t)sqlite3_value_int64(argv[4]);
	sqlite3_result_int64(ctx, (sqlite3_int64)c2c_display_value(&s, (enum c2c_display)sqlite3_value_int(argv[0])));
}

int store_register_functions(struct store *st, struct c2c_error *err)
{
	if (st->query->sql_funcs)
		return 0;
	if (sqlite3_create_function(st->db, "c2c_displayed", 2 + C2C_COUNTER_MAX, SQLITE_UTF8 | SQLITE_DETERMINISTIC, st,
				    sql_displayed, NULL, NULL) != SQLITE_OK ||
	    sqlite3_create_function(st->db, "c2c_row_valid", 1 + C2C_COUNTER_MAX, SQLITE_UTF8 | SQLITE_DETERMINISTIC, st,
				    sql_row_valid, NULL, NULL) != SQLITE_OK ||
	    sqlite3_create_function(st->db, "c2c_value", 5, SQLITE_UTF8 | SQLITE_DETERMINISTIC, st, sql_value, NULL,
				    NULL) != SQLITE_OK)
		return store_sqlerr(st, err, "registering functions");
	st->query->sql_funcs = true;
	return 0;
}

int store_shared_totals(struct store *st, const char *schema, struct c2c_stats *out, uint64_t *nlines,
			struct c2c_error *err)
{
	struct store_line_summary sum;
	char sql[2048];
	sqlite3_stmt *s;
	int r;

	if (store_line_summary_read(st, schema, &sum) == 1) {
		*out = sum.shared;
		if (nlines)
			*nlines = sum.nr_shared_lines;
		return 0;
	}
	snprintf(sql, sizeof(sql), "SELECT COUNT(*), %s FROM %s.agg_line WHERE shared = 1", store_stats_sums(), schema);
	if ((r = store_prepare(st, &s, sql, err)) < 0)
		return r;
	memset(out, 0, sizeof(*out));
	if (sqlite3_step(s) == SQLITE_ROW) {
		if (nlines)
			*nlines = (uint64_t)sqlite3_column_int64(s, 0);
		store_read_stats(s, 1, out);
	}
	sqlite3_finalize(s);
	return 0;
}

static int64_t scalar(struct store *st, const char *sql, int64_t dflt)
{
	sqlite3_stmt *s;
	int64_t v = dflt;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return dflt;
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

static void reload_counters(struct store *st)
{
	sqlite3_stmt *s;
	/* A reader sees the writer's commits: re-read (the writer's own
	 * handle keeps its in-memory values, which include pending ones). */
	if (st->writable || sqlite3_prepare_v2(st->db, "SELECT name, value FROM counters", -1, &s, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 0);
		for (int c = 0; c < STORE_CNT__MAX && name; c++)
			if (!strcmp(name, store_counter_name((enum store_counter)c)))
				st->counters[c] = (uint64_t)sqlite3_column_int64(s, 1);
	}
	sqlite3_finalize(s);
}

int store_query_summary(struct store *st, const struct store_filter *f, struct store_summary *out,
			struct c2c_error *err)
{
	/* the tables read below, and store_shared_totals' */
	const char *schema = store_agg_schema_for(st, f,
						  (1u << AGG_CPU) | (1u << AGG_NODE) | (1u << AGG_LINE) |
							  (1u << AGG_LOCK) | AGG_FLUSH_SESSION,
						  err);
	struct store_line_summary lines;
	char sql[2048];
	sqlite3_stmt *s;
	int r;

	if (!schema)
		return err ? err->code : -EIO;
	memset(out, 0, sizeof(*out));
	snprintf(sql, sizeof(sql), "SELECT %s, %s, cpu, node FROM %s.agg_cpu", store_stats_cols(), store_lat_cols(),
		 schema);
	if ((r = store_prepare(st, &s, sql, err)) < 0)
		return r;
	while (sqlite3_step(s) == SQLITE_ROW) {
		struct c2c_stats cs;
		struct store_lat lat;
		memset(&cs, 0, sizeof(cs));
		memset(&lat, 0, sizeof(lat));
		int i = store_read_stats(s, 0, &cs);
		store_read_lat(s, i, &lat);
		c2c_stats_add(&out->total, &cs);
		store_lat_merge(&out->lat, &lat);
		if (sqlite3_column_int64(s, i + STORE_NR_LAT_COLS) >= 0)
			out->nr_cpus_seen++;
	}
	sqlite3_finalize(s);
	if ((r = store_shared_totals(st, schema, &out->shared, &out->nr_shared_lines, err)) < 0)
		return r;
	if (store_line_summary_read(st, schema, &lines) == 1) {
		out->nr_lines = lines.nr_lines;
	} else {
		snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM %s.agg_line WHERE nr_entries > 0", schema);
		out->nr_lines = (uint64_t)scalar(st, sql, 0);
	}
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM %s.agg_node WHERE node >= 0", schema);
	out->nr_nodes_seen = (uint32_t)scalar(st, sql, 0);
	snprintf(sql, sizeof(sql), "SELECT value FROM %s.agg_session WHERE name = 'nr_samples'", schema);
	out->nr_samples = (uint64_t)scalar(st, sql, 0);
	snprintf(sql, sizeof(sql), "SELECT value FROM %s.agg_session WHERE name = 'nr_threads'", schema);
	out->nr_threads_seen = (uint32_t)scalar(st, sql, 0);
	snprintf(sql, sizeof(sql), "SELECT value FROM %s.agg_session WHERE name = 'time_first'", schema);
	out->time_first = (uint64_t)scalar(st, sql, 0);
	snprintf(sql, sizeof(sql), "SELECT value FROM %s.agg_session WHERE name = 'time_last'", schema);
	out->time_last = (uint64_t)scalar(st, sql, 0);
	snprintf(sql, sizeof(sql), "SELECT COALESCE(SUM(waits), 0), COALESCE(SUM(wait_ns), 0),"
		 " COALESCE(MAX(max_wait_ns), 0) FROM %s.agg_lock", schema);
	if ((r = store_prepare(st, &s, sql, err)) < 0)
		return r;
	if (sqlite3_step(s) == SQLITE_ROW) {
		out->lock_waits = (uint64_t)sqlite3_column_int64(s, 0);
		out->lock_wait_ns = (uint64_t)sqlite3_column_int64(s, 1);
		out->lock_wait_max_ns = (uint64_t)sqlite3_column_int64(s, 2);
	}
	sqlite3_finalize(s);
	out->nr_events = (uint32_t)scalar(st, "SELECT COUNT(*) FROM main.events", 0);
	reload_counters(st);
	memcpy(out->counters, st->counters, sizeof(out->counters));
	out->cacheline_size = store_line_size(st, f);
	return 0;
}

int store_query_events(struct store *st, struct store_event_row **rows, size_t *n, struct c2c_error *err)
{
	sqlite3_stmt *s;
	size_t cap = 0;
	int r;

	*rows = NULL;
	*n = 0;
	if ((r = store_prepare(st, &s, "SELECT e.idx, e.name, e.attr_type, e.config, e.sample_type, e.sample_period,"
				 " e.freq, COALESCE(a.value, 0) FROM main.events e LEFT JOIN main.agg_session a"
				 " ON a.name = 'event:' || e.idx ORDER BY e.idx", err)) < 0)
		return r;
	while (sqlite3_step(s) == SQLITE_ROW) {
		if (store_grow((void **)rows, &cap, *n + 1, sizeof(**rows)) < 0) {
			sqlite3_finalize(s);
			free(*rows);
			*rows = NULL;
			*n = 0;
			return c2c_error_set(err, -ENOMEM, "out of memory");
		}
		struct store_event_row *e = &(*rows)[(*n)++];
		memset(e, 0, sizeof(*e));
		e->index = (uint32_t)sqlite3_column_int64(s, 0);
		store_col_text(s, 1, e->name, sizeof(e->name));
		e->attr_type = (uint32_t)sqlite3_column_int64(s, 2);
		e->config = (uint64_t)sqlite3_column_int64(s, 3);
		e->sample_type = (uint64_t)sqlite3_column_int64(s, 4);
		e->sample_period = (uint64_t)sqlite3_column_int64(s, 5);
		e->freq = sqlite3_column_int(s, 6) != 0;
		e->nr_samples = (uint64_t)sqlite3_column_int64(s, 7);
	}
	sqlite3_finalize(s);
	return 0;
}
