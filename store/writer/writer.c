/* The writer: side-band records, interned code sites / data symbols /
 * call chains, samples and lock waits, batched into transactions. Every
 * sample also feeds the in-memory aggregator, whose changed entries are
 * written at each commit, so the file is complete at every commit. */
#include "store/base/store_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; s && *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

/* Remembers a data symbol's start by id, for lock waits. */
static int remember_dsym_start(struct store *st, int64_t id, uint64_t start)
{
	if (id <= 0 || id > (1 << 28))
		return 0;
	if ((size_t)id >= st->nr_dsym_start) {
		size_t n = (size_t)id * 2 + 16;
		uint64_t *p = realloc(st->dsym_start, n * sizeof(*p));
		if (!p)
			return -ENOMEM;
		memset(p + st->nr_dsym_start, 0, (n - st->nr_dsym_start) * sizeof(*p));
		st->dsym_start = p;
		st->nr_dsym_start = n;
	}
	st->dsym_start[id] = start;
	return 0;
}

/* Append mode: the intern maps and the aggregator start from what the
 * file holds. */
static int load_writer_state(struct store *st, struct c2c_error *err)
{
	sqlite3_stmt *s;
	int r;

	if (st->agg_loaded)
		return 0;
	if ((r = store_time_blocks_start(st, err)) < 0)
		return r;
	if ((r = store_prepare(st, &s, "SELECT id, pid, ip FROM sites", err)) < 0)
		return r;
	while (sqlite3_step(s) == SQLITE_ROW) {
		uint64_t key[AGG_KEY_WORDS] = { (uint64_t)sqlite3_column_int64(s, 1), (uint64_t)sqlite3_column_int64(s, 2) };
		bool c;
		struct agg_ent *e = agg_table_get(&st->sites, key, &c);
		if (!e) {
			sqlite3_finalize(s);
			return c2c_error_set(err, -ENOMEM, "out of memory");
		}
		e->site = sqlite3_column_int64(s, 0);
	}
	sqlite3_finalize(s);
	if ((r = store_prepare(st, &s, "SELECT id, pid, start, name, dso FROM dsyms", err)) < 0)
		return r;
	while (sqlite3_step(s) == SQLITE_ROW) {
		uint64_t key[AGG_KEY_WORDS] = { (uint64_t)sqlite3_column_int64(s, 1), (uint64_t)sqlite3_column_int64(s, 2),
						str_hash((const char *)sqlite3_column_text(s, 3)),
						str_hash((const char *)sqlite3_column_text(s, 4)) };
		bool c;
		struct agg_ent *e = agg_table_get(&st->dsyms, key, &c);
		if (!e) {
			sqlite3_finalize(s);
			return c2c_error_set(err, -ENOMEM, "out of memory");
		}
		e->site = sqlite3_column_int64(s, 0);
		if (remember_dsym_start(st, e->site, key[1]) < 0) {
			sqlite3_finalize(s);
			return c2c_error_set(err, -ENOMEM, "out of memory");
		}
	}
	sqlite3_finalize(s);
	/* Call chains are not reloaded: an appended chain equal to an old one
	 * gets a new id, which costs a row, not correctness. */
	if ((r = agg_rebuild(&st->agg, st, NULL, err)) < 0)
		return r;
	/* Everything rebuilt is already in the file. */
	for (int k = 0; k < AGG__MAX; k++) {
		for (size_t i = 0; i < st->agg.t[k].ndirty; i++)
			st->agg.t[k].dirty[i]->dirty = false;
		st->agg.t[k].ndirty = 0;
	}
	st->agg_loaded = true;
	return 0;
}

static int begin(struct store *st, struct c2c_error *err)
{
	int r = store_begin_write(st, err);
	if (r < 0)
		return r;
	return load_writer_state(st, err);
}

static int step_done(struct store *st, sqlite3_stmt *s, struct c2c_error *err, const char *what)
{
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : store_sqlerr(st, err, what);
}

static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

