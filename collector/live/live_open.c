/* Setting up a live collection: which events (sysfs PMU, tracepoints,
 * software), their attrs, CPU/thread maps for the target, opening them
 * through libperf with one clear sentence per failure, the ring buffers,
 * the sample-id -> event table, and the command started stopped. */
#include "collector/live/live_priv.h"
#include "collector/pmu/pmu.h"
#include "collector/tracepoint/tracepoint.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>

#define LIVE_DEFAULT_FREQ 4000
/* Kernel stack depth for tracepoint call chains: enough to get past the
 * lock implementation into its callers. */
#define LIVE_TRACK_MAX_STACK 64

/* libperf 6.12's perf_evsel__delete() frees neither the evsel's sample-id
 * arrays nor its references on the CPU and thread maps (the perf tool frees
 * them through its own evsel code, which libperf does not export). Those
 * blocks live until exit, once per collection; tell LeakSanitizer, so the
 * sanitizer build keeps reporting every leak of ours. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:perf_evsel__alloc_id\n"
	       "leak:perf_thread_map__new_array\n"
	       "leak:perf_thread_map__new_dummy\n"
	       "leak:perf_cpu_map__alloc\n"
	       "leak:cpu_map__trim_new\n";
}

/* Keep the sanitizer build's stderr to our own lines (tests compare it). */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}

static int libperf_quiet(enum libperf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}


void live_add_note(struct live *lv, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	if (lv->nr_notes >= LIVE_MAX_NOTES)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (s)
		lv->notes[lv->nr_notes++] = s;
}

