/* One code site: the function and source line, the source text around it
 * when the file is readable here (the sampled line highlighted), the
 * sampled instruction decoded from the binary at the recorded path with a
 * few before and after (collector/types/insn_listing.h; marked), the type
 * members its samples were attributed to (when the session has a type
 * attribution), the lines and offsets it touches (Enter opens the line)
 * and its callers from the recorded call chains (Enter opens the caller).
 * One scrolling list. */
#include "tui/explorer/view.h"
#include "store/types/typeinfo.h"
#include "tui/term/term.h"
#include "collector/types/insn_listing.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum row_kind { RK_TEXT, RK_HEAD, RK_SRC, RK_SRC_HOT, RK_INSN, RK_INSN_HOT, RK_ACCESS, RK_CALLER };

struct site_row {
	enum row_kind kind;
	int index;              /* access / caller index, source line number */
	char *text;             /* RK_TEXT, RK_HEAD, RK_SRC* */
};

struct site_priv {
	struct store_site site;
	struct store_site_access_row *acc;
	size_t nacc;
	struct store_caller_row *callers;
	size_t ncallers;
	struct site_row *rows;
	size_t nrows, cap;
};

static const struct table_col site_col[] = {
	{ "Code site", 0, 10, TAL_LEFT, -1, 0 },
};

static void add_row(struct site_priv *p, enum row_kind k, int index, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add_row(struct site_priv *p, enum row_kind k, int index, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (p->nrows == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		struct site_row *n = realloc(p->rows, cap * sizeof(*n));
		if (!n)
			return;
		p->rows = n;
		p->cap = cap;
	}
	buf[0] = 0;
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(buf, sizeof(buf), fmt, ap);
		va_end(ap);
	}
	p->rows[p->nrows].kind = k;
	p->rows[p->nrows].index = index;
	p->rows[p->nrows].text = strdup(buf);
	p->nrows++;
}

static void site_free(struct site_priv *p)
{
	for (size_t i = 0; i < p->nrows; i++)
		free(p->rows[i].text);
	free(p->rows);
	free(p->acc);
	free(p->callers);
	p->rows = NULL;
	p->acc = NULL;
	p->callers = NULL;
	p->nrows = p->cap = p->nacc = p->ncallers = 0;
}

/* Tabs become spaces and control bytes '?', so the text measures right. */
static void clean_line(char *dst, size_t size, const char *src)
{
	size_t o = 0;

	for (; *src && *src != '\n' && o + 9 < size; src++) {
		if (*src == '\t') {
			do
				dst[o++] = ' ';
			while (o % 8 && o + 1 < size);
		} else if ((unsigned char)*src < 0x20) {
			dst[o++] = '?';
		} else {
			dst[o++] = *src;
		}
	}
	dst[o] = 0;
}

/* A recorded path, looked for under --symfs first (as perf does for
 * binaries), else as recorded. */
static const char *symfs_path(const struct explorer *ex, const char *path, char *buf, size_t size)
{
	const char *symfs = ex->opt ? ex->opt->symfs : NULL;

	if (!symfs || !*symfs || !*path)
		return path;
	snprintf(buf, size, "%s/%s", symfs, path[0] == '/' ? path + 1 : path);
	return access(buf, R_OK) == 0 ? buf : path;
}

static void add_source(struct site_priv *p, const struct explorer *ex, int context)
{
	const struct store_site *s = &p->site;
	char line[2048], clean[1024];
	FILE *f;
	unsigned n = 0, from, to;

	if (!s->file[0] || !s->line) {
		add_row(p, RK_TEXT, 0, "  (no source line recorded for this site)");
		return;
	}
	char where[4200];
	f = fopen(symfs_path(ex, s->file, where, sizeof(where)), "r");
	if (!f) {
		add_row(p, RK_TEXT, 0, "  (%s is not readable here)", s->file);
		return;
	}
	from = s->line > (unsigned)context ? s->line - (unsigned)context : 1;
	to = s->line + (unsigned)context;
	while (fgets(line, sizeof(line), f) && ++n <= to) {
		if (n < from)
			continue;
		clean_line(clean, sizeof(clean), line);
		add_row(p, n == s->line ? RK_SRC_HOT : RK_SRC, (int)n, "%6u%s %s", n, n == s->line ? ">" : " ",
			clean);
	}
	fclose(f);
	if (n < s->line)
		add_row(p, RK_TEXT, 0, "  (%s has only %u lines: not the recorded file?)", s->file, n);
}

