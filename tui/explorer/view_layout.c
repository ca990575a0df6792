/* Layout of one type in one session: the pahole-like rows with per-member
 * loads, stores, HITM, CPUs, threads and sites (heat-coloured), the
 * false-sharing flags with their evidence, and below it the proposed
 * layout with the what-if estimate (a suggestion with its reasoning, never
 * applied). `report --layout TYPE` prints the same proposal text
 * (tui/report/layout_text.h). */
#include "tui/term/term.h"
#include "tui/explorer/view.h"
#include "tui/explorer/view_layout.h"
#include "tui/report/layout_text.h"
#include "tui/report/verdict_text.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/layout/layout.h"
#include "store/types/typeinfo.h"
#include "store/types/typeinfo_ensure.h"

/* ---- the TUI view: one type's layout in one session ---- */

enum { YC_OFF, YC_SIZE, YC_MEMBER, YC_LOADS, YC_STORES, YC_LCL, YC_RMT, YC_CPUS, YC_THR, YC_SITES,
       YC_HEAT, YC_FLAG, YC__COUNT };
static const struct table_col lay_cols[YC__COUNT] = {
	[YC_OFF]    = { "Offset", 7, 0, TAL_RIGHT, -1, 0 },
	[YC_SIZE]   = { "Size", 4, 0, TAL_RIGHT, -1, 0 },
	[YC_MEMBER] = { "Member", 0, 14, TAL_LEFT, -1, 0 },
	[YC_LOADS]  = { "Loads", 7, 0, TAL_RIGHT, -1, 0 },
	[YC_STORES] = { "Stores", 7, 0, TAL_RIGHT, -1, 0 },
	[YC_LCL]    = { "Lcl", 5, 0, TAL_RIGHT, -1, 0 },
	[YC_RMT]    = { "Rmt", 5, 0, TAL_RIGHT, -1, 0 },
	[YC_CPUS]   = { "CPUs", 4, 0, TAL_RIGHT, -1, 0 },
	[YC_THR]    = { "Thr", 4, 0, TAL_RIGHT, -1, 0 },
	[YC_SITES]  = { "Sites", 5, 0, TAL_RIGHT, -1, 0 },
	[YC_HEAT]   = { "Heat", 8, 0, TAL_LEFT, -1, 1 },
	[YC_FLAG]   = { "Flag", 6, 0, TAL_LEFT, -1, 0 },
};

enum yrow_kind { YR_MEMBER, YR_PART, YR_BOUNDARY, YR_HOLE, YR_TEXT };

struct yrow {
	enum yrow_kind kind;
	long idx;               /* layout row */
	uint32_t part;          /* YR_PART: the row's part (one cache line of it) */
	char *text;
};

struct ylay_priv {
	struct layout l;
	bool have;
	struct yrow *rows;
	size_t n, cap;
	uint64_t max_heat;
};

static void yadd(struct ylay_priv *p, enum yrow_kind k, long idx, const char *text)
{
	if (p->n == p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 64;
		struct yrow *r = realloc(p->rows, nc * sizeof(*r));
		if (!r)
			return;
		p->rows = r;
		p->cap = nc;
	}
	p->rows[p->n].kind = k;
	p->rows[p->n].idx = idx;
	p->rows[p->n].part = 0;
	p->rows[p->n].text = text ? strdup(text) : NULL;
	p->n++;
}

static void yline(void *ctx, const char *text)
{
	yadd(ctx, YR_TEXT, -1, text);
}

static void yfree(struct ylay_priv *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->rows[i].text);
	free(p->rows);
	p->rows = NULL;
	p->n = p->cap = 0;
	if (p->have)
		layout_fini(&p->l);
	p->have = false;
}

/* The contended lines holding this type, with their evidence (the words
 * of report --verdicts). One scan of the session's samples; nothing shown
 * when it fails (the layout stands without it). */
