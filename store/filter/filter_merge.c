/* A filtered view's samples from a block session, in recording order:
 * the blocks the filter's time window, CPUs, nodes, processes and threads
 * can be in, merged
 * (store/base/sample_merge.c), stoppable like an SQL scan (a quit or a
 * signal lands within a block). Used by the filtered rebuild
 * (rebuild.c) and report's sample-order line scan (store/query/
 * query_report.c), which then keep the rows store_filter_keeps passes. */
#include "store/filter/filter.h"
#include "store/base/sample_merge.h"

#include <errno.h>

static bool cancel_asked(void *arg)
{
	return store_cancel_check(arg);
}

int store_filter_merge_open(struct store *st, const struct store_filter *f, uint32_t cols,
			    struct sample_merge **out, struct c2c_error *err)
{
	struct sample_merge_opts o = {
		.cols = cols,
		.t0 = f ? (int64_t)f->time_from : 0,
		.t1 = f ? (int64_t)f->time_to : 0,
		.parts = st->sample_parts,
		.tasks = st->block_tasks,
		.cancel = cancel_asked,
		.cancel_arg = &st->interrupted,
	};
	int r;

	store_filter_block_masks(f, &o.cpus, &o.nodes);
	store_filter_task_masks(f, &o.pids, &o.tids);
	if ((r = sample_merge_open(st->db, &o, out)) < 0) {
		r = store_filter_merge_error(st, *out, r, err);
		sample_merge_close(*out);
		*out = NULL;
	}
	return r;
}

int store_filter_merge_error(struct store *st, const struct sample_merge *m, int r, struct c2c_error *err)
{
	if (r == -ENOMEM || !m)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	if (r == -ECANCELED)
		return c2c_error_set(err, r, "interrupted");
	return c2c_error_set(err, r, "%s: %s", st->path, sample_merge_error(m));
}
