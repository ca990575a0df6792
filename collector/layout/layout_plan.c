/* collector/layout: plans (member name -> offset). The plan of an existing
 * layout, and a proposed one that moves write-hot members away from the
 * read-mostly ones: a suggestion with its reasoning, never applied. */
#include "collector/layout/layout_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a ? (v + a - 1) / a * a : v;
}

/* Alignment of a top-level row: its type's; a bitfield unit keeps the
 * alignment its byte offset honours. Rows read back from a session without
 * alignments fall back to the offset's alignment up to the size. */
static uint32_t row_align(const struct layout_row *r)
{
	uint32_t a = 1;

	if (r->align && !r->bit_size)
		return r->align;
	while (a < 16 && a * 2 <= r->size && (r->offset % (a * 2)) == 0)
		a *= 2;
	return a;
}

static int plan_alloc(struct layout_plan *p, const struct layout *l)
{
	size_t n = 0;

	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < l->nrows; i++)
		if (l->rows[i].depth == 0)
			n++;
	p->m = calloc(n ? n : 1, sizeof(*p->m));
	if (!p->m)
		return -ENOMEM;
	snprintf(p->type_name, sizeof(p->type_name), "%s", l->type_name);
	p->line_size = l->line_size;
	for (size_t i = 0; i < l->nrows; i++) {
		const struct layout_row *r = &l->rows[i];
		struct layout_plan_member *m;
		if (r->depth)
			continue;
		/* consecutive bitfields (one storage unit, as the compiler
		 * packs them) move together: fold them into the first one */
		if (r->bit_size && p->n && p->m[p->n - 1].old_offset + p->m[p->n - 1].size >= r->offset &&
		    l->rows[i - 1].bit_size) {
			m = &p->m[p->n - 1];
			if (r->offset + r->size > m->old_offset + m->size)
				m->size = r->offset + r->size - m->old_offset;
			continue;
		}
		m = &p->m[p->n++];
		snprintf(m->name, sizeof(m->name), "%s", r->name);
		m->old_offset = m->new_offset = r->offset;
		m->size = r->size;
		m->align = row_align(r);
	}
	return 0;
}

int layout_plan_from_layout(struct layout_plan *out, const struct layout *l)
{
	int rc = plan_alloc(out, l);

	if (rc < 0)
		return rc;
	out->size = l->size;
	out->align = l->align;
	return 0;
}

void layout_plan_fini(struct layout_plan *p)
{
	free(p->m);
	memset(p, 0, sizeof(*p));
}

static const struct layout_row *top_row(const struct layout *l, const char *name)
{
	for (size_t i = 0; i < l->nrows; i++)
		if (l->rows[i].depth == 0 && !strcmp(l->rows[i].name, name))
			return &l->rows[i];
	return NULL;
}

static bool same_set(const struct layout_set *a, const struct layout_set *b)
{
	return a->n == b->n && (!a->n || !memcmp(a->v, b->v, a->n * sizeof(*a->v)));
}

/* Write-hot top-level rows: stores >= 5% of the hottest row's stores. */
static bool write_hot(const struct layout_row *r, uint64_t max_st)
{
	return r->stores && r->stores * 20 >= max_st;
}

static void annotate(struct layout_plan *p, const char *fmt, const char *a, const char *b)
{
	if (p->nannotations < sizeof(p->annotations) / sizeof(p->annotations[0]))
		snprintf(p->annotations[p->nannotations++], sizeof(p->annotations[0]), fmt, a, b);
}

/* The edits that give the proposal. Read-mostly and cold members keep
 * their declaration order, so only the write groups move: the first member
 * of each group goes after the member before it in the plan and starts a
 * new cache line (the kernel's ____cacheline_aligned_in_smp, the aligned
 * attribute in user space); the others of its group follow it. */
