/* perf.data writer (see perfdata_writer.h): the writer's state, the output
 * buffer and zstd envelopes, the attr section, the records and the file
 * header. Header feature sections are encoded in pdw_features.c; data_src
 * helpers live in pdw_data_src.c.
 *
 * Everything is written in the target byte order through the put helpers in
 * pdw_internal.h, so one code path serves little- and big-endian files. */
#include "tests/gen/pdw_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <zstd.h>

#define OUT_CAP   (1u << 20)
/* Raw bytes gathered per PERF_RECORD_COMPRESSED: the compressed frame plus
 * its 8-byte header must fit the 16-bit record size even when zstd cannot
 * shrink the data (ZSTD_compressBound(65000) < 65527). */
#define RAW_MAX   65000u
#define FILE_HEADER_SIZE 104u
#define PIPE_HEADER_SIZE 16u
#define PERF_MAGIC2 0x32454c4946524550ull   /* "PERFILE2" read as LE u64 */

enum {
	REC_MMAP = 1, REC_LOST = 2, REC_COMM = 3, REC_EXIT = 4, REC_THROTTLE = 5,
	REC_UNTHROTTLE = 6, REC_FORK = 7, REC_SAMPLE = 9, REC_MMAP2 = 10,
	REC_LOST_SAMPLES = 13,
	REC_HEADER_ATTR = 64, REC_HEADER_TRACING_DATA = 66, REC_HEADER_BUILD_ID = 67,
	REC_FINISHED_ROUND = 68, REC_EVENT_UPDATE = 78, REC_HEADER_FEATURE = 80,
	REC_COMPRESSED = 81, REC_FINISHED_INIT = 82,
};
#define MISC_EXACT_IP      (1u << 14)
#define MISC_MMAP_BUILD_ID (1u << 14)
#define MISC_MMAP_DATA     (1u << 13)
#define MISC_COMM_EXEC     (1u << 13)
#define EVENT_UPDATE_NAME  2u

/* Sample bits the writer cannot lay out (READ, BRANCH_STACK, REGS_USER,
 * STACK_USER, REGS_INTR, CGROUP, AUX). */
#define UNSUPPORTED_SAMPLE ((1ull << 4) | (1ull << 11) | (1ull << 12) | \
	(1ull << 13) | (1ull << 18) | (1ull << 21) | (1ull << 20))
#define SAMPLE_LAST_BIT 24

