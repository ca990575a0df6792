/* Per-thread and per-process totals (the explorer's threads view, `report
 * --threads/--processes`): the c2c counters of every sample a thread (or
 * process) made, the cache lines it touched and the CPUs it ran on, under
 * the sample filters (CPU, node, pid, tid, time window). There is no
 * precomputed aggregate by thread, so this scans the samples table; the
 * explorer runs it in the background (view_job.c).
 *
 * The numbers are defined as the summary's for a tid:N / pid:N filter:
 * the counters summed over the thread's samples, the lines as the
 * aggregator keys them (address & line mask | identity variant; physical
 * address with phys_lines) over the samples it classified, the CPUs as the
 * distinct CPUs of its samples. So one thread's row equals the session
 * summary filtered to that thread, and the rows' counters sum to the
 * session's totals. */
#include "store/query/query_priv.h"
#include "store/filter/filter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int find_row(struct store_thread_row *rows, size_t n, int32_t pid, int32_t tid)
{
	/* Both statements return keys in the same ascending order, so the
	 * row is the last one or absent; a bisection keeps it safe anyway. */
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct store_thread_row *r = &rows[mid];
		if (r->pid == pid && r->tid == tid)
			return (int)mid;
		if (r->pid < pid || (r->pid == pid && r->tid < tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static void fill_comm(struct store *st, struct store_thread_row *row, bool by_process)
{
	sqlite3_stmt *s;
	/* A process is named by its main thread when that one has a comm. */
	const char *sql = by_process
		? "SELECT comm FROM main.comms WHERE pid = ?1 ORDER BY tid = ?1 DESC, time DESC, id DESC LIMIT 1"
		: "SELECT comm FROM main.comms WHERE tid = ?1 ORDER BY time DESC, id DESC LIMIT 1";

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(s, 1, by_process ? row->pid : row->tid);
	if (sqlite3_step(s) == SQLITE_ROW)
		store_col_text(s, 0, row->comm, sizeof(row->comm));
	sqlite3_finalize(s);
}

int store_query_threads(struct store *st, const struct store_filter *f, bool by_process,
			struct store_thread_row **rows, size_t *n, struct c2c_error *err)
{
	const char *key = by_process ? "pid, -1" : "pid, tid";
	bool phys = f && f->phys_lines;
	char where[4096], *sql = NULL;
	sqlite3_stmt *s;
	size_t cap = 0;
	int r, rc;

	*rows = NULL;
	*n = 0;
	store_filter_sql(st, f, where, sizeof(where), false);

	/* 1: distinct lines and CPUs, one row per key (the rows' order). */
	if (asprintf(&sql, "SELECT %s, COUNT(DISTINCT CASE WHEN (class_bits & 3) != 0 THEN %s END),"
		     " COUNT(DISTINCT CASE WHEN cpu >= 0 THEN cpu END), COUNT(DISTINCT tid)"
		     " FROM main.samples%s GROUP BY 1, 2 ORDER BY 1, 2", key,
		     phys ? "(COALESCE(phys_addr, 0) & :mask)" : "((addr & :mask) | COALESCE(line_var, 0))",
		     where) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	r = store_prepare(st, &s, sql, err);
	free(sql);
	if (r < 0)
		return r;
	store_filter_bind(s, f);
	sqlite3_bind_int64(s, sqlite3_bind_parameter_index(s, ":mask"),
			   (sqlite3_int64)~(uint64_t)(store_line_size(st, f) - 1));
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (store_grow((void **)rows, &cap, *n + 1, sizeof(**rows)) < 0) {
			sqlite3_finalize(s);
			goto nomem;
		}
		struct store_thread_row *row = &(*rows)[(*n)++];
		memset(row, 0, sizeof(*row));
		row->pid = sqlite3_column_int(s, 0);
		row->tid = sqlite3_column_int(s, 1);
		row->nr_lines = (uint64_t)sqlite3_column_int64(s, 2);
		row->nr_cpus = (uint32_t)sqlite3_column_int64(s, 3);
		row->nr_threads = (uint32_t)sqlite3_column_int64(s, 4);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		goto sqlerr;

	/* 2: the counters, from each distinct classification times its count
	 * (far fewer rows than samples). */
	if (asprintf(&sql, "SELECT %s, class_bits, COUNT(*) FROM main.samples%s GROUP BY 1, 2, 3", key, where) < 0)
		goto nomem;
	r = store_prepare(st, &s, sql, err);
	free(sql);
	if (r < 0)
		goto fail;
	store_filter_bind(s, f);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int i = find_row(*rows, *n, sqlite3_column_int(s, 0), sqlite3_column_int(s, 1));
		uint64_t bits = (uint64_t)sqlite3_column_int64(s, 2), count = (uint64_t)sqlite3_column_int64(s, 3);
		struct c2c_stats one;

		if (i < 0)
			continue;
		c2c_stats_from_bits(&one, bits);
		for (int c = 0; c < C2C_COUNTER_MAX; c++)
			*c2c_stats_ref(&(*rows)[i].stats, (enum c2c_counter)c) += c2c_stats_get(&one, (enum c2c_counter)c) * count;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		goto sqlerr;
	for (size_t i = 0; i < *n; i++)
		fill_comm(st, &(*rows)[i], by_process);
	return 0;

sqlerr:
	r = store_sqlerr(st, err, "reading the samples by thread");
	goto fail;
nomem:
	r = c2c_error_set(err, -ENOMEM, "out of memory");
fail:
	free(*rows);
	*rows = NULL;
	*n = 0;
	return r;
}
