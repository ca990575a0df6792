/* The perf.data reader's input side and record stream (see perfdata.h):
 * opening (mmap for files, read() for real pipes, a caller's buffer for
 * fuzzing), walking the data section, pipe-format user records,
 * PERF_RECORD_COMPRESSED (zstd streaming; records may span compressed
 * records), damage handling, and decoding each record at delivery.
 * Records from the mapped input are never copied; records from a pipe or a
 * decompressed buffer are copied into recycled chunks while they wait. */
#include "collector/perfdata/perfdata_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

enum {
	RELEASE_STEP = 32 << 20,     /* a multiple of the page size */
	STREAM_BUF = 1 << 20,
	PIPE_HEADER_SIZE = 16,
	S_TID = 1u << 1, S_TIME = 1u << 2, S_IP = 1u << 0, S_IDENTIFIER = 1u << 16,
};


/* Every chunk ever made is on the free list or current or referenced by a
 * queued record; at close the queues are released first, so all are on the
 * free list or current then. */
static void chunks_free(struct perfdata *pd)
{
	struct pd_chunk *c = pd->chunk_free;

	while (c) {
		struct pd_chunk *n = c->next;
		free(c->data);
		free(c);
		c = n;
	}
	if (pd->chunk_cur) {
		free(pd->chunk_cur->data);
		free(pd->chunk_cur);
	}
	pd->chunk_free = pd->chunk_cur = NULL;
}

/* ---- damage ---- */

