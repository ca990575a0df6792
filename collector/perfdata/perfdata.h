/* The perf.data reader: opens a perf.data file (or pipe-format stream),
 * decodes its header, attrs and feature sections, and hands out the record
 * stream in the order perf report / perf c2c see it (time-ordered per
 * FINISHED_ROUND, like perf's ordered events), with PERF_RECORD_COMPRESSED
 * records decompressed transparently.
 *
 * Ownership: perfdata_open*() returns a heap object that perfdata_close()
 * frees. Everything handed out (header strings and arrays, attrs, record
 * pointers) is owned by the reader: header data and attrs live until close,
 * a record's pointers until the next perfdata_next() call.
 *
 * Errors: negative codes, one sentence in struct c2c_error naming the file
 * and the problem. A damaged data section ends the stream with an error
 * after every complete record before the damage was delivered;
 * perfdata_stats() then says how many bytes were dropped. */
#ifndef C2C_PERFDATA_H
#define C2C_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collector/base/error.h"
#include "collector/perfdata/perf_record.h"
#include "collector/base/sample.h"

struct perfdata;

/* Header feature bits (HEADER_* in perf's util/header.h). */
enum perfdata_feature {
	PERFDATA_FEAT_TRACING_DATA = 1,
	PERFDATA_FEAT_BUILD_ID = 2,
	PERFDATA_FEAT_HOSTNAME = 3,
	PERFDATA_FEAT_OSRELEASE = 4,
	PERFDATA_FEAT_VERSION = 5,
	PERFDATA_FEAT_ARCH = 6,
	PERFDATA_FEAT_NRCPUS = 7,
	PERFDATA_FEAT_CPUDESC = 8,
	PERFDATA_FEAT_CPUID = 9,
	PERFDATA_FEAT_TOTAL_MEM = 10,
	PERFDATA_FEAT_CMDLINE = 11,
	PERFDATA_FEAT_EVENT_DESC = 12,
	PERFDATA_FEAT_CPU_TOPOLOGY = 13,
	PERFDATA_FEAT_NUMA_TOPOLOGY = 14,
	PERFDATA_FEAT_BRANCH_STACK = 15,
	PERFDATA_FEAT_PMU_MAPPINGS = 16,
	PERFDATA_FEAT_GROUP_DESC = 17,
	PERFDATA_FEAT_AUXTRACE = 18,
	PERFDATA_FEAT_STAT = 19,
	PERFDATA_FEAT_CACHE = 20,
	PERFDATA_FEAT_SAMPLE_TIME = 21,
	PERFDATA_FEAT_MEM_TOPOLOGY = 22,
	PERFDATA_FEAT_CLOCKID = 23,
	PERFDATA_FEAT_DIR_FORMAT = 24,
	PERFDATA_FEAT_BPF_PROG_INFO = 25,
	PERFDATA_FEAT_BPF_BTF = 26,
	PERFDATA_FEAT_COMPRESSED = 27,
	PERFDATA_FEAT_CPU_PMU_CAPS = 28,
	PERFDATA_FEAT_CLOCK_DATA = 29,
	PERFDATA_FEAT_HYBRID_TOPOLOGY = 30,
	PERFDATA_FEAT_PMU_CAPS = 31,
	PERFDATA_FEAT_KNOWN = 32,      /* first bit this reader does not know */
	PERFDATA_FEAT_BITS = 256,
};

/* CPU_TOPOLOGY, per cpu (index = cpu number); -1 where the file has no data. */
struct perfdata_cpu_topo {
	int32_t core_id;
	int32_t socket_id;
	int32_t die_id;
};

/* NUMA_TOPOLOGY, one node. */
struct perfdata_numa_node {
	uint32_t node;
	uint64_t mem_total_kb;
	uint64_t mem_free_kb;
	const char *cpus;            /* cpu list as perf writes it, e.g. "0-7,16-23" */
};

/* MEM_TOPOLOGY, one node: which memory blocks belong to it. */
struct perfdata_mem_node {
	uint64_t node;
	uint64_t nr_blocks_total;    /* bitmap size in bits */
	uint64_t nr_blocks;          /* blocks set in the bitmap */
	uint64_t bytes;              /* nr_blocks * block size */
	/* The block bitmap itself (nr_blocks_total bits, 64 per word): block b
	 * covers physical [b * mem_block_size, (b+1) * mem_block_size). perf's
	 * c2c maps sample phys_addr to a node with it. NULL when absent. */
	const uint64_t *blocks;
};

