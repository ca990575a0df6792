/* CPUs and nodes: per-CPU and per-node totals for the session or for one
 * line (store_query_cpus / store_query_nodes, as report prints them). Tab
 * moves the cursor between the two tables; Enter filters every view to
 * that CPU or node and goes back. Without memory samples (a session or
 * line of lock waits alone) the CPUs are those of the lock waits, with
 * their waits and wait times (store_query_lock_cpus). */
#include "tui/explorer/view.h"
#include "tui/term/term.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum sort_key { SK_ID, SK_HITM, SK_LCL, SK_RMT, SK_PEER, SK_LOADS, SK_STORES, SK_LAT, SK_RECORDS, SK_WAITS,
		SK_WAIT_NS, SK_WAIT_MAX, SK_THREADS };

enum cpu_col { CC_ID, CC_NODE, CC_HITM, CC_LCL, CC_RMT, CC_STORES, CC_LOADS, CC_BAR, CC_PEER, CC_LAT,
	       CC_RECORDS, CC__COUNT };
static const struct table_col cpu_cols[CC__COUNT] = {
	[CC_ID]      = { "CPU", 5, 0, TAL_RIGHT, SK_ID, 0 },
	[CC_NODE]    = { "Node", 4, 0, TAL_RIGHT, -1, 0 },
	[CC_HITM]    = { "Hitm", 7, 0, TAL_RIGHT, SK_HITM, 0 },
	[CC_LCL]     = { "Lcl", 7, 0, TAL_RIGHT, SK_LCL, 0 },
	[CC_RMT]     = { "Rmt", 7, 0, TAL_RIGHT, SK_RMT, 0 },
	[CC_STORES]  = { "Stores", 8, 0, TAL_RIGHT, SK_STORES, 0 },
	[CC_LOADS]   = { "Loads", 8, 0, TAL_RIGHT, SK_LOADS, 0 },
	[CC_BAR]     = { "Share", 0, 10, TAL_LEFT, -1, 1 },
	[CC_PEER]    = { "Peer", 7, 0, TAL_RIGHT, SK_PEER, 0 },
	[CC_LAT]     = { "LdLat", 6, 0, TAL_RIGHT, SK_LAT, 0 },
	[CC_RECORDS] = { "Records", 8, 0, TAL_RIGHT, SK_RECORDS, 0 },
};
static const struct table_col node_cols[CC__COUNT] = {
	[CC_ID]      = { "Node", 5, 0, TAL_RIGHT, SK_ID, 0 },
	[CC_NODE]    = { "CPUs", 4, 0, TAL_RIGHT, -1, 0 },
	[CC_HITM]    = { "Hitm", 7, 0, TAL_RIGHT, SK_HITM, 0 },
	[CC_LCL]     = { "Lcl", 7, 0, TAL_RIGHT, SK_LCL, 0 },
	[CC_RMT]     = { "Rmt", 7, 0, TAL_RIGHT, SK_RMT, 0 },
	[CC_STORES]  = { "Stores", 8, 0, TAL_RIGHT, SK_STORES, 0 },
	[CC_LOADS]   = { "Loads", 8, 0, TAL_RIGHT, SK_LOADS, 0 },
	[CC_BAR]     = { "Share", 0, 10, TAL_LEFT, -1, 1 },
	[CC_PEER]    = { "Peer", 7, 0, TAL_RIGHT, SK_PEER, 0 },
	[CC_LAT]     = { "LdLat", 6, 0, TAL_RIGHT, SK_LAT, 0 },
	[CC_RECORDS] = { "Records", 8, 0, TAL_RIGHT, SK_RECORDS, 0 },
};

/* The CPU table of lock waits (no memory samples). */
enum lock_cpu_col { LC_ID, LC_NODE, LC_WAITS, LC_WAIT_NS, LC_WAIT_MAX, LC_THREADS, LC_BAR, LC__COUNT };
static const struct table_col lock_cpu_cols[LC__COUNT] = {
	[LC_ID]       = { "CPU", 5, 0, TAL_RIGHT, SK_ID, 0 },
	[LC_NODE]     = { "Node", 4, 0, TAL_RIGHT, -1, 0 },
	[LC_WAITS]    = { "Waits", 8, 0, TAL_RIGHT, SK_WAITS, 0 },
	[LC_WAIT_NS]  = { "LockWait", 10, 0, TAL_RIGHT, SK_WAIT_NS, 0 },
	[LC_WAIT_MAX] = { "MaxWait", 10, 0, TAL_RIGHT, SK_WAIT_MAX, 0 },
	[LC_THREADS]  = { "Thr", 5, 0, TAL_RIGHT, SK_THREADS, 0 },
	[LC_BAR]      = { "Share of wait", 0, 10, TAL_LEFT, -1, 1 },
};

