/* Queries: the lines table (perf's "Shared Data Cache Line Table") with
 * display mode, sort, filters and row ranges, and one line's row. */
#include "store/query/query_priv.h"
#include "store/agg/agg.h"
#include "collector/base/appendf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void store_lines_query_init(struct store_lines_query *q)
{
	memset(q, 0, sizeof(*q));
	q->mode = STORE_MODE_TOT;
	q->sort = STORE_SORT_HITM;
	store_filter_init(&q->filter);
}

void store_read_line_row(sqlite3_stmt *s, struct store_line_row *row)
{
	memset(row, 0, sizeof(*row));
	row->addr = (uint64_t)sqlite3_column_int64(s, 0);
	int i = store_read_stats(s, 1, &row->stats);
	i = store_read_lat(s, i, &row->lat);
	row->nr_cpus = (uint32_t)sqlite3_column_int64(s, i++);
	row->nr_threads = (uint32_t)sqlite3_column_int64(s, i++);
	row->nr_sites = (uint32_t)sqlite3_column_int64(s, i++);
	row->nr_offsets = (uint32_t)sqlite3_column_int64(s, i++);
	row->node_mask = (uint64_t)sqlite3_column_int64(s, i++);
	uint64_t start = (uint64_t)sqlite3_column_int64(s, i++);
	row->lock_waits = (uint64_t)sqlite3_column_int64(s, i++);
	row->lock_wait_ns = (uint64_t)sqlite3_column_int64(s, i++);
	if (sqlite3_column_type(s, i) != SQLITE_NULL) {
		store_col_text(s, i, row->symbol, sizeof(row->symbol));
		/* The symbol may start inside the line: offset 0 then. */
		row->symbol_offset = row->addr > start ? row->addr - start : 0;
	}
	i++;
	store_col_text(s, i, row->dso, sizeof(row->dso));
	i++;
	/* Home node: the memory node of the line's physical addresses (the
	 * report's "Node"), when the recording's memory topology put it on
	 * exactly one node; unknown otherwise. */
	row->home_node = -1;
	if (sqlite3_column_type(s, i) != SQLITE_NULL) {
		uint64_t nodes = (uint64_t)sqlite3_column_int64(s, i);

		if (nodes && !(nodes & (nodes - 1)))
			row->home_node = __builtin_ctzll(nodes);
	}
}

/* The home-node column: from the import-time physical-address aggregate
 * (filter-independent: it is where the memory is), NULL when the session
 * has none. */
static const char *home_node_col(struct store *st)
{
	sqlite3_stmt *s;
	bool have = false;

	if (sqlite3_prepare_v2(st->db, "SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = 'agg_line_seq'",
			       -1, &s, NULL) == SQLITE_OK) {
		have = sqlite3_step(s) == SQLITE_ROW;
		sqlite3_finalize(s);
	}
	return have ? "(SELECT q.phys_nodes FROM main.agg_line_seq q WHERE q.line = l.line)" : "NULL";
}

static const char *mode_col(enum store_mode m)
{
	switch (m) {
	case STORE_MODE_LCL: return "l.lcl_hitm";
	case STORE_MODE_RMT: return "l.rmt_hitm";
	case STORE_MODE_PEER: return "l.tot_peer";
	default: return "l.tot_hitm";
	}
}

