/* Queries: the timeline (samples and lock waits per time bucket, for the
 * session or one line) and search (addresses, data symbols, functions). */
#include "store/query/query_priv.h"
#include "store/filter/filter.h"
#include "store/agg/agg_timeline.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum c2c_counter mode_counter(enum store_mode m)
{
	switch (m) {
	case STORE_MODE_LCL: return C2C_LCL_HITM;
	case STORE_MODE_RMT: return C2C_RMT_HITM;
	case STORE_MODE_PEER: return C2C_TOT_PEER;
	default: return C2C_TOT_HITM;
	}
}

int store_query_timeline(struct store *st, uint64_t line_addr, const struct store_filter *f,
			 enum store_mode mode, uint32_t nbuckets, struct store_time_row **rows, size_t *n,
			 struct c2c_error *err)
{
	bool all = line_addr == STORE_ALL_LINES;
	uint64_t t0, t1, width;
	char where[4096], *sql;
	sqlite3_stmt *s;
	int r, rc;

	*rows = NULL;
	*n = 0;
	if (!nbuckets)
		return c2c_error_set(err, -EINVAL, "timeline: no buckets asked for");
	if (nbuckets > 100000)
		nbuckets = 100000;
	t0 = f ? f->time_from : 0;
	t1 = f ? f->time_to : 0;
	/* A finalized session has the per-slice aggregate (agg_timeline.c).
	 * Without a time window the buckets are whole numbers of its slices
	 * (k = ceil(slices / nbuckets) each, so ceil(slices / k) <= nbuckets
	 * buckets), whichever path answers: then the slices give exactly the
	 * scan's sums. With no filter but the line they answer; cpu/node/pid/
	 * tid filters, time windows, 128-byte or physical lines, lines not in
	 * agg_time_line and sessions without a current aggregate scan. */
	struct store_slicing sl;
	bool sliced = !t0 && !t1 && store_timeline_slicing(st, &sl);
	if (sliced && !store_timeline_scan_forced() &&
	    (!f || (f->cpu < 0 && f->node < 0 && f->pid < 0 && f->tid < 0 && !f->double_cl && !f->phys_lines &&
		    !f->cpus.n && !f->nodes.n && !f->pids.n && !f->tids.n))) {
		r = store_timeline_from_slices(st, &sl, line_addr, mode_counter(mode), nbuckets, rows, n, err);
		if (r != 0)
			return r < 0 ? r : 0;
	}
	if (sliced) {
		uint32_t k = store_timeline_step(&sl, !all, nbuckets);
		nbuckets = (sl.nslices + k - 1) / k;
		t0 = sl.t0;
		t1 = sl.t0 + (uint64_t)nbuckets * k * sl.width;
	} else if (!t0 || !t1) {
		if ((r = store_prepare(st, &s, "SELECT MIN(time), MAX(time) FROM (SELECT time FROM main.samples WHERE time > 0"
					 " UNION ALL SELECT time FROM main.lock_waits WHERE time > 0)", err)) < 0)
			return r;
		if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
			if (!t0)
				t0 = (uint64_t)sqlite3_column_int64(s, 0);
			if (!t1)
				t1 = (uint64_t)sqlite3_column_int64(s, 1) + 1;
		}
		sqlite3_finalize(s);
	}
	if (t1 <= t0)
		return 0;
	width = sliced ? (t1 - t0) / nbuckets : (t1 - t0 + nbuckets - 1) / nbuckets;
	if (!width)
		width = 1;
	*rows = calloc(nbuckets, sizeof(**rows));
	if (!*rows)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	for (uint32_t i = 0; i < nbuckets; i++) {
		(*rows)[i].t_start = t0 + i * width;
		(*rows)[i].t_end = t0 + (i + 1) * width;
	}
	*n = nbuckets;

	for (int pass = 0; pass < 2; pass++) {
		struct store_filter tf;
		if (f)
			tf = *f;
		else
			store_filter_init(&tf);
		tf.time_from = t0;
		tf.time_to = t1;
		store_filter_sql(st, &tf, where, sizeof(where), pass == 1);
		if (pass == 0)
			r = asprintf(&sql, "SELECT time, class_bits FROM main.samples%s%s", where,
				     all ? "" : tf.phys_lines ? " AND (phys_addr & :mask) = :line"
				     : " AND (addr & :mask) = :line AND COALESCE(line_var, 0) = :var");
		else
			r = asprintf(&sql, "SELECT time, wait_ns FROM main.lock_waits%s%s", where,
				     all ? "" : tf.double_cl ? " AND line IN (:line, :line2)" : " AND line = :line");
		if (r < 0) {
			free(*rows);
			*rows = NULL;
			*n = 0;
			return c2c_error_set(err, -ENOMEM, "out of memory");
		}
		r = store_prepare(st, &s, sql, err);
		free(sql);
		if (r < 0) {
			free(*rows);
			*rows = NULL;
			*n = 0;
			return r;
		}
		store_filter_bind(s, &tf);
		int i;
		/* the line key's identity variant (c2c_lineid.h) selects the samples */
		if ((i = sqlite3_bind_parameter_index(s, ":line")))
			sqlite3_bind_int64(s, i, (sqlite3_int64)c2c_line_display(line_addr, st->line_size));
		if ((i = sqlite3_bind_parameter_index(s, ":line2")))
			sqlite3_bind_int64(s, i, (sqlite3_int64)(c2c_line_display(line_addr, st->line_size) + st->line_size));
		if ((i = sqlite3_bind_parameter_index(s, ":var")))
			sqlite3_bind_int64(s, i, (sqlite3_int64)(line_addr - c2c_line_display(line_addr, st->line_size)));
		if ((i = sqlite3_bind_parameter_index(s, ":mask")))
			sqlite3_bind_int64(s, i, (sqlite3_int64)~(uint64_t)(store_line_size(st, &tf) - 1));
		while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
			uint64_t t = (uint64_t)sqlite3_column_int64(s, 0);
			uint64_t b = (t - t0) / width;
			if (t < t0 || b >= nbuckets)
				continue;
			struct store_time_row *row = &(*rows)[b];
			if (pass == 0) {
				uint64_t bits = (uint64_t)sqlite3_column_int64(s, 1);
				row->samples++;
				row->hitm += c2c_bits_count(bits, mode_counter(mode));
				row->loads += c2c_bits_count(bits, C2C_LOAD);
				row->stores += c2c_bits_count(bits, C2C_STORE);
			} else {
				row->lock_waits++;
				row->lock_wait_ns += (uint64_t)sqlite3_column_int64(s, 1);
			}
		}
		sqlite3_finalize(s);
		if (rc != SQLITE_DONE) {
			free(*rows);
			*rows = NULL;
			*n = 0;
			return store_sqlerr(st, err, "reading the timeline");
		}
	}
	return 0;
}

