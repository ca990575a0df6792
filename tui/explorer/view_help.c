/* Help: generated from the one action list (ACTION_LIST, keymap.h), so it
 * always says what the keys really do. Global keys first, then the keys of
 * each view, then the keys perf c2c's TUI uses differently (PERF_C2C_KEYS). */
#include "tui/explorer/view.h"
#include "tui/term/term.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct help_priv {
	char **lines;
	size_t n, cap;
};

static const struct table_col help_col[] = {
	{ "  Keys                   Action       What it does", 0, 10, TAL_LEFT, -1, 0 },
};

static void add(struct help_priv *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct help_priv *p, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		char **n = realloc(p->lines, cap * sizeof(*n));
		if (!n)
			return;
		p->lines = n;
		p->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	p->lines[p->n++] = strdup(buf);
}

static void help_free(struct help_priv *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->lines[i]);
	free(p->lines);
	p->lines = NULL;
	p->n = p->cap = 0;
}

/* Lists each action bound in scope (NULL: global) once, with all its keys. */
static void add_scope(struct help_priv *p, const char *scope, const char *heading)
{
	int seen[ACT__COUNT] = { 0 };
	const char *view;
	enum action a;
	char keys[128];
	int key, any = 0;

	for (size_t i = 0; keymap_binding(i, &view, &key, &a); i++) {
		if ((view == NULL) != (scope == NULL) || (view && strcmp(view, scope)) || seen[a])
			continue;
		seen[a] = 1;
		if (!any) {
			add(p, "%s", heading);
			any = 1;
		}
		/* Only this scope's keys for the action. */
		keymap_scope_keys(scope, a, keys, sizeof(keys));
		add(p, "  %-22s %-12s %s", keys, action_info(a)->name, action_info(a)->help);
	}
	if (any)
		add(p, "%s", "");
}

/* Section headings, in the order shown; a scope of the action list that
 * is not here still gets its keys listed (add_other_scopes). */
static const struct {
	const char *scope, *heading;
} headings[] = {
	{ "lines", "Hot lines view" },
	{ "line", "Cache line view (locks, offsets, code sites)" },
	{ "cpus", "CPUs and nodes view" },
	{ "timeline", "Timeline view" },
	{ "layout", "Layout view (a type's members; L in a line)" },
	{ "assign", "Struct picker (a in a line or the diff; /@0xADDR moves the object)" },
	{ "diff", "Diff view (the lines of two sessions, c2ctui diff)" },
	{ "difflayout", "Diff layout view (a type in both builds)" },
	{ "sort", "While choosing a sort column (after s)" },
};

static void add_other_scopes(struct help_priv *p)
{
	const char *view;
	enum action a;
	char heading[96];
	int key;

	for (size_t i = 0; keymap_binding(i, &view, &key, &a); i++) {
		size_t k, j;

		if (!view)
			continue;
		for (k = 0; k < sizeof(headings) / sizeof(headings[0]) && strcmp(headings[k].scope, view); k++)
			;
		for (j = 0; j < i; j++) {
			const char *seen;
			int skey;
			enum action sa;
			if (keymap_binding(j, &seen, &skey, &sa) && seen && !strcmp(seen, view))
				break;
		}
		if (k < sizeof(headings) / sizeof(headings[0]) || j < i)
			continue;
		snprintf(heading, sizeof(heading), "Keys in the %s view", view);
		add_scope(p, view, heading);
	}
}

/* Keys that mean something else in perf c2c report's TUI, one line each. */
static void add_perf_notes(struct help_priv *p)
{
	const char *perf;
	enum action a;
	char name[32];
	int key;

	add(p, "%s", "perf c2c keys (what perf c2c report's TUI does with them)");
	for (size_t i = 0; keymap_perf_note(i, &key, &a, &perf); i++) {
		keymap_key_name(key, name, sizeof(name));
		add(p, "  %-22s %-12s perf: %s", name, action_info(a)->name, perf);
	}
	add(p, "%s", "");
}

static int help_open(struct view *v, struct c2c_error *err)
{
	struct help_priv *p = v->priv;

	(void)err;
	if (!v->table.cols)
		table_init(&v->table, help_col, 1);
	help_free(p);
	add_scope(p, NULL, "Keys in every view");
	for (size_t i = 0; i < sizeof(headings) / sizeof(headings[0]); i++)
		add_scope(p, headings[i].scope, headings[i].heading);
	add_other_scopes(p);
	add_perf_notes(p);
	add(p, "Mouse: click selects a row, double click opens it, a click on a heading sorts, the wheel scrolls.");
	add(p, "Filters apply to every view; the header shows them. Numbers are the ones 'c2ctui report' prints.");
	table_set_rows(&v->table, (long)p->n);
	view_table_layout(v);
	return 0;
}

static void help_close(struct view *v)
{
	help_free(v->priv);
}

static void help_draw_row(struct view *v, long row, int selected)
{
	struct help_priv *p = v->priv;
	int y = v->y + 1 + (int)(row - v->table.top);
	const char *s;

	if (row < v->table.top || row >= v->table.top + v->table.height)
		return;
	if (row >= (long)p->n) {
		term_blank(y, 0, v->w, TH_NORMAL);
		return;
	}
	s = p->lines[row];
	term_field(y, 0, v->w, selected ? TH_SELECTED : (s[0] && s[0] != ' ' ? TH_HEADER_LABEL : TH_NORMAL), s);
}

static void help_draw(struct view *v)
{
	view_table_draw(v);
}

static void help_title(struct view *v, char *buf, size_t size)
{
	(void)v;
	snprintf(buf, size, "Help (Esc goes back)");
}

static int help_search(struct view *v, const char *text, int dir, struct c2c_error *err)
{
	struct help_priv *p = v->priv;
	long n = (long)p->n;

	(void)err;
	for (long k = 1; k <= n; k++) {
		long row = ((v->table.cursor + dir * k) % n + n) % n;
		if (view_match(text, p->lines[row], 1, 0)) {
			table_goto(&v->table, row);
			return 1;
		}
	}
	return 0;
}

const struct view_ops view_help_ops = {
	.name = "help",
	.priv_size = sizeof(struct help_priv),
	.open = help_open,
	.close = help_close,
	.draw = help_draw,
	.draw_row = help_draw_row,
	.search = help_search,
	.title = help_title,
};
