/* collector/insn: capstone-based memory operand decoding (see insn.h).
 * Register numbers are translated to the DWARF numbering of each psABI:
 * x86-64: rax 0, rdx 1, rcx 2, rbx 3, rsi 4, rdi 5, rbp 6, rsp 7, r8-r15;
 * arm64: x0-x30 0-30, sp 31. */
#include "collector/types/insn.h"

#include <capstone/capstone.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct insn_decoder {
	csh cs;
	enum insn_arch arch;
	cs_insn *insn;
};

enum insn_arch insn_arch_from_elf(int e_machine)
{
	switch (e_machine) {
	case EM_X86_64:
		return INSN_X86_64;
	case EM_AARCH64:
		return INSN_ARM64;
	default:
		return 0;
	}
}

int insn_decoder_new(struct insn_decoder **out, enum insn_arch arch, struct c2c_error *err)
{
	struct insn_decoder *d = calloc(1, sizeof(*d));
	cs_err e;

	*out = NULL;
	if (!d)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	d->arch = arch;
	if (arch == INSN_X86_64)
		e = cs_open(CS_ARCH_X86, CS_MODE_64, &d->cs);
	else if (arch == INSN_ARM64)
		e = cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &d->cs);
	else {
		free(d);
		return c2c_error_set(err, -ENOTSUP, "instruction decoding: unsupported architecture");
	}
	if (e != CS_ERR_OK) {
		free(d);
		return c2c_error_set(err, -EINVAL, "capstone: %s", cs_strerror(e));
	}
	cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	if (arch == INSN_X86_64)
		cs_option(d->cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	d->insn = cs_malloc(d->cs);
	if (!d->insn) {
		cs_close(&d->cs);
		free(d);
		return c2c_error_set(err, -ENOMEM, "out of memory");
	}
	*out = d;
	return 0;
}

void insn_decoder_free(struct insn_decoder *d)
{
	if (!d)
		return;
	cs_free(d->insn, 1);
	cs_close(&d->cs);
	free(d);
}

static int x86_dwarf_reg(unsigned r)
{
	switch (r) {
	case X86_REG_RAX: case X86_REG_EAX: return 0;
	case X86_REG_RDX: case X86_REG_EDX: return 1;
	case X86_REG_RCX: case X86_REG_ECX: return 2;
	case X86_REG_RBX: case X86_REG_EBX: return 3;
	case X86_REG_RSI: case X86_REG_ESI: return 4;
	case X86_REG_RDI: case X86_REG_EDI: return 5;
	case X86_REG_RBP: case X86_REG_EBP: return 6;
	case X86_REG_RSP: case X86_REG_ESP: return 7;
	case X86_REG_R8: case X86_REG_R8D: return 8;
	case X86_REG_R9: case X86_REG_R9D: return 9;
	case X86_REG_R10: case X86_REG_R10D: return 10;
	case X86_REG_R11: case X86_REG_R11D: return 11;
	case X86_REG_R12: case X86_REG_R12D: return 12;
	case X86_REG_R13: case X86_REG_R13D: return 13;
	case X86_REG_R14: case X86_REG_R14D: return 14;
	case X86_REG_R15: case X86_REG_R15D: return 15;
	case X86_REG_RIP: return 16;
	/* partial registers: a write to them changes the full register */
	case X86_REG_AX: case X86_REG_AL: case X86_REG_AH: return 0;
	case X86_REG_DX: case X86_REG_DL: case X86_REG_DH: return 1;
	case X86_REG_CX: case X86_REG_CL: case X86_REG_CH: return 2;
	case X86_REG_BX: case X86_REG_BL: case X86_REG_BH: return 3;
	case X86_REG_SI: case X86_REG_SIL: return 4;
	case X86_REG_DI: case X86_REG_DIL: return 5;
	case X86_REG_BP: case X86_REG_BPL: return 6;
	case X86_REG_SP: case X86_REG_SPL: return 7;
	case X86_REG_R8W: case X86_REG_R8B: return 8;
	case X86_REG_R9W: case X86_REG_R9B: return 9;
	case X86_REG_R10W: case X86_REG_R10B: return 10;
	case X86_REG_R11W: case X86_REG_R11B: return 11;
	case X86_REG_R12W: case X86_REG_R12B: return 12;
	case X86_REG_R13W: case X86_REG_R13B: return 13;
	case X86_REG_R14W: case X86_REG_R14B: return 14;
	case X86_REG_R15W: case X86_REG_R15B: return 15;
	default: return -1;
	}
}