/* ORDER BY for a sort key; ties in line-address order (unsigned). */
static void order_by(const struct store_lines_query *q, char *buf, size_t size)
{
	const char *dir = q->ascending ? "ASC" : "DESC";
	const char *key;
	char tmp[160];

	switch (q->sort) {
	case STORE_SORT_TOT_HITM: key = "l.tot_hitm"; break;
	case STORE_SORT_LCL_HITM: key = "l.lcl_hitm"; break;
	case STORE_SORT_RMT_HITM: key = "l.rmt_hitm"; break;
	case STORE_SORT_PEER: key = "l.tot_peer"; break;
	case STORE_SORT_LOADS: key = "l.load"; break;
	case STORE_SORT_STORES: key = "l.store"; break;
	case STORE_SORT_RECORDS: key = "l.nr_entries"; break;
	case STORE_SORT_LAT:
		key = "(CASE WHEN l.lat_load_n + l.lat_lcl_hitm_n + l.lat_rmt_hitm_n + l.lat_lcl_peer_n + l.lat_rmt_peer_n > 0"
		      " THEN CAST(l.lat_load_sum + l.lat_lcl_hitm_sum + l.lat_rmt_hitm_sum + l.lat_lcl_peer_sum"
		      " + l.lat_rmt_peer_sum AS REAL) / (l.lat_load_n + l.lat_lcl_hitm_n + l.lat_rmt_hitm_n"
		      " + l.lat_lcl_peer_n + l.lat_rmt_peer_n) ELSE 0 END)";
		break;
	case STORE_SORT_CPUS: key = "l.nr_cpus"; break;
	case STORE_SORT_THREADS: key = "l.nr_threads"; break;
	case STORE_SORT_SITES: key = "l.nr_sites"; break;
	case STORE_SORT_LOCK_WAIT: key = "l.lock_wait_ns"; break;
	case STORE_SORT_PERF_RECORDS:
		/* c2c_total_records: LLC misses + cache hits + classified stores */
		key = "(l.lcl_dram + l.rmt_dram + l.rmt_hitm + l.rmt_hit + l.ld_fbhit + l.ld_l1hit + l.ld_l2hit"
		      " + l.ld_llchit + l.lcl_hitm + l.st_l1hit + l.st_l1miss + l.st_na)";
		break;
	case STORE_SORT_ADDR:
		snprintf(buf, size, "(l.line < 0) %s, l.line %s", dir, dir);
		return;
	case STORE_SORT_SYMBOL:
		snprintf(buf, size, "d.name IS NULL, d.name %s, (l.line < 0), l.line", dir);
		return;
	case STORE_SORT_HITM:
	default:
		if ((int)q->sort >= STORE_SORT_COUNTER && (int)q->sort < STORE_SORT_COUNTER + C2C_COUNTER_MAX)
			snprintf(tmp, sizeof(tmp), "l.%s", c2c_counter_name((enum c2c_counter)(q->sort - STORE_SORT_COUNTER)));
		else
			snprintf(tmp, sizeof(tmp), "%s", mode_col(q->mode));
		key = tmp;
		break;
	}
	snprintf(buf, size, "%s %s, (l.line < 0), l.line", key, dir);
}

static void stats_args(char *buf, size_t size)
{
	/* "l.nr_entries,l.locks,..." for the c2c_displayed() call */
	size_t n = 0;
	buf[0] = 0;
	for (int c = 0; c < C2C_COUNTER_MAX && n < size; c++)
		n = c2c_appendf(buf, size, n, ",l.%s", c2c_counter_name((enum c2c_counter)c));
}

static void prefixed_cols(const char *cols, char *buf, size_t size)
{
	/* "a,b,c" -> "l.a,l.b,l.c" */
	size_t n = 0;
	const char *p = cols;
	buf[0] = 0;
	while (*p && n < size) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		n = c2c_appendf(buf, size, n, "%sl.%.*s", n ? "," : "", (int)len, p);
		p += len + (e ? 1 : 0);
	}
}

static int build_where(struct store *st, const struct store_lines_query *q, const char *schema, char *buf,
		       size_t size, struct c2c_error *err)
{
	char args[1024];
	size_t n;
	int r;

	if ((r = store_shared_totals(st, schema, &st->query->q_shared, NULL, err)) < 0)
		return r;
	stats_args(args, sizeof(args));
	n = (size_t)snprintf(buf, size, " WHERE (c2c_displayed(%d, %d%s)%s)", (int)q->mode, q->show_all ? 1 : 0, args,
			     q->with_locks ? " OR l.lock_waits > 0" : "");
	/* A bound the displayed lines meet, so the mode's index (if the
	 * session has it) finds them without reading every line: exact when
	 * no count passes 32 bits (perf's comparison truncates), and only a
	 * shared line has a display count, none above the shared total. */
	if (!q->show_all && !q->with_locks) {
		uint64_t total = c2c_display_value(&st->query->q_shared, (enum c2c_display)q->mode);
		double least = (double)total * C2C_DISPLAY_LINE_LIMIT;

		if (total <= UINT32_MAX)
			n = c2c_appendf(buf, size, n, " AND %s >= %llu", mode_col(q->mode),
					least > 2 ? (unsigned long long)least - 1 : 1ULL);
	}
	if (q->filter.min_hitm)
		n = c2c_appendf(buf, size, n, " AND %s >= :minhitm", mode_col(q->mode));
	if (q->filter.symbol && q->filter.symbol[0])
		n = c2c_appendf(buf, size, n,
				" AND (instr(lower(COALESCE(d.name, '')), lower(:sym)) > 0 OR EXISTS"
				" (SELECT 1 FROM %s.agg_pareto p JOIN main.sites s ON s.id = p.site"
				" WHERE p.line = l.line AND instr(lower(COALESCE(s.function, '')), lower(:sym)) > 0))",
				schema);
	if (n >= size)
		return c2c_error_set(err, -E2BIG, "query too long");
	return 0;
}

static void bind_where(sqlite3_stmt *s, const struct store_lines_query *q)
{
	int i;
	if ((i = sqlite3_bind_parameter_index(s, ":minhitm")))
		sqlite3_bind_int64(s, i, (sqlite3_int64)q->filter.min_hitm);
	if ((i = sqlite3_bind_parameter_index(s, ":sym")))
		sqlite3_bind_text(s, i, q->filter.symbol, -1, SQLITE_TRANSIENT);
}

