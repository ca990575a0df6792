/* One lock: its callers as perf lock contention names them (`name+0xOFF`,
 * or `Unknown`), each with waits and total / max / avg wait — the rows of
 * `c2ctui locks -L ADDR` (store_query_lock_callers) — sortable; Enter on a
 * caller opens its call stack: the stored call chain most of its waits
 * had (store_query_lock_stack), innermost frame first; Enter on a frame
 * opens its code site. Two views in one file, as view_layout.c does, since
 * the stack exists only under a caller. */
#include "tui/explorer/view.h"
#include "tui/explorer/view_lockfmt.h"
#include "tui/term/term.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- callers ---------------------------------------------------------- */

enum sort_key { SK_CALLER, SK_KIND, SK_WAITS, SK_TOTAL, SK_MAX, SK_AVG };

enum lock_col { LK_RANK, LK_CALLER, LK_KIND, LK_WAITS, LK_TOTAL, LK_MAX, LK_AVG, LK__COUNT };
static const struct table_col lock_cols[LK__COUNT] = {
	[LK_RANK]   = { "#", 3, 0, TAL_RIGHT, -1, 0 },
	[LK_CALLER] = { "Caller", 0, 20, TAL_LEFT, SK_CALLER, 0 },
	[LK_KIND]   = { "Kind", 11, 0, TAL_LEFT, SK_KIND, 0 },
	[LK_WAITS]  = { "Waits", 7, 0, TAL_RIGHT, SK_WAITS, 0 },
	[LK_TOTAL]  = { "Total", 10, 0, TAL_RIGHT, SK_TOTAL, 0 },
	[LK_MAX]    = { "Max", 10, 0, TAL_RIGHT, SK_MAX, 0 },
	[LK_AVG]    = { "Avg", 10, 0, TAL_RIGHT, SK_AVG, 0 },
};

struct lock_priv {
	struct store_lock_caller *rows;
	size_t n;
};

struct sort_ctx {
	const struct store_lock_caller *rows;
	int key, desc;
};

static uint64_t key_of(const struct store_lock_caller *r, int key)
{
	switch (key) {
	case SK_WAITS: return r->s.contended;
	case SK_TOTAL: return r->s.wait_total;
	case SK_MAX: return r->s.wait_max;
	case SK_AVG: return r->s.avg_wait;
	default: return 0;
	}
}

static int cmp_row(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	size_t ix = *(const size_t *)a, iy = *(const size_t *)b;
	const struct store_lock_caller *x = &c->rows[ix], *y = &c->rows[iy];
	int r;

	if (c->key == SK_CALLER) {
		r = strcmp(x->s.name, y->s.name);
	} else if (c->key == SK_KIND) {
		r = strcmp(store_lock_type_str(x->s.flags), store_lock_type_str(y->s.flags));
	} else {
		uint64_t kx = key_of(x, c->key), ky = key_of(y, c->key);
		r = kx < ky ? -1 : kx > ky;
	}
	if (!r)   /* ties keep the store's order either way */
		return ix < iy ? -1 : ix > iy;
	return c->desc ? -r : r;
}

static int sort_rows(struct view *v, struct lock_priv *p)
{
	struct sort_ctx c = { p->rows, v->table.cols[v->table.sort_col].sort_key, v->table.sort_desc };

	return view_sort_rows((void **)&p->rows, p->n, sizeof(*p->rows), cmp_row, &c);
}

static int lock_open(struct view *v, struct c2c_error *err)
{
	struct lock_priv *p = v->priv;
	int r;

	if (!v->table.cols) {
		table_init(&v->table, lock_cols, LK__COUNT);
		v->table.sort_col = LK_TOTAL;
		v->table.sort_desc = 1;
	}
	free(p->rows);
	p->rows = NULL;
	p->n = 0;
	if ((r = store_query_lock_callers(v->ex->st, v->q.line, &p->rows, &p->n, err)) < 0)
		return r;
	if (v->table.sort_col >= 0 && p->n && (r = sort_rows(v, p)) < 0)
		return c2c_error_set(err, r, "out of memory");
	table_set_rows(&v->table, (long)p->n);
	view_table_layout(v);
	return 0;
}

