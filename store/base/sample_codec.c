/* Column-wise block codec for sample rows (see sample_codec.h).
 *
 * Block format, version 2 (version 1 is version 2 without mode bit 5 and
 * is still read). Sessions store it: never change it; a new layout takes a
 * new version byte. All integers little-endian.
 *
 *   header (14 bytes)
 *     0  "C2SB"            magic
 *     4  u8  version       2 (or 1)
 *     5  u8  flags         bit 0: the body is zstd-compressed; other bits 0
 *     6  u32 rows          1 .. SAMPLE_BLOCK_MAX_ROWS
 *    10  u32 body_len      uncompressed body length, <= SAMPLE_BLOCK_MAX_BODY
 *   then flag clear: the body itself, exactly body_len bytes (nothing after);
 *        flag set:   exactly one zstd frame (nothing after) whose declared
 *                    content size is body_len and which decompresses to it.
 *
 *   body
 *     directory: for each of the 21 columns, in column order (time, event,
 *       cpu, node, pid, tid, cpumode, ip, site, addr, phys_addr, class_bits,
 *       weight, ins_lat, data_src, period, dsym, dsym_offset, callchain, raw,
 *       line_var): u32 offset, u32 length of its section in the body
 *       (168 bytes). The sections follow in column order and tile the rest
 *       of the body: the first starts at 168, each starts where the one
 *       before ends, the last ends at body_len, none is empty.
 *     section: u8 mode (bits 0-3; bit 4 PLAIN, integer columns with values
 *       only: values are zigzag(v) instead of deltas; bit 5 REL, version 2,
 *       phys_addr and dsym_offset only, when every row that has the value
 *       has an addr: the values coded are phys_addr - addr and
 *       addr - dsym_offset, modulo 2^64, which repeat for a page and a
 *       data symbol where the values themselves do not), then
 *       mode 0: nothing (every row NULL; the section is 1 byte)
 *       mode 1: every row present
 *       mode 2: a presence bitmap of (rows + 7) / 8 bytes (row i: byte i / 8,
 *               bit i % 8, least significant first; bits past the last row
 *               0; neither no row nor every row present: those are modes
 *               0 and 1)
 *       then the values of the present rows, in row order, ending exactly at
 *       the section's end:
 *       integer columns: LEB128 varint (7 bits a byte, low first, at most 10
 *         bytes, a 10th byte of 0 or 1) of zigzag(v - prev) where prev is the
 *         column's previous present value (0 for the first) and the
 *         subtraction is modulo 2^64; zigzag(d) = (d << 1) ^ (d >> 63);
 *         with PLAIN, zigzag(v) (prev always 0). The encoder takes deltas
 *         when they are much shorter (times, ids in order), else plain
 *         values, whose repeats (sites, lines, CPUs) zstd finds.
 *       raw (column 19): the payload lengths as varints (each <= 2^32 - 1),
 *         then the payloads concatenated: their total is exactly the rest of
 *         the section.
 *
 * The encoder compresses the body with zstd at level 1 and keeps
 * the body uncompressed when that does not make it smaller. */
#include "store/base/sample_codec.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define HDR_LEN 14
#define DIR_LEN (STORE_SAMPLE_COLS * 8)
#define FORMAT_VERSION 2
#define REL_BASE 9         /* addr: what REL columns are relative to */
#define REL_PHYS 10        /* phys_addr - addr */
#define REL_DOFF 17        /* addr - dsym_offset */
#define FLAG_ZSTD 1u
#define VARINT_MAX 10
#define ZSTD_LEVEL 1   /* level 3: ~3% smaller, ~20% slower to compress (test_sample_codec prints both) */

#define DECODE_CHUNK 128   /* rows decoded across all columns at a time (23 KiB of rows) */
#define SCRATCH_KEEP ((size_t)4 << 20)  /* a bigger body buffer is not kept */

