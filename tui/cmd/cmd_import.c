/* `c2ctui import perf.data -o S.db`: converts a perf recording (perf c2c
 * record, perf mem record, software events, tracepoints) into a session
 * file through the import pipeline. SIGINT/SIGTERM stop it cleanly: what
 * was read is committed and the session stays valid. */
#include "tui/cmd/commands.h"
#include "store/ingest/import_pipeline.h"
#include "store/store.h"
#include "store/base/session_files.h"
#include "tui/cmd/session_input.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	stop_flag = sig;  /* the session says which signal stopped it */
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: c2ctui import [-i] perf.data -o S.db [options]\n"
		"  -i, --input FILE     the perf.data to import (or give it as the argument)\n"
		"  -o, --output FILE    the session file to create (must not exist, unless -f;\n"
		"                       an unfinished import of the same perf.data is redone)\n"
		"  -f, --force          replace FILE if it exists\n"
		"      --symfs DIR      look for binaries and kernel modules (.ko) under DIR\n"
		"                       (like perf --symfs)\n"
		"  -k, --vmlinux FILE   the kernel image (ELF, with DWARF for file:line) for kernel\n"
		"                       code and data (default: one with the recorded kernel's\n"
		"                       build-id in perf's places, under --symfs; else kallsyms)\n"
		"      --kallsyms FILE  kernel symbols from a kallsyms list (default: /proc/kallsyms\n"
		"                       when recorded on this host)\n"
		"      --batch N        samples per transaction (default 16000000)\n"
		"  -q, --quiet          no progress line and no summary\n"
		"  -h, --help           this text\n");
}

/* An existing -o: replaced with -f; redone when it is an import of the
 * same perf.data that never finished (killed); else refused. Returns 0
 * when the way is clear, else 1 after one line on stderr. */
static int clear_output(const char *input, const char *output, bool force)
{
	struct c2c_error err = { 0 };
	struct store_status stat;
	struct store *st = NULL;
	char src[4096] = "";
	bool redo = false;

	if (access(output, F_OK) != 0)
		return 0;
	if (!force && store_open(&st, output, STORE_OPEN_RDONLY, &err) == 0) {
		store_get_status(st, &stat);
		store_get_meta(st, STORE_META_SOURCE, src, sizeof(src));
		redo = stat.state == STORE_STATE_UNFINISHED && !strcmp(stat.source_kind, "import") && !strcmp(src, input);
		store_close(st);
	}
	if (!force && !redo) {
		fprintf(stderr, "c2ctui import: %s exists (use -f to replace it)\n", output);
		return 1;
	}
	if (redo)
		fprintf(stderr, "c2ctui import: note: %s is an unfinished import of %s (killed?): importing it again\n",
			output, input);
	if (store_remove_files(output, &err) < 0) {
		fprintf(stderr, "c2ctui import: %s\n", err.msg);
		return 1;
	}
	return 0;
}

/* After an import that read everything it could: damage the reader
 * stepped over (records, header features) is said in one line, and is
 * not a success. Returns the exit status. */
static int say_status(const char *output)
{
	struct c2c_error err = { 0 };
	struct store_status stat;
	struct store *st = NULL;
	char line[1024];
	int rc = 0;

	if (store_open(&st, output, STORE_OPEN_RDONLY, &err) < 0) {
		fprintf(stderr, "c2ctui import: %s\n", err.msg);
		return 1;
	}
	store_get_status(st, &stat);
	store_status_line(&stat, output, line, sizeof(line));
	if (line[0])
		fprintf(stderr, "c2ctui import: %s%s\n", stat.state == STORE_STATE_COMPLETE ? "note: " : "", line);
	if (stat.state != STORE_STATE_COMPLETE)
		rc = 1;
	store_close(st);
	return rc;
}

int cmd_import(int argc, char **argv)
{
	enum { OPT_SYMFS = 256, OPT_BATCH, OPT_KALLSYMS };
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "symfs", required_argument, NULL, OPT_SYMFS },
		{ "vmlinux", required_argument, NULL, 'k' },
		{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
		{ "batch", required_argument, NULL, OPT_BATCH },
		{ "quiet", no_argument, NULL, 'q' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct import_options opt = { 0 };
	struct import_result res;
	struct c2c_error err = { 0 };
	const char *input = NULL, *output = NULL;
	bool quiet = false, force = false;
	int c, r;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:o:k:qfh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_SYMFS:
			opt.symfs = optarg;
			break;
		case 'k':
			opt.vmlinux = optarg;
			break;
		case OPT_KALLSYMS:
			opt.kallsyms = optarg;
			break;
		case OPT_BATCH: {
			char *end;
			errno = 0;
			unsigned long long v = strtoull(optarg, &end, 10);
			if (errno || *end || v == 0) {
				fprintf(stderr, "c2ctui import: --batch needs a positive number, not '%s'\n", optarg);
				return 2;
			}
			opt.batch = v;
			break;
		}
		case 'q':
			quiet = true;
			break;
		case 'f':
			force = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc && !input)
		input = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "c2ctui import: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!input || !output) {
		fprintf(stderr, "c2ctui import: %s\n", !input ? "which perf.data? (c2ctui import perf.data -o S.db)"
							     : "where to? give the session file with -o S.db");
		return 2;
	}
	if (clear_output(input, output, force))
		return 1;
	if (!quiet)
		opt.progress = cmd_import_progress;
	opt.stop = &stop_flag;

	struct sigaction sa, old_int, old_term;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	r = import_pipeline_file_ex(input, output, &opt, &res, &err);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);

	if (r < 0) {
		/* One line; when the input was damaged or the import stopped,
		 * it also says that the session holds what was read. */
		if (res.session_valid)
			fprintf(stderr, "c2ctui import: %s; %s is a valid partial session with the %" PRIu64
				" samples read (it says so when read)\n", err.msg, output, res.samples);
		else if (res.created)
			fprintf(stderr, "c2ctui import: %s; no session written (%s removed)\n", err.msg, output);
		else
			fprintf(stderr, "c2ctui import: %s\n", err.msg);
		return 1;
	}
	if (!quiet)
		cmd_import_warnings(output, &res);
	if (say_status(output))
		return 1;
	if (!quiet)
		printf("%s -> %s: %" PRIu64 " samples, %" PRIu64 " lock waits, %" PRIu64 " side-band records%s (%.2f s)\n",
		       input, output, res.samples, res.lock_waits, res.sideband,
		       res.unknown_records ? ", some records skipped" : "", res.seconds);
	return 0;
}
