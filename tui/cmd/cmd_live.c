/* c2ctui live: collect into a session file while the explorer shows it.
 * The collector's writer thread commits a batch at least every 250 ms; the
 * TUI reads through its own read-only handle (WAL) and re-runs its queries
 * on every tick (once a second) after a commit. q (or Ctrl-C) stops the
 * collection, the session is finalized and kept, and its name is printed. */
#include "tui/cmd/commands.h"
#include "tui/cmd/live_cli.h"
#include "store/ingest/live_session.h"
#include "tui/explorer/tui.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"

static void live_ignore_signal(int sig)
{
	(void)sig;
}

struct live_ui {
	struct live_session *ls;
	uint64_t seen_commits;
	bool finished;
	int rc;
	struct c2c_error err;
};

static int live_on_tick(void *ctx)
{
	struct live_ui *ui = ctx;
	uint64_t commits;

	if (ui->finished)
		return TUI_TICK_IDLE;
	if (live_done(live_session_live(ui->ls))) {
		/* The command ended or the sink failed: finalize now so the
		 * views show the complete session. */
		ui->rc = live_session_stop(ui->ls, &ui->err);
		ui->finished = true;
		return TUI_TICK_FINISHED;
	}
	commits = live_session_commits(ui->ls);
	if (commits != ui->seen_commits) {
		ui->seen_commits = commits;
		return TUI_TICK_CHANGED;
	}
	return TUI_TICK_IDLE;
}

int cmd_live(int argc, char **argv)
{
	struct live_cli cli;
	struct c2c_error err = { 0 };
	struct live_session *ls = NULL;
	struct store *rd = NULL;
	struct live_ui ui = { 0 };
	struct tui_options to = { 0 };
	char defname[64], title[512], line[1024], cmdlog[4096];
	struct stat st;
	time_t now = time(NULL);
	int rc, status = 0;

	strftime(defname, sizeof(defname), "live-%Y%m%d-%H%M%S.db", localtime(&now));
	rc = live_cli_parse(&cli, argc, argv, defname, &err);
	if (rc == 1) {
		live_cli_usage("live", stdout);
		live_cli_fini(&cli);
		return 0;
	}
	if (rc < 0) {
		fprintf(stderr, "c2ctui live: %s\n", err.msg);
		live_cli_fini(&cli);
		return 2;
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "c2ctui live: needs a terminal (use 'c2ctui record' in scripts)\n");
		live_cli_fini(&cli);
		return 2;
	}
	if (stat(cli.output, &st) == 0) {
		fprintf(stderr, "c2ctui live: %s exists (choose another name with -o)\n", cli.output);
		live_cli_fini(&cli);
		return 1;
	}
	if (cli.opt.argv) {
		snprintf(cmdlog, sizeof(cmdlog), "%s.log", cli.output);
		cli.opt.cmd_output = cmdlog;
	}
	rc = live_session_new_vmlinux(&ls, cli.output, &cli.opt, cli.vmlinux, "live", cli.cmdline, &err);
	if (rc < 0) {
		fprintf(stderr, "c2ctui live: %s\n", err.msg);
		if (stat(cli.output, &st) == 0) {
			unlink(cli.output);
		}
		live_cli_fini(&cli);
		return 1;
	}
	rc = store_open(&rd, cli.output, STORE_OPEN_RDONLY, &err);
	if (rc == 0)
		rc = live_session_start(ls, &err);
	if (rc < 0) {
		fprintf(stderr, "c2ctui live: %s\n", err.msg);
		store_close(rd);
		live_session_free(ls);
		live_cli_fini(&cli);
		return 1;
	}
	{
		const char *const *notes = live_notes(live_session_live(ls));
		snprintf(title, sizeof(title), "%s%s%s", cli.output, notes[0] ? " | " : "",
			 notes[0] ? notes[0] : "");
	}
	ui.ls = ls;
	to.title = title;
	to.collecting = 1;
	to.ctx = &ui;
	to.on_tick = live_on_tick;
	to.err = &err;
	rc = tui_explore(rd, &to);
	{
		/* The explorer is gone (q or a quit signal): a second Ctrl-C
		 * must not cut the finalization short. */
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = live_ignore_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
	}
	if (!ui.finished) {
		ui.rc = live_session_stop(ls, &ui.err);
		ui.finished = true;
	}
	store_close(rd);
	/* The terminal is back: say once what the session lacks. */
	if (!cli.quiet)
		for (const char *const *n = live_notes(live_session_live(ls)); *n; n++)
			fprintf(stderr, "c2ctui live: note: %s\n", *n);
	if (rc < 0) {
		fprintf(stderr, "c2ctui live: %s\n", err.msg);
		status = 1;
	}
	if (ui.rc < 0) {
		fprintf(stderr, "c2ctui live: %s\n", ui.err.msg);
		status = 1;
	}
	live_session_summary(ls, line, sizeof(line));
	printf("c2ctui live: session kept in %s\nc2ctui live: %s\n", cli.output, line);
	if (cli.opt.argv)
		printf("c2ctui live: output of %s is in %s\n", cli.opt.argv[0], cmdlog);
	live_session_free(ls);
	live_cli_fini(&cli);
	return status;
}
