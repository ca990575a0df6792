/* The physical-address columns of perf c2c report: "Node" (memory nodes of
 * the samples' physical addresses, from the recording's MEM_TOPOLOGY) and
 * "PA cnt" (how often the physical address changes), for lines and their
 * Pareto rows; the rows' average cycles (perf's running means per row,
 * which a merge of finer-grained means cannot reproduce digit for digit);
 * and the first-sample key perf breaks ties between lines with. perf
 * computes all of them sample by sample in time order, so they come from
 * one ordered scan of the samples for all the lines a report shows. Rules: collector/c2c/c2c.h
 * (c2c_mem_node, c2c_paddr_track_update). Written by the c2c/report helper
 * (docs/store-requests.md R1). */
#include "store/query/query_priv.h"
#include "store/agg/agg.h"
#include "store/filter/filter.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void phys_add(struct store_phys *p, int node, uint64_t phys)
{
	struct c2c_paddr_track t = { p->last_phys, p->pa_cnt };

	if (node >= 0 && node < 64)
		p->node_mask |= 1ull << node;
	c2c_paddr_track_update(&t, phys);
	p->last_phys = t.last;
	p->pa_cnt = t.count;
}

static bool row_matches(const struct store_pareto_row *r, unsigned coalesce, uint64_t off, int32_t pid,
			int32_t tid, uint64_t ip, const char *dso)
{
	if (r->offset != off)
		return false;
	if ((coalesce & STORE_COALESCE_PID) && r->pid != pid)
		return false;
	if ((coalesce & STORE_COALESCE_TID) && r->tid != tid)
		return false;
	if ((coalesce & STORE_COALESCE_IADDR) && r->iaddr != ip)
		return false;
	if ((coalesce & STORE_COALESCE_DSO) && !(coalesce & STORE_COALESCE_IADDR) && strcmp(r->dso, dso))
		return false;
	return true;
}

int store_line_key_cmp(const struct store_line_key *a, uint64_t addr_a,
		       const struct store_line_key *b, uint64_t addr_b)
{
#define KCMP(x, y) do { if ((x) != (y)) return (x) < (y) ? -1 : 1; } while (0)
	KCMP(a->cpumode, b->cpumode);
	/* lines whose data map is known come first */
	if (a->mapped != b->mapped)
		return a->mapped ? -1 : 1;
	if (a->mapped) {
		KCMP(a->maj, b->maj);
		KCMP(a->min, b->min);
		KCMP(a->ino, b->ino);
		KCMP(a->ino_generation, b->ino_generation);
		if (a->anon && b->anon)
			KCMP(a->pid, b->pid);
	}
	KCMP(addr_a, addr_b);
	return 0;
#undef KCMP
}

static int cmp_idx_addr(const void *a, const void *b, void *arg)
{
	const struct store_seq_line *l = arg;
	uint64_t x = l[*(const size_t *)a].addr, y = l[*(const size_t *)b].addr;

	return x < y ? -1 : x > y;
}

