/* The view framework shared by the explorer's views
 * (tui/explorer/view_*.c): the query value a view is rebuilt from, the ops
 * table each view exports, the explorer state views read (store, display
 * mode, filters), what a view's action returns to the loop (enum
 * view_result flags and a struct view_reply: a view never pushes, pops or
 * changes filters itself), and the services a view may call
 * (view_service.c: messages, timing, the wake fd). Views name each other
 * by kind (enum view_kind), never by ops table: only the loop maps a kind
 * to its table (view_registry.c).
 *
 * A view owns a body area of the screen (rows [y, y+h), all columns); the
 * summary header above and the status line below belong to the loop
 * (view_stack.c). Views draw through term.h and widget.h only. */
#ifndef C2C_VIEW_H
#define C2C_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collector/base/error.h"
#include "store/store.h"
#include "tui/explorer/keymap.h"
#include "tui/explorer/tui.h"
#include "tui/term/widget.h"

struct view;
struct explorer;

/* Every kind of view and its ops table, one list: it generates enum
 * view_kind here and the kind -> table map in view_registry.c. */
#define VIEW_KINDS(KIND) \
	KIND(LINES, view_lines_ops) \
	KIND(LINE, view_line_ops) \
	KIND(SITE, view_site_ops) \
	KIND(CPUS, view_cpus_ops) \
	KIND(TIMELINE, view_timeline_ops) \
	KIND(THREADS, view_threads_ops) \
	KIND(HELP, view_help_ops) \
	KIND(LAYOUT, view_layout_ops) \
	KIND(ASSIGN, view_assign_ops) \
	KIND(DIFF, view_diff_ops) \
	KIND(DIFF_LAYOUT, view_diff_layout_ops) \
	KIND(DIFF_FUNCS, view_diff_funcs_ops) \
	KIND(LOCKS, view_locks_ops) \
	KIND(LOCK, view_lock_ops) \
	KIND(LOCK_STACK, view_lock_stack_ops)

#define VIEW_KIND_ENUM(kind, ops) VK_##kind,
enum view_kind {
	VK_NONE = 0,             /* a view another command brought (tui_options.first_view) */
	VIEW_KINDS(VIEW_KIND_ENUM)
	VK__COUNT
};
#undef VIEW_KIND_ENUM

/* The small value a view is rebuilt from. Filters, display mode and the
 * time window are the explorer's (they apply to every view at once). */
struct view_query {
	enum view_kind kind;
	uint64_t line;           /* cache line address (line, cpus, timeline views) */
	int64_t site;            /* code site id (site view) */
	int32_t cpu;             /* -1 none */
	bool words8;             /* line view: per 8-byte word */
	void *arg;               /* opaque, for views added by other commands */
};

/* What a view's action (or click) asks of the loop, htop's HandlerResult:
 * bits, acted on in this order: redraw, requery, filter, pop, reload,
 * push, then the reply's message. */
enum view_result {
	VIEW_UNHANDLED = 0,      /* the loop applies the global meaning */
	VIEW_HANDLED = 1 << 0,   /* no global meaning */
	VIEW_REDRAW = 1 << 1,    /* repaint the body (title, tables) */
	VIEW_REQUERY = 1 << 2,   /* re-run this view's queries when next shown */
	VIEW_FILTER = 1 << 3,    /* reply.filter is every view's filter now (implies RELOAD) */
	VIEW_POP = 1 << 4,       /* back to the view below this one */
	VIEW_RELOAD = 1 << 5,    /* the session changed: reload the summary, every view re-runs */
	VIEW_PUSH = 1 << 6,      /* open reply.push above the current view */
};

/* The values that go with the flags; the loop clears it before each call. */
struct view_reply {
	struct view_query push;           /* VIEW_PUSH: the view to open */
	struct store_filter filter;       /* VIEW_FILTER: starts as the current filter */
	char message[256];                /* shown in the status line when set */
	int message_error;
};

struct view_ops {
	const char *name;        /* keymap scope and status name ("lines") */
	size_t priv_size;        /* zeroed private state, freed by the stack */
	/* Runs the view's queries. Called on push and again on refresh (new
	 * data, filter or mode change); must keep cursor positions valid. */
	int (*open)(struct view *v, struct c2c_error *err);
	/* Frees what open allocated (priv itself is freed by the stack). */
	void (*close)(struct view *v);
	/* Draws the whole body area. */
	void (*draw)(struct view *v);
	/* Repaints one row of the main table (cursor moves); NULL: draw(). */
	void (*draw_row)(struct view *v, long row, int selected);
	/* Lays out the body after a resize; NULL: the main table fills it. */
	void (*layout)(struct view *v);
	/* Fetches the main table's visible rows after a scroll; may be NULL. */
	int (*fetch)(struct view *v, struct c2c_error *err);
	/* View-specific meaning of an action (enum action); what it asks of
	 * the loop goes in the result flags and *reply. */
	enum view_result (*action)(struct view *v, enum action a, struct view_reply *reply);
	/* Moves the cursor to the next (dir 1) or previous (-1) row matching
	 * text after the cursor. 1 found, 0 not found, negative error. */
	int (*search)(struct view *v, const char *text, int dir, struct c2c_error *err);
	/* The view's title line (what it shows, how many rows, sort). */
	void (*title)(struct view *v, char *buf, size_t size);
	/* Mouse click on body row y (0-based in the body); as action. */
	enum view_result (*click)(struct view *v, int y, int x, int dbl, struct view_reply *reply);
	/* Work the view started in the background finished (view_wake_fd was
	 * written): collect it. Called for every view on the stack. */
	void (*wake)(struct view *v);
};

