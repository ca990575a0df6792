/* The aggregator's own thread for bulk loads (imports): the writer hands
 * samples and lock waits over in blocks (store/base/block_queue.c) and goes on
 * decoding and writing rows while this thread updates the in-memory
 * aggregates. The aggregates are only read at a commit, which first waits
 * for the queue to drain (agg_worker_drain), so every commit writes exactly
 * what the synchronous path would. No SQLite here: the connection stays
 * with the writer's thread. */
#include "store/agg/agg.h"
#include "store/base/block_queue.h"

#include <errno.h>
#include <stdlib.h>

#define AGG_BLOCK 4096               /* items per block */

struct agg_item {
	bool lock;
	union {
		struct agg_sample s;
		struct agg_lock_sample l;
	} u;
};

struct agg_block {
	struct agg_item items[AGG_BLOCK];
	size_t n;
};

struct agg_worker {
	struct block_queue *q;
	int seen_error;              /* the writer's copy, taken at each hand-over */
};

static int process(void *ctx, void *block, bool failed, struct c2c_error *err)
{
	struct agg *a = ctx;
	struct agg_block *b = block;
	int r = 0;

	(void)failed;  /* later blocks are still counted; the error stays */
	for (size_t i = 0; i < b->n && r == 0; i++)
		r = b->items[i].lock ? agg_add_lock(a, &b->items[i].u.l) : agg_add_sample(a, &b->items[i].u.s);
	b->n = 0;
	if (r < 0)
		c2c_error_set(err, r, "out of memory while aggregating samples");
	return r;
}

static void *alloc_block(void)
{
	struct agg_block *b = malloc(sizeof(*b));
	if (b)
		b->n = 0;
	return b;
}

static bool block_empty(const void *block)
{
	return ((const struct agg_block *)block)->n == 0;
}

static const struct bq_ops ops = { .process = process, .alloc = alloc_block, .free = free, .empty = block_empty };

int agg_worker_start(struct agg_worker **out, struct agg *a)
{
	struct agg_worker *w = calloc(1, sizeof(*w));
	int r;

	*out = NULL;
	if (!w)
		return -ENOMEM;
	if ((r = bq_start(&w->q, &ops, a)) < 0) {
		free(w);
		return r;
	}
	*out = w;
	return 0;
}

static struct agg_item *next_item(struct agg_worker *w)
{
	struct agg_block *b = bq_current(w->q);
	return b ? &b->items[b->n++] : NULL;
}

/* A failure shows up at the next hand-over (a lock per block, not per
 * item); the drain before every commit reports it in any case. */
static int item_done(struct agg_worker *w)
{
	if (((struct agg_block *)bq_current(w->q))->n == AGG_BLOCK)
		w->seen_error = bq_submit(w->q);
	return w->seen_error;
}

int agg_worker_add_sample(struct agg_worker *w, const struct agg_sample *s)
{
	struct agg_item *it = next_item(w);

	if (!it)
		return -ENOMEM;
	it->lock = false;
	it->u.s = *s;
	return item_done(w);
}

int agg_worker_add_lock(struct agg_worker *w, const struct agg_lock_sample *l)
{
	struct agg_item *it = next_item(w);

	if (!it)
		return -ENOMEM;
	it->lock = true;
	it->u.l = *l;
	return item_done(w);
}

int agg_worker_drain(struct agg_worker *w)
{
	return w ? bq_drain(w->q, false, NULL) : 0;
}

void agg_worker_stop(struct agg_worker *w)
{
	if (!w)
		return;
	bq_stop(w->q);
	free(w);
}
