/* c2ctui record: collect into a session file without the TUI, then print
 * one summary line. Ctrl-C / SIGTERM / SIGHUP stop collection and finalize
 * the session; a SIGKILL leaves every committed batch readable (WAL). */
#include "tui/cmd/commands.h"
#include "tui/cmd/live_cli.h"
#include "store/base/session_files.h"
#include "store/ingest/live_session.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static struct live *volatile record_live;
static volatile sig_atomic_t record_stop;

/* Installed before anything is set up and kept until exit: a signal during
 * setup stops the collection as soon as it starts, one during the final
 * writes is ignored (the session is being finalized anyway). */
static void record_on_signal(int sig)
{
	(void)sig;
	record_stop = 1;
	if (record_live)
		live_request_stop(record_live);
}

/* Whether the workload can be started, as execvp will look for it: a
 * command that cannot run fails before any session file exists, in one
 * line, instead of a child's complaint beside an empty session. */
static int workload_runnable(const char *cmd, char *why, size_t size)
{
	const char *path = getenv("PATH");
	char buf[4096];
	struct stat st;
	int saved = ENOENT;

	if (strchr(cmd, '/')) {
		if (stat(cmd, &st) < 0) {
			snprintf(why, size, "%s", strerror(errno));
			return 0;
		}
		if (S_ISDIR(st.st_mode) || access(cmd, X_OK) < 0) {
			snprintf(why, size, "%s", strerror(S_ISDIR(st.st_mode) ? EISDIR : errno));
			return 0;
		}
		return 1;
	}
	for (const char *p = path && *path ? path : "/usr/local/bin:/usr/bin:/bin"; p; ) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);

		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)n, p, n ? "/" : "", cmd);
		if (stat(buf, &st) == 0 && !S_ISDIR(st.st_mode)) {
			if (access(buf, X_OK) == 0)
				return 1;
			saved = EACCES;
		}
		p = colon ? colon + 1 : NULL;
	}
	snprintf(why, size, "%s", saved == EACCES ? strerror(EACCES) : "command not found");
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct live_cli cli;
	struct c2c_error err = { 0 };
	struct live_session *ls = NULL;
	struct sigaction sa;
	struct stat st;
	char line[1024];
	int rc, status = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = record_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	rc = live_cli_parse(&cli, argc, argv, "c2ctui.db", &err);
	if (rc == 1) {
		live_cli_usage("record", stdout);
		live_cli_fini(&cli);
		return 0;
	}
	if (rc < 0) {
		fprintf(stderr, "c2ctui record: %s\n", err.msg);
		live_cli_fini(&cli);
		return 2;
	}
	if (cli.opt.argv && cli.opt.argv[0] && !workload_runnable(cli.opt.argv[0], line, sizeof(line))) {
		fprintf(stderr, "c2ctui record: cannot run %s: %s\n", cli.opt.argv[0], line);
		live_cli_fini(&cli);
		return 1;
	}
	if (stat(cli.output, &st) == 0) {
		if (!cli.force) {
			fprintf(stderr, "c2ctui record: %s exists (use -f to replace it)\n", cli.output);
			live_cli_fini(&cli);
			return 1;
		}
		if (store_remove_files(cli.output, &err) < 0) {
			fprintf(stderr, "c2ctui record: %s\n", err.msg);
			live_cli_fini(&cli);
			return 1;
		}
	}
	rc = live_session_new_vmlinux(&ls, cli.output, &cli.opt, cli.vmlinux, "record", cli.cmdline, &err);
	if (rc < 0) {
		fprintf(stderr, "c2ctui record: %s\n", err.msg);
		/* Do not leave a half-made file behind a failed start (but a
		 * file another command made meanwhile is not ours). */
		if (rc != -EEXIST && stat(cli.output, &st) == 0)
			store_remove_files(cli.output, NULL);
		live_cli_fini(&cli);
		return 1;
	}
	if (!cli.quiet)
		for (const char *const *n = live_notes(live_session_live(ls)); *n; n++)
			fprintf(stderr, "c2ctui record: note: %s\n", *n);

	record_live = live_session_live(ls);
	rc = live_session_start(ls, &err);
	if (rc == 0 && record_stop)
		live_request_stop(record_live);
	if (rc == 0) {
		int ms = cli.duration > 0 ? (int)(cli.duration * 1000) : -1;
		live_wait_done(record_live, ms);
		rc = live_session_stop(ls, &err);
	}
	record_live = NULL;
	if (rc < 0) {
		/* The collected counts would overstate what reached the file:
		 * say what happened and what is kept instead of the summary. */
		fprintf(stderr, "c2ctui record: %s (collection stopped; the session keeps what was committed before)\n",
			err.msg);
		status = 1;
	} else {
		live_session_summary(ls, line, sizeof(line));
		printf("c2ctui record: %s\n", line);
	}
	{
		int cs = live_child_status(live_session_live(ls));
		if (cli.opt.argv && cs != -1 && WIFEXITED(cs) && WEXITSTATUS(cs) != 0 && !status) {
			fprintf(stderr, "c2ctui record: %s exited with status %d\n", cli.opt.argv[0],
				WEXITSTATUS(cs));
			/* 127: it could not be run at all (the child said why). */
			if (WEXITSTATUS(cs) == 127)
				status = 1;
		}
	}
	live_session_free(ls);
	live_cli_fini(&cli);
	return status;
}
