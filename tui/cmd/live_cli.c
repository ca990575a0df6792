/* The command line of `c2ctui record` and `c2ctui live` (perf record's
 * spelling where perf has the option). */
#include "tui/cmd/live_cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void live_cli_usage(const char *cmd, FILE *out)
{
	fprintf(out,
		"usage: c2ctui %s [options] [-- command [args]]\n"
		"  -o FILE          session file to create (default %s)\n"
		"  -f               replace FILE if it exists\n"
		"  -a               system-wide (default without -p/-t/command)\n"
		"  -C CPUS          only these CPUs (e.g. 0-3,8)\n"
		"  -p PID[,PID]     existing processes (and threads they create)\n"
		"  -t TID[,TID]     existing threads only\n"
		"  -F HZ            sampling frequency of memory/software events (default 4000)\n"
		"  -c PERIOD        fixed sampling period instead of -F\n"
		"  --ldlat N        load latency threshold in cycles (default 30)\n"
		"  -D, --duration S stop after S seconds\n"
		"  --no-mem         no memory-sampling PMU events\n"
		"  --no-locks       no lock:contention_begin/end tracepoints\n"
		"  --sched          also sched:sched_switch and sched:sched_migrate_task\n"
		"  --no-callchain   tracepoints without kernel call chains\n"
		"  --sw-event NAME  add a software event (cpu-clock, page-faults, ...)\n"
		"  --mmap-pages N   ring buffer pages per CPU (power of two, default 512)\n"
		"  -k, --vmlinux F  the kernel image (ELF, DWARF for file:line) for kernel code;\n"
		"                   its build-id must be the running kernel's (default: one found\n"
		"                   by that build-id as perf does, else /proc/kallsyms)\n"
		"  --sysfs-root DIR read PMUs from DIR/bus/event_source/devices (tests)\n"
		"  --tracefs DIR    tracefs mount point (default: found in /sys/kernel)\n"
		"  -q               no notes, only errors and the summary\n"
		"Ctrl-C, SIGTERM or SIGHUP stop collection and finalize the session.\n",
		cmd, !strcmp(cmd, "live") ? "live-<time>.db" : "c2ctui.db");
}

static int parse_ids(const char *s, pid_t **out, size_t *n, const char *opt, struct c2c_error *err)
{
	const char *p = s;

	while (*p) {
		char *end;
		long v;
		pid_t *np;
		errno = 0;
		v = strtol(p, &end, 10);
		/* past INT_MAX the pid_t cast wraps: 4294967297 would be pid 1 */
		if (end == p || errno || v <= 0 || v > INT_MAX || (*end && *end != ','))
			return c2c_error_set(err, -EINVAL, "bad id list '%s' for %s", s, opt);
		np = realloc(*out, (*n + 1) * sizeof(*np));
		if (!np)
			return c2c_error_set(err, -ENOMEM, "out of memory");
		*out = np;
		(*out)[(*n)++] = (pid_t)v;
		p = *end ? end + 1 : end;
	}
	return *n ? 0 : c2c_error_set(err, -EINVAL, "empty id list for %s", opt);
}

static int parse_u64(const char *s, uint64_t *v, const char *opt, struct c2c_error *err)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-')
		return c2c_error_set(err, -EINVAL, "bad number '%s' for %s", s, opt);
	*v = x;
	return 0;
}

int live_cli_parse(struct live_cli *cli, int argc, char **argv, const char *default_output,
		   struct c2c_error *err)
{
	size_t len = 0, npids = 0, ntids = 0;
	int i;

