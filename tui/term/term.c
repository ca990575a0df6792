/* The terminal (see term.h): curses start/stop, signals that always restore
 * the terminal, input decoding (keys, mouse, resize) and clipped drawing. */
#include "tui/term/term.h"
#include "tui/term/curses.h"
#include "tui/term/widget.h"
#include "collector/base/error.h"

#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int term_on;
static int use_utf8;
static int use_color;
static volatile sig_atomic_t quit_sig;
static int sig_pipe[2] = { -1, -1 };
static int handlers_set;
static int atexit_set;

/* Input read while the loop was busy (term_peek), for term_read. It is
 * read through a pad: wgetch on a window refreshes it first when it changed,
 * and a busy loop may be half-way through drawing stdscr; a pad never is. */
#define PENDING_MAX 64
static struct term_event pending[PENDING_MAX];
static int npending;
static WINDOW *peek_pad;

static const int quit_signals[] = { SIGINT, SIGTERM, SIGHUP };
static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };
static struct sigaction old_quit[3], old_fatal[5];

/* Quit signals only set a flag and wake the loop: curses is never called
 * from a handler for them, the loop exits and restores the terminal. */
static void on_quit_signal(int sig)
{
	int saved = errno;
	char b = 1;

	quit_sig = sig;
	if (sig_pipe[1] >= 0 && write(sig_pipe[1], &b, 1) < 0) {
		/* The pipe is full: a wake-up is already pending. */
	}
	errno = saved;
}

/* A crash must not leave the terminal in raw mode: restore it, put the
 * previous handler back (ASan's, or the default) and let the signal run
 * again there. */
static void on_fatal_signal(int sig, siginfo_t *info, void *uc)
{
	(void)uc;
	if (term_on) {
		endwin();
		term_on = 0;
	}
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		if (fatal_signals[i] == sig)
			sigaction(sig, &old_fatal[i], NULL);
	/* A fault re-executes the faulting instruction on return; a signal
	 * sent by kill() or raise() has to be raised again. */
	if (!info || info->si_code <= 0)
		raise(sig);
}

static void set_handlers(void)
{
	struct sigaction sa;

	if (handlers_set)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_quit_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < 3; i++)
		sigaction(quit_signals[i], &sa, &old_quit[i]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fatal_signal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < 5; i++)
		sigaction(fatal_signals[i], &sa, &old_fatal[i]);
	handlers_set = 1;
}

static void restore_handlers(void)
{
	if (!handlers_set)
		return;
	for (size_t i = 0; i < 3; i++)
		sigaction(quit_signals[i], &old_quit[i], NULL);
	for (size_t i = 0; i < 5; i++)
		sigaction(fatal_signals[i], &old_fatal[i], NULL);
	handlers_set = 0;
}

static void term_atexit(void)
{
	term_fini();
}

static short curses_color(short c)
{
	return c == TC_DEFAULT ? -1 : c;
}

static attr_t curses_attr(unsigned a)
{
	attr_t r = A_NORMAL;

	if (a & TA_BOLD)
		r |= A_BOLD;
	if (a & TA_REVERSE)
		r |= A_REVERSE;
	if (a & TA_UNDERLINE)
		r |= A_UNDERLINE;
	if (a & TA_DIM)
		r |= A_DIM;
	return r;
}

static attr_t elem_attr(enum theme_elem e)
{
	const struct theme_style *s = theme_style(e);

	if (!use_color)
		return curses_attr(s->mono_attr);
	return curses_attr(s->attr) | COLOR_PAIR((int)e + 1);
}

static void setup_colors(void)
{
	use_color = theme_use_color(has_colors());
	if (!use_color)
		return;
	if (start_color() == ERR) {
		use_color = 0;
		return;
	}
	use_default_colors();
	if (COLOR_PAIRS <= TH_COUNT) {
		use_color = 0;
		return;
	}
	for (int e = 0; e < TH_COUNT; e++) {
		const struct theme_style *s = theme_style((enum theme_elem)e);
		init_pair((short)(e + 1), curses_color(s->fg), curses_color(s->bg));
	}
}

