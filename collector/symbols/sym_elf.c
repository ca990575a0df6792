/* One user-space binary (a "dso"): found on disk (under --symfs, or in
 * perf's build-id cache), checked against the recorded build-id, its
 * separate debug file found (build-id or .gnu_debuglink), its PT_LOAD
 * headers (file offset -> ELF vaddr), its symbols as perf loads them
 * (sorted, binary search). Code answers (with source lines from
 * sym_dwarf.c) are cached per address. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/symbols/sym_priv.h"

struct dsym {
	uint64_t start, end;     /* [start, end): st_size, or up to the next symbol */
	uint64_t size;           /* st_size as recorded (0 for labels) */
	const char *name;        /* in the ELF string table (kept mapped) or names[] */
	uint32_t idx;            /* order read, perf's tie-break */
	uint8_t bind;            /* STB_* */
};

struct dsym_tab {
	struct dsym *v;
	size_t n;
};

struct load_seg {
	uint64_t off, filesz, vaddr, memsz;
};

struct code_cache_ent {
	uint64_t vaddr;          /* key; valid when used */
	bool used, has_func, has_line;
	const char *func;
	uint64_t func_start;
	const char *file;
	unsigned line;
};

struct sym_dso {
	char *path;              /* as recorded */
	uint8_t bid[20];
	size_t bid_size;         /* 0: none recorded */
	uint64_t bias;

	bool loaded;
	int status;              /* enum sym_status, valid once loaded */
	char *file;              /* what was opened */
	int fd, dbg_fd;
	Elf *elf, *dbg_elf;      /* dbg_elf: separate debug file, may be NULL */
	uint16_t e_type;

	struct load_seg *loads;
	size_t nloads;
	struct dsym_tab syms;    /* functions and objects together, as perf */

	struct sym_dwarf dwarf;

	struct code_cache_ent *cache;
	size_t cache_cap, cache_n;

	char **names;            /* synthesized names (PLT entries), owned */
	size_t nnames;
};

struct sym_dso *sym_dso_new(const char *path, const uint8_t *build_id, size_t bid_size)
{
	struct sym_dso *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->path = strdup(path);
	if (!d->path) {
		free(d);
		return NULL;
	}
	d->fd = d->dbg_fd = -1;
	d->status = SYM_NO_FILE;     /* until sym_dso_load says otherwise */
	sym_dso_set_build_id(d, build_id, bid_size);
	return d;
}

void sym_dso_free(struct sym_dso *d)
{
	if (!d)
		return;
	sym_dwarf_fini(&d->dwarf);
	if (d->dbg_elf)
		elf_end(d->dbg_elf);
	if (d->elf)
		elf_end(d->elf);
	if (d->dbg_fd >= 0)
		close(d->dbg_fd);
	if (d->fd >= 0)
		close(d->fd);
	free(d->syms.v);
	free(d->loads);
	free(d->cache);
	for (size_t i = 0; i < d->nnames; i++)
		free(d->names[i]);
	free(d->names);
	free(d->file);
	free(d->path);
	free(d);
}

void sym_dso_set_build_id(struct sym_dso *d, const uint8_t *build_id, size_t size)
{
	if (!build_id || size == 0 || d->loaded)
		return;
	if (size > sizeof(d->bid))
		size = sizeof(d->bid);
	memcpy(d->bid, build_id, size);
	d->bid_size = size;
}

const uint8_t *sym_dso_build_id(const struct sym_dso *d, size_t *size)
{
	*size = d->bid_size;
	return d->bid_size ? d->bid : NULL;
}

bool sym_dso_matches(const struct sym_dso *d, const char *path,
		     const uint8_t *build_id, size_t bid_size)
{
	if (strcmp(d->path, path) != 0)
		return false;
	if (bid_size > sizeof(d->bid))
		bid_size = sizeof(d->bid);
	if (bid_size != d->bid_size)
		return false;
	return bid_size == 0 || memcmp(d->bid, build_id, bid_size) == 0;
}

/* ---- opening ----------------------------------------------------------- */

