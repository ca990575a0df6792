/* The diff of two sessions as text, CSV and JSON (`c2ctui diff` and
 * `report --diff` without a terminal, or with --format): lines matched
 * across the runs (by the members they hold when types are known: split
 * and merged lines with the members that left or joined), then struct
 * members with their offsets, cache lines, counts, latency and line
 * verdicts in each build (moved ones marked), then code by function, then
 * kernel lock waits by caller and type. */
#include "tui/report/report_diff.h"
#include "tui/report/escape.h"
#include "tui/report/verdict_text.h"
#include "tui/report/report.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "collector/layout/layout.h"

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

/* Words in text ("no contention"), stable keys in CSV and JSON ("none"). */
static const char *verdict_of(const struct diff_vals *v)
{
	return v->present ? layout_verdict_name(v->verdict) : "-";
}

static const char *verdict_key_of(const struct diff_vals *v)
{
	return v->present ? layout_verdict_key(v->verdict) : "-";
}


static void session_line(const char *label, const struct diff_session *s, FILE *out)
{
	fprintf(out, "%s %s  %llu samples  %.2f s  %llu HITM", label, s->path,
		(unsigned long long)s->samples, s->seconds, (unsigned long long)s->hitm);
	if (s->has_locks)
		fprintf(out, "  %" PRIu64 " lock waits  %.3f ms waiting", s->lock_contended,
			(double)s->lock_wait_ns / 1e6);
	fputc('\n', out);
	if (s->status_line[0])
		fprintf(out, "  # %s\n", s->status_line);
}

/* lock values: "-" on the side that has no such row */
static void lval(char *buf, size_t len, const struct diff_lock_vals *v, uint64_t x)
{
	if (v->present)
		snprintf(buf, len, "%" PRIu64, x);
	else
		snprintf(buf, len, "-");
}

static void lfval(char *buf, size_t len, const struct diff_lock_vals *v, double x, int prec)
{
	if (v->present)
		snprintf(buf, len, "%.*f", prec, x);
	else
		snprintf(buf, len, "-");
}

static void lpair(char *buf, size_t len, const struct diff_lock_vals *b, uint64_t xb,
		  const struct diff_lock_vals *a, uint64_t xa)
{
	char sb[24], sa[24];

	lval(sb, sizeof(sb), b, xb);
	lval(sa, sizeof(sa), a, xa);
	if (b->present && a->present)
		snprintf(buf, len, "%s -> %s (%+lld)", sb, sa, (long long)xa - (long long)xb);
	else
		snprintf(buf, len, "%s -> %s", sb, sa);
}

/* ns shown as ms, 3 decimals (the ns are in CSV and JSON) */
static void lmspair(char *buf, size_t len, const struct diff_lock_vals *b, double xb,
		    const struct diff_lock_vals *a, double xa, bool delta)
{
	char sb[32], sa[32];

	lfval(sb, sizeof(sb), b, xb / 1e6, 3);
	lfval(sa, sizeof(sa), a, xa / 1e6, 3);
	if (delta && b->present && a->present)
		snprintf(buf, len, "%s -> %s (%+.3f)", sb, sa, (xa - xb) / 1e6);
	else
		snprintf(buf, len, "%s -> %s", sb, sa);
}

static void stale_note(const char *label, const struct diff_session *s, FILE *out)
{
	if (s->locks_stale)
		fprintf(out, "  (%s %s has lock waits but was imported before lock contention was stored:"
			" import it again)\n", label, s->path);
}

