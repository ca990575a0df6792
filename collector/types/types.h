/* Data types from debug info: struct/union/array/typedef/bitfield layouts read
 * from DWARF (libdw; user binaries, separate debug files, a vmlinux) or BTF
 * (libbpf; the running kernel or a file), all converted into one small type
 * graph so that member-path resolution and layouts do not care where a type
 * came from. Types are converted lazily: opening a vmlinux BTF or a large
 * DWARF file costs nothing until a type is asked for.
 *
 * Ownership: types_open_*() return a db the caller frees with types_free().
 * Every pointer returned by a query (type records, names, members) is owned
 * by the db and stays valid until types_free(). A db is not thread-safe
 * (queries convert types on demand). */
#ifndef C2C_TYPES_H
#define C2C_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collector/base/error.h"

struct types_db;

enum types_kind {
	TYPES_VOID = 0,     /* id 0 is always void / unknown */
	TYPES_BASE,         /* int, char, float, bool... */
	TYPES_ENUM,
	TYPES_POINTER,
	TYPES_STRUCT,
	TYPES_UNION,
	TYPES_ARRAY,
	TYPES_TYPEDEF,
	TYPES_QUAL,         /* const / volatile / restrict / _Atomic */
	TYPES_FUNC,         /* function type (only ever pointed to) */
};

struct types_type {
	enum types_kind kind;
	const char *name;   /* NULL for anonymous types */
	uint64_t size;      /* bytes, typedefs and qualifiers resolved */
	uint32_t align;     /* bytes: explicit (DW_AT_alignment) or natural */
	uint32_t ref;       /* pointee / element / aliased type id; 0 = void */
	uint64_t nelem;     /* arrays: elements (0 = flexible or unknown) */
	bool declaration;   /* struct/union without a body (forward decl) */
};

struct types_member {
	const char *name;   /* NULL for an anonymous struct/union member */
	uint32_t type;
	uint64_t bit_offset;  /* from the start of the enclosing aggregate */
	uint32_t bit_size;    /* > 0 for bitfields only */
};

/* Where the types came from (shown to the user with every answer). */
enum types_source { TYPES_SRC_DWARF = 1, TYPES_SRC_BTF = 2 };

/* Opens the DWARF of an ELF file. When the file has no .debug_info, the
 * separate debug file is searched by build-id under debuginfo_dir (if
 * given, in the same .build-id/xx/rest.debug layout, then DIR/BASENAME.debug
 * and DIR/BASENAME) and /usr/lib/debug/.build-id/, then by .gnu_debuglink
 * next to the file and under /usr/lib/debug. */
int types_open_dwarf(struct types_db **out, const char *path, const char *debuginfo_dir,
		     struct c2c_error *err);
/* Opens BTF: path NULL means /sys/kernel/btf/vmlinux; a raw BTF blob or an
 * ELF file with a .BTF section is accepted. */
int types_open_btf(struct types_db **out, const char *path, struct c2c_error *err);
/* Opens a file by what it holds (types_open.c): raw BTF; an ELF file's
 * DWARF (types_open_dwarf), else its .BTF section. path NULL means
 * /sys/kernel/btf/vmlinux. -EINVAL when the file is neither BTF nor ELF. */
int types_open_file(struct types_db **out, const char *path, const char *debuginfo_dir,
		    struct c2c_error *err);
void types_free(struct types_db *db);

enum types_source types_source(const struct types_db *db);
/* The file the types were read from (the debug file when separate). */
const char *types_path(const struct types_db *db);

/* Type records. NULL for an id that does not exist. */
const struct types_type *types_get(struct types_db *db, uint32_t id);
/* Members of a struct or union (in declaration order); 0 members for any
 * other kind. *out is owned by the db. */
size_t types_members(struct types_db *db, uint32_t id, const struct types_member **out);
/* Follows typedefs and qualifiers to the underlying type. */
uint32_t types_strip(struct types_db *db, uint32_t id);
/* "struct foo", "unsigned int", "struct bar *", "char[16]" into buf. */
const char *types_name(struct types_db *db, uint32_t id, char *buf, size_t len);

/* Finds a complete struct or union (or a typedef of one) by name; "struct x",
 * "union x" and a bare "x" are accepted. Returns the id, or 0. */
uint32_t types_find(struct types_db *db, const char *name);
/* Calls fn for each distinct named struct/union with a body, in no order;
 * stops early when fn returns non-zero (and returns that value). For the
 * TUI's searchable list of struct names. */
int types_each_struct(struct types_db *db, int (*fn)(void *ctx, const char *name, uint32_t id),
		      void *ctx);

/* Global/static variables: by name, or by the address it lives at (DWARF:
 * DW_OP_addr locations; BTF: VARs in DATASECs, by name only). On success
 * fills the type id and the variable's start (file virtual address; 0 when
 * the source does not say). Returns 0 or -ENOENT. */
int types_var_by_name(struct types_db *db, const char *name, uint32_t *type, uint64_t *start);
int types_var_at(struct types_db *db, uint64_t vaddr, uint32_t *type, uint64_t *start,
		 const char **name);

