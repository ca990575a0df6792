/* The summary header, always on screen above the views: where the session
 * was recorded, what was sampled, and the totals (samples, lost, HITM,
 * peer, lock contention) under the current filters. Numbers come from
 * store_query_summary, the function `report` prints its header from. */
#include "tui/explorer/view.h"
#include "tui/term/term.h"
#include "collector/base/appendf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void meta(struct explorer *ex, const char *key, char *buf, size_t size, const char *dflt)
{
	if (store_get_meta(ex->st, key, buf, size) < 0 || !buf[0])
		snprintf(buf, size, "%s", dflt);
}

int summary_load(struct explorer *ex, struct c2c_error *err)
{
	struct store_event_row *evs = NULL;
	size_t nev = 0, len = 0;
	char cl[32];
	int r;

	meta(ex, STORE_META_HOST, ex->host, sizeof(ex->host), "?");
	meta(ex, STORE_META_CPU_DESC, ex->cpu_desc, sizeof(ex->cpu_desc), "?");
	meta(ex, STORE_META_OS_RELEASE, ex->os_release, sizeof(ex->os_release), "?");
	meta(ex, STORE_META_CACHELINE, cl, sizeof(cl), "64");
	ex->cacheline = (uint32_t)strtoul(cl, NULL, 10);
	if (ex->cacheline == 0 || ex->cacheline > 4096)
		ex->cacheline = 64;
	ex->events[0] = 0;
	r = store_query_events(ex->st, &evs, &nev, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < nev && len < sizeof(ex->events); i++)
		len = c2c_appendf(ex->events, sizeof(ex->events), len, "%s%s", i ? "," : "",
					evs[i].name);
	free(evs);
	if (!ex->events[0])
		snprintf(ex->events, sizeof(ex->events), "none");
	r = store_query_summary(ex->st, &ex->filter, &ex->summary, err);
	if (r < 0)
		return r;
	/* A partial, unfinished or damaged session says so on every screen
	 * (a live session being collected is expected to be unfinished). */
	struct store_status status;
	store_get_status(ex->st, &status);
	ex->status_line[0] = '\0';
	if (!ex->collecting && status.state != STORE_STATE_COMPLETE)
		store_status_line(&status, store_path(ex->st), ex->status_line, sizeof(ex->status_line));
	if (ex->summary.cacheline_size)
		ex->cacheline = ex->summary.cacheline_size;
	return 0;
}

int summary_height(const struct explorer *ex)
{
	return ex->status_line[0] ? 4 : 3;
}

/* Draws "label value" pairs left to right; stops when the row is full. */
static int pair(int y, int x, int width, const char *label, const char *value)
{
	int used;

	if (x >= width)
		return x;
	used = term_text(y, x, width - x, TH_HEADER_LABEL, label);
	x += used;
	if (x < width)
		x += term_text(y, x, 1, TH_HEADER, " ");
	x += term_text(y, x, width - x, TH_HEADER, value);
	if (x < width)
		x += term_text(y, x, width - x, TH_HEADER, "  ");
	return x;
}

static void window_text(const struct explorer *ex, char *buf, size_t size)
{
	const struct store_filter *f = &ex->filter;
	uint64_t base = ex->time_base;

	if (!f->time_from && !f->time_to) {
		snprintf(buf, size, "all");
		return;
	}
	/* Seconds from the first sample read better than raw perf clock. */
	snprintf(buf, size, "%.3fs-%.3fs", f->time_from > base ? (double)(f->time_from - base) / 1e9 : 0.0,
		 f->time_to > base ? (double)(f->time_to - base) / 1e9 : 0.0);
}

void summary_filter_text(const struct explorer *ex, char *buf, size_t size)
{
	const struct store_filter *f = &ex->filter;
	size_t len = 0;

	buf[0] = 0;
	if (f->symbol)
		len = c2c_appendf(buf, size, len, "sym:%s ", f->symbol);
	if (f->cpu >= 0 && len < size)
		len = c2c_appendf(buf, size, len, "cpu:%d ", f->cpu);
	if (f->node >= 0 && len < size)
		len = c2c_appendf(buf, size, len, "node:%d ", f->node);
	if (f->pid >= 0 && len < size)
		len = c2c_appendf(buf, size, len, "pid:%d ", f->pid);
	if (f->tid >= 0 && len < size)
		len = c2c_appendf(buf, size, len, "tid:%d ", f->tid);
	if (f->min_hitm && len < size)
		len = c2c_appendf(buf, size, len, "hitm:%" PRIu64 " ", f->min_hitm);
	if (len && len <= size)
		buf[len - 1] = 0;
	else
		snprintf(buf, size, "none");
}

void summary_draw(struct explorer *ex)
{
	const struct store_summary *s = &ex->summary;
	int w = ex->cols, x;
	char v[256];

	for (int y = 0; y < summary_height(ex); y++)
		term_blank(y, 0, w, TH_HEADER);
	x = pair(0, 0, w, "c2ctui", ex->opt && ex->opt->title ? ex->opt->title : "");
	x = pair(0, x, w, "host", ex->host);
	x = pair(0, x, w, "kernel", ex->os_release);
	pair(0, x, w, "cpu", ex->cpu_desc);

	snprintf(v, sizeof(v), "%" PRIu64, s->nr_samples);
	x = pair(1, 0, w, "samples", v);
	snprintf(v, sizeof(v), "%" PRIu64, s->counters[STORE_CNT_LOST_SAMPLES]);
	x = pair(1, x, w, "lost", v);
	snprintf(v, sizeof(v), "%" PRIu64 " (lcl %" PRIu64 ", rmt %" PRIu64 ")", s->total.tot_hitm,
		 s->total.lcl_hitm, s->total.rmt_hitm);
	x = pair(1, x, w, "HITM", v);
	snprintf(v, sizeof(v), "%" PRIu64, s->total.tot_peer);
	x = pair(1, x, w, "peer", v);
	snprintf(v, sizeof(v), "%" PRIu64 "/%" PRIu64, s->nr_shared_lines, s->nr_lines);
	x = pair(1, x, w, "shared lines", v);
	if (s->lock_waits) {
		snprintf(v, sizeof(v), "%" PRIu64 " waits, %.3f ms, max %.3f ms", s->lock_waits,
			 (double)s->lock_wait_ns / 1e6, (double)s->lock_wait_max_ns / 1e6);
		pair(1, x, w, "locks", v);
	}

	x = pair(2, 0, w, "mode", view_mode_name(ex->mode));
	summary_filter_text(ex, v, sizeof(v));
	x = pair(2, x, w, "filter", v);
	window_text(ex, v, sizeof(v));
	x = pair(2, x, w, "window", v);
	pair(2, x, w, "events", ex->events);
	if (ex->status_line[0]) {
		term_blank(3, 0, w, TH_ERROR);
		term_text(3, 0, w, TH_ERROR, ex->status_line);
	}
}
