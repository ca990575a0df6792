/* Threads and processes (`p` from any view): per thread (tid, pid, comm)
 * or, after Tab, per process (pid, comm, threads) the display mode's HITM,
 * local and remote HITM, loads, stores, lines touched and CPUs, from
 * store_query_threads (the same rows `report --threads/--processes`
 * prints). The query scans the samples, so it runs in the background
 * (view_job.c) and the title says "computing" meanwhile. Enter filters
 * every view to that thread (tid:N) or process (pid:N) and goes back. */
#include "tui/explorer/view.h"
#include "tui/term/term.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum sort_key { SK_ID, SK_PID, SK_COMM, SK_HITM, SK_LCL, SK_RMT, SK_LOADS, SK_STORES, SK_LINES, SK_CPUS,
		SK_THREADS };

/* Listed by importance: what does not fit is dropped from the right. */
enum thr_col { TC_ID, TC_PID, TC_COMM, TC_HITM, TC_LOADS, TC_STORES, TC_LINES, TC_CPUS, TC_LCL, TC_RMT, TC_BAR,
	       TC__COUNT };
static const struct table_col thread_cols[TC__COUNT] = {
	[TC_ID]     = { "Tid", 7, 0, TAL_RIGHT, SK_ID, 0 },
	[TC_PID]    = { "Pid", 7, 0, TAL_RIGHT, SK_PID, 0 },
	[TC_COMM]   = { "Command", 15, 0, TAL_LEFT, SK_COMM, 0 },
	[TC_HITM]   = { "Hitm", 7, 0, TAL_RIGHT, SK_HITM, 0 },
	[TC_LCL]    = { "Lcl", 7, 0, TAL_RIGHT, SK_LCL, 0 },
	[TC_RMT]    = { "Rmt", 7, 0, TAL_RIGHT, SK_RMT, 0 },
	[TC_LOADS]  = { "Loads", 8, 0, TAL_RIGHT, SK_LOADS, 0 },
	[TC_STORES] = { "Stores", 8, 0, TAL_RIGHT, SK_STORES, 0 },
	[TC_LINES]  = { "Lines", 6, 0, TAL_RIGHT, SK_LINES, 0 },
	[TC_CPUS]   = { "CPUs", 4, 0, TAL_RIGHT, SK_CPUS, 0 },
	[TC_BAR]    = { "Share", 0, 10, TAL_LEFT, -1, 1 },
};
/* Per process the second column counts threads instead. */
static const struct table_col process_cols[TC__COUNT] = {
	[TC_ID]     = { "Pid", 7, 0, TAL_RIGHT, SK_PID, 0 },
	[TC_PID]    = { "Threads", 7, 0, TAL_RIGHT, SK_THREADS, 0 },
	[TC_COMM]   = { "Command", 15, 0, TAL_LEFT, SK_COMM, 0 },
	[TC_HITM]   = { "Hitm", 7, 0, TAL_RIGHT, SK_HITM, 0 },
	[TC_LCL]    = { "Lcl", 7, 0, TAL_RIGHT, SK_LCL, 0 },
	[TC_RMT]    = { "Rmt", 7, 0, TAL_RIGHT, SK_RMT, 0 },
	[TC_LOADS]  = { "Loads", 8, 0, TAL_RIGHT, SK_LOADS, 0 },
	[TC_STORES] = { "Stores", 8, 0, TAL_RIGHT, SK_STORES, 0 },
	[TC_LINES]  = { "Lines", 6, 0, TAL_RIGHT, SK_LINES, 0 },
	[TC_CPUS]   = { "CPUs", 4, 0, TAL_RIGHT, SK_CPUS, 0 },
	[TC_BAR]    = { "Share", 0, 10, TAL_LEFT, -1, 1 },
};

/* The query's inputs and outputs, owned by the background job. */
struct thr_args {
	struct store_filter filter;
	bool by_process;
	struct store_thread_row *rows;
	size_t n;
};

struct thr_priv {
	struct store_thread_row *rows;
	size_t n;
	bool by_process;
	bool have;                 /* rows answer `shown` */
	struct thr_args shown;     /* the query the rows answer (no outputs) */
	struct view_job *job;
	long saved_cursor[2], saved_top[2];  /* per table, across Tab */
	bool restore;              /* put the saved cursor back when rows come */
};

static int thr_query(struct store *st, void *arg, struct c2c_error *err)
{
	struct thr_args *a = arg;

	return store_query_threads(st, &a->filter, a->by_process, &a->rows, &a->n, err);
}

static void thr_args_free(void *arg)
{
	struct thr_args *a = arg;

	free(a->rows);
	free(a);
}

/* The symbol and hitm filters select lines, not samples: not part of it. */
static bool same_query(const struct thr_args *a, const struct thr_args *b)
{
	const struct store_filter *x = &a->filter, *y = &b->filter;

	return a->by_process == b->by_process && x->cpu == y->cpu && x->node == y->node && x->pid == y->pid &&
	       x->tid == y->tid && x->time_from == y->time_from && x->time_to == y->time_to &&
	       x->double_cl == y->double_cl && x->phys_lines == y->phys_lines;
}

