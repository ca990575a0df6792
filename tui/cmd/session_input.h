/* What `open` and `report` were given: a session file, opened read-only as
 * it is, or a perf.data (file or pipe format, either byte order) imported
 * first, into a temporary session removed by session_input_close or into
 * a file the user keeps. Ctrl-C / SIGTERM during that import stop the
 * import (not the process) with -EINTR. */
#ifndef C2C_TUI_SESSION_INPUT_H
#define C2C_TUI_SESSION_INPUT_H

#include <stdbool.h>

#include "collector/base/error.h"

struct store;
struct import_progress;
struct import_result;

struct session_input {
	struct store *store;
	bool imported;                   /* the input was a perf.data */
	char tmpdir[64];                 /* "" unless a temporary session was made */
	char tmpdb[128];
};

struct session_input_opts {
	const char *tmp_name;            /* the temporary directory's name: /tmp/c2ctui-NAME.XXXXXX */
	const char *keep;                /* import a perf.data into this file and keep it (NULL: temporary) */
	bool progress;                   /* draw the import's progress line (stderr, when a terminal) */
	const char *symfs;               /* the import's --symfs (NULL: paths as recorded) */
	const char *kallsyms;            /* the import's --kallsyms (NULL: the default) */
	const char *vmlinux;             /* the import's -k/--vmlinux (NULL: found by build-id) */
};

int session_input_open(struct session_input *in, const char *path, const struct session_input_opts *o,
		       struct c2c_error *err);
void session_input_close(struct session_input *in);

/* Open the input for command CMD ("c2ctui CMD: ..."), saying on stderr why
 * when it cannot be opened (-1) and, beside output that stays as perf
 * prints it, that the session is not complete when it is not. */
int session_input_open_for(struct session_input *in, const char *cmd, const char *path,
			   const struct session_input_opts *o);

/* The import progress line on stderr, redrawn in place; only when stderr
 * is a terminal. An import_options.progress callback (ctx unused). */
void cmd_import_progress(void *ctx, const struct import_progress *p);

/* After an import: what perf report says about the same recording, on
 * stderr and in perf's words (LOST chunks, the share of samples lost over
 * 5%), then throttling; from the session at output. */
void cmd_import_warnings(const char *output, const struct import_result *res);

#endif /* C2C_TUI_SESSION_INPUT_H */
