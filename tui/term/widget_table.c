/* The table widget: cursor and scroll over a row count, column layout for
 * the current width, heading with the sort column marked, and row drawing.
 * It never holds row data: the owning view fetches only the visible rows
 * from the store and hands them over as cells. */
#include "tui/term/widget.h"
#include "tui/term/term.h"

#include <stdio.h>
#include <string.h>

void table_init(struct table *t, const struct table_col *cols, int ncols)
{
	memset(t, 0, sizeof(*t));
	t->cols = cols;
	t->ncols = ncols > 32 ? 32 : ncols;
	t->sort_col = -1;
	t->pick_col = -1;
	t->frozen = 1;
	t->drawn_top = -1;
	t->drawn_cursor = -1;
}

static void table_clamp(struct table *t)
{
	if (t->cursor >= t->nrows)
		t->cursor = t->nrows - 1;
	if (t->cursor < 0)
		t->cursor = 0;
	if (t->height <= 0) {
		t->top = t->cursor;
		return;
	}
	if (t->top > t->cursor)
		t->top = t->cursor;
	if (t->cursor >= t->top + t->height)
		t->top = t->cursor - t->height + 1;
	/* No empty space below the last row when rows could fill it. */
	if (t->top + t->height > t->nrows)
		t->top = t->nrows - t->height;
	if (t->top < 0)
		t->top = 0;
}

void table_resize(struct table *t, int height, int width)
{
	t->height = height < 0 ? 0 : height;
	t->width = width < 0 ? 0 : width;
	table_clamp(t);
	table_layout(t);
	t->drawn_top = -1;
}

void table_set_rows(struct table *t, long nrows)
{
	t->nrows = nrows < 0 ? 0 : nrows;
	table_clamp(t);
	t->drawn_top = -1;
}

int table_goto(struct table *t, long row)
{
	long oc = t->cursor, ot = t->top;

	t->cursor = row;
	table_clamp(t);
	return oc != t->cursor || ot != t->top;
}

int table_move(struct table *t, long delta)
{
	return table_goto(t, t->cursor + delta);
}

void table_restore(struct table *t, long cursor, long top)
{
	t->cursor = cursor;
	t->top = top;
	table_clamp(t);
	t->drawn_top = -1;
}

int table_page_changed(const struct table *t)
{
	return t->drawn_top != t->top;
}

void table_drawn(struct table *t)
{
	t->drawn_top = t->top;
	t->drawn_cursor = t->cursor;
}

/* Widths with the columns in dropped[] hidden; returns the columns that
 * did not fit on the right. */
static int table_layout_try(struct table *t, const char *dropped)
{
	int fixed = 0, nflex = 0, left, shown = 0;

	/* Fixed columns first, left to right, until the width runs out; the
	 * flexible ones share the rest (at least their minimum). Columns
	 * scrolled out with '>' are skipped. */
	t->hidden_right = 0;
	for (int i = 0; i < t->ncols; i++) {
		const struct table_col *c = &t->cols[i];
		int need = c->width ? c->width : c->min_width;

		if ((i >= t->frozen && i < t->frozen + t->scroll) || dropped[i]) {
			t->widths[i] = 0;
			continue;
		}
		/* The first column that does not fit hides itself and all the
		 * ones after it: columns are listed by importance. */
		if (fixed + need + (shown ? 1 : 0) > t->width) {
			for (int j = i; j < t->ncols; j++)
				t->widths[j] = 0;
			t->hidden_right = t->ncols - i;
			break;
		}
		fixed += need + (shown ? 1 : 0);
		shown++;
		t->widths[i] = need;
		if (!c->width)
			nflex++;
	}
	left = t->width - fixed;
	for (int i = 0; i < t->ncols && nflex; i++) {
		if (t->cols[i].width || !t->widths[i])
			continue;
		int add = left / nflex;
		t->widths[i] += add;
		left -= add;
		nflex--;
	}
	return t->hidden_right;
}