/* The sampled instruction and its neighbours, decoded from the binary the
 * site was recorded in (rel_addr: its own address space), forward from the
 * function's start (rel_addr - offset) when the symbol is known. */
static void add_insns(struct site_priv *p, const struct explorer *ex, int context)
{
	const struct store_site *s = &p->site;
	struct c2c_error err = { 0 };
	struct insn_line *lines = NULL;
	size_t n = 0;
	char hex[64];

	if (!s->dso[0] || s->dso[0] == '[') {
		add_row(p, RK_TEXT, 0, "  (no binary on disk for this site)");
		return;
	}
	char where[4200];
	if (insn_listing(symfs_path(ex, s->dso, where, sizeof(where)), s->rel_addr, s->function[0] ? s->rel_addr - s->offset : 0, context, context,
			 &lines, &n, &err) < 0) {
		add_row(p, RK_TEXT, 0, "  (%s)", err.msg);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		size_t o = 0;
		/* objdump's first bytes; a longer instruction ends in "+" */
		for (unsigned b = 0; b < lines[i].length && b < 7; b++)
			o += (size_t)snprintf(hex + o, sizeof(hex) - o, "%s%02x", b ? " " : "", lines[i].bytes[b]);
		if (lines[i].length > 7)
			snprintf(hex + o, sizeof(hex) - o, "+");
		add_row(p, lines[i].sampled ? RK_INSN_HOT : RK_INSN, 0, "  %c %10" PRIx64 ":  %-21s  %s",
			lines[i].sampled ? '>' : ' ', lines[i].addr, hex, lines[i].text);
	}
	free(lines);
}

/* The type members the site's samples were attributed to. */
static void add_members(struct site_priv *p, struct store *st, int64_t site)
{
	struct store_site_member_row *m = NULL;
	struct c2c_error err = { 0 };
	size_t n = 0;

	if (!typeinfo_present(st)) {
		/* attributing is a scan of every sample: the user asks for it */
		add_row(p, RK_TEXT, 0, NULL);
		add_row(p, RK_TEXT, 0, "Members: not attributed yet (L in a line view attributes types)");
		return;
	}
	if (store_query_site_members(st, site, &m, &n, &err) < 0 || !n) {
		free(m);
		return;
	}
	add_row(p, RK_TEXT, 0, NULL);
	add_row(p, RK_HEAD, 0, "Members its samples were attributed to (%zu)", n);
	for (size_t i = 0; i < n; i++)
		add_row(p, RK_TEXT, 0, "  %8" PRIu64 "  %s%s%s", m[i].samples, m[i].type, m[i].member[0] ? "." : "",
			m[i].member[0] ? m[i].member : "  (no member)");
	free(m);
}

static const char *mode_name(uint8_t m)
{
	switch (m) {
	case 1: return "kernel";
	case 2: return "user";
	case 3: return "hypervisor";
	case 4: return "guest kernel";
	case 5: return "guest user";
	default: return "unknown";
	}
}

/* "func+0x12", or the bare address when the function is unknown. */
static void site_name(const struct store_site *s, char *buf, size_t size)
{
	if (s->function[0])
		snprintf(buf, size, "%s+0x%" PRIx64, s->function, s->offset);
	else
		snprintf(buf, size, "0x%" PRIx64, s->ip);
}

