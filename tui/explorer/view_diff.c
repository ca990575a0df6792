/* Diff views: the matched lines of two sessions (before -> after, deltas
 * coloured: better green, worse red; lines matched by their members show
 * split / merged with the after lines), and the layout of a type in both
 * builds side by side (Enter on a line), members aligned by name, so a
 * member that moved to its own cache line is marked and shows its HITM
 * gone. The rows come from store/diff/diff.h, computed on open. */
#include "tui/explorer/view.h"
#include "collector/base/appendf.h"
#include "tui/term/term.h"
#include "tui/explorer/view_diff.h"
#include "tui/explorer/view_layout.h"

#include "store/types/typeinfo.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- matched lines ---- */

enum { DC_KEY, DC_STATUS, DC_HITM_B, DC_HITM_A, DC_DELTA, DC_HS_B, DC_HS_A, DC_LD, DC_ST,
       DC_VERDICT, DC__COUNT };
static const struct table_col diff_cols[DC__COUNT] = {
	[DC_KEY]     = { "Line (matched by)", 0, 18, TAL_LEFT, -1, 0 },
	[DC_STATUS]  = { "Status", 14, 0, TAL_LEFT, -1, 0 },
	[DC_HITM_B]  = { "Hitm b", 7, 0, TAL_RIGHT, -1, 0 },
	[DC_HITM_A]  = { "Hitm a", 7, 0, TAL_RIGHT, -1, 0 },
	[DC_DELTA]   = { "Chg", 6, 0, TAL_RIGHT, -1, 0 },
	[DC_HS_B]    = { "Hitm/s b", 9, 0, TAL_RIGHT, -1, 0 },
	[DC_HS_A]    = { "Hitm/s a", 9, 0, TAL_RIGHT, -1, 0 },
	[DC_LD]      = { "Loads b>a", 11, 0, TAL_RIGHT, -1, 0 },
	[DC_ST]      = { "Stores b>a", 11, 0, TAL_RIGHT, -1, 0 },
	[DC_VERDICT] = { "Verdict b>a", 14, 0, TAL_LEFT, -1, 0 },
};

/* The view recomputes the diff on every open (refresh, or after a type was
 * assigned by hand), so it owns its result. */
struct diff_priv {
	struct diff_result r;
	bool have;
	/* table rows: a matched line, or under a split / merged one each of
	 * its lines (part >= 0) with the members sampled on it */
	struct drow {
		uint32_t line;
		int32_t part;
	} *rows;
	size_t nrows;
};

/* The line a table row belongs to (NULL past the end). */
static const struct diff_line_row *row_line(struct view *v, long row, int32_t *part)
{
	struct diff_priv *p = v->priv;

	if (row < 0 || row >= (long)p->nrows)
		return NULL;
	if (part)
		*part = p->rows[row].part;
	return &p->r.lines[p->rows[row].line];
}

static const struct diff_result *result_of(struct view *v)
{
	struct diff_priv *p = v->priv;
	return &p->r;
}

static int diff_open(struct view *v, struct c2c_error *err)
{
	struct diff_priv *p = v->priv;
	const struct view_diff_arg *a = v->q.arg;
	int rc;

	if (!v->table.cols)
		table_init(&v->table, diff_cols, DC__COUNT);
	if (p->have)
		diff_result_fini(&p->r);
	p->have = false;
	rc = diff_sessions(a->before, a->after, &p->r, err);
	if (rc < 0)
		return rc;
	p->have = true;
	free(p->rows);
	p->nrows = 0;
	for (size_t i = 0; i < p->r.nlines; i++)
		p->nrows += 1 + p->r.lines[i].nparts;
	p->rows = calloc(p->nrows ? p->nrows : 1, sizeof(*p->rows));
	if (!p->rows)
		return c2c_error_set(err, -12, "out of memory");
	p->nrows = 0;
	for (size_t i = 0; i < p->r.nlines; i++)
		for (int32_t k = -1; k < (int32_t)p->r.lines[i].nparts; k++)
			p->rows[p->nrows++] = (struct drow){ (uint32_t)i, k };
	view_table_layout(v);
	table_set_rows(&v->table, (long)p->nrows);
	return 0;
}

static void num(char *buf, size_t len, const struct diff_vals *d, uint64_t x)
{
	if (d->present)
		text_count(buf, len, x, 7);
	else
		snprintf(buf, len, "-");
}