static void ylay_verdicts(struct ylay_priv *p, struct store *st)
{
	struct typeinfo_verdict_row *v;
	struct c2c_error err = { 0 };
	size_t n, shown = 0;

	if (typeinfo_query_verdicts(st, &v, &n, &err) < 0)
		return;
	for (size_t i = 0; i < n && shown < 8; i++) {
		char t[400], label[48];
		if (strcmp(v[i].type, p->l.type_name) || !layout_verdict_contended(v[i].v.verdict))
			continue;
		if (!shown++)
			yadd(p, YR_TEXT, -1, "Contended lines of this type (report --verdicts):");
		verdict_label(&v[i], label, sizeof(label));
		/* no address: heap objects move between runs; the members say
		 * which line it is */
		snprintf(t, sizeof(t), "  %s sharing: %s", label, v[i].keys);
		yadd(p, YR_TEXT, -1, t);
		verdict_evidence_text(&v[i], yline, p);
	}
	if (shown)
		yadd(p, YR_TEXT, -1, "");
	free(v);
}

static int ylay_open(struct view *v, struct c2c_error *err)
{
	struct ylay_priv *p = v->priv;
	const struct view_layout_arg *a = v->q.arg;
	struct layout_access *acc = NULL;
	size_t nacc = 0;
	uint32_t last_line = 0;
	struct layout_plan plan;
	struct layout_whatif w;

	if (!v->table.cols)
		table_init(&v->table, lay_cols, YC__COUNT);
	yfree(p);
	if (typeinfo_layout(a->st, a->type, &p->l, &acc, &nacc, err) < 0)
		return -1;
	p->have = true;
	p->max_heat = 1;
	if (p->l.base_misalign) {
		char t[96];
		snprintf(t, sizeof(t), "/* --- objects start %u bytes into cacheline 0 --- */",
			 p->l.base_misalign);
		yadd(p, YR_BOUNDARY, -1, t);
	}
	for (size_t i = 0; i < p->l.nrows; i++) {
		const struct layout_row *r = &p->l.rows[i];
		uint64_t heat = r->lcl_hitm + r->rmt_hitm + r->stores;
		char t[96];
		if (r->leaf && heat > p->max_heat)
			p->max_heat = heat;
		/* pahole's comment where a line begins (as report --layout prints it) */
		if (layout_boundary_text(&p->l, i, &last_line, t, sizeof(t)))
			yadd(p, YR_BOUNDARY, -1, t);
		yadd(p, YR_MEMBER, (long)i, NULL);
		/* a touched member across a boundary: one row per line, with that
		 * line's counts (as report --layout prints them) */
		for (uint32_t k = 0; r->nparts > 1 && (r->loads || r->stores) && k < r->nparts; k++) {
			yadd(p, YR_PART, (long)i, NULL);
			p->rows[p->n - 1].part = k;
		}
		if (r->depth == 0 && r->hole_after) {
			snprintf(t, sizeof(t), "/* %llu byte hole */", (unsigned long long)r->hole_after);
			yadd(p, YR_HOLE, -1, t);
		}
	}
	yadd(p, YR_TEXT, -1, "");
	for (size_t i = 0; i < p->l.nrows; i++)
		if (p->l.rows[i].fs_flag) {
			char t[400];
			snprintf(t, sizeof(t), "FS %s: %s", p->l.rows[i].name, p->l.rows[i].evidence);
			yadd(p, YR_TEXT, -1, t);
		}
	ylay_verdicts(p, a->st);
	if (layout_propose(&plan, &p->l) == 0) {
		if (layout_whatif(&p->l, &plan, acc, nacc, typeinfo_min_evidence(a->st), &w) == 0) {
			yadd(p, YR_TEXT, -1, "");
			plan_text(&p->l, &plan, &w, NULL, yline, p);
			layout_whatif_fini(&w);
		}
		layout_plan_fini(&plan);
	}
	free(acc);
	view_table_layout(v);
	table_set_rows(&v->table, (long)p->n);
	return 0;
}

static void ylay_close(struct view *v)
{
	yfree(v->priv);
}

