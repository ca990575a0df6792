/* The explorer's one event loop (tui_explore): the view stack, key and
 * mouse dispatch through the keymap, the prompt for search and filter, the
 * sort-column picker, live refresh ticks, and painting only what changed.
 * For screen tests, C2CTUI_STATE=FILE makes the loop write its state
 * (keys handled, size, view) after every repaint, so a harness can wait
 * for the screen instead of sleeping. */
#include "tui/explorer/tui.h"
#include "tui/explorer/view.h"
#include "collector/base/appendf.h"
#include "tui/explorer/view_registry.h"
#include "tui/term/term.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum prompt_purpose {
	PROMPT_SEARCH = 1,
	PROMPT_FILTER,
};

/* The view on top. */
static struct view *view_top(struct explorer *ex)
{
	return ex->depth ? &ex->stack[ex->depth - 1] : NULL;
}

/* Data, filters or mode changed: every view re-runs its queries when shown. */
static void view_invalidate(struct explorer *ex)
{
	ex->gen++;
	ex->dirty |= DIRTY_ALL;
}

static void layout(struct explorer *ex)
{
	term_size(&ex->rows, &ex->cols);
	ex->header_h = summary_height(ex);
}

static void view_area(struct explorer *ex, struct view *v)
{
	v->y = ex->header_h + 1;
	v->h = ex->rows - ex->header_h - 2;
	if (v->h < 0)
		v->h = 0;
	v->w = ex->cols;
}

/* Says in the status line that a query is running, before it runs: the
 * filtered and timeline queries recompute from the samples and can take
 * seconds on big sessions. The next repaint replaces it. */
static void busy(struct explorer *ex, const char *what)
{
	if (!term_active() || ex->rows < 8 || ex->cols < 20)
		return;
	term_field(ex->rows - 1, 0, ex->cols, TH_STATUS_KEY, what);
	term_flush();
	ex->dirty |= DIRTY_STATUS;
}

/* (Re)runs a view's queries and keeps its table consistent with the
 * current screen size. */
static int view_open(struct explorer *ex, struct view *v, struct c2c_error *err)
{
	int r;

	busy(ex, "working...");
	view_area(ex, v);
	r = v->ops->open(v, err);
	if (r >= 0)
		v->gen = ex->gen;
	return r;
}

/* Pushes a view with these ops built from q above the current one; on
 * failure the message line says why and the stack is unchanged. */
static int view_push_ops(struct explorer *ex, const struct view_ops *ops, const struct view_query *q)
{
	struct c2c_error err = { 0 };
	struct view *v;
	int r;

	if (!ops) {
		view_message(ex, 1, "cannot open the view");
		return -EINVAL;
	}
	if (ex->depth >= VIEW_STACK_MAX) {
		view_message(ex, 1, "too many views open: go back first");
		return -ENOSPC;
	}
	v = &ex->stack[ex->depth];
	memset(v, 0, sizeof(*v));
	v->q = *q;
	v->ops = ops;
	v->ex = ex;
	v->priv = calloc(1, ops->priv_size ? ops->priv_size : 1);
	if (!v->priv) {
		view_message(ex, 1, "out of memory");
		return -ENOMEM;
	}
	table_init(&v->table, NULL, 0);
	r = view_open(ex, v, &err);
	if (r < 0) {
		if (ops->close)
			ops->close(v);
		free(v->priv);
		v->priv = NULL;
		view_message(ex, 1, "%s", err.msg[0] ? err.msg : "cannot open the view");
		return r;
	}
	ex->depth++;
	ex->dirty |= DIRTY_ALL;
	return 0;
}

/* Pushes the view of q's kind. */
static int view_push(struct explorer *ex, const struct view_query *q)
{
	return view_push_ops(ex, view_kind_ops(q->kind), q);
}

static void view_pop(struct explorer *ex)
{
	struct view *v;

	if (ex->depth <= 1)
		return;
	v = &ex->stack[--ex->depth];
	if (v->ops->close)
		v->ops->close(v);
	free(v->priv);
	v->priv = NULL;
	ex->dirty |= DIRTY_ALL;
}

/* Makes the top view current: re-query when the data or filters changed
 * since it was built; after a resize lay it out again and fetch the rows
 * that became visible. */
