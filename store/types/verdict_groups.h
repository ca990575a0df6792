/* The samples of cache lines grouped for the verdicts
 * (store/types/verdict_groups.c): one group per line, key (member name or
 * byte offset in the line), store or load, thread, CPU, code site and
 * contention class, with its sample count and its first sample in
 * (address, id) order. The verdict reads a line's accesses in that order
 * (the first appearance of a key orders the words it prints), so the
 * groups sorted by their first sample give it exactly what a sort of every
 * sample gave, in one hash pass instead. Internal to store/types. */
#ifndef C2C_STORE_VERDICT_GROUPS_H
#define C2C_STORE_VERDICT_GROUPS_H

#include <stddef.h>
#include <stdint.h>

/* key: a name id (member), or VGROUP_OFFSET | byte offset in the line */
#define VGROUP_OFFSET 0x80000000u

struct vgroup {
	uint64_t line;
	uint64_t first_addr;      /* the group's first sample in (addr, id) order */
	int64_t first_id;
	uint64_t type_addr;       /* its first sample with a type, same order */
	int64_t type_id;
	uint64_t count;
	uint32_t key;
	uint32_t type;            /* name id of that sample's type; 0: none */
	int32_t tid, cpu;         /* -1: unknown */
	uint32_t site;
	uint8_t store, lcl_hitm, rmt_hitm, lcl_peer, rmt_peer;
};

/* Interned names: id 0 is "no name". */
struct vnames {
	char **s;
	size_t n, cap;
	uint32_t *slot;           /* open addressing over ids, 0 = empty */
	size_t nslot;
};

struct vgroups {
	struct vgroup *g;         /* open addressing; count 0 = empty */
	size_t n, cap;
	struct vnames names;
};

/* The id of s (interned on first use); 0 with -ENOMEM in *rc. */
uint32_t vnames_id(struct vnames *v, const char *s, int *rc);
const char *vnames_text(const struct vnames *v, uint32_t id);

/* Adds one sample (s->count 1; first_addr/first_id its address and id,
 * type_addr/type_id the same when s->type != 0). 0 or -ENOMEM. */
int vgroups_add(struct vgroups *g, const struct vgroup *s);
/* The groups sorted by (line, first_addr, first_id), compacted in place:
 * valid until vgroups_fini. */
struct vgroup *vgroups_sorted(struct vgroups *g, size_t *n);
void vgroups_fini(struct vgroups *g);

#endif /* C2C_STORE_VERDICT_GROUPS_H */