static int pdw_fail(struct pdw *w, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int pdw_fail(struct pdw *w, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	c2c_error_vset(&w->err, code, fmt, ap);
	va_end(ap);
	w->failed = code;
	return code;
}

int pdw_set_failed(struct pdw *w, int code, const char *msg)
{
	return pdw_fail(w, code, "%s", msg);
}

const struct c2c_error *pdw_error(const struct pdw *w)
{
	return &w->err;
}

/* ---- output ---------------------------------------------------------- */

static int out_flush(struct pdw *w)
{
	size_t done = 0;

	while (done < w->out_len) {
		ssize_t n = write(w->fd, w->out + done, w->out_len - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return pdw_fail(w, -errno, "perf.data writer: write failed: %s", strerror(errno));
		}
		done += (size_t)n;
	}
	w->out_pos += w->out_len;
	w->out_len = 0;
	return 0;
}

/* Room for len bytes at the end of the output buffer (flushing first when
 * needed); large blocks go straight to the descriptor via out_write. */
static uint8_t *out_reserve(struct pdw *w, size_t len)
{
	uint8_t *p;

	if (w->out_len + len > OUT_CAP && out_flush(w) < 0)
		return NULL;
	p = w->out + w->out_len;
	w->out_len += len;
	return p;
}

int pdw_out_write(struct pdw *w, const void *bytes, size_t len)
{
	const uint8_t *b = bytes;

	while (len) {
		size_t room = OUT_CAP - w->out_len, n = len < room ? len : room;
		if (!n) {
			if (out_flush(w) < 0)
				return w->failed;
			continue;
		}
		memcpy(w->out + w->out_len, b, n);
		w->out_len += n;
		b += n;
		len -= n;
	}
	return 0;
}

static int compress_flush(struct pdw *w)
{
	size_t n;
	uint8_t *p;

	if (!w->raw_len)
		return 0;
	n = ZSTD_compress2(w->zc, w->zbuf, w->zcap, w->raw, w->raw_len);
	if (ZSTD_isError(n))
		return pdw_fail(w, -EIO, "perf.data writer: zstd: %s", ZSTD_getErrorName(n));
	if (n + 8 > 0xffff)
		return pdw_fail(w, -E2BIG, "perf.data writer: compressed record of %zu bytes does not fit", n);
	p = out_reserve(w, 8);
	if (!p)
		return w->failed;
	/* perf record leaves COMPRESSED records unpadded: the frame ends the record. */
	put_u32(w, p, REC_COMPRESSED);
	put_u16(w, p + 4, 0);
	put_u16(w, p + 6, (uint16_t)(n + 8));
	w->raw_len = 0;
	return pdw_out_write(w, w->zbuf, n);
}

static int freeze(struct pdw *w);

/* Space for one record of size bytes in the data stream: in the zstd
 * gathering buffer when compressing, else in the output buffer. */
static uint8_t *rec_begin(struct pdw *w, size_t size)
{
	uint8_t *p;

	if (w->failed)
		return NULL;
	if (size > 0xffff || size < 8) {
		pdw_fail(w, -E2BIG, "perf.data writer: record of %zu bytes does not fit a 16-bit size", size);
		return NULL;
	}
	if (!w->frozen && freeze(w) < 0)
		return NULL;
	w->nr_records++;
	if (!w->compress)
		return out_reserve(w, size);
	if (w->raw_len + size > RAW_MAX && compress_flush(w) < 0)
		return NULL;
	p = w->raw + w->raw_len;
	w->raw_len += size;
	return p;
}

static void rec_header(struct pdw *w, uint8_t *p, uint32_t type, uint16_t misc, size_t size)
{
	put_u32(w, p, type);
	put_u16(w, p + 4, misc);
	put_u16(w, p + 6, (uint16_t)size);
}

/* ---- life cycle ------------------------------------------------------ */

struct pdw *pdw_new(const char *path, const struct pdw_options *opt, struct c2c_error *err)
{
	static const struct pdw_options defaults = { .fd = -1 };
	struct pdw *w;

	if (!opt)
		opt = &defaults;
	if (opt->attr_size && (opt->attr_size < 64 || opt->attr_size > PDW_ATTR_MAX || opt->attr_size % 8)) {
		c2c_error_set(err, -EINVAL, "perf.data writer: attr size %u is not a multiple of 8 in 64..%u",
			      opt->attr_size, PDW_ATTR_MAX);
		return NULL;
	}
	if (!path && opt->fd < 0) {
		c2c_error_set(err, -EINVAL, "perf.data writer: no path and no descriptor");
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w || !(w->out = malloc(OUT_CAP))) {
		free(w);
		c2c_error_set(err, -ENOMEM, "perf.data writer: out of memory");
		return NULL;
	}
	w->pipe = !!opt->pipe;
	w->be = !!opt->big_endian;
	w->compress = !!opt->compress;
	w->attr_size = opt->attr_size ? opt->attr_size : PDW_ATTR_SIZE_DEFAULT;
	w->next_id = 1;
	w->mem_block_size = 128ull << 20;
	if (w->compress) {
		int level = opt->compress_level ? opt->compress_level : 1;
		w->zc = ZSTD_createCCtx();
		w->zcap = ZSTD_compressBound(0xffff);
		w->raw = malloc(0xffff + RAW_MAX);
		w->zbuf = malloc(w->zcap);
		w->comp_level = (uint32_t)level;
		if (!w->zc || !w->raw || !w->zbuf) {
			pdw_free(w);
			c2c_error_set(err, -ENOMEM, "perf.data writer: out of memory");
			return NULL;
		}
		ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, level);
	}
	if (path) {
		w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (w->fd < 0) {
			c2c_error_set(err, -errno, "perf.data writer: cannot create %s: %s", path, strerror(errno));
			w->fd = -1;
			pdw_free(w);
			return NULL;
		}
		w->own_fd = 1;
	} else {
		off_t at;

		w->fd = opt->fd;
		/* The file format's offsets count from the start of the file, and
		 * the header is rewritten there at the end. */
		if (!w->pipe && !(fcntl(w->fd, F_GETFL) & O_APPEND))
			at = lseek(w->fd, 0, SEEK_CUR);
		else
			at = w->pipe ? 0 : 1;   /* O_APPEND: pwrite would append on Linux */
		if (at != 0) {
			c2c_error_set(err, at < 0 ? -ESPIPE : -EINVAL, "perf.data writer: file format needs a %s",
				      at < 0 ? "seekable descriptor (use pipe mode)" : "descriptor at offset 0");
			pdw_free(w);
			return NULL;
		}
	}
	return w;
}

void pdw_free(struct pdw *w)
{
	if (!w)
		return;
	if (w->own_fd && w->fd >= 0)
		close(w->fd);
	for (uint32_t i = 0; i < w->nr_attrs; i++) {
		free(w->attrs[i].name);
		free(w->attrs[i].ids);
	}
	free(w->attrs);
	pdw_features_fini(w);
	ZSTD_freeCCtx(w->zc);
	free(w->raw);
	free(w->zbuf);
	free(w->out);
	free(w);
}

/* ---- attrs ----------------------------------------------------------- */

