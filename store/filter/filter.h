/* What the other store/ sub-modules may use of store/filter: the sample
 * filters as SQL (store/filter/filter_sql.c; every query that scans
 * samples uses them) and the aggregates recomputed from the samples
 * (store/filter/rebuild.c). */
#ifndef C2C_STORE_FILTER_H
#define C2C_STORE_FILTER_H

#include "store/base/base.h"

struct agg;

/* True when the filter forces recomputation from samples. */
bool store_filter_needs_recompute(const struct store_filter *f);
/* Line size for a filter (doubled with double_cl). */
uint32_t store_line_size(const struct store *st, const struct store_filter *f);

/* " WHERE cpu = :cpu AND ..." for the sample filters of f ("" when none);
 * lock_table: the lock_waits table (node through the cpus table). */
int store_filter_sql(const struct store *st, const struct store_filter *f, char *buf, size_t size, bool lock_table);
/* " AND (cpu BETWEEN 0 AND 3 OR ...) AND ..." for f's sets alone ("" when
 * none), columns named with prefix ("w."): for queries that bind the
 * single values themselves. -ENOSPC when buf is too small. */
int store_filter_sets_sql(const struct store_filter *f, const char *prefix, bool lock_table, char *buf, size_t size);
/* head + f's sets (on lock_waits, columns named with prefix) + tail, for
 * the queries of lock waits that bind the single values themselves;
 * heap-allocated (free()), NULL when out of memory. */
char *store_sql_with_sets(const char *head, const struct store_filter *f, const char *prefix, const char *tail);
struct store_sample_rec;
/* Whether a block session's sample r passes f, as the SQL of
 * store_filter_sql would say (a NULL column matches no condition). */
bool store_filter_keeps(const struct store_filter *f, const struct store_sample_rec *r);
/* The per-CPU blocks (schema 3) a filter's CPUs and nodes can be in, as
 * masks of bit x % 64 for sample_blocks' block_cpus / block_nodes (0: any). */
void store_filter_block_masks(const struct store_filter *f, uint64_t *cpus, uint64_t *nodes);
/* The same for the blocks' processes and threads (bits pid % 64, tid % 64;
 * sessions whose index has them, store.block_tasks). */
void store_filter_task_masks(const struct store_filter *f, uint64_t *pids, uint64_t *tids);
struct sample_merge;
/* The block session's samples f can keep, in recording order (cols: the
 * columns decoded; the rows still need store_filter_keeps): 0 with *out,
 * or <0 with err set (filter_merge.c). */
int store_filter_merge_open(struct store *st, const struct store_filter *f, uint32_t cols,
			    struct sample_merge **out, struct c2c_error *err);
/* err for r, a failure of sample_merge_next on m (a damaged block names the session). */
int store_filter_merge_error(struct store *st, const struct sample_merge *m, int r, struct c2c_error *err);
/* Binds the named parameters store_filter_sql used. */
void store_filter_bind(sqlite3_stmt *s, const struct store_filter *f);

/* Rebuilds a from the samples and lock_waits tables, keeping the samples
 * the filter selects (all when f is NULL): the append-mode load and the
 * filtered views' recomputation. a keeps the report's sample-order
 * numbers for the tables in rep_schema: "main" for the writer's own
 * aggregator (with the timeline log), "temp" for a filtered view's
 * (not for physical-address lines, which the report scans for). */
int agg_rebuild(struct agg *a, struct store *st, const struct store_filter *f, const char *rep_schema,
		struct c2c_error *err);

#endif /* C2C_STORE_FILTER_H */
