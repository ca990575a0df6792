/* `c2ctui report S.db --types | --verdicts | --layout TYPE | --assign`:
 * the attributed types, every line's verdict with its evidence, and one
 * type's pahole-like layout with per-member statistics, the proposed
 * layout and its what-if, as text on stdout. */
#include "tui/cmd/commands.h"
#include "tui/report/layout_text.h"
#include "tui/report/verdict_text.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/layout/layout.h"
#include "store/types/typeinfo_ensure.h"
#include "tui/cmd/session_input.h"

static void print_line(void *ctx, const char *text)
{
	fprintf(ctx, "%s\n", text);
}

static void report_usage(FILE *out)
{
	fprintf(out,
		"usage: c2ctui report S.db --types | --layout TYPE | --verdicts [options]\n"
		"  --types             types the samples were attributed to, with how they were found\n"
		"  --layout TYPE       the type's layout with per-member statistics and flags, the\n"
		"                      proposed layout and its what-if estimate\n"
		"  --against BINARY    with --layout: replay against TYPE as laid out in BINARY instead\n"
		"  --verdicts          every line's verdict: false / true / mixed sharing with its\n"
		"                      evidence, potential (the pattern without the evidence), or\n"
		"                      no contention\n"
		"  --min-evidence N    HITM or peer-cache samples a line needs for false / true /\n"
		"                      mixed (default %u; 0: the access pattern alone)\n"
		"  --format text|csv|json  with --verdicts\n"
		"  --sort hitm|verdict with --verdicts: by HITM (default) or false, mixed, true,\n"
		"                      potential, no contention\n"
		"  --assign TYPE@ADDR  the object at ADDR is a TYPE: attribute its samples by hand\n"
		"                      (saved in the session when it is writable; every view and\n"
		"                      report uses it)\n"
		"  --debuginfo DIR     where separate debug files are\n"
		"  -k, --vmlinux FILE  the kernel image (with DWARF: kernel heap objects get their\n"
		"                      type and member); default: the one the import used\n"
		"  --kallsyms FILE, --symfs DIR  importing a perf.data (see import)\n"
		"  --no-attribute      use the session's attribution as it is\n",
		LAYOUT_MIN_EVIDENCE_DEFAULT);
}

/* A session read-only as it is, or a perf.data imported first (with the
 * import's -k/--kallsyms/--symfs), attributed for this run when it holds
 * no attribution (the file is never changed). */
static int open_attributed(struct session_input *in, const char *path, bool attribute, const char *dbgdir,
			   const struct session_input_opts *so, struct c2c_error *err)
{
	struct typeinfo_opts o = { .debuginfo_dir = dbgdir, .vmlinux = so->vmlinux, .symfs = so->symfs };
	int rc;

	if ((rc = session_input_open(in, path, so, err)) < 0)
		return rc;
	/* an import records the very image it used (-k under --symfs included) */
	if (in->imported)
		o.vmlinux = NULL;
	if (attribute && (rc = typeinfo_ensure(in->store, &o, err)) < 0)
		session_input_close(in);
	return rc;
}

/* Kernel samples: how many were attributed, and the share of kernel heap
 * samples (no data symbol: only the instruction and the image's DWARF can
 * type them) that reached a member. Nothing without kernel samples. */
static int report_kernel(struct store *st, struct c2c_error *err)
{
	struct typeinfo_kernel_stats k;

	if (typeinfo_query_kernel(st, &k, err) < 0)
		return -1;
	if (!k.samples)
		return 0;
	printf("\nKernel samples: %llu, attributed %llu (%.1f%%; global/insn/stack/manual %llu/%llu/%llu/%llu)\n",
	       (unsigned long long)k.samples, (unsigned long long)k.attributed,
	       100.0 * (double)k.attributed / (double)k.samples,
	       (unsigned long long)k.by_how[TYPES_HOW_GLOBAL], (unsigned long long)k.by_how[TYPES_HOW_INSN],
	       (unsigned long long)k.by_how[TYPES_HOW_STACK], (unsigned long long)k.by_how[TYPES_HOW_MANUAL]);
	printf("Kernel heap samples attributed to a member: %llu of %llu (%.1f%%)\n",
	       (unsigned long long)k.heap_member, (unsigned long long)k.heap,
	       k.heap ? 100.0 * (double)k.heap_member / (double)k.heap : 0.0);
	if (k.samples > k.attributed) {
		printf("Kernel samples unresolved: %llu; most often:", (unsigned long long)(k.samples - k.attributed));
		for (size_t i = 0; i < sizeof(k.why) / sizeof(k.why[0]) && k.why_n[i]; i++)
			printf("%s %llu %s", i ? ";" : "", (unsigned long long)k.why_n[i], k.why[i]);
		printf("\n");
	}
	return 0;
}

