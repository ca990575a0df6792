/* The type graph common to the DWARF and BTF back ends: lazy conversion,
 * sizes and alignments, names, lookup by name, and member-path resolution
 * ("type + byte offset" -> "se.avg.load_avg"). */
#include "collector/types/types_priv.h"
#include "collector/base/appendf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_SHIFT 10
#define BLOCK_SIZE (1u << BLOCK_SHIFT)

struct types_entry *types_entry(struct types_db *db, uint32_t id)
{
	if (id >= db->nentries)
		return NULL;
	return &db->blocks[id >> BLOCK_SHIFT][id & (BLOCK_SIZE - 1)];
}

static struct types_entry *entry_new(struct types_db *db, uint32_t *id)
{
	if ((db->nentries & (BLOCK_SIZE - 1)) == 0) {
		size_t nb = db->nentries >> BLOCK_SHIFT;
		struct types_entry **b = realloc(db->blocks, (nb + 1) * sizeof(*b));
		if (!b)
			return NULL;
		db->blocks = b;
		b[nb] = calloc(BLOCK_SIZE, sizeof(**b));
		if (!b[nb])
			return NULL;
		db->nblocks = nb + 1;
	}
	*id = (uint32_t)db->nentries++;
	return types_entry(db, *id);
}

static size_t hash_key(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

static int hash_grow(struct types_db *db)
{
	size_t ncap = db->hcap ? db->hcap * 2 : 1024;
	uint64_t *nk = calloc(ncap, sizeof(*nk));
	uint32_t *ni = calloc(ncap, sizeof(*ni));

	if (!nk || !ni) {
		free(nk);
		free(ni);
		return -ENOMEM;
	}
	for (size_t i = 0; i < db->hcap; i++) {
		if (!db->hids[i])
			continue;
		size_t h = hash_key(db->hkeys[i], ncap);
		while (ni[h])
			h = (h + 1) & (ncap - 1);
		nk[h] = db->hkeys[i];
		ni[h] = db->hids[i];
	}
	free(db->hkeys);
	free(db->hids);
	db->hkeys = nk;
	db->hids = ni;
	db->hcap = ncap;
	return 0;
}

int types_db_init(struct types_db *db, const struct types_ops *ops, void *priv,
		  enum types_source source, const char *path)
{
	uint32_t id;
	struct types_entry *v;

	memset(db, 0, sizeof(*db));
	db->ops = ops;
	db->priv = priv;
	db->source = source;
	db->path = strdup(path);
	if (!db->path)
		return -ENOMEM;
	v = entry_new(db, &id);      /* id 0: void */
	if (!v)
		return -ENOMEM;
	v->t.kind = TYPES_VOID;
	v->t.name = "void";
	v->ref_done = v->layout_done = v->members_done = true;
	return hash_grow(db);
}

uint32_t types_intern(struct types_db *db, uint64_t key)
{
	size_t h;
	uint32_t id;
	struct types_entry *e;

	if (key == 0)
		return 0;
	if ((db->nentries + 1) * 2 > db->hcap && hash_grow(db) < 0)
		return 0;
	h = hash_key(key, db->hcap);
	while (db->hids[h]) {
		if (db->hkeys[h] == key)
			return db->hids[h];
		h = (h + 1) & (db->hcap - 1);
	}
	e = entry_new(db, &id);
	if (!e)
		return 0;
	e->key = key;
	db->hkeys[h] = key;
	db->hids[h] = id;
	if (db->ops->convert(db, e) < 0) {
		/* Keep the slot (so we do not retry) as an unknown type. */
		memset(&e->t, 0, sizeof(e->t));
		e->t.kind = TYPES_VOID;
		e->has_ref = false;
	}
	return id;
}

int types_member_push(struct types_db *db, const char *name, uint64_t type_key,
		      uint64_t bit_offset, uint32_t bit_size)
{
	if (db->nmtmp == db->capmtmp) {
		size_t nc = db->capmtmp ? db->capmtmp * 2 : 16;
		struct types_member_key *m = realloc(db->mtmp, nc * sizeof(*m));
		if (!m)
			return -ENOMEM;
		db->mtmp = m;
		db->capmtmp = nc;
	}
	db->mtmp[db->nmtmp++] = (struct types_member_key){
		.name = (name && *name) ? name : NULL,
		.key = type_key,
		.bit_offset = bit_offset,
		.bit_size = bit_size,
	};
	return 0;
}

int types_index_add(struct types_db *db, const char *name, uint64_t key, enum types_kind kind)
{
	if (!name || !*name)
		return 0;
	if (db->nindex == db->capindex) {
		size_t nc = db->capindex ? db->capindex * 2 : 256;
		struct types_index_ent *n = realloc(db->index, nc * sizeof(*n));
		if (!n)
			return -ENOMEM;
		db->index = n;
		db->capindex = nc;
	}
	db->index[db->nindex++] = (struct types_index_ent){ name, key, kind };
	return 0;
}

/* Order: name, then struct before union before typedef, then key, so the
 * first entry of a name is the preferred definition. */
static int index_cmp(const void *a, const void *b)
{
	const struct types_index_ent *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->kind != y->kind)
		return (int)x->kind - (int)y->kind;
	return x->key < y->key ? -1 : x->key > y->key;
}

