/* collector/layout: pahole's default view of a struct or union (rows,
 * holes, bit holes, padding, cache line comments, statistics), computed
 * with pahole's rules (dwarves_fprintf.c, class__find_holes() in
 * dwarves.c) so that the two can be compared line by line. */
#include "collector/layout/layout_pahole.h"
#include "collector/layout/layout_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A member as pahole's struct class_member holds it (offsets from the
 * start of the aggregate that declares it). */
struct ph_mem {
	int64_t bit_offset;
	int64_t byte_offset;     /* bitfields: start of the storage unit */
	int64_t byte_size;       /* bitfields: size of the storage unit */
	int64_t bit_size;        /* byte_size * 8 */
	int64_t bitfield_size;
	int64_t hole, bit_hole;  /* after this member */
};

struct ph_holes {
	int64_t pre_hole, pre_bit_hole, padding, bit_padding;
	uint32_t nr_holes, nr_bit_holes;
};

struct ph_ctx {
	struct layout_pahole *p;
	size_t cap;
	struct types_db *db;
	uint32_t cacheline;      /* pahole's shared "last cache line printed" */
	struct c2c_error *err;
};

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* pahole's loaders: a bitfield of an integer or enum type sits in the
 * storage unit of that type holding its first bit (BTF
 * class__fixup_btf_bitfields; the DWARF loader agrees). */
static void ph_member(struct types_db *db, const struct types_member *m, struct ph_mem *o)
{
	uint32_t sid = types_strip(db, m->type);
	const struct types_type *t = types_get(db, sid);

	memset(o, 0, sizeof(*o));
	o->bit_offset = (int64_t)m->bit_offset;
	o->byte_offset = o->bit_offset / 8;
	o->byte_size = t ? (int64_t)t->size : 0;
	o->bit_size = o->byte_size * 8;
	o->bitfield_size = m->bit_size;
	if (m->bit_size && o->bit_size && (t->kind == TYPES_BASE || t->kind == TYPES_ENUM))
		o->byte_offset = o->bit_offset / o->bit_size * o->bit_size / 8;
}

/* class__find_holes(), member for member: the byte and bit holes after
 * each member, before the first one, and the padding at the end. */
static void ph_find_holes(struct ph_mem *v, size_t n, int64_t size, struct ph_holes *h)
{
	int64_t cur_bitfield_end = size * 8, cur_bitfield_size = 0, last_seen_bit = 0;
	bool in_bitfield = false;
	struct ph_mem *last = NULL;

	memset(h, 0, sizeof(*h));
	for (size_t i = 0; i < n; i++) {
		struct ph_mem *pos = &v[i];
		int64_t bit_start = pos->bit_offset, bit_holes = 0, byte_holes = 0;
		int64_t bit_end = bit_start + (pos->bitfield_size ? pos->bitfield_size
								  : pos->byte_size * 8);

		pos->hole = pos->bit_hole = 0;
		if (in_bitfield) {
			/* trailing bits of the previous storage unit */
			int64_t bitfield_end = min64(bit_start, cur_bitfield_end);
			bit_holes = bitfield_end - last_seen_bit;
			last_seen_bit = bitfield_end;
		}
		if (pos->bitfield_size) {
			int64_t aligned_start = pos->byte_offset * 8;
			if (last_seen_bit < aligned_start && aligned_start <= bit_start) {
				byte_holes = pos->byte_offset - last_seen_bit / 8;
				last_seen_bit = aligned_start;
			}
			bit_holes += bit_start - last_seen_bit;
		} else {
			byte_holes = bit_start / 8 - last_seen_bit / 8;
		}
		last_seen_bit = bit_end;
		if (pos->bitfield_size) {
			in_bitfield = true;
			if (bit_end > cur_bitfield_end || pos->bit_size > cur_bitfield_size) {
				cur_bitfield_size = pos->bit_size;
				cur_bitfield_end = pos->byte_offset * 8 + cur_bitfield_size;
				/* a bitfield that borrowed bits of the previous unit */
				if (bit_end > cur_bitfield_end)
					cur_bitfield_end += cur_bitfield_size;
			}
		} else {
			in_bitfield = false;
			cur_bitfield_size = 0;
			cur_bitfield_end = bit_end;
		}
		if (last) {
			last->hole = byte_holes;
			last->bit_hole = bit_holes;
		} else {
			h->pre_hole = byte_holes;
			h->pre_bit_hole = bit_holes;
		}
		if (bit_holes)
			h->nr_bit_holes++;
		if (byte_holes)
			h->nr_holes++;
		last = pos;
	}
	if (in_bitfield) {
		int64_t bitfield_end = min64(size * 8, cur_bitfield_end);
		h->bit_padding = bitfield_end - last_seen_bit;
		last_seen_bit = bitfield_end;
	}
	h->padding = size - last_seen_bit / 8;
}

