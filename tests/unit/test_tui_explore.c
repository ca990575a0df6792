/* tui_explore's contract for the commands that embed it (live, diff):
 * the live hooks (poll_fd readable -> on_tick at once; a negative on_tick
 * ends the loop with that code; TUI_TICK_FINISHED is accepted), 'q' ends it
 * with 0, and no terminal is refused with a sentence. The explorer runs in
 * a child on a pseudo-terminal over an empty session. */
#include "tests/unit/test.h"
#include "store/store.h"
#include "tui/tui.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>

static const char *make_session(void)
{
	static char path[512];
	struct store *st = NULL;
	struct c2c_error err = { 0 };

	snprintf(path, sizeof(path), "%s/empty.db", test_tmpdir());
	unlink(path);
	if (store_create(&st, path, &err) < 0 || store_finalize(st, &err) < 0) {
		printf("# %s\n", err.msg);
		store_close(st);
		return NULL;
	}
	store_close(st);
	return path;
}

struct hooks {
	int fds[2];
	int ticks;
};

static int hook_fd(void *c)
{
	return ((struct hooks *)c)->fds[0];
}

static int hook_tick(void *c)
{
	struct hooks *h = c;
	char buf[16];

	while (read(h->fds[0], buf, sizeof(buf)) > 0)
		;
	h->ticks++;
	if (h->ticks == 1)
		return TUI_TICK_CHANGED;
	if (h->ticks == 2)
		return TUI_TICK_FINISHED;
	return -ECANCELED;
}

/* The child: explores db with the hooks (use_hooks) or plainly; its exit
 * status says what tui_explore returned (0: as expected). */
static int child(const char *db, int use_hooks)
{
	struct store *st = NULL;
	struct c2c_error err = { 0 };
	struct tui_options opt;
	struct hooks h = { { -1, -1 }, 0 };
	int r;

	setenv("TERM", "xterm", 1);
	unsetenv("C2CTUI_STATE");
	if (store_open(&st, db, STORE_OPEN_RDONLY, &err) < 0)
		return 10;
	memset(&opt, 0, sizeof(opt));
	opt.title = "test";
	opt.err = &err;
	if (use_hooks) {
		if (pipe2(h.fds, O_NONBLOCK) < 0)
			return 11;
		/* Readable from the start: the first tick must not wait. */
		if (write(h.fds[1], "x", 1) != 1)
			return 12;
		opt.ctx = &h;
		opt.collecting = 1;
		opt.poll_fd = hook_fd;
		opt.on_tick = hook_tick;
	}
	r = tui_explore(st, &opt);
	store_close(st);
	if (use_hooks)
		return r == -ECANCELED && h.ticks == 3 ? 0 : 20;
	return r == 0 ? 0 : 21;
}

/* Runs child() on a pty; sends `keys` once `ready` shows up in its output
 * (keys may be NULL), drains the output until it exits. Returns the exit
 * status, or -1. The 30 s bound only stops a hung child. */
static int run_on_pty(const char *db, int use_hooks, const char *ready, const char *keys, char *seen, size_t seen_size)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };
	size_t len = 0;
	int fd, status = -1, sent = 0;
	pid_t pid;

	pid = forkpty(&fd, NULL, NULL, &ws);
	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(child(db, use_hooks));
	seen[0] = 0;
	for (int waited = 0; waited < 300;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, 100);
		char buf[4096];
		ssize_t n;

		if (r == 0) {
			waited++;
			continue;
		}
		n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			break;   /* EIO: the child closed the pty */
		for (ssize_t i = 0; i < n && len + 1 < seen_size; i++)
			seen[len++] = buf[i];
		seen[len] = 0;
		if (keys && !sent && strstr(seen, ready)) {
			if (write(fd, keys, strlen(keys)) < 0)
				break;
			sent = 1;
		}
	}
	close(fd);
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	if (!WIFEXITED(status)) {
		kill(pid, SIGKILL);
		return -1;
	}
	return WEXITSTATUS(status);
}

static char out[1 << 16];

static void test_live_hooks(void)
{
	const char *db = make_session();

	CHECK(db);
	/* CHANGED, FINISHED, then -ECANCELED ends the loop with that code. */
	CHECK_EQ_U64(run_on_pty(db, 1, NULL, NULL, out, sizeof(out)), 0);
	/* The status line said "collecting" until FINISHED. */
	CHECK(strstr(out, "[collecting]"));
}

static void test_quit_key(void)
{
	const char *db = make_session();

	CHECK(db);
	CHECK_EQ_U64(run_on_pty(db, 0, "Hot cache lines", "q", out, sizeof(out)), 0);
	CHECK(strstr(out, "Hot cache lines: 0 shown"));
}

static void test_no_terminal(void)
{
	const char *db = make_session();
	struct store *st = NULL;
	struct c2c_error err = { 0 };
	struct tui_options opt;
	int fd, saved;

	CHECK(db);
	CHECK(store_open(&st, db, STORE_OPEN_RDONLY, &err) == 0);
	memset(&opt, 0, sizeof(opt));
	opt.err = &err;
	/* stdin from /dev/null: refused before the terminal is touched. */
	saved = dup(STDIN_FILENO);
	fd = open("/dev/null", O_RDONLY);
	dup2(fd, STDIN_FILENO);
	close(fd);
	CHECK(tui_explore(st, &opt) == -ENOTTY);
	dup2(saved, STDIN_FILENO);
	close(saved);
	store_close(st);
	CHECK(strstr(err.msg, "terminal"));
}

TEST_MAIN(
	TEST_CASE(test_live_hooks),
	TEST_CASE(test_quit_key),
	TEST_CASE(test_no_terminal),
)
