/* Type attribution on first use (store/types/typeinfo_ensure.h). */
#include "store/types/typeinfo_ensure.h"

#include <string.h>

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
	struct store *st = NULL;

	*attr_rc = 0;
	if (o->attribute && store_open(&st, path, STORE_OPEN_APPEND, err) == 0) {
		struct typeinfo_opts to;
		memset(&to, 0, sizeof(to));
		to.debuginfo_dir = o->debuginfo_dir;
		*attr_rc = typeinfo_ensure(st, &to, attr_err);
		*out = st;
		return 0;
	}
	return store_open(out, path, STORE_OPEN_RDONLY, err);
}
