/* PROVISIONAL: replaced by the codec helper's header (same API). */
#ifndef C2C_STORE_SAMPLE_CODEC_H
#define C2C_STORE_SAMPLE_CODEC_H

#include <stddef.h>
#include <stdint.h>

#define STORE_SAMPLE_COLS 21
#define STORE_SAMPLE_RAW_COL 19

struct store_sample_rec {
	int64_t v[STORE_SAMPLE_COLS];
	uint32_t present;
	uint32_t raw_len;
	size_t raw_off;
};

struct sample_block {
	struct store_sample_rec *rows;
	size_t n, cap;
	unsigned char *raw;
	size_t raw_len, raw_cap;
};

int sample_block_encode(const struct store_sample_rec *rows, size_t n, const unsigned char *raw,
			unsigned char **out, size_t *out_len);
int sample_block_decode(const void *data, size_t len, uint32_t cols, struct sample_block *b, const char **why);
long sample_block_rows(const void *data, size_t len);
void sample_block_free(struct sample_block *b);
#define SAMPLE_BLOCK_MAX_ROWS 65536

#endif
