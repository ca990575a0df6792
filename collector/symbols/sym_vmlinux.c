/* The kernel image (vmlinux) for kernel code and data addresses, as perf
 * finds it (util/symbol.c dso__load_kernel_sym): the file given with
 * -k/--vmlinux, else the first file in perf's usual places whose build-id
 * note equals the recording's kernel build-id (BUILD_ID feature of
 * "[kernel.kallsyms]"). A found file without that exact build-id is never
 * used: a vmlinux of another build names the wrong functions. The places
 * are read under --symfs (perf reads its vmlinux_path as is; here symfs is
 * the root of the recording machine's files, debug root included). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "collector/symbols/sym_priv.h"

struct sym_vmlinux {
	char *given;             /* -k FILE (absolute), NULL: search by build-id */
	char *osrelease;         /* the recording's uname -r (NULL: this host's) */
	bool tried;
	char found_buf[4200];    /* the file last tried (the one opened, once dso is set) */
	struct sym_dso *dso;     /* the image opened (owned), NULL when none */
	char *path;              /* its path (owned), NULL when none */
	int status;              /* enum sym_status of the given file */
};

struct sym_vmlinux *sym_vmlinux_new(const char *given, const char *symfs, const char *osrelease)
{
	struct sym_vmlinux *v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->status = SYM_NO_FILE;
	if (given) {
		/* perf's dso__load_vmlinux: an absolute path as it is, a
		 * relative one under --symfs (else the working directory). */
		char abs[PATH_MAX + 4096];
		if (given[0] != '/' && symfs && *symfs)
			snprintf(abs, sizeof(abs), "%s/%s", symfs, given);
		else if (given[0] != '/' && realpath(given, abs))
			;
		else
			snprintf(abs, sizeof(abs), "%s", given);
		given = abs;
		v->given = strdup(given);
	}
	if (osrelease && *osrelease)
		v->osrelease = strdup(osrelease);
	if ((given && !v->given) || (osrelease && *osrelease && !v->osrelease)) {
		sym_vmlinux_free(v);
		return NULL;
	}
	return v;
}

void sym_vmlinux_free(struct sym_vmlinux *v)
{
	if (!v)
		return;
	sym_dso_free(v->dso);
	free(v->path);
	free(v->given);
	free(v->osrelease);
	free(v);
}

/* Opens path as the image; with exact, only when its build-id note equals
 * bid. Returns the dso (owned by the caller) or NULL. */
static struct sym_dso *try_image(const char *path, const struct sym_elf_opts *o,
				 const uint8_t *bid, size_t bn, bool exact, int *status)
{
	struct sym_dso *d = sym_dso_new(path, bid, bn);
	if (!d)
		return NULL;
	sym_dso_load(d, o);
	*status = sym_dso_status(d);
	uint8_t fb[20];
	size_t fn = sym_dso_file_build_id(d, fb);
	if (*status == SYM_OK && exact && (fn != bn || memcmp(fb, bid, bn) != 0))
		*status = SYM_BUILD_ID_MISMATCH;
	if (*status != SYM_OK) {
		sym_dso_free(d);
		return NULL;
	}
	return d;
}

static void search(struct sym_vmlinux *v, const struct sym_elf_opts *o, const uint8_t *bid, size_t bn)
{
	struct utsname u;
	const char *rel = v->osrelease;
	if (!rel && uname(&u) == 0)
		rel = u.release;
	char hex[41], p[4096];
	for (size_t i = 0; i < bn; i++)
		sprintf(hex + 2 * i, "%02x", bid[i]);
	int st;
	for (size_t i = 0; o->debug_dirs && o->debug_dirs[i] && !v->dso; i++) {
		snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s.debug", o->debug_dirs[i], hex, hex + 2);
		v->dso = try_image(p, o, bid, bn, true, &st);
		snprintf(v->found_buf, sizeof(v->found_buf), "%s%s", o->symfs ? o->symfs : "", p);
	}
	/* perf's vmlinux_path__init, with the recording's release. */
	static const char *const fmts[] = {
		"/usr/lib/debug/boot/vmlinux-%s", "/boot/vmlinux-%s", "/lib/modules/%s/build/vmlinux",
		"/usr/lib/debug/lib/modules/%s/vmlinux", "/usr/lib/debug/boot/vmlinux-%s.debug", "/boot/vmlinux",
	};
	for (size_t i = 0; rel && i < sizeof(fmts) / sizeof(fmts[0]) && !v->dso; i++) {
		snprintf(p, sizeof(p), fmts[i], rel);
		v->dso = try_image(p, o, bid, bn, true, &st);
		snprintf(v->found_buf, sizeof(v->found_buf), "%s%s", o->symfs ? o->symfs : "", p);
	}
}

