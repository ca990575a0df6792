/* Type attribution on first use (store/types/typeinfo_ensure.h). */
#include "store/types/typeinfo_ensure.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"

int typeinfo_ensure(struct store *st, const struct typeinfo_opts *o, struct c2c_error *err)
{
	struct typeinfo_stats ts;

	if (typeinfo_present(st))
		return 0;
	return typeinfo_attribute(st, o, &ts, err);
}

int typeinfo_open(const char *path, const struct typeinfo_open_opts *o, struct store **out, int *attr_rc,
		  struct c2c_error *attr_err, struct c2c_error *err)
{
	struct typeinfo_opts to;
	int r;

	*attr_rc = 0;
	memset(&to, 0, sizeof(to));
	to.debuginfo_dir = o->debuginfo_dir;
	to.vmlinux = o->vmlinux;
	to.symfs = o->symfs;
	/* Read-only always: an attribution the session lacks is computed
	 * into this connection's TEMP tables (typeinfo.c) and lives as long
	 * as the handle; the file is never changed by reading it. */
	if ((r = store_open(out, path, STORE_OPEN_RDONLY, err)) < 0)
		return r;
	if (o->attribute)
		*attr_rc = typeinfo_ensure(*out, &to, attr_err);
	return 0;
}

/* Whether we may change the file: it and its folder (for the journal)
 * writable by us. SQLite would open it read-only without saying so. */
static bool writable_here(const char *path)
{
	char dir[4200];
	char *slash;

	if (access(path, W_OK) != 0)
		return false;
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		return access(".", W_OK) == 0;
	*(slash == dir ? slash + 1 : slash) = '\0';
	return access(dir, W_OK) == 0;
}

int typeinfo_save(const char *path, uint64_t base, const char *type_name, const char *binary,
		  struct c2c_error *err)
{
	struct store *w = NULL;
	int r;

	if (!writable_here(path))
		return c2c_error_set(err, -EROFS, "%s: read-only", path);
	if ((r = store_open(&w, path, STORE_OPEN_APPEND, err)) < 0)
		return r;
	r = typeinfo_save_assignment(w, base, type_name, binary, err);
	store_close(w);
	return r;
}