struct sort_ctx {
	int key, desc;
	enum store_mode mode;
};

static uint64_t key_of(const struct store_thread_row *r, const struct sort_ctx *c)
{
	switch (c->key) {
	case SK_ID: return (uint64_t)(uint32_t)r->tid;
	case SK_PID: return (uint64_t)(uint32_t)r->pid;
	case SK_HITM: return view_hitm(&r->stats, c->mode);
	case SK_LCL: return r->stats.lcl_hitm;
	case SK_RMT: return r->stats.rmt_hitm;
	case SK_LOADS: return c2c_total_loads(&r->stats);
	case SK_STORES: return c2c_stores_total(&r->stats);
	case SK_LINES: return r->nr_lines;
	case SK_CPUS: return r->nr_cpus;
	case SK_THREADS: return r->nr_threads;
	default: return 0;
	}
}

static int cmp_row(const void *a, const void *b, void *arg)
{
	const struct store_thread_row *x = a, *y = b;
	const struct sort_ctx *c = arg;
	int r;

	if (c->key == SK_COMM) {
		r = strcmp(x->comm, y->comm);
	} else {
		uint64_t kx = key_of(x, c), ky = key_of(y, c);
		r = kx < ky ? -1 : kx > ky;
	}
	if (!r)  /* ties: the query's order, whichever way the sort goes */
		return x->pid != y->pid ? (x->pid < y->pid ? -1 : 1) : (x->tid < y->tid ? -1 : x->tid > y->tid);
	return c->desc ? -r : r;
}

static void sort_rows(struct view *v)
{
	struct thr_priv *p = v->priv;
	struct sort_ctx c = { .mode = v->ex->mode };

	if (v->table.sort_col < 0 || !p->n)
		return;
	c.key = v->table.cols[v->table.sort_col].sort_key;
	c.desc = v->table.sort_desc;
	qsort_r(p->rows, p->n, sizeof(*p->rows), cmp_row, &c);
}

static void set_table(struct view *v)
{
	struct thr_priv *p = v->priv;
	int desc = v->table.cols ? v->table.sort_desc : 1;
	int col = v->table.cols ? v->table.sort_col : TC_HITM;

	table_init(&v->table, p->by_process ? process_cols : thread_cols, TC__COUNT);
	v->table.sort_col = col;
	v->table.sort_desc = desc;
}

static int thr_open(struct view *v, struct c2c_error *err)
{
	struct thr_priv *p = v->priv;
	struct explorer *ex = v->ex;
	struct thr_args *a;

	if (!v->table.cols)
		set_table(v);
	a = calloc(1, sizeof(*a));
	if (!a)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	a->filter = ex->filter;
	a->filter.symbol = NULL;
	a->by_process = p->by_process;
	/* A sort or a mode change: the rows are still right, only re-order. */
	if (p->have && same_query(&p->shown, a)) {
		free(a);
		sort_rows(v);
		table_set_rows(&v->table, (long)p->n);
		view_table_layout(v);
		return 0;
	}
	/* The same query still running (a live refresh): let it finish. */
	if (p->job && !view_job_done(p->job) && same_query(view_job_arg(p->job), a)) {
		free(a);
		return 0;
	}
	view_job_release(p->job);
	p->job = NULL;
	free(p->rows);
	p->rows = NULL;
	p->n = 0;
	p->have = false;
	p->shown = *a;
	table_set_rows(&v->table, 0);
	view_table_layout(v);
	p->job = view_job_start(ex, thr_query, a, thr_args_free, err);
	return p->job ? 0 : -1;
}

static void thr_wake(struct view *v)
{
	struct thr_priv *p = v->priv;
	struct c2c_error err = { 0 };
	struct thr_args *a;
	double ms;

	if (!p->job || !view_job_done(p->job))
		return;
	if (view_job_result(p->job, &err, &ms) < 0) {
		view_message(v->ex, 1, "%s", err.msg);
		view_job_release(p->job);
		p->job = NULL;
		return;
	}
	view_timing("threads_ready", ms);
	a = view_job_arg(p->job);
	p->rows = a->rows;
	p->n = a->n;
	a->rows = NULL;
	view_job_release(p->job);
	p->job = NULL;
	p->have = true;
	sort_rows(v);
	table_set_rows(&v->table, (long)p->n);
	view_table_layout(v);
	if (p->restore)
		table_restore(&v->table, p->saved_cursor[p->by_process], p->saved_top[p->by_process]);
	p->restore = false;
}

static void thr_close(struct view *v)
{
	struct thr_priv *p = v->priv;

	view_job_release(p->job);
	p->job = NULL;
	free(p->rows);
	p->rows = NULL;
	p->n = 0;
}

