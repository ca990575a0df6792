/* The maps of one address space, as perf keeps them (util/maps.c): a map
 * inserted into a process replaces the overlapping parts of older maps;
 * the kernel's maps are inserted as they come. Sorted array, binary
 * search; shared between the threads of a process by reference count. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector/symbols/sym_priv.h"

struct sym_maps *sym_maps_new(bool allow_overlap)
{
	struct sym_maps *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->refs = 1;
	m->allow_overlap = allow_overlap;
	return m;
}

struct sym_maps *sym_maps_get(struct sym_maps *m)
{
	if (m)
		m->refs++;
	return m;
}

void sym_maps_put(struct sym_maps *m)
{
	if (!m || --m->refs > 0)
		return;
	free(m->v);
	free(m->max_end);
	free(m);
}

static int maps_reserve(struct sym_maps *m, size_t n)
{
	if (n <= m->cap)
		return 0;
	size_t ncap = m->cap ? m->cap * 2 : 16;
	while (ncap < n)
		ncap *= 2;
	struct sym_map *nv = realloc(m->v, ncap * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	m->v = nv;
	if (m->allow_overlap) {
		uint64_t *ne = realloc(m->max_end, ncap * sizeof(*ne));
		if (!ne)
			return -ENOMEM;
		m->max_end = ne;
	}
	m->cap = ncap;
	return 0;
}

/* Index of the first map whose start is > addr. */
static size_t maps_upper(const struct sym_maps *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void maps_fix_max_end(struct sym_maps *m, size_t from)
{
	if (!m->allow_overlap)
		return;
	for (size_t i = from; i < m->n; i++) {
		uint64_t prev = i ? m->max_end[i - 1] : 0;
		m->max_end[i] = m->v[i].end > prev ? m->v[i].end : prev;
	}
}

static int maps_insert_overlapping(struct sym_maps *m, const struct sym_map *map)
{
	if (maps_reserve(m, m->n + 1) < 0)
		return -ENOMEM;
	size_t at = maps_upper(m, map->start);
	memmove(&m->v[at + 1], &m->v[at], (m->n - at) * sizeof(*m->v));
	m->v[at] = *map;
	m->n++;
	maps_fix_max_end(m, at);
	return 0;
}

int sym_maps_insert(struct sym_maps *m, const struct sym_map *map)
{
	if (map->end <= map->start)
		return 0;
	if (m->allow_overlap)
		return maps_insert_overlapping(m, map);

	/* Overlapped maps form one run [first, last) since none overlap. */
	size_t first = maps_upper(m, map->start);
	if (first > 0 && m->v[first - 1].end > map->start)
		first--;
	size_t last = first;
	while (last < m->n && m->v[last].start < map->end)
		last++;

	struct sym_map left, right;
	bool has_left = false, has_right = false;
	if (last > first) {
		if (m->v[first].start < map->start) {
			left = m->v[first];
			left.end = map->start;
			has_left = true;
		}
		if (m->v[last - 1].end > map->end) {
			right = m->v[last - 1];
			right.pgoff += map->end - right.start;
			right.start = map->end;
			has_right = true;
		}
	}
	size_t nnew = 1 + has_left + has_right;
	size_t removed = last - first;
	if (maps_reserve(m, m->n - removed + nnew) < 0)
		return -ENOMEM;
	memmove(&m->v[first + nnew], &m->v[last], (m->n - last) * sizeof(*m->v));
	size_t k = first;
	if (has_left)
		m->v[k++] = left;
	m->v[k++] = *map;
	if (has_right)
		m->v[k++] = right;
	m->n = m->n - removed + nnew;
	return 0;
}

void sym_maps_remove_named(struct sym_maps *m, const char *name)
{
	size_t k = 0;
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].name != name)
			m->v[k++] = m->v[i];
	m->n = k;
	maps_fix_max_end(m, 0);
}

const struct sym_map *sym_maps_find(const struct sym_maps *m, uint64_t addr)
{
	size_t i = maps_upper(m, addr);
	if (!m->allow_overlap) {
		if (i > 0 && addr < m->v[i - 1].end)
			return &m->v[i - 1];
		return NULL;
	}
	/* Overlaps: the innermost (latest-starting) map that covers addr. */
	while (i > 0 && m->max_end[i - 1] > addr) {
		if (addr < m->v[i - 1].end)
			return &m->v[i - 1];
		i--;
	}
	return NULL;
}

const struct sym_map *sym_maps_prev(const struct sym_maps *m, const struct sym_map *map)
{
	size_t i = (size_t)(map - m->v);
	return i > 0 && i < m->n ? &m->v[i - 1] : NULL;
}
