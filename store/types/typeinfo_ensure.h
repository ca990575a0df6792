/* "Make sure the session's samples are attributed to types": the one entry
 * the report, diff and the explorer use before they show types, layouts or
 * verdicts. The attribution is computed on first use, for the handle that
 * asked (a read-only handle keeps it in its TEMP schema), unless the
 * session holds one already. */
#ifndef C2C_STORE_TYPEINFO_ENSURE_H
#define C2C_STORE_TYPEINFO_ENSURE_H

#include <stdbool.h>

#include "store/types/typeinfo.h"

/* Attributes st unless it (or this handle) already holds an attribution. */
int typeinfo_ensure(struct store *st, const struct typeinfo_opts *o, struct c2c_error *err);

struct typeinfo_open_opts {
	bool attribute;             /* attribute when missing (else read as it is) */
	const char *debuginfo_dir;  /* where separate debug files are (NULL: none) */
	const char *vmlinux;        /* -k/--vmlinux (NULL: the image the import used) */
	const char *symfs;          /* a relative vmlinux is under it */
};

/* Opens the session at path read-only for the type views. With
 * o->attribute it is attributed for this handle when it holds no
 * attribution (the file is never changed). Returns 0 with *out set, or the
 * open's error. An attribution that failed leaves the session open:
 * *attr_rc < 0 and attr_err say why (the caller decides whether that is
 * fatal). */
int typeinfo_open(const char *path, const struct typeinfo_open_opts *o, struct store **out, int *attr_rc,
		  struct c2c_error *attr_err, struct c2c_error *err);

/* An explicit user edit (the explorer's `a`, `report --assign`): the
 * assignment is saved in the session at path when the file may be
 * changed; -EROFS when it may not (the caller says "kept for this run"). */
int typeinfo_save(const char *path, uint64_t base, const char *type_name, const char *binary,
		  struct c2c_error *err);

#endif /* C2C_STORE_TYPEINFO_ENSURE_H */
