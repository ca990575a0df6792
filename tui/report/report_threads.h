/* `report --threads` / `--processes`: the per-thread or per-process table
 * (store_query_threads) as text, CSV or JSON, and the order both it and
 * the explorer's threads view start in. */
#ifndef C2C_TUI_REPORT_THREADS_H
#define C2C_TUI_REPORT_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "collector/c2c/c2c.h"
#include "store/store.h"

/* The mode's HITM (or peer loads) of a row's counters. */
uint64_t report_threads_hitm(const struct c2c_stats *s, enum c2c_display d);
/* By the mode's HITM descending, then records descending, then pid, tid. */
void report_threads_sort(struct store_thread_row *rows, size_t n, enum c2c_display d);
/* Prints the rows in their order; returns 0 or -1 on a write error. */
int report_threads_print(FILE *out, const struct store_thread_row *rows, size_t n, bool by_process,
			 enum c2c_display d, int format /* enum report_format */);

#endif /* C2C_TUI_REPORT_THREADS_H */