int store_query_lines(struct store *st, const struct store_lines_query *q, struct store_line_row **rows,
		      size_t *n, uint64_t *total, struct c2c_error *err)
{
	/* agg_line, the shared totals in agg_session, the sites for a symbol */
	unsigned tables = (1u << AGG_LINE) | AGG_FLUSH_SESSION |
			  (q->filter.symbol && q->filter.symbol[0] ? 1u << AGG_PARETO : 0);
	const char *schema = store_agg_schema_for(st, &q->filter, tables, err);
	char where[2048], order[512], cols[1024], lat[1024], sel[3072], *sql;
	sqlite3_stmt *s;
	size_t cap = 0;
	int r;

	*rows = NULL;
	*n = 0;
	if (total)
		*total = 0;
	if (!schema)
		return err ? err->code : -EIO;
	if ((r = build_where(st, q, schema, where, sizeof(where), err)) < 0)
		return r;
	if (total) {
		if (asprintf(&sql, "SELECT COUNT(*) FROM %s.agg_line l LEFT JOIN main.dsyms d ON d.id = l.dsym%s", schema,
			     where) < 0)
			return c2c_error_set(err, -ENOMEM, "out of memory");
		r = store_prepare(st, &s, sql, err);
		free(sql);
		if (r < 0)
			return r;
		bind_where(s, q);
		if (sqlite3_step(s) == SQLITE_ROW)
			*total = (uint64_t)sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
	}
	order_by(q, order, sizeof(order));
	prefixed_cols(store_stats_cols(), cols, sizeof(cols));
	prefixed_cols(store_lat_cols(), lat, sizeof(lat));
	snprintf(sel, sizeof(sel), LINE_ROW_COLS_FMT, cols, lat, home_node_col(st));
	if (asprintf(&sql, "SELECT %s FROM %s.agg_line l LEFT JOIN main.dsyms d ON d.id = l.dsym%s ORDER BY %s"
		     " LIMIT :limit OFFSET :offset", sel, schema, where, order) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	r = store_prepare(st, &s, sql, err);
	free(sql);
	if (r < 0)
		return r;
	bind_where(s, q);
	sqlite3_bind_int64(s, sqlite3_bind_parameter_index(s, ":limit"), q->limit ? (sqlite3_int64)q->limit : -1);
	sqlite3_bind_int64(s, sqlite3_bind_parameter_index(s, ":offset"), (sqlite3_int64)q->offset);
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		if (store_grow((void **)rows, &cap, *n + 1, sizeof(**rows)) < 0) {
			sqlite3_finalize(s);
			free(*rows);
			*rows = NULL;
			*n = 0;
			return c2c_error_set(err, -ENOMEM, "out of memory");
		}
		struct store_line_row *row = &(*rows)[*n];
		store_read_line_row(s, row);
		row->rank = q->offset + *n;
		(*n)++;
	}
	sqlite3_finalize(s);
	if (r != SQLITE_DONE) {
		free(*rows);
		*rows = NULL;
		*n = 0;
		return store_sqlerr(st, err, "reading the lines table");
	}
	return 0;
}

int store_query_line(struct store *st, uint64_t line_addr, const struct store_filter *f,
		     struct store_line_row *row, struct c2c_error *err)
{
	const char *schema = store_agg_schema_for(st, f, 1u << AGG_LINE, err);
	char cols[1024], lat[1024], sel[3072], *sql;
	sqlite3_stmt *s;
	int r;

	if (!schema)
		return err ? err->code : -EIO;
	prefixed_cols(store_stats_cols(), cols, sizeof(cols));
	prefixed_cols(store_lat_cols(), lat, sizeof(lat));
	snprintf(sel, sizeof(sel), LINE_ROW_COLS_FMT, cols, lat, home_node_col(st));
	if (asprintf(&sql, "SELECT %s FROM %s.agg_line l LEFT JOIN main.dsyms d ON d.id = l.dsym WHERE l.line = ?",
		     sel, schema) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	r = store_prepare(st, &s, sql, err);
	free(sql);
	if (r < 0)
		return r;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)line_addr);
	r = sqlite3_step(s);
	if (r == SQLITE_ROW) {
		store_read_line_row(s, row);
		r = 0;
	} else if (r == SQLITE_DONE) {
		r = c2c_error_set(err, -ENOENT, "%s: no cache line 0x%llx in this session", st->path,
				  (unsigned long long)line_addr);
	} else {
		r = store_sqlerr(st, err, "reading a line");
	}
	sqlite3_finalize(s);
	return r;
}