static int damage(struct perfdata *pd, uint64_t dropped, struct c2c_error *err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Stops reading input: what was read is still delivered, then the error. */
static int damage(struct perfdata *pd, uint64_t dropped, struct c2c_error *err, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pd->stats.dropped_bytes += dropped;
	pd->input_done = true;
	if (!pd->have_pending_err) {
		c2c_error_set(&pd->pending_err, -EINVAL, "%s: %s", pd->path, msg);
		pd->have_pending_err = true;
	}
	(void)err;
	return -EINVAL;
}

/* ---- attrs and timestamps of records ---- */

static int record_attr(struct perfdata *pd, const unsigned char *rec, size_t size, uint32_t type)
{
	uint64_t id;
	int r, idx;

	if (pd->nr_attrs == 0)
		return -1;
	if (pd->nr_attrs == 1)
		return 0;
	if (type != PERF_REC_SAMPLE && !pd->attrs[0]->sample_id_all)
		return 0;
	r = perf_record_sample_id(pd->attrs[0], rec, size, pd->swap, &id);
	if (r < 0)
		return -1;
	if (r == 0 || id == 0)
		return 0;    /* no id in the layout, or a synthesized record */
	idx = perfdata_attr_by_id(pd, id);
	return idx;
}

static bool record_time(struct perfdata *pd, const unsigned char *rec, size_t size, uint32_t type,
			int attr, uint64_t *ts)
{
	const struct perf_attr_info *a;

	if (attr < 0)
		return false;
	a = pd->attrs[attr];
	if (!(a->sample_type & S_TIME))
		return false;
	if (type == PERF_REC_SAMPLE) {
		size_t off = 8 + 8 * (!!(a->sample_type & S_IDENTIFIER) + !!(a->sample_type & S_IP) +
				      !!(a->sample_type & S_TID));
		if (off + 8 > size)
			return false;
		*ts = pd_u64(pd, rec + off);
		return true;
	} else {
		struct perf_sample_id sid;
		if (perf_record_parse_sample_id(a, rec, size, pd->swap, &sid, NULL) < 0 ||
		    !(sid.has & PERF_SID_TIME))
			return false;
		*ts = sid.time;
		return true;
	}
}

/* ---- processing one record in file order ---- */

static int process_record(struct perfdata *pd, const unsigned char *rec, size_t size, bool stable,
			  bool nested, uint64_t off, struct c2c_error *err);

static int push_immediate(struct perfdata *pd, const unsigned char *rec, size_t size, bool stable,
			  int attr)
{
	struct pd_ent e = { .rec = rec, .size = (uint32_t)size, .attr = attr, .seq = pd->seq++ };

	if (!stable && pd_copy_record(pd, rec, size, &e) < 0)
		return -ENOMEM;
	if (pd_fifo_push(pd, &e) < 0) {
		pd_ent_release(pd, &e);
		return -ENOMEM;
	}
	return 0;
}

static int ensure_dbuf(struct perfdata *pd, size_t free_needed)
{
	if (pd->dbuf_cap - pd->dbuf_len >= free_needed)
		return 0;
	size_t cap = pd->dbuf_cap ? pd->dbuf_cap : (1 << 18);
	while (cap - pd->dbuf_len < free_needed)
		cap *= 2;
	unsigned char *n = realloc(pd->dbuf, cap);
	if (!n)
		return -ENOMEM;
	pd->dbuf = n;
	pd->dbuf_cap = cap;
	return 0;
}

static int decompress(struct perfdata *pd, const unsigned char *rec, size_t size, uint64_t off,
		      struct c2c_error *err)
{
	ZSTD_inBuffer in = { rec + 8, size - 8, 0 };
	size_t outsz = ZSTD_DStreamOutSize();

	if (!pd->zds) {
		pd->zds = ZSTD_createDStream();
		if (!pd->zds || ZSTD_isError(ZSTD_initDStream(pd->zds)))
			return c2c_error_set(err, -ENOMEM, "%s: cannot set up zstd decompression", pd->path);
	}
	pd->stats.compressed_records++;
	for (;;) {
		ZSTD_outBuffer out;
		size_t r, p = 0;

		if (ensure_dbuf(pd, outsz) < 0)
			return c2c_error_set(err, -ENOMEM, "%s: out of memory decompressing", pd->path);
		out = (ZSTD_outBuffer){ pd->dbuf + pd->dbuf_len, outsz, 0 };
		r = ZSTD_decompressStream(pd->zds, &out, &in);
		if (ZSTD_isError(r))
			return damage(pd, pd->end > pd->pos ? pd->end - pd->pos : 0, err,
				      "compressed record at offset %" PRIu64 " does not decompress (%s)", off,
				      ZSTD_getErrorName(r));
		pd->dbuf_len += out.pos;
		pd->stats.decompressed_bytes += out.pos;
		/* Hand out every complete record; a partial one waits for the
		 * next compressed record. */
		while (pd->dbuf_len - p >= 8) {
			struct perf_rec_header h = perf_record_header(pd->dbuf + p, pd->swap);
			int rc;
			if (h.size < 8)
				return damage(pd, pd->end > pd->pos ? pd->end - pd->pos : 0, err,
					      "record of invalid size %u inside the compressed record at offset %" PRIu64,
					      h.size, off);
			if (h.size > pd->dbuf_len - p)
				break;
			rc = process_record(pd, pd->dbuf + p, h.size, false, true, off, err);
			if (rc < 0)
				return rc;
			p += h.size;
		}
		if (p) {
			memmove(pd->dbuf, pd->dbuf + p, pd->dbuf_len - p);
			pd->dbuf_len -= p;
		}
		if (in.pos == in.size && out.pos < out.size)
			break;
	}
	return 0;
}

static int take_payload(struct perfdata *pd, size_t n, const unsigned char **p);

static int process_user_record(struct perfdata *pd, const unsigned char *rec, size_t size,
			       bool stable, bool nested, uint64_t off, struct c2c_error *err)
{
	struct perf_rec_header h = perf_record_header(rec, pd->swap);
	int rc;

	switch (h.type) {
	case PERF_REC_COMPRESSED:
		if (nested) {
			pd->stats.bad_records++;
			return 0;
		}
		return decompress(pd, rec, size, off, err);
	case PERF_REC_FINISHED_ROUND:
		rc = pd_order_round(pd);
		if (rc < 0)
			return c2c_error_set(err, rc, "%s: out of memory ordering records", pd->path);
		break;
	case PERF_REC_HEADER_ATTR: {
		struct perf_attr_info a;
		struct c2c_error aerr;
		if (perf_attr_decode(rec + 8, size - 8, pd->swap, &a, &aerr) < 0) {
			pd->stats.bad_records++;
			return 0;
		}
		rc = pd_add_attr(pd, &a, rec + 8 + a.size, (size - 8 - a.size) / 8, err);
		if (rc < 0)
			return rc;
		pd_name_attrs(pd);
		break;
	}
	case PERF_REC_HEADER_TRACING_DATA: {
		const unsigned char *payload;
		uint32_t tsize;
		void *blob;
		if (size < 12) {
			pd->stats.bad_records++;
			return 0;
		}
		tsize = pd_u32(pd, rec + 8);
		if (nested)
			return 0;   /* cannot carry a payload; perf never writes this */
		/* The tracing data follows the record, padded to 8 bytes. */
		rc = take_payload(pd, ((size_t)tsize + 7) & ~(size_t)7, &payload);
		if (rc < 0)
			return damage(pd, pd->end > pd->pos ? pd->end - pd->pos : 0, err,
				      "tracing data of %u bytes at offset %" PRIu64 " runs past the end of the input",
				      tsize, off);
		blob = pd_alloc(pd, tsize);
		if (!blob)
			return c2c_error_set(err, -ENOMEM, "%s: out of memory for tracing data", pd->path);
		memcpy(blob, payload, tsize);
		pd->hdr.tracing_data = blob;
		pd->hdr.tracing_data_size = tsize;
		pd->hdr.features[0] |= 1ull << PERFDATA_FEAT_TRACING_DATA;
		break;
	}
	case PERF_REC_HEADER_BUILD_ID:
		if (pd_add_build_id(pd, rec, size) < 0)
			pd->stats.bad_records++;
		else
			pd->hdr.features[0] |= 1ull << PERFDATA_FEAT_BUILD_ID;
		break;
	case PERF_REC_EVENT_UPDATE:
		rc = pd_event_update(pd, rec, size);
		if (rc == -ENOMEM)
			return c2c_error_set(err, rc, "%s: out of memory for an event name", pd->path);
		if (rc < 0)
			pd->stats.bad_records++;   /* damaged or naming no event: skipped */
		break;
	case PERF_REC_HEADER_FEATURE: {
		uint64_t feat;
		if (size < 16) {
			pd->stats.bad_records++;
			return 0;
		}
		feat = pd_u64(pd, rec + 8);
		if (feat >= PERFDATA_FEAT_BITS || feat == 0) {
			pd->hdr.nr_unknown_features++;
			pd->stats.unknown_features++;
			break;
		}
		pd->hdr.features[feat / 64] |= 1ull << (feat % 64);
		if (feat >= PERFDATA_FEAT_KNOWN) {
			pd->hdr.nr_unknown_features++;
			pd->stats.unknown_features++;
		} else if (pd_parse_feature(pd, (unsigned)feat, rec + 16, size - 16) < 0) {
			pd->hdr.nr_bad_features++;
		} else if (feat == PERFDATA_FEAT_EVENT_DESC || feat == PERFDATA_FEAT_PMU_MAPPINGS) {
			pd_name_attrs(pd);
		}
		break;
	}
	default:
		break;
	}
	rc = push_immediate(pd, rec, size, stable, -1);
	if (rc < 0)
		return c2c_error_set(err, rc, "%s: out of memory queueing records", pd->path);
	return 0;
}

static bool known_type(uint32_t type)
{
	return (type >= PERF_REC_MMAP && type < PERF_REC_KERNEL_MAX) ||
	       (type >= PERF_REC_USER_TYPE_START && type <= PERF_REC_FINISHED_INIT);
}

static int process_record(struct perfdata *pd, const unsigned char *rec, size_t size, bool stable,
			  bool nested, uint64_t off, struct c2c_error *err)
{
	struct perf_rec_header h = perf_record_header(rec, pd->swap);
	struct pd_ent e = { .rec = rec, .size = (uint32_t)size };
	bool has_ts;
	int rc;

	pd->stats.records_total++;
	if (h.type < PERF_REC_TYPE_MAX)
		pd->stats.records[h.type]++;
	if (!known_type(h.type)) {
		pd->stats.unknown_records++;
		return 0;
	}
	if (h.type >= PERF_REC_USER_TYPE_START)
		return process_user_record(pd, rec, size, stable, nested, off, err);

	e.attr = record_attr(pd, rec, size, h.type);
	has_ts = record_time(pd, rec, size, h.type, e.attr, &e.ts);
	e.seq = pd->seq++;
	if (!stable && pd_copy_record(pd, rec, size, &e) < 0)
		return c2c_error_set(err, -ENOMEM, "%s: out of memory queueing records", pd->path);
	rc = pd_order_add(pd, &e, has_ts);
	if (rc < 0) {
		pd_ent_release(pd, &e);
		return c2c_error_set(err, rc, "%s: out of memory queueing records", pd->path);
	}
	return 0;
}

/* ---- input: mapped memory or a real pipe ---- */

/* ---- a big regular file, read through a window ---- */

/* Files larger than this are read through a window instead of mapped
 * whole (C2CTUI_READ_WINDOW, bytes, changes it: 0 windows every file). */
#define WINDOW_MIN_FILE (64ull << 20)

static uint64_t window_threshold(void)
{
	const char *e = getenv("C2CTUI_READ_WINDOW");
	char *end;
	unsigned long long v;

	if (!e || !*e)
		return WINDOW_MIN_FILE;
	v = strtoull(e, &end, 10);
	return *end ? WINDOW_MIN_FILE : v;
}

/* Makes n bytes available at sbuf + sbuf_start (stream input). */
static int stream_fill(struct perfdata *pd, size_t n)
{
	while (pd->sbuf_end - pd->sbuf_start < n) {
		ssize_t r;
		if (pd->stream_eof)
			return -1;
		if (pd->sbuf_cap - pd->sbuf_start < n || pd->sbuf_end == pd->sbuf_cap) {
			memmove(pd->sbuf, pd->sbuf + pd->sbuf_start, pd->sbuf_end - pd->sbuf_start);
			pd->sbuf_end -= pd->sbuf_start;
			pd->sbuf_start = 0;
		}
		if (pd->sbuf_cap < n) {
			unsigned char *nb = realloc(pd->sbuf, n);
			if (!nb)
				return -ENOMEM;
			pd->sbuf = nb;
			pd->sbuf_cap = n;
		}
		r = read(pd->fd, pd->sbuf + pd->sbuf_end, pd->sbuf_cap - pd->sbuf_end);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			pd->stream_eof = true;
			continue;
		}
		pd->sbuf_end += (size_t)r;
	}
	return 0;
}