static void diff_draw_row(struct view *v, long row, int selected)
{
	int y = v->y + 1 + (int)(row - v->table.top);
	struct table_cell cells[DC__COUNT];
	char b[DC__COUNT][48], key[240];
	const struct diff_line_row *l;
	int32_t part = -1;

	if (row < v->table.top || row >= v->table.top + v->table.height)
		return;
	if (!(l = row_line(v, row, &part))) {
		term_blank(y, 0, v->w, TH_NORMAL);
		return;
	}
	memset(cells, 0, sizeof(cells));
	memset(b, 0, sizeof(b));
	if (part >= 0) {
		/* one line of the group: its own side's numbers, its members */
		const struct diff_line_part *pt = &l->parts[part];
		snprintf(key, sizeof(key), "  %s %s", pt->after ? "a" : "b", pt->key);
		num(b[pt->after ? DC_HITM_A : DC_HITM_B], sizeof(b[0]), &pt->v, pt->v.hitm);
		snprintf(b[DC_LD], sizeof(b[0]), pt->after ? ">%llu" : "%llu>", (unsigned long long)pt->v.loads);
		snprintf(b[DC_ST], sizeof(b[0]), pt->after ? ">%llu" : "%llu>", (unsigned long long)pt->v.stores);
		snprintf(b[DC_VERDICT], sizeof(b[0]), pt->after ? ">%s" : "%s>",
			 layout_verdict_key(pt->v.verdict));
		cells[DC_KEY].text = key;
		for (int i = 1; i < DC__COUNT; i++)
			cells[i].text = b[i];
		cells[DC_STATUS].text = pt->members;
		table_draw_row(&v->table, y, cells, selected);
		return;
	}
	/* a split / merged group: its main line; all its lines are the rows below */
	if (l->nparts)
		snprintf(key, sizeof(key), "%.*s", (int)strcspn(l->key, ","), l->key);
	else
		snprintf(key, sizeof(key), "%s (%s)", l->key, l->how);
	snprintf(b[DC_STATUS], sizeof(b[0]), "%s", diff_status_name(l->status));
	num(b[DC_HITM_B], sizeof(b[0]), &l->b, l->b.hitm);
	num(b[DC_HITM_A], sizeof(b[0]), &l->a, l->a.hitm);
	if (l->b.present && l->a.present)
		snprintf(b[DC_DELTA], sizeof(b[0]), "%+lld", (long long)l->a.hitm - (long long)l->b.hitm);
	else
		snprintf(b[DC_DELTA], sizeof(b[0]), "-");
	if (l->b.present)
		snprintf(b[DC_HS_B], sizeof(b[0]), "%.1f", l->b.hitm_per_s);
	else
		snprintf(b[DC_HS_B], sizeof(b[0]), "-");
	if (l->a.present)
		snprintf(b[DC_HS_A], sizeof(b[0]), "%.1f", l->a.hitm_per_s);
	else
		snprintf(b[DC_HS_A], sizeof(b[0]), "-");
	snprintf(b[DC_LD], sizeof(b[0]), "%llu>%llu", (unsigned long long)l->b.loads,
		 (unsigned long long)l->a.loads);
	snprintf(b[DC_ST], sizeof(b[0]), "%llu>%llu", (unsigned long long)l->b.stores,
		 (unsigned long long)l->a.stores);
	snprintf(b[DC_VERDICT], sizeof(b[0]), "%s>%s",
		 l->b.present ? layout_verdict_key(l->b.verdict) : "-",
		 l->a.present ? layout_verdict_key(l->a.verdict) : "-");
	cells[DC_KEY].text = key;
	for (int i = 1; i < DC__COUNT; i++)
		cells[i].text = b[i];
	/* the change coloured by whether it is better (fewer HITM per second) */
	if (l->b.present && l->a.present && l->a.hitm_per_s < l->b.hitm_per_s)
		cells[DC_DELTA].elem = TH_HEAT1;
	else if (l->a.present && (!l->b.present || l->a.hitm_per_s > l->b.hitm_per_s))
		cells[DC_DELTA].elem = TH_HEAT4;
	table_draw_row(&v->table, y, cells, selected);
}

static void diff_draw(struct view *v)
{
	view_table_draw(v);
}