/* One row of either table, so both sort and draw the same way. */
struct cn_row {
	int32_t id;
	int32_t aux;            /* node of a CPU, CPU count of a node */
	struct c2c_stats stats;
	struct store_lat lat;
	struct store_lock_cpu_row lock;   /* lock waits (lock-only CPU table) */
};

struct cpus_priv {
	struct cn_row *cpus, *nodes;
	size_t ncpus, nnodes;
	struct table other;
	int focus;              /* 0: CPUs have the cursor, 1: nodes */
	bool locks;             /* the CPUs are those of the lock waits */
	int cpu_y, cpu_h, node_y, node_h;
};

static struct table *cpu_table(struct view *v)
{
	struct cpus_priv *p = v->priv;
	return p->focus == 0 ? &v->table : &p->other;
}

static struct table *node_table(struct view *v)
{
	struct cpus_priv *p = v->priv;
	return p->focus == 1 ? &v->table : &p->other;
}

struct sort_ctx {
	int key, desc;
	enum store_mode mode;
};

static uint64_t key_of(const struct cn_row *r, const struct sort_ctx *c)
{
	switch (c->key) {
	case SK_ID: return (uint64_t)(int64_t)r->id + (1ull << 32);
	case SK_HITM: return view_hitm(&r->stats, c->mode);
	case SK_LCL: return r->stats.lcl_hitm;
	case SK_RMT: return r->stats.rmt_hitm;
	case SK_PEER: return r->stats.tot_peer;
	case SK_LOADS: return c2c_total_loads(&r->stats);
	case SK_STORES: return r->stats.store;   /* perf's Total stores, as report */
	case SK_LAT: return (uint64_t)(store_lat_avg(&r->lat, STORE_LAT_LOAD) * 1000.0);
	case SK_RECORDS: return c2c_total_records(&r->stats);
	case SK_WAITS: return r->lock.waits;
	case SK_WAIT_NS: return r->lock.wait_ns;
	case SK_WAIT_MAX: return r->lock.max_wait_ns;
	case SK_THREADS: return r->lock.nr_threads;
	default: return 0;
	}
}

static int cmp_row(const void *a, const void *b, void *arg)
{
	const struct cn_row *x = a, *y = b;
	const struct sort_ctx *c = arg;
	uint64_t kx = key_of(x, c), ky = key_of(y, c);
	int r = kx < ky ? -1 : kx > ky;

	if (!r)
		r = x->id < y->id ? -1 : x->id > y->id;
	return c->desc ? -r : r;
}

static void sort_rows(struct view *v, struct table *t, struct cn_row *rows, size_t n)
{
	struct sort_ctx c = { .mode = v->ex->mode };

	if (t->sort_col < 0 || !n)
		return;
	c.key = t->cols[t->sort_col].sort_key;
	c.desc = t->sort_desc;
	qsort_r(rows, n, sizeof(*rows), cmp_row, &c);
}

static void cpus_layout(struct view *v)
{
	struct cpus_priv *p = v->priv;
	int avail = v->h, ch;

	/* Nodes are few: they get their rows, CPUs the rest. */
	ch = avail - ((int)p->nnodes + 1) - 1;
	if (ch < avail / 2)
		ch = avail / 2;
	p->cpu_y = v->y;
	p->cpu_h = ch;
	p->node_y = v->y + ch;
	p->node_h = avail - ch;
	table_resize(cpu_table(v), ch - 1, v->w);
	table_resize(node_table(v), p->node_h > 1 ? p->node_h - 1 : 0, v->w);
}

static void cpus_free(struct cpus_priv *p)
{
	free(p->cpus);
	free(p->nodes);
	p->cpus = p->nodes = NULL;
	p->ncpus = p->nnodes = 0;
}