static int index_ready(struct types_db *db)
{
	int rc;

	if (db->index_done)
		return 0;
	db->index_done = true;
	rc = db->ops->build_index(db);
	if (rc < 0)
		return rc;
	if (db->nindex)
		qsort(db->index, db->nindex, sizeof(*db->index), index_cmp);
	return 0;
}

static void entry_ref(struct types_db *db, struct types_entry *e)
{
	if (e->ref_done)
		return;
	e->ref_done = true;
	e->t.ref = e->has_ref ? types_intern(db, e->ref_key) : 0;
}

static void entry_members(struct types_db *db, struct types_entry *e)
{
	size_t base, n;

	if (e->members_done)
		return;
	e->members_done = true;
	if (e->t.kind != TYPES_STRUCT && e->t.kind != TYPES_UNION)
		return;
	/* The back end may recurse (through types_intern) into another
	 * members() call only via the core, which never happens from convert,
	 * so the tmp vector is ours for the duration. */
	base = db->nmtmp;
	if (db->ops->members(db, e) < 0) {
		db->nmtmp = base;
		return;
	}
	n = db->nmtmp - base;
	if (!n)
		return;
	e->members = calloc(n, sizeof(*e->members));
	if (!e->members) {
		db->nmtmp = base;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct types_member_key *k = &db->mtmp[base + i];
		e->members[i].name = k->name;
		e->members[i].bit_offset = k->bit_offset;
		e->members[i].bit_size = k->bit_size;
	}
	/* Keys copied out before interning: interning converts headers only,
	 * which never pushes members, but keep the order safe anyway. */
	{
		uint64_t *keys = malloc(n * sizeof(*keys));
		if (!keys) {
			free(e->members);
			e->members = NULL;
			db->nmtmp = base;
			return;
		}
		for (size_t i = 0; i < n; i++)
			keys[i] = db->mtmp[base + i].key;
		db->nmtmp = base;
		for (size_t i = 0; i < n; i++)
			e->members[i].type = types_intern(db, keys[i]);
		free(keys);
	}
	e->nmembers = n;
}

static uint32_t natural_align(uint64_t size)
{
	uint32_t a = 1;

	while (a < size && a < 16)
		a <<= 1;
	return a;
}

/* Sizes and alignments of derived types come from what they derive from. */
static void entry_layout(struct types_db *db, struct types_entry *e, int depth)
{
	struct types_entry *r;

	if (e->layout_done || depth > 64)
		return;
	e->layout_done = true;
	entry_ref(db, e);
	switch (e->t.kind) {
	case TYPES_TYPEDEF:
	case TYPES_QUAL:
		r = types_entry(db, e->t.ref);
		if (r) {
			entry_layout(db, r, depth + 1);
			if (!e->explicit_size)
				e->t.size = r->t.size;
			if (!e->explicit_align)
				e->t.align = r->t.align;
		}
		break;
	case TYPES_ARRAY:
		r = types_entry(db, e->t.ref);
		if (r) {
			entry_layout(db, r, depth + 1);
			if (!e->explicit_size)
				e->t.size = e->t.nelem * r->t.size;
			if (!e->explicit_align)
				e->t.align = r->t.align;
		}
		break;
	case TYPES_STRUCT:
	case TYPES_UNION:
		if (!e->explicit_align) {
			uint32_t a = 1;
			entry_members(db, e);
			for (size_t i = 0; i < e->nmembers; i++) {
				struct types_entry *m = types_entry(db, e->members[i].type);
				if (!m)
					continue;
				entry_layout(db, m, depth + 1);
				if (m->t.align > a)
					a = m->t.align;
			}
			e->t.align = a;
		}
		break;
	case TYPES_BASE:
	case TYPES_ENUM:
	case TYPES_POINTER:
		if (!e->explicit_align)
			e->t.align = natural_align(e->t.size);
		break;
	default:
		if (!e->explicit_align)
			e->t.align = 1;
		break;
	}
}

