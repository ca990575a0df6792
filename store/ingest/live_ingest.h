/* The sink half of a live session: the callbacks the collector's writer
 * thread calls for each record (collector/live/live.h's struct live_sink),
 * each one handed to ingest (the rules shared with import), with the
 * collector's counters written and the batch committed at every flush.
 * live_session.c puts it behind a live collection; the replay test drives
 * it with a recorded stream to prove both drivers write the same rows.
 *
 * Ownership: live_ingest_new/live_ingest_free; the store stays the caller's. */
#ifndef C2C_STORE_LIVE_INGEST_H
#define C2C_STORE_LIVE_INGEST_H

#include <stdint.h>

#include "collector/base/error.h"
#include "collector/live/live.h"
#include "collector/symbols/symbols.h"

struct store;
struct ingest;
struct live_ingest;

int live_ingest_new(struct live_ingest **out, struct store *st, const struct symtab_options *so,
		    struct c2c_error *err);
void live_ingest_free(struct live_ingest *li);

/* The sink to hand to live_start (valid while li lives). */
const struct live_sink *live_ingest_sink(struct live_ingest *li);
/* The rules behind it: its decoder takes the tracepoint formats, its
 * CPU-to-node map the topology. */
struct ingest *live_ingest_rules(struct live_ingest *li);
/* Writes the collector's counters (set, not added) into the session. */
int live_ingest_write_counters(struct live_ingest *li, const struct live_counts *c, struct c2c_error *err);
/* Commits so far (any thread). */
uint64_t live_ingest_commits(struct live_ingest *li);
/* The first failure of a callback (the writer thread's error slot). */
const struct c2c_error *live_ingest_error(struct live_ingest *li);

#endif /* C2C_STORE_LIVE_INGEST_H */
