/* Layout of one type in one session: the pahole-like rows with per-member
 * loads, stores, HITM, CPUs, threads and sites (heat-coloured), the
 * false-sharing flags with their evidence, and below it the proposed
 * layout with the what-if estimate (a suggestion with its reasoning, never
 * applied). The same content as text for `report --layout TYPE`, plus
 * `report --types` and `report --verdicts`. */
#include "tui/cmd/commands.h"
#include "tui/term/term.h"
#include "tui/explorer/view.h"
#include "tui/explorer/view_layout.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/layout/layout.h"
#include "store/types/typeinfo.h"

/* ---- shared text: the proposal and the what-if ---- */

typedef void (*line_fn)(void *ctx, const char *text);

static void emitf(line_fn fn, void *ctx, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void emitf(line_fn fn, void *ctx, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fn(ctx, buf);
}

static void plan_text(const struct layout *l, const struct layout_plan *p,
		      const struct layout_whatif *w, const char *against, line_fn fn, void *ctx)
{
	uint64_t ls = p->line_size ? p->line_size : 64;

	if (!against) {
		emitf(fn, ctx, "Proposed layout of %s (a suggestion; nothing is changed):", p->type_name);
		for (size_t i = 0; i < p->nreasoning; i++)
			emitf(fn, ctx, "  - %s", p->reasoning[i]);
	} else {
		emitf(fn, ctx, "Layout of %s in %s (size %llu, align %u):", p->type_name, against,
		      (unsigned long long)p->size, p->align);
	}
	emitf(fn, ctx, "  %-24s %8s %5s | %8s %5s  %s", "member", "offset", "line", "new off",
	      "line", "why");
	for (size_t i = 0; i < p->n; i++) {
		const struct layout_plan_member *m = &p->m[i];
		const struct layout_row *r = NULL;
		char off[24] = "-", line[24] = "-";
		/* where the member is in the session's build (matched by name) */
		for (size_t k = 0; k < l->nrows && !r; k++)
			if (l->rows[k].depth == 0 && !strcmp(l->rows[k].name, m->name))
				r = &l->rows[k];
		if (r) {
			snprintf(off, sizeof(off), "%llu", (unsigned long long)r->offset);
			snprintf(line, sizeof(line), "%llu",
				 (unsigned long long)((l->base_misalign + r->offset) / ls));
		}
		emitf(fn, ctx, "  %-24.24s %8s %5s | %8llu %5llu  %s", m->name, off, line,
		      (unsigned long long)m->new_offset, (unsigned long long)(m->new_offset / ls),
		      m->why);
	}
	emitf(fn, ctx, "What-if: the session's accesses replayed against %s:",
	      against ? "that layout" : "the proposal");
	emitf(fn, ctx, "  HITM samples: %llu now, %llu would remain; contended lines: %llu -> %llu%s",
	      (unsigned long long)w->hitm_before, (unsigned long long)w->hitm_after,
	      (unsigned long long)w->contended_lines_before,
	      (unsigned long long)w->contended_lines_after,
	      w->unmapped ? " (some members have no place there)" : "");
	for (size_t i = 0; i < w->nlines && i < 8; i++)
		emitf(fn, ctx, "  still shared: object %#llx line %u (%s sharing): %s; HITM %llu -> %llu",
		      (unsigned long long)w->lines[i].object, w->lines[i].line,
		      layout_verdict_name(w->lines[i].verdict), w->lines[i].members,
		      (unsigned long long)w->lines[i].hitm_before,
		      (unsigned long long)w->lines[i].hitm_after);
}

/* ---- report --types / --layout / --verdicts ---- */

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
		"  --verdicts          every line's verdict: false / true / mixed sharing, with evidence\n"
		"  --sort hitm|verdict with --verdicts: by HITM (default) or false, mixed, true, none\n"
		"  --assign TYPE@ADDR  the object at ADDR is a TYPE: attribute its samples by hand\n"
		"                      (saved in the session; every view and report uses it)\n"
		"  --debuginfo DIR     where separate debug files are\n"
		"  --no-attribute      use the session's attribution as it is\n");
}