void table_layout(struct table *t)
{
	char dropped[32] = { 0 };
	int flex = t->ncols - 1;

	/* Columns up to the first flexible one (the long name that ends the
	 * numbers) are the ones that must show: while some of them do not
	 * fit, hide the droppable column with the highest drop (the rightmost
	 * of equals) and lay out again. */
	for (int i = 0; i < t->ncols; i++)
		if (!t->cols[i].width) {
			flex = i;
			break;
		}
	while (table_layout_try(t, dropped) && t->ncols - t->hidden_right <= flex) {
		int best = -1;
		for (int i = t->frozen; i < t->ncols; i++)
			if (t->drop && !dropped[i] && t->drop[i] > 0 && (best < 0 || t->drop[i] >= t->drop[best]))
				best = i;
		if (best < 0)
			break;
		dropped[best] = 1;
	}
}

int table_scroll_cols(struct table *t, int delta)
{
	int old = t->scroll;

	/* Right only while columns are hidden there; left down to none. */
	if (delta > 0 && !t->hidden_right)
		return 0;
	t->scroll += delta;
	if (t->scroll > t->ncols - t->frozen - 1)
		t->scroll = t->ncols - t->frozen - 1;
	if (t->scroll < 0)
		t->scroll = 0;
	table_layout(t);
	return t->scroll != old;
}

int table_col_at(const struct table *t, int x)
{
	int pos = 0;

	for (int i = 0; i < t->ncols; i++) {
		if (!t->widths[i])
			continue;
		if (x >= pos && x < pos + t->widths[i])
			return i;
		pos += t->widths[i] + 1;
	}
	return -1;
}

static void draw_cell(int y, int x, int w, const struct table_col *c, const struct table_cell *cell,
		      enum theme_elem row_elem, int selected)
{
	enum theme_elem e = selected ? TH_SELECTED : (cell->elem ? cell->elem : row_elem);
	const char *s = cell->text ? cell->text : "";
	int tw;

	if (c->is_bar && !selected) {
		bar_draw(y, x, w, cell->bar, cell->heat);
		return;
	}
	if (c->is_bar) {
		char buf[512];
		bar_render(buf, sizeof(buf), cell->bar, w > 160 ? 160 : w, text_is_utf8());
		term_field(y, x, w, e, buf);
		return;
	}
	tw = text_width(s);
	if (c->align == TAL_RIGHT && tw < w) {
		term_blank(y, x, w - tw, e);
		term_text(y, x + w - tw, tw, e, s);
	} else {
		term_field(y, x, w, e, s);
	}
}

void table_draw_header(struct table *t, int y)
{
	int x = 0;
	char title[128];

	for (int i = 0; i < t->ncols; i++) {
		const struct table_col *c = &t->cols[i];
		enum theme_elem e = TH_COLHEAD;
		struct table_cell cell = { 0 };
		struct table_col hc = *c;

		if (!t->widths[i])
			continue;
		if (i == t->sort_col || i == t->pick_col) {
			/* The sort direction is an arrow in UTF-8, v/^ in ASCII. */
			const char *arrow = text_is_utf8() ? (t->sort_desc ? "\xe2\x96\xbc" : "\xe2\x96\xb2")
							  : (t->sort_desc ? "v" : "^");
			if (i == t->sort_col)
				snprintf(title, sizeof(title), "%s%s", c->title, arrow);
			else
				snprintf(title, sizeof(title), "[%s]", c->title);
			e = TH_COLHEAD_SORT;
		} else {
			snprintf(title, sizeof(title), "%s", c->title);
		}
		cell.text = title;
		hc.is_bar = 0;
		draw_cell(y, x, t->widths[i], &hc, &cell, e, 0);
		x += t->widths[i];
		if (x < t->width) {
			term_blank(y, x, 1, TH_COLHEAD);
			x++;
		}
	}
	if (x < t->width)
		term_blank(y, x, t->width - x, TH_COLHEAD);
}

void table_draw_row(struct table *t, int y, const struct table_cell *cells, int selected)
{
	int x = 0;
	enum theme_elem row = selected ? TH_SELECTED : TH_NORMAL;

	for (int i = 0; i < t->ncols; i++) {
		if (!t->widths[i])
			continue;
		draw_cell(y, x, t->widths[i], &t->cols[i], &cells[i], TH_NORMAL, selected);
		x += t->widths[i];
		if (x < t->width) {
			term_blank(y, x, 1, row);
			x++;
		}
	}
	if (x < t->width)
		term_blank(y, x, t->width - x, row);
}
