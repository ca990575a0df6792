/* The report's model: runs the store queries `c2ctui report` needs (summary,
 * events, the lines table, each line's Pareto rows) and derives every
 * printed number through collector/c2c/c2c.h, once, for the three printers. */
#include "tui/report/report.h"
#include "collector/base/appendf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The most waited-on locks and, for each, its most waited-on call site:
 * the report's "Lock Contention" section (the same queries as the TUI). */
static int model_locks(struct report_model *m, struct store *st, const struct store_filter *f,
		       struct c2c_error *err)
{
	int rc = store_query_locks(st, STORE_ALL_LINES, f, &m->locks, &m->nlocks, err);

	if (rc < 0)
		return rc;
	if (m->nlocks > REPORT_MAX_LOCKS)
		m->nlocks = REPORT_MAX_LOCKS;
	m->top_site = calloc(m->nlocks ? m->nlocks : 1, sizeof(*m->top_site));
	if (!m->top_site)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < m->nlocks; i++) {
		struct store_lock_site_row *sites = NULL;
		size_t n = 0;

		rc = store_query_lock_sites(st, m->locks[i].lock_addr, f, &sites, &n, err);
		if (rc < 0)
			return rc;
		if (n)
			m->top_site[i] = sites[0];
		free(sites);
	}
	return 0;
}

void report_filter_from_opts(struct store_filter *f, const struct report_opts *o)
{
	store_filter_init(f);
	f->time_from = o->time_from;
	f->time_to = o->time_to;
	f->double_cl = o->double_cl;
	f->phys_lines = o->phys_lines;
	f->cpus = o->cpus;
	f->nodes = o->nodes;
	f->pids = o->pids;
	f->tids = o->tids;
}

/* Lines with the same display counter: perf keeps them in its line-key
 * order (kernel before user samples, lines whose data address has a map
 * before those without, then address), the store in address order. The
 * keys come from one ordered scan, made only when there are ties. */
struct tie {
	struct store_line_row row;
	struct store_line_key key;
};

static int tie_cmp(const struct tie *a, const struct tie *b)
{
	return store_line_key_cmp(&a->key, a->row.addr, &b->key, b->row.addr);
}

static int order_ties(struct store *st, const struct store_filter *f, enum c2c_display d,
		      struct store_line_row *rows, size_t n, struct c2c_error *err)
{
	struct store_seq_line *seq;
	struct tie *t;
	bool ties = false;
	int rc;

	for (size_t i = 1; i < n && !ties; i++)
		ties = c2c_line_cmp(&rows[i - 1].stats, &rows[i].stats, d) == 0;
	if (!ties)
		return 0;
	seq = calloc(n, sizeof(*seq));
	t = calloc(n, sizeof(*t));
	if (!seq || !t) {
		free(seq);
		free(t);
		return c2c_error_set(err, -ENOMEM, "out of memory");
	}
	/* only lines in a tie need their key */
	size_t nseq = 0, *at = calloc(n, sizeof(*at));

	if (!at) {
		free(seq);
		free(t);
		return c2c_error_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		bool tied = (i > 0 && c2c_line_cmp(&rows[i - 1].stats, &rows[i].stats, d) == 0) ||
			    (i + 1 < n && c2c_line_cmp(&rows[i].stats, &rows[i + 1].stats, d) == 0);

		t[i].row = rows[i];
		at[i] = SIZE_MAX;
		if (tied) {
			at[i] = nseq;
			seq[nseq++].addr = rows[i].addr;
		}
	}
	rc = store_query_lines_seq(st, f, STORE_COALESCE_DEFAULT, seq, nseq, err);
	for (size_t i = 0; rc >= 0 && i < n; i++)
		if (at[i] != SIZE_MAX)
			t[i].key = seq[at[i]].key;
	free(at);
	/* stable insertion sort inside each run of equal display counters */
	for (size_t i = 0; rc >= 0 && i < n;) {
		size_t j = i + 1;

		while (j < n && c2c_line_cmp(&t[i].row.stats, &t[j].row.stats, d) == 0)
			j++;
		for (size_t a = i + 1; a < j; a++) {
			struct tie x = t[a];
			size_t b = a;

			for (; b > i && tie_cmp(&t[b - 1], &x) > 0; b--)
				t[b] = t[b - 1];
			t[b] = x;
		}
		i = j;
	}
	for (size_t i = 0; rc >= 0 && i < n; i++)
		rows[i] = t[i].row;
	free(seq);
	free(t);
	return rc < 0 ? rc : 0;
}

