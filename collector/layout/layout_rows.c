/* collector/layout: the pahole-like rows of a struct, per-member statistics
 * from accesses, cache line boundaries, false-sharing flags, text output. */
#include "collector/layout/layout_priv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct build_ctx {
	struct layout *l;
	size_t cap;
	struct types_db *db;
	struct c2c_error *err;
};

static struct layout_row *row_new(struct build_ctx *c)
{
	if (c->l->nrows == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 32;
		struct layout_row *r = realloc(c->l->rows, nc * sizeof(*r));
		if (!r)
			return NULL;
		c->l->rows = r;
		c->cap = nc;
	}
	memset(&c->l->rows[c->l->nrows], 0, sizeof(struct layout_row));
	return &c->l->rows[c->l->nrows++];
}

/* "{first}" for an anonymous aggregate: the name of its first named leaf. */
static void anon_name(struct types_db *db, uint32_t type, char *buf, size_t len, int depth)
{
	const struct types_member *m;
	size_t n = types_members(db, types_strip(db, type), &m);

	for (size_t i = 0; i < n && depth < 8; i++) {
		if (m[i].name) {
			snprintf(buf, len, "{%s}", m[i].name);
			return;
		}
		anon_name(db, m[i].type, buf, len, depth + 1);
		if (buf[0])
			return;
	}
	snprintf(buf, len, "{anon}");
}

static int add_rows(struct build_ctx *c, uint32_t type, uint64_t base, uint64_t end, uint32_t depth,
		    long top, const char *prefix_in)
{
	/* Copies: the rows array (where the caller's names live) moves as it grows. */
	char prefix[128], child[128];
	uint32_t sid = types_strip(c->db, type);
	const struct types_type *st = types_get(c->db, sid);
	const struct types_member *m;
	size_t n = types_members(c->db, sid, &m);
	size_t prev = SIZE_MAX;

	snprintf(prefix, sizeof(prefix), "%s", prefix_in ? prefix_in : "");
	for (size_t i = 0; i < n; i++) {
		struct layout_row *r = row_new(c);
		size_t idx;
		uint32_t ms = types_strip(c->db, m[i].type);
		const struct types_type *mt = types_get(c->db, ms);
		const struct types_type *decl = types_get(c->db, m[i].type);
		char nm[128];

		if (!r)
			return c2c_error_set(c->err, -ENOMEM, "out of memory");
		idx = c->l->nrows - 1;
		if (m[i].name)
			snprintf(nm, sizeof(nm), "%s", m[i].name);
		else
			anon_name(c->db, m[i].type, nm, sizeof(nm), 0);
		if (*prefix)
			snprintf(r->name, sizeof(r->name), "%.60s.%.60s", prefix, nm);
		else
			snprintf(r->name, sizeof(r->name), "%s", nm);
		types_name(c->db, m[i].type, r->type, sizeof(r->type));
		r->offset = base + m[i].bit_offset / 8;
		if (m[i].bit_size) {
			r->bit_offset = (uint32_t)(m[i].bit_offset % 8);
			r->bit_size = m[i].bit_size;
			r->size = (m[i].bit_offset + m[i].bit_size + 7) / 8 - m[i].bit_offset / 8;
		} else {
			r->size = decl ? decl->size : 0;
		}
		r->align = decl && decl->align ? decl->align : 1;
		r->depth = depth;
		r->top = top < 0 ? (uint32_t)idx : (uint32_t)top;
		r->leaf = true;
		/* Padding between this and the previous member (structs only;
		 * bitfields sharing a storage unit overlap and make no hole). */
		if (prev != SIZE_MAX && st && st->kind == TYPES_STRUCT) {
			struct layout_row *p = &c->l->rows[prev];
			uint64_t pend = p->offset + p->size;
			if (r->offset > pend)
				p->hole_after = r->offset - pend;
		}
		if (mt && (mt->kind == TYPES_STRUCT || mt->kind == TYPES_UNION) && depth < 6 &&
		    !m[i].bit_size) {
			uint64_t off = r->offset, sz = r->size;
			int rc;
			c->l->rows[idx].leaf = false;
			/* children of an anonymous member keep the parent's prefix, as in C */
			snprintf(child, sizeof(child), "%s", c->l->rows[idx].name);
			rc = add_rows(c, ms, off, off + sz, depth + 1, top < 0 ? (long)idx : top,
				      m[i].name ? child : prefix);
			if (rc < 0)
				return rc;
		}
		prev = idx;
	}
	if (prev != SIZE_MAX && st && st->kind == TYPES_STRUCT) {
		struct layout_row *p = &c->l->rows[prev];
		if (end > p->offset + p->size)
			p->hole_after = end - (p->offset + p->size);
	}
	return 0;
}

