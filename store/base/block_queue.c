/* A bounded queue of blocks from the writer's thread to one worker thread,
 * the hand-over both bulk-load workers use (store/agg/agg_thread.c,
 * store/writer/sample_thread.c): the writer fills a block, hands it over (waiting
 * while BQ_DEPTH blocks are queued, which bounds the memory), and the
 * worker processes blocks in order and returns them for reuse. The first
 * failure is kept with its message until the writer collects it. */
#include "store/base/block_queue.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#define BQ_DEPTH 4                   /* blocks waiting at most */

struct block_queue {
	const struct bq_ops *ops;
	void *ctx;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv_work;      /* a block queued, or stop */
	pthread_cond_t cv_done;      /* a block processed */
	void *queue[BQ_DEPTH];
	size_t head, count;          /* ring of queued blocks */
	void *spare[BQ_DEPTH + 2];   /* queued + busy + the one being filled */
	size_t nspare;
	void *cur;                   /* being filled by the writer */
	bool busy, stop;
	int error;                   /* first failure not yet collected */
	struct c2c_error err;
};

static void *worker_main(void *arg)
{
	struct block_queue *q = arg;

	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (!q->count && !q->stop)
			pthread_cond_wait(&q->cv_work, &q->mu);
		if (!q->count)
			break;
		void *b = q->queue[q->head];
		bool failed = q->error != 0;

		q->head = (q->head + 1) % BQ_DEPTH;
		q->count--;
		q->busy = true;
		pthread_mutex_unlock(&q->mu);
		struct c2c_error e = { 0 };
		int r = q->ops->process(q->ctx, b, failed, &e);
		pthread_mutex_lock(&q->mu);
		if (r < 0 && !q->error) {
			q->error = r;
			q->err = e;
		}
		q->spare[q->nspare++] = b;
		q->busy = false;
		pthread_cond_broadcast(&q->cv_done);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

int bq_start(struct block_queue **out, const struct bq_ops *ops, void *ctx)
{
	struct block_queue *q = calloc(1, sizeof(*q));

	*out = NULL;
	if (!q)
		return -ENOMEM;
	q->ops = ops;
	q->ctx = ctx;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv_work, NULL);
	pthread_cond_init(&q->cv_done, NULL);
	if (pthread_create(&q->thread, NULL, worker_main, q) != 0) {
		pthread_mutex_destroy(&q->mu);
		pthread_cond_destroy(&q->cv_work);
		pthread_cond_destroy(&q->cv_done);
		free(q);
		return -EAGAIN;
	}
	*out = q;
	return 0;
}

void *bq_current(struct block_queue *q)
{
	if (!q->cur) {
		pthread_mutex_lock(&q->mu);
		if (q->nspare)
			q->cur = q->spare[--q->nspare];
		pthread_mutex_unlock(&q->mu);
		if (!q->cur)
			q->cur = q->ops->alloc();
	}
	return q->cur;
}

int bq_submit(struct block_queue *q)
{
	int e;

	pthread_mutex_lock(&q->mu);
	while (q->count == BQ_DEPTH)
		pthread_cond_wait(&q->cv_done, &q->mu);
	q->queue[(q->head + q->count) % BQ_DEPTH] = q->cur;
	q->count++;
	q->cur = NULL;
	e = q->error;
	pthread_cond_signal(&q->cv_work);
	pthread_mutex_unlock(&q->mu);
	return e;
}

int bq_drain(struct block_queue *q, bool clear, struct c2c_error *err)
{
	int r;

	if (!q)
		return 0;
	if (q->cur && !q->ops->empty(q->cur))
		bq_submit(q);
	pthread_mutex_lock(&q->mu);
	while (q->count || q->busy)
		pthread_cond_wait(&q->cv_done, &q->mu);
	r = q->error;
	if (r < 0 && err)
		*err = q->err;
	if (clear)
		q->error = 0;
	pthread_mutex_unlock(&q->mu);
	return r;
}

void bq_stop(struct block_queue *q)
{
	if (!q)
		return;
	bq_drain(q, false, NULL);
	pthread_mutex_lock(&q->mu);
	q->stop = true;
	pthread_cond_signal(&q->cv_work);
	pthread_mutex_unlock(&q->mu);
	pthread_join(q->thread, NULL);
	for (size_t i = 0; i < q->nspare; i++)
		q->ops->free(q->spare[i]);
	if (q->cur)
		q->ops->free(q->cur);
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv_work);
	pthread_cond_destroy(&q->cv_done);
	free(q);
}