static int site_open(struct view *v, struct c2c_error *err)
{
	struct site_priv *p = v->priv;
	struct explorer *ex = v->ex;
	const struct store_site *s = &p->site;
	char name[160];
	int r;

	if (!v->table.cols)
		table_init(&v->table, site_col, 1);
	site_free(p);
	r = store_get_site(ex->st, v->q.site, &p->site, err);
	if (r < 0)
		return r;
	r = store_query_site_accesses(ex->st, v->q.site, &ex->filter, ex->mode, &p->acc, &p->nacc, err);
	if (r < 0)
		return r;
	r = store_query_site_callers(ex->st, v->q.site, &p->callers, &p->ncallers, err);
	if (r < 0)
		return r;
	site_name(s, name, sizeof(name));
	add_row(p, RK_TEXT, 0, "Function  %s  (ip 0x%" PRIx64 ", %s%s)", name, s->ip, mode_name(s->cpumode),
		s->pid >= 0 ? "" : ", kernel/shared");
	add_row(p, RK_TEXT, 0, "Binary    %s", s->dso[0] ? s->dso : "?");
	if (s->file[0])
		add_row(p, RK_TEXT, 0, "Source    %s:%u", s->file, s->line);
	else
		add_row(p, RK_TEXT, 0, "Source    ?");
	add_row(p, RK_TEXT, 0,
		"Records   %" PRIu64 "  loads %" PRIu64 "  stores %" PRIu64 "  HITM %" PRIu64 " (lcl %" PRIu64
		", rmt %" PRIu64 ")  peer %" PRIu64 "  avg load latency %.0f",
		c2c_total_records(&s->stats), c2c_total_loads(&s->stats), c2c_stores_total(&s->stats),
		s->stats.tot_hitm, s->stats.lcl_hitm, s->stats.rmt_hitm, s->stats.tot_peer,
		store_lat_avg(&s->lat, STORE_LAT_LOAD));
	add_row(p, RK_TEXT, 0, NULL);
	add_row(p, RK_HEAD, 0, "Source");
	add_source(p, v->ex, v->h > 30 ? 6 : 3);
	add_row(p, RK_TEXT, 0, NULL);
	add_row(p, RK_HEAD, 0, "Instructions");
	add_insns(p, v->ex, v->h > 30 ? 6 : 3);
	add_members(p, ex->st, v->q.site);
	add_row(p, RK_TEXT, 0, NULL);
	add_row(p, RK_HEAD, 0, "Lines and offsets it touches (%zu)   Enter: open the line", p->nacc);
	add_row(p, RK_TEXT, 0, "  %-18s %-6s %6s %6s %6s %7s %7s  %s", "Line", "Off", "Hitm", "Lcl", "Rmt",
		"Loads", "Stores", "Data");
	for (size_t i = 0; i < p->nacc; i++)
		add_row(p, RK_ACCESS, (int)i, NULL);
	if (!p->nacc)
		add_row(p, RK_TEXT, 0, "  (none under the current filters)");
	add_row(p, RK_TEXT, 0, NULL);
	add_row(p, RK_HEAD, 0, "Callers (%zu)   Enter: open the caller", p->ncallers);
	for (size_t i = 0; i < p->ncallers; i++)
		add_row(p, RK_CALLER, (int)i, NULL);
	if (!p->ncallers)
		add_row(p, RK_TEXT, 0, "  (no call chains were recorded through this site)");
	table_set_rows(&v->table, (long)p->nrows);
	view_table_layout(v);
	/* Start on the sampled source line when there is one. */
	if (v->table.cursor == 0)
		for (size_t i = 0; i < p->nrows; i++)
			if (p->rows[i].kind == RK_SRC_HOT) {
				table_goto(&v->table, (long)i);
				break;
			}
	return 0;
}

static void site_close(struct view *v)
{
	site_free(v->priv);
}