/* The NT_GNU_BUILD_ID note of an ELF (from sections, else segments). */
static size_t elf_build_id(Elf *elf, uint8_t out[20])
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;
		while (data && (off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((char *)data->d_buf + noff, "GNU", 4) == 0 && nh.n_descsz > 0) {
				size_t n = nh.n_descsz > 20 ? 20 : nh.n_descsz;
				memcpy(out, (char *)data->d_buf + doff, n);
				return n;
			}
		}
	}
	size_t phnum;
	if (elf_getphdrnum(elf, &phnum) != 0)
		return 0;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		Elf_Data *data = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
						      ELF_T_NHDR);
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;
		while (data && (off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((char *)data->d_buf + noff, "GNU", 4) == 0 && nh.n_descsz > 0) {
				size_t n = nh.n_descsz > 20 ? 20 : nh.n_descsz;
				memcpy(out, (char *)data->d_buf + doff, n);
				return n;
			}
		}
	}
	return 0;
}

static Elf *elf_open_path(const char *path, int *fdp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return NULL;
	}
	*fdp = fd;
	return elf;
}

static void bid_hex(const uint8_t *bid, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", bid[i]);
	out[2 * n] = '\0';
}

/* Candidate files for the binary: the recorded path under symfs, then
 * perf's build-id cache (~/.debug/.build-id/xx/rest/elf). The first whose
 * build-id agrees wins; a file with no build-id note is accepted. */
static void dso_open(struct sym_dso *d, const struct sym_elf_opts *o)
{
	char cands[3][4096];
	size_t nc = 0;
	bool mismatch = false;
	static const char deleted[] = " (deleted)";
	size_t plen = strlen(d->path), dlen = sizeof(deleted) - 1;

	if (d->path[0] == '/')
		snprintf(cands[nc++], sizeof(cands[0]), "%s%s", o->symfs ? o->symfs : "", d->path);
	/* A binary replaced after it was mapped: the new file is only right
	 * if its build-id agrees, which the check below decides. */
	if (plen > dlen && strcmp(d->path + plen - dlen, deleted) == 0)
		snprintf(cands[nc++], sizeof(cands[0]), "%s%.*s", o->symfs ? o->symfs : "",
			 (int)(plen - dlen), d->path);
	const char *home = getenv("HOME");
	if (d->bid_size && home && *home) {
		char hex[41];
		bid_hex(d->bid, d->bid_size, hex);
		snprintf(cands[nc++], sizeof(cands[0]), "%s/.debug/.build-id/%.2s/%s/elf",
			 home, hex, hex + 2);
	}
	for (size_t i = 0; i < nc; i++) {
		int fd;
		Elf *elf = elf_open_path(cands[i], &fd);
		if (!elf)
			continue;
		if (d->bid_size) {
			uint8_t fb[20];
			size_t fn = elf_build_id(elf, fb);
			if (fn && (fn < d->bid_size || memcmp(fb, d->bid, d->bid_size) != 0)) {
				mismatch = true;
				elf_end(elf);
				close(fd);
				continue;
			}
		}
		d->elf = elf;
		d->fd = fd;
		d->file = strdup(cands[i]);
		d->status = d->file ? SYM_OK : SYM_NO_FILE;
		return;
	}
	d->status = mismatch ? SYM_BUILD_ID_MISMATCH : SYM_NO_FILE;
}

static Elf_Scn *section_named(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh))
			continue;
		const char *n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

/* A section with contents (not NOBITS, as in debug files) of that name. */
static bool elf_has_section(Elf *elf, const char *name, Elf_Scn **out)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_named(elf, name, &sh);
	if (!scn || sh.sh_type == SHT_NOBITS)
		return false;
	if (out)
		*out = scn;
	return true;
}

static bool try_debug_file(struct sym_dso *d, const char *path, const uint8_t *bid, size_t bn)
{
	int fd;
	Elf *elf = elf_open_path(path, &fd);
	if (!elf)
		return false;
	if (bn) {
		uint8_t fb[20];
		size_t fn = elf_build_id(elf, fb);
		if (fn && (fn != bn || memcmp(fb, bid, bn) != 0)) {
			elf_end(elf);
			close(fd);
			return false;
		}
	}
	d->dbg_elf = elf;
	d->dbg_fd = fd;
	return true;
}