static int take_payload(struct perfdata *pd, size_t n, const unsigned char **p)
{
	if (pd->stream) {
		if (stream_fill(pd, n) < 0)
			return -1;
		*p = pd->sbuf + pd->sbuf_start;
		pd->sbuf_start += n;
		pd->stream_off += n;
		return 0;
	}
	if (n > pd->end - pd->pos)
		return -1;
	if (pd->windowed) {
		/* the record being processed is in rec_scratch: the window may move */
		if (!(*p = pd_window_at(pd, pd->pos, n)))
			return -1;
	} else {
		*p = pd->map + pd->pos;
	}
	pd->pos += n;
	return 0;
}

/* Lowest mapped-input offset a queued or delivered record still uses. */
static uint64_t lowest_live(const struct perfdata *pd)
{
	const struct pd_vec *vs[] = { &pd->queue, &pd->incoming, &pd->fifo };
	uint64_t low = pd->pos;

	for (size_t i = 0; i < sizeof(vs) / sizeof(vs[0]); i++)
		for (size_t k = vs[i]->head; k < vs[i]->n; k++)
			if (!vs[i]->v[k].chunk && (uint64_t)(vs[i]->v[k].rec - pd->map) < low)
				low = (uint64_t)(vs[i]->v[k].rec - pd->map);
	if (pd->have_delivered && !pd->delivered.chunk && (uint64_t)(pd->delivered.rec - pd->map) < low)
		low = (uint64_t)(pd->delivered.rec - pd->map);
	return low;
}