#define MODE_NULL 0
#define MODE_ALL 1
#define MODE_BITMAP 2
#define MODE_MASK 0x0fu
#define MODE_PLAIN 0x10u   /* integer values without the delta */
#define MODE_REL 0x20u     /* relative to addr (version 2: REL_PHYS, REL_DOFF) */

static void put_u32(unsigned char *p, uint32_t x)
{
	p[0] = (unsigned char)x;
	p[1] = (unsigned char)(x >> 8);
	p[2] = (unsigned char)(x >> 16);
	p[3] = (unsigned char)(x >> 24);
}

static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline unsigned char *put_varint(unsigned char *p, uint64_t x)
{
	while (x >= 0x80) {
		*p++ = (unsigned char)(x | 0x80);
		x >>= 7;
	}
	*p++ = (unsigned char)x;
	return p;
}

/* A varint at p, ending before end: the byte after it, or NULL when it
 * runs past end, is longer than 10 bytes or overflows 64 bits. */
static inline const unsigned char *get_varint(const unsigned char *p, const unsigned char *end, uint64_t *out)
{
	size_t avail = (size_t)(end - p), max = avail < VARINT_MAX ? avail : VARINT_MAX;
	uint64_t x = 0;

	for (size_t k = 0; k < max; k++) {
		unsigned c = p[k];
		x |= (uint64_t)(c & 0x7f) << (7 * k);
		if (!(c & 0x80)) {
			if (k == VARINT_MAX - 1 && c > 1)
				return NULL;
			*out = x;
			return p + k + 1;
		}
	}
	return NULL;
}

static inline size_t varint_len(uint64_t x)
{
	return x ? (size_t)(63 - __builtin_clzll(x)) / 7 + 1 : 1;
}

static inline uint64_t zigzag(uint64_t d)
{
	return (d << 1) ^ (0 - (d >> 63));
}

static inline uint64_t unzigzag(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

/* uint64 -> int64 modulo 2^64 without implementation-defined conversion. */
static inline int64_t u2i(uint64_t x)
{
	return x <= (uint64_t)INT64_MAX ? (int64_t)x : -(int64_t)(~x) - 1;
}

/* The encoder's body buffer and the zstd contexts, kept from call to call
 * in one spare slot: a fresh malloc of them each block cost more than the
 * encoding (page faults as the heap grows and is trimmed again). A thread
 * takes the spare (or makes its own) and puts it back when done. */
struct codec_scratch {
	unsigned char *body;
	size_t cap;
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
};
static _Atomic(struct codec_scratch *) spare_scratch;

static struct codec_scratch *scratch_get(void)
{
	struct codec_scratch *s = atomic_exchange(&spare_scratch, NULL);
	return s ? s : calloc(1, sizeof(*s));
}

static void scratch_put(struct codec_scratch *s)
{
	if (s->cap > SCRATCH_KEEP) {
		free(s->body);
		s->body = NULL;
		s->cap = 0;
	}
	s = atomic_exchange(&spare_scratch, s);
	if (s) {
		free(s->body);
		ZSTD_freeCCtx(s->cctx);
		ZSTD_freeDCtx(s->dctx);
		free(s);
	}
}

/* Encodes column c of rows[0..n) at p (room enough): the byte after it. */
static unsigned char *encode_column(const struct store_sample_rec *rows, size_t n, const unsigned char *raw,
				    unsigned c, unsigned char *p)
{
	const uint32_t bit = 1u << c;
	unsigned char *mode_at = p;
	size_t npresent = 0;

	for (size_t i = 0; i < n; i++)
		npresent += (rows[i].present & bit) != 0;
	if (npresent == 0) {
		*p++ = MODE_NULL;
		return p;
	}
	if (npresent == n) {
		*p++ = MODE_ALL;
	} else {
		size_t nb = (n + 7) / 8;
		*p++ = MODE_BITMAP;
		memset(p, 0, nb);
		for (size_t i = 0; i < n; i++)
			if (rows[i].present & bit)
				p[i >> 3] |= (unsigned char)(1u << (i & 7));
		p += nb;
	}
	if (c == STORE_SAMPLE_RAW_COL) {
		for (size_t i = 0; i < n; i++)
			if (rows[i].present & bit)
				p = put_varint(p, rows[i].raw_len);
		for (size_t i = 0; i < n; i++)
			if ((rows[i].present & bit) && rows[i].raw_len) {
				memcpy(p, raw + rows[i].raw_off, rows[i].raw_len);
				p += rows[i].raw_len;
			}
		return p;
	}
	/* relative to addr when every row with a value has one */
	bool rel = c == REL_PHYS || c == REL_DOFF;
	for (size_t i = 0; rel && i < n; i++)
		if ((rows[i].present & bit) && !(rows[i].present & (1u << REL_BASE)))
			rel = false;
	if (rel)
		*mode_at |= MODE_REL;
#define VALUE(r) (!rel ? (uint64_t)(r).v[c] : c == REL_PHYS ? (uint64_t)(r).v[c] - (uint64_t)(r).v[REL_BASE] \
						     : (uint64_t)(r).v[REL_BASE] - (uint64_t)(r).v[c])
	/* deltas only when their varints are a quarter shorter */
	uint64_t prev = 0;
	size_t dbytes = 0, pbytes = 0;
	for (size_t i = 0; i < n; i++) {
		if (!(rows[i].present & bit))
			continue;
		uint64_t v = VALUE(rows[i]);
		dbytes += varint_len(zigzag(v - prev));
		pbytes += varint_len(zigzag(v));
		prev = v;
	}
	const uint64_t keep = dbytes * 4 < pbytes * 3 ? 1 : 0;  /* 1: delta */
	if (!keep)
		*mode_at |= MODE_PLAIN;
	prev = 0;
	for (size_t i = 0; i < n; i++) {
		if (!(rows[i].present & bit))
			continue;
		uint64_t v = VALUE(rows[i]);
		p = put_varint(p, zigzag(v - prev));
		prev = v & (0 - keep);
	}
#undef VALUE
	return p;
}

