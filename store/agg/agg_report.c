/* The report's sample-order numbers, kept by the writer's aggregator so
 * that `c2ctui report` never scans the samples for its default options:
 * per line the physical-address Node mask / PA cnt and its first sample
 * (perf's tie-break key), per (line, offset, ip) Pareto row perf's running
 * means and Node / PA cnt. perf computes them sample by sample in recording
 * order, and so does the aggregator (it sees the samples in that order), with
 * the same operations as store_query_lines_seq (store/query/query_report.c), so
 * the results are identical. Written to agg_line_seq and agg_prow
 * (docs/schema.md); valid only for the session's own line size, iaddr
 * coalescing, no sample filter, and the memory topology they were computed
 * with (agg_session "seq:ranges"). */
#include "store/agg/agg_priv.h"
#include "store/filter/filter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One Pareto row of the default coalescing (offset, iaddr) on a line. */
struct rep_row {
	uint64_t addr;               /* line address + offset */
	uint64_t ip;
	uint8_t var;                 /* the line key's identity variant (c2c_lineid.h) */
	struct store_lat lat;
	struct store_phys phys;
	bool dirty;
};

struct rep_line {
	uint64_t line;
	struct store_phys phys;
	uint64_t first_addr, first_time;  /* the line's first sample */
	int32_t first_pid;
	uint8_t first_cpumode;
	bool first_nomap;
	bool dirty;
};

struct agg_rep {
	char schema[8];              /* "main" or "temp" */
	struct c2c_mem_range *ranges;
	size_t nranges;
	uint64_t ranges_hash;
	/* (addr, ip) -> row: open addressing, power-of-two capacity */
	struct rep_row **slots;
	size_t cap, nrows;
	struct rep_line **lines;     /* every line entry (owned) */
	size_t nlines, lines_cap;
	struct rep_row **drows;      /* changed since the last flush */
	size_t ndrows, drows_cap;
	struct rep_line **dlines;
	size_t ndlines, dlines_cap;
};

static uint64_t ranges_hash(const struct c2c_mem_range *r, size_t n)
{
	uint64_t h = 1469598103934665603ull ^ n;

	for (size_t i = 0; i < n; i++) {
		uint64_t w[3] = { r[i].start, r[i].end, (uint64_t)(int64_t)r[i].node };

		for (int j = 0; j < 3; j++)
			h = (h ^ w[j]) * 1099511628211ull;
	}
	/* stored as an SQLite INTEGER: keep it positive for readability */
	return h >> 1;
}

static uint64_t row_hash(uint64_t addr, uint64_t ip)
{
	uint64_t h = addr * 0x9e3779b97f4a7c15ull ^ ip;

	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 29);
}

int agg_rep_enable(struct agg *a, struct store *st, const char *schema, struct c2c_error *err)
{
	struct agg_rep *r;

	if (a->rep)
		return 0;
	if (strcmp(schema, "main") && strcmp(schema, "temp"))
		return c2c_error_set(err, -EINVAL, "no aggregate schema %s", schema);
	r = calloc(1, sizeof(*r));
	if (!r)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	snprintf(r->schema, sizeof(r->schema), "%s", schema);
	if (store_get_mem_ranges(st, &r->ranges, &r->nranges) < 0) {
		free(r);
		return c2c_error_set(err, -ENOMEM, "out of memory");
	}
	r->ranges_hash = ranges_hash(r->ranges, r->nranges);
	a->rep = r;
	/* sessions made before these tables existed get them on append */
	return agg_rep_create_tables(st, schema, err);
}