/* Separate debug info: DIR/.build-id/xx/rest.debug, then the
 * .gnu_debuglink name next to the file, in .debug/, and under DIR. */
static void dso_find_debug(struct sym_dso *d, const struct sym_elf_opts *o)
{
	uint8_t bid[20];
	size_t bn = elf_build_id(d->elf, bid);
	char p[4096];

	if (bn) {
		char hex[41];
		bid_hex(bid, bn, hex);
		for (size_t i = 0; o->debug_dirs && o->debug_dirs[i]; i++) {
			snprintf(p, sizeof(p), "%s%s/.build-id/%.2s/%s.debug",
				 o->symfs ? o->symfs : "", o->debug_dirs[i], hex, hex + 2);
			if (try_debug_file(d, p, bid, bn))
				return;
		}
	}
	Elf_Scn *scn;
	if (!elf_has_section(d->elf, ".gnu_debuglink", &scn))
		return;
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || data->d_size < 2 || !memchr(data->d_buf, '\0', data->d_size))
		return;
	const char *link = data->d_buf;
	char dirbuf[4096];
	snprintf(dirbuf, sizeof(dirbuf), "%s", d->file);
	const char *fdir = dirname(dirbuf);
	char rdirbuf[4096];
	snprintf(rdirbuf, sizeof(rdirbuf), "%s", d->path);
	const char *rdir = dirname(rdirbuf);

	snprintf(p, sizeof(p), "%s/%s", fdir, link);
	if (strcmp(p, d->file) != 0 && try_debug_file(d, p, bid, bn))
		return;
	snprintf(p, sizeof(p), "%s/.debug/%s", fdir, link);
	if (try_debug_file(d, p, bid, bn))
		return;
	for (size_t i = 0; o->debug_dirs && o->debug_dirs[i]; i++) {
		snprintf(p, sizeof(p), "%s%s%s/%s", o->symfs ? o->symfs : "",
			 o->debug_dirs[i], rdir, link);
		if (try_debug_file(d, p, bid, bn))
			return;
	}
}

/* ---- symbols ------------------------------------------------------------ */

static unsigned leading_underscores(const char *n)
{
	unsigned k = 0;
	while (n[k] == '_')
		k++;
	return k;
}

/* perf's choose_best_symbol() between two symbols at one address, on the
 * lengths after the end fixup: a sized one, then not weak, then global,
 * then fewer leading underscores, then the longer name; a full tie keeps
 * the first. True when x wins. */
static bool dsym_better(const struct dsym *x, const struct dsym *y)
{
	bool xs = x->end > x->start, ys = y->end > y->start;
	if (xs != ys)
		return xs;
	if ((x->bind == STB_WEAK) != (y->bind == STB_WEAK))
		return y->bind == STB_WEAK;
	if ((x->bind == STB_GLOBAL) != (y->bind == STB_GLOBAL))
		return x->bind == STB_GLOBAL;
	unsigned ux = leading_underscores(x->name), uy = leading_underscores(y->name);
	if (ux != uy)
		return ux < uy;
	return strlen(x->name) >= strlen(y->name);
}

/* By address, then in the order read (perf's rbtree puts equal starts
 * after the ones already there). */
static int dsym_cmp(const void *a, const void *b)
{
	const struct dsym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* perf's symbols__fixup_end then symbols__fixup_duplicate: a symbol without
 * size ends where the next one (in order) starts — so every alias but the
 * last at one address stays empty — and the last one a page past its page;
 * then of the symbols at one address only the best survives. */
static void tab_finish(struct dsym_tab *t)
{
	if (t->n == 0)
		return;
	qsort(t->v, t->n, sizeof(*t->v), dsym_cmp);
	for (size_t i = 0; i < t->n; i++) {
		struct dsym *x = &t->v[i];
		if (x->size)
			x->end = x->start + x->size;
		else if (i + 1 < t->n)
			x->end = t->v[i + 1].start;
		else
			x->end = ((x->start + 4095) & ~(uint64_t)4095) + 4096;
	}
	size_t k = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (k > 0 && t->v[k - 1].start == t->v[i].start) {
			if (!dsym_better(&t->v[k - 1], &t->v[i]))
				t->v[k - 1] = t->v[i];
			continue;
		}
		t->v[k++] = t->v[i];
	}
	t->n = k;
}

