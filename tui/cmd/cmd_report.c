/* `c2ctui report S.db|perf.data [options]`: perf c2c report's tables without
 * a terminal UI, as text, CSV or JSON. Options follow perf c2c report; the
 * numbers come from store/ queries and collector/c2c/c2c.h rules only, so they
 * equal what the TUI shows and what perf prints for the same recording. */
#include "tui/cmd/commands.h"
#include "tui/report/report.h"
#include "tui/cmd/session_input.h"
#include "tui/report/report_threads.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
		"usage: c2ctui report S.db|perf.data [options]\n"
		"  -i, --input FILE         the session or perf.data (or give it as the argument)\n"
		"  -d, --display MODE       tot|lcl|rmt|peer: what ranks and filters lines (perf -d)\n"
		"      --lines N            print only the first N lines of the table\n"
		"      --format FMT         text (default, perf's layout), csv or json\n"
		"  -c, --coalesce KEYS      Pareto row keys: pid,tid,iaddr,dso (default iaddr)\n"
		"      --show-all           every line, not only perf's shared lines over 0.1%%\n"
		"  -N, --node-info          node detail in the Pareto rows (repeat for CPU lists)\n"
		"      --double-cl          128-byte lines (adjacent-line false sharing)\n"
		"      --full-symbols       full shared object paths\n"
		"      --no-source          no Source:Line column\n"
		"      --stats              only the summary sections\n"
		"      --phys-lines         lines keyed by physical address\n"
		"      --time FROM,TO       only samples in this window: seconds from the recording's first sample,\n"
		"                           as the explorer shows them (either may be empty)\n"
		"      --abs-time           --time's seconds are perf clock timestamps (perf script's times)\n"
		"  -C, --cpu LIST           only samples of these CPUs (perf's list: 0-3,8)\n"
		"      --node LIST          only samples of CPUs on these NUMA nodes\n"
		"      --pid LIST           only samples of these processes\n"
		"      --tid LIST           only samples of these threads\n"
		"      --threads            per-thread table: HITM, loads, stores, lines touched, CPUs\n"
		"      --processes          the same per process\n"
		"  -k, --vmlinux FILE       importing a perf.data: the kernel image (see import)\n"
		"      --kallsyms FILE      importing a perf.data: kernel symbols from a kallsyms list\n"
		"      --symfs DIR          importing a perf.data: look for binaries under DIR\n"
		"  -h, --help               this text\n"
		"  --diff BEFORE.db AFTER.db  two sessions matched side by side (see c2ctui diff)\n"
		"  --types | --layout TYPE | --verdicts | --assign TYPE@ADDR\n"
		"                           data types, layouts, sharing verdicts (report --types -h)\n");
}

static int parse_coalesce(const char *s, unsigned *out)
{
	char buf[64], *save = NULL;
	unsigned bits = 0;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!strcmp(t, "pid"))
			bits |= STORE_COALESCE_PID;
		else if (!strcmp(t, "tid"))
			bits |= STORE_COALESCE_TID;
		else if (!strcmp(t, "iaddr"))
			bits |= STORE_COALESCE_IADDR;
		else if (!strcmp(t, "dso"))
			bits |= STORE_COALESCE_DSO;
		else if (strcmp(t, "offset"))
			return -1;
	}
	*out = bits;
	return 0;
}

/* Seconds a uint64_t of nanoseconds holds (2^64 ns is 18446744073.7 s):
 * past it, or nan/inf, the conversion to ns would be undefined. */
static bool time_ok(double v)
{
	return v >= 0 && v <= 18446744073.0;
}

/* "FROM,TO" in seconds (decimals allowed) -> ns; either side may be empty. */
static int parse_time(const char *s, uint64_t *from, uint64_t *to)
{
	const char *comma = strchr(s, ',');
	char *end;
	double a = 0, b = 0;

	if (!comma)
		return -1;
	if (comma != s) {
		a = strtod(s, &end);
		if (end != comma || !time_ok(a))
			return -1;
	}
	if (comma[1]) {
		b = strtod(comma + 1, &end);
		if (*end || !time_ok(b))
			return -1;
	}
	*from = (uint64_t)(a * 1e9 + 0.5);
	*to = comma[1] ? (uint64_t)(b * 1e9 + 0.5) : 0;
	if (*to && *to <= *from)
		return -1;
	return 0;
}

enum {
	OPT_LINES = 256, OPT_FORMAT, OPT_SHOW_ALL, OPT_DOUBLE_CL, OPT_FULL_SYMBOLS, OPT_NO_SOURCE,
	OPT_STATS, OPT_PHYS_LINES, OPT_TIME, OPT_STDIO, OPT_THREADS, OPT_PROCESSES, OPT_ABS_TIME, OPT_NODE,
	OPT_PID, OPT_TID, OPT_KALLSYMS, OPT_SYMFS,
};

