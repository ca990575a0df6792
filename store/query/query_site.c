/* Queries about code sites: one site's details, the lines/offsets it
 * touches, and its callers from the recorded call chains. A site's
 * counts are those of its instruction address (the Pareto rows are keyed
 * by address, as perf's default coalescing). */
#include "store/query/query_priv.h"
#include "store/agg/agg.h"
#include "store/base/hash.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int store_get_site(struct store *st, int64_t site_id, struct store_site *out, struct c2c_error *err)
{
	sqlite3_stmt *s;
	char sql[2048];
	int r;

	memset(out, 0, sizeof(*out));
	if ((r = store_prepare(st, &s, "SELECT id, ip, pid, cpumode, function, offset, dso, file, line, rel_addr"
				 " FROM main.sites WHERE id = ?", err)) < 0)
		return r;
	sqlite3_bind_int64(s, 1, site_id);
	if (sqlite3_step(s) != SQLITE_ROW) {
		sqlite3_finalize(s);
		return c2c_error_set(err, -ENOENT, "%s: no code site %lld", st->path, (long long)site_id);
	}
	out->id = sqlite3_column_int64(s, 0);
	out->ip = (uint64_t)sqlite3_column_int64(s, 1);
	out->pid = sqlite3_column_int(s, 2);
	out->cpumode = (uint8_t)sqlite3_column_int(s, 3);
	store_col_text(s, 4, out->function, sizeof(out->function));
	out->offset = (uint64_t)sqlite3_column_int64(s, 5);
	store_col_text(s, 6, out->dso, sizeof(out->dso));
	store_col_text(s, 7, out->file, sizeof(out->file));
	out->line = (uint32_t)sqlite3_column_int64(s, 8);
	out->rel_addr = (uint64_t)sqlite3_column_int64(s, 9);
	sqlite3_finalize(s);

	snprintf(sql, sizeof(sql), "SELECT %s, %s FROM main.agg_pareto WHERE ip = ?1 AND (?2 < 0 OR pid = ?2)",
		 store_stats_cols(), store_lat_cols());
	if ((r = store_prepare(st, &s, sql, err)) < 0)
		return r;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)out->ip);
	sqlite3_bind_int64(s, 2, out->pid);
	while (sqlite3_step(s) == SQLITE_ROW) {
		struct c2c_stats cs;
		struct store_lat lat;
		memset(&cs, 0, sizeof(cs));
		memset(&lat, 0, sizeof(lat));
		int i = store_read_stats(s, 0, &cs);
		store_read_lat(s, i, &lat);
		c2c_stats_add(&out->stats, &cs);
		store_lat_merge(&out->lat, &lat);
	}
	sqlite3_finalize(s);
	return 0;
}

static enum store_mode access_mode;

static int access_cmp(const void *pa, const void *pb)
{
	const struct store_site_access_row *a = pa, *b = pb;
	uint64_t va = c2c_display_value(&a->stats, (enum c2c_display)access_mode);
	uint64_t vb = c2c_display_value(&b->stats, (enum c2c_display)access_mode);
	if (va != vb)
		return va > vb ? -1 : 1;
	if (a->stats.nr_entries != b->stats.nr_entries)
		return a->stats.nr_entries > b->stats.nr_entries ? -1 : 1;
	if (a->line_addr != b->line_addr)
		return a->line_addr < b->line_addr ? -1 : 1;
	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

int store_query_site_accesses(struct store *st, int64_t site_id, const struct store_filter *f,
			      enum store_mode mode, struct store_site_access_row **rows, size_t *n,
			      struct c2c_error *err)
{
	const char *schema = store_agg_schema_for(st, f, (1u << AGG_PARETO) | (1u << AGG_OFFSET), err);
	struct store_site site;
	sqlite3_stmt *s;
	char *sql;
	size_t cap = 0;
	int r, rc;

	*rows = NULL;
	*n = 0;
	if (!schema)
		return err ? err->code : -EIO;
	if ((r = store_get_site(st, site_id, &site, err)) < 0)
		return r;
	if (asprintf(&sql, "SELECT p.*, o.dsym_start, d.name FROM (SELECT line, off, %s, %s FROM %s.agg_pareto"
		     " WHERE ip = ?1 AND (?2 < 0 OR pid = ?2)) p LEFT JOIN %s.agg_offset o ON o.line = p.line AND o.off = p.off"
		     " LEFT JOIN main.dsyms d ON d.id = o.dsym ORDER BY p.line, p.off", store_stats_cols(), store_lat_cols(),
		     schema, schema) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	r = store_prepare(st, &s, sql, err);
	free(sql);
	if (r < 0)
		return r;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)site.ip);
	sqlite3_bind_int64(s, 2, site.pid);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		uint64_t line = (uint64_t)sqlite3_column_int64(s, 0), off = (uint64_t)sqlite3_column_int64(s, 1);
		if (*n && (*rows)[*n - 1].line_addr == line && (*rows)[*n - 1].offset == off) {
			/* Another thread at the same place: merge. */
			struct store_site_access_row *prev = &(*rows)[*n - 1];
			struct c2c_stats cs;
			struct store_lat lat;
			memset(&cs, 0, sizeof(cs));
			memset(&lat, 0, sizeof(lat));
			store_read_lat(s, store_read_stats(s, 2, &cs), &lat);
			c2c_stats_add(&prev->stats, &cs);
			store_lat_merge(&prev->lat, &lat);
			continue;
		}
		if (store_grow((void **)rows, &cap, *n + 1, sizeof(**rows)) < 0) {
			sqlite3_finalize(s);
			free(*rows);
			*rows = NULL;
			*n = 0;
			return c2c_error_set(err, -ENOMEM, "out of memory");
		}
		struct store_site_access_row *row = &(*rows)[(*n)++];
		memset(row, 0, sizeof(*row));
		row->line_addr = (uint64_t)sqlite3_column_int64(s, 0);
		row->offset = (uint64_t)sqlite3_column_int64(s, 1);
		int i = store_read_stats(s, 2, &row->stats);
		i = store_read_lat(s, i, &row->lat);
		uint64_t start = (uint64_t)sqlite3_column_int64(s, i++);
		if (sqlite3_column_type(s, i) != SQLITE_NULL) {
			uint64_t a = c2c_line_display(row->line_addr, st->line_size) + row->offset;
			store_col_text(s, i, row->symbol, sizeof(row->symbol));
			row->symbol_offset = a >= start ? a - start : 0;
		}
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		free(*rows);
		*rows = NULL;
		*n = 0;
		return store_sqlerr(st, err, "reading a site's accesses");
	}
	access_mode = mode;
	if (*n) /* qsort(NULL, 0) is undefined */
		qsort(*rows, *n, sizeof(**rows), access_cmp);
	return 0;
}

