/* The per-time-slice aggregate behind the timeline: the session's time
 * cut into STORE_TIMELINE_SLICES equal slices, with per slice the sample
 * classes the timeline shows (samples, loads, stores, HITM, peer) and the
 * lock waits, for the whole session (agg_time_slice) and for the lines
 * worth a timeline (agg_time_line: HITM, stores or lock waits). Built once
 * at finalize with one pass over samples, so the timeline key answers by
 * re-binning a few thousand rows instead of scanning every sample. */
#include "store/agg/agg_timeline.h"
#include "store/agg/agg_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Counters of one slice (session or line). */
struct tl_cnt {
	uint64_t samples, loads, stores, lcl_hitm, rmt_hitm, tot_hitm, tot_peer, lock_waits, wait_ns;
};

#define TL_NVALS 9
#define TL_COLS "samples, loads, stores, lcl_hitm, rmt_hitm, tot_hitm, tot_peer, lock_waits, wait_ns"
#define TL_COLDEFS "samples INTEGER NOT NULL, loads INTEGER NOT NULL, stores INTEGER NOT NULL," \
	" lcl_hitm INTEGER NOT NULL, rmt_hitm INTEGER NOT NULL, tot_hitm INTEGER NOT NULL," \
	" tot_peer INTEGER NOT NULL, lock_waits INTEGER NOT NULL, wait_ns INTEGER NOT NULL"

static bool force_scan;

void store_timeline_force_scan(bool on)
{
	force_scan = on;
}

bool store_timeline_scan_forced(void)
{
	return force_scan;
}

/* ---- line key -> index map ------------------------------------------ */

/* Open addressing; 0 is never kept (samples without a data address have
 * no line worth a timeline). */
struct line_map {
	uint64_t *keys;
	uint32_t *idx;
	size_t cap, count;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/* Index of key, or -1. */
static long line_map_find(const struct line_map *m, uint64_t key)
{
	if (!m->cap || !key)
		return -1;
	size_t j = mix(key) & (m->cap - 1);
	while (m->keys[j]) {
		if (m->keys[j] == key)
			return m->idx[j];
		j = (j + 1) & (m->cap - 1);
	}
	return -1;
}

/* Adds key with the next index; 1 added, 0 present or 0 key, -ENOMEM. */
static int line_map_add(struct line_map *m, uint64_t key)
{
	if (!key || line_map_find(m, key) >= 0)
		return 0;
	if ((m->count + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		uint64_t *k = calloc(cap, sizeof(*k));
		uint32_t *x = calloc(cap, sizeof(*x));
		if (!k || !x) {
			free(k);
			free(x);
			return -ENOMEM;
		}
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->keys[i])
				continue;
			size_t j = mix(m->keys[i]) & (cap - 1);
			while (k[j])
				j = (j + 1) & (cap - 1);
			k[j] = m->keys[i];
			x[j] = m->idx[i];
		}
		free(m->keys);
		free(m->idx);
		m->keys = k;
		m->idx = x;
		m->cap = cap;
	}
	size_t j = mix(key) & (m->cap - 1);
	while (m->keys[j])
		j = (j + 1) & (m->cap - 1);
	m->keys[j] = key;
	m->idx[j] = (uint32_t)m->count++;
	return 1;
}

static void line_map_fini(struct line_map *m)
{
	free(m->keys);
	free(m->idx);
}

/* ---- building ------------------------------------------------------- */

/* One line slice's samples; 32-bit counts (the build gives up on
 * per-line slices when the session has 2^32 samples or more). Kept small:
 * on a VM, faulting the pages in costs as much as the counting. */
struct lcell {
	uint32_t samples, loads, stores, lcl_hitm, rmt_hitm, tot_hitm, tot_peer;
};

/* One line slice's lock waits (lock lines only: the first nlock lines). */
struct lockcell {
	uint64_t wait_ns;
	uint32_t waits;
};

