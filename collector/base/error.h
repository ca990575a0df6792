/* Error slot shared by the libraries: a function that fails returns a
 * negative errno (or -1) and leaves one human sentence here; the command
 * layer prints it. Libraries never print to stderr themselves. */
#ifndef C2C_ERROR_H
#define C2C_ERROR_H

#include <stdarg.h>

struct c2c_error {
	int code;          /* negative errno or -1 */
	char msg[512];     /* one line, no trailing newline */
};

/* Fills err (when non-NULL) and returns code, so callers can write
 * `return c2c_error_set(err, -EINVAL, "bad magic in %s", path);` */
int c2c_error_set(struct c2c_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int c2c_error_vset(struct c2c_error *err, int code, const char *fmt, va_list ap);

#endif /* C2C_ERROR_H */
