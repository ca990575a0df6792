/* Hot lines: perf's Shared Data Cache Line Table as a sortable table. Only
 * the visible rows are fetched (store_query_lines with a row range), so the
 * first screen and every scroll cost one small query at any session size.
 * Sessions with lock waits also list the lines holding waited-on locks
 * (with their lock columns first), and every line carries its sharing
 * verdict (false / true / mixed, potential, no contention) from the types
 * module. A session of lock
 * waits alone shows only the address and lock columns; `l` opens the lock
 * list (view_locks.c). */
#include "tui/explorer/view.h"
#include "tui/term/term.h"

#include "store/types/typeinfo.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum lines_col {
	LC_RANK, LC_ADDR, LC_SHARE, LC_BAR, LC_HITM, LC_LCL, LC_RMT, LC_OBJECT, LC_PEER, LC_LOADS,
	LC_STORES, LC_LAT, LC_NODE, LC_CPUS, LC_THREADS, LC_SITES, LC_LOCK, LC_WAITS, LC_VERDICT,
	/* perf's Shared Data Cache Line Table columns (report_line_cols) */
	LC_RECORDS, LC_PA_CNT, LC_PNODE, LC_ST_L1HIT, LC_ST_L1MISS, LC_ST_NA, LC_FB, LC_L1, LC_L2,
	LC_LCLHIT, LC_LCLHITM, LC_RMTHIT, LC_RMTHITM, LC_DRAM_LCL, LC_DRAM_RMT, LC_LCL_PEER, LC_RMT_PEER,
	LC__COUNT
};

/* Sort key of the verdict column: not a store sort, the view orders the
 * whole table itself (false, mixed, true, none; HITM order within). */
#define SORT_VERDICT 1000

/* Titles as report's text header names them; the sort keys are the
 * store's (perf's counters by STORE_SORT_COUNTER + counter); Node and PA
 * cnt, from the report's sample-order scan of the visible rows, are not
 * sortable (-1). */
static const struct table_col lines_cols[LC__COUNT] = {
	[LC_RANK]    = { "#", 4, 0, TAL_RIGHT, -1, 0 },
	[LC_ADDR]    = { "Address", 18, 0, TAL_LEFT, STORE_SORT_ADDR, 0 },
	[LC_SHARE]   = { "Share", 6, 0, TAL_RIGHT, STORE_SORT_HITM, 0 },
	[LC_BAR]     = { "", 8, 0, TAL_LEFT, -1, 1 },
	[LC_HITM]    = { "Hitm", 5, 0, TAL_RIGHT, STORE_SORT_TOT_HITM, 0 },
	[LC_LCL]     = { "Lcl", 5, 0, TAL_RIGHT, STORE_SORT_LCL_HITM, 0 },
	[LC_RMT]     = { "Rmt", 5, 0, TAL_RIGHT, STORE_SORT_RMT_HITM, 0 },
	[LC_OBJECT]  = { "Data object", 0, 7, TAL_LEFT, STORE_SORT_SYMBOL, 0 },
	[LC_PEER]    = { "Peer", 6, 0, TAL_RIGHT, STORE_SORT_PEER, 0 },
	[LC_LOADS]   = { "Loads", 6, 0, TAL_RIGHT, STORE_SORT_LOADS, 0 },
	[LC_STORES]  = { "Stores", 6, 0, TAL_RIGHT, STORE_SORT_STORES, 0 },
	[LC_LAT]     = { "LdLat", 6, 0, TAL_RIGHT, STORE_SORT_LAT, 0 },
	[LC_NODE]    = { "Home", 4, 0, TAL_RIGHT, -1, 0 },
	[LC_CPUS]    = { "CPUs", 4, 0, TAL_RIGHT, STORE_SORT_CPUS, 0 },
	[LC_THREADS] = { "Thr", 4, 0, TAL_RIGHT, STORE_SORT_THREADS, 0 },
	[LC_SITES]   = { "Sites", 5, 0, TAL_RIGHT, STORE_SORT_SITES, 0 },
	[LC_LOCK]    = { "LockWait", 9, 0, TAL_RIGHT, STORE_SORT_LOCK_WAIT, 0 },
	[LC_WAITS]   = { "Waits", 6, 0, TAL_RIGHT, STORE_SORT_LOCK_WAIT, 0 },
	[LC_VERDICT] = { "Verdict", 9, 0, TAL_LEFT, SORT_VERDICT, 0 },
	[LC_RECORDS] = { "Records", 7, 0, TAL_RIGHT, STORE_SORT_PERF_RECORDS, 0 },
	[LC_PA_CNT]  = { "PA cnt", 6, 0, TAL_RIGHT, -1, 0 },
	[LC_PNODE]   = { "Node", 5, 0, TAL_RIGHT, -1, 0 },
	[LC_ST_L1HIT]  = { "L1Hit", 6, 0, TAL_RIGHT, STORE_SORT_COUNTER + C2C_ST_L1HIT, 0 },
	[LC_ST_L1MISS] = { "L1Miss", 6, 0, TAL_RIGHT, STORE_SORT_COUNTER + C2C_ST_L1MISS, 0 },
	[LC_ST_NA]   = { "N/A", 6, 0, TAL_RIGHT, STORE_SORT_COUNTER + C2C_ST_NA, 0 },
	[LC_FB]      = { "FB", 5, 0, TAL_RIGHT, STORE_SORT_COUNTER + C2C_LD_FBHIT, 0 },
	[LC_L1]      = { "L1", 5, 0, TAL_RIGHT, STORE_SORT_COUNTER + C2C_LD_L1HIT, 0 },
	[LC_L2]      = { "L2", 5, 0, TAL_RIGHT, STORE_SORT_COUNTER + C2C_LD_L2HIT, 0 },
	[LC_LCLHIT]  = { "LclHit", 6, 0, TAL_RIGHT, STORE_SORT_COUNTER + C2C_LD_LLCHIT, 0 },
	[LC_LCLHITM] = { "LclHitm", 7, 0, TAL_RIGHT, STORE_SORT_COUNTER + C2C_LCL_HITM, 0 },
	[LC_RMTHIT]  = { "RmtHit", 6, 0, TAL_RIGHT, STORE_SORT_COUNTER + C2C_RMT_HIT, 0 },
	[LC_RMTHITM] = { "RmtHitm", 7, 0, TAL_RIGHT, STORE_SORT_COUNTER + C2C_RMT_HITM, 0 },
	[LC_DRAM_LCL] = { "DramLcl", 7, 0, TAL_RIGHT, STORE_SORT_COUNTER + C2C_LCL_DRAM, 0 },
	[LC_DRAM_RMT] = { "DramRmt", 7, 0, TAL_RIGHT, STORE_SORT_COUNTER + C2C_RMT_DRAM, 0 },
	[LC_LCL_PEER] = { "LclPeer", 7, 0, TAL_RIGHT, STORE_SORT_COUNTER + C2C_LCL_PEER, 0 },
	[LC_RMT_PEER] = { "RmtPeer", 7, 0, TAL_RIGHT, STORE_SORT_COUNTER + C2C_RMT_PEER, 0 },
};

