/* Time ordering of the record stream, with the same rules as perf's
 * util/ordered-events.c so that side-band (MMAP, COMM) and samples
 * interleave exactly as perf report / perf c2c see them:
 *  - a record with a timestamp (not 0, not ~0) is queued;
 *  - on FINISHED_ROUND, if anything is queued, records with timestamp <=
 *    next_flush are delivered, then next_flush = the largest timestamp
 *    queued (next_flush starts at 0, which flushes nothing);
 *  - at the end everything is delivered;
 *  - ties keep arrival order (perf's list insertion is stable).
 * The queue holds one or two rounds of records, not the file. Each round's
 * records are sorted with a natural merge sort: they arrive as a few sorted
 * runs (one per CPU ring buffer), which it merges in O(n log runs). */
#include "collector/perfdata/perfdata_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int vec_reserve(struct pd_vec *v, size_t n)
{
	if (n <= v->cap)
		return 0;
	size_t cap = v->cap ? v->cap : 1024;
	while (cap < n)
		cap *= 2;
	struct pd_ent *nv = realloc(v->v, cap * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	v->v = nv;
	v->cap = cap;
	return 0;
}

static int vec_push(struct pd_vec *v, const struct pd_ent *e)
{
	if (v->n == v->cap && vec_reserve(v, v->n + 1) < 0)
		return -ENOMEM;
	v->v[v->n++] = *e;
	return 0;
}

static int flush_half(struct perfdata *pd, uint64_t last_ts);

static inline bool ent_before(const struct pd_ent *a, const struct pd_ent *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->seq < b->seq);
}

static void merge(const struct pd_ent *a, size_t na, const struct pd_ent *b, size_t nb,
		  struct pd_ent *out)
{
	size_t i = 0, j = 0, k = 0;

	while (i < na && j < nb)
		out[k++] = ent_before(&b[j], &a[i]) ? b[j++] : a[i++];
	if (i < na)
		memcpy(out + k, a + i, (na - i) * sizeof(*out));
	else if (j < nb)
		memcpy(out + k, b + j, (nb - j) * sizeof(*out));
}

/* Sorts v->v[0..n) by (ts, seq); tmp is scratch of the same size. */
static int sort_ents(struct pd_vec *v, struct pd_vec *tmp)
{
	size_t n = v->n, *runs, nruns = 0;
	struct pd_ent *src = v->v, *dst;

	if (n < 2)
		return 0;
	if (vec_reserve(tmp, n) < 0)
		return -ENOMEM;
	runs = malloc((n + 1) * sizeof(*runs));
	if (!runs)
		return -ENOMEM;
	runs[nruns++] = 0;
	for (size_t i = 1; i < n; i++)
		if (ent_before(&src[i], &src[i - 1]))
			runs[nruns++] = i;
	runs[nruns] = n;
	dst = tmp->v;
	while (nruns > 1) {
		size_t w = 0;
		for (size_t r = 0; r < nruns; r += 2) {
			size_t lo = runs[r];
			if (r + 1 == nruns) {
				memcpy(dst + lo, src + lo, (n - lo) * sizeof(*dst));
			} else {
				/* runs[nruns] == n, so runs[r + 2] is always valid */
				size_t mid = runs[r + 1], hi = runs[r + 2];
				merge(src + lo, mid - lo, src + mid, hi - mid, dst + lo);
			}
			runs[w++] = lo;
		}
		nruns = w;
		runs[nruns] = n;
		struct pd_ent *t = src;
		src = dst;
		dst = t;
	}
	free(runs);
	if (src != v->v) {
		/* The sorted data ended in tmp: swap the buffers. */
		struct pd_ent *t = v->v;
		size_t cap = v->cap;
		v->v = tmp->v;
		v->cap = tmp->cap;
		tmp->v = t;
		tmp->cap = cap;
	}
	return 0;
}

int pd_fifo_push(struct perfdata *pd, const struct pd_ent *e)
{
	return vec_push(&pd->fifo, e);
}

bool pd_fifo_pop(struct perfdata *pd, struct pd_ent *out)
{
	struct pd_vec *f = &pd->fifo;

	if (f->head == f->n)
		return false;
	*out = f->v[f->head++];
	if (f->head == f->n)
		f->head = f->n = 0;
	return true;
}

