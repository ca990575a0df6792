/* The two collection threads and their lifecycle. The reader copies records
 * out of every ring buffer into the bounded queue and never waits on the
 * writer; after each pass over all rings it queues a round marker. The
 * writer delivers records in time order (so a task's contention_begin on one
 * CPU comes before its contention_end on another) with perf's round rule:
 * after round N is read, every record stamped at or before the newest time
 * seen up to round N-1 has arrived (it happened before round N-1 ended, so
 * it was in its ring when round N read it). This needs no clock of our own,
 * so the events keep perf's default clock and their times equal what
 * `perf record` writes for the same events. */
#include "collector/live/live_priv.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perf/evlist.h>
#include <perf/mmap.h>
#include <perf/event.h>

#define REC_BUF (65536 + 64)

/* ---- reader ---------------------------------------------------------- */

static size_t read_rings(struct live *lv)
{
	struct perf_mmap *map;
	size_t got = 0;

	perf_evlist__for_each_mmap(lv->evlist, map, false) {
		union perf_event *ev;

		if (perf_mmap__read_init(map) < 0)
			continue;
		while ((ev = perf_mmap__read_event(map)) != NULL) {
			size_t size = ev->header.size;

			live_count(&lv->counts.records, 1);
			live_count(&lv->counts.bytes, size);
			if (!live_queue_push(&lv->queue, ev, size)) {
				live_count(&lv->counts.queue_drops, 1);
				if (ev->header.type == PERF_RECORD_SAMPLE)
					live_count(&lv->counts.queue_drop_samples, 1);
			}
			perf_mmap__consume(map);
			got++;
		}
		perf_mmap__read_done(map);
	}
	return got;
}

static void push_marker(struct live *lv, uint64_t nr_read)
{
	struct live_round_marker m = { PERF_REC_FINISHED_ROUND, 0, sizeof(m), nr_read };
	/* A marker lost to a full queue only delays delivery by a round. */
	live_queue_push(&lv->queue, &m, sizeof(m));
}

static void check_targets(struct live *lv)
{
	if (lv->child > 0 && lv->child_status == -1) {
		int st;
		if (waitpid(lv->child, &st, WNOHANG) == lv->child) {
			lv->child_status = st;
			atomic_store(&lv->done, true);
		}
	} else if (lv->nr_watch && !lv->child) {
		size_t alive = 0;
		for (size_t i = 0; i < lv->nr_watch; i++)
			if (kill(lv->watch[i], 0) == 0 || errno != ESRCH)
				alive++;
		if (!alive)
			atomic_store(&lv->done, true);
	}
}

void *live_reader_main(void *arg)
{
	struct live *lv = arg;
	uint64_t last_check = 0;

	for (;;) {
		bool stopping = atomic_load(&lv->stop);
		uint64_t t = live_now_ns();
		size_t got = read_rings(lv);

		push_marker(lv, got);
		if (stopping)
			break;
		if (t - last_check > 100000000ull) {
			check_targets(lv);
			last_check = t;
		}
		if (got == 0) {
			/* Sleep until a ring passes its watermark; fds that hung
			 * up (exited tasks) make poll return at once, so also
			 * nap. */
			if (perf_evlist__poll(lv->evlist, 50) != 0)
				usleep(20000);
		}
	}
	push_marker(lv, UINT64_MAX);
	live_queue_close(&lv->queue);
	return NULL;
}

/* ---- writer ---------------------------------------------------------- */

struct pending {
	uint64_t time;
	uint64_t seq;
	unsigned char *rec;
};

struct writer {
	struct live *lv;
	const struct perf_attr_info *attr0;
	struct pending *p;
	size_t n, cap;
	uint64_t seq;
	uint64_t max_seen;       /* newest record time received so far */
	uint64_t limit;          /* deliverable: times <= limit */
	int rc;
	struct c2c_error err;
};

static const struct live_event *event_of(struct writer *w, const void *rec, size_t size)
{
	uint64_t id;
	int idx;

	if (perf_record_sample_id(w->attr0, rec, size, false, &id) != 1)
		return NULL;
	idx = live_event_of_id(w->lv, id);
	return idx < 0 ? NULL : &w->lv->events[idx];
}

static uint64_t record_time(struct writer *w, const void *rec, size_t size)
{
	struct perf_rec_header h = perf_record_header(rec, false);

	if (h.type == PERF_RECORD_SAMPLE) {
		const struct live_event *ev = event_of(w, rec, size);
		struct c2c_sample s;
		if (ev && perf_record_parse_sample(&ev->attr, rec, size, false, &s, NULL) == 0)
			return s.time;
		return 0;
	} else {
		struct perf_sample_id sid;
		if (perf_record_parse_sample_id(w->attr0, rec, size, false, &sid, NULL) == 0)
			return sid.time;
	}
	return 0;
}