static void text_locks(const struct diff_result *r, FILE *out)
{
	if (!r->nlocks && !r->before.locks_stale && !r->after.locks_stale)
		return;
	fprintf(out, "\nLock waits (lock:contention_*, matched by caller and type as perf lock contention"
		" prints them; times in ms)\n");
	stale_note("before", &r->before, out);
	stale_note("after", &r->after, out);
	if (!r->nlocks)
		return;
	fprintf(out, "  %-32s %-11s %-11s %-22s %-19s %-34s %-23s %-21s %s\n", "Caller", "Type", "Status",
		"Waits", "Waits/s", "Total wait", "Wait/s", "Avg wait", "Max wait");
	for (size_t i = 0; i < r->nlocks; i++) {
		const struct diff_lock_row *l = &r->locks[i];
		char w[64], ws[64], t[80], ts[64], av[64], mx[64], bs[24], as[24];

		lpair(w, sizeof(w), &l->b, l->b.contended, &l->a, l->a.contended);
		lfval(bs, sizeof(bs), &l->b, l->b.contended_per_s, 1);
		lfval(as, sizeof(as), &l->a, l->a.contended_per_s, 1);
		snprintf(ws, sizeof(ws), "%s -> %s", bs, as);
		lmspair(t, sizeof(t), &l->b, (double)l->b.wait_total, &l->a, (double)l->a.wait_total, true);
		lmspair(ts, sizeof(ts), &l->b, l->b.wait_ns_per_s, &l->a, l->a.wait_ns_per_s, false);
		lmspair(av, sizeof(av), &l->b, (double)l->b.avg_wait, &l->a, (double)l->a.avg_wait, false);
		lmspair(mx, sizeof(mx), &l->b, (double)l->b.wait_max, &l->a, (double)l->a.wait_max, false);
		fprintf(out, "  %-32s %-11s %-11s %-22s %-19s %-34s %-23s %-21s %s\n", l->caller, l->kind,
			diff_status_name(l->status), w, ws, t, ts, av, mx);
	}
}

/* Under a split / merged line: each line of the group with its members,
 * then the members that left the main line or joined it. */
static void text_line_detail(const struct diff_line_row *l, FILE *out)
{
	for (uint32_t p = 0; p < l->nparts; p++) {
		const struct diff_line_part *pt = &l->parts[p];
		fprintf(out, "      %-6s %-24s %6llu HITM (%llu lcl, %llu rmt) %5llu loads %5llu stores"
			"  %-13s  members: %s\n", pt->after ? "after" : "before", pt->key,
			(unsigned long long)pt->v.hitm, (unsigned long long)pt->v.lcl_hitm,
			(unsigned long long)pt->v.rmt_hitm, (unsigned long long)pt->v.loads,
			(unsigned long long)pt->v.stores, layout_verdict_name(pt->v.verdict),
			pt->members[0] ? pt->members : "-");
	}
	if (l->left[0])
		fprintf(out, "      left:   %s\n", l->left);
	if (l->joined[0])
		fprintf(out, "      joined: %s\n", l->joined);
}

/* "30/0 -> 0/0": local/remote HITM */
static void hitm_lr(char *buf, size_t len, const struct diff_vals *b, const struct diff_vals *a)
{
	char sb[44], sa[44];

	if (b->present)
		snprintf(sb, sizeof(sb), "%llu/%llu", (unsigned long long)b->lcl_hitm,
			 (unsigned long long)b->rmt_hitm);
	else
		snprintf(sb, sizeof(sb), "-");
	if (a->present)
		snprintf(sa, sizeof(sa), "%llu/%llu", (unsigned long long)a->lcl_hitm,
			 (unsigned long long)a->rmt_hitm);
	else
		snprintf(sa, sizeof(sa), "-");
	snprintf(buf, len, "%s -> %s", sb, sa);
}

static void text_funcs(const struct diff_result *r, FILE *out)
{
	if (!r->nfuncs)
		return;
	fprintf(out, "\nCode by function (the sites of a function added: addresses differ between builds)\n");
	fprintf(out, "  %-28s %-11s %-9s %-18s %-18s %-18s %-16s %s\n", "Function", "Status", "Sites",
		"Loads", "Stores", "HITM", "Lcl/Rmt HITM", "Load lat");
	for (size_t i = 0; i < r->nfuncs; i++) {
		const struct diff_func_row *f = &r->funcs[i];
		char si[64], ld[80], st[80], h[80], lr[100], lat[80], sb[24], sa[24];

		val(sb, sizeof(sb), &f->b, f->b.nmerged);
		val(sa, sizeof(sa), &f->a, f->a.nmerged);
		snprintf(si, sizeof(si), "%s -> %s", sb, sa);
		pair(ld, sizeof(ld), &f->b, f->b.loads, &f->a, f->a.loads);
		pair(st, sizeof(st), &f->b, f->b.stores, &f->a, f->a.stores);
		pair(h, sizeof(h), &f->b, f->b.hitm, &f->a, f->a.hitm);
		hitm_lr(lr, sizeof(lr), &f->b, &f->a);
		fpair(lat, sizeof(lat), &f->b, f->b.lat, &f->a, f->a.lat);
		fprintf(out, "  %-28s %-11s %-9s %-18s %-18s %-18s %-16s %s\n", f->function,
			diff_status_name(f->status), si, ld, st, h, lr, lat);
	}
}

