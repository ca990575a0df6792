/* Timeline: HITM (of the display mode) and lock waits over time, for the
 * session or one line, as a strip of one column per time bucket above a
 * table of the buckets. Space marks one end of a range, Enter applies the
 * range (or the bucket) as the time window of every view. */
#include "tui/explorer/view.h"
#include "tui/term/term.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum tl_col { TC_TIME, TC_HITM, TC_BAR, TC_SAMPLES, TC_LOADS, TC_STORES, TC_WAITS, TC_WAITMS, TC__COUNT };
static const struct table_col tl_cols[TC__COUNT] = {
	[TC_TIME]    = { "Time (s)", 25, 0, TAL_LEFT, -1, 0 },
	[TC_HITM]    = { "Hitm", 7, 0, TAL_RIGHT, -1, 0 },
	[TC_BAR]     = { "", 0, 8, TAL_LEFT, -1, 1 },
	[TC_SAMPLES] = { "Samples", 8, 0, TAL_RIGHT, -1, 0 },
	[TC_LOADS]   = { "Loads", 8, 0, TAL_RIGHT, -1, 0 },
	[TC_STORES]  = { "Stores", 8, 0, TAL_RIGHT, -1, 0 },
	[TC_WAITS]   = { "Waits", 7, 0, TAL_RIGHT, -1, 0 },
	[TC_WAITMS]  = { "Wait ms", 9, 0, TAL_RIGHT, -1, 0 },
};

#define STRIP_ROWS 2

struct tl_priv {
	struct store_time_row *rows;
	size_t n;
	long mark;                 /* marked bucket, -1 none */
	uint64_t max_hitm, max_wait, max_samples;
	int has_locks;
	uint32_t nbuckets;
	struct view_job *job;      /* the query, while it runs */
};

static uint32_t buckets_for(const struct view *v)
{
	int n = v->w - 10;

	if (n > 240)
		n = 240;
	if (n < 10)
		n = 10;
	return (uint32_t)n;
}

static void tl_layout(struct view *v)
{
	/* Strip rows, then the table (with its heading). */
	table_resize(&v->table, v->h - STRIP_ROWS - 1 > 0 ? v->h - STRIP_ROWS - 1 : 0, v->w);
}

/* The query's inputs and outputs, owned by the background job. */
struct tl_args {
	uint64_t line;
	struct store_filter filter;
	char symbol[128];
	enum store_mode mode;
	uint32_t nbuckets;
	struct store_time_row *rows;
	size_t n;
};

static int tl_query(struct store *st, void *arg, struct c2c_error *err)
{
	struct tl_args *a = arg;

	return store_query_timeline(st, a->line, &a->filter, a->mode, a->nbuckets, &a->rows, &a->n, err);
}

static void tl_args_free(void *arg)
{
	struct tl_args *a = arg;

	free(a->rows);
	free(a);
}

static bool same_query(const struct tl_args *a, const struct tl_args *b)
{
	const struct store_filter *x = &a->filter, *y = &b->filter;

	return a->line == b->line && a->mode == b->mode && a->nbuckets == b->nbuckets && x->cpu == y->cpu &&
	       x->node == y->node && x->pid == y->pid && x->tid == y->tid && x->time_from == y->time_from &&
	       x->time_to == y->time_to && x->min_hitm == y->min_hitm && x->double_cl == y->double_cl &&
	       x->phys_lines == y->phys_lines && !x->symbol == !y->symbol && !strcmp(a->symbol, b->symbol);
}

/* Runs the timeline query in the background: on a big session it scans
 * every sample, and the keys must keep answering meanwhile. */