static int tab_push(struct dsym_tab *t, size_t *cap, const struct dsym *s)
{
	if (t->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		struct dsym *nv = realloc(t->v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		t->v = nv;
		*cap = nc;
	}
	t->v[t->n++] = *s;
	return 0;
}

/* Reads SHT_SYMTAB (else SHT_DYNSYM when want_dyn) of one ELF. Returns the
 * number of symbols read. */
static size_t dso_read_symtab(struct sym_dso *d, Elf *elf, Elf64_Word type, size_t *cap)
{
	size_t count = 0;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || sh.sh_entsize == 0)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		size_t n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 1; i < n; i++) {
			GElf_Sym s;
			if (!gelf_getsym(data, (int)i, &s))
				continue;
			unsigned st = GELF_ST_TYPE(s.st_info);
			bool func = st == STT_FUNC || st == STT_GNU_IFUNC;
			/* Labels in code (_start in ld.so, asm entry points) count as
			 * functions, as in perf's dso__load_sym. */
			if (st == STT_NOTYPE && s.st_shndx != SHN_UNDEF && s.st_shndx < SHN_LORESERVE) {
				GElf_Shdr tsh;
				Elf_Scn *ts = elf_getscn(elf, s.st_shndx);
				func = ts && gelf_getshdr(ts, &tsh) && (tsh.sh_flags & SHF_EXECINSTR);
			}
			/* TLS symbols hold offsets in the TLS block, not addresses. */
			bool obj = st == STT_OBJECT || st == STT_COMMON;
			if (!func && !obj)
				continue;
			if (d->e_type == ET_REL) {
				/* A .ko: values are section-relative. perf
				 * (dso__process_kernel_symbol) makes them file
				 * offsets, st_value + the section's sh_offset; a
				 * first function at 0 counts. */
				GElf_Shdr ssh;
				Elf_Scn *ss = s.st_shndx != SHN_UNDEF && s.st_shndx < SHN_LORESERVE ?
					elf_getscn(elf, s.st_shndx) : NULL;
				if (!ss || !gelf_getshdr(ss, &ssh) || !(ssh.sh_flags & SHF_ALLOC))
					continue;
				s.st_value += ssh.sh_offset;
			} else if (s.st_shndx == SHN_UNDEF || s.st_value == 0) {
				continue;
			}
			const char *name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name || !*name)
				continue;
			struct dsym ds = {
				.start = s.st_value,
				.size = s.st_size,
				.name = name,
				.idx = (uint32_t)d->syms.n,
				.bind = (uint8_t)GELF_ST_BIND(s.st_info),
			};
			if (tab_push(&d->syms, cap, &ds) < 0)
				return count;
			count++;
		}
	}
	return count;
}

