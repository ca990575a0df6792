/* `c2ctui diff BEFORE.db AFTER.db` and `c2ctui report --diff BEFORE.db
 * AFTER.db`: two sessions side by side (store/diff/diff.h matches them). In a
 * terminal `diff` opens the diff view; otherwise, or with --format, it
 * prints the same tables as text, CSV or JSON. Sessions without a type
 * attribution get one first (saved in them), so lines and members can be
 * matched by type. */
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

enum fmt { FMT_TEXT, FMT_CSV, FMT_JSON };

static void usage(FILE *out, const char *cmd)
{
	fprintf(out,
		"usage: c2ctui %s BEFORE.db AFTER.db [options]\n"
		"  --format FMT       text, csv or json (default: the diff view in a terminal, else text)\n"
		"  --debuginfo DIR    where to find separate debug files (build-id layout or NAME.debug)\n"
		"  --no-attribute     do not attribute samples to types first\n"
		"  -h, --help         this text\n"
		"Lines are matched by data symbol + offset, else by type + offset in the object,\n"
		"else by address; members of each type by name. Values are shown before -> after,\n"
		"and per second and per 1000 samples so runs of different length compare.\n",
		cmd);
}

/* Opens a session; attributes its samples to types when it has no
 * attribution yet (the result is saved in the session). */
static int open_session(const char *path, bool attribute, const char *dbgdir, struct store **out)
{
	struct typeinfo_open_opts o = { .attribute = attribute, .debuginfo_dir = dbgdir };
	struct c2c_error err = { 0 }, aerr = { 0 };
	int arc, rc;

	rc = typeinfo_open(path, &o, out, &arc, &aerr, &err);
	if (rc < 0) {
		fprintf(stderr, "c2ctui diff: %s\n", err.msg);
		return rc;
	}
	if (arc < 0)
		fprintf(stderr, "c2ctui diff: %s (continuing without types)\n", aerr.msg);
	return 0;
}

static void val(char *buf, size_t len, const struct diff_vals *v, uint64_t x)
{
	if (v->present)
		snprintf(buf, len, "%llu", (unsigned long long)x);
	else
		snprintf(buf, len, "-");
}

static void fval(char *buf, size_t len, const struct diff_vals *v, double x)
{
	if (v->present)
		snprintf(buf, len, "%.1f", x);
	else
		snprintf(buf, len, "-");
}

/* "20 -> 0 (-20)" */
static void pair(char *buf, size_t len, const struct diff_vals *b, uint64_t xb,
		 const struct diff_vals *a, uint64_t xa)
{
	char sb[24], sa[24];

	val(sb, sizeof(sb), b, xb);
	val(sa, sizeof(sa), a, xa);
	if (b->present && a->present)
		snprintf(buf, len, "%s -> %s (%+lld)", sb, sa, (long long)xa - (long long)xb);
	else
		snprintf(buf, len, "%s -> %s", sb, sa);
}

static void fpair(char *buf, size_t len, const struct diff_vals *b, double xb,
		  const struct diff_vals *a, double xa)
{
	char sb[24], sa[24];

	fval(sb, sizeof(sb), b, xb);
	fval(sa, sizeof(sa), a, xa);
	snprintf(buf, len, "%s -> %s", sb, sa);
}

static const char *verdict_of(const struct diff_vals *v)
{
	return v->present ? layout_verdict_name(v->verdict) : "-";
}


