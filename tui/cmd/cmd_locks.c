/* c2ctui locks S.db|perf.data: perf lock contention's report from a session
 * (or a perf.data, imported into a temporary session first), with perf's
 * options: -t per thread, -l per lock address, -Y types, -L locks, -E
 * entries, -k sort key, -F fields; --format text|csv|json. */
#include "tui/cmd/commands.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "tui/cmd/session_input.h"
#include "tui/report/report_locks.h"

#define MAX_FILTER 64

static void usage(FILE *out)
{
	fprintf(out,
		"usage: c2ctui locks S.db|perf.data [options]\n"
		"  perf lock contention's table of lock:contention_begin/end waits\n"
		"  -t, --threads            per thread (perf lock contention -t)\n"
		"  -l, --lock-addr          per lock address\n"
		"  -Y, --type-filter TYPES  only these lock types (comma separated: mutex, rwsem, rwsem:R, spinlock, ...)\n"
		"  -L, --lock-filter LOCKS  only these locks (addresses or kernel symbols, comma separated)\n"
		"  -E, --entries N          at most N rows\n"
		"  -k, --key KEY            sort by contended, wait_total (default), wait_max, wait_min or avg_wait\n"
		"  -F, --field FIELDS       text columns (default contended,wait_total,wait_max,avg_wait)\n"
		"      --format FMT         text (perf's layout), csv or json\n");
}

static int parse_list(char *arg, const char *what, int (*one)(const char *tok, void *ctx), void *ctx)
{
	char *save = NULL;

	for (char *tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ')
			tok++;
		if (*tok && one(tok, ctx) < 0) {
			fprintf(stderr, "c2ctui locks: bad %s '%s'\n", what, tok);
			return -1;
		}
	}
	return 0;
}

struct filters {
	uint32_t types[MAX_FILTER];
	size_t ntypes;
	uint64_t addrs[MAX_FILTER];
	size_t naddrs;
	const char *syms[MAX_FILTER];
	size_t nsyms;
	struct report_locks_opts *ro;
};

static int add_type(const char *tok, void *ctx)
{
	struct filters *f = ctx;
	size_t n = store_lock_type_flags(tok, f->types + f->ntypes, MAX_FILTER - f->ntypes);

	f->ntypes += n;
	return n ? 0 : -1;
}

static int add_lock(const char *tok, void *ctx)
{
	struct filters *f = ctx;
	char *end;

	if (!strncmp(tok, "0x", 2)) {
		unsigned long long a = strtoull(tok, &end, 16);
		if (*end || f->naddrs == MAX_FILTER)
			return -1;
		f->addrs[f->naddrs++] = a;
		return 0;
	}
	if (f->nsyms == MAX_FILTER)
		return -1;
	f->syms[f->nsyms++] = tok;
	return 0;
}

static int add_field(const char *tok, void *ctx)
{
	struct report_locks_opts *o = ((struct filters *)ctx)->ro;
	int f = report_lock_field(tok);

	if (f < 0 || o->nfields == RLF__MAX)
		return -1;
	o->fields[o->nfields++] = f;
	return 0;
}

