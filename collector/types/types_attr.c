/* Attribution of one sample to an object and member: a global's DWARF
 * variable, else the sampled instruction's memory operand matched against
 * the variables live in its base register (heap objects, as perf's data-type
 * profiling does), else a stack variable addressed off the stack/frame
 * pointer. Each answer says how it was found, or why nothing was. */
#include "collector/types/insn.h"
#include "collector/types/types.h"
#include "collector/base/appendf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *types_how_name(enum types_how how)
{
	switch (how) {
	case TYPES_HOW_GLOBAL: return "global";
	case TYPES_HOW_INSN: return "insn";
	case TYPES_HOW_STACK: return "stack";
	case TYPES_HOW_MANUAL: return "manual";
	default: return "none";
	}
}

static void copy_name(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "?");
}

/* Drops const/volatile (a `volatile struct conn` local is a struct conn
 * object) but keeps typedef names, which are what the user wrote. */
static uint32_t strip_qual(struct types_db *db, uint32_t id)
{
	for (int i = 0; i < 16; i++) {
		const struct types_type *t = types_get(db, id);
		if (!t || t->kind != TYPES_QUAL)
			break;
		id = t->ref;
	}
	return id;
}

static int from_var(struct types_db *db, uint64_t vaddr, uint64_t addr, struct types_attr *out)
{
	uint32_t type;
	uint64_t start;
	const char *name = NULL;

	if (types_var_at(db, vaddr, &type, &start, &name) < 0)
		return -ENOENT;
	type = strip_qual(db, type);
	if (types_resolve(db, type, vaddr - start, &out->hit) < 0)
		return -ENOENT;
	out->how = TYPES_HOW_GLOBAL;
	out->type = type;
	out->offset = vaddr - start;
	out->object = addr - out->offset;
	copy_name(out->var, sizeof(out->var), name);
	return 0;
}

/* The pointer type a register holds at `at`: a variable living in it, or
 * what tracking says (state[]). 0 when unknown. */
static uint32_t reg_ptr_type(struct types_db *db, const uint32_t *state, uint64_t at, int reg)
{
	uint32_t t;
	const struct types_type *tt;

	if (reg < 0 || reg > 16)
		return 0;
	if (state[reg])
		return state[reg];
	if (types_reg_var_at(db, at, reg, &t, NULL) == 0 && (tt = types_get(db, types_strip(db, t))) &&
	    tt->kind == TYPES_POINTER)
		return types_strip(db, t);
	return 0;
}

/* The type of what a load [base + disp] at `at` reads, when it is a pointer:
 * a member of the struct base points to, or a stack variable (-O0 code
 * keeps its pointers there). 0 otherwise. */
static uint32_t loaded_ptr_type(struct types_db *db, const uint32_t *state, uint64_t at, int base,
				int64_t disp, bool frame)
{
	uint32_t ptr = reg_ptr_type(db, state, at, base), t = 0;
	struct types_hit hit;
	const struct types_type *tt;

	if (ptr) {
		const struct types_type *pt = types_get(db, ptr);
		if (disp >= 0 && pt && pt->ref &&
		    types_resolve(db, types_strip(db, pt->ref), (uint64_t)disp, &hit) == 0 &&
		    !hit.bit_size && hit.member_offset == (uint64_t)disp)
			t = types_strip(db, hit.type);
	} else if (frame) {
		uint64_t off;
		uint32_t vt;
		if (types_stack_var_at(db, at, base, disp, &vt, NULL, &off) == 0 &&
		    types_resolve(db, types_strip(db, vt), off, &hit) == 0 && !hit.bit_size &&
		    hit.member_offset == off)
			t = types_strip(db, hit.type);
	}
	tt = t ? types_get(db, t) : NULL;
	return tt && tt->kind == TYPES_POINTER ? t : 0;
}

