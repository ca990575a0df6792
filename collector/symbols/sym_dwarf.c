/* Source lines of one binary from its DWARF (in the file itself or in its
 * separate debug file), through an index of compile-unit address ranges:
 * a lookup is a binary search plus one libdw line-table search. Opened on
 * first use; the Dwarf is kept for the types code (sym_dso_dwarf). */
#include <stdlib.h>

#include <dwarf.h>

#include "collector/symbols/sym_priv.h"

struct sym_cu_range {
	uint64_t lo, hi;
	Dwarf_Off die_off;
};

void sym_dwarf_fini(struct sym_dwarf *w)
{
	if (w->dw)
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
