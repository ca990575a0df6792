/* The diff views (tui/explorer/view_diff.c): matched cache lines of two sessions,
 * and (Enter) the layout of the line's type in the before and the after
 * build side by side, members aligned by name; (C) code by function. */
#ifndef C2C_VIEW_DIFF_H
#define C2C_VIEW_DIFF_H

#include "store/diff/diff.h"
#include "store/store.h"

struct view_ops;

/* What `c2ctui diff` hands the first view (tui_options.first_arg). All
 * borrowed for the life of the explorer. */
struct view_diff_arg {
	struct store *before, *after;
	const struct diff_result *result;
};

extern const struct view_ops view_diff_ops;
extern const struct view_ops view_diff_layout_ops;
/* Code by function before -> after (view_diff_funcs.c; arg: the view_diff_arg). */
extern const struct view_ops view_diff_funcs_ops;

#endif /* C2C_VIEW_DIFF_H */
