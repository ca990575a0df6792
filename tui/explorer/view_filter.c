/* The filter language of `f`: "sym:NAME cpu:N node:N pid:N tid:N hitm:N",
 * a word without a known key is a symbol (C++ names keep their "::"). One
 * place parses it and one prints it back (summary_filter_text), so the
 * prompt can be pre-filled with the current filters. */
#include "tui/explorer/view.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_num(const char *s, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 0);
	return !errno && end != s && *end == 0 && *out >= 0 && *out <= INT32_MAX;
}

int view_filter_parse(const char *text, struct store_filter *f, char *sym, size_t sym_size, char *msg,
		      size_t msg_size)
{
	static const char *const keys[] = { "sym", "symbol", "cpu", "node", "pid", "tid", "thread", "hitm" };
	struct store_filter out;
	char buf[256], *save = NULL, *tok;
	long n;

	store_filter_init(&out);
	out.time_from = f->time_from;
	out.time_to = f->time_to;
	if (sym_size)
		sym[0] = 0;
	snprintf(buf, sizeof(buf), "%s", text ? text : "");
	for (tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		char *colon = strchr(tok, ':');
		const char *key = "sym", *val = tok;

		if (colon && colon[1] != ':') {
			for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
				if (strlen(keys[i]) == (size_t)(colon - tok) && !strncmp(tok, keys[i], (size_t)(colon - tok))) {
					*colon = 0;
					key = tok;
					val = colon + 1;
					break;
				}
		}
		if (!strcmp(key, "sym") || !strcmp(key, "symbol")) {
			snprintf(sym, sym_size, "%s", val);
			continue;
		}
		if (!parse_num(val, &n)) {
			snprintf(msg, msg_size, "filter: '%s' is not a number (try cpu:3 node:1 pid:42 tid:43 hitm:5)",
				 val);
			return -EINVAL;
		}
		if (!strcmp(key, "cpu"))
			out.cpu = (int32_t)n;
		else if (!strcmp(key, "node"))
			out.node = (int32_t)n;
		else if (!strcmp(key, "pid"))
			out.pid = (int32_t)n;
		else if (!strcmp(key, "tid") || !strcmp(key, "thread"))
			out.tid = (int32_t)n;
		else
			out.min_hitm = (uint64_t)n;
	}
	out.symbol = sym_size && sym[0] ? sym : NULL;
	*f = out;
	return 0;
}
