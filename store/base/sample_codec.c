/* PROVISIONAL stand-in until the real codec lands: rows copied as is. */
#include "store/base/sample_codec.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int sample_block_encode(const struct store_sample_rec *rows, size_t n, const unsigned char *raw,
			unsigned char **out, size_t *out_len)
{
	size_t rl = 0;
	for (size_t i = 0; i < n; i++)
		if (rows[i].present & (1u << STORE_SAMPLE_RAW_COL))
			rl = rows[i].raw_off + rows[i].raw_len > rl ? rows[i].raw_off + rows[i].raw_len : rl;
	size_t len = 16 + n * sizeof(*rows) + rl;
	unsigned char *p = malloc(len);
	if (!p)
		return -ENOMEM;
	uint64_t h[2] = { n, rl };
	memcpy(p, h, 16);
	memcpy(p + 16, rows, n * sizeof(*rows));
	if (rl)
		memcpy(p + 16 + n * sizeof(*rows), raw, rl);
	*out = p;
	*out_len = len;
	return 0;
}

int sample_block_decode(const void *data, size_t len, uint32_t cols, struct sample_block *b, const char **why)
{
	uint64_t h[2];
	(void)cols;
	if (len < 16) { *why = "short"; return -EINVAL; }
	memcpy(h, data, 16);
	if (h[0] > SAMPLE_BLOCK_MAX_ROWS || 16 + h[0] * sizeof(*b->rows) + h[1] != len) { *why = "bad"; return -EINVAL; }
	if (h[0] > b->cap) { free(b->rows); b->rows = malloc(h[0] * sizeof(*b->rows)); b->cap = h[0]; }
	if (h[1] + 1 > b->raw_cap) { free(b->raw); b->raw = malloc(h[1] + 1); b->raw_cap = h[1] + 1; }
	memcpy(b->rows, (const char *)data + 16, h[0] * sizeof(*b->rows));
	memcpy(b->raw, (const char *)data + 16 + h[0] * sizeof(*b->rows), h[1]);
	b->n = h[0];
	b->raw_len = h[1];
	return 0;
}

long sample_block_rows(const void *data, size_t len)
{
	uint64_t h[2];
	if (len < 16) return -EINVAL;
	memcpy(h, data, 16);
	return (long)h[0];
}

void sample_block_free(struct sample_block *b)
{
	free(b->rows);
	free(b->raw);
	memset(b, 0, sizeof(*b));
}
