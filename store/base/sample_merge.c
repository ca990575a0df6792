/* A block session's samples in time order (see sample_merge.h).
 *
 * The blocks are listed by (tmin, first_id) and merged with a heap keyed
 * by (time, id): a block joins the heap when its first row could come
 * next, so only the blocks whose time ranges overlap are decoded at once
 * (one a CPU in a schema-3 session). A row without a time takes the key
 * of the row before it in its block, so every block's keys are ordered
 * when its times are; untimed blocks (every row NULL) come first, by id,
 * as SQL orders NULL times. */
#include "store/base/sample_merge.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mblock {
	int64_t first_id;
	struct sample_block b;
	size_t row;
	int64_t key;                 /* the current row's time (carried over NULLs) */
	int64_t *ids;                /* a block sorted when read: its rows' ids; else NULL */
	size_t ids_cap;
	struct store_sample_rec *tmp; /* sorting scratch */
	size_t tmp_cap;
};

struct binfo {
	int64_t first_id, tmin;      /* tmin INT64_MIN: no row has a time */
	bool sorted;
};

struct sample_merge {
	sqlite3 *db;
	struct sample_merge_opts o;
	struct binfo *list;
	size_t nlist, next;
	sqlite3_stmt *data;          /* a block's rowid */
	sqlite3_blob *blob;          /* its data, read into buf: no allocation or */
	unsigned char *buf;          /* fresh pages a block, as a column value costs */
	size_t buf_cap;
	sqlite3_stmt *pin;           /* kept on a row: one snapshot for the whole scan */
	struct mblock **heap, **pool;
	size_t nheap, npool, cap;    /* heap and pool hold at most cap blocks together */
	struct mblock *cur;          /* the block of the row last returned (the heap's top) */
	char err[200];
};

__attribute__((format(printf, 3, 4)))
static int set_err(struct sample_merge *m, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->err, sizeof(m->err), fmt, ap);
	va_end(ap);
	return r;
}

static int load_list(struct sample_merge *m)
{
#define INDEX_WHERE \
	" WHERE (?1 = 0 OR tmax IS NULL OR tmax >= ?1) AND (?2 = 0 OR tmin IS NULL OR tmin < ?2)" \
	" AND (?3 = 0 OR (cpus & ?3) != 0) AND (?4 = 0 OR (nodes & ?4) != 0)"
	/* a pids or tids value that is no integer (NULL: appended by an older
	 * c2ctui) says nothing: the block is read */
	const char *sql = m->o.parts && m->o.tasks
		? "SELECT first_id, tmin, sorted FROM main.sample_block_index" INDEX_WHERE
		  " AND (?5 = 0 OR typeof(pids) != 'integer' OR (pids & ?5) != 0)"
		  " AND (?6 = 0 OR typeof(tids) != 'integer' OR (tids & ?6) != 0) ORDER BY tmin, first_id"
		: m->o.parts
		? "SELECT first_id, tmin, sorted FROM main.sample_block_index" INDEX_WHERE
		  " AND ?5 = ?5 AND ?6 = ?6 ORDER BY tmin, first_id"
		: "SELECT first_id, tmin, 0 FROM main.sample_blocks"
		  " WHERE (?1 = 0 OR tmax IS NULL OR tmax >= ?1) AND (?2 = 0 OR tmin IS NULL OR tmin < ?2)"
		  " AND ?3 = ?3 AND ?4 = ?4 AND ?5 = ?5 AND ?6 = ?6 ORDER BY tmin, first_id";
#undef INDEX_WHERE
	sqlite3_stmt *s;
	size_t cap = 0;
	int rc;

	if (sqlite3_prepare_v2(m->db, sql, -1, &s, NULL) != SQLITE_OK)
		return set_err(m, -EIO, "reading sample_blocks: %s", sqlite3_errmsg(m->db));
	sqlite3_bind_int64(s, 1, m->o.t0);
	sqlite3_bind_int64(s, 2, m->o.t1);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)m->o.cpus);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)m->o.nodes);
	sqlite3_bind_int64(s, 5, (sqlite3_int64)m->o.pids);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)m->o.tids);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (m->nlist == cap) {
			size_t nc = cap ? cap * 2 : 256;
			struct binfo *p = realloc(m->list, nc * sizeof(*p));
			if (!p) {
				sqlite3_finalize(s);
				return -ENOMEM;
			}
			m->list = p;
			cap = nc;
		}
		struct binfo *b = &m->list[m->nlist++];
		b->first_id = sqlite3_column_int64(s, 0);
		b->tmin = sqlite3_column_type(s, 1) == SQLITE_NULL ? INT64_MIN : sqlite3_column_int64(s, 1);
		b->sorted = sqlite3_column_int(s, 2) == 1;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return set_err(m, -EIO, "reading sample_blocks: %s", sqlite3_errmsg(m->db));
	return 0;
}

