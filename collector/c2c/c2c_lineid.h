/* Cache-line identity, as perf c2c's "dcacheline" sort key sees it.
 * perf keeps two samples on the same line only when they share the
 * sample cpumode, the data map's file identity (or both have no map) and,
 * for private anonymous user memory, the pid. c2ctui keeps one 64-bit
 * line key, `cache-line address | variant`: the variant (in the low bits
 * a line address never uses) is 0 for the first identity seen on a line
 * address and 1, 2, ... for the next ones, so single-identity lines keep
 * their plain address. c2c_line_display() (collector/c2c/c2c.h) masks the
 * variant off for printing.
 *
 * Ownership: c2c_lineid_new/c2c_lineid_free. Not thread-safe; the
 * numbering depends on the order samples are given (recording order). */
#ifndef C2C_C2C_LINEID_H
#define C2C_C2C_LINEID_H

#include <stdbool.h>
#include <stdint.h>

/* The data map of a sample's data address (perf's daddr map), found with
 * the sample's cpumode; all zero when no map covers the address. */
struct c2c_map_id {
	bool mapped;
	bool shared;             /* MAP_SHARED */
	uint32_t maj, min;       /* perf's dso id; all four 0 for anonymous memory */
	uint64_t ino, ino_generation;
};

/* What tells two lines at one address apart. Build it with
 * c2c_line_ident_init so the fields perf ignores stay zero. */
struct c2c_line_ident {
	uint8_t cpumode;         /* enum c2c_cpumode */
	bool mapped;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	int32_t pid;             /* private anonymous user memory only, else -1 */
};

/* perf's rule: cpumode, then the map's identity, then (user mode, map
 * neither MAP_SHARED nor backed by a device/inode) the pid. map may be
 * NULL (unmapped). */
void c2c_line_ident_init(struct c2c_line_ident *id, uint8_t cpumode, int32_t pid,
			 const struct c2c_map_id *map);
bool c2c_line_ident_equal(const struct c2c_line_ident *a, const struct c2c_line_ident *b);

/* Variants a line of line_size bytes can hold: line_size - 1 (the
 * address's unused low bits), at most 63. */
unsigned c2c_lineid_max_variant(uint32_t line_size);

struct c2c_lineid;
/* line_size: 64 or 128 (0 means 64). NULL on allocation failure. */
struct c2c_lineid *c2c_lineid_new(uint32_t line_size);
void c2c_lineid_free(struct c2c_lineid *t);

/* The variant of (the line holding addr, id): the number given when the
 * pair was first seen, or the next free one. A line with more identities
 * than c2c_lineid_max_variant() puts the extra ones on the last variant
 * (counted by c2c_lineid_overflows). Returns the variant, or -ENOMEM. */
int c2c_lineid_variant(struct c2c_lineid *t, uint64_t addr, const struct c2c_line_ident *id);
/* The line key: cache-line address of addr | variant. Returns 0 and sets
 * *key, or -ENOMEM. */
int c2c_lineid_key(struct c2c_lineid *t, uint64_t addr, const struct c2c_line_ident *id, uint64_t *key);
/* Identities that did not get their own variant (line had too many). */
uint64_t c2c_lineid_overflows(const struct c2c_lineid *t);
/* Distinct (line, identity) pairs seen. */
uint64_t c2c_lineid_count(const struct c2c_lineid *t);

#endif /* C2C_C2C_LINEID_H */
