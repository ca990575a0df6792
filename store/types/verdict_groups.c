/* Samples grouped for the verdicts (store/types/verdict_groups.h): open
 * addressing over the group identity, names interned once. */
#include "store/types/verdict_groups.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int vnames_rehash(struct vnames *v, size_t nslot)
{
	uint32_t *slot = calloc(nslot, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t id = 1; id <= v->n; id++) {
		size_t i = str_hash(v->s[id - 1]) & (nslot - 1);
		while (slot[i])
			i = (i + 1) & (nslot - 1);
		slot[i] = (uint32_t)id;
	}
	free(v->slot);
	v->slot = slot;
	v->nslot = nslot;
	return 0;
}

uint32_t vnames_id(struct vnames *v, const char *s, int *rc)
{
	size_t i;

	if ((v->n + 1) * 2 > v->nslot && vnames_rehash(v, v->nslot ? v->nslot * 2 : 64) < 0)
		goto nomem;
	for (i = str_hash(s) & (v->nslot - 1); v->slot[i]; i = (i + 1) & (v->nslot - 1))
		if (!strcmp(v->s[v->slot[i] - 1], s))
			return v->slot[i];
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 64;
		char **ns = realloc(v->s, cap * sizeof(*ns));
		if (!ns)
			goto nomem;
		v->s = ns;
		v->cap = cap;
	}
	if (!(v->s[v->n] = strdup(s)))
		goto nomem;
	v->slot[i] = (uint32_t)++v->n;
	return (uint32_t)v->n;
nomem:
	*rc = -ENOMEM;
	return 0;
}

const char *vnames_text(const struct vnames *v, uint32_t id)
{
	return id && id <= v->n ? v->s[id - 1] : "";
}

static uint64_t group_hash(const struct vgroup *s)
{
	uint64_t h = mix(s->line, s->key);

	h = mix(h, ((uint64_t)(uint32_t)s->tid << 32) | (uint32_t)s->cpu);
	h = mix(h, ((uint64_t)s->site << 40) | ((uint64_t)s->store << 32) | ((uint64_t)s->lcl_hitm << 24) |
			   ((uint64_t)s->rmt_hitm << 16) | ((uint64_t)s->lcl_peer << 8) | s->rmt_peer);
	return h;
}

static bool same_group(const struct vgroup *a, const struct vgroup *b)
{
	return a->line == b->line && a->key == b->key && a->tid == b->tid && a->cpu == b->cpu &&
	       a->site == b->site && a->store == b->store && a->lcl_hitm == b->lcl_hitm &&
	       a->rmt_hitm == b->rmt_hitm && a->lcl_peer == b->lcl_peer && a->rmt_peer == b->rmt_peer;
}

static bool before(uint64_t addr, int64_t id, uint64_t than_addr, int64_t than_id)
{
	return addr != than_addr ? addr < than_addr : id < than_id;
}

static struct vgroup *group_slot(struct vgroup *g, size_t cap, const struct vgroup *s)
{
	size_t i = group_hash(s) & (cap - 1);

	while (g[i].count && !same_group(&g[i], s))
		i = (i + 1) & (cap - 1);
	return &g[i];
}

static int vgroups_grow(struct vgroups *g)
{
	size_t cap = g->cap ? g->cap * 2 : 1024;
	struct vgroup *ng = calloc(cap, sizeof(*ng));

	if (!ng)
		return -ENOMEM;
	for (size_t i = 0; i < g->cap; i++)
		if (g->g[i].count)
			*group_slot(ng, cap, &g->g[i]) = g->g[i];
	free(g->g);
	g->g = ng;
	g->cap = cap;
	return 0;
}

int vgroups_add(struct vgroups *g, const struct vgroup *s)
{
	struct vgroup *e;

	if ((g->n + 1) * 2 > g->cap && vgroups_grow(g) < 0)
		return -ENOMEM;
	e = group_slot(g->g, g->cap, s);
	if (!e->count) {
		*e = *s;
		g->n++;
		return 0;
	}
	e->count += s->count;
	if (before(s->first_addr, s->first_id, e->first_addr, e->first_id)) {
		e->first_addr = s->first_addr;
		e->first_id = s->first_id;
	}
	if (s->type && (!e->type || before(s->type_addr, s->type_id, e->type_addr, e->type_id))) {
		e->type = s->type;
		e->type_addr = s->type_addr;
		e->type_id = s->type_id;
	}
	return 0;
}

static int first_cmp(const void *x, const void *y)
{
	const struct vgroup *a = x, *b = y;

	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->first_addr != b->first_addr)
		return a->first_addr < b->first_addr ? -1 : 1;
	return a->first_id < b->first_id ? -1 : a->first_id > b->first_id;
}

struct vgroup *vgroups_sorted(struct vgroups *g, size_t *n)
{
	size_t k = 0;

	for (size_t i = 0; i < g->cap; i++)
		if (g->g[i].count)
			g->g[k++] = g->g[i];
	/* the table is no longer a hash table: nothing may be added */
	g->cap = 0;
	g->n = k;
	if (k)
		qsort(g->g, k, sizeof(*g->g), first_cmp);
	*n = k;
	return g->g;
}

void vgroups_fini(struct vgroups *g)
{
	for (size_t i = 0; i < g->names.n; i++)
		free(g->names.s[i]);
	free(g->names.s);
	free(g->names.slot);
	free(g->g);
	memset(g, 0, sizeof(*g));
}
