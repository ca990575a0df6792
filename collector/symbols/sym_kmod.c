/* Kernel module files (.ko) for the module maps of a recording, found as
 * perf does (util/dso.c dso__read_binary_type_filename, machine.c
 * maps__set_modules_path_dir): by the recorded build-id in perf's
 * build-id cache and the debug directories, at the recorded path, and by
 * the module's name under /lib/modules/R/ and /usr/lib/debug/lib/modules/R/
 * (R: the recording's os release), all but the build-id cache under
 * --symfs. A file whose build-id note differs from the recorded one is
 * never used (it would name the wrong functions); it is remembered so the
 * command layer can say so once. Compressed modules are decompressed into
 * memory: .ko.xz and .ko.gz as perf 6.1 reads them, and .ko.zst, which it
 * cannot. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "collector/symbols/sym_priv.h"

struct kmod_ent {
	const char *map_name;    /* interned (compared by pointer) */
	uint8_t bid[20];
	size_t bn;
	struct sym_dso *dso;     /* the file used (owned), NULL when none */
	char *refused;           /* a file found with another build-id (first one) */
};

struct sym_kmods {
	char *osrelease;
	struct kmod_ent *v;
	size_t n, cap;
};

struct sym_kmods *sym_kmods_new(const char *osrelease)
{
	struct sym_kmods *k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	struct utsname u;
	if (!osrelease || !*osrelease)
		osrelease = uname(&u) == 0 ? u.release : "";
	if (!(k->osrelease = strdup(osrelease))) {
		free(k);
		return NULL;
	}
	return k;
}

void sym_kmods_free(struct sym_kmods *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++) {
		sym_dso_free(k->v[i].dso);
		free(k->v[i].refused);
	}
	free(k->v);
	free(k->osrelease);
	free(k);
}

/* perf's module name (kmod_path__parse_name): "[kvm_intel]" as it is
 * inside the brackets, a path's file name without ".ko" and a compression
 * suffix; '-' and '_' are the same to the kernel (both become '_'). */
static bool kmod_name(const char *s, char *out, size_t size)
{
	size_t n;
	if (s[0] == '[') {
		const char *e = strchr(s, ']');
		if (!e)
			return false;
		s++;
		n = (size_t)(e - s);
	} else {
		const char *b = strrchr(s, '/');
		s = b ? b + 1 : s;
		const char *e = strstr(s, ".ko");
		if (!e || (e[3] != '\0' && e[3] != '.'))
			return false;
		n = (size_t)(e - s);
	}
	if (n == 0 || n >= size)
		return false;
	for (size_t i = 0; i < n; i++)
		out[i] = s[i] == '-' ? '_' : s[i];
	out[n] = '\0';
	return true;
}

/* The kernel's module file names: NAME.ko, NAME.ko.{xz,zst,gz} (and,
 * in a debug tree, NAME.ko.debug); true when fname is one of them for name. */
static bool is_module_file(const char *fname, const char *name)
{
	char n[256];
	if (!kmod_name(fname, n, sizeof(n)) || strcmp(n, name) != 0)
		return false;
	const char *ext = strstr(fname, ".ko");
	return !strcmp(ext, ".ko") || !strcmp(ext, ".ko.zst") || !strcmp(ext, ".ko.xz") ||
	       !strcmp(ext, ".ko.gz") || !strcmp(ext, ".ko.debug");
}

/* Depth-first search of dir for name's module file (symlinked directories
 * such as build/ and source/ are not followed). */
static bool find_in_tree(const char *dir, const char *name, int depth, char *out, size_t size)
{
	DIR *d = opendir(dir);
	if (!d)
		return false;
	struct dirent *e;
	bool found = false;
	char sub[PATH_MAX];
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		unsigned type = e->d_type;
		struct stat sb;
		/* Some file systems leave the type to lstat. */
		if (type == DT_UNKNOWN && (size_t)snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) < sizeof(sub) &&
		    lstat(sub, &sb) == 0)
			type = S_ISDIR(sb.st_mode) ? DT_DIR : S_ISREG(sb.st_mode) ? DT_REG : DT_LNK;
		if (type == DT_DIR) {
			if (depth > 0 && (size_t)snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) < sizeof(sub))
				found = find_in_tree(sub, name, depth - 1, out, size);
		} else if (type == DT_REG && is_module_file(e->d_name, name)) {
			found = (size_t)snprintf(out, size, "%s/%s", dir, e->d_name) < size;
		}
	}
	closedir(d);
	return found;
}

/* ---- opening, with decompression ---------------------------------------- */

enum kmod_comp { KMOD_PLAIN, KMOD_ZSTD, KMOD_XZ, KMOD_GZ };