static int64_t scalar(struct store *st, const char *sql, int64_t dflt, bool *null)
{
	sqlite3_stmt *s;
	int64_t v = dflt;

	if (null)
		*null = true;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return dflt;
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
		v = sqlite3_column_int64(s, 0);
		if (null)
			*null = false;
	}
	sqlite3_finalize(s);
	return v;
}

/* What the aggregate is stamped with: it is current while these match. */
static void session_stamp(struct store *st, uint64_t *nr_samples, uint64_t *lock_id)
{
	*nr_samples = (uint64_t)scalar(st, "SELECT value FROM main.agg_session WHERE name = 'nr_samples'", 0, NULL);
	*lock_id = (uint64_t)scalar(st, "SELECT MAX(id) FROM main.lock_waits", 0, NULL);
}

struct build {
	struct store_slicing sl;
	uint32_t nline;          /* line slices: ceil(nslices / LINE_FACTOR) */
	struct tl_cnt *slices;   /* sl.nslices */
	struct line_map lines;   /* line key -> index into cells */
	struct lcell *cells;     /* nline * lines.count, slice-major: samples come
	                            in time order, so neighbours share pages */
	size_t nlock;            /* lines 0..nlock-1 are the lock lines */
	struct lockcell *locks;  /* nline * nlock, slice-major */
};

static void build_fini(struct build *b)
{
	free(b->slices);
	line_map_fini(&b->lines);
	free(b->cells);
	free(b->locks);
}

/* Picks the lines that get per-line slices: every display line with lock
 * waits (as its var-0 key: a key's lock waits are its display line's),
 * then the keys with HITM or stores, hottest first, within a memory
 * budget. Lines left out are answered by the scan. */
static int pick_lines(struct store *st, struct build *b, struct c2c_error *err)
{
	size_t max = STORE_TIMELINE_LINE_BUDGET / ((size_t)b->nline * sizeof(struct lcell));
	sqlite3_stmt *s;
	int r;

	if ((r = store_prepare(st, &s, "SELECT DISTINCT line FROM main.lock_waits WHERE line IS NOT NULL", err)) < 0)
		return r;
	while ((r = sqlite3_step(s)) == SQLITE_ROW)
		if (line_map_add(&b->lines, (uint64_t)sqlite3_column_int64(s, 0)) < 0)
			break;
	sqlite3_finalize(s);
	if (r != SQLITE_DONE)
		return r == SQLITE_ROW ? c2c_error_set(err, -ENOMEM, "out of memory") : store_sqlerr(st, err, "timeline locks");
	b->nlock = b->lines.count;
	if ((r = store_prepare(st, &s, "SELECT line FROM main.agg_line WHERE tot_hitm > 0 OR store > 0"
				 " OR (line & ?1) IN (SELECT line FROM main.lock_waits)"
				 " ORDER BY (line & ?1) IN (SELECT line FROM main.lock_waits) DESC,"
				 " tot_hitm DESC, store DESC, line", err)) < 0)
		return r;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)~(uint64_t)((st->line_size ? st->line_size : 64) - 1));
	while (b->lines.count < max && (r = sqlite3_step(s)) == SQLITE_ROW)
		if (line_map_add(&b->lines, (uint64_t)sqlite3_column_int64(s, 0)) < 0)
			break;
	sqlite3_finalize(s);
	if (r != SQLITE_DONE && r != SQLITE_ROW)
		return store_sqlerr(st, err, "timeline lines");
	if (b->lines.count > max) {
		/* more lock lines than fit: every line query scans */
		line_map_fini(&b->lines);
		memset(&b->lines, 0, sizeof(b->lines));
		b->nlock = 0;
	}
	if (b->lines.count) {
		b->cells = calloc(b->lines.count * b->nline, sizeof(*b->cells));
		if (!b->cells)
			return c2c_error_set(err, -ENOMEM, "out of memory");
	}
	if (b->nlock) {
		b->locks = calloc(b->nlock * b->nline, sizeof(*b->locks));
		if (!b->locks)
			return c2c_error_set(err, -ENOMEM, "out of memory");
	}
	return 0;
}