/* Follows pointer types through the function's instructions up to pc, as
 * perf's data-type profiling does: a register loaded from a typed pointer's
 * member (or from a stack variable holding a pointer), or copied from a
 * typed register, holds that member's pointer type until something else
 * writes it. Linear scan from the function start (branches are not
 * followed). Returns the pointer type of `reg` at pc, or 0. */
static uint32_t track_reg(struct types_db *db, struct insn_decoder *dec, uint64_t pc, int reg,
			  enum insn_arch arch)
{
	uint32_t state[17] = { 0 };
	uint64_t at, start;
	uint8_t code[16];

	if (arch != INSN_X86_64 || types_func_start(db, pc, &start) < 0 || pc - start > 16384)
		return 0;
	for (at = start; at < pc;) {
		struct insn_info in;
		long n = types_read_code(db, at, code, sizeof(code));
		uint32_t nt = 0;
		bool set = false;

		if (n <= 0 || insn_decode_info(dec, code, (size_t)n, at, &in) < 0 || !in.length)
			return 0;
		if (in.mov_dst >= 0 && in.mov_dst <= 16) {
			if (in.mov_src >= 0)
				nt = reg_ptr_type(db, state, at, in.mov_src);
			else if (in.has_mem && in.mem.index < 0)
				nt = loaded_ptr_type(db, state, at, in.mem.base, in.mem.disp,
						     in.mem.base == 7 || in.mem.base == 6);
			set = true;
		}
		for (int r = 0; r <= 16; r++)
			if (in.writes & (1u << r))
				state[r] = 0;
		if (in.is_call)   /* caller-saved registers are gone */
			for (int r = 0; r <= 11; r++)
				if (r != 3 && r != 6 && r != 7)
					state[r] = 0;
		if (set)
			state[in.mov_dst] = nt;
		at += in.length;
	}
	return at == pc && reg >= 0 && reg <= 16 ? state[reg] : 0;
}

/* x86-64 rsp/rbp, arm64 sp/x29: registers that address the stack frame. */
static bool is_frame_reg(int machine_arch, int reg)
{
	if (machine_arch == INSN_X86_64)
		return reg == 7 || reg == 6;
	return reg == 31 || reg == 29;
}

/* Whether arrays of id end in a struct or union (descending into an array
 * of ints would only lose its name). */
static bool aggregate_elements(struct types_db *db, uint32_t id)
{
	for (int d = 0; d < 8; d++) {
		const struct types_type *t = types_get(db, types_strip(db, id));
		if (!t)
			return false;
		if (t->kind == TYPES_STRUCT || t->kind == TYPES_UNION)
			return !t->declaration;
		if (t->kind != TYPES_ARRAY)
			return false;
		id = t->ref;
	}
	return false;
}

bool types_attr_element(struct types_db *db, struct types_attr *a)
{
	char idx[64] = "";
	size_t n = 0;
	uint32_t cur = a->type;
	uint64_t off = a->offset, obj = a->object;
	struct types_hit hit;

	if (a->how == TYPES_HOW_NONE || !aggregate_elements(db, cur))
		return false;
	for (int d = 0; d < 8; d++) {
		const struct types_type *t = types_get(db, types_strip(db, cur));
		const struct types_type *el;
		uint64_t i;

		if (!t || t->kind != TYPES_ARRAY)
			break;
		el = types_get(db, t->ref);
		if (!el || !el->size)
			return false;
		i = off / el->size;
		/* past the last element of a sized array: not this object */
		if (t->nelem && i >= t->nelem)
			return false;
		off -= i * el->size;
		obj += i * el->size;
		n = c2c_appendf(idx, sizeof(idx), n, "[%llu]", (unsigned long long)i);
		cur = strip_qual(db, t->ref);
	}
	if (cur == a->type || types_resolve(db, cur, off, &hit) < 0)
		return false;
	{
		char path[sizeof(hit.path)];
		snprintf(path, sizeof(path), "%.60s%s%s%.180s", a->var[0] ? a->var : "?", idx,
			 hit.path[0] && hit.path[0] != '[' ? "." : "", hit.path);
		memcpy(hit.path, path, sizeof(path));
	}
	a->type = cur;
	a->offset = off;
	a->object = obj;
	a->hit = hit;
	return true;
}

