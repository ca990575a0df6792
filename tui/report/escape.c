/* String escaping for the CSV and JSON printers (tui/report/escape.h). */
#include "tui/report/escape.h"

void report_csv_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* Length of the valid UTF-8 sequence at p (0 when invalid). */
static size_t utf8_len(const unsigned char *p)
{
	size_t n = *p >= 0xf0 && *p <= 0xf4 ? 4 : *p >= 0xe0 && *p <= 0xef ? 3 : *p >= 0xc2 && *p <= 0xdf ? 2 : 0;

	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* A JSON string. Names from recordings (comm, paths) may hold any bytes:
 * bytes that are not UTF-8 are written as the Latin-1 code point, so the
 * output always parses. */
void report_json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		size_t n;

		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\u%04x", *p);
		else if (*p < 0x80)
			fputc(*p, out);
		else if ((n = utf8_len(p)) != 0) {
			fwrite(p, 1, n, out);
			p += n - 1;
		} else
			fprintf(out, "\\u%04x", *p);
	}
	fputc('"', out);
}
