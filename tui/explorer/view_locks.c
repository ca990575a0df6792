/* The lock list: one row per waited-on lock, with `c2ctui locks -l`'s
 * numbers (store_query_lock_list, the same store query): perf's kind,
 * the lock (its data symbol when known, else the address), waits, total /
 * max / avg wait (avg = total / completed waits, as perf), the caller
 * with the most wait, and the threads and CPUs of its waits. The first
 * view of a session without memory samples (a KVM guest has no memory
 * PMU); `l` from the hot lines otherwise. Enter opens the lock's callers
 * (view_lock.c), `l` the lines holding the locks. */
#include "tui/explorer/view.h"
#include "tui/explorer/view_lockfmt.h"
#include "tui/term/term.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum sort_key { SK_KIND, SK_LOCK, SK_WAITS, SK_TOTAL, SK_MAX, SK_AVG, SK_CALLER, SK_THREADS, SK_CPUS };

enum locks_col { KC_RANK, KC_KIND, KC_LOCK, KC_WAITS, KC_TOTAL, KC_MAX, KC_AVG, KC_CALLER, KC_THREADS,
		 KC_CPUS, KC__COUNT };
/* By importance: narrow terminals drop columns from the right. */
static const struct table_col locks_cols[KC__COUNT] = {
	[KC_RANK]    = { "#", 3, 0, TAL_RIGHT, -1, 0 },
	[KC_KIND]    = { "Kind", 11, 0, TAL_LEFT, SK_KIND, 0 },
	[KC_LOCK]    = { "Lock", 0, 18, TAL_LEFT, SK_LOCK, 0 },
	[KC_WAITS]   = { "Waits", 7, 0, TAL_RIGHT, SK_WAITS, 0 },
	[KC_TOTAL]   = { "Total", 10, 0, TAL_RIGHT, SK_TOTAL, 0 },
	[KC_MAX]     = { "Max", 10, 0, TAL_RIGHT, SK_MAX, 0 },
	[KC_AVG]     = { "Avg", 10, 0, TAL_RIGHT, SK_AVG, 0 },
	[KC_CALLER]  = { "Top caller", 0, 14, TAL_LEFT, SK_CALLER, 0 },
	[KC_THREADS] = { "Thr", 4, 0, TAL_RIGHT, SK_THREADS, 0 },
	[KC_CPUS]    = { "CPUs", 4, 0, TAL_RIGHT, SK_CPUS, 0 },
};

struct locks_priv {
	struct store_lock_list_row *rows;
	size_t n;
};

struct sort_ctx {
	const struct store_lock_list_row *rows;
	int key, desc;
};

static uint64_t key_of(const struct store_lock_list_row *r, int key)
{
	switch (key) {
	case SK_WAITS: return r->s.contended;
	case SK_TOTAL: return r->s.wait_total;
	case SK_MAX: return r->s.wait_max;
	case SK_AVG: return r->s.avg_wait;
	case SK_THREADS: return r->nr_threads;
	case SK_CPUS: return r->nr_cpus;
	case SK_LOCK: return r->s.key;
	default: return 0;
	}
}

static int cmp_row(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	size_t ix = *(const size_t *)a, iy = *(const size_t *)b;
	const struct store_lock_list_row *x = &c->rows[ix], *y = &c->rows[iy];
	char nx[160], ny[160];
	int r = 0;

	if (c->key == SK_KIND) {
		r = strcmp(store_lock_type_str(x->s.flags), store_lock_type_str(y->s.flags));
	} else if (c->key == SK_CALLER) {
		r = strcmp(x->top_caller, y->top_caller);
	} else if (c->key == SK_LOCK) {
		view_lock_name(nx, sizeof(nx), x->s.key, x->s.name);
		view_lock_name(ny, sizeof(ny), y->s.key, y->s.name);
		r = strcmp(nx, ny);
	} else {
		uint64_t kx = key_of(x, c->key), ky = key_of(y, c->key);
		r = kx < ky ? -1 : kx > ky;
	}
	if (!r)   /* ties: the store's order (perf's), whatever the direction */
		return ix < iy ? -1 : ix > iy;
	return c->desc ? -r : r;
}

static int sort_rows(struct view *v, struct locks_priv *p)
{
	struct sort_ctx c = { p->rows, v->table.cols[v->table.sort_col].sort_key, v->table.sort_desc };

	return view_sort_rows((void **)&p->rows, p->n, sizeof(*p->rows), cmp_row, &c);
}

static int locks_open(struct view *v, struct c2c_error *err)
{
	struct locks_priv *p = v->priv;
	int r;

	if (!v->table.cols) {
		table_init(&v->table, locks_cols, KC__COUNT);
		v->table.sort_col = KC_TOTAL;   /* perf's default key, wait_total */
		v->table.sort_desc = 1;
	}
	free(p->rows);
	p->rows = NULL;
	p->n = 0;
	r = store_query_lock_list(v->ex->st, &p->rows, &p->n, err);
	if (r < 0)
		return r;
	if (v->table.sort_col >= 0 && p->n && (r = sort_rows(v, p)) < 0)
		return c2c_error_set(err, r, "out of memory");
	table_set_rows(&v->table, (long)p->n);
	view_table_layout(v);
	return 0;
}