static void diff_title(struct view *v, char *buf, size_t size)
{
	const struct diff_result *r = result_of(v);
	size_t len = 0;

	/* Either session not complete: said first (the header says why for
	 * the after session; report --diff says it for both). */
	if (r->before.status.state != STORE_STATE_COMPLETE || r->after.status.state != STORE_STATE_COMPLETE)
		len = c2c_appendf(buf, size, 0, "[before: %s session, after: %s session] ",
				  r->before.status.state_name, r->after.status.state_name);
	c2c_appendf(buf, size, len, "Diff: %zu lines; before %.2f s %llu HITM, after %.2f s %llu HITM "
		 "[Enter: layout before|after, C: code by function, a: assign type]", r->nlines, r->before.seconds,
		 (unsigned long long)r->before.hitm, r->after.seconds,
		 (unsigned long long)r->after.hitm);
}

/* The type of a line: "TYPE+off" keys name it; else the attributed object
 * on the line in either session. */
static int line_type(struct view *v, const struct diff_line_row *l, char *type, size_t len)
{
	const struct view_diff_arg *a = v->q.arg;
	uint64_t obj;

	if (l->type[0]) {
		snprintf(type, len, "%s", l->type);
		return 0;
	}
	if (!strcmp(l->how, "type")) {
		const char *plus = strrchr(l->key, '+');
		const char *minus = strrchr(l->key, '-');
		const char *cut = plus && (!minus || plus > minus) ? plus : minus;
		snprintf(type, len, "%.*s", cut ? (int)(cut - l->key) : (int)strlen(l->key), l->key);
		return 0;
	}
	if (l->b.present && typeinfo_line_object(a->before, l->b.addr, type, len, &obj) == 0)
		return 0;
	if (l->a.present && typeinfo_line_object(a->after, l->a.addr, type, len, &obj) == 0)
		return 0;
	return -1;
}

struct layout_arg {
	struct view_diff_arg d;
	char type[128];
};

/* 'a': pick the struct the selected line's object is (the before session's
 * object when the line exists there). The base address is the attributed
 * object's start when known, else the line's address; '/' @0xADDR in the
 * list changes it. */
static enum view_result assign_line(struct view *v, struct view_reply *reply)
{
	const struct view_diff_arg *a = v->q.arg;
	static struct view_assign_arg arg;
	const struct diff_line_row *l = row_line(v, v->table.cursor, NULL);
	char type[128];
	uint64_t obj;

	if (!l)
		return VIEW_HANDLED;
	memset(&arg, 0, sizeof(arg));
	arg.st = l->b.present ? a->before : a->after;
	arg.base = l->b.present ? l->b.addr : l->a.addr;
	snprintf(arg.session, sizeof(arg.session), "%s", l->b.present ? "before" : "after");
	if (typeinfo_line_object(arg.st, arg.base, type, sizeof(type), &obj) == 0)
		arg.base = obj;
	view_reply_push(reply, VK_ASSIGN)->arg = &arg;
	return VIEW_HANDLED | VIEW_PUSH;
}

static enum view_result diff_action(struct view *v, enum action act, struct view_reply *reply)
{
	const struct diff_result *r = result_of(v);
	static struct layout_arg la;   /* one layout view at a time on the stack */

	if (act == ACT_ASSIGN)
		return assign_line(v, reply);
	if (act == ACT_DIFF_FUNCTIONS) {
		static struct view_diff_arg fa;   /* the functions view borrows this result */
		fa = *(const struct view_diff_arg *)v->q.arg;
		fa.result = r;
		view_reply_push(reply, VK_DIFF_FUNCS)->arg = &fa;
		return VIEW_HANDLED | VIEW_PUSH;
	}
	if (act != ACT_ENTER && act != ACT_DIFF_LAYOUTS)
		return VIEW_UNHANDLED;
	if (!row_line(v, v->table.cursor, NULL))
		return VIEW_HANDLED;
	la.d = *(const struct view_diff_arg *)v->q.arg;
	la.d.result = r;
	if (line_type(v, row_line(v, v->table.cursor, NULL), la.type, sizeof(la.type)) < 0) {
		view_reply_message(reply, 1, "no type is known for this line");
		return VIEW_HANDLED;
	}
	view_reply_push(reply, VK_DIFF_LAYOUT)->arg = &la;
	return VIEW_HANDLED | VIEW_PUSH;
}

static int diff_search(struct view *v, const char *text, int dir, struct c2c_error *err)
{
	struct diff_priv *p = v->priv;
	long n = (long)p->nrows;

	(void)err;
	for (long k = 1; k <= n; k++) {
		long row = ((v->table.cursor + dir * k) % n + n) % n;
		int32_t part = -1;
		const struct diff_line_row *l = row_line(v, row, &part);
		if (view_match(text, part >= 0 ? l->parts[part].key : l->key, 0, 0)) {
			table_goto(&v->table, row);
			return 1;
		}
	}
	return 0;
}

