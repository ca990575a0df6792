/* The session store: one SQLite file per session (docs/schema.md).
 *
 * Two sides share this header:
 *  - the writer, fed by both producers (perf.data import and live
 *    collection): side-band (processes, maps), interned code sites and data
 *    symbols, samples, lock waits; batched transactions; aggregates kept
 *    current at every commit so a live session can be viewed while it grows;
 *  - the queries the report command and the TUI run. A number shown on
 *    screen and the same number in `report` come from one function here.
 *
 * Errors: every function that can fail returns 0 (or a positive id/count)
 * on success and a negative errno on failure, with one sentence in `err`.
 * Ownership: `store_create`/`store_open` return a heap object freed by
 * `store_close`. Arrays returned by queries are heap-allocated and owned by
 * the caller, who frees them with free(). Strings inside returned rows are
 * fixed-size arrays (no separate frees). Pointers in input structs are
 * borrowed for the duration of the call only.
 *
 * Threads: a struct store is used by one thread at a time. A reader (TUI)
 * and a writer (live) in the same process use two separate handles on the
 * same file (WAL lets the reader see every committed batch).
 *
 * Stability: additive changes only.
 */
#ifndef C2C_STORE_H
#define C2C_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collector/c2c/c2c.h"
#include "collector/c2c/c2c_lineid.h"
#include "collector/base/error.h"
#include "collector/base/sample.h"

/* Schema version written to PRAGMA user_version (see docs/schema.md). */
#define STORE_SCHEMA_VERSION 3

struct store;

/* ------------------------------------------------------------------ */
/* Open / create / close                                                */

enum store_open_flags {
	STORE_OPEN_RDONLY = 0,   /* queries only */
	STORE_OPEN_APPEND = 1,   /* queries + writer (continue a session) */
	STORE_OPEN_TEMP_FILES = 4, /* with any of the above: sorts and temporary tables spill to files in
	                              pieces the size of the page cache (PRAGMA temp_store = FILE) instead of
	                              growing in memory, where SQLite sorts all rows in one step that no
	                              store_interrupt stops (seconds for every sample of a big session) */
};

/* Creates a new session file at path (fails if it exists). WAL mode. */
int store_create(struct store **st, const char *path, struct c2c_error *err);
/* Opens an existing session. Rejects, with a sentence naming the file: a
 * non-SQLite file, an SQLite file without the c2ctui marker table, a
 * session with a newer schema version than this program knows. */
int store_open(struct store **st, const char *path, unsigned flags, struct c2c_error *err);
/* Commits pending writes (if any; errors are lost, call store_commit or
 * store_finalize first to see them) and frees st. NULL is fine. */
void store_close(struct store *st);
/* Stopping queries (store/base/cancel.c). A stopped query fails with
 * -ECANCELED ("interrupted"); nothing it would have written is kept.
 *
 * store_interrupt: st's running statement and every later one stop, until
 * store_interrupt_clear. Safe from any thread (st must stay open while it
 * runs: the caller orders it with store_close) and from a signal handler.
 * For a thread that gives up on a background query. */
void store_interrupt(struct store *st);
void store_interrupt_clear(struct store *st);
/* The calling thread's poll: while a statement runs on this thread (on any
 * handle), poll(ctx) is called every few thousand SQLite steps (tens of
 * microseconds); nonzero stops the statement. It runs on the statement's
 * thread, inside the query: it must not run queries itself. NULL removes
 * it. For an interactive loop that runs queries on its own thread and must
 * still answer a quit key or signal within a moment. */
void store_set_thread_poll(int (*poll)(void *ctx), void *ctx);

/* The path given to create/open. */
const char *store_path(const struct store *st);
/* The file that holds the data: the path, or the private copy a session
 * with a hot journal is read through. Another handle on the same data
 * opens this. */
const char *store_data_path(const struct store *st);

/* ------------------------------------------------------------------ */
/* Metadata (key/value text)                                            */

/* Well-known keys. Values are text; numbers are written in decimal. */
#define STORE_META_HOST          "host"
#define STORE_META_OS_RELEASE    "os_release"
#define STORE_META_ARCH          "arch"
#define STORE_META_CPU_DESC      "cpu_desc"
#define STORE_META_CPUID         "cpuid"
#define STORE_META_NR_CPUS       "nr_cpus"        /* online */
#define STORE_META_NR_CPUS_AVAIL "nr_cpus_avail"
#define STORE_META_TOTAL_MEM     "total_mem_kb"
#define STORE_META_CACHELINE     "cacheline_size" /* bytes; 64 when absent */
#define STORE_META_CMDLINE       "cmdline"
#define STORE_META_PERF_VERSION  "perf_version"
#define STORE_META_SOURCE        "source_file"    /* the imported perf.data */
#define STORE_META_SOURCE_KIND   "source_kind"    /* "import", "live", "record" */
#define STORE_META_RECORDED_AT   "recorded_at"    /* unix seconds, UTC */
#define STORE_META_GENERATED     "generated"      /* "1" when made by the test generator */
#define STORE_META_FINALIZED     "finalized"      /* "1" once store_finalize ran */
#define STORE_META_STOP_REASON   "stop_reason"    /* why the producer stopped early (one sentence) */
#define STORE_META_WRITER_PID    "writer_pid"     /* the process that created the session */
#define STORE_META_WRITER_HOST   "writer_host"    /* and its host */
#define STORE_META_VMLINUX       "vmlinux"        /* the kernel image the import used (absolute path) */
#define STORE_META_VMLINUX_BID   "vmlinux_build_id" /* its build-id note, hex ("" none) */