static const char *dso_keep_name(struct sym_dso *d, const char *name)
{
	char **nv = realloc(d->names, (d->nnames + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	d->names = nv;
	char *copy = strdup(name);
	if (copy)
		d->names[d->nnames++] = copy;
	return copy;
}

/* PLT entries have no symbols; like perf, name them "target@plt" from the
 * PLT relocations, in order (x86: 16-byte entries, after a 16-byte header
 * in a lazy .plt, or in .plt.sec without one). Always from the binary
 * itself: debug files carry the PLT as NOBITS. */
static void dso_synth_plt(struct sym_dso *d, size_t *cap)
{
	GElf_Ehdr eh;
	GElf_Shdr plt, sec, rel, dsh;
	if (!gelf_getehdr(d->elf, &eh) || (eh.e_machine != EM_X86_64 && eh.e_machine != EM_386))
		return;
	if (!section_named(d->elf, ".plt", &plt) || plt.sh_type == SHT_NOBITS)
		return;
	Elf_Scn *rs = section_named(d->elf, ".rela.plt", &rel);
	if (!rs)
		rs = section_named(d->elf, ".rel.plt", &rel);
	if (!rs || (rel.sh_type != SHT_RELA && rel.sh_type != SHT_REL) || !rel.sh_link ||
	    rel.sh_entsize == 0)
		return;
	Elf_Scn *ds = elf_getscn(d->elf, rel.sh_link);
	Elf_Data *rdata = elf_getdata(rs, NULL), *sdata = ds ? elf_getdata(ds, NULL) : NULL;
	if (!rdata || !sdata || !gelf_getshdr(ds, &dsh))
		return;
	uint64_t first, esize = 16;
	if (section_named(d->elf, ".plt.sec", &sec) && sec.sh_type != SHT_NOBITS)
		first = sec.sh_addr;
	else
		first = plt.sh_addr + 16;
	size_t n = rel.sh_size / rel.sh_entsize;
	for (size_t i = 0; i < n; i++) {
		uint64_t info;
		if (rel.sh_type == SHT_RELA) {
			GElf_Rela r;
			if (!gelf_getrela(rdata, (int)i, &r))
				continue;
			info = r.r_info;
		} else {
			GElf_Rel r;
			if (!gelf_getrel(rdata, (int)i, &r))
				continue;
			info = r.r_info;
		}
		size_t si = eh.e_ident[EI_CLASS] == ELFCLASS64 ? GELF_R_SYM(info) : ELF32_R_SYM(info);
		GElf_Sym sym;
		const char *target = "";
		if (si && gelf_getsym(sdata, (int)si, &sym))
			target = elf_strptr(d->elf, dsh.sh_link, sym.st_name);
		char buf[512];
		snprintf(buf, sizeof(buf), "%s@plt", target ? target : "");
		struct dsym ds_ = {
			.start = first + i * esize, .end = first + (i + 1) * esize, .size = esize,
			.bind = STB_GLOBAL, .idx = (uint32_t)d->syms.n, .name = dso_keep_name(d, buf),
		};
		if (!ds_.name || tab_push(&d->syms, cap, &ds_) < 0)
			return;
	}
}

/* Symbols as perf loads them: .symtab, else the debug file's, else
 * .dynsym; end and alias fixups; then the PLT entries (sized, so they
 * take no part in the fixups; a symbol stretched over the PLT is cut). */
static void dso_read_symbols(struct sym_dso *d)
{
	size_t cap = 0;
	if (dso_read_symtab(d, d->elf, SHT_SYMTAB, &cap) == 0) {
		if (!d->dbg_elf || dso_read_symtab(d, d->dbg_elf, SHT_SYMTAB, &cap) == 0)
			dso_read_symtab(d, d->elf, SHT_DYNSYM, &cap);
	}
	tab_finish(&d->syms);
	size_t before = d->syms.n;
	dso_synth_plt(d, &cap);
	if (d->syms.n == before)
		return;
	uint64_t plt = d->syms.v[before].start;
	for (size_t i = 0; i < before; i++)
		if (d->syms.v[i].start < plt && d->syms.v[i].end > plt)
			d->syms.v[i].end = plt;
	qsort(d->syms.v, d->syms.n, sizeof(*d->syms.v), dsym_cmp);
}

static void dso_read_loads(struct sym_dso *d)
{
	GElf_Ehdr eh;
	if (gelf_getehdr(d->elf, &eh))
		d->e_type = eh.e_type;
	size_t phnum;
	if (elf_getphdrnum(d->elf, &phnum) != 0 || phnum == 0)
		return;
	d->loads = calloc(phnum, sizeof(*d->loads));
	if (!d->loads)
		return;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(d->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		d->loads[d->nloads++] = (struct load_seg){
			.off = ph.p_offset, .filesz = ph.p_filesz,
			.vaddr = ph.p_vaddr, .memsz = ph.p_memsz,
		};
	}
}

void sym_dso_load(struct sym_dso *d, const struct sym_elf_opts *o)
{
	if (d->loaded)
		return;
	d->loaded = true;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		d->status = SYM_NO_FILE;
		return;
	}
	dso_open(d, o);
	if (d->status != SYM_OK)
		return;
	dso_read_loads(d);
	if (!elf_has_section(d->elf, ".debug_info", NULL) || !elf_has_section(d->elf, ".symtab", NULL))
		dso_find_debug(d, o);
	dso_read_symbols(d);
}

/* ---- lookups ------------------------------------------------------------ */

bool sym_dso_off_to_vaddr(struct sym_dso *d, uint64_t off, uint64_t *vaddr)
{
	if (d->status != SYM_OK)
		return false;
	/* Exact file contents first, then the page-aligned start and the
	 * memory-only tail (.bss) of a segment. */
	for (size_t i = 0; i < d->nloads; i++) {
		const struct load_seg *s = &d->loads[i];
		if (off >= s->off && off < s->off + s->filesz) {
			*vaddr = off - s->off + s->vaddr;
			return true;
		}
	}
	for (size_t i = 0; i < d->nloads; i++) {
		const struct load_seg *s = &d->loads[i];
		uint64_t lo = s->off & ~(uint64_t)0xfff;
		uint64_t hi = s->off + (s->memsz > s->filesz ? s->memsz : s->filesz);
		if (off >= lo && off < hi) {
			*vaddr = off - s->off + s->vaddr;
			return true;
		}
	}
	return false;
}

static const struct dsym *tab_find(const struct dsym_tab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && addr < t->v[lo - 1].end ? &t->v[lo - 1] : NULL;
}

bool sym_dso_object(struct sym_dso *d, uint64_t vaddr, const char **name,
		    uint64_t *start, uint64_t *size)
{
	if (d->status != SYM_OK)
		return false;
	const struct dsym *s = tab_find(&d->syms, vaddr);
	if (!s)
		return false;
	*name = s->name;
	*start = s->start;
	*size = s->size;
	return true;
}

static size_t cache_hash(uint64_t v, size_t cap)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	return (size_t)v & (cap - 1);
}

