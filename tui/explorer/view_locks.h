/* The lock views' ops tables (view_locks.c: the lock list; view_lock.c: a
 * lock's callers and a caller's call stack), for view_registry.c only. */
#ifndef C2C_VIEW_LOCKS_H
#define C2C_VIEW_LOCKS_H

#include "tui/explorer/view.h"

extern const struct view_ops view_locks_ops;
extern const struct view_ops view_lock_ops;
extern const struct view_ops view_lock_stack_ops;

#endif /* C2C_VIEW_LOCKS_H */
