/* The kind -> ops table map, expanded from VIEW_KINDS (view.h). The one
 * place besides each view's own file that names a view's table. */
#include "tui/explorer/view_registry.h"
#include "tui/explorer/view_diff.h"
#include "tui/explorer/view_layout.h"
#include "tui/explorer/view_locks.h"

#define VIEW_KIND_OPS(kind, ops) [VK_##kind] = &ops,
static const struct view_ops *const kinds[VK__COUNT] = {
	VIEW_KINDS(VIEW_KIND_OPS)
};

const struct view_ops *view_kind_ops(enum view_kind kind)
{
	return (int)kind > VK_NONE && kind < VK__COUNT ? kinds[kind] : NULL;
}

enum view_kind view_ops_kind(const struct view_ops *ops)
{
	for (int k = VK_NONE + 1; k < VK__COUNT; k++)
		if (ops && kinds[k] == ops)
			return (enum view_kind)k;
	return VK_NONE;
}
