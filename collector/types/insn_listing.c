/* The instruction listing of a code site (insn_listing.h): the executable
 * section holding the address is read with libelf, decoded with capstone
 * (AT&T syntax on x86-64, as objdump prints), forward from the function's
 * start so the instructions before the sampled one are the real ones. */
#include "collector/types/insn_listing.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A function longer than this is listed from the sampled address on. */
#define MAX_FORWARD (256u * 1024u)

struct section_bytes {
	const uint8_t *data;
	uint64_t start, size;
};

static int find_section(Elf *elf, uint64_t addr, struct section_bytes *out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		if (addr < sh.sh_addr || addr - sh.sh_addr >= sh.sh_size)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size < sh.sh_size)
			return -EIO;
		out->data = d->d_buf;
		out->start = sh.sh_addr;
		out->size = sh.sh_size;
		return 0;
	}
	return -ENOENT;
}

static void format_line(struct insn_line *l, const cs_insn *in)
{
	l->addr = in->address;
	l->length = in->size;
	memcpy(l->bytes, in->bytes, in->size < sizeof(l->bytes) ? in->size : sizeof(l->bytes));
	if (in->op_str[0])
		snprintf(l->text, sizeof(l->text), "%-6s %s", in->mnemonic, in->op_str);
	else
		snprintf(l->text, sizeof(l->text), "%s", in->mnemonic);
	l->sampled = false;
}

/* Decodes from `from` until `after` instructions past addr; keeps the last
 * `before` ones before addr in a ring, then the rest in order. */
static int decode(csh cs, const struct section_bytes *sec, uint64_t from, uint64_t addr, int before, int after,
		  struct insn_line *lines, size_t *n)
{
	const uint8_t *code = sec->data + (from - sec->start);
	size_t left = (size_t)(sec->size - (from - sec->start));
	uint64_t pc = from;
	cs_insn *in = cs_malloc(cs);
	struct insn_line *ring = lines;   /* the first `before` slots */
	size_t nring = 0, head = 0, k;
	int past = -1;
	bool found = false;

	if (!in)
		return -ENOMEM;
	*n = 0;
	while (left && cs_disasm_iter(cs, &code, &left, &pc, in)) {
		if (in->address < addr) {
			if (before > 0) {
				format_line(&ring[head], in);
				head = (head + 1) % (size_t)before;
				if (nring < (size_t)before)
					nring++;
			}
			continue;
		}
		if (!found) {
			if (in->address != addr)
				break;      /* addr is inside an instruction: not a boundary */
			found = true;
			/* unroll the ring into order, then append */
			struct insn_line tmp[64];
			size_t first = nring < (size_t)before ? 0 : head;
			for (k = 0; k < nring; k++)
				tmp[k] = ring[(first + k) % (size_t)before];
			memcpy(lines, tmp, nring * sizeof(*lines));
			*n = nring;
			past = 0;
		}
		format_line(&lines[*n], in);
		lines[*n].sampled = in->address == addr;
		(*n)++;
		if (past++ >= after)
			break;
	}
	cs_free(in, 1);
	return found ? 0 : -EINVAL;
}

int insn_listing(const char *path, uint64_t addr, uint64_t func_start, int before, int after,
		 struct insn_line **out, size_t *n, struct c2c_error *err)
{
	struct section_bytes sec;
	GElf_Ehdr eh;
	Elf *elf = NULL;
	csh cs = 0;
	int fd, r;

	*out = NULL;
	*n = 0;
	if (before < 0)
		before = 0;
	if (before > 64)
		before = 64;
	if (after < 0)
		after = 0;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return c2c_error_set(err, -EINVAL, "libelf: %s", elf_errmsg(-1));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return c2c_error_set(err, -errno, "%s: %s", path, strerror(errno));
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || !gelf_getehdr(elf, &eh)) {
		r = c2c_error_set(err, -EINVAL, "%s: not an ELF file", path);
		goto out;
	}
	if (eh.e_machine == EM_X86_64)
		r = cs_open(CS_ARCH_X86, CS_MODE_64, &cs) == CS_ERR_OK ? 0 : -EINVAL;
	else if (eh.e_machine == EM_AARCH64)
		r = cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &cs) == CS_ERR_OK ? 0 : -EINVAL;
	else
		r = -ENOTSUP;
	if (r < 0) {
		c2c_error_set(err, r, "%s: no instruction decoding for machine %d", path, eh.e_machine);
		goto out;
	}
	if (eh.e_machine == EM_X86_64)
		cs_option(cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	if ((r = find_section(elf, addr, &sec)) < 0) {
		c2c_error_set(err, r, "%s: no executable section holds 0x%llx", path, (unsigned long long)addr);
		goto out;
	}
	*out = calloc((size_t)before + (size_t)after + 1, sizeof(**out));
	if (!*out) {
		r = c2c_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	/* From the function's start when it is known and in the same section. */
	/* A known start that does not reach addr on an instruction boundary
	 * means the symbol or the address is wrong: say so rather than list
	 * bytes decoded from the middle of an instruction. */
	if (func_start && func_start <= addr && func_start >= sec.start && addr - func_start <= MAX_FORWARD) {
		if ((r = decode(cs, &sec, func_start, addr, before, after, *out, n)) < 0)
			c2c_error_set(err, r, "0x%llx is inside an instruction decoded from the function's start 0x%llx",
				      (unsigned long long)addr, (unsigned long long)func_start);
	} else if ((r = decode(cs, &sec, addr, addr, 0, after, *out, n)) < 0) {
		c2c_error_set(err, r, "%s: 0x%llx does not decode", path, (unsigned long long)addr);
	}
	if (r < 0) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
out:
	if (cs)
		cs_close(&cs);
	if (elf)
		elf_end(elf);
	close(fd);
	return r;
}
