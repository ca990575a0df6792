/* The report as JSON (docs/report.md describes every key): every number
 * the text report shows, plus the raw counters of each line and row, for
 * scripts, CI and tests/e2e/compare_c2c.py. */
#include "tui/report/report.h"
#include "tui/report/escape.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

static void jkey(FILE *out, const char *k)
{
	report_json_str(out, k);
	fputc(':', out);
}

/* Percentages as perf prints them: 2 decimals (summary rows: 1). */
static void jpct(FILE *out, double v, int decimals)
{
	if (isnan(v) || isinf(v))
		fprintf(out, "null");
	else
		fprintf(out, "%.*f", decimals, v);
}

static void jhex(FILE *out, uint64_t v)
{
	fprintf(out, "\"0x%" PRIx64 "\"", v);
}

static void jstats(FILE *out, const struct c2c_stats *s)
{
	fputc('{', out);
	for (unsigned c = 0; c < C2C_COUNTER_MAX; c++) {
		if (c)
			fputc(',', out);
		jkey(out, c2c_counter_name((enum c2c_counter)c));
		fprintf(out, "%" PRIu64, c2c_stats_get(s, (enum c2c_counter)c));
	}
	fputc('}', out);
}

static void jvalues(FILE *out, const struct report_value *v, size_t n)
{
	fputc('[', out);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s{", i ? "," : "");
		jkey(out, "label");
		report_json_str(out, v[i].label);
		fputc(',', out);
		jkey(out, "key");
		report_json_str(out, v[i].key);
		fputc(',', out);
		jkey(out, "value");
		if (v[i].kind == RV_COUNT)
			fprintf(out, "%" PRIu64, v[i].count);
		else
			jpct(out, v[i].percent, 1);
		fputc('}', out);
	}
	fputc(']', out);
}

static void jmean(FILE *out, const char *key, double mean)
{
	char buf[32];

	jkey(out, key);
	fprintf(out, "%s", c2c_format_mean(buf, sizeof(buf), mean));
}

#define U(k, v) do { jkey(out, k); fprintf(out, "%" PRIu64 ",", (uint64_t)(v)); } while (0)

static void jpareto(const struct report_model *m, const struct report_line *l, size_t j, FILE *out)
{
	const struct store_pareto_row *r = &l->pareto[j];
	struct report_pareto_cols c;

	report_pareto_cols(m, l, j, &c);
	fputc('{', out);
	jkey(out, "rmt_pct"); jpct(out, c.rmt_pct, 2); fputc(',', out);
	jkey(out, "lcl_pct"); jpct(out, c.lcl_pct, 2); fputc(',', out);
	jkey(out, "st_l1hit_pct"); jpct(out, c.st_l1hit_pct, 2); fputc(',', out);
	jkey(out, "st_l1miss_pct"); jpct(out, c.st_l1miss_pct, 2); fputc(',', out);
	jkey(out, "st_na_pct"); jpct(out, c.st_na_pct, 2); fputc(',', out);
	jkey(out, "offset"); jhex(out, c.offset); fputc(',', out);
	jkey(out, "node"); report_json_str(out, c.node); fputc(',', out);
	U("pa_cnt", c.pa_cnt);
	jkey(out, "pid"); fprintf(out, "%d,", r->pid);
	jkey(out, "tid"); fprintf(out, "%d,", r->tid);
	jkey(out, "comm"); report_json_str(out, r->comm); fputc(',', out);
	jkey(out, "iaddr"); jhex(out, r->iaddr); fputc(',', out);
	jmean(out, "cycles_rmt", c.cyc_rmt); fputc(',', out);
	jmean(out, "cycles_lcl", c.cyc_lcl); fputc(',', out);
	jmean(out, "cycles_load", c.cyc_load); fputc(',', out);
	U("records", c.records);
	U("cpu_cnt", c.cpu_cnt);
	jkey(out, "symbol"); report_json_str(out, c.symbol); fputc(',', out);
	jkey(out, "function"); report_json_str(out, r->function); fputc(',', out);
	jkey(out, "object"); report_json_str(out, c.object); fputc(',', out);
	jkey(out, "source"); report_json_str(out, c.source); fputc(',', out);
	jkey(out, "nodes"); report_json_str(out, c.nodes); fputc(',', out);
	jkey(out, "stats"); jstats(out, &r->stats);
	fputc('}', out);
}

static void jline(const struct report_model *m, const struct report_line *l, FILE *out)
{
	struct report_line_cols c;

	report_line_cols(m, l, &c);
	fputc('{', out);
	U("index", l->row.rank);
	/* the line key's identity variant is not part of the address */
	jkey(out, "address"); jhex(out, c2c_line_display(l->row.addr, m->sum.cacheline_size)); fputc(',', out);
	jkey(out, "node"); report_json_str(out, c.node); fputc(',', out);
	U("pa_cnt", c.pa_cnt);
	jkey(out, "costly_pct"); jpct(out, c.costly_pct, 2); fputc(',', out);
	U("tot", c.tot); U("lcl", c.lcl); U("rmt", c.rmt);
	U("records", c.records); U("loads", c.loads); U("stores", c.stores);
	U("st_l1hit", c.st_l1hit); U("st_l1miss", c.st_l1miss); U("st_na", c.st_na);
	U("ld_fbhit", c.ld_fbhit); U("ld_l1hit", c.ld_l1hit); U("ld_l2hit", c.ld_l2hit);
	U("ld_lclhit", c.ld_lclhit); U("ld_lclhitm", c.ld_lclhitm);
	U("ld_rmthit", c.ld_rmthit); U("ld_rmthitm", c.ld_rmthitm);
	U("dram_lcl", c.dram_lcl); U("dram_rmt", c.dram_rmt);
	U("nr_cpus", l->row.nr_cpus); U("nr_threads", l->row.nr_threads);
	jkey(out, "symbol"); report_json_str(out, l->row.symbol); fputc(',', out);
	U("symbol_offset", l->row.symbol_offset);
	jkey(out, "dso"); report_json_str(out, l->row.dso); fputc(',', out);
	jkey(out, "stats"); jstats(out, &l->row.stats); fputc(',', out);
	jkey(out, "pareto");
	fputc('[', out);
	for (size_t j = 0; j < l->npareto; j++) {
		if (j)
			fputc(',', out);
		jpareto(m, l, j, out);
	}
	fputs("]}", out);
}

