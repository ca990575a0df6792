/* Matching two sessions (before / after): cache lines matched by the
 * members they hold (type, global variable and member path: a struct
 * re-laid-out between the builds moves members between lines, so a before
 * line can be split over several after lines or several merged into one),
 * else by data symbol + offset, else by attributed type + offset in the
 * object, else by address (addresses differ between runs; layouts between
 * builds); members of the types matched by name, with the line each sits
 * on and its verdict in each build; code by function; kernel lock waits matched by caller and
 * lock type as perf lock contention prints them (never by lock address: a
 * slab lock has another address in every run). Every value comes with its
 * per-second (and for lines per-1000-samples) normalization so runs of
 * different length compare.
 *
 * Ownership: diff_sessions() fills a struct diff_result that
 * diff_result_fini() releases. */
#ifndef C2C_STORE_DIFF_H
#define C2C_STORE_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collector/layout/layout.h"
#include "store/store.h"

enum diff_status {
	DIFF_MATCHED = 0,
	DIFF_APPEARED = 1,
	DIFF_DISAPPEARED = 2,
	DIFF_SPLIT = 3,           /* one before line's members went to several after lines */
	DIFF_MERGED = 4,          /* several before lines' members came to one after line */
	DIFF_REGROUPED = 5,       /* several to several */
};
const char *diff_status_name(enum diff_status s);

/* One side's values of a row. */
struct diff_vals {
	bool present;
	uint64_t addr;            /* lines: line address (the hottest when several merged) */
	uint32_t nmerged;         /* lines of this session under the key */
	uint64_t records, loads, stores, hitm, lcl_hitm, rmt_hitm;
	double lat;               /* average load latency, cycles */
	double hitm_per_s, hitm_per_ksample, records_per_s;
	enum layout_verdict verdict;
};

/* One line of a split / merged group, with the members sampled on it. */
struct diff_line_part {
	bool after;               /* the after session's line (else before's) */
	char key[192];
	struct diff_vals v;
	char members[256];        /* "parent rt_se load_avg" */
};

struct diff_line_row {
	char key[192];            /* "global_conn+0x0", "struct conn+0x40", "0x7ffd..."; a
	                           * group of before lines: their keys, ", " between */
	char key_a[192];          /* the after line(s) when matched by members ("" else) */
	char how[8];              /* "members", "symbol", "type", "addr" */
	char type[128];           /* attributed type of the lines ("" unknown) */
	enum diff_status status;
	struct diff_vals b, a;    /* sums over the group's lines on each side */
	/* members matched by: which left the main before line for another
	 * after line, and which joined the main after line from another
	 * before line ("load_avg -> struct group+0x80") */
	char left[256], joined[256];
	struct diff_line_part *parts;  /* split / merged / regrouped: every line
	                                * of the group (owned by the result) */
	uint32_t nparts;
};

struct diff_member_row {
	char type[128];
	char member[128];
	uint32_t depth;
	enum diff_status status;
	struct diff_vals b, a;
	uint64_t off_b, off_a, size_b, size_a;
	uint32_t line_b, line_a;  /* cache line within the object */
	bool fs_b, fs_a;          /* flagged as false-sharing candidate */
	bool moved;               /* present in both, on another cache line after */
	/* b.lat / a.lat: the member's load latency; b.verdict / a.verdict:
	 * the verdict of the line the member's samples mostly sit on */
};

/* Code by function (a site's address differs between builds, its
 * function's name does not): what each function did before -> after. */
struct diff_func_row {
	char function[128];       /* "[unknown]" when the site was not resolved */
	enum diff_status status;
	struct diff_vals b, a;
};

/* One side of a lock row: perf lock contention's numbers (store.h
 * struct store_lock_stat) summed over the caller table's rows with this
 * caller and type (perf keys rows by call stack, so a caller can have
 * several). */
struct diff_lock_vals {
	bool present;
	uint32_t nrows;           /* perf rows merged */
	uint64_t contended, acquired;
	uint64_t wait_total, wait_max, wait_min, avg_wait;  /* ns; wait_min UINT64_MAX: none */
	double contended_per_s, wait_ns_per_s;
};

struct diff_lock_row {
	char caller[128];         /* "func+0xoff" or "Unknown", as perf prints it */
	char kind[24];            /* perf's type: "mutex", "rwsem:R", "spinlock", ... */
	enum diff_status status;
	struct diff_lock_vals b, a;
};

struct diff_session {
	char path[512];
	uint64_t samples, hitm;
	double seconds;
	bool has_locks;           /* holds perf's lock contention table */
	bool locks_stale;         /* lock waits recorded, but imported before that table */
	uint64_t lock_contended, lock_wait_ns;  /* sums of the caller table */
	struct store_status status;             /* complete, or why not */
	char status_line[700];                  /* "" when complete */
};

struct diff_result {
	struct diff_session before, after;
	struct diff_line_row *lines;
	size_t nlines;
	struct diff_member_row *members;  /* grouped by type, before's order */
	size_t nmembers;
	struct diff_lock_row *locks;      /* by the larger total wait, descending */
	size_t nlocks;
	struct diff_func_row *funcs;      /* by the larger HITM, then stores, descending */
	size_t nfuncs;
	uint32_t min_evidence;            /* the verdicts' bar (typeinfo_min_evidence of before) */
};

int diff_sessions(struct store *before, struct store *after, struct diff_result *out,
		  struct c2c_error *err);
void diff_result_fini(struct diff_result *r);

#endif /* C2C_STORE_DIFF_H */