/* Drops the pages of the mapped file that no record points into any more,
 * so a big file does not stay resident as it is read (everything the
 * header handed out was copied at open). */
static void release_consumed(struct perfdata *pd)
{
	uint64_t upto = lowest_live(pd) & ~(uint64_t)(RELEASE_STEP - 1);

	if (upto > pd->released) {
		madvise((void *)(pd->map + pd->released), (size_t)(upto - pd->released), MADV_DONTNEED);
		pd->released = upto;
	}
}

/* At the end of the input: decompressed bytes that never made a whole
 * record mean the last compressed record was cut. */
static int input_end(struct perfdata *pd, struct c2c_error *err)
{
	if (pd->dbuf_len)
		return damage(pd, pd->dbuf_len, err,
			      "the compressed data ends inside a record (%zu decompressed bytes dropped)",
			      pd->dbuf_len);
	return 0;
}

/* Reads and processes the next record in file order. 1: did one, 0: end of
 * input, negative: damage or failure (err or pending_err set). */
static int read_one(struct perfdata *pd, struct c2c_error *err)
{
	const unsigned char *rec;
	struct perf_rec_header h;
	uint64_t off;
	int rc;

	if (pd->stream) {
		size_t avail;
		off = pd->stream_off;
		if (stream_fill(pd, 8) < 0) {
			avail = pd->sbuf_end - pd->sbuf_start;
			if (avail == 0)
				return input_end(pd, err);
			return damage(pd, avail, err, "the stream ends inside a record header at offset %" PRIu64
				      " (%zu bytes dropped)", off, avail);
		}
		h = perf_record_header(pd->sbuf + pd->sbuf_start, pd->swap);
		if (h.size < 8)
			return damage(pd, pd->sbuf_end - pd->sbuf_start, err,
				      "record at offset %" PRIu64 " has invalid size %u", off, h.size);
		if (stream_fill(pd, h.size) < 0) {
			avail = pd->sbuf_end - pd->sbuf_start;
			return damage(pd, avail, err,
				      "the stream ends inside a %u-byte record at offset %" PRIu64
				      " (%zu bytes dropped)", h.size, off, avail);
		}
		/* Copied out: a tracing-data payload after the record may
		 * refill (move) the stream buffer while it is processed. */
		memcpy(pd->rec_scratch, pd->sbuf + pd->sbuf_start, h.size);
		pd->sbuf_start += h.size;
		pd->stream_off += h.size;
		rc = process_record(pd, pd->rec_scratch, h.size, false, false, off, err);
		return rc < 0 ? rc : 1;
	}

	if (pd->map_owned && pd->pos - pd->released >= 2 * RELEASE_STEP)
		release_consumed(pd);
	off = pd->pos;
	if (pd->end - pd->pos < 8) {
		uint64_t left = pd->end - pd->pos;
		if (left == 0 && !pd->stats.truncated)
			return input_end(pd, err);
		pd->pos = pd->end;
		if (pd->stats.truncated)
			return damage(pd, left, err,
				      "data section truncated: the file ends %" PRIu64 " bytes before the declared end of data"
				      " (%" PRIu64 " bytes of a partial record dropped)",
				      pd->hdr.data_offset + pd->hdr.data_size - pd->end, left);
		return damage(pd, left, err, "%" PRIu64 " stray bytes at the end of the data (offset %" PRIu64 ")",
			      left, off);
	}
	const unsigned char *at = pd->windowed ? pd_window_at(pd, pd->pos, 8) : pd->map + pd->pos;
	if (!at)
		return c2c_error_set(err, -EIO, "%s: cannot read at offset %" PRIu64 ": %s", pd->path, off,
				     strerror(errno ? errno : EIO));
	h = perf_record_header(at, pd->swap);
	if (h.size < 8) {
		uint64_t left = pd->end - pd->pos;
		pd->pos = pd->end;
		return damage(pd, left, err, "record at offset %" PRIu64 " has invalid size %u (%" PRIu64
			      " bytes dropped)", off, h.size, left);
	}
	if (h.size > pd->end - pd->pos) {
		uint64_t left = pd->end - pd->pos;
		pd->pos = pd->end;
		if (pd->stats.truncated)
			return damage(pd, left, err,
				      "data section truncated: the file ends inside a %u-byte record at offset %" PRIu64
				      ", %" PRIu64 " bytes before the declared end of data (%" PRIu64 " bytes dropped)",
				      h.size, off, pd->hdr.data_offset + pd->hdr.data_size - pd->end, left);
		return damage(pd, left, err,
			      "record at offset %" PRIu64 " (%u bytes) runs past the end of the data (%" PRIu64
			      " bytes dropped)", off, h.size, left);
	}
	if (pd->windowed) {
		/* Copied out, as from a stream: queued records are copied
		 * again (chunks), and a payload may move the window. */
		if (!(rec = pd_window_at(pd, pd->pos, h.size)))
			return c2c_error_set(err, -EIO, "%s: cannot read at offset %" PRIu64 ": %s", pd->path, off,
					     strerror(errno ? errno : EIO));
		memcpy(pd->rec_scratch, rec, h.size);
		pd->pos += h.size;
		rc = process_record(pd, pd->rec_scratch, h.size, false, false, off, err);
		return rc < 0 ? rc : 1;
	}
	rec = pd->map + pd->pos;
	pd->pos += h.size;
	/* Mapped records stay valid until close; unaligned ones are still
	 * fine (loads use memcpy). */
	rc = process_record(pd, rec, h.size, true, false, off, err);
	return rc < 0 ? rc : 1;
}