int store_set_meta(struct store *st, const char *key, const char *value, struct c2c_error *err);
/* Copies the value into buf (NUL-terminated, truncated to size). Returns
 * its full length, or -ENOENT when the key is absent. */
int store_get_meta(struct store *st, const char *key, char *buf, size_t size);

/* ------------------------------------------------------------------ */
/* Whether a session is complete (store/base/status.c)                 */

enum store_state {
	STORE_STATE_COMPLETE = 0,   /* finalized, nothing cut short */
	STORE_STATE_PARTIAL,        /* finalized, but stopped early or its input was damaged */
	STORE_STATE_UNFINISHED,     /* never finalized: its writer was killed or crashed */
	STORE_STATE_COLLECTING,     /* not finalized, and its writer is still running */
};

struct store_status {
	enum store_state state;
	const char *state_name;      /* "complete", "partial", "unfinished", "collecting" */
	char why[512];               /* one sentence; "" when complete */
	char note[256];              /* what was skipped without loss (unknown record kinds or
	                                features of a newer perf); "" when none */
	char source_kind[16];        /* "import", "record", "live" or "" */
	uint64_t samples, lock_waits;
	uint64_t bytes_dropped, unknown_records, bad_records, unknown_features, bad_features;
	int64_t writer_pid;          /* 0 unknown */
};
/* Reads what the session says of itself: the finalized marker, the
 * producer's stop reason and the damage counters. */
int store_get_status(struct store *st, struct store_status *out);
/* One line for every front end: "PATH: partial session: WHY". Empty when
 * complete and nothing was skipped. */
void store_status_line(const struct store_status *s, const char *path, char *buf, size_t size);
/* Producers: why the session ended early (interrupted, disk full, damaged
 * input). Kept with the session and shown by every reader. */
int store_set_stop_reason(struct store *st, const char *why, struct c2c_error *err);

/* ------------------------------------------------------------------ */
/* Events, CPU topology, counters                                       */

struct store_event {
	uint32_t index;          /* == c2c_sample.event */
	const char *name;        /* e.g. "cpu/mem-loads,ldlat=30/P" */
	uint32_t attr_type;
	uint64_t config;
	uint64_t sample_type;
	uint64_t sample_period; /* period or frequency (see freq) */
	bool freq;
};
int store_add_event(struct store *st, const struct store_event *ev, struct c2c_error *err);

struct store_cpu {
	uint32_t cpu;
	int32_t core;            /* -1 unknown */
	int32_t socket;          /* -1 unknown */
	int32_t node;            /* -1 unknown */
};
/* Inserts or replaces one CPU's topology. */
int store_add_cpu(struct store *st, const struct store_cpu *cpu, struct c2c_error *err);
/* Node of a CPU from the stored topology, -1 when unknown. */
int store_cpu_node(struct store *st, uint32_t cpu);

enum store_counter {
	STORE_CNT_SAMPLES = 0,      /* maintained by store_add_sample */
	STORE_CNT_LOCK_WAITS,       /* maintained by store_add_lock_wait */
	STORE_CNT_LOST,             /* PERF_RECORD_LOST records */
	STORE_CNT_LOST_SAMPLES,     /* samples lost: LOST_SAMPLES records' sum, else LOST's */
	STORE_CNT_THROTTLE,
	STORE_CNT_UNTHROTTLE,
	STORE_CNT_UNKNOWN_RECORDS,  /* records skipped, type unknown */
	STORE_CNT_UNKNOWN_FEATURES, /* header features skipped */
	STORE_CNT_BYTES_DROPPED,    /* truncated tail etc. */
	STORE_CNT_QUEUE_DROPS,      /* live: samples dropped between reader and writer */
	STORE_CNT_SIDEBAND,         /* side-band records stored (mmap/comm/task) */
	STORE_CNT_BAD_RECORDS,      /* records skipped, damaged (a subset of UNKNOWN_RECORDS) */
	STORE_CNT_BAD_FEATURES,     /* header features skipped, damaged (a subset of UNKNOWN_FEATURES) */
	STORE_CNT__MAX
};
/* Counter name as stored in the counters table ("samples", "lost", ...). */
const char *store_counter_name(enum store_counter c);
int store_add_counter(struct store *st, enum store_counter c, uint64_t delta, struct c2c_error *err);
int store_set_counter(struct store *st, enum store_counter c, uint64_t value, struct c2c_error *err);
/* Committed value plus pending writes of this handle. */
uint64_t store_get_counter(struct store *st, enum store_counter c);

/* ------------------------------------------------------------------ */
/* Writer: side-band                                                    */

int store_add_comm(struct store *st, const struct c2c_comm *comm, struct c2c_error *err);
/* FORK when is_exit is false, EXIT otherwise. */
int store_add_task(struct store *st, const struct c2c_task *task, bool is_exit, struct c2c_error *err);
int store_add_mmap(struct store *st, const struct c2c_mmap *map, uint64_t time, struct c2c_error *err);

/* A code site: where an instruction address resolved to. Interned: the
 * same (pid, ip) always returns the same id. Kernel addresses use pid -1. */
