/* One cache line: its offsets (per byte or per 8-byte word) with loads,
 * stores, HITM, peer, latency and a bar; the code sites that touch it
 * (perf's Pareto rows); a CPU x offset heat map beside the offsets when the
 * terminal is wide enough. Tab moves the cursor between the two tables;
 * Enter on an offset jumps to its code sites, Enter on a site opens it.
 * Locks waited on in the line come first, each with its kind, offset,
 * wait totals and the call sites the waits came from. `L` opens the layout
 * of the type the line's samples were attributed to (attributing the
 * session on first use), `a` assigns a type to the line's object by hand. */
#include "tui/explorer/view.h"
#include "collector/base/appendf.h"
#include "tui/explorer/view_layout.h"
#include "tui/term/term.h"

#include "store/types/typeinfo_ensure.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum sort_key { SK_OFF, SK_HITM, SK_LCL, SK_RMT, SK_PEER, SK_LOADS, SK_STORES, SK_LAT, SK_CPUS, SK_NAME,
		SK_RMT_CYC, SK_LCL_CYC, SK_RECORDS };

enum off_col { OC_OFF, OC_HITM, OC_LCL, OC_RMT, OC_STORES, OC_LOADS, OC_BAR, OC_FIELD, OC_PEER, OC_LAT,
	       OC_CPUS, OC__COUNT };
static const struct table_col off_cols[OC__COUNT] = {
	[OC_OFF]    = { "Off", 6, 0, TAL_LEFT, SK_OFF, 0 },
	[OC_HITM]   = { "Hitm", 6, 0, TAL_RIGHT, SK_HITM, 0 },
	[OC_LCL]    = { "Lcl", 6, 0, TAL_RIGHT, SK_LCL, 0 },
	[OC_RMT]    = { "Rmt", 6, 0, TAL_RIGHT, SK_RMT, 0 },
	[OC_STORES] = { "Stores", 7, 0, TAL_RIGHT, SK_STORES, 0 },
	[OC_LOADS]  = { "Loads", 7, 0, TAL_RIGHT, SK_LOADS, 0 },
	[OC_BAR]    = { "", 8, 0, TAL_LEFT, -1, 1 },
	[OC_FIELD]  = { "Data", 0, 12, TAL_LEFT, SK_NAME, 0 },
	[OC_PEER]   = { "Peer", 6, 0, TAL_RIGHT, SK_PEER, 0 },
	[OC_LAT]    = { "LdLat", 6, 0, TAL_RIGHT, SK_LAT, 0 },
	[OC_CPUS]   = { "CPUs", 4, 0, TAL_RIGHT, SK_CPUS, 0 },
};

/* perf's Pareto columns last (cycles of remote / local HITM, or peer
 * loads in peer mode, records), so narrower screens keep theirs. */
enum site_col { SC_OFF, SC_HITM, SC_LCL, SC_RMT, SC_STORES, SC_LOADS, SC_CODE, SC_SRC, SC_CPUS, SC_LAT,
		SC_RMT_CYC, SC_LCL_CYC, SC_RECORDS, SC__COUNT };
static const struct table_col site_cols[SC__COUNT] = {
	[SC_OFF]    = { "Off", 6, 0, TAL_LEFT, SK_OFF, 0 },
	[SC_HITM]   = { "Hitm", 6, 0, TAL_RIGHT, SK_HITM, 0 },
	[SC_LCL]    = { "Lcl", 6, 0, TAL_RIGHT, SK_LCL, 0 },
	[SC_RMT]    = { "Rmt", 6, 0, TAL_RIGHT, SK_RMT, 0 },
	[SC_STORES] = { "Stores", 7, 0, TAL_RIGHT, SK_STORES, 0 },
	[SC_LOADS]  = { "Loads", 7, 0, TAL_RIGHT, SK_LOADS, 0 },
	[SC_CODE]   = { "Code site", 0, 16, TAL_LEFT, SK_NAME, 0 },
	[SC_SRC]    = { "Source", 18, 0, TAL_LEFT, -1, 0 },
	[SC_CPUS]   = { "CPUs", 4, 0, TAL_RIGHT, SK_CPUS, 0 },
	[SC_LAT]    = { "LdLat", 6, 0, TAL_RIGHT, SK_LAT, 0 },
	[SC_RMT_CYC] = { "RmtCyc", 6, 0, TAL_RIGHT, SK_RMT_CYC, 0 },
	[SC_LCL_CYC] = { "LclCyc", 6, 0, TAL_RIGHT, SK_LCL_CYC, 0 },
	[SC_RECORDS] = { "Records", 7, 0, TAL_RIGHT, SK_RECORDS, 0 },
};

#define MAP_CPUS_MAX 96
#define LOCK_SITES_MAX 8       /* call sites listed per lock */

/* perf c2c report -c: the keys a line's code site rows are grouped by,
 * cycled with g (the first is perf's default). */
