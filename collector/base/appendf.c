/* c2c_appendf (collector/base/appendf.h). */
#include "collector/base/appendf.h"

#include <stdarg.h>
#include <stdio.h>

size_t c2c_appendf(char *buf, size_t size, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (len >= size)
		return size;
	va_start(ap, fmt);
	n = vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
	if (n < 0) {  /* an encoding error: keep what was there */
		buf[len] = '\0';
		return len;
	}
	return (size_t)n >= size - len ? size : len + (size_t)n;
}