/* ---- delivery ---- */

/* Fills rec from a queued entry; false when the record is skipped. */
static bool decode(struct perfdata *pd, const struct pd_ent *e, struct perfdata_record *r)
{
	struct perf_rec_header h = perf_record_header(e->rec, pd->swap);
	const struct perf_attr_info *sid_attr = NULL;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	r->type = h.type;
	r->misc = h.misc;
	r->size = e->size;
	r->raw = e->rec;
	r->attr = e->attr;

	if (h.type < PERF_REC_USER_TYPE_START && pd->nr_attrs)
		sid_attr = pd->attrs[e->attr >= 0 ? e->attr : 0];
	if (h.type != PERF_REC_SAMPLE && sid_attr && sid_attr->sample_id_all &&
	    perf_record_parse_sample_id(sid_attr, e->rec, e->size, pd->swap, &r->sid, NULL) < 0) {
		pd->stats.bad_records++;
		return false;
	}

	switch (h.type) {
	case PERF_REC_SAMPLE:
		if (e->attr < 0) {
			pd->stats.unknown_id_samples++;
			return false;
		}
		r->kind = PERFDATA_SAMPLE;
		rc = perf_record_parse_sample(pd->attrs[e->attr], e->rec, e->size, pd->swap,
					      &r->u.sample, NULL);
		break;
	case PERF_REC_MMAP:
	case PERF_REC_MMAP2:
		r->kind = PERFDATA_MMAP;
		rc = perf_record_parse_mmap(e->rec, e->size, pd->swap, &r->u.mmap, NULL);
		break;
	case PERF_REC_COMM:
		r->kind = PERFDATA_COMM;
		rc = perf_record_parse_comm(sid_attr, e->rec, e->size, pd->swap, &r->u.comm, NULL);
		break;
	case PERF_REC_FORK:
	case PERF_REC_EXIT:
		r->kind = h.type == PERF_REC_FORK ? PERFDATA_FORK : PERFDATA_EXIT;
		rc = perf_record_parse_task(e->rec, e->size, pd->swap, &r->u.task, NULL);
		break;
	case PERF_REC_LOST:
	case PERF_REC_LOST_SAMPLES:
		r->kind = h.type == PERF_REC_LOST ? PERFDATA_LOST : PERFDATA_LOST_SAMPLES;
		rc = perf_record_parse_lost(sid_attr, e->rec, e->size, pd->swap, &r->u.lost, NULL);
		if (rc == 0)
			pd->stats.lost_events += r->u.lost.lost;
		break;
	case PERF_REC_THROTTLE:
	case PERF_REC_UNTHROTTLE:
		r->kind = h.type == PERF_REC_THROTTLE ? PERFDATA_THROTTLE : PERFDATA_UNTHROTTLE;
		rc = perf_record_parse_throttle(e->rec, e->size, pd->swap, &r->u.throttle, NULL);
		break;
	case PERF_REC_FINISHED_ROUND:
		r->kind = PERFDATA_FINISHED_ROUND;
		break;
	case PERF_REC_FINISHED_INIT:
		r->kind = PERFDATA_FINISHED_INIT;
		break;
	case PERF_REC_HEADER_TRACING_DATA:
		r->kind = PERFDATA_TRACING_DATA;
		break;
	default:
		r->kind = PERFDATA_OTHER;
		break;
	}
	if (rc < 0) {
		pd->stats.bad_records++;
		return false;
	}
	return true;
}