struct store_site_info {
	uint64_t ip;
	int32_t pid;             /* -1 for kernel / shared */
	uint8_t cpumode;         /* enum c2c_cpumode */
	const char *function;    /* NULL when unresolved */
	uint64_t offset;         /* ip - function start */
	const char *dso;         /* NULL when unknown */
	const char *file;        /* source file, NULL when unknown */
	uint32_t line;           /* 0 when unknown */
	uint64_t rel_addr;       /* ip in the binary's own address space (what perf
	                            prints for an unresolved ip); 0 unknown */
};
/* Returns the site id (> 0) or a negative errno. */
int64_t store_site_intern(struct store *st, const struct store_site_info *site, struct c2c_error *err);

/* A data symbol (global/static object, or a heap/stack region name).
 * Interned by (pid, start, name). */
struct store_dsym_info {
	const char *name;
	uint64_t start;
	uint64_t size;
	int32_t pid;             /* -1 for kernel */
	const char *dso;         /* NULL when unknown */
};
int64_t store_dsym_intern(struct store *st, const struct store_dsym_info *dsym, struct c2c_error *err);

/* ------------------------------------------------------------------ */
/* Writer: samples and lock waits                                       */

/* What the pipeline resolved for one sample. */
struct store_sample_ctx {
	uint64_t class_bits;     /* c2c_classify() result */
	int32_t node;            /* node of sample->cpu, -1 unknown */
	int64_t site;            /* store_site_intern id of sample->ip, 0 none */
	int64_t dsym;            /* store_dsym_intern id of sample->addr, 0 none */
	uint64_t dsym_offset;    /* addr - dsym start */
	/* Call chain resolved to sites, innermost first, context markers
	 * dropped; NULL/0 when none. Stored deduplicated. */
	const int64_t *chain_sites;
	uint32_t nr_chain_sites;
	/* perf's line identity of the sample (symtab_line_ident); NULL: one
	 * line per address. The store numbers the identities of each line
	 * address and keys the line by `line address | variant`
	 * (collector/c2c/c2c_lineid.h; c2c_line_display() gives the address). */
	const struct c2c_line_ident *line_ident;
};
/* Stores the sample (its raw payload too) and updates every aggregate.
 * Part of the current batch; visible to readers after store_commit. */
int store_add_sample(struct store *st, const struct c2c_sample *s, const struct store_sample_ctx *ctx,
		     struct c2c_error *err);

enum store_lock_flags {          /* lock:contention_begin flags, as recorded */
	STORE_LOCK_SPIN = 1u << 0,
	STORE_LOCK_READ = 1u << 1,
	STORE_LOCK_WRITE = 1u << 2,
	STORE_LOCK_RT = 1u << 3,
	STORE_LOCK_PERCPU = 1u << 4,
	STORE_LOCK_MUTEX = 1u << 5,
	STORE_LOCK_SEM = 1u << 6,
};

struct store_lock_wait {
	uint64_t time;           /* contention begin, ns */
	int32_t pid, tid;
	uint32_t cpu;
	uint64_t lock_addr;
	uint32_t flags;          /* raw contention_begin flags */
	uint64_t wait_ns;
	int64_t site;            /* caller site (first non-lock frame), 0 none */
	int64_t dsym;            /* data symbol of lock_addr, 0 none */
	const int64_t *chain_sites; /* as in store_sample_ctx */
	uint32_t nr_chain_sites;
};
int store_add_lock_wait(struct store *st, const struct store_lock_wait *w, struct c2c_error *err);

/* perf lock contention's moments of a wait (lockwait.h), stored beside the
 * waits so that `c2ctui locks` gives perf's tables (table lock_contention,
 * store/writer/lock_contention.c). mode: the pairing (by task, used for
 * the -t and by-lock tables; by caller, for perf's default table). */
enum store_lock_mode { STORE_LOCK_MODE_TASK = 0, STORE_LOCK_MODE_CALLER = 1 };
enum store_lock_ev {
	STORE_LOCK_EV_BEGIN = 0,    /* a counted begin (perf's nr_contended++) */
	STORE_LOCK_EV_ACQUIRED = 1, /* an end that closed a wait */
	STORE_LOCK_EV_KEY = 2,      /* an uncounted (nested) begin with a new caller key */
};
struct store_lock_event {
	uint8_t mode, kind;
	uint64_t time;              /* begin time */
	int32_t pid, tid;
	uint64_t lock_addr;
	uint32_t flags;             /* the begin's contention_begin flags */
	uint64_t wait_ns;           /* ACQUIRED */
	uint64_t key;               /* CALLER: perf's stack key (begin's, or the end's for ACQUIRED) */
	const char *caller;         /* CALLER begins with a new key: perf's caller name */
};
int store_add_lock_event(struct store *st, const struct store_lock_event *e, struct c2c_error *err);

/* Ends the current batch: flushes aggregates and commits. The file is a
 * complete, consistent database after every commit; readers see it. */
int store_commit(struct store *st, struct c2c_error *err);
/* Final commit: aggregates complete, indexes built (lock waits), counters written,
 * marks the session finalized, checkpoints the WAL. The writer may keep
 * appending afterwards (live sessions finalize when they stop). */
int store_finalize(struct store *st, struct c2c_error *err);
/* Bulk load (imports): until turned off (store_finalize turns it off),
 * commits use a rollback journal instead of WAL, which writes each new page
 * once instead of twice. Every commit is still durable and the file valid,
 * but readers in other connections wait while a commit runs; live sessions
 * keep WAL. */