/* The numbers perf computes sample by sample (Node, PA cnt, the rows'
 * running means), for every printed line in one scan. */
static int fill_sequence(struct report_model *m, struct store *st, const struct store_filter *f,
			 struct c2c_error *err)
{
	struct store_seq_line *seq = calloc(m->nlines ? m->nlines : 1, sizeof(*seq));
	struct store_lat **lat = calloc(m->nlines ? m->nlines : 1, sizeof(*lat));
	int rc = 0;

	if (!seq || !lat)
		rc = c2c_error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; rc >= 0 && i < m->nlines; i++) {
		struct report_line *l = &m->lines[i];

		l->pareto_phys = calloc(l->npareto ? l->npareto : 1, sizeof(*l->pareto_phys));
		lat[i] = calloc(l->npareto ? l->npareto : 1, sizeof(**lat));
		if (m->opts.node_info)
			l->pareto_nodes = calloc(l->npareto ? l->npareto : 1, sizeof(*l->pareto_nodes));
		if (!l->pareto_phys || !lat[i] || (m->opts.node_info && !l->pareto_nodes)) {
			rc = c2c_error_set(err, -ENOMEM, "out of memory");
			break;
		}
		seq[i] = (struct store_seq_line){ .addr = l->row.addr, .rows = l->pareto, .nrows = l->npareto,
						  .row_phys = l->pareto_phys, .row_lat = lat[i],
						  .row_nodes = l->pareto_nodes };
	}
	if (rc >= 0)
		rc = store_query_lines_seq(st, f, m->opts.coalesce, seq, m->nlines, err);
	for (size_t i = 0; i < m->nlines; i++) {
		if (rc >= 0) {
			m->lines[i].phys = seq[i].phys;
			m->lines[i].key = seq[i].key;
			/* the rows' averages as perf keeps them: one running mean per row */
			for (size_t j = 0; j < m->lines[i].npareto; j++)
				m->lines[i].pareto[j].lat = lat[i][j];
		}
		if (lat)
			free(lat[i]);
	}
	free(lat);
	free(seq);
	return rc < 0 ? rc : 0;
}

