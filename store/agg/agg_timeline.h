/* For store/agg and store/query (and tests): the per-time-slice aggregate behind the timeline
 * (store/agg/agg_timeline.c). Tables agg_time_slice (session) and
 * agg_time_line (lines with HITM, stores or lock waits), a fixed number of
 * equal slices over the session's [first, last] sample / lock wait time,
 * described in meta (timeline_t0, timeline_width, timeline_slices and the
 * sample / lock wait counts they were built from). */
#ifndef C2C_STORE_AGG_TIMELINE_H
#define C2C_STORE_AGG_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "store/agg/agg.h"

#define STORE_TIMELINE_SLICES 4096
/* The CREATE statements of its two tables (the session check compares a
 * file's tables with them). */
extern const char agg_timeline_schema[];
/* A line's slices are this many session slices (an eighth of the detail
 * keeps agg_time_line and the build's memory small). */
#define STORE_TIMELINE_LINE_FACTOR 8
/* Memory for the per-line slices while building (bytes); the hottest
 * lines that fit get them. */
#define STORE_TIMELINE_LINE_BUDGET (64u << 20)

/* The slicing a session's aggregate was built with. */
struct store_slicing {
	uint64_t t0;             /* first slice's start, ns */
	uint64_t width;          /* ns per slice */
	uint32_t nslices;        /* slices covering [first, last + 1) */
};

/* Session slices per bucket for nbuckets asked (line: a whole number of
 * line slices); the buckets are then ceil(nslices / step) <= nbuckets. */
uint32_t store_timeline_step(const struct store_slicing *sl, bool line, uint32_t nbuckets);

/* store_timeline_build (declared in store/agg/agg.h for store_finalize)
 * (re)creates both tables from the samples and lock_waits tables in its
 * own transaction. A session with no timed sample gets no tables. */

/* The slicing when the session has a current aggregate (built over exactly
 * the samples and lock waits it holds now): true and *sl filled; false
 * otherwise (older files, live sessions before finalize, appended since). */
bool store_timeline_slicing(struct store *st, struct store_slicing *sl);

/* Answers the timeline from the aggregate: buckets of k whole slices from
 * sl->t0, k = store_timeline_step() (so every sum is exact). Returns 1 done (*rows, *n set), 0 when
 * it cannot (a line not in agg_time_line), <0 error. */
int store_timeline_from_slices(struct store *st, const struct store_slicing *sl, uint64_t line_addr,
			       enum c2c_counter hitm_counter, uint32_t nbuckets, struct store_time_row **rows,
			       size_t *n, struct c2c_error *err);

/* Tests: true makes store_query_timeline always scan (to compare). */
void store_timeline_force_scan(bool on);
bool store_timeline_scan_forced(void);

#endif /* C2C_STORE_AGG_TIMELINE_H */
