/* The report as CSV: one record per row, the first field names the record
 * kind (trace, shared, line, pareto) and a header record precedes each kind,
 * so a spreadsheet or `grep '^line,'` takes what it needs. */
#include "tui/report/report.h"
#include "tui/report/escape.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

static void cpct(FILE *out, double v, int decimals)
{
	if (!isnan(v) && !isinf(v))
		fprintf(out, "%.*f", decimals, v);
}

static void cvalues(FILE *out, const char *kind, const struct report_value *v, size_t n)
{
	fprintf(out, "%s,key,label,value\n", kind);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s,%s,", kind, v[i].key);
		report_csv_str(out, v[i].label);
		fputc(',', out);
		if (v[i].kind == RV_COUNT)
			fprintf(out, "%" PRIu64, v[i].count);
		else
			cpct(out, v[i].percent, 1);
		fputc('\n', out);
	}
}

void report_csv_status(FILE *out, const char *kind, const struct store_status *s)
{
	fprintf(out, "%s,state,samples,lock_waits,bytes_dropped,bad_records,bad_features,why,note\n", kind);
	fprintf(out, "%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", kind, s->state_name, s->samples,
		s->lock_waits, s->bytes_dropped, s->bad_records, s->bad_features);
	report_csv_str(out, s->why);
	fputc(',', out);
	report_csv_str(out, s->note);
	fputc('\n', out);
}

int report_print_csv(const struct report_model *m, FILE *out)
{
	struct report_value v[64];
	size_t n;

	report_csv_status(out, "session", &m->status);

	n = report_trace_values(m, v, 64);
	cvalues(out, "trace", v, n);
	n = report_shared_values(m, v, 64);
	cvalues(out, "shared", v, n);
	if (m->opts.stats_only)
		return ferror(out) ? -1 : 0;

	fprintf(out, "line,index,address,node,pa_cnt,costly_pct,tot,lcl,rmt,records,loads,stores,st_l1hit,"
		"st_l1miss,st_na,ld_fbhit,ld_l1hit,ld_l2hit,ld_lclhit,ld_lclhitm,ld_rmthit,ld_rmthitm,dram_lcl,"
		"dram_rmt,symbol,dso\n");
	for (size_t i = 0; i < m->nlines; i++) {
		const struct report_line *l = &m->lines[i];
		struct report_line_cols c;

		report_line_cols(m, l, &c);
		fprintf(out, "line,%" PRIu64 ",0x%" PRIx64 ",%s,%" PRIu64 ",", l->row.rank,
			c2c_line_display(l->row.addr, m->sum.cacheline_size), c.node, c.pa_cnt);
		cpct(out, c.costly_pct, 2);
		fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",",
			c.tot, c.lcl, c.rmt, c.records, c.loads, c.stores, c.st_l1hit, c.st_l1miss, c.st_na,
			c.ld_fbhit, c.ld_l1hit, c.ld_l2hit, c.ld_lclhit, c.ld_lclhitm, c.ld_rmthit, c.ld_rmthitm,
			c.dram_lcl, c.dram_rmt);
		report_csv_str(out, l->row.symbol);
		fputc(',', out);
		report_csv_str(out, l->row.dso);
		fputc('\n', out);
	}

	fprintf(out, "pareto,line,rmt_pct,lcl_pct,st_l1hit_pct,st_l1miss_pct,st_na_pct,offset,node,pa_cnt,pid,tid,"
		"iaddr,cycles_rmt,cycles_lcl,cycles_load,records,cpu_cnt,symbol,object,source,nodes\n");
	for (size_t i = 0; i < m->nlines; i++) {
		const struct report_line *l = &m->lines[i];

		for (size_t j = 0; j < l->npareto; j++) {
			const struct store_pareto_row *r = &l->pareto[j];
			struct report_pareto_cols c;
			char cy[3][32];

			report_pareto_cols(m, l, j, &c);
			fprintf(out, "pareto,%" PRIu64 ",", l->row.rank);
			cpct(out, c.rmt_pct, 2);
			fputc(',', out);
			cpct(out, c.lcl_pct, 2);
			fputc(',', out);
			cpct(out, c.st_l1hit_pct, 2);
			fputc(',', out);
			cpct(out, c.st_l1miss_pct, 2);
			fputc(',', out);
			cpct(out, c.st_na_pct, 2);
			fprintf(out, ",0x%" PRIx64 ",%s,%" PRIu64 ",%d,%d,0x%" PRIx64 ",%s,%s,%s,%" PRIu64 ",%u,",
				c.offset, c.node, c.pa_cnt, r->pid, r->tid, r->iaddr,
				c2c_format_mean(cy[0], sizeof(cy[0]), c.cyc_rmt),
				c2c_format_mean(cy[1], sizeof(cy[1]), c.cyc_lcl),
				c2c_format_mean(cy[2], sizeof(cy[2]), c.cyc_load), c.records, c.cpu_cnt);
			report_csv_str(out, c.symbol);
			fputc(',', out);
			report_csv_str(out, c.object);
			fputc(',', out);
			report_csv_str(out, c.source);
			fputc(',', out);
			report_csv_str(out, c.nodes);
			fputc('\n', out);
		}
	}
	if (m->nlocks)
		fprintf(out, "lock,address,line,kind,waits,wait_ns,max_wait_ns,threads,sites,symbol,top_caller\n");
	for (size_t i = 0; i < m->nlocks; i++) {
		const struct store_lock_row *k = &m->locks[i];

		fprintf(out, "lock,0x%" PRIx64 ",0x%" PRIx64 ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%u,%u,", k->lock_addr,
			c2c_line_display(k->line_addr, m->sum.cacheline_size), store_lock_kind(k->flags), k->waits,
			k->wait_ns, k->max_wait_ns, k->nr_threads, k->nr_sites);
		/* empty when only a map name: the text report's "-" */
		report_csv_str(out, k->symbol[0] != '[' ? k->symbol : "");
		fputc(',', out);
		report_csv_str(out, m->top_site[i].function);
		fputc('\n', out);
	}
	return ferror(out) ? -1 : 0;
}