static int add_hit(struct store_search_row **rows, size_t *n, size_t *cap, enum store_hit_kind kind, uint64_t addr,
		   int64_t site, const char *text, uint64_t hitm)
{
	if (store_grow((void **)rows, cap, *n + 1, sizeof(**rows)) < 0)
		return -ENOMEM;
	struct store_search_row *r = &(*rows)[(*n)++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->addr = addr;
	r->site = site;
	r->hitm = hitm;
	store_copy(r->text, sizeof(r->text), text);
	return 0;
}

static int run_search(struct store *st, const char *sql, const char *arg1, sqlite3_int64 arg2, bool use_int,
		      enum store_hit_kind kind, size_t limit, struct store_search_row **rows, size_t *n, size_t *cap,
		      struct c2c_error *err)
{
	sqlite3_stmt *s;
	int r = store_prepare(st, &s, sql, err);
	if (r < 0)
		return r;
	if (use_int)
		sqlite3_bind_int64(s, 1, arg2);
	else
		sqlite3_bind_text(s, 1, arg1, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)st->line_size);
	while (*n < limit && sqlite3_step(s) == SQLITE_ROW) {
		if (add_hit(rows, n, cap, kind, (uint64_t)sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1),
			    (const char *)sqlite3_column_text(s, 2), (uint64_t)sqlite3_column_int64(s, 3)) < 0) {
			sqlite3_finalize(s);
			return c2c_error_set(err, -ENOMEM, "out of memory");
		}
	}
	sqlite3_finalize(s);
	return 0;
}