static void diff_print_text(const struct diff_result *r, FILE *out)
{
	const char *type = NULL;

	fprintf(out, "Before: %s  %llu samples  %.2f s  %llu HITM\n", r->before.path,
		(unsigned long long)r->before.samples, r->before.seconds,
		(unsigned long long)r->before.hitm);
	fprintf(out, "After:  %s  %llu samples  %.2f s  %llu HITM\n\n", r->after.path,
		(unsigned long long)r->after.samples, r->after.seconds,
		(unsigned long long)r->after.hitm);
	fprintf(out, "Cache lines (matched by data symbol, else type + offset in the object, else address)\n");
	fprintf(out, "  %-28s %-6s %-11s %-18s %-15s %-17s %-14s %-14s %-17s %s\n", "Key", "Match",
		"Status", "HITM", "HITM/s", "HITM/1k samples", "Loads", "Stores", "Load lat",
		"Verdict");
	for (size_t i = 0; i < r->nlines; i++) {
		const struct diff_line_row *l = &r->lines[i];
		char h[80], hs[80], hk[80], ld[80], st[80], lat[80], vd[32];

		pair(h, sizeof(h), &l->b, l->b.hitm, &l->a, l->a.hitm);
		fpair(hs, sizeof(hs), &l->b, l->b.hitm_per_s, &l->a, l->a.hitm_per_s);
		fpair(hk, sizeof(hk), &l->b, l->b.hitm_per_ksample, &l->a, l->a.hitm_per_ksample);
		pair(ld, sizeof(ld), &l->b, l->b.loads, &l->a, l->a.loads);
		pair(st, sizeof(st), &l->b, l->b.stores, &l->a, l->a.stores);
		fpair(lat, sizeof(lat), &l->b, l->b.lat, &l->a, l->a.lat);
		snprintf(vd, sizeof(vd), "%s -> %s", verdict_of(&l->b), verdict_of(&l->a));
		fprintf(out, "  %-28s %-6s %-11s %-18s %-15s %-17s %-14s %-14s %-17s %s\n", l->key,
			l->how, diff_status_name(l->status), h, hs, hk, ld, st, lat, vd);
	}
	for (size_t i = 0; i < r->nmembers; i++) {
		const struct diff_member_row *m = &r->members[i];
		char ob[24], oa[24], lb[16], la[16], h[80], ld[80], st[80], fl[24], name[160];

		if (!type || strcmp(type, m->type)) {
			type = m->type;
			fprintf(out, "\nLayout of %s, before | after (members aligned by name)\n", type);
			fprintf(out, "  %-26s %6s %4s %5s | %6s %4s %5s  %-18s %-16s %-16s %s\n",
				"Member", "Off", "Size", "Line", "Off", "Size", "Line", "HITM", "Loads",
				"Stores", "Flag");
		}
		snprintf(name, sizeof(name), "%*s%s", (int)(2 * m->depth), "", m->member);
		if (m->b.present) {
			snprintf(ob, sizeof(ob), "%llu", (unsigned long long)m->off_b);
			snprintf(lb, sizeof(lb), "%u", m->line_b);
		} else {
			snprintf(ob, sizeof(ob), "-");
			snprintf(lb, sizeof(lb), "-");
		}
		if (m->a.present) {
			snprintf(oa, sizeof(oa), "%llu", (unsigned long long)m->off_a);
			snprintf(la, sizeof(la), "%u", m->line_a);
		} else {
			snprintf(oa, sizeof(oa), "-");
			snprintf(la, sizeof(la), "-");
		}
		pair(h, sizeof(h), &m->b, m->b.hitm, &m->a, m->a.hitm);
		pair(ld, sizeof(ld), &m->b, m->b.loads, &m->a, m->a.loads);
		pair(st, sizeof(st), &m->b, m->b.stores, &m->a, m->a.stores);
		snprintf(fl, sizeof(fl), "%s -> %s", m->b.present ? (m->fs_b ? "FS" : "ok") : "-",
			 m->a.present ? (m->fs_a ? "FS" : "ok") : "-");
		fprintf(out, "  %-26.26s %6s %4llu %5s | %6s %4llu %5s  %-18s %-16s %-16s %s%s\n",
			name, ob, (unsigned long long)(m->b.present ? m->size_b : 0), lb, oa,
			(unsigned long long)(m->a.present ? m->size_a : 0), la, h, ld, st, fl,
			m->status == DIFF_MATCHED ? "" : m->status == DIFF_APPEARED ? " (new)"
											 : " (gone)");
	}
}