int store_set_bulk_load(struct store *st, bool on, struct c2c_error *err);
/* Samples written but not yet committed. Producers call store_commit when
 * this reaches their batch size (or once a second for live). */
uint64_t store_pending(const struct store *st);

/* ------------------------------------------------------------------ */
/* Queries: common types                                                */

/* Display mode, as perf c2c -d. */
enum store_mode {
	STORE_MODE_TOT = 0,
	STORE_MODE_LCL,
	STORE_MODE_RMT,
	STORE_MODE_PEER,
};

/* Latency accumulators for the averages perf prints. The kind a sample
 * feeds is decided by collector/c2c/c2c.h (c2c_cycles_kind_of; same order as
 * enum c2c_cycles_kind). mean[k] is perf's running (Welford) mean, kept in
 * sample order so the digits match perf's for rows the store aggregates
 * directly; rows merged at query time get the count-weighted mean. Use
 * store_lat_avg (0 when cnt is 0). */
enum store_lat_kind {
	STORE_LAT_RMT_HITM = 0,
	STORE_LAT_LCL_HITM,
	STORE_LAT_RMT_PEER,
	STORE_LAT_LCL_PEER,
	STORE_LAT_LOAD,
	STORE_LAT__MAX
};
struct store_lat {
	uint64_t sum[STORE_LAT__MAX];
	uint64_t cnt[STORE_LAT__MAX];
	double mean[STORE_LAT__MAX];
};
double store_lat_avg(const struct store_lat *lat, enum store_lat_kind k);

/* Filters shared by every query. Start from store_filter_init (the "any"
 * values; a zeroed struct would mean CPU 0, node 0, pid 0, tid 0), then set
 * what you need; a NULL filter means none. Filters on cpu, node, pid,
 * tid, time, and the double_cl / phys_lines keys make the query recompute
 * from the samples table (one scan in recording order; the result is
 * cached until the filter or the session changes); without them the precomputed
 * aggregates answer. */
/* A set of CPUs, nodes, pids or tids as ranges ("0-3,8", perf's list
 * syntax): report --cpu/--node/--pid/--tid. n == 0: any. */
#define STORE_ID_SET_MAX 16
struct store_id_set {
	uint32_t n;
	struct { int64_t lo, hi; } r[STORE_ID_SET_MAX];
};
/* Parses "0-3,8" (non-negative numbers and ranges, comma separated) into
 * s; -EINVAL for anything else or more than STORE_ID_SET_MAX ranges. */
int store_id_set_parse(struct store_id_set *s, const char *text);
bool store_id_set_has(const struct store_id_set *s, int64_t v);

struct store_filter {
	int32_t cpu;             /* -1 any */
	int32_t node;            /* -1 any */
	int32_t pid;             /* -1 any */
	int32_t tid;             /* -1 any */
	uint64_t time_from;      /* ns, inclusive; 0 = from the start */
	uint64_t time_to;        /* ns, exclusive; 0 = to the end */
	const char *symbol;      /* substring of the line's data symbol or a
	                            code function touching it; NULL any */
	uint64_t min_hitm;       /* lines: HITM (of the mode) >= this */
	bool double_cl;          /* 128-byte lines (perf --double-cl) */
	bool phys_lines;         /* lines keyed by physical address */
	/* Sets (report's lists), on top of the single values above; a set
	 * makes the query recompute from the samples like them. */
	struct store_id_set cpus, nodes, pids, tids;
};
void store_filter_init(struct store_filter *f);

/* ------------------------------------------------------------------ */
/* Session summary                                                      */

struct store_summary {
	struct c2c_stats total;          /* every sample */
	struct c2c_stats shared;         /* samples on shared lines (perf's
	                                    "Global Shared Cache Line Event") */
	struct store_lat lat;            /* over every sample */
	uint64_t nr_lines;               /* distinct cache lines touched */
	uint64_t nr_shared_lines;        /* lines perf counts as shared */
	uint64_t nr_samples;
	uint64_t counters[STORE_CNT__MAX];
	uint64_t time_first, time_last;  /* ns; 0 when no sample had a time */
	uint32_t nr_events;
	uint32_t nr_cpus_seen;
	uint32_t nr_nodes_seen;
	uint32_t nr_threads_seen;
	uint64_t lock_waits;             /* number of lock waits */
	uint64_t lock_wait_ns;           /* total wait time */
	uint64_t lock_wait_max_ns;
	uint32_t cacheline_size;         /* 64 (or 128 with double_cl) */
};
int store_query_summary(struct store *st, const struct store_filter *f, struct store_summary *out,
			struct c2c_error *err);

/* Events as stored, ordered by index, with their sample counts. */
struct store_event_row {
	uint32_t index;
	char name[128];
	uint32_t attr_type;
	uint64_t config;
	uint64_t sample_type;
	uint64_t sample_period;
	bool freq;
	uint64_t nr_samples;
};
int store_query_events(struct store *st, struct store_event_row **rows, size_t *n, struct c2c_error *err);

/* ------------------------------------------------------------------ */
/* Lines table (perf's "Shared Data Cache Line Table")                  */

