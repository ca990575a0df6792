/* A live collection written into a session file (store/ingest/live_session.h):
 * the live driver. The session's metadata comes from this host (uname,
 * sysfs topology, /proc/cpuinfo); every record goes through the live sink
 * (store/ingest/live_ingest.h: the ingest rules shared with import) in the
 * collector's writer thread, which commits at least every 250 ms. */
#include "store/ingest/live_session.h"

#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>

#include "collector/symbols/symbols.h"
#include "collector/tracepoint/tracepoint.h"
#include "store/ingest/ingest.h"
#include "store/ingest/live_ingest.h"
#include "store/store.h"

struct live_session {
	struct live *lv;
	struct store *st;
	struct live_ingest *li;
	int32_t *cpu_node;                   /* from sysfs, for the ingest's node map */
	uint32_t nr_cpu_node;
	struct live_counts last_counts;
	struct timespec t0, t1;
	bool started, stopped;
	const char *vmlinux;                 /* -k (checked against this kernel), NULL: none */
};

static double elapsed(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* ---- session metadata ---------------------------------------------------- */

static int read_int_file(const char *path, int fallback)
{
	FILE *f = fopen(path, "r");
	int v = fallback;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = fallback;
		fclose(f);
	}
	return v;
}

static int write_topology(struct live_session *ls, struct c2c_error *err)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	if (n <= 0)
		n = 1;
	ls->cpu_node = malloc((size_t)n * sizeof(*ls->cpu_node));
	if (!ls->cpu_node)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	ls->nr_cpu_node = (uint32_t)n;
	for (long cpu = 0; cpu < n; cpu++) {
		char path[128];
		struct store_cpu c = { .cpu = (uint32_t)cpu, .node = -1 };
		DIR *d;
		struct dirent *de;
		int rc;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/topology/core_id", cpu);
		c.core = read_int_file(path, -1);
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/topology/physical_package_id", cpu);
		c.socket = read_int_file(path, -1);
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld", cpu);
		if ((d = opendir(path))) {
			while ((de = readdir(d)))
				if (!strncmp(de->d_name, "node", 4) && de->d_name[4] >= '0' && de->d_name[4] <= '9')
					c.node = atoi(de->d_name + 4);
			closedir(d);
		}
		ls->cpu_node[cpu] = c.node;
		if ((rc = store_add_cpu(ls->st, &c, err)) < 0)
			return rc;
	}
	return 0;
}

/* The -k image, as an import records the one it used: reading the
 * session later attributes kernel heap samples with its DWARF. */
static int write_vmlinux(struct live_session *ls, struct c2c_error *err)
{
	char abs[PATH_MAX], hex[41] = "";
	uint8_t bid[20];
	size_t bn = symtab_file_build_id(ls->vmlinux, bid);
	int rc;

	if (!realpath(ls->vmlinux, abs))
		return 0;
	for (size_t i = 0; i < bn; i++)
		snprintf(hex + 2 * i, 3, "%02x", bid[i]);
	if ((rc = store_set_meta(ls->st, STORE_META_VMLINUX, abs, err)) < 0)
		return rc;
	return store_set_meta(ls->st, STORE_META_VMLINUX_BID, hex, err);
}

static int write_meta(struct live_session *ls, const char *kind, const char *cmdline, struct c2c_error *err)
{
	struct utsname u;
	char buf[256];
	int rc = 0;
	size_t nev;
	const struct live_event *ev = live_events(ls->lv, &nev);
	FILE *f;

	if (uname(&u) == 0) {
		rc = store_set_meta(ls->st, STORE_META_HOST, u.nodename, err);
		if (!rc)
			rc = store_set_meta(ls->st, STORE_META_OS_RELEASE, u.release, err);
		if (!rc)
			rc = store_set_meta(ls->st, STORE_META_ARCH, u.machine, err);
	}
	snprintf(buf, sizeof(buf), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	if (!rc)
		rc = store_set_meta(ls->st, STORE_META_NR_CPUS, buf, err);
	snprintf(buf, sizeof(buf), "%ld", sysconf(_SC_NPROCESSORS_CONF));
	if (!rc)
		rc = store_set_meta(ls->st, STORE_META_NR_CPUS_AVAIL, buf, err);
	if ((f = fopen("/proc/cpuinfo", "r"))) {
		char line[512];
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
				char *v = strchr(line, ':') + 1;
				while (*v == ' ')
					v++;
				v[strcspn(v, "\n")] = '\0';
				if (!rc)
					rc = store_set_meta(ls->st, STORE_META_CPU_DESC, v, err);
				break;
			}
		fclose(f);
	}
	if (!rc)
		rc = store_set_meta(ls->st, STORE_META_SOURCE_KIND, kind, err);
	if (!rc && cmdline)
		rc = store_set_meta(ls->st, STORE_META_CMDLINE, cmdline, err);
	snprintf(buf, sizeof(buf), "%lld", (long long)time(NULL));
	if (!rc)
		rc = store_set_meta(ls->st, STORE_META_RECORDED_AT, buf, err);
	snprintf(buf, sizeof(buf), "%d",
		 read_int_file("/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size", 64));
	if (!rc)
		rc = store_set_meta(ls->st, STORE_META_CACHELINE, buf, err);
	for (size_t i = 0; !rc && i < nev; i++) {
		struct store_event se = {
			.index = ev[i].attr.index,
			.name = ev[i].name,
			.attr_type = ev[i].attr.type,
			.config = ev[i].attr.config,
			.sample_type = ev[i].attr.sample_type,
			.sample_period = ev[i].attr.sample_period,
			.freq = ev[i].attr.freq,
		};
		rc = store_add_event(ls->st, &se, err);
	}
	if (!rc)
		rc = write_topology(ls, err);
	if (!rc && ls->vmlinux)
		rc = write_vmlinux(ls, err);
	if (!rc)
		rc = store_commit(ls->st, err);
	return rc;
}

