/* The error slot (see error.h). */
#include "collector/base/error.h"

#include <stdio.h>

int c2c_error_vset(struct c2c_error *err, int code, const char *fmt, va_list ap)
{
	if (err) {
		err->code = code;
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	}
	return code;
}

int c2c_error_set(struct c2c_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	c2c_error_vset(err, code, fmt, ap);
	va_end(ap);
	return code;
}
