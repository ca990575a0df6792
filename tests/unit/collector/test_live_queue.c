/* The bounded reader->writer queue of the live collector: order kept,
 * wrap-around at the end of the buffer, full means refused (the reader
 * counts a drop and never waits), close drains then ends; and, on a real
 * collection with a writer that falls behind, drops are counted. */
#include "tests/unit/test.h"
#include "collector/live/live_priv.h"

#include <errno.h>
#include <unistd.h>

static void test_fifo_and_wrap(void)
{
	struct live_queue q;
	unsigned char rec[3000], out[65600];
	uint64_t pushed = 0, popped = 0;
	bool ok = true;

	CHECK(live_queue_init(&q, 131072) == 0);
	/* Many rounds of varied sizes force the write position to wrap. */
	for (int round = 0; round < 200 && ok; round++) {
		for (int i = 0; i < 20; i++) {
			size_t len = 8 + (size_t)((round * 37 + i * 101) % 2900);
			memset(rec, (int)(pushed & 0xff), len);
			memcpy(rec, &pushed, 8);
			if (!live_queue_push(&q, rec, len))
				break;
			pushed++;
		}
		while (popped < pushed) {
			long n = live_queue_pop(&q, out, sizeof(out), 0);
			uint64_t seq;
			if (n < 8) {
				ok = false;
				break;
			}
			memcpy(&seq, out, 8);
			/* bytes after the sequence number are the fill byte */
			if (seq != popped || (n > 8 && (out[n - 1] != (unsigned char)(seq & 0xff) ||
							out[8] != (unsigned char)(seq & 0xff))))
				ok = false;
			popped++;
		}
	}
	live_queue_fini(&q);
	CHECK(ok);
	CHECK(pushed == popped);
	CHECK(pushed > 2000);
}

static void test_full_refuses(void)
{
	struct live_queue q;
	unsigned char rec[4096] = { 0 }, out[65600];
	int accepted = 0, refused = 0;

	CHECK(live_queue_init(&q, 131072) == 0);
	for (int i = 0; i < 100; i++) {
		if (live_queue_push(&q, rec, sizeof(rec)))
			accepted++;
		else
			refused++;
	}
	/* 131072 bytes hold 31 entries of 4096+8 bytes. */
	CHECK(accepted == 31);
	CHECK(refused == 69);
	CHECK(live_queue_pop(&q, out, sizeof(out), 0) == 4096);
	CHECK(live_queue_push(&q, rec, sizeof(rec)));   /* room again */
	live_queue_fini(&q);
}

static void test_close_drains(void)
{
	struct live_queue q;
	unsigned char out[65600];
	long a, b, c;

	CHECK(live_queue_init(&q, 0) == 0);
	CHECK(live_queue_push(&q, "abcdefgh", 8));
	CHECK(live_queue_pop(&q, out, sizeof(out), 0) == 8);
	CHECK(live_queue_pop(&q, out, sizeof(out), 10) == 0);   /* timeout: empty */
	CHECK(live_queue_push(&q, "12345678", 8));
	live_queue_close(&q);
	a = live_queue_pop(&q, out, sizeof(out), 10);
	b = live_queue_pop(&q, out, sizeof(out), 10);
	c = live_queue_push(&q, "x", 1);
	live_queue_fini(&q);
	CHECK(a == 8);
	CHECK(b == -1);
	CHECK(c == 0);
}

struct slow_sink {
	uint64_t samples;
	uint64_t flushes, finals;
	struct live_counts last;
};

static int slow_sample(void *ctx, const struct live_event *ev, const struct c2c_sample *s)
{
	struct slow_sink *k = ctx;
	(void)ev;
	(void)s;
	k->samples++;
	usleep(2000);   /* a writer far slower than the source */
	return 0;
}

static int slow_flush(void *ctx, const struct live_counts *c, bool final)
{
	struct slow_sink *k = ctx;
	k->flushes++;
	k->finals += final;
	k->last = *c;
	return 0;
}

static void test_live_drops_counted(void)
{
	struct live_options o = {
		.no_mem = true, .no_locks = true, .sw_event = "cpu-clock", .freq = 4000,
		.queue_bytes = 1, .flush_ms = 50, .mmap_pages = 64,
	};
	struct slow_sink k = { 0 };
	struct live_sink sink = { .ctx = &k, .sample = slow_sample, .flush = slow_flush };
	struct c2c_error err = { 0 };
	struct live_counts c;
	struct live *lv;
	int rc = live_new(&lv, &o, &err);

	if (rc == -EACCES || rc == -EPERM || rc == -ENOENT || rc == -ENODEV) {
		test_skip(err.msg);
		return;
	}
	CHECK(rc == 0);
	rc = live_start(lv, &sink, &err);
	if (rc == 0) {
		live_wait_done(lv, 1500);
		rc = live_stop(lv, &err);
	}
	live_get_counts(lv, &c);
	live_free(lv);
	CHECK(rc == 0);
	CHECK(k.samples > 0);
	CHECK(c.samples == k.samples);
	CHECK(c.queue_drops > 0);
	CHECK(c.queue_drop_samples > 0);
	CHECK(c.queue_drop_samples <= c.queue_drops);
	/* Every sample read was either delivered or counted as dropped. */
	CHECK(c.samples + c.queue_drop_samples <= c.records);
	CHECK(k.finals == 1);
	CHECK(k.last.queue_drops == c.queue_drops);
}

TEST_MAIN(TEST_CASE(test_fifo_and_wrap), TEST_CASE(test_full_refuses), TEST_CASE(test_close_drains),
	  TEST_CASE(test_live_drops_counted))