int agg_rep_create_tables(struct store *st, const char *schema, struct c2c_error *err)
{
	char *sql;
	int rc;

	if (asprintf(&sql, "CREATE TABLE IF NOT EXISTS %s.agg_line_seq (line INTEGER NOT NULL PRIMARY KEY,"
		     " phys_nodes INTEGER, pa_cnt INTEGER, first_cpumode INTEGER, first_pid INTEGER,"
		     " first_addr INTEGER, first_time INTEGER, first_nomap INTEGER) WITHOUT ROWID;"
		     "CREATE TABLE IF NOT EXISTS %s.agg_prow (line INTEGER NOT NULL, off INTEGER NOT NULL,"
		     " ip INTEGER NOT NULL, phys_nodes INTEGER, pa_cnt INTEGER, %s, PRIMARY KEY (line, off, ip))"
		     " WITHOUT ROWID;", schema, schema, store_lat_coldefs()) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	rc = store_exec(st, sql, err);
	free(sql);
	return rc;
}

void agg_rep_free(struct agg *a)
{
	struct agg_rep *r = a->rep;

	if (!r)
		return;
	for (size_t i = 0; i < r->cap; i++)
		free(r->slots[i]);
	for (size_t i = 0; i < r->nlines; i++)
		free(r->lines[i]);
	free(r->slots);
	free(r->lines);
	free(r->drows);
	free(r->dlines);
	free(r->ranges);
	free(r);
	a->rep = NULL;
}

static int rehash(struct agg_rep *r)
{
	size_t ncap = r->cap ? r->cap * 2 : 1024;
	struct rep_row **s = calloc(ncap, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < r->cap; i++) {
		struct rep_row *x = r->slots[i];
		size_t j;

		if (!x)
			continue;
		for (j = row_hash(x->addr, x->ip) & (ncap - 1); s[j]; j = (j + 1) & (ncap - 1))
			;
		s[j] = x;
	}
	free(r->slots);
	r->slots = s;
	r->cap = ncap;
	return 0;
}

static struct rep_row *row_get(struct agg_rep *r, uint64_t addr, uint64_t ip, uint8_t var)
{
	size_t j;

	if ((r->nrows + 1) * 4 > r->cap * 3 && rehash(r) < 0)
		return NULL;
	for (j = row_hash(addr, ip) & (r->cap - 1); r->slots[j]; j = (j + 1) & (r->cap - 1))
		if (r->slots[j]->addr == addr && r->slots[j]->ip == ip && r->slots[j]->var == var)
			return r->slots[j];
	r->slots[j] = calloc(1, sizeof(**r->slots));
	if (!r->slots[j])
		return NULL;
	r->slots[j]->addr = addr;
	r->slots[j]->ip = ip;
	r->slots[j]->var = var;
	r->nrows++;
	return r->slots[j];
}

/* perf: a sample with no physical address, or one on no node, leaves
 * Node and PA cnt alone. */
static void phys_add(struct store_phys *p, int node, uint64_t phys)
{
	struct c2c_paddr_track t = { p->last_phys, p->pa_cnt };

	if (node < 64)
		p->node_mask |= 1ull << node;
	c2c_paddr_track_update(&t, phys);
	p->last_phys = t.last;
	p->pa_cnt = t.count;
}

int agg_rep_add(struct agg *a, struct agg_ent *line_ent, struct agg_ent *par_ent, const struct agg_sample *s)
{
	struct agg_rep *r = a->rep;
	struct rep_line *l = line_ent->rep;
	struct rep_row *row = par_ent->rep;
	uint64_t line = line_ent->key[0];
	int node = c2c_mem_node(r->ranges, r->nranges, s->phys);

	if (!l) {
		l = calloc(1, sizeof(*l));
		if (!l || store_grow((void **)&r->lines, &r->lines_cap, r->nlines + 1, sizeof(*r->lines)) < 0) {
			free(l);
			return -ENOMEM;
		}
		r->lines[r->nlines++] = l;
		l->line = line;
		/* perf's line entry keeps its first sample's key */
		l->first_addr = s->vaddr;
		l->first_time = s->time;
		l->first_pid = s->pid;
		l->first_cpumode = s->cpumode;
		l->first_nomap = c2c_bits_count(s->bits, C2C_NOMAP) != 0;
		line_ent->rep = l;
	}
	if (!row) {
		row = row_get(r, c2c_line_display(line, a->line_size) + par_ent->key[1], s->ip, s->line_var);
		if (!row)
			return -ENOMEM;
		par_ent->rep = row;
	}
	if (node >= 0) {
		phys_add(&l->phys, node, s->phys);
		phys_add(&row->phys, node, s->phys);
	}
	store_lat_add(&row->lat, s->bits, s->weight);
	if (!l->dirty) {
		if (store_grow((void **)&r->dlines, &r->dlines_cap, r->ndlines + 1, sizeof(*r->dlines)) < 0)
			return -ENOMEM;
		r->dlines[r->ndlines++] = l;
		l->dirty = true;
	}
	if (!row->dirty) {
		if (store_grow((void **)&r->drows, &r->drows_cap, r->ndrows + 1, sizeof(*r->drows)) < 0)
			return -ENOMEM;
		r->drows[r->ndrows++] = row;
		row->dirty = true;
	}
	return 0;
}

static int set_session(struct store *st, sqlite3_stmt *s, const char *name, int64_t v, struct c2c_error *err)
{
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, v);
	if (sqlite3_step(s) != SQLITE_DONE) {
		sqlite3_reset(s);
		return store_sqlerr(st, err, "writing aggregates");
	}
	sqlite3_reset(s);
	return 0;
}

/* A row's key columns (line | var, offset, ip) as agg_prow holds them. */
static void row_key(const struct rep_row *x, uint32_t line_size, int64_t *kv)
{
	uint64_t line = c2c_cl_address(x->addr, line_size, false);

	kv[0] = (int64_t)(line | x->var);
	kv[1] = (int64_t)(x->addr - line);
	kv[2] = (int64_t)x->ip;
}

