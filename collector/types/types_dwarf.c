/* DWARF back end of collector/types (libdw): type conversion, the separate
 * debug file search (build-id, --debuginfo DIR, .gnu_debuglink), global and
 * static variables by address, and the variables live in a register or on
 * the stack at a code address (for instruction-based attribution). */
#include "collector/types/types_priv.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DIM_SHIFT 48
#define OFF_MASK ((1ULL << DIM_SHIFT) - 1)

struct dwarf_var {
	uint64_t start;
	uint64_t type_key;
	const char *name;
};

struct dwarf_priv {
	int fd, dbg_fd;
	Elf *elf, *dbg_elf;      /* dbg_elf == elf when the file has its own DWARF */
	Dwarf *dwarf;
	Dwarf_CFI *cfi_eh, *cfi_dbg;
	unsigned ptr_size;
	struct dwarf_var *vars;
	size_t nvars, capvars;
	struct dwarf_var **byname;   /* named vars sorted by name, built on first lookup */
	size_t nbyname;
};

static struct dwarf_priv *P(struct types_db *db)
{
	return db->priv;
}

static uint64_t die_type_key(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die t;

	if (!dwarf_attr_integrate(die, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
		return 0;
	return dwarf_dieoffset(&t);
}

static bool die_udata(Dwarf_Die *die, unsigned name, uint64_t *v)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (!dwarf_attr_integrate(die, name, &a) || dwarf_formudata(&a, &w) != 0)
		return false;
	*v = w;
	return true;
}

/* Element count of array dimension `dim` (0-based), or -1 past the last. */
static int array_dim(Dwarf_Die *arr, unsigned dim, uint64_t *nelem, unsigned *ndims)
{
	Dwarf_Die c;
	unsigned i = 0;
	int found = -1;

	*nelem = 0;
	if (dwarf_child(arr, &c) != 0) {
		*ndims = 0;
		return -1;
	}
	do {
		int tag = dwarf_tag(&c);
		if (tag != DW_TAG_subrange_type && tag != DW_TAG_enumeration_type)
			continue;
		if (i == dim) {
			uint64_t v, lo = 0;
			found = 0;
			if (die_udata(&c, DW_AT_count, &v)) {
				*nelem = v;
			} else if (die_udata(&c, DW_AT_upper_bound, &v)) {
				Dwarf_Attribute a;
				Dwarf_Sword sv;
				unsigned form = dwarf_attr(&c, DW_AT_upper_bound, &a) ?
						dwarf_whatform(&a) : 0;
				/* upper_bound -1 marks a flexible array: only a signed
				 * form says so. libdw sign-extends DW_FORM_data1/2/4 in
				 * dwarf_formsdata, so char b[256] (upper bound 0xff as
				 * data1) read as -1 and became b[0]; an all-ones data8
				 * wraps to 0 elements below, as pahole counts it. */
				if ((form == DW_FORM_sdata || form == DW_FORM_implicit_const) &&
				    dwarf_formsdata(&a, &sv) == 0 && sv < 0)
					*nelem = 0;
				else {
					die_udata(&c, DW_AT_lower_bound, &lo);
					*nelem = v + 1 - lo;
				}
			}
		}
		i++;
	} while (dwarf_siblingof(&c, &c) == 0);
	*ndims = i;
	return found;
}

static int dwarf_convert(struct types_db *db, struct types_entry *e)
{
	struct dwarf_priv *p = P(db);
	Dwarf_Die die;
	uint64_t off = e->key & OFF_MASK, v;
	unsigned dim = (unsigned)(e->key >> DIM_SHIFT);
	int tag;

	if (!dwarf_offdie(p->dwarf, off, &die))
		return -ENOENT;
	tag = dwarf_tag(&die);
	e->t.name = dwarf_diename(&die);
	if (die_udata(&die, DW_AT_byte_size, &v)) {
		e->t.size = v;
		e->explicit_size = true;
	}
	if (die_udata(&die, DW_AT_alignment, &v)) {
		e->t.align = (uint32_t)v;
		e->explicit_align = true;
	}
	e->ref_key = die_type_key(&die);
	e->has_ref = e->ref_key != 0;
	switch (tag) {
	case DW_TAG_base_type:
	case DW_TAG_unspecified_type:
		e->t.kind = TYPES_BASE;
		break;
	case DW_TAG_enumeration_type:
		e->t.kind = TYPES_ENUM;
		e->t.declaration = dwarf_hasattr(&die, DW_AT_declaration);
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_ptr_to_member_type:
		e->t.kind = TYPES_POINTER;
		if (!e->explicit_size) {
			e->t.size = p->ptr_size;
			e->explicit_size = true;
		}
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		e->t.kind = tag == DW_TAG_union_type ? TYPES_UNION : TYPES_STRUCT;
		e->t.declaration = dwarf_hasattr(&die, DW_AT_declaration);
		e->has_ref = false;
		e->explicit_size = true;
		break;
	case DW_TAG_array_type: {
		unsigned ndims;
		e->t.kind = TYPES_ARRAY;
		if (array_dim(&die, dim, &e->t.nelem, &ndims) < 0 && ndims > 0)
			return -EINVAL;
		/* byte_size on the DIE is for the whole (outer) array only */
		if (dim > 0)
			e->explicit_size = false;
		if (dim + 1 < ndims) {
			e->ref_key = off | ((uint64_t)(dim + 1) << DIM_SHIFT);
			e->has_ref = true;
		}
		e->t.name = NULL;
		break;
	}
	case DW_TAG_typedef:
		e->t.kind = TYPES_TYPEDEF;
		break;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		e->t.kind = TYPES_QUAL;
		e->t.name = tag == DW_TAG_const_type ? "const" :
			    tag == DW_TAG_volatile_type ? "volatile" :
			    tag == DW_TAG_restrict_type ? "restrict" : "_Atomic";
		break;
	case DW_TAG_subroutine_type:
		e->t.kind = TYPES_FUNC;
		e->has_ref = false;
		break;
	default:
		e->t.kind = TYPES_VOID;
		e->has_ref = false;
		break;
	}
	return 0;
}

/* DW_AT_data_member_location: a constant, or (DWARF 2) an expression
 * DW_OP_plus_uconst N. */
static uint64_t member_location(Dwarf_Die *m)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr(m, DW_AT_data_member_location, &a))
		return 0;
	if (dwarf_formudata(&a, &w) == 0)
		return w;
	if (dwarf_getlocation(&a, &ops, &nops) == 0 && nops == 1 &&
	    ops[0].atom == DW_OP_plus_uconst)
		return ops[0].number;
	return 0;
}