int cmd_locks(int argc, char **argv)
{
	enum { OPT_FORMAT = 256 };
	static const struct option longopts[] = {
		{ "threads", no_argument, NULL, 't' },
		{ "lock-addr", no_argument, NULL, 'l' },
		{ "type-filter", required_argument, NULL, 'Y' },
		{ "lock-filter", required_argument, NULL, 'L' },
		{ "entries", required_argument, NULL, 'E' },
		{ "key", required_argument, NULL, 'k' },
		{ "field", required_argument, NULL, 'F' },
		{ "input", required_argument, NULL, 'i' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const keys[] = { "contended", "wait_total", "wait_max", "wait_min", "avg_wait" };
	struct report_locks_opts ro = { .by = STORE_LOCKS_BY_CALLER };
	struct store_locks_query q = { .by = STORE_LOCKS_BY_CALLER, .sort = STORE_LOCKS_SORT_WAIT_TOTAL };
	struct filters f = { .ro = &ro };
	const char *input = NULL, *format = "text";
	struct c2c_error err = { 0 };
	int c;

	while ((c = getopt_long(argc, argv, "tlY:L:E:k:F:i:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't': q.by = STORE_LOCKS_BY_TASK; break;
		case 'l': q.by = STORE_LOCKS_BY_ADDR; break;
		case 'Y':
			if (parse_list(optarg, "lock type", add_type, &f) < 0)
				return 2;
			break;
		case 'L':
			if (parse_list(optarg, "lock", add_lock, &f) < 0)
				return 2;
			break;
		case 'E': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || v <= 0) {
				fprintf(stderr, "c2ctui locks: bad entries '%s'\n", optarg);
				return 2;
			}
			ro.entries = (size_t)v;
			break;
		}
		case 'k': {
			size_t i;
			for (i = 0; i < sizeof(keys) / sizeof(keys[0]) && strcmp(keys[i], optarg); i++)
				;
			if (i == sizeof(keys) / sizeof(keys[0])) {
				fprintf(stderr, "c2ctui locks: unknown key '%s' (contended, wait_total, wait_max,"
					" wait_min, avg_wait)\n", optarg);
				return 2;
			}
			q.sort = (enum store_locks_sort)i;
			break;
		}
		case 'F':
			if (parse_list(optarg, "field", add_field, &f) < 0)
				return 2;
			break;
		case 'i': input = optarg; break;
		case OPT_FORMAT: format = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (strcmp(format, "text") && strcmp(format, "csv") && strcmp(format, "json")) {
		fprintf(stderr, "c2ctui locks: unknown format '%s' (text, csv or json)\n", format);
		return 2;
	}
	if (!input && optind < argc)
		input = argv[optind++];
	if (!input || optind < argc) {
		usage(stderr);
		return 2;
	}
	if (!ro.nfields) {
		static const int def[] = { RLF_CONTENDED, RLF_WAIT_TOTAL, RLF_WAIT_MAX, RLF_AVG_WAIT };
		memcpy(ro.fields, def, sizeof(def));
		ro.nfields = 4;
	}
	/* perf shows the sort key's column even when -F leaves it out: last. */
	static const int key_field[] = { RLF_CONTENDED, RLF_WAIT_TOTAL, RLF_WAIT_MAX, RLF_WAIT_MIN, RLF_AVG_WAIT };
	bool shown = false;
	for (size_t i = 0; i < ro.nfields; i++)
		shown |= ro.fields[i] == key_field[q.sort];
	if (!shown && ro.nfields < RLF__MAX)
		ro.fields[ro.nfields++] = key_field[q.sort];
	ro.by = q.by;
	q.types = f.types;
	q.ntypes = f.ntypes;
	q.addrs = f.addrs;
	q.naddrs = f.naddrs;
	q.syms = f.syms;
	q.nsyms = f.nsyms;

	struct session_input in;
	struct session_input_opts so = { .tmp_name = "locks" };
	if (session_input_open_for(&in, "locks", input, &so) < 0)
		return 1;
	struct store_lock_stat *rows = NULL;
	size_t n = 0;
	int rc = 0;
	if (store_query_perf_locks(in.store, &q, &rows, &n, &err) < 0) {
		fprintf(stderr, "c2ctui locks: %s\n", err.msg);
		rc = 1;
	} else if (!strcmp(format, "csv")) {
		report_locks_csv(stdout, &ro, rows, n);
	} else if (!strcmp(format, "json")) {
		report_locks_json(stdout, &ro, rows, n);
	} else {
		report_locks_text(stdout, &ro, rows, n);
	}
	free(rows);
	if (fflush(stdout) != 0 && !rc) {
		fprintf(stderr, "c2ctui locks: writing the report: %s\n", strerror(errno));
		rc = 1;
	}
	session_input_close(&in);
	return rc;
}