static uint8_t revbyte(uint8_t b)
{
	b = (uint8_t)((b & 0xf0) >> 4 | (b & 0x0f) << 4);
	b = (uint8_t)((b & 0xcc) >> 2 | (b & 0x33) << 2);
	b = (uint8_t)((b & 0xaa) >> 1 | (b & 0x55) << 1);
	return b;
}

void pdw_attr_bytes(const struct pdw *w, const struct pdw_attr_rec *a, uint8_t *out)
{
	uint8_t full[PDW_ATTR_MAX];
	uint64_t flags = a->bits | (uint64_t)(a->precise_ip & 3) << 15;

	memset(full, 0, sizeof(full));
	put_u32(w, full + 0, a->type);
	put_u32(w, full + 4, w->attr_size);
	put_u64(w, full + 8, a->config);
	put_u64(w, full + 16, a->sample_period);
	put_u64(w, full + 24, a->sample_type);
	put_u64(w, full + 32, a->read_format);
	/* A big-endian compiler allocates bitfields from the most significant
	 * bit of each byte: bit i lives in byte i/8 at position 7 - i%8. */
	for (int i = 0; i < 8; i++) {
		uint8_t b = (uint8_t)(flags >> (8 * i));
		full[40 + i] = w->be ? revbyte(b) : b;
	}
	put_u32(w, full + 48, a->wakeup_events);
	put_u64(w, full + 56, a->config1);
	put_u64(w, full + 64, a->config2);
	memcpy(out, full, w->attr_size);
}

/* Bytes of a sample body that do not depend on the sample (everything but
 * the callchain and raw payload), and of the sample_id_all trailer. */
static size_t sample_fixed_size(uint64_t st)
{
	size_t n = 0;
	static const uint64_t u64_bits[] = {
		PDW_SAMPLE_IDENTIFIER, PDW_SAMPLE_IP, PDW_SAMPLE_TID, PDW_SAMPLE_TIME,
		PDW_SAMPLE_ADDR, PDW_SAMPLE_ID, PDW_SAMPLE_STREAM_ID, PDW_SAMPLE_CPU,
		PDW_SAMPLE_PERIOD, PDW_SAMPLE_DATA_SRC, PDW_SAMPLE_TRANSACTION,
		PDW_SAMPLE_PHYS_ADDR, PDW_SAMPLE_DATA_PAGE_SIZE, PDW_SAMPLE_CODE_PAGE_SIZE,
	};

	for (size_t i = 0; i < sizeof(u64_bits) / sizeof(u64_bits[0]); i++)
		if (st & u64_bits[i])
			n += 8;
	if (st & (PDW_SAMPLE_WEIGHT | PDW_SAMPLE_WEIGHT_STRUCT))
		n += 8;
	if (st & PDW_SAMPLE_CALLCHAIN)
		n += 8;
	if (st & PDW_SAMPLE_RAW)
		n += 4;   /* plus the payload, padded so that size + 4 is 8-aligned */
	return n;
}

static size_t trailer_size(uint64_t st, uint64_t bits)
{
	size_t n = 0;

	if (!(bits & PDW_ATTR_SAMPLE_ID_ALL))
		return 0;
	if (st & PDW_SAMPLE_TID) n += 8;
	if (st & PDW_SAMPLE_TIME) n += 8;
	if (st & PDW_SAMPLE_ID) n += 8;
	if (st & PDW_SAMPLE_STREAM_ID) n += 8;
	if (st & PDW_SAMPLE_CPU) n += 8;
	if (st & PDW_SAMPLE_IDENTIFIER) n += 8;
	return n;
}

int pdw_add_attr(struct pdw *w, const struct pdw_attr *a)
{
	struct pdw_attr_rec *r;
	uint32_t nr_ids = a->nr_ids ? a->nr_ids : 1;

	if (w->failed)
		return w->failed;
	if (w->frozen)
		return pdw_fail(w, -EBUSY, "perf.data writer: attrs must be added before the first record");
	if (a->sample_type & UNSUPPORTED_SAMPLE || a->sample_type >> (SAMPLE_LAST_BIT + 1))
		return pdw_fail(w, -ENOTSUP, "perf.data writer: sample_type %#llx has fields the writer cannot lay out",
				(unsigned long long)a->sample_type);
	if ((a->sample_type & PDW_SAMPLE_WEIGHT) && (a->sample_type & PDW_SAMPLE_WEIGHT_STRUCT))
		return pdw_fail(w, -EINVAL, "perf.data writer: WEIGHT and WEIGHT_STRUCT are exclusive");
	if (w->nr_attrs == w->cap_attrs) {
		uint32_t cap = w->cap_attrs ? 2 * w->cap_attrs : 4;
		void *p = realloc(w->attrs, cap * sizeof(*w->attrs));
		if (!p)
			return pdw_fail(w, -ENOMEM, "perf.data writer: out of memory");
		w->attrs = p;
		w->cap_attrs = cap;
	}
	r = &w->attrs[w->nr_attrs];
	memset(r, 0, sizeof(*r));
	r->type = a->type;
	r->config = a->config;
	r->config1 = a->config1;
	r->config2 = a->config2;
	r->sample_period = a->sample_period;
	r->sample_type = a->sample_type;
	r->read_format = a->read_format;
	r->bits = a->bits;
	r->precise_ip = a->precise_ip;
	r->wakeup_events = a->wakeup_events;
	r->nr_ids = nr_ids;
	r->ids = malloc(nr_ids * sizeof(uint64_t));
	r->name = a->name ? strdup(a->name) : NULL;
	if (!r->ids || (a->name && !r->name)) {
		free(r->ids);
		free(r->name);
		return pdw_fail(w, -ENOMEM, "perf.data writer: out of memory");
	}
	for (uint32_t i = 0; i < nr_ids; i++)
		r->ids[i] = a->ids ? a->ids[i] : w->next_id++;
	r->fixed = sample_fixed_size(a->sample_type);
	r->trailer = trailer_size(a->sample_type, a->bits);
	return (int)w->nr_attrs++;
}