static bool memory_rows(const struct cpus_priv *p)
{
	for (size_t i = 0; i < p->ncpus; i++)
		if (c2c_total_loads(&p->cpus[i].stats) || c2c_stores_total(&p->cpus[i].stats))
			return true;
	return false;
}

/* No memory sample on these CPUs: the CPUs the lock waits ran on (their
 * nodes from the CPU rows, which the tracepoint samples still give). */
static int lock_cpus(struct view *v, struct c2c_error *err)
{
	struct cpus_priv *p = v->priv;
	struct store_lock_cpu_row *lr = NULL;
	size_t nl = 0;
	int r;

	if ((r = store_query_lock_cpus(v->ex->st, v->q.line, &v->ex->filter, &lr, &nl, err)) < 0)
		return r;
	if (!nl) {
		free(lr);
		return 0;
	}
	if (!p->locks) {   /* once: the table keeps its sort and cursor on refresh */
		struct table *t = cpu_table(v);
		table_init(t, lock_cpu_cols, LC__COUNT);
		t->sort_col = LC_ID;
		p->locks = true;
	}
	struct cn_row *rows = calloc(nl, sizeof(*rows));
	if (!rows) {
		free(lr);
		return c2c_error_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < nl; i++) {
		rows[i].id = lr[i].cpu;
		rows[i].aux = -1;
		rows[i].lock = lr[i];
		for (size_t j = 0; j < p->ncpus; j++)
			if (p->cpus[j].id == lr[i].cpu)
				rows[i].aux = p->cpus[j].aux;
	}
	free(p->cpus);
	p->cpus = rows;
	p->ncpus = nl;
	free(lr);
	return 0;
}

static int cpus_open(struct view *v, struct c2c_error *err)
{
	struct cpus_priv *p = v->priv;
	struct explorer *ex = v->ex;
	struct store_cpu_row *cr = NULL;
	struct store_node_row *nr = NULL;
	size_t nc = 0, nn = 0;
	int r;

	if (!v->table.cols) {
		table_init(&v->table, cpu_cols, CC__COUNT);
		table_init(&p->other, node_cols, CC__COUNT);
		v->table.sort_col = CC_ID;
		p->other.sort_col = CC_ID;
	}
	cpus_free(p);
	r = store_query_cpus(ex->st, v->q.line, &ex->filter, &cr, &nc, err);
	if (r < 0)
		return r;
	r = store_query_nodes(ex->st, v->q.line, &ex->filter, &nr, &nn, err);
	if (r < 0) {
		free(cr);
		return r;
	}
	p->cpus = calloc(nc ? nc : 1, sizeof(*p->cpus));
	p->nodes = calloc(nn ? nn : 1, sizeof(*p->nodes));
	if (!p->cpus || !p->nodes) {
		free(cr);
		free(nr);
		return c2c_error_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < nc; i++)
		p->cpus[i] = (struct cn_row){ .id = (int32_t)cr[i].cpu, .aux = cr[i].node, .stats = cr[i].stats,
					       .lat = cr[i].lat };
	for (size_t i = 0; i < nn; i++)
		p->nodes[i] = (struct cn_row){ .id = nr[i].node, .aux = (int32_t)nr[i].nr_cpus, .stats = nr[i].stats,
						.lat = nr[i].lat };
	p->ncpus = nc;
	p->nnodes = nn;
	free(cr);
	free(nr);
	if (ex->summary.lock_waits && !memory_rows(p) && (r = lock_cpus(v, err)) < 0)
		return r;
	sort_rows(v, cpu_table(v), p->cpus, p->ncpus);
	sort_rows(v, node_table(v), p->nodes, p->nnodes);
	table_set_rows(cpu_table(v), (long)p->ncpus);
	table_set_rows(node_table(v), (long)p->nnodes);
	cpus_layout(v);
	return 0;
}

static void cpus_close(struct view *v)
{
	cpus_free(v->priv);
}

static uint64_t total_hitm(const struct cn_row *rows, size_t n, enum store_mode mode)
{
	uint64_t t = 0;

	for (size_t i = 0; i < n; i++)
		t += view_hitm(&rows[i].stats, mode) + c2c_stores_total(&rows[i].stats);
	return t;
}

