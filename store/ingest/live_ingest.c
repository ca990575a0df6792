/* The live sink over ingest (store/ingest/live_ingest.h). Runs in the
 * collector's writer thread. */
#include "store/ingest/live_ingest.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "store/ingest/ingest.h"
#include "store/store.h"

struct live_ingest {
	struct store *st;
	struct ingest *in;
	struct live_sink sink;
	atomic_uint_fast64_t commits;
	struct c2c_error err;                /* writer-thread failures */
};

static int on_sample(void *ctx, const struct live_event *ev, const struct c2c_sample *s)
{
	struct live_ingest *li = ctx;

	(void)ev;   /* s->event is the event's index */
	return ingest_sample(li->in, s, &li->err);
}

static int on_mmap(void *ctx, const struct c2c_mmap *m, uint64_t time)
{
	struct live_ingest *li = ctx;

	return ingest_mmap(li->in, m, time, &li->err);
}

static int on_comm(void *ctx, const struct c2c_comm *c)
{
	struct live_ingest *li = ctx;

	return ingest_comm(li->in, c, &li->err);
}

static int on_task(void *ctx, const struct c2c_task *t, bool is_exit)
{
	struct live_ingest *li = ctx;

	return ingest_task(li->in, t, is_exit, &li->err);
}

int live_ingest_write_counters(struct live_ingest *li, const struct live_counts *c, struct c2c_error *err)
{
	struct { enum store_counter k; uint64_t v; } set[] = {
		{ STORE_CNT_LOST, c->lost_records },
		{ STORE_CNT_LOST_SAMPLES, c->lost_samples },
		{ STORE_CNT_THROTTLE, c->throttle },
		{ STORE_CNT_UNTHROTTLE, c->unthrottle },
		{ STORE_CNT_QUEUE_DROPS, c->queue_drops },
		{ STORE_CNT_SIDEBAND, c->sideband },
		{ STORE_CNT_UNKNOWN_RECORDS, c->unknown_ids + c->decode_errors },
	};
	for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++) {
		int rc = store_set_counter(li->st, set[i].k, set[i].v, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int on_flush(void *ctx, const struct live_counts *c, bool final)
{
	struct live_ingest *li = ctx;
	int rc;

	(void)final;
	rc = live_ingest_write_counters(li, c, &li->err);
	if (rc == 0)
		rc = store_commit(li->st, &li->err);
	if (rc == 0)
		atomic_fetch_add(&li->commits, 1);
	return rc;
}

int live_ingest_new(struct live_ingest **out, struct store *st, const struct symtab_options *so,
		    struct c2c_error *err)
{
	struct live_ingest *li = calloc(1, sizeof(*li));
	int rc;

	*out = NULL;
	if (!li)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	li->st = st;
	if ((rc = ingest_new(&li->in, st, so, err)) < 0) {
		free(li);
		return rc;
	}
	li->sink = (struct live_sink){ li, on_sample, on_mmap, on_comm, on_task, on_flush };
	*out = li;
	return 0;
}

void live_ingest_free(struct live_ingest *li)
{
	if (!li)
		return;
	ingest_free(li->in);
	free(li);
}

const struct live_sink *live_ingest_sink(struct live_ingest *li)
{
	return &li->sink;
}

struct ingest *live_ingest_rules(struct live_ingest *li)
{
	return li->in;
}

uint64_t live_ingest_commits(struct live_ingest *li)
{
	return atomic_load(&li->commits);
}

const struct c2c_error *live_ingest_error(struct live_ingest *li)
{
	return &li->err;
}
