/* A bounded queue of blocks handed from one thread to one worker thread
 * (store/base/block_queue.c): the writer's sample thread (store/writer)
 * and the aggregator's thread (store/agg) both use it. */
#ifndef C2C_STORE_BLOCK_QUEUE_H
#define C2C_STORE_BLOCK_QUEUE_H

#include <stdbool.h>

#include "collector/base/error.h"

struct block_queue;
struct bq_ops {
	/* The worker thread: processes a block and leaves it empty for reuse;
	 * failed: an earlier block failed. 0, or <0 with *err filled. */
	int (*process)(void *ctx, void *block, bool failed, struct c2c_error *err);
	void *(*alloc)(void);            /* a new empty block, NULL when out of memory */
	void (*free)(void *block);
	bool (*empty)(const void *block);
};
/* Starts the worker; 0 or a negative errno. */
int bq_start(struct block_queue **q, const struct bq_ops *ops, void *ctx);
/* The block the writer fills (a spare or a new one); NULL when out of memory. */
void *bq_current(struct block_queue *q);
/* Hands the current block to the worker, waiting while the queue is full;
 * returns the failure the worker has kept so far (0 none). */
int bq_submit(struct block_queue *q);
/* Hands over a partly filled block and waits until the worker is idle;
 * returns the kept failure (its message in *err when err), forgetting it
 * when clear. q may be NULL. */
int bq_drain(struct block_queue *q, bool clear, struct c2c_error *err);
/* Drains, stops and frees (q may be NULL). */
void bq_stop(struct block_queue *q);

#endif /* C2C_STORE_BLOCK_QUEUE_H */