struct sym_dso *sym_vmlinux_get(struct sym_vmlinux *v, const struct sym_elf_opts *o,
				const uint8_t *bid, size_t bn)
{
	if (!v->tried) {
		v->tried = true;
		/* Already the path to open: never under symfs again. */
		struct sym_elf_opts as_is = *o;
		as_is.symfs = "";
		if (v->given)
			v->dso = try_image(v->given, &as_is, bid, bn, false, &v->status);
		if (v->given)
			snprintf(v->found_buf, sizeof(v->found_buf), "%s", v->given);
		else if (bn)
			search(v, o, bid, bn);
		if (v->dso && !(v->path = strdup(v->found_buf))) {
			sym_dso_free(v->dso);
			v->dso = NULL;
		}
	}
	return v->dso;
}

const char *sym_vmlinux_path(const struct sym_vmlinux *v)
{
	return v->dso ? v->path : NULL;
}

struct sym_dso *sym_vmlinux_opened(const struct sym_vmlinux *v)
{
	return v->dso;
}

/* A dso reads a path as recorded (absolute): a relative one is made
 * absolute from the working directory first. */
static struct sym_dso *dso_at(const char *path)
{
	char abs[PATH_MAX];

	if (path[0] != '/' && realpath(path, abs))
		path = abs;
	return sym_dso_new(path, NULL, 0);
}

size_t symtab_file_build_id(const char *path, uint8_t out[20])
{
	static const char *const no_dirs[] = { NULL };
	struct sym_elf_opts o = { .symfs = "", .debug_dirs = no_dirs };
	struct sym_dso *d = dso_at(path);
	size_t n = 0;

	if (!d)
		return 0;
	sym_dso_load(d, &o);
	n = sym_dso_file_build_id(d, out);
	sym_dso_free(d);
	return n;
}

bool sym_kaslr_shift(struct sym_dso *img, const char *ref, uint64_t ref_addr, uint64_t *shift)
{
	uint64_t at;

	*shift = 0;
	if (!img || !ref || !*ref || !ref_addr || !sym_dso_symbol_value(img, ref, &at))
		return false;
	/* unsigned: kernel addresses have the top bit set, the shift wraps
	 * the same way the ip - shift that undoes it does */
	*shift = ref_addr - at;
	return true;
}

int symtab_kernel_shift(const char *image, const char *ref, uint64_t ref_addr, uint64_t *shift,
			struct c2c_error *err)
{
	static const char *const no_dirs[] = { NULL };
	struct sym_elf_opts o = { .symfs = "", .debug_dirs = no_dirs };
	struct sym_dso *d = dso_at(image);
	int rc = 0;

	*shift = 0;
	if (!d)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	sym_dso_load(d, &o);
	if (sym_dso_status(d) != SYM_OK)
		rc = c2c_error_set(err, -ENOENT, "%s: cannot be read as an ELF image", image);
	else if (!sym_kaslr_shift(d, ref ? ref : "_text", ref_addr, shift))
		rc = c2c_error_set(err, -ENOENT, "%s has no symbol %s to place it by", image,
				   ref ? ref : "_text");
	sym_dso_free(d);
	return rc;
}

int sym_vmlinux_given_status(const struct sym_vmlinux *v)
{
	return v->status;
}

const char *sym_vmlinux_given(const struct sym_vmlinux *v)
{
	return v->given;
}

/* /sys/kernel/notes: the running kernel's ELF notes (4-byte aligned
 * namesz, descsz, type, name, desc), as perf's sysfs__read_build_id. */
size_t symtab_host_kernel_build_id(uint8_t out[20])
{
	uint8_t buf[4096];
	FILE *f = fopen("/sys/kernel/notes", "rb");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf), f), off = 0;
	fclose(f);
	while (off + 12 <= n) {
		uint32_t nsz, dsz, type;
		memcpy(&nsz, buf + off, 4);
		memcpy(&dsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		size_t name = off + 12, desc = name + ((nsz + 3u) & ~3u);
		if (desc + dsz > n || desc < name)
			return 0;
		if (type == 3 /* NT_GNU_BUILD_ID */ && nsz == 4 && !memcmp(buf + name, "GNU", 4) && dsz <= 20) {
			memcpy(out, buf + desc, dsz);
			return dsz;
		}
		off = desc + ((dsz + 3u) & ~3u);
	}
	return 0;
}