/* One cache line's part of a member that straddles a boundary. */
static void ylay_draw_part(struct view *v, int y, const struct layout_row *r,
			   const struct layout_part *pt, int selected)
{
	struct ylay_priv *p = v->priv;
	struct table_cell cells[YC__COUNT];
	char b[YC__COUNT][48], name[200];
	uint64_t heat = pt->lcl_hitm + pt->rmt_hitm + pt->stores;

	memset(cells, 0, sizeof(cells));
	memset(b, 0, sizeof(b));
	snprintf(b[YC_OFF], sizeof(b[0]), "%llu", (unsigned long long)pt->offset);
	snprintf(b[YC_SIZE], sizeof(b[0]), "%llu", (unsigned long long)pt->size);
	snprintf(name, sizeof(name), "%*s%.100s @ line %u", (int)(2 * (r->depth % 8) + 2), "", r->name,
		 pt->line);
	text_count(b[YC_LOADS], sizeof(b[0]), pt->loads, 7);
	text_count(b[YC_STORES], sizeof(b[0]), pt->stores, 7);
	text_count(b[YC_LCL], sizeof(b[0]), pt->lcl_hitm, 5);
	text_count(b[YC_RMT], sizeof(b[0]), pt->rmt_hitm, 5);
	snprintf(b[YC_FLAG], sizeof(b[0]), "%s", pt->fs_victim ? "victim" : "");
	for (int i = 0; i < YC__COUNT; i++)
		cells[i].text = b[i];
	cells[YC_MEMBER].text = name;
	cells[YC_HEAT].bar = (double)heat / (double)p->max_heat;
	if (cells[YC_HEAT].bar > 1)
		cells[YC_HEAT].bar = 1;
	cells[YC_HEAT].heat = cells[YC_HEAT].bar;
	if (pt->fs_victim)
		cells[YC_FLAG].elem = TH_HEAT2;
	table_draw_row(&v->table, y, cells, selected);
}

static void ylay_draw_row(struct view *v, long row, int selected)
{
	struct ylay_priv *p = v->priv;
	int y = v->y + 1 + (int)(row - v->table.top);
	struct table_cell cells[YC__COUNT];
	char b[YC__COUNT][48], name[200];
	const struct yrow *yr;
	const struct layout_row *r;
	uint64_t heat;

	if (row < v->table.top || row >= v->table.top + v->table.height)
		return;
	if (row >= (long)p->n) {
		term_blank(y, 0, v->w, TH_NORMAL);
		return;
	}
	yr = &p->rows[row];
	if (yr->kind != YR_MEMBER && yr->kind != YR_PART) {
		term_blank(y, 0, v->w, selected ? TH_SELECTED : TH_NORMAL);
		term_text(y, yr->kind == YR_TEXT ? 1 : 8, v->w - 9,
			  selected ? TH_SELECTED : yr->kind == YR_BOUNDARY ? TH_COLHEAD : TH_NORMAL,
			  yr->text ? yr->text : "");
		return;
	}
	r = &p->l.rows[yr->idx];
	memset(cells, 0, sizeof(cells));
	if (yr->kind == YR_PART) {
		ylay_draw_part(v, y, r, &r->parts[yr->part], selected);
		return;
	}
	if (r->bit_size)
		snprintf(b[YC_OFF], sizeof(b[0]), "%llu:%u", (unsigned long long)r->offset, r->bit_offset);
	else
		snprintf(b[YC_OFF], sizeof(b[0]), "%llu", (unsigned long long)r->offset);
	snprintf(b[YC_SIZE], sizeof(b[0]), "%llu", (unsigned long long)r->size);
	snprintf(name, sizeof(name), "%*s%.100s %.60s", (int)(2 * (r->depth % 8)), "", r->name, r->type);
	text_count(b[YC_LOADS], sizeof(b[0]), r->loads, 7);
	text_count(b[YC_STORES], sizeof(b[0]), r->stores, 7);
	text_count(b[YC_LCL], sizeof(b[0]), r->lcl_hitm, 5);
	text_count(b[YC_RMT], sizeof(b[0]), r->rmt_hitm, 5);
	snprintf(b[YC_CPUS], sizeof(b[0]), "%u", r->cpus.n);
	snprintf(b[YC_THR], sizeof(b[0]), "%u", r->threads.n);
	snprintf(b[YC_SITES], sizeof(b[0]), "%u", r->sites.n);
	snprintf(b[YC_FLAG], sizeof(b[0]), "%s", r->fs_flag ? "FS" : r->fs_victim ? "victim" : "");
	b[YC_HEAT][0] = 0;
	for (int i = 0; i < YC__COUNT; i++)
		cells[i].text = b[i];
	cells[YC_MEMBER].text = name;
	heat = r->lcl_hitm + r->rmt_hitm + r->stores;
	cells[YC_HEAT].bar = (double)heat / (double)p->max_heat;
	if (cells[YC_HEAT].bar > 1)
		cells[YC_HEAT].bar = 1;
	cells[YC_HEAT].heat = cells[YC_HEAT].bar;
	if (r->fs_flag)
		cells[YC_FLAG].elem = TH_HEAT4;
	else if (r->fs_victim)
		cells[YC_FLAG].elem = TH_HEAT2;
	table_draw_row(&v->table, y, cells, selected);
}