struct view {
	struct view_query q;
	const struct view_ops *ops;
	struct explorer *ex;
	void *priv;
	struct table table;      /* the main table (views without one ignore it) */
	int y, h, w;             /* body area */
	uint64_t gen;            /* explorer data generation of the last open */
};

#define VIEW_STACK_MAX 32

/* The explorer: what the loop owns and views read. */
struct explorer {
	struct store *st;
	const struct tui_options *opt;
	struct view stack[VIEW_STACK_MAX];
	int depth;
	enum store_mode mode;
	struct store_filter filter;       /* every view's filter */
	char filter_symbol[128];          /* filter.symbol points here when set */
	uint64_t gen;                     /* bumped when data/filter/mode change */
	struct store_summary summary;
	uint64_t time_base;               /* first sample of the whole session */
	char host[128], cpu_desc[128], os_release[96], events[256];
	char status_line[700];       /* the session is not complete: why ("" when it is) */
	uint32_t cacheline;
	int collecting;
	int rows, cols;
	int header_h;
	struct prompt prompt;
	char search[256];
	int picking;                      /* choosing a sort column */
	char message[256];
	int message_error;
	int dirty;                        /* enum explorer_dirty bits */
	long keys;                        /* input events handled */
	int quit;
	uint64_t peek_next_ms;            /* explorer_poll reads keys again from then */
	int wake[2];                      /* background work done: write wake[1] */
};

enum explorer_dirty {
	DIRTY_ALL = 1,
	DIRTY_BODY = 2,
	DIRTY_ROWS = 4,      /* only the old and new cursor rows */
	DIRTY_STATUS = 8,
	DIRTY_HEADER = 16,
};

/* Services for views (view_service.c; it depends on no view). */
/* A one-line message in the status line until the next key. */
void view_message(struct explorer *ex, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same, from an action: shown once the loop acted on the flags. */
void view_reply_message(struct view_reply *r, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Clears r->push for a view of this kind (no CPU) and returns it to fill
 * in; the action then returns VIEW_PUSH. */
struct view_query *view_reply_push(struct view_reply *r, enum view_kind kind);

/* Parses the filter language ("sym:NAME cpu:N node:N pid:N tid:N hitm:N";
 * a bare word is a symbol; empty text: no filter) into *f, keeping f's time
 * window. The symbol is copied into sym (f->symbol points there). On error
 * returns -EINVAL with one sentence in msg and leaves *f alone. */
int view_filter_parse(const char *text, struct store_filter *f, char *sym, size_t sym_size, char *msg,
		      size_t msg_size);

/* The fd a background job writes one byte to when it is done (any thread);
 * the loop then calls every view's ops->wake. */
int view_wake_fd(struct explorer *ex);

/* Background queries (view_job.c). fn(st, arg, err) runs in a thread on its
 * own read-only handle of the session; arg carries its inputs and outputs
 * and is freed with free_arg by whoever ends the job. */
struct view_job;
struct view_job *view_job_start(struct explorer *ex, int (*fn)(struct store *st, void *arg, struct c2c_error *err),
				void *arg, void (*free_arg)(void *arg), struct c2c_error *err);
/* 1 once fn returned (then arg holds its outputs). */
int view_job_done(struct view_job *j);
void *view_job_arg(struct view_job *j);
/* fn's return value (err filled when negative); *ms: time since the start. */
int view_job_result(struct view_job *j, struct c2c_error *err, double *ms);
/* Done: frees the job and arg. Running: abandons it (the thread frees). */
void view_job_release(struct view_job *j);
/* Waits up to timeout_ms for every job thread (abandoned ones too) to
 * close its handle on the session; the explorer calls it when it ends. */
void view_jobs_wait(int timeout_ms);
/* For bench timing: logs "NAME_ms=X" to C2CTUI_TIMING. */
void view_timing(const char *name, double ms);

/* Helpers for views with a main table. */
/* Sets the body area and lays out the table under a one-row heading. */
void view_table_layout(struct view *v);
/* Draws the heading and every visible row with ops->draw_row. */
void view_table_draw(struct view *v);
/* Sorts rows (n of elem bytes) by comparing their indices with cmp_idx(ctx),
 * so ties keep the given order whatever the direction; -ENOMEM. */
int view_sort_rows(void **rows, size_t n, size_t elem, int (*cmp_idx)(const void *, const void *, void *),
		   void *ctx);
/* Whether text matches a symbol/name (case-insensitive substring) or, for
 * "0x..." text, whether addr <= value < addr + size. */
bool view_match(const char *text, const char *name, uint64_t addr, uint64_t size);
/* Whether text is a substring (any case) of what a cell shows, hex or not:
 * search finds what the screen says ("anon+0x41" in "//anon+0x41a40"). */
bool view_contains(const char *shown, const char *text);

/* Summary header (view_summary.c). */
int summary_load(struct explorer *ex, struct c2c_error *err);
int summary_height(const struct explorer *ex);
void summary_draw(struct explorer *ex);
/* The active filters as "sym:x cpu:3" ("none" when there are none). */
void summary_filter_text(const struct explorer *ex, char *buf, size_t size);

/* Number formatting shared by views. */
uint64_t view_hitm(const struct c2c_stats *s, enum store_mode mode);
const char *view_mode_name(enum store_mode mode);

#endif /* C2C_VIEW_H */
