/* collector/types: open whatever a user names as a type source — raw BTF
 * (/sys/kernel/btf/vmlinux), or an ELF file: its DWARF (in the file or a
 * separate debug file), else its .BTF section (a vmlinux built without
 * DWARF). Decided by the file's magic, not its name. */
#include "collector/types/types.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Whether the ELF file has a .BTF section: asked before libbpf, which
 * would print its own complaint on stderr. */
static bool elf_has_btf(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	Elf *elf;
	bool found = false;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		while (!found && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *name;
			if (!gelf_getshdr(scn, &sh))
				continue;
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			found = name && !strcmp(name, ".BTF") && sh.sh_type != SHT_NOBITS;
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

int types_open_file(struct types_db **out, const char *path, const char *debuginfo_dir,
		    struct c2c_error *err)
{
	unsigned char magic[4] = { 0 };
	struct c2c_error dwarf_err = { 0 };
	FILE *f;
	size_t n;
	int rc;

	*out = NULL;
	if (!path)
		path = "/sys/kernel/btf/vmlinux";
	f = fopen(path, "rb");
	if (!f)
		return c2c_error_set(err, -errno, "cannot open %s: %s", path, strerror(errno));
	n = fread(magic, 1, sizeof(magic), f);
	fclose(f);
	/* BTF's magic is 0xeB9F in the file's byte order */
	if (n >= 2 && ((magic[0] == 0x9f && magic[1] == 0xeb) || (magic[0] == 0xeb && magic[1] == 0x9f)))
		return types_open_btf(out, path, err);
	if (n < 4 || memcmp(magic, "\177ELF", 4))
		return c2c_error_set(err, -EINVAL, "%s is neither BTF nor an ELF file", path);
	rc = types_open_dwarf(out, path, debuginfo_dir, &dwarf_err);
	if (rc == 0 || rc != -ENOENT) {
		if (rc < 0)
			c2c_error_set(err, rc, "%s", dwarf_err.msg);
		return rc;
	}
	/* no DWARF anywhere: a .BTF section will do */
	if (elf_has_btf(path) && types_open_btf(out, path, NULL) == 0)
		return 0;
	return c2c_error_set(err, -ENOENT, "%s; it has no .BTF section either", dwarf_err.msg);
}
