/* `c2ctui diff BEFORE.db AFTER.db` and `c2ctui report --diff BEFORE.db
 * AFTER.db`: two sessions side by side (store/diff/diff.h matches them). In a
 * terminal `diff` opens the diff view; otherwise, or with --format, it
 * prints the same tables as text, CSV or JSON (tui/report/report_diff.c),
 * lock waits included (matched by caller and type). Sessions without a type
 * attribution get one first (for this run: reading never writes a
 * session), so lines can be matched by the members they hold. */
#include "tui/cmd/commands.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/diff/diff.h"
#include "store/store.h"
#include "store/types/typeinfo.h"
#include "store/types/typeinfo_ensure.h"
#include "tui/explorer/tui.h"
#include "tui/explorer/view_diff.h"
#include "tui/report/report_diff.h"

enum fmt { FMT_TEXT, FMT_CSV, FMT_JSON };

static void usage(FILE *out, const char *cmd)
{
	fprintf(out,
		"usage: c2ctui %s BEFORE.db AFTER.db [options]\n"
		"  --format FMT       text, csv or json (default: the diff view in a terminal, else text)\n"
		"  --debuginfo DIR    where to find separate debug files (build-id layout or NAME.debug)\n"
		"  --no-attribute     do not attribute samples to types first\n"
		"  -k, --vmlinux FILE the kernel image (DWARF: kernel heap objects get types); once:\n"
		"                     both sessions, twice: BEFORE's then AFTER's (default: the\n"
		"                     image each session's import used)\n"
		"  --min-evidence N   HITM or peer-cache samples a line needs for a false / true /\n"
		"                     mixed verdict (default %u; fewer: potential; 0: the pattern alone)\n"
		"  -h, --help         this text\n"
		"Lines are matched by the struct members they hold (split / merged when a member\n"
		"changed line), else by data symbol + offset, else by type + offset in the object,\n"
		"else by address; members of each type by name (moved: on another cache line);\n"
		"code by function; kernel lock waits by caller and lock type (as perf lock\n"
		"contention prints them). Values are shown before -> after, and per second and\n"
		"per 1000 samples so runs of different length compare.\n",
		cmd, LAYOUT_MIN_EVIDENCE_DEFAULT);
}

/* Opens a session; attributes its samples to types when it has no
 * attribution yet (the result is saved in the session). A failed
 * attribution goes into warn (empty when none): said only when the diff
 * itself works, so that a damaged file gets one line. */
static int open_session(const char *path, bool attribute, const char *dbgdir, const char *vmlinux,
			struct store **out, char *warn, size_t warn_len)
{
	struct typeinfo_open_opts o = { .attribute = attribute, .debuginfo_dir = dbgdir, .vmlinux = vmlinux };
	struct c2c_error err = { 0 }, aerr = { 0 };
	int arc, rc;

	warn[0] = 0;
	rc = typeinfo_open(path, &o, out, &arc, &aerr, &err);
	if (rc < 0) {
		fprintf(stderr, "c2ctui diff: %s\n", err.msg);
		return rc;
	}
	if (arc < 0)
		snprintf(warn, warn_len, "%s", aerr.msg);
	return 0;
}

static int run(int argc, char **argv, const char *cmd, bool allow_tui)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "debuginfo", required_argument, NULL, 'D' },
		{ "no-attribute", no_argument, NULL, 'A' },
		{ "min-evidence", required_argument, NULL, 'm' },
		{ "diff", no_argument, NULL, 'd' },
		{ "vmlinux", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dbgdir = NULL, *vml[2] = { NULL, NULL };
	int nvml = 0;
	bool attribute = true, tui = allow_tui, have_fmt = false;
	enum fmt fmt = FMT_TEXT;
	struct store *sb = NULL, *sa = NULL;
	struct diff_result r;
	struct c2c_error err = { 0 };
	char warn[2][sizeof(err.msg)];
	long min_evidence = -1;
	char *end;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "hk:", longopts, NULL)) != -1) {
		switch (c) {
		case 'k':
			if (nvml == 2) {
				fprintf(stderr, "c2ctui %s: -k at most twice (BEFORE's image, AFTER's image)\n", cmd);
				return 2;
			}
			vml[nvml++] = optarg;
			break;
		case 'f':
			have_fmt = true;
			if (!strcmp(optarg, "text"))
				fmt = FMT_TEXT;
			else if (!strcmp(optarg, "csv"))
				fmt = FMT_CSV;
			else if (!strcmp(optarg, "json"))
				fmt = FMT_JSON;
			else {
				fprintf(stderr, "c2ctui %s: unknown format '%s' (text, csv, json)\n", cmd,
					optarg);
				return 2;
			}
			break;
		case 'D':
			dbgdir = optarg;
			break;
		case 'A':
			attribute = false;
			break;
		case 'm':
			min_evidence = strtol(optarg, &end, 10);
			if (end == optarg || *end || min_evidence < 0 || min_evidence > 1000000) {
				fprintf(stderr, "c2ctui %s: --min-evidence wants a count (0..1000000)\n", cmd);
				return 2;
			}
			break;
		case 'd':
			break;
		case 'h':
			usage(stdout, cmd);
			return 0;
		default:
			usage(stderr, cmd);
			return 2;
		}
	}
	if (argc - optind != 2) {
		usage(stderr, cmd);
		return 2;
	}
	if (have_fmt || !isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		tui = false;
	if (open_session(argv[optind], attribute, dbgdir, vml[0], &sb, warn[0], sizeof(warn[0])) < 0)
		return 1;
	if (open_session(argv[optind + 1], attribute, dbgdir, nvml == 2 ? vml[1] : vml[0], &sa, warn[1],
			 sizeof(warn[1])) < 0) {
		store_close(sb);
		return 1;
	}
	if (min_evidence >= 0) {
		typeinfo_set_min_evidence(sb, (uint32_t)min_evidence);
		typeinfo_set_min_evidence(sa, (uint32_t)min_evidence);
	}
	rc = diff_sessions(sb, sa, &r, &err);
	if (rc < 0) {
		fprintf(stderr, "c2ctui %s: %s\n", cmd, err.msg);
		store_close(sb);
		store_close(sa);
		return 1;
	}
	/* once when both sides are the same file */
	for (int i = 0; i < 2; i++)
		if (warn[i][0] && (i == 0 || strcmp(warn[0], warn[1])))
			fprintf(stderr, "c2ctui %s: %s (continuing without types)\n", cmd, warn[i]);
	if (tui) {
		struct view_diff_arg arg = { .before = sb, .after = sa, .result = &r };
		struct tui_options o = { .title = argv[optind + 1], .first_view = &view_diff_ops,
					 .first_arg = &arg, .err = &err };
		rc = tui_explore(sa, &o);
		if (rc < 0)
			fprintf(stderr, "c2ctui %s: %s\n", cmd, err.msg);
	} else if (fmt == FMT_CSV) {
		report_diff_csv(&r, stdout);
	} else if (fmt == FMT_JSON) {
		report_diff_json(&r, stdout);
	} else {
		report_diff_text(&r, stdout);
	}
	diff_result_fini(&r);
	store_close(sb);
	store_close(sa);
	return rc < 0 ? 1 : 0;
}

int cmd_diff(int argc, char **argv)
{
	return run(argc, argv, "diff", true);
}

int cmd_report_diff(int argc, char **argv)
{
	return run(argc, argv, "report --diff", false);
}
