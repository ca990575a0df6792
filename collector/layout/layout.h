/* From accesses to advice: a struct's layout (pahole-like rows with holes
 * and cache line boundaries) with per-member access statistics, false
 * sharing flags with their evidence, a verdict per cache line (false / true
 * / mixed sharing with contention evidence, potential without it), a
 * proposed member order that separates write-hot from read-mostly members
 * (with the source edit that gives it), and a what-if replay of the recorded accesses
 * against another layout (the proposal, or the struct of another build).
 *
 * Everything here is a pure function of its inputs (no I/O, no store).
 * Ownership: struct layout and struct layout_plan are embedded values:
 * layout_build()/layout_plan_*() fill them, layout_fini()/layout_plan_fini()
 * free what they own. */
#ifndef C2C_LAYOUT_H
#define C2C_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collector/base/error.h"
#include "collector/types/types.h"

/* One recorded access (or an aggregate of identical ones) to an object. */
struct layout_access {
	uint64_t object;     /* the object's start address (one instance) */
	uint64_t offset;     /* byte offset of the access in the object */
	bool is_store;
	int32_t tid;         /* -1 when unknown */
	int32_t cpu;         /* -1 when unknown */
	uint32_t site;       /* code site id, caller's numbering (0 = unknown) */
	uint64_t count;      /* samples */
	uint64_t lcl_hitm, rmt_hitm;  /* of which HITM */
};

/* A set of small integers (CPUs, threads, sites), sorted, unique. */
struct layout_set {
	int64_t *v;
	uint32_t n, cap;
};

/* The bytes of a leaf member on one cache line, with the accesses that fell
 * there. A member straddling a boundary (`int slots[4]` at bytes 56..71)
 * has one part per line it covers, each accounted to its own line, as
 * pahole marks the boundary inside it; any other leaf has one part. */
struct layout_part {
	uint64_t offset, size;  /* from the object start */
	uint32_t line;          /* cache line (from the object start, misalignment included) */
	uint64_t loads, stores, lcl_hitm, rmt_hitm;
	struct layout_set writers, readers;
	bool fs_victim;         /* read on this line while a flagged member is written on it */
};

struct layout_row {
	char name[128];       /* member path: "st.hits"; anonymous: "{fd}" */
	char type[96];        /* "long", "struct stats", "int[4]" */
	uint64_t offset, size;
	uint32_t align;       /* the member type's alignment */
	uint32_t bit_offset, bit_size;  /* bitfields */
	uint32_t depth;       /* 0 = top-level member */
	uint32_t top;         /* index of the top-level row containing this one */
	bool leaf;            /* has no expanded children */
	uint64_t hole_after;  /* padding bytes after this member (same depth) */
	bool line_start;      /* a cache line boundary is at or inside this member */
	uint32_t line;        /* cache line (from the object start) of offset */
	/* statistics over the accesses given to layout_account */
	uint64_t loads, stores, lcl_hitm, rmt_hitm;
	struct layout_set cpus, threads, sites, writers, readers;
	/* false-sharing candidate (a write-hot member whose line is read from
	 * several CPUs/threads through other members) and its evidence */
	bool fs_flag;
	bool fs_victim;       /* read-mostly member hurt by a flagged one */
	char evidence[256];
	/* leaf rows, filled by layout_account (owned; 0 before): one part per
	 * cache line the member covers */
	struct layout_part *parts;
	uint32_t nparts;
};

struct layout {
	char type_name[128];
	uint64_t size;
	uint32_t align;
	uint32_t line_size;
	uint32_t base_misalign;  /* object start % line_size seen in the accesses */
	uint64_t holes;          /* total padding bytes */
	struct layout_row *rows;
	size_t nrows;
	uint64_t unmatched;      /* accesses outside the type's size */
};

/* Rows for a struct/union type (members in order, nested aggregates
 * expanded depth-first). line_size 0 means 64. */
int layout_build(struct layout *out, struct types_db *db, uint32_t type, unsigned line_size,
		 struct c2c_error *err);
void layout_fini(struct layout *l);
/* Sets base_misalign from the objects seen, splits the leaf members at the
 * cache line boundaries (parts), adds the accesses to the per-member
 * statistics (rows containing the access offset, parents included, and the
 * part holding it), then computes the false-sharing flags line by line. */
int layout_account(struct layout *l, const struct layout_access *a, size_t n);
/* The pahole comment that precedes row i, if any ("--- cacheline 1 boundary
 * (64 bytes) ---", with "was 8 bytes ago" when the row starts past the
 * boundary because the member before it straddles it), following
 * `pahole -E`: one comment before the first row that starts on a new line.
 * *last_line holds the line of the previous row (0 before the first).
 * Returns true and fills buf when a comment is due. */
bool layout_boundary_text(const struct layout *l, size_t i, uint32_t *last_line, char *buf,
			  size_t len);
/* Index of the deepest row containing offset, or -1. */
long layout_row_at(const struct layout *l, uint64_t offset);
/* Prints the layout as text (pahole-like, with statistics and flags). */
struct layout_out {
	void (*line)(void *ctx, const char *text);
	void *ctx;
};
void layout_print(const struct layout *l, const struct layout_out *out);

/* ---- verdicts ---- */

/* A line is called false/true/mixed sharing only with contention evidence
 * on it: samples that are HITM loads (local or remote) or peer-cache loads
 * (the only evidence AMD IBS and ARM SPE give), at least min_evidence of
 * them. Below that the access pattern is a *potential* problem, not a
 * measured one. docs/types.md gives the sampling argument for the default. */