static void compute_lines(struct layout *l)
{
	uint64_t ls = l->line_size, mis = l->base_misalign;

	for (size_t i = 0; i < l->nrows; i++) {
		struct layout_row *r = &l->rows[i];
		uint64_t a = mis + r->offset, b = a + (r->size ? r->size : 1);
		r->line = (uint32_t)(a / ls);
		/* a boundary at the member's start, or inside it */
		r->line_start = (a % ls == 0) || (a / ls != (b - 1) / ls);
	}
}

const struct types_type *layout_aggregate(struct types_db *db, uint32_t type, uint32_t *sid,
					  struct c2c_error *err)
{
	const struct types_type *t = types_get(db, *sid = types_strip(db, type));

	if (!t || (t->kind != TYPES_STRUCT && t->kind != TYPES_UNION) || t->declaration) {
		c2c_error_set(err, -EINVAL, "type %u is not a struct or union with a body", type);
		return NULL;
	}
	return t;
}

int layout_build(struct layout *out, struct types_db *db, uint32_t type, unsigned line_size,
		 struct c2c_error *err)
{
	uint32_t sid;
	const struct types_type *t;
	struct build_ctx c = { .l = out, .db = db, .err = err };
	int rc;

	memset(out, 0, sizeof(*out));
	if (!(t = layout_aggregate(db, type, &sid, err)))
		return -EINVAL;
	out->line_size = line_size ? line_size : 64;
	out->size = t->size;
	out->align = t->align;
	types_name(db, sid, out->type_name, sizeof(out->type_name));
	rc = add_rows(&c, sid, 0, t->size, 0, -1, "");
	if (rc < 0) {
		layout_fini(out);
		return rc;
	}
	for (size_t i = 0; i < out->nrows; i++)
		if (out->rows[i].depth == 0)
			out->holes += out->rows[i].hole_after;
	compute_lines(out);
	return 0;
}

void layout_fini(struct layout *l)
{
	for (size_t i = 0; i < l->nrows; i++) {
		struct layout_row *r = &l->rows[i];
		layout_set_free(&r->cpus);
		layout_set_free(&r->threads);
		layout_set_free(&r->sites);
		layout_set_free(&r->writers);
		layout_set_free(&r->readers);
		layout_parts_free(r);
	}
	free(l->rows);
	memset(l, 0, sizeof(*l));
}

static bool row_has(const struct layout_row *r, uint64_t off)
{
	return off >= r->offset && off < r->offset + (r->size ? r->size : 1);
}

long layout_row_at(const struct layout *l, uint64_t offset)
{
	long best = -1;

	for (size_t i = 0; i < l->nrows; i++)
		if (row_has(&l->rows[i], offset) &&
		    (best < 0 || l->rows[i].depth > l->rows[best].depth))
			best = (long)i;
	return best;
}

static int account_one(struct layout_row *r, const struct layout_access *a)
{
	int64_t ag = layout_agent(a->tid, a->cpu);

	if (a->is_store)
		r->stores += a->count;
	else
		r->loads += a->count;
	r->lcl_hitm += a->lcl_hitm;
	r->rmt_hitm += a->rmt_hitm;
	if ((a->cpu >= 0 && layout_set_add(&r->cpus, a->cpu) < 0) ||
	    (a->tid >= 0 && layout_set_add(&r->threads, a->tid) < 0) ||
	    (a->site && layout_set_add(&r->sites, a->site) < 0) ||
	    (ag != -1 && layout_set_add(a->is_store ? &r->writers : &r->readers, ag) < 0))
		return -ENOMEM;
	return 0;
}

static bool rows_overlap(const struct layout_row *a, const struct layout_row *b)
{
	return a->offset < b->offset + b->size && b->offset < a->offset + a->size;
}

/* True when some agent in `who` differs from some agent in `writers`. */
static bool other_agent(const struct layout_set *who, const struct layout_set *writers)
{
	if (!who->n || !writers->n)
		return false;
	return who->n > 1 || writers->n > 1 || who->v[0] != writers->v[0];
}