int store_add_comm(struct store *st, const struct c2c_comm *c, struct c2c_error *err)
{
	int r = begin(st, err);
	if (r < 0)
		return r;
	sqlite3_stmt *s = st->stmt[STMT_COMM];
	sqlite3_bind_int64(s, 1, (sqlite3_int64)c->time);
	sqlite3_bind_int64(s, 2, c->pid);
	sqlite3_bind_int64(s, 3, c->tid);
	sqlite3_bind_int(s, 4, c->exec);
	bind_text(s, 5, c->comm);
	st->counters[STORE_CNT_SIDEBAND]++;
	st->counters_dirty = true;
	return step_done(st, s, err, "writing a COMM record");
}

int store_add_task(struct store *st, const struct c2c_task *t, bool is_exit, struct c2c_error *err)
{
	int r = begin(st, err);
	if (r < 0)
		return r;
	sqlite3_stmt *s = st->stmt[STMT_TASK];
	sqlite3_bind_int64(s, 1, (sqlite3_int64)t->time);
	sqlite3_bind_text(s, 2, is_exit ? "exit" : "fork", -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, t->pid);
	sqlite3_bind_int64(s, 4, t->ppid);
	sqlite3_bind_int64(s, 5, t->tid);
	sqlite3_bind_int64(s, 6, t->ptid);
	st->counters[STORE_CNT_SIDEBAND]++;
	st->counters_dirty = true;
	return step_done(st, s, err, "writing a FORK/EXIT record");
}

int store_add_mmap(struct store *st, const struct c2c_mmap *m, uint64_t time, struct c2c_error *err)
{
	int r = begin(st, err);
	if (r < 0)
		return r;
	sqlite3_stmt *s = st->stmt[STMT_MMAP];
	sqlite3_bind_int64(s, 1, (sqlite3_int64)time);
	sqlite3_bind_int64(s, 2, m->pid);
	sqlite3_bind_int64(s, 3, m->tid);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)m->start);
	sqlite3_bind_int64(s, 5, (sqlite3_int64)m->len);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)m->pgoff);
	sqlite3_bind_int64(s, 7, m->prot);
	sqlite3_bind_int64(s, 8, m->flags);
	sqlite3_bind_int(s, 9, m->cpumode);
	sqlite3_bind_int64(s, 10, m->maj);
	sqlite3_bind_int64(s, 11, m->min);
	sqlite3_bind_int64(s, 12, (sqlite3_int64)m->ino);
	sqlite3_bind_int64(s, 13, (sqlite3_int64)m->ino_generation);
	if (m->build_id_size)
		sqlite3_bind_blob(s, 14, m->build_id, m->build_id_size > 20 ? 20 : m->build_id_size, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, 14);
	bind_text(s, 15, m->filename);
	st->counters[STORE_CNT_SIDEBAND]++;
	st->counters_dirty = true;
	return step_done(st, s, err, "writing an MMAP record");
}

static void bind_id(sqlite3_stmt *s, int64_t id)
{
	if (id)
		sqlite3_bind_int64(s, 1, id);
	else
		sqlite3_bind_null(s, 1);
}

int store_write_site(struct store *st, int64_t id, const struct store_site_info *si, struct c2c_error *err)
{
	sqlite3_stmt *s = st->stmt[STMT_SITE];

	bind_id(s, id);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)si->ip);
	sqlite3_bind_int64(s, 3, si->pid);
	sqlite3_bind_int(s, 4, si->cpumode);
	bind_text(s, 5, si->function);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)si->offset);
	bind_text(s, 7, si->dso);
	bind_text(s, 8, si->file);
	sqlite3_bind_int64(s, 9, si->line);
	sqlite3_bind_int64(s, 10, (sqlite3_int64)si->rel_addr);
	return step_done(st, s, err, "writing a code site");
}

int store_write_dsym(struct store *st, int64_t id, const struct store_dsym_info *d, struct c2c_error *err)
{
	sqlite3_stmt *s = st->stmt[STMT_DSYM];

	bind_id(s, id);
	bind_text(s, 2, d->name);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)d->start);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)d->size);
	sqlite3_bind_int64(s, 5, d->pid);
	bind_text(s, 6, d->dso);
	return step_done(st, s, err, "writing a data symbol");
}