static int dwarf_members(struct types_db *db, struct types_entry *e)
{
	struct dwarf_priv *p = P(db);
	Dwarf_Die die, c;

	if (!dwarf_offdie(p->dwarf, e->key & OFF_MASK, &die))
		return -ENOENT;
	if (dwarf_child(&die, &c) != 0)
		return 0;
	do {
		uint64_t bit_off, bsize = 0, v;
		int rc;

		if (dwarf_tag(&c) != DW_TAG_member)
			continue;
		/* Static data members (C++) have no location in the object. */
		if (dwarf_hasattr(&c, DW_AT_external) || dwarf_hasattr(&c, DW_AT_declaration))
			continue;
		die_udata(&c, DW_AT_bit_size, &bsize);
		if (die_udata(&c, DW_AT_data_bit_offset, &v)) {
			bit_off = v;
		} else {
			bit_off = member_location(&c) * 8;
			if (bsize && die_udata(&c, DW_AT_bit_offset, &v)) {
				/* DWARF 2/3: bit_offset counts from the most
				 * significant bit of the storage unit (little
				 * endian here). */
				uint64_t storage = 0;
				if (!die_udata(&c, DW_AT_byte_size, &storage)) {
					uint32_t tid = types_intern(db, die_type_key(&c));
					const struct types_type *tt = types_get(db, tid);
					storage = tt ? tt->size : 0;
				}
				bit_off += storage * 8 - v - bsize;
			}
		}
		rc = types_member_push(db, dwarf_diename(&c), die_type_key(&c), bit_off,
				       (uint32_t)bsize);
		if (rc < 0)
			return rc;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static int var_push(struct dwarf_priv *p, uint64_t start, uint64_t type_key, const char *name)
{
	if (p->nvars == p->capvars) {
		size_t nc = p->capvars ? p->capvars * 2 : 64;
		struct dwarf_var *v = realloc(p->vars, nc * sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->vars = v;
		p->capvars = nc;
	}
	p->vars[p->nvars++] = (struct dwarf_var){ start, type_key, name };
	return 0;
}

/* A variable with a static address: DW_AT_location is DW_OP_addr A. */
static void index_var(struct dwarf_priv *p, Dwarf_Die *v)
{
	Dwarf_Attribute a, na;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr(v, DW_AT_location, &a) || dwarf_getlocation(&a, &ops, &nops) != 0 ||
	    nops != 1)
		return;
	if (ops[0].atom == DW_OP_addr) {
		var_push(p, ops[0].number, die_type_key(v),
			 dwarf_attr_integrate(v, DW_AT_name, &na) ? dwarf_formstring(&na) : NULL);
	} else if (ops[0].atom == DW_OP_addrx || ops[0].atom == DW_OP_GNU_addr_index) {
		Dwarf_Attribute aa;
		Dwarf_Addr addr;
		if (dwarf_getlocation_attr(&a, &ops[0], &aa) == 0 && dwarf_formaddr(&aa, &addr) == 0)
			var_push(p, addr, die_type_key(v),
				 dwarf_attr_integrate(v, DW_AT_name, &na) ? dwarf_formstring(&na) : NULL);
	}
}

static int index_walk(struct types_db *db, Dwarf_Die *parent, int depth)
{
	Dwarf_Die c;

	if (depth > 32 || dwarf_child(parent, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);
		const char *name;
		int rc = 0;

		switch (tag) {
		case DW_TAG_structure_type:
		case DW_TAG_class_type:
		case DW_TAG_union_type:
		case DW_TAG_typedef:
			name = dwarf_diename(&c);
			if (name && !dwarf_hasattr(&c, DW_AT_declaration))
				rc = types_index_add(db, name, dwarf_dieoffset(&c),
						     tag == DW_TAG_union_type ? TYPES_UNION :
						     tag == DW_TAG_typedef ? TYPES_TYPEDEF : TYPES_STRUCT);
			break;
		case DW_TAG_variable:
			index_var(P(db), &c);
			break;
		case DW_TAG_subprogram:
		case DW_TAG_lexical_block:
		case DW_TAG_namespace:
			rc = index_walk(db, &c, depth + 1);
			break;
		default:
			break;
		}
		if (rc < 0)
			return rc;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static int var_cmp(const void *a, const void *b)
{
	const struct dwarf_var *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int dwarf_build_index(struct types_db *db)
{
	struct dwarf_priv *p = P(db);
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	uint8_t unit_type;
	Dwarf_Die cudie, subdie;

	while (dwarf_get_units(p->dwarf, cu, &next, &version, &unit_type, &cudie, &subdie) == 0) {
		int rc = index_walk(db, &cudie, 0);
		if (rc < 0)
			return rc;
		cu = next;
	}
	if (p->nvars)
		qsort(p->vars, p->nvars, sizeof(*p->vars), var_cmp);
	return 0;
}

static int dwarf_var_by_name(struct types_db *db, const char *name, uint32_t *type,
			     uint64_t *start);

static void dwarf_fini(struct types_db *db)
{
	struct dwarf_priv *p = P(db);

	if (!p)
		return;
	if (p->cfi_eh)
		dwarf_cfi_end(p->cfi_eh);
	if (p->dwarf)
		dwarf_end(p->dwarf);
	if (p->dbg_elf && p->dbg_elf != p->elf)
		elf_end(p->dbg_elf);
	if (p->elf)
		elf_end(p->elf);
	if (p->dbg_fd >= 0 && p->dbg_fd != p->fd)
		close(p->dbg_fd);
	if (p->fd >= 0)
		close(p->fd);
	free(p->vars);
	free(p->byname);
	free(p);
	db->priv = NULL;
}

static const struct types_ops dwarf_ops = {
	.convert = dwarf_convert,
	.members = dwarf_members,
	.build_index = dwarf_build_index,
	.var_by_name = dwarf_var_by_name,
	.fini = dwarf_fini,
};

static bool elf_has_section(Elf *elf, const char *want, bool need_bits)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, want))
			return !need_bits || sh.sh_type != SHT_NOBITS;
	}
	return false;
}

/* Opens path as a debug file if it has .debug_info (and, when want_id is
 * given, the same build-id). */
static int try_debug(const char *path, const void *want_id, ssize_t want_len, int *fd_out,
		     Elf **elf_out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;

	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_has_section(elf, ".debug_info", true)) {
		const void *id;
		ssize_t n = dwelf_elf_gnu_build_id(elf, &id);
		if (want_len <= 0 || (n == want_len && !memcmp(id, want_id, (size_t)n))) {
			*fd_out = fd;
			*elf_out = elf;
			return 0;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return -1;
}

static int find_debug(const char *path, Elf *elf, const char *dir, int *fd_out, Elf **elf_out,
		      char *found, size_t flen)
{
	const void *id;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &id);
	char hex[2 * 64 + 1] = "";
	char cand[4096], pathcopy[4096], pathcopy2[4096];
	const char *base, *pdir, *link;
	GElf_Word crc;

	if (n > 0 && n <= 64) {
		for (ssize_t i = 0; i < n; i++)
			sprintf(hex + 2 * i, "%02x", ((const unsigned char *)id)[i]);
	}
	snprintf(pathcopy, sizeof(pathcopy), "%s", path);
	snprintf(pathcopy2, sizeof(pathcopy2), "%s", path);
	base = basename(pathcopy);
	pdir = dirname(pathcopy2);
	link = dwelf_elf_gnu_debuglink(elf, &crc);

	const char *roots[] = { dir, "/usr/lib/debug" };
	for (size_t r = 0; r < 2; r++) {
		if (!roots[r])
			continue;
		if (n > 0) {
			snprintf(cand, sizeof(cand), "%s/.build-id/%.2s/%s.debug", roots[r], hex, hex + 2);
			if (try_debug(cand, id, n, fd_out, elf_out) == 0)
				goto ok;
		}
		if (r == 0) {
			snprintf(cand, sizeof(cand), "%s/%s.debug", roots[r], base);
			if (try_debug(cand, id, n, fd_out, elf_out) == 0)
				goto ok;
			snprintf(cand, sizeof(cand), "%s/%s", roots[r], base);
			if (try_debug(cand, id, n, fd_out, elf_out) == 0)
				goto ok;
		}
		if (link) {
			snprintf(cand, sizeof(cand), "%s/%s", roots[r], link);
			if (try_debug(cand, id, n, fd_out, elf_out) == 0)
				goto ok;
			snprintf(cand, sizeof(cand), "%s%s/%s", roots[r], pdir, link);
			if (try_debug(cand, id, n, fd_out, elf_out) == 0)
				goto ok;
		}
	}
	if (link) {
		snprintf(cand, sizeof(cand), "%s/%s", pdir, link);
		if (strcmp(cand, path) && try_debug(cand, id, n, fd_out, elf_out) == 0)
			goto ok;
		snprintf(cand, sizeof(cand), "%s/.debug/%s", pdir, link);
		if (try_debug(cand, id, n, fd_out, elf_out) == 0)
			goto ok;
	}
	return -ENOENT;
ok:
	snprintf(found, flen, "%s", cand);
	return 0;
}

int types_open_dwarf(struct types_db **out, const char *path, const char *debuginfo_dir,
		     struct c2c_error *err)
{
	struct types_db *db = calloc(1, sizeof(*db));
	struct dwarf_priv *p = calloc(1, sizeof(*p));
	char dbgpath[4096];
	GElf_Ehdr eh;
	int rc;

	*out = NULL;
	if (!db || !p) {
		free(db);
		free(p);
		return c2c_error_set(err, -ENOMEM, "out of memory");
	}
	p->fd = p->dbg_fd = -1;
	elf_version(EV_CURRENT);
	snprintf(dbgpath, sizeof(dbgpath), "%s", path);
	p->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (p->fd < 0) {
		rc = c2c_error_set(err, -errno, "cannot open %s: %s", path, strerror(errno));
		goto fail;
	}
	p->elf = elf_begin(p->fd, ELF_C_READ_MMAP, NULL);
	if (!p->elf || elf_kind(p->elf) != ELF_K_ELF || !gelf_getehdr(p->elf, &eh)) {
		rc = c2c_error_set(err, -EINVAL, "%s is not an ELF file", path);
		goto fail;
	}
	p->ptr_size = gelf_getclass(p->elf) == ELFCLASS32 ? 4 : 8;
	if (elf_has_section(p->elf, ".debug_info", true)) {
		p->dbg_elf = p->elf;
		p->dbg_fd = p->fd;
	} else if (find_debug(path, p->elf, debuginfo_dir, &p->dbg_fd, &p->dbg_elf, dbgpath,
			      sizeof(dbgpath)) < 0) {
		rc = c2c_error_set(err, -ENOENT,
				   "%s has no debug info and no separate debug file was found "
				   "(build-id, .gnu_debuglink%s)", path,
				   debuginfo_dir ? ", --debuginfo" : "");
		goto fail;
	}
	p->dwarf = dwarf_begin_elf(p->dbg_elf, DWARF_C_READ, NULL);
	if (!p->dwarf) {
		rc = c2c_error_set(err, -EINVAL, "cannot read DWARF from %s: %s", dbgpath,
				   dwarf_errmsg(-1));
		goto fail;
	}
	rc = types_db_init(db, &dwarf_ops, p, TYPES_SRC_DWARF, dbgpath);
	if (rc < 0) {
		c2c_error_set(err, rc, "out of memory");
		db->priv = p;
		db->ops = &dwarf_ops;
		types_free(db);
		return rc;
	}
	db->machine = eh.e_machine;
	*out = db;
	return 0;
fail:
	db->priv = p;
	dwarf_fini(db);
	free(db);
	return rc;
}

int types_var_at(struct types_db *db, uint64_t vaddr, uint32_t *type, uint64_t *start,
		 const char **name)
{
	struct dwarf_priv *p;
	size_t lo = 0, hi;

	if (db->source != TYPES_SRC_DWARF)
		return -ENOENT;
	if (!db->index_done) {
		/* The variable table is built with the name index. */
		types_find(db, "");
		if (!db->index_done)
			return -ENOENT;
	}
	p = P(db);
	hi = p->nvars;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (p->vars[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo = first with start > vaddr; look back over a few candidates
	 * (zero-sized declarations can share an address). */
	for (size_t k = lo; k > 0 && lo - k < 8; k--) {
		const struct dwarf_var *v = &p->vars[k - 1];
		uint32_t id = types_intern(db, v->type_key);
		const struct types_type *t = types_get(db, id);
		if (t && vaddr < v->start + (t->size ? t->size : 1)) {
			*type = id;
			*start = v->start;
			if (name)
				*name = v->name;
			return 0;
		}
	}
	return -ENOENT;
}

static int byname_cmp(const void *a, const void *b)
{
	const struct dwarf_var *x = *(struct dwarf_var *const *)a, *y = *(struct dwarf_var *const *)b;
	int c = strcmp(x->name, y->name);

	/* several definitions of a name (statics in CUs): lowest address first */
	if (c)
		return c;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int dwarf_var_by_name(struct types_db *db, const char *name, uint32_t *type,
			     uint64_t *start)
{
	struct dwarf_priv *p = P(db);
	size_t lo = 0, hi;

	if (!db->index_done)
		types_find(db, "");
	if (!p->byname && p->nvars) {
		p->byname = malloc(p->nvars * sizeof(*p->byname));
		if (!p->byname)
			return -ENOMEM;
		for (size_t i = 0; i < p->nvars; i++)
			if (p->vars[i].name)
				p->byname[p->nbyname++] = &p->vars[i];
		qsort(p->byname, p->nbyname, sizeof(*p->byname), byname_cmp);
	}
	hi = p->nbyname;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(p->byname[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < p->nbyname && !strcmp(p->byname[lo]->name, name)) {
		*type = types_intern(db, p->byname[lo]->type_key);
		*start = p->byname[lo]->start;
		return 0;
	}
	return -ENOENT;
}

/* Single-operation register location: DW_OP_regN / DW_OP_regx. */
static int op_reg(const Dwarf_Op *op)
{
	if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31)
		return op->atom - DW_OP_reg0;
	if (op->atom == DW_OP_regx)
		return (int)op->number;
	return -1;
}

/* Base register and offset of DW_OP_bregN off / DW_OP_bregx reg off. */
static int op_breg(const Dwarf_Op *op, int64_t *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*off = (int64_t)op->number;
		return op->atom - DW_OP_breg0;
	}
	if (op->atom == DW_OP_bregx) {
		*off = (int64_t)op->number2;
		return (int)op->number;
	}
	return -1;
}

typedef int (*scope_fn)(struct types_db *db, Dwarf_Die *scopes, int nscopes, int i,
			Dwarf_Die *var, Dwarf_Op *ops, size_t nops, void *ctx);

/* The scopes containing pc as the code nests them, innermost first (the
 * CU last), in a malloc'd array; 0 when no function of the CU's top level
 * holds pc (C++ namespaces: the caller falls back to dwarf_getscopes).
 * dwarf_getscopes follows an inlined subroutine to its abstract definition,
 * which drops the function it was inlined into and the variables live
 * there: the pointer parameter of update_tg_load_avg(tg) around an inlined
 * atomic_long_add(&tg->load_avg), the kernel's commonest shape. */
static int concrete_scopes(Dwarf_Die *cu, uint64_t pc, Dwarf_Die **out)
{
	Dwarf_Die chain[64];
	int n = 0;

	chain[n++] = *cu;
	while (n < (int)(sizeof(chain) / sizeof(chain[0]))) {
		Dwarf_Die c;
		bool found = false;
		if (dwarf_child(&chain[n - 1], &c) != 0)
			break;
		do {
			int tag = dwarf_tag(&c);
			if ((tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
			     tag == DW_TAG_lexical_block) && dwarf_haspc(&c, pc) == 1) {
				found = true;
				break;
			}
		} while (dwarf_siblingof(&c, &c) == 0);
		if (!found)
			break;
		chain[n++] = c;
	}
	if (n == 1 || !(*out = malloc((size_t)n * sizeof(**out))))
		return 0;
	for (int i = 0; i < n; i++)
		(*out)[i] = chain[n - 1 - i];
	return n;
}

/* Calls fn for every variable/parameter in the scopes around pc,
 * innermost scope first; stops when fn returns non-zero. live: only those
 * with a location at pc (fn gets it), else every one declared in the
 * function's scopes (ops NULL), whatever the optimizer left of it. */
static int each_scope_var(struct types_db *db, uint64_t pc, bool live, scope_fn fn, void *ctx)
{
	struct dwarf_priv *p = P(db);
	Dwarf_Die cudie, *scopes = NULL;
	int n, rc = -ENOENT;

	if (!dwarf_addrdie(p->dwarf, pc, &cudie))
		return -ENOENT;
	n = concrete_scopes(&cudie, pc, &scopes);
	if (n == 0)
		n = dwarf_getscopes(&cudie, pc, &scopes);
	for (int i = 0; i < n && rc == -ENOENT; i++) {
		Dwarf_Die c;
		/* the CU's own children are its globals, not the function's */
		if (dwarf_tag(&scopes[i]) == DW_TAG_compile_unit || dwarf_child(&scopes[i], &c) != 0)
			continue;
		do {
			int tag = dwarf_tag(&c);
			Dwarf_Attribute a;
			Dwarf_Op *ops = NULL;
			size_t nops = 0;
			if (tag != DW_TAG_variable && tag != DW_TAG_formal_parameter)
				continue;
			if (live && (!dwarf_attr(&c, DW_AT_location, &a) ||
				     dwarf_getlocation_addr(&a, pc, &ops, &nops, 1) != 1 || nops == 0))
				continue;
			if (fn(db, scopes, n, i, &c, ops, nops, ctx)) {
				rc = 0;
				break;
			}
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	free(scopes);
	return rc;
}

static int each_live_var(struct types_db *db, uint64_t pc, scope_fn fn, void *ctx)
{
	return each_scope_var(db, pc, true, fn, ctx);
}

struct types_list_ctx {
	uint32_t *types;
	size_t n, max;
};

static int list_type(struct types_db *db, Dwarf_Die *scopes, int nscopes, int i, Dwarf_Die *var,
		     Dwarf_Op *ops, size_t nops, void *vctx)
{
	struct types_list_ctx *ctx = vctx;
	uint32_t t = types_intern(db, die_type_key(var));

	(void)scopes;
	(void)nscopes;
	(void)i;
	(void)ops;
	(void)nops;
	for (size_t k = 0; k < ctx->n; k++)
		if (ctx->types[k] == t)
			return 0;
	if (t && ctx->n < ctx->max)
		ctx->types[ctx->n++] = t;
	return ctx->n == ctx->max;
}

size_t types_scope_var_types(struct types_db *db, uint64_t pc, uint32_t *types, size_t max)
{
	struct types_list_ctx ctx = { .types = types, .max = max };

	if (db->source != TYPES_SRC_DWARF || !max)
		return 0;
	each_scope_var(db, pc, false, list_type, &ctx);
	return ctx.n;
}

struct reg_ctx {
	int reg;
	uint64_t pc;
	uint32_t type;
	const char *name;
	/* stack lookups */
	int64_t disp;
	uint64_t offset;
};

static const char *var_name(Dwarf_Die *v)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(v, DW_AT_name, &a) ? dwarf_formstring(&a) : NULL;
}

static int match_reg(struct types_db *db, Dwarf_Die *scopes, int nscopes, int i, Dwarf_Die *var,
		     Dwarf_Op *ops, size_t nops, void *vctx)
{
	struct reg_ctx *ctx = vctx;

	(void)scopes;
	(void)nscopes;
	(void)i;
	if (nops != 1 || op_reg(&ops[0]) != ctx->reg)
		return 0;
	ctx->type = types_intern(db, die_type_key(var));
	ctx->name = var_name(var);
	return 1;
}

int types_reg_var_at(struct types_db *db, uint64_t pc, int reg, uint32_t *type,
		     const char **name)
{
	struct reg_ctx ctx = { .reg = reg, .pc = pc };
	int rc;

	if (db->source != TYPES_SRC_DWARF)
		return -ENOTSUP;
	rc = each_live_var(db, pc, match_reg, &ctx);
	if (rc < 0)
		return rc;
	*type = ctx.type;
	if (name)
		*name = ctx.name;
	return 0;
}

/* The CFA at pc as "register + offset", from .eh_frame or .debug_frame. */
static int cfa_at(struct dwarf_priv *p, uint64_t pc, int *reg, int64_t *off)
{
	Dwarf_CFI *cfis[2];
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t nops;

	if (!p->cfi_eh)
		p->cfi_eh = dwarf_getcfi_elf(p->elf);
	if (!p->cfi_dbg)
		p->cfi_dbg = dwarf_getcfi(p->dwarf);  /* owned by the Dwarf */
	cfis[0] = p->cfi_eh;
	cfis[1] = p->cfi_dbg;
	for (int k = 0; k < 2; k++) {
		if (!cfis[k] || dwarf_cfi_addrframe(cfis[k], pc, &frame) != 0)
			continue;
		if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 1) {
			*reg = op_breg(&ops[0], off);
			free(frame);
			return *reg >= 0 ? 0 : -ENOENT;
		}
		free(frame);
	}
	return -ENOENT;
}

/* Where the variable starts relative to register ctx->reg, when its
 * location is based on that register (directly or through the frame base). */
static int match_stack(struct types_db *db, Dwarf_Die *scopes, int nscopes, int i, Dwarf_Die *var,
		       Dwarf_Op *ops, size_t nops, void *vctx)
{
	struct reg_ctx *ctx = vctx;
	int64_t voff, boff;
	int breg;
	bool based = false;
	const struct types_type *t;
	uint32_t tid;

	if (nops != 1)
		return 0;
	breg = op_breg(&ops[0], &voff);
	if (breg >= 0) {
		based = breg == ctx->reg;
	} else if (ops[0].atom == DW_OP_fbreg) {
		/* the frame base of the innermost enclosing function */
		voff = (int64_t)ops[0].number;
		for (int k = i; k < nscopes; k++) {
			Dwarf_Attribute fa;
			Dwarf_Op *fops;
			size_t fn;
			if (dwarf_tag(&scopes[k]) != DW_TAG_subprogram)
				continue;
			if (!dwarf_attr(&scopes[k], DW_AT_frame_base, &fa) ||
			    dwarf_getlocation_addr(&fa, ctx->pc, &fops, &fn, 1) != 1 || fn != 1)
				break;
			if (fops[0].atom == DW_OP_call_frame_cfa) {
				int creg;
				if (cfa_at(P(db), ctx->pc, &creg, &boff) == 0 && creg == ctx->reg) {
					voff += boff;
					based = true;
				}
			} else if ((breg = op_breg(&fops[0], &boff)) >= 0) {
				if (breg == ctx->reg) {
					voff += boff;
					based = true;
				}
			} else if (op_reg(&fops[0]) == ctx->reg) {
				based = true;
			}
			break;
		}
	}
	if (!based || ctx->disp < voff)
		return 0;
	tid = types_intern(db, die_type_key(var));
	t = types_get(db, tid);
	if (!t || (uint64_t)(ctx->disp - voff) >= (t->size ? t->size : 1))
		return 0;
	ctx->type = tid;
	ctx->name = var_name(var);
	ctx->offset = (uint64_t)(ctx->disp - voff);
	return 1;
}

int types_stack_var_at(struct types_db *db, uint64_t pc, int reg, int64_t disp,
		       uint32_t *type, const char **name, uint64_t *offset)
{
	struct reg_ctx ctx = { .reg = reg, .pc = pc, .disp = disp };
	int rc;

	if (db->source != TYPES_SRC_DWARF)
		return -ENOTSUP;
	rc = each_live_var(db, pc, match_stack, &ctx);
	if (rc < 0)
		return rc;
	*type = ctx.type;
	if (name)
		*name = ctx.name;
	*offset = ctx.offset;
	return 0;
}

long types_read_code(struct types_db *db, uint64_t pc, uint8_t *buf, size_t len)
{
	struct dwarf_priv *p;
	Elf_Scn *scn = NULL;

	if (db->source != TYPES_SRC_DWARF)
		return -ENOTSUP;
	p = P(db);
	while ((scn = elf_nextscn(p->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t n;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_ALLOC) || pc < sh.sh_addr || pc >= sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return -EIO;
		n = (size_t)(sh.sh_addr + d->d_size - pc);
		if (pc - sh.sh_addr >= d->d_size)
			return -ERANGE;
		if (n > len)
			n = len;
		memcpy(buf, (const uint8_t *)d->d_buf + (pc - sh.sh_addr), n);
		return (long)n;
	}
	return -ERANGE;
}

int types_file_to_vaddr(struct types_db *db, uint64_t file_offset, uint64_t *vaddr)
{
	struct dwarf_priv *p;
	size_t n;

	if (db->source != TYPES_SRC_DWARF)
		return -ENOTSUP;
	p = P(db);
	if (elf_getphdrnum(p->elf, &n) != 0)
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(p->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (file_offset >= ph.p_offset && file_offset < ph.p_offset + ph.p_memsz) {
			*vaddr = file_offset - ph.p_offset + ph.p_vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

int types_func_start(struct types_db *db, uint64_t pc, uint64_t *start)
{
	struct dwarf_priv *p;
	Dwarf_Die cudie, *scopes = NULL;
	int n, rc = -ENOENT;

	if (db->source != TYPES_SRC_DWARF)
		return -ENOTSUP;
	p = P(db);
	if (!dwarf_addrdie(p->dwarf, pc, &cudie))
		return -ENOENT;
	n = dwarf_getscopes(&cudie, pc, &scopes);
	/* the outermost subprogram: inlined bodies start inside it */
	for (int i = n - 1; i >= 0 && rc < 0; i--) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		while ((off = dwarf_ranges(&scopes[i], off, &base, &lo, &hi)) > 0) {
			if (pc >= lo && pc < hi) {
				*start = lo;
				rc = 0;
				break;
			}
		}
	}
	free(scopes);
	return rc;
}