static void ylay_draw(struct view *v)
{
	view_table_draw(v);
}

static void ylay_title(struct view *v, char *buf, size_t size)
{
	struct ylay_priv *p = v->priv;

	snprintf(buf, size, "Layout of %s: size %llu, align %u, %llu byte%s of holes%s",
		 p->l.type_name, (unsigned long long)p->l.size, p->l.align,
		 (unsigned long long)p->l.holes, p->l.holes == 1 ? "" : "s",
		 p->l.base_misalign ? ", objects start mid-line" : "");
}

/* Enter on a member drills into a code site that touches it. */
static enum view_result ylay_action(struct view *v, enum action act, struct view_reply *reply)
{
	struct ylay_priv *p = v->priv;
	const struct layout_row *r;
	struct view_query *q;

	if (act != ACT_ENTER && act != ACT_MEMBER_SITE)
		return VIEW_UNHANDLED;
	if (v->table.cursor >= (long)p->n ||
	    (p->rows[v->table.cursor].kind != YR_MEMBER && p->rows[v->table.cursor].kind != YR_PART))
		return VIEW_HANDLED;
	r = &p->l.rows[p->rows[v->table.cursor].idx];
	if (!r->sites.n) {
		view_reply_message(reply, 0, "no code site touches %s", r->name);
		return VIEW_HANDLED;
	}
	q = view_reply_push(reply, VK_SITE);
	q->site = r->sites.v[0];
	q->line = STORE_ALL_LINES;
	/* The loop shows the message once the site view is open. */
	if (r->sites.n > 1)
		view_reply_message(reply, 0, "%s is touched from %u sites; showing the first", r->name,
				   r->sites.n);
	return VIEW_HANDLED | VIEW_PUSH;
}

static int ylay_search(struct view *v, const char *text, int dir, struct c2c_error *err)
{
	struct ylay_priv *p = v->priv;
	long n = (long)p->n;

	(void)err;
	for (long k = 1; k <= n; k++) {
		long row = ((v->table.cursor + dir * k) % n + n) % n;
		const struct yrow *yr = &p->rows[row];
		if (yr->kind == YR_MEMBER && view_match(text, p->l.rows[yr->idx].name, 0, 0)) {
			table_goto(&v->table, row);
			return 1;
		}
	}
	return 0;
}

const struct view_ops view_layout_ops = {
	.name = "layout",
	.priv_size = sizeof(struct ylay_priv),
	.open = ylay_open,
	.close = ylay_close,
	.draw = ylay_draw,
	.draw_row = ylay_draw_row,
	.action = ylay_action,
	.search = ylay_search,
	.title = ylay_title,
};

/* ---- assigning a type by hand ---- */

static const struct table_col pick_cols[] = {
	{ "Struct (from the session's DWARF/BTF)", 0, 20, TAL_LEFT, -1, 0 },
};

struct pick_priv {
	char **names;
	size_t n;
};