int report_model_build(struct report_model *m, struct store *st, const char *input,
		       const struct report_opts *o, struct c2c_error *err)
{
	struct store_filter f;
	struct store_lines_query q;
	struct store_line_row *rows = NULL;
	size_t nrows = 0;
	bool truncate;
	int rc;

	memset(m, 0, sizeof(*m));
	m->input = input;
	m->opts = *o;
	report_filter_from_opts(&f, o);
	store_get_status(st, &m->status);
	/* the text says it only when the session is not complete (a complete
	 * one's notes are in the JSON and CSV): perf's layout stays perf's */
	if (m->status.state != STORE_STATE_COMPLETE)
		store_status_line(&m->status, input, m->status_line, sizeof(m->status_line));

	if (store_get_meta(st, STORE_META_ARCH, m->arch, sizeof(m->arch)) < 0)
		m->arch[0] = '\0';
	m->display = o->display_set ? o->display : c2c_display_default(m->arch);
	snprintf(m->cl_sort, sizeof(m->cl_sort), "offset,%s", o->coalesce_str[0] ? o->coalesce_str : "iaddr");

	/* CPU -> node from the recorded topology (perf's cpu2node) */
	for (int c = 0; c < 256; c++) {
		m->cpu_node[c] = store_cpu_node(st, (uint32_t)c);
		if (m->cpu_node[c] >= m->nr_nodes && m->cpu_node[c] < STORE_SEQ_MAX_NODES)
			m->nr_nodes = m->cpu_node[c] + 1;
	}

	rc = store_query_summary(st, &f, &m->sum, err);
	if (rc < 0)
		return rc;
	rc = store_query_events(st, &m->events, &m->nevents, err);
	if (rc < 0)
		return rc;
	if (o->stats_only)
		return 0;
	if (m->sum.lock_waits && (rc = model_locks(m, st, &f, err)) < 0)
		return rc;

	store_lines_query_init(&q);
	q.mode = (enum store_mode)m->display;
	q.sort = STORE_SORT_HITM;
	q.show_all = o->show_all;
	q.filter = f;
	q.limit = 0; /* ties are re-ordered below, then --lines applies */
	rc = store_query_lines(st, &q, &rows, &nrows, &m->lines_total, err);
	if (rc < 0)
		return rc;
	/* When --lines cuts the table, the ties decide which lines stay:
	 * order them first (a scan of their own). Otherwise the one scan
	 * below also brings the keys and the lines are re-ordered after it. */
	truncate = o->max_lines && nrows > o->max_lines;
	if (truncate) {
		rc = order_ties(st, &f, m->display, rows, nrows, err);
		if (rc < 0) {
			free(rows);
			return rc;
		}
		nrows = (size_t)o->max_lines;
	}
	m->lines = calloc(nrows ? nrows : 1, sizeof(*m->lines));
	if (!m->lines) {
		free(rows);
		return c2c_error_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < nrows; i++) {
		struct report_line *l = &m->lines[i];

		l->row = rows[i];
		l->row.rank = i;
		m->nlines++;
		/* perf hides Pareto rows without stores or a record of the
		 * display kind even with --show-all */
		rc = store_query_line_pareto(st, l->row.addr, &f, q.mode, o->coalesce, false,
					     &l->pareto, &l->npareto, err);
		if (rc < 0) {
			free(rows);
			return rc;
		}
	}
	free(rows);
	rc = fill_sequence(m, st, &f, err);
	if (rc < 0 || truncate)
		return rc;
	/* stable insertion sort of each run of equal display counters by
	 * perf's line key (the runs are short; no allocation needed) */
	for (size_t i = 0; i < m->nlines;) {
		size_t j = i + 1;

		while (j < m->nlines && c2c_line_cmp(&m->lines[i].row.stats, &m->lines[j].row.stats, m->display) == 0)
			j++;
		for (size_t a = i + 1; a < j; a++) {
			struct report_line x = m->lines[a];
			size_t b = a;

			for (; b > i && store_line_key_cmp(&m->lines[b - 1].key, m->lines[b - 1].row.addr,
							   &x.key, x.row.addr) > 0; b--)
				m->lines[b] = m->lines[b - 1];
			m->lines[b] = x;
		}
		i = j;
	}
	for (size_t i = 0; i < m->nlines; i++)
		m->lines[i].row.rank = i;
	return 0;
}

void report_model_fini(struct report_model *m)
{
	for (size_t i = 0; i < m->nlines; i++) {
		free(m->lines[i].pareto);
		free(m->lines[i].pareto_phys);
		free(m->lines[i].pareto_nodes);
	}
	free(m->lines);
	free(m->events);
	free(m->locks);
	free(m->top_site);
	memset(m, 0, sizeof(*m));
}

const char *report_sort_title(const struct report_model *m)
{
	return c2c_display_title(m->display);
}

/* ---- summaries ---- */

#define CNT(l, k, v) do { if (n < max) v_[n] = (struct report_value){ l, k, RV_COUNT, (v), 0 }; n++; } while (0)
#define PCT(l, k, num, den) do { if (n < max) v_[n] = (struct report_value){ l, k, RV_PERCENT, 0, \
	((double)(num) / (double)(den)) * 100. }; n++; } while (0)

