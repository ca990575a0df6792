/* perf lock contention's report (c2ctui locks): text in perf's layout,
 * CSV and JSON, over store_query_perf_locks rows (tui/report/report_locks.c). */
#ifndef C2C_REPORT_LOCKS_H
#define C2C_REPORT_LOCKS_H

#include <stddef.h>
#include <stdio.h>

#include "store/store.h"

enum report_lock_field { RLF_CONTENDED, RLF_WAIT_TOTAL, RLF_WAIT_MAX, RLF_WAIT_MIN, RLF_AVG_WAIT, RLF__MAX };

struct report_locks_opts {
	enum store_locks_by by;
	int fields[RLF__MAX];        /* text columns in order (perf's -F) */
	size_t nfields;
	size_t entries;              /* -E: at most this many rows (0: all) */
};

/* Field name ("contended", "wait_total", ...) -> enum, or -1. */
int report_lock_field(const char *name);
void report_locks_text(FILE *out, const struct report_locks_opts *o, const struct store_lock_stat *rows, size_t n);
void report_locks_csv(FILE *out, const struct report_locks_opts *o, const struct store_lock_stat *rows, size_t n);
void report_locks_json(FILE *out, const struct report_locks_opts *o, const struct store_lock_stat *rows, size_t n);

#endif /* C2C_REPORT_LOCKS_H */
