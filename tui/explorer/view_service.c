/* What the loop offers every view, kept apart from the loop (view_stack.c)
 * so that views depend on it and on no other view: the status-line
 * message, the reply an action fills for the loop, the wake fd background
 * jobs write, and bench timing. It names no view. */
#include "tui/explorer/view.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void view_message(struct explorer *ex, int error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ex->message, sizeof(ex->message), fmt, ap);
	va_end(ap);
	ex->message_error = error;
	ex->dirty |= DIRTY_STATUS;
}

void view_reply_message(struct view_reply *r, int error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->message, sizeof(r->message), fmt, ap);
	va_end(ap);
	r->message_error = error;
}

struct view_query *view_reply_push(struct view_reply *r, enum view_kind kind)
{
	memset(&r->push, 0, sizeof(r->push));
	r->push.kind = kind;
	r->push.cpu = -1;
	return &r->push;
}

int view_wake_fd(struct explorer *ex)
{
	return ex->wake[1];
}

void view_timing(const char *name, double ms)
{
	const char *path = getenv("C2CTUI_TIMING");
	FILE *f;

	if (!path || !*path || !(f = fopen(path, "a")))
		return;
	fprintf(f, "%s_ms=%.3f\n", name, ms);
	fclose(f);
}