void report_diff_text(const struct diff_result *r, FILE *out)
{
	const char *type = NULL;

	session_line("Before:", &r->before, out);
	session_line("After: ", &r->after, out);
	fputc('\n', out);
	if (!r->nlines && (r->before.has_locks || r->after.has_locks)) {
		/* lock-only sessions: their lines are slab addresses of each
		 * run, with nothing to compare; the waits are compared below */
		fprintf(out, "Cache lines: no memory samples in either session\n");
	} else {
		char rule[160];
		fprintf(out, "Cache lines (matched by the members they hold, else data symbol, else type + offset"
			" in the object, else address)\n");
		verdict_rule_text(r->min_evidence, rule, sizeof(rule));
		fprintf(out, "Verdicts: %s\n", rule);
		fprintf(out, "  %-28s %-7s %-11s %-18s %-15s %-17s %-14s %-14s %-17s %s\n", "Key", "Match",
			"Status", "HITM", "HITM/s", "HITM/1k samples", "Loads", "Stores", "Load lat",
			"Verdict");
	}
	for (size_t i = 0; i < r->nlines; i++) {
		const struct diff_line_row *l = &r->lines[i];
		char h[80], hs[80], hk[80], ld[80], st[80], lat[80], vd[32], key[400];

		pair(h, sizeof(h), &l->b, l->b.hitm, &l->a, l->a.hitm);
		fpair(hs, sizeof(hs), &l->b, l->b.hitm_per_s, &l->a, l->a.hitm_per_s);
		fpair(hk, sizeof(hk), &l->b, l->b.hitm_per_ksample, &l->a, l->a.hitm_per_ksample);
		pair(ld, sizeof(ld), &l->b, l->b.loads, &l->a, l->a.loads);
		pair(st, sizeof(st), &l->b, l->b.stores, &l->a, l->a.stores);
		fpair(lat, sizeof(lat), &l->b, l->b.lat, &l->a, l->a.lat);
		snprintf(vd, sizeof(vd), "%s -> %s", verdict_of(&l->b), verdict_of(&l->a));
		if (l->key_a[0] && strcmp(l->key, l->key_a))
			snprintf(key, sizeof(key), "%s -> %s", l->key, l->key_a);
		else
			snprintf(key, sizeof(key), "%s", l->key);
		fprintf(out, "  %-28s %-7s %-11s %-18s %-15s %-17s %-14s %-14s %-17s %s\n", key,
			l->how, diff_status_name(l->status), h, hs, hk, ld, st, lat, vd);
		text_line_detail(l, out);
	}
	for (size_t i = 0; i < r->nmembers; i++) {
		const struct diff_member_row *m = &r->members[i];
		char ob[24], oa[24], lb[16], la[16], h[80], ld[80], st[80], fl[24], name[160];
		char lr[100], lat[80], vd[32], mv[40];

		if (!type || strcmp(type, m->type)) {
			type = m->type;
			fprintf(out, "\nLayout of %s, before | after (members aligned by name; moved: on"
				" another cache line after)\n", type);
			fprintf(out, "  %-26s %6s %4s %5s | %6s %4s %5s  %-18s %-16s %-16s %-8s %-16s %-15s %-30s %s\n",
				"Member", "Off", "Size", "Line", "Off", "Size", "Line", "HITM", "Loads",
				"Stores", "Flag", "Lcl/Rmt HITM", "Load lat", "Line verdict", "Moved");
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
		hitm_lr(lr, sizeof(lr), &m->b, &m->a);
		fpair(lat, sizeof(lat), &m->b, m->b.lat, &m->a, m->a.lat);
		snprintf(vd, sizeof(vd), "%s -> %s", verdict_of(&m->b), verdict_of(&m->a));
		if (m->moved)
			snprintf(mv, sizeof(mv), "moved %u -> %u", m->line_b, m->line_a);
		else
			snprintf(mv, sizeof(mv), "%s", m->status == DIFF_MATCHED ? "" : m->status == DIFF_APPEARED
							     ? "(new)" : "(gone)");
		fprintf(out, "  %-26.26s %6s %4llu %5s | %6s %4llu %5s  %-18s %-16s %-16s %-8s %-16s %-15s %-30s %s\n",
			name, ob, (unsigned long long)(m->b.present ? m->size_b : 0), lb, oa,
			(unsigned long long)(m->a.present ? m->size_a : 0), la, h, ld, st, fl, lr, lat, vd, mv);
	}
	text_funcs(r, out);
	text_locks(r, out);
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

/* perf lock contention's numbers (ns), then the per-second ones */
static const char lcols[] = "contended,acquired,wait_total_ns,wait_max_ns,wait_min_ns,avg_wait_ns,"
			    "contended_per_s,wait_ns_per_s";

static void csv_lock_vals(FILE *out, const struct diff_lock_vals *v)
{
	if (!v->present) {
		fprintf(out, ",,,,,,,,");
		return;
	}
	fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", v->contended, v->acquired,
		v->wait_total, v->wait_max);
	if (v->wait_min != UINT64_MAX)
		fprintf(out, "%" PRIu64, v->wait_min);
	fprintf(out, ",%" PRIu64 ",%.3f,%.1f", v->avg_wait, v->contended_per_s, v->wait_ns_per_s);
}

void report_diff_csv(const struct diff_result *r, FILE *out)
{
	static const char vcols[] = "records,loads,stores,hitm,lcl_hitm,rmt_hitm,hitm_per_s,"
				    "hitm_per_1k_samples,load_lat";
	report_csv_status(out, "session_before", &r->before.status);
	report_csv_status(out, "session_after", &r->after.status);
	fprintf(out, "section,key,match,status,verdict_before,verdict_after");
	for (int s = 0; s < 2; s++) {
		char cols[256];
		snprintf(cols, sizeof(cols), "%s", vcols);
		for (char *t = strtok(cols, ","); t; t = strtok(NULL, ","))
			fprintf(out, ",%s_%s", s ? "after" : "before", t);
	}
	fprintf(out, ",off_before,off_after,line_before,line_after,fs_before,fs_after,moved,key_after,"
		"members,members_left,members_joined\n");
	for (size_t i = 0; i < r->nlines; i++) {
		const struct diff_line_row *l = &r->lines[i];
		fprintf(out, "line,");
		report_csv_str(out, l->key);
		fprintf(out, ",%s,%s,%s,%s", l->how, diff_status_name(l->status), verdict_key_of(&l->b),
			verdict_key_of(&l->a));
		csv_vals(out, &l->b);
		csv_vals(out, &l->a);
		fprintf(out, ",,,,,,,,");
		report_csv_str(out, l->key_a);
		fputc(',', out);
		fputc(',', out);
		report_csv_str(out, l->left);
		fputc(',', out);
		report_csv_str(out, l->joined);
		fputc('\n', out);
		/* the lines of a split / merge: values on their session's side,
		 * the group's key in key_after */
		for (uint32_t p = 0; p < l->nparts; p++) {
			const struct diff_line_part *pt = &l->parts[p];
			static const struct diff_vals none;
			fprintf(out, "line_part,");
			report_csv_str(out, pt->key);
			fprintf(out, ",%s,%s,%s,%s", pt->after ? "after" : "before", diff_status_name(l->status),
				pt->after ? "" : verdict_key_of(&pt->v), pt->after ? verdict_key_of(&pt->v) : "");
			csv_vals(out, pt->after ? &none : &pt->v);
			csv_vals(out, pt->after ? &pt->v : &none);
			fprintf(out, ",,,,,,,,");
			report_csv_str(out, l->key);
			fputc(',', out);
			report_csv_str(out, pt->members);
			fprintf(out, ",,\n");
		}
	}
	for (size_t i = 0; i < r->nmembers; i++) {
		const struct diff_member_row *m = &r->members[i];
		char key[300];
		snprintf(key, sizeof(key), "%s.%s", m->type, m->member);
		fprintf(out, "member,");
		report_csv_str(out, key);
		fprintf(out, ",name,%s,%s,%s", diff_status_name(m->status), m->b.present ? verdict_key_of(&m->b) : "",
			m->a.present ? verdict_key_of(&m->a) : "");
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
		fprintf(out, ",%s,%s,%d,,,,\n", m->b.present ? (m->fs_b ? "1" : "0") : "",
			m->a.present ? (m->fs_a ? "1" : "0") : "", m->moved ? 1 : 0);
	}
	for (size_t i = 0; i < r->nfuncs; i++) {
		const struct diff_func_row *f = &r->funcs[i];
		fprintf(out, "function,");
		report_csv_str(out, f->function);
		fprintf(out, ",name,%s,,", diff_status_name(f->status));
		csv_vals(out, &f->b);
		csv_vals(out, &f->a);
		fprintf(out, ",,,,,,,,,,,\n");
	}
	if (!r->nlocks)
		return;
	/* the lock rows have columns of their own: a second header */
	fprintf(out, "section,caller,kind,status");
	for (int sd = 0; sd < 2; sd++) {
		char cols[256];
		snprintf(cols, sizeof(cols), "%s", lcols);
		for (char *t = strtok(cols, ","); t; t = strtok(NULL, ","))
			fprintf(out, ",%s_%s", sd ? "after" : "before", t);
	}
	fputc('\n', out);
	for (size_t i = 0; i < r->nlocks; i++) {
		const struct diff_lock_row *l = &r->locks[i];
		fprintf(out, "lock,");
		report_csv_str(out, l->caller);
		fprintf(out, ",%s,%s", l->kind, diff_status_name(l->status));
		csv_lock_vals(out, &l->b);
		csv_lock_vals(out, &l->a);
		fputc('\n', out);
	}
}

/* verdict: lines and members have one (a member: its line's); code does not */
static void json_vals_v(FILE *out, const struct diff_vals *v, bool verdict)
{
	if (!v->present) {
		fprintf(out, "null");
		return;
	}
	fprintf(out, "{\"records\":%llu,\"loads\":%llu,\"stores\":%llu,\"hitm\":%llu,"
		"\"lcl_hitm\":%llu,\"rmt_hitm\":%llu,\"hitm_per_s\":%.3f,\"hitm_per_1k_samples\":%.3f,"
		"\"load_lat\":%.2f",
		(unsigned long long)v->records, (unsigned long long)v->loads,
		(unsigned long long)v->stores, (unsigned long long)v->hitm,
		(unsigned long long)v->lcl_hitm, (unsigned long long)v->rmt_hitm, v->hitm_per_s,
		v->hitm_per_ksample, v->lat);
	if (verdict)
		fprintf(out, ",\"verdict\":\"%s\"", layout_verdict_key(v->verdict));
	fputc('}', out);
}

static void json_vals(FILE *out, const struct diff_vals *v)
{
	json_vals_v(out, v, true);
}

static void json_lock_vals(FILE *out, const struct diff_lock_vals *v)
{
	if (!v->present) {
		fprintf(out, "null");
		return;
	}
	fprintf(out, "{\"contended\":%" PRIu64 ",\"acquired\":%" PRIu64 ",\"wait_total_ns\":%" PRIu64
		",\"wait_max_ns\":%" PRIu64 ",\"wait_min_ns\":", v->contended, v->acquired, v->wait_total,
		v->wait_max);
	if (v->wait_min != UINT64_MAX)
		fprintf(out, "%" PRIu64, v->wait_min);
	else
		fprintf(out, "null");
	fprintf(out, ",\"avg_wait_ns\":%" PRIu64 ",\"contended_per_s\":%.3f,\"wait_ns_per_s\":%.1f,"
		"\"rows\":%u}", v->avg_wait, v->contended_per_s, v->wait_ns_per_s, v->nrows);
}

void report_diff_json(const struct diff_result *r, FILE *out)
{
	const struct diff_session *ss[2] = { &r->before, &r->after };

	fprintf(out, "{\"min_evidence\":%u", r->min_evidence);
	for (int s = 0; s < 2; s++) {
		fprintf(out, ",\"%s\":{\"path\":", s ? "after" : "before");
		report_json_str(out, ss[s]->path);
		fprintf(out, ",\"samples\":%llu,\"seconds\":%.3f,\"hitm\":%llu,\"lock_waits\":%" PRIu64
			",\"lock_wait_ns\":%" PRIu64 ",\"session\":",
			(unsigned long long)ss[s]->samples, ss[s]->seconds,
			(unsigned long long)ss[s]->hitm, ss[s]->lock_contended, ss[s]->lock_wait_ns);
		report_json_status(out, &ss[s]->status);
		fputc('}', out);
	}
	fprintf(out, ",\"lines\":[");
	for (size_t i = 0; i < r->nlines; i++) {
		const struct diff_line_row *l = &r->lines[i];
		fprintf(out, "%s{\"key\":", i ? "," : "");
		report_json_str(out, l->key);
		fprintf(out, ",\"key_after\":");
		report_json_str(out, l->key_a[0] ? l->key_a : l->key);
		fprintf(out, ",\"type\":");
		report_json_str(out, l->type);
		fprintf(out, ",\"match\":\"%s\",\"status\":\"%s\",\"before\":", l->how,
			diff_status_name(l->status));
		json_vals(out, &l->b);
		fprintf(out, ",\"after\":");
		json_vals(out, &l->a);
		fprintf(out, ",\"members_left\":");
		report_json_str(out, l->left);
		fprintf(out, ",\"members_joined\":");
		report_json_str(out, l->joined);
		fprintf(out, ",\"parts\":[");
		for (uint32_t p = 0; p < l->nparts; p++) {
			fprintf(out, "%s{\"session\":\"%s\",\"key\":", p ? "," : "",
				l->parts[p].after ? "after" : "before");
			report_json_str(out, l->parts[p].key);
			fprintf(out, ",\"members\":");
			report_json_str(out, l->parts[p].members);
			fprintf(out, ",\"values\":");
			json_vals(out, &l->parts[p].v);
			fputc('}', out);
		}
		fprintf(out, "]}");
	}
	fprintf(out, "],\"members\":[");
	for (size_t i = 0; i < r->nmembers; i++) {
		const struct diff_member_row *m = &r->members[i];
		fprintf(out, "%s{\"type\":", i ? "," : "");
		report_json_str(out, m->type);
		fprintf(out, ",\"member\":");
		report_json_str(out, m->member);
		fprintf(out, ",\"status\":\"%s\",\"moved\":%s", diff_status_name(m->status),
			m->moved ? "true" : "false");
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
	fprintf(out, "],\"functions\":[");
	for (size_t i = 0; i < r->nfuncs; i++) {
		const struct diff_func_row *f = &r->funcs[i];
		fprintf(out, "%s{\"function\":", i ? "," : "");
		report_json_str(out, f->function);
		fprintf(out, ",\"status\":\"%s\",\"sites_before\":%u,\"sites_after\":%u,\"before\":",
			diff_status_name(f->status), f->b.present ? f->b.nmerged : 0,
			f->a.present ? f->a.nmerged : 0);
		json_vals_v(out, &f->b, false);
		fprintf(out, ",\"after\":");
		json_vals_v(out, &f->a, false);
		fprintf(out, "}");
	}
	fprintf(out, "],\"locks\":[");
	for (size_t i = 0; i < r->nlocks; i++) {
		const struct diff_lock_row *l = &r->locks[i];
		fprintf(out, "%s{\"caller\":", i ? "," : "");
		report_json_str(out, l->caller);
		fprintf(out, ",\"kind\":");
		report_json_str(out, l->kind);
		fprintf(out, ",\"status\":\"%s\",\"before\":", diff_status_name(l->status));
		json_lock_vals(out, &l->b);
		fprintf(out, ",\"after\":");
		json_lock_vals(out, &l->a);
		fprintf(out, "}");
	}
	fprintf(out, "]}\n");
}