enum store_line_sort {
	STORE_SORT_HITM = 0,     /* HITM of the mode (peer: tot_peer) */
	STORE_SORT_TOT_HITM,
	STORE_SORT_LCL_HITM,
	STORE_SORT_RMT_HITM,
	STORE_SORT_PEER,
	STORE_SORT_LOADS,
	STORE_SORT_STORES,
	STORE_SORT_RECORDS,      /* nr_entries */
	STORE_SORT_LAT,          /* average load latency */
	STORE_SORT_CPUS,
	STORE_SORT_THREADS,
	STORE_SORT_SITES,
	STORE_SORT_ADDR,
	STORE_SORT_SYMBOL,
	STORE_SORT_LOCK_WAIT,    /* total lock wait ns on the line */
	STORE_SORT_PERF_RECORDS, /* perf's Records: loads + stores it classifies (c2c_total_records) */
	/* STORE_SORT_COUNTER + c: by the counter c (enum c2c_counter), e.g.
	 * st_l1hit or ld_fbhit: perf's other table columns */
	STORE_SORT_COUNTER = 64,
};

struct store_lines_query {
	enum store_mode mode;
	enum store_line_sort sort;
	bool ascending;          /* default false: biggest first */
	bool show_all;           /* true: no shared-line / 0.1% filter (perf --show-all) */
	struct store_filter filter;
	uint64_t offset;         /* first row (0-based) after filtering+sorting */
	uint64_t limit;          /* rows wanted; 0 = all */
	bool with_locks;         /* true: lines holding lock waits are shown too,
	                            whatever perf's shared-line rule says (the
	                            explorer; report keeps perf's table) */
};
void store_lines_query_init(struct store_lines_query *q);

struct store_line_row {
	uint64_t rank;           /* 0-based position in the sorted, filtered table */
	uint64_t addr;           /* line address (physical with phys_lines) */
	struct c2c_stats stats;
	struct store_lat lat;
	uint32_t nr_cpus;
	uint32_t nr_threads;
	uint32_t nr_sites;
	uint32_t nr_offsets;
	uint64_t node_mask;      /* bit n: node n touched it (nodes < 64) */
	int32_t home_node;       /* -1 unknown */
	char symbol[128];        /* data symbol at the line start ("" unknown) */
	uint64_t symbol_offset;  /* line addr - symbol start */
	char dso[128];
	uint64_t lock_waits;
	uint64_t lock_wait_ns;
};
/* Fills *rows (malloc'd, n entries) with the rows in [q->offset,
 * q->offset+limit) and *total with the number of rows after filtering. */
int store_query_lines(struct store *st, const struct store_lines_query *q, struct store_line_row **rows,
		      size_t *n, uint64_t *total, struct c2c_error *err);
/* One line's row (unfiltered by the 0.1% rule). -ENOENT when absent. */
int store_query_line(struct store *st, uint64_t line_addr, const struct store_filter *f,
		     struct store_line_row *row, struct c2c_error *err);

/* ------------------------------------------------------------------ */
/* One line                                                             */

struct store_offset_row {
	uint64_t offset;         /* byte offset in the line (or word offset * 8) */
	struct c2c_stats stats;
	struct store_lat lat;
	uint32_t nr_cpus;
	uint32_t nr_threads;
	uint32_t nr_sites;
	uint64_t node_mask;
	char symbol[128];        /* data symbol at line+offset */
	uint64_t symbol_offset;
};
/* Offsets of one line, ascending. words8: group by 8-byte word. */
int store_query_line_offsets(struct store *st, uint64_t line_addr, const struct store_filter *f, bool words8,
			     struct store_offset_row **rows, size_t *n, struct c2c_error *err);

/* Coalesce keys for the Pareto rows (perf c2c -c). The row key is always
 * the offset plus the chosen keys; perf's default is iaddr. */
enum store_coalesce {
	STORE_COALESCE_PID = 1u << 0,
	STORE_COALESCE_TID = 1u << 1,
	STORE_COALESCE_IADDR = 1u << 2,
	STORE_COALESCE_DSO = 1u << 3,
	STORE_COALESCE_DEFAULT = STORE_COALESCE_IADDR,
};

struct store_pareto_row {
	uint64_t offset;
	int32_t pid;             /* -1 when not a coalesce key */
	int32_t tid;             /* -1 when not a coalesce key */
	uint64_t iaddr;          /* 0 when not a coalesce key */
	int64_t site;            /* site id when iaddr is a key, else 0 */
	char function[128];
	uint64_t function_offset;
	char dso[128];
	char file[128];
	uint32_t line;
	char comm[32];           /* of pid (when pid is a key) */
	struct c2c_stats stats;
	struct store_lat lat;
	uint32_t nr_cpus;
	uint64_t node_mask;
	uint64_t cpu_mask[4];    /* CPUs 0..255 that touched the row (bit n = CPU n) */
	uint64_t rel_addr;       /* iaddr in its binary (see store_site_info) */
};
/* The line's Pareto rows (perf's per-line section), grouped by offset
 * ascending, within an offset by HITM of the mode (or stores) descending
 * (c2c_row_cmp), ties in perf's key order: pid descending, tid, iaddr
 * ascending, dso name.
 * Rows perf would filter (no HITM of the mode and no store) are left out
 * unless show_all. */
int store_query_line_pareto(struct store *st, uint64_t line_addr, const struct store_filter *f,
			    enum store_mode mode, unsigned coalesce, bool show_all,
			    struct store_pareto_row **rows, size_t *n, struct c2c_error *err);

/* Per-CPU and per-node totals: for the whole session when line_addr is
 * STORE_ALL_LINES, else for one line. Ascending cpu / node. */
