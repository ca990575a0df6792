/* The samples table's own thread for bulk loads (imports): the writer
 * hands over full batches of sample rows in blocks (store/base/block_queue.c)
 * and goes on decoding while this thread binds and inserts them. The
 * connection is opened without SQLite's mutexes, so the two threads never
 * use it at the same time: every other statement of the writer's thread
 * runs only after store_sample_sync has waited for the queue to drain
 * (store_begin_write and store_commit in store/writer/txn.c, new rows
 * written outside a transaction). Rows reach the table in the order they were queued, i.e.
 * in recording order. */
#include "store/writer/writer_priv.h"
#include "store/base/block_queue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SW_BATCHES 64                /* batches per block: one hand-over per 1024 rows */

struct sw_batch {
	struct store_sample_rec rows[SW_BATCHES][SAMPLE_BATCH];
	size_t nb;
	unsigned char *raw;          /* the rows' raw payloads */
	size_t raw_len, raw_cap;
};

struct sample_worker {
	struct block_queue *q;
};

static int process(void *ctx, void *block, bool failed, struct c2c_error *err)
{
	struct sw_batch *b = block;
	int r = 0;

	/* after a failure the rest are dropped: the commit fails and the
	 * transaction is rolled back */
	for (size_t k = 0; !failed && k < b->nb && r == 0; k++)
		r = store_insert_sample_batch(ctx, b->rows[k], b->raw, err);
	b->nb = 0;
	b->raw_len = 0;
	return r;
}

static void *alloc_batch(void)
{
	return calloc(1, sizeof(struct sw_batch));
}

static void free_batch(void *block)
{
	struct sw_batch *b = block;

	free(b->raw);
	free(b);
}

static bool batch_empty(const void *block)
{
	return ((const struct sw_batch *)block)->nb == 0;
}

static const struct bq_ops ops = { .process = process, .alloc = alloc_batch, .free = free_batch, .empty = batch_empty };

int sample_worker_start(struct sample_worker **out, struct store *st)
{
	struct sample_worker *w = calloc(1, sizeof(*w));
	int r;

	*out = NULL;
	if (!w)
		return -ENOMEM;
	if ((r = bq_start(&w->q, &ops, st)) < 0) {
		free(w);
		return r;
	}
	*out = w;
	return 0;
}

int sample_worker_queue(struct sample_worker *w, const struct store_sample_rec *rows, const unsigned char *raw,
			size_t raw_len)
{
	struct sw_batch *b = bq_current(w->q);

	if (!b)
		return -ENOMEM;
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
		bq_submit(w->q);  /* a failure is collected by the sync */
	return 0;
}

int sample_worker_sync(struct sample_worker *w, struct c2c_error *err)
{
	/* reported once; the transaction it belonged to is rolled back */
	return w ? bq_drain(w->q, true, err) : 0;
}

void sample_worker_stop(struct sample_worker *w)
{
	if (!w)
		return;
	bq_stop(w->q);
	free(w);
}

int store_sample_sync(struct store *st, struct c2c_error *err)
{
	return sample_worker_sync(st->writer->samplew, err);
}
