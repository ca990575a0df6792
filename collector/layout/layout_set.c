/* collector/layout: small sorted sets of integers (CPUs, threads, sites,
 * agents), shared by the rows, their line parts and the verdicts. */
#include "collector/layout/layout_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int layout_set_add(struct layout_set *s, int64_t v)
{
	uint32_t lo = 0, hi = s->n;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (s->v[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->n && s->v[lo] == v)
		return 0;
	if (s->n == s->cap) {
		uint32_t nc = s->cap ? s->cap * 2 : 4;
		int64_t *nv = realloc(s->v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		s->v = nv;
		s->cap = nc;
	}
	memmove(s->v + lo + 1, s->v + lo, (s->n - lo) * sizeof(*s->v));
	s->v[lo] = v;
	s->n++;
	return 1;
}

bool layout_set_has(const struct layout_set *s, int64_t v)
{
	uint32_t lo = 0, hi = s->n;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (s->v[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->v[lo] == v;
}

void layout_set_free(struct layout_set *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