/* By the magic bytes, not the name: perf renames nothing either. */
static enum kmod_comp kmod_compression(int fd)
{
	uint8_t m[6];
	if (pread(fd, m, 6, 0) != 6)
		return KMOD_PLAIN;
	if (m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd)
		return KMOD_ZSTD;
	if (!memcmp(m, "\xfd" "7zXZ\0", 6))
		return KMOD_XZ;
	if (m[0] == 0x1f && m[1] == 0x8b)
		return KMOD_GZ;
	return KMOD_PLAIN;
}

#define KMOD_BUF 65536

static bool write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

static bool unzstd(int in, int out, uint8_t *ibuf, uint8_t *obuf)
{
	ZSTD_DStream *z = ZSTD_createDStream();
	bool ok = z && !ZSTD_isError(ZSTD_initDStream(z));
	size_t last = 1;
	ssize_t r;
	while (ok && (r = read(in, ibuf, KMOD_BUF)) > 0) {
		ZSTD_inBuffer ib = { ibuf, (size_t)r, 0 };
		while (ok && ib.pos < ib.size) {
			ZSTD_outBuffer ob = { obuf, KMOD_BUF, 0 };
			last = ZSTD_decompressStream(z, &ob, &ib);
			ok = !ZSTD_isError(last) && write_all(out, obuf, ob.pos);
		}
	}
	ZSTD_freeDStream(z);
	return ok && last == 0;
}

static bool unxz(int in, int out, uint8_t *ibuf, uint8_t *obuf)
{
	lzma_stream z = LZMA_STREAM_INIT;
	if (lzma_stream_decoder(&z, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
		return false;
	lzma_ret rc = LZMA_OK;
	bool ok = true;
	while (ok && rc == LZMA_OK) {
		if (z.avail_in == 0) {
			ssize_t r = read(in, ibuf, KMOD_BUF);
			if (r < 0)
				break;
			z.next_in = ibuf;
			z.avail_in = (size_t)r;
		}
		z.next_out = obuf;
		z.avail_out = KMOD_BUF;
		rc = lzma_code(&z, z.avail_in ? LZMA_RUN : LZMA_FINISH);
		ok = write_all(out, obuf, KMOD_BUF - z.avail_out);
	}
	lzma_end(&z);
	return ok && rc == LZMA_STREAM_END;
}

static bool ungz(int in, int out, uint8_t *obuf)
{
	int dfd = dup(in);
	gzFile g = dfd >= 0 ? gzdopen(dfd, "rb") : NULL;
	if (!g) {
		if (dfd >= 0)
			close(dfd);
		return false;
	}
	int r;
	bool ok = true;
	while (ok && (r = gzread(g, obuf, KMOD_BUF)) > 0)
		ok = write_all(out, obuf, (size_t)r);
	ok = ok && r == 0;
	gzclose(g);
	return ok;
}

/* The decompressed contents of a compressed module in a memfd (libelf and
 * libdwfl then read it like a file); -1 on failure. */
static int decompress_to_memfd(int in, enum kmod_comp c)
{
	int out = memfd_create("c2ctui-kmod", MFD_CLOEXEC);
	uint8_t *ibuf = malloc(KMOD_BUF), *obuf = malloc(KMOD_BUF);
	bool ok = out >= 0 && ibuf && obuf;
	if (ok)
		ok = c == KMOD_ZSTD ? unzstd(in, out, ibuf, obuf) :
		     c == KMOD_XZ   ? unxz(in, out, ibuf, obuf) : ungz(in, out, obuf);
	free(ibuf);
	free(obuf);
	if (!ok && out >= 0) {
		close(out);
		out = -1;
	}
	return out;
}

/* Opens path as a module file: a relocatable ELF (decompressed first when
 * compressed) whose build-id note equals bid (when one was recorded). The dso (owned by the
 * caller) or NULL; *mismatch set when only the build-id was wrong. */
static struct sym_dso *try_module(const char *path, const struct sym_elf_opts *o, const uint8_t *bid,
				  size_t bn, bool *mismatch)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), mfd = -1;
	if (fd < 0)
		return NULL;
	char open_path[64];
	const char *p = path;
	enum kmod_comp comp = kmod_compression(fd);
	if (comp != KMOD_PLAIN) {
		mfd = decompress_to_memfd(fd, comp);
		snprintf(open_path, sizeof(open_path), "/proc/self/fd/%d", mfd);
		p = open_path;
	}
	close(fd);
	if (p != path && mfd < 0)
		return NULL;
	struct sym_elf_opts as_is = *o;
	as_is.symfs = "";
	/* No build-id for the dso: it opens any file, the check is below. */
	struct sym_dso *d = sym_dso_new(p, NULL, 0);
	if (d)
		sym_dso_load(d, &as_is);   /* holds its own fd: the memfd may go */
	if (mfd >= 0)
		close(mfd);
	uint64_t text;
	uint8_t fb[20];
	size_t fn = d ? sym_dso_file_build_id(d, fb) : 0;
	/* perf's symsrc__init: with a recorded build-id, a file must have
	 * that one (one without a note is no better). */
	if (d && sym_dso_rel_text(d, &text) && bn && fn && (fn != bn || memcmp(fb, bid, bn) != 0))
		*mismatch = true;
	else if (d && sym_dso_rel_text(d, &text) && (!bn || fn))
		return d;
	sym_dso_free(d);
	return NULL;
}

