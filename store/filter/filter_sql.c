/* The sample filters of a view (CPU, node, thread, time window) as the
 * WHERE clause and bindings of a scan of samples or lock_waits; every query
 * that reads samples, and the recomputation in rebuild.c, uses them. A time
 * window also narrows the scan to the ids of the sample blocks it overlaps
 * (table sample_time_blocks, store/writer/time_blocks.c). */
#include "store/filter/filter.h"
#include "store/base/sample_codec.h"
#include "collector/base/appendf.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void store_filter_init(struct store_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->cpu = f->node = f->pid = f->tid = -1;
}

static bool has_sets(const struct store_filter *f)
{
	return f->cpus.n || f->nodes.n || f->pids.n || f->tids.n;
}

bool store_filter_needs_recompute(const struct store_filter *f)
{
	return f && (f->cpu >= 0 || f->node >= 0 || f->pid >= 0 || f->tid >= 0 || f->time_from || f->time_to ||
		     f->double_cl || f->phys_lines || has_sets(f));
}

int store_id_set_parse(struct store_id_set *s, const char *text)
{
	const char *p = text;

	memset(s, 0, sizeof(*s));
	while (*p) {
		char *end;
		long long lo, hi;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		lo = strtoll(p, &end, 10);
		hi = lo;
		if (*end == '-') {
			p = end + 1;
			if (*p < '0' || *p > '9')
				return -EINVAL;
			hi = strtoll(p, &end, 10);
		}
		if (hi < lo || hi > INT32_MAX || s->n == STORE_ID_SET_MAX)
			return -EINVAL;
		s->r[s->n].lo = lo;
		s->r[s->n].hi = hi;
		s->n++;
		if (*end == ',' && end[1])
			end++;
		else if (*end)
			return -EINVAL;
		p = end;
	}
	return s->n ? 0 : -EINVAL;
}

bool store_id_set_has(const struct store_id_set *s, int64_t v)
{
	if (!s->n)
		return true;
	for (uint32_t i = 0; i < s->n; i++)
		if (v >= s->r[i].lo && v <= s->r[i].hi)
			return true;
	return false;
}

/* "(col BETWEEN lo AND hi OR ...)": the numbers are ours (parsed), so
 * they go into the text; a set of nodes on lock_waits goes through cpus. */
static size_t set_sql(char *buf, size_t size, size_t n, const char *prefix, const char *col,
		      const struct store_id_set *set, bool node_via_cpus)
{
	if (!set->n)
		return n;
	n = c2c_appendf(buf, size, n, "%s%s", node_via_cpus ? prefix : "", node_via_cpus ? "cpu IN (SELECT cpu FROM cpus WHERE " : "(");
	for (uint32_t i = 0; i < set->n; i++)
		n = c2c_appendf(buf, size, n, "%s%s%s BETWEEN %lld AND %lld", i ? " OR " : "", node_via_cpus ? "" : prefix,
				col, (long long)set->r[i].lo, (long long)set->r[i].hi);
	return c2c_appendf(buf, size, n, ")");
}

int store_filter_sets_sql(const struct store_filter *f, const char *prefix, bool lock_table, char *buf, size_t size)
{
	const struct store_id_set *sets[] = { &f->cpus, &f->nodes, &f->pids, &f->tids };
	const char *cols[] = { "cpu", "node", "pid", "tid" };
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; i < 4; i++) {
		if (!sets[i]->n)
			continue;
		n = c2c_appendf(buf, size, n, " AND ");
		n = set_sql(buf, size, n, prefix, cols[i], sets[i], lock_table && i == 1);
	}
	return n >= size ? -ENOSPC : 0;
}

uint32_t store_line_size(const struct store *st, const struct store_filter *f)
{
	return st->line_size * (f && f->double_cl ? 2 : 1);
}

/* A condition on samples.id (using f's :t0/:t1) that keeps the blocks
 * overlapping f's time window, or NULL (no window, or no blocks). */
static const char *time_blocks_where(const struct store *st, const struct store_filter *f)
{
	if (!st || !st->time_blocks || !f || (!f->time_from && !f->time_to))
		return NULL;
	if (f->time_from && f->time_to)
		return "id BETWEEN (SELECT MIN(first_id) FROM main.sample_time_blocks WHERE tmax >= :t0 AND tmin < :t1)"
		       " AND (SELECT MAX(last_id) FROM main.sample_time_blocks WHERE tmax >= :t0 AND tmin < :t1)";
	if (f->time_from)
		return "id >= (SELECT MIN(first_id) FROM main.sample_time_blocks WHERE tmax >= :t0)";
	return "id <= (SELECT MAX(last_id) FROM main.sample_time_blocks WHERE tmin < :t1)";
}

/* Whether a block session's sample r passes f, as the SQL of
 * store_filter_sql would say (a NULL column matches no condition). */
