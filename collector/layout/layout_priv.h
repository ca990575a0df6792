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

/* layout_parts.c: (re)splits every leaf row at the line boundaries of the
 * layout's base_misalign (parts owned by the row), finds the part holding
 * an offset of the row, adds an access to a part. */
/* The struct or union with a body that type is (typedefs and qualifiers
 * followed) and its id in *sid, or NULL with -EINVAL in err: what a layout
 * is built from (layout_rows.c, layout_pahole.c). */
const struct types_type *layout_aggregate(struct types_db *db, uint32_t type, uint32_t *sid,
					  struct c2c_error *err);
int layout_parts_build(struct layout *l);
void layout_parts_free(struct layout_row *r);
struct layout_part *layout_part_at(struct layout_row *r, uint64_t offset);
int layout_part_account(struct layout_part *p, const struct layout_access *a);

#endif /* C2C_LAYOUT_PRIV_H */