static int paranoid_level(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

static int perm_error(struct c2c_error *err, const char *what)
{
	return c2c_error_set(err, -EACCES,
			     "no permission to open %s (kernel.perf_event_paranoid is %d): run as root, "
			     "give c2ctui CAP_PERFMON (setcap cap_perfmon,cap_sys_ptrace,cap_syslog+ep), "
			     "or lower it with 'sysctl kernel.perf_event_paranoid=-1'",
			     what, paranoid_level());
}

static struct live_event *add_event(struct live *lv, struct c2c_error *err)
{
	struct live_event *ne = realloc(lv->events, (lv->nr_events + 1) * sizeof(*ne));

	if (!ne) {
		c2c_error_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	lv->events = ne;
	memset(&ne[lv->nr_events], 0, sizeof(*ne));
	ne[lv->nr_events].tp_id = -1;
	return &ne[lv->nr_events++];
}

/* Fields every event shares: the same sample-id layout (so any record's
 * event can be found), perf's default clock (so times equal perf record's). */
static void attr_common(struct live *lv, struct perf_event_attr *a)
{
	a->size = sizeof(*a);
	a->disabled = 1;
	a->sample_id_all = 1;
	a->read_format = PERF_FORMAT_ID;
	a->sample_type |= PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			  PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	if (lv->task_mode) {
		a->inherit = 1;
		if (lv->opt.argv)
			a->enable_on_exec = 1;
	}
	a->wakeup_watermark = 64 * 1024;
	a->watermark = 1;
}

static void attr_freq(const struct live_options *opt, struct perf_event_attr *a)
{
	if (opt->period) {
		a->sample_period = opt->period;
	} else {
		a->freq = 1;
		a->sample_freq = opt->freq ? opt->freq : LIVE_DEFAULT_FREQ;
	}
}

static int add_mem_events(struct live *lv, struct c2c_error *err)
{
	struct pmu_options po = {
		.sysfs_root = lv->opt.sysfs_root,
		.ldlat = lv->opt.ldlat,
	};
	struct pmu_selection sel;
	int rc = pmu_select(&po, &sel, err);

	if (rc < 0)
		return rc;
	if (sel.kind == PMU_KIND_NONE || sel.kind == PMU_KIND_ARM_SPE || sel.nr_events == 0) {
		live_add_note(lv, "%s", sel.note);
		return 0;
	}
	if (sel.system_wide_only && lv->task_mode) {
		live_add_note(lv, "%s: HITM sampling is unavailable for -p/-t/command targets "
			      "(use -a or -C)", sel.note);
		return 0;
	}
	if (sel.note[0])
		live_add_note(lv, "%s", sel.note);
	for (int i = 0; i < sel.nr_events; i++) {
		const struct pmu_event *pe = &sel.events[i];
		struct live_event *ev;
		struct perf_event_attr a = { 0 };

		if (pe->role == PMU_ROLE_LOAD_AUX)
			continue; /* opened implicitly: see the note added on open failure */
		ev = add_event(lv, err);
		if (!ev)
			return -ENOMEM;
		a.type = pe->type;
		a.config = pe->config;
		a.config1 = pe->config1;
		a.config2 = pe->config2;
		a.precise_ip = pe->max_precise > 3 ? 3 : (unsigned)pe->max_precise;
		a.sample_type = PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT;
		attr_freq(&lv->opt, &a);
		attr_common(lv, &a);
		rc = perf_attr_decode(&a, sizeof(a), false, &ev->attr, err);
		if (rc < 0)
			return rc;
		snprintf(ev->name, sizeof(ev->name), "%s", pe->name);
		ev->kind = LIVE_EV_MEM;
	}
	return 0;
}

static int add_tracepoint(struct live *lv, struct tp_decoder *dec, const char *tracefs,
			  const char *sys, const char *name, struct c2c_error *err)
{
	struct perf_event_attr a = { 0 };
	struct live_event *ev;
	int id = tp_decoder_load_tracefs(dec, tracefs, sys, name, err);

	if (id < 0)
		return id;
	ev = add_event(lv, err);
	if (!ev)
		return -ENOMEM;
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = (uint64_t)id;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_RAW;
	if (!lv->opt.no_callchain) {
		a.sample_type |= PERF_SAMPLE_CALLCHAIN;
		a.exclude_callchain_user = 1;  /* kernel chain: who took the lock */
		a.sample_max_stack = LIVE_TRACK_MAX_STACK;
	}
	attr_common(lv, &a);
	if (perf_attr_decode(&a, sizeof(a), false, &ev->attr, err) < 0)
		return -EINVAL;
	snprintf(ev->name, sizeof(ev->name), "%s:%s", sys, name);
	ev->kind = LIVE_EV_TRACEPOINT;
	ev->tp_id = id;
	return 0;
}

static int add_sw_event(struct live *lv, struct c2c_error *err)
{
	static const struct { const char *name; uint64_t config; } sw[] = {
		{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
		{ "task-clock", PERF_COUNT_SW_TASK_CLOCK },
		{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
		{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
		{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
		{ "dummy", PERF_COUNT_SW_DUMMY },
	};
	struct perf_event_attr a = { 0 };
	struct live_event *ev;
	size_t i;

	for (i = 0; i < sizeof(sw) / sizeof(sw[0]); i++)
		if (!strcmp(sw[i].name, lv->opt.sw_event))
			break;
	if (i == sizeof(sw) / sizeof(sw[0]))
		return c2c_error_set(err, -EINVAL, "unknown software event '%s' (cpu-clock, task-clock, "
				     "page-faults, context-switches, cpu-migrations, dummy)", lv->opt.sw_event);
	ev = add_event(lv, err);
	if (!ev)
		return -ENOMEM;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = sw[i].config;
	attr_freq(&lv->opt, &a);
	if (sw[i].config == PERF_COUNT_SW_PAGE_FAULTS)
		a.sample_type = PERF_SAMPLE_ADDR;   /* the faulting address */
	attr_common(lv, &a);
	if (perf_attr_decode(&a, sizeof(a), false, &ev->attr, err) < 0)
		return -EINVAL;
	snprintf(ev->name, sizeof(ev->name), "%s", sw[i].name);
	ev->kind = LIVE_EV_SOFTWARE;
	return 0;
}

/* The attr struct to hand to libperf, rebuilt from the decoded info. */
static void attr_encode(const struct perf_attr_info *in, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->type = in->type;
	a->size = sizeof(*a);
	a->config = in->config;
	a->sample_period = in->sample_period;
	a->sample_type = in->sample_type;
	a->read_format = in->read_format;
	memcpy((char *)a + offsetof(struct perf_event_attr, read_format) + 8, &in->flags, 8);
	a->wakeup_watermark = in->wakeup_events;
	a->config1 = in->config1;
	a->config2 = in->config2;
	a->clockid = in->clockid;
	a->sample_max_stack = in->sample_max_stack;
}

static int read_tids(pid_t pid, pid_t **tids, size_t *n, size_t *cap)
{
	char path[64];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		long t = strtol(de->d_name, NULL, 10);
		if (t <= 0)
			continue;
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 16;
			pid_t *nt = realloc(*tids, nc * sizeof(*nt));
			if (!nt) {
				closedir(d);
				return -ENOMEM;
			}
			*tids = nt;
			*cap = nc;
		}
		(*tids)[(*n)++] = (pid_t)t;
	}
	closedir(d);
	return 0;
}

static int fork_command(struct live *lv, struct c2c_error *err)
{
	int go[2], ready[2];
	pid_t pid;
	char c;

	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(ready, O_CLOEXEC) < 0)
		return c2c_error_set(err, -errno, "pipe: %s", strerror(errno));
	pid_t parent = getpid();
	pid = fork();
	if (pid < 0)
		return c2c_error_set(err, -errno, "fork: %s", strerror(errno));
	if (pid == 0) {
		/* The workload does not outlive a collector killed without a
		 * chance to clean up (SIGKILL, a crash); kept across exec. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		close(go[1]);
		close(ready[0]);
		close(ready[1]);          /* tells the parent we exist */
		/* Wait for the events to be opened; EOF without a byte means
		 * the parent gave up. */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		if (lv->opt.cmd_output) {
			int in = open("/dev/null", O_RDONLY);
			int o = open(lv->opt.cmd_output, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (in >= 0)
				dup2(in, STDIN_FILENO);
			if (o >= 0) {
				dup2(o, STDOUT_FILENO);
				dup2(o, STDERR_FILENO);
			}
		}
		execvp(lv->opt.argv[0], lv->opt.argv);
		fprintf(stderr, "c2ctui: cannot run %s: %s\n", lv->opt.argv[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	close(ready[1]);
	if (read(ready[0], &c, 1) < 0) { /* EOF once the child runs */ }
	close(ready[0]);
	lv->child = pid;
	lv->go_fd = go[1];
	return 0;
}

static int setup_maps(struct live *lv, struct c2c_error *err)
{
	const struct live_options *o = &lv->opt;
	pid_t *tids = NULL;
	size_t n = 0, cap = 0;

	if (o->cpu_list) {
		/* Check the numbers first: libperf prints its own complaint
		 * about CPUs beyond what it supports. */
		long ncpu = sysconf(_SC_NPROCESSORS_CONF);
		for (const char *p = o->cpu_list; *p;) {
			char *end;
			long c = strtol(p, &end, 10);
			if (end == p) {
				if (*p != ',' && *p != '-')
					return c2c_error_set(err, -EINVAL, "bad CPU list '%s' (-C)", o->cpu_list);
				p++;
				continue;
			}
			if (c < 0 || c >= ncpu)
				return c2c_error_set(err, -EINVAL, "CPU %ld (-C %s) does not exist here",
						     c, o->cpu_list);
			p = end;
		}
		lv->cpus = perf_cpu_map__new(o->cpu_list);
		if (!lv->cpus || perf_cpu_map__nr(lv->cpus) == 0)
			return c2c_error_set(err, -EINVAL, "bad CPU list '%s' (-C)", o->cpu_list);
		/* Every listed CPU must exist. */
		for (int i = 0; i < perf_cpu_map__nr(lv->cpus); i++) {
			char path[96];
			struct stat st;
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d",
				 perf_cpu_map__cpu(lv->cpus, i).cpu);
			if (stat(path, &st) < 0)
				return c2c_error_set(err, -EINVAL, "CPU %d (-C %s) does not exist here",
						     perf_cpu_map__cpu(lv->cpus, i).cpu, o->cpu_list);
		}
	} else {
		lv->cpus = perf_cpu_map__new_online_cpus();
	}
	if (!lv->cpus)
		return c2c_error_set(err, -ENOMEM, "cannot read the online CPUs");
	if (!lv->task_mode) {
		lv->threads = perf_thread_map__new_dummy();
		return lv->threads ? 0 : c2c_error_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < o->nr_pids; i++) {
		int rc = read_tids(o->pids[i], &tids, &n, &cap);
		if (rc == -ENOMEM) {
			free(tids);
			return c2c_error_set(err, rc, "out of memory");
		}
		if (rc < 0) {
			free(tids);
			return c2c_error_set(err, -ESRCH, "no process with pid %d (-p)", (int)o->pids[i]);
		}
	}
	for (size_t i = 0; i < o->nr_tids; i++) {
		char path[64];
		struct stat st;
		snprintf(path, sizeof(path), "/proc/%d", (int)o->tids[i]);
		if (stat(path, &st) < 0) {
			free(tids);
			return c2c_error_set(err, -ESRCH, "no thread with tid %d (-t)", (int)o->tids[i]);
		}
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 16;
			pid_t *nt = realloc(tids, nc * sizeof(*nt));
			if (!nt) {
				free(tids);
				return c2c_error_set(err, -ENOMEM, "out of memory");
			}
			tids = nt;
			cap = nc;
		}
		tids[n++] = o->tids[i];
	}
	if (lv->child) {
		pid_t *nt = realloc(tids, (n + 1) * sizeof(*nt));
		if (!nt) {
			free(tids);
			return c2c_error_set(err, -ENOMEM, "out of memory");
		}
		tids = nt;
		tids[n++] = lv->child;
	}
	lv->threads = perf_thread_map__new_array((int)n, tids);
	lv->watch = tids;
	lv->nr_watch = n;
	return lv->threads ? 0 : c2c_error_set(err, -ENOMEM, "out of memory");
}

static int cmp_id(const void *a, const void *b)
{
	const struct live_id *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}


/* Sample ids of every (event, cpu, thread), read through PERF_FORMAT_ID. */
static int collect_ids(struct live *lv, struct c2c_error *err)
{
	int ncpu = perf_cpu_map__nr(lv->cpus), nthr = perf_thread_map__nr(lv->threads);
	uint64_t *ids;

	lv->ids = calloc(lv->nr_events * (size_t)ncpu * (size_t)nthr, sizeof(*lv->ids));
	if (!lv->ids)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	for (size_t e = 0; e < lv->nr_events; e++) {
		size_t first = lv->nr_ids;
		for (int c = 0; c < ncpu; c++)
			for (int t = 0; t < nthr; t++) {
				struct perf_counts_values cv = { 0 };
				if (perf_evsel__read(lv->evsels[e], c, t, &cv) < 0)
					continue;
				lv->ids[lv->nr_ids++] = (struct live_id){ cv.id, (uint32_t)e };
			}
		ids = malloc((lv->nr_ids - first + 1) * sizeof(*ids));
		if (!ids)
			return c2c_error_set(err, -ENOMEM, "out of memory");
		for (size_t i = first; i < lv->nr_ids; i++)
			ids[i - first] = lv->ids[i].id;
		lv->events[e].attr.ids = ids;
		lv->events[e].attr.nr_ids = (uint32_t)(lv->nr_ids - first);
	}
	qsort(lv->ids, lv->nr_ids, sizeof(*lv->ids), cmp_id);
	return 0;
}

static void drop_event(struct live *lv, size_t i)
{
	perf_evlist__remove(lv->evlist, lv->evsels[i]);
	perf_evsel__delete(lv->evsels[i]);
	memmove(&lv->events[i], &lv->events[i + 1], (lv->nr_events - i - 1) * sizeof(*lv->events));
	memmove(&lv->evsels[i], &lv->evsels[i + 1], (lv->nr_events - i - 1) * sizeof(*lv->evsels));
	lv->nr_events--;
}

static int open_events(struct live *lv, struct c2c_error *err)
{
	lv->evlist = perf_evlist__new();
	lv->evsels = calloc(lv->nr_events ? lv->nr_events : 1, sizeof(*lv->evsels));
	if (!lv->evlist || !lv->evsels)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < lv->nr_events; i++) {
		struct perf_event_attr a;

		attr_encode(&lv->events[i].attr, &a);
		lv->evsels[i] = perf_evsel__new(&a);
		if (!lv->evsels[i])
			return c2c_error_set(err, -ENOMEM, "out of memory");
		perf_evlist__add(lv->evlist, lv->evsels[i]);
	}
	perf_evlist__set_maps(lv->evlist, lv->cpus, lv->threads);
	for (size_t i = 0; i < lv->nr_events;) {
		struct live_event *ev = &lv->events[i];
		int rc = perf_evsel__open(lv->evsels[i], perf_evsel__cpus(lv->evsels[i]),
					  perf_evsel__threads(lv->evsels[i]));
		if (rc == 0) {
			i++;
			continue;
		}
		if (rc == -EACCES || rc == -EPERM)
			return perm_error(err, ev->name);
		if (rc == -ESRCH)
			return c2c_error_set(err, -ESRCH, "a target task exited before %s could be opened",
					     ev->name);
		if (ev->kind == LIVE_EV_MEM) {
			/* E.g. a PMU that needs the mem-loads-aux group leader
			 * (Sapphire Rapids, hybrid) or precise sampling the
			 * hypervisor does not pass through. Loads without
			 * stores (or the reverse) would mislead: drop them all. */
			live_add_note(lv, "HITM sampling is unavailable here: the kernel refused %s (%s)",
				      ev->name, strerror(-rc));
			for (size_t j = 0; j < lv->nr_events;) {
				if (lv->events[j].kind != LIVE_EV_MEM) {
					j++;
					continue;
				}
				if (j < i)
					perf_evsel__close(lv->evsels[j]);
				drop_event(lv, j);
				if (j < i)
					i--;
			}
			continue;
		}
		return c2c_error_set(err, rc, "cannot open %s: %s", ev->name, strerror(-rc));
	}
	if (lv->nr_events <= 1)
		return c2c_error_set(err, -ENODEV, "no event could be opened: %s",
				     lv->nr_notes ? lv->notes[lv->nr_notes - 1] : "nothing requested");
	for (size_t i = 0; i < lv->nr_events; i++) {
		lv->events[i].attr.index = (uint32_t)i;
		lv->events[i].attr.name = lv->events[i].name;
	}
	return 0;
}

/* A dummy software event first, carrying the side-band (MMAP2, COMM,
 * FORK, EXIT) for every other event, as perf's tracking event does. */
static int add_tracking_event(struct live *lv, struct c2c_error *err)
{
	struct perf_event_attr a = { 0 };
	struct live_event *ev = add_event(lv, err);

	if (!ev)
		return -ENOMEM;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.sample_period = 1;
	a.mmap = 1;
	a.mmap2 = 1;
	a.mmap_data = 1;
	a.comm = 1;
	a.comm_exec = 1;
	a.task = 1;
	attr_common(lv, &a);
	if (perf_attr_decode(&a, sizeof(a), false, &ev->attr, err) < 0)
		return -EINVAL;
	snprintf(ev->name, sizeof(ev->name), "dummy:side-band");
	ev->kind = LIVE_EV_SOFTWARE;
	return 0;
}

int live_new(struct live **out, const struct live_options *opt, struct c2c_error *err)
{
	struct live *lv = calloc(1, sizeof(*lv));
	struct tp_decoder *dec = NULL;
	char tracefs[256];
	int rc;

	*out = NULL;
	if (!lv)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	lv->opt = *opt;
	lv->go_fd = -1;
	lv->child_status = -1;
	lv->stop_pipe[0] = lv->stop_pipe[1] = -1;
	lv->task_mode = opt->nr_pids || opt->nr_tids || opt->argv;
	libperf_init(libperf_quiet);

	if ((rc = add_tracking_event(lv, err)) < 0)
		goto fail;
	if (!opt->no_mem) {
		rc = add_mem_events(lv, err);
		if (rc < 0)
			goto fail;
	}
	if (!opt->no_locks || opt->sched) {
		bool mounted = false;
		if (opt->tracefs)
			snprintf(tracefs, sizeof(tracefs), "%s", opt->tracefs);
		else if ((rc = tp_mount_tracefs(tracefs, sizeof(tracefs), &mounted, err)) < 0)
			goto fail;
		if (mounted)
			live_add_note(lv, "tracefs was not mounted: mounted it on %s", tracefs);
		dec = tp_decoder_new(err);
		if (!dec) {
			rc = -ENOMEM;
			goto fail;
		}
		if (!opt->no_locks) {
			rc = add_tracepoint(lv, dec, tracefs, "lock", "contention_begin", err);
			if (rc == 0)
				rc = add_tracepoint(lv, dec, tracefs, "lock", "contention_end", err);
			if (rc == -ENOENT && err) {
				char why[sizeof(err->msg)];
				snprintf(why, sizeof(why), "%s", err->msg);
				c2c_error_set(err, rc, "%.300s; lock:contention_* appeared in Linux 5.19 "
					      "(use --no-locks to collect without them)", why);
			}
			if (rc < 0)
				goto fail;
		}
		if (opt->sched) {
			rc = add_tracepoint(lv, dec, tracefs, "sched", "sched_switch", err);
			if (rc == 0)
				rc = add_tracepoint(lv, dec, tracefs, "sched", "sched_migrate_task", err);
			if (rc < 0)
				goto fail;
		}
		tp_decoder_free(dec);
		dec = NULL;
	}
	if (opt->sw_event && (rc = add_sw_event(lv, err)) < 0)
		goto fail;
	if (lv->nr_events <= 1) {
		rc = c2c_error_set(err, -ENODEV, "nothing to collect: %s",
				   lv->nr_notes ? lv->notes[0] : "every source was turned off");
		goto fail;
	}
	if (opt->argv && (rc = fork_command(lv, err)) < 0)
		goto fail;
	if ((rc = setup_maps(lv, err)) < 0)
		goto fail;
	if ((rc = open_events(lv, err)) < 0)
		goto fail;
	if (opt->mmap_pages) {
		rc = perf_evlist__mmap(lv->evlist, (int)opt->mmap_pages);
	} else {
		/* 2 MiB per ring by default (bursts of tracepoints with call
		 * chains); halve while the locked-memory limit says no. */
		int pages = 512;
		while ((rc = perf_evlist__mmap(lv->evlist, pages)) == -EPERM && pages > 16) {
			perf_evlist__munmap(lv->evlist);
			pages /= 2;
		}
	}
	if (rc < 0) {
		rc = c2c_error_set(err, rc, "cannot map the perf ring buffers: %s (raise "
				   "kernel.perf_event_mlock_kb or use fewer CPUs)", strerror(-rc));
		goto fail;
	}
	if ((rc = collect_ids(lv, err)) < 0)
		goto fail;
	if (pipe2(lv->stop_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		rc = c2c_error_set(err, -errno, "pipe: %s", strerror(errno));
		goto fail;
	}
	if ((rc = live_queue_init(&lv->queue, opt->queue_bytes ? opt->queue_bytes : 64u << 20)) < 0) {
		rc = c2c_error_set(err, rc, "out of memory for the record queue");
		goto fail;
	}
	if ((rc = live_synthesize(lv, err)) < 0)
		goto fail;
	*out = lv;
	return 0;
fail:
	tp_decoder_free(dec);
	live_free(lv);
	return rc;
}

void live_free(struct live *lv)
{
	if (!lv)
		return;
	if (atomic_load(&lv->running))
		live_stop(lv, NULL);
	if (lv->go_fd >= 0)
		close(lv->go_fd);  /* the child reads EOF and exits */
	if (lv->child > 0 && lv->child_status == -1) {
		kill(lv->child, SIGKILL);
		waitpid(lv->child, &lv->child_status, 0);
	}
	if (lv->evlist) {
		perf_evlist__munmap(lv->evlist);
		perf_evlist__close(lv->evlist);
		perf_evlist__delete(lv->evlist); /* deletes the evsels too */
	} else if (lv->evsels) {
		for (size_t i = 0; i < lv->nr_events; i++)
			perf_evsel__delete(lv->evsels[i]);
	}
	perf_cpu_map__put(lv->cpus);
	perf_thread_map__put(lv->threads);
	for (size_t i = 0; i < lv->nr_events; i++)
		free((void *)lv->events[i].attr.ids);
	free(lv->events);
	free(lv->evsels);
	free(lv->ids);
	free(lv->watch);
	for (int i = 0; i < lv->nr_notes; i++)
		free(lv->notes[i]);
	if (lv->stop_pipe[0] >= 0) {
		close(lv->stop_pipe[0]);
		close(lv->stop_pipe[1]);
	}
	live_queue_fini(&lv->queue);
	free(lv->synth);
	free(lv);
}

const struct live_event *live_events(const struct live *lv, size_t *n)
{
	*n = lv->nr_events;
	return lv->events;
}

const char *const *live_notes(const struct live *lv)
{
	return (const char *const *)lv->notes;
}

int live_nr_cpus(const struct live *lv)
{
	return perf_cpu_map__nr(lv->cpus);
}

int live_child_status(const struct live *lv)
{
	return lv->child_status;
}