/* Column sets, cycled with v / V: the columns after the rank and address
 * (and, with lock waits, the lock columns), listed by importance: the
 * numbers before the data object, which takes what is left and is clipped
 * with a marker; narrow terminals hide the heat bar first, then drop
 * columns from the right (> scrolls to them). */
#define SET_END (-1)
static const struct lines_set {
	const char *name;
	int cols[LC__COUNT];
} lines_sets[] = {
	{ "HITM", { LC_SHARE, LC_BAR, LC_HITM, LC_LCL, LC_RMT, LC_VERDICT, LC_LOADS, LC_STORES, LC_OBJECT,
		    LC_PEER, LC_LAT, LC_NODE, LC_CPUS, LC_THREADS, LC_SITES, LC_LOCK, LC_WAITS, SET_END } },
	{ "Stores", { LC_SHARE, LC_BAR, LC_STORES, LC_ST_L1HIT, LC_ST_L1MISS, LC_ST_NA, LC_OBJECT, SET_END } },
	{ "Load sources", { LC_SHARE, LC_BAR, LC_FB, LC_L1, LC_L2, LC_LCLHIT, LC_LCLHITM, LC_RMTHIT, LC_RMTHITM,
			    LC_DRAM_LCL, LC_DRAM_RMT, LC_OBJECT, SET_END } },
	{ "Peer", { LC_SHARE, LC_BAR, LC_PEER, LC_LCL_PEER, LC_RMT_PEER, LC_HITM, LC_LOADS, LC_OBJECT, SET_END } },
	{ "Records/PA", { LC_SHARE, LC_BAR, LC_RECORDS, LC_PA_CNT, LC_PNODE, LC_LOADS, LC_STORES, LC_OBJECT,
			  SET_END } },
};
#define NSETS ((int)(sizeof(lines_sets) / sizeof(lines_sets[0])))

/* A session of lock waits alone: its memory columns would all be 0 (and
 * CPUs/threads count memory samples): only these show, in every set. */
static const int lockonly_order[] = { LC_RANK, LC_ADDR, LC_LOCK, LC_WAITS, LC_OBJECT };

