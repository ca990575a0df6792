/* Actions and the keys that trigger them. One list (ACTION_LIST) holds
 * every action with its name, help text and default keys (global, or for
 * one view); it drives both the dispatch and the help screen, so help
 * never drifts from the keys. */
#ifndef C2C_KEYMAP_H
#define C2C_KEYMAP_H

#include <stddef.h>

/* The one list of actions (tig's REQ_INFO): ACTION(id, name, help) declares
 * ACT_<id> with its short name (status line) and its help sentence;
 * KEY(scope, key, id) binds a key to it, scope NULL for every view, else a
 * view's name or "sort" (while choosing a sort column). The list generates
 * the enum, action_info, the bindings keymap_lookup searches and the help
 * screen, which shows each scope's actions in the order of their first KEY
 * here and each action's keys in this order. */
#define ACTION_LIST(ACTION, KEY) \
	ACTION(UP, "up", "Move the cursor up one row") \
		KEY(NULL, TK_UP, UP) KEY(NULL, 'k', UP) \
	ACTION(DOWN, "down", "Move the cursor down one row") \
		KEY(NULL, TK_DOWN, DOWN) KEY(NULL, 'j', DOWN) \
	ACTION(PGUP, "page up", "Move up one page") \
		KEY(NULL, TK_PGUP, PGUP) \
	ACTION(PGDN, "page down", "Move down one page") \
		KEY(NULL, TK_PGDN, PGDN) KEY(NULL, ' ', PGDN) \
	ACTION(HOME, "first", "Go to the first row") \
		KEY(NULL, TK_HOME, HOME) KEY(NULL, 'g', HOME) \
	ACTION(END, "last", "Go to the last row") \
		KEY(NULL, TK_END, END) KEY(NULL, 'G', END) \
	ACTION(ENTER, "open", "Open the selected row (line, code site, CPU, time bucket)") \
		KEY(NULL, TK_ENTER, ENTER) KEY(NULL, TK_RIGHT, ENTER) \
	ACTION(BACK, "back", "Back to the previous view, same row and scroll") \
		KEY(NULL, TK_ESC, BACK) KEY(NULL, TK_BACKSPACE, BACK) KEY(NULL, TK_LEFT, BACK) \
	ACTION(QUIT, "quit", "Quit") \
		KEY(NULL, 'q', QUIT) \
	ACTION(HELP, "help", "This help") \
		KEY(NULL, '?', HELP) KEY(NULL, TK_F1, HELP) \
	ACTION(SEARCH, "search", "Search symbol or address (0x...) in the view") \
		KEY(NULL, '/', SEARCH) \
	ACTION(NEXT, "next", "Next search match") \
		KEY(NULL, 'n', NEXT) \
	ACTION(PREV, "prev", "Previous search match") \
		KEY(NULL, 'N', PREV) \
	ACTION(SORT, "sort", "Pick the sort column (Left/Right, Enter)") \
		KEY(NULL, 's', SORT) \
	ACTION(REVERSE, "reverse", "Reverse the sort order") \
		KEY(NULL, 'r', REVERSE) \
	ACTION(FILTER, "filter", "Filter: sym:NAME cpu:N node:N pid:N tid:N hitm:N (empty clears)") \
		KEY(NULL, 'f', FILTER) \
	ACTION(UNFILTER, "unfilter", "Clear every filter and the time window") \
		KEY(NULL, 'F', UNFILTER) \
	ACTION(MODE, "mode", "Display mode tot/lcl/rmt/peer (perf c2c -d)") \
		KEY(NULL, 'd', MODE) \
	ACTION(CPUS, "cpus", "CPUs and nodes (of the selected line, or the session)") \
		KEY(NULL, 'c', CPUS) \
	ACTION(TIMELINE, "timeline", "Timeline of HITM and lock waits (of the line, or the session)") \
		KEY(NULL, 't', TIMELINE) \
	ACTION(THREADS, "threads", "Threads and processes: HITM, loads, stores, lines, CPUs (Enter filters)") \
		KEY(NULL, 'p', THREADS) KEY("threads", TK_TAB, PANE) \
	ACTION(WINDOW_CLEAR, "all time", "Clear the time window") \
		KEY(NULL, 'T', WINDOW_CLEAR) \
	ACTION(REDRAW, "redraw", "Repaint the screen") \
		KEY(NULL, 'l' & 0x1f, REDRAW) \
	ACTION(REFRESH, "refresh", "Re-run the queries of the view") \
		KEY(NULL, 'R', REFRESH) \
	ACTION(COLS_RIGHT, "more columns", "Scroll the table's columns right (what did not fit)") \
		KEY(NULL, '>', COLS_RIGHT) \
	ACTION(COLS_LEFT, "columns back", "Scroll the table's columns back left") \
		KEY(NULL, '<', COLS_LEFT) \
	ACTION(SHOW_ALL, "all lines", "All lines, or only shared ones (perf c2c --show-all)") \
		KEY("lines", 'a', SHOW_ALL) \
	/* the hot lines' column sets (view_lines.c: lines_sets) */ \
	ACTION(COLSET, "column set", "Next column set: HITM, Stores, Load sources, Peer, Records/PA") \
		KEY("lines", 'v', COLSET) \
	ACTION(COLSET_PREV, "column set back", "Previous column set") \
		KEY("lines", 'V', COLSET_PREV) \
	/* lock list (view_locks.c) <-> the lines holding the locks */ \
	ACTION(LOCKS, "locks", "The locks waited on: kind, waits, total/max/avg wait, top caller") \
		KEY("lines", 'l', LOCKS) \
	ACTION(LOCK_LINES, "lines", "The cache lines holding the locks") \
		KEY("locks", 'l', LOCK_LINES) \
	ACTION(PANE, "pane", "Switch between the panes of the view") \
		KEY("line", TK_TAB, PANE) KEY("cpus", TK_TAB, PANE) \
	ACTION(WORDS, "bytes/words", "Offsets per byte or per 8-byte word") \
		KEY("line", 'w', WORDS) \
	/* line view: perf c2c report -c, the keys the code sites are grouped by */ \
	ACTION(GROUP, "group by", "Group the code sites as perf c2c -c: iaddr, pid+iaddr, tid+iaddr, pid+tid+iaddr, dso") \
		KEY("line", 'g', GROUP) \
	/* line view: the layout of the line's attributed type */ \
	ACTION(LAYOUT, "layout", "Layout of the type the line's samples were attributed to") \
		KEY("line", 'L', LAYOUT) \
	/* diff and line views: assign a type to an object by hand (view_layout.c) */ \
	ACTION(ASSIGN, "assign type", "Say which struct the selected object is (saved when the file allows)") \
		KEY("line", 'a', ASSIGN) KEY("diff", 'a', ASSIGN) \
	/* what Enter (and Tab) do in the layout, struct picker and diff views */ \
	ACTION(MEMBER_SITE, "code site", "Open a code site that touches the selected member") \
		KEY("layout", TK_ENTER, MEMBER_SITE) \
	KEY("assign", TK_ENTER, ASSIGN) \
	ACTION(DIFF_LAYOUTS, "layouts", "The line's type in both builds, side by side") \
		KEY("diff", TK_ENTER, DIFF_LAYOUTS) \
	ACTION(DIFF_FUNCTIONS, "code by function", "Each function's sites, loads, stores and HITM before > after") \
		KEY("diff", 'C', DIFF_FUNCTIONS) \
	ACTION(BEFORE_LAYOUT, "before", "The before build's layout of the type (statistics, flags, proposal)") \
		KEY("difflayout", TK_ENTER, BEFORE_LAYOUT) \
	ACTION(AFTER_LAYOUT, "after", "The after build's layout of the type") \
		KEY("difflayout", TK_TAB, AFTER_LAYOUT) \
	ACTION(MARK, "mark", "Mark the start of a time range") \
		KEY("timeline", 'm', MARK) KEY("timeline", ' ', MARK) \
	/* while choosing a sort column: only these keys count */ \
	ACTION(PICK_LEFT, "column left", "While sorting: previous column") \
		KEY("sort", TK_LEFT, PICK_LEFT) KEY("sort", 'h', PICK_LEFT) \
	ACTION(PICK_RIGHT, "column right", "While sorting: next column") \
		KEY("sort", TK_RIGHT, PICK_RIGHT) KEY("sort", 'l', PICK_RIGHT) \
	KEY("sort", TK_ENTER, ENTER) KEY("sort", 's', ENTER) \
	KEY("sort", TK_ESC, BACK) KEY("sort", 'r', REVERSE)