static int report_types(struct store *st, struct c2c_error *err)
{
	struct typeinfo_type_row *rows;
	size_t n;

	if (typeinfo_query_types(st, &rows, &n, err) < 0)
		return -1;
	printf("%-32s %6s %8s %8s %8s %8s %8s %7s  %s\n", "Type", "Size", "Objects", "Samples", "Loads",
	       "Stores", "LclHitm", "RmtHitm", "Found by (global/insn/stack/manual)");
	for (size_t i = 0; i < n; i++)
		printf("%-32.32s %6llu %8llu %8llu %8llu %8llu %8llu %7llu  %llu/%llu/%llu/%llu\n",
		       rows[i].type, (unsigned long long)rows[i].size,
		       (unsigned long long)rows[i].objects, (unsigned long long)rows[i].samples,
		       (unsigned long long)rows[i].loads, (unsigned long long)rows[i].stores,
		       (unsigned long long)rows[i].lcl_hitm, (unsigned long long)rows[i].rmt_hitm,
		       (unsigned long long)rows[i].by_how[TYPES_HOW_GLOBAL],
		       (unsigned long long)rows[i].by_how[TYPES_HOW_INSN],
		       (unsigned long long)rows[i].by_how[TYPES_HOW_STACK],
		       (unsigned long long)rows[i].by_how[TYPES_HOW_MANUAL]);
	free(rows);
	return report_kernel(st, err);
}

/* --sort verdict: false sharing first (what a layout change fixes), then
 * mixed, true, potential, no contention; HITM within each. */
static int verdict_rank(enum layout_verdict v)
{
	switch (v) {
	case LAYOUT_FALSE: return 0;
	case LAYOUT_MIXED: return 1;
	case LAYOUT_TRUE: return 2;
	case LAYOUT_POTENTIAL: return 3;
	default: return 4;
	}
}

static int by_verdict(const void *x, const void *y)
{
	const struct typeinfo_verdict_row *a = x, *b = y;
	int ra = verdict_rank(a->v.verdict), rb = verdict_rank(b->v.verdict);

	if (ra != rb)
		return ra - rb;
	if (a->hitm != b->hitm)
		return a->hitm > b->hitm ? -1 : 1;
	return a->line_addr < b->line_addr ? -1 : a->line_addr > b->line_addr;
}

static int report_verdicts(struct store *st, bool sort_verdict, int format, struct c2c_error *err)
{
	struct typeinfo_verdict_row *v;
	size_t n;
	char rule[160];

	if (typeinfo_query_verdicts(st, &v, &n, err) < 0)
		return -1;
	if (sort_verdict && n)
		qsort(v, n, sizeof(*v), by_verdict);
	if (format == 2) {
		verdict_csv_header(stdout);
		for (size_t i = 0; i < n; i++)
			verdict_csv(stdout, &v[i]);
		free(v);
		return 0;
	}
	if (format == 1) {
		printf("{\"min_evidence\":%u,\"lines\":[", typeinfo_min_evidence(st));
		for (size_t i = 0; i < n; i++) {
			if (i)
				putchar(',');
			verdict_json(stdout, &v[i]);
		}
		printf("]}\n");
		free(v);
		return 0;
	}
	printf("%-18s %6s %7s %-24s %-20s %9s %9s  %s\n", "Line", "Hitm", "Samples", "Verdict",
	       "Type", "Writers", "Others", "Members (contended)");
	for (size_t i = 0; i < n; i++) {
		char w[32], o[32], label[48];
		snprintf(w, sizeof(w), "%ut/%uc", v[i].v.writer_threads, v[i].v.writer_cpus);
		snprintf(o, sizeof(o), "%ut/%uc", v[i].v.other_threads, v[i].v.other_cpus);
		verdict_label(&v[i], label, sizeof(label));
		printf("%#-18llx %6llu %7llu %-24s %-20.20s %9s %9s  %s\n",
		       (unsigned long long)v[i].line_addr, (unsigned long long)v[i].hitm,
		       (unsigned long long)v[i].samples, label,
		       v[i].type[0] ? v[i].type : "-", w, o, v[i].keys);
		verdict_evidence_text(&v[i], print_line, stdout);
	}
	verdict_rule_text(typeinfo_min_evidence(st), rule, sizeof(rule));
	printf("%s\n", rule);
	free(v);
	return 0;
}