/* qsort_r: rows in agg_prow's key order (SQLite's signed integers). */
static int cmp_rows(const void *pa, const void *pb, void *ctx)
{
	uint32_t line_size = *(const uint32_t *)ctx;
	int64_t a[3], b[3];

	row_key(*(struct rep_row *const *)pa, line_size, a);
	row_key(*(struct rep_row *const *)pb, line_size, b);
	for (int j = 0; j < 3; j++)
		if (a[j] != b[j])
			return a[j] < b[j] ? -1 : 1;
	return 0;
}

int agg_rep_flush(struct agg *a, struct store *st, const char *schema, struct c2c_error *err)
{
	struct agg_rep *r = a->rep;
	sqlite3_stmt *sl = NULL, *sr = NULL, *ss = NULL;
	char *sql = NULL, lsql[256], ssql[128];
	int rc = 0;

	if (!r || strcmp(schema, r->schema) || (!r->ndlines && !r->ndrows))
		return 0;
	if (asprintf(&sql, "INSERT OR REPLACE INTO %s.agg_prow (line, off, ip, phys_nodes, pa_cnt, %s)"
		     " VALUES (?,?,?,?,?%.*s)", r->schema, store_lat_cols(), 2 * STORE_NR_LAT_COLS,
		     ",?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?") < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	snprintf(lsql, sizeof(lsql), "INSERT OR REPLACE INTO %s.agg_line_seq (line, phys_nodes, pa_cnt, first_cpumode,"
		 " first_pid, first_addr, first_time, first_nomap) VALUES (?,?,?,?,?,?,?,?)", r->schema);
	snprintf(ssql, sizeof(ssql), "INSERT OR REPLACE INTO %s.agg_session (name, value) VALUES (?, ?)", r->schema);
	if (sqlite3_prepare_v2(st->db, sql, -1, &sr, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(st->db, lsql, -1, &sl, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(st->db, ssql, -1, &ss, NULL) != SQLITE_OK) {
		rc = store_sqlerr(st, err, "writing aggregates");
		goto out;
	}
	/* in key order: each insert lands beside the previous one */
	qsort_r(r->drows, r->ndrows, sizeof(*r->drows), cmp_rows, &a->line_size);
	for (size_t i = 0; i < r->ndrows; i++) {
		const struct rep_row *x = r->drows[i];
		int64_t kv[3];

		row_key(x, a->line_size, kv);
		for (int j = 0; j < 3; j++)
			sqlite3_bind_int64(sr, 1 + j, kv[j]);
		sqlite3_bind_int64(sr, 4, (sqlite3_int64)x->phys.node_mask);
		sqlite3_bind_int64(sr, 5, (sqlite3_int64)x->phys.pa_cnt);
		store_bind_lat(sr, 6, &x->lat);
		if (sqlite3_step(sr) != SQLITE_DONE) {
			rc = store_sqlerr(st, err, "writing aggregates");
			goto out;
		}
		sqlite3_reset(sr);
	}
	for (size_t i = 0; i < r->ndlines; i++) {
		const struct rep_line *l = r->dlines[i];

		sqlite3_bind_int64(sl, 1, (sqlite3_int64)l->line);
		sqlite3_bind_int64(sl, 2, (sqlite3_int64)l->phys.node_mask);
		sqlite3_bind_int64(sl, 3, (sqlite3_int64)l->phys.pa_cnt);
		sqlite3_bind_int64(sl, 4, l->first_cpumode);
		sqlite3_bind_int64(sl, 5, l->first_pid);
		sqlite3_bind_int64(sl, 6, (sqlite3_int64)l->first_addr);
		sqlite3_bind_int64(sl, 7, (sqlite3_int64)l->first_time);
		sqlite3_bind_int64(sl, 8, l->first_nomap);
		if (sqlite3_step(sl) != SQLITE_DONE) {
			rc = store_sqlerr(st, err, "writing aggregates");
			goto out;
		}
		sqlite3_reset(sl);
	}
	if ((rc = set_session(st, ss, "seq:line_size", a->line_size, err)) < 0 ||
	    (rc = set_session(st, ss, "seq:ranges", (int64_t)r->ranges_hash, err)) < 0)
		goto out;
	/* only now, so that a failed commit writes them again */
	for (size_t i = 0; i < r->ndrows; i++)
		r->drows[i]->dirty = false;
	for (size_t i = 0; i < r->ndlines; i++)
		r->dlines[i]->dirty = false;
	r->ndrows = r->ndlines = 0;
out:
	free(sql);
	sqlite3_finalize(sr);
	sqlite3_finalize(sl);
	sqlite3_finalize(ss);
	return rc;
}

/* ---- the report's side ------------------------------------------------ */

static int session_value(struct store *st, const char *schema, const char *name, int64_t *v)
{
	char sql[96];
	sqlite3_stmt *s;
	int found = 0;

	snprintf(sql, sizeof(sql), "SELECT value FROM %s.agg_session WHERE name = ?", schema);
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(s) == SQLITE_ROW) {
		*v = sqlite3_column_int64(s, 0);
		found = 1;
	}
	sqlite3_finalize(s);
	return found;
}

/* Whether the stored numbers in schema answer this query exactly: the
 * session's ("main") for no filter, a filtered view's ("temp", made for f
 * by store_agg_schema) for its filter; lines of the size they were
 * computed for, the default coalescing, today's memory topology. */
static bool precomputed_usable(struct store *st, const char *schema, const struct store_filter *f,
			       unsigned coalesce, const struct store_seq_line *lines, size_t n)
{
	struct c2c_mem_range *ranges = NULL;
	size_t nranges = 0;
	int64_t ls, rh;
	uint64_t h;

	if (strcmp(schema, store_filter_needs_recompute(f) ? "temp" : "main") || coalesce != STORE_COALESCE_IADDR ||
	    (f && f->phys_lines))
		return false;
	for (size_t i = 0; i < n; i++)
		if (lines[i].row_nodes)
			return false;
	if (!session_value(st, schema, "seq:line_size", &ls) || ls != (int64_t)store_line_size(st, f) ||
	    !session_value(st, schema, "seq:ranges", &rh))
		return false;
	if (store_get_mem_ranges(st, &ranges, &nranges) < 0)
		return false;
	h = ranges_hash(ranges, nranges);
	free(ranges);
	return (int64_t)h == rh;
}

int store_lines_seq_precomputed(struct store *st, const char *schema, const struct store_filter *f,
				unsigned coalesce, struct store_seq_line *lines, size_t n, struct c2c_error *err)
{
	sqlite3_stmt *sl = NULL, *sr = NULL;
	struct store_maps maps;
	char *sql = NULL, lsql[192];
	int rc = 0;

	if (!precomputed_usable(st, schema, f, coalesce, lines, n))
		return 0;
	if ((rc = store_maps_load(st, &maps, err)) < 0)
		return rc;
	if (asprintf(&sql, "SELECT phys_nodes, pa_cnt, %s FROM %s.agg_prow WHERE line = ? AND off = ? AND ip = ?",
		     store_lat_cols(), schema) < 0) {
		store_maps_free(&maps);
		return c2c_error_set(err, -ENOMEM, "out of memory");
	}
	snprintf(lsql, sizeof(lsql), "SELECT phys_nodes, pa_cnt, first_cpumode, first_pid, first_addr, first_time,"
		 " first_nomap FROM %s.agg_line_seq WHERE line = ?", schema);
	if ((rc = store_prepare(st, &sr, sql, err)) < 0 || (rc = store_prepare(st, &sl, lsql, err)) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct store_seq_line *l = &lines[i];

		sqlite3_bind_int64(sl, 1, (sqlite3_int64)l->addr);
		if ((rc = sqlite3_step(sl)) == SQLITE_ROW) {
			l->seen = true;
			l->phys.node_mask = (uint64_t)sqlite3_column_int64(sl, 0);
			l->phys.pa_cnt = (uint64_t)sqlite3_column_int64(sl, 1);
			store_line_key_set(&l->key, &maps, (uint8_t)sqlite3_column_int(sl, 2), sqlite3_column_int(sl, 3),
					   (uint64_t)sqlite3_column_int64(sl, 4), (uint64_t)sqlite3_column_int64(sl, 5),
					   sqlite3_column_int(sl, 6) != 0);
		} else if (rc != SQLITE_DONE) {
			rc = store_sqlerr(st, err, "reading the report's lines");
			goto out;
		}
		sqlite3_reset(sl);
		for (size_t j = 0; j < l->nrows; j++) {
			const struct store_pareto_row *pr = &l->rows[j];

			sqlite3_bind_int64(sr, 1, (sqlite3_int64)l->addr);
			sqlite3_bind_int64(sr, 2, (sqlite3_int64)pr->offset);
			sqlite3_bind_int64(sr, 3, (sqlite3_int64)pr->iaddr);
			if ((rc = sqlite3_step(sr)) == SQLITE_ROW) {
				if (l->row_phys) {
					l->row_phys[j].node_mask = (uint64_t)sqlite3_column_int64(sr, 0);
					l->row_phys[j].pa_cnt = (uint64_t)sqlite3_column_int64(sr, 1);
				}
				if (l->row_lat)
					store_read_lat(sr, 2, &l->row_lat[j]);
			} else if (rc != SQLITE_DONE) {
				rc = store_sqlerr(st, err, "reading the report's rows");
				goto out;
			}
			sqlite3_reset(sr);
		}
	}
	rc = 1;
out:
	free(sql);
	store_maps_free(&maps);
	sqlite3_finalize(sr);
	sqlite3_finalize(sl);
	return rc;
}