static int tl_open(struct view *v, struct c2c_error *err)
{
	struct tl_priv *p = v->priv;
	struct explorer *ex = v->ex;
	struct tl_args *a;

	if (!v->table.cols) {
		table_init(&v->table, tl_cols, TC__COUNT);
		p->mark = -1;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	a->line = v->q.line;
	a->filter = ex->filter;
	if (ex->filter.symbol) {
		snprintf(a->symbol, sizeof(a->symbol), "%s", ex->filter.symbol);
		a->filter.symbol = a->symbol;
	}
	a->mode = ex->mode;
	a->nbuckets = buckets_for(v);
	/* The same query still running (a live refresh, a resize to the same
	 * width): let it finish rather than start over, or a query longer
	 * than the refresh period would never end. */
	if (p->job && !view_job_done(p->job) && same_query(view_job_arg(p->job), a)) {
		free(a);
		return 0;
	}
	view_job_release(p->job);
	p->job = NULL;
	free(p->rows);
	p->rows = NULL;
	p->n = 0;
	p->nbuckets = a->nbuckets;
	table_set_rows(&v->table, 0);
	tl_layout(v);
	p->job = view_job_start(ex, tl_query, a, tl_args_free, err);
	return p->job ? 0 : -1;
}

/* The background query finished: take its rows. */
static void tl_wake(struct view *v)
{
	struct tl_priv *p = v->priv;
	struct c2c_error err = { 0 };
	struct tl_args *a;
	double ms;

	if (!view_job_done(p->job))
		return;
	if (view_job_result(p->job, &err, &ms) < 0) {
		view_message(v->ex, 1, "%s", err.msg);
		view_job_release(p->job);
		p->job = NULL;
		return;
	}
	view_timing("timeline_ready", ms);
	a = view_job_arg(p->job);
	p->rows = a->rows;
	p->n = a->n;
	a->rows = NULL;
	view_job_release(p->job);
	p->job = NULL;
	p->max_hitm = p->max_wait = p->max_samples = 0;
	p->has_locks = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (p->rows[i].hitm > p->max_hitm)
			p->max_hitm = p->rows[i].hitm;
		if (p->rows[i].lock_wait_ns > p->max_wait)
			p->max_wait = p->rows[i].lock_wait_ns;
		if (p->rows[i].samples > p->max_samples)
			p->max_samples = p->rows[i].samples;
		if (p->rows[i].lock_waits)
			p->has_locks = 1;
	}
	if (p->mark >= (long)p->n)
		p->mark = -1;
	table_set_rows(&v->table, (long)p->n);
	tl_layout(v);
}

static void tl_close(struct view *v)
{
	struct tl_priv *p = v->priv;

	view_job_release(p->job);
	p->job = NULL;
	free(p->rows);
	p->rows = NULL;
}

static uint64_t base_time(const struct view *v)
{
	return v->ex->time_base;
}

/* Seconds since the session's first sample. */
static double secs(const struct view *v, uint64_t t)
{
	uint64_t base = base_time(v);

	return t > base ? (double)(t - base) / 1e9 : 0.0;
}

static int in_range(const struct tl_priv *p, long i, long cursor)
{
	long lo = p->mark < 0 ? cursor : (p->mark < cursor ? p->mark : cursor);
	long hi = p->mark < 0 ? cursor : (p->mark > cursor ? p->mark : cursor);

	return i >= lo && i <= hi;
}

static void draw_strip(struct view *v)
{
	/* Eight heights of block, or ASCII digits 1-8 without UTF-8. */
	static const char *const blocks[9] = {
		" ", "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
		"\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88",
	};
	static const char *const ascii[9] = { " ", "_", ".", "-", ":", "=", "+", "*", "#" };
	struct tl_priv *p = v->priv;
	const char *label[STRIP_ROWS] = { "HITM", p->has_locks ? "lock wait" : "samples" };

	for (int s = 0; s < STRIP_ROWS; s++) {
		int y = v->y + s;
		uint64_t max = s == 0 ? p->max_hitm : (p->has_locks ? p->max_wait : p->max_samples);

		term_field(y, 0, 10, TH_HEADER_LABEL, label[s]);
		for (size_t i = 0; i < p->n && 10 + (int)i < v->w; i++) {
			uint64_t val = s == 0 ? p->rows[i].hitm
					      : (p->has_locks ? p->rows[i].lock_wait_ns : p->rows[i].samples);
			int lvl = max ? (int)((val * 8 + max - 1) / max) : 0;
			double frac = max ? (double)val / (double)max : 0;
			enum theme_elem e = theme_heat(frac);

			if (lvl > 8)
				lvl = 8;
			if (in_range(p, (long)i, v->table.cursor))
				e = TH_MARK;
			term_text(y, 10 + (int)i, 1, e, text_is_utf8() ? blocks[lvl] : ascii[lvl]);
		}
		if (10 + (int)p->n < v->w)
			term_blank(y, 10 + (int)p->n, v->w - 10 - (int)p->n, TH_NORMAL);
	}
}

