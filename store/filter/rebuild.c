/* Aggregates recomputed from the samples table: the append-mode start of
 * a writer, and the views whose options change what a line is or which
 * samples count (time window, CPU / node / thread filters, 128-byte lines,
 * physical-address lines). Those views get temp tables shaped like the
 * main aggregates, cached until the options or the session change. */
#include "store/base/store_internal.h"

#include <errno.h>
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

/* WHERE clause for the sample filters; binds come in a fixed order. */
static void filter_where(const struct store *st, const struct store_filter *f, char *buf, size_t size,
			 bool lock_table)
{
	const char *ids = lock_table ? NULL : store_time_blocks_where(st, f);
	size_t n = 0;
	buf[0] = 0;
	if (!f)
		return;
#define ADD(cond) n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s", n ? " AND " : " WHERE ", cond)
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
}

static void filter_bind(sqlite3_stmt *s, const struct store_filter *f)
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

int store_filter_sql(const struct store *st, const struct store_filter *f, char *buf, size_t size, bool lock_table)
{
	filter_where(st, f, buf, size, lock_table);
	return 0;
}

void store_filter_bind(sqlite3_stmt *s, const struct store_filter *f)
{
	filter_bind(s, f);
}

int agg_rebuild(struct agg *a, struct store *st, const struct store_filter *f, struct c2c_error *err)
{
	char where[256], sql[768];
	sqlite3_stmt *s;
	int r, rc;

	agg_fini(a);
	agg_init(a, store_line_size(st, f));
	filter_where(st, f, where, sizeof(where), false);
	snprintf(sql, sizeof(sql),
		 "SELECT time, %s, cpu, node, pid, tid, ip, site, dsym, dsym_offset, class_bits, weight, addr, event,"
		 " COALESCE(phys_addr, 0), cpumode, COALESCE(line_var, 0) FROM samples%s ORDER BY id",
		 f && f->phys_lines ? "phys_addr" : "addr", where);
	/* The writer's own aggregator (append mode) keeps the report's
	 * sample-order numbers and the timeline log too; filtered views do
	 * not need them. */
	if (a == &st->agg && !store_filter_needs_recompute(f)) {
		if ((r = agg_rep_enable(a, st, err)) < 0)
			return r;
		/* without it the timeline build scans the samples */
		a->tl = tl_log_new();
	}
	if ((r = store_prepare(st, &s, sql, err)) < 0)
		return r;
	filter_bind(s, f);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		uint64_t vaddr = (uint64_t)sqlite3_column_int64(s, 12);
		struct agg_sample x = {
			.time = (uint64_t)sqlite3_column_int64(s, 0),
			.addr = (uint64_t)sqlite3_column_int64(s, 1),
			.cpu = sqlite3_column_type(s, 2) == SQLITE_NULL ? UINT32_MAX : (uint32_t)sqlite3_column_int64(s, 2),
			.node = sqlite3_column_int(s, 3),
			.pid = sqlite3_column_int(s, 4),
			.tid = sqlite3_column_int(s, 5),
			.ip = (uint64_t)sqlite3_column_int64(s, 6),
			.site = sqlite3_column_int64(s, 7),
			.dsym = sqlite3_column_int64(s, 8),   /* NULL reads as 0: none */
			.dsym_start = vaddr - (uint64_t)sqlite3_column_int64(s, 9),
			.bits = (uint64_t)sqlite3_column_int64(s, 10),
			.weight = (uint64_t)sqlite3_column_int64(s, 11),
			.event = (uint32_t)sqlite3_column_int64(s, 13),
			.vaddr = vaddr,
			.phys = (uint64_t)sqlite3_column_int64(s, 14),
			.cpumode = (uint8_t)sqlite3_column_int(s, 15),
			/* physical lines have no per-process identity */
			.line_var = f && f->phys_lines ? 0 : (uint8_t)sqlite3_column_int(s, 16),
		};
		if (agg_add_sample(a, &x) < 0) {
			sqlite3_finalize(s);
			return c2c_error_set(err, -ENOMEM, "out of memory while aggregating samples");
		}
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_sqlerr(st, err, "reading samples");

	filter_where(st, f, where, sizeof(where), true);
	snprintf(sql, sizeof(sql),
		 "SELECT lock_addr, tid, site, w.dsym, flags, wait_ns, d.start FROM lock_waits w"
		 " LEFT JOIN (SELECT id, start FROM dsyms) d ON d.id = w.dsym%s ORDER BY w.id", where);
	if ((r = store_prepare(st, &s, sql, err)) < 0)
		return r;
	filter_bind(s, f);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct agg_lock_sample w = {
			.lock_addr = (uint64_t)sqlite3_column_int64(s, 0),
			.tid = sqlite3_column_int(s, 1),
			.site = sqlite3_column_int64(s, 2),
			.dsym = sqlite3_column_int64(s, 3),
			.flags = (uint32_t)sqlite3_column_int64(s, 4),
			.wait_ns = (uint64_t)sqlite3_column_int64(s, 5),
			.dsym_start = (uint64_t)sqlite3_column_int64(s, 6),
		};
		if (agg_add_lock(a, &w) < 0) {
			sqlite3_finalize(s);
			return c2c_error_set(err, -ENOMEM, "out of memory while aggregating lock waits");
		}
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_sqlerr(st, err, "reading lock waits");
	return 0;
}

static bool same_filter(const struct store *st, const struct store_filter *f)
{
	const struct store_filter *o = &st->tmp_filter;
	return o->cpu == f->cpu && o->node == f->node && o->pid == f->pid && o->tid == f->tid &&
	       o->time_from == f->time_from && o->time_to == f->time_to && o->double_cl == f->double_cl &&
	       o->phys_lines == f->phys_lines;
}

/* Changes whenever this handle or another connection commits, so temp
 * aggregates of a reader follow a live writer. */
static uint64_t data_version(struct store *st)
{
	sqlite3_stmt *s;
	uint64_t v = 0;
	if (sqlite3_prepare_v2(st->db, "PRAGMA data_version", -1, &s, NULL) == SQLITE_OK) {
		if (sqlite3_step(s) == SQLITE_ROW)
			v = (uint64_t)sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
	}
	return (v << 32) ^ st->generation;
}

const char *store_agg_schema(struct store *st, const struct store_filter *f, struct c2c_error *err)
{
	static const char *const names[] = { "agg_line", "agg_offset", "agg_pareto", "agg_line_cpu", "agg_line_node",
					     "agg_cell", "agg_cpu", "agg_node", "agg_lock", "agg_session" };
	struct agg a;
	char sql[64];

	if (!store_filter_needs_recompute(f))
		return "main";
	uint64_t version = data_version(st);
	if (st->tmp_valid && st->tmp_generation == version && same_filter(st, f))
		return "temp";
	st->tmp_valid = false;
	if (agg_create_tables(st, "temp", err) < 0)
		return NULL;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(sql, sizeof(sql), "DELETE FROM temp.%s;", names[i]);
		if (store_exec(st, sql, err) < 0)
			return NULL;
	}
	agg_init(&a, store_line_size(st, f));
	if (agg_rebuild(&a, st, f, err) < 0 || agg_flush(&a, st, "temp", err) < 0) {
		agg_fini(&a);
		return NULL;
	}
	agg_fini(&a);
	st->tmp_valid = true;
	st->tmp_generation = version;
	st->tmp_filter = *f;
	st->tmp_filter.symbol = NULL;
	return "temp";
}