static void view_sync(struct explorer *ex)
{
	struct c2c_error err = { 0 };
	struct view *v = view_top(ex);
	int r = 0, oh, ow;

	if (!v)
		return;
	if (v->gen != ex->gen) {
		r = view_open(ex, v, &err);
		ex->dirty |= DIRTY_ALL;
	} else {
		oh = v->h;
		ow = v->w;
		view_area(ex, v);
		if (oh != v->h || ow != v->w) {
			if (v->ops->layout)
				v->ops->layout(v);
			else if (v->table.cols)
				view_table_layout(v);
			ex->dirty |= DIRTY_ALL;
		}
		if (v->ops->fetch && (oh != v->h || ow != v->w))
			r = v->ops->fetch(v, &err);
	}
	if (r < 0)
		view_message(ex, 1, "%s", err.msg);
}

static void draw_title(struct explorer *ex, struct view *v)
{
	char buf[512];

	buf[0] = 0;
	if (v->ops->title)
		v->ops->title(v, buf, sizeof(buf));
	/* Columns that did not fit are a key away: say which way. */
	if (v->table.cols && (v->table.hidden_right || v->table.scroll)) {
		size_t len = strlen(buf);
		snprintf(buf + len, sizeof(buf) - len, "  [%s%s%s columns]", v->table.scroll ? "<" : "",
			 v->table.scroll && v->table.hidden_right ? " " : "", v->table.hidden_right ? ">" : "");
	}
	term_field(ex->header_h, 0, ex->cols, TH_TITLE, buf);
}

/* The first key of action a in scope (keymap_keys' rules) into buf: the
 * status line names one key per action to stay short. 0 when unbound. */
static int first_key(const char *scope, enum action a, char *buf, size_t size)
{
	char keys[64], *comma;
	int n = keymap_keys(scope, a, keys, sizeof(keys));

	if ((comma = strchr(keys, ',')))
		*comma = 0;
	snprintf(buf, size, "%s", keys);
	return n;
}

static int first_sortable(const struct table *t, int from, int dir);

/* The status line: a message, the prompt, the sort picker, or the keys. */
static void draw_status(struct explorer *ex)
{
	struct view *v = view_top(ex);
	int y = ex->rows - 1, x = 0;
	char first[64];
	static const enum action shown[] = {
		ACT_HELP, ACT_QUIT, ACT_ENTER, ACT_BACK, ACT_SORT, ACT_FILTER, ACT_SEARCH, ACT_MODE,
		ACT_CPUS, ACT_TIMELINE, ACT_SHOW_ALL, ACT_PANE, ACT_AFTER_LAYOUT, ACT_WORDS, ACT_MARK,
	};
	static const enum action picking[] = { ACT_PICK_LEFT, ACT_PICK_RIGHT, ACT_ENTER, ACT_REVERSE, ACT_BACK };

	if (y < 0)
		return;
	if (ex->prompt.active) {
		prompt_draw(&ex->prompt, y, ex->cols);
		return;
	}
	if (ex->message[0]) {
		term_field(y, 0, ex->cols, ex->message_error ? TH_ERROR : TH_STATUS, ex->message);
		return;
	}
	if (ex->collecting)
		x += term_text(y, x, ex->cols - x, TH_STATUS_KEY, "[collecting] ");
	if (ex->picking) {
		static const char *const what[] = { "previous", "next", "apply", "reverse", "cancel" };
		x += term_text(y, x, ex->cols - x, TH_STATUS, "Sort by: ");
		for (size_t i = 0; i < sizeof(picking) / sizeof(picking[0]) && x < ex->cols; i++) {
			first_key("sort", picking[i], first, sizeof(first));
			x += term_text(y, x, ex->cols - x, TH_STATUS_KEY, first);
			x += term_textf(y, x, ex->cols - x, TH_STATUS, " %s  ", what[i]);
		}
		term_blank(y, x, ex->cols - x, TH_STATUS);
		return;
	}
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]) && x < ex->cols; i++) {
		enum action a = shown[i];

		/* A view that gives Enter its own meaning says which. */
		if (a == ACT_ENTER && v && keymap_lookup(v->ops->name, TK_ENTER) != ACT_NONE)
			a = keymap_lookup(v->ops->name, TK_ENTER);
		if (!first_key(v ? v->ops->name : NULL, a, first, sizeof(first)))
			continue;
		/* Offer only what works here: s in a view without a sortable
		 * column (the diff views) would only say so. */
		if (a == ACT_SORT && (!v || !v->table.cols || first_sortable(&v->table, 0, 1) < 0))
			continue;
		x += term_text(y, x, ex->cols - x, TH_STATUS_KEY, first);
		x += term_textf(y, x, ex->cols - x, TH_STATUS, " %s  ", action_info(a)->name);
	}
	term_blank(y, x, ex->cols - x, TH_STATUS);
}

