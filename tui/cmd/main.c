/* c2ctui entry point: picks the sub-command. */
#include "tui/cmd/commands.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
} commands[] = {
	{ "live",   cmd_live,   "live [-a] [-C cpus] [-p pid] [-- cmd args]   collect and watch in the TUI" },
	{ "record", cmd_record, "record -o S.db [...] [-- cmd]              collect without the TUI" },
	{ "import", cmd_import, "import perf.data -o S.db                   convert a perf recording" },
	{ "open",   cmd_open,   "open S.db|perf.data                        explore a session" },
	{ "diff",   cmd_diff,   "diff BEFORE.db AFTER.db                    compare two sessions" },
	{ "locks",  cmd_locks,  "locks S.db|perf.data [-t|-l] [-k KEY] [...]   perf lock contention's tables" },
	{ "report", cmd_report, "report S.db [--format text|csv|json]       tables without the TUI" },
	{ "layout", cmd_layout, "layout TYPE [FILE] [--format text|json]    a struct's layout from BTF/DWARF, as pahole prints it" },
	{ "sql",    cmd_sql,    "sql S.db 'SELECT ...'                      your own query over the session, as CSV" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: c2ctui COMMAND [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  c2ctui %s\n", commands[i].usage);
	fprintf(out, "\n'c2ctui COMMAND --help' describes a command's options.\n");
}

int main(int argc, char **argv)
{
	setlocale(LC_ALL, "");
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "c2ctui: unknown command '%s' (try 'c2ctui --help')\n", argv[1]);
	return 2;
}