uint64_t pdw_attr_id(const struct pdw *w, uint32_t idx, uint32_t n)
{
	if (idx >= w->nr_attrs || n >= w->attrs[idx].nr_ids)
		return 0;
	return w->attrs[idx].ids[n];
}

static void attr_init_mem(struct pdw_attr *a, uint32_t nr_ids)
{
	memset(a, 0, sizeof(*a));
	a->type = 4;                       /* PERF_TYPE_RAW: the cpu PMU */
	a->sample_period = 4000;
	a->sample_type = PDW_SAMPLE_C2C;
	a->read_format = 4;                /* PERF_FORMAT_ID */
	a->bits = PDW_ATTR_DISABLED | PDW_ATTR_INHERIT | PDW_ATTR_FREQ |
		  PDW_ATTR_ENABLE_ON_EXEC | PDW_ATTR_SAMPLE_ID_ALL;
	a->precise_ip = 3;
	a->nr_ids = nr_ids;
}

void pdw_attr_mem_loads(struct pdw_attr *a, uint32_t ldlat, uint32_t nr_ids)
{
	attr_init_mem(a, nr_ids);
	a->config = 0x1cd;
	a->config1 = ldlat;
	a->bits |= PDW_ATTR_MMAP | PDW_ATTR_COMM | PDW_ATTR_TASK | PDW_ATTR_MMAP_DATA |
		   PDW_ATTR_MMAP2 | PDW_ATTR_COMM_EXEC;
	/* The name perf c2c record gives it; a per-thread buffer keeps the
	 * helper free of allocation (pdw_add_attr copies the name). */
	static __thread char name[48];
	snprintf(name, sizeof(name), "cpu/mem-loads,ldlat=%u/P", ldlat);
	a->name = name;
}

void pdw_attr_mem_stores(struct pdw_attr *a, uint32_t nr_ids)
{
	attr_init_mem(a, nr_ids);
	a->config = 0x82d0;
	a->name = "cpu/mem-stores/P";
}

/* ---- freezing: what precedes the data -------------------------------- */

static int attrs_valid(struct pdw *w)
{
	if (!w->nr_attrs)
		return pdw_fail(w, -EINVAL, "perf.data writer: no attr added before the first record");
	return 0;
}

static int freeze_file(struct pdw *w)
{
	uint64_t pos = FILE_HEADER_SIZE;
	uint8_t *p;

	/* Layout as perf record: header, ids of every attr, attrs, data. */
	p = out_reserve(w, FILE_HEADER_SIZE);
	if (!p)
		return w->failed;
	memset(p, 0, FILE_HEADER_SIZE);
	for (uint32_t i = 0; i < w->nr_attrs; i++) {
		struct pdw_attr_rec *a = &w->attrs[i];
		a->ids_offset = pos;
		for (uint32_t j = 0; j < a->nr_ids; j++) {
			if (!(p = out_reserve(w, 8)))
				return w->failed;
			put_u64(w, p, a->ids[j]);
		}
		pos += 8ull * a->nr_ids;
	}
	w->attrs_offset = pos;
	for (uint32_t i = 0; i < w->nr_attrs; i++) {
		struct pdw_attr_rec *a = &w->attrs[i];
		if (!(p = out_reserve(w, w->attr_size + 16)))
			return w->failed;
		pdw_attr_bytes(w, a, p);
		put_u64(w, p + w->attr_size, a->ids_offset);
		put_u64(w, p + w->attr_size + 8, 8ull * a->nr_ids);
		pos += w->attr_size + 16;
	}
	w->data_offset = pos;
	return 0;
}