static void render(struct explorer *ex)
{
	struct view *v = view_top(ex);
	int dirty = ex->dirty;

	if (!dirty || !v)
		return;
	if (ex->rows < 8 || ex->cols < 20) {
		term_clear();
		term_text(0, 0, ex->cols, TH_ERROR, "terminal too small");
		term_flush();
		ex->dirty = 0;
		return;
	}
	if (dirty & DIRTY_ALL) {
		term_clear();
		dirty |= DIRTY_HEADER | DIRTY_BODY | DIRTY_STATUS;
	}
	if (dirty & DIRTY_HEADER)
		summary_draw(ex);
	if (dirty & DIRTY_BODY) {
		draw_title(ex, v);
		v->ops->draw(v);
	} else if (dirty & DIRTY_ROWS) {
		struct table *t = &v->table;
		/* A cursor move inside the page repaints two rows. */
		if (v->ops->draw_row && !table_page_changed(t)) {
			if (t->drawn_cursor >= t->top && t->drawn_cursor < t->top + t->height &&
			    t->drawn_cursor < t->nrows && t->drawn_cursor != t->cursor)
				v->ops->draw_row(v, t->drawn_cursor, 0);
			if (t->cursor < t->nrows)
				v->ops->draw_row(v, t->cursor, 1);
			table_drawn(t);
		} else {
			v->ops->draw(v);
		}
		draw_title(ex, v);
	}
	if (dirty & (DIRTY_STATUS | DIRTY_ROWS | DIRTY_BODY))
		draw_status(ex);
	term_flush();
	ex->dirty = 0;
}

static void write_state(struct explorer *ex, char *last, size_t size)
{
	const char *path = getenv("C2CTUI_STATE");
	struct view *v = view_top(ex);
	char buf[512], tmp[4200];
	FILE *f;

	if (!path || !*path || !v)
		return;
	snprintf(buf, sizeof(buf), "keys=%ld rows=%d cols=%d view=%s depth=%d cursor=%ld top=%ld nrows=%ld\n",
		 ex->keys, ex->rows, ex->cols, v->ops->name, ex->depth, v->table.cursor, v->table.top,
		 v->table.nrows);
	if (!strcmp(buf, last))
		return;
	snprintf(last, size, "%s", buf);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fputs(buf, f);
	if (fclose(f) == 0)
		rename(tmp, path);
}

/* Moves the table cursor: two rows repaint inside the page, a scroll
 * fetches the newly visible rows. */
static void move_cursor(struct explorer *ex, struct view *v, enum action a)
{
	struct table *t = &v->table;
	long page = t->height > 1 ? t->height - 1 : 1;
	int moved = 0;

	switch (a) {
	case ACT_UP: moved = table_move(t, -1); break;
	case ACT_DOWN: moved = table_move(t, 1); break;
	case ACT_PGUP: moved = table_move(t, -page); break;
	case ACT_PGDN: moved = table_move(t, page); break;
	case ACT_HOME: moved = table_goto(t, 0); break;
	case ACT_END: moved = table_goto(t, t->nrows - 1); break;
	default: break;
	}
	if (!moved)
		return;
	if (table_page_changed(t)) {
		struct c2c_error err = { 0 };
		if (v->ops->fetch && v->ops->fetch(v, &err) < 0)
			view_message(ex, 1, "%s", err.msg);
		ex->dirty |= DIRTY_BODY;
	} else {
		ex->dirty |= DIRTY_ROWS;
	}
}

static int first_sortable(const struct table *t, int from, int dir)
{
	for (int i = from; i >= 0 && i < t->ncols; i += dir)
		if (t->cols[i].sort_key >= 0 && t->widths[i])
			return i;
	return -1;
}

