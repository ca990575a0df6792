/* Private to collector/layout_*.c: small sets and the agent numbering. */
#ifndef C2C_LAYOUT_PRIV_H
#define C2C_LAYOUT_PRIV_H

#include "collector/layout/layout.h"

int layout_set_add(struct layout_set *s, int64_t v);
bool layout_set_has(const struct layout_set *s, int64_t v);
void layout_set_free(struct layout_set *s);
/* Who did an access: the thread when known, else the CPU (negative). */
static inline int64_t layout_agent(int32_t tid, int32_t cpu)
{
	if (tid >= 0)
		return tid;
	return cpu >= 0 ? -(int64_t)cpu - 2 : -1;
}

#endif /* C2C_LAYOUT_PRIV_H */
