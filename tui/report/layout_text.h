/* The proposed layout of a type and the what-if replay of the session's
 * accesses against it, as text lines handed to a callback: `report
 * --layout` prints them, the layout view shows them under the rows. */
#ifndef C2C_TUI_LAYOUT_TEXT_H
#define C2C_TUI_LAYOUT_TEXT_H

#include "collector/layout/layout.h"

typedef void (*line_fn)(void *ctx, const char *text);

/* against: the binary the plan was replayed against (NULL: the proposal). */
void plan_text(const struct layout *l, const struct layout_plan *p, const struct layout_whatif *w,
	       const char *against, line_fn fn, void *ctx);

#endif /* C2C_TUI_LAYOUT_TEXT_H */