/* Member path resolution: what lives at byte `offset` of type `id`.
 * The path names members from the outermost type down to the deepest one
 * that contains the byte: "se.avg.load_avg", "rt_rq[3]", "[2].count";
 * anonymous struct/union members add no component (their members are
 * addressed directly, as in C). A byte inside padding gets the enclosing
 * path plus "<hole>"; a byte past the end of the type is -ERANGE. */
struct types_hit {
	uint32_t type;          /* deepest type containing the byte */
	uint64_t member_offset; /* where that member starts, from the outer type */
	uint64_t member_size;
	uint32_t bit_offset, bit_size;  /* bitfield position (bit_size 0 otherwise) */
	uint32_t top_index;     /* index of the top-level member in types_members(id) */
	bool in_hole;           /* the byte is padding */
	char path[256];
};
int types_resolve(struct types_db *db, uint32_t id, uint64_t offset, struct types_hit *hit);

/* DWARF only: variables and parameters live at a code address.
 * Finds the one whose location at file address pc is the DWARF register
 * `reg` (DW_OP_regN/regx), and fills its declared type (usually a pointer)
 * and name. Returns 0, -ENOENT (none), or -ENOTSUP (BTF db). */
int types_reg_var_at(struct types_db *db, uint64_t pc, int reg, uint32_t *type,
		     const char **name);
/* DWARF only: the distinct declared types of the variables and parameters
 * of the function scopes around pc (inlined bodies and their callers), with
 * or without a location there, innermost first; at most max. For casts
 * the code makes between a pointer's declared pointee and the struct that
 * embeds it (`struct tcp_sock *tp = tcp_sk(sk)`). Returns how many. */
size_t types_scope_var_types(struct types_db *db, uint64_t pc, uint32_t *types, size_t max);
/* DWARF only: the stack variable covering [reg + disp] at pc, where reg is
 * the stack or frame pointer: variables located DW_OP_bregN, or DW_OP_fbreg
 * with a frame base that is a register or the CFA (from the call frame
 * information). Fills the variable's type and name and the byte offset of
 * the access inside it. */
int types_stack_var_at(struct types_db *db, uint64_t pc, int reg, int64_t disp,
		       uint32_t *type, const char **name, uint64_t *offset);
/* DWARF only: the start of the function range containing pc (the
 * enclosing subprogram's entry, or the start of its address range holding
 * pc when it is split into hot/cold parts). Returns 0 or -ENOENT. */
int types_func_start(struct types_db *db, uint64_t pc, uint64_t *start);
/* DWARF only: copies up to len bytes of code at file virtual address pc
 * (from the ELF file's sections). Returns the number of bytes, or <0. */
long types_read_code(struct types_db *db, uint64_t pc, uint8_t *buf, size_t len);
/* DWARF only: the file virtual address of a file offset, through the
 * PT_LOAD segment containing it (runtime address - map start + pgoff gives
 * the file offset). Returns 0 or -ENOENT. */
int types_file_to_vaddr(struct types_db *db, uint64_t file_offset, uint64_t *vaddr);
/* The ELF machine (EM_X86_64, EM_AARCH64...) of the file, 0 if unknown. */
int types_machine(const struct types_db *db);

/* Which object and member a sample touched, and how that was found. */
enum types_how {
	TYPES_HOW_NONE = 0,     /* unresolved; see why */
	TYPES_HOW_GLOBAL = 1,   /* data address inside a global/static variable */
	TYPES_HOW_INSN = 2,     /* instruction's base register holds a typed pointer
	                           (a variable's, or one tracked through loads) */
	TYPES_HOW_STACK = 3,    /* instruction addresses a stack variable */
	TYPES_HOW_MANUAL = 4,   /* the user assigned a type and base address */
};
const char *types_how_name(enum types_how how);

struct types_attr {
	enum types_how how;
	uint32_t type;          /* the object's type (struct/union/array...) */
	uint64_t object;        /* the object's start, as a runtime data address */
	uint64_t offset;        /* byte offset of the access in the object */
	bool inexact;           /* an index register made the offset uncertain */
	struct types_hit hit;   /* member at offset */
	char var[64];           /* the variable that led there */
	char insn[96];          /* the decoded instruction, for display */
	char why[128];          /* how == NONE: why */
};

/* An object that is an array of structs or unions (a global
 * `struct x table[16]`, a stack array, arrays of such arrays) is
 * attributed to the element holding the byte: a->type becomes the element
 * type (what gets a layout and collects the heat of every element),
 * a->object the element's start, a->offset the offset in it, and the member
 * path names the element after the variable: "table[3].stats.avg". Any
 * other object is left as it is. Returns true when a was changed. */
bool types_attr_element(struct types_db *db, struct types_attr *a);

struct insn_decoder;
/* Attributes one sample. pc is the sampled instruction as a file virtual
 * address of db's binary; addr the runtime data address; data_vaddr the
 * data address as a file virtual address of the same binary when it falls
 * in one of its mappings (has_data_vaddr), for globals. dec may be NULL
 * (no instruction decoding). Returns 0 (out->how says what was found). */
int types_attribute(struct types_db *db, struct insn_decoder *dec, uint64_t pc, uint64_t addr,
		    bool has_data_vaddr, uint64_t data_vaddr, struct types_attr *out);

#endif /* C2C_TYPES_H */
