/* c2ctui layout TYPE [FILE]: a struct's layout straight from BTF or DWARF,
 * no session needed, in pahole's default form (rows, holes, cache line
 * comments, statistics) so that it can be checked against
 * `pahole -C TYPE FILE`; --format json for scripts. */
#include "tui/cmd/commands.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/layout/layout_pahole.h"
#include "collector/types/types.h"
#include "tui/report/layout_pahole.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: c2ctui layout TYPE [FILE] [--format text|json]\n"
		"  prints the layout of struct or union TYPE (\"struct NAME\" or NAME) as pahole\n"
		"  does by default: members with offset and size, holes, cache line boundaries\n"
		"  and the size/holes/padding summary\n"
		"  FILE                 raw BTF (default /sys/kernel/btf/vmlinux) or an ELF file:\n"
		"                       its DWARF, else its .BTF section\n"
		"  --format text|json   pahole's text (default) or JSON\n"
		"  --line-size N        cache line size in bytes (default 64)\n"
		"  --debuginfo DIR      where separate debug files are\n");
}

int cmd_layout(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "line-size", required_argument, NULL, 'L' },
		{ "debuginfo", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *type, *file = NULL, *dbgdir = NULL;
	struct c2c_error err = { 0 };
	struct types_db *db;
	struct layout_pahole p;
	unsigned long line_size = 64;
	bool json = false;
	char *end, tname[256];
	uint32_t id;
	int c;

	optind = 1;
	opterr = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "json"))
				json = true;
			else if (strcmp(optarg, "text")) {
				fprintf(stderr, "c2ctui layout: --format text|json\n");
				return 2;
			}
			break;
		case 'L':
			errno = 0;
			line_size = strtoul(optarg, &end, 0);
			if (errno || end == optarg || *end || line_size < 8 || line_size > 4096 ||
			    (line_size & (line_size - 1))) {
				fprintf(stderr, "c2ctui layout: --line-size wants a power of two from 8 to 4096\n");
				return 2;
			}
			break;
		case 'D': dbgdir = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc || argc - optind > 3) {
		usage(stderr);
		return 2;
	}
	/* "struct NAME" may come as one argument or two */
	if ((!strcmp(argv[optind], "struct") || !strcmp(argv[optind], "union")) &&
	    optind + 1 < argc) {
		snprintf(tname, sizeof(tname), "%s %s", argv[optind], argv[optind + 1]);
		optind++;
	} else {
		snprintf(tname, sizeof(tname), "%s", argv[optind]);
	}
	type = tname;
	if (optind + 1 < argc)
		file = argv[optind + 1];
	if (optind + 2 < argc) {
		usage(stderr);
		return 2;
	}
	if (types_open_file(&db, file, dbgdir, &err) < 0) {
		fprintf(stderr, "c2ctui layout: %s\n", err.msg);
		return 1;
	}
	id = types_find(db, type);
	if (!id) {
		fprintf(stderr, "c2ctui layout: no struct or union %s in %s\n", type, types_path(db));
		types_free(db);
		return 1;
	}
	if (layout_pahole_build(&p, db, id, (unsigned)line_size, &err) < 0) {
		fprintf(stderr, "c2ctui layout: %s: %s\n", type, err.msg);
		types_free(db);
		return 1;
	}
	if (json)
		layout_pahole_json(&p, types_path(db), stdout);
	else
		layout_pahole_text(&p, stdout);
	layout_pahole_fini(&p);
	types_free(db);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "c2ctui layout: writing the layout: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
