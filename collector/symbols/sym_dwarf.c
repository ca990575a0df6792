/* Source lines of one binary from its DWARF (in the file itself or in its
 * separate debug file), through an index of compile-unit address ranges:
 * a lookup is a binary search plus one libdw line-table search. Opened on
 * first use; the Dwarf is kept for the types code (sym_dso_dwarf).
 * A relocatable file (a kernel module) has DWARF whose addresses and
 * strings are only right once its relocations are applied: libdwfl does
 * that (dwfl_report_offline), laying the sections out at addresses of its
 * own, so a file offset is looked up through its section's new address. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>

#include "collector/symbols/sym_priv.h"

struct sym_cu_range {
	uint64_t lo, hi;
	Dwarf_Off die_off;
};

void sym_dwarf_fini(struct sym_dwarf *w)
{
	if (w->dwfl)
		dwfl_end(w->dwfl);
	else if (w->dw)
		dwarf_end(w->dw);
	free(w->cus);
	*w = (struct sym_dwarf){ 0 };
}

static int cu_cmp(const void *a, const void *b)
{
	const struct sym_cu_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Index of the address ranges of the compile units (DW_AT_low_pc/high_pc
 * or DW_AT_ranges; no need for .debug_aranges, which newer compilers
 * leave out). */
static void dwarf_index(struct sym_dwarf *w)
{
	size_t cap = 0;
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	uint8_t unit_type;
	Dwarf_Die cudie, subdie;
	while (dwarf_get_units(w->dw, cu, &next, &version, &unit_type, &cudie, &subdie) == 0) {
		cu = next;
		if (unit_type != DW_UT_compile && unit_type != DW_UT_skeleton)
			continue;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0) {
			if (hi <= lo)
				continue;
			if (w->ncus == cap) {
				size_t nc = cap ? cap * 2 : 64;
				struct sym_cu_range *nv = realloc(w->cus, nc * sizeof(*nv));
				if (!nv)
					goto out;
				w->cus = nv;
				cap = nc;
			}
			w->cus[w->ncus++] = (struct sym_cu_range){ lo, hi, dwarf_dieoffset(&cudie) };
		}
	}
out:
	if (w->ncus)
		qsort(w->cus, w->ncus, sizeof(*w->cus), cu_cmp);
}

Dwarf *sym_dwarf_get(struct sym_dwarf *w, Elf *elf, Elf *dbg_elf)
{
	if (w->tried)
		return w->dw;
	w->tried = true;
	/* The binary's own DWARF, unless it has no compile unit with code
	 * (stripped to a few .debug_* sections): then the debug file's. */
	Elf *cands[2] = { elf, dbg_elf };
	for (int i = 0; i < 2 && !w->ncus; i++) {
		if (!cands[i])
			continue;
		Dwarf *dw = dwarf_begin_elf(cands[i], DWARF_C_READ, NULL);
		if (!dw)
			continue;
		if (w->dw) {
			sym_dwarf_fini(w);
			w->tried = true;
		}
		w->dw = dw;
		dwarf_index(w);
	}
	return w->dw;
}

static bool dwarf_cu_for(struct sym_dwarf *w, uint64_t vaddr, Dwarf_Die *cudie)
{
	size_t lo = 0, hi = w->ncus;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (w->cus[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Ranges of different CUs do not overlap in sane DWARF, but walk a few
	 * back in case one CU's range is wide. */
	for (size_t i = lo, steps = 0; i > 0 && steps < 8; i--, steps++) {
		const struct sym_cu_range *r = &w->cus[i - 1];
		if (vaddr >= r->lo && vaddr < r->hi)
			return dwarf_offdie(w->dw, r->die_off, cudie) != NULL;
	}
	/* No ranges at all: libdw's own .debug_aranges lookup. */
	return w->ncus == 0 && dwarf_addrdie(w->dw, vaddr, cudie) != NULL;
}

bool sym_dwarf_srcline(struct sym_dwarf *w, Elf *elf, Elf *dbg_elf, uint64_t vaddr,
		       const char **file, unsigned *line)
{
	if (!sym_dwarf_get(w, elf, dbg_elf))
		return false;
	Dwarf_Die cudie;
	if (!dwarf_cu_for(w, vaddr, &cudie))
		return false;
	Dwarf_Line *l = dwarf_getsrc_die(&cudie, vaddr);
	if (!l)
		return false;
	int ln;
	const char *f = dwarf_linesrc(l, NULL, NULL);
	if (!f || dwarf_lineno(l, &ln) != 0 || ln <= 0)
		return false;
	*file = f;
	*line = (unsigned)ln;
	return true;
}

/* No separate debug file search by libdwfl: the dso found its own. */
static int rel_no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			    const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			    char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks rel_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = rel_no_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* Reports the file at fd (dup'ed) to a new Dwfl; keeps it when it has
 * compile units with code. */
static bool rel_open(struct sym_dwarf *w, int fd)
{
	int dfd = fd >= 0 ? dup(fd) : -1;
	if (dfd < 0)
		return false;
	Dwfl *dwfl = dwfl_begin(&rel_callbacks);
	if (!dwfl) {
		close(dfd);
		return false;
	}
	/* dwfl owns dfd from here, even on failure. */
	Dwfl_Module *mod = dwfl_report_offline(dwfl, "kmod", "kmod", dfd);
	Dwarf_Addr bias = 0, ebias = 0;
	Dwarf *dw = NULL;
	Elf *elf = NULL;
	if (mod && dwfl_report_end(dwfl, NULL, NULL) == 0) {
		dw = dwfl_module_getdwarf(mod, &bias);
		elf = dwfl_module_getelf(mod, &ebias);
	}
	if (!dw || !elf) {
		dwfl_end(dwfl);
		return false;
	}
	w->dwfl = dwfl;
	w->dw = dw;
	w->rel_elf = elf;
	w->rel_bias = bias;
	dwarf_index(w);
	if (w->ncus)
		return true;
	sym_dwarf_fini(w);
	w->tried = true;
	return false;
}

/* Section index + offset -> the address libdwfl gave it: the section's
 * laid-out sh_addr (kept in dwfl's in-memory section headers). By index,
 * which a debug file made by objcopy keeps. */
static bool rel_sec_to_addr(Elf *elf, size_t shndx, uint64_t secoff, uint64_t *addr)
{
	Elf_Scn *scn = elf_getscn(elf, shndx);
	GElf_Shdr sh;
	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || secoff >= sh.sh_size)
		return false;
	*addr = sh.sh_addr + secoff;
	return true;
}

bool sym_dwarf_srcline_rel(struct sym_dwarf *w, int fd, int dbg_fd, size_t shndx, uint64_t secoff,
			   const char **file, unsigned *line)
{
	if (!w->tried) {
		w->tried = true;
		if (!rel_open(w, fd))
			rel_open(w, dbg_fd);
	}
	uint64_t addr;
	if (!w->dwfl || !rel_sec_to_addr(w->rel_elf, shndx, secoff, &addr))
		return false;
	Dwarf_Die cudie;
	addr -= w->rel_bias;
	if (!dwarf_cu_for(w, addr, &cudie))
		return false;
	Dwarf_Line *l = dwarf_getsrc_die(&cudie, addr);
	int ln;
	const char *f = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
	if (!f || dwarf_lineno(l, &ln) != 0 || ln <= 0)
		return false;
	*file = f;
	*line = (unsigned)ln;
	return true;
}