/* CACHE, one cache of one level. */
struct perfdata_cache {
	uint32_t level;
	uint32_t line_size;
	uint32_t sets;
	uint32_t ways;
	const char *type;            /* "Data", "Instruction", "Unified" */
	const char *size;            /* as in sysfs, e.g. "32K" */
	const char *map;             /* shared_cpu_list */
};

/* BUILD_ID feature (or pipe HEADER_BUILD_ID), one binary. */
struct perfdata_build_id {
	int32_t pid;
	uint16_t misc;               /* cpumode of the binary */
	uint8_t size;                /* build-id length in bytes (20 for sha1) */
	uint8_t build_id[20];
	const char *filename;
};

/* PMU_MAPPINGS: PMU type number -> name (used to derive event names). */
struct perfdata_pmu {
	uint32_t type;
	const char *name;
};

/* Everything the header and its feature sections say. Strings are NULL when
 * the feature is absent. */
struct perfdata_header {
	bool pipe;                   /* pipe format (features arrive as records) */
	bool swapped;                /* written by a machine of the other byte order */
	uint64_t data_offset, data_size;   /* 0 for pipe format */
	bool unfinished;             /* header's data size was 0 (perf record did not finish):
				      * the data is read to the end of the file, features skipped */
	uint64_t features[PERFDATA_FEAT_BITS / 64];  /* bitmap, bit = enum perfdata_feature */
	uint32_t nr_unknown_features;      /* bits set that this reader does not know */
	uint32_t nr_bad_features;          /* known features whose section did not parse (skipped) */

	const char *hostname, *osrelease, *version, *arch;
	const char *cpudesc, *cpuid;
	const char *cmdline;               /* argv joined with single spaces */
	uint32_t nr_cpus_online, nr_cpus_avail;
	uint64_t total_mem_kb;

	/* CPU_TOPOLOGY */
	uint32_t nr_core_siblings, nr_thread_siblings, nr_die_siblings;
	const char **core_siblings;        /* cpu lists, one per core group */
	const char **thread_siblings;
	const char **die_siblings;
	uint32_t nr_cpu_topo;              /* entries in cpu_topo (nr_cpus_avail when present) */
	struct perfdata_cpu_topo *cpu_topo;

	uint32_t nr_numa_nodes;
	struct perfdata_numa_node *numa_nodes;

	uint64_t mem_block_size;           /* MEM_TOPOLOGY */
	uint32_t nr_mem_nodes;
	struct perfdata_mem_node *mem_nodes;

	uint32_t nr_caches;
	struct perfdata_cache *caches;

	uint32_t nr_build_ids;
	struct perfdata_build_id *build_ids;

	uint32_t nr_pmus;
	struct perfdata_pmu *pmus;

	const void *tracing_data;          /* TRACING_DATA blob (for libtraceevent), or NULL */
	size_t tracing_data_size;

	uint64_t first_sample_time, last_sample_time;   /* SAMPLE_TIME, 0 when absent */
	uint64_t clockid_res_ns;                        /* CLOCKID */

	uint32_t comp_version, comp_type, comp_level, comp_ratio, comp_mmap_len;  /* COMPRESSED */
};

/* Record kinds handed out by perfdata_next(). */
enum perfdata_kind {
	PERFDATA_SAMPLE,
	PERFDATA_MMAP,               /* MMAP and MMAP2 */
	PERFDATA_COMM,
	PERFDATA_FORK,
	PERFDATA_EXIT,
	PERFDATA_LOST,
	PERFDATA_LOST_SAMPLES,
	PERFDATA_THROTTLE,
	PERFDATA_UNTHROTTLE,
	PERFDATA_FINISHED_ROUND,
	PERFDATA_FINISHED_INIT,
	PERFDATA_TRACING_DATA,       /* pipe HEADER_TRACING_DATA: the header's tracing_data is now set */
	PERFDATA_OTHER,              /* a known record type c2ctui does not decode (raw bytes given) */
};

