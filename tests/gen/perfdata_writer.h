/* perf.data WRITER for tests and benchmarks (built into build/libgen.a).
 *
 * Writes files that `perf report/script/c2c report` (perf 6.1) read, byte for
 * byte as `perf record` lays them out: file format (header, attrs + ids, data
 * section, feature sections) or pipe format (PERF_RECORD_HEADER_ATTR /
 * HEADER_FEATURE records), optionally big-endian (a file from a foreign
 * machine) and optionally with records zstd-compressed into
 * PERF_RECORD_COMPRESSED. Tests use it to build exact inputs for the reader,
 * the c2c classification and the store; tests/tools/c2c-gen.c builds whole
 * scenarios with it (docs/generated-fixtures.md).
 *
 * Usage:
 *   struct pdw *w = pdw_new(path, NULL, &err);          // defaults: file, LE, attr 128
 *   pdw_describe_machine(w, 2, 8, "c2c-gen (generated)"); // header features
 *   int ld = pdw_add_attr(w, &loads_attr);                // -> attr index 0
 *   pdw_comm(w, &comm, &sid); pdw_mmap2(w, &map, &sid);   // side-band
 *   pdw_sample(w, &sample);                               // sample.event = ld
 *   pdw_close(w, &err);                                   // writes header, frees w
 *
 * Order rules: add every attr, and (for pipe output) set every header
 * feature, before the first record; attrs are frozen at the first record.
 * File-mode features may be set any time before pdw_close.
 *
 * Errors: functions return 0 (or an index) on success and a negative errno on
 * failure with a sentence in the writer's error slot (pdw_error); a failed
 * write is sticky: later calls return the same code and pdw_close reports it.
 * Nothing is printed.
 *
 * Ownership: pdw_new allocates; pdw_close (success or not) and pdw_free
 * release everything. Strings and arrays passed in are copied.
 */
#ifndef C2C_PERFDATA_WRITER_H
#define C2C_PERFDATA_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "collector/base/error.h"
#include "collector/base/sample.h"

struct pdw;

/* Bytes of struct perf_event_attr written when pdw_options.attr_size is 0.
 * 128 is PERF_ATTR_SIZE_VER7, what perf 6.1 writes and accepts; 136 (VER8,
 * perf 6.3+, adds config3) makes perf 6.1 refuse the file. */
#define PDW_ATTR_SIZE_DEFAULT 128u

struct pdw_options {
	int pipe;            /* pipe format: 16-byte header, then records only */
	int big_endian;      /* write every field big-endian (foreign file) */
	int compress;        /* zstd-compress records into PERF_RECORD_COMPRESSED
	                      * and set the COMPRESSED feature */
	int compress_level;  /* zstd level; 0 means 1 (what perf record -z uses) */
	uint32_t attr_size;  /* perf_event_attr bytes, multiple of 8 in 64..136;
	                      * 0 means PDW_ATTR_SIZE_DEFAULT */
	int fd;              /* used when path is NULL: write to this descriptor
	                      * (not closed by the writer); file format needs it
	                      * seekable and at offset 0, pipe format does not */
};

/* perf_event_attr flag bits (the bitfield word after read_format), as the
 * kernel numbers them. precise_ip has its own field in pdw_attr. */
enum pdw_attr_bit {
	PDW_ATTR_DISABLED        = 1u << 0,
	PDW_ATTR_INHERIT         = 1u << 1,
	PDW_ATTR_PINNED          = 1u << 2,
	PDW_ATTR_EXCLUSIVE       = 1u << 3,
	PDW_ATTR_EXCLUDE_USER    = 1u << 4,
	PDW_ATTR_EXCLUDE_KERNEL  = 1u << 5,
	PDW_ATTR_EXCLUDE_HV      = 1u << 6,
	PDW_ATTR_EXCLUDE_IDLE    = 1u << 7,
	PDW_ATTR_MMAP            = 1u << 8,
	PDW_ATTR_COMM            = 1u << 9,
	PDW_ATTR_FREQ            = 1u << 10,
	PDW_ATTR_INHERIT_STAT    = 1u << 11,
	PDW_ATTR_ENABLE_ON_EXEC  = 1u << 12,
	PDW_ATTR_TASK            = 1u << 13,
	PDW_ATTR_WATERMARK       = 1u << 14,
	/* bits 15-16: precise_ip */
	PDW_ATTR_MMAP_DATA       = 1u << 17,
	PDW_ATTR_SAMPLE_ID_ALL   = 1u << 18,
	PDW_ATTR_EXCLUDE_HOST    = 1u << 19,
	PDW_ATTR_EXCLUDE_GUEST   = 1u << 20,
	PDW_ATTR_MMAP2           = 1u << 23,
	PDW_ATTR_COMM_EXEC       = 1u << 24,
	PDW_ATTR_CONTEXT_SWITCH  = 1u << 26,
	PDW_ATTR_KSYMBOL         = 1u << 29,
	PDW_ATTR_BPF_EVENT       = 1u << 30,
};

