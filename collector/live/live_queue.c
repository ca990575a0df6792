/* The bounded queue between the ring-buffer reader and the store writer.
 * The reader never waits: when the writer falls behind and the queue is
 * full, the record is dropped and counted by the caller. Entries are a u32
 * length followed by the bytes, 8-byte aligned; a length of UINT32_MAX
 * means "wrapped, continue at offset 0". */
#include "collector/live/live_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ALIGN8(x) (((x) + 7) & ~(size_t)7)
#define WRAP UINT32_MAX

int live_queue_init(struct live_queue *q, size_t cap)
{
	memset(q, 0, sizeof(*q));
	q->cap = ALIGN8(cap < 131072 ? 131072 : cap);
	q->buf = malloc(q->cap);
	if (!q->buf)
		return -ENOMEM;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	return 0;
}

void live_queue_fini(struct live_queue *q)
{
	if (!q->buf)
		return;
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
	free(q->buf);
	q->buf = NULL;
}

bool live_queue_push(struct live_queue *q, const void *rec, size_t len)
{
	size_t need = ALIGN8(4 + len), pad = 0;
	uint32_t l32 = (uint32_t)len;
	bool ok = false;

	pthread_mutex_lock(&q->mu);
	if (q->head + need > q->cap)
		pad = q->cap - q->head;      /* the entry must be contiguous */
	if (!q->closed && q->used + pad + need <= q->cap) {
		if (pad) {
			if (pad >= 4) {
				uint32_t w = WRAP;
				memcpy(q->buf + q->head, &w, 4);
			}
			q->head = 0;
			q->used += pad;
		}
		memcpy(q->buf + q->head, &l32, 4);
		memcpy(q->buf + q->head + 4, rec, len);
		q->head = (q->head + need) % q->cap;
		q->used += need;
		ok = true;
		pthread_cond_signal(&q->cv);
	}
	pthread_mutex_unlock(&q->mu);
	return ok;
}

long live_queue_pop(struct live_queue *q, void *out, size_t outcap, int timeout_ms)
{
	struct timespec dl;
	long ret = 0;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += timeout_ms / 1000;
	dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&q->mu);
	while (q->used == 0 && !q->closed) {
		if (pthread_cond_timedwait(&q->cv, &q->mu, &dl) == ETIMEDOUT)
			break;
	}
	if (q->used == 0) {
		ret = q->closed ? -1 : 0;
	} else {
		uint32_t len;
		size_t rest = q->cap - q->tail;

		if (rest < 4 || (memcpy(&len, q->buf + q->tail, 4), len == WRAP)) {
			q->used -= rest;
			q->tail = 0;
			memcpy(&len, q->buf, 4);
		}
		if (len <= outcap)
			memcpy(out, q->buf + q->tail + 4, len);
		q->tail = (q->tail + ALIGN8(4 + (size_t)len)) % q->cap;
		q->used -= ALIGN8(4 + (size_t)len);
		if (q->used == 0)
			q->head = q->tail = 0;
		ret = len <= outcap ? (long)len : 0;
	}
	pthread_mutex_unlock(&q->mu);
	return ret;
}

void live_queue_close(struct live_queue *q)
{
	pthread_mutex_lock(&q->mu);
	q->closed = true;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

size_t live_queue_used(struct live_queue *q)
{
	size_t u;

	pthread_mutex_lock(&q->mu);
	u = q->used;
	pthread_mutex_unlock(&q->mu);
	return u;
}