int perfdata_next(struct perfdata *pd, struct perfdata_record *rec, struct c2c_error *err)
{
	struct pd_ent e;

	if (pd->have_delivered) {
		pd_ent_release(pd, &pd->delivered);
		pd->have_delivered = false;
	}
	for (;;) {
		if (pd_fifo_pop(pd, &e)) {
			if (decode(pd, &e, rec)) {
				pd->delivered = e;
				pd->have_delivered = true;
				return 1;
			}
			pd_ent_release(pd, &e);
			continue;
		}
		if (pd->failed)
			return 0;
		if (pd->input_done) {
			if (!pd->finished) {
				pd->finished = true;
				if (pd_order_final(pd) < 0) {
					pd->failed = true;
					return c2c_error_set(err, -ENOMEM, "%s: out of memory ordering records", pd->path);
				}
				continue;
			}
			pd->failed = true;   /* nothing more, ever */
			if (pd->have_pending_err) {
				if (err)
					*err = pd->pending_err;
				return pd->pending_err.code;
			}
			return 0;
		}
		int rc = read_one(pd, err);
		if (rc == 0) {
			pd->input_done = true;
		} else if (rc < 0 && !pd->have_pending_err) {
			/* Not damage but a failure (memory): stop now. */
			pd->failed = true;
			pd->input_done = true;
			return rc;
		}
	}
}

/* ---- open / close ---- */

static struct perfdata *pd_new(const char *name)
{
	struct perfdata *pd = calloc(1, sizeof(*pd));

	if (!pd)
		return NULL;
	pd->fd = -1;
	pd->ordered = true;
	pd->queue_limit = 4u << 20;
	pd->path = strdup(name ? name : "(memory)");
	if (!pd->path) {
		free(pd);
		return NULL;
	}
	return pd;
}

void perfdata_close(struct perfdata *pd)
{
	if (!pd)
		return;
	if (pd->have_delivered)
		pd_ent_release(pd, &pd->delivered);
	pd_order_fini(pd);
	chunks_free(pd);
	if (pd->zds)
		ZSTD_freeDStream(pd->zds);
	free(pd->dbuf);
	free(pd->sbuf);
	free(pd->win);
	if (pd->map_owned)
		munmap((void *)pd->map, pd->map_len);
	free(pd->slurp);
	if (pd->fd >= 0)
		close(pd->fd);
	for (size_t i = 0; i < pd->nr_owned; i++)
		free(pd->owned[i]);
	free(pd->owned);
	free(pd->attrs);
	free(pd->upd_names);
	free(pd->idmap);
	free(pd->path);
	free(pd);
}

/* Header parsing for mapped (or in-memory) input. */
static int open_mapped(struct perfdata *pd, struct c2c_error *err)
{
	return pd_read_file_header(pd, err);
}

int perfdata_open_mem(struct perfdata **out, const void *buf, size_t len, const char *name,
		      struct c2c_error *err)
{
	struct perfdata *pd = pd_new(name);
	int rc;

	*out = NULL;
	if (!pd)
		return c2c_error_set(err, -ENOMEM, "out of memory opening %s", name ? name : "(memory)");
	pd->map = buf;
	pd->map_len = len;
	rc = open_mapped(pd, err);
	if (rc < 0) {
		perfdata_close(pd);
		return rc;
	}
	*out = pd;
	return 0;
}