static void tl_draw_row(struct view *v, long row, int selected)
{
	struct tl_priv *p = v->priv;
	const struct store_time_row *r;
	struct table_cell cells[TC__COUNT];
	char b[TC__COUNT][48];
	int y = v->y + STRIP_ROWS + 1 + (int)(row - v->table.top);

	if (row < v->table.top || row >= v->table.top + v->table.height)
		return;
	if (row >= (long)p->n) {
		term_blank(y, 0, v->w, TH_NORMAL);
		return;
	}
	r = &p->rows[row];
	memset(cells, 0, sizeof(cells));
	snprintf(b[TC_TIME], sizeof(b[0]), "%s%10.6f - %10.6f", p->mark == row ? "*" : " ", secs(v, r->t_start),
		 secs(v, r->t_end));
	text_count(b[TC_HITM], sizeof(b[0]), r->hitm, 7);
	text_count(b[TC_SAMPLES], sizeof(b[0]), r->samples, 8);
	text_count(b[TC_LOADS], sizeof(b[0]), r->loads, 8);
	text_count(b[TC_STORES], sizeof(b[0]), r->stores, 8);
	text_count(b[TC_WAITS], sizeof(b[0]), r->lock_waits, 7);
	snprintf(b[TC_WAITMS], sizeof(b[0]), "%.3f", (double)r->lock_wait_ns / 1e6);
	b[TC_BAR][0] = 0;
	for (int i = 0; i < TC__COUNT; i++)
		cells[i].text = b[i];
	cells[TC_BAR].bar = p->max_hitm ? (double)r->hitm / (double)p->max_hitm : 0.0;
	cells[TC_BAR].heat = cells[TC_BAR].bar;
	if (!selected && p->mark >= 0 && in_range(p, row, v->table.cursor))
		cells[TC_TIME].elem = TH_MARK;
	table_draw_row(&v->table, y, cells, selected);
}

static void tl_draw(struct view *v)
{
	struct table *t = &v->table;

	draw_strip(v);
	/* The table sits under the strip. */
	table_draw_header(t, v->y + STRIP_ROWS);
	for (int i = 0; i < t->height; i++)
		tl_draw_row(v, t->top + i, t->top + i == t->cursor);
	table_drawn(t);
}

static void tl_title(struct view *v, char *buf, size_t size)
{
	struct tl_priv *p = v->priv;

	if (p->job)
		snprintf(buf, size, "Timeline of %s: computing (it reads every sample; Esc goes back)...",
			 v->q.line == STORE_ALL_LINES ? "the session" : "the line");
	else if (v->q.line == STORE_ALL_LINES)
		snprintf(buf, size, "Timeline of the session: %zu buckets%s", p->n,
			 p->mark >= 0 ? "  (range marked: Enter applies)" : "  (Space marks, Enter applies)");
	else
		snprintf(buf, size, "Timeline of line 0x%" PRIx64 ": %zu buckets%s", c2c_line_display(v->q.line, v->ex->cacheline), p->n,
			 p->mark >= 0 ? "  (range marked: Enter applies)" : "  (Space marks, Enter applies)");
}

static enum view_result tl_action(struct view *v, enum action a, struct view_reply *reply)
{
	struct tl_priv *p = v->priv;
	long lo, hi;

	switch (a) {
	case ACT_MARK:
		p->mark = p->mark == v->table.cursor ? -1 : v->table.cursor;
		return VIEW_HANDLED | VIEW_REDRAW;
	case ACT_UP:
	case ACT_DOWN:
	case ACT_PGUP:
	case ACT_PGDN:
	case ACT_HOME:
	case ACT_END:
		/* The strip shows the cursor: repaint it with the rows. */
		return VIEW_UNHANDLED | VIEW_REDRAW;
	case ACT_ENTER:
		if (!p->n)
			return VIEW_HANDLED;
		lo = p->mark < 0 ? v->table.cursor : (p->mark < v->table.cursor ? p->mark : v->table.cursor);
		hi = p->mark < 0 ? v->table.cursor : (p->mark > v->table.cursor ? p->mark : v->table.cursor);
		reply->filter.time_from = p->rows[lo].t_start;
		reply->filter.time_to = p->rows[hi].t_end;
		view_reply_message(reply, 0, "time window %.6fs - %.6fs (T clears)", secs(v, p->rows[lo].t_start),
				   secs(v, p->rows[hi].t_end));
		return VIEW_HANDLED | VIEW_FILTER | VIEW_POP;
	default:
		return VIEW_UNHANDLED;
	}
}

static enum view_result tl_click(struct view *v, int y, int x, int dbl, struct view_reply *reply)
{
	struct tl_priv *p = v->priv;

	if (y < STRIP_ROWS) {
		/* A click on the strip picks that bucket. */
		if (x >= 10 && x - 10 < (int)p->n)
			table_goto(&v->table, x - 10);
	} else if (y > STRIP_ROWS) {
		long row = v->table.top + (y - STRIP_ROWS - 1);
		if (row < (long)p->n)
			table_goto(&v->table, row);
	}
	return VIEW_REDRAW | (dbl ? tl_action(v, ACT_ENTER, reply) : VIEW_UNHANDLED);
}

const struct view_ops view_timeline_ops = {
	.name = "timeline",
	.priv_size = sizeof(struct tl_priv),
	.open = tl_open,
	.close = tl_close,
	.draw = tl_draw,
	.draw_row = tl_draw_row,
	.layout = tl_layout,
	.action = tl_action,
	.title = tl_title,
	.click = tl_click,
	.wake = tl_wake,
};
