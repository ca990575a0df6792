/* The view framework shared by the explorer's views (tui/view_*.c): the
 * query value a view is rebuilt from, the ops table each view exports, the
 * explorer state views read (store, display mode, filters), and the calls
 * a view makes (push a child view, show a message).
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

/* The small value a view is rebuilt from. Filters, display mode and the
 * time window are the explorer's (they apply to every view at once). */
struct view_query {
	const struct view_ops *ops;
	uint64_t line;           /* cache line address (line, cpus, timeline views) */
	int64_t site;            /* code site id (site view) */
	int32_t cpu;             /* -1 none */
	bool words8;             /* line view: per 8-byte word */
	void *arg;               /* opaque, for views added by other commands */
};

enum view_result {
	VIEW_UNHANDLED = 0,      /* the loop applies the global meaning */
	VIEW_HANDLED = 1,
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
	/* View-specific meaning of an action (enum action). */
	enum view_result (*action)(struct view *v, enum action a);
	/* Moves the cursor to the next (dir 1) or previous (-1) row matching
	 * text after the cursor. 1 found, 0 not found, negative error. */
	int (*search)(struct view *v, const char *text, int dir, struct c2c_error *err);
	/* The view's title line (what it shows, how many rows, sort). */
	void (*title)(struct view *v, char *buf, size_t size);
	/* Mouse click on body row y (0-based in the body). */
	void (*click)(struct view *v, int y, int x, int dbl);
	/* Work the view started in the background finished (view_wake_fd was
	 * written): collect it. Called for every view on the stack. */
	void (*wake)(struct view *v);
};

struct view {
	struct view_query q;
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
	int wake[2];                      /* background work done: write wake[1] */
};

enum explorer_dirty {
	DIRTY_ALL = 1,
	DIRTY_BODY = 2,
	DIRTY_ROWS = 4,      /* only the old and new cursor rows */
	DIRTY_STATUS = 8,
	DIRTY_HEADER = 16,
};

/* The views of the explorer (one file each). */
extern const struct view_ops view_lines_ops;
extern const struct view_ops view_line_ops;
extern const struct view_ops view_site_ops;
extern const struct view_ops view_cpus_ops;
extern const struct view_ops view_timeline_ops;
extern const struct view_ops view_help_ops;

/* Pushes a view built from q above the current one; on failure the
 * message line says why and the stack is unchanged. */
int view_push(struct explorer *ex, const struct view_query *q);
/* The view on top. */
struct view *view_top(struct explorer *ex);
/* The view below v on the stack, or NULL. */
struct view *view_parent(struct explorer *ex, const struct view *v);
/* A one-line message in the status line until the next key. */
void view_message(struct explorer *ex, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Data, filters or mode changed: every view re-runs its queries when shown. */
void view_invalidate(struct explorer *ex);

/* Parses the filter language ("sym:NAME cpu:N node:N pid:N tid:N hitm:N";
 * a bare word is a symbol; empty text: no filter) into *f, keeping f's time
 * window. The symbol is copied into sym (f->symbol points there). On error
 * returns -EINVAL with one sentence in msg and leaves *f alone. */
int view_filter_parse(const char *text, struct store_filter *f, char *sym, size_t sym_size, char *msg,
		      size_t msg_size);

/* A view changed ex->filter: reload the summary, re-run every view's
 * queries, pop `pop` views, and say `what` in the status line. */
void view_filter_changed(struct explorer *ex, int pop, const char *what);

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
/* Whether text matches a symbol/name (case-insensitive substring) or, for
 * "0x..." text, whether addr <= value < addr + size. */
bool view_match(const char *text, const char *name, uint64_t addr, uint64_t size);

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
