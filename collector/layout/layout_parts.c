/* collector/layout: leaf members split at cache line boundaries. A member
 * that straddles a line (`int slots[4]` at 56..71) is two parts, 56..63 on
 * line 0 and 64..71 on line 1, and an access counts on the part holding
 * its byte: a load of slots[2] at +64 is a line-1 access, not a neighbour
 * of what is written on line 0. */
#include "collector/layout/layout_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void layout_parts_free(struct layout_row *r)
{
	for (uint32_t k = 0; k < r->nparts; k++) {
		layout_set_free(&r->parts[k].writers);
		layout_set_free(&r->parts[k].readers);
	}
	free(r->parts);
	r->parts = NULL;
	r->nparts = 0;
}

int layout_parts_build(struct layout *l)
{
	uint64_t ls = l->line_size ? l->line_size : 64, mis = l->base_misalign;

	for (size_t i = 0; i < l->nrows; i++) {
		struct layout_row *r = &l->rows[i];
		uint64_t a, b, first, last;

		layout_parts_free(r);
		if (!r->leaf)
			continue;
		a = mis + r->offset;
		b = a + (r->size ? r->size : 1);   /* a flexible array: its first byte */
		first = a / ls;
		last = (b - 1) / ls;
		r->parts = calloc(last - first + 1, sizeof(*r->parts));
		if (!r->parts)
			return -ENOMEM;
		r->nparts = (uint32_t)(last - first + 1);
		for (uint64_t k = first; k <= last; k++) {
			struct layout_part *p = &r->parts[k - first];
			uint64_t s = k == first ? a : k * ls, e = k == last ? b : (k + 1) * ls;
			p->line = (uint32_t)k;
			p->offset = s - mis;
			p->size = r->size ? e - s : 0;
		}
	}
	return 0;
}

struct layout_part *layout_part_at(struct layout_row *r, uint64_t offset)
{
	for (uint32_t k = 0; k < r->nparts; k++) {
		struct layout_part *p = &r->parts[k];
		if (offset >= p->offset && (offset < p->offset + p->size || k + 1 == r->nparts))
			return p;
	}
	return NULL;
}

int layout_part_account(struct layout_part *p, const struct layout_access *a)
{
	int64_t ag = layout_agent(a->tid, a->cpu);

	if (a->is_store)
		p->stores += a->count;
	else
		p->loads += a->count;
	p->lcl_hitm += a->lcl_hitm;
	p->rmt_hitm += a->rmt_hitm;
	if (ag != -1 && layout_set_add(a->is_store ? &p->writers : &p->readers, ag) < 0)
		return -ENOMEM;
	return 0;
}
