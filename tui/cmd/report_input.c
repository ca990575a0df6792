/* Opens what `c2ctui report` was given: a session file as it is, or a
 * perf.data (file or pipe format, either byte order) imported first into a
 * temporary session through the import pipeline. Anything else is refused
 * by store_open with one sentence naming the file. */
#include "tui/report/report.h"
#include "store/ingest/import_pipeline.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Ctrl-C during the temporary import: stop it, then remove the temporary
 * session instead of leaving it behind. */
static volatile sig_atomic_t import_stop;

static void on_signal(int sig)
{
	(void)sig;
	import_stop = 1;
}

/* perf.data magic, both byte orders ("PERFILE2" read little/big endian). */
static bool is_perf_data(const char *path)
{
	char magic[8];
	FILE *f = fopen(path, "rb");
	bool yes;

	if (!f)
		return false;
	yes = fread(magic, 1, sizeof(magic), f) == sizeof(magic) &&
	      (!memcmp(magic, "PERFILE2", 8) || !memcmp(magic, "2ELIFREP", 8));
	fclose(f);
	return yes;
}

int report_input_open(struct report_input *in, const char *path, struct c2c_error *err)
{
	int rc;

	memset(in, 0, sizeof(*in));
	if (access(path, R_OK) != 0)
		return c2c_error_set(err, -errno, "%s: %s", path, strerror(errno));
	if (!is_perf_data(path))
		return store_open(&in->store, path, STORE_OPEN_RDONLY, err);

	snprintf(in->tmpdir, sizeof(in->tmpdir), "/tmp/c2ctui-report.XXXXXX");
	if (!mkdtemp(in->tmpdir)) {
		rc = -errno;
		in->tmpdir[0] = '\0';
		return c2c_error_set(err, rc, "cannot make a temporary directory: %s", strerror(-rc));
	}
	snprintf(in->tmpdb, sizeof(in->tmpdb), "%s/session.db", in->tmpdir);
	{
		struct import_options io = { .no_progress = true, .stop = &import_stop };
		struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;

		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, &old_int);
		sigaction(SIGTERM, &sa, &old_term);
		rc = import_pipeline_file(path, in->tmpdb, &io, err);
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		if (rc == -EINTR)
			rc = c2c_error_set(err, -EINTR, "%s: interrupted while importing; no report", path);
	}
	if (rc < 0) {
		report_input_close(in);
		return rc;
	}
	rc = store_open(&in->store, in->tmpdb, STORE_OPEN_RDONLY, err);
	if (rc < 0)
		report_input_close(in);
	return rc;
}

void report_input_close(struct report_input *in)
{
	static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
	char p[128];

	store_close(in->store);
	in->store = NULL;
	if (!in->tmpdir[0])
		return;
	for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", in->tmpdb, suffix[i]);
		unlink(p);
	}
	rmdir(in->tmpdir);
	in->tmpdir[0] = '\0';
}
