/* Parsing ONE raw perf record (struct perf_event_header + payload) given the
 * event attribute it belongs to. Shared by the perf.data reader
 * (collector/perfdata/perfdata.h) and the live collector reading mmap ring buffers.
 *
 * Nothing here allocates or keeps state between calls. Records are read with
 * unaligned-safe loads; `swap` says the record was written on a machine of
 * the other byte order. Every parser checks every field against `size` and
 * returns a negative code (filling err) for a record that is too short, so a
 * damaged record is an error for that record, never a crash.
 *
 * Pointers placed in the outputs (filenames, comm, raw data, callchain)
 * borrow the record's bytes and live as long as the record does, with one
 * exception: a callchain of a swapped or misaligned record is converted into
 * a per-thread buffer that the next perf_record_parse_sample() call on the
 * same thread overwrites. */
#ifndef C2C_PERF_RECORD_H
#define C2C_PERF_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collector/base/error.h"
#include "collector/base/sample.h"

/* Record types (perf_event_header.type). 1..63 come from the kernel,
 * 64 and up are written by the perf tool into perf.data files. */
enum perf_rec_type {
	PERF_REC_MMAP = 1,
	PERF_REC_LOST = 2,
	PERF_REC_COMM = 3,
	PERF_REC_EXIT = 4,
	PERF_REC_THROTTLE = 5,
	PERF_REC_UNTHROTTLE = 6,
	PERF_REC_FORK = 7,
	PERF_REC_READ = 8,
	PERF_REC_SAMPLE = 9,
	PERF_REC_MMAP2 = 10,
	PERF_REC_AUX = 11,
	PERF_REC_ITRACE_START = 12,
	PERF_REC_LOST_SAMPLES = 13,
	PERF_REC_SWITCH = 14,
	PERF_REC_SWITCH_CPU_WIDE = 15,
	PERF_REC_NAMESPACES = 16,
	PERF_REC_KSYMBOL = 17,
	PERF_REC_BPF_EVENT = 18,
	PERF_REC_CGROUP = 19,
	PERF_REC_TEXT_POKE = 20,
	PERF_REC_AUX_OUTPUT_HW_ID = 21,
	PERF_REC_KERNEL_MAX,

	PERF_REC_USER_TYPE_START = 64,
	PERF_REC_HEADER_ATTR = 64,
	PERF_REC_HEADER_EVENT_TYPE = 65,
	PERF_REC_HEADER_TRACING_DATA = 66,
	PERF_REC_HEADER_BUILD_ID = 67,
	PERF_REC_FINISHED_ROUND = 68,
	PERF_REC_ID_INDEX = 69,
	PERF_REC_AUXTRACE_INFO = 70,
	PERF_REC_AUXTRACE = 71,
	PERF_REC_AUXTRACE_ERROR = 72,
	PERF_REC_THREAD_MAP = 73,
	PERF_REC_CPU_MAP = 74,
	PERF_REC_STAT_CONFIG = 75,
	PERF_REC_STAT = 76,
	PERF_REC_STAT_ROUND = 77,
	PERF_REC_EVENT_UPDATE = 78,
	PERF_REC_TIME_CONV = 79,
	PERF_REC_HEADER_FEATURE = 80,
	PERF_REC_COMPRESSED = 81,
	PERF_REC_FINISHED_INIT = 82,
	PERF_REC_TYPE_MAX = 96,   /* counters in perfdata_stats cover 0..95 */
};

/* perf_event_header.misc bits this module interprets. */
enum {
	PERF_REC_MISC_CPUMODE_MASK = 7,
	PERF_REC_MISC_MMAP_DATA = 1 << 13,    /* MMAP/MMAP2 of a data (non-exec) mapping */
	PERF_REC_MISC_COMM_EXEC = 1 << 13,    /* COMM caused by exec */
	PERF_REC_MISC_EXACT_IP = 1 << 14,     /* SAMPLE: ip is exact (PEBS fixup) */
	PERF_REC_MISC_MMAP_BUILD_ID = 1 << 14,/* MMAP2 carries a build-id instead of maj/min/ino */
};

/* Bits of the attr flags word (the bitfield after read_format), numbered
 * as in struct perf_event_attr. precise_ip is 2 bits at 15..16. */