int store_write_chain(struct store *st, int64_t id, const int64_t *sites, uint32_t n, struct c2c_error *err)
{
	sqlite3_stmt *s = st->stmt[STMT_CHAIN];

	bind_id(s, id);
	/* Little-endian int64 array, as documented in docs/schema.md. */
	sqlite3_bind_blob(s, 2, sites, (int)(n * sizeof(int64_t)), SQLITE_TRANSIENT);
	return step_done(st, s, err, "writing a call chain");
}

/* In a bulk load's transaction new rows wait for the commit
 * (store/writer/defer.c): no wait for the sample thread. */
static bool deferring(const struct store *st)
{
	return st->defer && st->agg_loaded && st->in_txn;
}

int64_t store_site_intern(struct store *st, const struct store_site_info *si, struct c2c_error *err)
{
	uint64_t key[AGG_KEY_WORDS] = { (uint64_t)(int64_t)si->pid, si->ip, 0, 0 };
	struct agg_ent *e;
	bool created;
	int64_t id;
	int r;

	/* known sites need no SQL (nor a wait for the sample thread) */
	if (st->agg_loaded && st->in_txn && (e = agg_table_find(&st->sites, key)))
		return e->site;
	if (deferring(st)) {
		if ((id = store_defer_site(st, si)) < 0)
			return c2c_error_set(err, (int)id, "out of memory");
	} else {
		if ((r = begin(st, err)) < 0)
			return r;
		if ((e = agg_table_find(&st->sites, key)))
			return e->site;
		if ((r = store_write_site(st, 0, si, err)) < 0)
			return r;
		id = sqlite3_last_insert_rowid(st->db);
		store_defer_note_id(st, DEFER_SITE, id);
	}
	e = agg_table_get(&st->sites, key, &created);
	if (!e)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	e->site = id;
	return id;
}

int64_t store_dsym_intern(struct store *st, const struct store_dsym_info *d, struct c2c_error *err)
{
	uint64_t key[AGG_KEY_WORDS] = { (uint64_t)(int64_t)d->pid, d->start, str_hash(d->name), str_hash(d->dso) };
	struct agg_ent *e;
	bool created;
	int64_t id;
	int r;

	if (!d->name)
		return c2c_error_set(err, -EINVAL, "data symbol without a name");
	if (st->agg_loaded && st->in_txn && (e = agg_table_find(&st->dsyms, key)))
		return e->site;
	if (deferring(st)) {
		if ((id = store_defer_dsym(st, d)) < 0)
			return c2c_error_set(err, (int)id, "out of memory");
	} else {
		if ((r = begin(st, err)) < 0)
			return r;
		if ((e = agg_table_find(&st->dsyms, key)))
			return e->site;
		if ((r = store_write_dsym(st, 0, d, err)) < 0)
			return r;
		id = sqlite3_last_insert_rowid(st->db);
		store_defer_note_id(st, DEFER_DSYM, id);
	}
	e = agg_table_get(&st->dsyms, key, &created);
	if (!e)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	e->site = id;
	if (remember_dsym_start(st, id, d->start) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	return id;
}

/* Call chains are stored once each: key = two hashes + length. */
static int64_t chain_intern(struct store *st, const int64_t *sites, uint32_t n, struct c2c_error *err)
{
	uint64_t h1 = 1469598103934665603ull, h2 = 0x9e3779b97f4a7c15ull;
	struct agg_ent *e;
	bool created;
	int64_t id;
	int r;

	if (!n || !sites)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		h1 = (h1 ^ (uint64_t)sites[i]) * 1099511628211ull;
		h2 = (h2 + (uint64_t)sites[i]) * 0xff51afd7ed558ccdull;
		h2 ^= h2 >> 29;
	}
	uint64_t key[AGG_KEY_WORDS] = { h1, h2, n, (uint64_t)sites[0] };
	e = agg_table_find(&st->chains, key);
	if (e)
		return e->site;
	if (deferring(st)) {
		if ((id = store_defer_chain(st, sites, n)) < 0)
			return c2c_error_set(err, (int)id, "out of memory");
	} else {
		if ((r = store_sample_sync(st, err)) < 0)
			return r;
		if ((r = store_write_chain(st, 0, sites, n, err)) < 0)
			return r;
		id = sqlite3_last_insert_rowid(st->db);
		store_defer_note_id(st, DEFER_CHAIN, id);
	}
	e = agg_table_get(&st->chains, key, &created);
	if (!e)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	e->site = id;
	return id;
}

