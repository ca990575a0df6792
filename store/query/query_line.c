/* Queries about one cache line: its offsets (bytes or 8-byte words), its
 * Pareto rows (perf's per-line section, with coalesce keys), CPUs, nodes,
 * the CPU x offset matrix, and locks (also session-wide for CPUs, nodes
 * and locks). */
#include "store/query/query_priv.h"
#include "store/agg/agg.h"
#include "store/base/hash.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GROW_OR_FAIL(rows, cap, n, s, err) do { \
	if (store_grow((void **)(rows), (cap), (n) + 1, sizeof(**(rows))) < 0) { \
		sqlite3_finalize(s); free(*(rows)); *(rows) = NULL; \
		return c2c_error_set((err), -ENOMEM, "out of memory"); } } while (0)

static int prepare_fmt(struct store *st, sqlite3_stmt **s, struct c2c_error *err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int prepare_fmt(struct store *st, sqlite3_stmt **s, struct c2c_error *err, const char *fmt, ...)
{
	va_list ap;
	char *sql;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&sql, fmt, ap);
	va_end(ap);
	if (r < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	r = store_prepare(st, s, sql, err);
	free(sql);
	return r;
}

static uint32_t popcount_blob(sqlite3_stmt *s, int col, uint64_t *acc, size_t acc_words)
{
	const uint64_t *b = sqlite3_column_blob(s, col);
	size_t words = (size_t)sqlite3_column_bytes(s, col) / sizeof(uint64_t);
	uint32_t n = 0;
	for (size_t i = 0; i < words && b; i++) {
		uint64_t w;
		memcpy(&w, &b[i], sizeof(w));
		if (acc && i < acc_words)
			acc[i] |= w;
		n += (uint32_t)__builtin_popcountll(w);
	}
	return n;
}

static int finish_rows(struct store *st, sqlite3_stmt *s, int rc, void **rows, size_t *n, struct c2c_error *err)
{
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		free(*rows);
		*rows = NULL;
		*n = 0;
		return store_sqlerr(st, err, "reading a line's details");
	}
	return 0;
}

/* ---- offsets ---------------------------------------------------------- */

int store_query_line_offsets(struct store *st, uint64_t line_addr, const struct store_filter *f, bool words8,
			     struct store_offset_row **rows, size_t *n, struct c2c_error *err)
{
	const char *schema = store_agg_schema_for(st, f, 1u << AGG_OFFSET, err);
	uint64_t cpus[64];
	sqlite3_stmt *s;
	size_t cap = 0;
	int r, rc;

	*rows = NULL;
	*n = 0;
	if (!schema)
		return err ? err->code : -EIO;
	if ((r = prepare_fmt(st, &s, err, "SELECT o.off, %s, %s, o.nr_cpus, o.nr_threads, o.nr_sites, o.node_mask, o.cpus,"
			     " o.dsym_start, d.name FROM %s.agg_offset o LEFT JOIN main.dsyms d ON d.id = o.dsym"
			     " WHERE o.line = ? ORDER BY o.off", store_stats_cols(), store_lat_cols(), schema)) < 0)
		return r;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)line_addr);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		uint64_t off = (uint64_t)sqlite3_column_int64(s, 0);
		struct store_offset_row tmp, *row;
		memset(&tmp, 0, sizeof(tmp));
		int i = store_read_stats(s, 1, &tmp.stats);
		i = store_read_lat(s, i, &tmp.lat);
		tmp.nr_cpus = (uint32_t)sqlite3_column_int64(s, i++);
		tmp.nr_threads = (uint32_t)sqlite3_column_int64(s, i++);
		tmp.nr_sites = (uint32_t)sqlite3_column_int64(s, i++);
		tmp.node_mask = (uint64_t)sqlite3_column_int64(s, i++);
		int blob_col = i++;
		uint64_t start = (uint64_t)sqlite3_column_int64(s, i++);
		if (sqlite3_column_type(s, i) != SQLITE_NULL) {
			store_col_text(s, i, tmp.symbol, sizeof(tmp.symbol));
			uint64_t a = c2c_line_display(line_addr, st->line_size) + off;  /* key minus its variant */
			tmp.symbol_offset = a >= start ? a - start : 0;
		}
		if (words8)
			off &= ~7ull;
		tmp.offset = off;
		if (words8 && *n && (*rows)[*n - 1].offset == off) {
			/* Same word: merge. Distinct CPUs from the OR of the
			 * bitmaps; threads and sites are a lower bound (max). */
			row = &(*rows)[*n - 1];
			c2c_stats_add(&row->stats, &tmp.stats);
			store_lat_merge(&row->lat, &tmp.lat);
			row->node_mask |= tmp.node_mask;
			popcount_blob(s, blob_col, cpus, 64);
			row->nr_cpus = 0;
			for (int w = 0; w < 64; w++)
				row->nr_cpus += (uint32_t)__builtin_popcountll(cpus[w]);
			if (tmp.nr_threads > row->nr_threads)
				row->nr_threads = tmp.nr_threads;
			if (tmp.nr_sites > row->nr_sites)
				row->nr_sites = tmp.nr_sites;
			if (!row->symbol[0] && tmp.symbol[0]) {
				memcpy(row->symbol, tmp.symbol, sizeof(row->symbol));
				row->symbol_offset = tmp.symbol_offset;
			}
			continue;
		}
		GROW_OR_FAIL(rows, &cap, *n, s, err);
		memset(cpus, 0, sizeof(cpus));
		popcount_blob(s, blob_col, cpus, 64);
		(*rows)[(*n)++] = tmp;
	}
	return finish_rows(st, s, rc, (void **)rows, n, err);
}

