/* The aggregator's own thread for bulk loads (imports): the writer hands
 * samples and lock waits over in blocks through a small bounded queue and
 * goes on decoding and writing rows while this thread updates the in-memory
 * aggregates. The aggregates are only read at a commit, which first waits
 * for the queue to drain (agg_worker_drain), so every commit writes exactly
 * what the synchronous path would. No SQLite here: the connection stays
 * with the writer's thread. */
#include "store/store_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define AGG_BLOCK 4096               /* items per block */
#define AGG_QUEUE 4                  /* blocks waiting at most (bounded memory) */

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
	struct agg *agg;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv_work;      /* a block queued, or stop */
	pthread_cond_t cv_done;      /* a block processed */
	struct agg_block *queue[AGG_QUEUE];
	size_t head, count;          /* ring of queued blocks */
	struct agg_block *spare[AGG_QUEUE + 2];  /* queued + busy + the one filled */
	size_t nspare;
	struct agg_block *cur;       /* being filled by the writer */
	bool busy;                   /* the thread is processing a block */
	bool stop;
	int error;                   /* sticky: first failure of agg_add_* */
	int seen_error;              /* the writer's copy, taken at each hand-over */
};

static void *worker_main(void *arg)
{
	struct agg_worker *w = arg;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->count && !w->stop)
			pthread_cond_wait(&w->cv_work, &w->mu);
		if (!w->count)
			break;
		struct agg_block *b = w->queue[w->head];

		w->head = (w->head + 1) % AGG_QUEUE;
		w->count--;
		w->busy = true;
		pthread_mutex_unlock(&w->mu);
		int r = 0;

		for (size_t i = 0; i < b->n && r == 0; i++)
			r = b->items[i].lock ? agg_add_lock(w->agg, &b->items[i].u.l)
					     : agg_add_sample(w->agg, &b->items[i].u.s);
		b->n = 0;
		pthread_mutex_lock(&w->mu);
		if (r < 0 && !w->error)
			w->error = r;
		w->spare[w->nspare++] = b;
		w->busy = false;
		pthread_cond_broadcast(&w->cv_done);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

int agg_worker_start(struct agg_worker **out, struct agg *a)
{
	struct agg_worker *w = calloc(1, sizeof(*w));

	*out = NULL;
	if (!w)
		return -ENOMEM;
	w->agg = a;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv_work, NULL);
	pthread_cond_init(&w->cv_done, NULL);
	if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
		pthread_mutex_destroy(&w->mu);
		pthread_cond_destroy(&w->cv_work);
		pthread_cond_destroy(&w->cv_done);
		free(w);
		return -EAGAIN;
	}
	*out = w;
	return 0;
}

/* Queues the block being filled; waits while the queue is full. */
static void enqueue_cur(struct agg_worker *w)
{
	pthread_mutex_lock(&w->mu);
	while (w->count == AGG_QUEUE)
		pthread_cond_wait(&w->cv_done, &w->mu);
	w->queue[(w->head + w->count) % AGG_QUEUE] = w->cur;
	w->count++;
	w->cur = NULL;
	w->seen_error = w->error;
	pthread_cond_signal(&w->cv_work);
	pthread_mutex_unlock(&w->mu);
}

static struct agg_item *next_item(struct agg_worker *w)
{
	if (!w->cur) {
		pthread_mutex_lock(&w->mu);
		if (w->nspare)
			w->cur = w->spare[--w->nspare];
		pthread_mutex_unlock(&w->mu);
		if (!w->cur) {
			w->cur = malloc(sizeof(*w->cur));
			if (!w->cur)
				return NULL;
		}
		w->cur->n = 0;
	}
	return &w->cur->items[w->cur->n++];
}

/* A failure shows up at the next hand-over (a lock per block, not per
 * item); the drain before every commit reports it in any case. */
static int item_done(struct agg_worker *w)
{
	if (w->cur->n == AGG_BLOCK)
		enqueue_cur(w);
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
	int e;

	if (!w)
		return 0;
	if (w->cur && w->cur->n)
		enqueue_cur(w);
	pthread_mutex_lock(&w->mu);
	while (w->count || w->busy)
		pthread_cond_wait(&w->cv_done, &w->mu);
	e = w->error;
	pthread_mutex_unlock(&w->mu);
	return e;
}

void agg_worker_stop(struct agg_worker *w)
{
	if (!w)
		return;
	agg_worker_drain(w);
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	pthread_cond_signal(&w->cv_work);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	for (size_t i = 0; i < w->nspare; i++)
		free(w->spare[i]);
	free(w->cur);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv_work);
	pthread_cond_destroy(&w->cv_done);
	free(w);
}