/* Index of the line holding addr (sorted order in idx), or -1. */
static long find_line(const struct store_seq_line *l, const size_t *idx, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (l[idx[mid]].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && l[idx[lo]].addr == addr ? (long)idx[lo] : -1;
}

int store_query_lines_seq(struct store *st, const struct store_filter *f, unsigned coalesce,
			  struct store_seq_line *lines, size_t n, struct c2c_error *err)
{
	struct c2c_mem_range *ranges = NULL;
	struct store_maps maps;
	size_t nranges = 0, *idx;
	char where[4096], *sql, *in = NULL;
	size_t inlen = 0;
	uint32_t ls = store_line_size(st, f);
	bool phys_lines = f && f->phys_lines, need_dso;
	sqlite3_stmt *s;
	int r, rc;

	if (!coalesce)
		coalesce = STORE_COALESCE_DEFAULT;
	need_dso = (coalesce & STORE_COALESCE_DSO) && !(coalesce & STORE_COALESCE_IADDR);
	for (size_t i = 0; i < n; i++) {
		memset(&lines[i].phys, 0, sizeof(lines[i].phys));
		memset(&lines[i].key, 0, sizeof(lines[i].key));
		lines[i].key.pid = -1;
		lines[i].seen = false;
		if (lines[i].nrows && lines[i].row_phys)
			memset(lines[i].row_phys, 0, lines[i].nrows * sizeof(*lines[i].row_phys));
		if (lines[i].nrows && lines[i].row_lat)
			memset(lines[i].row_lat, 0, lines[i].nrows * sizeof(*lines[i].row_lat));
		if (lines[i].nrows && lines[i].row_nodes)
			memset(lines[i].row_nodes, 0, lines[i].nrows * sizeof(*lines[i].row_nodes));
	}
	if (!n)
		return 0;
	/* default options: the writer kept these numbers (store/agg/agg_report.c) */
	if ((r = store_lines_seq_precomputed(st, f, coalesce, lines, n, err)) != 0)
		return r < 0 ? r : 0;
	if (store_get_mem_ranges(st, &ranges, &nranges) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	if ((r = store_maps_load(st, &maps, err)) < 0) {
		free(ranges);
		return r;
	}
	idx = malloc(n * sizeof(*idx));
	if (!idx) {
		free(ranges);
		store_maps_free(&maps);
		return c2c_error_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), cmp_idx_addr, lines);

	store_filter_sql(st, f, where, sizeof(where), false);
	/* Let SQLite drop the other lines' samples: most of the scan's cost
	 * is handing rows to C. A few hundred lines fit an IN list. */
	if (n <= 512) {
		in = malloc(n * 24 + 64);
		if (in) {
			inlen = (size_t)sprintf(in, "%s(s.%s & %" PRId64 ") IN (", where[0] ? " AND " : " WHERE ",
						phys_lines ? "phys_addr" : "addr", (int64_t)~(uint64_t)(ls - 1));
			for (size_t i = 0; i < n; i++)
				inlen += (size_t)sprintf(in + inlen, "%s%" PRId64, i ? "," : "",
							 (int64_t)c2c_line_display(lines[i].addr, ls));
			strcpy(in + inlen, ")");
		}
	}
	if (asprintf(&sql,
		     "SELECT s.%s, s.pid, s.tid, s.ip, s.phys_addr, %s, s.class_bits, s.weight, s.cpumode, s.addr,"
		     " s.time, s.cpu, s.node, COALESCE(s.line_var, 0)"
		     " FROM main.samples s%s%s%s ORDER BY s.id",
		     phys_lines ? "phys_addr" : "addr", need_dso ? "COALESCE(t.dso, '')" : "''",
		     need_dso ? " LEFT JOIN main.sites t ON t.id = s.site" : "", where, in ? in : "") < 0)
		sql = NULL;
	free(in);
	r = sql ? store_prepare(st, &s, sql, err) : c2c_error_set(err, -ENOMEM, "out of memory");
	free(sql);
	if (r < 0) {
		free(idx);
		free(ranges);
		store_maps_free(&maps);
		return r;
	}
	store_filter_bind(s, f);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		uint64_t a = (uint64_t)sqlite3_column_int64(s, 0);
		/* the line key carries perf's identity variant (c2c_lineid.h) */
		uint64_t var = phys_lines ? 0 : (uint64_t)sqlite3_column_int64(s, 13);
		long li = find_line(lines, idx, n, c2c_cl_address(a, ls, false) | var);
		struct store_seq_line *l;
		uint64_t phys, bits;
		int node;

		if (li < 0)
			continue;
		l = &lines[li];
		phys = (uint64_t)sqlite3_column_int64(s, 4);
		bits = (uint64_t)sqlite3_column_int64(s, 6);
		if (!l->seen) {
			/* perf's line entry keeps its first sample's key */
			l->seen = true;
			store_line_key_set(&l->key, &maps, (uint8_t)sqlite3_column_int(s, 8), sqlite3_column_int(s, 1),
					   (uint64_t)sqlite3_column_int64(s, 9), (uint64_t)sqlite3_column_int64(s, 10),
					   c2c_bits_count(bits, C2C_NOMAP) != 0);
		}
		/* perf: no phys address, or one on no node, leaves both columns alone */
		node = c2c_mem_node(ranges, nranges, phys);
		if (node >= 0)
			phys_add(&l->phys, node, phys);
		for (size_t i = 0; i < l->nrows; i++) {
			const char *dso = (const char *)sqlite3_column_text(s, 5);

			if (!row_matches(&l->rows[i], coalesce, a & (ls - 1), sqlite3_column_int(s, 1),
					 sqlite3_column_int(s, 2), (uint64_t)sqlite3_column_int64(s, 3), dso ? dso : ""))
				continue;
			if (node >= 0 && l->row_phys)
				phys_add(&l->row_phys[i], node, phys);
			/* perf's running means, per row, in sample order */
			if (l->row_lat)
				store_lat_add(&l->row_lat[i], bits, (uint64_t)sqlite3_column_int64(s, 7));
			if (l->row_nodes) {
				struct store_row_nodes *rn = &l->row_nodes[i];
				int nd = sqlite3_column_type(s, 12) == SQLITE_NULL ? 0 : sqlite3_column_int(s, 12);

				if (sqlite3_column_type(s, 11) != SQLITE_NULL) {
					uint64_t cpu = (uint64_t)sqlite3_column_int64(s, 11);

					if (cpu < 256)
						rn->cpus[cpu / 64] |= 1ull << (cpu % 64);
				}
				if (nd >= 0 && nd < STORE_SEQ_MAX_NODES)
					c2c_stats_add_bits(&rn->node[nd], bits);
			}
			break;
		}
	}
	sqlite3_finalize(s);
	free(idx);
	free(ranges);
	store_maps_free(&maps);
	if (rc != SQLITE_DONE)
		return store_sqlerr(st, err, "reading the samples of the report's lines");
	return 0;
}