static int report_layout(struct store *st, const char *type, const char *against,
			 const char *dbgdir, struct c2c_error *err)
{
	struct layout l;
	struct layout_access *acc;
	size_t nacc;
	struct layout_plan p;
	struct layout_whatif w;
	struct layout_out out = { print_line, stdout };
	char name[160];
	int rc;

	/* "conn" means "struct conn" when that is what the session holds */
	snprintf(name, sizeof(name), "%s", type);
	if (typeinfo_layout(st, name, &l, &acc, &nacc, err) < 0) {
		snprintf(name, sizeof(name), "struct %s", type);
		if (typeinfo_layout(st, name, &l, &acc, &nacc, err) < 0)
			return -1;
	}
	layout_print(&l, &out);
	printf("\n");
	if (against) {
		struct types_db *db;
		struct layout la;
		uint32_t id;
		if (types_open_dwarf(&db, against, dbgdir, err) < 0) {
			rc = -1;
			goto out;
		}
		id = types_find(db, name);
		if (!id || layout_build(&la, db, id, l.line_size, err) < 0) {
			if (!id)
				c2c_error_set(err, -ENOENT, "%s has no %s", against, name);
			types_free(db);
			rc = -1;
			goto out;
		}
		rc = layout_plan_from_layout(&p, &la);
		layout_fini(&la);
		types_free(db);
	} else {
		rc = layout_propose(&p, &l);
	}
	if (rc == 0 && (rc = layout_whatif(&l, &p, acc, nacc, typeinfo_min_evidence(st), &w)) == 0) {
		plan_text(&l, &p, &w, against, print_line, stdout);
		layout_whatif_fini(&w);
	}
	if (rc == 0)
		layout_plan_fini(&p);
	else
		c2c_error_set(err, rc, "out of memory");
out:
	free(acc);
	layout_fini(&l);
	return rc < 0 ? -1 : 0;
}

