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
#include "store/base/sample_merge.h"

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

/* One sample of the ordered scan, whichever way it was read. */
struct seq_sample {
	uint64_t a;                  /* the line key's address (virtual or physical) */
	int32_t pid, tid;
	uint64_t ip, phys, bits, weight, vaddr, time;
	uint8_t cpumode;
	const char *dso;
	bool has_cpu, has_node;
	int64_t cpu, node;
	uint64_t line_var;
};

struct seq_ctx {
	struct store_seq_line *lines;
	const size_t *idx;
	size_t n;
	uint32_t ls;
	bool phys_lines;
	unsigned coalesce;
	const struct c2c_mem_range *ranges;
	size_t nranges;
	const struct store_maps *maps;
};

static void seq_add(const struct seq_ctx *c, const struct seq_sample *x)
{
	/* the line key carries perf's identity variant (c2c_lineid.h) */
	uint64_t var = c->phys_lines ? 0 : x->line_var;
	long li = find_line(c->lines, c->idx, c->n, c2c_cl_address(x->a, c->ls, false) | var);
	struct store_seq_line *l;
	int node;

	if (li < 0)
		return;
	l = &c->lines[li];
	if (!l->seen) {
		/* perf's line entry keeps its first sample's key */
		l->seen = true;
		store_line_key_set(&l->key, c->maps, x->cpumode, x->pid, x->vaddr, x->time,
				   c2c_bits_count(x->bits, C2C_NOMAP) != 0);
	}
	/* perf: no phys address, or one on no node, leaves both columns alone */
	node = c2c_mem_node(c->ranges, c->nranges, x->phys);
	if (node >= 0)
		phys_add(&l->phys, node, x->phys);
	for (size_t i = 0; i < l->nrows; i++) {
		if (!row_matches(&l->rows[i], c->coalesce, x->a & (c->ls - 1), x->pid, x->tid, x->ip, x->dso))
			continue;
		if (node >= 0 && l->row_phys)
			phys_add(&l->row_phys[i], node, x->phys);
		/* perf's running means, per row, in sample order */
		if (l->row_lat)
			store_lat_add(&l->row_lat[i], x->bits, x->weight);
		if (l->row_nodes) {
			struct store_row_nodes *rn = &l->row_nodes[i];
			int nd = x->has_node ? (int)x->node : 0;

			if (x->has_cpu && (uint64_t)x->cpu < 256)
				rn->cpus[x->cpu / 64] |= 1ull << (x->cpu % 64);
			if (nd >= 0 && nd < STORE_SEQ_MAX_NODES)
				c2c_stats_add_bits(&rn->node[nd], x->bits);
		}
		break;
	}
}

/* The ordered scan of a block session without the dso key: the blocks
 * (only the filter's CPUs' and nodes', only the window's) merged in time
 * order in C, as the filtered aggregates are rebuilt (store/filter/
 * rebuild.c): no SQL row a sample. */
static int seq_blocks(struct store *st, const struct store_filter *f, const struct seq_ctx *c,
		      struct c2c_error *err)
{
	/* time, cpu, node, pid, tid, cpumode, ip, addr, phys_addr, class_bits, weight, line_var */
	const uint32_t cols = 1u | 4u | 8u | 16u | 32u | 64u | 128u | 512u | 1024u | 2048u | 4096u | (1u << 20);
	struct sample_merge *m = NULL;
	const struct store_sample_rec *r;
	const unsigned char *raw;
	int64_t id;
	int more;

	if ((more = store_filter_merge_open(st, f, cols, &m, err)) == 0) {
		while ((more = sample_merge_next(m, &r, &raw, &id)) > 0) {
#define HAS(k) ((r->present >> (k)) & 1u)
#define V(k) (HAS(k) ? r->v[k] : 0)
			if (!store_filter_keeps(f, r))
				continue;
			struct seq_sample x = {
				.a = (uint64_t)(c->phys_lines ? V(10) : V(9)),
				.pid = (int32_t)V(4), .tid = (int32_t)V(5),
				.ip = (uint64_t)V(7), .phys = (uint64_t)V(10), .bits = (uint64_t)V(11),
				.weight = (uint64_t)V(12), .vaddr = (uint64_t)V(9), .time = (uint64_t)V(0),
				.cpumode = (uint8_t)V(6), .dso = "",
				.has_cpu = HAS(2), .cpu = V(2), .has_node = HAS(3), .node = V(3),
				.line_var = (uint64_t)V(20),
			};
#undef V
#undef HAS
			seq_add(c, &x);
		}
	}
	if (more < 0 && m)
		more = store_filter_merge_error(st, m, more, err);
	sample_merge_close(m);
	return more;
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
	/* default options: the writer kept these numbers, a filtered view's
	 * rebuild too (store/agg/agg_report.c) */
	const char *schema = store_agg_schema_for(st, f, AGG_FLUSH_REP, err);
	if (!schema)
		return err ? err->code : -EIO;
	if ((r = store_lines_seq_precomputed(st, schema, f, coalesce, lines, n, err)) != 0)
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

	struct seq_ctx ctx = { .lines = lines, .idx = idx, .n = n, .ls = ls, .phys_lines = phys_lines,
			       .coalesce = coalesce, .ranges = ranges, .nranges = nranges, .maps = &maps };
	if (st->sample_blocks && !need_dso) {
		r = seq_blocks(st, f, &ctx, err);
		free(idx);
		free(ranges);
		store_maps_free(&maps);
		return r;
	}
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
		     " FROM main.samples s%s%s%s ORDER BY %s",
		     phys_lines ? "phys_addr" : "addr", need_dso ? "COALESCE(t.dso, '')" : "''",
		     need_dso ? " LEFT JOIN main.sites t ON t.id = s.site" : "", where, in ? in : "",
		     /* recording order: per-CPU blocks (schema 3) merge by time */
		     st->sample_parts ? "s.time, s.id" : "s.id") < 0)
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
		const char *dso = (const char *)sqlite3_column_text(s, 5);
		struct seq_sample x = {
			.a = (uint64_t)sqlite3_column_int64(s, 0),
			.pid = sqlite3_column_int(s, 1),
			.tid = sqlite3_column_int(s, 2),
			.ip = (uint64_t)sqlite3_column_int64(s, 3),
			.phys = (uint64_t)sqlite3_column_int64(s, 4),
			.dso = dso ? dso : "",
			.bits = (uint64_t)sqlite3_column_int64(s, 6),
			.weight = (uint64_t)sqlite3_column_int64(s, 7),
			.cpumode = (uint8_t)sqlite3_column_int(s, 8),
			.vaddr = (uint64_t)sqlite3_column_int64(s, 9),
			.time = (uint64_t)sqlite3_column_int64(s, 10),
			.has_cpu = sqlite3_column_type(s, 11) != SQLITE_NULL,
			.cpu = sqlite3_column_int64(s, 11),
			.has_node = sqlite3_column_type(s, 12) != SQLITE_NULL,
			.node = sqlite3_column_int64(s, 12),
			.line_var = (uint64_t)sqlite3_column_int64(s, 13),
		};
		seq_add(&ctx, &x);
	}
	sqlite3_finalize(s);
	free(idx);
	free(ranges);
	store_maps_free(&maps);
	if (rc != SQLITE_DONE)
		return store_sqlerr(st, err, "reading the samples of the report's lines");
	return 0;
}
