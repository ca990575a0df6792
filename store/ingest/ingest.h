/* Ingest: the one rule set that turns decoded records into session rows,
 * shared by the import driver (store/ingest/import_pipeline.h: perf.data
 * files) and the live driver (store/ingest/live_session.h: libperf rings).
 * For each sample it resolves the code site and the data symbol (with
 * per-address caches keyed by pid), the call chain, perf's line identity
 * and the c2c class, pairs lock:contention_begin/end into lock waits
 * (written before the sample that closed them), and keeps the symbol
 * tables current from the side-band records. The drivers only read their
 * source, write the session's metadata and decide when to commit.
 *
 * Ownership: ingest_new/ingest_free. The store stays the caller's; the
 * symbol table, the tracepoint decoder and the lock pairer are the
 * ingest's. One thread at a time. */
#ifndef C2C_STORE_INGEST_H
#define C2C_STORE_INGEST_H

#include <stdbool.h>
#include <stdint.h>

#include "collector/base/error.h"
#include "collector/base/sample.h"
#include "collector/symbols/symbols.h"

struct store;
struct ingest;
struct tp_decoder;

/* What was written so far. */
struct ingest_stats {
	uint64_t samples;            /* sample rows */
	uint64_t lock_waits;         /* lock wait rows */
	uint64_t lock_wait_ns;       /* their total wait */
	uint64_t sideband;           /* MMAP/COMM/FORK/EXIT rows */
	uint64_t per_event[16];      /* samples per event index (the first 16) */
	/* From the lock pairer. */
	uint64_t unmatched_ends, pending_begins, nested_begins;
};

/* so: where symbols come from (--symfs, kallsyms). The tracepoint decoder
 * starts empty: the driver loads the formats (ingest_decoder). */
int ingest_new(struct ingest **out, struct store *st, const struct symtab_options *so, struct c2c_error *err);
void ingest_free(struct ingest *in);

struct symtab *ingest_symtab(struct ingest *in);
struct tp_decoder *ingest_decoder(struct ingest *in);

/* The memory node of a CPU (from the recording's topology or sysfs): a
 * sample is accounted to its CPU's node, as perf does. */
int ingest_set_cpu_node(struct ingest *in, uint32_t cpu, int32_t node, struct c2c_error *err);

int ingest_sample(struct ingest *in, const struct c2c_sample *s, struct c2c_error *err);
int ingest_mmap(struct ingest *in, const struct c2c_mmap *m, uint64_t time, struct c2c_error *err);
int ingest_comm(struct ingest *in, const struct c2c_comm *c, struct c2c_error *err);
int ingest_task(struct ingest *in, const struct c2c_task *t, bool is_exit, struct c2c_error *err);

void ingest_get_stats(struct ingest *in, struct ingest_stats *out);

#endif /* C2C_STORE_INGEST_H */