static void bind_row(sqlite3_stmt *s, int first, const unsigned char *raw, const struct sample_row *row)
{
	for (int c = 0; c < SAMPLE_COLS; c++) {
		if (!(row->present & (1u << c)))
			sqlite3_bind_null(s, first + c);
		else if (c == 19)
			sqlite3_bind_blob(s, first + c, raw + row->raw_off, (int)row->raw_len, SQLITE_STATIC);
		else
			sqlite3_bind_int64(s, first + c, row->v[c]);
	}
}

const char *const store_sample_cols[SAMPLE_COLS] = {
	"time", "event", "cpu", "node", "pid", "tid", "cpumode", "ip", "site", "addr", "phys_addr", "class_bits",
	"weight", "ins_lat", "data_src", "period", "dsym", "dsym_offset", "callchain", "raw", "line_var",
};

void store_batch_stmts_free(struct store *st)
{
	for (size_t i = 0; i < sizeof(st->batch_stmt) / sizeof(st->batch_stmt[0]); i++) {
		sqlite3_finalize(st->batch_stmt[i].s);
		st->batch_stmt[i].s = NULL;
	}
}

/* The batch INSERT naming exactly the columns in present: cached (a few
 * masks), else NULL (the generic statement then binds NULLs). */
static sqlite3_stmt *batch_stmt_for(struct store *st, uint32_t present)
{
	const size_t n = sizeof(st->batch_stmt) / sizeof(st->batch_stmt[0]);
	char sql[4096], one[256];
	size_t i, len = 0, olen = 0;

	for (i = 0; i < n && st->batch_stmt[i].s; i++)
		if (st->batch_stmt[i].present == present)
			return st->batch_stmt[i].s;
	if (i == n)
		return NULL;
	len = (size_t)snprintf(sql, sizeof(sql), "INSERT INTO samples (");
	for (int c = 0; c < SAMPLE_COLS; c++) {
		if (!(present & (1u << c)))
			continue;
		len += (size_t)snprintf(sql + len, sizeof(sql) - len, "%s%s", olen ? "," : "", store_sample_cols[c]);
		olen += (size_t)snprintf(one + olen, sizeof(one) - olen, "%s?", olen ? "," : "(");
	}
	if (!olen)
		return NULL;
	snprintf(one + olen, sizeof(one) - olen, ")");
	len += (size_t)snprintf(sql + len, sizeof(sql) - len, ") VALUES ");
	for (int r = 0; r < SAMPLE_BATCH && len < sizeof(sql); r++)
		len += (size_t)snprintf(sql + len, sizeof(sql) - len, "%s%s", r ? "," : "", one);
	if (len >= sizeof(sql) || sqlite3_prepare_v2(st->db, sql, -1, &st->batch_stmt[i].s, NULL) != SQLITE_OK) {
		sqlite3_finalize(st->batch_stmt[i].s);
		st->batch_stmt[i].s = NULL;
		return NULL;
	}
	st->batch_stmt[i].present = present;
	return st->batch_stmt[i].s;
}

int store_insert_sample_batch(struct store *st, const struct sample_row *rows, const unsigned char *raw,
			      struct c2c_error *err)
{
	uint32_t present = rows[0].present;
	sqlite3_stmt *s;
	unsigned i;

	for (i = 1; i < SAMPLE_BATCH && rows[i].present == present; i++)
		;
	if (i == SAMPLE_BATCH && (s = batch_stmt_for(st, present))) {
		int k = 1;
		for (i = 0; i < SAMPLE_BATCH; i++)
			for (int c = 0; c < SAMPLE_COLS; c++) {
				if (!(present & (1u << c)))
					continue;
				if (c == 19)
					sqlite3_bind_blob(s, k++, raw + rows[i].raw_off, (int)rows[i].raw_len, SQLITE_STATIC);
				else
					sqlite3_bind_int64(s, k++, rows[i].v[c]);
			}
		return step_done(st, s, err, "writing samples");
	}
	s = st->stmt[STMT_SAMPLE_BATCH];
	for (i = 0; i < SAMPLE_BATCH; i++)
		bind_row(s, 1 + (int)i * SAMPLE_COLS, raw, &rows[i]);
	return step_done(st, s, err, "writing samples");
}