/* The answer of one sample before arrays of structs are split into their
 * elements (types_attribute). */
/* Whether struct outer holds inner at its offset 0, directly or through
 * its first members (struct tcp_sock > inet_connection_sock > inet_sock >
 * sock): what container_of / the kernel's tcp_sk(sk) casts rely on. */
static bool embeds_at_start(struct types_db *db, uint32_t outer, uint32_t inner, int depth)
{
	const struct types_member *m;
	size_t n = types_members(db, outer, &m);

	for (size_t i = 0; i < n && depth < 8; i++) {
		uint32_t t;
		if (m[i].bit_offset != 0)
			continue;
		t = strip_qual(db, types_strip(db, m[i].type));
		if (t == inner || embeds_at_start(db, t, inner, depth + 1))
			return true;
	}
	return false;
}

/* An access past the end of the pointee: the struct, among the pointer
 * types the function's scopes declare, that embeds the pointee at its start
 * and covers the offset — the largest, as the code's object is the
 * outermost one (tcp_ack's sk is the tcp_sock its tp names). 0 if none. */
static uint32_t container_at(struct types_db *db, uint64_t pc, uint32_t obj, uint64_t offset)
{
	uint32_t types[64], best = 0;
	size_t n = types_scope_var_types(db, pc, types, sizeof(types) / sizeof(types[0]));

	for (size_t i = 0; i < n; i++) {
		const struct types_type *pt = types_get(db, types_strip(db, types[i]));
		uint32_t c;
		const struct types_type *ct;
		if (!pt || pt->kind != TYPES_POINTER || !pt->ref)
			continue;
		c = strip_qual(db, types_strip(db, pt->ref));
		ct = types_get(db, c);
		if (!ct || c == obj || ct->kind != TYPES_STRUCT || ct->size <= offset ||
		    !embeds_at_start(db, c, obj, 0))
			continue;
		if (!best || ct->size > types_get(db, best)->size)
			best = c;
	}
	return best;
}