static int deliver(struct writer *w, const void *rec)
{
	struct live *lv = w->lv;
	const struct live_sink *sk = lv->sink;
	struct perf_rec_header h = perf_record_header(rec, false);
	size_t size = h.size;
	struct c2c_error *err = &w->err;
	int rc = 0;

	switch (h.type) {
	case PERF_RECORD_SAMPLE: {
		const struct live_event *ev = event_of(w, rec, size);
		struct c2c_sample s;
		if (!ev) {
			live_count(&lv->counts.unknown_ids, 1);
			break;
		}
		if (perf_record_parse_sample(&ev->attr, rec, size, false, &s, NULL) < 0) {
			live_count(&lv->counts.decode_errors, 1);
			break;
		}
		live_count(&lv->counts.samples, 1);
		if (sk->sample)
			rc = sk->sample(sk->ctx, ev, &s);
		break;
	}
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		struct c2c_mmap m;
		struct perf_sample_id sid = { 0 };
		if (perf_record_parse_mmap(rec, size, false, &m, NULL) < 0) {
			live_count(&lv->counts.decode_errors, 1);
			break;
		}
		perf_record_parse_sample_id(w->attr0, rec, size, false, &sid, NULL);
		live_count(&lv->counts.sideband, 1);
		if (sk->mmap)
			rc = sk->mmap(sk->ctx, &m, sid.time);
		break;
	}
	case PERF_RECORD_COMM: {
		struct c2c_comm c;
		if (perf_record_parse_comm(w->attr0, rec, size, false, &c, NULL) < 0) {
			live_count(&lv->counts.decode_errors, 1);
			break;
		}
		live_count(&lv->counts.sideband, 1);
		if (sk->comm)
			rc = sk->comm(sk->ctx, &c);
		break;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		struct c2c_task t;
		if (perf_record_parse_task(rec, size, false, &t, NULL) < 0) {
			live_count(&lv->counts.decode_errors, 1);
			break;
		}
		live_count(&lv->counts.sideband, 1);
		if (sk->task)
			rc = sk->task(sk->ctx, &t, h.type == PERF_RECORD_EXIT);
		break;
	}
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES: {
		struct c2c_lost l;
		if (perf_record_parse_lost(w->attr0, rec, size, false, &l, NULL) == 0) {
			if (h.type == PERF_RECORD_LOST)
				live_count(&lv->counts.lost_records, 1);
			live_count(&lv->counts.lost_samples, l.lost);
		}
		break;
	}
	case PERF_RECORD_THROTTLE:
		live_count(&lv->counts.throttle, 1);
		break;
	case PERF_RECORD_UNTHROTTLE:
		live_count(&lv->counts.unthrottle, 1);
		break;
	default:
		break;
	}
	if (rc < 0 && w->rc == 0) {
		w->rc = rc;
		if (!err->msg[0])
			c2c_error_set(err, rc, "the session writer failed (%s)", strerror(-rc));
	}
	return rc;
}