int sample_block_encode(const struct store_sample_rec *rows, size_t n, const unsigned char *raw,
			unsigned char **out, size_t *out_len)
{
	const uint32_t rawbit = 1u << STORE_SAMPLE_RAW_COL;
	uint64_t rawsum = 0;
	size_t bound, body_len, z, total;
	unsigned char *body, *buf, *p;
	struct codec_scratch *sc;
	unsigned flags = 0;

	*out = NULL;
	*out_len = 0;
	if (!rows || n == 0 || n > SAMPLE_BLOCK_MAX_ROWS)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (rows[i].present & rawbit) {
			if (rows[i].raw_len && !raw)
				return -EINVAL;
			rawsum += rows[i].raw_len;
		}
	if (rawsum > SAMPLE_BLOCK_MAX_BODY)
		return -EINVAL;
	/* every column: mode, bitmap, 10 bytes a value (raw: 5 a length) */
	bound = DIR_LEN + STORE_SAMPLE_COLS * (1 + (n + 7) / 8) + (STORE_SAMPLE_COLS - 1) * n * VARINT_MAX
		+ n * 5 + (size_t)rawsum;
	sc = scratch_get();
	if (!sc)
		return -ENOMEM;
	if (sc->cap < bound) {
		free(sc->body);
		sc->cap = 0;
		sc->body = malloc(bound);
		if (!sc->body) {
			scratch_put(sc);
			return -ENOMEM;
		}
		sc->cap = bound;
	}
	body = sc->body;
	p = body + DIR_LEN;
	for (unsigned c = 0; c < STORE_SAMPLE_COLS; c++) {
		unsigned char *start = p;
		p = encode_column(rows, n, raw, c, p);
		put_u32(body + 8 * c, (uint32_t)(start - body));
		put_u32(body + 8 * c + 4, (uint32_t)(p - start));
	}
	body_len = (size_t)(p - body);
	if (body_len > SAMPLE_BLOCK_MAX_BODY) {
		scratch_put(sc);
		return -EINVAL;
	}
	/* compressed only when smaller: room for body_len - 1 bytes */
	buf = malloc(HDR_LEN + body_len);
	if (!sc->cctx)
		sc->cctx = ZSTD_createCCtx();
	if (!buf || !sc->cctx) {
		free(buf);
		scratch_put(sc);
		return -ENOMEM;
	}
	z = ZSTD_compressCCtx(sc->cctx, buf + HDR_LEN, body_len - 1, body, body_len, ZSTD_LEVEL);
	if (!ZSTD_isError(z) && z < body_len) {
		flags |= FLAG_ZSTD;
		total = HDR_LEN + z;
	} else {
		memcpy(buf + HDR_LEN, body, body_len);
		total = HDR_LEN + body_len;
	}
	scratch_put(sc);
	memcpy(buf, "C2SB", 4);
	buf[4] = FORMAT_VERSION;
	buf[5] = (unsigned char)flags;
	put_u32(buf + 6, (uint32_t)n);
	put_u32(buf + 10, (uint32_t)body_len);
	p = realloc(buf, total);
	*out = p ? p : buf;
	*out_len = total;
	return 0;
}

