/* libFuzzer target for the command-line option parsers: the first byte
 * picks a command, the rest is split into argv words at NUL or newline,
 * and the real command runs on them: report (which hands --diff and the
 * types options on to their own front ends), import, locks, diff,
 * report --diff, report --types, and for record and live only
 * live_cli_parse + live_cli_fini (the rest would start a collection).
 * `open` is left out: it could start the explorer.
 *
 * Every command stops after parsing because no input it names exists: the
 * target works in a fresh empty directory, no word keeps a '/' or "..",
 * and anything a command leaves there fails the run (none may create a
 * file from a missing input). stdin, stdout and stderr are /dev/null
 * (libFuzzer's -close_fd_mask=3, added to argv here, keeps its own output
 * and the sanitizers' reports); libFuzzer's relative paths are made
 * absolute first, and crash files land where it was started. getopt's
 * hidden state is reset before every run, so a run does not depend on the
 * ones before it.
 *
 * Built by tests/fuzz/run.sh with clang -fsanitize=fuzzer,address,undefined
 * over the tui (without main.c), store and collector sources; seeds are
 * written by run.sh into build/fuzz/seeds-cli. */
#include "tui/cmd/commands.h"
#include "tui/cmd/live_cli.h"

#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_WORDS 64
#define MAX_WORD 512

static volatile uint64_t sink;

static int run_record_parse(int argc, char **argv)
{
	struct live_cli cli;
	struct c2c_error err = { 0 };
	int rc = live_cli_parse(&cli, argc, argv, "c2ctui.db", &err);

	if (rc == 0) {
		/* the values as cmd_record uses them */
		int ms = cli.duration > 0 ? (int)(cli.duration * 1000) : -1;
		sink += (uint64_t)ms + cli.opt.nr_pids + cli.opt.nr_tids + cli.opt.ldlat + cli.opt.mmap_pages;
		for (size_t i = 0; i < cli.opt.nr_pids; i++)
			sink += (uint64_t)cli.opt.pids[i];
		for (size_t i = 0; i < cli.opt.nr_tids; i++)
			sink += (uint64_t)cli.opt.tids[i];
		sink += strlen(cli.cmdline) + strlen(cli.output);
	}
	live_cli_fini(&cli);
	return rc;
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "report", cmd_report },
	{ "import", cmd_import },
	{ "locks", cmd_locks },
	{ "diff", cmd_diff },
	{ "report", cmd_report_diff },
	{ "report", cmd_report_types },
	{ "record", run_record_parse },
	{ "live", run_record_parse },
};

static char tmpdir[64];

static void remove_tmpdir(void)
{
	rmdir(tmpdir);
}

/* libFuzzer reads and writes its paths after LLVMFuzzerInitialize, so
 * the relative ones are made absolute before the chdir below. */