int term_init(struct c2c_error *err)
{
	const char *cs;

	if (term_on)
		return 0;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return c2c_error_set(err, -ENOTTY, "the explorer needs a terminal (stdin and stdout are not one); use 'c2ctui report' for text output");
	if (sig_pipe[0] < 0) {
		if (pipe(sig_pipe) < 0)
			return c2c_error_set(err, -errno, "cannot create a pipe: %s", strerror(errno));
		for (int i = 0; i < 2; i++) {
			fcntl(sig_pipe[i], F_SETFL, fcntl(sig_pipe[i], F_GETFL) | O_NONBLOCK);
			fcntl(sig_pipe[i], F_SETFD, FD_CLOEXEC);
		}
	}
	cs = nl_langinfo(CODESET);
	use_utf8 = cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
	text_set_utf8(use_utf8);
	/* Esc must answer fast; arrow sequences arrive in one write. */
	if (!getenv("ESCDELAY"))
		set_escdelay(25);
	if (!newterm(NULL, stdout, stdin))
		return c2c_error_set(err, -ENOTTY, "cannot start the terminal (TERM=%s unknown?)",
				     getenv("TERM") ? getenv("TERM") : "");
	term_on = 1;
	set_handlers();
	if (!atexit_set) {
		atexit(term_atexit);
		atexit_set = 1;
	}
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	peek_pad = newpad(1, 1);
	if (peek_pad) {
		keypad(peek_pad, TRUE);
		nodelay(peek_pad, TRUE);
	}
	npending = 0;
	setup_colors();
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
		  | BUTTON5_PRESSED
#endif
		  , NULL);
	mouseinterval(0);
	return 0;
}

void term_fini(void)
{
	if (term_on) {
		if (peek_pad)
			delwin(peek_pad);
		peek_pad = NULL;
		npending = 0;
		curs_set(1);
		endwin();
		term_on = 0;
		fflush(stdout);
	}
	restore_handlers();
}

int term_active(void)
{
	return term_on;
}

void term_size(int *rows, int *cols)
{
	if (!term_on) {
		*rows = 24;
		*cols = 80;
		return;
	}
	*rows = LINES;
	*cols = COLS;
}

int term_utf8(void)
{
	return use_utf8;
}

int term_color(void)
{
	return use_color;
}

int term_quit_signal(void)
{
	return quit_sig;
}

/* mouseinterval(0) keeps clicks instant, so curses never pairs them:
 * a second press on the same cell within 400 ms is a double click. */
static int click_kind(int y, int x)
{
	static struct timespec last;
	static int last_y = -1, last_x = -1;
	struct timespec now;
	long ms;
	int dbl;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (now.tv_sec - last.tv_sec) * 1000 + (now.tv_nsec - last.tv_nsec) / 1000000;
	dbl = y == last_y && x == last_x && ms >= 0 && ms < 400;
	last = now;
	last_y = dbl ? -1 : y;
	last_x = dbl ? -1 : x;
	return dbl ? TM_DOUBLE : TM_CLICK;
}

static int map_key(wint_t c, int is_key, struct term_event *ev)
{
	if (!is_key) {
		switch (c) {
		case '\r':
		case '\n':
			return TK_ENTER;
		case 27:
			return TK_ESC;
		case 127:
		case 8:
			return TK_BACKSPACE;
		case '\t':
			return TK_TAB;
		default:
			return (int)c;
		}
	}
	switch (c) {
	case KEY_UP: return TK_UP;
	case KEY_DOWN: return TK_DOWN;
	case KEY_LEFT: return TK_LEFT;
	case KEY_RIGHT: return TK_RIGHT;
	case KEY_PPAGE: return TK_PGUP;
	case KEY_NPAGE: return TK_PGDN;
	case KEY_HOME: case KEY_A1: return TK_HOME;
	case KEY_END: case KEY_C1: return TK_END;
	case KEY_ENTER: return TK_ENTER;
	case KEY_BACKSPACE: return TK_BACKSPACE;
	case KEY_DC: return TK_DELETE;
	case KEY_BTAB: return TK_BTAB;
	case KEY_F(1): return TK_F1;
	case KEY_RESIZE: return TK_RESIZE;
	case KEY_MOUSE: {
		MEVENT me;
		if (getmouse(&me) != OK)
			return TK_NONE;
		ev->y = me.y;
		ev->x = me.x;
		if (me.bstate & BUTTON4_PRESSED)
			ev->mouse = TM_WHEEL_UP;
#ifdef BUTTON5_PRESSED
		else if (me.bstate & BUTTON5_PRESSED)
			ev->mouse = TM_WHEEL_DOWN;
#endif
		else if (me.bstate & BUTTON1_DOUBLE_CLICKED)
			ev->mouse = TM_DOUBLE;
		else if (me.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED))
			ev->mouse = click_kind(me.y, me.x);
		else
			return TK_NONE;
		return TK_MOUSE;
	}
	default:
		return TK_NONE;
	}
}

