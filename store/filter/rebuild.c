/* Aggregates recomputed from the samples table: the append-mode start of
 * a writer, and the views whose options change what a line is or which
 * samples count (time window, CPU / node / thread filters, 128-byte lines,
 * physical-address lines; their temp tables are cached by
 * store/query/query_state.c). */
#include "store/filter/filter.h"
#include "store/agg/agg.h"

#include <errno.h>
#include <stdio.h>

int agg_rebuild(struct agg *a, struct store *st, const struct store_filter *f, bool keep_order,
		struct c2c_error *err)
{
	char where[4096], sql[4608];
	sqlite3_stmt *s;
	int r, rc;

	agg_fini(a);
	agg_init(a, store_line_size(st, f));
	store_filter_sql(st, f, where, sizeof(where), false);
	snprintf(sql, sizeof(sql),
		 "SELECT time, %s, cpu, node, pid, tid, ip, site, dsym, dsym_offset, class_bits, weight, addr, event,"
		 " COALESCE(phys_addr, 0), cpumode, COALESCE(line_var, 0) FROM samples%s ORDER BY id",
		 f && f->phys_lines ? "phys_addr" : "addr", where);
	/* The writer's own aggregator (append mode) keeps the report's
	 * sample-order numbers and the timeline log too; filtered views do
	 * not need them. */
	if (keep_order && !store_filter_needs_recompute(f)) {
		if ((r = agg_rep_enable(a, st, err)) < 0)
			return r;
		/* without it the timeline build scans the samples */
		a->tl = tl_log_new();
	}
	if ((r = store_prepare(st, &s, sql, err)) < 0)
		return r;
	store_filter_bind(s, f);
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

	store_filter_sql(st, f, where, sizeof(where), true);
	snprintf(sql, sizeof(sql),
		 "SELECT lock_addr, tid, site, w.dsym, flags, wait_ns, d.start FROM lock_waits w"
		 " LEFT JOIN (SELECT id, start FROM dsyms) d ON d.id = w.dsym%s ORDER BY w.id", where);
	if ((r = store_prepare(st, &s, sql, err)) < 0)
		return r;
	store_filter_bind(s, f);
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
