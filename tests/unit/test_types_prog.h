/* Shared by the types/layout unit tests: builds tests/types/conn.c (before
 * and after layouts) into the test's temporary directory with -g -O2, and
 * finds symbols and memory-accessing instructions in the built binary with
 * libelf and capstone directly (independently of collector/insn). */
#ifndef C2C_TEST_TYPES_PROG_H
#define C2C_TEST_TYPES_PROG_H

#include <capstone/capstone.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

/* Path of the built binary, or NULL (then the caller skips). */
static inline const char *types_prog_build(int after)
{
	static char paths[2][512];
	char cmd[2048];
	const char *top = getenv("C2C_TOP");

	if (paths[after][0])
		return paths[after];
	snprintf(paths[after], sizeof(paths[after]), "%s/conn_%s", test_tmpdir(),
		 after ? "after" : "before");
	snprintf(cmd, sizeof(cmd), "cc -g -O2 %s -o '%s' '%s/tests/types/conn.c' 2>/dev/null",
		 after ? "-DLAYOUT_AFTER" : "", paths[after], top ? top : ".");
	if (system(cmd) != 0) {
		paths[after][0] = 0;
		return NULL;
	}
	return paths[after];
}

/* Another program of tests/types (NAME.c) built the same way, or NULL. */
static inline const char *types_prog_build_src(const char *name)
{
	static char path[512];
	char cmd[2048];
	const char *top = getenv("C2C_TOP");

	snprintf(path, sizeof(path), "%s/%s", test_tmpdir(), name);
	if (access(path, X_OK) == 0)
		return path;
	snprintf(cmd, sizeof(cmd), "cc -g -O2 -o '%s' '%s/tests/types/%s.c' 2>/dev/null", path,
		 top ? top : ".", name);
	if (system(cmd) != 0)
		return NULL;
	return path;
}

/* st_value and st_size of a symbol from .symtab; 0 when absent. */
static inline uint64_t types_prog_sym(const char *path, const char *name, uint64_t *size)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	uint64_t val = 0;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;
			if (!gelf_getsym(d, (int)i, &s))
				continue;
			n = elf_strptr(elf, sh.sh_link, s.st_name);
			if (n && !strcmp(n, name)) {
				val = s.st_value;
				if (size)
					*size = s.st_size;
			}
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return val;
}

/* Address of the nth (0-based) instruction of function fn that has a
 * memory operand other than lea, found by disassembling the file's bytes. */
static inline uint64_t types_prog_mem_insn(const char *path, const char *fn, int nth)
{
	uint64_t size = 0, start = types_prog_sym(path, fn, &size), found = 0;
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	csh cs;

	if (!start || fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return 0;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	while (elf && !found && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		cs_insn *insn;
		size_t count;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || start < sh.sh_addr ||
		    start + size > sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		count = cs_disasm(cs, (const uint8_t *)d->d_buf + (start - sh.sh_addr), size, start,
				  0, &insn);
		for (size_t i = 0; i < count && !found; i++) {
			const cs_x86 *x = &insn[i].detail->x86;
			if (insn[i].id == X86_INS_LEA)
				continue;
			for (int k = 0; k < x->op_count; k++) {
				if (x->operands[k].type == X86_OP_MEM) {
					if (nth-- == 0)
						found = insn[i].address;
					break;
				}
			}
		}
		if (count)
			cs_free(insn, count);
	}
	cs_close(&cs);
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

#endif /* C2C_TEST_TYPES_PROG_H */