static void locks_close(struct view *v)
{
	struct locks_priv *p = v->priv;

	free(p->rows);
	p->rows = NULL;
	p->n = 0;
}

static void locks_draw_row(struct view *v, long row, int selected)
{
	struct locks_priv *p = v->priv;
	struct table_cell cells[KC__COUNT];
	char b[KC__COUNT][200];
	const struct store_lock_list_row *r;
	int y = v->y + 1 + (int)(row - v->table.top);

	if (row < 0 || row >= (long)p->n) {
		term_blank(y, 0, v->w, TH_NORMAL);
		return;
	}
	r = &p->rows[row];
	memset(cells, 0, sizeof(cells));
	snprintf(b[KC_RANK], sizeof(b[0]), "%ld", row);
	snprintf(b[KC_KIND], sizeof(b[0]), "%s", store_lock_type_str(r->s.flags));
	view_lock_name(b[KC_LOCK], sizeof(b[0]), r->s.key, r->s.name);
	snprintf(b[KC_WAITS], sizeof(b[0]), "%" PRIu64, r->s.contended);
	view_lock_time(b[KC_TOTAL], sizeof(b[0]), r->s.wait_total);
	view_lock_time(b[KC_MAX], sizeof(b[0]), r->s.wait_max);
	view_lock_time(b[KC_AVG], sizeof(b[0]), r->s.avg_wait);
	snprintf(b[KC_CALLER], sizeof(b[0]), "%s", r->top_caller[0] ? r->top_caller : "-");
	snprintf(b[KC_THREADS], sizeof(b[0]), "%u", r->nr_threads);
	snprintf(b[KC_CPUS], sizeof(b[0]), "%u", r->nr_cpus);
	for (int i = 0; i < KC__COUNT; i++)
		cells[i].text = b[i];
	table_draw_row(&v->table, y, cells, selected);
}

static void locks_draw(struct view *v)
{
	struct locks_priv *p = v->priv;

	view_table_draw(v);
	if (!p->n && v->h > 2)
		term_field(v->y + 2, 2, v->w - 2, TH_HEADER_LABEL,
			   "No lock waits in this session (no lock:contention_begin/end recorded).");
}

static void locks_title(struct view *v, char *buf, size_t size)
{
	struct locks_priv *p = v->priv;
	const struct table *t = &v->table;
	uint64_t waits = 0, total = 0;

	for (size_t i = 0; i < p->n; i++) {
		waits += p->rows[i].s.contended;
		total += p->rows[i].s.wait_total;
	}
	snprintf(buf, size, "Locks: %zu waited on, %" PRIu64 " waits, %.3f ms  (sort: %s %s)", p->n, waits,
		 (double)total / 1e6, t->sort_col >= 0 ? t->cols[t->sort_col].title : "-",
		 t->sort_desc ? "desc" : "asc");
}

static enum view_result locks_action(struct view *v, enum action a, struct view_reply *reply)
{
	struct locks_priv *p = v->priv;

	if (a == ACT_LOCK_LINES) {
		/* the lines holding the locks, with their lock columns first */
		view_reply_push(reply, VK_LINES)->line = STORE_ALL_LINES;
		return VIEW_HANDLED | VIEW_PUSH;
	}
	if (a != ACT_ENTER)
		return VIEW_UNHANDLED;
	if (v->table.cursor < 0 || v->table.cursor >= (long)p->n)
		return VIEW_HANDLED;
	view_reply_push(reply, VK_LOCK)->line = p->rows[v->table.cursor].s.key;
	return VIEW_HANDLED | VIEW_PUSH;
}

/* A substring of what a row shows: kind, lock name or address, caller. */
static int locks_search(struct view *v, const char *text, int dir, struct c2c_error *err)
{
	struct locks_priv *p = v->priv;
	long n = (long)p->n;
	char name[200], addr[32];

	(void)err;
	for (long k = 1; k <= n; k++) {
		long row = ((v->table.cursor + dir * k) % n + n) % n;
		const struct store_lock_list_row *r = &p->rows[row];
		view_lock_name(name, sizeof(name), r->s.key, r->s.name);
		snprintf(addr, sizeof(addr), "0x%" PRIx64, r->s.key);
		if (view_contains(name, text) || view_contains(addr, text) || view_contains(r->top_caller, text) ||
		    view_contains(store_lock_type_str(r->s.flags), text)) {
			table_goto(&v->table, row);
			return 1;
		}
	}
	return 0;
}

const struct view_ops view_locks_ops = {
	.name = "locks",
	.priv_size = sizeof(struct locks_priv),
	.open = locks_open,
	.close = locks_close,
	.draw = locks_draw,
	.draw_row = locks_draw_row,
	.action = locks_action,
	.search = locks_search,
	.title = locks_title,
};
