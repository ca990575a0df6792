/* Aggregates recomputed from the samples table: the append-mode start of
 * a writer, and the views whose options change what a line is or which
 * samples count (time window, CPU / node / thread filters, 128-byte lines,
 * physical-address lines; their temp tables are cached by
 * store/query/query_state.c). */
#include "store/filter/filter.h"
#include "store/agg/agg.h"
#include "store/base/sample_codec.h"
#include "store/base/sample_merge.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* A block session's samples, decoded in C (no SQL row per sample): only
 * the blocks a time window overlaps and, since schema 3, only the blocks
 * of the filter's CPUs or nodes; only the columns aggregated; merged
 * into time order (the order an import of those samples aggregates
 * them in). The aggregation runs on its own thread (store/agg/
 * agg_thread.c, as in an import) while this one decodes. */
static int add_blocks(struct agg *a, struct store *st, const struct store_filter *f, struct c2c_error *err)
{
	/* time, event, cpu, node, pid, tid, cpumode, ip, site, addr,
	 * phys_addr, class_bits, weight, dsym, dsym_offset, line_var */
	const uint32_t cols = 0x1fffu | (1u << 16) | (1u << 17) | (1u << 20);
	const bool phys = f && f->phys_lines;
	struct sample_merge *m = NULL;
	struct agg_worker *w = NULL;
	const struct store_sample_rec *x;
	const unsigned char *raw;
	int64_t id;
	int r, more;

	if ((r = store_filter_merge_open(st, f, cols, &m, err)) < 0)
		return r;
	if (agg_worker_start(&w, a) < 0)
		w = NULL;  /* no thread: aggregate here */
	while (r == 0 && (more = sample_merge_next(m, &x, &raw, &id)) != 0) {
		if (more < 0) {
			r = store_filter_merge_error(st, m, more, err);
			break;
		}
		if (!store_filter_keeps(f, x))
			continue;
#define V(c) ((x->present >> (c)) & 1u ? x->v[c] : 0)
		uint64_t vaddr = (uint64_t)V(9);
		struct agg_sample as = {
			.time = (uint64_t)V(0),
			.addr = phys ? (uint64_t)V(10) : vaddr,
			.cpu = (x->present >> 2) & 1u ? (uint32_t)x->v[2] : UINT32_MAX,
			.node = (int32_t)V(3),
			.pid = (int32_t)V(4),
			.tid = (int32_t)V(5),
			.ip = (uint64_t)V(7),
			.site = V(8),
			.dsym = V(16),
			.dsym_start = vaddr - (uint64_t)V(17),
			.bits = (uint64_t)V(11),
			.weight = (uint64_t)V(12),
			.event = (uint32_t)V(1),
			.vaddr = vaddr,
			.phys = (uint64_t)V(10),
			.cpumode = (uint8_t)(int)V(6),
			.line_var = phys ? 0 : (uint8_t)(int)V(20),
		};
#undef V
		if ((w ? agg_worker_add_sample(w, &as) : agg_add_sample(a, &as)) < 0)
			r = c2c_error_set(err, -ENOMEM, "out of memory while aggregating samples");
	}
	sample_merge_close(m);
	if (agg_worker_drain(w) < 0 && r == 0)
		r = c2c_error_set(err, -ENOMEM, "out of memory while aggregating samples");
	agg_worker_stop(w);
	return r;
}

int agg_rebuild(struct agg *a, struct store *st, const struct store_filter *f, const char *rep_schema,
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
	 * sample-order numbers and the timeline log too; a filtered view
	 * the numbers (its report then reads no sample twice). */
	if (rep_schema && !strcmp(rep_schema, "main") && !store_filter_needs_recompute(f)) {
		if ((r = agg_rep_enable(a, st, "main", err)) < 0)
			return r;
		/* without it the timeline build scans the samples */
		a->tl = tl_log_new();
	} else if (rep_schema && !strcmp(rep_schema, "temp") && !(f && f->phys_lines) &&
		   (r = agg_rep_enable(a, st, "temp", err)) < 0) {
		return r;
	}
	if (st->sample_blocks) {
		if ((r = add_blocks(a, st, f, err)) < 0)
			return r;
		goto locks;
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

locks:
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