/* The header's row count, flags and body length; NULL or why not. */
static const char *parse_header(const unsigned char *d, size_t len, size_t *n, unsigned *flags, size_t *body_len,
				unsigned *version)
{
	if (!d || len < HDR_LEN)
		return "block truncated";
	if (memcmp(d, "C2SB", 4) != 0)
		return "bad magic";
	if (d[4] != 1 && d[4] != FORMAT_VERSION)
		return "unsupported block version";
	*version = d[4];
	if (d[5] & ~FLAG_ZSTD)
		return "unknown block flags";
	*flags = d[5];
	*n = get_u32(d + 6);
	*body_len = get_u32(d + 10);
	if (*n == 0 || *n > SAMPLE_BLOCK_MAX_ROWS)
		return "bad row count";
	if (*body_len > SAMPLE_BLOCK_MAX_BODY)
		return "body too large";
	if (*body_len < DIR_LEN + STORE_SAMPLE_COLS)
		return "block truncated";
	return NULL;
}

long sample_block_rows(const void *data, size_t len)
{
	size_t n, body_len;
	unsigned flags, version;

	if (parse_header(data, len, &n, &flags, &body_len, &version))
		return -EINVAL;
	return (long)n;
}

/* p (capacity *cap elements of size) grown to want elements: the new
 * pointer, or NULL when out of memory (p unchanged). */
static void *grow(void *p, size_t *cap, size_t want, size_t size)
{
	void *q;

	if (want <= *cap)
		return p;
	q = realloc(p, want * size);
	if (q)
		*cap = want;
	return q;
}

/* A section's presence: its mode, bitmap (mode 2), present count and where
 * its values start. NULL or why not. */
static const char *section_presence(const unsigned char *s, size_t slen, size_t n, unsigned *mode,
				    const unsigned char **bmp, size_t *npresent, const unsigned char **vals)
{
	size_t nb = (n + 7) / 8, pop = 0;

	*mode = s[0] & MODE_MASK;
	*bmp = NULL;
	if ((s[0] & ~(MODE_MASK | MODE_PLAIN | MODE_REL)) || ((s[0] & (MODE_PLAIN | MODE_REL)) && *mode == MODE_NULL))
		return "bad column mode";
	switch (*mode) {
	case MODE_NULL:
		*npresent = 0;
		*vals = s + 1;
		return slen == 1 ? NULL : "trailing bytes in column";
	case MODE_ALL:
		*npresent = n;
		*vals = s + 1;
		return slen - 1 >= n ? NULL : "column truncated";   /* a byte a value at least */
	case MODE_BITMAP: {
		size_t k = 0;
		if (slen - 1 < nb)
			return "column truncated";
		*bmp = s + 1;
		for (; k + 8 <= nb; k += 8) {
			uint64_t w;
			memcpy(&w, s + 1 + k, 8);
			pop += (size_t)__builtin_popcountll(w);
		}
		for (; k < nb; k++)
			pop += (size_t)__builtin_popcount(s[1 + k]);
		if ((n & 7) && (s[nb] >> (n & 7)))
			return "bad presence bitmap";
		if (pop == 0 || pop == n)
			return "bad presence bitmap";
		*npresent = pop;
		*vals = s + 1 + nb;
		return slen - 1 - nb >= pop ? NULL : "column truncated";
	}
	default:
		return "bad column mode";
	}
}

