/* Scenario generator (built into build/libgen.a): whole perf c2c-like
 * recordings written with the perf.data writer, with known contents, so
 * that tests and benchmarks can check every number. tests/tools/c2c-gen.c
 * is its command line; docs/generated-fixtures.md describes each scenario.
 *
 * Every file is marked as generated: HOSTNAME "c2c-gen (generated)" and a
 * CMDLINE starting with "c2c-gen (generated)". */
#ifndef C2C_GEN_SCENARIO_H
#define C2C_GEN_SCENARIO_H

#include <stdint.h>
#include <stdio.h>

#include "collector/base/error.h"
#include "tests/gen/perfdata_writer.h"

struct gen_params {
	const char *scenario;       /* one of gen_scenario_names() */
	uint64_t samples;           /* 0: the scenario's default (see docs);
	                             * lock-tracepoints: the number of waits */
	uint64_t seed;              /* 0 means 1; same seed, same bytes */
	uint32_t nodes;             /* 0 means 2 */
	uint32_t cpus_per_node;     /* 0 means 8 */
	/* mixed and bench only, 0 means the scenario's own (512, 200, 8): how
	 * many objects of about a cache line each, code sites, and threads of
	 * the first process (the second keeps its 4). */
	uint32_t lines, sites, threads;
	struct pdw_options pdw;     /* pipe, big_endian, compress, attr_size, fd */
};

/* What a scenario wrote. Counts of samples by what perf 6.1's c2c makes of
 * them: by_class[c] counts samples of data_src class c that have a data
 * address (mapped or not); ld_noadrs / st_noadrs count loads / stores
 * written with address 0 (their class is not counted in by_class). */
struct gen_expect {
	uint64_t samples;
	uint64_t loads, stores, noparse;
	uint64_t by_class[PDW_MEM_CLASS_COUNT];
	uint64_t locked, blk_data, blk_addr;
	uint64_t ld_noadrs, st_noadrs;
	uint64_t nomap;            /* data address outside every map */
	uint64_t kernel;           /* samples with a kernel ip */
	uint64_t lost;             /* sum of PERF_RECORD_LOST counts */
	uint64_t lost_records;
	uint64_t records;          /* records in the data stream (pdw_nr_records) */
	uint32_t nr_cpus, nr_nodes, pids, threads;
	/* lock-tracepoints: contention_begin/end samples and the waits they
	 * pair into (rules of collector/tracepoint/lockwait.h). */
	uint64_t lock_begins, lock_ends, lock_waits, lock_nested, lock_unmatched, lock_pending;
	uint64_t lock_wait_ns;     /* sum of the paired waits' durations */
	uint64_t lock_waits_by_lock[3], lock_wait_ns_by_lock[3];
};

/* NULL-terminated list of scenario names. */
const char *const *gen_scenario_names(void);
/* The default sample count of a scenario (0 when unknown). */
uint64_t gen_scenario_default_samples(const char *name);

/* Writes scenario p->scenario to path (or p->pdw.fd when path is NULL).
 * exp (may be NULL) receives the counts. Returns 0 or a negative errno. */
int gen_scenario(const char *path, const struct gen_params *p, struct gen_expect *exp,
		 struct c2c_error *err);

/* Prints exp as "name value" lines (samples, loads, stores, lcl_hitm, ...). */
void gen_expect_print(FILE *f, const struct gen_expect *exp);

#endif /* C2C_GEN_SCENARIO_H */
