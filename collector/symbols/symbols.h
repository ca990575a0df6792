/* Symbols: the process/thread table built from side-band records
 * (MMAP/MMAP2/COMM/FORK/EXIT) and the lookups every sample needs:
 *   - is an address mapped, exactly as perf 6.1 decides it (c2c's
 *     "No Page Map Rejects" count depends on that),
 *   - code address -> dso, build-id, function+offset, source file:line,
 *   - data address -> object symbol+offset, or the map's name
 *     ("[heap]", "[stack]", "//anon", a file).
 * User space is read with libelf/libdw from the mapped files (optionally
 * under a --symfs prefix, checked against the recorded build-id); the
 * kernel from a vmlinux or a kallsyms file, module code from the module's
 * .ko (found by build-id, path or name, checked likewise).
 *
 * Ownership: symtab_new/symtab_free. Every string and pointer a lookup
 * returns (dso paths, symbol names, source files, struct sym_dso) is owned
 * by the symtab and stays valid until symtab_free. Not thread-safe: one
 * symtab per producer thread. Nothing here prints; failures to read a file
 * only leave a status in the result (unresolved addresses stay hex).
 *
 * Implementation: collector/sym_*.c (see docs/symbols.md). */
#ifndef C2C_SYMBOLS_H
#define C2C_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>
#include <gelf.h>

#include "collector/c2c/c2c_lineid.h"
#include "collector/base/error.h"
#include "collector/base/sample.h"

struct symtab;
struct sym_dso;

struct symtab_options {
	/* Prefix for every user-space file path, like perf's --symfs DIR.
	 * NULL or "" reads the paths as recorded. */
	const char *symfs;
	/* Kernel symbols: a kallsyms-format file (e.g. a copy of the
	 * recording host's /proc/kallsyms). NULL: no kernel symbols, unless
	 * use_host_kallsyms is set (then /proc/kallsyms is read). Use
	 * symtab_same_host() to decide whether the host's file fits. */
	const char *kallsyms;
	bool use_host_kallsyms;
	/* The kernel image for kernel code and data (perf's -k/--vmlinux), used
	 * unless kallsyms is given; with its build-id note, it must equal the
	 * recorded kernel's. Absolute: as it is; relative: under symfs when
	 * set (perf's rule), else the working directory. NULL: a vmlinux whose build-id equals the recorded
	 * kernel's, searched as perf does under symfs: DIR/.build-id/xx/rest.debug
	 * for each debuginfo dir, /usr/lib/debug/boot/vmlinux-R, /boot/vmlinux-R,
	 * /lib/modules/R/build/vmlinux, /usr/lib/debug/lib/modules/R/vmlinux,
	 * /usr/lib/debug/boot/vmlinux-R.debug, /boot/vmlinux, R = osrelease
	 * (NULL: this host's). Found or given, it places itself by the kernel
	 * map's "[kernel.kallsyms]_text" pgoff (KASLR). */
	const char *vmlinux;
	const char *osrelease;
	/* NULL-terminated list of directories searched for separate debug
	 * info ("DIR/.build-id/xx/rest.debug", "DIR/<path>.debug",
	 * "DIR/<path>"). NULL: { "/usr/lib/debug", NULL }. */
	const char *const *debuginfo_dirs;
};

/* Creates an empty process table. opt may be NULL (all defaults).
 * Returns NULL with err filled on allocation failure, or when a kallsyms
 * file is given that is not one (unreadable, an ELF file, no symbol with
 * an address): one line saying which. */
struct symtab *symtab_new(const struct symtab_options *opt, struct c2c_error *err);
void symtab_free(struct symtab *st);

/* True when the recording was made on this host: hostname and osrelease
 * (the perf.data HOSTNAME/OSRELEASE features) equal uname()'s. NULL
 * arguments never match. */
bool symtab_same_host(const char *hostname, const char *osrelease);

/* After the BUILD_ID feature is in (symtab_set_build_id): checks the
 * vmlinux given in the options. Returns 0 (also when none was given), or
 * -errno/-EINVAL with one line in err: missing, not ELF, or a build-id note
 * that is not the recorded kernel's. */
int symtab_check_vmlinux(struct symtab *st, struct c2c_error *err);

/* The kernel image used for kernel addresses (the -k file, or the one
 * found by the recorded build-id), as a path to read it again (under
 * symfs), with its build-id note in bid (*bn: its size, 0 none). NULL when
 * no kernel address (nor the -k check) opened one, or --kallsyms was
 * given. */
const char *symtab_kernel_image(struct symtab *st, uint8_t bid[20], size_t *bn);

/* The build-id note of the ELF file at path (0: none, or not readable). */
size_t symtab_file_build_id(const char *path, uint8_t out[20]);

/* KASLR, as the symbolizer places a vmlinux: the kernel map
 * "[kernel.kallsyms]REF" has REF's run-time address as its pgoff
 * (ref_addr); the shift is that minus REF's value in image (ref NULL:
 * "_text"). A kernel address a is a - shift in the image. Returns 0, or
 * -ENOENT/-ENOMEM with one line in err (unreadable image, no REF). */