#define STORE_ALL_LINES UINT64_MAX
struct store_cpu_row {
	uint32_t cpu;
	int32_t node;
	struct c2c_stats stats;
	struct store_lat lat;
};
int store_query_cpus(struct store *st, uint64_t line_addr, const struct store_filter *f,
		     struct store_cpu_row **rows, size_t *n, struct c2c_error *err);
struct store_node_row {
	int32_t node;            /* -1: CPU with unknown node */
	uint32_t nr_cpus;
	struct c2c_stats stats;
	struct store_lat lat;
};
int store_query_nodes(struct store *st, uint64_t line_addr, const struct store_filter *f,
		      struct store_node_row **rows, size_t *n, struct c2c_error *err);

/* Per-thread (or, by_process, per-process) totals under the sample
 * filters (store/query/query_threads.c; a scan of the samples): a row's
 * numbers are the summary's for tid:N (pid:N). Ascending pid, tid. */
struct store_thread_row {
	int32_t pid;
	int32_t tid;             /* -1 in per-process rows */
	char comm[32];           /* the thread's last comm (a process: its main thread's) */
	struct c2c_stats stats;
	uint64_t nr_lines;       /* distinct cache lines of its classified samples */
	uint32_t nr_cpus;        /* distinct CPUs */
	uint32_t nr_threads;     /* distinct threads (1 per thread) */
};
int store_query_threads(struct store *st, const struct store_filter *f, bool by_process,
			struct store_thread_row **rows, size_t *n, struct c2c_error *err);

/* CPU x offset matrix of one line (sparse: one row per touched cell). */
struct store_cell_row {
	uint64_t offset;
	uint32_t cpu;
	struct c2c_stats stats;
};
int store_query_line_matrix(struct store *st, uint64_t line_addr, const struct store_filter *f,
			    struct store_cell_row **rows, size_t *n, struct c2c_error *err);

/* Locks (lock waits) whose address falls in the line (or every lock with
 * STORE_ALL_LINES), by total wait descending. */
struct store_lock_row {
	uint64_t lock_addr;
	uint64_t line_addr;
	char symbol[128];
	uint64_t symbol_offset;
	uint32_t flags;          /* OR of the flags seen */
	uint64_t waits;
	uint64_t wait_ns;
	uint64_t max_wait_ns;
	uint32_t nr_threads;
	uint32_t nr_sites;
	/* Samples on the lock's line (0 when none recorded). */
	uint64_t line_hitm;
};
int store_query_locks(struct store *st, uint64_t line_addr, const struct store_filter *f,
		      struct store_lock_row **rows, size_t *n, struct c2c_error *err);

/* ------------------------------------------------------------------ */
/* Code sites                                                           */

struct store_site {
	int64_t id;
	uint64_t ip;
	int32_t pid;
	uint8_t cpumode;
	char function[128];
	uint64_t offset;
	char dso[256];
	char file[256];
	uint32_t line;
	uint64_t rel_addr;       /* see store_site_info */
	struct c2c_stats stats;  /* every sample at this site */
	struct store_lat lat;
};
int store_get_site(struct store *st, int64_t site_id, struct store_site *out, struct c2c_error *err);
/* Every memory sample's code grouped by function name (sites of one
 * function added; "" when unresolved), ascending by name: what the diff
 * compares across builds, where a function's address moves but its name
 * does not (store/query/query_functions.c). */
struct store_function_row {
	char function[128];
	struct c2c_stats stats;
	struct store_lat lat;
	uint32_t nr_sites;
};
int store_query_functions(struct store *st, struct store_function_row **rows, size_t *n,
			  struct c2c_error *err);
/* The type members a site's samples were attributed to (when the session
 * has a type attribution; none otherwise), most samples first. */
struct store_site_member_row {
	char type[128];
	char member[192];        /* "" when the attribution placed no member */
	uint64_t samples;
};
int store_query_site_members(struct store *st, int64_t site_id, struct store_site_member_row **rows, size_t *n,
			     struct c2c_error *err);

/* Lines/offsets a site touches, by HITM of the mode descending. */
struct store_site_access_row {
	uint64_t line_addr;
	uint64_t offset;
	char symbol[128];
	uint64_t symbol_offset;
	struct c2c_stats stats;
	struct store_lat lat;
};
int store_query_site_accesses(struct store *st, int64_t site_id, const struct store_filter *f,
			      enum store_mode mode, struct store_site_access_row **rows, size_t *n,
			      struct c2c_error *err);

/* Callers of a site from recorded call chains: the frame right above the
 * site in each chain whose innermost frame is the site, with how many
 * samples/lock waits came through it. */
struct store_caller_row {
	int64_t site;
	char function[128];
	uint64_t offset;
	char dso[128];
	uint64_t count;
	uint32_t depth;          /* 1 = direct caller */
};
int store_query_site_callers(struct store *st, int64_t site_id, struct store_caller_row **rows, size_t *n,
			     struct c2c_error *err);

/* ------------------------------------------------------------------ */
/* Timeline                                                             */

/* ---- the user's SQL (`c2ctui sql`) ------------------------------------------ */

/* Called once per statement with values NULL (the column names: a header),
 * then once per row; a value is NULL for SQL NULL, blobs come as X'hex'.
 * A negative return stops the query and is returned. */