static void csv_vals(FILE *out, const struct diff_vals *v)
{
	if (!v->present) {
		fprintf(out, ",,,,,,,,,");
		return;
	}
	fprintf(out, ",%llu,%llu,%llu,%llu,%llu,%llu,%.3f,%.3f,%.2f", (unsigned long long)v->records,
		(unsigned long long)v->loads, (unsigned long long)v->stores,
		(unsigned long long)v->hitm, (unsigned long long)v->lcl_hitm,
		(unsigned long long)v->rmt_hitm, v->hitm_per_s, v->hitm_per_ksample, v->lat);
}

static void csv_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void print_csv(const struct diff_result *r, FILE *out)
{
	static const char vcols[] = "records,loads,stores,hitm,lcl_hitm,rmt_hitm,hitm_per_s,"
				    "hitm_per_1k_samples,load_lat";
	fprintf(out, "section,key,match,status,verdict_before,verdict_after");
	for (int s = 0; s < 2; s++) {
		char cols[256];
		snprintf(cols, sizeof(cols), "%s", vcols);
		for (char *t = strtok(cols, ","); t; t = strtok(NULL, ","))
			fprintf(out, ",%s_%s", s ? "after" : "before", t);
	}
	fprintf(out, ",off_before,off_after,line_before,line_after,fs_before,fs_after\n");
	for (size_t i = 0; i < r->nlines; i++) {
		const struct diff_line_row *l = &r->lines[i];
		fprintf(out, "line,");
		csv_str(out, l->key);
		fprintf(out, ",%s,%s,%s,%s", l->how, diff_status_name(l->status), verdict_of(&l->b),
			verdict_of(&l->a));
		csv_vals(out, &l->b);
		csv_vals(out, &l->a);
		fprintf(out, ",,,,,,\n");
	}
	for (size_t i = 0; i < r->nmembers; i++) {
		const struct diff_member_row *m = &r->members[i];
		char key[300];
		snprintf(key, sizeof(key), "%s.%s", m->type, m->member);
		fprintf(out, "member,");
		csv_str(out, key);
		fprintf(out, ",name,%s,,", diff_status_name(m->status));
		csv_vals(out, &m->b);
		csv_vals(out, &m->a);
		if (m->b.present)
			fprintf(out, ",%llu", (unsigned long long)m->off_b);
		else
			fprintf(out, ",");
		if (m->a.present)
			fprintf(out, ",%llu", (unsigned long long)m->off_a);
		else
			fprintf(out, ",");
		if (m->b.present)
			fprintf(out, ",%u", m->line_b);
		else
			fprintf(out, ",");
		if (m->a.present)
			fprintf(out, ",%u", m->line_a);
		else
			fprintf(out, ",");
		fprintf(out, ",%s,%s\n", m->b.present ? (m->fs_b ? "1" : "0") : "",
			m->a.present ? (m->fs_a ? "1" : "0") : "");
	}
}