/* Writes one synthesized (never compressed) record of perf's own types. */
static int out_record(struct pdw *w, uint32_t type, uint16_t misc, const void *body, size_t len,
		      size_t pad_to)
{
	size_t size = 8 + len, padded = pad_to ? (size + pad_to - 1) / pad_to * pad_to : size;
	uint8_t *p;

	if (padded > 0xffff)
		return pdw_fail(w, -E2BIG, "perf.data writer: record type %u of %zu bytes does not fit", type, padded);
	if (!(p = out_reserve(w, padded)))
		return w->failed;
	rec_header(w, p, type, misc, padded);
	memcpy(p + 8, body, len);
	memset(p + size, 0, padded - size);
	return 0;
}

static int freeze_pipe(struct pdw *w)
{
	uint8_t *p = out_reserve(w, PIPE_HEADER_SIZE);
	int ret;

	if (!p)
		return w->failed;
	put_u64(w, p, PERF_MAGIC2);
	put_u64(w, p + 8, PIPE_HEADER_SIZE);
	/* perf record -o - order: features, then attrs, then the rest. */
	ret = pdw_features_pipe(w);
	if (ret < 0)
		return ret;
	for (uint32_t i = 0; i < w->nr_attrs; i++) {
		struct pdw_attr_rec *a = &w->attrs[i];
		size_t size = 8 + w->attr_size + 8ull * a->nr_ids;

		if (size > 0xffff)
			return pdw_fail(w, -E2BIG, "perf.data writer: attr %u has too many ids for pipe mode", i);
		if (!(p = out_reserve(w, size)))
			return w->failed;
		rec_header(w, p, REC_HEADER_ATTR, 0, size);
		pdw_attr_bytes(w, a, p + 8);
		for (uint32_t j = 0; j < a->nr_ids; j++)
			put_u64(w, p + 8 + w->attr_size + 8 * j, a->ids[j]);
		if (a->name) {
			/* Names travel as EVENT_UPDATE records in pipe mode. */
			size_t nlen = strlen(a->name) + 1, body;
			uint8_t buf[16 + 256 + 8];
			if (nlen > 256)
				nlen = 256;
			body = 16 + (nlen + 7) / 8 * 8;
			memset(buf, 0, sizeof(buf));
			put_u64(w, buf, EVENT_UPDATE_NAME);
			put_u64(w, buf + 8, a->ids[0]);
			memcpy(buf + 16, a->name, nlen - 1);
			if ((ret = out_record(w, REC_EVENT_UPDATE, 0, buf, body, 8)) < 0)
				return ret;
		}
	}
	return pdw_sideband_pipe(w);
}

static int freeze(struct pdw *w)
{
	int ret = attrs_valid(w);

	if (ret < 0)
		return ret;
	ret = w->pipe ? freeze_pipe(w) : freeze_file(w);
	if (ret < 0)
		return ret;
	w->frozen = 1;
	return 0;
}

int pdw_pipe_record(struct pdw *w, uint32_t type, uint16_t misc, const void *body, size_t len,
		    size_t pad_to)
{
	return out_record(w, type, misc, body, len, pad_to);
}

/* ---- records --------------------------------------------------------- */

static const struct pdw_attr_rec *sid_attr(struct pdw *w, const struct pdw_sid *sid)
{
	uint32_t ev = sid ? sid->event : 0;

	if (ev >= w->nr_attrs) {
		pdw_fail(w, -EINVAL, "perf.data writer: event %u does not exist (%u attrs)", ev, w->nr_attrs);
		return NULL;
	}
	return &w->attrs[ev];
}

static uint8_t *put_trailer(struct pdw *w, uint8_t *p, const struct pdw_attr_rec *a,
			    int32_t pid, int32_t tid, const struct pdw_sid *sid)
{
	uint64_t st = a->sample_type, id = a->ids[sid ? sid->cpu % a->nr_ids : 0];

	if (!a->trailer)
		return p;
	if (st & PDW_SAMPLE_TID) {
		put_u32(w, p, (uint32_t)pid);
		put_u32(w, p + 4, (uint32_t)tid);
		p += 8;
	}
	if (st & PDW_SAMPLE_TIME) { put_u64(w, p, sid ? sid->time : 0); p += 8; }
	if (st & PDW_SAMPLE_ID) { put_u64(w, p, id); p += 8; }
	if (st & PDW_SAMPLE_STREAM_ID) { put_u64(w, p, id); p += 8; }
	if (st & PDW_SAMPLE_CPU) {
		put_u32(w, p, sid ? sid->cpu : 0);
		put_u32(w, p + 4, 0);
		p += 8;
	}
	if (st & PDW_SAMPLE_IDENTIFIER) { put_u64(w, p, id); p += 8; }
	return p;
}

static size_t str_padded(const char *s)
{
	return (strlen(s) + 1 + 7) / 8 * 8;
}

static uint8_t *put_str(uint8_t *p, const char *s, size_t padded)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	memset(p + n, 0, padded - n);
	return p + padded;
}