enum perf_attr_flag {
	PERF_ATTR_DISABLED = 1ull << 0,
	PERF_ATTR_INHERIT = 1ull << 1,
	PERF_ATTR_PINNED = 1ull << 2,
	PERF_ATTR_EXCLUSIVE = 1ull << 3,
	PERF_ATTR_EXCLUDE_USER = 1ull << 4,
	PERF_ATTR_EXCLUDE_KERNEL = 1ull << 5,
	PERF_ATTR_EXCLUDE_HV = 1ull << 6,
	PERF_ATTR_EXCLUDE_IDLE = 1ull << 7,
	PERF_ATTR_MMAP = 1ull << 8,
	PERF_ATTR_COMM = 1ull << 9,
	PERF_ATTR_FREQ = 1ull << 10,
	PERF_ATTR_INHERIT_STAT = 1ull << 11,
	PERF_ATTR_ENABLE_ON_EXEC = 1ull << 12,
	PERF_ATTR_TASK = 1ull << 13,
	PERF_ATTR_WATERMARK = 1ull << 14,
	PERF_ATTR_PRECISE_SHIFT = 15,
	PERF_ATTR_PRECISE_MASK = 3ull << 15,
	PERF_ATTR_MMAP_DATA = 1ull << 17,
	PERF_ATTR_SAMPLE_ID_ALL = 1ull << 18,
	PERF_ATTR_EXCLUDE_HOST = 1ull << 19,
	PERF_ATTR_EXCLUDE_GUEST = 1ull << 20,
	PERF_ATTR_EXCLUDE_CALLCHAIN_KERNEL = 1ull << 21,
	PERF_ATTR_EXCLUDE_CALLCHAIN_USER = 1ull << 22,
	PERF_ATTR_MMAP2 = 1ull << 23,
	PERF_ATTR_COMM_EXEC = 1ull << 24,
	PERF_ATTR_USE_CLOCKID = 1ull << 25,
	PERF_ATTR_CONTEXT_SWITCH = 1ull << 26,
	PERF_ATTR_WRITE_BACKWARD = 1ull << 27,
	PERF_ATTR_NAMESPACES = 1ull << 28,
	PERF_ATTR_KSYMBOL = 1ull << 29,
	PERF_ATTR_BPF_EVENT = 1ull << 30,
	PERF_ATTR_AUX_OUTPUT = 1ull << 31,
	PERF_ATTR_CGROUP = 1ull << 32,
	PERF_ATTR_TEXT_POKE = 1ull << 33,
	PERF_ATTR_BUILD_ID = 1ull << 34,
	PERF_ATTR_INHERIT_THREAD = 1ull << 35,
	PERF_ATTR_REMOVE_ON_EXEC = 1ull << 36,
	PERF_ATTR_SIGTRAP = 1ull << 37,
};

/* Sizes of struct perf_event_attr across ABI versions (VER0..VER8). */
enum {
	PERF_ATTR_SIZE_VER0 = 64,
	PERF_ATTR_SIZE_VER8 = 136,
	/* Largest attr this code accepts; anything bigger is taken as damage.
	 * Fields past what we know are ignored, as the kernel does. */
	PERF_ATTR_SIZE_MAX = 4096,
};

/* One event attribute, decoded into native byte order. Fields past the
 * attr's own `size` are zero. */
struct perf_attr_info {
	uint32_t type;               /* PERF_TYPE_* */
	uint32_t size;               /* attr size as recorded (0 in old files reads as 64) */
	uint64_t config;
	uint64_t sample_period;      /* or sample_freq when PERF_ATTR_FREQ is set */
	uint64_t sample_type;        /* PERF_SAMPLE_* bits */
	uint64_t read_format;        /* PERF_FORMAT_* bits */
	uint64_t flags;              /* enum perf_attr_flag bits */
	uint32_t wakeup_events;
	uint32_t bp_type;
	uint64_t config1;            /* also bp_addr / kprobe_func / uprobe_path */
	uint64_t config2;            /* also bp_len / kprobe_addr / probe_offset */
	uint64_t branch_sample_type; /* PERF_SAMPLE_BRANCH_* bits */
	uint64_t sample_regs_user;
	uint32_t sample_stack_user;
	int32_t clockid;
	uint64_t sample_regs_intr;
	uint32_t aux_watermark;
	uint16_t sample_max_stack;
	uint32_t aux_sample_size;
	uint64_t sig_data;
	uint64_t config3;

	/* Convenience copies of flag bits. */
	uint8_t precise_ip;
	bool freq, inherit, sample_id_all;
	bool exclude_user, exclude_kernel, exclude_hv, exclude_host, exclude_guest;

	/* Filled by the producer (reader or live collector). */
	uint32_t index;              /* event index in the session; copied into c2c_sample.event */
	uint32_t nr_ids;
	const uint64_t *ids;         /* sample ids of this event (one per cpu/thread) */
	const char *name;            /* event name: EVENT_DESC, or derived from type/config */
};

/* Decodes a perf_event_attr of `avail` bytes (the attr's own size field is
 * honoured when smaller; 0 means 64). Fails when avail < 64 or the attr
 * claims more bytes than are available. The producer fields (index, ids,
 * name) are zeroed. */
int perf_attr_decode(const void *buf, size_t avail, bool swap,
		     struct perf_attr_info *out, struct c2c_error *err);

/* Recomputes the convenience booleans from attr->flags. */
void perf_attr_set_flags(struct perf_attr_info *attr, uint64_t flags);