static const struct {
	unsigned keys;
	const char *name;
} groups[] = {
	{ STORE_COALESCE_IADDR, "iaddr" },
	{ STORE_COALESCE_PID | STORE_COALESCE_IADDR, "pid,iaddr" },
	{ STORE_COALESCE_TID | STORE_COALESCE_IADDR, "tid,iaddr" },
	{ STORE_COALESCE_PID | STORE_COALESCE_TID | STORE_COALESCE_IADDR, "pid,tid,iaddr" },
	{ STORE_COALESCE_DSO, "dso" },
};
#define NGROUPS ((int)(sizeof(groups) / sizeof(groups[0])))

struct line_priv {
	struct store_line_row info;
	struct store_offset_row *offs;
	size_t noffs;
	struct store_pareto_row *sites;
	size_t nsites;
	struct store_cell_row *cells;
	size_t ncells;
	uint32_t cpus[MAP_CPUS_MAX];
	int ncpus;
	int more_cpus;             /* touched CPUs beyond the map */
	struct table other;        /* the table without the cursor */
	int focus;                 /* 0: offsets have the cursor, 1: sites */
	int group;                 /* index into groups[]: the code sites' -c keys */
	int off_y, off_h;          /* pane rows, heading included */
	int site_y, site_h;
	int map_x, map_w;          /* CPU x offset map beside the offsets */
	bool words8;
	/* The lock section: one text row per lock and per call site. */
	char (*lock_text)[256];
	size_t nlock_text;
	int lock_y, lock_h;
	uint64_t lock_max_ns;
	/* Types: the arguments the layout / assign views borrow while they
	 * are above this view. */
	struct view_layout_arg layout_arg;
	struct view_assign_arg assign_arg;
};

static struct table *off_table(struct view *v)
{
	struct line_priv *p = v->priv;
	return p->focus == 0 ? &v->table : &p->other;
}

static struct table *site_table(struct view *v)
{
	struct line_priv *p = v->priv;
	return p->focus == 1 ? &v->table : &p->other;
}

static uint64_t key_of(const struct c2c_stats *s, const struct store_lat *lat, enum store_mode mode, int key)
{
	switch (key) {
	case SK_HITM: return view_hitm(s, mode);
	case SK_LCL: return s->lcl_hitm;
	case SK_RMT: return s->rmt_hitm;
	case SK_PEER: return s->tot_peer;
	case SK_LOADS: return c2c_total_loads(s);
	case SK_STORES: return s->store;   /* perf's Total stores, as report */
	case SK_LAT: return (uint64_t)(store_lat_avg(lat, STORE_LAT_LOAD) * 1000.0);
	case SK_RMT_CYC:
		return (uint64_t)(store_lat_avg(lat, mode == STORE_MODE_PEER ? STORE_LAT_RMT_PEER : STORE_LAT_RMT_HITM) * 1000.0);
	case SK_LCL_CYC:
		return (uint64_t)(store_lat_avg(lat, mode == STORE_MODE_PEER ? STORE_LAT_LCL_PEER : STORE_LAT_LCL_HITM) * 1000.0);
	case SK_RECORDS: return c2c_total_records(s);
	default: return 0;
	}
}

struct sort_ctx {
	int key;
	int desc;
	enum store_mode mode;
};

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* One row's sort fields: offset, name, CPUs, counters. */
struct sort_fields {
	uint64_t offset;
	const char *name;
	uint64_t nr_cpus;
	const struct c2c_stats *stats;
	const struct store_lat *lat;
};

static int cmp_fields(const struct sort_fields *x, const struct sort_fields *y, const struct sort_ctx *c)
{
	int r;

	if (c->key == SK_OFF)
		r = cmp_u64(x->offset, y->offset);
	else if (c->key == SK_NAME)
		r = strcmp(x->name, y->name);
	else if (c->key == SK_CPUS)
		r = cmp_u64(x->nr_cpus, y->nr_cpus);
	else
		r = cmp_u64(key_of(x->stats, x->lat, c->mode, c->key), key_of(y->stats, y->lat, c->mode, c->key));
	if (!r)
		r = cmp_u64(x->offset, y->offset) * (c->desc ? -1 : 1);
	return c->desc ? -r : r;
}

static int cmp_off(const void *a, const void *b, void *arg)
{
	const struct store_offset_row *x = a, *y = b;
	const struct sort_fields fx = { x->offset, x->symbol, x->nr_cpus, &x->stats, &x->lat };
	const struct sort_fields fy = { y->offset, y->symbol, y->nr_cpus, &y->stats, &y->lat };

	return cmp_fields(&fx, &fy, arg);
}

static int cmp_site(const void *a, const void *b, void *arg)
{
	const struct store_pareto_row *x = a, *y = b;
	const struct sort_fields fx = { x->offset, x->function, x->nr_cpus, &x->stats, &x->lat };
	const struct sort_fields fy = { y->offset, y->function, y->nr_cpus, &y->stats, &y->lat };

	return cmp_fields(&fx, &fy, arg);
}

static void line_sort(struct view *v)
{
	struct line_priv *p = v->priv;
	struct table *ot = off_table(v), *st = site_table(v);
	struct sort_ctx c = { .mode = v->ex->mode };

	if (ot->sort_col >= 0 && p->noffs) {
		c.key = ot->cols[ot->sort_col].sort_key;
		c.desc = ot->sort_desc;
		qsort_r(p->offs, p->noffs, sizeof(*p->offs), cmp_off, &c);
	}
	if (st->sort_col >= 0 && p->nsites) {
		c.key = st->cols[st->sort_col].sort_key;
		c.desc = st->sort_desc;
		qsort_r(p->sites, p->nsites, sizeof(*p->sites), cmp_site, &c);
	}
}