static void draw_row_at(struct view *v, int nodes, long row, int selected)
{
	struct cpus_priv *p = v->priv;
	struct table *t = nodes ? node_table(v) : cpu_table(v);
	const struct cn_row *rows = nodes ? p->nodes : p->cpus;
	size_t n = nodes ? p->nnodes : p->ncpus;
	int y = (nodes ? p->node_y : p->cpu_y) + 1 + (int)(row - t->top);
	struct table_cell cells[CC__COUNT];
	char b[CC__COUNT][32];
	enum store_mode mode = v->ex->mode;
	const struct cn_row *r;
	uint64_t tot, h;

	if (row < t->top || row >= t->top + t->height)
		return;
	if (row >= (long)n) {
		term_blank(y, 0, v->w, TH_NORMAL);
		return;
	}
	r = &rows[row];
	memset(cells, 0, sizeof(cells));
	if (!nodes && p->locks) {
		uint64_t all = 0;
		for (size_t i = 0; i < n; i++)
			all += rows[i].lock.wait_ns;
		snprintf(b[LC_ID], sizeof(b[0]), "%d", r->id);
		if (r->aux >= 0)
			snprintf(b[LC_NODE], sizeof(b[0]), "%d", r->aux);
		else
			snprintf(b[LC_NODE], sizeof(b[0]), "-");
		text_count(b[LC_WAITS], sizeof(b[0]), r->lock.waits, 8);
		snprintf(b[LC_WAIT_NS], sizeof(b[0]), "%.3fms", (double)r->lock.wait_ns / 1e6);
		snprintf(b[LC_WAIT_MAX], sizeof(b[0]), "%.3fms", (double)r->lock.max_wait_ns / 1e6);
		snprintf(b[LC_THREADS], sizeof(b[0]), "%u", r->lock.nr_threads);
		b[LC_BAR][0] = 0;
		for (int i = 0; i < LC__COUNT; i++)
			cells[i].text = b[i];
		cells[LC_BAR].bar = all ? (double)r->lock.wait_ns / (double)all : 0.0;
		cells[LC_BAR].heat = cells[LC_BAR].bar;
		table_draw_row(t, y, cells, selected);
		return;
	}
	tot = total_hitm(rows, n, mode);
	h = view_hitm(&r->stats, mode);
	if (r->id >= 0)
		snprintf(b[CC_ID], sizeof(b[0]), "%d", r->id);
	else
		snprintf(b[CC_ID], sizeof(b[0]), "?");
	if (nodes || r->aux >= 0)
		snprintf(b[CC_NODE], sizeof(b[0]), "%d", r->aux);
	else
		snprintf(b[CC_NODE], sizeof(b[0]), "-");
	text_count(b[CC_HITM], sizeof(b[0]), h, 7);
	text_count(b[CC_LCL], sizeof(b[0]), r->stats.lcl_hitm, 7);
	text_count(b[CC_RMT], sizeof(b[0]), r->stats.rmt_hitm, 7);
	text_count(b[CC_STORES], sizeof(b[0]), r->stats.store, 8);
	text_count(b[CC_LOADS], sizeof(b[0]), c2c_total_loads(&r->stats), 8);
	text_count(b[CC_PEER], sizeof(b[0]), r->stats.tot_peer, 7);
	text_count(b[CC_RECORDS], sizeof(b[0]), c2c_total_records(&r->stats), 8);
	snprintf(b[CC_LAT], sizeof(b[0]), "%.0f", store_lat_avg(&r->lat, STORE_LAT_LOAD));
	b[CC_BAR][0] = 0;
	for (int i = 0; i < CC__COUNT; i++)
		cells[i].text = b[i];
	/* Share of HITM (of the mode) plus stores: who takes part in the fight. */
	cells[CC_BAR].bar = tot ? (double)(h + c2c_stores_total(&r->stats)) / (double)tot : 0.0;
	cells[CC_BAR].heat = cells[CC_BAR].bar;
	table_draw_row(t, y, cells, selected);
}

static void cpus_draw_row(struct view *v, long row, int selected)
{
	struct cpus_priv *p = v->priv;

	draw_row_at(v, p->focus, row, selected);
}

