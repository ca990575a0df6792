/* c2ctui sql S.db|perf.data 'SELECT ...': the user's own queries over a
 * session's tables (docs/schema.md), as CSV. Read-only: the session is
 * opened read-only and a statement that would write is refused. */
#include "tui/cmd/commands.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "store/store.h"
#include "tui/cmd/session_input.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: c2ctui sql S.db|perf.data 'SQL' [--no-header]\n"
		"  runs read-only SQL (SELECT, WITH, PRAGMA table_info(...)) over the session's\n"
		"  tables (docs/schema.md) and prints each statement's rows as CSV, a header\n"
		"  line first; statements are separated by a blank line\n"
		"      --no-header          rows only\n");
}

struct csv_out {
	FILE *f;
	bool header;
	int statements;
	int write_errno;      /* why writing a row failed (EPIPE: the reader went away) */
};

/* One CSV field: quoted when it holds a separator, a quote or a line end. */
static void csv_field(FILE *f, const char *v)
{
	if (!v)
		return;
	if (!strpbrk(v, ",\"\r\n")) {
		fputs(v, f);
		return;
	}
	fputc('"', f);
	for (; *v; v++) {
		if (*v == '"')
			fputc('"', f);
		fputc(*v, f);
	}
	fputc('"', f);
}

static int csv_row(void *ctx, int ncols, const char *const *names, const char *const *values)
{
	struct csv_out *o = ctx;
	const char *const *row = values ? values : names;

	if (!values) {
		if (o->statements++ && ncols)
			fputc('\n', o->f);
		if (!o->header || !ncols)
			return 0;
	}
	for (int i = 0; i < ncols; i++) {
		if (i)
			fputc(',', o->f);
		csv_field(o->f, row[i]);
	}
	fputc('\n', o->f);
	/* a closed pipe (| head) ends the query, not the process: the
	 * temporary session of a perf.data input is still removed */
	if (ferror(o->f)) {
		o->write_errno = errno;
		return -EIO;
	}
	return 0;
}

int cmd_sql(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "no-header", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct csv_out o = { .f = stdout, .header = true };
	struct c2c_error err = { 0 };
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'H': o.header = false; break;
		case 'h': usage(stdout); return 0;
		default:
			fprintf(stderr, "c2ctui sql: unknown option '%s' (try 'c2ctui sql --help')\n", argv[optind - 1]);
			return 2;
		}
	}
	if (argc - optind != 2) {
		usage(stderr);
		return 2;
	}
	const char *input = argv[optind], *sql = argv[optind + 1];

	signal(SIGPIPE, SIG_IGN);
	struct session_input in;
	struct session_input_opts so = { .tmp_name = "sql" };
	if (session_input_open_for(&in, "sql", input, &so) < 0)
		return 1;
	int rc = 0;
	if (store_sql(in.store, sql, csv_row, &o, &err) < 0 && !o.write_errno) {
		fprintf(stderr, "c2ctui sql: %s\n", err.msg);
		rc = 1;
	}
	if (!o.write_errno && fflush(stdout) != 0)
		o.write_errno = errno;
	session_input_close(&in);
	if (o.write_errno == EPIPE)
		return 128 + SIGPIPE;   /* the reader went away (| head): quietly, as perf does */
	if (o.write_errno) {
		fprintf(stderr, "c2ctui sql: writing the rows: %s\n", strerror(o.write_errno));
		return 1;
	}
	return rc;
}
