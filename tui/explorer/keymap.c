/* The action table and the key bindings (see keymap.h). */
#include "tui/explorer/keymap.h"
#include "tui/term/term.h"

#include <stdio.h>
#include <string.h>

static const struct action_info actions[ACT__COUNT] = {
	[ACT_NONE]         = { "", "" },
	[ACT_UP]           = { "up", "Move the cursor up one row" },
	[ACT_DOWN]         = { "down", "Move the cursor down one row" },
	[ACT_PGUP]         = { "page up", "Move up one page" },
	[ACT_PGDN]         = { "page down", "Move down one page" },
	[ACT_HOME]         = { "first", "Go to the first row" },
	[ACT_END]          = { "last", "Go to the last row" },
	[ACT_ENTER]        = { "open", "Open the selected row (line, code site, CPU, time bucket)" },
	[ACT_BACK]         = { "back", "Back to the previous view, same row and scroll" },
	[ACT_QUIT]         = { "quit", "Quit" },
	[ACT_HELP]         = { "help", "This help" },
	[ACT_SEARCH]       = { "search", "Search symbol or address (0x...) in the view" },
	[ACT_NEXT]         = { "next", "Next search match" },
	[ACT_PREV]         = { "prev", "Previous search match" },
	[ACT_SORT]         = { "sort", "Pick the sort column (Left/Right, Enter)" },
	[ACT_REVERSE]      = { "reverse", "Reverse the sort order" },
	[ACT_FILTER]       = { "filter", "Filter: sym:NAME cpu:N node:N pid:N tid:N hitm:N (empty clears)" },
	[ACT_UNFILTER]     = { "unfilter", "Clear every filter and the time window" },
	[ACT_MODE]         = { "mode", "Display mode tot/lcl/rmt/peer (perf c2c -d)" },
	[ACT_CPUS]         = { "cpus", "CPUs and nodes (of the selected line, or the session)" },
	[ACT_TIMELINE]     = { "timeline", "Timeline of HITM and lock waits (of the line, or the session)" },
	[ACT_PANE]         = { "pane", "Switch between the panes of the view" },
	[ACT_WORDS]        = { "bytes/words", "Offsets per byte or per 8-byte word" },
	[ACT_MARK]         = { "mark", "Mark the start of a time range" },
	[ACT_WINDOW_CLEAR] = { "all time", "Clear the time window" },
	[ACT_REDRAW]       = { "redraw", "Repaint the screen" },
	[ACT_REFRESH]      = { "refresh", "Re-run the queries of the view" },
	[ACT_COLS_RIGHT]   = { "more columns", "Scroll the table's columns right (what did not fit)" },
	[ACT_COLS_LEFT]    = { "columns back", "Scroll the table's columns back left" },
	[ACT_SHOW_ALL]     = { "all lines", "All lines, or only shared ones (perf c2c --show-all)" },
	[ACT_ASSIGN]       = { "assign type", "Say which struct the selected object is (saved in the session)" },
	[ACT_LAYOUT]       = { "layout", "Layout of the type the line's samples were attributed to" },
	[ACT_PICK_LEFT]    = { "column left", "While sorting: previous column" },
	[ACT_PICK_RIGHT]   = { "column right", "While sorting: next column" },
};

struct binding {
	const char *view;     /* NULL: every view */
	int key;
	enum action act;
};