const struct types_type *types_get(struct types_db *db, uint32_t id)
{
	struct types_entry *e = types_entry(db, id);

	if (!e)
		return NULL;
	entry_layout(db, e, 0);
	return &e->t;
}

size_t types_members(struct types_db *db, uint32_t id, const struct types_member **out)
{
	struct types_entry *e = types_entry(db, id);

	*out = NULL;
	if (!e)
		return 0;
	entry_members(db, e);
	*out = e->members;
	return e->nmembers;
}

uint32_t types_strip(struct types_db *db, uint32_t id)
{
	for (int i = 0; i < 64; i++) {
		struct types_entry *e = types_entry(db, id);
		if (!e || (e->t.kind != TYPES_TYPEDEF && e->t.kind != TYPES_QUAL))
			return id;
		entry_ref(db, e);
		id = e->t.ref;
	}
	return id;
}

static size_t name_into(struct types_db *db, uint32_t id, char *buf, size_t len, int depth)
{
	const struct types_type *t = types_get(db, id);
	size_t n = 0;

	if (!len)
		return 0;
	buf[0] = 0;
	if (!t || depth > 16)
		return (size_t)snprintf(buf, len, "?");
	switch (t->kind) {
	case TYPES_STRUCT:
		return (size_t)snprintf(buf, len, "struct %s", t->name ? t->name : "{anon}");
	case TYPES_UNION:
		return (size_t)snprintf(buf, len, "union %s", t->name ? t->name : "{anon}");
	case TYPES_ENUM:
		return (size_t)snprintf(buf, len, "enum %s", t->name ? t->name : "{anon}");
	case TYPES_POINTER:
		n = name_into(db, t->ref, buf, len, depth + 1);
		if (n < len)
			n = c2c_appendf(buf, len, n, " *");
		return n;
	case TYPES_ARRAY:
		n = name_into(db, t->ref, buf, len, depth + 1);
		if (n < len)
			n = c2c_appendf(buf, len, n, "[%llu]", (unsigned long long)t->nelem);
		return n;
	case TYPES_QUAL:
		n = (size_t)snprintf(buf, len, "%s ", t->name ? t->name : "");
		if (n < len)
			n += name_into(db, t->ref, buf + n, len - n, depth + 1);
		return n;
	case TYPES_FUNC:
		return (size_t)snprintf(buf, len, "%s", "func");
	default:
		return (size_t)snprintf(buf, len, "%s", t->name ? t->name : "void");
	}
}

const char *types_name(struct types_db *db, uint32_t id, char *buf, size_t len)
{
	name_into(db, id, buf, len, 0);
	return buf;
}

static const struct types_index_ent *index_first(struct types_db *db, const char *name)
{
	size_t lo = 0, hi = db->nindex;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(db->index[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < db->nindex && !strcmp(db->index[lo].name, name))
		return &db->index[lo];
	return NULL;
}

uint32_t types_find(struct types_db *db, const char *name)
{
	const struct types_index_ent *it, *end;
	enum types_kind want = TYPES_VOID;

	if (!name || index_ready(db) < 0)
		return 0;
	if (!strncmp(name, "struct ", 7)) {
		want = TYPES_STRUCT;
		name += 7;
	} else if (!strncmp(name, "union ", 6)) {
		want = TYPES_UNION;
		name += 6;
	}
	it = index_first(db, name);
	if (!it)
		return 0;
	end = db->index + db->nindex;
	for (; it < end && !strcmp(it->name, name); it++) {
		uint32_t id;
		const struct types_type *t;

		if (want != TYPES_VOID && it->kind != want)
			continue;
		id = types_intern(db, it->key);
		t = types_get(db, id);
		if (!t)
			continue;
		if (t->kind == TYPES_TYPEDEF) {
			uint32_t s = types_strip(db, id);
			const struct types_type *st = types_get(db, s);
			if (!st || (st->kind != TYPES_STRUCT && st->kind != TYPES_UNION) || st->declaration)
				continue;
		} else if ((t->kind != TYPES_STRUCT && t->kind != TYPES_UNION) || t->declaration) {
			continue;
		}
		return id;
	}
	return 0;
}

int types_each_struct(struct types_db *db, int (*fn)(void *ctx, const char *name, uint32_t id),
		      void *ctx)
{
	int rc = index_ready(db);
	const char *last = NULL;

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < db->nindex; i++) {
		const struct types_index_ent *it = &db->index[i];
		if (it->kind != TYPES_STRUCT && it->kind != TYPES_UNION)
			continue;
		if (last && !strcmp(last, it->name))
			continue;
		last = it->name;
		rc = fn(ctx, it->name, types_intern(db, it->key));
		if (rc)
			return rc;
	}
	return 0;
}

