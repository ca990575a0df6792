/* The timeline log: what the timeline aggregate needs of each sample
 * (time, line key, the six counters it shows), kept in memory by the
 * session writer's aggregator as samples arrive, a few bytes each. At
 * finalize the timeline is built from it (store/agg/agg_timeline.c) instead of
 * reading every row of the samples table back, which cost as much as a
 * third of a large import. The log gives up (and the build scans) when it
 * would outgrow its budget or memory runs out. */
#include "store/agg/agg_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK ((size_t)2 << 20)
/* Past this, the log gives up: ~200M samples at the usual 5 bytes. */
#define LOG_BUDGET ((size_t)1 << 30)
/* Longest entry: a 10-byte time delta, a 5-byte line index, 2 bytes of counts. */
#define MAX_ENTRY 17

struct tl_chunk {
	unsigned char *p;
	size_t used;
};

struct tl_log {
	struct tl_chunk *chunks;
	size_t nchunks, cap_chunks;
	uint64_t prev_time;
	uint64_t *keys;              /* line index - 1 -> line key */
	uint32_t nkeys, cap_keys;
	uint64_t nr_seen;            /* samples offered, timed or not */
	bool broken;
};

static void drop(struct tl_log *l)
{
	for (size_t i = 0; i < l->nchunks; i++)
		free(l->chunks[i].p);
	free(l->chunks);
	free(l->keys);
	l->chunks = NULL;
	l->keys = NULL;
	l->nchunks = l->cap_chunks = 0;
	l->nkeys = l->cap_keys = 0;
	l->broken = true;
}

struct tl_log *tl_log_new(void)
{
	return calloc(1, sizeof(struct tl_log));
}

void tl_log_free(struct tl_log *l)
{
	if (!l)
		return;
	drop(l);
	free(l);
}

size_t store_put_varint(unsigned char *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	return n;
}

static uint64_t get_varint(const unsigned char **p)
{
	uint64_t x = 0;
	unsigned shift = 0;
	unsigned char c;

	do {
		c = *(*p)++;
		x |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	return x;
}

/* The counters the timeline shows, two bits each (c2c_bits_count). */
static const enum c2c_counter shown[TL_LOG_COUNTERS] = {
	C2C_LOAD, C2C_STORE, C2C_LCL_HITM, C2C_RMT_HITM, C2C_TOT_HITM, C2C_TOT_PEER,
};

void tl_log_counts(uint64_t bits, unsigned *v)
{
	for (int i = 0; i < TL_LOG_COUNTERS; i++)
		v[i] = c2c_bits_count(bits, shown[i]);
}

static unsigned pack_counts(uint64_t bits)
{
	unsigned v = 0;
	for (int i = 0; i < TL_LOG_COUNTERS; i++)
		v |= c2c_bits_count(bits, shown[i]) << (2 * i);
	return v;
}

/* The last chunk, with room for one more entry. */
static struct tl_chunk *room(struct tl_log *l)
{
	if (l->nchunks && l->chunks[l->nchunks - 1].used + MAX_ENTRY <= CHUNK)
		return &l->chunks[l->nchunks - 1];
	if ((l->nchunks + 1) * CHUNK > LOG_BUDGET)
		return NULL;
	if (l->nchunks == l->cap_chunks) {
		size_t cap = l->cap_chunks ? l->cap_chunks * 2 : 64;
		struct tl_chunk *p = realloc(l->chunks, cap * sizeof(*p));
		if (!p)
			return NULL;
		l->chunks = p;
		l->cap_chunks = cap;
	}
	unsigned char *c = store_zalloc_big(CHUNK);
	if (!c)
		return NULL;
	l->chunks[l->nchunks] = (struct tl_chunk){ c, 0 };
	return &l->chunks[l->nchunks++];
}

void tl_log_add(struct tl_log *l, uint64_t time, uint64_t line, uint32_t *line_idx, uint64_t bits)
{
	if (l->broken)
		return;
	l->nr_seen++;
	if (!time)
		return;  /* the timeline counts timed samples only */
	if (!*line_idx) {
		if (l->nkeys == UINT32_MAX - 1)
			goto fail;
		if (l->nkeys == l->cap_keys) {
			uint32_t cap = l->cap_keys ? l->cap_keys * 2 : 1024;
			uint64_t *k = realloc(l->keys, cap * sizeof(*k));
			if (!k)
				goto fail;
			l->keys = k;
			l->cap_keys = cap;
		}
		l->keys[l->nkeys++] = line;
		*line_idx = l->nkeys;
	}
	struct tl_chunk *c = room(l);
	if (!c)
		goto fail;
	unsigned char *p = c->p + c->used;
	/* time deltas zigzag-coded: perf's order is by time, but a live
	 * session's rounds may step back a little */
	int64_t d = (int64_t)(time - l->prev_time);
	size_t n = store_put_varint(p, ((uint64_t)d << 1) ^ (uint64_t)(d >> 63));
	n += store_put_varint(p + n, *line_idx);
	n += store_put_varint(p + n, pack_counts(bits));
	l->prev_time = time;
	c->used += n;
	return;
fail:
	drop(l);
}

bool tl_log_usable(const struct tl_log *l, uint64_t nr_samples)
{
	return l && !l->broken && l->nr_seen == nr_samples;
}

int tl_log_each(const struct tl_log *l, int (*fn)(void *ctx, uint64_t time, uint64_t line, const unsigned *counts),
		void *ctx)
{
	uint64_t t = 0;
	unsigned counts[TL_LOG_COUNTERS];
	int r;

	for (size_t c = 0; c < l->nchunks; c++) {
		const unsigned char *p = l->chunks[c].p, *end = p + l->chunks[c].used;
		while (p < end) {
			uint64_t z = get_varint(&p);
			t += (z >> 1) ^ (uint64_t)-(int64_t)(z & 1);
			uint64_t idx = get_varint(&p);
			unsigned v = (unsigned)get_varint(&p);
			for (int i = 0; i < TL_LOG_COUNTERS; i++)
				counts[i] = (v >> (2 * i)) & 3;
			if ((r = fn(ctx, t, l->keys[idx - 1], counts)) != 0)
				return r;
		}
	}
	return 0;
}
