/* For the tools that write a recording of a real test program (tests/types/
 * conn.c, tests/types/arrays.c): its symbols and the addresses of its
 * memory-accessing instructions, read from the built binary with libelf and
 * capstone, its run (it prints where its objects live), and its PT_LOAD
 * segments as the MMAP2 records the kernel would have written.
 * Errors print one line and exit: these are test tools. */
#ifndef C2C_TESTS_PROG_PROBE_H
#define C2C_TESTS_PROG_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tests/gen/perfdata_writer.h"

struct prog_probe;

/* Opens the ELF file (exits on failure). */
struct prog_probe *prog_probe_open(const char *path);
void prog_probe_close(struct prog_probe *p);
/* st_value of a .symtab symbol (exits when absent). */
uint64_t prog_probe_sym(struct prog_probe *p, const char *name);
/* File address of the nth (0-based) instruction of fn with a memory operand
 * other than lea (x86-64; exits when there is none). */
uint64_t prog_probe_mem_insn(struct prog_probe *p, const char *fn, int nth);
/* The first such instruction that writes (store) or reads memory. */
uint64_t prog_probe_mem_access(struct prog_probe *p, const char *fn, bool store);
/* The first instruction of fn (within its symbol's size) that writes
 * (store) or reads (a read-modify-write such as `lock add` is both) the
 * member at disp of the object fn's first argument points to: memory
 * operand base + disp, no index, the base rdi or a 64-bit copy of it made
 * before (read straight through, as the attribution tracks registers).
 * Exits when there is none. */
uint64_t prog_probe_member_access(struct prog_probe *p, const char *fn, int64_t disp, bool store);
/* The GNU build-id note's bytes (up to 20; 0 when there is none). */
size_t prog_probe_build_id(struct prog_probe *p, uint8_t out[20]);
/* Runs the program once and fills vals[i] from its "names[i] 0x..." output
 * lines (exits when one is missing). */
void prog_probe_run(struct prog_probe *p, const char *const *names, uint64_t *vals, int n);
/* MMAP2 records of the binary's PT_LOAD segments loaded at base (runtime
 * address - file address) for pid. */
void prog_probe_mmaps(struct prog_probe *p, struct pdw *w, int32_t pid, uint64_t base,
		      const struct pdw_sid *sid);

#endif /* C2C_TESTS_PROG_PROBE_H */
