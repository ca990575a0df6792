/* live_replay: writes a session from a perf.data through the LIVE driver's
 * sink (store/ingest/live_ingest.h), the callbacks the collector's writer
 * thread calls for each record of a live collection, committing every
 * --flush N records as the collector's periodic flush does. The session's
 * metadata comes from the recording's header (import_write_header), so the
 * session can be compared row by row with `c2ctui import` of the same file:
 * tests/e2e/ingest_drivers.sh does that.
 *
 *   live_replay IN.data OUT.db [--flush N] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/perfdata/perfdata.h"
#include "store/ingest/import_pipeline.h"
#include "store/ingest/ingest.h"
#include "store/ingest/live_ingest.h"
#include "store/store.h"

static int replay(struct perfdata *pd, struct store *st, uint64_t flush_every, struct c2c_error *err)
{
	const struct perfdata_header *h = perfdata_header(pd);
	struct symtab_options so = { 0 };
	struct live_ingest *li = NULL;
	struct perfdata_record rec;
	struct live_counts counts;
	struct c2c_error rerr = { 0 };
	bool header_done = false;
	uint64_t n = 0;
	int rc, r = 0;

	/* Symbols as the import finds them: kallsyms of this host only when
	 * the recording was made here. */
	so.use_host_kallsyms = symtab_same_host(h->hostname, h->osrelease);
	if ((r = live_ingest_new(&li, st, &so, err)) < 0)
		return r;
	const struct live_sink *sink = live_ingest_sink(li);
	memset(&counts, 0, sizeof(counts));
	while ((rc = perfdata_next(pd, &rec, &rerr)) == 1) {
		if (!header_done && rec.kind == PERFDATA_SAMPLE) {
			if ((r = import_write_header(pd, st, live_ingest_rules(li), NULL, err)) < 0)
				goto out;
			header_done = true;
		}
		switch (rec.kind) {
		case PERFDATA_SAMPLE: {
			struct live_event ev;
			memset(&ev, 0, sizeof(ev));
			ev.attr.index = rec.u.sample.event;
			r = sink->sample(sink->ctx, &ev, &rec.u.sample);
			break;
		}
		case PERFDATA_MMAP:
			r = sink->mmap(sink->ctx, &rec.u.mmap, rec.sid.time);
			break;
		case PERFDATA_COMM:
			r = sink->comm(sink->ctx, &rec.u.comm);
			break;
		case PERFDATA_FORK:
		case PERFDATA_EXIT:
			r = sink->task(sink->ctx, &rec.u.task, rec.kind == PERFDATA_EXIT);
			break;
		default:
			break;
		}
		if (r < 0) {
			*err = *live_ingest_error(li);
			goto out;
		}
		if (++n % flush_every == 0 && (r = sink->flush(sink->ctx, &counts, false)) < 0) {
			*err = *live_ingest_error(li);
			goto out;
		}
	}
	if (rc < 0) {
		*err = rerr;
		r = rc;
		goto out;
	}
	if (!header_done && (r = import_write_header(pd, st, live_ingest_rules(li), NULL, err)) < 0)
		goto out;
	if ((r = sink->flush(sink->ctx, &counts, true)) < 0)
		*err = *live_ingest_error(li);
out:
	live_ingest_free(li);
	return r;
}

int main(int argc, char **argv)
{
	struct c2c_error err = { 0 };
	struct perfdata *pd = NULL;
	struct store *st = NULL;
	uint64_t flush_every = 1000;
	int r;

	if (argc == 5 && !strcmp(argv[3], "--flush"))
		flush_every = strtoull(argv[4], NULL, 10);
	else if (argc != 3) {
		fprintf(stderr, "usage: live_replay IN.data OUT.db [--flush N]\n");
		return 2;
	}
	if (!flush_every)
		flush_every = 1;
	if ((r = perfdata_open(&pd, argv[1], &err)) < 0 || (r = store_create(&st, argv[2], &err)) < 0 ||
	    (r = replay(pd, st, flush_every, &err)) < 0 || (r = store_finalize(st, &err)) < 0) {
		fprintf(stderr, "live_replay: %s\n", err.msg);
		store_close(st);
		perfdata_close(pd);
		return 1;
	}
	store_close(st);
	perfdata_close(pd);
	return 0;
}