enum layout_verdict {
	LAYOUT_NONE = 0,      /* no contention: one agent, or nothing written */
	LAYOUT_FALSE = 1,     /* writers and others touch disjoint members */
	LAYOUT_TRUE = 2,      /* they touch the same members */
	LAYOUT_MIXED = 3,     /* both, each at least 10% of the contended samples */
	LAYOUT_POTENTIAL = 4, /* the pattern of one of the three, too little evidence */
};
enum { LAYOUT_MIN_EVIDENCE_DEFAULT = 5 };
/* Words for people: "false", "true", "mixed", "potential", "no contention". */
const char *layout_verdict_name(enum layout_verdict v);
/* Stable machine keys (CSV, JSON): "false", "true", "mixed", "potential", "none". */
const char *layout_verdict_key(enum layout_verdict v);
/* A contended verdict: false, true or mixed. */
bool layout_verdict_contended(enum layout_verdict v);

/* An access to one cache line; key names what was touched (a member row
 * index, or the offset within the line when no type is known). */
struct layout_line_access {
	uint32_t key;
	bool is_store;
	int32_t tid, cpu;
	uint64_t count;
	/* of count: the samples that are HITM or peer-cache loads (the
	 * evidence; a sample counts once), and each kind */
	uint64_t evidence, lcl_hitm, rmt_hitm, lcl_peer, rmt_peer;
	uint32_t site;        /* code site id, caller's numbering (0 = unknown) */
};

#define LAYOUT_VERDICT_KEYS 8
#define LAYOUT_VERDICT_SITES 3
struct layout_verdict_info {
	enum layout_verdict verdict;
	enum layout_verdict pattern;  /* what the access pattern alone says */
	uint32_t min_evidence;        /* the bar verdict was judged with */
	uint64_t evidence;            /* samples on the line that are HITM or peer loads */
	uint64_t lcl_hitm, rmt_hitm, lcl_peer, rmt_peer;
	uint64_t loads, stores, samples;
	uint64_t true_samples;    /* accesses to a key another agent writes */
	uint64_t false_samples;   /* accesses to a key while another agent writes another key */
	uint32_t writer_threads, writer_cpus;
	uint32_t other_threads, other_cpus;   /* agents that touch the line but do not write it */
	/* keys written and touched by another agent: truly shared */
	uint32_t true_keys[LAYOUT_VERDICT_KEYS], ntrue_keys;
	/* keys touched while another agent writes a different key */
	uint32_t false_keys[LAYOUT_VERDICT_KEYS], nfalse_keys;
	/* false_keys that are not truly shared: the victims of false sharing */
	uint32_t victim_keys[LAYOUT_VERDICT_KEYS], nvictim_keys;
	uint32_t writer_keys[LAYOUT_VERDICT_KEYS], nwriter_keys; /* keys whose writes hurt another agent's access */
	/* the code sites of the contended accesses, most evidence (then
	 * samples) first; 0 entries are unused */
	uint32_t sites[LAYOUT_VERDICT_SITES];
	uint64_t site_samples[LAYOUT_VERDICT_SITES], site_evidence[LAYOUT_VERDICT_SITES];
	uint32_t nsites;
};
/* Judges one line. min_evidence 0 judges by the access pattern alone. */
int layout_verdict(const struct layout_line_access *a, size_t n, uint32_t min_evidence,
		   struct layout_verdict_info *out);

/* ---- proposals and what-if ---- */

struct layout_plan_member {
	char name[128];       /* top-level member name, "{first}" when anonymous */
	uint64_t old_offset, size;
	uint32_t align;
	uint64_t new_offset;
	uint32_t group;       /* 0 read-mostly/cold, 1.. write groups (own line each) */
	char why[96];
};

struct layout_plan {
	char type_name[128];
	uint64_t size;
	uint32_t align;
	uint32_t line_size;
	struct layout_plan_member *m;
	size_t n;
	char reasoning[4][160];
	size_t nreasoning;
	/* how to get the proposal in the source, one edit each:
	 * "____cacheline_aligned_in_smp on counter (...)", "move limit next
	 * to name" (empty for a plan that is a layout as it is) */
	char annotations[8][192];
	size_t nannotations;
};

/* The plan that is simply the type's own layout (e.g. the after build's
 * struct), for the what-if and for diffs. */
int layout_plan_from_layout(struct layout_plan *out, const struct layout *l);
/* A proposed order: read-mostly and cold members first, then each group of
 * members written by the same threads on its own cache line(s). Uses the
 * statistics accounted into l. */
int layout_propose(struct layout_plan *out, const struct layout *l);
void layout_plan_fini(struct layout_plan *p);

struct layout_whatif_line {
	uint64_t object;
	uint32_t line;                /* cache line index in the new layout */
	enum layout_verdict verdict;
	uint64_t hitm_before, hitm_after;
	char members[160];            /* members on that line that are touched */
};

struct layout_whatif {
	uint64_t hitm_before;         /* HITM samples of the replayed accesses */
	uint64_t hitm_after;          /* those still on contended lines */
	uint64_t contended_lines_before, contended_lines_after;
	uint64_t unmapped;            /* accesses to members the plan lacks */
	struct layout_whatif_line *lines;   /* contended lines after, worst first */
	size_t nlines;
};

/* Replays accesses (offsets in `from`'s layout) against `to`: every access
 * moves with its top-level member (matched by name), objects of a plan
 * aligned to a cache line start on a line boundary, and each new line is
 * judged as in layout_verdict (the evidence of a new line: the HITM of the
 * accesses that land on it); HITM samples of accesses that are no longer
 * in a contended pattern are counted as gone. */
int layout_whatif(const struct layout *from, const struct layout_plan *to,
		  const struct layout_access *a, size_t n, uint32_t min_evidence,
		  struct layout_whatif *out);
void layout_whatif_fini(struct layout_whatif *w);

#endif /* C2C_LAYOUT_H */