static int do_mmap(struct pdw *w, const struct c2c_mmap *m, const struct pdw_sid *sid, int v2)
{
	const struct pdw_attr_rec *a;
	const char *fn = m->filename ? m->filename : "";
	size_t fl, size;
	uint16_t misc = m->cpumode & 7;
	uint8_t *p, *q;

	if (w->failed)
		return w->failed;
	if (!(a = sid_attr(w, sid)))
		return w->failed;
	fl = str_padded(fn);
	size = 8 + 8 + 24 + (v2 ? 32 : 0) + fl + a->trailer;
	if (m->prot && !(m->prot & 4))          /* PROT_EXEC */
		misc |= MISC_MMAP_DATA;
	if (v2 && m->build_id_size)
		misc |= MISC_MMAP_BUILD_ID;
	if (!(p = rec_begin(w, size)))
		return w->failed;
	rec_header(w, p, v2 ? REC_MMAP2 : REC_MMAP, misc, size);
	q = p + 8;
	put_u32(w, q, (uint32_t)m->pid);
	put_u32(w, q + 4, (uint32_t)m->tid);
	put_u64(w, q + 8, m->start);
	put_u64(w, q + 16, m->len);
	put_u64(w, q + 24, m->pgoff);
	q += 32;
	if (v2) {
		if (m->build_id_size) {
			uint8_t n = m->build_id_size > 20 ? 20 : m->build_id_size;
			memset(q, 0, 24);
			q[0] = n;
			memcpy(q + 4, m->build_id, n);
		} else {
			put_u32(w, q, m->maj);
			put_u32(w, q + 4, m->min);
			put_u64(w, q + 8, m->ino);
			put_u64(w, q + 16, m->ino_generation);
		}
		put_u32(w, q + 24, m->prot);
		put_u32(w, q + 28, m->flags);
		q += 32;
	}
	q = put_str(q, fn, fl);
	put_trailer(w, q, a, m->pid, m->tid, sid);
	return 0;
}

int pdw_mmap(struct pdw *w, const struct c2c_mmap *m, const struct pdw_sid *sid)
{
	return do_mmap(w, m, sid, 0);
}

int pdw_mmap2(struct pdw *w, const struct c2c_mmap *m, const struct pdw_sid *sid)
{
	return do_mmap(w, m, sid, 1);
}

int pdw_comm(struct pdw *w, const struct c2c_comm *c, const struct pdw_sid *sid)
{
	const struct pdw_attr_rec *a;
	const char *s = c->comm ? c->comm : "";
	size_t cl, size;
	uint8_t *p;

	if (w->failed)
		return w->failed;
	if (!(a = sid_attr(w, sid)))
		return w->failed;
	cl = str_padded(s);
	size = 16 + cl + a->trailer;
	if (!(p = rec_begin(w, size)))
		return w->failed;
	rec_header(w, p, REC_COMM, c->exec ? MISC_COMM_EXEC : 0, size);
	put_u32(w, p + 8, (uint32_t)c->pid);
	put_u32(w, p + 12, (uint32_t)c->tid);
	put_trailer(w, put_str(p + 16, s, cl), a, c->pid, c->tid, sid);
	return 0;
}

static int do_task(struct pdw *w, uint32_t type, const struct c2c_task *t, const struct pdw_sid *sid)
{
	const struct pdw_attr_rec *a;
	size_t size;
	uint8_t *p;

	if (w->failed)
		return w->failed;
	if (!(a = sid_attr(w, sid)))
		return w->failed;
	size = 8 + 16 + 8 + a->trailer;
	if (!(p = rec_begin(w, size)))
		return w->failed;
	rec_header(w, p, type, 0, size);
	put_u32(w, p + 8, (uint32_t)t->pid);
	put_u32(w, p + 12, (uint32_t)t->ppid);
	put_u32(w, p + 16, (uint32_t)t->tid);
	put_u32(w, p + 20, (uint32_t)t->ptid);
	put_u64(w, p + 24, t->time);
	put_trailer(w, p + 32, a, t->pid, t->tid, sid);
	return 0;
}

int pdw_fork(struct pdw *w, const struct c2c_task *t, const struct pdw_sid *sid)
{
	return do_task(w, REC_FORK, t, sid);
}

int pdw_exit(struct pdw *w, const struct c2c_task *t, const struct pdw_sid *sid)
{
	return do_task(w, REC_EXIT, t, sid);
}

int pdw_lost(struct pdw *w, uint64_t id, uint64_t lost, const struct pdw_sid *sid)
{
	const struct pdw_attr_rec *a;
	size_t size;
	uint8_t *p;

	if (w->failed)
		return w->failed;
	if (!(a = sid_attr(w, sid)))
		return w->failed;
	size = 24 + a->trailer;
	if (!(p = rec_begin(w, size)))
		return w->failed;
	rec_header(w, p, REC_LOST, 0, size);
	put_u64(w, p + 8, id ? id : a->ids[0]);
	put_u64(w, p + 16, lost);
	put_trailer(w, p + 24, a, -1, -1, sid);
	return 0;
}