int store_search(struct store *st, const char *text, size_t limit, struct store_search_row **rows, size_t *n,
		 struct c2c_error *err)
{
	size_t cap = 0;
	int r = 0;
	char *end;

	*rows = NULL;
	*n = 0;
	if (!limit)
		limit = 100;
	while (text && isspace((unsigned char)*text))
		text++;
	if (!text || !*text)
		return 0;
	if ((text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))) {
		errno = 0;
		uint64_t a = strtoull(text + 2, &end, 16);
		if (!errno && end != text + 2 && (!*end || isspace((unsigned char)*end))) {
			uint64_t line = a & ~(uint64_t)(st->line_size - 1);
			r = run_search(st, "SELECT l.line, 0, printf('line 0x%x%s', l.line, COALESCE(' ' || d.name, '')),"
				       " l.tot_hitm FROM main.agg_line l LEFT JOIN main.dsyms d ON d.id = l.dsym"
				       " WHERE l.line = ?1 AND ?2 > 0", NULL, (sqlite3_int64)line, true, STORE_HIT_LINE, limit,
				       rows, n, &cap, err);
			if (r == 0)
				r = run_search(st, "SELECT s.ip, s.id, printf('%s+0x%x %s', COALESCE(s.function, '?'),"
					       " s.offset, COALESCE(s.dso, '')), 0 FROM main.sites s WHERE s.ip = ?1 AND ?2 > 0",
					       NULL, (sqlite3_int64)a, true, STORE_HIT_SITE, limit, rows, n, &cap, err);
			if (r == 0)
				r = run_search(st, "SELECT k.lock_addr, 0, printf('lock 0x%x%s', k.lock_addr,"
					       " COALESCE(' ' || d.name, '')), k.waits FROM main.agg_lock k"
					       " LEFT JOIN main.dsyms d ON d.id = k.dsym WHERE k.lock_addr = ?1 AND ?2 > 0",
					       NULL, (sqlite3_int64)a, true, STORE_HIT_LOCK, limit, rows, n, &cap, err);
			goto out;
		}
	}
	/* Lines whose data symbol matches, hottest first. */
	r = run_search(st, "SELECT l.line, 0, printf('line 0x%x %s', l.line, d.name), l.tot_hitm FROM main.agg_line l"
		       " JOIN main.dsyms d ON d.id = l.dsym WHERE instr(lower(d.name), lower(?1)) > 0 AND ?2 > 0"
		       " ORDER BY l.tot_hitm DESC, l.nr_entries DESC LIMIT 1000", text, 0, false, STORE_HIT_LINE, limit,
		       rows, n, &cap, err);
	if (r == 0)
		r = run_search(st, "SELECT s.ip, s.id, printf('%s+0x%x %s%s', s.function, s.offset, COALESCE(s.dso, ''),"
			       " CASE WHEN s.file IS NOT NULL THEN printf(' %s:%d', s.file, s.line) ELSE '' END),"
			       " COALESCE((SELECT SUM(p.tot_hitm) FROM main.agg_pareto p WHERE p.ip = s.ip), 0) AS h"
			       " FROM main.sites s WHERE (instr(lower(COALESCE(s.function, '')), lower(?1)) > 0"
			       " OR instr(lower(COALESCE(s.file, '')), lower(?1)) > 0) AND ?2 > 0"
			       " ORDER BY h DESC, s.id LIMIT 1000", text, 0, false, STORE_HIT_SITE, limit, rows, n, &cap, err);
out:
	if (r < 0) {
		free(*rows);
		*rows = NULL;
		*n = 0;
	}
	return r;
}