static int arm64_dwarf_reg(unsigned r)
{
	if (r >= ARM64_REG_X0 && r <= ARM64_REG_X28)
		return (int)(r - ARM64_REG_X0);
	if (r >= ARM64_REG_W0 && r <= ARM64_REG_W30)
		return (int)(r - ARM64_REG_W0);
	switch (r) {
	case ARM64_REG_X29: return 29;
	case ARM64_REG_X30: return 30;
	case ARM64_REG_SP: case ARM64_REG_WSP: return 31;
	default: return -1;
	}
}

static int decode_x86(struct insn_decoder *d, struct insn_mem *out)
{
	const cs_x86 *x = &d->insn->detail->x86;

	/* lea computes an address, nop/prefetch touch nothing we can see */
	if (d->insn->id == X86_INS_LEA || d->insn->id == X86_INS_NOP ||
	    (d->insn->mnemonic[0] == 'p' && !strncmp(d->insn->mnemonic, "prefetch", 8)))
		return -ENOENT;
	for (unsigned i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];
		if (op->type != X86_OP_MEM)
			continue;
		out->base = op->mem.base == X86_REG_INVALID ? -1 : x86_dwarf_reg(op->mem.base);
		out->index = op->mem.index == X86_REG_INVALID ? -1 : x86_dwarf_reg(op->mem.index);
		out->scale = op->mem.scale;
		out->disp = op->mem.disp;
		out->size = op->size;
		out->is_store = (op->access & CS_AC_WRITE) != 0;
		if (op->mem.base == X86_REG_RIP) {
			out->pc_relative = true;
			out->target = d->insn->address + d->insn->size + (uint64_t)op->mem.disp;
			out->base = -1;
		}
		return 0;
	}
	return -ENOENT;
}

static int decode_arm64(struct insn_decoder *d, struct insn_mem *out)
{
	const cs_arm64 *a = &d->insn->detail->arm64;
	const char *mn = d->insn->mnemonic;

	if (strncmp(mn, "ld", 2) && strncmp(mn, "st", 2) && strncmp(mn, "cas", 3) &&
	    strncmp(mn, "swp", 3))
		return -ENOENT;
	for (unsigned i = 0; i < a->op_count; i++) {
		const cs_arm64_op *op = &a->operands[i];
		if (op->type != ARM64_OP_MEM)
			continue;
		out->base = op->mem.base == ARM64_REG_INVALID ? -1 : arm64_dwarf_reg(op->mem.base);
		out->index = op->mem.index == ARM64_REG_INVALID ? -1 : arm64_dwarf_reg(op->mem.index);
		out->scale = 1;
		out->disp = op->mem.disp;
		/* capstone 4 does not mark arm64 memory operands as written */
		out->is_store = mn[0] == 's' || !strncmp(mn, "cas", 3);
		out->size = 0;
		return 0;
	}
	return -ENOENT;
}

int insn_decode_mem(struct insn_decoder *d, const uint8_t *code, size_t len, uint64_t pc,
		    struct insn_mem *out)
{
	const uint8_t *p = code;
	size_t n = len;
	uint64_t addr = pc;
	int rc;