/* Reads all of a non-seekable file-format input into memory: the format
 * needs the header's offsets, which point anywhere. */
static int slurp_rest(struct perfdata *pd, struct c2c_error *err)
{
	size_t cap = pd->sbuf_cap > (1 << 20) ? pd->sbuf_cap : (1 << 20), len = pd->sbuf_end - pd->sbuf_start;
	unsigned char *b = malloc(cap);

	if (!b)
		return c2c_error_set(err, -ENOMEM, "%s: out of memory reading the input", pd->path);
	memcpy(b, pd->sbuf + pd->sbuf_start, len);
	for (;;) {
		ssize_t r;
		if (len == cap) {
			unsigned char *n = realloc(b, cap * 2);
			if (!n) {
				free(b);
				return c2c_error_set(err, -ENOMEM, "%s: out of memory reading the input", pd->path);
			}
			b = n;
			cap *= 2;
		}
		r = read(pd->fd, b + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = -errno;
			free(b);
			return c2c_error_set(err, e, "%s: read failed: %s", pd->path, strerror(-e));
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	pd->slurp = b;
	pd->map = b;
	pd->map_len = len;
	free(pd->sbuf);
	pd->sbuf = NULL;
	pd->sbuf_cap = pd->sbuf_start = pd->sbuf_end = 0;
	pd->stream = false;
	return 0;
}

int perfdata_open_fd(struct perfdata **out, int fd, const char *name, struct c2c_error *err)
{
	struct perfdata *pd = pd_new(name);
	struct stat st;
	int rc;

	*out = NULL;
	if (!pd) {
		close(fd);
		return c2c_error_set(err, -ENOMEM, "out of memory opening %s", name);
	}
	pd->fd = fd;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		off_t start = lseek(fd, 0, SEEK_CUR);
		if (start > 0) {
			/* A file descriptor not at its start (stdin redirected
			 * mid-file) is read as a stream from where it is. */
			goto stream;
		}
		if (st.st_size == 0) {
			rc = c2c_error_set(err, -EINVAL, "%s: the file is empty", pd->path);
			goto fail;
		}
		void *m = MAP_FAILED;
		if ((uint64_t)st.st_size <= window_threshold())
			m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED && ((uint64_t)st.st_size > window_threshold() || errno == ENOMEM)) {
			/* Big (or no address space left for it): a window. */
			pd->windowed = true;
			pd->map_len = (size_t)st.st_size;
			posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
			rc = open_mapped(pd, err);
			if (rc < 0)
				goto fail;
			*out = pd;
			return 0;
		}
		if (m == MAP_FAILED) {
			rc = c2c_error_set(err, -errno, "%s: cannot map the file: %s", pd->path, strerror(errno));
			goto fail;
		}
		madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
		pd->map = m;
		pd->map_len = (size_t)st.st_size;
		pd->map_owned = true;
		rc = open_mapped(pd, err);
		if (rc < 0)
			goto fail;
		*out = pd;
		return 0;
	}
stream:
	pd->stream = true;
	pd->sbuf_cap = STREAM_BUF;
	pd->sbuf = malloc(pd->sbuf_cap);
	if (!pd->sbuf) {
		rc = c2c_error_set(err, -ENOMEM, "out of memory opening %s", pd->path);
		goto fail;
	}
	if (stream_fill(pd, 16) < 0) {
		size_t got = pd->sbuf_end - pd->sbuf_start;
		if (got >= 8 && memcmp(pd->sbuf, "PERFILE2", 8) != 0 && memcmp(pd->sbuf, "2ELIFREP", 8) != 0)
			rc = c2c_error_set(err, -EINVAL, "%s: not a perf.data file (bad magic)", pd->path);
		else
			rc = c2c_error_set(err, -EINVAL, "%s: truncated perf.data header (%zu bytes)", pd->path, got);
		goto fail;
	}
	if (memcmp(pd->sbuf, "PERFILE2", 8) == 0) {
		pd->swap = false;
	} else if (memcmp(pd->sbuf, "2ELIFREP", 8) == 0) {
		pd->swap = true;
	} else {
		rc = c2c_error_set(err, -EINVAL, "%s: not a perf.data file (bad magic)", pd->path);
		goto fail;
	}
	if (pd_u64(pd, pd->sbuf + 8) == PIPE_HEADER_SIZE) {
		pd->pipe = pd->hdr.pipe = true;
		pd->hdr.swapped = pd->swap;
		pd->sbuf_start += PIPE_HEADER_SIZE;
		pd->stream_off = PIPE_HEADER_SIZE;
		*out = pd;
		return 0;
	}
	rc = slurp_rest(pd, err);
	if (rc < 0)
		goto fail;
	rc = open_mapped(pd, err);
	if (rc < 0)
		goto fail;
	*out = pd;
	return 0;
fail:
	perfdata_close(pd);
	return rc;
}

