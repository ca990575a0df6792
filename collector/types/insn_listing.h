/* A few instructions around a sampled one, decoded from the binary on disk
 * (capstone; the explorer's code site view). The instructions are decoded
 * forward from the function's start when it is known, so the ones before
 * the sampled instruction are the real ones; without a start the listing
 * begins at the sampled instruction.
 *
 * Ownership: the caller frees *out (free()). */
#ifndef C2C_INSN_LISTING_H
#define C2C_INSN_LISTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collector/base/error.h"

struct insn_line {
	uint64_t addr;          /* in the binary's own address space */
	unsigned length;
	uint8_t bytes[16];
	char text[200];         /* "movl   0x40(%rdi), %eax" style (AT&T on x86-64) */
	bool sampled;
};

/* Decodes up to `before` instructions before addr (from func_start; 0:
 * unknown), the one at addr and up to `after` after it, from the ELF file
 * at path (addr and func_start in its own address space: perf's rel_addr).
 * Returns 0 (*n > 0, one line marked sampled), -ENOENT (no executable
 * section holds addr), -EINVAL (addr is not on an instruction boundary
 * reached from func_start, or does not decode), -ENOTSUP (architecture),
 * or -errno opening the file, with one sentence in err. */
int insn_listing(const char *path, uint64_t addr, uint64_t func_start, int before, int after,
		 struct insn_line **out, size_t *n, struct c2c_error *err);

#endif /* C2C_INSN_LISTING_H */
