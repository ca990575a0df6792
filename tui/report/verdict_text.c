/* A line's verdict with its evidence (tui/report/verdict_text.h): the same
 * words in `report --verdicts` and in the explorer. */
#include "tui/report/verdict_text.h"

#include <string.h>

#include "collector/base/appendf.h"
#include "tui/report/escape.h"

void verdict_label(const struct typeinfo_verdict_row *r, char *buf, size_t len)
{
	if (r->v.verdict == LAYOUT_POTENTIAL)
		snprintf(buf, len, "potential (%llu sample%s)", (unsigned long long)r->samples,
			 r->samples == 1 ? "" : "s");
	else
		snprintf(buf, len, "%s", layout_verdict_name(r->v.verdict));
}

void verdict_rule_text(unsigned min_evidence, char *buf, size_t len)
{
	if (!min_evidence)
		snprintf(buf, len, "verdicts from the access pattern alone (--min-evidence 0)");
	else
		snprintf(buf, len,
			 "false/true/mixed: at least %u HITM or peer-cache samples on the line"
			 " (--min-evidence %u); fewer: potential", min_evidence, min_evidence);
}

static const char *or_dash(const char *s)
{
	return s[0] ? s : "-";
}

void verdict_evidence_text(const struct typeinfo_verdict_row *r, line_fn fn, void *ctx)
{
	const struct layout_verdict_info *v = &r->v;
	char t[512];
	size_t o = 0;

	if (!layout_verdict_contended(v->verdict))
		return;
	snprintf(t, sizeof(t), "    evidence: HITM %llu (lcl %llu, rmt %llu), peer %llu (lcl %llu, rmt %llu);"
		 " load samples %llu, store samples %llu",
		 (unsigned long long)(v->lcl_hitm + v->rmt_hitm), (unsigned long long)v->lcl_hitm,
		 (unsigned long long)v->rmt_hitm, (unsigned long long)(v->lcl_peer + v->rmt_peer),
		 (unsigned long long)v->lcl_peer, (unsigned long long)v->rmt_peer,
		 (unsigned long long)v->loads, (unsigned long long)v->stores);
	fn(ctx, t);
	snprintf(t, sizeof(t), "    writers: threads %s, CPUs %s; readers: threads %s, CPUs %s",
		 or_dash(r->writer_tids), or_dash(r->writer_cpus), or_dash(r->reader_tids),
		 or_dash(r->reader_cpus));
	fn(ctx, t);
	snprintf(t, sizeof(t), "    truly shared: %s; victims (falsely shared): %s", or_dash(r->shared),
		 or_dash(r->victims));
	fn(ctx, t);
	o = c2c_appendf(t, sizeof(t), 0, "    sites (HITM/peer, samples):");
	for (uint32_t i = 0; i < r->nsites; i++)
		o = c2c_appendf(t, sizeof(t), o, "%s %s (%llu, %llu)", i ? "," : "", r->sites[i],
				(unsigned long long)r->site_evidence[i],
				(unsigned long long)r->site_samples[i]);
	if (!r->nsites)
		c2c_appendf(t, sizeof(t), o, " -");
	fn(ctx, t);
}

static void json_words(FILE *out, const char *key, const char *s, char sep)
{
	char w[192];
	const char *p = s;

	fprintf(out, ",\"%s\":[", key);
	for (int first = 1; *p;) {
		const char *e = strchr(p, sep);
		size_t n = e ? (size_t)(e - p) : strlen(p);
		snprintf(w, sizeof(w), "%.*s", (int)n, p);
		if (n) {
			if (!first)
				fputc(',', out);
			report_json_str(out, w);
			first = 0;
		}
		p += n;
		if (*p)
			p++;
	}
	fputc(']', out);
}

void verdict_json(FILE *out, const struct typeinfo_verdict_row *r)
{
	const struct layout_verdict_info *v = &r->v;

	fprintf(out, "{\"line\":\"%#llx\",\"verdict\":\"%s\",\"pattern\":\"%s\",\"hitm\":%llu,"
		"\"samples\":%llu,\"type\":", (unsigned long long)r->line_addr,
		layout_verdict_key(v->verdict), layout_verdict_key(v->pattern),
		(unsigned long long)r->hitm, (unsigned long long)r->samples);
	report_json_str(out, r->type);
	fprintf(out, ",\"evidence\":{\"samples\":%llu,\"min\":%u,\"lcl_hitm\":%llu,\"rmt_hitm\":%llu,"
		"\"lcl_peer\":%llu,\"rmt_peer\":%llu},\"loads\":%llu,\"stores\":%llu",
		(unsigned long long)v->evidence, v->min_evidence, (unsigned long long)v->lcl_hitm,
		(unsigned long long)v->rmt_hitm, (unsigned long long)v->lcl_peer,
		(unsigned long long)v->rmt_peer, (unsigned long long)v->loads,
		(unsigned long long)v->stores);
	json_words(out, "writer_threads", r->writer_tids, ',');
	json_words(out, "writer_cpus", r->writer_cpus, ',');
	json_words(out, "reader_threads", r->reader_tids, ',');
	json_words(out, "reader_cpus", r->reader_cpus, ',');
	json_words(out, "shared", r->shared, ' ');
	json_words(out, "victims", r->victims, ' ');
	fputs(",\"sites\":[", out);
	for (uint32_t i = 0; i < r->nsites; i++) {
		fputs(i ? ",{\"site\":" : "{\"site\":", out);
		report_json_str(out, r->sites[i]);
		fprintf(out, ",\"evidence\":%llu,\"samples\":%llu}",
			(unsigned long long)r->site_evidence[i], (unsigned long long)r->site_samples[i]);
	}
	fputs("],\"members\":", out);
	report_json_str(out, r->keys);
	fputc('}', out);
}

void verdict_csv_header(FILE *out)
{
	fputs("line,verdict,pattern,hitm,samples,type,evidence,min_evidence,lcl_hitm,rmt_hitm,lcl_peer,"
	      "rmt_peer,loads,stores,writer_threads,writer_cpus,reader_threads,reader_cpus,shared,"
	      "victims,sites,members\n", out);
}

void verdict_csv(FILE *out, const struct typeinfo_verdict_row *r)
{
	const struct layout_verdict_info *v = &r->v;
	char sites[LAYOUT_VERDICT_SITES * 128];
	size_t o = 0;

	sites[0] = 0;
	for (uint32_t i = 0; i < r->nsites; i++)
		o = c2c_appendf(sites, sizeof(sites), o, "%s%s:%llu:%llu", i ? " " : "", r->sites[i],
				(unsigned long long)r->site_evidence[i],
				(unsigned long long)r->site_samples[i]);
	fprintf(out, "%#llx,%s,%s,%llu,%llu,", (unsigned long long)r->line_addr,
		layout_verdict_key(v->verdict), layout_verdict_key(v->pattern),
		(unsigned long long)r->hitm, (unsigned long long)r->samples);
	report_csv_str(out, r->type);
	fprintf(out, ",%llu,%u,%llu,%llu,%llu,%llu,%llu,%llu,", (unsigned long long)v->evidence,
		v->min_evidence, (unsigned long long)v->lcl_hitm, (unsigned long long)v->rmt_hitm,
		(unsigned long long)v->lcl_peer, (unsigned long long)v->rmt_peer,
		(unsigned long long)v->loads, (unsigned long long)v->stores);
	const char *f[] = { r->writer_tids, r->writer_cpus, r->reader_tids, r->reader_cpus,
			    r->shared, r->victims, sites, r->keys };
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (i)
			fputc(',', out);
		report_csv_str(out, f[i]);
	}
	fputc('\n', out);
}
