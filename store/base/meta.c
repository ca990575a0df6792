/* Session metadata: key/value text, events, CPU topology and counters. */
#include "store/base/store_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const counter_names[STORE_CNT__MAX] = {
	[STORE_CNT_SAMPLES] = "samples",
	[STORE_CNT_LOCK_WAITS] = "lock_waits",
	[STORE_CNT_LOST] = "lost",
	[STORE_CNT_LOST_SAMPLES] = "lost_samples",
	[STORE_CNT_THROTTLE] = "throttle",
	[STORE_CNT_UNTHROTTLE] = "unthrottle",
	[STORE_CNT_UNKNOWN_RECORDS] = "unknown_records",
	[STORE_CNT_UNKNOWN_FEATURES] = "unknown_features",
	[STORE_CNT_BYTES_DROPPED] = "bytes_dropped",
	[STORE_CNT_QUEUE_DROPS] = "queue_drops",
	[STORE_CNT_SIDEBAND] = "sideband",
};

const char *store_counter_name(enum store_counter c)
{
	return (int)c >= 0 && c < STORE_CNT__MAX ? counter_names[c] : "unknown";
}

/* Opens the batch transaction on the first write after a commit. */
static int writable(struct store *st, struct c2c_error *err)
{
	if (!st->writable)
		return c2c_error_set(err, -EROFS, "%s: opened read-only", st->path);
	/* a bulk load's sample thread must be idle before this thread uses
	 * the connection (store/writer/sample_thread.c) */
	int rs = store_sample_sync(st, err);
	if (rs < 0)
		return rs;
	if (!st->in_txn) {
		int r = store_exec(st, "BEGIN;", err);
		if (r < 0)
			return r;
		st->in_txn = true;
	}
	return 0;
}

int store_begin_write(struct store *st, struct c2c_error *err)
{
	return writable(st, err);
}

static int step_done(struct store *st, sqlite3_stmt *s, struct c2c_error *err, const char *what)
{
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE ? 0 : store_sqlerr(st, err, what);
}

int store_set_meta(struct store *st, const char *key, const char *value, struct c2c_error *err)
{
	int r = writable(st, err);
	if (r < 0)
		return r;
	sqlite3_stmt *s = st->stmt[STMT_META_SET];
	sqlite3_bind_text(s, 1, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 2, value ? value : "", -1, SQLITE_TRANSIENT);
	if ((r = step_done(st, s, err, "writing metadata")) < 0)
		return r;
	if (!strcmp(key, STORE_META_CACHELINE)) {
		unsigned long v = strtoul(value ? value : "", NULL, 10);
		/* The line size keys every aggregate: it may only be set before
		 * the first sample. */
		if (v >= 16 && v <= 4096 && !(v & (v - 1)) && st->agg.nr_samples == 0 && st->counters[STORE_CNT_SAMPLES] == 0) {
			st->line_size = (uint32_t)v;
			st->agg.line_size = (uint32_t)v;
		}
	}
	return 0;
}

int store_get_meta(struct store *st, const char *key, char *buf, size_t size)
{
	sqlite3_stmt *s = st->stmt[STMT_META_GET];
	int r = -ENOENT;

	sqlite3_bind_text(s, 1, key, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(s) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(s, 0);
		r = v ? (int)strlen(v) : 0;
		if (buf)
			store_copy(buf, size, v);
	}
	sqlite3_reset(s);
	return r;
}

int store_add_event(struct store *st, const struct store_event *ev, struct c2c_error *err)
{
	int r = writable(st, err);
	if (r < 0)
		return r;
	sqlite3_stmt *s = st->stmt[STMT_EVENT];
	sqlite3_bind_int64(s, 1, ev->index);
	sqlite3_bind_text(s, 2, ev->name ? ev->name : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 3, ev->attr_type);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)ev->config);
	sqlite3_bind_int64(s, 5, (sqlite3_int64)ev->sample_type);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)ev->sample_period);
	sqlite3_bind_int(s, 7, ev->freq);
	return step_done(st, s, err, "writing an event");
}