static void apply_sort(struct explorer *ex, struct view *v)
{
	struct table *t = &v->table;

	if (t->pick_col >= 0) {
		if (t->pick_col == t->sort_col) {
			t->sort_desc = !t->sort_desc;
		} else {
			t->sort_col = t->pick_col;
			/* Counts read best biggest first; names and addresses A-Z. */
			t->sort_desc = t->cols[t->sort_col].align == TAL_RIGHT;
		}
	}
	t->pick_col = -1;
	ex->picking = 0;
	table_goto(t, 0);
	v->gen = ex->gen - 1;   /* re-query this view only */
	ex->dirty |= DIRTY_ALL;
}

static void picker_action(struct explorer *ex, struct view *v, enum action a)
{
	struct table *t = &v->table;
	int c;

	switch (a) {
	case ACT_PICK_LEFT:
		c = first_sortable(t, t->pick_col - 1, -1);
		if (c >= 0)
			t->pick_col = c;
		break;
	case ACT_PICK_RIGHT:
		c = first_sortable(t, t->pick_col + 1, 1);
		if (c >= 0)
			t->pick_col = c;
		break;
	case ACT_ENTER:
		apply_sort(ex, v);
		return;
	case ACT_REVERSE:
		t->pick_col = t->sort_col;
		apply_sort(ex, v);
		return;
	case ACT_BACK:
		t->pick_col = -1;
		ex->picking = 0;
		break;
	default:
		return;
	}
	ex->dirty |= DIRTY_BODY | DIRTY_STATUS;
}

/* Applies the `f` prompt's text (view_filter.c); the time window stays. */
static int apply_filter(struct explorer *ex, const char *text)
{
	struct store_filter f = ex->filter;
	char sym[sizeof(ex->filter_symbol)], msg[256];

	if (view_filter_parse(text, &f, sym, sizeof(sym), msg, sizeof(msg)) < 0) {
		view_message(ex, 1, "%s", msg);
		return -EINVAL;
	}
	snprintf(ex->filter_symbol, sizeof(ex->filter_symbol), "%s", sym);
	f.symbol = f.symbol ? ex->filter_symbol : NULL;
	ex->filter = f;
	return 0;
}

/* What perf report warns about on the same recording (lost chunks,
 * throttling), said once in the status line when the explorer starts. */
static void warn_recording(struct explorer *ex)
{
	const uint64_t *c = ex->summary.counters;
	char buf[200];
	size_t n = 0;

	if (ex->collecting)
		return;
	buf[0] = '\0';
	if (c[STORE_CNT_LOST])
		n = c2c_appendf(buf, sizeof(buf), n, "the recording lost %" PRIu64 " chunk%s (%" PRIu64 " samples)",
				c[STORE_CNT_LOST], c[STORE_CNT_LOST] == 1 ? "" : "s", c[STORE_CNT_LOST_SAMPLES]);
	if (c[STORE_CNT_THROTTLE])
		n = c2c_appendf(buf, sizeof(buf), n, "%sthe kernel throttled sampling %" PRIu64 " time%s",
				n ? "; " : "", c[STORE_CNT_THROTTLE], c[STORE_CNT_THROTTLE] == 1 ? "" : "s");
	if (n)
		view_message(ex, 1, "Warning: %s", buf);
}

static void reload_summary(struct explorer *ex)
{
	struct c2c_error err = { 0 };

	busy(ex, "working...");
	if (summary_load(ex, &err) < 0)
		view_message(ex, 1, "%s", err.msg);
	if (summary_height(ex) != ex->header_h)
		layout(ex);  /* the session's status line came or went */
	view_invalidate(ex);
}

/* Acts on what a view's action or click returned (enum view_result). */
static void view_apply(struct explorer *ex, struct view *v, enum view_result r, struct view_reply *reply)
{
	if (r & VIEW_REDRAW)
		ex->dirty |= DIRTY_BODY;
	if (r & VIEW_REQUERY)
		v->gen = ex->gen - 1;
	if (r & VIEW_FILTER)
		ex->filter = reply->filter;
	if (r & VIEW_POP)
		view_pop(ex);
	if (r & (VIEW_FILTER | VIEW_RELOAD))
		reload_summary(ex);
	if (r & VIEW_PUSH)
		view_push(ex, &reply->push);
	if (reply->message[0])
		view_message(ex, reply->message_error, "%s", reply->message);
}