/* ---- lifecycle ----------------------------------------------------------- */

/* The session appears under its name only once it is a complete, committed
 * session (schema, metadata, events, topology): it is built under a hidden
 * name and renamed, so a SIGKILL at any moment never leaves a file at path
 * that is not a session. */
static int create_session(struct live_session *ls, const char *path, const char *kind, const char *cmdline,
			  struct c2c_error *err)
{
	char tmp[4096];
	const char *slash = strrchr(path, '/');
	int rc;

	if (slash)
		snprintf(tmp, sizeof(tmp), "%.*s/.%s.creating", (int)(slash - path), path, slash + 1);
	else
		snprintf(tmp, sizeof(tmp), ".%s.creating", path);
	unlink(tmp);
	if ((rc = store_create(&ls->st, tmp, err)) < 0)
		return rc;
	rc = write_meta(ls, kind, cmdline, err);
	store_close(ls->st);  /* last connection: the WAL folds into the file */
	ls->st = NULL;
	if (rc == 0 && link(tmp, path) < 0)
		rc = c2c_error_set(err, -errno, "cannot create %s: %s", path, strerror(errno));
	unlink(tmp);
	if (rc < 0)
		return rc;
	return store_open(&ls->st, path, STORE_OPEN_APPEND, err);
}

int live_session_new(struct live_session **out, const char *path, const struct live_options *opt,
		     const char *source_kind, const char *cmdline, struct c2c_error *err)
{
	return live_session_new_vmlinux(out, path, opt, NULL, source_kind, cmdline, err);
}

/* The running kernel's build-id into st, as the BUILD_ID feature would. */
static void host_kernel_bid(struct symtab *st)
{
	uint8_t bid[20];
	size_t n = symtab_host_kernel_build_id(bid);
	if (n)
		symtab_set_build_id(st, "[kernel.kallsyms]", bid, n);
}

/* A -k vmlinux that cannot be this kernel, refused before anything is made. */
static int check_vmlinux(const struct symtab_options *so, struct c2c_error *err)
{
	struct symtab *st = symtab_new(so, err);
	if (!st)
		return err && err->code ? err->code : -ENOMEM;
	host_kernel_bid(st);
	int rc = symtab_check_vmlinux(st, err);
	symtab_free(st);
	return rc;
}

int live_session_new_vmlinux(struct live_session **out, const char *path, const struct live_options *opt,
			     const char *vmlinux, const char *source_kind, const char *cmdline,
			     struct c2c_error *err)
{
	struct live_session *ls;
	struct symtab_options so = { .use_host_kallsyms = true, .vmlinux = vmlinux };
	size_t nev;
	const struct live_event *ev;
	int rc;