int sample_merge_open(sqlite3 *db, const struct sample_merge_opts *o, struct sample_merge **out)
{
	struct sample_merge *m = calloc(1, sizeof(*m));
	int r;

	*out = m;
	if (!m)
		return -ENOMEM;
	m->db = db;
	m->o = *o;
	/* A live writer commits while a filter scans: a statement left on a
	 * row keeps this connection's read snapshot until the scan ends, as
	 * the one SQL scan this replaces did (a no-op inside a transaction). */
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM main.sample_blocks", -1, &m->pin, NULL) != SQLITE_OK)
		return set_err(m, -EIO, "reading sample_blocks: %s", sqlite3_errmsg(db));
	if ((r = sqlite3_step(m->pin)) != SQLITE_ROW && r != SQLITE_DONE)
		return set_err(m, -EIO, "reading sample_blocks: %s", sqlite3_errmsg(db));
	if ((r = load_list(m)) < 0)
		return r;
	if (sqlite3_prepare_v2(db, "SELECT rowid FROM main.sample_blocks WHERE first_id = ?1", -1, &m->data, NULL)
	    != SQLITE_OK)
		return set_err(m, -EIO, "reading sample_blocks: %s", sqlite3_errmsg(db));
	return 0;
}

const char *sample_merge_error(const struct sample_merge *m)
{
	return m->err[0] ? m->err : "out of memory";
}

static inline int64_t row_id(const struct mblock *b)
{
	return b->ids ? b->ids[b->row] : b->first_id + (int64_t)b->row;
}

static inline bool before(const struct mblock *a, const struct mblock *b)
{
	return a->key < b->key || (a->key == b->key && row_id(a) < row_id(b));
}

static void sift_down(struct sample_merge *m, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, s = i;
		if (l < m->nheap && before(m->heap[l], m->heap[s]))
			s = l;
		if (r < m->nheap && before(m->heap[r], m->heap[s]))
			s = r;
		if (s == i)
			return;
		struct mblock *t = m->heap[i];
		m->heap[i] = m->heap[s];
		m->heap[s] = t;
		i = s;
	}
}

static void sift_up(struct sample_merge *m, size_t i)
{
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!before(m->heap[i], m->heap[p]))
			return;
		struct mblock *t = m->heap[i];
		m->heap[i] = m->heap[p];
		m->heap[p] = t;
		i = p;
	}
}

static void set_key(struct mblock *b)
{
	const struct store_sample_rec *r = &b->b.rows[b->row];

	if (r->present & 1u)
		b->key = r->v[0];
	else if (b->ids)
		b->key = INT64_MIN;  /* a sorted block: NULL times first, as SQL */
}

static int64_t sort_key(const struct store_sample_rec *r)
{
	return r->present & 1u ? r->v[0] : INT64_MIN;
}

static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct store_sample_rec *rows = arg;
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	int64_t ka = sort_key(&rows[a]), kb = sort_key(&rows[b]);

	if (ka != kb)
		return ka < kb ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Puts a block whose times go back into (time, id) order; ids keeps
 * each row's id. */
static int sort_block(struct mblock *b)
{
	size_t n = b->b.n;

	if (n > b->ids_cap) {
		int64_t *ids = realloc(b->ids, n * sizeof(*ids));
		struct store_sample_rec *tmp = realloc(b->tmp, n * sizeof(*tmp));
		if (ids)
			b->ids = ids;
		if (tmp)
			b->tmp = tmp;
		if (!ids || !tmp)
			return -ENOMEM;
		b->ids_cap = b->tmp_cap = n;
	}
	for (size_t i = 0; i < n; i++)
		b->ids[i] = (int64_t)i;
	qsort_r(b->ids, n, sizeof(*b->ids), cmp_rows, b->b.rows);
	for (size_t i = 0; i < n; i++)
		b->tmp[i] = b->b.rows[b->ids[i]];
	memcpy(b->b.rows, b->tmp, n * sizeof(*b->tmp));
	for (size_t i = 0; i < n; i++)
		b->ids[i] += b->first_id;
	return 0;
}

/* Decodes the next listed block into a pooled mblock and pushes it. */
/* Block first_id's data into m->buf (*len bytes): 0, 1 when it is not a
 * block (no such row, or a NULL), <0 with m->err set. */