static void reply_init(struct explorer *ex, struct view_reply *reply)
{
	memset(reply, 0, sizeof(*reply));
	reply->filter = ex->filter;
}

static void do_search(struct explorer *ex, struct view *v, int dir)
{
	struct c2c_error err = { 0 };
	int r;

	if (!ex->search[0]) {
		view_message(ex, 0, "no search yet: press / first");
		return;
	}
	if (!v->ops->search) {
		view_message(ex, 0, "this view has nothing to search");
		return;
	}
	r = v->ops->search(v, ex->search, dir, &err);
	if (r < 0)
		view_message(ex, 1, "%s", err.msg);
	else if (r == 0)
		view_message(ex, 0, "not found: %s", ex->search);
	ex->dirty |= DIRTY_BODY;
}

static void prompt_done(struct explorer *ex, struct view *v)
{
	switch (ex->prompt.purpose) {
	case PROMPT_SEARCH:
		snprintf(ex->search, sizeof(ex->search), "%s", ex->prompt.text);
		if (ex->search[0])
			do_search(ex, v, 1);
		break;
	case PROMPT_FILTER:
		if (apply_filter(ex, ex->prompt.text) == 0)
			reload_summary(ex);
		break;
	}
	ex->dirty |= DIRTY_STATUS;
}

static void global_action(struct explorer *ex, struct view *v, enum action a)
{
	struct view_query q;
	char cur[256];

	switch (a) {
	case ACT_UP:
	case ACT_DOWN:
	case ACT_PGUP:
	case ACT_PGDN:
	case ACT_HOME:
	case ACT_END:
		move_cursor(ex, v, a);
		break;
	case ACT_BACK:
		if (ex->depth > 1)
			view_pop(ex);
		break;
	case ACT_QUIT:
		ex->quit = 1;
		break;
	case ACT_HELP:
		if (v->ops != &view_help_ops) {
			memset(&q, 0, sizeof(q));
			q.kind = VK_HELP;
			q.arg = (void *)v->ops->name;
			view_push(ex, &q);
		}
		break;
	case ACT_SEARCH:
		prompt_start(&ex->prompt, PROMPT_SEARCH, "Search (symbol or 0xaddress): ", "");
		ex->dirty |= DIRTY_STATUS;
		break;
	case ACT_NEXT:
		do_search(ex, v, 1);
		break;
	case ACT_PREV:
		do_search(ex, v, -1);
		break;
	case ACT_SORT:
		if (!v->table.cols || first_sortable(&v->table, 0, 1) < 0) {
			view_message(ex, 0, "this view has no sortable columns");
			break;
		}
		ex->picking = 1;
		v->table.pick_col = v->table.sort_col >= 0 ? v->table.sort_col : first_sortable(&v->table, 0, 1);
		ex->dirty |= DIRTY_BODY | DIRTY_STATUS;
		break;
	case ACT_REVERSE:
		if (v->table.cols && v->table.sort_col >= 0) {
			v->table.pick_col = v->table.sort_col;
			apply_sort(ex, v);
		}
		break;
	case ACT_FILTER:
		summary_filter_text(ex, cur, sizeof(cur));
		prompt_start(&ex->prompt, PROMPT_FILTER, "Filter (sym: cpu: node: pid: tid: hitm:): ",
			     strcmp(cur, "none") ? cur : "");
		/* The current filters are shown selected: typing replaces
		 * them, Right or End edits them, Enter keeps them. */
		prompt_select_all(&ex->prompt);
		ex->dirty |= DIRTY_STATUS;
		break;
	case ACT_UNFILTER:
		store_filter_init(&ex->filter);
		ex->filter_symbol[0] = 0;
		reload_summary(ex);
		view_message(ex, 0, "filters and time window cleared");
		break;
	case ACT_WINDOW_CLEAR:
		ex->filter.time_from = ex->filter.time_to = 0;
		reload_summary(ex);
		view_message(ex, 0, "time window cleared");
		break;
	case ACT_MODE:
		ex->mode = (enum store_mode)((ex->mode + 1) % 4);
		view_invalidate(ex);
		view_message(ex, 0, "display mode: %s", view_mode_name(ex->mode));
		break;
	case ACT_CPUS:
	case ACT_TIMELINE:
	case ACT_THREADS:
		memset(&q, 0, sizeof(q));
		q.kind = a == ACT_CPUS ? VK_CPUS : a == ACT_TIMELINE ? VK_TIMELINE : VK_THREADS;
		q.line = STORE_ALL_LINES;
		q.cpu = -1;
		view_push(ex, &q);
		break;
	case ACT_COLS_RIGHT:
	case ACT_COLS_LEFT:
		if (!v->table.cols || !table_scroll_cols(&v->table, a == ACT_COLS_RIGHT ? 1 : -1))
			view_message(ex, 0, "%s", a == ACT_COLS_RIGHT ? "no more columns to the right" : "at the first columns");
		ex->dirty |= DIRTY_BODY;
		break;
	case ACT_REDRAW:
		term_invalidate();
		ex->dirty |= DIRTY_ALL;
		break;
	case ACT_REFRESH:
		reload_summary(ex);
		break;
	default:
		break;
	}
}

