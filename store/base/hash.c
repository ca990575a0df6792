/* Open-addressing hash tables keyed by AGG_KEY_WORDS 64-bit words: the
 * aggregate tables (entries allocated from slabs so pointers stay valid
 * while the table grows, and a big table is freed in a few calls) and
 * key-only sets (distinct counts). */
#include "store/base/base.h"
#include "store/base/hash.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Slab i holds 32 << i entries, up to what fits in 2 MiB: small tables
 * stay small, big ones get huge-page-sized slabs. */
static size_t slab_cap(size_t i)
{
	size_t max = ((size_t)2 << 20) / sizeof(struct agg_ent);
	return i >= 16 || ((size_t)32 << i) > max ? max : (size_t)32 << i;
}

static uint64_t key_hash(const uint64_t *k)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < AGG_KEY_WORDS; i++) {
		h ^= k[i] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 33;
	}
	return h;
}

static bool key_eq(const uint64_t *a, const uint64_t *b)
{
	return !memcmp(a, b, sizeof(uint64_t) * AGG_KEY_WORDS);
}

static int table_rehash(struct agg_table *t, size_t ncap)
{
	struct agg_slot *slots = store_zalloc_big(ncap * sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->slots[i].e)
			continue;
		size_t j = t->slots[i].hash & (ncap - 1);
		while (slots[j].e)
			j = (j + 1) & (ncap - 1);
		slots[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->cap = ncap;
	return 0;
}

struct agg_ent *agg_table_find(const struct agg_table *t, const uint64_t *key)
{
	if (!t->cap)
		return NULL;
	uint64_t h = key_hash(key);
	size_t j = h & (t->cap - 1);
	while (t->slots[j].e) {
		if (t->slots[j].hash == h && key_eq(t->slots[j].e->key, key))
			return t->slots[j].e;
		j = (j + 1) & (t->cap - 1);
	}
	return NULL;
}

/* A zeroed entry from the table's last slab (a new slab when it is full). */
static struct agg_ent *slab_entry(struct agg_table *t)
{
	if (!t->nslabs || t->slab_used == slab_cap(t->nslabs - 1)) {
		struct agg_ent **p = realloc(t->slabs, (t->nslabs + 1) * sizeof(*p));
		if (!p)
			return NULL;
		t->slabs = p;
		if (!(p[t->nslabs] = store_zalloc_big(slab_cap(t->nslabs) * sizeof(struct agg_ent))))
			return NULL;
		t->nslabs++;
		t->slab_used = 0;
	}
	return &t->slabs[t->nslabs - 1][t->slab_used++];
}

struct agg_ent *agg_table_get(struct agg_table *t, const uint64_t *key, bool *created)
{
	*created = false;
	/* Load factor at most 1/2: short probe runs in the slot array. */
	if ((t->count + 1) * 2 >= t->cap && table_rehash(t, t->cap ? t->cap * 2 : 64) < 0)
		return NULL;
	uint64_t h = key_hash(key);
	size_t j = h & (t->cap - 1);
	while (t->slots[j].e) {
		if (t->slots[j].hash == h && key_eq(t->slots[j].e->key, key))
			return t->slots[j].e;
		j = (j + 1) & (t->cap - 1);
	}
	struct agg_ent *e = slab_entry(t);
	if (!e)
		return NULL;
	memcpy(e->key, key, sizeof(e->key));
	t->slots[j].hash = h;
	t->slots[j].e = e;
	t->count++;
	*created = true;
	return e;
}

int agg_table_mark_slow(struct agg_table *t, struct agg_ent *e)
{
	if (e->dirty)
		return 0;
	if (store_grow((void **)&t->dirty, &t->dirty_cap, t->ndirty + 1, sizeof(*t->dirty)) < 0)
		return -ENOMEM;
	e->dirty = true;
	t->dirty[t->ndirty++] = e;
	return 0;
}

void agg_table_fini(struct agg_table *t)
{
	for (size_t i = 0; i < t->nslabs; i++) {
		size_t n = i + 1 == t->nslabs ? t->slab_used : slab_cap(i);
		for (size_t j = 0; j < n && t->heap_cpus; j++)
			if (t->slabs[i][j].cpus && t->slabs[i][j].cpus != t->slabs[i][j].cpus_inline)
				free(t->slabs[i][j].cpus);
		free(t->slabs[i]);
	}
	free(t->slabs);
	free(t->slots);
	free(t->dirty);
	memset(t, 0, sizeof(*t));
}

static int set_rehash(struct key_set *s, size_t ncap)
{
	uint64_t *keys = store_zalloc_big(ncap * AGG_KEY_WORDS * sizeof(uint64_t));
	uint8_t *used = store_zalloc_big(ncap);
	if (!keys || !used) {
		free(keys);
		free(used);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->cap; i++) {
		if (!s->used[i])
			continue;
		const uint64_t *k = s->keys + i * AGG_KEY_WORDS;
		size_t j = key_hash(k) & (ncap - 1);
		while (used[j])
			j = (j + 1) & (ncap - 1);
		used[j] = 1;
		memcpy(keys + j * AGG_KEY_WORDS, k, AGG_KEY_WORDS * sizeof(uint64_t));
	}
	free(s->keys);
	free(s->used);
	s->keys = keys;
	s->used = used;
	s->cap = ncap;
	return 0;
}

int key_set_add(struct key_set *s, const uint64_t *key)
{
	if ((s->count + 1) * 4 >= s->cap * 3 && set_rehash(s, s->cap ? s->cap * 2 : 64) < 0)
		return -ENOMEM;
	size_t j = key_hash(key) & (s->cap - 1);
	while (s->used[j]) {
		if (key_eq(s->keys + j * AGG_KEY_WORDS, key))
			return 0;
		j = (j + 1) & (s->cap - 1);
	}
	s->used[j] = 1;
	memcpy(s->keys + j * AGG_KEY_WORDS, key, AGG_KEY_WORDS * sizeof(uint64_t));
	s->count++;
	return 1;
}

void key_set_fini(struct key_set *s)
{
	free(s->keys);
	free(s->used);
	memset(s, 0, sizeof(*s));
}
