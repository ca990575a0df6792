/* The sample filters of a view (CPU, node, thread, time window) as the
 * WHERE clause and bindings of a scan of samples or lock_waits; every query
 * that reads samples, and the recomputation in rebuild.c, uses them. A time
 * window also narrows the scan to the ids of the sample blocks it overlaps
 * (table sample_time_blocks, store/writer/time_blocks.c). */
#include "store/filter/filter.h"
#include "collector/base/appendf.h"

#include <stdio.h>
#include <string.h>

void store_filter_init(struct store_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->cpu = f->node = f->pid = f->tid = -1;
}

bool store_filter_needs_recompute(const struct store_filter *f)
{
	return f && (f->cpu >= 0 || f->node >= 0 || f->pid >= 0 || f->tid >= 0 || f->time_from || f->time_to ||
		     f->double_cl || f->phys_lines);
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