/* Padding at the end of a struct type ("last struct has N bytes of
 * padding"), 0 for any other type. */
static int64_t ph_struct_padding(struct types_db *db, uint32_t id)
{
	const struct types_type *t = types_get(db, id);
	const struct types_member *m;
	struct ph_mem *v;
	struct ph_holes h;
	size_t n;

	if (!t || t->kind != TYPES_STRUCT || t->declaration)
		return 0;
	n = types_members(db, id, &m);
	if (!n)
		return (int64_t)t->size;
	v = calloc(n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		ph_member(db, &m[i], &v[i]);
	ph_find_holes(v, n, (int64_t)t->size, &h);
	free(v);
	return h.padding;
}

static bool is_qualifier_name(const char *s)
{
	return s && (!strcmp(s, "const") || !strcmp(s, "volatile") || !strcmp(s, "restrict") ||
		     !strcmp(s, "_Atomic"));
}

/* The anonymous struct/union pahole prints in place for a member of this
 * type: the type itself (through qualifiers), the element of an array of
 * one (dims gets "[3]"), or what a pointer points to (*via_ptr; pahole
 * skips only BTF type tags there). 0 when the member is one plain row. */
static uint32_t ph_inline(struct types_db *db, uint32_t type, char *dims, size_t len,
			  bool *via_ptr)
{
	uint32_t id = type;
	size_t n = 0;

	dims[0] = 0;
	*via_ptr = false;
	for (int guard = 0; guard < 32; guard++) {
		const struct types_type *t = types_get(db, id);
		if (!t)
			return 0;
		if (t->kind == TYPES_QUAL && (!*via_ptr || !is_qualifier_name(t->name))) {
			id = t->ref;
		} else if (t->kind == TYPES_ARRAY && !*via_ptr) {
			if (n < len)
				n += (size_t)snprintf(dims + n, len - n, "[%llu]",
						      (unsigned long long)t->nelem);
			id = t->ref;
		} else if (t->kind == TYPES_POINTER && !*via_ptr && !dims[0]) {
			*via_ptr = true;
			id = t->ref;
		} else if ((t->kind == TYPES_STRUCT || t->kind == TYPES_UNION) && !t->name &&
			   !t->declaration) {
			return id;
		} else {
			return 0;
		}
	}
	return 0;
}

/* A member's type and what follows it: "unsigned int" "flags:3",
 * "int" "slots[4]", "func" "(*fn)()" (a function pointer). */
static void ph_decl(struct types_db *db, uint32_t type, const char *name, uint32_t bits,
		    struct layout_pahole_row *r)
{
	char dims[64] = "";
	size_t n = 0;
	uint32_t id = type;
	const struct types_type *t;
	int w;

	while ((t = types_get(db, id)) && t->kind == TYPES_ARRAY && n < sizeof(dims)) {
		n += (size_t)snprintf(dims + n, sizeof(dims) - n, "[%llu]",
				      (unsigned long long)t->nelem);
		id = t->ref;
	}
	t = types_get(db, id);
	if (t && t->kind == TYPES_POINTER) {
		const struct types_type *f = types_get(db, types_strip(db, t->ref));
		if (f && f->kind == TYPES_FUNC) {
			snprintf(r->type, sizeof(r->type), "func");
			w = snprintf(r->decl, sizeof(r->decl), "(*%s)()%s", name, dims);
			goto out;
		}
	}
	types_name(db, id, r->type, sizeof(r->type));
	if (bits)
		w = snprintf(r->decl, sizeof(r->decl), "%s%s:%u", name, dims, bits);
	else
		w = snprintf(r->decl, sizeof(r->decl), "%s%s", name, dims);
out:
	if (w >= (int)sizeof(r->decl))
		memcpy(r->decl + sizeof(r->decl) - 4, "...", 4);   /* visibly cut */
}

static long ph_row(struct ph_ctx *c)
{
	struct layout_pahole *p = c->p;

	if (p->nrows == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 32;
		struct layout_pahole_row *r = realloc(p->rows, nc * sizeof(*r));
		if (!r)
			return c2c_error_set(c->err, -ENOMEM, "out of memory");
		p->rows = r;
		c->cap = nc;
	}
	memset(&p->rows[p->nrows], 0, sizeof(p->rows[0]));
	return (long)p->nrows++;
}

/* pahole's class__fprintf_cacheline_boundary(): before a row that starts
 * on a line past the last one announced. */
static void ph_boundary(struct ph_ctx *c, struct layout_pahole_row *r)
{
	uint32_t line = (uint32_t)(r->offset / c->p->line_size);

	if (line > c->cacheline) {
		r->boundary_line = line;
		r->boundary_ago = r->offset % c->p->line_size;
		c->cacheline = line;
	}
}

/* The members of aggregate sid, whose rows start at base (rel: offsets
 * count from the aggregate, as pahole prints a pointed-to anonymous one).
 * top: the statistics of the outermost type go to c->p. */
static int ph_aggregate(struct ph_ctx *c, uint32_t sid, uint64_t base, uint32_t depth, bool rel,
			bool top)
{
	const struct types_type *st = types_get(c->db, sid);
	const struct types_member *m;
	size_t n = types_members(c->db, sid, &m);
	bool is_struct = st && st->kind == TYPES_STRUCT;
	uint32_t initial = c->cacheline;
	struct ph_mem *v = n ? calloc(n, sizeof(*v)) : NULL;
	struct ph_holes h = { 0 };
	int rc = 0;

	if (n && !v)
		return c2c_error_set(c->err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		ph_member(c->db, &m[i], &v[i]);
	if (is_struct)
		ph_find_holes(v, n, st ? (int64_t)st->size : 0, &h);
	if (top) {
		struct layout_pahole *p = c->p;
		p->members = (uint32_t)n;
		p->pre_hole = h.pre_hole > 0 ? (uint64_t)h.pre_hole : 0;
		p->pre_bit_hole = h.pre_bit_hole > 0 ? (uint32_t)h.pre_bit_hole : 0;
		p->nr_holes = h.nr_holes;
		p->nr_bit_holes = h.nr_bit_holes;
		p->sum_holes = p->pre_hole;
		p->sum_bit_holes = p->pre_bit_hole;
		p->padding = is_struct && h.padding > 0 ? (uint64_t)h.padding : 0;
		p->bit_padding = is_struct && h.bit_padding > 0 ? (uint32_t)h.bit_padding : 0;
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		const struct types_member *mi = &m[i];
		char dims[64];
		bool via_ptr;
		uint32_t inl = depth < 16 ? ph_inline(c->db, mi->type, dims, sizeof(dims), &via_ptr) : 0;
		uint64_t off = (rel ? 0 : base) + (uint64_t)v[i].byte_offset;
		int64_t tpad = 0;
		long idx = ph_row(c);
		struct layout_pahole_row *r;

		if (idx < 0) {
			rc = (int)idx;
			break;
		}
		r = &c->p->rows[idx];
		r->depth = depth;
		snprintf(r->name, sizeof(r->name), "%s", mi->name ? mi->name : "");
		r->offset = off;
		r->size = (uint64_t)v[i].byte_size;
		r->relative = rel;
		if (mi->bit_size) {
			r->bit_size = mi->bit_size;
			r->bit_offset = (uint32_t)(v[i].bit_offset - v[i].byte_offset * 8);
		}
		ph_boundary(c, r);
		if (is_struct) {
			const struct types_type *dt = types_get(c->db, mi->type);
			if (dt && dt->kind == TYPES_STRUCT && (tpad = ph_struct_padding(c->db, mi->type)) < 0) {
				rc = c2c_error_set(c->err, (int)tpad, "out of memory");
				break;
			}
		}
		if (top) {
			if (mi->bit_size)
				c->p->sum_bits += mi->bit_size;
			else
				c->p->sum_bytes += (uint64_t)v[i].byte_size;
			if (tpad > 0) {
				c->p->nr_paddings++;
				c->p->sum_paddings += (uint64_t)tpad;
			}
			if (v[i].hole > 0)
				c->p->sum_holes += (uint64_t)v[i].hole;
			if (v[i].bit_hole > 0)
				c->p->sum_bit_holes += (uint64_t)v[i].bit_hole;
		}
		if (!inl) {
			ph_decl(c->db, mi->type, r->name, mi->bit_size, r);
		} else {
			const struct types_type *it = types_get(c->db, inl);
			long cl;
			r->kind = LAYOUT_PAHOLE_OPEN;
			snprintf(r->type, sizeof(r->type), "%s", it->kind == TYPES_UNION ? "union" : "struct");
			rc = ph_aggregate(c, inl, off, depth + 1, rel || via_ptr, false);
			if (rc < 0 || (cl = ph_row(c)) < 0) {
				rc = rc < 0 ? rc : -ENOMEM;
				break;
			}
			r = &c->p->rows[cl];
			r->kind = LAYOUT_PAHOLE_CLOSE;
			r->depth = depth;
			snprintf(r->name, sizeof(r->name), "%s", mi->name ? mi->name : "");
			r->offset = off;
			r->size = (uint64_t)v[i].byte_size;
			r->relative = rel;
			snprintf(r->decl, sizeof(r->decl), "%s%s%s", via_ptr ? "* " : "", r->name, dims);
		}
		if (is_struct) {
			r->hole = v[i].hole > 0 ? (uint64_t)v[i].hole : 0;
			r->bit_hole = v[i].bit_hole > 0 ? (uint32_t)v[i].bit_hole : 0;
			r->type_padding = tpad > 0 ? (uint64_t)tpad : 0;
		} else {
			/* each member of a union starts where the union did */
			c->cacheline = initial;
		}
	}
	free(v);
	return rc;
}

int layout_pahole_build(struct layout_pahole *out, struct types_db *db, uint32_t type,
			unsigned line_size, struct c2c_error *err)
{
	uint32_t sid;
	const struct types_type *t;
	struct ph_ctx c = { .p = out, .db = db, .err = err };
	int rc;

	memset(out, 0, sizeof(*out));
	if (!(t = layout_aggregate(db, type, &sid, err)))
		return -EINVAL;
	out->line_size = line_size ? line_size : 64;
	out->size = t->size;
	out->is_union = t->kind == TYPES_UNION;
	types_name(db, sid, out->type_name, sizeof(out->type_name));
	rc = ph_aggregate(&c, sid, 0, 0, false, true);
	if (rc < 0)
		layout_pahole_fini(out);
	return rc < 0 ? rc : 0;
}

void layout_pahole_fini(struct layout_pahole *p)
{
	free(p->rows);
	memset(p, 0, sizeof(*p));
}

uint64_t layout_pahole_cachelines(const struct layout_pahole *p)
{
	return (p->size + p->line_size - 1) / p->line_size;
}