int symtab_kernel_shift(const char *image, const char *ref, uint64_t ref_addr, uint64_t *shift,
			struct c2c_error *err);

/* The running kernel's build-id (/sys/kernel/notes), for live collection
 * to check a vmlinux against as an import checks the recorded one.
 * Returns its size, 0 when unknown. */
size_t symtab_host_kernel_build_id(uint8_t out[20]);

/* Kernel modules whose .ko was found but not used because its build-id
 * note is not the recorded one (the module's code then stays with
 * kallsyms), for the command layer to say once each: the i-th module's map
 * name and the first such file. False past the last. Grows as lookups
 * meet new modules, so ask after the samples. */
bool symtab_kmod_refused(const struct symtab *st, size_t i, const char **module, const char **file);

/* Number of kernel symbols loaded (0: none, kernel addresses stay hex),
 * for the command layer to say so. */
size_t symtab_kernel_symbols(const struct symtab *st);

/* ---- side-band (call in file/time order) ------------------------------ */

/* MMAP/MMAP2. A record whose cpumode is kernel (or guest kernel) goes to
 * the kernel maps: "[kernel.kallsyms]_text" (or any "[kernel.kallsyms]*")
 * sets the kernel map, a name starting with '/' or '[' is a module map.
 * Otherwise the map goes into the thread's process maps, replacing the
 * overlapping parts of older maps. Returns 0 or -ENOMEM. */
int symtab_mmap(struct symtab *st, const struct c2c_mmap *m);
/* COMM: names the thread (creating it if needed). Maps are kept across
 * exec, as perf does; the new MMAPs replace the old ones. */
int symtab_comm(struct symtab *st, const struct c2c_comm *c);
/* FORK: a new process (pid != ppid) gets a copy of the parent's maps; a
 * new thread (pid == ppid) shares its process's maps. An existing entry
 * for the child tid is replaced. */
int symtab_fork(struct symtab *st, const struct c2c_task *t);
/* FORK with the record's header.misc: perf record marks the FORKs it
 * synthesizes for already-running tasks with PERF_RECORD_MISC_FORK_EXEC
 * (1 << 13); for those the parent's maps are not copied (their own MMAPs
 * follow), exactly as perf does. symtab_fork() is this with misc 0. */
int symtab_fork_misc(struct symtab *st, const struct c2c_task *t, uint16_t misc);
/* EXIT: marks the thread exited. It stays findable (samples may follow
 * in the file), as in perf. */
int symtab_exit(struct symtab *st, const struct c2c_task *t);

/* Build-ids from the perf.data BUILD_ID feature (or any other source):
 * used for a file whose MMAP record carried none. filename is the path as
 * recorded ("[kernel.kallsyms]" for the kernel). */
int symtab_set_build_id(struct symtab *st, const char *filename,
			const uint8_t *build_id, size_t size);

/* Name of a thread from COMM (NULL when never seen). */
const char *symtab_thread_comm(struct symtab *st, int32_t pid, int32_t tid);

/* ---- perf-compatible "is it mapped" ----------------------------------- */

/* perf's thread__find_map(): with cpumode user, the thread's maps; with
 * cpumode kernel, the kernel maps; any other mode: not mapped. No fallback
 * between the two. A thread seen first here is created on the fly (a
 * non-leader thread then shares its process's maps), as perf does. */
bool symtab_addr_mapped(struct symtab *st, int32_t pid, int32_t tid,
			uint8_t cpumode, uint64_t addr);
/* The identity of the map holding a sample's data address, looked up as
 * symtab_addr_mapped does (perf's daddr map), for the c2c line key
 * (collector/c2c/c2c_lineid.h): dso id (maj/min/ino/ino_generation as
 * recorded; 0 for anonymous memory and kernel maps) and MAP_SHARED.
 * Returns out->mapped; out is all zero when unmapped. */
bool symtab_data_map_id(struct symtab *st, int32_t pid, int32_t tid, uint8_t cpumode,
			uint64_t addr, struct c2c_map_id *out);
/* The sample's line identity for perf's dcacheline key: its cpumode, the
 * identity of its data map (symtab_data_map_id) and, for private
 * anonymous user memory, its pid (c2c_line_ident_init). */
void symtab_line_ident(struct symtab *st, const struct c2c_sample *s, struct c2c_line_ident *out);
/* perf's lookup for a sample's code address (ip__resolve_ams): the user
 * maps, then the kernel maps, whatever the sample's cpumode. */
bool symtab_ip_mapped(struct symtab *st, int32_t pid, int32_t tid, uint64_t ip);
/* c2c's "No Page Map Rejects" rule for one sample: true when the data
 * address (looked up with the sample's cpumode) or the code address (as
 * symtab_ip_mapped) has no map. */
bool symtab_sample_nomap(struct symtab *st, const struct c2c_sample *s);