static void line_layout(struct view *v)
{
	struct line_priv *p = v->priv;
	struct table *ot = off_table(v), *st = site_table(v);
	int avail = v->h - 1, off_h;

	/* Locks first: what was waited on, up to a third of the body. */
	p->lock_y = v->y + 1;
	p->lock_h = (int)p->nlock_text;
	/* a line of lock waits alone leaves the tables little to show */
	if (p->lock_h > (p->noffs || p->nsites ? avail / 3 : avail - 4))
		p->lock_h = p->noffs || p->nsites ? avail / 3 : avail - 4;
	if (p->lock_h < 0)
		p->lock_h = 0;
	avail -= p->lock_h;
	/* Offsets take up to half the body, less when there are few. */
	off_h = (int)p->noffs + 1;
	if (off_h > avail / 2)
		off_h = avail / 2;
	if (off_h < 2)
		off_h = avail >= 4 ? 2 : avail;
	p->off_y = v->y + 1 + p->lock_h;
	p->off_h = off_h;
	p->site_y = p->off_y + off_h;
	p->site_h = avail - off_h;
	/* The heat map needs room for the table's key columns too. */
	p->map_w = 0;
	p->map_x = v->w;
	if (p->ncpus > 0 && v->w >= 110) {
		int mw = p->ncpus + 2;
		if (mw < 10)
			mw = 10;   /* room for the heading "CPU map" */
		if (mw > v->w - 80)
			mw = v->w - 80;
		if (mw >= 10) {
			p->map_w = mw;
			p->map_x = v->w - mw;
		}
	}
	table_resize(ot, off_h - 1, v->w - p->map_w);
	table_resize(st, p->site_h > 1 ? p->site_h - 1 : 0, v->w);
}

static void add_cpu(struct line_priv *p, uint32_t cpu)
{
	int i;

	for (i = 0; i < p->ncpus; i++)
		if (p->cpus[i] == cpu)
			return;
	if (p->ncpus >= MAP_CPUS_MAX) {
		p->more_cpus = 1;
		return;
	}
	/* Keep them ascending. */
	for (i = p->ncpus; i > 0 && p->cpus[i - 1] > cpu; i--)
		p->cpus[i] = p->cpus[i - 1];
	p->cpus[i] = cpu;
	p->ncpus++;
}

static void line_free_data(struct line_priv *p)
{
	free(p->lock_text);
	p->lock_text = NULL;
	p->nlock_text = 0;
	free(p->offs);
	free(p->sites);
	free(p->cells);
	p->offs = NULL;
	p->sites = NULL;
	p->cells = NULL;
	p->noffs = p->nsites = p->ncells = 0;
}