static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(out, "\\u%04x", *s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

static void json_vals(FILE *out, const struct diff_vals *v)
{
	if (!v->present) {
		fprintf(out, "null");
		return;
	}
	fprintf(out, "{\"records\":%llu,\"loads\":%llu,\"stores\":%llu,\"hitm\":%llu,"
		"\"lcl_hitm\":%llu,\"rmt_hitm\":%llu,\"hitm_per_s\":%.3f,\"hitm_per_1k_samples\":%.3f,"
		"\"load_lat\":%.2f,\"verdict\":\"%s\"}",
		(unsigned long long)v->records, (unsigned long long)v->loads,
		(unsigned long long)v->stores, (unsigned long long)v->hitm,
		(unsigned long long)v->lcl_hitm, (unsigned long long)v->rmt_hitm, v->hitm_per_s,
		v->hitm_per_ksample, v->lat, layout_verdict_name(v->verdict));
}

static void print_json(const struct diff_result *r, FILE *out)
{
	const struct diff_session *ss[2] = { &r->before, &r->after };

	fprintf(out, "{");
	for (int s = 0; s < 2; s++) {
		fprintf(out, "%s\"%s\":{\"path\":", s ? "," : "", s ? "after" : "before");
		json_str(out, ss[s]->path);
		fprintf(out, ",\"samples\":%llu,\"seconds\":%.3f,\"hitm\":%llu}",
			(unsigned long long)ss[s]->samples, ss[s]->seconds,
			(unsigned long long)ss[s]->hitm);
	}
	fprintf(out, ",\"lines\":[");
	for (size_t i = 0; i < r->nlines; i++) {
		const struct diff_line_row *l = &r->lines[i];
		fprintf(out, "%s{\"key\":", i ? "," : "");
		json_str(out, l->key);
		fprintf(out, ",\"match\":\"%s\",\"status\":\"%s\",\"before\":", l->how,
			diff_status_name(l->status));
		json_vals(out, &l->b);
		fprintf(out, ",\"after\":");
		json_vals(out, &l->a);
		fprintf(out, "}");
	}
	fprintf(out, "],\"members\":[");
	for (size_t i = 0; i < r->nmembers; i++) {
		const struct diff_member_row *m = &r->members[i];
		fprintf(out, "%s{\"type\":", i ? "," : "");
		json_str(out, m->type);
		fprintf(out, ",\"member\":");
		json_str(out, m->member);
		fprintf(out, ",\"status\":\"%s\"", diff_status_name(m->status));
		if (m->b.present)
			fprintf(out, ",\"offset_before\":%llu,\"line_before\":%u,\"fs_before\":%s",
				(unsigned long long)m->off_b, m->line_b, m->fs_b ? "true" : "false");
		if (m->a.present)
			fprintf(out, ",\"offset_after\":%llu,\"line_after\":%u,\"fs_after\":%s",
				(unsigned long long)m->off_a, m->line_a, m->fs_a ? "true" : "false");
		fprintf(out, ",\"before\":");
		json_vals(out, &m->b);
		fprintf(out, ",\"after\":");
		json_vals(out, &m->a);
		fprintf(out, "}");
	}
	fprintf(out, "]}\n");
}

static int run(int argc, char **argv, const char *cmd, bool allow_tui)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "debuginfo", required_argument, NULL, 'D' },
		{ "no-attribute", no_argument, NULL, 'A' },
		{ "diff", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dbgdir = NULL;
	bool attribute = true, tui = allow_tui, have_fmt = false;
	enum fmt fmt = FMT_TEXT;
	struct store *sb = NULL, *sa = NULL;
	struct diff_result r;
	struct c2c_error err = { 0 };
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
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
	if (open_session(argv[optind], attribute, dbgdir, &sb) < 0)
		return 1;
	if (open_session(argv[optind + 1], attribute, dbgdir, &sa) < 0) {
		store_close(sb);
		return 1;
	}
	rc = diff_sessions(sb, sa, &r, &err);
	if (rc < 0) {
		fprintf(stderr, "c2ctui %s: %s\n", cmd, err.msg);
		store_close(sb);
		store_close(sa);
		return 1;
	}
	if (tui) {
		struct view_diff_arg arg = { .before = sb, .after = sa, .result = &r };
		struct tui_options o = { .title = argv[optind + 1], .first_view = &view_diff_ops,
					 .first_arg = &arg, .err = &err };
		rc = tui_explore(sa, &o);
		if (rc < 0)
			fprintf(stderr, "c2ctui %s: %s\n", cmd, err.msg);
	} else if (fmt == FMT_CSV) {
		print_csv(&r, stdout);
	} else if (fmt == FMT_JSON) {
		print_json(&r, stdout);
	} else {
		diff_print_text(&r, stdout);
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