/* Order matters for the help screen: it lists bindings in this order. */
static const struct binding bindings[] = {
	{ NULL, TK_UP, ACT_UP },
	{ NULL, 'k', ACT_UP },
	{ NULL, TK_DOWN, ACT_DOWN },
	{ NULL, 'j', ACT_DOWN },
	{ NULL, TK_PGUP, ACT_PGUP },
	{ NULL, TK_PGDN, ACT_PGDN },
	{ NULL, ' ', ACT_PGDN },
	{ NULL, TK_HOME, ACT_HOME },
	{ NULL, 'g', ACT_HOME },
	{ NULL, TK_END, ACT_END },
	{ NULL, 'G', ACT_END },
	{ NULL, TK_ENTER, ACT_ENTER },
	{ NULL, TK_RIGHT, ACT_ENTER },
	{ NULL, TK_ESC, ACT_BACK },
	{ NULL, TK_BACKSPACE, ACT_BACK },
	{ NULL, TK_LEFT, ACT_BACK },
	{ NULL, 'q', ACT_QUIT },
	{ NULL, '?', ACT_HELP },
	{ NULL, TK_F1, ACT_HELP },
	{ NULL, '/', ACT_SEARCH },
	{ NULL, 'n', ACT_NEXT },
	{ NULL, 'N', ACT_PREV },
	{ NULL, 's', ACT_SORT },
	{ NULL, 'r', ACT_REVERSE },
	{ NULL, 'f', ACT_FILTER },
	{ NULL, 'F', ACT_UNFILTER },
	{ NULL, 'd', ACT_MODE },
	{ NULL, 'c', ACT_CPUS },
	{ NULL, 't', ACT_TIMELINE },
	{ NULL, 'T', ACT_WINDOW_CLEAR },
	{ NULL, 'l' & 0x1f, ACT_REDRAW },
	{ NULL, 'R', ACT_REFRESH },
	{ NULL, '>', ACT_COLS_RIGHT },
	{ NULL, '<', ACT_COLS_LEFT },
	{ "lines", 'a', ACT_SHOW_ALL },
	{ "line", TK_TAB, ACT_PANE },
	{ "line", 'w', ACT_WORDS },
	{ "line", 'L', ACT_LAYOUT },
	{ "line", 'a', ACT_ASSIGN },
	{ "cpus", TK_TAB, ACT_PANE },
	{ "difflayout", TK_TAB, ACT_PANE },   /* the after build's layout (view_diff.c) */
	{ "diff", 'a', ACT_ASSIGN },
	{ "timeline", 'm', ACT_MARK },
	{ "timeline", ' ', ACT_MARK },
	{ "sort", TK_LEFT, ACT_PICK_LEFT },
	{ "sort", 'h', ACT_PICK_LEFT },
	{ "sort", TK_RIGHT, ACT_PICK_RIGHT },
	{ "sort", 'l', ACT_PICK_RIGHT },
	{ "sort", TK_ENTER, ACT_ENTER },
	{ "sort", 's', ACT_ENTER },
	{ "sort", TK_ESC, ACT_BACK },
	{ "sort", 'r', ACT_REVERSE },
};

const struct action_info *action_info(enum action a)
{
	if ((int)a < 0 || a >= ACT__COUNT)
		a = ACT_NONE;
	return &actions[a];
}

enum action keymap_lookup(const char *view, int key)
{
	size_t n = sizeof(bindings) / sizeof(bindings[0]);

	if (view) {
		for (size_t i = 0; i < n; i++)
			if (bindings[i].view && !strcmp(bindings[i].view, view) && bindings[i].key == key)
				return bindings[i].act;
		/* The sort picker takes only its own keys. */
		if (!strcmp(view, "sort"))
			return ACT_NONE;
	}
	for (size_t i = 0; i < n; i++)
		if (!bindings[i].view && bindings[i].key == key)
			return bindings[i].act;
	return ACT_NONE;
}

void keymap_key_name(int key, char *buf, size_t size)
{
	static const struct { int key; const char *name; } names[] = {
		{ TK_UP, "Up" }, { TK_DOWN, "Down" }, { TK_LEFT, "Left" }, { TK_RIGHT, "Right" },
		{ TK_PGUP, "PgUp" }, { TK_PGDN, "PgDn" }, { TK_HOME, "Home" }, { TK_END, "End" },
		{ TK_ENTER, "Enter" }, { TK_ESC, "Esc" }, { TK_BACKSPACE, "Backspace" },
		{ TK_DELETE, "Del" }, { TK_TAB, "Tab" }, { TK_BTAB, "S-Tab" }, { TK_F1, "F1" },
		{ ' ', "Space" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].key == key) {
			snprintf(buf, size, "%s", names[i].name);
			return;
		}
	if (key > 0 && key < 0x20)
		snprintf(buf, size, "^%c", key + '@');
	else if (key >= 0x20 && key < 0x7f)
		snprintf(buf, size, "%c", key);
	else
		snprintf(buf, size, "U+%04X", (unsigned)key);
}

int keymap_keys(const char *view, enum action a, char *buf, size_t size)
{
	size_t n = sizeof(bindings) / sizeof(bindings[0]), len = 0;
	int count = 0;
	char name[32];

	if (size)
		buf[0] = 0;
	for (size_t i = 0; i < n; i++) {
		if (bindings[i].act != a)
			continue;
		if (bindings[i].view && (!view || strcmp(bindings[i].view, view)))
			continue;
		/* A view binding hides the same key's global meaning. */
		if (!bindings[i].view && view && keymap_lookup(view, bindings[i].key) != a)
			continue;
		keymap_key_name(bindings[i].key, name, sizeof(name));
		if (len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", count ? ", " : "", name);
		count++;
	}
	return count;
}

int keymap_binding(size_t i, const char **view, int *key, enum action *a)
{
	if (i >= sizeof(bindings) / sizeof(bindings[0]))
		return 0;
	*view = bindings[i].view;
	*key = bindings[i].key;
	*a = bindings[i].act;
	return 1;
}
