/* The import driver: perf.data reader -> ingest (store/ingest/ingest.h,
 * the rules shared with live) -> store writer, in big transactions, with
 * the recording's header as the session's metadata. Used by `c2ctui
 * import`, and by `report FILE.data` / `open FILE.data` (which import into
 * a temporary session first). Nothing here prints: progress goes to the
 * caller's callback, which the command layer draws. */
#ifndef C2C_IMPORT_PIPELINE_H
#define C2C_IMPORT_PIPELINE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "collector/base/error.h"

/* Lets callers test for the pipeline with #ifdef. */
#define HAVE_IMPORT_PIPELINE 1

struct perfdata;
struct store;

/* What the import has done so far, for a progress line. */
struct import_progress {
	const char *path;            /* the perf.data */
	uint64_t records, samples;
	double seconds;
	bool last;                   /* the import's final call */
};

struct import_options {
	const char *symfs;           /* --symfs DIR (NULL: paths as recorded) */
	const char *kallsyms;        /* --kallsyms FILE (NULL: /proc/kallsyms when
	                                the recording was made on this host) */
	const char *vmlinux;         /* -k/--vmlinux FILE (NULL: one with the recorded
	                                kernel build-id in perf's places, else kallsyms) */
	/* Called about every 250 ms while importing, and once at the end
	 * (last). NULL: no progress. */
	void (*progress)(void *ctx, const struct import_progress *p);
	void *progress_ctx;
	uint64_t batch;              /* samples per transaction (0: 500000) */
	/* Checked between records: when it becomes non-zero the import
	 * commits what it has and stops with -EINTR (the session is valid,
	 * and says it was interrupted). Point it at a flag a SIGINT/SIGTERM
	 * handler sets to the signal's number. NULL: none. */
	volatile sig_atomic_t *stop;
	/* The source is a generated (test) file: stored as the "generated" flag. */
	bool generated;
};

struct import_result {
	uint64_t records;            /* records read */
	uint64_t samples;            /* samples stored */
	uint64_t lock_waits;         /* lock waits stored */
	uint64_t sideband;           /* MMAP/COMM/FORK/EXIT stored */
	uint64_t lost;               /* samples the recording says it lost */
	uint64_t lost_samples_records; /* of which in LOST_SAMPLES records (perf's drop rate) */
	uint64_t unknown_records;    /* records skipped */
	uint64_t bytes_dropped;      /* damaged/truncated tail not read */
	bool truncated;              /* the data section was cut short */
	uint64_t bad_records;        /* of which damaged (or of no known event) */
	uint32_t bad_features;       /* header features that did not parse */
	bool interrupted;            /* stopped by opt->stop */
	int signal;                  /* the value *opt->stop had (the signal) */
	bool session_valid;          /* the output is a usable session (even on error) */
	bool created;                /* the output file was made by this import */
	double seconds;              /* wall time */
	/* Kernel modules whose .ko was found but has another build-id than
	 * the recorded one (not used): one line each ("MAP: FILE", or FILE
	 * when the map is that path), newline-separated, cut at the buffer's
	 * end; "" when none. */
	uint32_t kmods_refused;
	char kmod_refused[512];
};

/* Imports the perf.data at perf_data into a new session file db_path
 * (which must not exist). Returns 0 when everything was imported. On a
 * damaged or truncated input, or when stopped, it keeps every complete
 * record (the session is valid and finalized, result->session_valid) and
 * returns a negative code with one sentence naming the file in err.
 * Other errors remove the half-written output. opt and result may be NULL. */
int import_pipeline_file(const char *perf_data, const char *db_path, const struct import_options *opt,
			 struct c2c_error *err);
int import_pipeline_file_ex(const char *perf_data, const char *db_path, const struct import_options *opt,
			    struct import_result *result, struct c2c_error *err);

/* The same on an open reader and writer (the caller owns both, and
 * finalizes the store afterwards). */
int import_pipeline_run(struct perfdata *pd, struct store *st, const struct import_options *opt,
			struct import_result *result, struct c2c_error *err);

/* Writes the recording's header into st as the session's metadata (host,
 * events, CPU topology, memory ranges, line size) and hands in the
 * build-ids, the CPU-to-node map and the tracepoint formats. The import
 * does this at the first sample; the replay test uses it to give a live
 * driver's session the same metadata. */
struct ingest;
int import_write_header(struct perfdata *pd, struct store *st, struct ingest *in, const struct import_options *opt,
			struct c2c_error *err);

#endif /* C2C_IMPORT_PIPELINE_H */