/* Whether some agent other than the writers of part w touches part q. */
static bool part_hurt(const struct layout_part *w, const struct layout_part *q)
{
	struct layout_set acc = { 0 };
	bool hurt;

	if (!w->writers.n || (!q->loads && !q->stores))
		return false;
	for (uint32_t j = 0; j < q->readers.n; j++)
		layout_set_add(&acc, q->readers.v[j]);
	for (uint32_t j = 0; j < q->writers.n; j++)
		layout_set_add(&acc, q->writers.v[j]);
	hurt = other_agent(&acc, &w->writers);
	layout_set_free(&acc);
	return hurt;
}

/* Judged line by line: a write-hot member's part on a line hurts the parts
 * of other members on that same line that another agent touches. A
 * member straddling a boundary is a victim only through the part on the
 * written line. */
static void compute_flags(struct layout *l)
{
	uint64_t max_st = 0;

	for (size_t i = 0; i < l->nrows; i++) {
		l->rows[i].fs_flag = l->rows[i].fs_victim = false;
		l->rows[i].evidence[0] = 0;
		for (uint32_t k = 0; k < l->rows[i].nparts; k++)
			l->rows[i].parts[k].fs_victim = false;
		if (l->rows[i].leaf && l->rows[i].stores > max_st)
			max_st = l->rows[i].stores;
	}
	for (size_t i = 0; i < l->nrows; i++) {
		struct layout_row *r = &l->rows[i];
		char victims[160] = "";
		size_t vn = 0;
		uint64_t vloads = 0;
		uint32_t first_line = UINT32_MAX;

		/* "written often": at least 5% of the hottest member's stores */
		if (!r->leaf || !r->stores || !r->writers.n || r->stores * 20 < max_st)
			continue;
		for (size_t k = 0; k < l->nrows; k++) {
			struct layout_row *q = &l->rows[k];
			bool hit = false;
			if (k == i || !q->leaf || rows_overlap(r, q))
				continue;
			for (uint32_t a = 0; a < r->nparts; a++)
				for (uint32_t b = 0; b < q->nparts; b++) {
					struct layout_part *qp = &q->parts[b];
					if (qp->line != r->parts[a].line || !part_hurt(&r->parts[a], qp))
						continue;
					/* r's parts are on distinct lines: each of q's counts once */
					vloads += qp->loads;
					qp->fs_victim = true;
					hit = true;
					if (r->parts[a].line < first_line)
						first_line = r->parts[a].line;
				}
			if (!hit)
				continue;
			q->fs_victim = true;
			if (vn < 3 && strlen(victims) + strlen(q->name) + 3 < sizeof(victims)) {
				if (vn)
					strcat(victims, ", ");
				strcat(victims, q->name);
			}
			vn++;
		}
		if (!vn)
			continue;
		r->fs_flag = true;
		snprintf(r->evidence, sizeof(r->evidence),
			 "%llu stores by %u thr/%u cpu from %u site%s; line %u shared with %s%s "
			 "(%llu loads)",
			 (unsigned long long)r->stores, r->writers.n, r->cpus.n, r->sites.n,
			 r->sites.n == 1 ? "" : "s", first_line, victims,
			 vn > 3 ? ", ..." : "", (unsigned long long)vloads);
	}
}

int layout_account(struct layout *l, const struct layout_access *a, size_t n)
{
	uint64_t votes[256] = { 0 };
	uint64_t best = 0;

	/* where objects start in their line decides the boundaries: first */
	for (size_t i = 0; i < n; i++)
		if (a[i].offset < l->size)
			votes[(a[i].object % l->line_size) & 255] += a[i].count;
	for (unsigned k = 0; k < 256 && k < l->line_size; k++)
		if (votes[k] > best) {
			best = votes[k];
			l->base_misalign = k;
		}
	compute_lines(l);
	if (layout_parts_build(l) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		bool any = false;
		if (a[i].offset >= l->size) {
			l->unmatched += a[i].count;
			continue;
		}
		for (size_t k = 0; k < l->nrows; k++) {
			struct layout_row *r = &l->rows[k];
			struct layout_part *p;
			if (!row_has(r, a[i].offset))
				continue;
			if (account_one(r, &a[i]) < 0)
				return -ENOMEM;
			if ((p = layout_part_at(r, a[i].offset)) && layout_part_account(p, &a[i]) < 0)
				return -ENOMEM;
			any = true;
		}
		if (!any)
			l->unmatched += a[i].count;   /* padding */
	}
	compute_flags(l);
	return 0;
}