/* PERF_SAMPLE_* bits the writer can lay out (READ, BRANCH_STACK, REGS_*,
 * STACK_USER, AUX and CGROUP are refused by pdw_add_attr). */
enum pdw_sample_bit {
	PDW_SAMPLE_IP             = 1u << 0,
	PDW_SAMPLE_TID            = 1u << 1,
	PDW_SAMPLE_TIME           = 1u << 2,
	PDW_SAMPLE_ADDR           = 1u << 3,
	PDW_SAMPLE_ID             = 1u << 6,
	PDW_SAMPLE_CPU            = 1u << 7,
	PDW_SAMPLE_PERIOD         = 1u << 8,
	PDW_SAMPLE_STREAM_ID      = 1u << 9,
	PDW_SAMPLE_RAW            = 1u << 10,
	PDW_SAMPLE_CALLCHAIN      = 1u << 5,
	PDW_SAMPLE_WEIGHT         = 1u << 14,
	PDW_SAMPLE_DATA_SRC       = 1u << 15,
	PDW_SAMPLE_IDENTIFIER     = 1u << 16,
	PDW_SAMPLE_TRANSACTION    = 1u << 17,
	PDW_SAMPLE_PHYS_ADDR      = 1u << 19,
	PDW_SAMPLE_DATA_PAGE_SIZE = 1u << 22,
	PDW_SAMPLE_CODE_PAGE_SIZE = 1u << 23,
	PDW_SAMPLE_WEIGHT_STRUCT  = 1u << 24,
};

/* What perf c2c record asks for on Intel (IP|TID|TIME|ADDR|ID|CPU|PERIOD|
 * DATA_SRC|WEIGHT|PHYS_ADDR). */
#define PDW_SAMPLE_C2C (PDW_SAMPLE_IP | PDW_SAMPLE_TID | PDW_SAMPLE_TIME | \
	PDW_SAMPLE_ADDR | PDW_SAMPLE_ID | PDW_SAMPLE_CPU | PDW_SAMPLE_PERIOD | \
	PDW_SAMPLE_DATA_SRC | PDW_SAMPLE_WEIGHT | PDW_SAMPLE_PHYS_ADDR)

/* One event (perf_event_attr + its ids + its name). */
struct pdw_attr {
	uint32_t type;           /* PERF_TYPE_*: 4 = raw (cpu PMU), 2 = tracepoint */
	uint64_t config;
	uint64_t config1;        /* ldlat for mem-loads */
	uint64_t config2;
	uint64_t sample_period;  /* or the frequency when bits has PDW_ATTR_FREQ */
	uint64_t sample_type;    /* enum pdw_sample_bit */
	uint64_t read_format;    /* PERF_FORMAT_* (perf record sets ID = 4) */
	uint64_t bits;           /* enum pdw_attr_bit */
	uint32_t precise_ip;     /* 0..3 */
	uint32_t wakeup_events;
	const char *name;        /* EVENT_DESC / EVENT_UPDATE name, e.g.
	                          * "cpu/mem-loads,ldlat=30/P"; NULL: none */
	uint32_t nr_ids;         /* 0 means 1 */
	const uint64_t *ids;     /* NULL: numbered automatically, unique per file */
};

/* Fill a with what `perf c2c record` uses on Intel (perf 6.1):
 * cpu/mem-loads,ldlat=LDLAT/P (type 4, config 0x1cd, config1 ldlat) and
 * cpu/mem-stores/P (config 0x82d0), PDW_SAMPLE_C2C, freq 4000, precise 3,
 * sample_id_all, read_format ID; loads also carry mmap/comm/task/mmap2 side-band bits.
 * nr_ids: one id per CPU as perf record has (0 means 1). The loads name
 * lives in a per-thread buffer valid until the next call (pdw_add_attr
 * copies it). */
void pdw_attr_mem_loads(struct pdw_attr *a, uint32_t ldlat, uint32_t nr_ids);
void pdw_attr_mem_stores(struct pdw_attr *a, uint32_t nr_ids);