/* ---- Pareto ----------------------------------------------------------- */

struct pareto_acc {
	struct agg_table t;
	struct store_pareto_row *rows;
	size_t n, cap;
	uint64_t **cpus;             /* per row bitmap (64 words: 4096 CPUs) */
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; s && *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

/* Finds or adds the row for a coalesce key; returns its index or -1. */
static long pareto_row(struct pareto_acc *a, const uint64_t *key)
{
	bool created;
	struct agg_ent *e = agg_table_get(&a->t, key, &created);
	if (!e)
		return -1;
	if (!created)
		return (long)e->site;
	if (store_grow((void **)&a->rows, &a->cap, a->n + 1, sizeof(*a->rows)) < 0)
		return -1;
	uint64_t **c = realloc(a->cpus, a->cap * sizeof(*c));
	if (!c)
		return -1;
	a->cpus = c;
	a->cpus[a->n] = calloc(64, sizeof(uint64_t));
	if (!a->cpus[a->n])
		return -1;
	memset(&a->rows[a->n], 0, sizeof(a->rows[a->n]));
	e->site = (int64_t)a->n;
	return (long)a->n++;
}

static void pareto_acc_fini(struct pareto_acc *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->cpus[i]);
	free(a->cpus);
	agg_table_fini(&a->t);
}

static enum store_mode sort_mode;

static int pareto_cmp(const void *pa, const void *pb)
{
	const struct store_pareto_row *a = pa, *b = pb;
	int c = c2c_row_cmp(a->offset, &a->stats, b->offset, &b->stats, (enum c2c_display)sort_mode);
	if (c)
		return c;
	/* Stable: perf's coalesce-key order (what qsort lacks). */
	if (a->pid != b->pid)
		return a->pid > b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->iaddr != b->iaddr)
		return a->iaddr < b->iaddr ? -1 : 1;
	return strcmp(a->dso, b->dso);
}