size_t report_trace_values(const struct report_model *m, struct report_value *v_, size_t max)
{
	const struct c2c_stats *s = &m->sum.total;
	/* perf divides by an int: 0/0 gives perf's "-nan%" rows */
	int llc = (int)c2c_llc_misses(s);
	size_t n = 0;

	CNT("Total records", "nr_entries", s->nr_entries);
	CNT("Locked Load/Store Operations", "locks", s->locks);
	CNT("Load Operations", "load", s->load);
	CNT("Loads - uncacheable", "ld_uncache", s->ld_uncache);
	CNT("Loads - IO", "ld_io", s->ld_io);
	CNT("Loads - Miss", "ld_miss", s->ld_miss);
	CNT("Loads - no mapping", "ld_noadrs", s->ld_noadrs);
	CNT("Load Fill Buffer Hit", "ld_fbhit", s->ld_fbhit);
	CNT("Load L1D hit", "ld_l1hit", s->ld_l1hit);
	CNT("Load L2D hit", "ld_l2hit", s->ld_l2hit);
	CNT("Load LLC hit", "ld_llc_hit", c2c_llc_hit(s));
	CNT("Load Local HITM", "lcl_hitm", s->lcl_hitm);
	CNT("Load Remote HITM", "rmt_hitm", s->rmt_hitm);
	CNT("Load Remote HIT", "rmt_hit", s->rmt_hit);
	CNT("Load Local DRAM", "lcl_dram", s->lcl_dram);
	CNT("Load Remote DRAM", "rmt_dram", s->rmt_dram);
	CNT("Load MESI State Exclusive", "ld_excl", s->ld_excl);
	CNT("Load MESI State Shared", "ld_shared", s->ld_shared);
	CNT("Load LLC Misses", "llc_misses", (uint64_t)llc);
	CNT("Load access blocked by data", "blk_data", s->blk_data);
	CNT("Load access blocked by address", "blk_addr", s->blk_addr);
	CNT("Load HIT Local Peer", "lcl_peer", s->lcl_peer);
	CNT("Load HIT Remote Peer", "rmt_peer", s->rmt_peer);
	PCT("LLC Misses to Local DRAM", "llc_misses_lcl_dram_pct", s->lcl_dram, llc);
	PCT("LLC Misses to Remote DRAM", "llc_misses_rmt_dram_pct", s->rmt_dram, llc);
	PCT("LLC Misses to Remote cache (HIT)", "llc_misses_rmt_hit_pct", s->rmt_hit, llc);
	PCT("LLC Misses to Remote cache (HITM)", "llc_misses_rmt_hitm_pct", s->rmt_hitm, llc);
	CNT("Store Operations", "store", s->store);
	CNT("Store - uncacheable", "st_uncache", s->st_uncache);
	CNT("Store - no mapping", "st_noadrs", s->st_noadrs);
	CNT("Store L1D Hit", "st_l1hit", s->st_l1hit);
	CNT("Store L1D Miss", "st_l1miss", s->st_l1miss);
	CNT("Store No available memory level", "st_na", s->st_na);
	CNT("No Page Map Rejects", "nomap", s->nomap);
	CNT("Unable to parse data source", "noparse", s->noparse);
	return n;
}

