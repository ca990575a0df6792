/* Types in a session: which object and member every sample touched (found
 * from a global's DWARF variable, the sampled instruction's memory operand,
 * a stack variable, or a type the user assigned by hand), the layouts of
 * those types as they were in the recorded build, and the per-line verdicts
 * (false / true / mixed sharing) built on them.
 *
 * Tables (additive, created on first use; docs/store-requests.md):
 *   type_attr    (sample_id, how, type_name, object, offset, member, top, var, why)
 *   type_layouts (type_name, size, align, source, path)
 *   type_members (type_name, idx, name, type, offset, size, bit_offset,
 *                 bit_size, depth, top, leaf, hole_after, align)
 *   type_assign  (id, base, type_name, binary, created_at)
 *
 * Errors: negative errno + one sentence in err. Arrays returned are owned by
 * the caller (free()); a struct layout filled here is released with
 * layout_fini(). */
#ifndef C2C_STORE_TYPEINFO_H
#define C2C_STORE_TYPEINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collector/layout/layout.h"
#include "collector/types/types.h"
#include "store/store.h"

struct typeinfo_opts {
	const char *debuginfo_dir;  /* --debuginfo DIR (NULL: build-id paths only) */
	const char *btf_path;       /* kernel types (NULL: /sys/kernel/btf/vmlinux) */
	/* The kernel image for kernel samples (-k/--vmlinux): with DWARF its
	 * instructions and variables attribute kernel heap objects and
	 * globals as for user space, placed by the session's kernel map
	 * (KASLR). NULL: the one the import used (session meta "vmlinux"). */
	const char *vmlinux;
	const char *symfs;          /* a relative vmlinux is under it (perf's -k rule); NULL: the cwd */
	bool no_insn;               /* skip instruction decoding */
};

#define TYPEINFO_NR_HOW 5          /* enum types_how values */

struct typeinfo_stats {
	uint64_t samples;           /* samples with a data address */
	uint64_t by_how[TYPEINFO_NR_HOW];
	uint64_t heap_tried;        /* not globals: instruction decoding attempted */
	char why[4][128];           /* most frequent reasons for unresolved samples */
	uint64_t why_n[4];
};

/* Whether the session holds a type attribution (typeinfo_attribute ran). */
bool typeinfo_present(struct store *st);

/* (Re)computes type_attr for every sample of a writable session. Keeps the
 * manual assignments (they are applied last and win). */
int typeinfo_attribute(struct store *st, const struct typeinfo_opts *o, struct typeinfo_stats *out,
		       struct c2c_error *err);
/* Assigns type_name to the object starting at data address base (binary:
 * where to find the type; NULL searches the session's binaries, then BTF),
 * saves the assignment and re-attributes the samples inside the object. */
int typeinfo_assign(struct store *st, uint64_t base, const char *type_name, const char *binary,
		    const struct typeinfo_opts *o, struct c2c_error *err);
/* Saves an assignment in the session itself (st opened writable): what
 * an explicit user edit does; reading never calls this. */
int typeinfo_save_assignment(struct store *st, uint64_t base, const char *type_name, const char *binary,
			     struct c2c_error *err);
/* Struct names offered for manual assignment: every struct/union of the
 * session's binaries (and BTF when kernel samples exist), sorted, unique,
 * containing `filter` (case-insensitive; NULL = all). Caller frees *names
 * (one block: free(*names) releases the strings too). */
int typeinfo_struct_names(struct store *st, const struct typeinfo_opts *o, const char *filter,
			  char ***names, size_t *n, struct c2c_error *err);

/* Kernel samples in the attribution: all of them, those attributed (any
 * way), the kernel heap samples (not a global nor a stack variable: no
 * data symbol) and those of them attributed to a member. */
struct typeinfo_kernel_stats {
	uint64_t samples, attributed;
	uint64_t by_how[TYPEINFO_NR_HOW];
	uint64_t heap, heap_member;
	/* the most frequent reasons kernel samples stayed unresolved (numbers
	 * in them written N: "offset N outside struct sock"), with their counts */
	char why[3][128];
	uint64_t why_n[3];
};
int typeinfo_query_kernel(struct store *st, struct typeinfo_kernel_stats *out, struct c2c_error *err);