static struct code_cache_ent *cache_slot(struct sym_dso *d, uint64_t vaddr)
{
	if ((d->cache_n + 1) * 2 > d->cache_cap) {
		size_t nc = d->cache_cap ? d->cache_cap * 2 : 1024;
		struct code_cache_ent *nv = calloc(nc, sizeof(*nv));
		if (!nv)
			return NULL;
		for (size_t i = 0; i < d->cache_cap; i++) {
			if (!d->cache[i].used)
				continue;
			size_t j = cache_hash(d->cache[i].vaddr, nc);
			while (nv[j].used)
				j = (j + 1) & (nc - 1);
			nv[j] = d->cache[i];
		}
		free(d->cache);
		d->cache = nv;
		d->cache_cap = nc;
	}
	size_t j = cache_hash(vaddr, d->cache_cap);
	while (d->cache[j].used && d->cache[j].vaddr != vaddr)
		j = (j + 1) & (d->cache_cap - 1);
	return &d->cache[j];
}

/* The allocated section (with contents) holding file offset off of a
 * relocatable file, and the offset in it. */
static bool rel_section_of(Elf *elf, uint64_t off, size_t *shndx, uint64_t *secoff)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || sh.sh_type == SHT_NOBITS)
			continue;
		if (off >= sh.sh_offset && off < sh.sh_offset + sh.sh_size) {
			*shndx = elf_ndxscn(scn);
			*secoff = off - sh.sh_offset;
			return true;
		}
	}
	return false;
}

/* For a relocatable file (a .ko) the "vaddr" of lookups is a file offset,
 * as perf makes its symbols (see dso_read_symtab). */
