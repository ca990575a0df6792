/* The report as text, laid out like `perf c2c report --stdio` so the two
 * read side by side: the two summary sections, "c2c details", the Shared
 * Data Cache Line Table and the per-line Pareto sections; then the lock
 * section. A session of lock waits alone gets the details, one line saying
 * it has no memory samples and the lock section. */
#include "tui/report/report.h"

#include <inttypes.h>
#include <string.h>

#define BAR "=================================================\n"

static void section(FILE *out, const char *title)
{
	fprintf(out, BAR "%s\n" BAR, title);
}

static void print_values(FILE *out, const struct report_value *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (v[i].kind == RV_COUNT)
			fprintf(out, "  %-34s: %10" PRIu64 "\n", v[i].label, v[i].count);
		else
			fprintf(out, "  %-34s: %10.1f%%\n", v[i].label, v[i].percent);
	}
}

static void print_details(const struct report_model *m, FILE *out)
{
	section(out, "                 c2c details                     ");
	for (size_t i = 0; i < m->nevents; i++)
		fprintf(out, "%-36s: %s\n", i == 0 ? "  Events" : "", m->events[i].name);
	if (!m->nevents)
		fprintf(out, "%-36s: %s\n", "  Events", "(none)");
	fprintf(out, "  Cachelines sort on                : %s\n", report_sort_title(m));
	fprintf(out, "  Cacheline data grouping           : %s\n", m->cl_sort);
}

static void print_lines_table(const struct report_model *m, FILE *out)
{
	bool peer = m->display == C2C_DISPLAY_PEER;
	static const char *const pct_hdr[][2] = {
		[C2C_DISPLAY_TOT] = { "Tot", "Hitm" }, [C2C_DISPLAY_LCL] = { "Lcl", "Hitm" },
		[C2C_DISPLAY_RMT] = { "Rmt", "Hitm" }, [C2C_DISPLAY_PEER] = { "Peer", "Snoop" },
	};

	section(out, "           Shared Data Cache Line Table          ");
	fprintf(out, "#\n");
	fprintf(out, "#        ----------- Cacheline ----------  %7s  %s    Total    Total    Total  "
		"--------- Stores --------  ----- Core Load Hit -----  - LLC Load Hit --  - RMT Load Hit --  "
		"--- Load Dram ----\n", pct_hdr[m->display][0],
		peer ? "------- Load Peer -------" : "------- Load Hitm -------");
	fprintf(out, "# Index             Address  Node  PA cnt  %7s    Total  %7s  %7s  records    Loads   Stores"
		"    L1Hit   L1Miss      N/A       FB       L1       L2    LclHit  LclHitm    RmtHit  RmtHitm"
		"       Lcl       Rmt\n", pct_hdr[m->display][1], peer ? "Local" : "LclHitm", peer ? "Remote" : "RmtHitm");
	fprintf(out, "# .....  ..................  ....  ......  .......  .......  .......  .......  .......  .......  "
		".......  .......  .......  .......  .......  .......  .......  ........  .......  ........  "
		".......  ........  ........\n#\n");
	for (size_t i = 0; i < m->nlines; i++) {
		const struct report_line *l = &m->lines[i];
		struct report_line_cols c;
		char addr[32], pct[32];

		report_line_cols(m, l, &c);
		snprintf(addr, sizeof(addr), "0x%" PRIx64, c2c_line_display(l->row.addr, m->sum.cacheline_size));
		c2c_format_percent(pct, sizeof(pct), c.costly_pct);
		fprintf(out, "  %5" PRIu64 "  %18s  %4s  %6" PRIu64 "  %7s  %7" PRIu64 "  %7" PRIu64 "  %7" PRIu64
			"  %7" PRIu64 "  %7" PRIu64 "  %7" PRIu64 "  %7" PRIu64 "  %7" PRIu64 "  %7" PRIu64
			"  %7" PRIu64 "  %7" PRIu64 "  %7" PRIu64 "  %8" PRIu64 "  %7" PRIu64 "  %8" PRIu64
			"  %7" PRIu64 "  %8" PRIu64 "  %8" PRIu64 "\n",
			l->row.rank, addr, c.node, c.pa_cnt, pct, c.tot, c.lcl, c.rmt, c.records, c.loads, c.stores,
			c.st_l1hit, c.st_l1miss, c.st_na, c.ld_fbhit, c.ld_l1hit, c.ld_l2hit, c.ld_lclhit,
			c.ld_lclhitm, c.ld_rmthit, c.ld_rmthitm, c.dram_lcl, c.dram_rmt);
	}
}

