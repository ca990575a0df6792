/* Private declarations shared by collector/sym_*.c (the symbols module).
 * Nothing outside sym_*.c includes this; the public API is symbols.h. */
#ifndef C2C_SYM_PRIV_H
#define C2C_SYM_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdwfl.h>

#include "collector/symbols/symbols.h"

/* ---- string interning (sym_intern.c) ---------------------------------- */

/* Owns every string it returns; equal strings give the same pointer, so
 * maps copied between processes never copy their names. */
struct sym_intern;
struct sym_intern *sym_intern_new(void);
void sym_intern_free(struct sym_intern *in);
const char *sym_intern_str(struct sym_intern *in, const char *s);

/* ---- maps of one address space (sym_maps.c) --------------------------- */

struct sym_map {
	uint64_t start, end;     /* [start, end) */
	uint64_t pgoff;          /* file offset of start */
	const char *name;        /* interned */
	struct sym_dso *dso;     /* the file (and its build-id); NULL when not
	                            file-backed, or a kernel map without build-id */
	uint32_t prot, flags;
	/* perf's dso id (maj, min, ino, ino_generation), all 0 for anonymous
	 * memory and kernel maps: the c2c line identity (c2c_lineid.h). */
	uint32_t maj, min;
	uint64_t ino, ino_generation;
};

/* A sorted array of maps. User maps never overlap (inserting replaces the
 * overlapped parts); the kernel maps may (perf inserts modules without
 * fixing overlaps), which the lookup copes with through max_end. Shared
 * between the threads of one process by reference count. */
struct sym_maps {
	unsigned refs;
	bool allow_overlap;
	struct sym_map *v;
	uint64_t *max_end;       /* max(v[0..i].end), kept when allow_overlap */
	size_t n, cap;
};

struct sym_maps *sym_maps_new(bool allow_overlap);
struct sym_maps *sym_maps_get(struct sym_maps *m);
void sym_maps_put(struct sym_maps *m);
/* Inserts map; with !allow_overlap, older maps' overlapped parts go away
 * (what remains of them keeps a pgoff adjusted to its new start). */
int sym_maps_insert(struct sym_maps *m, const struct sym_map *map);
/* Removes every map whose start and name equal (the kernel map update). */
void sym_maps_remove_named(struct sym_maps *m, const char *name);
/* The map covering addr, or NULL. O(log n) (plus the overlap walk-back). */
const struct sym_map *sym_maps_find(const struct sym_maps *m, uint64_t addr);
/* The map just below map in address order (NULL if first). */
const struct sym_map *sym_maps_prev(const struct sym_maps *m, const struct sym_map *map);

/* ---- threads (sym_threads.c) ------------------------------------------ */

struct sym_thread {
	int32_t pid, tid;
	bool exited;
	const char *comm;        /* interned, NULL until a COMM */
	struct sym_maps *maps;   /* reference held */
};

struct sym_threads;
struct sym_threads *sym_threads_new(void);
void sym_threads_free(struct sym_threads *t);
struct sym_thread *sym_threads_find(struct sym_threads *t, int32_t tid);
/* perf's machine__findnew_thread(): finds by tid (fixing up an unknown
 * pid), or creates the thread: a leader (or pid -1) gets fresh maps, any
 * other thread shares its leader's (created too if needed). */
struct sym_thread *sym_threads_findnew(struct sym_threads *t, int32_t pid, int32_t tid);
/* Drops the thread with that tid (FORK over an existing tid). */
void sym_threads_remove(struct sym_threads *t, int32_t tid);

/* ---- kernel symbols (sym_kallsyms.c) ---------------------------------- */

struct sym_kallsyms;
/* Parses a kallsyms-format file. NULL when the file cannot be read or
 * holds no usable address (kptr_restrict shows zeros). */
struct sym_kallsyms *sym_kallsyms_load(const char *path);
void sym_kallsyms_free(struct sym_kallsyms *k);
size_t sym_kallsyms_count(const struct sym_kallsyms *k);
/* The symbol containing addr (perf's ends and alias choice, see
 * sym_kallsyms.c) when it is code (t/T/w/W): name, start, module (NULL for
 * vmlinux). Returns false when none. */
bool sym_kallsyms_text(const struct sym_kallsyms *k, uint64_t addr,
		       const char **name, uint64_t *start, const char **module);
/* The data symbol (d/D/b/B/r/R/v/V) containing addr, within KSYM_DATA_MAX
 * of its start (see sym_kallsyms.c), for data addresses such as lock
 * addresses; never a function, however near. Returns false when none. */
bool sym_kallsyms_data(const struct sym_kallsyms *k, uint64_t addr,
		       const char **name, uint64_t *start, const char **module);

/* ---- kernel image (sym_vmlinux.c) ------------------------------------- */

struct sym_dso;
struct sym_elf_opts;
struct sym_vmlinux;
/* given: the -k/--vmlinux file, absolute as it is, relative under symfs
 * (perf's rule) (NULL: search perf's places by build-id, under symfs);
 * osrelease: the recording's release for those places. NULL on ENOMEM. */
struct sym_vmlinux *sym_vmlinux_new(const char *given, const char *symfs, const char *osrelease);
void sym_vmlinux_free(struct sym_vmlinux *v);
/* The image (opened once): the given file unless its build-id note differs
 * from bid, else a found file whose note equals bid. NULL when none. */
struct sym_dso *sym_vmlinux_get(struct sym_vmlinux *v, const struct sym_elf_opts *o,
				const uint8_t *bid, size_t bn);
