/* Tracepoint payloads (PERF_SAMPLE_RAW) decoded with libtraceevent.
 * Formats come from tracefs (live: /sys/kernel/tracing/events/SYS/NAME/format)
 * or from a perf.data file's tracing data (HEADER_TRACING_DATA feature, for
 * imports); fields are read by name through libtraceevent, never by fixed
 * offsets, so a kernel that moves a field still decodes.
 *
 * Ownership: tp_decoder_new/tp_decoder_free. Not thread-safe: one decoder
 * per producer thread. Nothing here prints. */
#ifndef C2C_TRACEPOINT_H
#define C2C_TRACEPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collector/base/error.h"

struct tp_decoder;

/* The tracepoints c2ctui interprets; anything else decodes as TP_OTHER. */
enum tp_kind {
	TP_OTHER = 0,
	TP_CONTENTION_BEGIN,     /* lock:contention_begin (lock_addr, flags) */
	TP_CONTENTION_END,       /* lock:contention_end (lock_addr, ret) */
	TP_SCHED_SWITCH,         /* sched:sched_switch */
	TP_SCHED_MIGRATE,        /* sched:sched_migrate_task */
};

struct tp_record {
	enum tp_kind kind;
	int id;                  /* tracepoint id (common_type) */
	const char *system;      /* owned by the decoder */
	const char *name;
	int32_t common_pid;
	/* lock:contention_* */
	uint64_t lock_addr;
	uint32_t flags;          /* begin */
	int32_t ret;             /* end */
	/* sched:sched_switch */
	int32_t prev_pid, next_pid;
	int64_t prev_state;
	char prev_comm[16], next_comm[16];
	/* sched:sched_migrate_task */
	int32_t pid;
	int32_t orig_cpu, dest_cpu;
};

struct tp_decoder *tp_decoder_new(struct c2c_error *err);
void tp_decoder_free(struct tp_decoder *dec);

/* Where tracefs is mounted ("/sys/kernel/tracing" or the debugfs
 * fallback). Returns 0, or -ENOENT with err saying how to mount it. */
int tp_find_tracefs(char *buf, size_t size, struct c2c_error *err);
/* The same, mounting tracefs on /sys/kernel/tracing first when it is not
 * mounted anywhere (as perf does; needs root). *mounted says whether it
 * did, for a note to the user. */
int tp_mount_tracefs(char *buf, size_t size, bool *mounted, struct c2c_error *err);

/* Reads TRACEFS/events/SYS/NAME/format and adds it. Returns the
 * tracepoint id (>= 0, what attr.config must be) or a negative errno:
 * -ENOENT with err naming the missing tracepoint, -EACCES when not root. */
int tp_decoder_load_tracefs(struct tp_decoder *dec, const char *tracefs, const char *sys,
			    const char *name, struct c2c_error *err);

/* Adds one format text (the content of a tracefs format file) of system
 * sys. Returns its id or a negative errno. */
int tp_decoder_add_format(struct tp_decoder *dec, const char *sys, const char *buf, size_t len,
			  struct c2c_error *err);

/* Parses a perf.data HEADER_TRACING_DATA blob (the feature section, or the
 * payload of a pipe-mode TRACING_DATA record) and adds every event format
 * it holds, with the recording host's byte order and long size. Returns the
 * number of formats added or a negative errno. */
int tp_decoder_load_tracing_data(struct tp_decoder *dec, const void *buf, size_t len,
				 struct c2c_error *err);

/* Number of formats the decoder knows. */
int tp_decoder_nr_events(const struct tp_decoder *dec);

/* Id of SYS:NAME if known, else -ENOENT. */
int tp_decoder_find(struct tp_decoder *dec, const char *sys, const char *name);

/* Decodes one RAW payload. Returns 0 (out->kind TP_OTHER for a tracepoint
 * c2ctui does not interpret), -ENOENT when the payload's common_type has no
 * known format, -EINVAL when it is too short for its fields. */
int tp_decode(struct tp_decoder *dec, const void *raw, size_t size, struct tp_record *out,
	      struct c2c_error *err);

#endif /* C2C_TRACEPOINT_H */