static void print_pareto(const struct report_model *m, FILE *out)
{
	bool peer = m->display == C2C_DISPLAY_PEER;
	unsigned co = m->opts.coalesce;
	bool src = !m->opts.no_source;

	section(out, "      Shared Cache Line Distribution Pareto      ");
	fprintf(out, "#\n");
	if (!m->nlines)
		return;
	fprintf(out, "#        %s  ------- Store Refs ------  --------- Data address ---------  ",
		peer ? "-- Peer Snoop --" : "----- HITM -----");
	fprintf(out, "%s%s%s---------- cycles ----------    Total       cpu  %22s  %16s\n",
		co & STORE_COALESCE_PID ? "         " : "", co & STORE_COALESCE_TID ? "                        " : "",
		co & STORE_COALESCE_IADDR ? "                    " : "", "", "Shared");
	fprintf(out, "#   Num  %7s  %7s   L1 Hit  L1 Miss      N/A              Offset  Node  PA cnt  ",
		peer ? "Rmt" : "RmtHitm", peer ? "Lcl" : "LclHitm");
	if (co & STORE_COALESCE_PID)
		fprintf(out, "    Pid  ");
	if (co & STORE_COALESCE_TID)
		fprintf(out, "                   Tid  ");
	if (co & STORE_COALESCE_IADDR)
		fprintf(out, "      Code address  ");
	fprintf(out, "%8s  %8s      load  records       cnt  %22s  %16s  %s%s\n",
		peer ? "rmt peer" : "rmt hitm", peer ? "lcl peer" : "lcl hitm", "Symbol", "Object",
		src ? "                 Source:Line  " : "",
		m->opts.node_info == 0 ? "Node" : m->opts.node_info == 2 ? "Node{cpu list}"
		: peer ? "Node{cpus %peers %stores}" : "Node{cpus %hitms %stores}");
	for (size_t i = 0; i < m->nlines; i++) {
		const struct report_line *l = &m->lines[i];
		const struct c2c_stats *ls = &l->row.stats;
		char addr[32];

		snprintf(addr, sizeof(addr), "0x%" PRIx64, c2c_line_display(l->row.addr, m->sum.cacheline_size));
		if (i)
			fprintf(out, "\n");
		fprintf(out, "  ----------------------------------------------------------------------\n");
		fprintf(out, "  %5" PRIu64 "  %7" PRIu64 "  %7" PRIu64 "  %7" PRIu64 "  %7" PRIu64 "  %7" PRIu64
			"  %18s\n", l->row.rank, peer ? ls->rmt_peer : ls->rmt_hitm,
			peer ? ls->lcl_peer : ls->lcl_hitm, ls->st_l1hit, ls->st_l1miss, ls->st_na, addr);
		fprintf(out, "  ----------------------------------------------------------------------\n");
		for (size_t j = 0; j < l->npareto; j++) {
			const struct store_pareto_row *r = &l->pareto[j];
			struct report_pareto_cols c;
			char p[5][32], off[32], ia[32], cy[3][32];

			report_pareto_cols(m, l, j, &c);
			c2c_format_percent(p[0], sizeof(p[0]), c.rmt_pct);
			c2c_format_percent(p[1], sizeof(p[1]), c.lcl_pct);
			c2c_format_percent(p[2], sizeof(p[2]), c.st_l1hit_pct);
			c2c_format_percent(p[3], sizeof(p[3]), c.st_l1miss_pct);
			c2c_format_percent(p[4], sizeof(p[4]), c.st_na_pct);
			snprintf(off, sizeof(off), "0x%" PRIx64, c.offset);
			snprintf(ia, sizeof(ia), "0x%" PRIx64, r->iaddr);
			c2c_format_mean(cy[0], sizeof(cy[0]), c.cyc_rmt);
			c2c_format_mean(cy[1], sizeof(cy[1]), c.cyc_lcl);
			c2c_format_mean(cy[2], sizeof(cy[2]), c.cyc_load);
			fprintf(out, "         %7s  %7s  %7s  %7s  %7s  %18s  %4s  %6" PRIu64 "  ",
				p[0], p[1], p[2], p[3], p[4], off, c.node, c.pa_cnt);
			if (co & STORE_COALESCE_PID)
				fprintf(out, "%7d  ", r->pid);
			if (co & STORE_COALESCE_TID) {
				char tid[64];

				snprintf(tid, sizeof(tid), "%d:%s", r->tid, r->comm);
				fprintf(out, "%22s  ", tid);
			}
			if (co & STORE_COALESCE_IADDR)
				fprintf(out, "%18s  ", ia);
			fprintf(out, "%8s  %8s  %8s  %7" PRIu64 "  %8u  %22s  %16s  ", cy[0], cy[1], cy[2],
				c.records, c.cpu_cnt, c.symbol, c.object);
			if (src)
				fprintf(out, "%28s  ", c.source[0] ? c.source : "??:0");
			fprintf(out, "%s\n", c.nodes);
		}
	}
}

