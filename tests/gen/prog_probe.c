/* Symbols, instructions, run and segments of a real test program
 * (tests/gen/prog_probe.h). */
#include "tests/gen/prog_probe.h"

#include <capstone/capstone.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct prog_probe {
	char *path;
	int fd;
	Elf *elf;
};

static void die(const struct prog_probe *p, const char *what)
{
	fprintf(stderr, "prog_probe: %s: %s\n", p ? p->path : "?", what);
	exit(1);
}

struct prog_probe *prog_probe_open(const char *path)
{
	struct prog_probe *p = calloc(1, sizeof(*p));

	if (!p || !(p->path = strdup(path)))
		die(NULL, "out of memory");
	elf_version(EV_CURRENT);
	p->fd = open(path, O_RDONLY);
	if (p->fd < 0 || !(p->elf = elf_begin(p->fd, ELF_C_READ, NULL)))
		die(p, "cannot read the ELF file");
	return p;
}

void prog_probe_close(struct prog_probe *p)
{
	if (!p)
		return;
	elf_end(p->elf);
	close(p->fd);
	free(p->path);
	free(p);
}

/* st_value and st_size of a .symtab symbol (exits when absent). */
static uint64_t sym_lookup(struct prog_probe *p, const char *name, uint64_t *size)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(p->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;
			if (gelf_getsym(d, (int)i, &s) && (n = elf_strptr(p->elf, sh.sh_link, s.st_name)) &&
			    !strcmp(n, name)) {
				*size = s.st_size;
				return s.st_value;
			}
		}
	}
	fprintf(stderr, "prog_probe: no symbol %s in %s\n", name, p->path);
	exit(1);
}

uint64_t prog_probe_sym(struct prog_probe *p, const char *name)
{
	uint64_t size;

	return sym_lookup(p, name, &size);
}

/* Opens capstone (x86-64, with details) in *cs and disassembles up to
 * size bytes (0: to the end of its section) of the section holding start;
 * returns the number of instructions in *insn (0 when no section holds
 * start). The caller frees them and closes *cs. */
static size_t disasm_at(struct prog_probe *p, uint64_t start, uint64_t size, csh *cs, cs_insn **insn)
{
	Elf_Scn *scn = NULL;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, cs) != CS_ERR_OK)
		die(p, "capstone");
	cs_option(*cs, CS_OPT_DETAIL, CS_OPT_ON);
	*insn = NULL;
	while ((scn = elf_nextscn(p->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || start < sh.sh_addr ||
		    start >= sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!size || size > sh.sh_addr + sh.sh_size - start)
			size = sh.sh_addr + sh.sh_size - start;
		return cs_disasm(*cs, (const uint8_t *)d->d_buf + (start - sh.sh_addr), size, start, 0, insn);
	}
	return 0;
}

/* The nth instruction of fn (lea excluded) with a memory operand that is
 * read (want 0), written (1) or either (-1). */
static uint64_t find_mem_insn(struct prog_probe *p, const char *fn, int nth, int want)
{
	uint64_t start = prog_probe_sym(p, fn);
	cs_insn *insn;
	csh cs;
	size_t count = disasm_at(p, start, 64, &cs, &insn);

	for (size_t i = 0; i < count; i++) {
		const cs_x86 *x = &insn[i].detail->x86;
		if (insn[i].id == X86_INS_LEA)
			continue;
		for (int k = 0; k < x->op_count; k++) {
			int wr = (x->operands[k].access & CS_AC_WRITE) != 0;
			if (x->operands[k].type == X86_OP_MEM && (want < 0 || wr == want) && nth-- == 0) {
				uint64_t a = insn[i].address;
				cs_free(insn, count);
				cs_close(&cs);
				return a;
			}
		}
	}
	if (count)
		cs_free(insn, count);
	cs_close(&cs);
	fprintf(stderr, "prog_probe: no memory %s in %s of %s\n",
		want < 0 ? "instruction" : want ? "store" : "load", fn, p->path);
	exit(1);
}

/* The 64-bit general register a register is part of, numbered ax bx cx dx
 * si di bp sp then r8..r15 (0..15), or -1: "edi", "di" and "dil" are rdi. */
static int gpr64(csh cs, unsigned reg)
{
	static const char *const base[] = { "ax", "bx", "cx", "dx", "si", "di", "bp", "sp" };
	const char *n = cs_reg_name(cs, reg);
	char b[3] = { 0 };

	if (!n)
		return -1;
	if (n[0] == 'r' && n[1] >= '0' && n[1] <= '9')
		return atoi(n + 1);
	if ((n[0] == 'r' || n[0] == 'e') && strlen(n) == 3)
		n++;
	b[0] = n[0];
	b[1] = n[1] == 'l' || n[1] == 'h' ? 'x' : n[1];
	if (!strcmp(n, "sil") || !strcmp(n, "dil") || !strcmp(n, "bpl") || !strcmp(n, "spl"))
		b[1] = n[1];
	for (int i = 0; i < 8; i++)
		if (!strcmp(b, base[i]))
			return i;
	return -1;
}