	*out = NULL;
	if (vmlinux && (rc = check_vmlinux(&so, err)) < 0)
		return rc;
	if (!(ls = calloc(1, sizeof(*ls))))
		return c2c_error_set(err, -ENOMEM, "out of memory");
	if ((rc = live_new(&ls->lv, opt, err)) < 0)
		goto fail;
	ls->vmlinux = vmlinux;
	if ((rc = create_session(ls, path, source_kind, cmdline, err)) < 0)
		goto fail;
	if ((rc = live_ingest_new(&ls->li, ls->st, &so, err)) < 0)
		goto fail;
	struct ingest *in = live_ingest_rules(ls->li);
	host_kernel_bid(ingest_symtab(in));
	for (uint32_t cpu = 0; cpu < ls->nr_cpu_node; cpu++)
		if ((rc = ingest_set_cpu_node(in, cpu, ls->cpu_node[cpu], err)) < 0)
			goto fail;
	/* The decoder for pairing gets exactly the formats the events use. */
	ev = live_events(ls->lv, &nev);
	for (size_t i = 0; i < nev; i++) {
		char tracefs[256];
		const char *colon = strchr(ev[i].name, ':');
		char sys[64];
		if (ev[i].kind != LIVE_EV_TRACEPOINT || !colon)
			continue;
		if (opt->tracefs)
			snprintf(tracefs, sizeof(tracefs), "%s", opt->tracefs);
		else if ((rc = tp_find_tracefs(tracefs, sizeof(tracefs), err)) < 0)
			goto fail;
		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - ev[i].name), ev[i].name);
		if ((rc = tp_decoder_load_tracefs(ingest_decoder(in), tracefs, sys, colon + 1, err)) < 0)
			goto fail;
	}
	*out = ls;
	return 0;
fail:
	live_session_free(ls);
	return rc;
}

void live_session_free(struct live_session *ls)
{
	if (!ls)
		return;
	live_free(ls->lv);  /* stops the threads first if still running */
	live_ingest_free(ls->li);
	store_close(ls->st);
	free(ls->cpu_node);
	free(ls);
}

struct live *live_session_live(struct live_session *ls)
{
	return ls->lv;
}

int live_session_start(struct live_session *ls, struct c2c_error *err)
{
	clock_gettime(CLOCK_MONOTONIC, &ls->t0);
	ls->started = true;
	return live_start(ls->lv, live_ingest_sink(ls->li), err);
}

int live_session_stop(struct live_session *ls, struct c2c_error *err)
{
	int rc;

	if (ls->stopped)
		return 0;
	ls->stopped = true;
	rc = live_stop(ls->lv, err);
	clock_gettime(CLOCK_MONOTONIC, &ls->t1);
	live_get_counts(ls->lv, &ls->last_counts);
	if (rc < 0) {
		const struct c2c_error *werr = live_ingest_error(ls->li);
		if (err && werr->msg[0])
			*err = *werr;
		/* Keep what was committed: still finalize below. */
	}
	if (rc < 0) {
		/* Said by every reader of the session (a full disk may refuse
		 * even this: the session then reads as never finalized). */
		char why[600];
		snprintf(why, sizeof(why), "collection stopped early: %s", err && err->msg[0] ? err->msg : "error");
		store_set_stop_reason(ls->st, why, NULL);
	}
	{
		int r2 = live_ingest_write_counters(ls->li, &ls->last_counts, rc < 0 ? NULL : err);
		if (r2 == 0)
			r2 = store_finalize(ls->st, rc < 0 ? NULL : err);
		if (rc == 0)
			rc = r2;
	}
	return rc;
}

uint64_t live_session_commits(struct live_session *ls)
{
	return live_ingest_commits(ls->li);
}

void live_session_totals(struct live_session *ls, struct live_session_totals *out)
{
	struct ingest_stats st;
	struct timespec now;

	memset(out, 0, sizeof(*out));
	ingest_get_stats(live_ingest_rules(ls->li), &st);
	out->samples = st.samples;
	out->lock_waits = st.lock_waits;
	out->lock_wait_ns = st.lock_wait_ns;
	memcpy(out->per_event, st.per_event, sizeof(out->per_event));
	out->unmatched_ends = st.unmatched_ends;
	out->pending_begins = st.pending_begins;
	out->nested_begins = st.nested_begins;
	live_get_counts(ls->lv, &out->counts);
	clock_gettime(CLOCK_MONOTONIC, &now);
	out->seconds = elapsed(&ls->t0, ls->stopped ? &ls->t1 : &now);
}

void live_session_summary(struct live_session *ls, char *buf, size_t size)
{
	struct live_session_totals t;

	live_session_totals(ls, &t);
	snprintf(buf, size,
		 "%s: %llu samples, %llu lock waits (%.3f ms waited), %llu lost, %llu throttled, "
		 "%llu dropped (queue), %.1f s",
		 store_path(ls->st), (unsigned long long)t.samples, (unsigned long long)t.lock_waits,
		 (double)t.lock_wait_ns / 1e6, (unsigned long long)t.counts.lost_samples,
		 (unsigned long long)t.counts.throttle, (unsigned long long)t.counts.queue_drops, t.seconds);
}
