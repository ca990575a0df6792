/* The samples table's own thread for bulk loads (imports): the writer
 * hands over full batches of sample rows through a small bounded queue and
 * goes on decoding while this thread binds and inserts them. The
 * connection is opened without SQLite's mutexes, so the two threads never
 * use it at the same time: every other statement of the writer's thread
 * runs only after store_sample_sync has waited for the queue to drain
 * (writable() in store/meta.c, store_commit, the interning of new sites,
 * data symbols and call chains). Rows reach the table in the order they were
 * queued, i.e. in recording order. */
#include "store/store_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SW_QUEUE 4                   /* blocks waiting at most */
#define SW_BATCHES 64                /* batches per block: one hand-over per 1024 rows */

struct sw_batch {
	struct sample_row rows[SW_BATCHES][SAMPLE_BATCH];
	size_t nb;
	unsigned char *raw;          /* the rows' raw payloads */
	size_t raw_len, raw_cap;
};

struct sample_worker {
	struct store *st;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv_work, cv_done;
	struct sw_batch *queue[SW_QUEUE];
	size_t head, count;
	struct sw_batch *spare[SW_QUEUE + 2];  /* queued + busy + the one being filled */
	size_t nspare;
	struct sw_batch *cur;        /* being filled by the writer's thread */
	bool busy, stop;
	int error;                   /* sticky: first failed insert */
	struct c2c_error err;
};

static void *worker_main(void *arg)
{
	struct sample_worker *w = arg;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->count && !w->stop)
			pthread_cond_wait(&w->cv_work, &w->mu);
		if (!w->count)
			break;
		struct sw_batch *b = w->queue[w->head];
		bool failed = w->error != 0;

		w->head = (w->head + 1) % SW_QUEUE;
		w->count--;
		w->busy = true;
		pthread_mutex_unlock(&w->mu);
		struct c2c_error e = { 0 };
		int r = 0;

		/* after a failure the rest are dropped: the commit fails and the
		 * transaction is rolled back */
		for (size_t k = 0; !failed && k < b->nb && r == 0; k++)
			r = store_insert_sample_batch(w->st, b->rows[k], b->raw, &e);
		b->nb = 0;
		b->raw_len = 0;
		pthread_mutex_lock(&w->mu);
		if (r < 0 && !w->error) {
			w->error = r;
			w->err = e;
		}
		w->spare[w->nspare++] = b;
		w->busy = false;
		pthread_cond_broadcast(&w->cv_done);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

int sample_worker_start(struct sample_worker **out, struct store *st)
{
	struct sample_worker *w = calloc(1, sizeof(*w));

	*out = NULL;
	if (!w)
		return -ENOMEM;
	w->st = st;
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

/* Hands the block being filled to the thread; waits while the queue is full. */
static void enqueue_cur(struct sample_worker *w)
{
	pthread_mutex_lock(&w->mu);
	while (w->count == SW_QUEUE)
		pthread_cond_wait(&w->cv_done, &w->mu);
	w->queue[(w->head + w->count) % SW_QUEUE] = w->cur;
	w->count++;
	w->cur = NULL;
	pthread_cond_signal(&w->cv_work);
	pthread_mutex_unlock(&w->mu);
}

int sample_worker_queue(struct sample_worker *w, const struct sample_row *rows, const unsigned char *raw,
			size_t raw_len)
{
	struct sw_batch *b;

	if (!w->cur) {
		pthread_mutex_lock(&w->mu);
		if (w->nspare)
			w->cur = w->spare[--w->nspare];
		pthread_mutex_unlock(&w->mu);
		if (!w->cur && !(w->cur = calloc(1, sizeof(*w->cur))))
			return -ENOMEM;
	}
	b = w->cur;
	if (raw_len && store_grow((void **)&b->raw, &b->raw_cap, b->raw_len + raw_len, 1) < 0)
		return -ENOMEM;
	memcpy(b->rows[b->nb], rows, sizeof(b->rows[b->nb]));
	if (raw_len) {
		/* the payload offsets become offsets in the block's buffer */
		for (unsigned i = 0; i < SAMPLE_BATCH; i++)
			b->rows[b->nb][i].raw_off += b->raw_len;
		memcpy(b->raw + b->raw_len, raw, raw_len);
		b->raw_len += raw_len;
	}
	if (++b->nb == SW_BATCHES)
		enqueue_cur(w);
	return 0;
}

int sample_worker_sync(struct sample_worker *w, struct c2c_error *err)
{
	int r;

	if (!w)
		return 0;
	if (w->cur && w->cur->nb)
		enqueue_cur(w);
	pthread_mutex_lock(&w->mu);
	while (w->count || w->busy)
		pthread_cond_wait(&w->cv_done, &w->mu);
	r = w->error;
	if (r < 0 && err)
		*err = w->err;
	/* reported once; the transaction it belonged to is rolled back */
	w->error = 0;
	pthread_mutex_unlock(&w->mu);
	return r;
}

void sample_worker_stop(struct sample_worker *w)
{
	if (!w)
		return;
	sample_worker_sync(w, NULL);
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	pthread_cond_signal(&w->cv_work);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	for (size_t i = 0; i < w->nspare; i++) {
		free(w->spare[i]->raw);
		free(w->spare[i]);
	}
	if (w->cur) {
		free(w->cur->raw);
		free(w->cur);
	}
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv_work);
	pthread_cond_destroy(&w->cv_done);
	free(w);
}

int store_sample_sync(struct store *st, struct c2c_error *err)
{
	return sample_worker_sync(st->samplew, err);
}