int store_flush_samples(struct store *st, struct c2c_error *err)
{
	int r = 0;

	if (st->nrows == SAMPLE_BATCH && st->samplew) {
		if (sample_worker_queue(st->samplew, st->rows, st->raw_buf, st->raw_len) < 0)
			r = c2c_error_set(err, -ENOMEM, "out of memory");
	} else if (st->nrows == SAMPLE_BATCH) {
		r = store_insert_sample_batch(st, st->rows, st->raw_buf, err);
	} else if (st->nrows && (r = store_sample_sync(st, err)) == 0) {
		sqlite3_stmt *s = st->stmt[STMT_SAMPLE];
		for (unsigned i = 0; i < st->nrows && r == 0; i++) {
			bind_row(s, 1, st->raw_buf, &st->rows[i]);
			r = step_done(st, s, err, "writing a sample");
		}
	}
	/* On failure the rows are dropped with the transaction's other
	 * uncommitted writes (the caller's commit fails). */
	st->nrows = 0;
	st->raw_len = 0;
	return r;
}

int store_add_sample(struct store *st, const struct c2c_sample *smp, const struct store_sample_ctx *ctx,
		     struct c2c_error *err)
{
	static const struct store_sample_ctx none = { .node = -1 };
	/* In a transaction begin() has nothing to do but wait for the
	 * sample thread (writable()): skip it. */
	int r = st->in_txn && st->agg_loaded ? 0 : begin(st, err);
	int64_t chain;

	if (r < 0)
		return r;
	if (!ctx)
		ctx = &none;
	/* the report's sample-order numbers and the timeline log start with
	 * the first sample (before the aggregator's thread does) */
	if (!st->agg.rep) {
		if ((r = agg_rep_enable(&st->agg, st, err)) < 0)
			return r;
		if (!st->agg.tl && !st->agg.nr_samples)
			st->agg.tl = tl_log_new();  /* NULL: the timeline build scans */
	}
	chain = chain_intern(st, ctx->chain_sites, ctx->nr_chain_sites, err);
	if (chain < 0)
		return (int)chain;
	/* perf's line identity -> the line key's variant (store/agg/lineid.c) */
	int line_var = ctx->line_ident ? store_line_variant(st, smp->addr, ctx->line_ident) : 0;
	if (line_var < 0)
		return c2c_error_set(err, line_var, "out of memory");