static void diff_close(struct view *v)
{
	struct diff_priv *p = v->priv;

	if (p->have)
		diff_result_fini(&p->r);
	p->have = false;
	free(p->rows);
	p->rows = NULL;
	p->nrows = 0;
}

const struct view_ops view_diff_ops = {
	.name = "diff",
	.priv_size = sizeof(struct diff_priv),
	.open = diff_open,
	.close = diff_close,
	.draw = diff_draw,
	.draw_row = diff_draw_row,
	.action = diff_action,
	.search = diff_search,
	.title = diff_title,
};

/* ---- one type's layout, before | after ---- */

enum { LC_MEMBER, LC_OFF_B, LC_LINE_B, LC_HITM_B, LC_FS_B, LC_SEP, LC_OFF_A, LC_LINE_A, LC_HITM_A,
       LC_FS_A, LC_ST, LC_VERDICT, LC_MOVED, LC__COUNT };
static const struct table_col lay_cols[LC__COUNT] = {
	[LC_MEMBER] = { "Member", 0, 14, TAL_LEFT, -1, 0 },
	[LC_OFF_B]  = { "Off b", 6, 0, TAL_RIGHT, -1, 0 },
	[LC_LINE_B] = { "CL b", 4, 0, TAL_RIGHT, -1, 0 },
	[LC_HITM_B] = { "Hitm b", 7, 0, TAL_RIGHT, -1, 0 },
	[LC_FS_B]   = { "", 3, 0, TAL_LEFT, -1, 0 },
	[LC_SEP]    = { "|", 1, 0, TAL_LEFT, -1, 0 },
	[LC_OFF_A]  = { "Off a", 6, 0, TAL_RIGHT, -1, 0 },
	[LC_LINE_A] = { "CL a", 4, 0, TAL_RIGHT, -1, 0 },
	[LC_HITM_A] = { "Hitm a", 7, 0, TAL_RIGHT, -1, 0 },
	[LC_FS_A]   = { "", 3, 0, TAL_LEFT, -1, 0 },
	[LC_ST]     = { "Stores b>a", 11, 0, TAL_RIGHT, -1, 0 },
	[LC_VERDICT] = { "Line b>a", 11, 0, TAL_LEFT, -1, 0 },
	[LC_MOVED]  = { "Moved", 9, 0, TAL_LEFT, -1, 0 },
};

struct lay_priv {
	const struct diff_member_row **rows;
	size_t n;
};

static int lay_open(struct view *v, struct c2c_error *err)
{
	struct lay_priv *p = v->priv;
	const struct layout_arg *la = v->q.arg;
	const struct diff_result *r = la->d.result;

	if (!v->table.cols)
		table_init(&v->table, lay_cols, LC__COUNT);
	free(p->rows);
	p->n = 0;
	p->rows = calloc(r->nmembers ? r->nmembers : 1, sizeof(*p->rows));
	if (!p->rows)
		return c2c_error_set(err, -12, "out of memory");
	for (size_t i = 0; i < r->nmembers; i++)
		if (!strcmp(r->members[i].type, la->type))
			p->rows[p->n++] = &r->members[i];
	view_table_layout(v);
	table_set_rows(&v->table, (long)p->n);
	return 0;
}

static void lay_close(struct view *v)
{
	struct lay_priv *p = v->priv;
	free(p->rows);
	p->rows = NULL;
}

