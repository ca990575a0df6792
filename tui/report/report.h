/* The report command's model and its three printers (private to
 * tui/cmd/cmd_report.c and tui/report_*.c). The model is filled from store/
 * queries only; every number is then derived through collector/c2c/c2c.h, so
 * the text, CSV and JSON printers (and the TUI) show the same values. */
#ifndef C2C_TUI_REPORT_H
#define C2C_TUI_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "collector/c2c/c2c.h"
#include "collector/base/error.h"
#include "store/store.h"

enum report_format {
	REPORT_TEXT,
	REPORT_CSV,
	REPORT_JSON,
};

struct report_opts {
	enum c2c_display display;
	bool display_set;          /* -d given; else perf's default for the arch */
	uint64_t max_lines;        /* --lines N; 0 = every displayed line */
	enum report_format format;
	unsigned coalesce;         /* enum store_coalesce bits */
	char coalesce_str[64];     /* as given to -c, for "Cacheline data grouping" */
	bool show_all;
	int node_info;             /* -N count (0..2) */
	bool double_cl;
	bool full_symbols;
	bool phys_lines;
	bool stats_only;           /* --stats: summaries only */
	bool no_source;
	uint64_t time_from, time_to; /* ns; 0 = open end */
	/* --cpu/--node/--pid/--tid lists (n == 0: any) */
	struct store_id_set cpus, nodes, pids, tids;
};
/* The store filter the report's options ask for (time window, lists,
 * line keys): one for the main report and --threads. */
void report_filter_from_opts(struct store_filter *f, const struct report_opts *o);

/* One Shared Data Cache Line Table row and its Pareto rows. */
struct report_line {
	struct store_line_row row;
	struct store_pareto_row *pareto; /* owned */
	size_t npareto;
	struct store_phys phys;          /* "Node" and "PA cnt" of the line */
	struct store_phys *pareto_phys;  /* owned, npareto entries */
	struct store_row_nodes *pareto_nodes; /* owned, npareto entries (-N only) */
	struct store_line_key key;       /* perf's tie-break key (first sample) */
};

/* Everything the printers need; owned by the model (report_model_fini). */
struct report_model {
	const char *input;               /* the path the user gave */
	struct report_opts opts;
	enum c2c_display display;        /* resolved */
	struct store_summary sum;
	struct store_event_row *events;
	size_t nevents;
	struct report_line *lines;
	size_t nlines;
	uint64_t lines_total;            /* displayed lines before --lines */
	char arch[64];
	char cl_sort[80];                /* "offset,iaddr" */
	int cpu_node[256];               /* node of each CPU (-1 unknown), for -N */
	int nr_nodes;                    /* NUMA nodes of the recording */
	/* Lock contention (lock:contention_begin/end pairs), by total wait;
	 * top_site[i] is locks[i]'s most waited-on call site (site 0: none). */
	struct store_lock_row *locks;
	struct store_lock_site_row *top_site;
	size_t nlocks;
	/* Whether the session is complete, and the one line that says it
	 * when it is not ("" for a complete session). */
	struct store_status status;
	char status_line[1024];
};
/* How many locks the report lists (the rest is summed in the totals). */
#define REPORT_MAX_LOCKS 20

int report_model_build(struct report_model *m, struct store *st, const char *input,
		       const struct report_opts *o, struct c2c_error *err);
void report_model_fini(struct report_model *m);

/* The session's state for JSON ("session": {...}) and CSV (a header row
 * and a value row whose first column is kind, e.g. "session"). */
void report_json_status(FILE *out, const struct store_status *s);
void report_csv_status(FILE *out, const char *kind, const struct store_status *s);

/* ---- derived values, one definition for all printers ---- */

/* The summary rows perf prints, in perf's order, with perf's labels. */
enum report_value_kind { RV_COUNT, RV_PERCENT };
struct report_value {
	const char *label;               /* perf's label, e.g. "Load LLC hit" */
	const char *key;                 /* JSON/CSV key, e.g. "ld_llc_hit" */
	enum report_value_kind kind;
	uint64_t count;
	double percent;                  /* NaN prints as perf's "-nan%" */
};
/* "Trace Event Information": fills up to max rows, returns the count. */
size_t report_trace_values(const struct report_model *m, struct report_value *v, size_t max);
/* "Global Shared Cache Line Event Information". */
size_t report_shared_values(const struct report_model *m, struct report_value *v, size_t max);

/* Line-table numbers of one line, perf's columns in order. */
struct report_line_cols {
	double costly_pct;               /* "Hitm %" / "Peer %" */
	uint64_t tot, lcl, rmt;          /* HITM (or peer) total/local/remote */
	uint64_t records, loads, stores;
	uint64_t st_l1hit, st_l1miss, st_na;
	uint64_t ld_fbhit, ld_l1hit, ld_l2hit;
	uint64_t ld_lclhit, ld_lclhitm;
	uint64_t ld_rmthit, ld_rmthitm;
	uint64_t dram_lcl, dram_rmt;
	char node[64];                   /* "0", "0-1", "N/A" */
	uint64_t pa_cnt;
};
void report_line_cols(const struct report_model *m, const struct report_line *l, struct report_line_cols *c);

/* Pareto-row numbers, perf's columns in order. */
struct report_pareto_cols {
	double rmt_pct, lcl_pct;         /* of the line's rmt/lcl HITM (or peer) */
	double st_l1hit_pct, st_l1miss_pct, st_na_pct;
	uint64_t offset;
	char node[64];
	uint64_t pa_cnt;
	double cyc_rmt, cyc_lcl, cyc_load; /* means (rmt/lcl hitm or peer, load) */
	uint64_t records;
	uint32_t cpu_cnt;
	char symbol[192];                /* "[.] name" / "[k] name" / "[.] 0x..." */
	char object[160];                /* shared object (basename unless --full-symbols) */
	char source[192];                /* "file:line" or "" */
	char nodes[256];                 /* "0 1", or with -N "0{ 4 100.0% 50.0%}" */
};
/* Row j of line l. */
void report_pareto_cols(const struct report_model *m, const struct report_line *l, size_t j,
			struct report_pareto_cols *c);

/* "Cachelines sort on" value, e.g. "Total HITMs". */
const char *report_sort_title(const struct report_model *m);

int report_print_text(const struct report_model *m, FILE *out);
int report_print_csv(const struct report_model *m, FILE *out);
int report_print_json(const struct report_model *m, FILE *out);

#endif /* C2C_TUI_REPORT_H */