int pd_order_add(struct perfdata *pd, const struct pd_ent *e, bool has_ts)
{
	size_t queued = pd->queue.n + pd->incoming.n;

	if (!pd->ordered || !has_ts || e->ts == 0 || e->ts == ~0ull)
		return pd_fifo_push(pd, e);
	if (queued == 0 || e->ts >= pd->max_ts)
		pd->max_ts = e->ts;
	if (e->ts < pd->last_flush)
		pd->stats.unordered_records++;
	if (vec_push(&pd->incoming, e) < 0)
		return -ENOMEM;
	if (queued + 1 > pd->stats.max_queued)
		pd->stats.max_queued = queued + 1;
	if (queued + 1 >= pd->queue_limit)
		return flush_half(pd, e->ts);
	return 0;
}

/* Moves queued records with ts <= limit to the FIFO, in order. */
static int flush_upto(struct perfdata *pd, uint64_t limit)
{
	struct pd_vec *q = &pd->queue, *in = &pd->incoming;
	size_t k;

	if (sort_ents(in, &pd->tmp) < 0)
		return -ENOMEM;
	/* Records left from earlier rounds arrived first: merge keeps them
	 * ahead of new ones with the same timestamp. */
	if (q->n && in->n) {
		if (vec_reserve(&pd->tmp, q->n + in->n) < 0)
			return -ENOMEM;
		merge(q->v, q->n, in->v, in->n, pd->tmp.v);
		struct pd_ent *t = q->v;
		size_t cap = q->cap;
		q->v = pd->tmp.v;
		q->cap = pd->tmp.cap;
		q->n += in->n;
		pd->tmp.v = t;
		pd->tmp.cap = cap;
	} else if (in->n) {
		struct pd_vec t = *q;
		*q = *in;
		*in = t;
	}
	in->n = 0;

	if (!limit)
		return 0;   /* as perf: next_flush 0 flushes nothing */
	for (k = 0; k < q->n && q->v[k].ts <= limit; k++)
		;
	if (k) {
		if (vec_reserve(&pd->fifo, pd->fifo.n + k) < 0)
			return -ENOMEM;
		memcpy(pd->fifo.v + pd->fifo.n, q->v, k * sizeof(*q->v));
		pd->fifo.n += k;
		pd->last_flush = q->v[k - 1].ts;
		memmove(q->v, q->v + k, (q->n - k) * sizeof(*q->v));
		q->n -= k;
	}
	return 0;
}

/* A file without FINISHED_ROUND (or with huge rounds) would queue without
 * bound; past queue_limit records, do what perf does when its queue
 * allocation limit is hit: flush the older half of the time span, from the
 * first queued record to the one just queued, and keep that as next_flush. */
static int flush_half(struct perfdata *pd, uint64_t last_ts)
{
	uint64_t first, limit;
	int rc;

	if (sort_ents(&pd->incoming, &pd->tmp) < 0)
		return -ENOMEM;
	first = pd->incoming.v[0].ts;
	if (pd->queue.n && pd->queue.v[0].ts < first)
		first = pd->queue.v[0].ts;
	limit = first + (last_ts > first ? (last_ts - first) / 2 : 0);
	rc = flush_upto(pd, limit);
	if (rc == 0)
		pd->next_flush = limit;
	pd->stats.half_flushes++;
	return rc;
}

int pd_order_round(struct perfdata *pd)
{
	int rc;

	if (pd->queue.n + pd->incoming.n == 0)
		return 0;
	rc = flush_upto(pd, pd->next_flush);
	if (rc == 0)
		pd->next_flush = pd->max_ts;
	return rc;
}

int pd_order_final(struct perfdata *pd)
{
	if (pd->queue.n + pd->incoming.n == 0)
		return 0;
	return flush_upto(pd, ~0ull);
}

void pd_order_fini(struct perfdata *pd)
{
	struct pd_vec *vs[] = { &pd->queue, &pd->incoming, &pd->fifo, &pd->tmp };

	for (size_t i = 0; i < sizeof(vs) / sizeof(vs[0]); i++) {
		struct pd_vec *v = vs[i];
		if (v != &pd->tmp)
			for (size_t k = v->head; k < v->n; k++)
				pd_ent_release(pd, &v->v[k]);
		free(v->v);
		memset(v, 0, sizeof(*v));
	}
}