void report_json_status(FILE *out, const struct store_status *s)
{
	fputc('{', out);
	jkey(out, "state"); report_json_str(out, s->state_name); fputc(',', out);
	jkey(out, "complete"); fputs(s->state == STORE_STATE_COMPLETE ? "true," : "false,", out);
	jkey(out, "why"); s->why[0] ? report_json_str(out, s->why) : (void)fputs("null", out); fputc(',', out);
	jkey(out, "note"); s->note[0] ? report_json_str(out, s->note) : (void)fputs("null", out); fputc(',', out);
	jkey(out, "source_kind"); report_json_str(out, s->source_kind); fputc(',', out);
	U("samples", s->samples);
	U("lock_waits", s->lock_waits);
	U("bytes_dropped", s->bytes_dropped);
	U("unknown_records", s->unknown_records);
	U("bad_records", s->bad_records);
	U("unknown_features", s->unknown_features);
	jkey(out, "bad_features"); fprintf(out, "%" PRIu64 "}", s->bad_features);
}

int report_print_json(const struct report_model *m, FILE *out)
{
	struct report_value v[64];
	size_t n;

	fputc('{', out);
	U("c2ctui_report", 1);
	jkey(out, "input"); report_json_str(out, m->input); fputc(',', out);
	jkey(out, "session"); report_json_status(out, &m->status); fputc(',', out);
	jkey(out, "display"); report_json_str(out, c2c_display_key(m->display)); fputc(',', out);
	jkey(out, "sort_on"); report_json_str(out, report_sort_title(m)); fputc(',', out);
	jkey(out, "grouping"); report_json_str(out, m->cl_sort); fputc(',', out);
	jkey(out, "events");
	fputc('[', out);
	for (size_t i = 0; i < m->nevents; i++) {
		if (i)
			fputc(',', out);
		report_json_str(out, m->events[i].name);
	}
	fputs("],", out);
	n = report_trace_values(m, v, 64);
	jkey(out, "trace"); jvalues(out, v, n); fputc(',', out);
	n = report_shared_values(m, v, 64);
	jkey(out, "shared"); jvalues(out, v, n); fputc(',', out);
	jkey(out, "totals"); jstats(out, &m->sum.total); fputc(',', out);
	jkey(out, "shared_totals"); jstats(out, &m->sum.shared); fputc(',', out);
	U("samples", m->sum.nr_samples);
	U("lost_samples", m->sum.counters[STORE_CNT_LOST_SAMPLES]);
	U("cacheline_size", m->sum.cacheline_size);
	U("lines_total", m->lines_total);
	U("lock_waits", m->sum.lock_waits);
	U("lock_wait_ns", m->sum.lock_wait_ns);
	U("lock_wait_max_ns", m->sum.lock_wait_max_ns);
	jkey(out, "locks");
	fputc('[', out);
	for (size_t i = 0; i < m->nlocks; i++) {
		const struct store_lock_row *k = &m->locks[i];
		const struct store_lock_site_row *s = &m->top_site[i];

		fprintf(out, "%s{", i ? "," : "");
		jkey(out, "address"); fprintf(out, "\"0x%" PRIx64 "\",", k->lock_addr);
		jkey(out, "line"); fprintf(out, "\"0x%" PRIx64 "\",", c2c_line_display(k->line_addr, m->sum.cacheline_size));
		jkey(out, "kind"); report_json_str(out, store_lock_kind(k->flags)); fputc(',', out);
		/* a bare map name ("[kernel.kallsyms]", its "offset" the address
		 * itself) names no object: null, as the text report's "-" */
		if (k->symbol[0] && k->symbol[0] != '[') {
			jkey(out, "symbol"); report_json_str(out, k->symbol); fputc(',', out);
			U("symbol_offset", k->symbol_offset);
		} else {
			fputs("\"symbol\":null,\"symbol_offset\":null,", out);
		}
		U("waits", k->waits);
		U("wait_ns", k->wait_ns);
		U("max_wait_ns", k->max_wait_ns);
		U("threads", k->nr_threads);
		U("sites", k->nr_sites);
		if (s->function[0]) {
			jkey(out, "top_caller"); report_json_str(out, s->function); fputc(',', out);
			jkey(out, "top_caller_offset"); fprintf(out, "%" PRIu64 "}", s->offset);
		} else {
			fputs("\"top_caller\":null,\"top_caller_offset\":null}", out);
		}
	}
	fputs("],", out);
	jkey(out, "lines");
	fputc('[', out);
	for (size_t i = 0; i < m->nlines; i++) {
		if (i)
			fputc(',', out);
		jline(m, &m->lines[i], out);
	}
	fputs("]}\n", out);
	return ferror(out) ? -1 : 0;
}
