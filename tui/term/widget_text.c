/* Text measuring and clipping in display columns, and the short number
 * formats shared by every table. */
#include "tui/term/widget.h"

#include <stdio.h>
#include <string.h>
#include <wchar.h>

static int utf8_on;

void text_set_utf8(int on)
{
	utf8_on = on;
}

int text_is_utf8(void)
{
	return utf8_on;
}

/* One character of s: its byte length and display columns. Invalid UTF-8
 * counts as one byte shown as '?'. */
static size_t text_char(const char *s, int *cols, int *bad)
{
	mbstate_t st;
	wchar_t wc;
	size_t n;
	int w;

	*bad = 0;
	if (!utf8_on || (unsigned char)*s < 0x80) {
		*cols = 1;
		*bad = (unsigned char)*s >= 0x80 || (unsigned char)*s < 0x20;
		return 1;
	}
	memset(&st, 0, sizeof(st));
	n = mbrtowc(&wc, s, strlen(s), &st);
	if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
		*cols = 1;
		*bad = 1;
		return 1;
	}
	w = wcwidth(wc);
	if (w < 0) {
		*cols = 1;
		*bad = 1;
		return n;
	}
	*cols = w;
	return n;
}

int text_width(const char *s)
{
	int w = 0, c, bad;

	while (s && *s) {
		s += text_char(s, &c, &bad);
		w += c;
	}
	return w;
}

size_t text_clip(char *buf, size_t size, const char *s, int width, int *cols)
{
	const char *marker = utf8_on ? "\xe2\x80\xa6" : "~";
	size_t out = 0, mlen = strlen(marker);
	int used = 0, total = text_width(s), limit, c, bad;

	if (size == 0)
		return 0;
	buf[0] = 0;
	*cols = 0;
	if (width <= 0 || !s)
		return 0;
	/* Leave one column for the marker when the text is too wide. */
	limit = total > width ? width - 1 : width;
	while (*s) {
		size_t n = text_char(s, &c, &bad);

		if (used + c > limit || out + n + mlen + 1 > size)
			break;
		if (bad) {
			buf[out++] = '?';
		} else {
			memcpy(buf + out, s, n);
			out += n;
		}
		used += c;
		s += n;
	}
	if (total > width && out + mlen + 1 <= size) {
		memcpy(buf + out, marker, mlen);
		out += mlen;
		used++;
	}
	buf[out] = 0;
	*cols = used;
	return out;
}

void text_count(char *buf, size_t size, uint64_t v, int width)
{
	static const char units[] = "kMGTPE";
	double d = (double)v;
	int u = -1;

	snprintf(buf, size, "%llu", (unsigned long long)v);
	if (width <= 0 || (int)strlen(buf) <= width)
		return;
	while (d >= 1000.0 && u < 5) {
		d /= 1000.0;
		u++;
		snprintf(buf, size, "%.1f%c", d, units[u]);
		if ((int)strlen(buf) <= width)
			return;
		snprintf(buf, size, "%.0f%c", d, units[u]);
		if ((int)strlen(buf) <= width)
			return;
	}
}

void text_pct(char *buf, size_t size, double part, double whole)
{
	/* "100.00%" would not fit the 6 columns every share gets. */
	if (whole > 0 && part >= whole)
		snprintf(buf, size, "100%%");
	else if (whole > 0)
		snprintf(buf, size, "%.2f%%", 100.0 * part / whole);
	else if (size)
		buf[0] = 0;
}