/* A varint of at most 8 bytes from the 8 bytes at p, without a branch on
 * its length: its value, *len its length; *len 0 when it is longer. */
static inline uint64_t varint8(const unsigned char *p, unsigned *len)
{
	uint64_t w = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
		     (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
	uint64_t stop = ~w & 0x8080808080808080ull;
	unsigned s;

	if (!stop) {
		*len = 0;
		return 0;
	}
	s = (unsigned)__builtin_ctzll(stop);           /* 8 k + 7: byte k ends it */
	w &= (2ull << s) - 1;
	*len = (s >> 3) + 1;
	return (w & 0x7f) | ((w >> 1) & 0x3f80) | ((w >> 2) & 0x1fc000) | ((w >> 3) & 0xfe00000) |
	       ((w >> 4) & 0x7f0000000ull) | ((w >> 5) & 0x3f800000000ull) | ((w >> 6) & 0x1fc0000000000ull) |
	       ((w >> 7) & 0xfe000000000000ull);
}

/* Decodes the varint at p into x, or fails the decode. */
#define VARINT(p, e, x) do { \
	unsigned l_ = 0; \
	if ((e) - (p) >= 8) \
		(x) = varint8((p), &l_); \
	if (l_) { \
		(p) += l_; \
	} else { \
		(p) = get_varint((p), (e), &(x)); \
		if (!(p)) \
			return "bad varint"; \
	} \
} while (0)

/* Where the decode of an integer column is. */
struct col_cursor {
	const unsigned char *p, *e, *bmp;
	uint64_t prev;
	uint64_t keep;               /* ~0: deltas; 0: plain values */
	unsigned mode, c;
};

/* Decodes rows [i0, i1) of the cursor's column into rows. */
static const char *decode_int_rows(struct col_cursor *k, struct store_sample_rec *rows, size_t i0, size_t i1)
{
	const unsigned char *p = k->p, *e = k->e, *bmp = k->bmp;
	const unsigned c = k->c;
	const uint64_t keep = k->keep;
	uint64_t prev = k->prev, x;

	if (k->mode == MODE_ALL) {
		for (size_t i = i0; i < i1; i++) {
			VARINT(p, e, x);
			prev = (prev & keep) + unzigzag(x);
			rows[i].v[c] = u2i(prev);
		}
	} else {
		const uint32_t bit = 1u << c;
		for (size_t i = i0; i < i1; i++) {
			if (!(bmp[i >> 3] & (1u << (i & 7))))
				continue;
			VARINT(p, e, x);
			prev = (prev & keep) + unzigzag(x);
			rows[i].v[c] = u2i(prev);
			rows[i].present |= bit;
		}
	}
	k->p = p;
	k->prev = prev;
	return NULL;
}

/* Decodes the raw column's lengths into rows[0..n): *pay and *paylen the
 * payloads (inside the section). */
static const char *decode_raw_lengths(const unsigned char *s, size_t slen, size_t n, struct store_sample_rec *rows,
				      const unsigned char **pay, size_t *paylen)
{
	const uint32_t bit = 1u << STORE_SAMPLE_RAW_COL;
	const unsigned char *bmp, *p, *e = s + slen;
	unsigned mode;
	size_t npresent, sum = 0;
	const char *why = section_presence(s, slen, n, &mode, &bmp, &npresent, &p);
	uint64_t x;

	*pay = NULL;
	*paylen = 0;
	if (why)
		return why;
	if (s[0] & (MODE_PLAIN | MODE_REL))
		return "bad column mode";
	if (mode == MODE_NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (mode == MODE_BITMAP && !(bmp[i >> 3] & (1u << (i & 7))))
			continue;
		VARINT(p, e, x);
		/* what follows holds at least this payload */
		if (sum > (size_t)(e - p) || x > (size_t)(e - p) - sum)
			return "raw lengths exceed column";
		rows[i].raw_len = (uint32_t)x;
		rows[i].raw_off = sum;
		rows[i].present |= bit;
		sum += (size_t)x;
	}
	if (sum != (size_t)(e - p))
		return "trailing bytes in column";
	*pay = p;
	*paylen = sum;
	return NULL;
}