/* Where our keys differ from perf c2c's TUI (tools/perf/builtin-c2c.c):
 * NOTE(key, id, perf) says what perf does with the key; the help screen
 * prints it beside what the key does here (action id), one line each. */
#define PERF_C2C_KEYS(NOTE) \
	NOTE('d', MODE, "opens the line (Enter here)") \
	NOTE(TK_ENTER, ENTER, "toggles call chains (site view here)") \
	NOTE('q', QUIT, "leaves a line (Esc here)") \
	NOTE('n', NEXT, "toggles node info (c here)") \
	NOTE('s', SORT, "full symbol names (> here)")

#define ACTION_ENUM(id, name, help) ACT_##id,
#define ACTION_NO_KEY(scope, key, id)
enum action {
	ACT_NONE = 0,
	ACTION_LIST(ACTION_ENUM, ACTION_NO_KEY)
	ACT__COUNT
};
#undef ACTION_ENUM
#undef ACTION_NO_KEY

struct action_info {
	const char *name;     /* short, for the status line ("sort") */
	const char *help;     /* one sentence for the help screen */
};

const struct action_info *action_info(enum action a);

/* The action bound to key in view `view` (a view's name, e.g. "lines"),
 * falling back to the global bindings. ACT_NONE when unbound. */
enum action keymap_lookup(const char *view, int key);
/* The keys bound to action a in view (view bindings and global ones),
 * written as "j, Down" into buf. Returns the number of keys. */
int keymap_keys(const char *view, enum action a, char *buf, size_t size);
/* The keys bound to action a in exactly this scope (NULL: the global
 * bindings only), as keymap_keys writes them; for the help screen. */
int keymap_scope_keys(const char *scope, enum action a, char *buf, size_t size);
/* Printable name of a key ("Enter", "PgDn", "s", "^L"). */
void keymap_key_name(int key, char *buf, size_t size);

/* The i-th PERF_C2C_KEYS note: key, our action, what perf does; 0 past
 * the end. */
int keymap_perf_note(size_t i, int *key, enum action *a, const char **perf);

/* Iterates the binding table for the help screen: returns the i-th
 * binding's view (NULL: global), key and action; 0 past the end. */
int keymap_binding(size_t i, const char **view, int *key, enum action *a);

#endif /* C2C_KEYMAP_H */