size_t report_shared_values(const struct report_model *m, struct report_value *v_, size_t max)
{
	const struct c2c_stats *s = &m->sum.shared;
	size_t n = 0;

	CNT("Total Shared Cache Lines", "shared_lines", m->sum.nr_shared_lines);
	CNT("Load HITs on shared lines", "load", s->load);
	CNT("Fill Buffer Hits on shared lines", "ld_fbhit", s->ld_fbhit);
	CNT("L1D hits on shared lines", "ld_l1hit", s->ld_l1hit);
	CNT("L2D hits on shared lines", "ld_l2hit", s->ld_l2hit);
	CNT("LLC hits on shared lines", "ld_llc_hit", c2c_llc_hit(s));
	CNT("Load hits on peer cache or nodes", "peer", s->lcl_peer + s->rmt_peer);
	CNT("Locked Access on shared lines", "locks", s->locks);
	CNT("Blocked Access on shared lines", "blocked", s->blk_data + s->blk_addr);
	CNT("Store HITs on shared lines", "store", s->store);
	CNT("Store L1D hits on shared lines", "st_l1hit", s->st_l1hit);
	CNT("Store No available memory level", "st_na", s->st_na);
	CNT("Total Merged records", "merged", s->lcl_hitm + s->rmt_hitm + s->store);
	return n;
}

#undef CNT
#undef PCT

/* ---- lines and Pareto rows ---- */

/* perf's nodestr: the node list ("0", "0-1"), "N/A" when empty */
static void phys_node_str(uint64_t mask, char *buf, size_t size)
{
	if (!mask)
		snprintf(buf, size, "N/A");
	else
		c2c_bitmap_format(&mask, 64, buf, size);
}


void report_line_cols(const struct report_model *m, const struct report_line *l, struct report_line_cols *c)
{
	const struct c2c_stats *s = &l->row.stats;
	bool peer = m->display == C2C_DISPLAY_PEER;

	memset(c, 0, sizeof(*c));
	c->costly_pct = c2c_percent_costly(s, &m->sum.total, m->display);
	c->tot = peer ? s->tot_peer : s->lcl_hitm + s->rmt_hitm;
	c->lcl = peer ? s->lcl_peer : s->lcl_hitm;
	c->rmt = peer ? s->rmt_peer : s->rmt_hitm;
	c->records = c2c_total_records(s);
	c->loads = c2c_total_loads(s);
	c->stores = s->store;
	c->st_l1hit = s->st_l1hit;
	c->st_l1miss = s->st_l1miss;
	c->st_na = s->st_na;
	c->ld_fbhit = s->ld_fbhit;
	c->ld_l1hit = s->ld_l1hit;
	c->ld_l2hit = s->ld_l2hit;
	c->ld_lclhit = s->ld_llchit;
	c->ld_lclhitm = s->lcl_hitm;
	c->ld_rmthit = s->rmt_hit;
	c->ld_rmthitm = s->rmt_hitm;
	c->dram_lcl = s->lcl_dram;
	c->dram_rmt = s->rmt_dram;
	phys_node_str(l->phys.node_mask, c->node, sizeof(c->node));
	c->pa_cnt = l->phys.pa_cnt;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s && s[1] ? s + 1 : p;
}

/* perf -N: per node whose CPUs made the row's samples, "node{cpus %hitm
 * %stores}" (-N) or "node{cpu list}" (-NN); %hitm is the node's share of
 * the row's display counter, %stores of its stores ("n/a" when 0). */
static void format_node_detail(const struct report_model *m, const struct store_pareto_row *r,
			       const struct store_row_nodes *rn, char *buf, size_t size)
{
	size_t k = 0;
	bool first = true;

	buf[0] = '\0';
	for (int n = 0; n < m->nr_nodes && k + 1 < size; n++) {
		uint64_t set[4] = { 0 };
		unsigned num = 0;
		char cpus[160];

		for (int c = 0; c < 256; c++)
			if (m->cpu_node[c] == n && ((rn->cpus[c / 64] >> (c % 64)) & 1)) {
				set[c / 64] |= 1ull << (c % 64);
				num++;
			}
		if (!num) {
			if (m->opts.node_info == 1)
				k = c2c_appendf(buf, size, k, "%21s", " ");
			continue;
		}
		if (!first)
			k = c2c_appendf(buf, size, k, " ");
		first = false;
		if (k >= size)
			break;
		if (m->opts.node_info == 1) {
			uint64_t val = c2c_display_value(&rn->node[n], m->display);
			uint64_t sum = c2c_display_value(&r->stats, m->display);

			k = c2c_appendf(buf, size, k, "%2d{%2u ", n, num);
			if (k < size && sum)
				k = c2c_appendf(buf, size, k, "%5.1f%% ", c2c_percent(val, sum));
			else if (k < size)
				k = c2c_appendf(buf, size, k, "%6s ", "n/a");
			if (k < size && r->stats.store)
				k = c2c_appendf(buf, size, k, "%5.1f%%}",
						      c2c_percent(rn->node[n].store, r->stats.store));
			else if (k < size)
				k = c2c_appendf(buf, size, k, "%6s}", "n/a");
		} else {
			c2c_bitmap_format(set, 256, cpus, sizeof(cpus));
			k = c2c_appendf(buf, size, k, "%2d{%s}", n, cpus);
		}
	}
	if (k >= size)
		buf[size - 1] = '\0';
}

