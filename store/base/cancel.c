/* Stopping queries on request (store.h: store_interrupt, the thread's
 * poll). Both are checked by the progress handler every connection has
 * (session_check.c), every few thousand SQLite steps, so a stop lands
 * within microseconds of work wherever the statement is. The flag is a
 * lock-free atomic: setting it is safe from a signal handler. The poll is
 * per thread: an interactive loop watches its keys while its own queries
 * run, and never runs inside a background thread's query. */
#include "store/base/base.h"

#include <stdbool.h>

static _Thread_local int (*thread_poll)(void *ctx);
static _Thread_local void *thread_poll_ctx;
static _Thread_local bool poll_stopped;   /* the poll stopped this thread's last statement */

void store_interrupt(struct store *st)
{
	if (st)
		atomic_store(&st->interrupted, 1);
}

void store_interrupt_clear(struct store *st)
{
	if (st)
		atomic_store(&st->interrupted, 0);
}

void store_set_thread_poll(int (*poll)(void *ctx), void *ctx)
{
	thread_poll = poll;
	thread_poll_ctx = ctx;
	poll_stopped = false;
}

int store_cancel_check(atomic_int *own)
{
	if (own && atomic_load_explicit(own, memory_order_relaxed))
		return 1;
	if (thread_poll && thread_poll(thread_poll_ctx)) {
		poll_stopped = true;
		return 1;
	}
	return 0;
}

void store_cancel_statement_start(void)
{
	poll_stopped = false;
}

bool store_cancelled(struct store *st)
{
	return poll_stopped || (st && atomic_load(&st->interrupted));
}
