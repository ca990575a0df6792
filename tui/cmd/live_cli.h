/* The command line shared by `c2ctui record` and `c2ctui live`. */
#ifndef C2C_TUI_LIVE_CLI_H
#define C2C_TUI_LIVE_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "collector/base/error.h"
#include "collector/live/live.h"

struct live_cli {
	struct live_options opt;
	const char *output;          /* -o */
	bool force;                  /* -f: replace an existing output */
	bool quiet;                  /* -q */
	double duration;             /* -D/--duration seconds, 0 = until stopped */
	const char *vmlinux;         /* -k/--vmlinux: the kernel image for kernel code */
	char *cmdline;               /* the whole command line (malloc'd) */
	pid_t *pids, *tids;          /* malloc'd lists behind opt.pids/opt.tids */
};

/* Parses argv (argv[0] is the sub-command). Returns 0, 1 when --help was
 * printed, or -EINVAL with err set. live_cli_fini frees. */
int live_cli_parse(struct live_cli *cli, int argc, char **argv, const char *default_output,
		   struct c2c_error *err);
void live_cli_fini(struct live_cli *cli);
void live_cli_usage(const char *cmd, FILE *out);

#endif /* C2C_TUI_LIVE_CLI_H */