uint64_t prog_probe_member_access(struct prog_probe *p, const char *fn, int64_t disp, bool store)
{
	/* registers holding the first argument: rdi and its copies, in a
	 * straight-line reading of the function (as the attribution tracks) */
	uint32_t obj = 1u << 5;
	uint64_t size, start = sym_lookup(p, fn, &size);
	cs_insn *insn;
	csh cs;
	size_t count = disasm_at(p, start, size, &cs, &insn);

	for (size_t i = 0; i < count; i++) {
		const cs_x86 *x = &insn[i].detail->x86;
		cs_regs rd, wrs;
		uint8_t nrd = 0, nwr = 0;
		for (int k = 0; insn[i].id != X86_INS_LEA && k < x->op_count; k++) {
			const cs_x86_op *o = &x->operands[k];
			bool wr = (o->access & CS_AC_WRITE) != 0;
			int b = o->type == X86_OP_MEM ? gpr64(cs, o->mem.base) : -1;
			if (b >= 0 && (obj >> b & 1) && o->mem.index == X86_REG_INVALID && o->mem.disp == disp &&
			    (store ? wr : (o->access & CS_AC_READ) != 0)) {
				uint64_t a = insn[i].address;
				cs_free(insn, count);
				cs_close(&cs);
				return a;
			}
		}
		/* a 64-bit register copy of the object keeps it; any other
		 * write to a register holding it ends that */
		if (insn[i].id == X86_INS_MOV && x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
		    x->operands[1].type == X86_OP_REG && insn[i].detail->x86.operands[0].size == 8 &&
		    gpr64(cs, x->operands[1].reg) >= 0 && (obj >> gpr64(cs, x->operands[1].reg) & 1)) {
			obj |= 1u << gpr64(cs, x->operands[0].reg);
			continue;
		}
		if (cs_regs_access(cs, &insn[i], rd, &nrd, wrs, &nwr) == CS_ERR_OK)
			for (int k = 0; k < nwr; k++)
				if (gpr64(cs, wrs[k]) >= 0)
					obj &= ~(1u << gpr64(cs, wrs[k]));
	}
	if (count)
		cs_free(insn, count);
	cs_close(&cs);
	fprintf(stderr, "prog_probe: no %s at +%#llx in %s of %s\n", store ? "store" : "load",
		(unsigned long long)disp, fn, p->path);
	exit(1);
}

uint64_t prog_probe_mem_insn(struct prog_probe *p, const char *fn, int nth)
{
	return find_mem_insn(p, fn, nth, -1);
}

uint64_t prog_probe_mem_access(struct prog_probe *p, const char *fn, bool store)
{
	return find_mem_insn(p, fn, 0, store ? 1 : 0);
}

size_t prog_probe_build_id(struct prog_probe *p, uint8_t out[20])
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(p->elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;
		while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0)
			/* a vmlinux has Xen notes of the same type number first */
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz <= 20 && nh.n_namesz == 4 &&
			    !memcmp((const char *)d->d_buf + noff, "GNU", 4)) {
				memcpy(out, (const uint8_t *)d->d_buf + doff, nh.n_descsz);
				return nh.n_descsz;
			}
	}
	return 0;
}

void prog_probe_run(struct prog_probe *p, const char *const *names, uint64_t *vals, int n)
{
	char cmd[4200], line[256];
	FILE *f;

	memset(vals, 0, (size_t)n * sizeof(*vals));
	snprintf(cmd, sizeof(cmd), "'%s'", p->path);
	if (!(f = popen(cmd, "r")))
		die(p, "cannot run it");
	while (fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' ');
		if (!sp)
			continue;
		*sp = 0;
		for (int i = 0; i < n; i++)
			if (!strcmp(line, names[i]))
				vals[i] = strtoull(sp + 1, NULL, 16);
	}
	pclose(f);
	for (int i = 0; i < n; i++)
		if (!vals[i]) {
			fprintf(stderr, "prog_probe: %s did not print %s\n", p->path, names[i]);
			exit(1);
		}
}

void prog_probe_mmaps(struct prog_probe *p, struct pdw *w, int32_t pid, uint64_t base,
		      const struct pdw_sid *sid)
{
	size_t nph;

	elf_getphdrnum(p->elf, &nph);
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		struct c2c_mmap m = { .pid = pid, .tid = pid, .cpumode = C2C_MODE_USER,
				      .filename = p->path, .flags = 2 /* MAP_PRIVATE */ };
		uint64_t s0, e0;
		if (!gelf_getphdr(p->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		s0 = ph.p_vaddr & ~0xfffULL;
		e0 = (ph.p_vaddr + ph.p_memsz + 0xfff) & ~0xfffULL;
		m.start = base + s0;
		m.len = e0 - s0;
		m.pgoff = ph.p_offset & ~0xfffULL;
		m.prot = ((ph.p_flags & PF_R) ? 1 : 0) | ((ph.p_flags & PF_W) ? 2 : 0) |
			 ((ph.p_flags & PF_X) ? 4 : 0);
		pdw_mmap2(w, &m, sid);
	}
}
