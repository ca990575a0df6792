/* The writer: side-band records, interned code sites / data symbols /
 * call chains, samples and lock waits, batched into transactions. Every
 * sample also feeds the in-memory aggregator, whose changed entries are
 * written at each commit, so the file is complete at every commit. The
 * rows themselves are written by rows.c, the transaction is txn.c's; the
 * writer's state (struct store_writer) is made and freed at the end. */
#include "store/writer/writer_priv.h"
#include "store/agg/agg.h"
#include "store/filter/filter.h"
#include "collector/base/appendf.h"

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
	if ((size_t)id >= st->writer->nr_dsym_start) {
		size_t n = (size_t)id * 2 + 16;
		uint64_t *p = realloc(st->writer->dsym_start, n * sizeof(*p));
		if (!p)
			return -ENOMEM;
		memset(p + st->writer->nr_dsym_start, 0, (n - st->writer->nr_dsym_start) * sizeof(*p));
		st->writer->dsym_start = p;
		st->writer->nr_dsym_start = n;
	}
	st->writer->dsym_start[id] = start;
	return 0;
}

/* Append mode: the intern maps and the aggregator start from what the
 * file holds. */
static int load_writer_state(struct store *st, struct c2c_error *err)
{
	sqlite3_stmt *s;
	int r;

	if (st->writer->loaded)
		return 0;
	if ((r = store_time_blocks_start(st, err)) < 0)
		return r;
	if ((r = store_prepare(st, &s, "SELECT id, pid, ip FROM sites", err)) < 0)
		return r;
	while (sqlite3_step(s) == SQLITE_ROW) {
		uint64_t key[AGG_KEY_WORDS] = { (uint64_t)sqlite3_column_int64(s, 1), (uint64_t)sqlite3_column_int64(s, 2) };
		bool c;
		struct agg_ent *e = agg_table_get(&st->writer->sites, key, &c);
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
		struct agg_ent *e = agg_table_get(&st->writer->dsyms, key, &c);
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
	if ((r = agg_rebuild(&st->aggs->agg, st, NULL, "main", err)) < 0)
		return r;
	/* Everything rebuilt is already in the file. */
	for (int k = 0; k < AGG__MAX; k++) {
		for (size_t i = 0; i < st->aggs->agg.t[k].ndirty; i++)
			st->aggs->agg.t[k].dirty[i]->dirty = false;
		st->aggs->agg.t[k].ndirty = 0;
	}
	st->writer->loaded = true;
	return 0;
}

static int begin(struct store *st, struct c2c_error *err)
{
	int r = store_begin_write(st, err);
	if (r < 0)
		return r;
	return load_writer_state(st, err);
}

int store_add_comm(struct store *st, const struct c2c_comm *c, struct c2c_error *err)
{
	int r = begin(st, err);
	if (r < 0)
		return r;
	sqlite3_stmt *s = st->writer->stmt[STMT_COMM];
	sqlite3_bind_int64(s, 1, (sqlite3_int64)c->time);
	sqlite3_bind_int64(s, 2, c->pid);
	sqlite3_bind_int64(s, 3, c->tid);
	sqlite3_bind_int(s, 4, c->exec);
	store_bind_text(s, 5, c->comm);
	st->counters[STORE_CNT_SIDEBAND]++;
	st->writer->counters_dirty = true;
	return store_step_done(st, s, false, err, "writing a COMM record");
}

int store_add_task(struct store *st, const struct c2c_task *t, bool is_exit, struct c2c_error *err)
{
	int r = begin(st, err);
	if (r < 0)
		return r;
	sqlite3_stmt *s = st->writer->stmt[STMT_TASK];
	sqlite3_bind_int64(s, 1, (sqlite3_int64)t->time);
	sqlite3_bind_text(s, 2, is_exit ? "exit" : "fork", -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, t->pid);
	sqlite3_bind_int64(s, 4, t->ppid);
	sqlite3_bind_int64(s, 5, t->tid);
	sqlite3_bind_int64(s, 6, t->ptid);
	st->counters[STORE_CNT_SIDEBAND]++;
	st->writer->counters_dirty = true;
	return store_step_done(st, s, false, err, "writing a FORK/EXIT record");
}

int store_add_mmap(struct store *st, const struct c2c_mmap *m, uint64_t time, struct c2c_error *err)
{
	int r = begin(st, err);
	if (r < 0)
		return r;
	sqlite3_stmt *s = st->writer->stmt[STMT_MMAP];
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
	store_bind_text(s, 15, m->filename);
	st->counters[STORE_CNT_SIDEBAND]++;
	st->writer->counters_dirty = true;
	return store_step_done(st, s, false, err, "writing an MMAP record");
}

/* In a bulk load's transaction new rows wait for the commit
 * (store/writer/defer.c): no wait for the sample thread. */
static bool deferring(const struct store *st)
{
	return st->writer->defer && st->writer->loaded && st->writer->in_txn;
}

int64_t store_site_intern(struct store *st, const struct store_site_info *si, struct c2c_error *err)
{
	uint64_t key[AGG_KEY_WORDS] = { (uint64_t)(int64_t)si->pid, si->ip, 0, 0 };
	struct agg_ent *e;
	bool created;
	int64_t id;
	int r;

	/* known sites need no SQL (nor a wait for the sample thread) */
	if (st->writer->loaded && st->writer->in_txn && (e = agg_table_find(&st->writer->sites, key)))
		return e->site;
	if (deferring(st)) {
		if ((id = store_defer_site(st, si)) < 0)
			return c2c_error_set(err, (int)id, "out of memory");
	} else {
		if ((r = begin(st, err)) < 0)
			return r;
		if ((e = agg_table_find(&st->writer->sites, key)))
			return e->site;
		if ((r = store_write_site(st, 0, si, err)) < 0)
			return r;
		id = sqlite3_last_insert_rowid(st->db);
		store_defer_note_id(st, DEFER_SITE, id);
	}
	e = agg_table_get(&st->writer->sites, key, &created);
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
	if (st->writer->loaded && st->writer->in_txn && (e = agg_table_find(&st->writer->dsyms, key)))
		return e->site;
	if (deferring(st)) {
		if ((id = store_defer_dsym(st, d)) < 0)
			return c2c_error_set(err, (int)id, "out of memory");
	} else {
		if ((r = begin(st, err)) < 0)
			return r;
		if ((e = agg_table_find(&st->writer->dsyms, key)))
			return e->site;
		if ((r = store_write_dsym(st, 0, d, err)) < 0)
			return r;
		id = sqlite3_last_insert_rowid(st->db);
		store_defer_note_id(st, DEFER_DSYM, id);
	}
	e = agg_table_get(&st->writer->dsyms, key, &created);
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
	e = agg_table_find(&st->writer->chains, key);
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
	e = agg_table_get(&st->writer->chains, key, &created);
	if (!e)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	e->site = id;
	return id;
}

int store_add_sample(struct store *st, const struct c2c_sample *smp, const struct store_sample_ctx *ctx,
		     struct c2c_error *err)
{
	static const struct store_sample_ctx none = { .node = -1 };
	struct store_writer *w = st->writer;
	struct store_aggs *aggs = st->aggs;
	/* In a transaction begin() has nothing to do but wait for the
	 * sample thread (store_begin_write): skip it. */
	int r = w->in_txn && w->loaded ? 0 : begin(st, err);
	int64_t chain;

	if (r < 0)
		return r;
	if (!ctx)
		ctx = &none;
	/* the report's sample-order numbers and the timeline log start with
	 * the first sample (before the aggregator's thread does) */
	if (!aggs->agg.rep) {
		if ((r = agg_rep_enable(&aggs->agg, st, "main", err)) < 0)
			return r;
		if (!aggs->agg.tl && !aggs->agg.nr_samples)
			aggs->agg.tl = tl_log_new();  /* NULL: the timeline build scans */
	}
	chain = chain_intern(st, ctx->chain_sites, ctx->nr_chain_sites, err);
	if (chain < 0)
		return (int)chain;
	/* perf's line identity -> the line key's variant (store/agg/lineid.c) */
	int line_var = ctx->line_ident ? store_line_variant(st, smp->addr, ctx->line_ident) : 0;
	if (line_var < 0)
		return c2c_error_set(err, line_var, "out of memory");

	bool has_cpu = (smp->has & C2C_HAS_CPU) != 0;
	struct store_sample_rec *row = &w->rows[w->nrows];
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
		if (store_grow((void **)&w->raw_buf, &w->raw_cap, w->raw_len + smp->raw_size, 1) < 0)
			return c2c_error_set(err, -ENOMEM, "out of memory");
		memcpy(w->raw_buf + w->raw_len, smp->raw, smp->raw_size);
		row->raw_off = w->raw_len;
		row->raw_len = smp->raw_size;
		w->raw_len += smp->raw_size;
		row->present |= 1u << 19;
	}
	if (store_time_blocks_add(st, smp->time) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	/* Bulk loads insert the full batches on their own thread. */
	if (w->bulk && !w->samplew && sample_worker_start(&w->samplew, st) < 0)
		w->samplew = NULL;  /* no thread: insert here */
	if (++w->nrows == SAMPLE_BATCH && (r = store_flush_samples(st, err)) < 0)
		return r;

	struct agg_sample a = {
		.time = smp->time, .addr = smp->addr, .cpu = has_cpu ? smp->cpu : UINT32_MAX, .node = ctx->node,
		.pid = smp->pid, .tid = smp->tid, .ip = smp->ip, .site = ctx->site, .dsym = ctx->dsym,
		.dsym_start = smp->addr - ctx->dsym_offset, .bits = ctx->class_bits, .weight = smp->weight, .event = smp->event,
		.vaddr = smp->addr, .phys = smp->phys_addr, .cpumode = (uint8_t)smp->cpumode,
		.line_var = (uint8_t)line_var,
	};
	/* Bulk loads aggregate on their own thread (store/agg/agg_thread.c). */
	if (w->bulk && !aggs->worker && agg_worker_start(&aggs->worker, &aggs->agg) < 0)
		aggs->worker = NULL;  /* no thread: aggregate here */
	if ((aggs->worker ? agg_worker_add_sample(aggs->worker, &a) : agg_add_sample(&aggs->agg, &a)) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory while aggregating samples");
	st->counters[STORE_CNT_SAMPLES]++;
	w->counters_dirty = true;
	w->pending++;
	return 0;
}

/* Lock waits a bulk load keeps before writing them (one wait for the
 * sample thread a block). */
enum { LOCK_WAIT_BLOCK = 16384 };

int store_add_lock_wait(struct store *st, const struct store_lock_wait *w, struct c2c_error *err)
{
	/* In a transaction begin() has nothing to do but wait for the
	 * sample thread: a bulk load keeps the row for the commit instead. */
	int r = st->writer->in_txn && st->writer->loaded ? 0 : begin(st, err);
	int64_t chain;
	uint64_t dsym_start = w->lock_addr;

	if (r < 0)
		return r;
	chain = chain_intern(st, w->chain_sites, w->nr_chain_sites, err);
	if (chain < 0)
		return (int)chain;
	struct store_lock_wait_row row = {
		.time = w->time, .lock_addr = w->lock_addr, .line = c2c_cl_address(w->lock_addr, st->line_size, false),
		.wait_ns = w->wait_ns, .pid = w->pid, .tid = w->tid, .cpu = w->cpu, .flags = w->flags,
		.site = w->site, .dsym = w->dsym, .chain = chain,
	};
	if (!st->writer->bulk) {
		if ((r = store_begin_write(st, err)) < 0 || (r = store_lock_wait_write(st, &row, err)) < 0)
			return r;
	} else if (store_lock_wait_keep(st, &row) < 0) {
		return c2c_error_set(err, -ENOMEM, "out of memory");
	} else if (st->writer->nlw >= LOCK_WAIT_BLOCK && ((r = store_begin_write(st, err)) < 0 ||
							  (r = store_lock_waits_flush(st, err)) < 0)) {
		return r;
	}
	if (w->dsym > 0 && (size_t)w->dsym < st->writer->nr_dsym_start)
		dsym_start = st->writer->dsym_start[w->dsym];
	struct agg_lock_sample a = {
		.lock_addr = w->lock_addr, .tid = w->tid, .site = w->site, .dsym = w->dsym,
		.dsym_start = dsym_start, .flags = w->flags, .wait_ns = w->wait_ns,
	};
	if ((st->aggs->worker ? agg_worker_add_lock(st->aggs->worker, &a) : agg_add_lock(&st->aggs->agg, &a)) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory while aggregating lock waits");
	st->counters[STORE_CNT_LOCK_WAITS]++;
	st->writer->counters_dirty = true;
	st->writer->pending++;
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
	if (st->writer->bulk && (r = store_set_bulk_load(st, false, err)) < 0)
		return r;
	/* Fold the WAL back so the single .db file holds everything. */
	sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	store_settle(st);
	return 0;
}

/* A finished session becomes one file in rollback-journal mode: readers
 * then need no -wal/-shm beside it, so it opens from a read-only folder or
 * mount and as another user, and reading leaves nothing behind. WAL is only
 * for the time a live collection is read while it is written. The switch
 * needs the only connection: with a reader still open (the live explorer)
 * it is tried again at close, without waiting for the reader. */
void store_settle(struct store *st)
{
	char v[8] = "";

	if (!st->writable || !st->db || !st->meta_get || store_get_meta(st, STORE_META_FINALIZED, v, sizeof(v)) < 0 ||
	    strcmp(v, "1") != 0)
		return;
	sqlite3_busy_timeout(st->db, 0);
	sqlite3_exec(st->db, "PRAGMA journal_mode = DELETE;", NULL, NULL, NULL);
	sqlite3_busy_timeout(st->db, 5000);
}

uint64_t store_pending(const struct store *st)
{
	return st->writer->pending;
}

int store_set_bulk_load(struct store *st, bool on, struct c2c_error *err)
{
	int r;

	if (!st->writable)
		return c2c_error_set(err, -EROFS, "%s: opened read-only", st->path);
	if (on == st->writer->bulk)
		return 0;
	if (st->writer->in_txn && (r = store_commit(st, err)) < 0)
		return r;
	if (!on) {
		/* everything is aggregated (the commit drained it) */
		agg_worker_stop(st->aggs->worker);
		st->aggs->worker = NULL;
		sample_worker_stop(st->writer->samplew);
		st->writer->samplew = NULL;
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
	/* The file is held exclusively while bulk loading: in rollback-journal
	 * mode a reader's shared lock can make a cache spill or a commit give
	 * up (SQLITE_BUSY) and lose the import; a reader now waits, then says
	 * "database is locked", and the import goes on. Leaving WAL needs the
	 * file to itself and does not wait for a reader that has just opened
	 * it (a second import checking the name): waited for here. */
	if ((r = store_exec_wait(st, on ? "PRAGMA journal_mode = TRUNCATE; PRAGMA locking_mode = EXCLUSIVE;"
				     " PRAGMA cache_size = -8192; PRAGMA synchronous = OFF;"
				   : "PRAGMA locking_mode = NORMAL; PRAGMA journal_mode = WAL;"
				     " PRAGMA cache_size = -32768; PRAGMA synchronous = NORMAL;", 5000, err)) < 0)
		return r;
	st->writer->bulk = on;
	return 0;
}

/* ---- the writer's state --------------------------------------------- */

struct store_writer *store_writer_new(bool fresh)
{
	struct store_writer *w = calloc(1, sizeof(*w));

	if (w)
		w->loaded = fresh;
	return w;
}

int store_writer_prepare(struct store *st, struct c2c_error *err)
{
	static const char *const sql[STMT__MAX] = {
		[STMT_SAMPLE] = "INSERT INTO samples (time, event, cpu, node, pid, tid, cpumode, ip, site, addr,"
				" phys_addr, class_bits, weight, ins_lat, data_src, period, dsym, dsym_offset, callchain,"
				" raw, line_var) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		[STMT_LOCK] = "INSERT INTO lock_waits (time, pid, tid, cpu, lock_addr, line, flags, wait_ns, site,"
			      " dsym, callchain) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
		[STMT_COMM] = "INSERT INTO comms (time, pid, tid, exec, comm) VALUES (?,?,?,?,?)",
		[STMT_TASK] = "INSERT INTO tasks (time, kind, pid, ppid, tid, ptid) VALUES (?,?,?,?,?,?)",
		[STMT_MMAP] = "INSERT INTO maps (time, pid, tid, start, len, pgoff, prot, flags, cpumode, maj, min,"
			      " ino, ino_generation, build_id, filename) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		/* id NULL: the next rowid */
		[STMT_SITE] = "INSERT INTO sites (id, ip, pid, cpumode, function, offset, dso, file, line, rel_addr)"
			      " VALUES (?,?,?,?,?,?,?,?,?,?)",
		[STMT_DSYM] = "INSERT INTO dsyms (id, name, start, size, pid, dso) VALUES (?,?,?,?,?,?)",
		[STMT_CHAIN] = "INSERT INTO callchains (id, sites) VALUES (?,?)",
		[STMT_META_SET] = "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
		[STMT_COUNTER] = "INSERT OR REPLACE INTO counters (name, value) VALUES (?, ?)",
		[STMT_EVENT] = "INSERT OR REPLACE INTO events (idx, name, attr_type, config, sample_type,"
			       " sample_period, freq) VALUES (?,?,?,?,?,?,?)",
		[STMT_CPU] = "INSERT OR REPLACE INTO cpus (cpu, core, socket, node) VALUES (?,?,?,?)",
		[STMT_SAMPLE_BATCH] = NULL,  /* built below */
	};
	char batch_sql[2048];
	size_t n = (size_t)snprintf(batch_sql, sizeof(batch_sql), "INSERT INTO samples (time, event, cpu, node, pid, tid,"
				    " cpumode, ip, site, addr, phys_addr, class_bits, weight, ins_lat, data_src, period,"
				    " dsym, dsym_offset, callchain, raw, line_var) VALUES ");
	for (int r = 0; r < SAMPLE_BATCH && n < sizeof(batch_sql); r++)
		n = c2c_appendf(batch_sql, sizeof(batch_sql), n, "%s(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
				      r ? "," : "");
	if (!st->writable)
		return 0;
	for (int i = 0; i < STMT__MAX; i++) {
		/* a block session's samples table cannot be inserted into */
		if (st->sample_blocks && (i == STMT_SAMPLE || i == STMT_SAMPLE_BATCH))
			continue;
		int r = store_prepare(st, &st->writer->stmt[i], i == STMT_SAMPLE_BATCH ? batch_sql : sql[i], err);
		if (r < 0)
			return r;
	}
	return 0;
}

void store_writer_close(struct store *st)
{
	if (st->writable && st->writer && st->writer->in_txn) {
		struct c2c_error e;
		if (store_commit(st, &e) < 0)
			store_exec(st, "ROLLBACK;", NULL);
	}
	if (st->writable && st->writer && !st->writer->in_txn)
		store_settle(st);
}

void store_writer_free(struct store *st)
{
	struct store_writer *w = st->writer;

	if (!w)
		return;
	sample_worker_stop(w->samplew);  /* before its statements go */
	for (int i = 0; i < STMT__MAX; i++)
		sqlite3_finalize(w->stmt[i]);
	sqlite3_finalize(w->lock_event);
	sqlite3_finalize(w->lock_events);
	store_lock_events_free(w);
	free(w->lev);
	free(w->lw);
	store_batch_stmts_free(st);
	agg_table_fini(&w->sites);
	agg_table_fini(&w->dsyms);
	agg_table_fini(&w->chains);
	store_defer_free(st);
	store_time_blocks_free(&w->tb);
	store_blocks_free(&w->blocks);
	free(w->dsym_start);
	free(w->raw_buf);
	free(w);
	st->writer = NULL;
}