	memset(out, 0, sizeof(*out));
	out->base = out->index = -1;
	if (!cs_disasm_iter(d->cs, &p, &n, &addr, d->insn))
		return -EINVAL;
	out->length = d->insn->size;
	/* capstone's op_str can be longer than our display field: cut it */
	{
		size_t m = strlen(d->insn->mnemonic);
		if (m > sizeof(out->text) - 2)
			m = sizeof(out->text) - 2;
		memcpy(out->text, d->insn->mnemonic, m);
		out->text[m] = ' ';
		size_t o = strnlen(d->insn->op_str, sizeof(out->text) - m - 2);
		memcpy(out->text + m + 1, d->insn->op_str, o);
		out->text[m + 1 + o] = 0;
	}
	rc = d->arch == INSN_X86_64 ? decode_x86(d, out) : decode_arm64(d, out);
	return rc;
}

int insn_decode_info(struct insn_decoder *d, const uint8_t *code, size_t len, uint64_t pc,
		     struct insn_info *out)
{
	const uint8_t *p = code;
	size_t n = len;
	uint64_t addr = pc;
	const cs_x86 *x;
	cs_regs rr, rw;
	uint8_t nr = 0, nw = 0;

	memset(out, 0, sizeof(*out));
	out->mov_dst = out->mov_src = -1;
	if (d->arch != INSN_X86_64)
		return -ENOTSUP;
	if (!cs_disasm_iter(d->cs, &p, &n, &addr, d->insn))
		return -EINVAL;
	out->length = d->insn->size;
	x = &d->insn->detail->x86;
	out->is_call = d->insn->id == X86_INS_CALL;
	if (cs_regs_access(d->cs, d->insn, rr, &nr, rw, &nw) == CS_ERR_OK) {
		for (unsigned i = 0; i < nw; i++) {
			int r = x86_dwarf_reg(rw[i]);
			if (r >= 0 && r < 32)
				out->writes |= 1u << r;
		}
	}
	out->mem.base = out->mem.index = -1;
	for (unsigned i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];
		if (op->type != X86_OP_MEM || d->insn->id == X86_INS_LEA)
			continue;
		out->has_mem = true;
		out->mem.base = op->mem.base == X86_REG_INVALID ? -1 : x86_dwarf_reg(op->mem.base);
		out->mem.index = op->mem.index == X86_REG_INVALID ? -1 : x86_dwarf_reg(op->mem.index);
		out->mem.scale = op->mem.scale;
		out->mem.disp = op->mem.disp;
		out->mem.size = op->size;
		out->mem.is_store = (op->access & CS_AC_WRITE) != 0;
		break;
	}
	/* 64-bit mov: a load (mem -> reg) or a copy (reg -> reg) */
	if (d->insn->id == X86_INS_MOV && x->op_count == 2) {
		const cs_x86_op *dst = NULL, *src = NULL;
		for (unsigned i = 0; i < 2; i++) {
			if (x->operands[i].type == X86_OP_REG && (x->operands[i].access & CS_AC_WRITE))
				dst = &x->operands[i];
			else
				src = &x->operands[i];
		}
		if (dst && src && dst->size == 8) {
			int r = x86_dwarf_reg(dst->reg);
			if (src->type == X86_OP_MEM && src->mem.base != X86_REG_RIP) {
				out->mov_dst = r;
			} else if (src->type == X86_OP_REG && src->size == 8) {
				out->mov_dst = r;
				out->mov_src = x86_dwarf_reg(src->reg);
			}
		}
	}
	return 0;
}

const char *insn_reg_name(const struct insn_decoder *d, int r)
{
	static const char *const x86[] = { "rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
					   "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
					   "rip" };
	static const char *const a64[] = {
		"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10",
		"x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20",
		"x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29", "x30", "sp" };

	if (r < 0)
		return "?";
	if (d->arch == INSN_X86_64)
		return (size_t)r < sizeof(x86) / sizeof(x86[0]) ? x86[r] : "?";
	return (size_t)r < sizeof(a64) / sizeof(a64[0]) ? a64[r] : "?";
}
