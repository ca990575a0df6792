/* Heat bars: a share drawn as a bar, in eighth blocks when the terminal
 * speaks UTF-8 and in ASCII otherwise, coloured by the theme's heat. */
#include "tui/term/widget.h"
#include "tui/term/term.h"

#include <math.h>
#include <string.h>

void bar_render(char *buf, size_t size, double frac, int width, int utf8)
{
	/* U+2588 full block down to U+258F one eighth. */
	static const char *const eighths[8] = {
		"", "\xe2\x96\x8f", "\xe2\x96\x8e", "\xe2\x96\x8d",
		"\xe2\x96\x8c", "\xe2\x96\x8b", "\xe2\x96\x8a", "\xe2\x96\x89",
	};
	static const char full[] = "\xe2\x96\x88";
	size_t out = 0;
	long units, whole, part;
	int used = 0;

	if (size == 0)
		return;
	if (!(frac > 0.0))
		frac = 0.0;
	if (frac > 1.0)
		frac = 1.0;
	if (width < 0)
		width = 0;
	units = lround(frac * width * (utf8 ? 8 : 2));
	whole = units / (utf8 ? 8 : 2);
	part = units % (utf8 ? 8 : 2);
	/* A nonzero share is never drawn as nothing. */
	if (frac > 0.0 && units == 0 && width > 0)
		part = 1;
	for (long i = 0; i < whole && used < width; i++, used++) {
		const char *cell = utf8 ? full : "#";
		size_t n = strlen(cell);
		if (out + n + 1 > size)
			break;
		memcpy(buf + out, cell, n);
		out += n;
	}
	if (part && used < width) {
		const char *cell = utf8 ? eighths[part] : ":";
		size_t n = strlen(cell);
		if (out + n + 1 <= size) {
			memcpy(buf + out, cell, n);
			out += n;
			used++;
		}
	}
	while (used < width && out + 2 <= size) {
		buf[out++] = ' ';
		used++;
	}
	buf[out] = 0;
}

void bar_draw(int y, int x, int width, double frac, double heat)
{
	char buf[512];

	if (width <= 0)
		return;
	if (width > 160)
		width = 160;
	bar_render(buf, sizeof(buf), frac, width, text_is_utf8());
	term_text(y, x, width, theme_heat(heat), buf);
}
