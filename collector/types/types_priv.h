/* Private to collector/types_*.c: the type graph shared by the DWARF and BTF
 * back ends. A back end names its types by a 64-bit key (DWARF: the DIE's
 * global offset, plus an array dimension in the top bits; BTF: the type id)
 * and converts one type header or one member list when the core asks. */
#ifndef C2C_TYPES_PRIV_H
#define C2C_TYPES_PRIV_H

#include "collector/types/types.h"

struct types_entry {
	struct types_type t;
	uint64_t key;
	uint64_t ref_key;
	bool has_ref;          /* ref_key is meaningful (else void) */
	bool ref_done, layout_done, members_done;
	bool explicit_align;   /* t.align came from the debug info */
	bool explicit_size;    /* t.size came from the debug info */
	struct types_member *members;
	size_t nmembers;
};

/* Index of named aggregates / typedefs, filled by a back end's build_index. */
struct types_index_ent {
	const char *name;
	uint64_t key;
	enum types_kind kind;
};

struct types_member_key {
	const char *name;
	uint64_t key;
	uint64_t bit_offset;
	uint32_t bit_size;
};

struct types_ops {
	/* Fill e->t.kind/name/size/nelem/declaration, e->ref_key/has_ref and
	 * optionally e->t.align + explicit_align / explicit_size. */
	int (*convert)(struct types_db *db, struct types_entry *e);
	/* Call types_member_push() for each member of the aggregate e. */
	int (*members)(struct types_db *db, struct types_entry *e);
	/* Call types_index_add() for each named struct/union/typedef. */
	int (*build_index)(struct types_db *db);
	/* A global variable's type and address by name; -ENOENT when absent. */
	int (*var_by_name)(struct types_db *db, const char *name, uint32_t *type,
			   uint64_t *start);
	void (*fini)(struct types_db *db);
};

struct types_db {
	const struct types_ops *ops;
	void *priv;
	enum types_source source;
	char *path;
	int machine;
	/* Entries live in fixed-size blocks so pointers to them stay valid
	 * while conversion adds more. */
	struct types_entry **blocks;
	size_t nblocks, nentries;
	/* key -> id, open addressing */
	uint64_t *hkeys;
	uint32_t *hids;
	size_t hcap;
	/* member vector being filled by ops->members */
	struct types_member_key *mtmp;
	size_t nmtmp, capmtmp;
	struct types_index_ent *index;
	size_t nindex, capindex;
	bool index_done;
};

int types_db_init(struct types_db *db, const struct types_ops *ops, void *priv,
		  enum types_source source, const char *path);
/* The id for a back-end key, converting its header on first sight; 0 on failure. */
uint32_t types_intern(struct types_db *db, uint64_t key);
int types_member_push(struct types_db *db, const char *name, uint64_t type_key,
		      uint64_t bit_offset, uint32_t bit_size);
int types_index_add(struct types_db *db, const char *name, uint64_t key, enum types_kind kind);
struct types_entry *types_entry(struct types_db *db, uint32_t id);

#endif /* C2C_TYPES_PRIV_H */
