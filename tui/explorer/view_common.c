/* Helpers every view uses: table layout and drawing in the body area,
 * search matching, and the display-mode arithmetic (which HITM counter a
 * mode means), so all views agree with each other and with report. */
#include "tui/explorer/view.h"
#include "tui/term/term.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void view_table_layout(struct view *v)
{
	table_resize(&v->table, v->h > 1 ? v->h - 1 : 0, v->w);
}

void view_table_draw(struct view *v)
{
	struct table *t = &v->table;
	long row;
	int i;

	table_draw_header(t, v->y);
	for (i = 0; i < t->height; i++) {
		row = t->top + i;
		if (row < t->nrows && v->ops->draw_row)
			v->ops->draw_row(v, row, row == t->cursor);
		else
			term_blank(v->y + 1 + i, 0, v->w, TH_NORMAL);
	}
	table_drawn(t);
}

static int hex_value(const char *text, uint64_t *val)
{
	char *end;

	if (strncasecmp(text, "0x", 2) != 0)
		return 0;
	*val = strtoull(text + 2, &end, 16);
	return end != text + 2 && *end == 0;
}

bool view_match(const char *text, const char *name, uint64_t addr, uint64_t size)
{
	uint64_t val;
	size_t n;

	if (!text || !*text)
		return false;
	if (hex_value(text, &val))
		return size ? (val >= addr && val - addr < size) : val == addr;
	if (!name || !*name)
		return false;
	n = strlen(text);
	for (const char *p = name; *p; p++)
		if (!strncasecmp(p, text, n))
			return true;
	return false;
}

bool view_contains(const char *shown, const char *text)
{
	size_t n;

	if (!text || !*text || !shown)
		return false;
	n = strlen(text);
	for (const char *p = shown; *p; p++)
		if (!strncasecmp(p, text, n))
			return true;
	return false;
}

uint64_t view_hitm(const struct c2c_stats *s, enum store_mode mode)
{
	switch (mode) {
	case STORE_MODE_LCL:
		return s->lcl_hitm;
	case STORE_MODE_RMT:
		return s->rmt_hitm;
	case STORE_MODE_PEER:
		return s->tot_peer;
	case STORE_MODE_TOT:
	default:
		return s->tot_hitm;
	}
}

const char *view_mode_name(enum store_mode mode)
{
	switch (mode) {
	case STORE_MODE_LCL:
		return "lcl";
	case STORE_MODE_RMT:
		return "rmt";
	case STORE_MODE_PEER:
		return "peer";
	case STORE_MODE_TOT:
	default:
		return "tot";
	}
}

int view_sort_rows(void **rows, size_t n, size_t elem, int (*cmp_idx)(const void *, const void *, void *),
		   void *ctx)
{
	size_t *idx = malloc(n * sizeof(*idx));
	char *out = malloc(n * elem);

	if (!idx || !out) {
		free(idx);
		free(out);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), cmp_idx, ctx);
	for (size_t i = 0; i < n; i++)
		memcpy(out + i * elem, (const char *)*rows + idx[i] * elem, elem);
	free(idx);
	free(*rows);
	*rows = out;
	return 0;
}