static void lock_close(struct view *v)
{
	struct lock_priv *p = v->priv;

	free(p->rows);
	p->rows = NULL;
	p->n = 0;
}

static void lock_draw_row(struct view *v, long row, int selected)
{
	struct lock_priv *p = v->priv;
	struct table_cell cells[LK__COUNT];
	char b[LK__COUNT][160];
	const struct store_lock_caller *r;
	int y = v->y + 1 + (int)(row - v->table.top);

	if (row < 0 || row >= (long)p->n) {
		term_blank(y, 0, v->w, TH_NORMAL);
		return;
	}
	r = &p->rows[row];
	memset(cells, 0, sizeof(cells));
	snprintf(b[LK_RANK], sizeof(b[0]), "%ld", row);
	snprintf(b[LK_CALLER], sizeof(b[0]), "%s", r->s.name);
	snprintf(b[LK_KIND], sizeof(b[0]), "%s", store_lock_type_str(r->s.flags));
	snprintf(b[LK_WAITS], sizeof(b[0]), "%" PRIu64, r->s.contended);
	view_lock_time(b[LK_TOTAL], sizeof(b[0]), r->s.wait_total);
	view_lock_time(b[LK_MAX], sizeof(b[0]), r->s.wait_max);
	view_lock_time(b[LK_AVG], sizeof(b[0]), r->s.avg_wait);
	for (int i = 0; i < LK__COUNT; i++)
		cells[i].text = b[i];
	table_draw_row(&v->table, y, cells, selected);
}

static void lock_title(struct view *v, char *buf, size_t size)
{
	struct lock_priv *p = v->priv;
	const struct table *t = &v->table;
	uint64_t waits = 0, total = 0;

	for (size_t i = 0; i < p->n; i++) {
		waits += p->rows[i].s.contended;
		total += p->rows[i].s.wait_total;
	}
	snprintf(buf, size, "Lock 0x%" PRIx64 ": %zu callers, %" PRIu64 " waits, %.3f ms  (sort: %s %s)", v->q.line,
		 p->n, waits, (double)total / 1e6, t->sort_col >= 0 ? t->cols[t->sort_col].title : "-",
		 t->sort_desc ? "desc" : "asc");
}

static enum view_result lock_action(struct view *v, enum action a, struct view_reply *reply)
{
	struct lock_priv *p = v->priv;
	struct view_query *q;

	if (a != ACT_ENTER)
		return VIEW_UNHANDLED;
	if (v->table.cursor < 0 || v->table.cursor >= (long)p->n)
		return VIEW_HANDLED;
	q = view_reply_push(reply, VK_LOCK_STACK);
	q->line = v->q.line;
	q->site = (int64_t)p->rows[v->table.cursor].s.key;   /* perf's stack key, not a site id */
	return VIEW_HANDLED | VIEW_PUSH;
}

static int lock_search(struct view *v, const char *text, int dir, struct c2c_error *err)
{
	struct lock_priv *p = v->priv;
	long n = (long)p->n;

	(void)err;
	for (long k = 1; k <= n; k++) {
		long row = ((v->table.cursor + dir * k) % n + n) % n;
		if (view_contains(p->rows[row].s.name, text) ||
		    view_contains(store_lock_type_str(p->rows[row].s.flags), text)) {
			table_goto(&v->table, row);
			return 1;
		}
	}
	return 0;
}

const struct view_ops view_lock_ops = {
	.name = "lock",
	.priv_size = sizeof(struct lock_priv),
	.open = lock_open,
	.close = lock_close,
	.draw = view_table_draw,
	.draw_row = lock_draw_row,
	.action = lock_action,
	.search = lock_search,
	.title = lock_title,
};

/* ---- a caller's call stack -------------------------------------------- */

enum stack_col { ST_DEPTH, ST_FUNC, ST_DSO, ST_IP, ST__COUNT };
static const struct table_col stack_cols[ST__COUNT] = {
	[ST_DEPTH] = { "#", 3, 0, TAL_RIGHT, -1, 0 },
	[ST_FUNC]  = { "Function", 0, 24, TAL_LEFT, -1, 0 },
	[ST_DSO]   = { "Binary", 0, 12, TAL_LEFT, -1, 0 },
	[ST_IP]    = { "Address", 18, 0, TAL_LEFT, -1, 0 },
};