static void dispatch(struct explorer *ex, enum action a)
{
	struct view *v = view_top(ex);

	if (ex->picking) {
		picker_action(ex, v, a);
		return;
	}
	if (v->ops->action) {
		struct view_reply reply;
		enum view_result r;

		reply_init(ex, &reply);
		r = v->ops->action(v, a, &reply);
		view_apply(ex, v, r, &reply);
		if (r & VIEW_HANDLED)
			return;
	}
	global_action(ex, v, a);
}

static void handle_mouse(struct explorer *ex, const struct term_event *ev)
{
	struct view *v = view_top(ex);
	int by = ev->y - v->y;

	if (ev->mouse == TM_WHEEL_UP || ev->mouse == TM_WHEEL_DOWN) {
		struct table *t = &v->table;
		long d = ev->mouse == TM_WHEEL_UP ? -3 : 3;
		/* The wheel scrolls the page and drags the cursor along. */
		t->top += d;
		if (t->top > t->nrows - t->height)
			t->top = t->nrows - t->height;
		if (t->top < 0)
			t->top = 0;
		if (t->cursor < t->top)
			t->cursor = t->top;
		if (t->cursor >= t->top + t->height)
			t->cursor = t->top + t->height - 1;
		table_goto(t, t->cursor);
		if (table_page_changed(t)) {
			struct c2c_error err = { 0 };
			if (v->ops->fetch && v->ops->fetch(v, &err) < 0)
				view_message(ex, 1, "%s", err.msg);
			ex->dirty |= DIRTY_BODY;
		} else {
			ex->dirty |= DIRTY_ROWS;
		}
		return;
	}
	if (ev->y < v->y || ev->y >= v->y + v->h)
		return;
	if (v->ops->click) {
		struct view_reply reply;

		reply_init(ex, &reply);
		view_apply(ex, v, v->ops->click(v, by, ev->x, ev->mouse == TM_DOUBLE, &reply), &reply);
		return;
	}
	if (!v->table.cols)
		return;
	if (by == 0) {
		int c = table_col_at(&v->table, ev->x);
		if (c >= 0 && v->table.cols[c].sort_key >= 0) {
			v->table.pick_col = c;
			apply_sort(ex, v);
		}
		return;
	}
	if (v->table.top + by - 1 < v->table.nrows) {
		table_goto(&v->table, v->table.top + by - 1);
		ex->dirty |= DIRTY_ROWS;
		if (ev->mouse == TM_DOUBLE)
			dispatch(ex, ACT_ENTER);
	}
}