static void fill_site(struct store *st, struct store_pareto_row *row, int64_t site)
{
	sqlite3_stmt *s;
	if (site <= 0 || sqlite3_prepare_v2(st->db, "SELECT function, offset, dso, file, line, rel_addr FROM main.sites"
					    " WHERE id = ?", -1, &s, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(s, 1, site);
	if (sqlite3_step(s) == SQLITE_ROW) {
		store_col_text(s, 0, row->function, sizeof(row->function));
		row->function_offset = (uint64_t)sqlite3_column_int64(s, 1);
		store_col_text(s, 2, row->dso, sizeof(row->dso));
		store_col_text(s, 3, row->file, sizeof(row->file));
		row->line = (uint32_t)sqlite3_column_int64(s, 4);
		row->rel_addr = (uint64_t)sqlite3_column_int64(s, 5);
	}
	sqlite3_finalize(s);
}

static void fill_comm(struct store *st, struct store_pareto_row *row)
{
	sqlite3_stmt *s;
	if (row->pid < 0 || sqlite3_prepare_v2(st->db, "SELECT comm FROM main.comms WHERE pid = ? AND tid = ?"
					       " ORDER BY time DESC, id DESC LIMIT 1", -1, &s, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(s, 1, row->pid);
	sqlite3_bind_int64(s, 2, row->tid >= 0 ? row->tid : row->pid);
	if (sqlite3_step(s) == SQLITE_ROW)
		store_col_text(s, 0, row->comm, sizeof(row->comm));
	sqlite3_finalize(s);
}

int store_query_line_pareto(struct store *st, uint64_t line_addr, const struct store_filter *f,
			    enum store_mode mode, unsigned coalesce, bool show_all,
			    struct store_pareto_row **rows, size_t *n, struct c2c_error *err)
{
	const char *schema = store_agg_schema_for(st, f, 1u << AGG_PARETO, err);
	struct pareto_acc acc;
	sqlite3_stmt *s;
	int r, rc;

	*rows = NULL;
	*n = 0;
	if (!schema)
		return err ? err->code : -EIO;
	if (!coalesce)
		coalesce = STORE_COALESCE_DEFAULT;
	memset(&acc, 0, sizeof(acc));
	/* The aggregates are kept per (offset, ip, pid, tid); any coalesce
	 * key set is a grouping of those rows. */
	r = prepare_fmt(st, &s, err, "SELECT p.off, p.ip, p.pid, p.tid, p.site, COALESCE(t.dso, ''), %s, %s, p.node_mask,"
			" p.cpus FROM (SELECT * FROM %s.agg_pareto WHERE line = ?) p LEFT JOIN main.sites t ON t.id = p.site",
			store_stats_cols(), store_lat_cols(), schema);
	if (r < 0)
		return r;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)line_addr);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		uint64_t off = (uint64_t)sqlite3_column_int64(s, 0);
		uint64_t ip = (uint64_t)sqlite3_column_int64(s, 1);
		int32_t pid = sqlite3_column_int(s, 2), tid = sqlite3_column_int(s, 3);
		const char *dso = (const char *)sqlite3_column_text(s, 5);
		uint64_t key[AGG_KEY_WORDS] = {
			off,
			((coalesce & STORE_COALESCE_PID) ? (uint64_t)(uint32_t)pid << 32 : 0) |
			((coalesce & STORE_COALESCE_TID) ? (uint32_t)tid : 0),
			(coalesce & STORE_COALESCE_IADDR) ? ip : 0,
			(coalesce & STORE_COALESCE_DSO) ? str_hash(dso) : 0,
		};
		long i = pareto_row(&acc, key);
		if (i < 0) {
			sqlite3_finalize(s);
			pareto_acc_fini(&acc);
			free(acc.rows);
			return c2c_error_set(err, -ENOMEM, "out of memory");
		}
		struct store_pareto_row *row = &acc.rows[i];
		struct c2c_stats cs;
		struct store_lat lat;
		memset(&cs, 0, sizeof(cs));
		memset(&lat, 0, sizeof(lat));
		row->offset = off;
		row->pid = (coalesce & STORE_COALESCE_PID) ? pid : -1;
		row->tid = (coalesce & STORE_COALESCE_TID) ? tid : -1;
		row->iaddr = (coalesce & STORE_COALESCE_IADDR) ? ip : 0;
		if ((coalesce & STORE_COALESCE_IADDR) && !row->site)
			row->site = sqlite3_column_int64(s, 4);
		if ((coalesce & STORE_COALESCE_DSO) && !row->dso[0])
			store_copy(row->dso, sizeof(row->dso), dso);
		int c = store_read_stats(s, 6, &cs);
		c = store_read_lat(s, c, &lat);
		c2c_stats_add(&row->stats, &cs);
		store_lat_merge(&row->lat, &lat);
		row->node_mask |= (uint64_t)sqlite3_column_int64(s, c++);
		popcount_blob(s, c, acc.cpus[i], 64);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		pareto_acc_fini(&acc);
		free(acc.rows);
		return store_sqlerr(st, err, "reading a line's Pareto rows");
	}
	for (size_t i = 0; i < acc.n; i++) {
		memcpy(acc.rows[i].cpu_mask, acc.cpus[i], sizeof(acc.rows[i].cpu_mask));
		acc.rows[i].nr_cpus = 0;
		for (int w = 0; w < 64; w++)
			acc.rows[i].nr_cpus += (uint32_t)__builtin_popcountll(acc.cpus[i][w]);
	}
	pareto_acc_fini(&acc);
	/* perf's row filter, then its order. */
	size_t kept = 0;
	for (size_t i = 0; i < acc.n; i++)
		if (show_all || c2c_row_valid(&acc.rows[i].stats, (enum c2c_display)mode))
			acc.rows[kept++] = acc.rows[i];
	sort_mode = mode;
	if (kept) /* qsort(NULL, 0) is undefined */
		qsort(acc.rows, kept, sizeof(*acc.rows), pareto_cmp);
	for (size_t i = 0; i < kept; i++) {
		struct store_pareto_row *row = &acc.rows[i];
		char dso[sizeof(row->dso)];
		memcpy(dso, row->dso, sizeof(dso));
		if (coalesce & STORE_COALESCE_IADDR)
			fill_site(st, row, row->site);
		if (!(coalesce & STORE_COALESCE_IADDR) && (coalesce & STORE_COALESCE_DSO))
			memcpy(row->dso, dso, sizeof(dso));
		fill_comm(st, row);
	}
	if (!kept) {
		free(acc.rows);
		acc.rows = NULL;
	}
	*rows = acc.rows;
	*n = kept;
	return 0;
}

/* ---- CPUs, nodes, matrix ------------------------------------------------ */

int store_query_cpus(struct store *st, uint64_t line_addr, const struct store_filter *f,
		     struct store_cpu_row **rows, size_t *n, struct c2c_error *err)
{
	const char *schema =
		store_agg_schema_for(st, f, 1u << (line_addr == STORE_ALL_LINES ? AGG_CPU : AGG_LINE_CPU), err);
	bool all = line_addr == STORE_ALL_LINES;
	sqlite3_stmt *s;
	size_t cap = 0;
	int r, rc;

	*rows = NULL;
	*n = 0;
	if (!schema)
		return err ? err->code : -EIO;
	if ((r = prepare_fmt(st, &s, err, "SELECT cpu, node, %s, %s FROM %s.%s ORDER BY cpu", store_stats_cols(),
			     store_lat_cols(), schema, all ? "agg_cpu" : "agg_line_cpu WHERE line = ?")) < 0)
		return r;
	if (!all)
		sqlite3_bind_int64(s, 1, (sqlite3_int64)line_addr);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		GROW_OR_FAIL(rows, &cap, *n, s, err);
		struct store_cpu_row *row = &(*rows)[(*n)++];
		memset(row, 0, sizeof(*row));
		row->cpu = (uint32_t)sqlite3_column_int64(s, 0);
		row->node = sqlite3_column_int(s, 1);
		int i = store_read_stats(s, 2, &row->stats);
		store_read_lat(s, i, &row->lat);
	}
	return finish_rows(st, s, rc, (void **)rows, n, err);
}

