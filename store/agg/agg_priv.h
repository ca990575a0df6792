/* Private to store/agg: the report's sample-order entries and the
 * timeline log's reading side, shared by agg.c, agg_report.c,
 * timeline_log.c and agg_timeline.c. */
#ifndef C2C_STORE_AGG_PRIV_H
#define C2C_STORE_AGG_PRIV_H

#include "store/agg/agg.h"

/* ---- the report's sample-order numbers (store/agg/agg_report.c) -------- */

void agg_rep_free(struct agg *a);
/* One sample on line_ent / par_ent (the AGG_LINE and AGG_PARETO entries). */
int agg_rep_add(struct agg *a, struct agg_ent *line_ent, struct agg_ent *par_ent, const struct agg_sample *s);
/* Writes the changed entries into <schema>.agg_line_seq / agg_prow when
 * schema is the one they were enabled for (nothing otherwise). */
int agg_rep_flush(struct agg *a, struct store *st, const char *schema, struct c2c_error *err);

/* ---- the timeline log (store/agg/timeline_log.c) ------------------------ */

#define TL_LOG_COUNTERS 6        /* load, store, lcl/rmt/tot HITM, tot peer */
struct tl_log;
void tl_log_free(struct tl_log *l);
/* One sample on line key `line`; *line_idx is the line's slot for the
 * log's index (0 until the log gives it one). Untimed samples are only
 * counted. Out of budget or memory, the log gives up silently. */
void tl_log_add(struct tl_log *l, uint64_t time, uint64_t line, uint32_t *line_idx, uint64_t bits);
/* Writes v as a LEB128 varint at p (at most 10 bytes); its length. */
size_t store_put_varint(unsigned char *p, uint64_t v);
/* A sample's counts in tl_log_each's order. */
void tl_log_counts(uint64_t bits, unsigned *v);
/* Whether l holds every sample of a session of nr_samples. */
bool tl_log_usable(const struct tl_log *l, uint64_t nr_samples);
/* Calls fn for each timed sample in the order added, with its counts of
 * load, store, lcl_hitm, rmt_hitm, tot_hitm, tot_peer; stops at fn's
 * first non-zero return and returns it. */
int tl_log_each(const struct tl_log *l, int (*fn)(void *ctx, uint64_t time, uint64_t line, const unsigned *counts),
		void *ctx);

#endif /* C2C_STORE_AGG_PRIV_H */