static int pick_open(struct view *v, struct c2c_error *err)
{
	struct pick_priv *p = v->priv;
	const struct view_assign_arg *a = v->q.arg;

	if (!v->table.cols)
		table_init(&v->table, pick_cols, 1);
	free(p->names);
	p->names = NULL;
	if (typeinfo_struct_names(a->st, NULL, NULL, &p->names, &p->n, err) < 0)
		return -1;
	view_table_layout(v);
	table_set_rows(&v->table, (long)p->n);
	return 0;
}

static void pick_close(struct view *v)
{
	struct pick_priv *p = v->priv;

	free(p->names);
	p->names = NULL;
}

static void pick_draw_row(struct view *v, long row, int selected)
{
	struct pick_priv *p = v->priv;
	int y = v->y + 1 + (int)(row - v->table.top);
	struct table_cell cell;

	if (row < v->table.top || row >= v->table.top + v->table.height)
		return;
	if (row >= (long)p->n) {
		term_blank(y, 0, v->w, TH_NORMAL);
		return;
	}
	memset(&cell, 0, sizeof(cell));
	cell.text = p->names[row];
	table_draw_row(&v->table, y, &cell, selected);
}

static void pick_draw(struct view *v)
{
	view_table_draw(v);
}

static void pick_title(struct view *v, char *buf, size_t size)
{
	struct pick_priv *p = v->priv;
	const struct view_assign_arg *a = v->q.arg;

	snprintf(buf, size, "Assign a type to the %s%sobject at %#llx: %zu structs "
		 "[Enter: assign, /name: find, /@0xADDR: other base]", a->session, a->session[0] ? " " : "",
		 (unsigned long long)a->base, p->n);
}

static int pick_search(struct view *v, const char *text, int dir, struct c2c_error *err)
{
	struct pick_priv *p = v->priv;
	struct view_assign_arg *a = v->q.arg;
	long n = (long)p->n;

	(void)err;
	if (text[0] == '@') {
		char *end;
		unsigned long long base = strtoull(text + 1, &end, 0);
		if (end == text + 1 || *end)
			return 0;
		/* Only the title shows the base: the loop repaints the body
		 * (title included) after every search. */
		a->base = base;
		return 1;
	}
	for (long k = 1; k <= n; k++) {
		long row = ((v->table.cursor + dir * k) % n + n) % n;
		if (view_match(text, p->names[row], 0, 0)) {
			table_goto(&v->table, row);
			return 1;
		}
	}
	return 0;
}

static enum view_result pick_action(struct view *v, enum action act, struct view_reply *reply)
{
	struct pick_priv *p = v->priv;
	const struct view_assign_arg *a = v->q.arg;
	struct c2c_error err = { 0 };

	if (act != ACT_ENTER && act != ACT_ASSIGN)
		return VIEW_UNHANDLED;
	if (v->table.cursor >= (long)p->n)
		return VIEW_HANDLED;
	/* For this run on the reader's handle; saved in the session too when
	 * it may be changed (an assignment is an edit the user asked for). */
	if (typeinfo_assign(a->st, a->base, p->names[v->table.cursor], NULL, NULL, &err) < 0) {
		view_reply_message(reply, 1, "%s", err.msg);
		return VIEW_HANDLED;
	}
	bool saved = typeinfo_save(store_path(a->st), a->base, p->names[v->table.cursor], NULL, &err) == 0;
	view_reply_message(reply, 0, "%.100s assigned to the object at %#llx (%s)", p->names[v->table.cursor],
			   (unsigned long long)a->base, saved ? "saved in the session" : "read-only: kept for this run");
	/* back to the diff, every view re-running its queries */
	return VIEW_HANDLED | VIEW_POP | VIEW_RELOAD;
}

const struct view_ops view_assign_ops = {
	.name = "assign",
	.priv_size = sizeof(struct pick_priv),
	.open = pick_open,
	.close = pick_close,
	.draw = pick_draw,
	.draw_row = pick_draw_row,
	.action = pick_action,
	.search = pick_search,
	.title = pick_title,
};