static int lock_add_text(struct line_priv *p, size_t *cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int lock_add_text(struct line_priv *p, size_t *cap, const char *fmt, ...)
{
	va_list ap;

	if (p->nlock_text == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		char (*t)[256] = realloc(p->lock_text, nc * sizeof(*t));
		if (!t)
			return -ENOMEM;
		p->lock_text = t;
		*cap = nc;
	}
	va_start(ap, fmt);
	vsnprintf(p->lock_text[p->nlock_text++], sizeof(p->lock_text[0]), fmt, ap);
	va_end(ap);
	return 0;
}

static void ms_text(char *buf, size_t size, uint64_t ns)
{
	if (ns >= 1000000)
		snprintf(buf, size, "%.1f ms", (double)ns / 1e6);
	else
		snprintf(buf, size, "%.1f us", (double)ns / 1e3);
}

/* "spinlock at +0x10 (sym+0x10): waited 1.2 ms total, 340 times, ..." and
 * below each lock its call sites, most waited-on first. */
static int lock_section(struct view *v, struct c2c_error *err)
{
	struct line_priv *p = v->priv;
	struct explorer *ex = v->ex;
	struct store_lock_row *locks = NULL;
	size_t nlocks = 0, cap = 0;
	int r;

	r = store_query_locks(ex->st, v->q.line, &ex->filter, &locks, &nlocks, err);
	if (r < 0)
		return r;
	p->lock_max_ns = 0;
	for (size_t i = 0; i < nlocks && r >= 0; i++) {
		const struct store_lock_row *k = &locks[i];
		struct store_lock_site_row *sites = NULL;
		size_t nsites = 0;
		char tot[32], max[32], sym[180] = "";

		/* a bare binary name ("[kernel.kallsyms]") names no object */
		if (k->symbol[0] && k->symbol[0] != '[')
			snprintf(sym, sizeof(sym), " (%.120s+0x%" PRIx64 ")", k->symbol, k->symbol_offset);
		ms_text(tot, sizeof(tot), k->wait_ns);
		ms_text(max, sizeof(max), k->max_wait_ns);
		r = lock_add_text(p, &cap, "%s at +0x%02" PRIx64 "%s: waited %s total, %" PRIu64
				  " time%s, max %s, %u thread%s, from:", store_lock_kind(k->flags),
				  k->lock_addr - c2c_line_display(v->q.line, ex->cacheline), sym, tot, k->waits, k->waits == 1 ? "" : "s", max,
				  k->nr_threads, k->nr_threads == 1 ? "" : "s");
		if (r < 0)
			break;
		if ((r = store_query_lock_sites(ex->st, k->lock_addr, &ex->filter, &sites, &nsites, err)) < 0)
			break;
		for (size_t j = 0; j < nsites && j < LOCK_SITES_MAX && r >= 0; j++) {
			const struct store_lock_site_row *s = &sites[j];
			char where[300];
			ms_text(tot, sizeof(tot), s->wait_ns);
			if (s->function[0])
				snprintf(where, sizeof(where), "%.127s+0x%" PRIx64 "%s%.127s", s->function, s->offset,
					 s->dso[0] ? " " : "", s->dso);
			else if (s->site)
				snprintf(where, sizeof(where), "0x%" PRIx64 "%s%.127s", s->ip, s->dso[0] ? " " : "",
					 s->dso);
			else
				snprintf(where, sizeof(where), "(no call chain)");
			r = lock_add_text(p, &cap, "  %10s %6" PRIu64 " waits  %s", tot, s->waits, where);
		}
		if (r >= 0 && nsites > LOCK_SITES_MAX)
			r = lock_add_text(p, &cap, "  ... %zu more call sites", nsites - LOCK_SITES_MAX);
		free(sites);
		if (k->wait_ns > p->lock_max_ns)
			p->lock_max_ns = k->wait_ns;
	}
	free(locks);
	if (r == -ENOMEM)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	return r < 0 ? r : 0;
}

static int line_open(struct view *v, struct c2c_error *err)
{
	struct line_priv *p = v->priv;
	struct explorer *ex = v->ex;
	int r;

	if (!v->table.cols) {
		table_init(&v->table, off_cols, OC__COUNT);
		table_init(&p->other, site_cols, SC__COUNT);
		v->table.sort_col = OC_OFF;
		v->table.sort_desc = 0;
		p->words8 = v->q.words8;
	}
	line_free_data(p);
	r = store_query_line(ex->st, v->q.line, &ex->filter, &p->info, err);
	if (r == -ENOENT) {
		memset(&p->info, 0, sizeof(p->info));
		p->info.addr = v->q.line;
		p->info.home_node = -1;
	} else if (r < 0) {
		return r;
	}
	r = store_query_line_offsets(ex->st, v->q.line, &ex->filter, p->words8, &p->offs, &p->noffs, err);
	if (r < 0)
		return r;
	r = store_query_line_pareto(ex->st, v->q.line, &ex->filter, ex->mode, groups[p->group].keys, false,
				    &p->sites, &p->nsites, err);
	if (r < 0)
		return r;
	r = store_query_line_matrix(ex->st, v->q.line, &ex->filter, &p->cells, &p->ncells, err);
	if (r < 0)
		return r;
	p->ncpus = 0;
	p->more_cpus = 0;
	for (size_t i = 0; i < p->ncells; i++)
		add_cpu(p, p->cells[i].cpu);
	if (p->info.lock_waits && (r = lock_section(v, err)) < 0)
		return r;
	line_sort(v);
	table_set_rows(off_table(v), (long)p->noffs);
	table_set_rows(site_table(v), (long)p->nsites);
	line_layout(v);
	return 0;
}

static void line_close(struct view *v)
{
	struct line_priv *p = v->priv;

	line_free_data(p);
}

static void off_text(const struct store_offset_row *o, char *buf, size_t size, bool words8)
{
	if (words8)
		snprintf(buf, size, "0x%02" PRIx64 "w", o->offset);
	else
		snprintf(buf, size, "0x%02" PRIx64, o->offset);
}

static uint64_t max_off_hitm(const struct line_priv *p, enum store_mode mode)
{
	uint64_t m = 0;

	for (size_t i = 0; i < p->noffs; i++) {
		uint64_t h = view_hitm(&p->offs[i].stats, mode) + c2c_stores_total(&p->offs[i].stats);
		if (h > m)
			m = h;
	}
	return m;
}

static double cell_heat(const struct line_priv *p, uint64_t offset, uint32_t cpu, bool words8, uint64_t *max)
{
	uint64_t v = 0;

	if (!*max)
		for (size_t i = 0; i < p->ncells; i++)
			if (c2c_total_records(&p->cells[i].stats) > *max)
				*max = c2c_total_records(&p->cells[i].stats);
	for (size_t i = 0; i < p->ncells; i++) {
		uint64_t o = words8 ? p->cells[i].offset & ~7ull : p->cells[i].offset;
		if (o == offset && p->cells[i].cpu == cpu)
			v += c2c_total_records(&p->cells[i].stats);
	}
	return *max ? (double)v / (double)*max : 0.0;
}


/* The offsets' data field and the sites' code cell, for drawing and for
 * search (which matches what the screen shows). */
static void off_field_text(const struct store_offset_row *o, char *buf, size_t size)
{
	if (o->symbol[0])
		snprintf(buf, size, "%s+0x%" PRIx64, o->symbol, o->symbol_offset);
	else
		snprintf(buf, size, "-");
}


/* The row's keys as perf prints them: "pid:tid comm" before the code
 * (when they are keys), the dso alone when the code address is not one. */
static void site_code_text(const struct store_pareto_row *s, char *buf, size_t size)
{
	size_t n = 0;

	if (s->pid >= 0 && s->tid >= 0)
		n = c2c_appendf(buf, size, n, "%d:%d %s ", s->pid, s->tid, s->comm);
	else if (s->pid >= 0)
		n = c2c_appendf(buf, size, n, "%d %s ", s->pid, s->comm);
	else if (s->tid >= 0)
		n = c2c_appendf(buf, size, n, "tid %d ", s->tid);
	if (!s->iaddr && !s->site)
		c2c_appendf(buf, size, n, "%s", s->dso[0] ? s->dso : "?");
	else if (s->function[0])
		c2c_appendf(buf, size, n, "%s+0x%" PRIx64 "%s%s", s->function, s->function_offset, s->dso[0] ? " " : "",
			    s->dso);
	else
		c2c_appendf(buf, size, n, "0x%" PRIx64 "%s%s", s->iaddr, s->dso[0] ? " " : "", s->dso);
}

static void draw_map_row(struct view *v, const struct store_offset_row *o, int y)
{
	static const char *const utf8_cells[] = { "\xc2\xb7", "\xe2\x96\x91", "\xe2\x96\x92", "\xe2\x96\x93",
						  "\xe2\x96\x88" };
	static const char *const ascii_cells[] = { ".", ":", "+", "*", "#" };
	struct line_priv *p = v->priv;
	uint64_t max = 0;
	int x = p->map_x + 1;

	term_blank(y, p->map_x, p->map_w, TH_NORMAL);
	for (int i = 0; i < p->ncpus && x < v->w; i++, x++) {
		double h = cell_heat(p, o->offset, p->cpus[i], p->words8, &max);
		int lvl = h <= 0 ? 0 : h < 0.25 ? 1 : h < 0.5 ? 2 : h < 0.75 ? 3 : 4;
		term_text(y, x, 1, lvl ? theme_heat(h) : TH_DIM, text_is_utf8() ? utf8_cells[lvl] : ascii_cells[lvl]);
	}
}

static void draw_off_row(struct view *v, long row, int selected)
{
	struct line_priv *p = v->priv;
	struct table *t = off_table(v);
	const struct store_offset_row *o;
	struct table_cell cells[OC__COUNT];
	char b[OC__COUNT][200];
	enum store_mode mode = v->ex->mode;
	uint64_t max = max_off_hitm(p, mode), h;
	int y = p->off_y + 1 + (int)(row - t->top);

	if (row < t->top || row >= t->top + t->height)
		return;
	memset(cells, 0, sizeof(cells));
	if (row >= (long)p->noffs) {
		term_blank(y, 0, v->w, TH_NORMAL);
		return;
	}
	o = &p->offs[row];
	h = view_hitm(&o->stats, mode);
	off_text(o, b[OC_OFF], sizeof(b[0]), p->words8);
	text_count(b[OC_HITM], sizeof(b[0]), h, 6);
	text_count(b[OC_LCL], sizeof(b[0]), o->stats.lcl_hitm, 6);
	text_count(b[OC_RMT], sizeof(b[0]), o->stats.rmt_hitm, 6);
	text_count(b[OC_PEER], sizeof(b[0]), o->stats.tot_peer, 6);
	text_count(b[OC_STORES], sizeof(b[0]), o->stats.store, 7);
	text_count(b[OC_LOADS], sizeof(b[0]), c2c_total_loads(&o->stats), 7);
	snprintf(b[OC_LAT], sizeof(b[0]), "%.0f", store_lat_avg(&o->lat, STORE_LAT_LOAD));
	snprintf(b[OC_CPUS], sizeof(b[0]), "%u", o->nr_cpus);
	off_field_text(o, b[OC_FIELD], sizeof(b[0]));
	b[OC_BAR][0] = 0;
	for (int i = 0; i < OC__COUNT; i++)
		cells[i].text = b[i];
	/* The bar is the offset's share of the line's contention (HITM of the
	 * mode plus stores): where in the line the fight is. */
	cells[OC_BAR].bar = max ? (double)(h + c2c_stores_total(&o->stats)) / (double)max : 0.0;
	cells[OC_BAR].heat = cells[OC_BAR].bar;
	if (!h)
		cells[OC_HITM].elem = TH_DIM;
	table_draw_row(t, y, cells, selected);
	if (p->map_w)
		draw_map_row(v, o, y);
}

static void draw_site_row(struct view *v, long row, int selected)
{
	struct line_priv *p = v->priv;
	struct table *t = site_table(v);
	const struct store_pareto_row *s;
	struct table_cell cells[SC__COUNT];
	char b[SC__COUNT][300];
	enum store_mode mode = v->ex->mode;
	int y = p->site_y + 1 + (int)(row - t->top);
	const char *file;

	if (row < t->top || row >= t->top + t->height)
		return;
	memset(cells, 0, sizeof(cells));
	if (row >= (long)p->nsites) {
		term_blank(y, 0, v->w, TH_NORMAL);
		return;
	}
	s = &p->sites[row];
	snprintf(b[SC_OFF], sizeof(b[0]), "0x%02" PRIx64, s->offset);
	text_count(b[SC_HITM], sizeof(b[0]), view_hitm(&s->stats, mode), 6);
	text_count(b[SC_LCL], sizeof(b[0]), s->stats.lcl_hitm, 6);
	text_count(b[SC_RMT], sizeof(b[0]), s->stats.rmt_hitm, 6);
	text_count(b[SC_STORES], sizeof(b[0]), s->stats.store, 7);
	text_count(b[SC_LOADS], sizeof(b[0]), c2c_total_loads(&s->stats), 7);
	snprintf(b[SC_CPUS], sizeof(b[0]), "%u", s->nr_cpus);
	snprintf(b[SC_LAT], sizeof(b[0]), "%.0f", store_lat_avg(&s->lat, STORE_LAT_LOAD));
	/* perf's "rmt hitm" / "lcl hitm" cycles, as report prints them */
	c2c_format_mean(b[SC_RMT_CYC], sizeof(b[0]),
			store_lat_avg(&s->lat, mode == STORE_MODE_PEER ? STORE_LAT_RMT_PEER : STORE_LAT_RMT_HITM));
	c2c_format_mean(b[SC_LCL_CYC], sizeof(b[0]),
			store_lat_avg(&s->lat, mode == STORE_MODE_PEER ? STORE_LAT_LCL_PEER : STORE_LAT_LCL_HITM));
	text_count(b[SC_RECORDS], sizeof(b[0]), c2c_total_records(&s->stats), 7);
	site_code_text(s, b[SC_CODE], sizeof(b[0]));
	/* The file's base name: the column is narrow. */
	file = strrchr(s->file, '/');
	file = file ? file + 1 : s->file;
	if (file[0])
		snprintf(b[SC_SRC], sizeof(b[0]), "%s:%u", file, s->line);
	else
		snprintf(b[SC_SRC], sizeof(b[0]), "-");
	for (int i = 0; i < SC__COUNT; i++)
		cells[i].text = b[i];
	table_draw_row(t, y, cells, selected);
}

static void line_draw_row(struct view *v, long row, int selected)
{
	struct line_priv *p = v->priv;

	if (p->focus == 0)
		draw_off_row(v, row, selected);
	else
		draw_site_row(v, row, selected);
}

static void draw_pane(struct view *v, struct table *t, int y, int focused, int is_sites)
{
	table_draw_header(t, y);
	if (!focused)
		term_restyle(y, 0, t->width, TH_COLHEAD);
	for (int i = 0; i < t->height; i++) {
		long row = t->top + i;
		int sel = focused && row == t->cursor;
		if (is_sites)
			draw_site_row(v, row, sel);
		else
			draw_off_row(v, row, sel);
	}
	table_drawn(t);
}

static void line_draw(struct view *v)
{
	struct line_priv *p = v->priv;
	const struct store_line_row *i = &p->info;
	char buf[640], nodes[128], home[16], obj[224];
	size_t len = 0;
	int x;

	line_layout(v);
	nodes[0] = 0;
	for (int n = 0; n < 64 && len < sizeof(nodes); n++)
		if (i->node_mask & (1ull << n))
			len += (size_t)snprintf(nodes + len, sizeof(nodes) - len, "%s%d", len ? "," : "", n);
	if (i->home_node >= 0)
		snprintf(home, sizeof(home), "%d", i->home_node);
	else
		snprintf(home, sizeof(home), "-");
	if (i->symbol[0])
		snprintf(obj, sizeof(obj), "%s+0x%" PRIx64, i->symbol, i->symbol_offset);
	else
		snprintf(obj, sizeof(obj), "0x%" PRIx64, c2c_line_display(i->addr, v->ex->cacheline));
	if (i->lock_waits) {
		/* before the memory numbers: a lock line may have none */
		char tot[32];
		size_t ol = strlen(obj);
		ms_text(tot, sizeof(tot), i->lock_wait_ns);
		snprintf(obj + ol, sizeof(obj) - ol, "  lock waits %" PRIu64 " (%s)", i->lock_waits, tot);
	}
	if (i->lock_waits && !c2c_total_loads(&i->stats) && !c2c_stores_total(&i->stats)) {
		/* a lock-only line: no memory numbers to show (all 0), and its
		 * CPUs and threads are its waits' */
		struct c2c_error e = { 0 };
		uint32_t cpus = 0, threads = 0;
		if (store_query_lock_counts(v->ex->st, i->addr, &v->ex->filter, &cpus, &threads, &e) < 0)
			cpus = threads = 0;
		snprintf(buf, sizeof(buf), "%s  CPUs %u  threads %u  (no memory samples)", obj, cpus, threads);
	} else {
		snprintf(buf, sizeof(buf), "%s  home node %s  HITM %" PRIu64 " (lcl %" PRIu64 ", rmt %" PRIu64
			 ")  peer %" PRIu64 "  loads %" PRIu64 "  stores %" PRIu64 "  CPUs %u  nodes %s  threads %u",
			 obj, home, i->stats.tot_hitm, i->stats.lcl_hitm, i->stats.rmt_hitm, i->stats.tot_peer,
			 c2c_total_loads(&i->stats), i->stats.store, i->nr_cpus, len ? nodes : "-",
			 i->nr_threads);
	}
	term_field(v->y, 0, v->w, TH_HEADER, buf);
	for (int k = 0; k < p->lock_h; k++) {
		const char *t = p->lock_text[k];
		/* when the section is cut, its last row says so */
		if (k == p->lock_h - 1 && (size_t)p->lock_h < p->nlock_text)
			t = "  ... (more locks and call sites: a taller terminal shows them)";
		term_blank(p->lock_y + k, 0, v->w, TH_NORMAL);
		term_text(p->lock_y + k, 1, v->w - 1, t[0] == ' ' ? TH_NORMAL : TH_COLHEAD, t);
	}
	draw_pane(v, off_table(v), p->off_y, p->focus == 0, 0);
	if (p->map_w && p->off_h > 0) {
		/* Heading: the last digit of each CPU (the title lists them);
		 * with room to spare, a label after them. */
		term_blank(p->off_y, p->map_x, p->map_w, TH_COLHEAD);
		x = p->map_x + 1;
		for (int c = 0; c < p->ncpus && x < v->w; c++, x++) {
			char d[2] = { (char)('0' + p->cpus[c] % 10), 0 };
			term_text(p->off_y, x, 1, TH_COLHEAD, d);
		}
		if (x + 4 < v->w)
			term_text(p->off_y, x + 1, v->w - x - 1, TH_COLHEAD, "CPUs");
	}
	if (p->site_h > 0)
		draw_pane(v, site_table(v), p->site_y, p->focus == 1, 1);
}

static void line_title(struct view *v, char *buf, size_t size)
{
	struct line_priv *p = v->priv;
	size_t len;

	len = (size_t)snprintf(buf, size, "Cache line 0x%" PRIx64 ": %zu %s, %zu code sites%s%s [%s]",
			       c2c_line_display(v->q.line, v->ex->cacheline), p->noffs, p->words8 ? "words" : "offsets",
			       p->nsites, p->group ? " by " : "", p->group ? groups[p->group].name : "",
			       p->focus ? "sites" : "offsets");
	if (p->map_w && len < size) {
		len += (size_t)snprintf(buf + len, size - len, "  map CPUs:");
		for (int c = 0; c < p->ncpus && len < size; c++)
			len += (size_t)snprintf(buf + len, size - len, "%s%u", c ? "," : " ", p->cpus[c]);
		if (p->more_cpus && len < size)
			snprintf(buf + len, size - len, ",...");
	}
}

static void swap_focus(struct view *v)
{
	struct line_priv *p = v->priv;
	struct table tmp = v->table;

	v->table = p->other;
	p->other = tmp;
	p->focus = !p->focus;
}

/* Types are attributed on the explorer's own read-only handle (kept in
 * its TEMP tables, never in the file), once collection has stopped. */
static bool types_allowed(struct view *v, struct view_reply *reply)
{
	if (v->ex->collecting) {
		view_reply_message(reply, 1, "types can be attributed once collection has stopped");
		return false;
	}
	return true;
}

/* L: the layout of the type the line's samples were attributed to; the
 * session is attributed on first use (for this run). */
static enum view_result open_layout(struct view *v, struct view_reply *reply)
{
	struct line_priv *p = v->priv;
	struct explorer *ex = v->ex;
	struct c2c_error err = { 0 };
	struct view_query *q;
	uint64_t obj;

	if (!typeinfo_present(ex->st)) {
		struct typeinfo_opts o = { .vmlinux = ex->opt ? ex->opt->vmlinux : NULL,
					   .symfs = ex->opt ? ex->opt->symfs : NULL };
		if (!types_allowed(v, reply))
			return VIEW_HANDLED;
		if (typeinfo_ensure(ex->st, &o, &err) < 0) {
			view_reply_message(reply, 1, "%s", err.msg);
			return VIEW_HANDLED;
		}
	}
	if (typeinfo_line_object(ex->st, v->q.line, p->layout_arg.type, sizeof(p->layout_arg.type), &obj) < 0) {
		view_reply_message(reply, 0, "no sample of this line was attributed to a type (a: assign one by hand)");
		return VIEW_HANDLED;
	}
	p->layout_arg.st = ex->st;
	q = view_reply_push(reply, VK_LAYOUT);
	q->arg = &p->layout_arg;
	q->line = v->q.line;
	return VIEW_HANDLED | VIEW_PUSH;
}

/* a: pick the struct the line's object is; the object starts where the
 * attribution says, else at the line's data symbol, else at the line. */
static enum view_result open_assign(struct view *v, struct view_reply *reply)
{
	struct line_priv *p = v->priv;
	struct view_query *q;
	char type[128];
	uint64_t obj;

	if (!types_allowed(v, reply))
		return VIEW_HANDLED;
	if (typeinfo_line_object(v->ex->st, v->q.line, type, sizeof(type), &obj) == 0)
		p->assign_arg.base = obj;
	else if (p->info.symbol[0] && p->info.symbol[0] != '[')
		p->assign_arg.base = v->q.line - p->info.symbol_offset;
	else
		p->assign_arg.base = v->q.line;
	p->assign_arg.st = v->ex->st;
	p->assign_arg.session[0] = 0;
	q = view_reply_push(reply, VK_ASSIGN);
	q->arg = &p->assign_arg;
	q->line = v->q.line;
	return VIEW_HANDLED | VIEW_PUSH;
}

static enum view_result line_action(struct view *v, enum action a, struct view_reply *reply)
{
	struct line_priv *p = v->priv;
	struct c2c_error err = { 0 };
	struct view_query *q;

	switch (a) {
	case ACT_PANE:
		swap_focus(v);
		return VIEW_HANDLED | VIEW_REDRAW;
	case ACT_GROUP:
		p->group = (p->group + 1) % NGROUPS;
		if (line_open(v, &err) < 0)
			view_reply_message(reply, 1, "%s", err.msg);
		else
			view_reply_message(reply, 0, "code sites grouped by %s (perf c2c -c %s)", groups[p->group].name,
					   groups[p->group].name);
		return VIEW_HANDLED | VIEW_REDRAW;
	case ACT_WORDS:
		p->words8 = !p->words8;
		v->q.words8 = p->words8;
		if (line_open(v, &err) < 0)
			view_reply_message(reply, 1, "%s", err.msg);
		return VIEW_HANDLED | VIEW_REDRAW;
	case ACT_ENTER:
		if (p->focus == 0) {
			/* To the code sites of this offset. */
			uint64_t off;
			if (v->table.cursor >= (long)p->noffs)
				return VIEW_HANDLED;
			off = p->offs[v->table.cursor].offset;
			swap_focus(v);
			for (size_t i = 0; i < p->nsites; i++) {
				uint64_t so = p->words8 ? p->sites[i].offset & ~7ull : p->sites[i].offset;
				if (so == off) {
					table_goto(&v->table, (long)i);
					break;
				}
			}
			return VIEW_HANDLED | VIEW_REDRAW;
		}
		if (v->table.cursor >= (long)p->nsites)
			return VIEW_HANDLED;
		if (!p->sites[v->table.cursor].site) {
			view_reply_message(reply, 0, "this row has no single code site");
			return VIEW_HANDLED;
		}
		q = view_reply_push(reply, VK_SITE);
		q->site = p->sites[v->table.cursor].site;
		q->line = v->q.line;
		return VIEW_HANDLED | VIEW_PUSH;
	case ACT_LAYOUT:
		return open_layout(v, reply);
	case ACT_ASSIGN:
		return open_assign(v, reply);
	case ACT_CPUS:
	case ACT_TIMELINE:
		view_reply_push(reply, a == ACT_CPUS ? VK_CPUS : VK_TIMELINE)->line = v->q.line;
		return VIEW_HANDLED | VIEW_PUSH;
	default:
		return VIEW_UNHANDLED;
	}
}

static int line_search(struct view *v, const char *text, int dir, struct c2c_error *err)
{
	struct line_priv *p = v->priv;
	long n = v->table.nrows;
	char shown[300];

	(void)err;
	for (long k = 1; k <= n; k++) {
		long row = ((v->table.cursor + dir * k) % n + n) % n;
		int hit;

		/* An address inside the offset or the site's instruction, else
		 * a substring of what the row shows. */
		if (p->focus == 0) {
			hit = view_match(text, NULL, v->q.line + p->offs[row].offset, p->words8 ? 8 : 1);
			off_field_text(&p->offs[row], shown, sizeof(shown));
			hit = hit || view_contains(shown, text);
		} else {
			hit = view_match(text, NULL, p->sites[row].iaddr, 1) ||
			      view_contains(p->sites[row].file, text);
			site_code_text(&p->sites[row], shown, sizeof(shown));
			hit = hit || view_contains(shown, text);
		}
		if (hit) {
			table_goto(&v->table, row);
			return 1;
		}
	}
	return 0;
}

static enum view_result line_click(struct view *v, int y, int x, int dbl, struct view_reply *reply)
{
	struct line_priv *p = v->priv;
	int sy = v->y + y;
	int pane = sy >= p->site_y ? 1 : sy >= p->off_y ? 0 : -1;
	struct table *t;
	long row;

	(void)x;
	if (pane < 0)
		return VIEW_UNHANDLED;
	if (pane != p->focus)
		swap_focus(v);
	t = &v->table;
	row = t->top + (sy - (pane ? p->site_y : p->off_y)) - 1;
	if (row >= t->top && row < t->nrows)
		table_goto(t, row);
	return VIEW_REDRAW | (dbl ? line_action(v, ACT_ENTER, reply) : VIEW_UNHANDLED);
}

const struct view_ops view_line_ops = {
	.name = "line",
	.priv_size = sizeof(struct line_priv),
	.open = line_open,
	.close = line_close,
	.draw = line_draw,
	.draw_row = line_draw_row,
	.layout = line_layout,
	.action = line_action,
	.search = line_search,
	.title = line_title,
	.click = line_click,
};