/* The trailer of side-band records (sample_id_all) and where they belong. */
struct pdw_sid {
	uint64_t time;
	uint32_t cpu;
	uint32_t event;          /* attr index whose sample_type and id are used */
};

/* Writer life cycle. path: file to create (truncated), or NULL to use
 * opt->fd. opt NULL means all defaults. Returns NULL with err filled. */
struct pdw *pdw_new(const char *path, const struct pdw_options *opt, struct c2c_error *err);
/* Finishes the file (header, attrs, ids, features) and frees w. Returns 0 or
 * the first error met by any call (err filled). */
int pdw_close(struct pdw *w, struct c2c_error *err);
/* Frees w without finishing the file (what is on disk is undefined). */
void pdw_free(struct pdw *w);
/* The writer's last error (code 0 when none). */
const struct c2c_error *pdw_error(const struct pdw *w);

/* Events. Returns the attr index (0, 1, ...) or a negative errno. */
int pdw_add_attr(struct pdw *w, const struct pdw_attr *a);
/* The id of attr idx for slot n (n < nr_ids), 0 if out of range. */
uint64_t pdw_attr_id(const struct pdw *w, uint32_t idx, uint32_t n);

/* Header features (enum values are perf's HEADER_* feature bits). */
enum pdw_feature {
	PDW_FEAT_TRACING_DATA = 1,
	PDW_FEAT_BUILD_ID     = 2,
	PDW_FEAT_HOSTNAME     = 3,
	PDW_FEAT_OSRELEASE    = 4,
	PDW_FEAT_VERSION      = 5,
	PDW_FEAT_ARCH         = 6,
	PDW_FEAT_NRCPUS       = 7,
	PDW_FEAT_CPUDESC      = 8,
	PDW_FEAT_CPUID        = 9,
	PDW_FEAT_TOTAL_MEM    = 10,
	PDW_FEAT_CMDLINE      = 11,
	PDW_FEAT_EVENT_DESC   = 12,
	PDW_FEAT_CPU_TOPOLOGY = 13,
	PDW_FEAT_NUMA_TOPOLOGY = 14,
	PDW_FEAT_CACHE        = 20,
	PDW_FEAT_SAMPLE_TIME  = 21,
	PDW_FEAT_MEM_TOPOLOGY = 22,
	PDW_FEAT_COMPRESSED   = 27,
};
/* One of HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID. */
int pdw_set_string(struct pdw *w, enum pdw_feature feat, const char *value);
int pdw_set_nrcpus(struct pdw *w, uint32_t avail, uint32_t online);
int pdw_set_total_mem(struct pdw *w, uint64_t kib);
int pdw_set_cmdline(struct pdw *w, int argc, const char *const *argv);
/* CPU_TOPOLOGY: where cpu sits. Sibling lists (sockets, dies, threads) are
 * derived from all CPUs set; CPUs never set are written as core/socket -1.
 * Needs NRCPUS (cpu < avail). thread_core groups hyper-threads: CPUs with
 * the same (socket, core_id) are siblings. */
int pdw_set_cpu(struct pdw *w, uint32_t cpu, uint32_t core_id, uint32_t socket_id, uint32_t die_id);
/* NUMA_TOPOLOGY entry; cpus is a perf cpu list such as "0-7" or "8-15,24". */
int pdw_add_numa_node(struct pdw *w, uint32_t node, uint64_t mem_total_kib,
		      uint64_t mem_free_kib, const char *cpus);
/* CACHE entry (version 1): type "Data"/"Instruction"/"Unified", size "32K",
 * map (shared CPU list) "0-1". */
int pdw_add_cache(struct pdw *w, uint32_t level, uint32_t line_size, uint32_t sets,
		  uint32_t ways, const char *type, const char *size, const char *map);
/* MEM_TOPOLOGY: block size in bytes (set once, default 128 MiB) and, per
 * node, the memory block indexes [first, first + count). */
int pdw_set_mem_block_size(struct pdw *w, uint64_t bytes);
int pdw_add_mem_node(struct pdw *w, uint64_t node, uint64_t first_block, uint64_t nr_blocks);
/* BUILD_ID entry (file mode: feature section; pipe: HEADER_BUILD_ID record).
 * cpumode: PERF_RECORD_MISC_KERNEL (1) or USER (2); size <= 20. */
int pdw_add_build_id(struct pdw *w, int32_t pid, uint8_t cpumode, const uint8_t *id,
		     uint8_t size, const char *filename);
/* SAMPLE_TIME: first and last sample time. When not set, written from the
 * samples seen. */
