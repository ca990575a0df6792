/* The public face of the symbols module (symbols.h): feeds side-band
 * records into the thread/maps tables with perf's rules (util/machine.c),
 * answers perf-compatible "is it mapped" questions, and symbolizes code
 * and data addresses through the per-binary dsos and kallsyms. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "collector/symbols/sym_priv.h"

#define KERNEL_DSO "[kernel.kallsyms]"
#define MISC_FORK_EXEC (1u << 13)     /* PERF_RECORD_MISC_FORK_EXEC */

struct feat_bid {
	const char *path;        /* interned */
	uint8_t bid[20];
	size_t size;
};

struct dso_slot {
	const char *path;        /* interned; NULL: empty */
	struct sym_dso *dso;
};

struct symtab {
	struct sym_elf_opts eo;
	char *symfs;
	char **debug_dirs;

	struct sym_intern *in;
	struct sym_threads *threads;
	struct sym_maps *kmaps;
	struct sym_kallsyms *ksyms;
	bool ksyms_given;                 /* --kallsyms: it wins over any vmlinux, as in perf */
	struct sym_vmlinux *vmlinux;
	struct sym_kmods *kmods;          /* .ko files of module maps */
	const char *kernel_name;          /* interned KERNEL_DSO */
	/* The kernel map's reference symbol ("_text" of "[kernel.kallsyms]_text")
	 * and its run-time address (the MMAP's pgoff): with the image's own
	 * value of that symbol, the KASLR shift. NULL: none seen. */
	const char *kref_name;
	uint64_t kref_addr;

	struct dso_slot *dsos;
	size_t dsos_cap, dsos_n;

	struct feat_bid *fbids;
	size_t nfbids, fbids_cap;
};

static const char *const default_debug_dirs[] = { "/usr/lib/debug", NULL };

bool symtab_same_host(const char *hostname, const char *osrelease)
{
	struct utsname u;
	if (!hostname || !osrelease || uname(&u) != 0)
		return false;
	return strcmp(u.nodename, hostname) == 0 && strcmp(u.release, osrelease) == 0;
}

const char *sym_status_str(int status)
{
	switch (status) {
	case SYM_OK: return "resolved";
	case SYM_UNMAPPED: return "no map covers the address";
	case SYM_ANON: return "not a file-backed map";
	case SYM_NO_FILE: return "binary not found or not ELF";
	case SYM_BUILD_ID_MISMATCH: return "build-id mismatch";
	case SYM_NO_SYMBOL: return "no symbol covers the address";
	case SYM_NO_KALLSYMS: return "no kernel symbols";
	default: return "unknown status";
	}
}

void symtab_free(struct symtab *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->dsos_cap; i++)
		sym_dso_free(st->dsos ? st->dsos[i].dso : NULL);
	free(st->dsos);
	free(st->fbids);
	sym_threads_free(st->threads);
	sym_maps_put(st->kmaps);
	sym_kallsyms_free(st->ksyms);
	sym_vmlinux_free(st->vmlinux);
	sym_kmods_free(st->kmods);
	sym_intern_free(st->in);
	if (st->debug_dirs) {
		for (size_t i = 0; st->debug_dirs[i]; i++)
			free(st->debug_dirs[i]);
		free(st->debug_dirs);
	}
	free(st->symfs);
	free(st);
}

/* Why a --kallsyms file gave no symbols, in one line. */
static void not_kallsyms(const char *path, struct c2c_error *err)
{
	FILE *f = fopen(path, "rb");
	char magic[4] = { 0 };
	if (!f) {
		c2c_error_set(err, -errno, "--kallsyms %s: %s", path, strerror(errno));
		return;
	}
	bool elf = fread(magic, 1, 4, f) == 4 && memcmp(magic, "\177ELF", 4) == 0;
	fclose(f);
	if (elf)
		c2c_error_set(err, -EINVAL, "--kallsyms %s is an ELF file, not a kallsyms list "
			      "(give a vmlinux with -k/--vmlinux)", path);
	else
		c2c_error_set(err, -EINVAL, "--kallsyms %s is not a kallsyms list "
			      "(no 'ADDRESS TYPE NAME' line with a non-zero address)", path);
}