int cmd_report_types(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "types", no_argument, NULL, 't' },
		{ "layout", required_argument, NULL, 'l' },
		{ "verdicts", no_argument, NULL, 'v' },
		{ "against", required_argument, NULL, 'a' },
		{ "debuginfo", required_argument, NULL, 'D' },
		{ "no-attribute", no_argument, NULL, 'A' },
		{ "assign", required_argument, NULL, 'S' },
		{ "sort", required_argument, NULL, 'o' },
		{ "min-evidence", required_argument, NULL, 'm' },
		{ "format", required_argument, NULL, 'f' },
		{ "input", required_argument, NULL, 'i' },
		{ "vmlinux", required_argument, NULL, 'k' },
		{ "kallsyms", required_argument, NULL, 'K' },
		{ "symfs", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *layout = NULL, *against = NULL, *dbgdir = NULL, *input = NULL, *assign = NULL;
	bool types = false, verdicts = false, attribute = true, sort_verdict = false;
	int format = 0;   /* 0 text, 1 json, 2 csv (--verdicts) */
	long min_evidence = -1;
	char *end;
	struct store *st;
	struct session_input in;
	struct session_input_opts so = { .tmp_name = "report" };
	struct c2c_error err = { 0 };
	int c, rc = 0;

	optind = 1;
	opterr = 1;
	while ((c = getopt_long(argc, argv, "hi:k:", longopts, NULL)) != -1) {
		switch (c) {
		case 't': types = true; break;
		case 'l': layout = optarg; break;
		case 'v': verdicts = true; break;
		case 'a': against = optarg; break;
		case 'D': dbgdir = optarg; break;
		case 'A': attribute = false; break;
		case 'i': input = optarg; break;
		case 'S': assign = optarg; break;
		case 'k': so.vmlinux = optarg; break;
		case 'K': so.kallsyms = optarg; break;
		case 'F': so.symfs = optarg; break;
		case 'o':
			if (!strcmp(optarg, "verdict"))
				sort_verdict = true;
			else if (strcmp(optarg, "hitm")) {
				fprintf(stderr, "c2ctui report: --sort hitm|verdict\n");
				return 2;
			}
			break;
		case 'm':
			min_evidence = strtol(optarg, &end, 10);
			if (end == optarg || *end || min_evidence < 0 || min_evidence > 1000000) {
				fprintf(stderr, "c2ctui report: --min-evidence wants a count (0..1000000)\n");
				return 2;
			}
			break;
		case 'f':
			if (!strcmp(optarg, "json"))
				format = 1;
			else if (!strcmp(optarg, "csv"))
				format = 2;
			else if (strcmp(optarg, "text")) {
				fprintf(stderr, "c2ctui report: --format text|csv|json with --verdicts\n");
				return 2;
			}
			break;
		case 'h': report_usage(stdout); return 0;
		default: report_usage(stderr); return 2;
		}
	}
	if (!input && optind < argc)
		input = argv[optind++];
	if (!input || optind != argc) {
		report_usage(stderr);
		return 2;
	}
	if (format && (!verdicts || types || layout)) {
		fprintf(stderr, "c2ctui report: --format csv|json goes with --verdicts alone\n");
		return 2;
	}
	if (open_attributed(&in, input, attribute, dbgdir, &so, &err) < 0) {
		fprintf(stderr, "c2ctui report: %s\n", err.msg);
		return 1;
	}
	st = in.store;
	if (min_evidence >= 0)
		typeinfo_set_min_evidence(st, (uint32_t)min_evidence);
	if (assign) {
		/* TYPE@ADDR: the object at ADDR is a TYPE (saved in the session) */
		char type[128];
		const char *at = strrchr(assign, '@');
		unsigned long long base;
		struct typeinfo_opts o = { .debuginfo_dir = dbgdir, .vmlinux = in.imported ? NULL : so.vmlinux,
					   .symfs = so.symfs };
		if (!at || at == assign || (size_t)(at - assign) >= sizeof(type)) {
			fprintf(stderr, "c2ctui report: --assign wants TYPE@ADDRESS\n");
			session_input_close(&in);
			return 2;
		}
		base = strtoull(at + 1, &end, 0);
		if (end == at + 1 || *end) {
			fprintf(stderr, "c2ctui report: bad address in --assign %s\n", assign);
			session_input_close(&in);
			return 2;
		}
		snprintf(type, sizeof(type), "%.*s", (int)(at - assign), assign);
		if (typeinfo_assign(st, base, type, NULL, &o, &err) < 0) {
			fprintf(stderr, "c2ctui report: %s\n", err.msg);
			session_input_close(&in);
			return 1;
		}
		/* The report itself reads only; the assignment the user asked
		 * for is saved beside what it computed, when the file allows. */
		bool saved = !in.imported && typeinfo_save(input, base, type, NULL, &err) == 0;
		printf("assigned %s to the object at %#llx (%s)\n", type, base,
		       saved ? "saved in the session" : "read-only: kept for this run");
	}
	if (types)
		rc = report_types(st, &err);
	if (rc == 0 && verdicts) {
		if (types)
			printf("\n");
		rc = report_verdicts(st, sort_verdict, format, &err);
	}
	if (rc == 0 && layout) {
		if (types || verdicts)
			printf("\n");
		rc = report_layout(st, layout, against, dbgdir, &err);
	}
	if (rc < 0)
		fprintf(stderr, "c2ctui report: %s\n", err.msg);
	session_input_close(&in);
	return rc < 0 ? 1 : 0;
}