int perfdata_open(struct perfdata **out, const char *path, struct c2c_error *err)
{
	int fd;

	*out = NULL;
	if (strcmp(path, "-") == 0) {
		fd = dup(STDIN_FILENO);
		if (fd < 0)
			return c2c_error_set(err, -errno, "cannot read standard input: %s", strerror(errno));
		return perfdata_open_fd(out, fd, "(stdin)", err);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return c2c_error_set(err, -errno, "cannot open %s: %s", path, strerror(errno));
	return perfdata_open_fd(out, fd, path, err);
}

/* ---- accessors ---- */

void perfdata_set_ordered(struct perfdata *pd, bool ordered)
{
	pd->ordered = ordered;
}

void perfdata_set_queue_limit(struct perfdata *pd, size_t records)
{
	pd->queue_limit = records > 2 ? records : 2;
}

const struct perfdata_header *perfdata_header(const struct perfdata *pd)
{
	return &pd->hdr;
}

const char *perfdata_path(const struct perfdata *pd)
{
	return pd->path;
}

size_t perfdata_nr_attrs(const struct perfdata *pd)
{
	return pd->nr_attrs;
}

const struct perf_attr_info *perfdata_attr(const struct perfdata *pd, size_t i)
{
	return i < pd->nr_attrs ? pd->attrs[i] : NULL;
}

const struct perfdata_stats *perfdata_stats(const struct perfdata *pd)
{
	return &pd->stats;
}

const char *perfdata_type_name(uint32_t type)
{
	static const char *const kernel[] = {
		[PERF_REC_MMAP] = "MMAP", [PERF_REC_LOST] = "LOST", [PERF_REC_COMM] = "COMM",
		[PERF_REC_EXIT] = "EXIT", [PERF_REC_THROTTLE] = "THROTTLE",
		[PERF_REC_UNTHROTTLE] = "UNTHROTTLE", [PERF_REC_FORK] = "FORK", [PERF_REC_READ] = "READ",
		[PERF_REC_SAMPLE] = "SAMPLE", [PERF_REC_MMAP2] = "MMAP2", [PERF_REC_AUX] = "AUX",
		[PERF_REC_ITRACE_START] = "ITRACE_START", [PERF_REC_LOST_SAMPLES] = "LOST_SAMPLES",
		[PERF_REC_SWITCH] = "SWITCH", [PERF_REC_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
		[PERF_REC_NAMESPACES] = "NAMESPACES", [PERF_REC_KSYMBOL] = "KSYMBOL",
		[PERF_REC_BPF_EVENT] = "BPF_EVENT", [PERF_REC_CGROUP] = "CGROUP",
		[PERF_REC_TEXT_POKE] = "TEXT_POKE", [PERF_REC_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
	};
	static const char *const user[] = {
		"ATTR", "EVENT_TYPE", "TRACING_DATA", "BUILD_ID", "FINISHED_ROUND", "ID_INDEX",
		"AUXTRACE_INFO", "AUXTRACE", "AUXTRACE_ERROR", "THREAD_MAP", "CPU_MAP",
		"STAT_CONFIG", "STAT", "STAT_ROUND", "EVENT_UPDATE", "TIME_CONV", "FEATURE",
		"COMPRESSED", "FINISHED_INIT",
	};
	if (type < sizeof(kernel) / sizeof(kernel[0]) && kernel[type])
		return kernel[type];
	if (type >= PERF_REC_USER_TYPE_START && type - PERF_REC_USER_TYPE_START < sizeof(user) / sizeof(user[0]))
		return user[type - PERF_REC_USER_TYPE_START];
	return "UNKNOWN";
}

const char *perfdata_feature_name(unsigned bit)
{
	static const char *const names[] = {
		NULL, "TRACING_DATA", "BUILD_ID", "HOSTNAME", "OSRELEASE", "VERSION", "ARCH",
		"NRCPUS", "CPUDESC", "CPUID", "TOTAL_MEM", "CMDLINE", "EVENT_DESC",
		"CPU_TOPOLOGY", "NUMA_TOPOLOGY", "BRANCH_STACK", "PMU_MAPPINGS", "GROUP_DESC",
		"AUXTRACE", "STAT", "CACHE", "SAMPLE_TIME", "MEM_TOPOLOGY", "CLOCKID",
		"DIR_FORMAT", "BPF_PROG_INFO", "BPF_BTF", "COMPRESSED", "CPU_PMU_CAPS",
		"CLOCK_DATA", "HYBRID_TOPOLOGY", "PMU_CAPS",
	};
	return bit < sizeof(names) / sizeof(names[0]) ? names[bit] : NULL;
}
