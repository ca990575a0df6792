/* Memory operand decoding of one machine instruction (capstone): which
 * registers and displacement form the data address of a sampled load or
 * store, in DWARF register numbers so that the answer can be matched
 * against variable locations. x86-64 and arm64.
 *
 * Ownership: insn_decoder_new() / insn_decoder_free(). A decoder is not
 * thread-safe. */
#ifndef C2C_INSN_H
#define C2C_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collector/base/error.h"

enum insn_arch { INSN_X86_64 = 1, INSN_ARM64 = 2 };

struct insn_mem {
	int base;           /* DWARF register number, -1 when none */
	int index;          /* DWARF register number, -1 when none */
	int scale;
	int64_t disp;
	bool pc_relative;   /* x86 RIP-relative: target is the address */
	uint64_t target;    /* pc_relative only: pc + length + disp */
	bool is_store;      /* the operand is written */
	unsigned size;      /* access size in bytes (0 when unknown) */
	unsigned length;    /* instruction length */
	char text[96];      /* "addq $0x1, 0x40(%rdi)" style, for display */
};

struct insn_decoder;

/* arch from an ELF e_machine (EM_X86_64, EM_AARCH64); 0 if unsupported. */
enum insn_arch insn_arch_from_elf(int e_machine);
int insn_decoder_new(struct insn_decoder **out, enum insn_arch arch, struct c2c_error *err);
void insn_decoder_free(struct insn_decoder *d);

/* Decodes the instruction at code[0..len) (which lives at address pc) and
 * fills its first memory operand that is really accessed (not lea/prefetch).
 * Returns 0, -ENOENT when the instruction has no memory access, -EINVAL when
 * the bytes do not decode. */
int insn_decode_mem(struct insn_decoder *d, const uint8_t *code, size_t len, uint64_t pc,
		    struct insn_mem *out);
/* What register tracking needs from any instruction (x86-64). */
struct insn_info {
	unsigned length;
	bool is_call;
	bool has_mem;         /* mem is filled (first memory operand) */
	struct insn_mem mem;
	int mov_dst;          /* 64-bit mov into a register: its DWARF number, else -1 */
	int mov_src;          /* register-to-register mov: the source, -1 for a load */
	uint32_t writes;      /* bit n: DWARF register n (0..16) is written */
};
/* Decodes one instruction for register tracking. 0, or -EINVAL / -ENOTSUP
 * (arm64: not tracked). */
int insn_decode_info(struct insn_decoder *d, const uint8_t *code, size_t len, uint64_t pc,
		     struct insn_info *out);

/* Name of a DWARF register of the decoder's architecture ("rdi", "x1"). */
const char *insn_reg_name(const struct insn_decoder *d, int dwarf_reg);

#endif /* C2C_INSN_H */