static char *absolute(const char *cwd, const char *prefix, const char *path)
{
	size_t n = strlen(cwd) + strlen(prefix) + strlen(path) + 2;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%s%s/%s", prefix, cwd, path);
	return s;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const path_flags[] = { "-artifact_prefix=", "-exact_artifact_path=", "-dict=",
						  "-merge_control_file=", "-features_dir=" };
	static char cwd[PATH_MAX];
	bool has_mask = false, has_prefix = false;
	char **nargv;
	int fd, n = 0;

	if (!getcwd(cwd, sizeof(cwd))) {
		perror("fuzz_cli: getcwd");
		exit(1);
	}
	nargv = calloc((size_t)*argc + 3, sizeof(*nargv));
	if (!nargv)
		exit(1);
	nargv[n++] = (*argv)[0];
	for (int i = 1; i < *argc; i++) {
		char *a = (*argv)[i];
		if (a[0] != '-' && a[0] != '/') {
			a = absolute(cwd, "", a);
		} else {
			for (size_t k = 0; k < sizeof(path_flags) / sizeof(path_flags[0]); k++) {
				size_t len = strlen(path_flags[k]);
				if (!strncmp(a, path_flags[k], len) && a[len] != '/') {
					char flag[32];
					snprintf(flag, sizeof(flag), "%s", path_flags[k]);
					a = absolute(cwd, flag, a + len);
				}
			}
		}
		if (!a)
			exit(1);
		has_mask |= !strncmp(a, "-close_fd_mask=", 15);
		has_prefix |= !strncmp(a, "-artifact_prefix=", 17) || !strncmp(a, "-exact_artifact_path=", 21);
		nargv[n++] = a;
	}
	/* crash files where the fuzzer was started, not in the directory below */
	if (!has_prefix)
		nargv[n++] = absolute(cwd, "-artifact_prefix=", "");
	/* The commands' messages go to /dev/null the way libFuzzer does it
	 * (dup2 onto 1 and 2 after keeping a copy of stderr for itself and
	 * the sanitizers), unless the caller chose a mask. */
	if (!has_mask)
		nargv[n++] = (char *)"-close_fd_mask=3";
	nargv[n] = NULL;
	*argc = n;
	*argv = nargv;

	/* A fresh empty directory as the working directory: the only place
	 * the words can name (no '/', no ".."). */
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/c2ctui-fuzz-cli.XXXXXX");
	if (!mkdtemp(tmpdir) || chdir(tmpdir) < 0) {
		perror("fuzz_cli: temporary directory");
		exit(1);
	}
	atexit(remove_tmpdir);
	if ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0) {
		dup2(fd, STDIN_FILENO);   /* never a terminal: diff prints, no TUI */
		close(fd);
	}
	return 0;
}

/* glibc's getopt keeps a pointer into the last argv it read (the rest of
 * a short-option cluster such as "-xN" after an error on x); optind = 1,
 * as the commands set it, does not drop it. optind = 0 re-initializes, on
 * the next call. */
static void getopt_reset(void)
{
	static char arg0[] = "fuzz", *argv0[] = { arg0, NULL };

	optind = 0;
	opterr = 1;
	while (getopt(1, argv0, "") != -1)
		;
	optind = 1;
}

/* Removes what a command left in the directory; there must be nothing. */
static int clean_dir(void)
{
	DIR *d = opendir(".");
	struct dirent *e;
	int found = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			unlink(e->d_name);
			rmdir(e->d_name);
			found = 1;
		}
	closedir(d);
	return found;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *words[MAX_WORDS + 2], *buf;
	size_t ncmd = sizeof(commands) / sizeof(commands[0]);
	int argc = 0, pick;

	if (size < 1)
		return 0;
	pick = data[0] % ncmd;
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	words[argc++] = (char *)commands[pick].name;
	/* Words end at NUL or newline; a separator right after the command
	 * byte (seeds are "0\ns.db\n...") and a final one make no empty
	 * word. '/' becomes '_' and the second dot of ".." too, so no word
	 * names anything outside the directory. */
	size_t first = size > 1 && (data[1] == '\0' || data[1] == '\n') ? 2 : 1;
	for (size_t i = first, start = 0, o = 0; i <= size && argc <= MAX_WORDS; i++) {
		char ch = i < size ? (char)data[i] : '\0';
		bool end = i == size || ch == '\0' || ch == '\n';

		if (end) {
			if (i < size || o > start) {
				buf[o++] = '\0';
				words[argc++] = buf + start;
			}
			start = o;
			continue;
		}
		if (o - start >= MAX_WORD)
			continue;
		if (ch == '/' || (ch == '.' && o > start && buf[o - 1] == '.'))
			ch = '_';
		buf[o++] = ch;
	}
	words[argc] = NULL;

	getopt_reset();
	sink += (uint64_t)commands[pick].run(argc, words);
	free(buf);
	if (clean_dir())
		abort();  /* a command created a file from a missing input */
	return 0;
}
