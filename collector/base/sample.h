/* The decoded sample stream: what both producers (perf.data import and live
 * collection) hand to the store writer. Pointers inside a record borrow the
 * producer's buffer and are valid only until the producer's next call. */
#ifndef C2C_SAMPLE_H
#define C2C_SAMPLE_H

#include <stdint.h>
#include <stddef.h>

/* Where a code address ran (from the record's misc field). */
enum c2c_cpumode {
	C2C_MODE_UNKNOWN = 0,
	C2C_MODE_KERNEL = 1,
	C2C_MODE_USER = 2,
	C2C_MODE_HYPERVISOR = 3,
	C2C_MODE_GUEST_KERNEL = 4,
	C2C_MODE_GUEST_USER = 5,
};

/* Which sample fields were present (the attr's sample_type decides). */
enum c2c_sample_has {
	C2C_HAS_IP = 1u << 0,
	C2C_HAS_TID = 1u << 1,
	C2C_HAS_TIME = 1u << 2,
	C2C_HAS_ADDR = 1u << 3,
	C2C_HAS_CPU = 1u << 4,
	C2C_HAS_PERIOD = 1u << 5,
	C2C_HAS_WEIGHT = 1u << 6,
	C2C_HAS_DATA_SRC = 1u << 7,
	C2C_HAS_PHYS_ADDR = 1u << 8,
	C2C_HAS_CALLCHAIN = 1u << 9,
	C2C_HAS_RAW = 1u << 10,
	C2C_HAS_ID = 1u << 11,
	C2C_HAS_TRANSACTION = 1u << 12,
	C2C_HAS_DATA_PAGE_SIZE = 1u << 13,
	C2C_HAS_CODE_PAGE_SIZE = 1u << 14,
};

struct c2c_sample {
	uint32_t has;            /* enum c2c_sample_has bits */
	uint32_t event;          /* index of the event (attr) in the session */
	uint8_t cpumode;         /* enum c2c_cpumode */
	uint8_t exact_ip;        /* PERF_RECORD_MISC_EXACT_IP */
	uint64_t time;           /* ns, perf clock */
	uint64_t ip;
	int32_t pid, tid;
	uint32_t cpu;
	uint64_t addr;           /* data virtual address (0 when none) */
	uint64_t phys_addr;
	uint64_t id;
	uint64_t period;
	uint64_t weight;         /* load latency in cycles (WEIGHT or WEIGHT_STRUCT var1) */
	uint32_t ins_lat;        /* WEIGHT_STRUCT var2: instruction latency */
	uint64_t data_src;       /* raw union perf_mem_data_src */
	uint64_t transaction;
	uint64_t data_page_size;
	uint64_t code_page_size;
	uint32_t nr_callchain;   /* includes PERF_CONTEXT_* markers, as recorded */
	const uint64_t *callchain;
	uint32_t raw_size;
	const void *raw;         /* PERF_SAMPLE_RAW payload (tracepoint data) */
};

/* Side-band: what the symbolizer and the process table need. */
struct c2c_mmap {
	int32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t prot, flags;    /* MMAP2 only (0 for MMAP) */
	uint8_t cpumode;
	uint8_t build_id_size;   /* > 0 when MMAP2 carried a build-id */
	uint8_t build_id[20];
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	const char *filename;
};

struct c2c_comm {
	int32_t pid, tid;
	int exec;                /* PERF_RECORD_MISC_COMM_EXEC */
	uint64_t time;
	const char *comm;
};

struct c2c_task {            /* FORK and EXIT */
	int32_t pid, ppid, tid, ptid;
	uint64_t time;
};

#endif /* C2C_SAMPLE_H */