/* Adds one sample's counts (tl_log_each's order) to a session slice or a
 * line cell: the same fields, of two widths. */
#define ADD_COUNTS(c, v) do { \
		(c)->samples++; \
		(c)->loads += (v)[0]; \
		(c)->stores += (v)[1]; \
		(c)->lcl_hitm += (v)[2]; \
		(c)->rmt_hitm += (v)[3]; \
		(c)->tot_hitm += (v)[4]; \
		(c)->tot_peer += (v)[5]; \
	} while (0)

static void cnt_add_counts(struct tl_cnt *c, const unsigned *v)
{
	ADD_COUNTS(c, v);
}

static void lcell_add_counts(struct lcell *c, const unsigned *v)
{
	ADD_COUNTS(c, v);
}

/* One sample from the timeline log: 0 counted, 1 outside the slicing. */
static int add_logged(void *ctx, uint64_t t, uint64_t key, const unsigned *counts)
{
	struct build *b = ctx;
	uint64_t k = (t - b->sl.t0) / b->sl.width;

	if (t < b->sl.t0 || k >= b->sl.nslices)
		return 1;
	cnt_add_counts(&b->slices[k], counts);
	long li = line_map_find(&b->lines, key);
	if (li >= 0)
		lcell_add_counts(&b->cells[(k / STORE_TIMELINE_LINE_FACTOR) * b->lines.count + (size_t)li], counts);
	return 0;
}

/* One pass over samples (the writer's timeline log when it holds them
 * all, else the samples table), one over lock waits. 1 done, 0 a time
 * outside the slicing (the aggregate is then not built), <0 error. */
static int accumulate(struct store *st, struct build *b, uint64_t nr_samples, struct c2c_error *err)
{
	uint64_t mask = ~(uint64_t)((st->line_size ? st->line_size : 64) - 1);
	sqlite3_stmt *s;
	int r;

	if (!force_scan && tl_log_usable(st->aggs->agg.tl, nr_samples)) {
		if (tl_log_each(st->aggs->agg.tl, add_logged, b))
			return 0;
		goto locks;
	}

	/* line_var sits after the raw payload: reading it can mean following
	 * the row's overflow pages (several times the cost of the rest), so
	 * it is read only on the lines that have variants (in agg_line). */
	if ((r = store_prepare(st, &s, "SELECT time, class_bits, addr, CASE WHEN (addr & ?1) IN"
				 " (SELECT line & ?1 FROM main.agg_line WHERE (line & ?2) <> 0)"
				 " THEN COALESCE(line_var, 0) ELSE 0 END FROM main.samples WHERE time > 0", err)) < 0)
		return r;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)mask);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)~mask);
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		uint64_t t = (uint64_t)sqlite3_column_int64(s, 0);
		uint64_t bits = (uint64_t)sqlite3_column_int64(s, 1);
		uint64_t key = ((uint64_t)sqlite3_column_int64(s, 2) & mask) + (uint64_t)sqlite3_column_int64(s, 3);
		uint64_t k = (t - b->sl.t0) / b->sl.width;
		if (t < b->sl.t0 || k >= b->sl.nslices) {
			sqlite3_finalize(s);
			return 0;
		}
		unsigned v[TL_LOG_COUNTERS];
		tl_log_counts(bits, v);
		cnt_add_counts(&b->slices[k], v);
		long li = line_map_find(&b->lines, key);
		if (li >= 0)
			lcell_add_counts(&b->cells[(k / STORE_TIMELINE_LINE_FACTOR) * b->lines.count + (size_t)li], v);
	}
	sqlite3_finalize(s);
	if (r != SQLITE_DONE)
		return store_sqlerr(st, err, "reading samples for the timeline");