int store_query_nodes(struct store *st, uint64_t line_addr, const struct store_filter *f,
		      struct store_node_row **rows, size_t *n, struct c2c_error *err)
{
	const char *schema =
		store_agg_schema_for(st, f, 1u << (line_addr == STORE_ALL_LINES ? AGG_NODE : AGG_LINE_NODE), err);
	bool all = line_addr == STORE_ALL_LINES;
	sqlite3_stmt *s;
	size_t cap = 0;
	int r, rc;

	*rows = NULL;
	*n = 0;
	if (!schema)
		return err ? err->code : -EIO;
	if ((r = prepare_fmt(st, &s, err, "SELECT node, nr_cpus, %s, %s FROM %s.%s ORDER BY node", store_stats_cols(),
			     store_lat_cols(), schema, all ? "agg_node" : "agg_line_node WHERE line = ?")) < 0)
		return r;
	if (!all)
		sqlite3_bind_int64(s, 1, (sqlite3_int64)line_addr);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		GROW_OR_FAIL(rows, &cap, *n, s, err);
		struct store_node_row *row = &(*rows)[(*n)++];
		memset(row, 0, sizeof(*row));
		row->node = sqlite3_column_int(s, 0);
		row->nr_cpus = (uint32_t)sqlite3_column_int64(s, 1);
		int i = store_read_stats(s, 2, &row->stats);
		store_read_lat(s, i, &row->lat);
	}
	return finish_rows(st, s, rc, (void **)rows, n, err);
}

