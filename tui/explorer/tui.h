/* The explorer's public entry: one event loop over a session store, used by
 * `open`, by `live` (with a refresh hook while the collector writes) and by
 * `diff` (with its own first view). Everything else in the TUI is private to
 * tui/ (view.h, term.h, widget.h, keymap.h, theme.h). */
#ifndef C2C_TUI_H
#define C2C_TUI_H

struct store;
struct c2c_error;
struct view_ops;

/* What on_tick returns. */
enum tui_tick {
	TUI_TICK_IDLE = 0,      /* nothing new */
	TUI_TICK_CHANGED = 1,   /* the store has new data: views re-run their queries */
	TUI_TICK_FINISHED = 2,  /* collection ended: views refresh, "collecting" goes away */
};

struct tui_options {
	const char *title;      /* shown in the header (e.g. the session path); NULL: none */
	int collecting;         /* nonzero: the status line says "collecting" until on_tick
	                           returns TUI_TICK_FINISHED */
	void *ctx;              /* handed to the hooks */
	/* Called once at start: an fd to watch beside the keyboard (readable ->
	 * on_tick is called at once), or -1 for none. May be NULL. */
	int (*poll_fd)(void *ctx);
	/* Called at least once a second (and when poll_fd's fd is readable).
	 * Returns enum tui_tick, or a negative code to leave the loop:
	 * tui_explore then returns that code. May be NULL. */
	int (*on_tick)(void *ctx);
	/* The view the stack starts with; NULL: the hot lines table. first_arg
	 * is handed to it in its query (struct view_query.arg), e.g. the second
	 * store of a diff. */
	const struct view_ops *first_view;
	void *first_arg;
	int mode;               /* initial display mode (enum store_mode; 0: tot) */
	const char *symfs;      /* binaries and sources looked for under it first (--symfs); NULL: none */
	const char *vmlinux;    /* -k: the kernel image for type attribution (NULL: the import's) */
	struct c2c_error *err;  /* filled when tui_explore fails; may be NULL */
};

/* Takes over the terminal (stdin/stdout must be a terminal), runs until the
 * user quits (q) or on_tick asks to stop, restores the terminal on every
 * exit path (also on SIGINT/SIGTERM/SIGHUP and fatal signals). Returns 0 on
 * a normal quit, -EINTR when SIGINT/SIGTERM/SIGHUP ended it (the signal is
 * tui_quit_signal()), another negative code (with opt->err filled) on
 * failure. st is borrowed. */
int tui_explore(struct store *st, const struct tui_options *opt);

/* Marks "the process starts reading the session" for the first-screen time
 * that C2CTUI_TIMING=FILE records (bench/tui_bench.sh). Optional. */
void tui_mark_start(void);

/* The signal that ended the last tui_explore with -EINTR (0: none). */
int tui_quit_signal(void);

#endif /* C2C_TUI_H */