/* Types with attributed samples, by HITM descending. */
struct typeinfo_type_row {
	char type[128];
	uint64_t size;
	uint64_t samples, objects, loads, stores, lcl_hitm, rmt_hitm;
	uint64_t by_how[TYPEINFO_NR_HOW];
};
int typeinfo_query_types(struct store *st, struct typeinfo_type_row **rows, size_t *n,
			 struct c2c_error *err);
/* The type's layout as recorded, with the session's accesses accounted
 * (statistics, lines, flags). acc/nacc (optional) receive the accesses, for
 * layout_propose()/layout_whatif(); caller frees *acc. -ENOENT when the
 * session has no such type. */
int typeinfo_layout(struct store *st, const char *type, struct layout *out,
		    struct layout_access **acc, size_t *nacc, struct c2c_error *err);

/* Members touched on one line (line address as in store_line_row.addr). */
struct typeinfo_member_row {
	char type[128];
	char member[192];
	uint64_t line_offset;       /* first byte touched, from the line start */
	uint64_t loads, stores, lcl_hitm, rmt_hitm;
	uint32_t nr_threads;
	uint32_t how_mask;          /* bit n: enum types_how n was used */
};
int typeinfo_line_members(struct store *st, uint64_t line_addr, struct typeinfo_member_row **rows,
			  size_t *n, struct c2c_error *err);

/* The attributed object covering most samples of a line: its type name and
 * start address. -ENOENT when no sample of the line was attributed. */
int typeinfo_line_object(struct store *st, uint64_t line_addr, char *type, size_t len,
			 uint64_t *object);

/* Verdicts: a line is false/true/mixed sharing only with contention
 * evidence on it (HITM or peer-cache loads, at least the handle's minimum,
 * LAYOUT_MIN_EVIDENCE_DEFAULT unless set), else "potential" when the
 * access pattern alone says so, else "no contention". The minimum is a
 * setting of the handle so that the report, the explorer and the diff
 * judge with one bar. */
void typeinfo_set_min_evidence(struct store *st, uint32_t n);
uint32_t typeinfo_min_evidence(const struct store *st);

struct typeinfo_verdict_row {
	uint64_t line_addr;
	struct layout_verdict_info v;
	uint64_t hitm, samples;
	char type[128];             /* dominant attributed type ("" none) */
	char keys[192];             /* contended members/offsets, for display */
	/* the evidence in words, when the pattern says sharing (else ""):
	 * members truly shared (written by one agent, touched by another)
	 * and victims (touched while another agent writes a different one),
	 * space separated; writer and reader threads and CPUs ("101,102");
	 * the top code sites of the contended accesses ("func+0x1c") */
	char shared[192], victims[192];
	char writer_tids[64], writer_cpus[64], reader_tids[64], reader_cpus[64];
	char sites[LAYOUT_VERDICT_SITES][96];
	uint64_t site_samples[LAYOUT_VERDICT_SITES], site_evidence[LAYOUT_VERDICT_SITES];
	uint32_t nsites;
};
/* The verdict of one line: keys are members when samples were attributed,
 * else byte offsets. */
int typeinfo_line_verdict(struct store *st, uint64_t line_addr, struct typeinfo_verdict_row *out,
			  struct c2c_error *err);
/* Every line with samples, by HITM descending (no contention included). */
int typeinfo_query_verdicts(struct store *st, struct typeinfo_verdict_row **rows, size_t *n,
			    struct c2c_error *err);

/* Where the session's accesses landed, member by member: one row per
 * (type, object, member path, cache line), for the diff, which matches
 * lines by the members they hold and compares each member's line, counts,
 * latency and verdict across builds. object names a global or a stack
 * variable so that two variables of one type stay apart; heap objects are
 * "" (matched by type: their addresses differ between runs). Sorted by
 * type, object, member, line. */
struct typeinfo_place_row {
	char type[128];
	char object[64];
	char member[192];           /* as attributed: "se.avg.load_avg", "[2].hits" */
	uint64_t line_addr;         /* the cache line (line-size aligned address) */
	uint64_t samples, loads, stores, lcl_hitm, rmt_hitm;
	struct store_lat lat;       /* load latency, as the lines table sums it */
};
int typeinfo_query_places(struct store *st, struct typeinfo_place_row **rows, size_t *n,
			  struct c2c_error *err);

#endif /* C2C_STORE_TYPEINFO_H */
