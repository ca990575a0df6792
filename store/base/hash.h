/* store/base's hash tables: the aggregates' entries (store/agg), the
 * writer's intern maps (store/writer) and the queries' small groupings
 * (store/query) all use them. */
#ifndef C2C_STORE_HASH_H
#define C2C_STORE_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"


#define AGG_KEY_WORDS 4

/* Aggregate entry. Which fields are used depends on the table. */
struct agg_ent {
	uint64_t key[AGG_KEY_WORDS];
	struct c2c_stats stats;
	struct store_lat lat;
	uint64_t *cpus;              /* CPU bitmap, cpu_words words: cpus_inline for
	                                CPUs < 256 (no extra cache miss), heap beyond */
	uint32_t cpu_words;
	uint64_t cpus_inline[4];
	uint32_t nr_cpus;
	uint32_t nr_threads, nr_sites, nr_offsets;
	uint64_t node_mask;
	int64_t dsym;                /* data symbol, 0 none */
	uint64_t dsym_start;
	int64_t site;                /* pareto: a site of this ip */
	uint64_t lock_waits, lock_wait_ns, lock_wait_max, lock_flags;
	/* Coarser entries this one always feeds (set when it is created), so
	 * a sample costs one lookup per chain: Pareto -> offset, line; cell ->
	 * line x CPU, line x node. */
	struct agg_ent *up1, *up2;
	void *rep;                   /* the report's sample-order entry
	                                (store/agg/agg_report.c): line or row */
	bool dirty;
	uint32_t tl_idx;             /* line entries: the timeline log's index, 0 none yet */
};

struct agg_slot {
	uint64_t hash;               /* of e->key: probes compare it without touching e */
	struct agg_ent *e;           /* NULL: free */
};

struct agg_table {
	struct agg_slot *slots;
	size_t cap, count;
	struct agg_ent **slabs;      /* entries come from slabs (store/base/hash.c),
	                                freed together */
	size_t nslabs, slab_used;    /* entries used in the last slab */
	size_t heap_cpus;            /* entries whose CPU bitmap is on the heap */
	struct agg_ent **dirty;      /* entries changed since the last flush */
	size_t ndirty, dirty_cap;
};

/* Returns the entry for key (created zeroed when absent; *created set).
 * NULL on allocation failure. */
struct agg_ent *agg_table_get(struct agg_table *t, const uint64_t *key, bool *created);
struct agg_ent *agg_table_find(const struct agg_table *t, const uint64_t *key);
int agg_table_mark_slow(struct agg_table *t, struct agg_ent *e);
static inline int agg_table_mark(struct agg_table *t, struct agg_ent *e)
{
	return e->dirty ? 0 : agg_table_mark_slow(t, e);
}
void agg_table_fini(struct agg_table *t);

/* Key-only set. Returns 1 when added, 0 when present, -ENOMEM. */
struct key_set {
	uint64_t *keys;              /* cap * AGG_KEY_WORDS */
	uint8_t *used;
	size_t cap, count;
};
int key_set_add(struct key_set *s, const uint64_t *key);
void key_set_fini(struct key_set *s);

#endif /* C2C_STORE_HASH_H */
