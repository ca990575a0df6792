/* Private to store/query: the query side's state and the helpers the
 * query files share. */
#ifndef C2C_STORE_QUERY_PRIV_H
#define C2C_STORE_QUERY_PRIV_H

#include "store/query/query.h"

struct agg;

struct store_query_state {
	/* temp aggregates for filtered views (store/query/query_state.c) */
	bool tmp_valid;
	uint64_t tmp_generation;
	struct store_filter tmp_filter;  /* symbol not kept (not part of the key) */
	/* the rebuilt aggregates, kept while some of their tables are not
	 * written yet (tmp_written: agg.h's AGG_FLUSH_* bits written) */
	struct agg *tmp_agg;
	unsigned tmp_written;
	struct c2c_stats q_shared;       /* shared-line totals for c2c_displayed() in SQL */
	bool sql_funcs;
};

/* Schema of the aggregates a query reads: "main" unless the filter needs a
 * recomputation, in which case the temp tables are (re)built first.
 * Returns "main"/"temp" or NULL with err set. */
const char *store_agg_schema(struct store *st, const struct store_filter *f, struct c2c_error *err);
/* The same for a query that reads only some aggregate tables (agg.h's
 * AGG_FLUSH_* bits): a filtered view writes those first, the others when
 * a query asks for them. */
const char *store_agg_schema_for(struct store *st, const struct store_filter *f, unsigned tables,
				 struct c2c_error *err);

/* Totals of the shared lines in schema (and how many). */
int store_shared_totals(struct store *st, const char *schema, struct c2c_stats *out, uint64_t *nlines,
			struct c2c_error *err);
/* Reads the columns LINE_ROW_COLS selects into a row. */
#define LINE_ROW_COLS_FMT "l.line, %s, %s, l.nr_cpus, l.nr_threads, l.nr_sites, l.nr_offsets, l.node_mask," \
	" l.dsym_start, l.lock_waits, l.lock_wait_ns, d.name, d.dso, %s"
void store_read_line_row(sqlite3_stmt *s, struct store_line_row *row);

#endif /* C2C_STORE_QUERY_PRIV_H */