static int cmp_pending(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Delivers, in time order, every pending record stamped at or before t. */
static void deliver_upto(struct writer *w, uint64_t t)
{
	size_t k = 0;

	if (!w->n)
		return;
	qsort(w->p, w->n, sizeof(*w->p), cmp_pending);
	while (k < w->n && w->p[k].time <= t) {
		if (w->rc == 0)
			deliver(w, w->p[k].rec);
		free(w->p[k].rec);
		k++;
	}
	memmove(w->p, w->p + k, (w->n - k) * sizeof(*w->p));
	w->n -= k;
}

static void keep(struct writer *w, const void *rec, size_t len)
{
	unsigned char *copy;

	if (w->n == w->cap) {
		size_t nc = w->cap ? w->cap * 2 : 4096;
		struct pending *np = realloc(w->p, nc * sizeof(*np));
		if (!np)
			goto nomem;
		w->p = np;
		w->cap = nc;
	}
	copy = malloc(len);
	if (!copy)
		goto nomem;
	memcpy(copy, rec, len);
	w->p[w->n] = (struct pending){ record_time(w, rec, len), w->seq++, copy };
	if (w->p[w->n].time > w->max_seen)
		w->max_seen = w->p[w->n].time;
	w->n++;
	return;
nomem:
	live_count(&w->lv->counts.queue_drops, 1);
}

static int flush_sink(struct writer *w, bool final)
{
	struct live_counts c;
	int rc = 0;

	if (!w->lv->sink->flush)
		return 0;
	live_get_counts(w->lv, &c);
	rc = w->lv->sink->flush(w->lv->sink->ctx, &c, final);
	if (rc < 0 && w->rc == 0) {
		w->rc = rc;
		c2c_error_set(&w->err, rc, "the session writer failed to commit (%s)", strerror(-rc));
	}
	return rc;
}

void *live_writer_main(void *arg)
{
	struct live *lv = arg;
	struct writer w = { .lv = lv, .attr0 = &lv->events[0].attr };
	unsigned flush_ms = lv->opt.flush_ms ? lv->opt.flush_ms : 250;
	unsigned char *buf = malloc(REC_BUF);
	uint64_t last_flush = live_now_ns();

	if (!buf) {
		lv->writer_rc = c2c_error_set(&lv->writer_err, -ENOMEM, "out of memory");
		atomic_store(&lv->done, true);
		return NULL;
	}
	for (;;) {
		long n = live_queue_pop(&lv->queue, buf, REC_BUF, (int)flush_ms / 2 + 1);
		uint64_t now;

		if (n < 0)
			break;
		if (n >= 8) {
			struct perf_rec_header h = perf_record_header(buf, false);
			if (h.type == PERF_REC_FINISHED_ROUND && (size_t)n == sizeof(struct live_round_marker)) {
				deliver_upto(&w, w.limit);
				w.limit = w.max_seen;
			} else {
				keep(&w, buf, (size_t)n);
			}
		}
		now = live_now_ns();
		if (now - last_flush >= (uint64_t)flush_ms * 1000000ull) {
			if (w.rc == 0)
				flush_sink(&w, false);
			last_flush = now;
		}
		if (w.rc < 0) {
			/* The sink failed: stop collecting, keep draining. */
			atomic_store(&lv->done, true);
		}
	}
	deliver_upto(&w, UINT64_MAX);
	if (w.rc == 0)
		flush_sink(&w, true);
	free(w.p);
	free(buf);
	lv->writer_rc = w.rc;
	lv->writer_err = w.err;
	return NULL;
}

/* ---- lifecycle ------------------------------------------------------- */

int live_start(struct live *lv, const struct live_sink *sink, struct c2c_error *err)
{
	static const struct live_sink none = { 0 };
	size_t off = 0;
	char go = 'g';

	lv->sink = sink ? sink : &none;
	/* The state of the world first (time 0 sorts before everything). */
	while (off < lv->synth_len) {
		struct perf_rec_header h = perf_record_header(lv->synth + off, false);
		if (!live_queue_push(&lv->queue, lv->synth + off, h.size))
			live_count(&lv->counts.queue_drops, 1);
		off += h.size;
	}
	free(lv->synth);
	lv->synth = NULL;
	lv->synth_len = lv->synth_cap = 0;
	if (pthread_create(&lv->writer, NULL, live_writer_main, lv) != 0)
		return c2c_error_set(err, -EAGAIN, "cannot start the writer thread");
	if (pthread_create(&lv->reader, NULL, live_reader_main, lv) != 0) {
		live_queue_close(&lv->queue);
		pthread_join(lv->writer, NULL);
		return c2c_error_set(err, -EAGAIN, "cannot start the reader thread");
	}
	atomic_store(&lv->running, true);
	if (lv->child) {
		/* enable_on_exec turns the events on when the command execs. */
		if (write(lv->go_fd, &go, 1) != 1) { /* the child is gone: noticed by the reader */ }
		close(lv->go_fd);
		lv->go_fd = -1;
	} else {
		perf_evlist__enable(lv->evlist);
	}
	return 0;
}

void live_request_stop(struct live *lv)
{
	char c = 's';

	atomic_store(&lv->stop, true);
	atomic_store(&lv->done, true);
	if (lv->stop_pipe[1] >= 0 && write(lv->stop_pipe[1], &c, 1) < 0) { /* full: already woken */ }
}

bool live_done(struct live *lv)
{
	return atomic_load(&lv->done);
}

int live_wait_done(struct live *lv, int timeout_ms)
{
	struct pollfd pfd = { .fd = lv->stop_pipe[0], .events = POLLIN };
	int waited = 0;

	while (!live_done(lv)) {
		int slice = 50;
		if (timeout_ms >= 0 && waited >= timeout_ms)
			return 0;
		if (timeout_ms >= 0 && timeout_ms - waited < slice)
			slice = timeout_ms - waited;
		poll(&pfd, 1, slice);
		waited += slice;
	}
	return 1;
}

int live_stop(struct live *lv, struct c2c_error *err)
{
	if (!atomic_load(&lv->running))
		return 0;
	perf_evlist__disable(lv->evlist);
	atomic_store(&lv->stop, true);
	atomic_store(&lv->done, true);
	pthread_join(lv->reader, NULL);
	pthread_join(lv->writer, NULL);
	atomic_store(&lv->running, false);
	if (lv->child > 0 && lv->child_status == -1) {
		/* Stopped before the command ended (Ctrl-C, q): end it. */
		kill(lv->child, SIGTERM);
		for (int i = 0; i < 50 && waitpid(lv->child, &lv->child_status, WNOHANG) == 0; i++)
			usleep(20000);
		if (lv->child_status == -1) {
			kill(lv->child, SIGKILL);
			waitpid(lv->child, &lv->child_status, 0);
		}
	}
	if (lv->writer_rc < 0) {
		if (err)
			*err = lv->writer_err;
		return lv->writer_rc;
	}
	return 0;
}