int pdw_lost_samples(struct pdw *w, uint64_t lost, const struct pdw_sid *sid)
{
	const struct pdw_attr_rec *a;
	size_t size;
	uint8_t *p;

	if (w->failed)
		return w->failed;
	if (!(a = sid_attr(w, sid)))
		return w->failed;
	size = 16 + a->trailer;
	if (!(p = rec_begin(w, size)))
		return w->failed;
	rec_header(w, p, REC_LOST_SAMPLES, 0, size);
	put_u64(w, p + 8, lost);
	put_trailer(w, p + 16, a, -1, -1, sid);
	return 0;
}

int pdw_throttle(struct pdw *w, int unthrottle, uint64_t time, const struct pdw_sid *sid)
{
	const struct pdw_attr_rec *a;
	uint64_t id;
	size_t size;
	uint8_t *p;

	if (w->failed)
		return w->failed;
	if (!(a = sid_attr(w, sid)))
		return w->failed;
	id = a->ids[sid ? sid->cpu % a->nr_ids : 0];
	size = 32 + a->trailer;
	if (!(p = rec_begin(w, size)))
		return w->failed;
	rec_header(w, p, unthrottle ? REC_UNTHROTTLE : REC_THROTTLE, 0, size);
	put_u64(w, p + 8, time);
	put_u64(w, p + 16, id);
	put_u64(w, p + 24, id);
	put_trailer(w, p + 32, a, -1, -1, sid);
	return 0;
}

int pdw_sample(struct pdw *w, const struct c2c_sample *s)
{
	const struct pdw_attr_rec *a;
	uint64_t st, id;
	size_t size, raw_pad = 0;
	uint16_t misc;
	uint8_t *p;

	if (w->failed)
		return w->failed;
	if (s->event >= w->nr_attrs)
		return pdw_fail(w, -EINVAL, "perf.data writer: sample of event %u but only %u attrs",
				s->event, w->nr_attrs);
	a = &w->attrs[s->event];
	st = a->sample_type;
	size = 8 + a->fixed;
	if (st & PDW_SAMPLE_CALLCHAIN)
		size += 8ull * s->nr_callchain;
	if (st & PDW_SAMPLE_RAW) {
		/* The kernel pads the payload so that u32 size + data is 8-aligned. */
		raw_pad = ((size_t)s->raw_size + 4 + 7) / 8 * 8 - 4;
		size += raw_pad;
	}
	if (!(p = rec_begin(w, size)))
		return w->failed;
	misc = (uint16_t)((s->cpumode & 7) | (s->exact_ip ? MISC_EXACT_IP : 0));
	rec_header(w, p, REC_SAMPLE, misc, size);
	p += 8;
	id = (s->has & C2C_HAS_ID) ? s->id : a->ids[s->cpu % a->nr_ids];
	if (st & PDW_SAMPLE_IDENTIFIER) { put_u64(w, p, id); p += 8; }
	if (st & PDW_SAMPLE_IP) { put_u64(w, p, s->ip); p += 8; }
	if (st & PDW_SAMPLE_TID) {
		put_u32(w, p, (uint32_t)s->pid);
		put_u32(w, p + 4, (uint32_t)s->tid);
		p += 8;
	}
	if (st & PDW_SAMPLE_TIME) { put_u64(w, p, s->time); p += 8; }
	if (st & PDW_SAMPLE_ADDR) { put_u64(w, p, s->addr); p += 8; }
	if (st & PDW_SAMPLE_ID) { put_u64(w, p, id); p += 8; }
	if (st & PDW_SAMPLE_STREAM_ID) { put_u64(w, p, id); p += 8; }
	if (st & PDW_SAMPLE_CPU) {
		put_u32(w, p, s->cpu);
		put_u32(w, p + 4, 0);
		p += 8;
	}
	if (st & PDW_SAMPLE_PERIOD) { put_u64(w, p, s->period); p += 8; }
	if (st & PDW_SAMPLE_CALLCHAIN) {
		put_u64(w, p, s->nr_callchain);
		p += 8;
		for (uint32_t i = 0; i < s->nr_callchain; i++, p += 8)
			put_u64(w, p, s->callchain[i]);
	}
	if (st & PDW_SAMPLE_RAW) {
		put_u32(w, p, (uint32_t)raw_pad);
		if (s->raw_size)
			memcpy(p + 4, s->raw, s->raw_size);
		memset(p + 4 + s->raw_size, 0, raw_pad - s->raw_size);
		p += 4 + raw_pad;
	}
	if (st & PDW_SAMPLE_WEIGHT) { put_u64(w, p, s->weight); p += 8; }
	if (st & PDW_SAMPLE_WEIGHT_STRUCT) {
		/* var1_dw = weight, var2_w = ins_lat: the same u64 in both byte orders. */
		put_u64(w, p, (s->weight & 0xffffffffull) | (uint64_t)(s->ins_lat & 0xffff) << 32);
		p += 8;
	}
	if (st & PDW_SAMPLE_DATA_SRC) { put_u64(w, p, s->data_src); p += 8; }
	if (st & PDW_SAMPLE_TRANSACTION) { put_u64(w, p, s->transaction); p += 8; }
	if (st & PDW_SAMPLE_PHYS_ADDR) { put_u64(w, p, s->phys_addr); p += 8; }
	if (st & PDW_SAMPLE_DATA_PAGE_SIZE) { put_u64(w, p, s->data_page_size); p += 8; }
	if (st & PDW_SAMPLE_CODE_PAGE_SIZE) { put_u64(w, p, s->code_page_size); p += 8; }
	if (!w->nr_samples || s->time < w->first_time)
		w->first_time = s->time;
	if (!w->nr_samples || s->time > w->last_time)
		w->last_time = s->time;
	w->nr_samples++;
	return 0;
}