/* enum sym_status of the given file once sym_vmlinux_get ran, its path. */
int sym_vmlinux_given_status(const struct sym_vmlinux *v);
const char *sym_vmlinux_given(const struct sym_vmlinux *v);
/* The file of the image opened (as read: under symfs), NULL when none. */
const char *sym_vmlinux_path(const struct sym_vmlinux *v);
/* The image sym_vmlinux_get opened, without trying to open one. */
struct sym_dso *sym_vmlinux_opened(const struct sym_vmlinux *v);
/* KASLR: the run-time address of the kernel map's reference symbol
 * (ref_addr, the pgoff of "[kernel.kallsyms]REF") minus REF's value in the
 * image. False (shift 0) when the image has no such symbol. */
bool sym_kaslr_shift(struct sym_dso *img, const char *ref, uint64_t ref_addr, uint64_t *shift);

/* ---- kernel modules (sym_kmod.c) --------------------------------------- */

struct sym_kmods;
/* osrelease: the recording's (NULL or "": this host's), for /lib/modules/R. */
struct sym_kmods *sym_kmods_new(const char *osrelease);
void sym_kmods_free(struct sym_kmods *k);
/* The .ko for a module map (its name as recorded, interned; the recorded
 * build-id, bn 0 when none), searched once per (name, build-id): a
 * relocatable ELF with bid as its build-id note (when bn). NULL when none
 * (or on ENOMEM). */
struct sym_dso *sym_kmods_get(struct sym_kmods *k, const struct sym_elf_opts *o, const char *map_name,
			      const uint8_t *bid, size_t bn);
/* The i-th module (in first-lookup order) with no file used but one
 * refused for its build-id: map name and that file. False past the last. */
bool sym_kmods_refused(const struct sym_kmods *k, size_t i, const char **map_name, const char **file);

/* ---- DWARF of one binary (sym_dwarf.c) -------------------------------- */

/* Embedded in a dso (zero-initialized; sym_dwarf_fini releases). */
struct sym_cu_range;
struct sym_dwarf {
	bool tried;
	Dwarf *dw;               /* owned unless dwfl is set (then dwfl's) */
	struct sym_cu_range *cus;
	size_t ncus;
	/* ET_REL (kernel modules): libdwfl lays the sections out and applies
	 * the relocations of the DWARF; dw belongs to it. */
	Dwfl *dwfl;
	Elf *rel_elf;            /* dwfl's copy of the file, with sh_addr set */
	uint64_t rel_bias;       /* dwfl address - DWARF address */
};
void sym_dwarf_fini(struct sym_dwarf *w);
/* Opens (once) the DWARF of elf, else of dbg_elf (may be NULL). */
Dwarf *sym_dwarf_get(struct sym_dwarf *w, Elf *elf, Elf *dbg_elf);
/* Source file (owned by the Dwarf) and line of an ELF vaddr. */
bool sym_dwarf_srcline(struct sym_dwarf *w, Elf *elf, Elf *dbg_elf, uint64_t vaddr,
		       const char **file, unsigned *line);
/* The same for a relocatable file (a .ko): opens (once) its DWARF through
 * libdwfl from fds (the file, else its debug file; -1: none; dup'ed, the
 * callers keep theirs) and looks up an offset in allocated section shndx. */
bool sym_dwarf_srcline_rel(struct sym_dwarf *w, int fd, int dbg_fd, size_t shndx, uint64_t secoff,
			   const char **file, unsigned *line);

/* ---- ELF per binary (sym_elf.c) --------------------------------------- */

struct sym_elf_opts {
	const char *symfs;               /* "" when none */
	const char *const *debug_dirs;   /* NULL-terminated */
};

/* A dso: one binary as recorded (path + build-id when known). Opened
 * lazily on first use; the result (usable or why not) is cached. */
struct sym_dso *sym_dso_new(const char *path, const uint8_t *build_id, size_t bid_size);
void sym_dso_free(struct sym_dso *d);
/* Opens, checks the build-id and reads the symbols, once. */
void sym_dso_load(struct sym_dso *d, const struct sym_elf_opts *o);
bool sym_dso_matches(const struct sym_dso *d, const char *path,
		     const uint8_t *build_id, size_t bid_size);
void sym_dso_set_build_id(struct sym_dso *d, const uint8_t *build_id, size_t size);
const uint8_t *sym_dso_build_id(const struct sym_dso *d, size_t *size);
/* File offset -> ELF vaddr through the PT_LOAD headers (false when no
 * segment holds it). */
bool sym_dso_off_to_vaddr(struct sym_dso *d, uint64_t off, uint64_t *vaddr);
/* Function containing vaddr (name owned by the dso). */
bool sym_dso_func(struct sym_dso *d, uint64_t vaddr, const char **name, uint64_t *start);
/* Object symbol containing vaddr; in an executable segment, a function
 * (perf names data addresses in code by their function). */
bool sym_dso_object(struct sym_dso *d, uint64_t vaddr, const char **name,
		    uint64_t *start, uint64_t *size);
/* Source file and line of vaddr from DWARF (file owned by the dso). */
bool sym_dso_srcline(struct sym_dso *d, uint64_t vaddr, const char **file, unsigned *line);
void sym_dso_set_bias(struct sym_dso *d, uint64_t bias);
/* The build-id note of the file opened (0: none, or not opened). */
size_t sym_dso_file_build_id(struct sym_dso *d, uint8_t out[20]);
/* A relocatable file (a .ko): the file offset of its .text, where perf
 * places a module map's start (its symbols are file offsets, so an ip is
 * ip - map start + this). False for other files. */
bool sym_dso_rel_text(struct sym_dso *d, uint64_t *text_off);
/* The value of the .symtab symbol called name (a vmlinux's "_text"). */
bool sym_dso_symbol_value(struct sym_dso *d, const char *name, uint64_t *value);

#endif /* C2C_SYM_PRIV_H */