struct lines_priv {
	struct store_line_row *rows;   /* the visible rows only */
	size_t nrows;
	uint64_t first;                /* table row of rows[0] */
	uint64_t total;
	bool show_all;                 /* every line, not only shared ones */
	bool locks;                    /* the session has lock waits */
	bool lock_only;                /* ... and no memory samples */
	int set;                       /* index into lines_sets */
	int order[LC__COUNT];          /* table column -> enum lines_col */
	int ncols;
	struct table_col cols[LC__COUNT];
	int drop[LC__COUNT];           /* table.drop: the heat bar goes first */
	/* perf's Node and PA cnt of the visible rows (sets that show them):
	 * the report's sample-order scan, for these rows only */
	struct store_seq_line *seq;
	bool want_phys;
	/* Verdicts, computed once per view in the background (a scan of
	 * every sample), by line address for lookups. */
	struct typeinfo_verdict_row *verdicts;
	size_t nverdicts;
	bool verdicts_done;
	struct view_job *job;
	/* Sorting by verdict: the whole table, ordered here. */
	struct store_line_row *all;
	size_t nall;
	bool all_valid;
	/* An empty table says why and which key shows what the session has. */
	char hint[4][256];
};

static int by_addr(const void *x, const void *y)
{
	const struct typeinfo_verdict_row *a = x, *b = y;
	return a->line_addr < b->line_addr ? -1 : a->line_addr > b->line_addr;
}