int pdw_set_sample_time(struct pdw *w, uint64_t first, uint64_t last);
/* TRACING_DATA feature payload (file mode) or HEADER_TRACING_DATA record
 * (pipe mode), copied verbatim: perf's tracing data blob. */
int pdw_set_tracing_data(struct pdw *w, const void *data, size_t size);
/* Stop writing a feature that pdw would write by default (EVENT_DESC,
 * SAMPLE_TIME), or one set earlier. */
int pdw_drop_feature(struct pdw *w, enum pdw_feature feat);

/* Describe a whole machine quickly: NRCPUS (nodes * cpus_per_node, all
 * online); CPU_TOPOLOGY: one socket and one die per node, one thread per
 * core, CPU c is in node c / cpus_per_node with core_id c % cpus_per_node;
 * NUMA_TOPOLOGY (node n: CPUs n*cpus_per_node .. +cpus_per_node-1, 16 GiB
 * each); MEM_TOPOLOGY (128 MiB blocks, 16 GiB per node); CACHE (L1d 32K,
 * L1i 32K, L2 1024K per core, L3 per node, 64-byte lines); TOTAL_MEM;
 * ARCH x86_64; CPUDESC/CPUID of a Skylake-SP; OSRELEASE "6.1.0-c2c-gen";
 * VERSION "6.1.76"; HOSTNAME (NULL: "c2c-gen (generated)").
 * Any of them can be overridden afterwards with the setters above. */
int pdw_describe_machine(struct pdw *w, uint32_t nodes, uint32_t cpus_per_node,
			 const char *hostname);

/* Records. sid may be NULL (trailer: time 0, cpu 0, attr 0). The record's
 * own pid/tid go into the trailer. */
int pdw_mmap(struct pdw *w, const struct c2c_mmap *m, const struct pdw_sid *sid);
/* MMAP2; with a build-id when m->build_id_size > 0 (MMAP_BUILD_ID misc). */
int pdw_mmap2(struct pdw *w, const struct c2c_mmap *m, const struct pdw_sid *sid);
int pdw_comm(struct pdw *w, const struct c2c_comm *c, const struct pdw_sid *sid);
int pdw_fork(struct pdw *w, const struct c2c_task *t, const struct pdw_sid *sid);
int pdw_exit(struct pdw *w, const struct c2c_task *t, const struct pdw_sid *sid);
/* PERF_RECORD_LOST: lost samples of event id (0: the sid event's first id). */
int pdw_lost(struct pdw *w, uint64_t id, uint64_t lost, const struct pdw_sid *sid);
int pdw_lost_samples(struct pdw *w, uint64_t lost, const struct pdw_sid *sid);
int pdw_throttle(struct pdw *w, int unthrottle, uint64_t time, const struct pdw_sid *sid);
/* A sample of attr s->event, laid out by that attr's sample_type (s->has is
 * ignored: every field the attr asks for is written from s). ID/IDENTIFIER:
 * s->id when C2C_HAS_ID is set, else the attr's id for slot
 * s->cpu % nr_ids. WEIGHT_STRUCT: weight in var1, ins_lat in var2. misc
 * carries s->cpumode and s->exact_ip. */
int pdw_sample(struct pdw *w, const struct c2c_sample *s);
int pdw_finished_round(struct pdw *w);
int pdw_finished_init(struct pdw *w);
/* A record of a type perf does not know (payload padded to 8 bytes). */
int pdw_unknown(struct pdw *w, uint32_t type, uint16_t misc, const void *payload, size_t len);
/* Bytes appended verbatim to the data stream (never compressed): for damage
 * tests (bad sizes, truncated records). */
int pdw_raw(struct pdw *w, const void *bytes, size_t len);

/* File offset where the next uncompressed record starts (damage tests). */
uint64_t pdw_offset(const struct pdw *w);
/* Counts so far: records written into the data stream (each compressed
 * inner record counts, the COMPRESSED envelopes do not) and samples. */
uint64_t pdw_nr_records(const struct pdw *w);
uint64_t pdw_nr_samples(const struct pdw *w);

/* data_src values (union perf_mem_data_src) as the hardware writes them for
 * each c2c class (Intel PEBS encodings; peers as ARM SPE encodes them).
 * Comments give what perf 6.1's c2c counts for each (with a data address;
 * a load or store with addr 0 counts as ld_noadrs / st_noadrs instead). */