bool store_filter_keeps(const struct store_filter *f, const struct store_sample_rec *r)
{
#define HAS(c) ((r->present >> (c)) & 1u)
	if (!f)
		return true;
	if (f->cpu >= 0 && (!HAS(2) || r->v[2] != f->cpu))
		return false;
	if (f->node >= 0 && (!HAS(3) || r->v[3] != f->node))
		return false;
	if (f->pid >= 0 && (!HAS(4) || r->v[4] != f->pid))
		return false;
	if (f->tid >= 0 && (!HAS(5) || r->v[5] != f->tid))
		return false;
	if (f->time_from && (!HAS(0) || r->v[0] < (int64_t)f->time_from))
		return false;
	if (f->time_to && (!HAS(0) || r->v[0] >= (int64_t)f->time_to))
		return false;
	if ((f->cpus.n && (!HAS(2) || !store_id_set_has(&f->cpus, r->v[2]))) ||
	    (f->nodes.n && (!HAS(3) || !store_id_set_has(&f->nodes, r->v[3]))) ||
	    (f->pids.n && (!HAS(4) || !store_id_set_has(&f->pids, r->v[4]))) ||
	    (f->tids.n && (!HAS(5) || !store_id_set_has(&f->tids, r->v[5]))))
		return false;
	return true;
#undef HAS
}

/* The mask of one value and a set; both given, a sample must pass both,
 * so the single value's bit. */
static uint64_t one_set_mask(int32_t one, const struct store_id_set *set)
{
	uint64_t m = 0;

	if (one >= 0)
		return 1ull << (one % 64);
	for (uint32_t i = 0; i < set->n; i++) {
		int64_t lo = set->r[i].lo < 0 ? 0 : set->r[i].lo, hi = set->r[i].hi;
		if (hi - lo >= 63)
			return ~0ull;
		for (int64_t v = lo; v <= hi; v++)
			m |= 1ull << (v % 64);
	}
	return m;
}

void store_filter_block_masks(const struct store_filter *f, uint64_t *cpus, uint64_t *nodes)
{
	*cpus = f ? one_set_mask(f->cpu, &f->cpus) : 0;
	*nodes = f ? one_set_mask(f->node, &f->nodes) : 0;
}

void store_filter_task_masks(const struct store_filter *f, uint64_t *pids, uint64_t *tids)
{
	*pids = f ? one_set_mask(f->pid, &f->pids) : 0;
	*tids = f ? one_set_mask(f->tid, &f->tids) : 0;
}

/* WHERE clause for the sample filters; binds come in a fixed order. */
int store_filter_sql(const struct store *st, const struct store_filter *f, char *buf, size_t size, bool lock_table)
{
	const char *ids = lock_table ? NULL : time_blocks_where(st, f);
	size_t n = 0;
	buf[0] = 0;
	if (!f)
		return 0;
#define ADD(cond) n = c2c_appendf(buf, size, n, "%s%s", n ? " AND " : " WHERE ", cond)
	if (f->cpu >= 0)
		ADD("cpu = :cpu");
	if (f->node >= 0)
		ADD(lock_table ? "cpu IN (SELECT cpu FROM cpus WHERE node = :node)" : "node = :node");
	if (f->pid >= 0)
		ADD("pid = :pid");
	if (f->tid >= 0)
		ADD("tid = :tid");
	if (f->time_from)
		ADD("time >= :t0");
	if (f->time_to)
		ADD("time < :t1");
	if (ids)
		ADD(ids);  /* only the ids of the blocks in the window: no full scan */
	if (has_sets(f)) {
		char sets[2048];
		if (store_filter_sets_sql(f, "", lock_table, sets, sizeof(sets)) < 0)
			return -ENOSPC;
		ADD(sets + 5);  /* without its leading " AND " */
	}
	if (st && st->sample_parts && !lock_table) {
		/* per-CPU blocks: the samples table reads only the blocks of
		 * these CPUs and nodes (store/base/sample_vtab.c) */
		uint64_t cpus, nodes;
		char hint[64];
		store_filter_block_masks(f, &cpus, &nodes);
		if (cpus) {
			snprintf(hint, sizeof(hint), "block_cpus = %lld", (long long)cpus);
			ADD(hint);
		}
		if (nodes) {
			snprintf(hint, sizeof(hint), "block_nodes = %lld", (long long)nodes);
			ADD(hint);
		}
	}
#undef ADD
	return 0;
}

void store_filter_bind(sqlite3_stmt *s, const struct store_filter *f)
{
	int i;
	if (!f)
		return;
	if ((i = sqlite3_bind_parameter_index(s, ":cpu")))
		sqlite3_bind_int64(s, i, f->cpu);
	if ((i = sqlite3_bind_parameter_index(s, ":node")))
		sqlite3_bind_int64(s, i, f->node);
	if ((i = sqlite3_bind_parameter_index(s, ":pid")))
		sqlite3_bind_int64(s, i, f->pid);
	if ((i = sqlite3_bind_parameter_index(s, ":tid")))
		sqlite3_bind_int64(s, i, f->tid);
	if ((i = sqlite3_bind_parameter_index(s, ":t0")))
		sqlite3_bind_int64(s, i, (sqlite3_int64)f->time_from);
	if ((i = sqlite3_bind_parameter_index(s, ":t1")))
		sqlite3_bind_int64(s, i, (sqlite3_int64)f->time_to);
}

char *store_sql_with_sets(const char *head, const struct store_filter *f, const char *prefix, const char *tail)
{
	char sets[2048] = "";
	char *sql;

	if (f && has_sets(f) && store_filter_sets_sql(f, prefix, true, sets, sizeof(sets)) < 0)
		return NULL;
	if (asprintf(&sql, "%s%s%s", head, sets, tail) < 0)
		return NULL;
	return sql;
}