static void thr_draw_row(struct view *v, long row, int selected)
{
	struct thr_priv *p = v->priv;
	int y = v->y + 1 + (int)(row - v->table.top);
	struct table_cell cells[TC__COUNT];
	char b[TC__COUNT][32];
	enum store_mode mode = v->ex->mode;
	const struct store_thread_row *r;
	uint64_t tot = 0, h;

	if (row < v->table.top || row >= v->table.top + v->table.height)
		return;
	if (row >= (long)p->n) {
		term_blank(y, 0, v->w, TH_NORMAL);
		return;
	}
	r = &p->rows[row];
	for (size_t i = 0; i < p->n; i++)
		tot += view_hitm(&p->rows[i].stats, mode);
	h = view_hitm(&r->stats, mode);
	memset(cells, 0, sizeof(cells));
	if (p->by_process) {
		snprintf(b[TC_ID], sizeof(b[0]), "%" PRId32, r->pid);
		snprintf(b[TC_PID], sizeof(b[0]), "%" PRIu32, r->nr_threads);
	} else {
		snprintf(b[TC_ID], sizeof(b[0]), "%" PRId32, r->tid);
		snprintf(b[TC_PID], sizeof(b[0]), "%" PRId32, r->pid);
	}
	snprintf(b[TC_COMM], sizeof(b[0]), "%s", r->comm[0] ? r->comm : "-");
	text_count(b[TC_HITM], sizeof(b[0]), h, 7);
	text_count(b[TC_LCL], sizeof(b[0]), r->stats.lcl_hitm, 7);
	text_count(b[TC_RMT], sizeof(b[0]), r->stats.rmt_hitm, 7);
	text_count(b[TC_LOADS], sizeof(b[0]), c2c_total_loads(&r->stats), 8);
	text_count(b[TC_STORES], sizeof(b[0]), c2c_stores_total(&r->stats), 8);
	text_count(b[TC_LINES], sizeof(b[0]), r->nr_lines, 6);
	snprintf(b[TC_CPUS], sizeof(b[0]), "%" PRIu32, r->nr_cpus);
	b[TC_BAR][0] = 0;
	for (int i = 0; i < TC__COUNT; i++)
		cells[i].text = b[i];
	/* share of the mode's HITM: who takes part in the fight */
	cells[TC_BAR].bar = tot ? (double)h / (double)tot : 0.0;
	cells[TC_BAR].heat = cells[TC_BAR].bar;
	table_draw_row(&v->table, y, cells, selected);
}

static void thr_draw(struct view *v)
{
	view_table_layout(v);
	view_table_draw(v);
}

static void thr_title(struct view *v, char *buf, size_t size)
{
	struct thr_priv *p = v->priv;
	const char *what = p->by_process ? "Processes" : "Threads";

	if (p->job)
		snprintf(buf, size, "%s: computing (it reads every sample; Esc goes back)...", what);
	else
		snprintf(buf, size, "%s: %zu, share of %s HITM  (Tab: %s, Enter filters)", what, p->n,
			 view_mode_name(v->ex->mode), p->by_process ? "threads" : "processes");
}

static enum view_result thr_action(struct view *v, enum action a, struct view_reply *reply)
{
	struct thr_priv *p = v->priv;
	const struct store_thread_row *r;
	int k;

	switch (a) {
	case ACT_THREADS:
		return VIEW_HANDLED;   /* already here */
	case ACT_PANE:
		/* Each table keeps its own cursor across Tab. */
		k = p->by_process;
		p->saved_cursor[k] = v->table.cursor;
		p->saved_top[k] = v->table.top;
		p->by_process = !p->by_process;
		set_table(v);
		p->restore = true;
		return VIEW_HANDLED | VIEW_REQUERY | VIEW_REDRAW;
	case ACT_ENTER:
		if (p->job || v->table.cursor >= (long)p->n)
			return VIEW_HANDLED;
		r = &p->rows[v->table.cursor];
		if (p->by_process) {
			reply->filter.pid = r->pid;
			reply->filter.tid = -1;
		} else {
			reply->filter.tid = r->tid;
		}
		view_reply_message(reply, 0, "filter %s:%" PRId32 " (F clears)", p->by_process ? "pid" : "tid",
				   p->by_process ? r->pid : r->tid);
		return VIEW_HANDLED | VIEW_FILTER | VIEW_POP;
	default:
		return VIEW_UNHANDLED;
	}
}

/* A number finds that tid (pid per process); text, a command name. */
static int thr_search(struct view *v, const char *text, int dir, struct c2c_error *err)
{
	struct thr_priv *p = v->priv;
	long n = (long)p->n;
	char *end, id[16];

	(void)err;
	for (long k = 1; k <= n; k++) {
		long row = ((v->table.cursor + dir * k) % n + n) % n;
		const struct store_thread_row *r = &p->rows[row];
		snprintf(id, sizeof(id), "%" PRId32, p->by_process ? r->pid : r->tid);
		strtol(text, &end, 10);
		if ((end != text && !*end) ? !strcmp(id, text) : view_contains(r->comm, text)) {
			table_goto(&v->table, row);
			return 1;
		}
	}
	return 0;
}

const struct view_ops view_threads_ops = {
	.name = "threads",
	.priv_size = sizeof(struct thr_priv),
	.open = thr_open,
	.close = thr_close,
	.draw = thr_draw,
	.draw_row = thr_draw_row,
	.action = thr_action,
	.search = thr_search,
	.title = thr_title,
	.wake = thr_wake,
};