/* ---- symbolization ---------------------------------------------------- */

enum sym_status {
	SYM_OK = 0,              /* symbol found */
	SYM_UNMAPPED,            /* no map covers the address */
	SYM_ANON,                /* mapped, but not file-backed ([heap], //anon, ...) */
	SYM_NO_FILE,             /* the file could not be opened or is not ELF */
	SYM_BUILD_ID_MISMATCH,   /* the file's build-id differs from the recorded one */
	SYM_NO_SYMBOL,           /* file read, no symbol covers the address */
	SYM_NO_KALLSYMS,         /* kernel address, no kernel symbols loaded */
};
/* A short English phrase for status ("build-id mismatch", ...). */
const char *sym_status_str(int status);

struct sym_code {
	int status;              /* enum sym_status */
	const char *dso;         /* map name as recorded, "[kernel.kallsyms]", or NULL if unmapped */
	const uint8_t *build_id; /* recorded build-id (MMAP2 or BUILD_ID feature;
	                            NULL when none known) */
	size_t build_id_size;
	uint64_t map_start;      /* start of the covering map (0 if unmapped) */
	uint64_t rel_addr;       /* address in the file's own address space (ELF vaddr;
	                            the address itself for the kernel) */
	const char *function;    /* NULL when unresolved */
	uint64_t offset;         /* ip - function start */
	const char *srcfile;     /* NULL when unknown */
	unsigned line;           /* 0 when unknown */
};

struct sym_data {
	int status;              /* enum sym_status */
	const char *dso;         /* map name: "[heap]", "[stack]", "//anon", a file,
	                            "[kernel.kallsyms]", or NULL if unmapped */
	uint64_t map_start;
	uint64_t rel_addr;
	const char *symbol;      /* STT_OBJECT/STT_COMMON symbol (TLS symbols hold
	                            offsets, not addresses) or, for an address in
	                            code, the function (as perf shows it); for the
	                            kernel any kallsyms symbol; NULL when unresolved */
	uint64_t offset;         /* addr - symbol start */
	uint64_t sym_start;      /* symbol's start, as a runtime address */
	uint64_t sym_size;       /* 0 when unknown (kallsyms) */
};

/* Code address of a sample. Looked up like symtab_ip_mapped (user maps,
 * then kernel maps); cpumode is accepted for future guest support and
 * for a kernel-mode ip outside the kernel map, which still resolves
 * from kallsyms. Results are cached per (binary, address). Returns 0;
 * -ENOMEM only on allocation failure. Unresolved is status != SYM_OK. */
int symtab_resolve_ip(struct symtab *st, int32_t pid, int32_t tid, uint8_t cpumode,
		      uint64_t ip, struct sym_code *out);
/* Data address of a sample, looked up in the maps of the sample's cpumode
 * (as perf's data address resolution); a kernel address with a user
 * cpumode, or any kernel address outside the kernel map (slab, percpu,
 * vmalloc), is still tried against kallsyms data symbols, and a user
 * address touched in kernel mode (futex words, copy_*_user) against the
 * thread's user maps — both of which perf counts as unmapped (see
 * symtab_addr_mapped for that). */
int symtab_resolve_data(struct symtab *st, int32_t pid, int32_t tid, uint8_t cpumode,
			uint64_t addr, struct sym_data *out);

/* ---- per-binary handles (for the types/diff code) --------------------- */

/* The file-backed dso mapped at addr in the thread (user maps only; the
 * kernel has no ELF handle here), also for the "//anon" tail of a file's
 * .bss. Returns NULL when unmapped or not a file; check sym_dso_status()
 * (a missing file or build-id mismatch has no Elf/Dwarf). *rel_addr (if
 * non-NULL) gets the address in the file's own address space (ELF vaddr,
 * usable with the Dwarf of sym_dso_dwarf), 0 when it falls in no segment. */
struct sym_dso *symtab_dso_for(struct symtab *st, int32_t pid, int32_t tid,
			       uint64_t addr, uint64_t *rel_addr);
/* The dso for a path as recorded (opened on first use, then cached). */
struct sym_dso *symtab_dso_by_path(struct symtab *st, const char *path);

const char *sym_dso_path(const struct sym_dso *d);      /* as recorded */
/* Path actually opened (with symfs), NULL when the file is unusable. */
const char *sym_dso_file(struct sym_dso *d);
int sym_dso_status(struct sym_dso *d);                  /* SYM_OK or why not usable */
/* libelf handle of the binary (NULL when unusable). */
Elf *sym_dso_elf(struct sym_dso *d);
/* DWARF of the binary or its separate debug file (NULL when none). Its
 * addresses are ELF vaddrs (rel_addr). */
Dwarf *sym_dso_dwarf(struct sym_dso *d);
/* Load bias: runtime address - rel_addr for the most recent mapping seen
 * by symtab_dso_for (0 for ET_EXEC). */
uint64_t sym_dso_bias(const struct sym_dso *d);

#endif /* C2C_SYMBOLS_H */
