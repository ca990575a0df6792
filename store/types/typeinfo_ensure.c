/* Type attribution on first use (store/types/typeinfo_ensure.h). */
#include "store/types/typeinfo_ensure.h"

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

int typeinfo_open(const char *path, const struct typeinfo_open_opts *o, struct store **out, int *attr_rc,
		  struct c2c_error *attr_err, struct c2c_error *err)
{
	struct typeinfo_opts to;
	struct store *st = NULL;
	int r;

	*attr_rc = 0;
	memset(&to, 0, sizeof(to));
	to.debuginfo_dir = o->debuginfo_dir;
	if (!o->attribute)
		return store_open(out, path, STORE_OPEN_RDONLY, err);
	if (writable_here(path) && store_open(&st, path, STORE_OPEN_APPEND, err) == 0) {
		*attr_rc = typeinfo_ensure(st, &to, attr_err);
		*out = st;
		return 0;
	}
	/* Read-only (another user's file, a read-only folder or mount): read
	 * it as it is when it holds an attribution, else attribute a private
	 * copy for this run; the file is never changed. */
	if ((r = store_open(&st, path, STORE_OPEN_RDONLY, err)) < 0)
		return r;
	if (typeinfo_present(st)) {
		*out = st;
		return 0;
	}
	store_close(st);
	if ((r = store_open(&st, path, STORE_OPEN_SCRATCH, err)) < 0)
		return r;
	*attr_rc = typeinfo_ensure(st, &to, attr_err);
	*out = st;
	return 0;
}