struct symtab *symtab_new(const struct symtab_options *opt, struct c2c_error *err)
{
	struct symtab_options none = { 0 };
	if (!opt)
		opt = &none;
	struct symtab *st = calloc(1, sizeof(*st));
	if (!st)
		goto nomem;
	st->symfs = strdup(opt->symfs ? opt->symfs : "");
	const char *const *dirs = opt->debuginfo_dirs ? opt->debuginfo_dirs : default_debug_dirs;
	size_t nd = 0;
	while (dirs[nd])
		nd++;
	st->debug_dirs = calloc(nd + 1, sizeof(char *));
	st->in = sym_intern_new();
	st->threads = sym_threads_new();
	st->kmaps = sym_maps_new(true);
	st->vmlinux = sym_vmlinux_new(opt->vmlinux, opt->symfs, opt->osrelease);
	st->kmods = sym_kmods_new(opt->osrelease);
	if (!st->symfs || !st->debug_dirs || !st->in || !st->threads || !st->kmaps || !st->vmlinux ||
	    !st->kmods)
		goto nomem;
	for (size_t i = 0; i < nd; i++)
		if (!(st->debug_dirs[i] = strdup(dirs[i])))
			goto nomem;
	/* A trailing '/' on symfs would double up with the absolute paths. */
	size_t sl = strlen(st->symfs);
	while (sl > 0 && st->symfs[sl - 1] == '/')
		st->symfs[--sl] = '\0';
	st->eo.symfs = st->symfs;
	st->eo.debug_dirs = (const char *const *)st->debug_dirs;
	st->kernel_name = sym_intern_str(st->in, KERNEL_DSO);
	if (!st->kernel_name)
		goto nomem;
	if (opt->kallsyms) {
		st->ksyms_given = true;
		if (!(st->ksyms = sym_kallsyms_load(opt->kallsyms))) {
			not_kallsyms(opt->kallsyms, err);
			symtab_free(st);
			return NULL;
		}
	} else if (opt->use_host_kallsyms) {
		st->ksyms = sym_kallsyms_load("/proc/kallsyms");
	}
	return st;
nomem:
	symtab_free(st);
	c2c_error_set(err, -ENOMEM, "out of memory creating the symbol table");
	return NULL;
}

size_t symtab_kernel_symbols(const struct symtab *st)
{
	return sym_kallsyms_count(st->ksyms);
}

/* ---- dsos ------------------------------------------------------------- */

static size_t ptr_hash(const void *p, size_t cap)
{
	uint64_t v = (uint64_t)(uintptr_t)p;
	v ^= v >> 29;
	v *= 0xbf58476d1ce4e5b9ull;
	v ^= v >> 32;
	return (size_t)v & (cap - 1);
}

