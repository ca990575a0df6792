/* A live collection written into a session file: the collector
 * (collector/live/live.h) with a sink that symbolizes each record
 * (collector/symbols/symbols.h), pairs lock:contention_* into lock waits
 * (collector/tracepoint/lockwait.h) and writes store rows in batched transactions.
 * Shared by `c2ctui record` and `c2ctui live`.
 *
 * Ownership: live_session_new/live_session_free. The store handle and the
 * symbol table belong to the collector's writer thread while collecting;
 * other threads (the TUI) open their own read-only store handle. */
#ifndef C2C_LIVE_SESSION_H
#define C2C_LIVE_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "collector/base/error.h"
#include "collector/live/live.h"

struct live_session;

/* Creates path (must not exist), opens the events. source_kind is "record"
 * or "live"; cmdline is stored as metadata. */
int live_session_new(struct live_session **out, const char *path, const struct live_options *opt,
		     const char *source_kind, const char *cmdline, struct c2c_error *err);
/* The same with the kernel image for kernel code and data (-k/--vmlinux;
 * NULL: as live_session_new, /proc/kallsyms). A vmlinux whose build-id
 * note is not the running kernel's (/sys/kernel/notes), a missing file or
 * a file that is not ELF is refused before the session file is made. */
int live_session_new_vmlinux(struct live_session **out, const char *path, const struct live_options *opt,
			     const char *vmlinux, const char *source_kind, const char *cmdline,
			     struct c2c_error *err);
void live_session_free(struct live_session *ls);

struct live *live_session_live(struct live_session *ls);
int live_session_start(struct live_session *ls, struct c2c_error *err);
/* Stops collecting, writes the last batch and finalizes the session
 * (aggregates, counters, WAL checkpoint). */
int live_session_stop(struct live_session *ls, struct c2c_error *err);
/* Number of commits so far (any thread): the TUI refreshes when it moves. */
uint64_t live_session_commits(struct live_session *ls);

struct live_session_totals {
	uint64_t samples;            /* stored */
	uint64_t lock_waits;
	uint64_t lock_wait_ns;
	uint64_t per_event[16];      /* samples per event index (first 16) */
	uint64_t unmatched_ends, pending_begins, nested_begins;
	struct live_counts counts;
	double seconds;
};
void live_session_totals(struct live_session *ls, struct live_session_totals *out);
/* The one-line summary printed at the end. */
void live_session_summary(struct live_session *ls, char *buf, size_t size);

#endif /* C2C_LIVE_SESSION_H */