static void lay_draw_row(struct view *v, long row, int selected)
{
	struct lay_priv *p = v->priv;
	int y = v->y + 1 + (int)(row - v->table.top);
	struct table_cell cells[LC__COUNT];
	char b[LC__COUNT][48], name[160];
	const struct diff_member_row *m;

	if (row < v->table.top || row >= v->table.top + v->table.height)
		return;
	if (row >= (long)p->n) {
		term_blank(y, 0, v->w, TH_NORMAL);
		return;
	}
	m = p->rows[row];
	memset(cells, 0, sizeof(cells));
	memset(b, 0, sizeof(b));
	snprintf(name, sizeof(name), "%*s%s", (int)(2 * m->depth), "", m->member);
	if (m->b.present) {
		snprintf(b[LC_OFF_B], sizeof(b[0]), "%llu", (unsigned long long)m->off_b);
		snprintf(b[LC_LINE_B], sizeof(b[0]), "%u", m->line_b);
		text_count(b[LC_HITM_B], sizeof(b[0]), m->b.hitm, 7);
		snprintf(b[LC_FS_B], sizeof(b[0]), "%s", m->fs_b ? "FS" : "");
	}
	if (m->a.present) {
		snprintf(b[LC_OFF_A], sizeof(b[0]), "%llu", (unsigned long long)m->off_a);
		snprintf(b[LC_LINE_A], sizeof(b[0]), "%u", m->line_a);
		text_count(b[LC_HITM_A], sizeof(b[0]), m->a.hitm, 7);
		snprintf(b[LC_FS_A], sizeof(b[0]), "%s", m->fs_a ? "FS" : "");
	}
	snprintf(b[LC_SEP], sizeof(b[0]), "|");
	snprintf(b[LC_ST], sizeof(b[0]), "%llu>%llu", (unsigned long long)m->b.stores,
		 (unsigned long long)m->a.stores);
	/* the verdict of the line the member's samples sit on, and the mark
	 * of a member that changed cache line */
	if (m->b.records || m->a.records)
		snprintf(b[LC_VERDICT], sizeof(b[0]), "%s>%s",
			 m->b.present ? layout_verdict_key(m->b.verdict) : "-",
			 m->a.present ? layout_verdict_key(m->a.verdict) : "-");
	if (m->moved)
		snprintf(b[LC_MOVED], sizeof(b[0]), "moved %u>%u", m->line_b, m->line_a);
	else if (m->status != DIFF_MATCHED)
		snprintf(b[LC_MOVED], sizeof(b[0]), "%s", m->status == DIFF_APPEARED ? "new" : "gone");
	cells[LC_MEMBER].text = name;
	for (int i = 1; i < LC__COUNT; i++)
		cells[i].text = b[i];
	if (m->fs_b)
		cells[LC_FS_B].elem = TH_HEAT4;
	if (m->fs_a)
		cells[LC_FS_A].elem = TH_HEAT4;
	/* a member that changed cache line, highlighted on the after side */
	if (m->moved) {
		cells[LC_LINE_A].elem = TH_HEAT2;
		cells[LC_MOVED].elem = TH_HEAT2;
	}
	if (m->b.hitm && m->a.present && m->a.hitm < m->b.hitm)
		cells[LC_HITM_A].elem = TH_HEAT1;
	table_draw_row(&v->table, y, cells, selected);
}

static void lay_draw(struct view *v)
{
	view_table_draw(v);
}

static void lay_title(struct view *v, char *buf, size_t size)
{
	struct lay_priv *p = v->priv;
	const struct layout_arg *la = v->q.arg;

	size_t moved = 0;

	for (size_t i = 0; i < p->n; i++)
		moved += p->rows[i]->moved;
	snprintf(buf, size, "Layout of %s: before | after, %zu members aligned by name, %zu moved "
		 "(CL: cache line, FS: false-sharing candidate) [Enter: before, Tab: after]",
		 la->type, p->n, moved);
}

/* Enter: the before build's layout of the type with its statistics, flags
 * and proposal; Tab: the after build's. */
static enum view_result lay_action(struct view *v, enum action act, struct view_reply *reply)
{
	const struct layout_arg *la = v->q.arg;
	static struct view_layout_arg one;

	if (act != ACT_ENTER && act != ACT_BEFORE_LAYOUT && act != ACT_AFTER_LAYOUT)
		return VIEW_UNHANDLED;
	one.st = act == ACT_AFTER_LAYOUT ? la->d.after : la->d.before;
	snprintf(one.type, sizeof(one.type), "%s", la->type);
	view_reply_push(reply, VK_LAYOUT)->arg = &one;
	return VIEW_HANDLED | VIEW_PUSH;
}

static int lay_search(struct view *v, const char *text, int dir, struct c2c_error *err)
{
	struct lay_priv *p = v->priv;
	long n = (long)p->n;

	(void)err;
	for (long k = 1; k <= n; k++) {
		long row = ((v->table.cursor + dir * k) % n + n) % n;
		if (view_match(text, p->rows[row]->member, 0, 0)) {
			table_goto(&v->table, row);
			return 1;
		}
	}
	return 0;
}

const struct view_ops view_diff_layout_ops = {
	.name = "difflayout",
	.priv_size = sizeof(struct lay_priv),
	.open = lay_open,
	.close = lay_close,
	.draw = lay_draw,
	.draw_row = lay_draw_row,
	.action = lay_action,
	.search = lay_search,
	.title = lay_title,
};