/* --time is relative to the recording's first sample (what the explorer
 * shows) unless --abs-time: moved onto the perf clock here. */
static int time_to_abs(struct store *st, struct report_opts *o, struct c2c_error *err)
{
	struct store_summary sum;
	struct store_filter f;
	int r;

	if (!o->time_from && !o->time_to)
		return 0;
	store_filter_init(&f);
	if ((r = store_query_summary(st, &f, &sum, err)) < 0)
		return r;
	if (o->time_from)
		o->time_from += sum.time_first;
	if (o->time_to)
		o->time_to += sum.time_first;
	return 0;
}

/* --threads / --processes: their own table, under the same time window,
 * line size and display mode as the main report. */
/* One line naming the input once: store errors often start with the
 * session's path already. */
static void report_error(const char *input, const char *msg)
{
	size_t n = strlen(input);

	if (!strncmp(msg, input, n) && msg[n] == ':')
		fprintf(stderr, "c2ctui report: %s\n", msg);
	else
		fprintf(stderr, "c2ctui report: %s: %s\n", input, msg);
}

static int report_threads(struct session_input *in, const char *input, const struct report_opts *o,
			  bool by_process)
{
	struct store_thread_row *rows = NULL;
	struct c2c_error err = { 0 };
	struct store_filter f;
	enum c2c_display d = o->display;
	char arch[64];
	size_t n = 0;
	int rc;

	report_filter_from_opts(&f, o);
	if (!o->display_set)
		d = c2c_display_default(store_get_meta(in->store, STORE_META_ARCH, arch, sizeof(arch)) < 0 ? "" : arch);
	rc = store_query_threads(in->store, &f, by_process, &rows, &n, &err);
	if (rc < 0) {
		report_error(input, err.msg);
		session_input_close(in);
		return 1;
	}
	report_threads_sort(rows, n, d);
	rc = report_threads_print(stdout, rows, n, by_process, d, o->format);
	if (fflush(stdout) != 0)
		rc = -1;
	int werr = errno;
	free(rows);
	session_input_close(in);
	if (rc < 0 && werr == EPIPE)
		return 128 + SIGPIPE;
	if (rc < 0) {
		fprintf(stderr, "c2ctui report: writing the report failed\n");
		return 1;
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "display", required_argument, NULL, 'd' },
		{ "coalesce", required_argument, NULL, 'c' },
		{ "node-info", no_argument, NULL, 'N' },
		{ "lines", required_argument, NULL, OPT_LINES },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "show-all", no_argument, NULL, OPT_SHOW_ALL },
		{ "double-cl", no_argument, NULL, OPT_DOUBLE_CL },
		{ "full-symbols", no_argument, NULL, OPT_FULL_SYMBOLS },
		{ "no-source", no_argument, NULL, OPT_NO_SOURCE },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "phys-lines", no_argument, NULL, OPT_PHYS_LINES },
		{ "time", required_argument, NULL, OPT_TIME },
		{ "abs-time", no_argument, NULL, OPT_ABS_TIME },
		{ "cpu", required_argument, NULL, 'C' },
		{ "node", required_argument, NULL, OPT_NODE },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "stdio", no_argument, NULL, OPT_STDIO },
		{ "threads", no_argument, NULL, OPT_THREADS },
		{ "processes", no_argument, NULL, OPT_PROCESSES },
		{ "vmlinux", required_argument, NULL, 'k' },
		{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
		{ "symfs", required_argument, NULL, OPT_SYMFS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct session_input_opts so = { .tmp_name = "report" };
	struct report_opts o = { .display = C2C_DISPLAY_TOT, .format = REPORT_TEXT,
				 .coalesce = STORE_COALESCE_DEFAULT };
	const char *input = NULL;
	struct session_input in;
	struct report_model m;
	struct c2c_error err = { 0 };
	char *end;
	int c, rc, threads = 0;   /* 1: --threads, 2: --processes */
	bool abs_time = false;

	/* --diff and the types sections have their own front ends (cmd_diff.c,
	 * cmd_report_types.c); hand them the whole command line. */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--diff"))
			return cmd_report_diff(argc, argv);
		if (!strcmp(argv[i], "--types") || !strcmp(argv[i], "--layout") ||
		    !strncmp(argv[i], "--layout=", 9) || !strcmp(argv[i], "--verdicts") ||
		    !strcmp(argv[i], "--assign") || !strncmp(argv[i], "--assign=", 9))
			return cmd_report_types(argc, argv);
	}
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:d:c:C:k:Nh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'd':
			rc = c2c_display_parse(optarg);
			if (rc < 0) {
				fprintf(stderr, "c2ctui report: unknown display '%s' (tot, lcl, rmt or peer)\n", optarg);
				return 2;
			}
			o.display = (enum c2c_display)rc;
			o.display_set = true;
			break;
		case 'c':
			if (parse_coalesce(optarg, &o.coalesce) < 0) {
				fprintf(stderr, "c2ctui report: bad coalesce keys '%s' (pid,tid,iaddr,dso)\n", optarg);
				return 2;
			}
			snprintf(o.coalesce_str, sizeof(o.coalesce_str), "%s", optarg);
			break;
		case 'N':
			if (o.node_info < 2)
				o.node_info++;
			break;
		case OPT_LINES:
			errno = 0;
			o.max_lines = strtoull(optarg, &end, 10);
			if (errno || *end || optarg[0] == '-' || !optarg[0]) {
				fprintf(stderr, "c2ctui report: --lines wants a number, not '%s'\n", optarg);
				return 2;
			}
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "text"))
				o.format = REPORT_TEXT;
			else if (!strcmp(optarg, "csv"))
				o.format = REPORT_CSV;
			else if (!strcmp(optarg, "json"))
				o.format = REPORT_JSON;
			else {
				fprintf(stderr, "c2ctui report: unknown format '%s' (text, csv or json)\n", optarg);
				return 2;
			}
			break;
		case OPT_SHOW_ALL:
			o.show_all = true;
			break;
		case OPT_DOUBLE_CL:
			o.double_cl = true;
			break;
		case OPT_FULL_SYMBOLS:
			o.full_symbols = true;
			break;
		case OPT_NO_SOURCE:
			o.no_source = true;
			break;
		case OPT_STATS:
			o.stats_only = true;
			break;
		case OPT_PHYS_LINES:
			o.phys_lines = true;
			break;
		case OPT_TIME:
			if (parse_time(optarg, &o.time_from, &o.time_to) < 0) {
				fprintf(stderr, "c2ctui report: --time wants FROM,TO in seconds, not '%s'\n", optarg);
				return 2;
			}
			break;
		case OPT_ABS_TIME:
			abs_time = true;
			break;
		case 'C':
		case OPT_NODE:
		case OPT_PID:
		case OPT_TID: {
			struct store_id_set *set = c == 'C' ? &o.cpus : c == OPT_NODE ? &o.nodes : c == OPT_PID ? &o.pids : &o.tids;
			const char *name = c == 'C' ? "--cpu" : c == OPT_NODE ? "--node" : c == OPT_PID ? "--pid" : "--tid";
			if (store_id_set_parse(set, optarg) < 0) {
				fprintf(stderr, "c2ctui report: %s wants a list such as 0-3,8 (at most %d ranges), not '%s'\n",
					name, STORE_ID_SET_MAX, optarg);
				return 2;
			}
			break;
		}
		case OPT_STDIO: /* perf's spelling; the report is always stdio */
			break;
		case 'k':
			so.vmlinux = optarg;
			break;
		case OPT_KALLSYMS:
			so.kallsyms = optarg;
			break;
		case OPT_SYMFS:
			so.symfs = optarg;
			break;
		case OPT_THREADS:
		case OPT_PROCESSES:
			threads = c == OPT_THREADS ? 1 : 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "c2ctui report: unknown option '%s'\n", argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		if (input || optind + 1 < argc) {
			fprintf(stderr, "c2ctui report: one input only\n");
			return 2;
		}
		input = argv[optind];
	}
	if (!input) {
		usage(stderr);
		return 2;
	}

	rc = session_input_open(&in, input, &so, &err);
	if (rc == -EINTR)
		rc = c2c_error_set(&err, -EINTR, "%s: interrupted while importing; no report", input);
	if (rc < 0) {
		fprintf(stderr, "c2ctui report: %s\n", err.msg);
		return 1;
	}
	/* A closed pipe (report X.data | head) must not kill the process
	 * before the temporary session is removed: writes fail with EPIPE. */
	signal(SIGPIPE, SIG_IGN);
	if (!abs_time && time_to_abs(in.store, &o, &err) < 0) {
		report_error(input, err.msg);
		session_input_close(&in);
		return 1;
	}
	if (threads)
		return report_threads(&in, input, &o, threads == 2);
	rc = report_model_build(&m, in.store, input, &o, &err);
	if (rc < 0) {
		report_error(input, err.msg);
		report_model_fini(&m);
		session_input_close(&in);
		return 1;
	}
	switch (o.format) {
	case REPORT_CSV:
		rc = report_print_csv(&m, stdout);
		break;
	case REPORT_JSON:
		rc = report_print_json(&m, stdout);
		break;
	case REPORT_TEXT:
	default:
		rc = report_print_text(&m, stdout);
		break;
	}
	if (fflush(stdout) != 0 || ferror(stdout))
		rc = -1;
	int werr = errno;
	report_model_fini(&m);
	session_input_close(&in);
	if (rc < 0 && werr == EPIPE)
		return 128 + SIGPIPE;   /* the reader went away (| head): quietly, as perf does */
	if (rc < 0) {
		fprintf(stderr, "c2ctui report: writing the report failed\n");
		return 1;
	}
	return 0;
}
