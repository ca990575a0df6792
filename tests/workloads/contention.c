/* Demo and test workload: produces the kinds of contention c2ctui explains.
 *   false  - threads increment their own counters that share one cache line
 *   true   - threads increment one shared counter (atomic)
 *   mmap   - threads map, touch and unmap memory (kernel mmap_lock contention)
 *   pipe   - threads write into one pipe while one thread drains it
 *            (kernel pipe mutex contention)
 *   spawn  - threads create and join short-lived threads (kernel global
 *            locks: tasklist_lock, pidmap_lock, which kallsyms names)
 *   all    - false, true, mmap, pipe and spawn one after the other
 * Usage: contention [-m MODE] [-t THREADS] [-d SECONDS] [-q]
 * Prints one summary line per mode (operations done) unless -q. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* Adjacent counters in one 64-byte line: every increment by one thread
 * invalidates the line in the others' caches (false sharing). */
struct adjacent_counters {
	volatile uint64_t count[8];
} __attribute__((aligned(64)));

static struct adjacent_counters fs_counters;
/* One counter everybody writes (true sharing). */
static _Atomic uint64_t ts_counter __attribute__((aligned(64)));

static atomic_int stop_flag;
static int pipe_fds[2];

static void *spawn_child(void *arg)
{
	return arg;
}

struct worker {
	pthread_t thread;
	int index;
	uint64_t ops;
};

static void *false_sharing_worker(void *arg)
{
	struct worker *w = arg;
	volatile uint64_t *mine = &fs_counters.count[w->index % 8];

	while (!atomic_load_explicit(&stop_flag, memory_order_relaxed)) {
		for (int i = 0; i < 1000; i++)
			(*mine)++;
		w->ops += 1000;
	}
	return NULL;
}

static void *true_sharing_worker(void *arg)
{
	struct worker *w = arg;

	while (!atomic_load_explicit(&stop_flag, memory_order_relaxed)) {
		for (int i = 0; i < 1000; i++)
			atomic_fetch_add_explicit(&ts_counter, 1, memory_order_relaxed);
		w->ops += 1000;
	}
	return NULL;
}

static void *mmap_worker(void *arg)
{
	struct worker *w = arg;
	size_t len = 64 * 4096;

	while (!atomic_load_explicit(&stop_flag, memory_order_relaxed)) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			continue;
		/* Page faults take mmap_lock for read while other threads hold
		 * it for write in mmap/munmap. */
		for (size_t off = 0; off < len; off += 4096)
			p[off] = (char)off;
		munmap(p, len);
		w->ops++;
	}
	return NULL;
}

static void *pipe_writer(void *arg)
{
	struct worker *w = arg;
	char buf[64];

	memset(buf, 'x', sizeof(buf));
	while (!atomic_load_explicit(&stop_flag, memory_order_relaxed)) {
		if (write(pipe_fds[1], buf, sizeof(buf)) == (ssize_t)sizeof(buf))
			w->ops++;
	}
	return NULL;
}

static void *spawn_worker(void *arg)
{
	struct worker *w = arg;

	while (!atomic_load_explicit(&stop_flag, memory_order_relaxed)) {
		pthread_t t;
		/* clone and exit take tasklist_lock for write, alloc_pid takes
		 * pidmap_lock: both global, both contended by many spawners. */
		if (pthread_create(&t, NULL, spawn_child, NULL) == 0) {
			pthread_join(t, NULL);
			w->ops++;
		}
	}
	return NULL;
}

static void *pipe_reader(void *arg)
{
	char buf[4096];

	(void)arg;
	for (;;) {
		ssize_t n = read(pipe_fds[0], buf, sizeof(buf));
		if (n <= 0 && !(n < 0 && errno == EINTR))
			break;
	}
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int run_mode(const char *mode, int nthreads, double seconds, int quiet)
{
	void *(*fn)(void *) = NULL;
	struct worker *w;
	pthread_t reader;
	uint64_t total = 0;
	double t0;

	if (!strcmp(mode, "false"))
		fn = false_sharing_worker;
	else if (!strcmp(mode, "true"))
		fn = true_sharing_worker;
	else if (!strcmp(mode, "mmap"))
		fn = mmap_worker;
	else if (!strcmp(mode, "pipe"))
		fn = pipe_writer;
	else if (!strcmp(mode, "spawn"))
		fn = spawn_worker;
	else {
		fprintf(stderr, "contention: unknown mode '%s' (false, true, mmap, pipe, spawn, all)\n", mode);
		return 2;
	}
	w = calloc((size_t)nthreads, sizeof(*w));
	if (!w)
		return 1;
	atomic_store(&stop_flag, 0);
	if (fn == pipe_writer) {
		if (pipe(pipe_fds) < 0) {
			perror("contention: pipe");
			free(w);
			return 1;
		}
		if (pthread_create(&reader, NULL, pipe_reader, NULL) != 0) {
			free(w);
			return 1;
		}
	}
	t0 = now_s();
	for (int i = 0; i < nthreads; i++) {
		w[i].index = i;
		if (pthread_create(&w[i].thread, NULL, fn, &w[i]) != 0) {
			perror("contention: pthread_create");
			nthreads = i;
			break;
		}
	}
	while (now_s() - t0 < seconds)
		usleep(10000);
	atomic_store(&stop_flag, 1);
	for (int i = 0; i < nthreads; i++) {
		pthread_join(w[i].thread, NULL);
		total += w[i].ops;
	}
	if (fn == pipe_writer) {
		close(pipe_fds[1]);
		pthread_join(reader, NULL);
		close(pipe_fds[0]);
	}
	if (!quiet)
		printf("contention: mode %s, %d threads, %.2f s, %llu operations\n", mode, nthreads,
		       now_s() - t0, (unsigned long long)total);
	free(w);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = "all";
	int nthreads = 4, quiet = 0, opt, rc = 0;
	double seconds = 2.0;

	while ((opt = getopt(argc, argv, "m:t:d:qh")) != -1) {
		switch (opt) {
		case 'm': mode = optarg; break;
		case 't': nthreads = atoi(optarg); break;
		case 'd': seconds = atof(optarg); break;
		case 'q': quiet = 1; break;
		default:
			fprintf(stderr, "usage: contention [-m false|true|mmap|pipe|spawn|all] [-t THREADS] "
				"[-d SECONDS] [-q]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (nthreads < 1 || nthreads > 1024 || seconds <= 0) {
		fprintf(stderr, "contention: need 1..1024 threads and a positive duration\n");
		return 2;
	}
	if (!strcmp(mode, "all")) {
		static const char *const modes[] = { "false", "true", "mmap", "pipe", "spawn" };
		for (size_t i = 0; i < 5 && rc == 0; i++)
			rc = run_mode(modes[i], nthreads, seconds / 5, quiet);
		return rc;
	}
	return run_mode(mode, nthreads, seconds, quiet);
}