static struct code_cache_ent *dso_code(struct sym_dso *d, uint64_t vaddr)
{
	struct code_cache_ent *e = cache_slot(d, vaddr);
	if (!e || e->used)
		return e;
	e->used = true;
	e->vaddr = vaddr;
	d->cache_n++;
	const struct dsym *s = tab_find(&d->syms, vaddr);
	if (s) {
		e->has_func = true;
		e->func = s->name;
		e->func_start = s->start;
	}
	if (d->e_type == ET_REL) {
		size_t shndx;
		uint64_t secoff;
		e->has_line = rel_section_of(d->elf, vaddr, &shndx, &secoff) &&
			      sym_dwarf_srcline_rel(&d->dwarf, d->fd, d->dbg_fd, shndx, secoff, &e->file,
						    &e->line);
	} else {
		e->has_line = sym_dwarf_srcline(&d->dwarf, d->elf, d->dbg_elf, vaddr, &e->file, &e->line);
	}
	return e;
}

bool sym_dso_func(struct sym_dso *d, uint64_t vaddr, const char **name, uint64_t *start)
{
	if (d->status != SYM_OK)
		return false;
	const struct code_cache_ent *e = dso_code(d, vaddr);
	if (!e || !e->has_func)
		return false;
	*name = e->func;
	*start = e->func_start;
	return true;
}

bool sym_dso_srcline(struct sym_dso *d, uint64_t vaddr, const char **file, unsigned *line)
{
	if (d->status != SYM_OK)
		return false;
	const struct code_cache_ent *e = dso_code(d, vaddr);
	if (!e || !e->has_line)
		return false;
	*file = e->file;
	*line = e->line;
	return true;
}

void sym_dso_set_bias(struct sym_dso *d, uint64_t bias)
{
	d->bias = bias;
}

/* ---- public accessors (symbols.h) --------------------------------------- */

const char *sym_dso_path(const struct sym_dso *d)
{
	return d->path;
}

const char *sym_dso_file(struct sym_dso *d)
{
	return d->status == SYM_OK ? d->file : NULL;
}

int sym_dso_status(struct sym_dso *d)
{
	return d->status;
}

Elf *sym_dso_elf(struct sym_dso *d)
{
	return d->status == SYM_OK ? d->elf : NULL;
}

Dwarf *sym_dso_dwarf(struct sym_dso *d)
{
	return d->status == SYM_OK ? sym_dwarf_get(&d->dwarf, d->elf, d->dbg_elf) : NULL;
}

uint64_t sym_dso_bias(const struct sym_dso *d)
{
	return d->bias;
}

/* ---- kernel images (vmlinux, modules) ----------------------------------- */

bool sym_dso_rel_text(struct sym_dso *d, uint64_t *text_off)
{
	GElf_Shdr sh;
	if (d->status != SYM_OK || d->e_type != ET_REL || !section_named(d->elf, ".text", &sh))
		return false;
	*text_off = sh.sh_offset;
	return true;
}

size_t sym_dso_file_build_id(struct sym_dso *d, uint8_t out[20])
{
	return d->status == SYM_OK && d->elf ? elf_build_id(d->elf, out) : 0;
}

bool sym_dso_symbol_value(struct sym_dso *d, const char *name, uint64_t *value)
{
	if (d->status != SYM_OK)
		return false;
	/* The image's own .symtab, else its debug file's (same addresses). */
	Elf *elfs[2] = { d->elf, d->dbg_elf };
	for (size_t e = 0; e < 2; e++) {
		Elf_Scn *scn = NULL;
		while (elfs[e] && (scn = elf_nextscn(elfs[e], scn))) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
				continue;
			Elf_Data *data = elf_getdata(scn, NULL);
			size_t n = data ? data->d_size / sh.sh_entsize : 0;
			for (size_t i = 0; i < n; i++) {
				GElf_Sym s;
				const char *nm;
				if (gelf_getsym(data, (int)i, &s) && s.st_shndx != SHN_UNDEF &&
				    (nm = elf_strptr(elfs[e], sh.sh_link, s.st_name)) && strcmp(nm, name) == 0) {
					*value = s.st_value;
					return true;
				}
			}
		}
	}
	return false;
}