static int read_block(struct sample_merge *m, int64_t first_id, size_t *len)
{
	sqlite3_int64 rowid;
	int rc;

	sqlite3_reset(m->data);
	sqlite3_bind_int64(m->data, 1, first_id);
	rc = sqlite3_step(m->data);
	if (rc == SQLITE_DONE)
		return set_err(m, -EINVAL, "damaged sample block: indexed in sample_block_index but not in sample_blocks"
			       " (ids from %lld)", (long long)first_id);
	if (rc != SQLITE_ROW)
		return set_err(m, -EIO, "reading sample_blocks: %s", sqlite3_errmsg(m->db));
	rowid = sqlite3_column_int64(m->data, 0);
	sqlite3_reset(m->data);
	rc = m->blob ? sqlite3_blob_reopen(m->blob, rowid)
		     : sqlite3_blob_open(m->db, "main", "sample_blocks", "data", rowid, 0, &m->blob);
	if (rc != SQLITE_OK) {
		/* a failed reopen leaves the handle aborted; a NULL or a
		 * number is no value to open */
		if (m->blob)
			sqlite3_blob_close(m->blob);
		m->blob = NULL;
		return rc == SQLITE_ERROR ? 1 : set_err(m, -EIO, "reading sample_blocks: %s", sqlite3_errmsg(m->db));
	}
	*len = (size_t)sqlite3_blob_bytes(m->blob);
	if (*len > m->buf_cap) {
		unsigned char *p = realloc(m->buf, *len);
		if (!p)
			return -ENOMEM;
		m->buf = p;
		m->buf_cap = *len;
	}
	if (*len && sqlite3_blob_read(m->blob, m->buf, (int)*len, 0) != SQLITE_OK)
		return set_err(m, -EIO, "reading sample_blocks: %s", sqlite3_errmsg(m->db));
	return 0;
}

static int activate(struct sample_merge *m)
{
	const struct binfo *bi = &m->list[m->next++];
	struct mblock *b;
	const char *why = "not a block";
	int rc;

	if (m->o.cancel && m->o.cancel(m->o.cancel_arg))
		return set_err(m, -ECANCELED, "interrupted");
	if (m->npool) {
		b = m->pool[--m->npool];
	} else {
		if (m->nheap + m->npool == m->cap) {
			size_t nc = m->cap ? m->cap * 2 : 16;
			struct mblock **h = realloc(m->heap, nc * sizeof(*h)), **p;
			if (!h)
				return -ENOMEM;
			m->heap = h;
			if (!(p = realloc(m->pool, nc * sizeof(*p))))
				return -ENOMEM;
			m->pool = p;
			m->cap = nc;
		}
		if (!(b = calloc(1, sizeof(*b))))
			return -ENOMEM;
	}
	size_t len = 0;
	if ((rc = read_block(m, bi->first_id, &len)) != 0 ||
	    sample_block_decode(m->buf, len, m->o.cols, &b->b, &why) < 0) {
		m->pool[m->npool++] = b;
		if (rc < 0)
			return rc;
		return set_err(m, -EINVAL, "damaged sample block: %s (ids from %lld)", why, (long long)bi->first_id);
	}
	if (b->b.n == 0) {
		m->pool[m->npool++] = b;
		return 0;
	}
	b->first_id = bi->first_id;
	b->row = 0;
	b->key = bi->tmin;
	if (m->o.exact && !bi->sorted) {
		if (sort_block(b) < 0) {
			m->pool[m->npool++] = b;
			return -ENOMEM;
		}
	} else if (b->ids) {
		b->ids_cap = 0;
		free(b->ids);
		b->ids = NULL;
	}
	set_key(b);
	m->heap[m->nheap++] = b;
	sift_up(m, m->nheap - 1);
	return 0;
}

int sample_merge_next(struct sample_merge *m, const struct store_sample_rec **row, const unsigned char **raw,
		      int64_t *id)
{
	int r;

	if (m->cur) {
		struct mblock *b = m->cur;
		m->cur = NULL;
		if (++b->row < b->b.n) {
			set_key(b);
			sift_down(m, 0);
		} else {
			m->heap[0] = m->heap[--m->nheap];
			m->pool[m->npool++] = b;
			if (m->nheap)
				sift_down(m, 0);
		}
	}
	/* a block whose first row could come before the heap's top joins it */
	while (m->next < m->nlist) {
		const struct binfo *bi = &m->list[m->next];
		if (m->nheap) {
			const struct mblock *t = m->heap[0];
			if (bi->tmin > t->key || (bi->tmin == t->key && bi->first_id > row_id(t)))
				break;
		}
		if ((r = activate(m)) < 0)
			return r;
	}
	if (!m->nheap)
		return 0;
	m->cur = m->heap[0];
	*row = &m->cur->b.rows[m->cur->row];
	*raw = m->cur->b.raw;
	*id = row_id(m->cur);
	return 1;
}

void sample_merge_close(struct sample_merge *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nheap + m->npool; i++) {
		struct mblock *b = i < m->nheap ? m->heap[i] : m->pool[i - m->nheap];
		sample_block_free(&b->b);
		free(b->ids);
		free(b->tmp);
		free(b);
	}
	free(m->heap);
	free(m->pool);
	free(m->list);
	sqlite3_blob_close(m->blob);
	free(m->buf);
	sqlite3_finalize(m->data);
	sqlite3_finalize(m->pin);
	free(m);
}