	memset(cli, 0, sizeof(*cli));
	cli->output = default_output;
	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	cli->cmdline = malloc(len + 8);
	if (!cli->cmdline)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	strcpy(cli->cmdline, "c2ctui");
	for (i = 0; i < argc; i++) {
		strcat(cli->cmdline, " ");
		strcat(cli->cmdline, argv[i]);
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t v;
		int rc = 0;

#define NEED_VAL() do { if (!val) return c2c_error_set(err, -EINVAL, "%s needs a value", a); i++; } while (0)
		if (!strcmp(a, "--")) {
			if (i + 1 >= argc)
				return c2c_error_set(err, -EINVAL, "'--' must be followed by a command");
			cli->opt.argv = &argv[i + 1];
			break;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			return 1;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			NEED_VAL();
			cli->output = val;
		} else if (!strcmp(a, "-f") || !strcmp(a, "--force")) {
			cli->force = true;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			cli->quiet = true;
		} else if (!strcmp(a, "-a") || !strcmp(a, "--all-cpus")) {
			/* the default */
		} else if (!strcmp(a, "-C") || !strcmp(a, "--cpu")) {
			NEED_VAL();
			cli->opt.cpu_list = val;
		} else if (!strcmp(a, "-p") || !strcmp(a, "--pid")) {
			NEED_VAL();
			rc = parse_ids(val, &cli->pids, &npids, "-p", err);
		} else if (!strcmp(a, "-t") || !strcmp(a, "--tid")) {
			NEED_VAL();
			rc = parse_ids(val, &cli->tids, &ntids, "-t", err);
		} else if (!strcmp(a, "-F") || !strcmp(a, "--freq")) {
			NEED_VAL();
			rc = parse_u64(val, &cli->opt.freq, "-F", err);
			if (!rc && cli->opt.freq == 0)
				rc = c2c_error_set(err, -EINVAL, "-F needs a frequency above 0");
		} else if (!strcmp(a, "-c") || !strcmp(a, "--count")) {
			NEED_VAL();
			rc = parse_u64(val, &cli->opt.period, "-c", err);
			if (!rc && cli->opt.period == 0)
				rc = c2c_error_set(err, -EINVAL, "-c needs a period above 0");
		} else if (!strcmp(a, "--ldlat")) {
			NEED_VAL();
			rc = parse_u64(val, &v, "--ldlat", err);
			if (!rc && (v == 0 || v > 65535))
				rc = c2c_error_set(err, -EINVAL, "--ldlat must be 1..65535");
			cli->opt.ldlat = (unsigned)v;
		} else if (!strcmp(a, "-D") || !strcmp(a, "--duration")) {
			char *end;
			NEED_VAL();
			cli->duration = strtod(val, &end);
			/* record waits in int milliseconds; inf and nan are no durations */
			if (end == val || *end || !(cli->duration > 0 && cli->duration <= INT_MAX / 1000))
				rc = c2c_error_set(err, -EINVAL, "bad duration '%s' (seconds, at most %d)", val,
						   INT_MAX / 1000);
		} else if (!strcmp(a, "--no-mem")) {
			cli->opt.no_mem = true;
		} else if (!strcmp(a, "--no-locks")) {
			cli->opt.no_locks = true;
		} else if (!strcmp(a, "--sched")) {
			cli->opt.sched = true;
		} else if (!strcmp(a, "--no-callchain")) {
			cli->opt.no_callchain = true;
		} else if (!strcmp(a, "--sw-event")) {
			NEED_VAL();
			cli->opt.sw_event = val;
		} else if (!strcmp(a, "--mmap-pages")) {
			NEED_VAL();
			rc = parse_u64(val, &v, "--mmap-pages", err);
			if (!rc && (v == 0 || (v & (v - 1)) || v > 65536))
				rc = c2c_error_set(err, -EINVAL, "--mmap-pages must be a power of two");
			cli->opt.mmap_pages = (unsigned)v;
		} else if (!strcmp(a, "-k") || !strcmp(a, "--vmlinux")) {
			NEED_VAL();
			cli->vmlinux = val;
		} else if (!strcmp(a, "--tracefs")) {
			NEED_VAL();
			cli->opt.tracefs = val;
		} else if (!strcmp(a, "--sysfs-root")) {
			NEED_VAL();
			cli->opt.sysfs_root = val;
		} else {
			return c2c_error_set(err, -EINVAL, "unknown option '%s' (try --help)", a);
		}
#undef NEED_VAL
		if (rc < 0)
			return rc;
	}
	cli->opt.pids = cli->pids;
	cli->opt.nr_pids = npids;
	cli->opt.tids = cli->tids;
	cli->opt.nr_tids = ntids;
	return 0;
}

void live_cli_fini(struct live_cli *cli)
{
	free(cli->cmdline);
	free(cli->pids);
	free(cli->tids);
	memset(cli, 0, sizeof(*cli));
}
