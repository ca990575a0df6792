/* Private to tests/gen/perfdata_writer.c and tests/gen/pdw_features.c: the
 * writer's state and the byte-order aware put helpers. Not for other modules:
 * they use perfdata_writer.h. */
#ifndef C2C_PDW_INTERNAL_H
#define C2C_PDW_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tests/gen/perfdata_writer.h"

#define PDW_ATTR_MAX 136u   /* PERF_ATTR_SIZE_VER8 */
#define PDW_NR_FEATS 32

struct pdw_attr_rec {
	uint32_t type;
	uint64_t config, config1, config2;
	uint64_t sample_period, sample_type, read_format, bits;
	uint32_t precise_ip, wakeup_events;
	char *name;
	uint32_t nr_ids;
	uint64_t *ids;
	uint64_t ids_offset;     /* file mode: where the ids were written */
	size_t fixed;            /* sample body bytes besides callchain/raw data */
	size_t trailer;          /* sample_id_all trailer bytes (0: none) */
};

struct pdw_cpu_topo {
	int set;
	uint32_t core, socket, die;
};

struct pdw_numa {
	uint32_t node;
	uint64_t total, free;
	char *cpus;
};

struct pdw_cache {
	uint32_t level, line_size, sets, ways;
	char *type, *size, *map;
};

struct pdw_mem_node {
	uint64_t node, first, count;
};

struct pdw_build_id {
	int32_t pid;
	uint8_t cpumode, size;
	uint8_t id[20];
	char *filename;
};

struct pdw {
	int fd, own_fd;
	int pipe, be, compress;
	uint32_t attr_size, comp_level;
	struct c2c_error err;
	int failed;              /* sticky first error code */

	uint8_t *out;            /* output buffer (OUT_CAP) */
	size_t out_len;
	uint64_t out_pos;        /* bytes already written to fd */

	void *zc;                /* ZSTD_CCtx */
	uint8_t *raw, *zbuf;     /* records gathered for one COMPRESSED, frame */
	size_t raw_len, zcap;

	struct pdw_attr_rec *attrs;
	uint32_t nr_attrs, cap_attrs;
	uint64_t next_id;
	int frozen;
	uint64_t attrs_offset, data_offset;

	uint64_t nr_records, nr_samples, first_time, last_time;

	/* header features */
	char *strings[PDW_NR_FEATS];     /* HOSTNAME..CPUID by feature bit */
	int have_nrcpus;
	uint32_t nr_avail, nr_online;
	int have_total_mem;
	uint64_t total_mem;
	char **cmdline;
	int nr_cmdline, have_cmdline;
	struct pdw_cpu_topo *cpus;       /* nr_avail entries once allocated */
	uint32_t nr_cpus_alloc;
	struct pdw_numa *numa;
	uint32_t nr_numa;
	struct pdw_cache *caches;
	uint32_t nr_caches;
	uint64_t mem_block_size;
	struct pdw_mem_node *mem_nodes;
	uint32_t nr_mem_nodes;
	struct pdw_build_id *build_ids;
	uint32_t nr_build_ids;
	int have_sample_time;
	uint64_t sample_time_first, sample_time_last;
	uint8_t *tracing;
	size_t tracing_size;
	int have_tracing;
	uint64_t dropped;                /* features not to write, by bit */
};

static inline uint16_t pdw_bswap16(uint16_t v) { return (uint16_t)(v >> 8 | v << 8); }
static inline uint32_t pdw_bswap32(uint32_t v) { return __builtin_bswap32(v); }
static inline uint64_t pdw_bswap64(uint64_t v) { return __builtin_bswap64(v); }

/* The host is little-endian (x86_64, aarch64 as Debian builds them); the
 * writer swaps when asked for a big-endian file. */
static inline void put_u16(const struct pdw *w, uint8_t *p, uint16_t v)
{
	if (w->be)
		v = pdw_bswap16(v);
	memcpy(p, &v, 2);
}

static inline void put_u32(const struct pdw *w, uint8_t *p, uint32_t v)
{
	if (w->be)
		v = pdw_bswap32(v);
	memcpy(p, &v, 4);
}

static inline void put_u64(const struct pdw *w, uint8_t *p, uint64_t v)
{
	if (w->be)
		v = pdw_bswap64(v);
	memcpy(p, &v, 8);
}

/* perf_event_attr of a in the target byte order, w->attr_size bytes. */
void pdw_attr_bytes(const struct pdw *w, const struct pdw_attr_rec *a, uint8_t *out);
/* Appends bytes to the output (never compressed). */
int pdw_out_write(struct pdw *w, const void *bytes, size_t len);
/* Writes one uncompressed record of perf's synthesized kinds. */
int pdw_pipe_record(struct pdw *w, uint32_t type, uint16_t misc, const void *body, size_t len,
		    size_t pad_to);
/* Records the error (sticky) and returns code. */
int pdw_set_failed(struct pdw *w, int code, const char *msg);

/* pdw_features.c */
void pdw_features_fini(struct pdw *w);
/* Pipe mode, at freeze: HEADER_FEATURE records. */
int pdw_features_pipe(struct pdw *w);
/* Pipe mode, after the attrs: tracing data and build-id records. */
int pdw_sideband_pipe(struct pdw *w);
/* File mode, at close: the feature index and sections after the data;
 * feat receives the header's feature bitmap. */
int pdw_features_file(struct pdw *w, uint64_t feat[4]);

#endif /* C2C_PDW_INTERNAL_H */