void report_pareto_cols(const struct report_model *m, const struct report_line *l, size_t j,
			struct report_pareto_cols *c)
{
	const struct store_pareto_row *r = &l->pareto[j];
	const struct c2c_stats *s = &r->stats, *ls = &l->row.stats;
	bool peer = m->display == C2C_DISPLAY_PEER;

	memset(c, 0, sizeof(*c));
	c->rmt_pct = peer ? c2c_percent(s->rmt_peer, ls->rmt_peer) : c2c_percent(s->rmt_hitm, ls->rmt_hitm);
	c->lcl_pct = peer ? c2c_percent(s->lcl_peer, ls->lcl_peer) : c2c_percent(s->lcl_hitm, ls->lcl_hitm);
	c->st_l1hit_pct = c2c_percent(s->st_l1hit, ls->st_l1hit);
	c->st_l1miss_pct = c2c_percent(s->st_l1miss, ls->st_l1miss);
	c->st_na_pct = c2c_percent(s->st_na, ls->st_na);
	c->offset = r->offset;
	phys_node_str(l->pareto_phys[j].node_mask, c->node, sizeof(c->node));
	c->pa_cnt = l->pareto_phys[j].pa_cnt;
	c->cyc_rmt = store_lat_avg(&r->lat, peer ? STORE_LAT_RMT_PEER : STORE_LAT_RMT_HITM);
	c->cyc_lcl = store_lat_avg(&r->lat, peer ? STORE_LAT_LCL_PEER : STORE_LAT_LCL_HITM);
	c->cyc_load = store_lat_avg(&r->lat, STORE_LAT_LOAD);
	c->records = c2c_total_records(s);
	c->cpu_cnt = r->nr_cpus;
	if (r->function[0])
		snprintf(c->symbol, sizeof(c->symbol), "%s %s",
			 r->iaddr >= 0xffff800000000000ull ? "[k]" : "[.]", r->function);
	else
		/* perf prints an unresolved ip relative to its binary */
		snprintf(c->symbol, sizeof(c->symbol), "%s 0x%016" PRIx64,
			 r->iaddr >= 0xffff800000000000ull ? "[k]" : "[.]", r->rel_addr ? r->rel_addr : r->iaddr);
	snprintf(c->object, sizeof(c->object), "%s",
		 r->dso[0] ? (m->opts.full_symbols ? r->dso : base_name(r->dso)) : "[unknown]");
	if (r->file[0] && r->line)
		snprintf(c->source, sizeof(c->source), "%s:%u", base_name(r->file), r->line);
	if (m->opts.node_info && l->pareto_nodes) {
		format_node_detail(m, r, &l->pareto_nodes[j], c->nodes, sizeof(c->nodes));
		return;
	}
	/* perf lists the nodes of the row's CPUs separated by spaces: "0 1" */
	for (size_t n = 0, k = 0; n < 64 && k + 4 < sizeof(c->nodes); n++)
		if (r->node_mask & (1ull << n))
			k = c2c_appendf(c->nodes, sizeof(c->nodes), k, "%s%zu", k ? " " : "", n);
}