static void handle_event(struct explorer *ex, const struct term_event *ev)
{
	struct view *v = view_top(ex);
	enum action a;

	if (ev->key == TK_RESIZE) {
		layout(ex);
		view_sync(ex);
		ex->dirty |= DIRTY_ALL;
		return;
	}
	ex->keys++;
	if (ex->message[0]) {
		ex->message[0] = 0;
		ex->dirty |= DIRTY_STATUS;
	}
	if (ex->prompt.active) {
		int r = prompt_key(&ex->prompt, ev->key);
		if (r == 1)
			prompt_done(ex, v);
		ex->dirty |= DIRTY_STATUS;
		return;
	}
	if (ev->key == TK_MOUSE) {
		handle_mouse(ex, ev);
		return;
	}
	a = keymap_lookup(ex->picking ? "sort" : v->ops->name, ev->key);
	if (a != ACT_NONE)
		dispatch(ex, a);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* While a query runs on the loop's thread (a filter or a sort recomputing
 * from every sample, the line view's attribution), the store calls this
 * every few thousand steps (store_set_thread_poll): a quit signal, or `q`
 * among the keys typed since, stops the query, and the loop then ends at
 * once. Keys are read without painting (term_peek, at most every 20 ms)
 * and stay queued for the loop. Keys after one that opens a prompt (/, f)
 * are the prompt's text, not actions. */
static int explorer_poll(void *arg)
{
	struct explorer *ex = arg;
	struct term_event evs[32];
	struct view *v;
	uint64_t now;
	int n;

	if (ex->quit || term_quit_signal())
		return 1;
	if (!term_active() || ex->prompt.active)
		return 0;
	now = now_ms();
	if (now < ex->peek_next_ms)
		return 0;
	ex->peek_next_ms = now + 20;
	v = view_top(ex);
	n = term_peek(evs, (int)(sizeof(evs) / sizeof(evs[0])));
	for (int i = 0; i < n; i++) {
		enum action a;

		if (evs[i].key == TK_MOUSE || evs[i].key == TK_RESIZE)
			continue;
		a = keymap_lookup(ex->picking ? "sort" : v ? v->ops->name : NULL, evs[i].key);
		if (a == ACT_QUIT) {
			ex->quit = 1;
			return 1;
		}
		if (a == ACT_SEARCH || a == ACT_FILTER)
			break;
	}
	return 0;
}

/* The quit signal that arrived, as the loop's result (-EINTR), or 0. */
static int quit_by_signal(struct c2c_error *err)
{
	int sig = term_quit_signal();

	if (!sig)
		return 0;
	return c2c_error_set(err, -EINTR, "interrupted by %s", sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal");
}

static int tick(struct explorer *ex)
{
	const struct tui_options *opt = ex->opt;
	int r;

	if (!opt->on_tick)
		return 0;
	/* The hook's own work (live's finalization) is not ours to stop. */
	store_set_thread_poll(NULL, NULL);
	r = opt->on_tick(opt->ctx);
	store_set_thread_poll(explorer_poll, ex);
	if (r < 0)
		return r;
	if (r == TUI_TICK_FINISHED)
		ex->collecting = 0;
	if (r == TUI_TICK_CHANGED || r == TUI_TICK_FINISHED) {
		reload_summary(ex);
		/* Keep a message the user has not read yet. */
		ex->dirty |= DIRTY_ALL;
	}
	return 0;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* For `make bench`: C2CTUI_TIMING=FILE gets the time to the first screen
 * (from tui_mark_start, or from tui_explore's start) and the time each
 * input event took from its arrival to the flushed repaint. */
static double t_start_us;

void tui_mark_start(void)
{
	t_start_us = now_us();
}

static void timing_log(const char *fmt, double ms)
{
	const char *path = getenv("C2CTUI_TIMING");
	FILE *f;

	if (!path || !*path || !(f = fopen(path, "a")))
		return;
	fprintf(f, fmt, ms);
	fclose(f);
}

static void explorer_free(struct explorer *ex)
{
	while (ex->depth > 0) {
		struct view *v = &ex->stack[--ex->depth];
		if (v->ops->close)
			v->ops->close(v);
		free(v->priv);
	}
	/* Abandoned background queries still read the session: let them
	 * end before the caller may remove the file. Closing their views
	 * stopped their queries, so they end within milliseconds; a bounded
	 * wait all the same, so a step SQLite does not interrupt (a sort kept
	 * in memory is one step) cannot hold the quit. */
	view_jobs_wait(500);
	if (ex->wake[0] >= 0)
		close(ex->wake[0]);
	if (ex->wake[1] >= 0)
		close(ex->wake[1]);
	free(ex);
}

int tui_quit_signal(void)
{
	return term_quit_signal();
}

/* No loads or stores, only lock waits. */
static bool lock_only(const struct store_summary *s)
{
	return s->lock_waits && !c2c_total_loads(&s->total) && !c2c_stores_total(&s->total);
}

int tui_explore(struct store *st, const struct tui_options *opt)
{
	static const struct tui_options none;
	struct c2c_error local = { 0 };
	struct c2c_error *err;
	struct explorer *ex;
	struct view_query q;
	const struct view_ops *first_ops;
	char last_state[512] = "";
	double t_key_us = 0;
	int first = 1;
	uint64_t next_tick;
	int extra_fd = -1, r = 0;

	if (!t_start_us)
		tui_mark_start();
	if (!opt)
		opt = &none;
	err = opt->err ? opt->err : &local;
	ex = calloc(1, sizeof(*ex));
	if (!ex)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	ex->st = st;
	ex->opt = opt;
	ex->wake[0] = ex->wake[1] = -1;
	if (pipe2(ex->wake, O_NONBLOCK | O_CLOEXEC) < 0) {
		free(ex);
		return c2c_error_set(err, -errno, "cannot create a pipe: %s", strerror(errno));
	}
	ex->mode = opt->mode >= STORE_MODE_TOT && opt->mode <= STORE_MODE_PEER ? (enum store_mode)opt->mode
									       : STORE_MODE_TOT;
	ex->collecting = opt->collecting;
	store_filter_init(&ex->filter);
	store_set_thread_poll(explorer_poll, ex);
	r = summary_load(ex, err);
	if (r < 0)
		goto out;
	ex->time_base = ex->summary.time_first;
	r = term_init(err);
	if (r < 0)
		goto out;
	layout(ex);
	memset(&q, 0, sizeof(q));
	/* A session of lock waits alone (no memory PMU, e.g. a KVM guest)
	 * opens on its locks: the hot lines would be empty memory columns. */
	first_ops = opt->first_view ? opt->first_view
		  : lock_only(&ex->summary) ? view_kind_ops(VK_LOCKS) : &view_lines_ops;
	q.kind = view_ops_kind(first_ops);
	q.arg = opt->first_arg;
	q.line = STORE_ALL_LINES;
	q.cpu = -1;
	r = view_push_ops(ex, first_ops, &q);
	if (r < 0) {
		/* Stopped by q or a quit signal while loading: that is no error. */
		if (ex->quit)
			r = 0;
		else if (!(r = quit_by_signal(err)))
			r = c2c_error_set(err, r, "%s", ex->message);
		goto out;
	}
	warn_recording(ex);
	if (opt->poll_fd)
		extra_fd = opt->poll_fd(opt->ctx);
	next_tick = now_ms() + 1000;
	ex->dirty = DIRTY_ALL;
	while (!ex->quit) {
		struct term_event ev;
		uint64_t now;
		int wake, timeout;

		/* A quit signal that stopped a query: nothing more to show. */
		if ((r = quit_by_signal(err)) < 0)
			break;
		view_sync(ex);
		render(ex);
		if (t_key_us > 0) {
			timing_log("key_ms=%.3f\n", (now_us() - t_key_us) / 1e3);
			t_key_us = 0;
		} else if (first) {
			timing_log("first_screen_ms=%.3f\n", (now_us() - t_start_us) / 1e3);
			first = 0;
		}
		write_state(ex, last_state, sizeof(last_state));
		now = now_ms();
		timeout = opt->on_tick ? (next_tick > now ? (int)(next_tick - now) : 0) : 1000;
		wake = term_wait(extra_fd, ex->wake[0], timeout);
		if (wake & TW_WAKE) {
			for (int i = 0; i < ex->depth; i++)
				if (ex->stack[i].ops->wake)
					ex->stack[i].ops->wake(&ex->stack[i]);
			ex->dirty |= DIRTY_ALL;
		}
		if ((wake & TW_SIGNAL) && (r = quit_by_signal(err)) < 0)
			break;
		now = now_ms();
		if ((wake & TW_FD) || (opt->on_tick && now >= next_tick)) {
			next_tick = now + 1000;
			r = tick(ex);
			if (r < 0) {
				/* Keep the hook's own sentence when it wrote one. */
				if (!err->msg[0])
					c2c_error_set(err, r, "collection stopped (error %d)", r);
				err->code = r;
				break;
			}
		}
		while (!ex->quit && !term_quit_signal() && term_read(&ev)) {
			if (t_key_us == 0)
				t_key_us = now_us();
			handle_event(ex, &ev);
			/* A view change needs its data before the next key. */
			view_sync(ex);
		}
	}
out:
	/* What runs after the loop (closing views, the caller's finalization)
	 * is not stopped by a q or signal seen here. */
	store_set_thread_poll(NULL, NULL);
	term_fini();
	explorer_free(ex);
	return r < 0 ? r : 0;
}
