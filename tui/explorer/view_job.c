/* Background jobs for views whose queries can take seconds (the timeline
 * recomputes from every sample): the query runs in a thread on its own
 * read-only store handle (a struct store is one thread's), the loop stays
 * responsive, and the thread writes the explorer's wake pipe when done.
 * A view that goes away abandons its job: its query is stopped
 * (store_interrupt) and the thread frees the job itself when it ends. The
 * explorer waits a little for running threads when it ends
 * (view_jobs_wait), so that a session file removed right after (open
 * perf.data) is not re-created by a reader. */
#include "tui/explorer/view.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define VIEW_JOB_NICE 10          /* added to the explorer's own */

enum job_state { JOB_RUNNING, JOB_DONE, JOB_ABANDONED };

/* Threads with the session open. */
static pthread_mutex_t jobs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t jobs_cond = PTHREAD_COND_INITIALIZER;
static int jobs_running;

static void jobs_add(int d)
{
	pthread_mutex_lock(&jobs_lock);
	jobs_running += d;
	pthread_cond_broadcast(&jobs_cond);
	pthread_mutex_unlock(&jobs_lock);
}

void view_jobs_wait(int timeout_ms)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&jobs_lock);
	while (jobs_running > 0)
		if (pthread_cond_timedwait(&jobs_cond, &jobs_lock, &until) != 0)
			break;
	pthread_mutex_unlock(&jobs_lock);
}

struct view_job {
	atomic_int state;
	pthread_mutex_t st_lock;  /* orders st's publication and close with view_job_release */
	struct store *st;         /* the thread's handle while it is open */
	bool cancel;              /* released: stop the query (under st_lock) */
	char path[4096];
	int wake_fd;            /* our own dup of the wake pipe's write end */
	int (*fn)(struct store *st, void *arg, struct c2c_error *err);
	void *arg;
	void (*free_arg)(void *arg);
	int rc;
	struct c2c_error err;
	double started_ms;
};

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void job_free(struct view_job *j)
{
	if (j->free_arg)
		j->free_arg(j->arg);
	if (j->wake_fd >= 0)
		close(j->wake_fd);
	pthread_mutex_destroy(&j->st_lock);
	free(j);
}

static void *job_main(void *p)
{
	struct view_job *j = p;
	struct store *st = NULL;
	sigset_t block;
	int expected = JOB_RUNNING;

	/* Never take the explorer's signals; a write to a pipe whose reader
	 * is gone fails with EPIPE instead of killing the process. */
	sigfillset(&block);
	pthread_sigmask(SIG_BLOCK, &block, NULL);
	/* Background work yields to what the user waits for: on two cores a
	 * filter's recomputation (the loop's thread and its aggregator) ran at
	 * half speed beside the line verdicts' scan of every sample. Linux
	 * gives a thread its own nice value; a refusal only costs speed. */
	id_t tid = (id_t)syscall(SYS_gettid);
	errno = 0;
	int nice_now = getpriority(PRIO_PROCESS, tid);
	if (errno == 0 && setpriority(PRIO_PROCESS, tid, nice_now + VIEW_JOB_NICE > 19 ? 19 : nice_now + VIEW_JOB_NICE) < 0) {
		/* not fatal */
	}
	/* Temporary files: an in-memory sort of every sample is one SQLite
	 * step that no interrupt stops (seconds at 10M samples). */
	j->rc = store_open(&st, j->path, STORE_OPEN_RDONLY | STORE_OPEN_TEMP_FILES, &j->err);
	pthread_mutex_lock(&j->st_lock);
	j->st = st;
	if (j->cancel)
		store_interrupt(st);
	pthread_mutex_unlock(&j->st_lock);
	if (j->rc >= 0)
		j->rc = j->fn(st, j->arg, &j->err);
	pthread_mutex_lock(&j->st_lock);
	j->st = NULL;
	pthread_mutex_unlock(&j->st_lock);
	store_close(st);
	if (atomic_compare_exchange_strong(&j->state, &expected, JOB_DONE)) {
		char b = 1;
		if (write(j->wake_fd, &b, 1) < 0) {
			/* Full pipe: a wake-up is pending anyway. */
		}
	} else {
		job_free(j);   /* abandoned while running */
	}
	jobs_add(-1);
	return NULL;
}

struct view_job *view_job_start(struct explorer *ex, int (*fn)(struct store *, void *, struct c2c_error *),
				void *arg, void (*free_arg)(void *), struct c2c_error *err)
{
	struct view_job *j = calloc(1, sizeof(*j));
	pthread_attr_t attr;
	pthread_t th;
	int r;

	if (!j) {
		free_arg(arg);
		c2c_error_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	atomic_init(&j->state, JOB_RUNNING);
	pthread_mutex_init(&j->st_lock, NULL);
	snprintf(j->path, sizeof(j->path), "%s", store_data_path(ex->st));
	j->fn = fn;
	j->arg = arg;
	j->free_arg = free_arg;
	j->started_ms = mono_ms();
	j->wake_fd = dup(view_wake_fd(ex));
	if (j->wake_fd < 0) {
		c2c_error_set(err, -errno, "cannot start a background query: %s", strerror(errno));
		job_free(j);
		return NULL;
	}
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	jobs_add(1);
	r = pthread_create(&th, &attr, job_main, j);
	pthread_attr_destroy(&attr);
	if (r) {
		jobs_add(-1);
		c2c_error_set(err, -r, "cannot start a background query: %s", strerror(r));
		job_free(j);
		return NULL;
	}
	return j;
}

int view_job_done(struct view_job *j)
{
	return j && atomic_load(&j->state) == JOB_DONE;
}

void *view_job_arg(struct view_job *j)
{
	return j->arg;
}

int view_job_result(struct view_job *j, struct c2c_error *err, double *ms)
{
	if (ms)
		*ms = mono_ms() - j->started_ms;
	if (j->rc < 0 && err)
		*err = j->err;
	return j->rc;
}

void view_job_release(struct view_job *j)
{
	int expected = JOB_RUNNING;

	if (!j)
		return;
	/* Nobody waits for the answer: stop the query, so that a thread
	 * does not read the session for seconds more (the explorer waits for
	 * running ones when it ends). Before the exchange below: after it the
	 * thread may free j. */
	pthread_mutex_lock(&j->st_lock);
	j->cancel = true;
	store_interrupt(j->st);
	pthread_mutex_unlock(&j->st_lock);
	/* Still running: the thread frees it when the query ends. */
	if (atomic_compare_exchange_strong(&j->state, &expected, JOB_ABANDONED))
		return;
	job_free(j);
}
