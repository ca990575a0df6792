/* pahole's default view of a struct as JSON (tui/report/layout_pahole.h):
 * one object per member in order (an anonymous struct/union member is one
 * entry, "anonymous": its kind, followed by its own members one level
 * deeper), with offset, size, cache line, the cache line comment before
 * it, the holes after it; then pahole's statistics. */
#include "tui/report/layout_pahole.h"

#include "tui/report/escape.h"

/* The CLOSE row of the OPEN row i: where pahole puts the holes after an
 * anonymous member. */
static const struct layout_pahole_row *close_of(const struct layout_pahole *p, size_t i)
{
	for (size_t k = i + 1; k < p->nrows; k++)
		if (p->rows[k].kind == LAYOUT_PAHOLE_CLOSE && p->rows[k].depth == p->rows[i].depth)
			return &p->rows[k];
	return &p->rows[i];
}

static void row_json(const struct layout_pahole *p, size_t i, FILE *out)
{
	const struct layout_pahole_row *r = &p->rows[i];
	const struct layout_pahole_row *after = r->kind == LAYOUT_PAHOLE_OPEN ? close_of(p, i) : r;

	fprintf(out, "{\"name\":");
	report_json_str(out, r->name);
	if (r->kind == LAYOUT_PAHOLE_OPEN) {
		fprintf(out, ",\"anonymous\":");
		report_json_str(out, r->type);
		fprintf(out, ",\"decl\":");
		report_json_str(out, after->decl);
	} else {
		fprintf(out, ",\"type\":");
		report_json_str(out, r->type);
		fprintf(out, ",\"decl\":");
		report_json_str(out, r->decl);
	}
	fprintf(out, ",\"depth\":%u,\"offset\":%llu,\"size\":%llu", r->depth,
		(unsigned long long)r->offset, (unsigned long long)r->size);
	if (r->bit_size)
		fprintf(out, ",\"bit_offset\":%u,\"bit_size\":%u", r->bit_offset, r->bit_size);
	if (r->relative)
		fprintf(out, ",\"relative\":true");
	fprintf(out, ",\"line\":%llu", (unsigned long long)(r->offset / p->line_size));
	if (r->boundary_line)
		fprintf(out, ",\"boundary\":{\"line\":%u,\"ago\":%llu}", r->boundary_line,
			(unsigned long long)r->boundary_ago);
	fprintf(out, ",\"hole\":%llu,\"bit_hole\":%u,\"type_padding\":%llu}",
		(unsigned long long)after->hole, after->bit_hole,
		(unsigned long long)after->type_padding);
}

void layout_pahole_json(const struct layout_pahole *p, const char *source, FILE *out)
{
	bool first = true;

	fprintf(out, "{\"type\":");
	report_json_str(out, p->type_name);
	fprintf(out, ",\"source\":");
	report_json_str(out, source ? source : "");
	fprintf(out, ",\"size\":%llu,\"line_size\":%u,\"cachelines\":%llu,\"last_cacheline\":%llu",
		(unsigned long long)p->size, p->line_size,
		(unsigned long long)layout_pahole_cachelines(p),
		(unsigned long long)(p->size % p->line_size));
	fprintf(out, ",\"nr_members\":%u,\"sum_members\":%llu,\"sum_bitfield_bits\":%llu", p->members,
		(unsigned long long)p->sum_bytes, (unsigned long long)p->sum_bits);
	fprintf(out, ",\"holes\":%u,\"sum_holes\":%llu,\"bit_holes\":%u,\"sum_bit_holes\":%llu",
		p->nr_holes, (unsigned long long)p->sum_holes, p->nr_bit_holes,
		(unsigned long long)p->sum_bit_holes);
	fprintf(out, ",\"pre_hole\":%llu,\"padding\":%llu,\"bit_padding\":%u",
		(unsigned long long)p->pre_hole, (unsigned long long)p->padding, p->bit_padding);
	fprintf(out, ",\"paddings\":%u,\"sum_paddings\":%llu,\"members\":[", p->nr_paddings,
		(unsigned long long)p->sum_paddings);
	for (size_t i = 0; i < p->nrows; i++) {
		if (p->rows[i].kind == LAYOUT_PAHOLE_CLOSE)
			continue;
		if (!first)
			fputc(',', out);
		first = false;
		row_json(p, i, out);
	}
	fprintf(out, "]}\n");
}