/* A record header, decoded. */
struct perf_rec_header {
	uint32_t type;
	uint16_t misc;
	uint16_t size;
};

/* Reads the 8-byte header at rec (needs avail >= 8). */
struct perf_rec_header perf_record_header(const void *rec, bool swap);

/* The sample_id_all trailer of a non-sample record (or the matching fields
 * of a sample). */
enum perf_sid_has {
	PERF_SID_TID = 1u << 0,
	PERF_SID_TIME = 1u << 1,
	PERF_SID_ID = 1u << 2,
	PERF_SID_STREAM_ID = 1u << 3,
	PERF_SID_CPU = 1u << 4,
};
struct perf_sample_id {
	uint32_t has;                /* enum perf_sid_has */
	int32_t pid, tid;
	uint64_t time;
	uint64_t id;                 /* ID or IDENTIFIER */
	uint64_t stream_id;
	uint32_t cpu;
};

/* Bytes the sample_id_all trailer takes for this attr (0 when the attr has
 * no sample_id_all or carries none of its fields). */
size_t perf_record_sample_id_size(const struct perf_attr_info *attr);

/* Reads the sample_id_all trailer at the end of a non-sample record of
 * `size` bytes. Returns 0 (out->has == 0 when there is no trailer) or a
 * negative code when the record is too short to hold it. */
int perf_record_parse_sample_id(const struct perf_attr_info *attr, const void *rec,
				size_t size, bool swap, struct perf_sample_id *out,
				struct c2c_error *err);

/* The event id of a record, to find which attr it belongs to: for SAMPLE,
 * PERF_SAMPLE_IDENTIFIER (first u64) or PERF_SAMPLE_ID at its position; for
 * other kernel records, the sample_id_all trailer's IDENTIFIER (last u64) or
 * ID. `attr` is any attr of the session (perf requires the id position to be
 * the same for all of them). Returns 1 with *id set, 0 when the record has
 * no id, negative when the record is too short. */
int perf_record_sample_id(const struct perf_attr_info *attr, const void *rec, size_t size,
			  bool swap, uint64_t *id);

/* Parses PERF_RECORD_SAMPLE into out (zeroed first). Fields c2ctui uses are
 * decoded, the others (READ, BRANCH_STACK, REGS_*, STACK_USER, AUX, CGROUP,
 * ...) are skipped by their size. out->event = attr->index; cpumode and
 * exact_ip come from the header's misc. RAW data is handed over as recorded
 * (the file's byte order). */
int perf_record_parse_sample(const struct perf_attr_info *attr, const void *rec, size_t size,
			     bool swap, struct c2c_sample *out, struct c2c_error *err);

/* MMAP and MMAP2 (with or without build-id). The filename must be
 * NUL-terminated inside the record. */
int perf_record_parse_mmap(const void *rec, size_t size, bool swap, struct c2c_mmap *out,
			   struct c2c_error *err);
/* COMM; out->time comes from the sample_id_all trailer when the attr has it
 * (attr may be NULL: time 0). */
int perf_record_parse_comm(const struct perf_attr_info *attr, const void *rec, size_t size,
			   bool swap, struct c2c_comm *out, struct c2c_error *err);
/* FORK and EXIT. */
int perf_record_parse_task(const void *rec, size_t size, bool swap, struct c2c_task *out,
			   struct c2c_error *err);

/* LOST (id + lost) and LOST_SAMPLES (lost only; id from the trailer). */
struct c2c_lost {
	uint64_t id;
	uint64_t lost;
	bool samples;                /* true for LOST_SAMPLES */
};
int perf_record_parse_lost(const struct perf_attr_info *attr, const void *rec, size_t size,
			   bool swap, struct c2c_lost *out, struct c2c_error *err);

/* THROTTLE and UNTHROTTLE. */
struct c2c_throttle {
	uint64_t time, id, stream_id;
	bool unthrottle;
};
int perf_record_parse_throttle(const void *rec, size_t size, bool swap,
			       struct c2c_throttle *out, struct c2c_error *err);

/* Byte-order helpers used by the reader too. */
/* A call chain entry that is a PERF_CONTEXT_* marker rather than an
 * address: returns true, and sets *mode (enum c2c_cpumode) when the marker
 * says where the following entries ran. Shared by import and live so both
 * attribute call-chain frames to the same mode. */
bool perf_callchain_marker(uint64_t entry, uint8_t *mode);

static inline uint64_t perf_bswap64_if(uint64_t v, bool swap) { return swap ? __builtin_bswap64(v) : v; }
static inline uint32_t perf_bswap32_if(uint32_t v, bool swap) { return swap ? __builtin_bswap32(v) : v; }
static inline uint16_t perf_bswap16_if(uint16_t v, bool swap) { return swap ? __builtin_bswap16(v) : v; }

#endif /* C2C_PERF_RECORD_H */
