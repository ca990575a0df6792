/* Checks a tracepoint format's text line by line before libtraceevent sees
 * it. libtraceevent's tokenizer assumes a kernel wrote the text: on a field
 * declaration cut short ("field:unsigned cha[" at the end of the text) or a
 * NUL inside one it compares a missing token and dereferences NULL
 * (fuzz_tracepoint found both). A perf.data's tracing data is outside
 * input, so only text shaped like a kernel's format goes on:
 *
 *   name: <name>
 *   ID: <number>
 *   format:
 *   <tab>field:<declaration>;<tab>offset:<n>;<tab>size:<n>;[<tab>signed:<n>;]
 *   (blank lines)
 *
 * The print fmt is not checked: tp_decoder.c never hands it over. */
#include "collector/tracepoint/tp_priv.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && is_space(*p))
		p++;
	return p;
}

/* p at "word:" (the colon may follow spaces); returns what follows it. */
static const char *expect_word(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(end - p) < n || memcmp(p, word, n))
		return NULL;
	p = skip_space(p + n, end);
	return p < end && *p == ':' ? p + 1 : NULL;
}

static const char *expect_number(const char *p, const char *end)
{
	const char *start;

	p = skip_space(p, end);
	if (p < end && *p == '-')
		p++;
	start = p;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p > start ? p : NULL;
}

static bool is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* An event's name: one token of letters, digits and '_', as
 * libtraceevent reads it. */
static const char *expect_item(const char *p, const char *end)
{
	const char *start;

	p = skip_space(p, end);
	start = p;
	while (p < end && is_word(*p))
		p++;
	return p > start ? p : NULL;
}

/* A declaration: up to its ';', of the characters kernels write (words,
 * spaces, '*' and array brackets, closed and not nested: libtraceevent
 * leaks or fails on others). p follows the ':' of "field:". */
static const char *expect_declaration(const char *p, const char *end)
{
	int depth = 0, words = 0;

	for (; p < end && *p != ';'; p++) {
		if (*p == '[' && depth++ > 0)
			return NULL;
		if (*p == ']' && --depth < 0)
			return NULL;
		if (is_word(*p))
			words += p[-1] == ':' || !is_word(p[-1]);
		else if (!is_space(*p) && *p != '*' && *p != '[' && *p != ']')
			return NULL;
	}
	/* a type and a name at least */
	return p < end && depth == 0 && words >= 2 ? p + 1 : NULL;
}

/* "field:decl;" then "key:n;" groups (offset and size at least). */
static bool field_line(const char *p, const char *end)
{
	bool offset = false, size = false;

	p = skip_space(p, end);
	if ((size_t)(end - p) >= 7 && !memcmp(p, "special", 7))   /* 2.6 kernels */
		p = skip_space(p + 7, end);
	if (p >= end || *p != ':' || !(p = expect_declaration(p + 1, end)))
		return false;
	for (;;) {
		const char *key;

		p = skip_space(p, end);
		if (p == end)
			return offset && size;
		key = p;
		if ((p = expect_word(key, end, "offset")))
			offset = true;
		else if ((p = expect_word(key, end, "size")))
			size = true;
		else if (!(p = expect_word(key, end, "signed")))
			return false;
		if (!(p = expect_number(p, end)) || p == end || *p != ';')
			return false;
		p++;
	}
}

static bool format_line(const char *p, const char *end)
{
	const char *q;

	p = skip_space(p, end);
	if (p == end)
		return true;
	if ((q = expect_word(p, end, "name")))
		return (q = expect_item(q, end)) && skip_space(q, end) == end;
	if ((q = expect_word(p, end, "ID")))
		return (q = expect_number(q, end)) && skip_space(q, end) == end;
	if ((q = expect_word(p, end, "format")))
		return skip_space(q, end) == end;
	if ((size_t)(end - p) >= 5 && !memcmp(p, "field", 5))
		return field_line(p + 5, end);
	return false;
}

int tp_format_check(const char *buf, size_t len, char *why, size_t why_size)
{
	const char *end = buf + len;
	unsigned line = 1;

	/* Control bytes never appear in a kernel's format. */
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)buf[i];
		if (ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') {
			snprintf(why, why_size, "byte %#x at %zu is not text", ch, i);
			return -EINVAL;
		}
	}
	for (const char *p = buf; p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;

		if (!format_line(p, eol)) {
			snprintf(why, why_size, "line %u is not a name, ID, format or field line", line);
			return -EINVAL;
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}
