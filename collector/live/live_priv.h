/* Private to collector/live_*.c: the collector's state, the bounded
 * reader->writer queue, and the pieces each file provides. */
#ifndef C2C_LIVE_PRIV_H
#define C2C_LIVE_PRIV_H

#include <pthread.h>
#include <stdatomic.h>

#include "collector/live/live.h"

/* Bounded byte queue of whole records (single producer, single consumer). */
struct live_queue {
	unsigned char *buf;
	size_t cap;
	size_t head;             /* next write offset */
	size_t tail;             /* next read offset */
	size_t used;             /* bytes in use, wrap padding included */
	bool closed;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

int live_queue_init(struct live_queue *q, size_t cap);
void live_queue_fini(struct live_queue *q);
/* Copies len bytes in; false (nothing written) when there is no room. */
bool live_queue_push(struct live_queue *q, const void *rec, size_t len);
/* Copies the oldest record into out (outcap >= 65536 bytes: a perf record
 * is at most 64 KiB). Returns its length, 0 on timeout, -1 once the queue is
 * closed and empty. */
long live_queue_pop(struct live_queue *q, void *out, size_t outcap, int timeout_ms);
void live_queue_close(struct live_queue *q);
/* Bytes in use (any thread). */
size_t live_queue_used(struct live_queue *q);

/* Marker the reader queues after each pass over every ring (see
 * live_run.c for the ordering rule). Uses the user type number of perf's own
 * FINISHED_ROUND so it can never clash with a kernel record. */
struct live_round_marker {
	uint32_t type;           /* PERF_REC_FINISHED_ROUND */
	uint16_t misc;
	uint16_t size;
	uint64_t nr_read;        /* records read in the pass (informational) */
};

#define LIVE_MAX_NOTES 8

struct live_id {
	uint64_t id;
	uint32_t index;
};

struct live {
	struct live_options opt;
	struct live_event *events;
	size_t nr_events;
	struct perf_evlist *evlist;
	struct perf_evsel **evsels;      /* parallel to events */
	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads;
	struct live_id *ids;             /* sorted by id */
	size_t nr_ids;
	char *notes[LIVE_MAX_NOTES + 1];
	int nr_notes;
	bool task_mode;                  /* -p/-t/cmd: per-task events */
	pid_t *watch;                    /* -p/-t targets, to notice they are gone */
	size_t nr_watch;

	pid_t child;                     /* -- cmd, 0 when none */
	int go_fd;                       /* write end: closing it lets the child exec */
	int child_status;                /* waitpid status, -1 while running */

	int stop_pipe[2];
	atomic_bool stop;
	atomic_bool done;
	atomic_bool running;
	pthread_t reader, writer;
	struct live_queue queue;
	const struct live_sink *sink;
	int writer_rc;
	struct c2c_error writer_err;

	struct live_counts counts;       /* updated with __atomic builtins */
	unsigned char *synth;            /* records synthesized from /proc */
	size_t synth_len, synth_cap;
};

static inline void live_count(uint64_t *field, uint64_t n)
{
	__atomic_fetch_add(field, n, __ATOMIC_RELAXED);
}

void live_add_note(struct live *lv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* live_open.c: event index of a sample id, -1 when unknown. */
int live_event_of_id(const struct live *lv, uint64_t id);
/* live_synth.c: COMM/MMAP2 of the targets' existing tasks and the kernel
 * map, as records with the first event's sample_id_all trailer. */
int live_synthesize(struct live *lv, struct c2c_error *err);
/* live_read.c / live_write.c: the two threads. */
void *live_reader_main(void *arg);
void *live_writer_main(void *arg);
uint64_t live_now_ns(void);

#endif /* C2C_LIVE_PRIV_H */
