/* The terminal: start/stop, signals, input events and drawing primitives
 * over the whole screen. The only module that talks to curses; views and
 * widgets draw with these calls and name theme elements, not colours.
 * Coordinates are screen rows/columns from 0; text is UTF-8 and is clipped
 * to a width in display columns. */
#ifndef C2C_TERM_H
#define C2C_TERM_H

#include "tui/term/theme.h"

struct c2c_error;

/* Keys: printable characters are their Unicode code points; the rest are
 * above the Unicode range. Control keys are TK_CTRL('x'). */
enum term_key {
	TK_NONE = 0,
	TK_UP = 0x110000,
	TK_DOWN,
	TK_LEFT,
	TK_RIGHT,
	TK_PGUP,
	TK_PGDN,
	TK_HOME,
	TK_END,
	TK_ENTER,
	TK_ESC,
	TK_BACKSPACE,
	TK_DELETE,
	TK_TAB,
	TK_BTAB,
	TK_F1,
	TK_RESIZE,
	TK_MOUSE,
};
static inline int TK_CTRL(int c) { return c & 0x1f; }

enum term_mouse {
	TM_CLICK = 1,
	TM_DOUBLE,
	TM_WHEEL_UP,
	TM_WHEEL_DOWN,
};

struct term_event {
	int key;             /* enum term_key or a code point */
	int mouse;           /* enum term_mouse when key == TK_MOUSE */
	int y, x;            /* mouse position */
};

/* What term_wait saw. */
enum term_wake {
	TW_KEY = 1,          /* input may be ready */
	TW_FD = 2,           /* the extra fd is readable */
	TW_SIGNAL = 4,       /* a quit signal (SIGINT/SIGTERM/SIGHUP) arrived */
	TW_TIMEOUT = 8,
	TW_WAKE = 16,        /* the wake fd is readable (drained) */
};

/* Starts curses on the controlling terminal, installs the signal handlers
 * (quit signals set a flag; fatal ones restore the terminal first) and an
 * atexit hook. Fails with a sentence when stdin/stdout is not a terminal. */
int term_init(struct c2c_error *err);
/* Restores the terminal; safe to call more than once and when not started. */
void term_fini(void);
int term_active(void);

void term_size(int *rows, int *cols);
int term_utf8(void);     /* the locale's codeset is UTF-8 */
int term_color(void);    /* colours in use (0: monochrome) */

/* Next input event without blocking: 1 and *ev filled, or 0 when none. */
int term_read(struct term_event *ev);
/* For a loop busy in a long computation on its own thread: reads the input
 * that arrived, without painting anything, and keeps it for term_read (in
 * order; term_wait then returns at once). Copies up to max of the kept
 * events into evs and returns how many it copied. */
int term_peek(struct term_event *evs, int max);
/* Waits for input, a quit signal, extra_fd or wake_fd (each when >= 0)
 * or timeout_ms. wake_fd is a pipe's read end that term_wait drains. */
int term_wait(int extra_fd, int wake_fd, int timeout_ms);
/* The quit signal that arrived since start (SIGINT, SIGTERM, SIGHUP), or 0. */
int term_quit_signal(void);

/* Drawing (to the curses buffer; term_flush sends the differences). */
void term_clear(void);
/* Fills n columns at (y, x) with spaces in style e. */
void term_blank(int y, int x, int n, enum theme_elem e);
/* Draws s clipped to width columns; when it does not fit the last column
 * shows a truncation marker. Returns the columns drawn. */
int term_text(int y, int x, int width, enum theme_elem e, const char *s);
/* Like term_text, then pads with spaces to width. */
void term_field(int y, int x, int width, enum theme_elem e, const char *s);
int term_textf(int y, int x, int width, enum theme_elem e, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Changes the style of n columns at (y, x) without changing the text. */
void term_restyle(int y, int x, int n, enum theme_elem e);
/* Forces a full repaint on the next flush (after a resize or a message). */
void term_invalidate(void);
void term_flush(void);

#endif /* C2C_TERM_H */