/* The REL columns' values of rows [i0, i1) from their codes and addr;
 * addr itself goes again when it was decoded only for them. */
static const char *undo_rel(struct store_sample_rec *rows, size_t i0, size_t i1, uint32_t rel, uint32_t cols)
{
	const uint32_t base = 1u << REL_BASE, phys = 1u << REL_PHYS, doff = 1u << REL_DOFF;

	for (size_t i = i0; i < i1; i++) {
		struct store_sample_rec *r = &rows[i];
		uint64_t a = (uint64_t)r->v[REL_BASE];
		if ((r->present & rel) && !(r->present & base))
			return "relative column without addr";
		if ((rel & phys) && (r->present & phys))
			r->v[REL_PHYS] = u2i((uint64_t)r->v[REL_PHYS] + a);
		if ((rel & doff) && (r->present & doff))
			r->v[REL_DOFF] = u2i(a - (uint64_t)r->v[REL_DOFF]);
		if (!(cols & base)) {
			r->present &= ~base;
			r->v[REL_BASE] = 0;
		}
	}
	return NULL;
}

static int decode_fail(struct sample_block *b, const char **why, const char *reason)
{
	b->n = 0;
	b->raw_len = 0;
	*why = reason;
	return -EINVAL;
}

int sample_block_decode(const void *data, size_t len, uint32_t cols, struct sample_block *b, const char **why)
{
	const unsigned char *d = data, *body;
	const char *dummy, *r;
	size_t n, body_len, off[STORE_SAMPLE_COLS], slen[STORE_SAMPLE_COLS], at = DIR_LEN, ncur = 0;
	struct col_cursor cur[STORE_SAMPLE_COLS];
	unsigned flags, version;
	uint32_t all = 0, rel = 0, want = cols;

	if (!why)
		why = &dummy;
	*why = NULL;
	b->n = 0;
	b->raw_len = 0;
	r = parse_header(d, len, &n, &flags, &body_len, &version);
	if (r)
		return decode_fail(b, why, r);
	if (flags & FLAG_ZSTD) {
		const unsigned char *src = d + HDR_LEN;
		size_t srclen = len - HDR_LEN, fs = ZSTD_findFrameCompressedSize(src, srclen), got;
		if (ZSTD_isError(fs))
			return decode_fail(b, why, "compressed body damaged");
		if (fs != srclen)
			return decode_fail(b, why, "trailing bytes after body");
		if (ZSTD_getFrameContentSize(src, srclen) != (unsigned long long)body_len)
			return decode_fail(b, why, "body length mismatch");
		unsigned char *buf = grow(b->raw, &b->raw_cap, body_len, 1);
		if (!buf)
			return -ENOMEM;
		b->raw = buf;
		struct codec_scratch *sc = scratch_get();
		if (sc && !sc->dctx)
			sc->dctx = ZSTD_createDCtx();
		if (!sc || !sc->dctx) {
			if (sc)
				scratch_put(sc);
			return -ENOMEM;
		}
		got = ZSTD_decompressDCtx(sc->dctx, b->raw, body_len, src, srclen);
		scratch_put(sc);
		if (ZSTD_isError(got) || got != body_len)
			return decode_fail(b, why, "compressed body damaged");
		body = b->raw;
	} else {
		if (len - HDR_LEN < body_len)
			return decode_fail(b, why, "block truncated");
		if (len - HDR_LEN > body_len)
			return decode_fail(b, why, "trailing bytes after body");
		body = d + HDR_LEN;
	}
	for (unsigned c = 0; c < STORE_SAMPLE_COLS; c++) {
		off[c] = get_u32(body + 8 * c);
		slen[c] = get_u32(body + 8 * c + 4);
		if (off[c] != at || slen[c] == 0 || slen[c] > body_len - at)
			return decode_fail(b, why, "bad column directory");
		at += slen[c];
	}
	if (at != body_len)
		return decode_fail(b, why, "bad column directory");
	struct store_sample_rec *rows = grow(b->rows, &b->cap, n, sizeof(*b->rows));
	if (!rows)
		return -ENOMEM;
	b->rows = rows;
	/* a wanted column relative to addr needs addr decoded too */
	for (unsigned c = REL_PHYS; c <= REL_DOFF; c += REL_DOFF - REL_PHYS)
		if ((cols & (1u << c)) && (body[off[c]] & MODE_REL)) {
			if (version < 2)
				return decode_fail(b, why, "bad column mode");
			rel |= 1u << c;
			want |= 1u << REL_BASE;
		}
	for (unsigned c = 0; c < STORE_SAMPLE_COLS; c++) {
		struct col_cursor *k = &cur[ncur];
		size_t npresent;
		if (c == STORE_SAMPLE_RAW_COL || !(want & (1u << c)))
			continue;
		if ((body[off[c]] & MODE_REL) && ((c != REL_PHYS && c != REL_DOFF) || version < 2))
			return decode_fail(b, why, "bad column mode");
		r = section_presence(body + off[c], slen[c], n, &k->mode, &k->bmp, &npresent, &k->p);
		if (r)
			return decode_fail(b, why, r);
		if (k->mode == MODE_NULL)
			continue;
		if (k->mode == MODE_ALL)
			all |= 1u << c;
		k->e = body + off[c] + slen[c];
		k->prev = 0;
		k->keep = (body[off[c]] & MODE_PLAIN) ? 0 : ~(uint64_t)0;
		k->c = c;
		ncur++;
	}
	/* a chunk of rows at a time, all its columns, while it is in cache */
	for (size_t i0 = 0; i0 < n; i0 += DECODE_CHUNK) {
		size_t i1 = n - i0 < DECODE_CHUNK ? n : i0 + DECODE_CHUNK;
		memset(b->rows + i0, 0, (i1 - i0) * sizeof(*b->rows));
		for (size_t j = 0; j < ncur; j++) {
			r = decode_int_rows(&cur[j], b->rows, i0, i1);
			if (r)
				return decode_fail(b, why, r);
		}
		if (all)
			for (size_t i = i0; i < i1; i++)
				b->rows[i].present |= all;
		if (rel && (r = undo_rel(b->rows, i0, i1, rel, cols)))
			return decode_fail(b, why, r);
	}
	for (size_t j = 0; j < ncur; j++)
		if (cur[j].p != cur[j].e)
			return decode_fail(b, why, "trailing bytes in column");
	if (cols & (1u << STORE_SAMPLE_RAW_COL)) {
		const unsigned char *pay;
		size_t paylen;
		r = decode_raw_lengths(body + off[STORE_SAMPLE_RAW_COL], slen[STORE_SAMPLE_RAW_COL], n, b->rows,
				       &pay, &paylen);
		if (r)
			return decode_fail(b, why, r);
		if (body == b->raw && paylen) {
			/* the payloads move to the front of the body, all of
			 * which but themselves has been decoded */
			memmove(b->raw, pay, paylen);
		} else if (paylen) {
			unsigned char *buf = grow(b->raw, &b->raw_cap, paylen, 1);
			if (!buf)
				return -ENOMEM;
			b->raw = buf;
			memcpy(b->raw, pay, paylen);
		}
		b->raw_len = paylen;
	}
	b->n = n;
	return 0;
}

void sample_block_free(struct sample_block *b)
{
	if (!b)
		return;
	free(b->rows);
	free(b->raw);
	*b = (struct sample_block){ 0 };
}