/* One input event from curses through w, 0 when none is ready. */
static int read_event(WINDOW *w, struct term_event *ev)
{
	wint_t c;
	int r;

	for (;;) {
		memset(ev, 0, sizeof(*ev));
		r = wget_wch(w, &c);
		if (r == ERR)
			return 0;
		ev->key = map_key(c, r == KEY_CODE_YES, ev);
		if (ev->key != TK_NONE)
			return 1;
	}
}

int term_read(struct term_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	if (!term_on)
		return 0;
	if (npending > 0) {
		*ev = pending[0];
		memmove(pending, pending + 1, (size_t)(npending - 1) * sizeof(pending[0]));
		npending--;
		return 1;
	}
	return read_event(stdscr, ev);
}

int term_peek(struct term_event *evs, int max)
{
	int n;

	if (!term_on || !peek_pad)
		return 0;
	while (npending < PENDING_MAX && read_event(peek_pad, &pending[npending]))
		npending++;
	n = npending < max ? npending : max;
	memcpy(evs, pending, (size_t)(n > 0 ? n : 0) * sizeof(pending[0]));
	return n;
}

int term_wait(int extra_fd, int wake_fd, int timeout_ms)
{
	struct pollfd pfd[4];
	int n = 0, r, wake = 0, extra_i = -1, wake_i = -1;
	char buf[64];

	if (quit_sig)
		return TW_SIGNAL;
	/* Keys read while the loop was busy wait for term_read. */
	if (npending > 0)
		return TW_KEY;
	pfd[n++] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
	pfd[n++] = (struct pollfd){ .fd = sig_pipe[0], .events = POLLIN };
	if (extra_fd >= 0) {
		extra_i = n;
		pfd[n++] = (struct pollfd){ .fd = extra_fd, .events = POLLIN };
	}
	if (wake_fd >= 0) {
		wake_i = n;
		pfd[n++] = (struct pollfd){ .fd = wake_fd, .events = POLLIN };
	}
	r = poll(pfd, (nfds_t)n, timeout_ms);
	if (r < 0)
		/* EINTR: SIGWINCH lands here; curses reports KEY_RESIZE next. */
		return quit_sig ? TW_SIGNAL : TW_KEY;
	if (r == 0)
		return TW_TIMEOUT;
	if (pfd[0].revents)
		wake |= TW_KEY;
	if (pfd[1].revents) {
		while (read(sig_pipe[0], buf, sizeof(buf)) > 0)
			;
		if (quit_sig)
			wake |= TW_SIGNAL;
	}
	if (extra_i >= 0 && pfd[extra_i].revents)
		wake |= TW_FD;
	if (wake_i >= 0 && pfd[wake_i].revents) {
		while (read(wake_fd, buf, sizeof(buf)) > 0)
			;
		wake |= TW_WAKE;
	}
	return wake;
}

void term_clear(void)
{
	if (term_on)
		erase();
}

void term_blank(int y, int x, int n, enum theme_elem e)
{
	if (!term_on || n <= 0 || y < 0 || y >= LINES || x >= COLS)
		return;
	if (x + n > COLS)
		n = COLS - x;
	attrset(elem_attr(e));
	mvhline(y, x, ' ', n);
	attrset(A_NORMAL);
}

int term_text(int y, int x, int width, enum theme_elem e, const char *s)
{
	char buf[1024];
	int cols;
	size_t n;

	if (!term_on || width <= 0 || y < 0 || y >= LINES || x < 0 || x >= COLS || !s)
		return 0;
	if (x + width > COLS)
		width = COLS - x;
	n = text_clip(buf, sizeof(buf), s, width, &cols);
	attrset(elem_attr(e));
	mvaddnstr(y, x, buf, (int)n);
	attrset(A_NORMAL);
	return cols;
}

void term_field(int y, int x, int width, enum theme_elem e, const char *s)
{
	int used = term_text(y, x, width, e, s);

	term_blank(y, x + used, width - used, e);
}

int term_textf(int y, int x, int width, enum theme_elem e, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return term_text(y, x, width, e, buf);
}

void term_restyle(int y, int x, int n, enum theme_elem e)
{
	if (!term_on || n <= 0 || y < 0 || y >= LINES || x >= COLS)
		return;
	if (x + n > COLS)
		n = COLS - x;
	mvchgat(y, x, n, elem_attr(e) & ~A_COLOR, (short)(use_color ? (int)e + 1 : 0), NULL);
}

void term_invalidate(void)
{
	if (term_on)
		clearok(curscr, TRUE);
}

void term_flush(void)
{
	if (!term_on)
		return;
	wnoutrefresh(stdscr);
	doupdate();
}