static void draw_pane(struct view *v, int nodes, int y)
{
	struct cpus_priv *p = v->priv;
	struct table *t = nodes ? node_table(v) : cpu_table(v);
	int focused = p->focus == nodes;

	table_draw_header(t, y);
	if (!focused)
		term_restyle(y, 0, t->width, TH_COLHEAD);
	for (int i = 0; i < t->height; i++) {
		long row = t->top + i;
		draw_row_at(v, nodes, row, focused && row == t->cursor);
	}
	table_drawn(t);
}

static void cpus_draw(struct view *v)
{
	struct cpus_priv *p = v->priv;

	cpus_layout(v);
	draw_pane(v, 0, p->cpu_y);
	if (p->node_h > 0)
		draw_pane(v, 1, p->node_y);
}

static void cpus_title(struct view *v, char *buf, size_t size)
{
	struct cpus_priv *p = v->priv;

	if (p->locks && v->q.line == STORE_ALL_LINES)
		snprintf(buf, size, "CPUs of the session's lock waits (no memory samples): %zu CPUs", p->ncpus);
	else if (p->locks)
		snprintf(buf, size, "CPUs of the lock waits on line 0x%" PRIx64 " (no memory samples): %zu CPUs",
			 c2c_line_display(v->q.line, v->ex->cacheline), p->ncpus);
	else if (v->q.line == STORE_ALL_LINES)
		snprintf(buf, size, "CPUs and nodes of the session: %zu CPUs, %zu nodes [%s]", p->ncpus, p->nnodes,
			 p->focus ? "nodes" : "cpus");
	else
		snprintf(buf, size, "CPUs and nodes of line 0x%" PRIx64 ": %zu CPUs, %zu nodes [%s]", c2c_line_display(v->q.line, v->ex->cacheline),
			 p->ncpus, p->nnodes, p->focus ? "nodes" : "cpus");
}

static void swap_focus(struct view *v)
{
	struct cpus_priv *p = v->priv;
	struct table tmp = v->table;

	v->table = p->other;
	p->other = tmp;
	p->focus = !p->focus;
}

static enum view_result cpus_action(struct view *v, enum action a, struct view_reply *reply)
{
	struct cpus_priv *p = v->priv;
	const struct cn_row *r;

	switch (a) {
	case ACT_PANE:
		swap_focus(v);
		return VIEW_HANDLED | VIEW_REDRAW;
	case ACT_ENTER:
		if (v->table.cursor >= (long)(p->focus ? p->nnodes : p->ncpus))
			return VIEW_HANDLED;
		r = p->focus ? &p->nodes[v->table.cursor] : &p->cpus[v->table.cursor];
		if (r->id < 0)
			return VIEW_HANDLED;
		if (p->focus)
			reply->filter.node = r->id;
		else
			reply->filter.cpu = r->id;
		view_reply_message(reply, 0, "filter %s:%d (F clears)", p->focus ? "node" : "cpu", r->id);
		/* Back to where the user came from, now filtered. */
		return VIEW_HANDLED | VIEW_FILTER | VIEW_POP;
	default:
		return VIEW_UNHANDLED;
	}
}

static int cpus_search(struct view *v, const char *text, int dir, struct c2c_error *err)
{
	struct cpus_priv *p = v->priv;
	const struct cn_row *rows = p->focus ? p->nodes : p->cpus;
	long n = (long)(p->focus ? p->nnodes : p->ncpus);
	char *end;
	long want = strtol(text, &end, 10);

	(void)err;
	if (end == text || *end)
		return 0;
	for (long k = 1; k <= n; k++) {
		long row = ((v->table.cursor + dir * k) % n + n) % n;
		if (rows[row].id == want) {
			table_goto(&v->table, row);
			return 1;
		}
	}
	return 0;
}

const struct view_ops view_cpus_ops = {
	.name = "cpus",
	.priv_size = sizeof(struct cpus_priv),
	.open = cpus_open,
	.close = cpus_close,
	.draw = cpus_draw,
	.draw_row = cpus_draw_row,
	.layout = cpus_layout,
	.action = cpus_action,
	.search = cpus_search,
	.title = cpus_title,
};