/* Records perf record writes itself, outside the compressed stream. */
static int plain_record(struct pdw *w, uint32_t type)
{
	uint8_t *p;

	if (w->failed)
		return w->failed;
	if (!w->frozen && freeze(w) < 0)
		return w->failed;
	if (compress_flush(w) < 0)
		return w->failed;
	if (!(p = out_reserve(w, 8)))
		return w->failed;
	rec_header(w, p, type, 0, 8);
	w->nr_records++;
	return 0;
}

int pdw_finished_round(struct pdw *w)
{
	return plain_record(w, REC_FINISHED_ROUND);
}

int pdw_finished_init(struct pdw *w)
{
	return plain_record(w, REC_FINISHED_INIT);
}

int pdw_unknown(struct pdw *w, uint32_t type, uint16_t misc, const void *payload, size_t len)
{
	size_t size = 8 + (len + 7) / 8 * 8;
	uint8_t *p;

	if (w->failed)
		return w->failed;
	if (!(p = rec_begin(w, size)))
		return w->failed;
	rec_header(w, p, type, misc, size);
	if (len)
		memcpy(p + 8, payload, len);
	memset(p + 8 + len, 0, size - 8 - len);
	return 0;
}

int pdw_raw(struct pdw *w, const void *bytes, size_t len)
{
	if (w->failed)
		return w->failed;
	if (!w->frozen && freeze(w) < 0)
		return w->failed;
	if (compress_flush(w) < 0)
		return w->failed;
	return pdw_out_write(w, bytes, len);
}

uint64_t pdw_offset(const struct pdw *w)
{
	return w->out_pos + w->out_len;
}

uint64_t pdw_nr_records(const struct pdw *w)
{
	return w->nr_records;
}

uint64_t pdw_nr_samples(const struct pdw *w)
{
	return w->nr_samples;
}

/* ---- closing --------------------------------------------------------- */

static int write_file_header(struct pdw *w, uint64_t data_size, const uint64_t feat[4])
{
	uint8_t h[FILE_HEADER_SIZE];
	uint64_t attrs_size = (uint64_t)w->nr_attrs * (w->attr_size + 16);

	memset(h, 0, sizeof(h));
	put_u64(w, h, PERF_MAGIC2);
	put_u64(w, h + 8, FILE_HEADER_SIZE);
	put_u64(w, h + 16, w->attr_size + 16);
	put_u64(w, h + 24, w->attrs_offset);
	put_u64(w, h + 32, attrs_size);
	put_u64(w, h + 40, w->data_offset);
	put_u64(w, h + 48, data_size);
	/* event_types (h + 56, h + 64) stays empty, as perf writes it. */
	for (int i = 0; i < 4; i++)
		put_u64(w, h + 72 + 8 * i, feat[i]);
	if (pwrite(w->fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return pdw_fail(w, errno ? -errno : -EIO, "perf.data writer: cannot write the header: %s",
				strerror(errno));
	return 0;
}

int pdw_close(struct pdw *w, struct c2c_error *err)
{
	int ret = 0;

	if (!w->failed && !w->frozen)
		freeze(w);
	if (!w->failed)
		compress_flush(w);
	if (!w->failed && !w->pipe) {
		uint64_t feat[4] = { 0 }, data_size = pdw_offset(w) - w->data_offset;
		if (pdw_features_file(w, feat) == 0 && out_flush(w) == 0)
			write_file_header(w, data_size, feat);
	}
	if (!w->failed)
		out_flush(w);
	if (!w->failed && w->own_fd && close(w->fd) < 0)
		pdw_fail(w, -errno, "perf.data writer: close failed: %s", strerror(errno));
	if (w->own_fd)
		w->fd = -1;
	ret = w->failed;
	if (ret && err)
		*err = w->err;
	pdw_free(w);
	return ret;
}