locks:
	if ((r = store_prepare(st, &s, "SELECT time, wait_ns, line FROM main.lock_waits WHERE time > 0", err)) < 0)
		return r;
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		uint64_t t = (uint64_t)sqlite3_column_int64(s, 0);
		uint64_t ns = (uint64_t)sqlite3_column_int64(s, 1);
		uint64_t k = (t - b->sl.t0) / b->sl.width;
		if (t < b->sl.t0 || k >= b->sl.nslices) {
			sqlite3_finalize(s);
			return 0;
		}
		b->slices[k].lock_waits++;
		b->slices[k].wait_ns += ns;
		long li = sqlite3_column_type(s, 2) == SQLITE_NULL ? -1
			  : line_map_find(&b->lines, (uint64_t)sqlite3_column_int64(s, 2));
		if (li >= 0 && (size_t)li < b->nlock) {
			struct lockcell *c = &b->locks[(k / STORE_TIMELINE_LINE_FACTOR) * b->nlock + (size_t)li];
			c->waits++;
			c->wait_ns += ns;
		}
	}
	sqlite3_finalize(s);
	if (r != SQLITE_DONE)
		return store_sqlerr(st, err, "reading lock waits for the timeline");
	return 1;
}

/* One line's slices as a blob: for each non-empty line slice, the slice
 * number's delta from the previous one, then TL_NVALS counters, all as
 * LEB128 varints (a few bytes a slice: most counts are small). */
static size_t encode_line(const struct build *b, size_t li, unsigned char *buf)
{
	static const struct lockcell none;
	size_t len = 0;
	uint32_t prev = 0;

	for (uint32_t j = 0; j < b->nline; j++) {
		const struct lcell *x = &b->cells[j * b->lines.count + li];
		const struct lockcell *w = li < b->nlock ? &b->locks[j * b->nlock + li] : &none;
		if (!x->samples && !w->waits)
			continue;
		len += store_put_varint(buf + len, j - prev);
		prev = j;
		const uint64_t v[TL_NVALS] = { x->samples, x->loads, x->stores, x->lcl_hitm, x->rmt_hitm, x->tot_hitm,
					       x->tot_peer, w->waits, w->wait_ns };
		for (int i = 0; i < TL_NVALS; i++)
			len += store_put_varint(buf + len, v[i]);
	}
	return len;
}

const char agg_timeline_schema[] =
	"CREATE TABLE main.agg_time_slice (slice INTEGER PRIMARY KEY, " TL_COLDEFS ");"
	"CREATE TABLE main.agg_time_line (line INTEGER PRIMARY KEY, slices BLOB NOT NULL);";