enum pdw_mem_class {
	PDW_LD_L1_HIT,        /* ld_l1hit */
	PDW_LD_LFB_HIT,       /* ld_fbhit */
	PDW_LD_L2_HIT,        /* ld_l2hit */
	PDW_LD_LLC_HIT,       /* ld_llchit (L3 hit, no snoop) */
	PDW_LD_LCL_HITM,      /* lcl_hitm (L3 hit, snoop HITM) */
	PDW_LD_RMT_HITM,      /* rmt_hitm (remote cache, snoop HITM; remote bit
	                       * with hops 0 also makes perf count rmt_dram) */
	PDW_LD_RMT_HIT,       /* rmt_hit (remote cache, snoop HIT; see above) */
	PDW_LD_LCL_PEER,      /* L2 hit + SNOOPX_PEER (ld_l2hit; lcl_peer in perf >= 6.2) */
	PDW_LD_RMT_PEER,      /* remote cache + SNOOPX_PEER (rmt_peer in perf >= 6.2) */
	PDW_LD_LCL_DRAM,      /* lcl_dram + ld_excl */
	PDW_LD_LCL_DRAM_SHARED, /* lcl_dram + ld_shared */
	PDW_LD_RMT_DRAM,      /* rmt_dram + ld_excl */
	PDW_LD_RMT_DRAM_SHARED, /* rmt_dram + ld_shared */
	PDW_LD_UNCACHED,      /* ld_uncache */
	PDW_LD_IO,            /* ld_io */
	PDW_LD_MISS,          /* ld_miss (unknown L3 miss) */
	PDW_ST_L1_HIT,        /* st_l1hit */
	PDW_ST_L1_MISS,       /* st_l1miss */
	PDW_ST_NA,            /* st_na */
	PDW_ST_UNCACHED,      /* st_uncache */
	PDW_NOPARSE,          /* op NA: noparse */
	PDW_MEM_CLASS_COUNT
};
/* Modifiers OR'ed into a class's value. */
enum pdw_mem_mod {
	PDW_MEM_LOCKED   = 1u << 0,  /* mem_lock LOCKED: locks */
	PDW_MEM_BLK_DATA = 1u << 1,  /* mem_blk DATA: blk_data */
	PDW_MEM_BLK_ADDR = 1u << 2,  /* mem_blk ADDR: blk_addr */
	PDW_MEM_TLB_MISS = 1u << 3,  /* dTLB miss instead of L1/L2 hit */
};
uint64_t pdw_data_src(enum pdw_mem_class c, unsigned mods);
/* The class's short name ("ld_l1hit", "lcl_hitm", ...), for tools and docs. */
const char *pdw_mem_class_name(enum pdw_mem_class c);
/* A data_src from its raw fields (values of the PERF_MEM_* constants before
 * shifting): op, lvl, snoop, lock, dtlb, lvl_num, remote, snoopx, blk, hops. */
uint64_t pdw_mem_src(uint64_t op, uint64_t lvl, uint64_t snoop, uint64_t lock,
		     uint64_t dtlb, uint64_t lvl_num, uint64_t remote, uint64_t snoopx,
		     uint64_t blk, uint64_t hops);


/* Tracepoints (tests/gen/pdw_tracing.c). Format texts of
 * lock:contention_begin / lock:contention_end as tracefs prints them (ids
 * 408 and 407 on the kernel they come from), for attrs of type
 * PERF_TYPE_TRACEPOINT (2) with config = id. */
#define PDW_TP_CONTENTION_BEGIN_ID 408u
#define PDW_TP_CONTENTION_END_ID   407u
extern const char pdw_format_contention_begin[];
extern const char pdw_format_contention_end[];

struct pdw_tp_format {
	const char *system;      /* "lock" */
	const char *format;      /* tracefs format text */
};
/* Builds a perf tracing-data blob (what pdw_set_tracing_data takes): the
 * "\027\010\104tracing" magic, version 0.6, endianness, long size 8, page
 * size 4096, header_page/header_event, no ftrace formats, the given event
 * formats grouped by system (in order of first appearance), empty kallsyms,
 * printk formats and saved cmdlines. *out is malloc'ed (caller frees).
 * Returns 0 or -ENOMEM. */
int pdw_tracing_data(const struct pdw_tp_format *fmts, size_t n, int big_endian,
		     uint8_t **out, size_t *len);
/* RAW payload of lock:contention_begin (end = 0; value = flags, LCB_F_*) or
 * lock:contention_end (end = 1; value = ret) for task pid: 20 bytes written
 * to out (room for 24), in the file's byte order. Returns 20. */
size_t pdw_raw_contention(uint8_t *out, int big_endian, int end, int32_t pid, uint64_t lock_addr,
			  int32_t value);

#endif /* C2C_PERFDATA_WRITER_H */
