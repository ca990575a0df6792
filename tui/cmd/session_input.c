/* Opening a session or importing a perf.data first (tui/cmd/session_input.h):
 * one helper for `open` and `report`. */
#include "tui/cmd/session_input.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/base/session_files.h"
#include "store/ingest/import_pipeline.h"
#include "store/store.h"

static volatile sig_atomic_t import_stop;

static void on_signal(int sig)
{
	import_stop = sig;
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

void cmd_import_progress(void *ctx, const struct import_progress *p)
{
	(void)ctx;
	if (!isatty(STDERR_FILENO))
		return;
	fprintf(stderr, "\rimporting %s: %" PRIu64 " records, %" PRIu64 " samples, %.1f s%s", p->path, p->records,
		p->samples, p->seconds, p->last ? "\n" : "");
	fflush(stderr);
}

/* Says on stderr what perf report says about the same recording, in
 * perf's words so the two read alike: LOST records, and the share of
 * samples lost when LOST_SAMPLES records say more than 5% (perf's rule);
 * then throttling, from the counters the import stored in the session. */
void cmd_import_warnings(const char *output, const struct import_result *res)
{
	struct store_summary sum;
	struct store_filter f;
	struct c2c_error err = { 0 };
	struct store *st = NULL;

	/* Each module once (perf drops such a file without a word; its code
	 * then has only kallsyms names, which would look like a bug). */
	for (const char *l = res->kmod_refused; res->kmods_refused && *l;) {
		size_t n = strcspn(l, "\n");
		fprintf(stderr, "Warning: kernel module %.*s has another build-id than the recorded one: "
			"not used (its code is named from kallsyms, if at all)\n", (int)n, l);
		l += n + (l[n] == '\n');
	}
	if (store_open(&st, output, STORE_OPEN_RDONLY, &err) < 0)
		goto out;
	store_filter_init(&f);
	if (store_query_summary(st, &f, &sum, &err) < 0)
		goto out;
	if (sum.counters[STORE_CNT_LOST])
		fprintf(stderr, "Warning: Processed %" PRIu64 " events and lost %" PRIu64 " chunks! Check IO/CPU overload!\n",
			res->records, sum.counters[STORE_CNT_LOST]);
	if (res->lost_samples_records) {
		double total = (double)(res->samples + res->lost_samples_records);
		double drop = (double)res->lost_samples_records / total;
		if (drop > 0.05)
			fprintf(stderr, "Warning: Processed %" PRIu64 " samples and lost %3.2f%%!\n",
				res->samples + res->lost_samples_records, drop * 100.0);
	}
	if (sum.counters[STORE_CNT_THROTTLE])
		fprintf(stderr, "Warning: the kernel throttled sampling %" PRIu64 " time%s (%" PRIu64 " unthrottled; "
			"kernel.perf_event_max_sample_rate): samples are missing from those intervals\n",
			sum.counters[STORE_CNT_THROTTLE], sum.counters[STORE_CNT_THROTTLE] == 1 ? "" : "s",
			sum.counters[STORE_CNT_UNTHROTTLE]);
out:
	store_close(st);
}

/* Imports with Ctrl-C stopping the import, not the process: the import
 * commits what it has and returns -EINTR. */
static int import_stoppable(const char *path, const char *db, const struct session_input_opts *o,
			    struct c2c_error *err)
{
	struct import_options io;
	struct import_result res;
	struct sigaction sa, old_int, old_term;
	int rc;

	memset(&io, 0, sizeof(io));
	io.stop = &import_stop;
	io.symfs = o->symfs;
	io.kallsyms = o->kallsyms;
	io.vmlinux = o->vmlinux;
	if (o->progress)
		io.progress = cmd_import_progress;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	import_stop = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	rc = import_pipeline_file_ex(path, db, &io, &res, err);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (res.session_valid)
		cmd_import_warnings(db, &res);  /* as perf report warns on the same file */
	/* A damaged perf.data gives what could be read, as perf does; the
	 * session says it is partial wherever it is shown. Ctrl-C stops. */
	if (rc < 0 && rc != -EINTR && res.session_valid)
		return 0;
	return rc;
}

int session_input_open(struct session_input *in, const char *path, const struct session_input_opts *o,
		       struct c2c_error *err)
{
	const char *db = path;
	int rc;

	memset(in, 0, sizeof(*in));
	if (access(path, R_OK) != 0)
		return c2c_error_set(err, -errno, "%s: %s", path, strerror(errno));
	if (is_perf_data(path)) {
		in->imported = true;
		if (o->keep) {
			db = o->keep;
		} else {
			snprintf(in->tmpdir, sizeof(in->tmpdir), "/tmp/c2ctui-%s.XXXXXX", o->tmp_name);
			if (!mkdtemp(in->tmpdir)) {
				rc = -errno;
				in->tmpdir[0] = '\0';
				return c2c_error_set(err, rc, "cannot make a temporary directory: %s", strerror(-rc));
			}
			snprintf(in->tmpdb, sizeof(in->tmpdb), "%s/session.db", in->tmpdir);
			db = in->tmpdb;
		}
		if ((rc = import_stoppable(path, db, o, err)) < 0) {
			session_input_close(in);
			return rc;
		}
	}
	rc = store_open(&in->store, db, STORE_OPEN_RDONLY, err);
	if (rc < 0)
		session_input_close(in);
	return rc;
}

void session_input_close(struct session_input *in)
{
	store_close(in->store);
	in->store = NULL;
	if (!in->tmpdir[0])
		return;
	if (in->tmpdb[0])
		store_remove_files(in->tmpdb, NULL);
	rmdir(in->tmpdir);
	in->tmpdir[0] = '\0';
	in->tmpdb[0] = '\0';
}

int session_input_open_for(struct session_input *in, const char *cmd, const char *path,
			   const struct session_input_opts *o)
{
	struct c2c_error err = { 0 };
	if (session_input_open(in, path, o, &err) < 0) {
		fprintf(stderr, "c2ctui %s: %s\n", cmd, err.msg[0] ? err.msg : "cannot open the input");
		return -1;
	}
	struct store_status status;
	char line[1024];
	store_get_status(in->store, &status);
	store_status_line(&status, path, line, sizeof(line));
	if (status.state != STORE_STATE_COMPLETE)
		fprintf(stderr, "c2ctui %s: %s\n", cmd, line);
	return 0;
}