	bool has_cpu = (smp->has & C2C_HAS_CPU) != 0;
	struct sample_row *row = &st->rows[st->nrows];
	/* Absent values stay NULL: NULL tells "not recorded" from 0. */
	row->present = 0;
#define SET(i, val) do { row->v[i] = (int64_t)(val); row->present |= 1u << (i); } while (0)
	SET(0, smp->time);
	SET(1, smp->event);
	if (has_cpu)
		SET(2, smp->cpu);
	SET(3, ctx->node);
	SET(4, smp->pid);
	SET(5, smp->tid);
	SET(6, smp->cpumode);
	SET(7, smp->ip);
	if (ctx->site)
		SET(8, ctx->site);
	SET(9, smp->addr);
	if (smp->phys_addr)
		SET(10, smp->phys_addr);
	SET(11, ctx->class_bits);
	if (smp->weight)
		SET(12, smp->weight);
	if (smp->ins_lat)
		SET(13, smp->ins_lat);
	if (smp->has & C2C_HAS_DATA_SRC)
		SET(14, smp->data_src);
	if (smp->has & C2C_HAS_PERIOD)
		SET(15, smp->period);
	if (ctx->dsym) {
		SET(16, ctx->dsym);
		SET(17, ctx->dsym_offset);
	}
	if (chain)
		SET(18, chain);
	if (line_var)
		SET(20, line_var);
#undef SET
	row->raw_len = 0;
	if ((smp->has & C2C_HAS_RAW) && smp->raw && smp->raw_size) {
		/* The payload is borrowed: copy it until the row is written. */
		if (store_grow((void **)&st->raw_buf, &st->raw_cap, st->raw_len + smp->raw_size, 1) < 0)
			return c2c_error_set(err, -ENOMEM, "out of memory");
		memcpy(st->raw_buf + st->raw_len, smp->raw, smp->raw_size);
		row->raw_off = st->raw_len;
		row->raw_len = smp->raw_size;
		st->raw_len += smp->raw_size;
		row->present |= 1u << 19;
	}
	if (store_time_blocks_add(st, smp->time) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	/* Bulk loads insert the full batches on their own thread. */
	if (st->bulk && !st->samplew && sample_worker_start(&st->samplew, st) < 0)
		st->samplew = NULL;  /* no thread: insert here */
	if (++st->nrows == SAMPLE_BATCH && (r = store_flush_samples(st, err)) < 0)
		return r;

	struct agg_sample a = {
		.time = smp->time, .addr = smp->addr, .cpu = has_cpu ? smp->cpu : UINT32_MAX, .node = ctx->node,
		.pid = smp->pid, .tid = smp->tid, .ip = smp->ip, .site = ctx->site, .dsym = ctx->dsym,
		.dsym_start = smp->addr - ctx->dsym_offset, .bits = ctx->class_bits, .weight = smp->weight, .event = smp->event,
		.vaddr = smp->addr, .phys = smp->phys_addr, .cpumode = (uint8_t)smp->cpumode,
		.line_var = (uint8_t)line_var,
	};
	/* Bulk loads aggregate on their own thread (store/agg/agg_thread.c). */
	if (st->bulk && !st->aggw && agg_worker_start(&st->aggw, &st->agg) < 0)
		st->aggw = NULL;  /* no thread: aggregate here */
	if ((st->aggw ? agg_worker_add_sample(st->aggw, &a) : agg_add_sample(&st->agg, &a)) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory while aggregating samples");
	st->counters[STORE_CNT_SAMPLES]++;
	st->counters_dirty = true;
	st->pending++;
	return 0;
}

int store_add_lock_wait(struct store *st, const struct store_lock_wait *w, struct c2c_error *err)
{
	int r = begin(st, err);
	int64_t chain;
	uint64_t dsym_start = w->lock_addr;

	if (r < 0)
		return r;
	chain = chain_intern(st, w->chain_sites, w->nr_chain_sites, err);
	if (chain < 0)
		return (int)chain;
	sqlite3_stmt *s = st->stmt[STMT_LOCK];
	sqlite3_bind_int64(s, 1, (sqlite3_int64)w->time);
	sqlite3_bind_int64(s, 2, w->pid);
	sqlite3_bind_int64(s, 3, w->tid);
	sqlite3_bind_int64(s, 4, w->cpu);
	sqlite3_bind_int64(s, 5, (sqlite3_int64)w->lock_addr);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)c2c_cl_address(w->lock_addr, st->line_size, false));
	sqlite3_bind_int64(s, 7, w->flags);
	sqlite3_bind_int64(s, 8, (sqlite3_int64)w->wait_ns);
	sqlite3_bind_int64(s, 9, w->site);
	sqlite3_bind_int64(s, 10, w->dsym);
	sqlite3_bind_int64(s, 11, chain);
	if ((r = step_done(st, s, err, "writing a lock wait")) < 0)
		return r;
	if (w->dsym > 0 && (size_t)w->dsym < st->nr_dsym_start)
		dsym_start = st->dsym_start[w->dsym];
	struct agg_lock_sample a = {
		.lock_addr = w->lock_addr, .tid = w->tid, .site = w->site, .dsym = w->dsym,
		.dsym_start = dsym_start, .flags = w->flags, .wait_ns = w->wait_ns,
	};
	if ((st->aggw ? agg_worker_add_lock(st->aggw, &a) : agg_add_lock(&st->agg, &a)) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory while aggregating lock waits");
	st->counters[STORE_CNT_LOCK_WAITS]++;
	st->counters_dirty = true;
	st->pending++;
	return 0;
}

int store_commit(struct store *st, struct c2c_error *err)
{
	int r;

	if (!st->writable)
		return c2c_error_set(err, -EROFS, "%s: opened read-only", st->path);
	if (!st->in_txn)
		return 0;
	if ((r = store_sample_sync(st, err)) < 0)
		return r;
	if (agg_worker_drain(st->aggw) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory while aggregating samples");
	if ((r = store_defer_flush(st, err)) < 0 || (r = store_flush_samples(st, err)) < 0 ||
	    (r = store_time_blocks_flush(st, err)) < 0 || (r = agg_flush(&st->agg, st, "main", err)) < 0 ||
	    (r = store_write_counters(st, err)) < 0)
		return r;
	if ((r = store_exec(st, "COMMIT;", err)) < 0)
		return r;
	st->in_txn = false;
	st->pending = 0;
	st->generation++;
	return 0;
}

int store_finalize(struct store *st, struct c2c_error *err)
{
	int r;

	if (!st->writable)
		return c2c_error_set(err, -EROFS, "%s: opened read-only", st->path);
	if ((r = store_begin_write(st, err)) < 0 || (r = load_writer_state(st, err)) < 0)
		return r;
	/* Indexes after the bulk load: building them once is much cheaper
	 * than maintaining them row by row. */
	/* No index on samples: every default view reads the aggregates, and
	 * the views that need samples (time windows, CPU/thread filters,
	 * timelines) read them in one scan in rowid (recording) order, which
	 * an index would not speed up; building one would cost more than the
	 * rest of an import. Lock waits are few: index their line. */
	if ((r = store_exec(st, "CREATE INDEX IF NOT EXISTS lock_waits_line ON lock_waits (line);", err)) < 0)
		return r;
	if ((r = store_set_meta(st, STORE_META_FINALIZED, "1", err)) < 0)
		return r;
	if ((r = store_commit(st, err)) < 0 || (r = store_timeline_build(st, err)) < 0)
		return r;
	if (st->bulk && (r = store_set_bulk_load(st, false, err)) < 0)
		return r;
	/* Fold the WAL back so the single .db file holds everything. */
	sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	return 0;
}

uint64_t store_pending(const struct store *st)
{
	return st->pending;
}

int store_set_bulk_load(struct store *st, bool on, struct c2c_error *err)
{
	int r;

	if (!st->writable)
		return c2c_error_set(err, -EROFS, "%s: opened read-only", st->path);
	if (on == st->bulk)
		return 0;
	if (st->in_txn && (r = store_commit(st, err)) < 0)
		return r;
	if (!on) {
		/* everything is aggregated (the commit drained it) */
		agg_worker_stop(st->aggw);
		st->aggw = NULL;
		sample_worker_stop(st->samplew);
		st->samplew = NULL;
		store_defer_free(st);  /* written by the commit */
	} else if ((r = store_defer_start(st, err)) < 0) {
		return r;
	}
	/* A rollback journal copies only the pages a commit changes, while
	 * WAL writes every new page twice (log, then checkpoint): half the
	 * I/O for a bulk load. Both keep every commit. */
	/* A bulk load appends: a small page cache is enough (and keeps the
	 * peak RSS down); readers and live writers get the usual one. It
	 * does not wait for the disk at each commit (synchronous = OFF): a
	 * crash or kill of the program still leaves every commit in the file
	 * (the OS has it); only a power loss soon after could cost an
	 * import, which is redone from its perf.data (perf record does not
	 * sync its output either). Saves a ~0.7 s flush at 10M samples. */
	if ((r = store_exec(st, on ? "PRAGMA journal_mode = TRUNCATE; PRAGMA cache_size = -8192;"
				     " PRAGMA synchronous = OFF;"
				   : "PRAGMA journal_mode = WAL; PRAGMA cache_size = -32768;"
				     " PRAGMA synchronous = NORMAL;", err)) < 0)
		return r;
	st->bulk = on;
	return 0;
}