static int dsos_grow(struct symtab *st)
{
	size_t nc = st->dsos_cap ? st->dsos_cap * 2 : 256;
	struct dso_slot *nv = calloc(nc, sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	for (size_t i = 0; i < st->dsos_cap; i++) {
		if (!st->dsos[i].path)
			continue;
		size_t j = ptr_hash(st->dsos[i].path, nc);
		while (nv[j].path)
			j = (j + 1) & (nc - 1);
		nv[j] = st->dsos[i];
	}
	free(st->dsos);
	st->dsos = nv;
	st->dsos_cap = nc;
	return 0;
}

/* The dso for (interned path, build-id), created on first sight. */
static struct sym_dso *dso_findnew(struct symtab *st, const char *path,
				   const uint8_t *bid, size_t bid_size)
{
	if ((st->dsos_n + 1) * 2 > st->dsos_cap && dsos_grow(st) < 0)
		return NULL;
	size_t j = ptr_hash(path, st->dsos_cap);
	for (; st->dsos[j].path; j = (j + 1) & (st->dsos_cap - 1))
		if (st->dsos[j].path == path && sym_dso_matches(st->dsos[j].dso, path, bid, bid_size))
			return st->dsos[j].dso;
	struct sym_dso *d = sym_dso_new(path, bid, bid_size);
	if (!d)
		return NULL;
	st->dsos[j].path = path;
	st->dsos[j].dso = d;
	st->dsos_n++;
	return d;
}

static const struct feat_bid *feat_bid_find(const struct symtab *st, const char *path)
{
	for (size_t i = 0; i < st->nfbids; i++)
		if (st->fbids[i].path == path)
			return &st->fbids[i];
	return NULL;
}

int symtab_set_build_id(struct symtab *st, const char *filename,
			const uint8_t *build_id, size_t size)
{
	if (!filename || !build_id || size == 0)
		return 0;
	const char *path = sym_intern_str(st->in, filename);
	if (!path)
		return -ENOMEM;
	if (size > 20)
		size = 20;
	struct feat_bid *f = (struct feat_bid *)feat_bid_find(st, path);
	if (!f) {
		if (st->nfbids == st->fbids_cap) {
			size_t nc = st->fbids_cap ? st->fbids_cap * 2 : 32;
			struct feat_bid *nv = realloc(st->fbids, nc * sizeof(*nv));
			if (!nv)
				return -ENOMEM;
			st->fbids = nv;
			st->fbids_cap = nc;
		}
		f = &st->fbids[st->nfbids++];
		f->path = path;
	}
	memcpy(f->bid, build_id, size);
	f->size = size;
	/* A dso created before this (no build-id known) gets it if unread. */
	for (size_t i = 0; i < st->dsos_cap; i++)
		if (st->dsos[i].path == path)
			sym_dso_set_build_id(st->dsos[i].dso, build_id, size);
	return 0;
}

/* Which maps have a file behind them (perf: not anon, not [heap]/[stack]/
 * [vdso]..., not //anon, /dev/zero, /SYSV, memfd, hugetlb). */
static bool name_is_file(const char *n)
{
	if (n[0] != '/' || n[1] == '/')
		return false;
	static const char *const not_files[] = {
		"/dev/zero", "/SYSV", "/memfd:", "/anon_hugepage", "/dev/shm/", "/dev/dri/",
	};
	for (size_t i = 0; i < sizeof(not_files) / sizeof(not_files[0]); i++)
		if (strncmp(n, not_files[i], strlen(not_files[i])) == 0)
			return false;
	return true;
}

/* ---- side-band ---------------------------------------------------------- */

/* start + len, saturated: a length that runs past the top of the address
 * space means "to the top". */
static uint64_t map_end(uint64_t start, uint64_t len)
{
	return len > UINT64_MAX - start ? UINT64_MAX : start + len;
}

/* The build-id of a map: the record's, else the BUILD_ID feature's for
 * that path. Returns its size (0: none). */
static size_t record_bid(const struct symtab *st, const struct c2c_mmap *m, const char *name,
			 uint8_t out[20])
{
	size_t n = m->build_id_size > 20 ? 20 : m->build_id_size;
	if (n) {
		memcpy(out, m->build_id, n);
		return n;
	}
	const struct feat_bid *f = feat_bid_find(st, name);
	if (!f)
		return 0;
	memcpy(out, f->bid, f->size);
	return f->size;
}

static bool mode_is_kernel(uint8_t m)
{
	return m == C2C_MODE_KERNEL || m == C2C_MODE_GUEST_KERNEL;
}

static int kernel_mmap(struct symtab *st, const struct c2c_mmap *m)
{
	/* Guest kernels belong to guest machines, which are never looked up
	 * (perf's default: host only). */
	if (m->cpumode != C2C_MODE_KERNEL)
		return 0;
	const char *fn = m->filename;
	bool is_kernel = strncmp(fn, KERNEL_DSO, strlen(KERNEL_DSO) - 1) == 0;
	struct sym_map map = {
		.start = m->start, .end = map_end(m->start, m->len), .pgoff = m->pgoff,
		.prot = m->prot, .flags = m->flags,
	};
	if (fn[0] == '/' || (!is_kernel && fn[0] == '[')) {
		map.name = sym_intern_str(st->in, fn);
	} else if (is_kernel) {
		/* The kernel map moves: the old one goes (update_kernel_mmap). */
		map.name = st->kernel_name;
		/* "[kernel.kallsyms]_text": pgoff is where _text runs (perf's
		 * ref_reloc_sym), which places a vmlinux under KASLR. */
		const char *ref = fn + strlen(KERNEL_DSO);
		if (*ref && !(st->kref_name = sym_intern_str(st->in, ref)))
			return -ENOMEM;
		st->kref_addr = m->pgoff;
		if (map.start == 0 && map.end == 0)
			map.end = UINT64_MAX;
		sym_maps_remove_named(st->kmaps, st->kernel_name);
	} else if (strcmp(fn, "__entry_SYSCALL_64_trampoline") == 0) {
		map.name = sym_intern_str(st->in, fn);
	} else {
		return 0;
	}
	if (!map.name)
		return -ENOMEM;
	/* Never opened as ELF (kernel code comes from kallsyms); it holds the
	 * build-id where results may point at it. */
	uint8_t bid[20];
	size_t bn = record_bid(st, m, map.name, bid);
	if (bn && !(map.dso = dso_findnew(st, map.name, bid, bn)))
		return -ENOMEM;
	return sym_maps_insert(st->kmaps, &map);
}

static uint32_t le32_at(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64_at(const uint8_t *p)
{
	return (uint64_t)le32_at(p) | (uint64_t)le32_at(p + 4) << 32;
}

/* perf takes the dso id from the MMAP2 record's maj/min/ino/ino_generation
 * words even when they hold a build-id (PERF_RECORD_MISC_MMAP_BUILD_ID, a
 * union): size byte + 3 reserved bytes, then the 20 id bytes. Rebuilt
 * here so a file map never looks anonymous (recorded little-endian). */
static void map_set_id(struct sym_map *map, const struct c2c_mmap *m)
{
	if (m->build_id_size) {
		uint8_t b[20] = { 0 };
		memcpy(b, m->build_id, m->build_id_size);
		map->maj = m->build_id_size;
		map->min = le32_at(b);
		map->ino = le64_at(b + 4);
		map->ino_generation = le64_at(b + 12);
		return;
	}
	map->maj = m->maj;
	map->min = m->min;
	map->ino = m->ino;
	map->ino_generation = m->ino_generation;
}

int symtab_mmap(struct symtab *st, const struct c2c_mmap *m)
{
	if (!m->filename)
		return 0;
	if (mode_is_kernel(m->cpumode))
		return kernel_mmap(st, m);
	struct sym_thread *th = sym_threads_findnew(st->threads, m->pid, m->tid);
	if (!th)
		return -ENOMEM;
	struct sym_map map = {
		.start = m->start, .end = map_end(m->start, m->len), .pgoff = m->pgoff,
		.prot = m->prot, .flags = m->flags,
		.name = sym_intern_str(st->in, m->filename),
	};
	if (!map.name)
		return -ENOMEM;
	map_set_id(&map, m);
	uint8_t bid[20];
	size_t bn = record_bid(st, m, map.name, bid);
	/* [vdso] has no file, but perf record keeps a copy in its build-id
	 * cache (~/.debug/.build-id/...), found when its build-id is known. */
	if (name_is_file(map.name) || (bn && strcmp(map.name, "[vdso]") == 0)) {
		map.dso = dso_findnew(st, map.name, bid, bn);
		if (!map.dso)
			return -ENOMEM;
	}
	return sym_maps_insert(th->maps, &map);
}

int symtab_comm(struct symtab *st, const struct c2c_comm *c)
{
	struct sym_thread *th = sym_threads_findnew(st->threads, c->pid, c->tid);
	if (!th)
		return -ENOMEM;
	if (c->comm) {
		th->comm = sym_intern_str(st->in, c->comm);
		if (!th->comm)
			return -ENOMEM;
	}
	return 0;
}

int symtab_fork_misc(struct symtab *st, const struct c2c_task *t, uint16_t misc)
{
	struct sym_thread *parent = sym_threads_findnew(st->threads, t->ppid, t->ptid);
	if (!parent)
		return -ENOMEM;
	/* A thread under the parent's tid that belongs to another process is
	 * stale (its EXIT was lost): start it again. */
	if (parent->pid != t->ppid) {
		sym_threads_remove(st->threads, t->ptid);
		parent = sym_threads_findnew(st->threads, t->ppid, t->ptid);
		if (!parent)
			return -ENOMEM;
	}
	if (t->tid == t->ptid)
		return 0;        /* nonsense record; perf would fail on it too */
	sym_threads_remove(st->threads, t->tid);
	/* findnew may have created the leader (pid, pid) of a new thread. */
	struct sym_thread *th = sym_threads_findnew(st->threads, t->pid, t->tid);
	parent = sym_threads_find(st->threads, t->ptid);
	if (!th || !parent)
		return -ENOMEM;
	th->comm = parent->comm;
	if (th->pid == parent->pid)
		return 0;        /* a thread: maps shared through the leader */
	if (th->maps == parent->maps || (misc & MISC_FORK_EXEC))
		return 0;
	/* Copy into the child's own maps object (perf's maps__clone), so
	 * threads already sharing it see the copy too. */
	for (size_t i = 0; i < parent->maps->n; i++) {
		int rc = sym_maps_insert(th->maps, &parent->maps->v[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int symtab_fork(struct symtab *st, const struct c2c_task *t)
{
	return symtab_fork_misc(st, t, 0);
}

int symtab_exit(struct symtab *st, const struct c2c_task *t)
{
	struct sym_thread *th = sym_threads_find(st->threads, t->tid);
	if (th)
		th->exited = true;
	return 0;
}

const char *symtab_thread_comm(struct symtab *st, int32_t pid, int32_t tid)
{
	struct sym_thread *th = sym_threads_find(st->threads, tid);
	(void)pid;
	return th ? th->comm : NULL;
}

/* ---- mapped? ------------------------------------------------------------ */

/* perf's thread__find_map(): only host user and kernel modes have maps. */
static const struct sym_map *find_map(struct symtab *st, struct sym_thread *th,
				      uint8_t cpumode, uint64_t addr)
{
	if (cpumode == C2C_MODE_KERNEL)
		return sym_maps_find(st->kmaps, addr);
	if (cpumode == C2C_MODE_USER && th && th->maps)
		return sym_maps_find(th->maps, addr);
	return NULL;
}

bool symtab_addr_mapped(struct symtab *st, int32_t pid, int32_t tid,
			uint8_t cpumode, uint64_t addr)
{
	struct sym_thread *th = sym_threads_findnew(st->threads, pid, tid);
	return find_map(st, th, cpumode, addr) != NULL;
}

bool symtab_data_map_id(struct symtab *st, int32_t pid, int32_t tid, uint8_t cpumode,
			uint64_t addr, struct c2c_map_id *out)
{
	struct sym_thread *th = sym_threads_findnew(st->threads, pid, tid);
	const struct sym_map *m = find_map(st, th, cpumode, addr);

	memset(out, 0, sizeof(*out));
	if (!m)
		return false;
	out->mapped = true;
	/* the kernel's maps carry no dso id in perf */
	if (cpumode == C2C_MODE_KERNEL)
		return true;
	out->shared = (m->flags & MAP_SHARED) != 0;
	out->maj = m->maj;
	out->min = m->min;
	out->ino = m->ino;
	out->ino_generation = m->ino_generation;
	return true;
}

void symtab_line_ident(struct symtab *st, const struct c2c_sample *s, struct c2c_line_ident *out)
{
	struct c2c_map_id id;

	symtab_data_map_id(st, s->pid, s->tid, s->cpumode, s->addr, &id);
	c2c_line_ident_init(out, s->cpumode, s->pid, &id);
}

static const struct sym_map *find_ip_map(struct symtab *st, struct sym_thread *th,
					 uint64_t ip)
{
	const struct sym_map *m = find_map(st, th, C2C_MODE_USER, ip);
	return m ? m : find_map(st, th, C2C_MODE_KERNEL, ip);
}

bool symtab_ip_mapped(struct symtab *st, int32_t pid, int32_t tid, uint64_t ip)
{
	struct sym_thread *th = sym_threads_findnew(st->threads, pid, tid);
	return find_ip_map(st, th, ip) != NULL;
}

bool symtab_sample_nomap(struct symtab *st, const struct c2c_sample *s)
{
	struct sym_thread *th = sym_threads_findnew(st->threads, s->pid, s->tid);
	return !find_map(st, th, s->cpumode, s->addr) || !find_ip_map(st, th, s->ip);
}

/* ---- symbolization ------------------------------------------------------ */

static bool addr_is_kernel_half(uint64_t a)
{
	return a >= 0x8000000000000000ull;
}

/* From the dso, not the map: maps move when arrays grow, dsos stay until
 * symtab_free, as results promise. */
static const uint8_t *map_bid(const struct sym_map *m, size_t *size)
{
	*size = 0;
	return m->dso ? sym_dso_build_id(m->dso, size) : NULL;
}

/* The vmlinux for kernel (not module) addresses and its KASLR shift
 * (run-time address - address in the file), unless --kallsyms was given.
 * NULL when none is usable. */
static struct sym_dso *kernel_image(struct symtab *st, const struct sym_map *map, uint64_t *shift)
{
	if (st->ksyms_given || (map && map->name != st->kernel_name))
		return NULL;
	const struct feat_bid *f = feat_bid_find(st, st->kernel_name);
	struct sym_dso *d = sym_vmlinux_get(st->vmlinux, &st->eo, f ? f->bid : NULL, f ? f->size : 0);
	sym_kaslr_shift(d, st->kref_name, st->kref_addr, shift);
	return d;
}

/* The .ko of a module map (not with --kallsyms, which names everything
 * in the kernel, as for the kernel itself) and the file offset of its
 * .text. NULL when none is usable. */
static struct sym_dso *module_file(struct symtab *st, const struct sym_map *map, uint64_t *text_off)
{
	if (st->ksyms_given || !map || map->name == st->kernel_name ||
	    (map->name[0] != '/' && map->name[0] != '['))
		return NULL;
	size_t bn;
	const uint8_t *bid = map_bid(map, &bn);
	struct sym_dso *d = sym_kmods_get(st->kmods, &st->eo, map->name, bid, bn);
	return d && sym_dso_rel_text(d, text_off) ? d : NULL;
}

/* Module code from its .ko as perf places it: the map starts at .text
 * (perf record takes the start from /proc/modules), the map's pgoff
 * becomes .text's file offset and the symbols are file offsets
 * (st_value + sh_offset), so an ip is at ip - start + .text's offset.
 * False when the file names nothing there (then kallsyms may). */
static bool module_code(struct symtab *st, const struct sym_map *map, uint64_t ip, struct sym_code *out)
{
	uint64_t text, start;
	struct sym_dso *d = module_file(st, map, &text);
	if (!d)
		return false;
	uint64_t off = ip - map->start + text;
	if (!sym_dso_func(d, off, &out->function, &start))
		return false;
	out->offset = off - start;
	out->status = SYM_OK;
	if (!sym_dso_srcline(d, off, &out->srcfile, &out->line)) {
		out->srcfile = NULL;
		out->line = 0;
	}
	return true;
}

static void kernel_code(struct symtab *st, const struct sym_map *map, uint64_t ip,
			struct sym_code *out)
{
	out->dso = map ? map->name : st->kernel_name;
	out->map_start = map ? map->start : 0;
	out->rel_addr = ip;
	if (map)
		out->build_id = map_bid(map, &out->build_id_size);
	if (module_code(st, map, ip, out))
		return;
	uint64_t shift, start;
	struct sym_dso *img = kernel_image(st, map, &shift);
	if (img) {
		/* perf's map__rip_2objdump: the file's address, for both the
		 * symbol and addr2line. */
		uint64_t va = ip - shift;
		out->status = SYM_NO_SYMBOL;
		if (sym_dso_func(img, va, &out->function, &start)) {
			out->offset = va - start;
			out->status = SYM_OK;
		}
		if (!sym_dso_srcline(img, va, &out->srcfile, &out->line)) {
			out->srcfile = NULL;
			out->line = 0;
		}
		return;
	}
	if (!st->ksyms) {
		out->status = SYM_NO_KALLSYMS;
		return;
	}
	if (sym_kallsyms_text(st->ksyms, ip, &out->function, &start, NULL)) {
		out->offset = ip - start;
		out->status = SYM_OK;
	} else {
		out->status = SYM_NO_SYMBOL;
	}
}

/* Map-relative -> ELF vaddr, as perf's map__map_ip + the PT_LOAD walk. */
static bool map_to_vaddr(struct symtab *st, const struct sym_map *map, uint64_t addr,
			 uint64_t *vaddr)
{
	sym_dso_load(map->dso, &st->eo);
	return sym_dso_off_to_vaddr(map->dso, addr - map->start + map->pgoff, vaddr);
}

int symtab_resolve_ip(struct symtab *st, int32_t pid, int32_t tid, uint8_t cpumode,
		      uint64_t ip, struct sym_code *out)
{
	memset(out, 0, sizeof(*out));
	out->status = SYM_UNMAPPED;
	struct sym_thread *th = sym_threads_findnew(st->threads, pid, tid);
	if (!th)
		return -ENOMEM;
	const struct sym_map *map = find_map(st, th, C2C_MODE_USER, ip);
	if (!map) {
		map = find_map(st, th, C2C_MODE_KERNEL, ip);
		if (map || (addr_is_kernel_half(ip) &&
			    (cpumode == C2C_MODE_KERNEL || cpumode == C2C_MODE_USER)))
			kernel_code(st, map, ip, out);
		return 0;
	}
	out->dso = map->name;
	out->map_start = map->start;
	out->build_id = map_bid(map, &out->build_id_size);
	out->rel_addr = ip - map->start + map->pgoff;
	if (!map->dso) {
		out->status = SYM_ANON;
		return 0;
	}
	uint64_t vaddr;
	if (!map_to_vaddr(st, map, ip, &vaddr)) {
		int ds = sym_dso_status(map->dso);
		out->status = ds != SYM_OK ? ds : SYM_NO_SYMBOL;
		return 0;
	}
	out->rel_addr = vaddr;
	uint64_t start;
	if (sym_dso_func(map->dso, vaddr, &out->function, &start)) {
		out->offset = vaddr - start;
		out->status = SYM_OK;
	} else {
		out->status = SYM_NO_SYMBOL;
	}
	if (!sym_dso_srcline(map->dso, vaddr, &out->srcfile, &out->line)) {
		out->srcfile = NULL;
		out->line = 0;
	}
	return 0;
}

static void kernel_data(struct symtab *st, const struct sym_map *map, uint64_t addr,
			struct sym_data *out)
{
	out->dso = map ? map->name : st->kernel_name;
	out->map_start = map ? map->start : 0;
	out->rel_addr = addr;
	uint64_t shift, start, size;
	struct sym_dso *img = kernel_image(st, map, &shift);
	if (img) {
		out->status = SYM_NO_SYMBOL;
		if (sym_dso_object(img, addr - shift, &out->symbol, &start, &size)) {
			out->offset = addr - shift - start;
			out->sym_start = start + shift;
			out->sym_size = size;
			out->status = SYM_OK;
		}
		return;
	}
	if (!st->ksyms) {
		out->status = SYM_NO_KALLSYMS;
		return;
	}
	if (sym_kallsyms_data(st->ksyms, addr, &out->symbol, &start, NULL)) {
		out->offset = addr - start;
		out->sym_start = start;
		out->status = SYM_OK;
	} else {
		out->status = SYM_NO_SYMBOL;
	}
}

/* The file behind a user map: itself, or for the tail of .bss that the
 * kernel maps as "//anon" right after the file's last data page, that
 * file's map. NULL when none. */
static const struct sym_map *backing_file_map(const struct sym_thread *th,
					      const struct sym_map *map)
{
	if (map->dso)
		return map;
	const struct sym_map *prev = sym_maps_prev(th->maps, map);
	if (strcmp(map->name, "//anon") == 0 && prev && prev->dso && prev->end == map->start)
		return prev;
	return NULL;
}

static bool file_object(struct symtab *st, const struct sym_map *fmap, uint64_t addr,
			struct sym_data *out)
{
	uint64_t vaddr, start, size;
	const char *name;
	if (!map_to_vaddr(st, fmap, addr, &vaddr))
		return false;
	out->rel_addr = vaddr;
	if (!sym_dso_object(fmap->dso, vaddr, &name, &start, &size))
		return false;
	out->symbol = name;
	out->offset = vaddr - start;
	out->sym_start = addr - out->offset;
	out->sym_size = size;
	out->status = SYM_OK;
	return true;
}

int symtab_resolve_data(struct symtab *st, int32_t pid, int32_t tid, uint8_t cpumode,
			uint64_t addr, struct sym_data *out)
{
	memset(out, 0, sizeof(*out));
	out->status = SYM_UNMAPPED;
	struct sym_thread *th = sym_threads_findnew(st->threads, pid, tid);
	if (!th)
		return -ENOMEM;
	const struct sym_map *map = find_map(st, th, cpumode, addr);
	bool host = cpumode == C2C_MODE_KERNEL || cpumode == C2C_MODE_USER;
	if (cpumode == C2C_MODE_KERNEL && !map && !addr_is_kernel_half(addr)) {
		/* The kernel touching user memory (futex words, copy_*_user):
		 * perf counts it unmapped, but the process's maps name it. */
		map = find_map(st, th, C2C_MODE_USER, addr);
	} else if (cpumode == C2C_MODE_KERNEL || (!map && host)) {
		if (map || addr_is_kernel_half(addr))
			kernel_data(st, map, addr, out);
		return 0;
	}
	if (!map)
		return 0;
	out->dso = map->name;
	out->map_start = map->start;
	out->rel_addr = addr - map->start + map->pgoff;
	if (!map->dso) {
		out->status = SYM_ANON;
		const struct sym_map *fmap = backing_file_map(th, map);
		struct sym_data tmp = *out;
		if (fmap && file_object(st, fmap, addr, &tmp)) {
			tmp.dso = fmap->name;
			*out = tmp;
		}
		return 0;
	}
	if (!file_object(st, map, addr, out)) {
		int ds = sym_dso_status(map->dso);
		out->status = ds != SYM_OK ? ds : SYM_NO_SYMBOL;
	}
	return 0;
}

/* ---- per-binary handles --------------------------------------------------- */

struct sym_dso *symtab_dso_for(struct symtab *st, int32_t pid, int32_t tid,
			       uint64_t addr, uint64_t *rel_addr)
{
	struct sym_thread *th = sym_threads_findnew(st->threads, pid, tid);
	const struct sym_map *map = find_map(st, th, C2C_MODE_USER, addr);
	if (map)
		map = backing_file_map(th, map);
	if (!map)
		return NULL;
	uint64_t vaddr = 0;
	if (map_to_vaddr(st, map, addr, &vaddr))
		sym_dso_set_bias(map->dso, addr - vaddr);
	if (rel_addr)
		*rel_addr = vaddr;
	return map->dso;
}

struct sym_dso *symtab_dso_by_path(struct symtab *st, const char *path)
{
	const char *p = sym_intern_str(st->in, path);
	if (!p || !name_is_file(p))
		return NULL;
	const struct feat_bid *f = feat_bid_find(st, p);
	struct sym_dso *d = dso_findnew(st, p, f ? f->bid : NULL, f ? f->size : 0);
	if (d)
		sym_dso_load(d, &st->eo);
	return d;
}

const char *symtab_kernel_image(struct symtab *st, uint8_t bid[20], size_t *bn)
{
	/* Only an image a kernel address (or the -k check) already opened:
	 * asking must not start a search for one nothing used. */
	struct sym_dso *d = st->ksyms_given ? NULL : sym_vmlinux_opened(st->vmlinux);

	*bn = d ? sym_dso_file_build_id(d, bid) : 0;
	return d ? sym_vmlinux_path(st->vmlinux) : NULL;
}

int symtab_check_vmlinux(struct symtab *st, struct c2c_error *err)
{
	const char *given = sym_vmlinux_given(st->vmlinux);
	if (!given || st->ksyms_given)
		return 0;
	if (access(given, R_OK) != 0)
		return c2c_error_set(err, -errno, "-k/--vmlinux %s: %s", given, strerror(errno));
	const struct feat_bid *f = feat_bid_find(st, st->kernel_name);
	if (sym_vmlinux_get(st->vmlinux, &st->eo, f ? f->bid : NULL, f ? f->size : 0))
		return 0;
	if (sym_vmlinux_given_status(st->vmlinux) == SYM_BUILD_ID_MISMATCH) {
		char hex[41];
		for (size_t i = 0; i < f->size; i++)
			sprintf(hex + 2 * i, "%02x", f->bid[i]);
		return c2c_error_set(err, -EINVAL, "-k/--vmlinux %s: its build-id is not that of the kernel the samples come from (%s)",
				     given, hex);
	}
	return c2c_error_set(err, -EINVAL, "-k/--vmlinux %s: not an ELF file (a kallsyms list goes with --kallsyms)", given);
}

bool symtab_kmod_refused(const struct symtab *st, size_t i, const char **module, const char **file)
{
	return sym_kmods_refused(st->kmods, i, module, file);
}