static int open_attributed(const char *path, bool attribute, const char *dbgdir, struct store **out,
			   struct c2c_error *err)
{
	struct store *st = NULL;

	if (attribute && store_open(&st, path, STORE_OPEN_APPEND, err) == 0) {
		if (!typeinfo_present(st)) {
			struct typeinfo_stats ts;
			struct typeinfo_opts o = { .debuginfo_dir = dbgdir };
			if (typeinfo_attribute(st, &o, &ts, err) < 0) {
				store_close(st);
				return -1;
			}
		}
		*out = st;
		return 0;
	}
	return store_open(out, path, STORE_OPEN_RDONLY, err);
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
	return 0;
}

/* --sort verdict: false sharing first (what a layout change fixes), then
 * mixed, true, none; HITM within each. */
static int verdict_rank(enum layout_verdict v)
{
	switch (v) {
	case LAYOUT_FALSE: return 0;
	case LAYOUT_MIXED: return 1;
	case LAYOUT_TRUE: return 2;
	default: return 3;
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

static int report_verdicts(struct store *st, bool sort_verdict, struct c2c_error *err)
{
	struct typeinfo_verdict_row *v;
	size_t n;

	if (typeinfo_query_verdicts(st, &v, &n, err) < 0)
		return -1;
	if (sort_verdict && n)
		qsort(v, n, sizeof(*v), by_verdict);
	printf("%-18s %6s %7s %-7s %-20s %9s %9s  %s\n", "Line", "Hitm", "Samples", "Verdict",
	       "Type", "Writers", "Others", "Members (contended)");
	for (size_t i = 0; i < n; i++) {
		char w[32], o[32];
		snprintf(w, sizeof(w), "%ut/%uc", v[i].v.writer_threads, v[i].v.writer_cpus);
		snprintf(o, sizeof(o), "%ut/%uc", v[i].v.other_threads, v[i].v.other_cpus);
		printf("%#-18llx %6llu %7llu %-7s %-20.20s %9s %9s  %s\n",
		       (unsigned long long)v[i].line_addr, (unsigned long long)v[i].hitm,
		       (unsigned long long)v[i].samples, layout_verdict_name(v[i].v.verdict),
		       v[i].type[0] ? v[i].type : "-", w, o, v[i].keys);
	}
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
	if (rc == 0 && (rc = layout_whatif(&l, &p, acc, nacc, &w)) == 0) {
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
		{ "input", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *layout = NULL, *against = NULL, *dbgdir = NULL, *input = NULL, *assign = NULL;
	bool types = false, verdicts = false, attribute = true, sort_verdict = false;
	struct store *st;
	struct c2c_error err = { 0 };
	int c, rc = 0;

	optind = 1;
	opterr = 1;
	while ((c = getopt_long(argc, argv, "hi:", longopts, NULL)) != -1) {
		switch (c) {
		case 't': types = true; break;
		case 'l': layout = optarg; break;
		case 'v': verdicts = true; break;
		case 'a': against = optarg; break;
		case 'D': dbgdir = optarg; break;
		case 'A': attribute = false; break;
		case 'i': input = optarg; break;
		case 'S': assign = optarg; break;
		case 'o':
			if (!strcmp(optarg, "verdict"))
				sort_verdict = true;
			else if (strcmp(optarg, "hitm")) {
				fprintf(stderr, "c2ctui report: --sort hitm|verdict\n");
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
	if (open_attributed(input, attribute, dbgdir, &st, &err) < 0) {
		fprintf(stderr, "c2ctui report: %s\n", err.msg);
		return 1;
	}
	if (assign) {
		/* TYPE@ADDR: the object at ADDR is a TYPE (saved in the session) */
		char type[128];
		const char *at = strrchr(assign, '@');
		char *end;
		unsigned long long base;
		struct typeinfo_opts o = { .debuginfo_dir = dbgdir };
		if (!at || at == assign || (size_t)(at - assign) >= sizeof(type)) {
			fprintf(stderr, "c2ctui report: --assign wants TYPE@ADDRESS\n");
			store_close(st);
			return 2;
		}
		base = strtoull(at + 1, &end, 0);
		if (end == at + 1 || *end) {
			fprintf(stderr, "c2ctui report: bad address in --assign %s\n", assign);
			store_close(st);
			return 2;
		}
		snprintf(type, sizeof(type), "%.*s", (int)(at - assign), assign);
		if (typeinfo_assign(st, base, type, NULL, &o, &err) < 0) {
			fprintf(stderr, "c2ctui report: %s\n", err.msg);
			store_close(st);
			return 1;
		}
		printf("assigned %s to the object at %#llx\n", type, base);
	}
	if (types)
		rc = report_types(st, &err);
	if (rc == 0 && verdicts) {
		if (types)
			printf("\n");
		rc = report_verdicts(st, sort_verdict, &err);
	}
	if (rc == 0 && layout) {
		if (types || verdicts)
			printf("\n");
		rc = report_layout(st, layout, against, dbgdir, &err);
	}
	if (rc < 0)
		fprintf(stderr, "c2ctui report: %s\n", err.msg);
	store_close(st);
	return rc < 0 ? 1 : 0;
}

/* ---- the TUI view: one type's layout in one session ---- */

enum { YC_OFF, YC_SIZE, YC_MEMBER, YC_LOADS, YC_STORES, YC_LCL, YC_RMT, YC_CPUS, YC_THR, YC_SITES,
       YC_HEAT, YC_FLAG, YC__COUNT };
static const struct table_col lay_cols[YC__COUNT] = {
	[YC_OFF]    = { "Offset", 7, 0, TAL_RIGHT, -1, 0 },
	[YC_SIZE]   = { "Size", 4, 0, TAL_RIGHT, -1, 0 },
	[YC_MEMBER] = { "Member", 0, 14, TAL_LEFT, -1, 0 },
	[YC_LOADS]  = { "Loads", 7, 0, TAL_RIGHT, -1, 0 },
	[YC_STORES] = { "Stores", 7, 0, TAL_RIGHT, -1, 0 },
	[YC_LCL]    = { "Lcl", 5, 0, TAL_RIGHT, -1, 0 },
	[YC_RMT]    = { "Rmt", 5, 0, TAL_RIGHT, -1, 0 },
	[YC_CPUS]   = { "CPUs", 4, 0, TAL_RIGHT, -1, 0 },
	[YC_THR]    = { "Thr", 4, 0, TAL_RIGHT, -1, 0 },
	[YC_SITES]  = { "Sites", 5, 0, TAL_RIGHT, -1, 0 },
	[YC_HEAT]   = { "Heat", 8, 0, TAL_LEFT, -1, 1 },
	[YC_FLAG]   = { "Flag", 6, 0, TAL_LEFT, -1, 0 },
};

enum yrow_kind { YR_MEMBER, YR_BOUNDARY, YR_HOLE, YR_TEXT };

struct yrow {
	enum yrow_kind kind;
	long idx;               /* layout row */
	char *text;
};

struct ylay_priv {
	struct layout l;
	bool have;
	struct yrow *rows;
	size_t n, cap;
	uint64_t max_heat;
};

static void yadd(struct ylay_priv *p, enum yrow_kind k, long idx, const char *text)
{
	if (p->n == p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 64;
		struct yrow *r = realloc(p->rows, nc * sizeof(*r));
		if (!r)
			return;
		p->rows = r;
		p->cap = nc;
	}
	p->rows[p->n].kind = k;
	p->rows[p->n].idx = idx;
	p->rows[p->n].text = text ? strdup(text) : NULL;
	p->n++;
}

static void yline(void *ctx, const char *text)
{
	yadd(ctx, YR_TEXT, -1, text);
}

static void yfree(struct ylay_priv *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->rows[i].text);
	free(p->rows);
	p->rows = NULL;
	p->n = p->cap = 0;
	if (p->have)
		layout_fini(&p->l);
	p->have = false;
}

static int ylay_open(struct view *v, struct c2c_error *err)
{
	struct ylay_priv *p = v->priv;
	const struct view_layout_arg *a = v->q.arg;
	struct layout_access *acc = NULL;
	size_t nacc = 0;
	uint64_t ls, mis;
	long last_line = -1;
	struct layout_plan plan;
	struct layout_whatif w;

	if (!v->table.cols)
		table_init(&v->table, lay_cols, YC__COUNT);
	yfree(p);
	if (typeinfo_layout(a->st, a->type, &p->l, &acc, &nacc, err) < 0)
		return -1;
	p->have = true;
	ls = p->l.line_size;
	mis = p->l.base_misalign;
	p->max_heat = 1;
	for (size_t i = 0; i < p->l.nrows; i++) {
		const struct layout_row *r = &p->l.rows[i];
		long line = (long)((mis + r->offset) / ls);
		uint64_t heat = r->lcl_hitm + r->rmt_hitm + r->stores;
		if (r->leaf && heat > p->max_heat)
			p->max_heat = heat;
		if (line > last_line) {
			char t[96];
			snprintf(t, sizeof(t), "--- cache line %ld (object offset %lld) ---", line,
				 (long long)(line * (long)ls) - (long long)mis);
			yadd(p, YR_BOUNDARY, -1, t);
			last_line = line;
		}
		yadd(p, YR_MEMBER, (long)i, NULL);
		if (r->depth == 0 && r->hole_after) {
			char t[64];
			snprintf(t, sizeof(t), "/* %llu byte hole */", (unsigned long long)r->hole_after);
			yadd(p, YR_HOLE, -1, t);
		}
	}
	yadd(p, YR_TEXT, -1, "");
	for (size_t i = 0; i < p->l.nrows; i++)
		if (p->l.rows[i].fs_flag) {
			char t[400];
			snprintf(t, sizeof(t), "FS %s: %s", p->l.rows[i].name, p->l.rows[i].evidence);
			yadd(p, YR_TEXT, -1, t);
		}
	if (layout_propose(&plan, &p->l) == 0) {
		if (layout_whatif(&p->l, &plan, acc, nacc, &w) == 0) {
			yadd(p, YR_TEXT, -1, "");
			plan_text(&p->l, &plan, &w, NULL, yline, p);
			layout_whatif_fini(&w);
		}
		layout_plan_fini(&plan);
	}
	free(acc);
	view_table_layout(v);
	table_set_rows(&v->table, (long)p->n);
	return 0;
}

static void ylay_close(struct view *v)
{
	yfree(v->priv);
}

static void ylay_draw_row(struct view *v, long row, int selected)
{
	struct ylay_priv *p = v->priv;
	int y = v->y + 1 + (int)(row - v->table.top);
	struct table_cell cells[YC__COUNT];
	char b[YC__COUNT][48], name[200];
	const struct yrow *yr;
	const struct layout_row *r;
	uint64_t heat;

	if (row < v->table.top || row >= v->table.top + v->table.height)
		return;
	if (row >= (long)p->n) {
		term_blank(y, 0, v->w, TH_NORMAL);
		return;
	}
	yr = &p->rows[row];
	if (yr->kind != YR_MEMBER) {
		term_blank(y, 0, v->w, selected ? TH_SELECTED : TH_NORMAL);
		term_text(y, yr->kind == YR_TEXT ? 1 : 8, v->w - 9,
			  selected ? TH_SELECTED : yr->kind == YR_BOUNDARY ? TH_COLHEAD : TH_NORMAL,
			  yr->text ? yr->text : "");
		return;
	}
	r = &p->l.rows[yr->idx];
	memset(cells, 0, sizeof(cells));
	if (r->bit_size)
		snprintf(b[YC_OFF], sizeof(b[0]), "%llu:%u", (unsigned long long)r->offset, r->bit_offset);
	else
		snprintf(b[YC_OFF], sizeof(b[0]), "%llu", (unsigned long long)r->offset);
	snprintf(b[YC_SIZE], sizeof(b[0]), "%llu", (unsigned long long)r->size);
	snprintf(name, sizeof(name), "%*s%.100s %.60s", (int)(2 * (r->depth % 8)), "", r->name, r->type);
	text_count(b[YC_LOADS], sizeof(b[0]), r->loads, 7);
	text_count(b[YC_STORES], sizeof(b[0]), r->stores, 7);
	text_count(b[YC_LCL], sizeof(b[0]), r->lcl_hitm, 5);
	text_count(b[YC_RMT], sizeof(b[0]), r->rmt_hitm, 5);
	snprintf(b[YC_CPUS], sizeof(b[0]), "%u", r->cpus.n);
	snprintf(b[YC_THR], sizeof(b[0]), "%u", r->threads.n);
	snprintf(b[YC_SITES], sizeof(b[0]), "%u", r->sites.n);
	snprintf(b[YC_FLAG], sizeof(b[0]), "%s", r->fs_flag ? "FS" : r->fs_victim ? "victim" : "");
	b[YC_HEAT][0] = 0;
	for (int i = 0; i < YC__COUNT; i++)
		cells[i].text = b[i];
	cells[YC_MEMBER].text = name;
	heat = r->lcl_hitm + r->rmt_hitm + r->stores;
	cells[YC_HEAT].bar = (double)heat / (double)p->max_heat;
	if (cells[YC_HEAT].bar > 1)
		cells[YC_HEAT].bar = 1;
	cells[YC_HEAT].heat = cells[YC_HEAT].bar;
	if (r->fs_flag)
		cells[YC_FLAG].elem = TH_HEAT4;
	else if (r->fs_victim)
		cells[YC_FLAG].elem = TH_HEAT2;
	table_draw_row(&v->table, y, cells, selected);
}

static void ylay_draw(struct view *v)
{
	view_table_draw(v);
}

static void ylay_title(struct view *v, char *buf, size_t size)
{
	struct ylay_priv *p = v->priv;

	snprintf(buf, size, "Layout of %s: size %llu, align %u, %llu byte%s of holes%s",
		 p->l.type_name, (unsigned long long)p->l.size, p->l.align,
		 (unsigned long long)p->l.holes, p->l.holes == 1 ? "" : "s",
		 p->l.base_misalign ? ", objects start mid-line" : "");
}

/* Enter on a member drills into a code site that touches it. */
static enum view_result ylay_action(struct view *v, enum action act)
{
	struct ylay_priv *p = v->priv;
	const struct layout_row *r;
	struct view_query q;

	if (act != ACT_ENTER)
		return VIEW_UNHANDLED;
	if (v->table.cursor >= (long)p->n || p->rows[v->table.cursor].kind != YR_MEMBER)
		return VIEW_HANDLED;
	r = &p->l.rows[p->rows[v->table.cursor].idx];
	if (!r->sites.n) {
		view_message(v->ex, 0, "no code site touches %s", r->name);
		return VIEW_HANDLED;
	}
	memset(&q, 0, sizeof(q));
	q.ops = &view_site_ops;
	q.site = r->sites.v[0];
	q.line = STORE_ALL_LINES;
	q.cpu = -1;
	view_push(v->ex, &q);
	if (r->sites.n > 1)
		view_message(v->ex, 0, "%s is touched from %u sites; showing the first", r->name,
			     r->sites.n);
	return VIEW_HANDLED;
}

static int ylay_search(struct view *v, const char *text, int dir, struct c2c_error *err)
{
	struct ylay_priv *p = v->priv;
	long n = (long)p->n;

	(void)err;
	for (long k = 1; k <= n; k++) {
		long row = ((v->table.cursor + dir * k) % n + n) % n;
		const struct yrow *yr = &p->rows[row];
		if (yr->kind == YR_MEMBER && view_match(text, p->l.rows[yr->idx].name, 0, 0)) {
			table_goto(&v->table, row);
			return 1;
		}
	}
	return 0;
}

const struct view_ops view_layout_ops = {
	.name = "layout",
	.priv_size = sizeof(struct ylay_priv),
	.open = ylay_open,
	.close = ylay_close,
	.draw = ylay_draw,
	.draw_row = ylay_draw_row,
	.action = ylay_action,
	.search = ylay_search,
	.title = ylay_title,
};

/* ---- assigning a type by hand ---- */

static const struct table_col pick_cols[] = {
	{ "Struct (from the session's DWARF/BTF)", 0, 20, TAL_LEFT, -1, 0 },
};

struct pick_priv {
	char **names;
	size_t n;
};

static int pick_open(struct view *v, struct c2c_error *err)
{
	struct pick_priv *p = v->priv;
	const struct view_assign_arg *a = v->q.arg;

	if (!v->table.cols)
		table_init(&v->table, pick_cols, 1);
	free(p->names);
	p->names = NULL;
	if (typeinfo_struct_names(a->st, NULL, NULL, &p->names, &p->n, err) < 0)
		return -1;
	view_table_layout(v);
	table_set_rows(&v->table, (long)p->n);
	return 0;
}

static void pick_close(struct view *v)
{
	struct pick_priv *p = v->priv;

	free(p->names);
	p->names = NULL;
}

static void pick_draw_row(struct view *v, long row, int selected)
{
	struct pick_priv *p = v->priv;
	int y = v->y + 1 + (int)(row - v->table.top);
	struct table_cell cell;

	if (row < v->table.top || row >= v->table.top + v->table.height)
		return;
	if (row >= (long)p->n) {
		term_blank(y, 0, v->w, TH_NORMAL);
		return;
	}
	memset(&cell, 0, sizeof(cell));
	cell.text = p->names[row];
	table_draw_row(&v->table, y, &cell, selected);
}

static void pick_draw(struct view *v)
{
	view_table_draw(v);
}

static void pick_title(struct view *v, char *buf, size_t size)
{
	struct pick_priv *p = v->priv;
	const struct view_assign_arg *a = v->q.arg;

	snprintf(buf, size, "Assign a type to the %s%sobject at %#llx: %zu structs "
		 "[Enter: assign, /name: find, /@0xADDR: other base]", a->session, a->session[0] ? " " : "",
		 (unsigned long long)a->base, p->n);
}

static int pick_search(struct view *v, const char *text, int dir, struct c2c_error *err)
{
	struct pick_priv *p = v->priv;
	struct view_assign_arg *a = v->q.arg;
	long n = (long)p->n;

	(void)err;
	if (text[0] == '@') {
		char *end;
		unsigned long long base = strtoull(text + 1, &end, 0);
		if (end == text + 1 || *end)
			return 0;
		a->base = base;
		v->ex->dirty |= DIRTY_ALL;
		return 1;
	}
	for (long k = 1; k <= n; k++) {
		long row = ((v->table.cursor + dir * k) % n + n) % n;
		if (view_match(text, p->names[row], 0, 0)) {
			table_goto(&v->table, row);
			return 1;
		}
	}
	return 0;
}

static enum view_result pick_action(struct view *v, enum action act)
{
	struct pick_priv *p = v->priv;
	const struct view_assign_arg *a = v->q.arg;
	struct c2c_error err = { 0 };
	char what[256];

	if (act != ACT_ENTER)
		return VIEW_UNHANDLED;
	if (v->table.cursor >= (long)p->n)
		return VIEW_HANDLED;
	if (typeinfo_assign(a->st, a->base, p->names[v->table.cursor], NULL, NULL, &err) < 0) {
		view_message(v->ex, 1, "%s", err.msg);
		return VIEW_HANDLED;
	}
	snprintf(what, sizeof(what), "%.100s assigned to the object at %#llx (saved in the session)",
		 p->names[v->table.cursor], (unsigned long long)a->base);
	/* back to the diff, every view re-running its queries */
	view_filter_changed(v->ex, 1, what);
	return VIEW_HANDLED;
}

const struct view_ops view_assign_ops = {
	.name = "assign",
	.priv_size = sizeof(struct pick_priv),
	.open = pick_open,
	.close = pick_close,
	.draw = pick_draw,
	.draw_row = pick_draw_row,
	.action = pick_action,
	.search = pick_search,
	.title = pick_title,
};
