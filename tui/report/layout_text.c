/* The proposed layout and its what-if as text lines, one writer for
 * `report --layout TYPE` and the layout view (tui/report/layout_text.h). */
#include "tui/report/layout_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>



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

void plan_text(const struct layout *l, const struct layout_plan *p,
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
	if (p->nannotations) {
		emitf(fn, ctx, "In the source:");
		for (size_t i = 0; i < p->nannotations; i++)
			emitf(fn, ctx, "  - %s", p->annotations[i]);
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