/* Not a perf c2c section: perf lock contention's view of the same
 * tracepoints, placed after perf's sections so those stay byte-compatible. */
static void print_locks(const struct report_model *m, FILE *out)
{
	section(out, "       Lock Contention (lock:contention_*)       ");
	fprintf(out, "  Lock waits                        : %10" PRIu64 "\n", m->sum.lock_waits);
	fprintf(out, "  Total wait                        : %10.3f ms\n", m->sum.lock_wait_ns / 1e6);
	fprintf(out, "  Longest wait                      : %10.3f ms\n", m->sum.lock_wait_max_ns / 1e6);
	fprintf(out, "#\n# %18s  %6s  %-12s %9s %12s %10s %10s %4s  %-40s %s\n", "Lock", "Off", "Kind", "Waits",
		"Total(ms)", "Max(ms)", "Avg(us)", "Thr", "Symbol", "Top caller");
	for (size_t i = 0; i < m->nlocks; i++) {
		const struct store_lock_row *k = &m->locks[i];
		const struct store_lock_site_row *s = &m->top_site[i];
		char sym[160] = "", caller[200] = "";

		/* a bare binary name ("[kernel.kallsyms]") names no object */
		if (k->symbol[0] && k->symbol[0] != '[')
			snprintf(sym, sizeof(sym), "%.120s+0x%" PRIx64, k->symbol, k->symbol_offset);
		if (s->function[0])
			snprintf(caller, sizeof(caller), "%.120s+0x%" PRIx64, s->function, s->offset);
		else if (s->ip)
			snprintf(caller, sizeof(caller), "0x%" PRIx64, s->ip);
		fprintf(out, "  0x%016" PRIx64 "  +0x%02" PRIx64 "  %-12s %9" PRIu64 " %12.3f %10.3f %10.3f %4u  %-40s %s\n",
			k->lock_addr, k->lock_addr - c2c_line_display(k->line_addr, m->sum.cacheline_size),
			store_lock_kind(k->flags), k->waits, k->wait_ns / 1e6, k->max_wait_ns / 1e6,
			k->waits ? k->wait_ns / 1e3 / (double)k->waits : 0.0, k->nr_threads, sym[0] ? sym : "-",
			caller[0] ? caller : "-");
	}
}

/* A session of lock waits alone (no memory-sampling PMU, e.g. a KVM
 * guest): perf's memory sections would be zeros and -nan%. */
static bool lock_only(const struct report_model *m)
{
	return m->sum.lock_waits && !c2c_total_loads(&m->sum.total) && !c2c_stores_total(&m->sum.total);
}

int report_print_text(const struct report_model *m, FILE *out)
{
	struct report_value v[64];
	size_t n;

	/* A session that is not complete says so before any number. */
	if (m->status_line[0])
		fprintf(out, "# %s\n\n", m->status_line);
	if (lock_only(m)) {
		/* the events, said once that there is no memory sample, the locks */
		print_details(m, out);
		fprintf(out, "\n  no memory samples in this session (%" PRIu64 " records: lock waits only)\n",
			m->sum.nr_samples);
		if (!m->opts.stats_only) {
			fprintf(out, "\n");
			print_locks(m, out);
		}
		return ferror(out) ? -1 : 0;
	}

	section(out, "            Trace Event Information              ");
	n = report_trace_values(m, v, 64);
	print_values(out, v, n);
	fprintf(out, "\n");
	section(out, "    Global Shared Cache Line Event Information   ");
	n = report_shared_values(m, v, 64);
	print_values(out, v, n);
	fprintf(out, "\n");
	print_details(m, out);
	if (m->opts.stats_only)
		return ferror(out) ? -1 : 0;
	fprintf(out, "\n");
	print_lines_table(m, out);
	fprintf(out, "\n");
	print_pareto(m, out);
	if (m->sum.lock_waits) {
		fprintf(out, "\n");
		print_locks(m, out);
	}
	return ferror(out) ? -1 : 0;
}
