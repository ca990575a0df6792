/* c2ctui open: explore a session file, or a perf.data imported first into
 * a session (a temporary one unless -o names where to keep it). Errors
 * (missing, corrupt or foreign file) are one line on stderr before the
 * terminal is touched; the explorer restores the terminal on every exit. */
#include "tui/cmd/commands.h"
#include "tui/cmd/session_input.h"
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
		"      --symfs DIR      look for binaries under DIR (like perf --symfs): when\n"
		"                       importing, and for the code site's instructions and source\n"
		"  -k, --vmlinux FILE   the kernel image for importing a perf.data (see import) and for\n"
		"                       kernel heap types (default: the one the import used)\n"
		"      --kallsyms FILE  kernel symbols (a kallsyms list) for importing a perf.data\n"
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

int cmd_open(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "display", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "symfs", required_argument, NULL, 'S' },
		{ "kallsyms", required_argument, NULL, 'K' },
		{ "vmlinux", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct c2c_error err = { 0 };
	struct tui_options opt;
	struct session_input in;
	const char *path, *keep = NULL, *symfs = NULL, *kallsyms = NULL, *vmlinux = NULL;
	int c, mode = 0, r, status = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "d:o:k:h", longopts, NULL)) != -1) {
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
		case 'S':
			symfs = optarg;
			break;
		case 'K':
			kallsyms = optarg;
			break;
		case 'k':
			vmlinux = optarg;
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
	/* A perf.data is imported first, with its progress line on stderr. */
	struct session_input_opts so = { .tmp_name = "open", .keep = keep, .progress = true, .symfs = symfs,
					 .kallsyms = kallsyms, .vmlinux = vmlinux };
	r = session_input_open(&in, path, &so, &err);
	if (r < 0) {
		fprintf(stderr, "c2ctui open: %s\n", err.msg);
		return 1;
	}
	if (keep && !in.imported)
		fprintf(stderr, "c2ctui open: -o is for perf.data input; %s is opened as it is\n", path);
	memset(&opt, 0, sizeof(opt));
	opt.title = path;
	opt.mode = mode;
	opt.symfs = symfs;
	opt.vmlinux = in.imported ? NULL : vmlinux;   /* an import recorded the image it used */
	opt.err = &err;
	r = tui_explore(in.store, &opt);
	if (r == -EINTR) {
		/* Killed by a quit signal: the shell's convention, no message. */
		status = 128 + tui_quit_signal();
	} else if (r < 0) {
		fprintf(stderr, "c2ctui open: %s\n", err.msg);
		status = 1;
	}
	session_input_close(&in);
	return status;
}
