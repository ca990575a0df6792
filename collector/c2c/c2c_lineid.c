/* The (cache-line address, identity) -> variant table behind c2c's line
 * keys; see c2c_lineid.h for the rule. Two open-addressing hash tables:
 * the pairs seen, and per line address the next free variant. Lookups run
 * once per sample, so they stay O(1) and allocation-free once warm. */
#include "collector/c2c/c2c_lineid.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector/base/sample.h"

struct pair_ent {
	uint64_t cl;
	struct c2c_line_ident id;
	uint8_t variant;
	bool used;
};

struct line_ent {
	uint64_t cl;
	uint8_t next;            /* next variant to give */
	bool used;
};

struct c2c_lineid {
	uint64_t mask;           /* ~(line_size - 1) */
	unsigned max_variant;
	struct pair_ent *pairs;
	size_t npairs, pcap;     /* pcap: power of two */
	struct line_ent *lines;
	size_t nlines, lcap;
	uint64_t overflows;
};

void c2c_line_ident_init(struct c2c_line_ident *id, uint8_t cpumode, int32_t pid,
			 const struct c2c_map_id *map)
{
	memset(id, 0, sizeof(*id));
	id->cpumode = cpumode;
	id->pid = -1;
	if (!map || !map->mapped)
		return;
	id->mapped = true;
	id->maj = map->maj;
	id->min = map->min;
	id->ino = map->ino;
	id->ino_generation = map->ino_generation;
	/* perf: with no device/inode and not MAP_SHARED, user memory is
	 * private to the process; the kernel's is mapped one to one. */
	if (cpumode != C2C_MODE_KERNEL && !map->shared && !map->maj && !map->min && !map->ino &&
	    !map->ino_generation)
		id->pid = pid;
}

bool c2c_line_ident_equal(const struct c2c_line_ident *a, const struct c2c_line_ident *b)
{
	return a->cpumode == b->cpumode && a->mapped == b->mapped && a->maj == b->maj && a->min == b->min &&
	       a->ino == b->ino && a->ino_generation == b->ino_generation && a->pid == b->pid;
}

unsigned c2c_lineid_max_variant(uint32_t line_size)
{
	uint32_t ls = line_size ? line_size : 64;
	return ls - 1 > 63 ? 63 : ls - 1;
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static uint64_t pair_hash(uint64_t cl, const struct c2c_line_ident *id)
{
	uint64_t h = mix64(cl);
	h = mix64(h ^ ((uint64_t)id->cpumode << 56) ^ ((uint64_t)id->mapped << 48) ^ (uint32_t)id->pid);
	h = mix64(h ^ (((uint64_t)id->maj << 32) | id->min));
	h = mix64(h ^ id->ino);
	return mix64(h ^ id->ino_generation);
}

struct c2c_lineid *c2c_lineid_new(uint32_t line_size)
{
	struct c2c_lineid *t = calloc(1, sizeof(*t));
	uint32_t ls = line_size ? line_size : 64;

	if (!t)
		return NULL;
	t->mask = ~(uint64_t)(ls - 1);
	t->max_variant = c2c_lineid_max_variant(ls);
	t->pcap = t->lcap = 256;
	t->pairs = calloc(t->pcap, sizeof(*t->pairs));
	t->lines = calloc(t->lcap, sizeof(*t->lines));
	if (!t->pairs || !t->lines) {
		c2c_lineid_free(t);
		return NULL;
	}
	return t;
}

void c2c_lineid_free(struct c2c_lineid *t)
{
	if (!t)
		return;
	free(t->pairs);
	free(t->lines);
	free(t);
}

static int pairs_grow(struct c2c_lineid *t)
{
	size_t cap = t->pcap * 2;
	struct pair_ent *n = calloc(cap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < t->pcap; i++) {
		const struct pair_ent *e = &t->pairs[i];
		if (!e->used)
			continue;
		size_t j = pair_hash(e->cl, &e->id) & (cap - 1);
		while (n[j].used)
			j = (j + 1) & (cap - 1);
		n[j] = *e;
	}
	free(t->pairs);
	t->pairs = n;
	t->pcap = cap;
	return 0;
}

static int lines_grow(struct c2c_lineid *t)
{
	size_t cap = t->lcap * 2;
	struct line_ent *n = calloc(cap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < t->lcap; i++) {
		const struct line_ent *e = &t->lines[i];
		if (!e->used)
			continue;
		size_t j = mix64(e->cl) & (cap - 1);
		while (n[j].used)
			j = (j + 1) & (cap - 1);
		n[j] = *e;
	}
	free(t->lines);
	t->lines = n;
	t->lcap = cap;
	return 0;
}

/* The next variant for line cl (creating its entry). */
static int line_next(struct c2c_lineid *t, uint64_t cl)
{
	size_t j;

	if ((t->nlines + 1) * 2 > t->lcap && lines_grow(t) < 0)
		return -ENOMEM;
	for (j = mix64(cl) & (t->lcap - 1); t->lines[j].used; j = (j + 1) & (t->lcap - 1))
		if (t->lines[j].cl == cl)
			break;
	struct line_ent *e = &t->lines[j];
	if (!e->used) {
		e->used = true;
		e->cl = cl;
		e->next = 0;
		t->nlines++;
	}
	if (e->next > t->max_variant) {
		t->overflows++;
		return (int)t->max_variant;
	}
	return e->next++;
}

int c2c_lineid_variant(struct c2c_lineid *t, uint64_t addr, const struct c2c_line_ident *id)
{
	uint64_t cl = addr & t->mask;
	size_t j;
	int v;

	if ((t->npairs + 1) * 2 > t->pcap && pairs_grow(t) < 0)
		return -ENOMEM;
	for (j = pair_hash(cl, id) & (t->pcap - 1); t->pairs[j].used; j = (j + 1) & (t->pcap - 1))
		if (t->pairs[j].cl == cl && c2c_line_ident_equal(&t->pairs[j].id, id))
			return t->pairs[j].variant;
	if ((v = line_next(t, cl)) < 0)
		return v;
	t->pairs[j] = (struct pair_ent){ .cl = cl, .id = *id, .variant = (uint8_t)v, .used = true };
	t->npairs++;
	return v;
}

int c2c_lineid_key(struct c2c_lineid *t, uint64_t addr, const struct c2c_line_ident *id, uint64_t *key)
{
	int v = c2c_lineid_variant(t, addr, id);

	if (v < 0)
		return v;
	*key = (addr & t->mask) | (uint64_t)v;
	return 0;
}

uint64_t c2c_lineid_overflows(const struct c2c_lineid *t)
{
	return t->overflows;
}

uint64_t c2c_lineid_count(const struct c2c_lineid *t)
{
	return t->npairs;
}
