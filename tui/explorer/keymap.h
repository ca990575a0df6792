/* Actions and the keys that trigger them. One table of actions (name and
 * help text) and one table of bindings (global, or for one view) drive both
 * the dispatch and the help screen, so help never drifts from the keys. */
#ifndef C2C_KEYMAP_H
#define C2C_KEYMAP_H

#include <stddef.h>

enum action {
	ACT_NONE = 0,
	ACT_UP,
	ACT_DOWN,
	ACT_PGUP,
	ACT_PGDN,
	ACT_HOME,
	ACT_END,
	ACT_ENTER,
	ACT_BACK,
	ACT_QUIT,
	ACT_HELP,
	ACT_SEARCH,
	ACT_NEXT,
	ACT_PREV,
	ACT_SORT,
	ACT_REVERSE,
	ACT_FILTER,
	ACT_UNFILTER,
	ACT_MODE,
	ACT_CPUS,
	ACT_TIMELINE,
	ACT_PANE,
	ACT_WORDS,
	ACT_MARK,
	ACT_WINDOW_CLEAR,
	ACT_REDRAW,
	ACT_REFRESH,
	ACT_SHOW_ALL,
	ACT_COLS_RIGHT,
	ACT_COLS_LEFT,
	ACT_ASSIGN,       /* diff and line views: assign a type to an object by hand (view_layout.c) */
	ACT_LAYOUT,       /* line view: the layout of the line's attributed type */
	ACT_PICK_LEFT,    /* while choosing a sort column */
	ACT_PICK_RIGHT,
	ACT__COUNT
};

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
/* Printable name of a key ("Enter", "PgDn", "s", "^L"). */
void keymap_key_name(int key, char *buf, size_t size);

/* Iterates the binding table for the help screen: returns the i-th
 * binding's view (NULL: global), key and action; 0 past the end. */
int keymap_binding(size_t i, const char **view, int *key, enum action *a);

#endif /* C2C_KEYMAP_H */