struct perfdata_record {
	enum perfdata_kind kind;
	uint32_t type;               /* PERF_REC_* */
	uint16_t misc;
	uint32_t size;               /* record size in bytes */
	const void *raw;             /* the record as stored (file byte order) */
	int attr;                    /* attr index of the record (samples, and side-band
				      * with sample_id_all), -1 when unknown */
	struct perf_sample_id sid;   /* sample_id_all trailer of side-band records */
	union {
		struct c2c_sample sample;
		struct c2c_mmap mmap;
		struct c2c_comm comm;
		struct c2c_task task;        /* FORK, EXIT */
		struct c2c_lost lost;        /* LOST, LOST_SAMPLES */
		struct c2c_throttle throttle;
	} u;
};

struct perfdata_stats {
	uint64_t records[PERF_REC_TYPE_MAX]; /* records read, per type (inside compressed ones too) */
	uint64_t records_total;
	uint64_t unknown_records;    /* types this reader does not know: skipped */
	uint64_t bad_records;        /* known records that failed to parse: skipped */
	uint64_t unknown_id_samples; /* samples whose id matches no attr: skipped */
	uint64_t unordered_records;  /* timestamps older than the last flush (perf warns) */
	uint32_t unknown_features;
	uint64_t lost_events;        /* sum of LOST.lost and LOST_SAMPLES.lost */
	uint64_t compressed_records;
	uint64_t decompressed_bytes;
	uint64_t dropped_bytes;      /* bytes after damage that were not read */
	bool truncated;              /* the data section ends before its declared size */
	uint64_t max_queued;         /* largest number of records held for ordering */
	uint64_t half_flushes;       /* queue-limit flushes (rounds too big or missing) */
};

/* Opens path ("-" = stdin). File vs pipe format is detected from the header.
 * Reads the header, attrs and feature sections (or, for pipes, nothing
 * beyond the 16-byte header: attrs and features arrive as records and are
 * visible after perfdata_next() has passed them). */
int perfdata_open(struct perfdata **out, const char *path, struct c2c_error *err);
/* Same on an open descriptor; the reader owns fd and closes it. name is
 * used in messages. */
int perfdata_open_fd(struct perfdata **out, int fd, const char *name, struct c2c_error *err);
/* Same on a memory buffer the caller keeps alive until close (fuzzing,
 * tests). */
int perfdata_open_mem(struct perfdata **out, const void *buf, size_t len, const char *name,
		      struct c2c_error *err);
void perfdata_close(struct perfdata *pd);

/* Ordering (default on): deliver records as perf report does. Off: file
 * order. Call before the first perfdata_next(). */
void perfdata_set_ordered(struct perfdata *pd, bool ordered);
/* Most records held for ordering before the older half of their time span
 * is flushed, as perf does when its queue memory limit is reached
 * (default 4M records; a file without FINISHED_ROUND would otherwise be
 * held whole). */
void perfdata_set_queue_limit(struct perfdata *pd, size_t records);

const struct perfdata_header *perfdata_header(const struct perfdata *pd);
const char *perfdata_path(const struct perfdata *pd);

size_t perfdata_nr_attrs(const struct perfdata *pd);
/* The i-th attr (NULL when out of range); name is never NULL. */
const struct perf_attr_info *perfdata_attr(const struct perfdata *pd, size_t i);
/* Attr index for a sample id, or -1. */
int perfdata_attr_by_id(const struct perfdata *pd, uint64_t id);

/* Next record: 1 with *rec filled, 0 at the end of the stream, negative on
 * damage (err says what; records before the damage were delivered). After
 * an error, further calls return 0. */
int perfdata_next(struct perfdata *pd, struct perfdata_record *rec, struct c2c_error *err);

const struct perfdata_stats *perfdata_stats(const struct perfdata *pd);

/* Name of a record type ("SAMPLE", "MMAP2", ...) or "UNKNOWN". */
const char *perfdata_type_name(uint32_t type);
/* Name of a feature bit ("HOSTNAME", ...) or NULL when unknown. */
const char *perfdata_feature_name(unsigned bit);
static inline bool perfdata_has_feature(const struct perfdata_header *h, unsigned bit)
{
	return bit < PERFDATA_FEAT_BITS && ((h->features[bit / 64] >> (bit % 64)) & 1);
}

#endif /* C2C_PERFDATA_H */