static int attribute_one(struct types_db *db, struct insn_decoder *dec, uint64_t pc, uint64_t addr,
			 bool has_data_vaddr, uint64_t data_vaddr, struct types_attr *out)
{
	uint8_t code[16];
	long n;
	struct insn_mem m;
	uint32_t type;
	const char *name = NULL;
	enum insn_arch arch = insn_arch_from_elf(types_machine(db));
	char tbuf[128];

	memset(out, 0, sizeof(*out));
	if (has_data_vaddr && from_var(db, data_vaddr, addr, out) == 0)
		return 0;
	if (!dec) {
		snprintf(out->why, sizeof(out->why), "not a global and no instruction decoder");
		return 0;
	}
	n = types_read_code(db, pc, code, sizeof(code));
	if (n <= 0) {
		snprintf(out->why, sizeof(out->why), "no code bytes at %#llx in %s",
			 (unsigned long long)pc, types_path(db));
		return 0;
	}
	if (insn_decode_mem(dec, code, (size_t)n, pc, &m) < 0) {
		snprintf(out->why, sizeof(out->why), "instruction at %#llx has no memory operand",
			 (unsigned long long)pc);
		return 0;
	}
	snprintf(out->insn, sizeof(out->insn), "%s", m.text);
	if (m.pc_relative) {
		if (from_var(db, m.target, addr, out) == 0)
			return 0;
		snprintf(out->why, sizeof(out->why), "pc-relative target %#llx is no known variable",
			 (unsigned long long)m.target);
		return 0;
	}
	if (m.base < 0) {
		snprintf(out->why, sizeof(out->why), "absolute address operand");
		return 0;
	}
	if (types_reg_var_at(db, pc, m.base, &type, &name) == 0) {
		uint32_t s = types_strip(db, type);
		const struct types_type *pt = types_get(db, s);
		uint32_t obj;
		if (!pt || pt->kind != TYPES_POINTER || !pt->ref) {
			snprintf(out->why, sizeof(out->why), "%s in %s is %s, not a pointer",
				 name ? name : "?", insn_reg_name(dec, m.base),
				 types_name(db, type, tbuf, sizeof(tbuf)));
			return 0;
		}
		obj = strip_qual(db, pt->ref);   /* const struct x * -> struct x */
		bool outside = m.disp < 0;
		copy_name(out->var, sizeof(out->var), name);
		if (!outside && types_resolve(db, obj, (uint64_t)m.disp, &out->hit) < 0) {
			/* past the pointee: a cast to the struct embedding it */
			uint32_t c = container_at(db, pc, obj, (uint64_t)m.disp);
			if (c && types_resolve(db, c, (uint64_t)m.disp, &out->hit) == 0) {
				snprintf(out->var, sizeof(out->var), "%.19s as %.40s", name ? name : "?",
					 types_name(db, c, tbuf, sizeof(tbuf)));
				obj = c;
			} else {
				outside = true;
			}
		}
		if (outside) {
			out->var[0] = 0;
			snprintf(out->why, sizeof(out->why), "offset %lld outside %s",
				 (long long)m.disp, types_name(db, obj, tbuf, sizeof(tbuf)));
			return 0;
		}
		out->how = TYPES_HOW_INSN;
		out->type = obj;
		out->offset = (uint64_t)m.disp;
		out->inexact = m.index >= 0;
		out->object = addr - out->offset;
		return 0;
	}
	if (is_frame_reg(arch, m.base)) {
		uint64_t off;
		if (types_stack_var_at(db, pc, m.base, m.disp, &type, &name, &off) == 0 &&
		    (type = strip_qual(db, type)) != 0 &&
		    types_resolve(db, type, off, &out->hit) == 0) {
			out->how = TYPES_HOW_STACK;
			out->type = type;
			out->offset = off;
			out->inexact = m.index >= 0;
			out->object = addr - off;
			copy_name(out->var, sizeof(out->var), name);
			return 0;
		}
		snprintf(out->why, sizeof(out->why), "no stack variable at %s%+lld",
			 insn_reg_name(dec, m.base), (long long)m.disp);
		return 0;
	}
	{
		uint32_t ptr = track_reg(db, dec, pc, m.base, arch);
		const struct types_type *pt = ptr ? types_get(db, ptr) : NULL;
		if (pt && pt->ref && m.disp >= 0 &&
		    types_resolve(db, strip_qual(db, pt->ref), (uint64_t)m.disp, &out->hit) == 0) {
			out->how = TYPES_HOW_INSN;
			out->type = strip_qual(db, pt->ref);
			out->offset = (uint64_t)m.disp;
			out->inexact = m.index >= 0;
			out->object = addr - out->offset;
			snprintf(out->var, sizeof(out->var), "(%s, tracked)", insn_reg_name(dec, m.base));
			return 0;
		}
	}
	snprintf(out->why, sizeof(out->why), "no variable lives in %s at %#llx and no pointer "
		 "type could be tracked into it", insn_reg_name(dec, m.base), (unsigned long long)pc);
	return 0;
}

int types_attribute(struct types_db *db, struct insn_decoder *dec, uint64_t pc, uint64_t addr,
		    bool has_data_vaddr, uint64_t data_vaddr, struct types_attr *out)
{
	int rc = attribute_one(db, dec, pc, addr, has_data_vaddr, data_vaddr, out);

	/* a global or stack array of structs: the element is the object */
	if (rc == 0 && (out->how == TYPES_HOW_GLOBAL || out->how == TYPES_HOW_STACK))
		types_attr_element(db, out);
	return rc;
}
