/* Column-wise block codec for sample rows (store/base/sample_codec.c): a
 * block of up to SAMPLE_BLOCK_MAX_ROWS samples, column by column, delta +
 * varint coded and zstd-compressed; the format is described at the top of
 * the .c and is stored in sessions (sample_blocks), so it never changes
 * without a new version byte. Pure code: no SQLite; thread-safe (one spare
 * scratch, the zstd contexts and a body buffer, is kept between calls). */
#ifndef C2C_STORE_SAMPLE_CODEC_H
#define C2C_STORE_SAMPLE_CODEC_H

#include <stddef.h>
#include <stdint.h>

#define STORE_SAMPLE_COLS 21      /* time, event, cpu, node, pid, tid, cpumode, ip, site, addr, phys_addr,
                                     class_bits, weight, ins_lat, data_src, period, dsym, dsym_offset,
                                     callchain, raw, line_var */
#define STORE_SAMPLE_RAW_COL 19   /* the one BLOB column (raw payload); the others are int64 */

struct store_sample_rec {
	int64_t v[STORE_SAMPLE_COLS];
	uint32_t present;            /* bit i: column i has a value (else NULL) */
	uint32_t raw_len;            /* column 19: payload length (present bit set, len may be 0 = empty blob) */
	size_t raw_off;              /* column 19: payload offset in the raw buffer */
};

/* A decoded block: rows, their raw payloads in raw (rows[i].raw_off/raw_len). The arrays are reused
 * and grown by each decode. */
struct sample_block {
	struct store_sample_rec *rows;
	size_t n, cap;
	unsigned char *raw;
	size_t raw_len, raw_cap;
};

/* Encodes rows[0..n) (payloads at raw + rows[i].raw_off) as one block: *out is malloc'd, *out_len its size.
 * 0, or -ENOMEM / -EINVAL (n == 0 or n > SAMPLE_BLOCK_MAX_ROWS; also a body over SAMPLE_BLOCK_MAX_BODY,
 * i.e. payloads too large, or a present payload with raw NULL). Present bits above column 20 are ignored. */
int sample_block_encode(const struct store_sample_rec *rows, size_t n, const unsigned char *raw,
			unsigned char **out, size_t *out_len);
/* Decodes a block into b. cols: bit mask of the columns wanted (UINT32_MAX: all); columns not wanted are
 * left absent (present bit clear) and cost no decoding work beyond the decompression. 0, or -ENOMEM, or
 * -EINVAL with *why set to a short static reason ("block truncated", "bad column mode", ...) for damaged or
 * hostile input. Never reads outside data, never allocates more than the limits allow.
 * An absent value (NULL or not wanted) has v[i] == 0; rows without a payload have raw_len == raw_off == 0.
 * b->raw holds exactly the payloads (b->raw_len their total); data must not point into b->raw.
 * On error b->n is 0. */
int sample_block_decode(const void *data, size_t len, uint32_t cols, struct sample_block *b, const char **why);
/* The row count a block says it holds (header only), or -EINVAL. */
long sample_block_rows(const void *data, size_t len);
void sample_block_free(struct sample_block *b);
#define SAMPLE_BLOCK_MAX_ROWS 65536
#define SAMPLE_BLOCK_MAX_BODY ((size_t)64 << 20)  /* uncompressed body cap, bytes */

#endif /* C2C_STORE_SAMPLE_CODEC_H */
