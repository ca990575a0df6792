/* Session metadata as written: key/value text, the memory ranges, events,
 * the CPU topology and counters, each in the writer's batch transaction
 * (store/writer/txn.c). Reading them is store/base/meta.c. */
#include "store/writer/writer_priv.h"
#include "store/agg/agg.h"
#include "store/base/meta_names.h"
#include "collector/base/appendf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int store_set_meta(struct store *st, const char *key, const char *value, struct c2c_error *err)
{
	int r = store_begin_write(st, err);
	if (r < 0)
		return r;
	sqlite3_stmt *s = st->writer->stmt[STMT_META_SET];
	sqlite3_bind_text(s, 1, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 2, value ? value : "", -1, SQLITE_TRANSIENT);
	if ((r = store_step_done(st, s, true, err, "writing metadata")) < 0)
		return r;
	if (!strcmp(key, STORE_META_CACHELINE)) {
		unsigned long v = strtoul(value ? value : "", NULL, 10);
		/* The line size keys every aggregate: it may only be set before
		 * the first sample. */
		if (v >= 16 && v <= 4096 && !(v & (v - 1)) && st->aggs->agg.nr_samples == 0 && st->counters[STORE_CNT_SAMPLES] == 0) {
			st->line_size = (uint32_t)v;
			st->aggs->agg.line_size = (uint32_t)v;
		}
	}
	return 0;
}

int store_set_mem_ranges(struct store *st, const struct c2c_mem_range *r, size_t n, struct c2c_error *err)
{
	size_t cap = n * 48 + 1, len = 0;
	char *buf = malloc(cap);
	int rc;

	if (!buf)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		len = c2c_appendf(buf, cap, len, "%s%" PRIx64 "-%" PRIx64 ":%d", i ? "," : "",
					r[i].start, r[i].end, r[i].node);
	rc = store_set_meta(st, STORE_META_MEM_RANGES, buf, err);
	free(buf);
	return rc;
}

int store_add_event(struct store *st, const struct store_event *ev, struct c2c_error *err)
{
	int r = store_begin_write(st, err);
	if (r < 0)
		return r;
	sqlite3_stmt *s = st->writer->stmt[STMT_EVENT];
	sqlite3_bind_int64(s, 1, ev->index);
	sqlite3_bind_text(s, 2, ev->name ? ev->name : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 3, ev->attr_type);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)ev->config);
	sqlite3_bind_int64(s, 5, (sqlite3_int64)ev->sample_type);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)ev->sample_period);
	sqlite3_bind_int(s, 7, ev->freq);
	return store_step_done(st, s, true, err, "writing an event");
}

int store_add_cpu(struct store *st, const struct store_cpu *cpu, struct c2c_error *err)
{
	int r = store_begin_write(st, err);
	if (r < 0)
		return r;
	if (cpu->cpu >= 1u << 20)
		return c2c_error_set(err, -EINVAL, "%s: cpu number %u out of range", st->path, cpu->cpu);
	sqlite3_stmt *s = st->writer->stmt[STMT_CPU];
	sqlite3_bind_int64(s, 1, cpu->cpu);
	sqlite3_bind_int64(s, 2, cpu->core);
	sqlite3_bind_int64(s, 3, cpu->socket);
	sqlite3_bind_int64(s, 4, cpu->node);
	if ((r = store_step_done(st, s, true, err, "writing the CPU topology")) < 0)
		return r;
	if (store_set_cpu_node(st, cpu->cpu, cpu->node) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	return 0;
}

int store_add_counter(struct store *st, enum store_counter c, uint64_t delta, struct c2c_error *err)
{
	if ((int)c < 0 || c >= STORE_CNT__MAX)
		return c2c_error_set(err, -EINVAL, "unknown counter %d", (int)c);
	int r = store_begin_write(st, err);
	if (r < 0)
		return r;
	st->counters[c] += delta;
	st->writer->counters_dirty = true;
	return 0;
}

int store_set_counter(struct store *st, enum store_counter c, uint64_t value, struct c2c_error *err)
{
	if ((int)c < 0 || c >= STORE_CNT__MAX)
		return c2c_error_set(err, -EINVAL, "unknown counter %d", (int)c);
	int r = store_begin_write(st, err);
	if (r < 0)
		return r;
	st->counters[c] = value;
	st->writer->counters_dirty = true;
	return 0;
}
