/* "Make sure the session's samples are attributed to types": the one entry
 * the report, diff and the explorer use before they show types, layouts or
 * verdicts. The attribution is computed on first use and saved in the
 * session. */
#ifndef C2C_STORE_TYPEINFO_ENSURE_H
#define C2C_STORE_TYPEINFO_ENSURE_H

#include <stdbool.h>

#include "store/types/typeinfo.h"

/* Attributes st (opened writable) unless it already holds an attribution. */
int typeinfo_ensure(struct store *st, const struct typeinfo_opts *o, struct c2c_error *err);

struct typeinfo_open_opts {
	bool attribute;             /* attribute when missing (else read as it is) */
	const char *debuginfo_dir;  /* where separate debug files are (NULL: none) */
};

/* Opens the session at path for the type views. With o->attribute it is
 * opened writable and attributed when it holds no attribution yet (saved in
 * it); a file we may not change is read as it is when it holds one, else a
 * private copy is attributed for this run (the file stays as it was). Returns 0
 * with *out set, or the open's error. An attribution that failed leaves
 * the session open: *attr_rc < 0 and attr_err say why (the caller decides
 * whether that is fatal). */
int typeinfo_open(const char *path, const struct typeinfo_open_opts *o, struct store **out, int *attr_rc,
		  struct c2c_error *attr_err, struct c2c_error *err);

#endif /* C2C_STORE_TYPEINFO_ENSURE_H */
