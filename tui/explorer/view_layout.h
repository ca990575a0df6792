/* The layout view (tui/explorer/view_layout.c): one type of one session, pahole-like
 * with per-member statistics, flags, the proposed layout and its what-if. */
#ifndef C2C_VIEW_LAYOUT_H
#define C2C_VIEW_LAYOUT_H

#include "store/store.h"

struct view_ops;

/* Handed in struct view_query.arg; borrowed while the view is on the stack. */
struct view_layout_arg {
	struct store *st;
	char type[128];
};

extern const struct view_ops view_layout_ops;

/* The struct-name picker: Enter assigns the chosen struct to the object at
 * base in st (typeinfo_assign; st must be writable), then every view
 * re-runs its queries. '/' searches names; '/' @0xADDR changes the base. */
struct view_assign_arg {
	struct store *st;
	uint64_t base;
	char session[16];       /* "before"/"after", for the title */
};

extern const struct view_ops view_assign_ops;

#endif /* C2C_VIEW_LAYOUT_H */