static const struct typeinfo_verdict_row *verdict_of(const struct lines_priv *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nverdicts;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (p->verdicts[mid].line_addr == addr)
			return &p->verdicts[mid];
		if (p->verdicts[mid].line_addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* false sharing first (what a layout change fixes), then mixed, true,
 * potential, no contention, and lines without a verdict last. */
static int verdict_rank(const struct lines_priv *p, uint64_t addr)
{
	const struct typeinfo_verdict_row *v = verdict_of(p, addr);

	if (!v)
		return 5;
	switch (v->v.verdict) {
	case LAYOUT_FALSE: return 0;
	case LAYOUT_MIXED: return 1;
	case LAYOUT_TRUE: return 2;
	case LAYOUT_POTENTIAL: return 3;
	default: return 4;
	}
}

static int sort_verdict(const void *x, const void *y, void *arg)
{
	const struct store_line_row *a = x, *b = y;
	int ra = verdict_rank(arg, a->addr), rb = verdict_rank(arg, b->addr);

	if (ra != rb)
		return ra - rb;
	/* The rows came in the table's HITM order: keep it. */
	return a->rank < b->rank ? -1 : a->rank > b->rank;
}

static bool verdict_sorted(const struct view *v)
{
	const struct table *t = &v->table;
	return t->sort_col >= 0 && t->cols[t->sort_col].sort_key == SORT_VERDICT;
}

static uint64_t mode_total(const struct explorer *ex)
{
	return view_hitm(&ex->summary.shared, ex->mode) ? view_hitm(&ex->summary.shared, ex->mode)
							: view_hitm(&ex->summary.total, ex->mode);
}

static void lines_query(struct view *v, struct store_lines_query *q, uint64_t offset, uint64_t limit)
{
	struct explorer *ex = v->ex;
	const struct table *t = &v->table;

	store_lines_query_init(q);
	q->mode = ex->mode;
	q->filter = ex->filter;
	q->sort = t->sort_col >= 0 && !verdict_sorted(v) ? (enum store_line_sort)t->cols[t->sort_col].sort_key
							  : STORE_SORT_HITM;
	q->ascending = verdict_sorted(v) ? false : !t->sort_desc;
	q->show_all = ((struct lines_priv *)v->priv)->show_all;
	q->with_locks = ((struct lines_priv *)v->priv)->locks;
	q->offset = offset;
	q->limit = limit;
}

/* The whole table in verdict order (the store cannot sort by verdict). */
static int lines_fetch_all(struct view *v, struct c2c_error *err)
{
	struct lines_priv *p = v->priv;
	struct store_lines_query q;
	uint64_t total = 0;
	int r;

	free(p->all);
	p->all = NULL;
	p->nall = 0;
	lines_query(v, &q, 0, 0);
	r = store_query_lines(v->ex->st, &q, &p->all, &p->nall, &total, err);
	if (r < 0)
		return r;
	if (p->nall)
		qsort_r(p->all, p->nall, sizeof(*p->all), sort_verdict, p);
	if (!v->table.sort_desc)
		for (size_t i = 0; i < p->nall / 2; i++) {
			struct store_line_row tmp = p->all[i];
			p->all[i] = p->all[p->nall - 1 - i];
			p->all[p->nall - 1 - i] = tmp;
		}
	for (size_t i = 0; i < p->nall; i++)
		p->all[i].rank = i;
	p->all_valid = true;
	return 0;
}

/* Node and PA cnt of the visible rows, when the set shows them: the
 * report's query (store_query_lines_seq) for these rows alone. */
static int lines_fetch_phys(struct view *v, struct c2c_error *err)
{
	struct lines_priv *p = v->priv;

	free(p->seq);
	p->seq = NULL;
	if (!p->want_phys || !p->nrows)
		return 0;
	if (!(p->seq = calloc(p->nrows, sizeof(*p->seq))))
		return c2c_error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < p->nrows; i++)
		p->seq[i].addr = p->rows[i].addr;
	return store_query_lines_seq(v->ex->st, &v->ex->filter, STORE_COALESCE_DEFAULT, p->seq, p->nrows, err);
}

static int lines_fetch(struct view *v, struct c2c_error *err)
{
	struct lines_priv *p = v->priv;
	struct store_lines_query q;
	struct store_line_row *rows = NULL;
	size_t n = 0;
	uint64_t total = 0;
	int r;

	if (verdict_sorted(v)) {
		uint64_t top = (uint64_t)v->table.top, want = v->table.height > 0 ? (uint64_t)v->table.height : 1;
		if (!p->all_valid && (r = lines_fetch_all(v, err)) < 0)
			return r;
		total = p->nall;
		n = top < p->nall ? (size_t)(p->nall - top < want ? p->nall - top : want) : 0;
		if (n && !(rows = malloc(n * sizeof(*rows))))
			return c2c_error_set(err, -ENOMEM, "out of memory");
		if (n)
			memcpy(rows, p->all + top, n * sizeof(*rows));
	} else {
		p->all_valid = false;
		lines_query(v, &q, (uint64_t)v->table.top, v->table.height > 0 ? (uint64_t)v->table.height : 1);
		r = store_query_lines(v->ex->st, &q, &rows, &n, &total, err);
		if (r < 0)
			return r;
	}
	free(p->rows);
	p->rows = rows;
	p->nrows = n;
	p->first = (uint64_t)v->table.top;
	p->total = total;
	if ((r = lines_fetch_phys(v, err)) < 0)
		return r;
	if ((long)total != v->table.nrows) {
		/* The table shrank or grew (filter, live data): fetch again for
		 * the clamped page. */
		table_set_rows(&v->table, (long)total);
		if ((uint64_t)v->table.top != p->first)
			return lines_fetch(v, err);
	}
	return 0;
}

/* The background verdict query's output, owned by the job. */
struct verdict_args {
	struct typeinfo_verdict_row *rows;
	size_t n;
};

static int verdict_query(struct store *st, void *arg, struct c2c_error *err)
{
	struct verdict_args *a = arg;

	if (typeinfo_query_verdicts(st, &a->rows, &a->n, err) < 0)
		return -1;
	if (a->n)
		qsort(a->rows, a->n, sizeof(*a->rows), by_addr);
	return 0;
}

static void verdict_args_free(void *arg)
{
	struct verdict_args *a = arg;

	free(a->rows);
	free(a);
}

/* The verdicts arrived: take them, and re-order when sorted by them. */
static void lines_wake(struct view *v)
{
	struct lines_priv *p = v->priv;
	struct c2c_error err = { 0 };
	struct verdict_args *a;
	double ms;

	if (!p->job || !view_job_done(p->job))
		return;
	if (view_job_result(p->job, &err, &ms) < 0) {
		view_message(v->ex, 1, "verdicts: %s", err.msg);
	} else {
		view_timing("verdicts_ready", ms);
		a = view_job_arg(p->job);
		free(p->verdicts);
		p->verdicts = a->rows;
		p->nverdicts = a->n;
		a->rows = NULL;
	}
	view_job_release(p->job);
	p->job = NULL;
	p->verdicts_done = true;
	p->all_valid = false;
	if (verdict_sorted(v) && lines_fetch(v, &err) < 0)
		view_message(v->ex, 1, "%s", err.msg);
}

static int col_of(const struct lines_priv *p, int c)
{
	for (int i = 0; i < p->ncols; i++)
		if (p->order[i] == c)
			return i;
	return -1;
}

/* Lays the table out as column set `set`: rank, address, the lock columns
 * of a session with lock waits, then the set's columns. The sort stays
 * when its column is in the new set, else it goes back to sort_lc. */
static void lines_set_columns(struct view *v, int set, int sort_lc, bool desc)
{
	struct lines_priv *p = v->priv;
	const int *cols = lines_sets[set].cols;
	int n = 0;

	p->set = set;
	p->want_phys = false;
	if (p->lock_only) {
		for (size_t i = 0; i < sizeof(lockonly_order) / sizeof(lockonly_order[0]); i++)
			p->order[n++] = lockonly_order[i];
	} else {
		p->order[n++] = LC_RANK;
		p->order[n++] = LC_ADDR;
		if (p->locks) {
			p->order[n++] = LC_LOCK;
			p->order[n++] = LC_WAITS;
		}
		for (int i = 0; cols[i] != SET_END && n < LC__COUNT; i++) {
			if (p->locks && (cols[i] == LC_LOCK || cols[i] == LC_WAITS))
				continue;
			p->order[n++] = cols[i];
			if (cols[i] == LC_PA_CNT || cols[i] == LC_PNODE)
				p->want_phys = true;
		}
	}
	p->ncols = n;
	for (int i = 0; i < n; i++) {
		p->cols[i] = lines_cols[p->order[i]];
		p->drop[i] = p->order[i] == LC_BAR;
	}
	table_init(&v->table, p->cols, n);
	v->table.drop = p->drop;
	v->table.frozen = 2;   /* rank and address stay when scrolling columns */
	v->table.sort_col = col_of(p, sort_lc);
	if (v->table.sort_col < 0)
		v->table.sort_col = col_of(p, p->lock_only ? LC_LOCK : LC_SHARE);
	v->table.sort_desc = desc;
}

/* What an empty table says instead of "0 shown": why it is empty, what
 * the session holds, and the key that shows it. */
static void lines_hint(struct view *v)
{
	struct lines_priv *p = v->priv;
	const struct explorer *ex = v->ex;
	const struct store_summary *sum = &ex->summary;
	struct store_event_row *evs = NULL;
	struct c2c_error err = { 0 };
	size_t nev = 0, len = 0;
	char filt[160], evtext[200] = "";
	bool mem = c2c_total_loads(&sum->total) || c2c_stores_total(&sum->total);
	int n = 0;

	memset(p->hint, 0, sizeof(p->hint));
	if (p->total)
		return;
	summary_filter_text(ex, filt, sizeof(filt));
	if (strcmp(filt, "none") || ex->filter.time_from || ex->filter.time_to)
		snprintf(p->hint[n++], sizeof(p->hint[0]), "Nothing under the filter (%s%s): F clears it.", filt,
			 ex->filter.time_from || ex->filter.time_to ? ", time window" : "");
	else if (!mem)
		snprintf(p->hint[n++], sizeof(p->hint[0]), "No memory samples (no loads or stores): no cache lines to list.");
	else if (!p->show_all && sum->nr_shared_lines && ex->mode != STORE_MODE_TOT)
		snprintf(p->hint[n++], sizeof(p->hint[0]), "No lines with %s in mode %s (d cycles the mode): a shows all %" PRIu64 " lines.",
			 ex->mode == STORE_MODE_PEER ? "peer snoops" : ex->mode == STORE_MODE_LCL ? "local HITM" : "remote HITM",
			 view_mode_name(ex->mode), sum->nr_lines);
	else if (!p->show_all && sum->nr_lines)
		snprintf(p->hint[n++], sizeof(p->hint[0]), "No shared lines (no HITM or peer): a shows all %" PRIu64 " lines.",
			 sum->nr_lines);
	else
		snprintf(p->hint[n++], sizeof(p->hint[0]), "No cache lines.");
	if (n && p->hint[0][0] == 'N' && !strncmp(p->hint[0], "Nothing under", 13))
		return;   /* the header's totals are the filter's: nothing more to say */
	if (store_query_events(ex->st, &evs, &nev, &err) == 0)
		for (size_t i = 0; i < nev && len < sizeof(evtext); i++)
			len += (size_t)snprintf(evtext + len, sizeof(evtext) - len, "%s%s %" PRIu64, i ? ", " : "",
						evs[i].name, evs[i].nr_samples);
	free(evs);
	snprintf(p->hint[n++], sizeof(p->hint[0]), "The session has %" PRIu64 " samples%s%s%s.", sum->nr_samples,
		 evtext[0] ? " (" : "", evtext, evtext[0] ? ")" : "");
	if (sum->lock_waits)
		snprintf(p->hint[n++], sizeof(p->hint[0]), "%" PRIu64 " lock waits (%.3f ms): t shows them over time.",
			 sum->lock_waits, (double)sum->lock_wait_ns / 1e6);
	if (sum->nr_samples && !mem)
		snprintf(p->hint[n++], sizeof(p->hint[0]),
			 "Software events (such as cpu-clock or page-faults): t shows them over time.");
	else if (sum->nr_samples)
		snprintf(p->hint[n++], sizeof(p->hint[0]), "t shows the samples over time, c per CPU and node.");
}

static int lines_open(struct view *v, struct c2c_error *err)
{
	struct lines_priv *p = v->priv;
	const struct store_summary *sum = &v->ex->summary;
	int r;

	/* Lock waits may appear later (live): the columns follow, once (a
	 * filter hiding them does not switch back), and a session of lock
	 * waits alone is sorted by wait time. */
	if (!v->table.cols || (!p->locks && sum->lock_waits > 0)) {
		bool lock_only = sum->lock_waits && !view_hitm(&sum->total, STORE_MODE_TOT) &&
				 !c2c_stores_total(&sum->total);
		p->locks = sum->lock_waits > 0;
		p->lock_only = lock_only && !c2c_total_loads(&sum->total);
		lines_set_columns(v, p->set, lock_only ? LC_LOCK : LC_SHARE, true);
	}
	if (!p->verdicts_done && !p->job) {
		/* Once per view, in the background: the verdicts read every
		 * sample, and the first screen must not wait for them. */
		struct verdict_args *a = calloc(1, sizeof(*a));
		if (!a)
			return c2c_error_set(err, -ENOMEM, "out of memory");
		p->job = view_job_start(v->ex, verdict_query, a, verdict_args_free, err);
		if (!p->job)
			return -1;
	}
	p->all_valid = false;
	view_table_layout(v);
	r = lines_fetch(v, err);
	if (r == 0)
		lines_hint(v);
	return r;
}

static void lines_close(struct view *v)
{
	struct lines_priv *p = v->priv;

	free(p->rows);
	p->rows = NULL;
	free(p->all);
	p->all = NULL;
	free(p->seq);
	p->seq = NULL;
	free(p->verdicts);
	p->verdicts = NULL;
	p->verdicts_done = false;
	view_job_release(p->job);
	p->job = NULL;
}

static const struct store_line_row *lines_row(struct view *v, long row)
{
	struct lines_priv *p = v->priv;

	if (row < (long)p->first || row >= (long)(p->first + p->nrows))
		return NULL;
	return &p->rows[row - (long)p->first];
}

/* The Data object cell, for drawing and for search (which matches what
 * the screen shows). */
static void object_text(const struct store_line_row *r, char *buf, size_t size)
{
	if (r->symbol[0] && (!r->dso[0] || !strcmp(r->dso, r->symbol)))
		snprintf(buf, size, "%s+0x%" PRIx64, r->symbol, r->symbol_offset);
	else if (r->symbol[0])
		snprintf(buf, size, "%s+0x%" PRIx64 " %s", r->symbol, r->symbol_offset, r->dso);
	else if (r->dso[0])
		snprintf(buf, size, "[%s]", r->dso);
	else
		snprintf(buf, size, "-");
}

static void lines_draw_row(struct view *v, long row, int selected)
{
	struct explorer *ex = v->ex;
	const struct store_line_row *r = lines_row(v, row);
	struct lines_priv *p = v->priv;
	const struct typeinfo_verdict_row *vr;
	struct table_cell cells[LC__COUNT], ordered[LC__COUNT];
	char b[LC__COUNT][300];
	uint64_t tot = mode_total(ex), hitm;
	double share;
	int y = v->y + 1 + (int)(row - v->table.top);

	memset(cells, 0, sizeof(cells));
	if (!r) {
		term_blank(y, 0, v->w, TH_NORMAL);
		return;
	}
	hitm = view_hitm(&r->stats, ex->mode);
	share = tot ? (double)hitm / (double)tot : 0.0;
	snprintf(b[LC_RANK], sizeof(b[0]), "%" PRIu64, r->rank);
	snprintf(b[LC_ADDR], sizeof(b[0]), "0x%" PRIx64, c2c_line_display(r->addr, v->ex->cacheline));
	text_pct(b[LC_SHARE], sizeof(b[0]), (double)hitm, (double)tot);
	text_count(b[LC_HITM], sizeof(b[0]), hitm, 5);
	text_count(b[LC_LCL], sizeof(b[0]), r->stats.lcl_hitm, 5);
	text_count(b[LC_RMT], sizeof(b[0]), r->stats.rmt_hitm, 5);
	text_count(b[LC_PEER], sizeof(b[0]), r->stats.tot_peer, 6);
	text_count(b[LC_LOADS], sizeof(b[0]), c2c_total_loads(&r->stats), 6);
	/* perf's Stores (all stores), as report prints it */
	text_count(b[LC_STORES], sizeof(b[0]), r->stats.store, 6);
	snprintf(b[LC_LAT], sizeof(b[0]), "%.0f", store_lat_avg(&r->lat, STORE_LAT_LOAD));
	if (r->home_node >= 0)
		snprintf(b[LC_NODE], sizeof(b[0]), "%d", r->home_node);
	else
		snprintf(b[LC_NODE], sizeof(b[0]), "-");
	snprintf(b[LC_CPUS], sizeof(b[0]), "%u", r->nr_cpus);
	snprintf(b[LC_THREADS], sizeof(b[0]), "%u", r->nr_threads);
	snprintf(b[LC_SITES], sizeof(b[0]), "%u", r->nr_sites);
	if (r->lock_waits) {
		snprintf(b[LC_LOCK], sizeof(b[0]), "%.3fms", (double)r->lock_wait_ns / 1e6);
		text_count(b[LC_WAITS], sizeof(b[0]), r->lock_waits, 6);
	} else {
		snprintf(b[LC_LOCK], sizeof(b[0]), "-");
		snprintf(b[LC_WAITS], sizeof(b[0]), "-");
	}
	/* perf's columns, as report_line_cols takes them from the same row */
	text_count(b[LC_FB], sizeof(b[0]), r->stats.ld_fbhit, 5);
	text_count(b[LC_L1], sizeof(b[0]), r->stats.ld_l1hit, 5);
	text_count(b[LC_L2], sizeof(b[0]), r->stats.ld_l2hit, 5);
	text_count(b[LC_LCLHIT], sizeof(b[0]), r->stats.ld_llchit, 6);
	text_count(b[LC_LCLHITM], sizeof(b[0]), r->stats.lcl_hitm, 7);
	text_count(b[LC_RMTHIT], sizeof(b[0]), r->stats.rmt_hit, 6);
	text_count(b[LC_RMTHITM], sizeof(b[0]), r->stats.rmt_hitm, 7);
	text_count(b[LC_DRAM_LCL], sizeof(b[0]), r->stats.lcl_dram, 7);
	text_count(b[LC_DRAM_RMT], sizeof(b[0]), r->stats.rmt_dram, 7);
	text_count(b[LC_LCL_PEER], sizeof(b[0]), r->stats.lcl_peer, 7);
	text_count(b[LC_RMT_PEER], sizeof(b[0]), r->stats.rmt_peer, 7);
	text_count(b[LC_RECORDS], sizeof(b[0]), c2c_total_records(&r->stats), 7);
	text_count(b[LC_ST_L1HIT], sizeof(b[0]), r->stats.st_l1hit, 6);
	text_count(b[LC_ST_L1MISS], sizeof(b[0]), r->stats.st_l1miss, 6);
	text_count(b[LC_ST_NA], sizeof(b[0]), r->stats.st_na, 6);
	if (p->seq && row - (long)p->first < (long)p->nrows) {
		const struct store_phys *ph = &p->seq[row - (long)p->first].phys;
		text_count(b[LC_PA_CNT], sizeof(b[0]), ph->pa_cnt, 6);
		/* "N/A" with no memory topology, as perf prints it */
		if (ph->node_mask)
			c2c_bitmap_format(&ph->node_mask, 64, b[LC_PNODE], sizeof(b[0]));
		else
			snprintf(b[LC_PNODE], sizeof(b[0]), "N/A");
	} else {
		snprintf(b[LC_PA_CNT], sizeof(b[0]), "-");
		snprintf(b[LC_PNODE], sizeof(b[0]), "-");
	}
	vr = verdict_of(p, r->addr);
	snprintf(b[LC_VERDICT], sizeof(b[0]), "%s", !p->verdicts_done ? "..." :
		 !vr || vr->v.verdict == LAYOUT_NONE ? "-" : layout_verdict_key(vr->v.verdict));
	object_text(r, b[LC_OBJECT], sizeof(b[0]));
	b[LC_BAR][0] = 0;
	for (int i = 0; i < LC__COUNT; i++)
		cells[i].text = b[i];
	cells[LC_BAR].bar = share;
	cells[LC_BAR].heat = share;
	cells[LC_SHARE].elem = theme_heat(share);
	if (vr && vr->v.verdict == LAYOUT_FALSE)
		cells[LC_VERDICT].elem = TH_HEAT4;
	for (int i = 0; i < p->ncols; i++)
		ordered[i] = cells[p->order[i]];
	table_draw_row(&v->table, y, ordered, selected);
}

static void lines_draw(struct view *v)
{
	struct lines_priv *p = v->priv;

	view_table_draw(v);
	if (p->total)
		return;
	for (int i = 0; i < 4 && p->hint[i][0] && 2 + i < v->h; i++)
		term_field(v->y + 2 + i, 2, v->w - 2, i ? TH_NORMAL : TH_HEADER_LABEL, p->hint[i]);
}

static void lines_title(struct view *v, char *buf, size_t size)
{
	struct lines_priv *p = v->priv;
	const struct table *t = &v->table;

	if (!p->total) {
		snprintf(buf, size, "%s: none [%s]  (sort: %s %s)",
			 p->show_all ? "All cache lines" : p->locks ? "Hot cache lines and locks" : "Hot cache lines",
			 lines_sets[p->set].name,
			 t->sort_col >= 0 ? t->cols[t->sort_col].title : "-", t->sort_desc ? "desc" : "asc");
		return;
	}
	if (p->lock_only) {   /* no HITM to share */
		snprintf(buf, size, "Cache lines holding locks: %" PRIu64 " shown  (sort: %s %s)", p->total,
			 t->sort_col >= 0 ? t->cols[t->sort_col].title : "-", t->sort_desc ? "desc" : "asc");
		return;
	}
	/* the set's name early: a narrow title is clipped at its end */
	snprintf(buf, size, "%s: %" PRIu64 " shown [%s], share of %s%s  (sort: %s %s)",
		 p->show_all ? "All cache lines" : p->locks ? "Hot cache lines and locks" : "Hot cache lines",
		 p->total, lines_sets[p->set].name,
		 v->ex->mode == STORE_MODE_PEER ? "" : view_mode_name(v->ex->mode),
		 v->ex->mode == STORE_MODE_PEER ? "peer snoops" : " HITM",
		 t->sort_col >= 0 ? t->cols[t->sort_col].title : "-", t->sort_desc ? "desc" : "asc");
}

static enum view_result lines_action(struct view *v, enum action a, struct view_reply *reply)
{
	const struct store_line_row *r = lines_row(v, v->table.cursor);

	if (a == ACT_SHOW_ALL) {
		struct lines_priv *p = v->priv;
		p->show_all = !p->show_all;
		table_goto(&v->table, 0);
		view_reply_message(reply, 0, "%s", p->show_all ? "all lines (a: shared lines only)" : "shared lines only (a: all lines)");
		return VIEW_HANDLED | VIEW_REQUERY;
	}
	if (a == ACT_COLSET || a == ACT_COLSET_PREV) {
		struct lines_priv *p = v->priv;
		const struct table *t = &v->table;
		int set = (p->set + (a == ACT_COLSET ? 1 : NSETS - 1)) % NSETS;

		if (p->lock_only) {
			view_reply_message(reply, 1, "no memory columns: the session has lock waits only");
			return VIEW_HANDLED;
		}
		long cursor = t->cursor, top = t->top, nrows = t->nrows;

		lines_set_columns(v, set, t->sort_col >= 0 ? p->order[t->sort_col] : LC_SHARE, t->sort_desc);
		table_set_rows(&v->table, nrows);
		table_restore(&v->table, cursor, top);
		view_table_layout(v);
		view_reply_message(reply, 0, "columns: %s (v: %s)", lines_sets[set].name,
				   lines_sets[(set + 1) % NSETS].name);
		/* a sort the new set has no column for went back to Share */
		return VIEW_HANDLED | VIEW_REQUERY;
	}
	if (a == ACT_LOCKS) {
		if (!((struct lines_priv *)v->priv)->locks) {
			view_reply_message(reply, 1, "no lock waits in this session");
			return VIEW_HANDLED;
		}
		view_reply_push(reply, VK_LOCKS)->line = STORE_ALL_LINES;
		return VIEW_HANDLED | VIEW_PUSH;
	}
	if (a != ACT_ENTER)
		return VIEW_UNHANDLED;
	if (!r)
		return VIEW_HANDLED;
	view_reply_push(reply, VK_LINE)->line = r->addr;
	return VIEW_HANDLED | VIEW_PUSH;
}

/* An address inside the line (0x...), or a substring of the shown address
 * or data object. */
static int row_matches(const struct view *v, const char *text, const struct store_line_row *r)
{
	char shown[300];

	if (view_match(text, NULL, r->addr, v->ex->cacheline))
		return 1;
	snprintf(shown, sizeof(shown), "0x%" PRIx64, c2c_line_display(r->addr, v->ex->cacheline));
	if (view_contains(shown, text))
		return 1;
	object_text(r, shown, sizeof(shown));
	return view_contains(shown, text);
}

/* Scans the sorted table in chunks from the row after the cursor (before
 * it for dir -1), wrapping once: the order searched is the order seen. */
static int lines_search(struct view *v, const char *text, int dir, struct c2c_error *err)
{
	const long chunk = 512;
	struct store_lines_query q;
	long n = v->table.nrows, start = v->table.cursor, scanned = 0;
	struct lines_priv *p = v->priv;

	if (verdict_sorted(v)) {
		/* The table is in memory, in the order seen. */
		if (!p->all_valid && lines_fetch_all(v, err) < 0)
			return -1;
		for (long k = 1; k <= (long)p->nall; k++) {
			long row = ((start + dir * k) % (long)p->nall + (long)p->nall) % (long)p->nall;
			if (row_matches(v, text, &p->all[row])) {
				table_goto(&v->table, row);
				if (table_page_changed(&v->table) && lines_fetch(v, err) < 0)
					return -1;
				return 1;
			}
		}
		return 0;
	}
	while (scanned < n) {
		struct store_line_row *rows = NULL;
		size_t got = 0;
		uint64_t total = 0;
		long lo, len;
		int r;

		if (dir > 0) {
			lo = (start + 1 + scanned) % n;
			len = chunk;
			if (len > n - lo)
				len = n - lo;
		} else {
			long hi = (((start - 1 - scanned) % n) + n) % n;
			lo = hi - chunk + 1 < 0 ? 0 : hi - chunk + 1;
			len = hi - lo + 1;
		}
		if (len > n - scanned) {
			if (dir < 0)
				lo += len - (n - scanned);
			len = n - scanned;
		}
		lines_query(v, &q, (uint64_t)lo, (uint64_t)len);
		r = store_query_lines(v->ex->st, &q, &rows, &got, &total, err);
		if (r < 0)
			return r;
		for (size_t k = 0; k < got; k++) {
			size_t i = dir > 0 ? k : got - 1 - k;
			if (row_matches(v, text, &rows[i])) {
				free(rows);
				table_goto(&v->table, lo + (long)i);
				if (table_page_changed(&v->table) && lines_fetch(v, err) < 0)
					return -1;
				return 1;
			}
		}
		free(rows);
		if (got == 0)
			break;
		scanned += (long)got;
	}
	return 0;
}

const struct view_ops view_lines_ops = {
	.name = "lines",
	.priv_size = sizeof(struct lines_priv),
	.open = lines_open,
	.close = lines_close,
	.draw = lines_draw,
	.draw_row = lines_draw_row,
	.fetch = lines_fetch,
	.action = lines_action,
	.search = lines_search,
	.title = lines_title,
	.wake = lines_wake,
};
