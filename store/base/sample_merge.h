/* A block session's samples in time order (store/base/sample_merge.c):
 * the blocks that can hold a window's or a CPU/node set's samples,
 * decoded and merged by (time, id). Within a block rows follow arrival;
 * since schema 3 each CPU has its own blocks, so a scan in time order
 * merges about one block a CPU. Rows come out in the order they were
 * recorded in (each block's arrival order, merged by time), which is
 * SQL's ORDER BY time, id (NULL times first) when every block's times
 * are in order (sample_block_index.sorted); with opts.exact it is that
 * order in any case. */
#ifndef C2C_STORE_SAMPLE_MERGE_H
#define C2C_STORE_SAMPLE_MERGE_H

#include "store/base/sample_codec.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

struct sample_merge_opts {
	uint32_t cols;               /* columns decoded (sample_block_decode's mask) */
	int64_t t0, t1;              /* blocks overlapping [t0, t1); 0: no bound */
	uint64_t cpus, nodes;        /* blocks with a row on one of these (bit x % 64); 0: any */
	uint64_t pids, tids;         /* alike, when the index has them (tasks); 0: any */
	bool parts;                  /* the session has sample_block_index (schema 3) */
	bool tasks;                  /* and its pids and tids columns */
	/* rows in exactly ORDER BY time, id: a block whose times go back is
	 * sorted when read (else it keeps its arrival order, merged by time) */
	bool exact;
	/* asked at each block read; true stops the scan with -ECANCELED */
	bool (*cancel)(void *arg);
	void *cancel_arg;
};

struct sample_merge;

/* 0, or -ENOMEM, or an SQLite error (-EIO; sample_merge_error says which). */
int sample_merge_open(sqlite3 *db, const struct sample_merge_opts *o, struct sample_merge **out);
/* 1 with the next row (valid until the next call), its payloads' buffer and id; 0 at the end; <0 on error:
 * -EINVAL a damaged block, -EIO SQLite, -ENOMEM, -ECANCELED. */
int sample_merge_next(struct sample_merge *m, const struct store_sample_rec **row, const unsigned char **raw,
		      int64_t *id);
/* After an error: what went wrong ("damaged sample block (ids from 5): block truncated", SQLite's words). */
const char *sample_merge_error(const struct sample_merge *m);
void sample_merge_close(struct sample_merge *m);

#endif /* C2C_STORE_SAMPLE_MERGE_H */
