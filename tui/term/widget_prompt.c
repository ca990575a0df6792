/* The one-line prompt used by search and filter: it lives in the status
 * line and takes keys from the main loop (no nested input loop). */
#include "tui/term/widget.h"
#include "tui/term/term.h"

#include <stdio.h>
#include <string.h>

void prompt_start(struct prompt *p, int purpose, const char *label, const char *initial)
{
	memset(p, 0, sizeof(*p));
	p->active = 1;
	p->purpose = purpose;
	snprintf(p->label, sizeof(p->label), "%s", label);
	if (initial)
		snprintf(p->text, sizeof(p->text), "%s", initial);
	p->len = strlen(p->text);
}

void prompt_select_all(struct prompt *p)
{
	p->selected = p->len > 0;
}

static void prompt_put(struct prompt *p, int cp)
{
	char enc[4];
	size_t n;

	/* Encode the code point as UTF-8. */
	if (cp < 0x80) {
		enc[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		enc[0] = (char)(0xc0 | (cp >> 6));
		enc[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		enc[0] = (char)(0xe0 | (cp >> 12));
		enc[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		enc[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		enc[0] = (char)(0xf0 | (cp >> 18));
		enc[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		enc[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		enc[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	if (p->len + n + 1 > sizeof(p->text))
		return;
	memcpy(p->text + p->len, enc, n);
	p->len += n;
	p->text[p->len] = 0;
}

int prompt_key(struct prompt *p, int key)
{
	if (!p->active)
		return 0;
	if (p->selected) {
		p->selected = 0;
		/* A pre-filled value is replaced by what is typed, so "f" then
		 * "pid:5" never runs into the old text ("3pid:5"). */
		if (key == TK_BACKSPACE || key == TK_DELETE || (key >= 0x20 && key < 0x110000 && key != 0x7f)) {
			p->len = 0;
			p->text[0] = 0;
			if (key == TK_BACKSPACE || key == TK_DELETE)
				return 0;
		}
	}
	switch (key) {
	case TK_ENTER:
		p->active = 0;
		return 1;
	case TK_ESC:
		p->active = 0;
		return -1;
	case TK_BACKSPACE:
	case TK_DELETE:
		/* Remove one whole UTF-8 character. */
		while (p->len > 0) {
			unsigned char c = (unsigned char)p->text[--p->len];
			if ((c & 0xc0) != 0x80)
				break;
		}
		p->text[p->len] = 0;
		return 0;
	default:
		if (key == TK_CTRL('u')) {
			p->len = 0;
			p->text[0] = 0;
		} else if (key >= 0x20 && key < 0x110000 && key != 0x7f) {
			prompt_put(p, key);
		}
		return 0;
	}
}

void prompt_draw(const struct prompt *p, int y, int width)
{
	int lw = term_text(y, 0, width, TH_PROMPT, p->label);
	int avail = width - lw - 1;
	const char *shown = p->text;

	/* Keep the end of a long input visible. */
	while (text_width(shown) > avail && *shown)
		shown++;
	lw += term_text(y, lw, avail, p->selected ? TH_SELECTED : TH_NORMAL, shown);
	term_text(y, lw, 1, TH_SELECTED, " ");
	term_blank(y, lw + 1, width - lw - 1, TH_NORMAL);
}