static void plan_annotate(struct layout_plan *p, const struct layout *l)
{
	size_t *order = malloc((p->n ? p->n : 1) * sizeof(*order));
	char aligned[64], where[192];

	if (!order)
		return;
	for (size_t i = 0; i < p->n; i++)
		order[i] = i;
	/* by new offset (insertion sort: a struct has few top-level members) */
	for (size_t i = 1; i < p->n; i++)
		for (size_t k = i; k > 0 && p->m[order[k]].new_offset < p->m[order[k - 1]].new_offset; k--) {
			size_t t = order[k];
			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	snprintf(aligned, sizeof(aligned), "__attribute__((aligned(%u)))", l->line_size);
	for (size_t k = 0; k < p->n; k++) {
		const struct layout_plan_member *m = &p->m[order[k]];
		const struct layout_plan_member *prev = k ? &p->m[order[k - 1]] : NULL;
		bool in_place = prev ? order[k - 1] + 1 == order[k] : order[k] == 0;

		if (!m->group)
			continue;
		if (!prev || prev->group != m->group) {
			if (in_place)
				snprintf(where, sizeof(where), "%.80s", m->name);
			else if (k + 1 == p->n)
				snprintf(where, sizeof(where), "%.80s to the end (after %.60s)", m->name,
					 prev ? prev->name : "");
			else
				snprintf(where, sizeof(where), "%.80s after %.60s", m->name,
					 prev ? prev->name : "");
			annotate(p, in_place ? "mark %.150s ____cacheline_aligned_in_smp (in user space %.40s):"
					       " it must start a new cache line"
					     : "move %.150s and mark it ____cacheline_aligned_in_smp (in user"
					       " space %.40s): it must start a new cache line",
				 where, aligned);
		} else if (!in_place) {
			annotate(p, "move %.80s next to %.80s (same writers)", m->name, prev->name);
		}
	}
	free(order);
}

int layout_propose(struct layout_plan *out, const struct layout *l)
{
	int rc = plan_alloc(out, l);
	uint64_t max_st = 0, cur = 0, ls = l->line_size;
	const struct layout_row **tops;
	uint32_t ngroups = 0, align = 1;
	size_t nhot = 0, nread = 0;
	bool any_fs = false;

	if (rc < 0)
		return rc;
	tops = calloc(out->n ? out->n : 1, sizeof(*tops));
	if (!tops) {
		layout_plan_fini(out);
		return -ENOMEM;
	}
	for (size_t i = 0; i < out->n; i++) {
		tops[i] = top_row(l, out->m[i].name);
		if (tops[i]->stores > max_st)
			max_st = tops[i]->stores;
	}
	for (size_t i = 0; i < l->nrows; i++)
		any_fs |= l->rows[i].fs_flag;
	/* Groups: members written by exactly the same threads stay together
	 * (they are co-accessed); each group gets its own line(s). */
	for (size_t i = 0; i < out->n; i++) {
		if (!write_hot(tops[i], max_st) || out->m[i].group)
			continue;
		out->m[i].group = ++ngroups;
		for (size_t k = i + 1; k < out->n; k++)
			if (!out->m[k].group && write_hot(tops[k], max_st) &&
			    same_set(&tops[k]->writers, &tops[i]->writers))
				out->m[k].group = ngroups;
	}
	if (!ngroups || !any_fs) {
		/* Nothing to separate: the plan is the current layout. */
		out->size = l->size;
		out->align = l->align;
		snprintf(out->reasoning[out->nreasoning++], sizeof(out->reasoning[0]),
			 "%s", !ngroups ? "no member is written: nothing to separate"
					: "no write-hot member shares a line with other threads' "
					  "accesses: keep the layout");
		for (size_t i = 0; i < out->n; i++)
			out->m[i].group = 0;
		free(tops);
		return 0;
	}
	/* Read-mostly and cold members first, in their original order. */
	for (size_t i = 0; i < out->n; i++) {
		struct layout_plan_member *m = &out->m[i];
		if (m->group)
			continue;
		cur = align_up(cur, m->align);
		m->new_offset = cur;
		cur += m->size;
		if (m->align > align)
			align = m->align;
		snprintf(m->why, sizeof(m->why), "%s", tops[i]->loads ? "read-mostly: stays with "
			 "the other readers" : "cold");
		if (tops[i]->loads)
			nread++;
	}
	/* Then each write group on a fresh cache line. */
	for (uint32_t g = 1; g <= ngroups; g++) {
		cur = align_up(cur, ls);
		for (size_t i = 0; i < out->n; i++) {
			struct layout_plan_member *m = &out->m[i];
			if (m->group != g)
				continue;
			cur = align_up(cur, m->align);
			m->new_offset = cur;
			cur += m->size;
			nhot++;
			snprintf(m->why, sizeof(m->why), "written by %u thread%s (%llu stores): own line",
				 tops[i]->writers.n, tops[i]->writers.n == 1 ? "" : "s",
				 (unsigned long long)tops[i]->stores);
		}
	}
	out->align = (uint32_t)ls;
	if (align > out->align)
		out->align = align;
	out->size = align_up(cur, out->align);
	snprintf(out->reasoning[out->nreasoning++], sizeof(out->reasoning[0]),
		 "%zu write-hot member%s in %u group%s (same writer threads) moved to %s own cache "
		 "line%s", nhot, nhot == 1 ? "" : "s", ngroups, ngroups == 1 ? "" : "s",
		 ngroups == 1 ? "its" : "their", ngroups == 1 ? "" : "s");
	snprintf(out->reasoning[out->nreasoning++], sizeof(out->reasoning[0]),
		 "%zu read-mostly member%s kept together at the start, in declaration order", nread,
		 nread == 1 ? "" : "s");
	snprintf(out->reasoning[out->nreasoning++], sizeof(out->reasoning[0]),
		 "size %llu -> %llu bytes, alignment %u -> %u (__attribute__((aligned(%u))) on the "
		 "first member of each write group)",
		 (unsigned long long)l->size, (unsigned long long)out->size, l->align, out->align,
		 (unsigned)ls);
	plan_annotate(out, l);
	free(tops);
	return 0;
}