static void hex_of(const uint8_t *bid, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", bid[i]);
	out[2 * n] = '\0';
}

/* Tries one candidate path; on a build-id mismatch remembers the first
 * such file. True when e->dso is set. */
static bool try_cand(struct kmod_ent *e, const struct sym_elf_opts *o, const char *path)
{
	bool mismatch = false;
	e->dso = try_module(path, o, e->bid, e->bn, &mismatch);
	if (mismatch && !e->refused)
		e->refused = strdup(path);
	return e->dso != NULL;
}

/* perf's order (binary_type_symtab): build-id cache, the debug
 * directories (by path, then by build-id), the recorded path; then, as
 * perf names modules from /lib/modules/R, the module's name there and in
 * the debug tree. */
static void kmod_find(struct sym_kmods *k, struct kmod_ent *e, const struct sym_elf_opts *o)
{
	const char *fs = o->symfs ? o->symfs : "", *path = e->map_name;
	const char *home = getenv("HOME");
	char p[PATH_MAX], hex[41], name[256];
	hex_of(e->bid, e->bn, hex);
	if (e->bn && home && *home) {
		static const char *const cache[] = { "elf", "debug" };
		for (size_t i = 0; i < 2; i++) {
			snprintf(p, sizeof(p), "%s/.debug/.build-id/%.2s/%s/%s", home, hex, hex + 2, cache[i]);
			if (try_cand(e, o, p))
				return;
		}
	}
	for (size_t i = 0; path[0] == '/' && o->debug_dirs && o->debug_dirs[i]; i++) {
		snprintf(p, sizeof(p), "%s%s%s.debug", fs, o->debug_dirs[i], path);
		if (try_cand(e, o, p))
			return;
		snprintf(p, sizeof(p), "%s%s%s", fs, o->debug_dirs[i], path);
		if (try_cand(e, o, p))
			return;
	}
	for (size_t i = 0; e->bn && o->debug_dirs && o->debug_dirs[i]; i++) {
		snprintf(p, sizeof(p), "%s%s/.build-id/%.2s/%s.debug", fs, o->debug_dirs[i], hex, hex + 2);
		if (try_cand(e, o, p))
			return;
	}
	if (path[0] == '/') {
		snprintf(p, sizeof(p), "%s%s", fs, path);
		if (try_cand(e, o, p))
			return;
	}
	if (!kmod_name(path, name, sizeof(name)))
		return;
	static const char *const trees[] = { "/lib/modules/%s", "/usr/lib/debug/lib/modules/%s" };
	for (size_t i = 0; i < 2; i++) {
		char dir[PATH_MAX], fmt[PATH_MAX];
		snprintf(fmt, sizeof(fmt), "%s%s", fs, trees[i]);
		snprintf(dir, sizeof(dir), fmt, k->osrelease);
		if (find_in_tree(dir, name, 8, p, sizeof(p)) && try_cand(e, o, p))
			return;
	}
}

struct sym_dso *sym_kmods_get(struct sym_kmods *k, const struct sym_elf_opts *o, const char *map_name,
			      const uint8_t *bid, size_t bn)
{
	if (bn > 20)
		bn = 20;
	for (size_t i = 0; i < k->n; i++) {
		struct kmod_ent *e = &k->v[i];
		if (e->map_name == map_name && e->bn == bn && (!bn || !memcmp(e->bid, bid, bn)))
			return e->dso;
	}
	if (k->n == k->cap) {
		size_t nc = k->cap ? k->cap * 2 : 16;
		struct kmod_ent *nv = realloc(k->v, nc * sizeof(*nv));
		if (!nv)
			return NULL;
		k->v = nv;
		k->cap = nc;
	}
	struct kmod_ent *e = &k->v[k->n++];
	*e = (struct kmod_ent){ .map_name = map_name, .bn = bn };
	if (bn)
		memcpy(e->bid, bid, bn);
	kmod_find(k, e, o);
	return e->dso;
}

bool sym_kmods_refused(const struct sym_kmods *k, size_t i, const char **map_name, const char **file)
{
	for (size_t j = 0; j < k->n; j++) {
		if (!k->v[j].refused || k->v[j].dso)
			continue;
		if (i-- == 0) {
			*map_name = k->v[j].map_name;
			*file = k->v[j].refused;
			return true;
		}
	}
	return false;
}
