/* Diff view: code by function, before -> after (`C` in the diff view).
 * A function's sites have other addresses in each build, its name does not,
 * so this is where "skip the update when nothing changed" shows: the same
 * function with fewer stores and HITM after. Rows are the diff result's
 * (store/diff/diff.h, report --diff's "Code by function"), in its order;
 * deltas coloured: fewer is green, more is red. */
#include "tui/explorer/view.h"
#include "tui/term/term.h"
#include "tui/explorer/view_diff.h"

#include <stdio.h>
#include <string.h>

enum { FC_FUNC, FC_STATUS, FC_SITES, FC_LD, FC_ST, FC_ST_CHG, FC_HITM, FC_HITM_CHG, FC_LR, FC_LAT,
       FC__COUNT };
static const struct table_col func_cols[FC__COUNT] = {
	[FC_FUNC]     = { "Function", 0, 18, TAL_LEFT, -1, 0 },
	[FC_STATUS]   = { "Status", 11, 0, TAL_LEFT, -1, 0 },
	[FC_SITES]    = { "Sites b>a", 9, 0, TAL_RIGHT, -1, 0 },
	[FC_LD]       = { "Loads b>a", 13, 0, TAL_RIGHT, -1, 0 },
	[FC_ST]       = { "Stores b>a", 13, 0, TAL_RIGHT, -1, 0 },
	[FC_ST_CHG]   = { "Chg", 6, 0, TAL_RIGHT, -1, 0 },
	[FC_HITM]     = { "Hitm b>a", 11, 0, TAL_RIGHT, -1, 0 },
	[FC_HITM_CHG] = { "Chg", 6, 0, TAL_RIGHT, -1, 0 },
	[FC_LR]       = { "Lcl/Rmt b>a", 13, 0, TAL_RIGHT, -1, 0 },
	[FC_LAT]      = { "Lat b>a", 13, 0, TAL_RIGHT, -1, 0 },
};

static const struct diff_result *result_of(struct view *v)
{
	return ((const struct view_diff_arg *)v->q.arg)->result;
}

static int funcs_open(struct view *v, struct c2c_error *err)
{
	(void)err;
	if (!v->table.cols)
		table_init(&v->table, func_cols, FC__COUNT);
	view_table_layout(v);
	table_set_rows(&v->table, (long)result_of(v)->nfuncs);
	return 0;
}

/* "12>7", with "-" for the side the function is missing from. */
static void pair(char *buf, size_t len, const struct diff_vals *b, uint64_t xb, const struct diff_vals *a,
		 uint64_t xa)
{
	char sb[24] = "-", sa[24] = "-";

	if (b->present)
		snprintf(sb, sizeof(sb), "%llu", (unsigned long long)xb);
	if (a->present)
		snprintf(sa, sizeof(sa), "%llu", (unsigned long long)xa);
	snprintf(buf, len, "%s>%s", sb, sa);
}

/* The change after - before, coloured by whether fewer is better. */
static void change(struct table_cell *c, char *buf, size_t len, const struct diff_func_row *f, uint64_t xb,
		   uint64_t xa)
{
	if (!f->b.present || !f->a.present) {
		snprintf(buf, len, "-");
		return;
	}
	snprintf(buf, len, "%+lld", (long long)xa - (long long)xb);
	if (xa < xb)
		c->elem = TH_HEAT1;
	else if (xa > xb)
		c->elem = TH_HEAT4;
}

static void funcs_draw_row(struct view *v, long row, int selected)
{
	const struct diff_result *r = result_of(v);
	int y = v->y + 1 + (int)(row - v->table.top);
	struct table_cell cells[FC__COUNT];
	char b[FC__COUNT][64];
	const struct diff_func_row *f;

	if (row < v->table.top || row >= v->table.top + v->table.height)
		return;
	if (row < 0 || row >= (long)r->nfuncs) {
		term_blank(y, 0, v->w, TH_NORMAL);
		return;
	}
	f = &r->funcs[row];
	memset(cells, 0, sizeof(cells));
	memset(b, 0, sizeof(b));
	snprintf(b[FC_STATUS], sizeof(b[0]), "%s", diff_status_name(f->status));
	pair(b[FC_SITES], sizeof(b[0]), &f->b, f->b.nmerged, &f->a, f->a.nmerged);
	pair(b[FC_LD], sizeof(b[0]), &f->b, f->b.loads, &f->a, f->a.loads);
	pair(b[FC_ST], sizeof(b[0]), &f->b, f->b.stores, &f->a, f->a.stores);
	change(&cells[FC_ST_CHG], b[FC_ST_CHG], sizeof(b[0]), f, f->b.stores, f->a.stores);
	pair(b[FC_HITM], sizeof(b[0]), &f->b, f->b.hitm, &f->a, f->a.hitm);
	change(&cells[FC_HITM_CHG], b[FC_HITM_CHG], sizeof(b[0]), f, f->b.hitm, f->a.hitm);
	{
		char sb[32] = "-", sa[32] = "-";
		if (f->b.present)
			snprintf(sb, sizeof(sb), "%llu/%llu", (unsigned long long)f->b.lcl_hitm,
				 (unsigned long long)f->b.rmt_hitm);
		if (f->a.present)
			snprintf(sa, sizeof(sa), "%llu/%llu", (unsigned long long)f->a.lcl_hitm,
				 (unsigned long long)f->a.rmt_hitm);
		snprintf(b[FC_LR], sizeof(b[0]), "%s>%s", sb, sa);
	}
	{
		char sb[24] = "-", sa[24] = "-";
		if (f->b.present)
			snprintf(sb, sizeof(sb), "%.1f", f->b.lat);
		if (f->a.present)
			snprintf(sa, sizeof(sa), "%.1f", f->a.lat);
		snprintf(b[FC_LAT], sizeof(b[0]), "%s>%s", sb, sa);
	}
	cells[FC_FUNC].text = f->function;
	for (int i = 1; i < FC__COUNT; i++)
		cells[i].text = b[i];
	table_draw_row(&v->table, y, cells, selected);
}

static void funcs_draw(struct view *v)
{
	view_table_draw(v);
}

static void funcs_title(struct view *v, char *buf, size_t size)
{
	const struct diff_result *r = result_of(v);
	uint64_t sb = 0, sa = 0;

	for (size_t i = 0; i < r->nfuncs; i++) {
		sb += r->funcs[i].b.stores;
		sa += r->funcs[i].a.stores;
	}
	snprintf(buf, size, "Code by function: %zu functions, stores %llu -> %llu "
		 "(a function's sites added: addresses differ between builds)", r->nfuncs,
		 (unsigned long long)sb, (unsigned long long)sa);
}

static int funcs_search(struct view *v, const char *text, int dir, struct c2c_error *err)
{
	const struct diff_result *r = result_of(v);
	long n = (long)r->nfuncs;

	(void)err;
	for (long k = 1; k <= n; k++) {
		long row = ((v->table.cursor + dir * k) % n + n) % n;
		if (view_match(text, r->funcs[row].function, 0, 0)) {
			table_goto(&v->table, row);
			return 1;
		}
	}
	return 0;
}

const struct view_ops view_diff_funcs_ops = {
	.name = "difffuncs",
	.open = funcs_open,
	.draw = funcs_draw,
	.draw_row = funcs_draw_row,
	.search = funcs_search,
	.title = funcs_title,
};