static int caller_cmp(const void *pa, const void *pb)
{
	const struct store_caller_row *a = pa, *b = pb;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return a->site < b->site ? -1 : a->site > b->site;
}

int store_query_site_callers(struct store *st, int64_t site_id, struct store_caller_row **rows, size_t *n,
			     struct c2c_error *err)
{
	struct agg_table seen;
	sqlite3_stmt *s;
	size_t cap = 0;
	int r, rc;

	*rows = NULL;
	*n = 0;
	memset(&seen, 0, sizeof(seen));
	/* The direct caller is the frame right after the site in each chain
	 * that contains it. */
	if ((r = store_prepare(st, &s, "SELECT c.sites, x.cnt FROM (SELECT callchain, COUNT(*) AS cnt FROM ("
				 " SELECT callchain FROM main.samples WHERE site = ?1 AND callchain > 0"
				 " UNION ALL SELECT callchain FROM main.lock_waits WHERE site = ?1 AND callchain > 0)"
				 " GROUP BY callchain) x JOIN main.callchains c ON c.id = x.callchain", err)) < 0)
		return r;
	sqlite3_bind_int64(s, 1, site_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const unsigned char *blob = sqlite3_column_blob(s, 0);
		size_t len = (size_t)sqlite3_column_bytes(s, 0) / sizeof(int64_t);
		uint64_t cnt = (uint64_t)sqlite3_column_int64(s, 1);
		int64_t caller = 0;
		for (size_t i = 0; i + 1 < len && blob; i++) {
			int64_t v;
			memcpy(&v, blob + i * sizeof(v), sizeof(v));
			if (v == site_id) {
				memcpy(&caller, blob + (i + 1) * sizeof(v), sizeof(v));
				break;
			}
		}
		if (len && blob && !caller) {
			/* Chains that start with the site's caller (the site
			 * itself not recorded as a frame). */
			int64_t first;
			memcpy(&first, blob, sizeof(first));
			if (first != site_id)
				caller = first;
		}
		if (caller <= 0)
			continue;
		uint64_t key[AGG_KEY_WORDS] = { (uint64_t)caller, 0, 0, 0 };
		bool created;
		struct agg_ent *e = agg_table_get(&seen, key, &created);
		if (!e || (created && store_grow((void **)rows, &cap, *n + 1, sizeof(**rows)) < 0)) {
			sqlite3_finalize(s);
			agg_table_fini(&seen);
			free(*rows);
			*rows = NULL;
			*n = 0;
			return c2c_error_set(err, -ENOMEM, "out of memory");
		}
		if (created) {
			e->site = (int64_t)*n;
			memset(&(*rows)[*n], 0, sizeof(**rows));
			(*rows)[*n].site = caller;
			(*rows)[*n].depth = 1;
			(*n)++;
		}
		(*rows)[e->site].count += cnt;
	}
	sqlite3_finalize(s);
	agg_table_fini(&seen);
	if (rc != SQLITE_DONE) {
		free(*rows);
		*rows = NULL;
		*n = 0;
		return store_sqlerr(st, err, "reading call chains");
	}
	for (size_t i = 0; i < *n; i++) {
		struct store_caller_row *row = &(*rows)[i];
		if (sqlite3_prepare_v2(st->db, "SELECT function, offset, dso FROM main.sites WHERE id = ?", -1, &s, NULL)
		    != SQLITE_OK)
			continue;
		sqlite3_bind_int64(s, 1, row->site);
		if (sqlite3_step(s) == SQLITE_ROW) {
			store_col_text(s, 0, row->function, sizeof(row->function));
			row->offset = (uint64_t)sqlite3_column_int64(s, 1);
			store_col_text(s, 2, row->dso, sizeof(row->dso));
		}
		sqlite3_finalize(s);
	}
	if (*n) /* qsort(NULL, 0) is undefined */
		qsort(*rows, *n, sizeof(**rows), caller_cmp);
	return 0;
}
