/* tui_explore's contract for the commands that embed it (live, diff):
 * the live hooks (poll_fd readable -> on_tick at once; a negative on_tick
 * ends the loop with that code; TUI_TICK_FINISHED is accepted), 'q' ends it
 * with 0, and no terminal is refused with a sentence. The explorer runs in
 * a child on a pseudo-terminal over an empty session. */
#include "tests/unit/test.h"
#include "collector/c2c/c2c.h"
#include "store/store.h"
#include "tui/explorer/tui.h"

#include <errno.h>
#include <linux/perf_event.h>
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

struct step {
	const char *wait_for;   /* text that must have appeared since the last step */
	const char *keys;       /* then sent */
};

/* Runs child() on a pty, plays the steps (each waits for its text in the
 * output, then types its keys), drains the output until the child exits.
 * Returns the exit status, or -1. The 30 s bound only stops a hung child. */
static int run_steps(const char *db, int use_hooks, const struct step *steps, size_t nsteps, char *seen,
		     size_t seen_size)
{
	struct winsize ws = { .ws_row = 40, .ws_col = 120 };
	size_t len = 0, mark = 0, k = 0;
	int fd, status = -1;
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
		if (k < nsteps && strstr(seen + mark, steps[k].wait_for)) {
			if (write(fd, steps[k].keys, strlen(steps[k].keys)) < 0)
				break;
			mark = len;
			k++;
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

static int run_on_pty(const char *db, int use_hooks, const char *ready, const char *keys, char *seen, size_t seen_size)
{
	struct step st = { ready, keys };

	return run_steps(db, use_hooks, &st, keys ? 1 : 0, seen, seen_size);
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
	/* An empty session says so, not "0 shown". */
	CHECK(strstr(out, "Hot cache lines: none"));
	CHECK(strstr(out, "No memory samples"));
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

/* The line this test points its code site at. SOURCE-MARKER-LINE */
static const char *const this_file = __FILE__;

static unsigned marker_line(void)
{
	char buf[512];
	unsigned n = 0;
	FILE *f = fopen(this_file, "r");

	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f)) {
		n++;
		if (strstr(buf, "SOURCE-MARKER" "-LINE")) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	return 0;
}

static uint64_t dsrc(uint64_t op, uint64_t lvl, uint64_t snoop)
{
	return (op << PERF_MEM_OP_SHIFT) | (lvl << PERF_MEM_LVL_SHIFT) | (snoop << PERF_MEM_SNOOP_SHIFT);
}

/* One hot line touched from one site (with a recorded caller) whose
 * source file is this test's source. */
static const char *make_site_session(unsigned line)
{
	static char path[512];
	struct store *st = NULL;
	struct c2c_error err = { 0 };
	struct store_site_info hot = { .ip = 0x401234, .pid = 7, .cpumode = C2C_MODE_USER, .function = "bump_counter",
				       .offset = 0x14, .dso = "/usr/bin/demo", .file = this_file, .line = line };
	struct store_site_info caller = { .ip = 0x401500, .pid = 7, .cpumode = C2C_MODE_USER, .function = "worker_loop",
					  .offset = 0x30, .dso = "/usr/bin/demo" };
	int64_t chain[2];
	int ok = 0;

	snprintf(path, sizeof(path), "%s/site.db", test_tmpdir());
	unlink(path);
	if (store_create(&st, path, &err) < 0)
		goto out;
	chain[0] = store_site_intern(st, &hot, &err);
	chain[1] = store_site_intern(st, &caller, &err);
	if (chain[0] <= 0 || chain[1] <= 0)
		goto out;
	for (int i = 0; i < 40; i++) {
		struct c2c_sample s = { 0 };
		struct store_sample_ctx ctx = { 0 };

		s.has = C2C_HAS_IP | C2C_HAS_TID | C2C_HAS_TIME | C2C_HAS_ADDR | C2C_HAS_CPU | C2C_HAS_WEIGHT |
			C2C_HAS_DATA_SRC;
		s.time = 1000000 + (uint64_t)i * 1000;
		s.cpu = (uint32_t)(i % 4);
		s.pid = 7;
		s.tid = 70 + i % 4;
		s.ip = hot.ip;
		s.addr = 0x7f0000002000ull + (uint64_t)(i % 2) * 8;
		s.weight = 100;
		s.cpumode = C2C_MODE_USER;
		s.data_src = i % 2 ? dsrc(PERF_MEM_OP_LOAD, PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_HITM)
				   : dsrc(PERF_MEM_OP_STORE, PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NA);
		ctx.class_bits = c2c_classify(s.data_src, s.addr, true, true);
		ctx.node = 0;
		ctx.site = chain[0];
		ctx.chain_sites = chain;
		ctx.nr_chain_sites = 2;
		if (store_add_sample(st, &s, &ctx, &err) < 0)
			goto out;
	}
	ok = store_finalize(st, &err) == 0;
out:
	if (!ok)
		printf("# %s\n", err.msg);
	store_close(st);
	return ok ? path : NULL;
}

static void test_site_source(void)
{
	unsigned line = marker_line();
	const char *db;
	char want[64];
	/* Enter opens the line, Tab moves to its code sites, Enter opens the
	 * site: its source text (this file) with the sampled line marked, and
	 * the caller from the call chain. (Curses sends only what changed, so
	 * a step waits for text that appears whole.) */
	static const struct step steps[] = {
		{ "Hot cache lines: 1 shown", "\r" },
		{ "Cache line 0x7f0000002000", "\t\r" },
		{ "Callers (1)", "q" },
	};

	if (!line) {
		test_skip("the test's source file is not readable from here");
		return;
	}
	db = make_site_session(line);
	CHECK(db);
	CHECK_EQ_U64(run_steps(db, 0, steps, 3, out, sizeof(out)), 0);
	CHECK(strstr(out, "bump_counter+0x14"));
	/* The sampled line, marked with '>' after its number. */
	snprintf(want, sizeof(want), "%u> /* The line this test", line);
	CHECK(strstr(out, want));
	CHECK(strstr(out, "worker_loop+0x30"));
}

TEST_MAIN(
	TEST_CASE(test_live_hooks),
	TEST_CASE(test_quit_key),
	TEST_CASE(test_no_terminal),
	TEST_CASE(test_site_source),
)
