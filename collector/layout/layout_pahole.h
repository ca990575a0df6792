/* pahole's default view of a struct or union, computed from the types db
 * (BTF or DWARF) with pahole's own rules so that `c2ctui layout TYPE` and
 * `pahole -C TYPE` can be compared line by line:
 *
 *  - one row per member; a member of a named struct/union type is one row
 *    (not expanded); a member of an anonymous struct/union type (also an
 *    array of one, or a pointer to one) is expanded in place between an
 *    OPEN and a CLOSE row, as pahole prints it;
 *  - a bitfield's offset and size are its storage unit's (the unit of its
 *    declared type holding its first bit), its bit offset counts from that
 *    unit, as pahole prints `4: 3  4`;
 *  - holes, bit holes, padding and bit padding follow pahole's
 *    class__find_holes(); "last struct has N bytes of padding" is noted
 *    for members whose declared type is a struct;
 *  - a cache line comment precedes the first row starting on a new line
 *    (one shared counter, reset after each member of a union).
 *
 * A pure function of the types db: no I/O. Ownership: struct
 * layout_pahole is an embedded value; layout_pahole_build() fills it,
 * layout_pahole_fini() frees what it owns. */
#ifndef C2C_LAYOUT_PAHOLE_H
#define C2C_LAYOUT_PAHOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collector/base/error.h"
#include "collector/types/types.h"

enum layout_pahole_kind {
	LAYOUT_PAHOLE_MEMBER = 0,  /* one member, one row */
	LAYOUT_PAHOLE_OPEN,        /* an anonymous struct/union member: its rows follow */
	LAYOUT_PAHOLE_CLOSE,       /* ... up to here: the member's offset, size, holes */
};

struct layout_pahole_row {
	enum layout_pahole_kind kind;
	uint32_t depth;          /* 0: the type's own members */
	char name[128];          /* member name; "" for an anonymous member */
	char type[128];          /* MEMBER: "unsigned int", "struct stats", "func" (a
	                            function pointer); OPEN: "struct" or "union" */
	char decl[160];          /* MEMBER: what follows the type: "flags:3",
	                            "slots[4]", "(*fn)()"; CLOSE: what follows '}':
	                            "", "arr[3]", "* pp" */
	uint64_t offset, size;   /* bytes; bitfields: their storage unit's */
	uint32_t bit_offset;     /* bitfields: first bit in the storage unit */
	uint32_t bit_size;       /* bitfield width; 0 for other members */
	bool relative;           /* offset from the pointed-to anonymous type */
	/* the cache line comment before this row (boundary_line 0: none) */
	uint32_t boundary_line;
	uint64_t boundary_ago;   /* bytes the row starts past the boundary */
	/* after this member (MEMBER and CLOSE rows) */
	uint64_t hole;           /* "XXX N bytes hole" */
	uint32_t bit_hole;       /* "XXX N bits hole" */
	uint64_t type_padding;   /* "XXX last struct has N bytes of padding" */
};

struct layout_pahole {
	char type_name[128];     /* "struct task_group" */
	bool is_union;           /* pahole prints no statistics for a union */
	uint64_t size;
	uint32_t line_size;
	struct layout_pahole_row *rows;
	size_t nrows;
	/* pahole's statistics (of the type's own members) */
	uint32_t members;
	uint64_t sum_bytes, sum_bits;
	uint32_t nr_holes, nr_bit_holes;
	uint64_t sum_holes, sum_bit_holes;
	uint64_t pre_hole;        /* before the first member */
	uint32_t pre_bit_hole;
	uint64_t padding;
	uint32_t bit_padding;
	uint32_t nr_paddings;     /* members whose struct type has padding */
	uint64_t sum_paddings;
};

/* type: a struct or union (typedefs followed) with a body. line_size 0
 * means 64. Errors: -EINVAL (not a struct/union with a body), -ENOMEM. */
int layout_pahole_build(struct layout_pahole *out, struct types_db *db, uint32_t type,
			unsigned line_size, struct c2c_error *err);
void layout_pahole_fini(struct layout_pahole *p);
/* Cache lines the type covers: pahole's "cachelines: N". */
uint64_t layout_pahole_cachelines(const struct layout_pahole *p);

#endif /* C2C_LAYOUT_PAHOLE_H */