static void site_draw_row(struct view *v, long row, int selected)
{
	struct site_priv *p = v->priv;
	const struct site_row *r;
	int y = v->y + 1 + (int)(row - v->table.top);
	char buf[600];
	enum theme_elem e = TH_NORMAL;

	if (row < v->table.top || row >= v->table.top + v->table.height)
		return;
	if (row >= (long)p->nrows) {
		term_blank(y, 0, v->w, TH_NORMAL);
		return;
	}
	r = &p->rows[row];
	switch (r->kind) {
	case RK_ACCESS: {
		const struct store_site_access_row *a = &p->acc[r->index];
		char h[16], l[16], m[16], ld[16], st[16];
		text_count(h, sizeof(h), view_hitm(&a->stats, v->ex->mode), 6);
		text_count(l, sizeof(l), a->stats.lcl_hitm, 6);
		text_count(m, sizeof(m), a->stats.rmt_hitm, 6);
		text_count(ld, sizeof(ld), c2c_total_loads(&a->stats), 7);
		text_count(st, sizeof(st), c2c_stores_total(&a->stats), 7);
		snprintf(buf, sizeof(buf), "  0x%-16" PRIx64 " 0x%02" PRIx64 "   %6s %6s %6s %7s %7s  %s", c2c_line_display(a->line_addr, v->ex->cacheline),
			 a->offset, h, l, m, ld, st, a->symbol[0] ? a->symbol : "-");
		if (a->symbol[0]) {
			size_t len = strlen(buf);
			snprintf(buf + len, sizeof(buf) - len, "+0x%" PRIx64, a->symbol_offset);
		}
		break;
	}
	case RK_CALLER: {
		const struct store_caller_row *c = &p->callers[r->index];
		snprintf(buf, sizeof(buf), "  %8" PRIu64 "  %s+0x%" PRIx64 "  %s", c->count,
			 c->function[0] ? c->function : "?", c->offset, c->dso);
		break;
	}
	case RK_HEAD:
		e = TH_HEADER_LABEL;
		snprintf(buf, sizeof(buf), "%s", r->text);
		break;
	case RK_SRC_HOT:
	case RK_INSN_HOT:
		e = TH_SOURCE_HOT;
		snprintf(buf, sizeof(buf), "%s", r->text);
		break;
	case RK_SRC:
	case RK_TEXT:
	default:
		snprintf(buf, sizeof(buf), "%s", r->text ? r->text : "");
		break;
	}
	term_field(y, 0, v->w, selected ? TH_SELECTED : e, buf);
}

static void site_draw(struct view *v)
{
	view_table_draw(v);
}

static void site_title(struct view *v, char *buf, size_t size)
{
	struct site_priv *p = v->priv;
	char name[160];

	site_name(&p->site, name, sizeof(name));
	snprintf(buf, size, "Code site %s%s%s", name, p->site.file[0] ? "  " : "", p->site.file);
}

static enum view_result site_action(struct view *v, enum action a, struct view_reply *reply)
{
	struct site_priv *p = v->priv;
	const struct site_row *r;

	if (a != ACT_ENTER)
		return VIEW_UNHANDLED;
	if (v->table.cursor >= (long)p->nrows)
		return VIEW_HANDLED;
	r = &p->rows[v->table.cursor];
	if (r->kind == RK_ACCESS) {
		view_reply_push(reply, VK_LINE)->line = p->acc[r->index].line_addr;
		return VIEW_HANDLED | VIEW_PUSH;
	}
	if (r->kind == RK_CALLER && p->callers[r->index].site > 0) {
		view_reply_push(reply, VK_SITE)->site = p->callers[r->index].site;
		return VIEW_HANDLED | VIEW_PUSH;
	}
	return VIEW_HANDLED;
}

static int site_search(struct view *v, const char *text, int dir, struct c2c_error *err)
{
	struct site_priv *p = v->priv;
	long n = (long)p->nrows;

	(void)err;
	for (long k = 1; k <= n; k++) {
		long row = ((v->table.cursor + dir * k) % n + n) % n;
		const struct site_row *r = &p->rows[row];
		int hit = 0;

		if (r->kind == RK_ACCESS)
			hit = view_match(text, p->acc[r->index].symbol, p->acc[r->index].line_addr, v->ex->cacheline);
		else if (r->kind == RK_CALLER)
			hit = view_match(text, p->callers[r->index].function, 0, 0);
		else if (r->text)
			hit = view_match(text, r->text, 1, 0) && text[0] != '0';
		if (hit) {
			table_goto(&v->table, row);
			return 1;
		}
	}
	return 0;
}

const struct view_ops view_site_ops = {
	.name = "site",
	.priv_size = sizeof(struct site_priv),
	.open = site_open,
	.close = site_close,
	.draw = site_draw,
	.draw_row = site_draw_row,
	.action = site_action,
	.search = site_search,
	.title = site_title,
};
