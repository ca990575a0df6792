/* Live collection on libperf: memory-sampling events chosen from sysfs
 * (collector/pmu/pmu.h), tracepoints (lock:contention_*, sched:*) decoded with
 * libtraceevent, and optionally a software event, opened as one perf_evlist
 * over CPU and thread maps (-a, -C, -p, -t, or a command started stopped and
 * enabled on exec). A reader thread copies records out of the mmap ring
 * buffers into a bounded queue; a writer thread time-orders them (per round,
 * like perf's FINISHED_ROUND), decodes them with collector/perfdata/perf_record.h and
 * hands them to a sink (the store writer lives in the command layer, so this
 * library never depends on store/). Nothing is dropped silently: ring-buffer
 * LOST records, THROTTLE records and queue drops are counted in
 * struct live_counts and handed to the sink.
 *
 * Ownership: live_new/live_free. The sink's callbacks run in the writer
 * thread, one at a time; pointers they receive are valid for the call. */
#ifndef C2C_LIVE_H
#define C2C_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collector/base/error.h"
#include "collector/perfdata/perf_record.h"
#include "collector/base/sample.h"

struct live;

struct live_options {
	/* Targets, perf record's spelling. Nothing set: system-wide (-a). */
	const char *cpu_list;        /* -C "0-3,8" */
	const pid_t *pids;           /* -p (all threads, and threads they create) */
	size_t nr_pids;
	const pid_t *tids;           /* -t (those threads only) */
	size_t nr_tids;
	char *const *argv;           /* -- cmd args: started stopped, enabled on exec */
	const char *cmd_output;      /* the command's stdout+stderr go to this file and its
	                                stdin is /dev/null (a TUI owns the terminal); NULL:
	                                inherited */
	/* Sampling. */
	uint64_t freq;               /* -F: memory/software events, 0 = default 4000 Hz */
	uint64_t period;             /* -c: fixed period (wins over freq) */
	unsigned ldlat;              /* --ldlat, 0 = 30 */
	bool no_mem;                 /* do not try the memory-sampling PMU */
	bool no_locks;               /* do not open lock:contention_begin/end */
	bool sched;                  /* also sched:sched_switch, sched:sched_migrate_task */
	bool no_callchain;           /* tracepoints without call chains */
	const char *sw_event;        /* extra software event ("cpu-clock", "task-clock",
	                                "page-faults", "context-switches"), NULL none */
	/* Environment (tests and unusual systems). */
	const char *sysfs_root;      /* NULL: /sys */
	const char *tracefs;         /* NULL: found by tp_find_tracefs */
	unsigned mmap_pages;         /* per ring buffer, power of two; 0 = 512, fewer when
	                                the locked-memory limit refuses */
	size_t queue_bytes;          /* reader->writer queue, 0 = 64 MiB */
	unsigned flush_ms;           /* sink flush period, 0 = 250 ms */
};

enum live_event_kind {
	LIVE_EV_MEM = 0,             /* PMU memory sampling (loads/stores/IBS) */
	LIVE_EV_TRACEPOINT,
	LIVE_EV_SOFTWARE,
};

struct live_event {
	struct perf_attr_info attr;  /* attr.index == position; attr.name == name */
	char name[96];               /* e.g. "lock:contention_begin", "cpu/mem-loads,ldlat=30/P" */
	enum live_event_kind kind;
	int tp_id;                   /* tracepoint id, -1 otherwise */
};

/* What was counted so far (monotonic). */
struct live_counts {
	uint64_t records;            /* records read from the rings */
	uint64_t samples;            /* SAMPLE records delivered to the sink */
	uint64_t sideband;           /* MMAP/MMAP2/COMM/FORK/EXIT delivered */
	uint64_t lost_records;       /* PERF_RECORD_LOST records */
	uint64_t lost_samples;       /* samples the kernel lost (sum of LOST.lost) */
	uint64_t throttle, unthrottle;
	uint64_t queue_drops;        /* records dropped: queue full (writer behind) */
	uint64_t queue_drop_samples; /* of which samples */
	uint64_t decode_errors;      /* records the parser rejected */
	uint64_t unknown_ids;        /* samples whose id matched no event */
	uint64_t bytes;              /* bytes read from the rings */
	uint64_t synthesized;        /* COMM/MMAP2 synthesized from /proc at start */
};

struct live_sink {
	void *ctx;
	/* Any of these may be NULL. A negative return stops the collection
	 * (live_wait returns it). */
	int (*sample)(void *ctx, const struct live_event *ev, const struct c2c_sample *s);
	int (*mmap)(void *ctx, const struct c2c_mmap *m, uint64_t time);
	int (*comm)(void *ctx, const struct c2c_comm *c);
	int (*task)(void *ctx, const struct c2c_task *t, bool is_exit);
	/* At least every flush_ms while records flow, and once at the end
	 * (final = true): the moment to commit. */
	int (*flush)(void *ctx, const struct live_counts *counts, bool final);
};

/* Selects and opens every event, maps the rings, forks the command (which
 * waits before exec). Fails with one sentence in err: no permission
 * (perf_event_paranoid / CAP_PERFMON), tracefs not mounted, a missing
 * tracepoint, an unknown -p/-t id, no event at all. A machine without a
 * memory-sampling PMU is not an error: see live_notes(). */
int live_new(struct live **out, const struct live_options *opt, struct c2c_error *err);
/* Stops everything still running (and kills a command still running) and
 * frees. NULL is fine. */
void live_free(struct live *lv);

/* The opened events, index order. */
const struct live_event *live_events(const struct live *lv, size_t *n);
/* One-line notes for the user (e.g. "HITM sampling is unavailable here:
 * ..."), NULL-terminated; owned by lv. */
const char *const *live_notes(const struct live *lv);
/* Number of CPUs / threads the events were opened on. */
int live_nr_cpus(const struct live *lv);

/* Starts the reader and writer threads, enables the events and releases
 * the command. The sink is borrowed until live_wait returns. */
int live_start(struct live *lv, const struct live_sink *sink, struct c2c_error *err);
/* Asks the collection to stop (async-signal-safe: only sets a flag and
 * writes to a pipe). */
void live_request_stop(struct live *lv);
/* True once stop was requested or the command / every -p/-t target is gone. */
bool live_done(struct live *lv);
/* Waits up to timeout_ms (-1: forever) for live_done. Returns 1 when done,
 * 0 on timeout. */
int live_wait_done(struct live *lv, int timeout_ms);
/* Stops: disables the events, drains the rings and the queue through the
 * sink, joins the threads, final flush. Returns 0 or the first negative
 * code a sink callback or a thread returned (err filled). */
int live_stop(struct live *lv, struct c2c_error *err);

/* A snapshot of the counters (any thread). */
void live_get_counts(struct live *lv, struct live_counts *out);
/* Exit status of the command (as waitpid's status), -1 when none/running. */
int live_child_status(const struct live *lv);

#endif /* C2C_LIVE_H */
