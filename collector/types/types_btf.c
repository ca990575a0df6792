/* BTF back end of collector/types (libbpf): the running kernel's
 * /sys/kernel/btf/vmlinux, a raw BTF file, or an ELF file's .BTF section.
 * BTF keys are BTF type ids; id 0 is void in both worlds. */
#include "collector/types/types_priv.h"

#include <bpf/btf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The parsed BTF, and its VAR ids sorted by name on the first lookup:
 * libbpf's btf__find_by_name_kind walks every type, and type attribution
 * asks once per kernel sample. */
struct btf_var_name {
	const char *name;
	uint32_t id;
};

struct btf_priv {
	struct btf *btf;
	struct btf_var_name *vars;
	size_t nvars;
	bool vars_done;
};

static struct btf *B(struct types_db *db)
{
	return ((struct btf_priv *)db->priv)->btf;
}

static const char *btf_name(struct btf *btf, const struct btf_type *t)
{
	const char *n = btf__name_by_offset(btf, t->name_off);
	return n && *n ? n : NULL;
}

static int btf_convert(struct types_db *db, struct types_entry *e)
{
	struct btf *btf = B(db);
	const struct btf_type *t = btf__type_by_id(btf, (uint32_t)e->key);

	if (!t)
		return -ENOENT;
	e->t.name = btf_name(btf, t);
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
		e->t.kind = TYPES_BASE;
		e->t.size = t->size;
		e->explicit_size = true;
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		e->t.kind = TYPES_ENUM;
		e->t.size = t->size;
		e->explicit_size = true;
		break;
	case BTF_KIND_PTR:
		e->t.kind = TYPES_POINTER;
		e->t.size = btf__pointer_size(btf);
		e->explicit_size = true;
		e->ref_key = t->type;
		e->has_ref = t->type != 0;
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		e->t.kind = btf_is_union(t) ? TYPES_UNION : TYPES_STRUCT;
		e->t.size = t->size;
		e->explicit_size = true;
		break;
	case BTF_KIND_FWD:
		e->t.kind = btf_kflag(t) ? TYPES_UNION : TYPES_STRUCT;
		e->t.declaration = true;
		break;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_array(t);
		e->t.kind = TYPES_ARRAY;
		e->t.nelem = a->nelems;
		e->ref_key = a->type;
		e->has_ref = a->type != 0;
		e->t.name = NULL;
		break;
	}
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VAR:
		e->t.kind = TYPES_TYPEDEF;
		e->ref_key = t->type;
		e->has_ref = t->type != 0;
		break;
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		e->t.kind = TYPES_QUAL;
		e->t.name = btf_is_const(t) ? "const" : btf_is_volatile(t) ? "volatile" :
			    btf_is_restrict(t) ? "restrict" : e->t.name;
		e->ref_key = t->type;
		e->has_ref = t->type != 0;
		break;
	case BTF_KIND_FUNC:
	case BTF_KIND_FUNC_PROTO:
		e->t.kind = TYPES_FUNC;
		break;
	default:
		e->t.kind = TYPES_VOID;
		break;
	}
	return 0;
}

static int btf_members_cb(struct types_db *db, struct types_entry *e)
{
	struct btf *btf = B(db);
	const struct btf_type *t = btf__type_by_id(btf, (uint32_t)e->key);
	const struct btf_member *m;
	unsigned n;

	if (!t || !btf_is_composite(t))
		return 0;
	m = btf_members(t);
	n = btf_vlen(t);
	for (unsigned i = 0; i < n; i++) {
		int rc = types_member_push(db, btf__name_by_offset(btf, m[i].name_off), m[i].type,
					   btf_member_bit_offset(t, i),
					   btf_member_bitfield_size(t, i));
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int btf_build_index(struct types_db *db)
{
	struct btf *btf = B(db);
	uint32_t n = btf__type_cnt(btf);

	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name;
		int rc = 0;
		if (!t)
			continue;
		name = btf_name(btf, t);
		if (!name)
			continue;
		if (btf_is_struct(t))
			rc = types_index_add(db, name, id, TYPES_STRUCT);
		else if (btf_is_union(t))
			rc = types_index_add(db, name, id, TYPES_UNION);
		else if (btf_is_typedef(t))
			rc = types_index_add(db, name, id, TYPES_TYPEDEF);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int var_cmp(const void *a, const void *b)
{
	const struct btf_var_name *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	/* the same name twice: the lowest id, as btf__find_by_name_kind */
	if (c)
		return c;
	return x->id < y->id ? -1 : 1;
}

static int vars_ready(struct btf_priv *p)
{
	uint32_t n = btf__type_cnt(p->btf);
	size_t cap = 0;

	if (p->vars_done)
		return 0;
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(p->btf, id);
		if (!btf_is_var(t))
			continue;
		if (p->nvars == cap) {
			size_t nc = cap ? cap * 2 : 256;
			struct btf_var_name *v = realloc(p->vars, nc * sizeof(*v));
			if (!v) {
				p->nvars = 0;   /* the next lookup starts over */
				return -ENOMEM;
			}
			p->vars = v;
			cap = nc;
		}
		p->vars[p->nvars++] = (struct btf_var_name){
			btf__name_by_offset(p->btf, t->name_off), id };
	}
	qsort(p->vars, p->nvars, sizeof(*p->vars), var_cmp);
	p->vars_done = true;
	return 0;
}

static int btf_var_by_name(struct types_db *db, const char *name, uint32_t *type, uint64_t *start)
{
	struct btf_priv *p = db->priv;
	size_t lo = 0, hi;
	const struct btf_type *t;

	if (vars_ready(p) < 0)
		return -ENOMEM;
	hi = p->nvars;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(p->vars[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == p->nvars || strcmp(p->vars[lo].name, name))
		return -ENOENT;
	t = btf__type_by_id(p->btf, p->vars[lo].id);
	if (!t)
		return -ENOENT;
	*type = types_intern(db, t->type);
	*start = 0;
	return 0;
}

static void btf_fini(struct types_db *db)
{
	struct btf_priv *p = db->priv;

	if (!p)
		return;
	btf__free(p->btf);
	free(p->vars);
	free(p);
	db->priv = NULL;
}

static const struct types_ops btf_ops = {
	.convert = btf_convert,
	.members = btf_members_cb,
	.build_index = btf_build_index,
	.var_by_name = btf_var_by_name,
	.fini = btf_fini,
};

int types_open_btf(struct types_db **out, const char *path, struct c2c_error *err)
{
	struct types_db *db;
	struct btf_priv *p;
	struct btf *btf;
	int rc;

	*out = NULL;
	if (!path)
		path = "/sys/kernel/btf/vmlinux";
	errno = 0;
	btf = btf__parse(path, NULL);   /* libbpf 1.x: NULL and errno on failure */
	if (!btf) {
		int e = errno ? errno : EINVAL;
		return c2c_error_set(err, -e, "cannot read BTF from %s: %s", path, strerror(e));
	}
	db = calloc(1, sizeof(*db));
	p = calloc(1, sizeof(*p));
	if (!db || !p) {
		free(db);
		free(p);
		btf__free(btf);
		return c2c_error_set(err, -ENOMEM, "out of memory");
	}
	p->btf = btf;
	rc = types_db_init(db, &btf_ops, p, TYPES_SRC_BTF, path);
	if (rc < 0) {
		types_free(db);
		return c2c_error_set(err, rc, "out of memory");
	}
	*out = db;
	return 0;
}