int store_add_cpu(struct store *st, const struct store_cpu *cpu, struct c2c_error *err)
{
	int r = writable(st, err);
	if (r < 0)
		return r;
	if (cpu->cpu >= 1u << 20)
		return c2c_error_set(err, -EINVAL, "%s: cpu number %u out of range", st->path, cpu->cpu);
	sqlite3_stmt *s = st->stmt[STMT_CPU];
	sqlite3_bind_int64(s, 1, cpu->cpu);
	sqlite3_bind_int64(s, 2, cpu->core);
	sqlite3_bind_int64(s, 3, cpu->socket);
	sqlite3_bind_int64(s, 4, cpu->node);
	if ((r = step_done(st, s, err, "writing the CPU topology")) < 0)
		return r;
	if (cpu->cpu >= st->nr_cpu_node) {
		size_t n = cpu->cpu + 1;
		int32_t *p = realloc(st->cpu_node, n * sizeof(*p));
		if (!p)
			return c2c_error_set(err, -ENOMEM, "out of memory");
		for (size_t i = st->nr_cpu_node; i < n; i++)
			p[i] = -1;
		st->cpu_node = p;
		st->nr_cpu_node = n;
	}
	st->cpu_node[cpu->cpu] = cpu->node;
	return 0;
}

int store_cpu_node(struct store *st, uint32_t cpu)
{
	return cpu < st->nr_cpu_node ? st->cpu_node[cpu] : -1;
}

int store_load_topology(struct store *st, struct c2c_error *err)
{
	sqlite3_stmt *s;
	int r = store_prepare(st, &s, "SELECT cpu, node FROM cpus WHERE cpu >= 0 AND cpu < 1048576 ORDER BY cpu", err);
	if (r < 0)
		return r;
	while (sqlite3_step(s) == SQLITE_ROW) {
		uint32_t cpu = (uint32_t)sqlite3_column_int64(s, 0);
		if (cpu >= st->nr_cpu_node) {
			size_t n = cpu + 1;
			int32_t *p = realloc(st->cpu_node, n * sizeof(*p));
			if (!p) {
				sqlite3_finalize(s);
				return c2c_error_set(err, -ENOMEM, "out of memory");
			}
			for (size_t i = st->nr_cpu_node; i < n; i++)
				p[i] = -1;
			st->cpu_node = p;
			st->nr_cpu_node = n;
		}
		st->cpu_node[cpu] = sqlite3_column_int(s, 1);
	}
	sqlite3_finalize(s);
	return 0;
}

int store_add_counter(struct store *st, enum store_counter c, uint64_t delta, struct c2c_error *err)
{
	if ((int)c < 0 || c >= STORE_CNT__MAX)
		return c2c_error_set(err, -EINVAL, "unknown counter %d", (int)c);
	int r = writable(st, err);
	if (r < 0)
		return r;
	st->counters[c] += delta;
	st->counters_dirty = true;
	return 0;
}

int store_set_counter(struct store *st, enum store_counter c, uint64_t value, struct c2c_error *err)
{
	if ((int)c < 0 || c >= STORE_CNT__MAX)
		return c2c_error_set(err, -EINVAL, "unknown counter %d", (int)c);
	int r = writable(st, err);
	if (r < 0)
		return r;
	st->counters[c] = value;
	st->counters_dirty = true;
	return 0;
}

uint64_t store_get_counter(struct store *st, enum store_counter c)
{
	return (int)c >= 0 && c < STORE_CNT__MAX ? st->counters[c] : 0;
}

int store_write_counters(struct store *st, struct c2c_error *err)
{
	sqlite3_stmt *s = st->stmt[STMT_COUNTER];
	for (int c = 0; c < STORE_CNT__MAX; c++) {
		sqlite3_bind_text(s, 1, counter_names[c], -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)st->counters[c]);
		int r = step_done(st, s, err, "writing counters");
		if (r < 0)
			return r;
	}
	st->counters_dirty = false;
	return 0;
}