static void path_add(struct types_hit *hit, const char *fmt, const char *s, uint64_t idx)
{
	size_t n = strlen(hit->path);

	if (n >= sizeof(hit->path) - 1)
		return;
	if (s)
		snprintf(hit->path + n, sizeof(hit->path) - n, fmt, n ? "." : "", s);
	else
		snprintf(hit->path + n, sizeof(hit->path) - n, fmt, (unsigned long long)idx);
}

/* Bytes a member covers: whole bytes of a bitfield, else its type's size. */
static void member_span(struct types_db *db, const struct types_member *m, uint64_t *start,
			uint64_t *size)
{
	if (m->bit_size) {
		*start = m->bit_offset / 8;
		*size = (m->bit_offset + m->bit_size + 7) / 8 - *start;
	} else {
		const struct types_type *t = types_get(db, m->type);
		*start = m->bit_offset / 8;
		*size = t ? t->size : 0;
	}
}

int types_resolve(struct types_db *db, uint32_t id, uint64_t offset, struct types_hit *hit)
{
	const struct types_type *t = types_get(db, id);
	uint32_t cur = id;
	uint64_t base = 0;
	bool top = true;

	memset(hit, 0, sizeof(*hit));
	hit->top_index = UINT32_MAX;
	if (!t)
		return -ENOENT;
	{
		const struct types_type *s = types_get(db, types_strip(db, id));
		bool flexible = s && s->kind == TYPES_ARRAY && s->nelem == 0;
		if (offset >= t->size && !flexible)
			return -ERANGE;
	}
	for (int depth = 0; depth < 32; depth++) {
		uint32_t sid = types_strip(db, cur);
		const struct types_type *st = types_get(db, sid);
		uint64_t off = offset - base;

		if (!st)
			break;
		if (st->kind == TYPES_STRUCT || st->kind == TYPES_UNION) {
			const struct types_member *ms;
			size_t n = types_members(db, sid, &ms);
			size_t found = n;
			uint64_t mstart = 0, msize = 0;

			for (size_t i = 0; i < n; i++) {
				uint64_t s0, sz;
				member_span(db, &ms[i], &s0, &sz);
				/* A flexible array member at the end covers the rest. */
				if (off >= s0 && (off < s0 + sz ||
						  (sz == 0 && i + 1 == n && st->kind == TYPES_STRUCT))) {
					found = i;
					mstart = s0;
					msize = sz;
					break;
				}
			}
			if (found == n) {
				hit->in_hole = true;
				path_add(hit, "%s%s", "<hole>", 0);
				break;
			}
			if (top)
				hit->top_index = (uint32_t)found;
			top = false;
			if (ms[found].name)
				path_add(hit, "%s%s", ms[found].name, 0);
			base += mstart;
			cur = ms[found].type;
			if (ms[found].bit_size) {
				hit->bit_offset = (uint32_t)(ms[found].bit_offset - mstart * 8);
				hit->bit_size = ms[found].bit_size;
				hit->type = cur;
				hit->member_offset = base;
				hit->member_size = msize;
				return 0;
			}
			continue;
		}
		if (st->kind == TYPES_ARRAY) {
			const struct types_type *el = types_get(db, st->ref);
			uint64_t idx;
			if (!el || el->size == 0)
				break;
			idx = off / el->size;
			path_add(hit, "[%llu]", NULL, idx);
			base += idx * el->size;
			cur = st->ref;
			top = false;
			continue;
		}
		break;
	}
	hit->type = cur;
	hit->member_offset = base;
	{
		const struct types_type *ct = types_get(db, cur);
		hit->member_size = hit->in_hole ? 0 : (ct ? ct->size : 0);
	}
	return 0;
}

void types_free(struct types_db *db)
{
	if (!db)
		return;
	if (db->ops && db->ops->fini)
		db->ops->fini(db);
	for (size_t i = 0; i < db->nentries; i++)
		free(types_entry(db, (uint32_t)i)->members);
	for (size_t b = 0; b < db->nblocks; b++)
		free(db->blocks[b]);
	free(db->blocks);
	free(db->hkeys);
	free(db->hids);
	free(db->mtmp);
	free(db->index);
	free(db->path);
	free(db);
}

enum types_source types_source(const struct types_db *db)
{
	return db->source;
}

const char *types_path(const struct types_db *db)
{
	return db->path;
}

int types_machine(const struct types_db *db)
{
	return db->machine;
}

int types_var_by_name(struct types_db *db, const char *name, uint32_t *type, uint64_t *start)
{
	if (!name || index_ready(db) < 0)
		return -ENOENT;
	return db->ops->var_by_name(db, name, type, start);
}