typedef int (*store_sql_row_fn)(void *ctx, int ncols, const char *const *names, const char *const *values);
/* Runs every statement of sql in turn; a statement that would write (or
 * attach, or change a setting) is refused with -EPERM before it runs, so
 * the session is never changed. Tables: docs/schema.md. */
int store_sql(struct store *st, const char *sql, store_sql_row_fn fn, void *ctx, struct c2c_error *err);

struct store_time_row {
	uint64_t t_start;        /* ns, inclusive */
	uint64_t t_end;          /* ns, exclusive */
	uint64_t samples;
	uint64_t hitm;           /* of the mode */
	uint64_t loads;
	uint64_t stores;
	uint64_t lock_waits;
	uint64_t lock_wait_ns;
};
/* nbuckets equal buckets between the filter's time window (or the
 * session's first/last sample). line_addr: STORE_ALL_LINES or one line.
 * Without a time window on a finalized session the buckets are whole
 * timeline slices, so *n may be a little below nbuckets (docs/schema.md). */
int store_query_timeline(struct store *st, uint64_t line_addr, const struct store_filter *f,
			 enum store_mode mode, uint32_t nbuckets, struct store_time_row **rows, size_t *n,
			 struct c2c_error *err);

/* ------------------------------------------------------------------ */
/* Search                                                               */

enum store_hit_kind {
	STORE_HIT_LINE = 0,      /* a cache line (address or data symbol match) */
	STORE_HIT_SITE,          /* a code site (function / file match) */
	STORE_HIT_LOCK,          /* a lock address */
};
struct store_search_row {
	enum store_hit_kind kind;
	uint64_t addr;           /* line address, site ip, or lock address */
	int64_t site;            /* site id for STORE_HIT_SITE */
	char text[192];          /* what matched, printable */
	uint64_t hitm;           /* tot HITM of the line / site, for ranking */
};
/* text: a hex address (0x...) matches the line containing it, a site at
 * that ip, or a lock; anything else is a case-insensitive substring of
 * data symbols and function names. At most `limit` rows (0 = 100). */
int store_search(struct store *st, const char *text, size_t limit, struct store_search_row **rows, size_t *n,
		 struct c2c_error *err);

/* ------------------------------------------------------------------ */
/* Physical-address columns (store/query/query_report.c, added by the c2c/report
 * helper; docs/store-requests.md R1)                                   */

/* The recording's MEM_TOPOLOGY as address ranges per node (kept in meta
 * "mem_ranges"); the importer sets it, the queries below read it. */
int store_set_mem_ranges(struct store *st, const struct c2c_mem_range *r, size_t n, struct c2c_error *err);
/* *out malloc'd (free it); n = 0 when the session has none. */
int store_get_mem_ranges(struct store *st, struct c2c_mem_range **out, size_t *n);

/* perf's "Node" (as a node bitmask; 0 prints "N/A") and "PA cnt". */
struct store_phys {
	uint64_t node_mask;
	uint64_t pa_cnt;
	uint64_t last_phys;      /* internal: last counted physical address */
};

/* What perf sorts lines by after the display counter (its dcacheline key):
 * the sample cpumode (kernel before user), lines whose data address has a
 * map before those without, then the address. From the line's first sample. */
struct store_line_key {
	uint8_t cpumode;         /* enum c2c_cpumode */
	bool mapped;
	int32_t pid;
	/* the data map's file identity (0 for anonymous memory), and whether
	 * it is private anonymous user memory (perf then keys by pid too) */
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	bool anon;
};
/* perf's order of two lines with equal display counters: <0 when a first. */
int store_line_key_cmp(const struct store_line_key *a, uint64_t addr_a,
		       const struct store_line_key *b, uint64_t addr_b);

/* -N: a Pareto row's CPUs and its samples by the node of their CPU. */
#define STORE_SEQ_MAX_NODES 16
struct store_row_nodes {
	uint64_t cpus[4];        /* CPUs 0..255 that made the row's samples */
	struct c2c_stats node[STORE_SEQ_MAX_NODES];
};

/* One line of store_query_lines_seq: in = addr (and rows, nrows: the
 * line's Pareto rows as store_query_line_pareto returned them, same
 * coalesce keys; may be 0); out = phys, key, seen, and row_phys[] /
 * row_lat[] (caller-allocated, nrows each, may be NULL). */
struct store_seq_line {
	uint64_t addr;
	const struct store_pareto_row *rows;
	size_t nrows;
	struct store_phys phys;
	struct store_line_key key;
	bool seen;               /* some sample (after the filter) is on the line */
	struct store_phys *row_phys;
	struct store_lat *row_lat;   /* each row's accumulators recomputed in
	                                sample order: perf's running means exactly */
	struct store_row_nodes *row_nodes; /* for -N; may be NULL */
};
/* One scan of the samples in recording order for n lines: perf's
 * sample-order numbers (Node / PA cnt when the session has a memory
 * topology, the rows' running means, the tie-break key). */
int store_query_lines_seq(struct store *st, const struct store_filter *f, unsigned coalesce,
			  struct store_seq_line *lines, size_t n, struct c2c_error *err);

/* ------------------------------------------------------------------ */
/* Explorer queries (store/query/query_tui.c, added for the TUI's lock section) */

/* Call sites a lock was waited on from: lock waits of lock_addr grouped by
 * caller site (0: unknown), by total wait descending. The filter's cpu,
 * pid, tid and time window apply (node and symbol do not). */