static int write_tables(struct store *st, const struct build *b, struct c2c_error *err)
{
	sqlite3_stmt *s;
	unsigned char *buf;
	int r;

	if ((r = store_exec(st, agg_timeline_schema, err)) < 0)
		return r;
	if ((r = store_prepare(st, &s, "INSERT INTO main.agg_time_slice (slice, " TL_COLS
				 ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", err)) < 0)
		return r;
	for (uint32_t k = 0; k < b->sl.nslices; k++) {
		const struct tl_cnt *c = &b->slices[k];
		if (!c->samples && !c->lock_waits)
			continue;
		const uint64_t v[TL_NVALS] = { c->samples, c->loads, c->stores, c->lcl_hitm, c->rmt_hitm, c->tot_hitm,
					       c->tot_peer, c->lock_waits, c->wait_ns };
		sqlite3_bind_int64(s, 1, k);
		for (int i = 0; i < TL_NVALS; i++)
			sqlite3_bind_int64(s, 2 + i, (sqlite3_int64)v[i]);
		if (sqlite3_step(s) != SQLITE_DONE) {
			sqlite3_finalize(s);
			return store_sqlerr(st, err, "writing agg_time_slice");
		}
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	if (!b->lines.count)
		return 0;
	buf = malloc((size_t)b->nline * (TL_NVALS + 1) * 10);
	if (!buf)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	if ((r = store_prepare(st, &s, "INSERT INTO main.agg_time_line (line, slices) VALUES (?, ?)", err)) < 0) {
		free(buf);
		return r;
	}
	for (size_t i = 0; i < b->lines.cap; i++) {
		if (!b->lines.keys[i])
			continue;
		size_t len = encode_line(b, b->lines.idx[i], buf);
		sqlite3_bind_int64(s, 1, (sqlite3_int64)b->lines.keys[i]);
		sqlite3_bind_blob(s, 2, buf, (int)len, SQLITE_STATIC);
		if (sqlite3_step(s) != SQLITE_DONE) {
			sqlite3_finalize(s);
			free(buf);
			return store_sqlerr(st, err, "writing agg_time_line");
		}
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	free(buf);
	return 0;
}

/* Written directly: store_set_meta would open the writer's batch. */
static int set_meta_u64(struct store *st, const char *key, uint64_t v, struct c2c_error *err)
{
	sqlite3_stmt *s;
	char buf[32];
	int r;

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	if ((r = store_prepare(st, &s, "INSERT OR REPLACE INTO main.meta (key, value) VALUES (?1, ?2)", err)) < 0)
		return r;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, buf, -1, SQLITE_STATIC);
	r = sqlite3_step(s);
	sqlite3_finalize(s);
	return r == SQLITE_DONE ? 0 : store_sqlerr(st, err, "writing timeline metadata");
}

static int build_in_txn(struct store *st, struct c2c_error *err)
{
	struct build b;
	uint64_t first, last, nr_samples, lock_id;
	bool none_s, none_l, outside = false;
	int r;

	memset(&b, 0, sizeof(b));
	/* Slices 0 means "no aggregate" (the transaction makes it moot, but
	 * a session whose build finds nothing to slice must say so). */
	if ((r = store_exec(st, "DROP TABLE IF EXISTS main.agg_time_slice; DROP TABLE IF EXISTS main.agg_time_line;",
			    err)) < 0 || (r = set_meta_u64(st, "timeline_slices", 0, err)) < 0)
		return r;
	/* The samples' first and last times are in the session aggregate; the
	 * pass checks them (a sample outside leaves no aggregate). */
	first = (uint64_t)scalar(st, "SELECT value FROM main.agg_session WHERE name = 'time_first'", 0, &none_s);
	last = (uint64_t)scalar(st, "SELECT value FROM main.agg_session WHERE name = 'time_last'", 0, NULL);
	if (!first || last < first)
		none_s = true;
	uint64_t lfirst = (uint64_t)scalar(st, "SELECT MIN(time) FROM main.lock_waits WHERE time > 0", 0, &none_l);
	uint64_t llast = (uint64_t)scalar(st, "SELECT MAX(time) FROM main.lock_waits WHERE time > 0", 0, NULL);
	if (none_s && none_l)
		return 0;
	if (none_s || (!none_l && lfirst < first))
		first = lfirst;
	if (none_s || (!none_l && llast > last))
		last = llast;
	session_stamp(st, &nr_samples, &lock_id);
	b.sl.t0 = first;
	b.sl.width = (last + 1 - first + STORE_TIMELINE_SLICES - 1) / STORE_TIMELINE_SLICES;
	if (!b.sl.width)
		b.sl.width = 1;
	b.sl.nslices = (uint32_t)((last + 1 - first + b.sl.width - 1) / b.sl.width);
	b.nline = (b.sl.nslices + STORE_TIMELINE_LINE_FACTOR - 1) / STORE_TIMELINE_LINE_FACTOR;
	b.slices = calloc(b.sl.nslices, sizeof(*b.slices));
	if (!b.slices) {
		r = c2c_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	/* 32-bit per-line counts: with 2^32 samples, lines scan. */
	if (nr_samples < UINT32_MAX && (r = pick_lines(st, &b, err)) < 0)
		goto out;
	if ((r = accumulate(st, &b, nr_samples, err)) <= 0) {
		outside = r == 0;
		goto out;
	}
	if ((r = write_tables(st, &b, err)) < 0 || (r = set_meta_u64(st, "timeline_t0", b.sl.t0, err)) < 0 ||
	    (r = set_meta_u64(st, "timeline_width", b.sl.width, err)) < 0 ||
	    (r = set_meta_u64(st, "timeline_nr_samples", nr_samples, err)) < 0 ||
	    (r = set_meta_u64(st, "timeline_lock_id", lock_id, err)) < 0 ||
	    (r = set_meta_u64(st, "timeline_slices", b.sl.nslices, err)) < 0)
		goto out;
out:
	build_fini(&b);
	if (outside) {
		/* a time outside the slicing: no aggregate */
		if ((r = store_exec(st, "DROP TABLE IF EXISTS main.agg_time_slice;"
				    " DROP TABLE IF EXISTS main.agg_time_line;", err)) < 0)
			return r;
		return set_meta_u64(st, "timeline_slices", 0, err);
	}
	return r;
}

int store_timeline_build(struct store *st, struct c2c_error *err)
{
	int r;

	if (!st->writable)
		return c2c_error_set(err, -EROFS, "%s: opened read-only", st->path);
	/* Its own transaction, not the writer's batch (which the caller,
	 * store_finalize, has committed): committing that would also flush
	 * the writer's aggregates, which only store_finalize has loaded. */
	if ((r = store_exec(st, "BEGIN IMMEDIATE;", err)) < 0)
		return r;
	if ((r = build_in_txn(st, err)) < 0) {
		sqlite3_exec(st->db, "ROLLBACK;", NULL, NULL, NULL);
		return r;
	}
	return store_exec(st, "COMMIT;", err);
}

/* ---- answering ------------------------------------------------------ */

static bool meta_u64(struct store *st, const char *key, uint64_t *v)
{
	char buf[32], *end;

	if (store_get_meta(st, key, buf, sizeof(buf)) <= 0)
		return false;
	*v = strtoull(buf, &end, 10);
	return !*end;
}

bool store_timeline_slicing(struct store *st, struct store_slicing *sl)
{
	uint64_t n, nr, lock, nr_now, lock_now;

	if (!meta_u64(st, "timeline_slices", &n) || !n || n > UINT32_MAX || !meta_u64(st, "timeline_t0", &sl->t0) ||
	    !meta_u64(st, "timeline_width", &sl->width) || !sl->width ||
	    !meta_u64(st, "timeline_nr_samples", &nr) || !meta_u64(st, "timeline_lock_id", &lock))
		return false;
	session_stamp(st, &nr_now, &lock_now);
	if (nr != nr_now || lock != lock_now)
		return false;
	sl->nslices = (uint32_t)n;
	return true;
}

uint32_t store_timeline_step(const struct store_slicing *sl, bool line, uint32_t nbuckets)
{
	if (!nbuckets)
		nbuckets = 1;
	if (!line)
		return (sl->nslices + nbuckets - 1) / nbuckets;
	uint32_t nl = (sl->nslices + STORE_TIMELINE_LINE_FACTOR - 1) / STORE_TIMELINE_LINE_FACTOR;
	return STORE_TIMELINE_LINE_FACTOR * ((nl + nbuckets - 1) / nbuckets);
}

static uint64_t col_u64(sqlite3_stmt *s, int c)
{
	return (uint64_t)sqlite3_column_int64(s, c);
}

/* Reads one LEB128 varint; false at the end of the data or when malformed. */
static bool get_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
		unsigned char c = *(*p)++;
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

/* Adds one line's blob into the buckets: samples (want_samples) and/or
 * lock waits (want_locks). */
static int add_line_blob(const void *blob, int len, uint32_t k, uint32_t nb, int hc, bool want_samples,
			 bool want_locks, struct store_time_row *rows)
{
	const unsigned char *p = blob, *end = p + (len > 0 ? len : 0);
	uint64_t slice = 0, d, v[TL_NVALS];

	while (p < end) {
		if (!get_varint(&p, end, &d))
			return -EINVAL;
		slice += d;
		for (int i = 0; i < TL_NVALS; i++)
			if (!get_varint(&p, end, &v[i]))
				return -EINVAL;
		uint64_t b = slice * STORE_TIMELINE_LINE_FACTOR / k;
		if (b >= nb)
			return -EINVAL;
		struct store_time_row *row = &rows[b];
		if (want_samples) {
			row->samples += v[0];
			row->loads += v[1];
			row->stores += v[2];
			row->hitm += v[hc];
		}
		if (want_locks) {
			row->lock_waits += v[7];
			row->lock_wait_ns += v[8];
		}
	}
	return 0;
}

int store_timeline_from_slices(struct store *st, const struct store_slicing *sl, uint64_t line_addr,
			       enum c2c_counter hitm_counter, uint32_t nbuckets, struct store_time_row **rows,
			       size_t *n, struct c2c_error *err)
{
	bool all = line_addr == STORE_ALL_LINES;
	uint64_t disp = all ? 0 : c2c_line_display(line_addr, st->line_size);
	uint32_t k = store_timeline_step(sl, !all, nbuckets);
	uint32_t nb = (sl->nslices + k - 1) / k;
	int hc;
	sqlite3_stmt *s;
	int r, rc;

	*rows = NULL;
	*n = 0;
	/* index of the mode's counter in TL_COLS */
	switch (hitm_counter) {
	case C2C_LCL_HITM: hc = 3; break;
	case C2C_RMT_HITM: hc = 4; break;
	case C2C_TOT_PEER: hc = 6; break;
	default: hc = 5; break;
	}
	*rows = calloc(nb, sizeof(**rows));
	if (!*rows)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	for (uint32_t i = 0; i < nb; i++) {
		(*rows)[i].t_start = sl->t0 + (uint64_t)i * k * sl->width;
		(*rows)[i].t_end = sl->t0 + (uint64_t)(i + 1) * k * sl->width;
	}
	if (all) {
		if ((r = store_prepare(st, &s, "SELECT slice, " TL_COLS " FROM main.agg_time_slice", err)) < 0)
			goto fail;
		while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
			uint64_t slice = col_u64(s, 0);
			if (slice >= sl->nslices)
				continue;
			struct store_time_row *row = &(*rows)[slice / k];
			row->samples += col_u64(s, 1);
			row->loads += col_u64(s, 2);
			row->stores += col_u64(s, 3);
			row->hitm += col_u64(s, hc + 1);
			row->lock_waits += col_u64(s, 8);
			row->lock_wait_ns += col_u64(s, 9);
		}
		sqlite3_finalize(s);
		if (rc != SQLITE_DONE) {
			r = store_sqlerr(st, err, "reading the timeline slices");
			goto fail;
		}
		*n = nb;
		return 1;
	}
	/* The key's samples; its display line's lock waits (every display
	 * line with lock waits has a row; none means no lock waits). For a
	 * var-0 key both come from one row. A key without a row scans. */
	if ((r = store_prepare(st, &s, "SELECT slices FROM main.agg_time_line WHERE line = ?1", err)) < 0)
		goto fail;
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1 && disp == line_addr)
			break;
		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, (sqlite3_int64)(pass == 0 ? line_addr : disp));
		rc = sqlite3_step(s);
		if (rc == SQLITE_ROW) {
			r = add_line_blob(sqlite3_column_blob(s, 0), sqlite3_column_bytes(s, 0), k, nb, hc,
					  pass == 0, pass == 1 || disp == line_addr, *rows);
			if (r < 0) {
				sqlite3_finalize(s);
				r = c2c_error_set(err, r, "%s: agg_time_line: malformed slices of line 0x%" PRIx64,
						  st->path, pass == 0 ? line_addr : disp);
				goto fail;
			}
		} else if (rc != SQLITE_DONE) {
			sqlite3_finalize(s);
			r = store_sqlerr(st, err, "reading agg_time_line");
			goto fail;
		} else if (pass == 0) {
			sqlite3_finalize(s);
			free(*rows);
			*rows = NULL;
			return 0;
		}
	}
	sqlite3_finalize(s);
	*n = nb;
	return 1;
fail:
	free(*rows);
	*rows = NULL;
	return r;
}