bool layout_boundary_text(const struct layout *l, size_t i, uint32_t *last_line, char *buf,
			  size_t len)
{
	uint64_t ls = l->line_size ? l->line_size : 64, mis = l->base_misalign;
	uint64_t a = mis + l->rows[i].offset;
	uint32_t line = (uint32_t)(a / ls);
	long long at;

	if (line <= *last_line)
		return false;
	*last_line = line;
	at = (long long)(line * ls) - (long long)mis;   /* object offset of the boundary */
	if (a % ls == 0)
		snprintf(buf, len, "/* --- cacheline %u boundary (%lld bytes) --- */", line, at);
	else
		snprintf(buf, len, "/* --- cacheline %u boundary (%lld bytes) was %llu byte%s ago --- */",
			 line, at, (unsigned long long)(a % ls), a % ls == 1 ? "" : "s");   /* pahole's "1 byte" */
	return true;
}

static void emit(const struct layout_out *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void emit(const struct layout_out *out, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	out->line(out->ctx, buf);
}

void layout_print(const struct layout *l, const struct layout_out *out)
{
	uint64_t ls = l->line_size, mis = l->base_misalign;
	uint64_t nlines = (mis + l->size + ls - 1) / ls;
	uint32_t last_line = 0;

	emit(out, "%s {  /* size %llu, align %u, %llu cache line%s, holes %llu bytes%s */",
	     l->type_name, (unsigned long long)l->size, l->align, (unsigned long long)nlines,
	     nlines == 1 ? "" : "s", (unsigned long long)l->holes,
	     mis ? ", objects start mid-line" : "");
	emit(out, "  %-9s %-5s %-28s %-18s %8s %8s %6s %6s %4s %4s %5s  %s", "offset", "size",
	     "member", "type", "loads", "stores", "lHITM", "rHITM", "cpus", "thr", "sites",
	     "flags");
	if (mis)
		emit(out, "  /* --- objects start %llu bytes into cacheline 0 --- */",
		     (unsigned long long)mis);
	for (size_t i = 0; i < l->nrows; i++) {
		const struct layout_row *r = &l->rows[i];
		char off[24], name[200], comment[96];

		/* pahole's comment where a new line begins (pahole -E places it) */
		if (layout_boundary_text(l, i, &last_line, comment, sizeof(comment)))
			emit(out, "  %s", comment);
		if (r->bit_size)
			snprintf(off, sizeof(off), "%llu:%u", (unsigned long long)r->offset,
				 r->bit_offset);
		else
			snprintf(off, sizeof(off), "%llu", (unsigned long long)r->offset);
		snprintf(name, sizeof(name), "%*s%.120s%s", (int)(2 * (r->depth % 8)), "", r->name,
			 r->bit_size ? ":" : "");
		if (r->bit_size)
			snprintf(name + strlen(name), sizeof(name) - strlen(name), "%u", r->bit_size);
		emit(out, "  %-9s %-5llu %-28s %-18.18s %8llu %8llu %6llu %6llu %4u %4u %5u  %s%s%s",
		     off, (unsigned long long)r->size, name, r->type, (unsigned long long)r->loads,
		     (unsigned long long)r->stores, (unsigned long long)r->lcl_hitm,
		     (unsigned long long)r->rmt_hitm, r->cpus.n, r->threads.n, r->sites.n,
		     r->fs_flag ? "FALSE-SHARING " : "", r->fs_victim ? "victim " : "",
		     r->fs_flag ? r->evidence : "");
		/* a touched member across a boundary: each line's part with its own
		 * counts (an untouched one has only pahole's comment: a 4 KB
		 * buffer would add 64 rows of zeros) */
		for (uint32_t k = 0; r->nparts > 1 && (r->loads || r->stores) && k < r->nparts; k++) {
			const struct layout_part *p = &r->parts[k];
			snprintf(name, sizeof(name), "%*s%.100s @ line %u", (int)(2 * (r->depth % 8) + 2),
				 "", r->name, p->line);
			emit(out, "  %-9llu %-5llu %-28s %-18s %8llu %8llu %6llu %6llu %4s %4s %5s  %s",
			     (unsigned long long)p->offset, (unsigned long long)p->size, name,
			     "(part)", (unsigned long long)p->loads, (unsigned long long)p->stores,
			     (unsigned long long)p->lcl_hitm, (unsigned long long)p->rmt_hitm, "",
			     "", "", p->fs_victim ? "victim" : "");
		}
		if (r->depth == 0 && r->hole_after)
			emit(out, "  /* XXX %llu byte hole */", (unsigned long long)r->hole_after);
	}
	emit(out, "};");
	if (l->unmatched)
		emit(out, "/* %llu samples fell in padding or past the end */",
		     (unsigned long long)l->unmatched);
}
