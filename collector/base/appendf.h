/* Appending formatted text to a fixed buffer without running past its end:
 * the safe form of `len += snprintf(buf + len, size - len, ...)`, whose
 * length keeps growing past the buffer once the text is cut, so the next
 * `size - len` wraps around and the next call writes out of bounds. */
#ifndef C2C_BASE_APPENDF_H
#define C2C_BASE_APPENDF_H

#include <stddef.h>

/* Appends printf output at buf + len (buf holds size bytes in all) and
 * returns the new length, saturated at size: a result of size means the
 * text was cut (buf then holds its first size - 1 bytes, terminated), and
 * further calls append nothing, so `len >= size` still detects the cut. */
size_t c2c_appendf(char *buf, size_t size, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* C2C_BASE_APPENDF_H */
