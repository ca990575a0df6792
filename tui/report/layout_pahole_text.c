/* pahole's default text of a struct (tui/report/layout_pahole.h): the
 * rows, comments and statistics in pahole's words and order, so that a
 * line-by-line comparison with `pahole -C TYPE` holds. Columns are close
 * to pahole's, not byte-exact (type names are c2ctui's). */
#include "tui/report/layout_pahole.h"

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

static const char tabs[] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";

static int indent_of(uint32_t depth)
{
	return depth + 1 < sizeof(tabs) ? (int)depth + 1 : (int)sizeof(tabs) - 1;
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* The offset comment: offset and size, a bitfield's "offset:bit size". */
static void offset_comment(const struct layout_pahole_row *r, FILE *out)
{
	if (r->bit_size)
		fprintf(out, "/* %5llu:%2u %2llu */\n", (unsigned long long)r->offset, r->bit_offset,
			(unsigned long long)r->size);
	else
		fprintf(out, "/* %5llu %5llu */\n", (unsigned long long)r->offset,
			(unsigned long long)r->size);
}

/* One of pahole's comments after a member: the first opens with a blank
 * line, and *pending asks for one before the next row. */
static void comment(FILE *out, int ind, bool *pending, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void comment(FILE *out, int ind, bool *pending, const char *fmt, ...)
{
	va_list ap;

	if (!*pending)
		fputc('\n', out);
	*pending = true;
	fprintf(out, "%.*s", ind, tabs);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
}

static void after_comments(const struct layout_pahole_row *r, int ind, bool *pending, FILE *out)
{
	if (r->type_padding)
		comment(out, ind, pending, "/* XXX last struct has %llu byte%s of padding */",
			(unsigned long long)r->type_padding, plural(r->type_padding));
	if (r->bit_hole)
		comment(out, ind, pending, "/* XXX %u bit%s hole, try to pack */", r->bit_hole,
			plural(r->bit_hole));
	if (r->hole)
		comment(out, ind, pending, "/* XXX %llu byte%s hole, try to pack */",
			(unsigned long long)r->hole, plural(r->hole));
}

static void stats(const struct layout_pahole *p, FILE *out)
{
	uint64_t last = p->size % p->line_size;

	fprintf(out, "\n\t/* size: %llu, cachelines: %llu, members: %u */\n",
		(unsigned long long)p->size, (unsigned long long)layout_pahole_cachelines(p),
		p->members);
	if (p->sum_holes || p->sum_bit_holes) {
		if (p->sum_bytes) {
			fprintf(out, "\t/* sum members: %llu", (unsigned long long)p->sum_bytes);
			if (p->sum_holes)
				fprintf(out, ", holes: %u, sum holes: %llu", p->nr_holes,
					(unsigned long long)p->sum_holes);
			fprintf(out, " */\n");
		}
		if (p->sum_bits) {
			fprintf(out, "\t/* sum bitfield members: %llu bits", (unsigned long long)p->sum_bits);
			if (p->sum_bit_holes)
				fprintf(out, ", bit holes: %u, sum bit holes: %llu bits", p->nr_bit_holes,
					(unsigned long long)p->sum_bit_holes);
			else
				fprintf(out, " (%llu bytes)", (unsigned long long)p->sum_bits / 8);
			fprintf(out, " */\n");
		}
	}
	if (p->padding)
		fprintf(out, "\t/* padding: %llu */\n", (unsigned long long)p->padding);
	if (p->nr_paddings)
		fprintf(out, "\t/* paddings: %u, sum paddings: %llu */\n", p->nr_paddings,
			(unsigned long long)p->sum_paddings);
	if (p->bit_padding)
		fprintf(out, "\t/* bit_padding: %u bits */\n", p->bit_padding);
	if (last)
		fprintf(out, "\t/* last cacheline: %llu bytes */\n", (unsigned long long)last);
}

void layout_pahole_text(const struct layout_pahole *p, FILE *out)
{
	bool pending = false;

	fprintf(out, "%s {\n", p->type_name);
	if (p->pre_bit_hole)
		comment(out, 1, &pending, "/* XXX %u bit%s hole, try to pack */", p->pre_bit_hole,
			plural(p->pre_bit_hole));
	if (p->pre_hole)
		comment(out, 1, &pending, "/* XXX %llu byte%s hole, try to pack */",
			(unsigned long long)p->pre_hole, plural(p->pre_hole));
	for (size_t i = 0; i < p->nrows; i++) {
		const struct layout_pahole_row *r = &p->rows[i];
		/* pahole's columns: a union's names are 2 narrower, a pointed-to
		 * anonymous type's members 8 more */
		int ind = indent_of(r->depth);
		int tw = 26 - 8 * (int)r->depth - (r->relative ? 8 : 0);
		int width = tw + (p->is_union ? 21 : 23);
		char text[320];

		/* a nested struct's last comment runs straight into its '}' */
		if (pending && r->kind != LAYOUT_PAHOLE_CLOSE)
			fputc('\n', out);
		pending = false;
		if (r->boundary_line && r->boundary_ago)
			fprintf(out, "%.*s/* --- cacheline %u boundary (%llu bytes) was %llu byte%s ago --- */\n",
				ind, tabs, r->boundary_line,
				(unsigned long long)r->boundary_line * p->line_size,
				(unsigned long long)r->boundary_ago, plural(r->boundary_ago));
		else if (r->boundary_line)
			fprintf(out, "%.*s/* --- cacheline %u boundary (%llu bytes) --- */\n", ind, tabs,
				r->boundary_line, (unsigned long long)r->boundary_line * p->line_size);
		/* pahole's columns: the type padded to 26 (8 less per level),
		 * the offset comment at 49 (same), at least one space before it;
		 * an array or pointer of an anonymous type gets just the space */
		switch (r->kind) {
		case LAYOUT_PAHOLE_OPEN:
			fprintf(out, "%.*s%s {\n", ind, tabs, r->type);
			continue;
		case LAYOUT_PAHOLE_CLOSE:
			snprintf(text, sizeof(text), "}%s%s;", r->decl[0] ? " " : "", r->decl);
			if (strpbrk(r->decl, "[*"))
				width = 0;
			break;
		default:
			snprintf(text, sizeof(text), "%-*s %s;", tw, r->type, r->decl);
			break;
		}
		if ((int)strlen(text) >= width)
			width = (int)strlen(text) + 1;
		fprintf(out, "%.*s%-*s", ind, tabs, width, text);
		offset_comment(r, out);
		after_comments(r, ind, &pending, out);
	}
	if (!p->is_union)
		stats(p, out);
	fprintf(out, "};\n");
}