struct store_lock_site_row {
	int64_t site;            /* 0 when the waits had no caller site */
	uint64_t ip;
	char function[128];
	uint64_t offset;
	char dso[128];
	uint64_t waits;
	uint64_t wait_ns;
	uint64_t max_wait_ns;
	uint32_t nr_threads;
};
int store_query_lock_sites(struct store *st, uint64_t lock_addr, const struct store_filter *f,
			   struct store_lock_site_row **rows, size_t *n, struct c2c_error *err);
/* The kind of lock lock:contention_begin's flags describe, as perf lock
 * names it: "spinlock", "rwlock", "mutex", "rwsem", "rt-mutex", ... */
const char *store_lock_kind(uint32_t flags);

/* ---- perf lock contention's tables (store/query/query_locks.c) ---------- */

enum store_locks_by { STORE_LOCKS_BY_CALLER, STORE_LOCKS_BY_TASK, STORE_LOCKS_BY_ADDR };
enum store_locks_sort {
	STORE_LOCKS_SORT_CONTENDED, STORE_LOCKS_SORT_WAIT_TOTAL, STORE_LOCKS_SORT_WAIT_MAX,
	STORE_LOCKS_SORT_WAIT_MIN, STORE_LOCKS_SORT_AVG_WAIT,
};
struct store_locks_query {
	enum store_locks_by by;
	enum store_locks_sort sort;
	const uint32_t *types;      /* -Y: keep waits whose begin flags are one of these */
	size_t ntypes;
	const uint64_t *addrs;      /* -L: keep waits on these lock addresses */
	size_t naddrs;
	const char *const *syms;    /* -L: or on locks whose data symbol is one of these */
	size_t nsyms;
};
struct store_lock_stat {
	uint64_t key;               /* caller: perf's stack key; task: tid; lock: address */
	uint64_t contended, acquired;
	uint64_t wait_total, wait_max, wait_min, avg_wait;  /* ns; wait_min UINT64_MAX: none */
	uint32_t flags;             /* of the begin that made the entry */
	char name[128];             /* caller ("func+0xoff", "Unknown"), comm (":TID" when
	                               none), or the lock's symbol ("" when none) */
};
/* The table perf lock contention prints (same pairing, order and ties),
 * sorted by q->sort. *out is malloc'd (free it). Returns 0, -ENOENT with
 * err saying so when the session holds no lock contention. */
int store_query_perf_locks(struct store *st, const struct store_locks_query *q, struct store_lock_stat **out,
			   size_t *n, struct c2c_error *err);
/* The explorer's lock list (query_locks.c): one row per lock address with
 * `c2ctui locks -l`'s numbers (s: key = address, name = data symbol, flags
 * of the first begin), the caller with the most wait (perf's name) and the
 * threads and CPUs of its completed waits (lock_waits). */
struct store_lock_list_row {
	struct store_lock_stat s;
	char top_caller[128];       /* "" when no caller counted */
	uint32_t nr_threads, nr_cpus;
};
int store_query_lock_list(struct store *st, struct store_lock_list_row **out, size_t *n, struct c2c_error *err);
/* perf's callers (`c2ctui locks -L ADDR` rows) of one lock, or of every
 * lock (STORE_ALL_LINES), by total wait descending. s.name: perf's caller. */
struct store_lock_caller {
	uint64_t lock_addr;
	struct store_lock_stat s;   /* key: perf's stack key */
};
int store_query_lock_callers(struct store *st, uint64_t lock_addr, struct store_lock_caller **out, size_t *n,
			     struct c2c_error *err);
/* The stored call chain most of a caller's (lock, key) waits had, frames
 * innermost first; *waits: how many waits had it. None: *n = 0. */
struct store_lock_frame {
	int64_t site;
	uint64_t ip;
	char function[128];
	uint64_t offset;
	char dso[128];
};
int store_query_lock_stack(struct store *st, uint64_t lock_addr, uint64_t key, struct store_lock_frame **out,
			   size_t *n, uint64_t *waits, struct c2c_error *err);
/* The lock waits on a line (STORE_ALL_LINES: the session) per CPU, and
 * their distinct CPUs and threads: what a line or session without memory
 * samples ran on. The filter's cpu, pid, tid and time window apply. */
struct store_lock_cpu_row {
	int32_t cpu;
	uint64_t waits, wait_ns, max_wait_ns;
	uint32_t nr_threads;
};
int store_query_lock_cpus(struct store *st, uint64_t line_addr, const struct store_filter *f,
			  struct store_lock_cpu_row **rows, size_t *n, struct c2c_error *err);
int store_query_lock_counts(struct store *st, uint64_t line_addr, const struct store_filter *f, uint32_t *nr_cpus,
			    uint32_t *nr_threads, struct c2c_error *err);
/* perf's name of a lock type from contention_begin flags ("mutex",
 * "rwsem:R", "spinlock", ..., "unknown"). */
const char *store_lock_type_str(uint32_t flags);
/* Its family, as perf's by-lock table prints it ("rwsem", "percpu-rwsem"). */
const char *store_lock_type_family(uint32_t flags);
/* The flags of a -Y type name (perf's names and their families:
 * "rwsem" gives rwsem:R and rwsem:W). Returns how many (up to max). */
size_t store_lock_type_flags(const char *name, uint32_t *flags, size_t max);

#endif /* C2C_STORE_H */
