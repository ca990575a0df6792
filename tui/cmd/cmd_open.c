/* c2ctui open: explore a session file, or a perf.data imported first into
 * a session (a temporary one unless -o names where to keep it). Errors
 * (missing, corrupt or foreign file) are one line on stderr before the
 * terminal is touched; the explorer restores the terminal on every exit. */
#include "tui/cmd/commands.h"
#include "store/ingest/import_pipeline.h"
#include "tui/explorer/tui.h"
#include "store/store.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void open_usage(FILE *out)
{
	fprintf(out,
		"usage: c2ctui open [-d tot|lcl|rmt|peer] [-o S.db] S.db|perf.data\n"
		"\n"
		"Explores a session in the terminal. A perf.data is imported first\n"
		"(into S.db with -o, else into a temporary session removed on exit).\n"
		"\n"
		"  -d, --display MODE   HITM shown and sorted by: tot (default), lcl, rmt, peer\n"
		"  -o, --output S.db    keep the session imported from a perf.data\n"
		"  -h, --help           this text\n"
		"\n"
		"Keys: arrows/j/k move, Enter opens, Esc goes back, s sorts, f filters,\n"
		"/ searches, d cycles the display mode, ? shows every key, q quits.\n");
}

static int parse_mode(const char *s)
{
	static const char *const names[] = { "tot", "lcl", "rmt", "peer" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

/* perf.data magic in either byte order. */
static int is_perf_data(const char *path)
{
	char magic[8];
	FILE *f = fopen(path, "rb");
	int yes;

	if (!f)
		return 0;
	yes = fread(magic, 1, sizeof(magic), f) == sizeof(magic) &&
	      (!memcmp(magic, "PERFILE2", 8) || !memcmp(magic, "2ELIFREP", 8));
	fclose(f);
	return yes;
}

static volatile sig_atomic_t import_stop;

static void on_import_signal(int sig)
{
	(void)sig;
	import_stop = 1;
}

/* Imports with Ctrl-C stopping the import (not the process): the pipeline
 * commits what it has and returns -EINTR. */
static int import_file(const char *path, const char *db, struct c2c_error *err)
{
	struct import_options io;
	struct sigaction sa, old_int, old_term;
	int r;

	memset(&io, 0, sizeof(io));
	io.stop = &import_stop;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_import_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	r = import_pipeline_file(path, db, &io, err);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return r;
}

static void remove_session(const char *db, const char *dir)
{
	static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
	char p[4200];

	for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", db, suffix[i]);
		unlink(p);
	}
	if (dir)
		rmdir(dir);
}

int cmd_open(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "display", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct c2c_error err = { 0 };
	struct tui_options opt;
	struct store *st = NULL;
	const char *path, *keep = NULL, *db;
	char tmpdir[64] = "", tmpdb[128] = "";
	int c, mode = 0, r, status = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "d:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			mode = parse_mode(optarg);
			if (mode < 0) {
				fprintf(stderr, "c2ctui open: unknown display mode '%s' (tot, lcl, rmt, peer)\n", optarg);
				return 2;
			}
			break;
		case 'o':
			keep = optarg;
			break;
		case 'h':
			open_usage(stdout);
			return 0;
		default:
			open_usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		open_usage(stderr);
		return 2;
	}
	path = argv[optind];
	tui_mark_start();
	if (access(path, R_OK) != 0) {
		fprintf(stderr, "c2ctui open: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "c2ctui open: needs a terminal; use 'c2ctui report %s' for text output\n", path);
		return 1;
	}
	db = path;
	if (is_perf_data(path)) {
		if (keep) {
			db = keep;
		} else {
			snprintf(tmpdir, sizeof(tmpdir), "/tmp/c2ctui-open.XXXXXX");
			if (!mkdtemp(tmpdir)) {
				fprintf(stderr, "c2ctui open: cannot make a temporary directory: %s\n", strerror(errno));
				return 1;
			}
			snprintf(tmpdb, sizeof(tmpdb), "%s/session.db", tmpdir);
			db = tmpdb;
		}
		/* The pipeline draws its progress line on stderr (a terminal). */
		r = import_file(path, db, &err);
		if (r < 0) {
			fprintf(stderr, "c2ctui open: %s\n", err.msg);
			status = 1;
			goto out;
		}
	} else if (keep) {
		fprintf(stderr, "c2ctui open: -o is for perf.data input; %s is opened as it is\n", path);
	}
	r = store_open(&st, db, STORE_OPEN_RDONLY, &err);
	if (r < 0) {
		fprintf(stderr, "c2ctui open: %s\n", err.msg);
		status = 1;
		goto out;
	}
	memset(&opt, 0, sizeof(opt));
	opt.title = path;
	opt.mode = mode;
	opt.err = &err;
	r = tui_explore(st, &opt);
	if (r == -EINTR) {
		/* Killed by a quit signal: the shell's convention, no message. */
		status = 128 + tui_quit_signal();
	} else if (r < 0) {
		fprintf(stderr, "c2ctui open: %s\n", err.msg);
		status = 1;
	}
out:
	store_close(st);
	if (tmpdb[0])
		remove_session(tmpdb, tmpdir);
	else if (tmpdir[0])
		rmdir(tmpdir);
	return status;
}
