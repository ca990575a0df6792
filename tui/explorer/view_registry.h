/* The views' ops tables and the map from a view kind to its table. Only
 * the loop (view_stack.c) uses it: views ask for each other by kind
 * (enum view_kind, view.h), so no view depends on another. */
#ifndef C2C_VIEW_REGISTRY_H
#define C2C_VIEW_REGISTRY_H

#include "tui/explorer/view.h"

extern const struct view_ops view_lines_ops;
extern const struct view_ops view_line_ops;
extern const struct view_ops view_site_ops;
extern const struct view_ops view_cpus_ops;
extern const struct view_ops view_timeline_ops;
extern const struct view_ops view_threads_ops;
extern const struct view_ops view_help_ops;

/* The table of a kind; NULL for VK_NONE or an unknown kind. */
const struct view_ops *view_kind_ops(enum view_kind kind);
/* The kind of a table; VK_NONE when no kind has it. */
enum view_kind view_ops_kind(const struct view_ops *ops);

#endif /* C2C_VIEW_REGISTRY_H */
