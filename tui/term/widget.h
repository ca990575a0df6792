/* Shared widgets: text measuring and clipping, heat bars, the sortable
 * table that only ever holds its visible rows, and the one-line prompt.
 * Pure layout code over term.h; no store and no curses here. */
#ifndef C2C_WIDGET_H
#define C2C_WIDGET_H

#include <stddef.h>
#include <stdint.h>

#include "tui/term/theme.h"

/* ---- text (widget_text.c) ---- */

/* UTF-8 text is measured in display columns; in a non-UTF-8 locale every
 * byte is one column and bytes above 0x7f are shown as '?'. */
void text_set_utf8(int on);
int text_is_utf8(void);
int text_width(const char *s);
/* Copies into buf (NUL-terminated) the part of s that fits in width
 * columns; when s is wider, its last column becomes a truncation marker.
 * Returns the bytes written (without the NUL); *cols gets the columns. */
size_t text_clip(char *buf, size_t size, const char *s, int width, int *cols);
/* Human numbers for narrow columns: 1234 -> "1234", 123456 -> "123.5k". */
void text_count(char *buf, size_t size, uint64_t v, int width);
/* "12.34%" of part in whole ("" when whole is 0). */
void text_pct(char *buf, size_t size, double part, double whole);

/* ---- heat bars (widget_bar.c) ---- */

/* Renders a bar of frac (0..1) over width columns into buf: eighth blocks
 * in UTF-8, '#' and ':' in ASCII; padded with spaces to width. */
void bar_render(char *buf, size_t size, double frac, int width, int utf8);
/* Draws it at (y, x) in the heat colour of heat (0..1; use frac when the
 * bar's length and its colour mean the same share). */
void bar_draw(int y, int x, int width, double frac, double heat);

/* ---- table (widget_table.c) ---- */

enum table_align { TAL_LEFT, TAL_RIGHT };

struct table_col {
	const char *title;
	int width;           /* columns; 0 = flexible (shares what is left) */
	int min_width;       /* for flexible columns */
	enum table_align align;
	int sort_key;        /* the view's sort key for this column, -1: not sortable */
	int is_bar;          /* the cell is a heat bar */
};

struct table_cell {
	const char *text;    /* NULL: empty */
	double bar;          /* is_bar columns: length 0..1 */
	double heat;         /* is_bar columns: colour 0..1 */
	enum theme_elem elem;/* 0 (TH_NORMAL): the row's style */
};

/* Cursor and scroll over nrows rows, of which the rows [top, top+height)
 * are visible. The owner fetches those rows when table_visible_changed()
 * says so; moving the cursor inside the page repaints two rows. */
struct table {
	const struct table_col *cols;
	int ncols;
	long nrows;
	long cursor, top;
	int height;          /* rows of data on screen */
	int width;           /* columns on screen */
	int sort_col;        /* index into cols, -1: none */
	int sort_desc;
	int pick_col;        /* column being chosen with 's', -1 when not picking */
	int frozen;          /* leading columns that never scroll away (default 1) */
	int scroll;          /* columns after the frozen ones scrolled out (< and >) */
	int hidden_right;    /* columns that did not fit on the right (layout output) */
	/* NULL, or per column: > 0 hides it first when the width runs short,
	 * highest first, before columns on the right go (a decoration such
	 * as a heat bar must not push numbers off a narrow terminal). */
	const int *drop;
	/* drawing state */
	long drawn_top, drawn_cursor;
	int widths[32];      /* laid-out column widths for the current width */
};

void table_init(struct table *t, const struct table_col *cols, int ncols);
/* New size or row count: keeps the cursor in range and visible. */
void table_resize(struct table *t, int height, int width);
void table_set_rows(struct table *t, long nrows);
/* Cursor movements: return 1 when the cursor or scroll moved. */
int table_move(struct table *t, long delta);
int table_goto(struct table *t, long row);
/* Puts the cursor on row `cursor` with `top` as the first visible row
 * when possible (back navigation restores both). */
void table_restore(struct table *t, long cursor, long top);
/* Whether the visible row range differs from what was last drawn. */
int table_page_changed(const struct table *t);
/* Lays out the column widths for t->width. */
void table_layout(struct table *t);
/* Draws the heading row at screen row y. */
void table_draw_header(struct table *t, int y);
/* Draws one data row (cells[ncols]) at screen row y. */
void table_draw_row(struct table *t, int y, const struct table_cell *cells, int selected);
/* Scrolls the columns after the frozen ones by delta; 1 when it moved. */
int table_scroll_cols(struct table *t, int delta);
/* The column under screen column x, or -1. */
int table_col_at(const struct table *t, int x);
/* Marks what was drawn (call after a repaint). */
void table_drawn(struct table *t);

/* ---- prompt (widget_prompt.c) ---- */

struct prompt {
	int active;
	int purpose;         /* the owner's tag: what to do with the text */
	char label[64];
	char text[256];
	size_t len;          /* bytes in text */
	int selected;        /* the text is selected: typing replaces it */
};

void prompt_start(struct prompt *p, int purpose, const char *label, const char *initial);
/* Selects the whole text (shown reversed), as a pre-filled value is: a
 * character or Backspace replaces it, Right or End keeps it to edit. */
void prompt_select_all(struct prompt *p);
/* Feeds one key (enum term_key or code point). Returns 1 when the text is
 * accepted (Enter), -1 when cancelled (Esc), 0 otherwise. */
int prompt_key(struct prompt *p, int key);
void prompt_draw(const struct prompt *p, int y, int width);

#endif /* C2C_WIDGET_H */