int store_query_line_matrix(struct store *st, uint64_t line_addr, const struct store_filter *f,
			    struct store_cell_row **rows, size_t *n, struct c2c_error *err)
{
	const char *schema = store_agg_schema_for(st, f, 1u << AGG_CELL, err);
	sqlite3_stmt *s;
	size_t cap = 0;
	int r, rc;

	*rows = NULL;
	*n = 0;
	if (!schema)
		return err ? err->code : -EIO;
	if ((r = prepare_fmt(st, &s, err, "SELECT off, cpu, %s FROM %s.agg_cell WHERE line = ? ORDER BY off, cpu",
			     store_stats_cols(), schema)) < 0)
		return r;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)line_addr);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		GROW_OR_FAIL(rows, &cap, *n, s, err);
		struct store_cell_row *row = &(*rows)[(*n)++];
		memset(row, 0, sizeof(*row));
		row->offset = (uint64_t)sqlite3_column_int64(s, 0);
		row->cpu = (uint32_t)sqlite3_column_int64(s, 1);
		store_read_stats(s, 2, &row->stats);
	}
	return finish_rows(st, s, rc, (void **)rows, n, err);
}

/* ---- locks ------------------------------------------------------------ */

int store_query_locks(struct store *st, uint64_t line_addr, const struct store_filter *f,
		      struct store_lock_row **rows, size_t *n, struct c2c_error *err)
{
	const char *schema = store_agg_schema_for(st, f, (1u << AGG_LOCK) | (1u << AGG_LINE), err);
	bool all = line_addr == STORE_ALL_LINES;
	sqlite3_stmt *s;
	size_t cap = 0;
	int r, rc;

	*rows = NULL;
	*n = 0;
	if (!schema)
		return err ? err->code : -EIO;
	if ((r = prepare_fmt(st, &s, err, "SELECT k.lock_addr, k.line, k.flags, k.waits, k.wait_ns, k.max_wait_ns,"
			     " k.nr_threads, k.nr_sites, k.dsym_start, d.name, COALESCE(l.tot_hitm, 0)"
			     " FROM %s.agg_lock k LEFT JOIN main.dsyms d ON d.id = k.dsym"
			     " LEFT JOIN %s.agg_line l ON l.line = k.line%s ORDER BY k.wait_ns DESC, k.lock_addr",
			     schema, schema, all ? "" : " WHERE k.line = ?")) < 0)
		return r;
	if (!all)
		sqlite3_bind_int64(s, 1, (sqlite3_int64)line_addr);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		GROW_OR_FAIL(rows, &cap, *n, s, err);
		struct store_lock_row *row = &(*rows)[(*n)++];
		memset(row, 0, sizeof(*row));
		row->lock_addr = (uint64_t)sqlite3_column_int64(s, 0);
		row->line_addr = (uint64_t)sqlite3_column_int64(s, 1);
		row->flags = (uint32_t)sqlite3_column_int64(s, 2);
		row->waits = (uint64_t)sqlite3_column_int64(s, 3);
		row->wait_ns = (uint64_t)sqlite3_column_int64(s, 4);
		row->max_wait_ns = (uint64_t)sqlite3_column_int64(s, 5);
		row->nr_threads = (uint32_t)sqlite3_column_int64(s, 6);
		row->nr_sites = (uint32_t)sqlite3_column_int64(s, 7);
		uint64_t start = (uint64_t)sqlite3_column_int64(s, 8);
		if (sqlite3_column_type(s, 9) != SQLITE_NULL) {
			store_col_text(s, 9, row->symbol, sizeof(row->symbol));
			row->symbol_offset = row->lock_addr >= start ? row->lock_addr - start : 0;
		}
		row->line_hitm = (uint64_t)sqlite3_column_int64(s, 10);
	}
	return finish_rows(st, s, rc, (void **)rows, n, err);
}