struct stack_priv {
	struct store_lock_frame *frames;
	size_t n;
	uint64_t waits;           /* waits that had this chain */
};

static int stack_open(struct view *v, struct c2c_error *err)
{
	struct stack_priv *p = v->priv;
	int r;

	if (!v->table.cols)
		table_init(&v->table, stack_cols, ST__COUNT);
	free(p->frames);
	p->frames = NULL;
	p->n = 0;
	r = store_query_lock_stack(v->ex->st, v->q.line, (uint64_t)v->q.site, &p->frames, &p->n, &p->waits, err);
	if (r < 0)
		return r;
	table_set_rows(&v->table, (long)p->n);
	view_table_layout(v);
	return 0;
}

static void stack_close(struct view *v)
{
	struct stack_priv *p = v->priv;

	free(p->frames);
	p->frames = NULL;
	p->n = 0;
}

static void stack_draw_row(struct view *v, long row, int selected)
{
	struct stack_priv *p = v->priv;
	struct table_cell cells[ST__COUNT];
	char b[ST__COUNT][160];
	const struct store_lock_frame *f;
	int y = v->y + 1 + (int)(row - v->table.top);

	if (row < 0 || row >= (long)p->n) {
		term_blank(y, 0, v->w, TH_NORMAL);
		return;
	}
	f = &p->frames[row];
	memset(cells, 0, sizeof(cells));
	snprintf(b[ST_DEPTH], sizeof(b[0]), "%ld", row);
	if (f->function[0])
		snprintf(b[ST_FUNC], sizeof(b[0]), "%s+0x%" PRIx64, f->function, f->offset);
	else
		snprintf(b[ST_FUNC], sizeof(b[0]), "0x%" PRIx64, f->ip);
	snprintf(b[ST_DSO], sizeof(b[0]), "%s", f->dso[0] ? f->dso : "-");
	snprintf(b[ST_IP], sizeof(b[0]), "0x%" PRIx64, f->ip);
	for (int i = 0; i < ST__COUNT; i++)
		cells[i].text = b[i];
	table_draw_row(&v->table, y, cells, selected);
}

static void stack_draw(struct view *v)
{
	struct stack_priv *p = v->priv;

	view_table_draw(v);
	if (!p->n && v->h > 2)
		term_field(v->y + 2, 2, v->w - 2, TH_HEADER_LABEL,
			   "No call chain stored for this caller's waits (recorded without -g?).");
}

static void stack_title(struct view *v, char *buf, size_t size)
{
	struct stack_priv *p = v->priv;

	snprintf(buf, size, "Stack of 0x%" PRIx64 " caller %016" PRIx64 ": %zu frames, %" PRIu64 " waits",
		 v->q.line, (uint64_t)v->q.site, p->n, p->waits);
}

static enum view_result stack_action(struct view *v, enum action a, struct view_reply *reply)
{
	struct stack_priv *p = v->priv;

	if (a != ACT_ENTER)
		return VIEW_UNHANDLED;
	if (v->table.cursor < 0 || v->table.cursor >= (long)p->n || p->frames[v->table.cursor].site <= 0)
		return VIEW_HANDLED;
	view_reply_push(reply, VK_SITE)->site = p->frames[v->table.cursor].site;
	return VIEW_HANDLED | VIEW_PUSH;
}

static int stack_search(struct view *v, const char *text, int dir, struct c2c_error *err)
{
	struct stack_priv *p = v->priv;
	long n = (long)p->n;

	(void)err;
	for (long k = 1; k <= n; k++) {
		long row = ((v->table.cursor + dir * k) % n + n) % n;
		if (view_contains(p->frames[row].function, text) || view_contains(p->frames[row].dso, text)) {
			table_goto(&v->table, row);
			return 1;
		}
	}
	return 0;
}

const struct view_ops view_lock_stack_ops = {
	.name = "lockstack",
	.priv_size = sizeof(struct stack_priv),
	.open = stack_open,
	.close = stack_close,
	.draw = stack_draw,
	.draw_row = stack_draw_row,
	.action = stack_action,
	.search = stack_search,
	.title = stack_title,
};
