/* Session metadata as read: key/value text, the memory ranges of the
 * recording's MEM_TOPOLOGY, the CPU topology and the counters. Writing them
 * is the writer's (store/writer/meta_write.c). */
#include "store/base/base_priv.h"
#include "store/base/meta_names.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const store_counter_names[STORE_CNT__MAX] = {
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
	[STORE_CNT_BAD_RECORDS] = "bad_records",
	[STORE_CNT_BAD_FEATURES] = "bad_features",
};

const char *store_counter_name(enum store_counter c)
{
	return (int)c >= 0 && c < STORE_CNT__MAX ? store_counter_names[c] : "unknown";
}

int store_get_meta(struct store *st, const char *key, char *buf, size_t size)
{
	sqlite3_stmt *s = st->meta_get;
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

int store_get_mem_ranges(struct store *st, struct c2c_mem_range **out, size_t *n)
{
	int len = store_get_meta(st, STORE_META_MEM_RANGES, NULL, 0);
	char *buf, *p, *save = NULL;
	struct c2c_mem_range *r;
	size_t cnt = 0, cap;

	*out = NULL;
	*n = 0;
	if (len < 0)
		return 0; /* no MEM_TOPOLOGY recorded: perf prints N/A and 0 */
	buf = malloc((size_t)len + 1);
	if (!buf)
		return -ENOMEM;
	store_get_meta(st, STORE_META_MEM_RANGES, buf, (size_t)len + 1);
	cap = 1;
	for (p = buf; *p; p++)
		cap += *p == ',';
	r = calloc(cap, sizeof(*r));
	if (!r) {
		free(buf);
		return -ENOMEM;
	}
	for (p = strtok_r(buf, ",", &save); p && cnt < cap; p = strtok_r(NULL, ",", &save)) {
		uint64_t a, b;
		int node;

		if (sscanf(p, "%" SCNx64 "-%" SCNx64 ":%d", &a, &b, &node) == 3 && a < b)
			r[cnt++] = (struct c2c_mem_range){ a, b, node };
	}
	free(buf);
	*out = r;
	*n = cnt;
	return 0;
}

int store_cpu_node(struct store *st, uint32_t cpu)
{
	return cpu < st->nr_cpu_node ? st->cpu_node[cpu] : -1;
}

int store_set_cpu_node(struct store *st, uint32_t cpu, int32_t node)
{
	if (cpu >= st->nr_cpu_node) {
		size_t n = cpu + 1;
		int32_t *p = realloc(st->cpu_node, n * sizeof(*p));
		if (!p)
			return -ENOMEM;
		for (size_t i = st->nr_cpu_node; i < n; i++)
			p[i] = -1;
		st->cpu_node = p;
		st->nr_cpu_node = n;
	}
	st->cpu_node[cpu] = node;
	return 0;
}

int store_load_topology(struct store *st, struct c2c_error *err)
{
	sqlite3_stmt *s;
	int r = store_prepare(st, &s, "SELECT cpu, node FROM cpus WHERE cpu >= 0 AND cpu < 1048576 ORDER BY cpu", err);
	if (r < 0)
		return r;
	while (sqlite3_step(s) == SQLITE_ROW) {
		if (store_set_cpu_node(st, (uint32_t)sqlite3_column_int64(s, 0), sqlite3_column_int(s, 1)) < 0) {
			sqlite3_finalize(s);
			return c2c_error_set(err, -ENOMEM, "out of memory");
		}
	}
	sqlite3_finalize(s);
	return 0;
}

uint64_t store_get_counter(struct store *st, enum store_counter c)
{
	return (int)c >= 0 && c < STORE_CNT__MAX ? st->counters[c] : 0;
}
