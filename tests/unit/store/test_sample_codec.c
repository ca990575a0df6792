/* The sample block codec (store/base/sample_codec.c): blocks round-trip
 * every value, presence bit and payload byte, extremes included; a column
 * mask decodes only those columns; damaged or hostile blocks are refused
 * with a reason and never read or allocate out of bounds; a c2c-shaped
 * block stays small, and its encode/decode times are printed. */
#include "tests/unit/test.h"

#include "store/base/sample_codec.h"

#include <errno.h>
#include <time.h>
#include <zstd.h>

enum {
	C_TIME, C_EVENT, C_CPU, C_NODE, C_PID, C_TID, C_CPUMODE, C_IP, C_SITE, C_ADDR, C_PHYS,
	C_CLASS, C_WEIGHT, C_INS_LAT, C_DATA_SRC, C_PERIOD, C_DSYM, C_DSYM_OFF, C_CALLCHAIN, C_RAW, C_LINE_VAR,
};
#define BIT(c) (1u << (c))
#define ALL_COLS ((1u << STORE_SAMPLE_COLS) - 1)

static uint64_t rng_state;

static void rng_seed(uint64_t s)
{
	rng_state = s * 0x9e3779b97f4a7c15ull + 1;
}

static uint64_t rng(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static double rng01(void)
{
	return (double)(rng() >> 11) / 9007199254740992.0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);   /* CPU time: the machine may be shared */
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void set(struct store_sample_rec *r, int c, int64_t v)
{
	r->v[c] = v;
	r->present |= BIT(c);
}

/* Realistic rows: times increasing, 16 cpus, a few pids, random 64-bit
 * addresses, phys_addr, ins_lat and period absent everywhere, several
 * columns NULL in a mix of rows, payloads of 0..299 bytes, empty or absent.
 * *raw is malloc'd. */
static struct store_sample_rec *gen_mixed(size_t n, unsigned char **raw, size_t *raw_len)
{
	struct store_sample_rec *rows = calloc(n, sizeof(*rows));
	unsigned char *buf = malloc(n * 300 + 1);
	size_t off = 0;
	int64_t t = 1000000;

	if (!rows || !buf) {
		free(rows);
		free(buf);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		struct store_sample_rec *r = &rows[i];
		t += (int64_t)(rng() % 5000);
		set(r, C_TIME, t);
		set(r, C_EVENT, (int64_t)(rng() % 3));
		if (rng() % 50)
			set(r, C_CPU, (int64_t)(rng() % 16));
		set(r, C_NODE, r->present & BIT(C_CPU) ? r->v[C_CPU] / 8 : -1);
		set(r, C_PID, rng() % 4 ? 1234 : -1);
		set(r, C_TID, 1234 + (int64_t)(rng() % 30));
		set(r, C_CPUMODE, (int64_t)(rng() % 3));
		set(r, C_IP, (int64_t)rng());
		if (rng() % 3)
			set(r, C_SITE, 1 + (int64_t)(rng() % 500));
		set(r, C_ADDR, (int64_t)rng());
		set(r, C_CLASS, (int64_t)(rng() % 256));
		if (rng() % 2)
			set(r, C_WEIGHT, (int64_t)(rng() % 2000));
		set(r, C_DATA_SRC, (int64_t)(rng() & 0xffffffffffull));
		if (rng() % 5) {
			set(r, C_DSYM, 1 + (int64_t)(rng() % 100));
			set(r, C_DSYM_OFF, (int64_t)(rng() % 100000) - 50);
		}
		if (rng() % 7)
			set(r, C_CALLCHAIN, (int64_t)(rng() % 3000));
		switch (rng() % 4) {
		case 0:
			break;                       /* absent */
		case 1:
			r->present |= BIT(C_RAW);    /* empty blob */
			r->raw_len = 0;
			r->raw_off = off;
			break;
		default:
			r->present |= BIT(C_RAW);
			r->raw_len = (uint32_t)(rng() % 300);
			r->raw_off = off;
			for (uint32_t k = 0; k < r->raw_len; k++)
				buf[off++] = (unsigned char)rng();
		}
		if (rng() % 10 == 0)
			set(r, C_LINE_VAR, (int64_t)(rng() % 4));
	}
	*raw = buf;
	*raw_len = off;
	return rows;
}

/* 0 when b holds rows[0..n) restricted to cols (other columns absent and
 * 0), else 1 with the first difference printed. */
static int rows_differ(const struct store_sample_rec *rows, size_t n, const unsigned char *raw,
		       const struct sample_block *b, uint32_t cols)
{
	if (b->n != n) {
		printf("# %zu rows decoded, %zu encoded\n", b->n, n);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct store_sample_rec *a = &rows[i], *d = &b->rows[i];
		uint32_t want = a->present & cols & ALL_COLS;
		if (d->present != want) {
			printf("# row %zu: present %#x, want %#x\n", i, (unsigned)d->present, (unsigned)want);
			return 1;
		}
		for (int c = 0; c < STORE_SAMPLE_COLS; c++) {
			int64_t v = c != C_RAW && (want & BIT(c)) ? a->v[c] : 0;
			if (d->v[c] != v) {
				printf("# row %zu column %d: %" PRId64 ", want %" PRId64 "\n", i, c, d->v[c], v);
				return 1;
			}
		}
		if (!(want & BIT(C_RAW))) {
			if (d->raw_len || d->raw_off) {
				printf("# row %zu: payload without the raw column\n", i);
				return 1;
			}
			continue;
		}
		if (d->raw_len != a->raw_len || d->raw_off > b->raw_len || d->raw_len > b->raw_len - d->raw_off ||
		    (a->raw_len && memcmp(b->raw + d->raw_off, raw + a->raw_off, a->raw_len) != 0)) {
			printf("# row %zu: payload differs\n", i);
			return 1;
		}
	}
	return 0;
}

static void test_round_trip(void)
{
	static const size_t sizes[] = { 4096, 1001, 9 };
	struct sample_block b = { 0 };
	const char *why = NULL;

	rng_seed(1);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		unsigned char *raw = NULL, *blk = NULL;
		size_t raw_len = 0, blk_len = 0, n = sizes[k];
		struct store_sample_rec *rows = gen_mixed(n, &raw, &raw_len);
		CHECK(rows);
		CHECK(sample_block_encode(rows, n, raw, &blk, &blk_len) == 0);
		CHECK(blk && blk_len > 14);
		CHECK(sample_block_rows(blk, blk_len) == (long)n);
		/* twice: the second decode reuses (and the smaller blocks
		 * shrink into) the arrays of the first */
		for (int rep = 0; rep < 2; rep++) {
			CHECK(sample_block_decode(blk, blk_len, UINT32_MAX, &b, &why) == 0);
			CHECK(!rows_differ(rows, n, raw, &b, UINT32_MAX));
		}
		free(blk);
		free(rows);
		free(raw);
	}
	sample_block_free(&b);
	CHECK(!b.rows && !b.raw && !b.n);
}

/* Every column present in every row with random 64-bit values (one
 * alternating the extremes), a one-byte payload in every other row. */
static struct store_sample_rec *gen_extreme(size_t n, unsigned char **raw)
{
	static const int64_t ext[] = { INT64_MIN, INT64_MAX, 0, -1 };
	struct store_sample_rec *rows = calloc(n, sizeof(*rows));
	unsigned char *buf = malloc(n);

	if (!rows || !buf) {
		free(rows);
		free(buf);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		for (int c = 0; c < STORE_SAMPLE_COLS; c++)
			if (c != C_RAW)
				set(&rows[i], c, (int64_t)rng());
		rows[i].v[C_TIME] = ext[i % 4];
		rows[i].v[C_IP] = ext[(i / 3) % 4];
		if (rng() % 2)
			rows[i].v[C_ADDR] = rng() % 2 ? INT64_MIN : INT64_MAX;
		if (i % 2) {
			rows[i].present |= BIT(C_RAW);
			rows[i].raw_len = 1;
			rows[i].raw_off = i;
		} else {
			rows[i].present &= ~BIT(C_ADDR);   /* a bitmap column of extremes */
			rows[i].v[C_ADDR] = 0;
		}
		buf[i] = (unsigned char)i;
	}
	*raw = buf;
	return rows;
}

static void test_extremes(void)
{
	static const size_t sizes[] = { 1, 2, 7, 8, SAMPLE_BLOCK_MAX_ROWS };
	struct sample_block b = { 0 };
	unsigned char *blk = NULL;
	size_t blk_len = 0;
	const char *why = NULL;

	rng_seed(2);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		unsigned char *raw = NULL;
		size_t n = sizes[k];
		struct store_sample_rec *rows = gen_extreme(n, &raw);
		CHECK(rows);
		CHECK(sample_block_encode(rows, n, raw, &blk, &blk_len) == 0);
		CHECK(sample_block_rows(blk, blk_len) == (long)n);
		CHECK(sample_block_decode(blk, blk_len, UINT32_MAX, &b, &why) == 0);
		CHECK(!rows_differ(rows, n, raw, &b, UINT32_MAX));
		free(blk);
		/* n = 0 and n > max are refused */
		if (n == SAMPLE_BLOCK_MAX_ROWS) {
			struct store_sample_rec *more = realloc(rows, (n + 1) * sizeof(*rows));
			CHECK(more);
			rows = more;
			rows[n] = rows[0];
			blk = (unsigned char *)"x";
			CHECK(sample_block_encode(rows, n + 1, raw, &blk, &blk_len) == -EINVAL);
			CHECK(!blk && !blk_len);
			blk = (unsigned char *)"x";
			CHECK(sample_block_encode(rows, 0, raw, &blk, &blk_len) == -EINVAL);
			CHECK(!blk && !blk_len);
		}
		free(rows);
		free(raw);
	}
	/* a present payload needs a raw buffer */
	struct store_sample_rec one = { .present = BIT(C_RAW), .raw_len = 3 };
	CHECK(sample_block_encode(&one, 1, NULL, &blk, &blk_len) == -EINVAL);
	one.raw_len = 0;
	CHECK(sample_block_encode(&one, 1, NULL, &blk, &blk_len) == 0);
	CHECK(sample_block_decode(blk, blk_len, UINT32_MAX, &b, &why) == 0);
	CHECK(b.n == 1 && b.rows[0].present == BIT(C_RAW) && b.rows[0].raw_len == 0 && b.raw_len == 0);
	free(blk);
	sample_block_free(&b);
}

static void test_partial_decode(void)
{
	static const uint32_t masks[] = { BIT(C_TIME) | BIT(C_CPU), BIT(C_RAW), BIT(C_LINE_VAR) | BIT(C_RAW), 0,
					  ALL_COLS & ~BIT(C_RAW) };
	struct sample_block b = { 0 };
	unsigned char *raw = NULL, *blk = NULL;
	size_t raw_len = 0, blk_len = 0, n = 3000;
	const char *why = NULL;

	rng_seed(3);
	struct store_sample_rec *rows = gen_mixed(n, &raw, &raw_len);
	CHECK(rows);
	CHECK(sample_block_encode(rows, n, raw, &blk, &blk_len) == 0);
	for (size_t k = 0; k < sizeof(masks) / sizeof(masks[0]); k++) {
		CHECK(sample_block_decode(blk, blk_len, masks[k], &b, &why) == 0);
		CHECK(!rows_differ(rows, n, raw, &b, masks[k]));
	}
	/* time and cpu only: those equal, every other column absent */
	CHECK(sample_block_decode(blk, blk_len, BIT(C_TIME) | BIT(C_CPU), &b, &why) == 0);
	CHECK(b.raw_len == 0);
	for (size_t i = 0; i < n; i++) {
		CHECK(b.rows[i].v[C_TIME] == rows[i].v[C_TIME]);
		CHECK((b.rows[i].present & ~(BIT(C_TIME) | BIT(C_CPU))) == 0);
		CHECK(b.rows[i].present & BIT(C_TIME));
	}
	free(blk);
	free(rows);
	free(raw);
	sample_block_free(&b);
}

/* The block with its body decompressed (flag clear): malloc'd. */
static unsigned char *plain_copy(const unsigned char *blk, size_t len, size_t *plain_len)
{
	uint32_t body_len = (uint32_t)blk[10] | (uint32_t)blk[11] << 8 | (uint32_t)blk[12] << 16 |
			    (uint32_t)blk[13] << 24;
	unsigned char *p = malloc(14 + (size_t)body_len);

	if (!p)
		return NULL;
	memcpy(p, blk, 14);
	if (blk[5] & 1) {
		if (ZSTD_decompress(p + 14, body_len, blk + 14, len - 14) != body_len) {
			free(p);
			return NULL;
		}
		p[5] = 0;
	} else {
		memcpy(p + 14, blk + 14, body_len);
	}
	*plain_len = 14 + (size_t)body_len;
	return p;
}

static void put32(unsigned char *p, uint32_t x)
{
	for (int k = 0; k < 4; k++)
		p[k] = (unsigned char)(x >> (8 * k));
}

/* A plain block of n rows from the 21 sections (NULL: all-NULL column). */
static size_t build_plain(unsigned char *out, uint32_t n, const unsigned char *const sec[STORE_SAMPLE_COLS],
			  const size_t seclen[STORE_SAMPLE_COLS])
{
	static const unsigned char null_sec[1] = { 0 };
	size_t at = 14 + 21 * 8;

	memcpy(out, "C2SB\x01\x00", 6);
	put32(out + 6, n);
	for (int c = 0; c < STORE_SAMPLE_COLS; c++) {
		const unsigned char *s = sec[c] ? sec[c] : null_sec;
		size_t l = sec[c] ? seclen[c] : 1;
		put32(out + 14 + 8 * c, (uint32_t)(at - 14));
		put32(out + 14 + 8 * c + 4, (uint32_t)l);
		memcpy(out + at, s, l);
		at += l;
	}
	put32(out + 10, (uint32_t)(at - 14));
	return at;
}

/* Decodes a hostile block: 0 or -EINVAL with a reason; decoded rows'
 * payloads inside b->raw. 0 when all that holds. */
static int decode_sane(const unsigned char *blk, size_t len, struct sample_block *b, int *rc)
{
	const char *why = NULL;

	*rc = sample_block_decode(blk, len, UINT32_MAX, b, &why);
	(void)sample_block_rows(blk, len);
	if (*rc == -EINVAL)
		return why && b->n == 0 ? 0 : 1;
	if (*rc != 0 || b->n != (size_t)sample_block_rows(blk, len))
		return 1;
	for (size_t i = 0; i < b->n; i++)
		if (b->rows[i].raw_off > b->raw_len || b->rows[i].raw_len > b->raw_len - b->rows[i].raw_off)
			return 1;
	return 0;
}

static void test_hostile(void)
{
	struct sample_block b = { 0 };
	unsigned char *raw = NULL, *blk = NULL, *plain = NULL, *buf = NULL;
	size_t raw_len = 0, blk_len = 0, plain_len = 0, n = 200;
	const char *why = NULL;
	int rc, nok = 0, nbad = 0;

	rng_seed(4);
	struct store_sample_rec *rows = gen_mixed(n, &raw, &raw_len);
	CHECK(rows);
	CHECK(sample_block_encode(rows, n, raw, &blk, &blk_len) == 0);
	CHECK(blk[5] & 1);
	plain = plain_copy(blk, blk_len, &plain_len);
	CHECK(plain);
	CHECK(sample_block_decode(plain, plain_len, UINT32_MAX, &b, &why) == 0);
	CHECK(!rows_differ(rows, n, raw, &b, UINT32_MAX));
	buf = malloc((plain_len > blk_len ? plain_len : blk_len) + 400);
	CHECK(buf);

	/* every truncation, of the compressed and of the plain form; a
	 * copy of just that length so ASan sees any read past it */
	for (int form = 0; form < 2; form++) {
		const unsigned char *src = form ? plain : blk;
		size_t len = form ? plain_len : blk_len;
		for (size_t cut = 0; cut < len; cut++) {
			unsigned char *t = malloc(cut ? cut : 1);
			CHECK(t);
			memcpy(t, src, cut);
			rc = sample_block_decode(t, cut, UINT32_MAX, &b, &why);
			free(t);
			if (rc != -EINVAL || !why)
				printf("# truncated to %zu: %d\n", cut, rc);
			CHECK(rc == -EINVAL && why);
			CHECK(b.n == 0);
		}
	}

	/* random byte flips (1-3 bytes a block), both forms */
	for (int iter = 0; iter < 6000; iter++) {
		const unsigned char *src = iter % 2 ? plain : blk;
		size_t len = iter % 2 ? plain_len : blk_len;
		int flips = 1 + (int)(rng() % 3);
		memcpy(buf, src, len);
		for (int f = 0; f < flips; f++)
			buf[rng() % len] ^= (unsigned char)(1 + rng() % 255);
		int bad = decode_sane(buf, len, &b, &rc);
		if (bad)
			printf("# flip iteration %d: rc %d\n", iter, rc);
		CHECK(!bad);
		if (rc == 0)
			nok++;
		else
			nbad++;
	}
	printf("# byte flips: %d decoded, %d refused\n", nok, nbad);

	/* header lies: 2^31 rows, MAX+1 rows, a huge body, a body length the
	 * frame does not have, unknown flags, another version */
	memcpy(buf, blk, blk_len);
	put32(buf + 6, 1u << 31);
	CHECK(sample_block_rows(buf, blk_len) == -EINVAL);
	CHECK(sample_block_decode(buf, blk_len, UINT32_MAX, &b, &why) == -EINVAL);
	CHECK_STR(why, "bad row count");
	put32(buf + 6, SAMPLE_BLOCK_MAX_ROWS + 1);
	CHECK(sample_block_decode(buf, blk_len, UINT32_MAX, &b, &why) == -EINVAL);
	put32(buf + 6, (uint32_t)n);
	put32(buf + 10, UINT32_MAX);
	CHECK(sample_block_decode(buf, blk_len, UINT32_MAX, &b, &why) == -EINVAL);
	CHECK_STR(why, "body too large");
	put32(buf + 10, (uint32_t)(plain_len - 14 + 1));
	CHECK(sample_block_decode(buf, blk_len, UINT32_MAX, &b, &why) == -EINVAL);
	CHECK_STR(why, "body length mismatch");
	memcpy(buf, plain, plain_len);
	put32(buf + 10, (uint32_t)SAMPLE_BLOCK_MAX_BODY);
	CHECK(sample_block_decode(buf, plain_len, UINT32_MAX, &b, &why) == -EINVAL);
	CHECK_STR(why, "block truncated");
	memcpy(buf, blk, blk_len);
	buf[5] = 3;
	CHECK(sample_block_decode(buf, blk_len, UINT32_MAX, &b, &why) == -EINVAL);
	buf[5] = 1;
	buf[4] = 3;
	CHECK(sample_block_decode(buf, blk_len, UINT32_MAX, &b, &why) == -EINVAL);
	CHECK(sample_block_rows(buf, blk_len) == -EINVAL);
	/* a frame that is not the body: 1 MiB of zeros claiming to be one */
	{
		size_t zl = (size_t)1 << 20, cap = ZSTD_compressBound(zl);
		unsigned char *zeros = calloc(1, zl), *z = malloc(14 + cap);
		CHECK(zeros && z);
		size_t got = ZSTD_compress(z + 14, cap, zeros, zl, 1);
		CHECK(!ZSTD_isError(got));
		memcpy(z, "C2SB\x01\x01", 6);
		put32(z + 6, 100);
		put32(z + 10, (uint32_t)zl);
		CHECK(sample_block_decode(z, 14 + got, UINT32_MAX, &b, &why) == -EINVAL);
		CHECK_STR(why, "bad column directory");
		/* and trailing bytes after the frame */
		z[14 + got] = 0;
		CHECK(sample_block_decode(z, 14 + got + 1, UINT32_MAX, &b, &why) == -EINVAL);
		free(zeros);
		free(z);
	}

	/* garbage, with and without a valid-looking header */
	for (int iter = 0; iter < 3000; iter++) {
		size_t len = (size_t)(rng() % 400);
		for (size_t k = 0; k < len; k++)
			buf[k] = (unsigned char)rng();
		if (iter % 2 && len >= 14) {
			memcpy(buf, "C2SB\x01", 5);
			buf[5] &= 1;
			put32(buf + 6, 1 + (uint32_t)(rng() % 100));
			put32(buf + 10, (uint32_t)(len - 14));
		}
		CHECK(!decode_sane(buf, len, &b, &rc));
	}

	/* hand-made sections: each damage named */
	{
		unsigned char out[512];
		const unsigned char *sec[STORE_SAMPLE_COLS] = { 0 };
		size_t seclen[STORE_SAMPLE_COLS] = { 0 }, len;
		static const unsigned char ok_time[] = { 1, 2, 2, 2 };             /* 1, 2, 3 */
		static const unsigned char long_varint[] = { 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
							     0x80, 0x80, 0x01, 2, 2 };
		static const unsigned char overflow[] = { 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
							  0xff, 0x02, 2, 2 };
		static const unsigned char max_varint[] = { 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
							    0xff, 0x01, 2, 2 };
		static const unsigned char cut_varint[] = { 1, 2, 2, 0x80 };
		static const unsigned char trailing[] = { 1, 2, 2, 2, 2 };
		static const unsigned char short_vals[] = { 1, 2, 2 };
		static const unsigned char bad_mode[] = { 3, 2, 2, 2 };
		static const unsigned char null_more[] = { 0, 0 };
		static const unsigned char bmp_ok[] = { 2, 0x05, 2, 4 };           /* rows 0, 2 */
		static const unsigned char bmp_past[] = { 2, 0x0d, 2, 4, 6 };      /* bit 3 of 3 rows */
		static const unsigned char bmp_all[] = { 2, 0x07, 2, 4, 6 };
		static const unsigned char bmp_none[] = { 2, 0x00 };
		static const unsigned char bmp_count[] = { 2, 0x05, 2 };           /* 2 present, 1 value */
		static const unsigned char raw_ok[] = { 1, 1, 0, 2, 'a', 'b', 'c' };
		static const unsigned char raw_over[] = { 1, 1, 0, 3, 'a', 'b', 'c' };
		static const unsigned char raw_huge[] = { 1, 0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0, 'a' };
		static const unsigned char raw_more[] = { 1, 1, 0, 1, 'a', 'b', 'c' };
		static const struct {
			int col;
			const unsigned char *s;
			size_t l;
			const char *why;
		} cases[] = {
			{ C_TIME, ok_time, sizeof(ok_time), NULL },
			{ C_TIME, long_varint, sizeof(long_varint), "bad varint" },
			{ C_TIME, overflow, sizeof(overflow), "bad varint" },
			{ C_TIME, max_varint, sizeof(max_varint), NULL },
			{ C_TIME, cut_varint, sizeof(cut_varint), "bad varint" },
			{ C_TIME, trailing, sizeof(trailing), "trailing bytes in column" },
			{ C_TIME, short_vals, sizeof(short_vals), "column truncated" },
			{ C_TIME, bad_mode, sizeof(bad_mode), "bad column mode" },
			{ C_TIME, null_more, sizeof(null_more), "trailing bytes in column" },
			{ C_CPU, bmp_ok, sizeof(bmp_ok), NULL },
			{ C_CPU, bmp_past, sizeof(bmp_past), "bad presence bitmap" },
			{ C_CPU, bmp_all, sizeof(bmp_all), "bad presence bitmap" },
			{ C_CPU, bmp_none, sizeof(bmp_none), "bad presence bitmap" },
			{ C_CPU, bmp_count, sizeof(bmp_count), "column truncated" },
			{ C_RAW, raw_ok, sizeof(raw_ok), NULL },
			{ C_RAW, raw_over, sizeof(raw_over), "raw lengths exceed column" },
			{ C_RAW, raw_huge, sizeof(raw_huge), "raw lengths exceed column" },
			{ C_RAW, raw_more, sizeof(raw_more), "trailing bytes in column" },
		};
		for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
			memset(sec, 0, sizeof(sec));
			sec[cases[k].col] = cases[k].s;
			seclen[cases[k].col] = cases[k].l;
			len = build_plain(out, 3, sec, seclen);
			rc = sample_block_decode(out, len, UINT32_MAX, &b, &why);
			if (!cases[k].why) {
				CHECK(rc == 0 && b.n == 3);
			} else {
				CHECK(rc == -EINVAL);
				CHECK_STR(why, cases[k].why);
				/* a column not asked for is not even looked at */
				CHECK(sample_block_decode(out, len, ~BIT(cases[k].col), &b, &why) == 0);
			}
		}
		/* the values the good ones hold */
		sec[C_RAW] = NULL;
		sec[C_TIME] = max_varint;
		seclen[C_TIME] = sizeof(max_varint);
		sec[C_CPU] = bmp_ok;
		seclen[C_CPU] = sizeof(bmp_ok);
		len = build_plain(out, 3, sec, seclen);
		CHECK(sample_block_decode(out, len, UINT32_MAX, &b, &why) == 0);
		CHECK(b.rows[0].v[C_TIME] == INT64_MIN && b.rows[1].v[C_TIME] == INT64_MIN + 1);
		CHECK(b.rows[2].v[C_TIME] == INT64_MIN + 2);
		CHECK(b.rows[0].present == (BIT(C_TIME) | BIT(C_CPU)) && b.rows[1].present == BIT(C_TIME));
		CHECK(b.rows[0].v[C_CPU] == 1 && b.rows[1].v[C_CPU] == 0 && b.rows[2].v[C_CPU] == 3);
		sec[C_RAW] = raw_ok;
		seclen[C_RAW] = sizeof(raw_ok);
		len = build_plain(out, 3, sec, seclen);
		CHECK(sample_block_decode(out, len, UINT32_MAX, &b, &why) == 0);
		CHECK(b.raw_len == 3 && memcmp(b.raw, "abc", 3) == 0);
		CHECK(b.rows[0].raw_len == 1 && b.rows[0].raw_off == 0 && b.rows[1].raw_len == 0);
		CHECK(b.rows[2].raw_len == 2 && b.rows[2].raw_off == 1);
		/* a directory that does not tile the body */
		put32(out + 14 + 8 * C_EVENT, 169);
		CHECK(sample_block_decode(out, len, UINT32_MAX, &b, &why) == -EINVAL);
		CHECK_STR(why, "bad column directory");
		put32(out + 14 + 8 * C_EVENT + 4, 0);
		CHECK(sample_block_decode(out, len, UINT32_MAX, &b, &why) == -EINVAL);
	}

	free(buf);
	free(plain);
	free(blk);
	free(rows);
	free(raw);
	sample_block_free(&b);
}

/* 4096 rows shaped like a c2c recording (perf c2c record's defaults: no
 * callchains, no physical addresses, no instruction latency, no raw):
 * monotonic times with small gaps, 16 cpus on 2 nodes, 24 threads (mostly
 * on their own cpu) of 2 processes, 400 ips/sites and 2000 64-byte lines
 * picked with a skew to the hot ones (no locality from one sample to the
 * next), 70% loads with a data_src of 8 and a latency in its band, 30%
 * stores (4 data_srcs, no weight), class_bits from data_src, the data
 * symbol and offset of the line. */
static struct store_sample_rec *gen_c2c(size_t n)
{
	static const struct {
		int64_t data_src, class_bits, lat_min, lat_span;
	} src[] = {
		{ 0x68100142, 0x1, 30, 10 },            /* L1 hit */
		{ 0x68100142, 0x1, 30, 10 },
		{ 0x68100142, 0x1, 30, 10 },
		{ 0x68100242, 0x4, 40, 60 },            /* LFB */
		{ 0x69100142, 0x10, 50, 40 },           /* L2 */
		{ 0x6a100142, 0x40, 80, 120 },          /* LLC */
		{ 0x1a100842, 0x1000000000000000, 150, 250 },  /* remote HITM */
		{ 0x68101042, 0x100, 120, 200 },        /* local HITM */
		{ 0x4080021, 0x10000, 0, 0 },           /* stores: L1 hit / miss */
		{ 0x4100021, 0x40000, 0, 0 },
		{ 0x8080021, 0x10000, 0, 0 },
		{ 0x8100021, 0x40000, 0, 0 },
	};
	struct store_sample_rec *rows = calloc(n, sizeof(*rows));
	int64_t ips[400], lines[2000], t = 123456789012345;

	if (!rows)
		return NULL;
	for (int k = 0; k < 400; k++)
		ips[k] = k < 360 ? 0x401000 + (int64_t)(rng() % 0x40000) : (int64_t)(0xffffffff81000000ull +
										rng() % 0x1000000);
	for (int k = 0; k < 2000; k++)
		lines[k] = 0x55d4a3e00000 + (int64_t)(rng() % 0x40000) * 64;
	for (size_t i = 0; i < n; i++) {
		struct store_sample_rec *r = &rows[i];
		int tid = (int)(rng() % 24), ipk, lk, store = rng() % 10 < 3;
		int s = store ? 8 + (int)(rng() % 4) : (int)(rng() % 8);
		double u = rng01(), w = rng01();
		int64_t cpu = rng() % 10 ? tid % 16 : (int64_t)(rng() % 16);
		t += 20 + (int64_t)(rng() % 400);
		ipk = (int)(u * u * 400);
		lk = (int)(w * w * 2000);
		set(r, C_TIME, t);
		set(r, C_EVENT, store);
		set(r, C_CPU, cpu);
		set(r, C_NODE, cpu / 8);
		set(r, C_PID, tid < 20 ? 4000 : 5000);
		set(r, C_TID, (tid < 20 ? 4000 : 5000) + tid);
		set(r, C_CPUMODE, ipk < 360 ? 2 : 1);
		set(r, C_IP, ips[ipk]);
		set(r, C_SITE, 1 + ipk);
		set(r, C_ADDR, lines[lk] + (int64_t)(rng() % 8) * 8);
		set(r, C_CLASS, src[s].class_bits);
		if (!store)
			set(r, C_WEIGHT, src[s].lat_min + (int64_t)(rng01() * rng01() * (double)src[s].lat_span));
		set(r, C_DATA_SRC, src[s].data_src);
		set(r, C_PERIOD, store ? 10007 : 1000);
		set(r, C_DSYM, 1 + lk / 40);
		set(r, C_DSYM_OFF, (lk % 40) * 64 + (r->v[C_ADDR] & 63));
		if (rng() % 50 == 0)
			set(r, C_LINE_VAR, 1);
	}
	return rows;
}

/* Version 2: phys_addr and dsym_offset coded relative to addr when every
 * row that has them has an addr; they round-trip, alone too (addr then
 * decoded for them and dropped again), and cost less than their values. */
static void test_relative(void)
{
	const size_t n = 2000;
	struct store_sample_rec *rows = calloc(n, sizeof(*rows));
	struct sample_block b = { 0 };
	unsigned char *blk = NULL, *plain = NULL;
	size_t blk_len = 0, plain_len = 0, rel_len;
	const char *why = NULL;

	CHECK(rows != NULL);
	if (!rows)
		return;
	rng_seed(11);
	for (size_t i = 0; i < n; i++) {
		uint64_t page = rng() % 40, off = rng() % 4096;
		set(&rows[i], C_TIME, (int64_t)(1000000 + i * 977));
		set(&rows[i], C_ADDR, (int64_t)(0x7f0000000000ull + page * 4096 + off));
		if (i % 7)
			set(&rows[i], C_PHYS, (int64_t)(0x100000000ull + (page * 37 % 40) * 4096 + off));
		if (i % 5)
			set(&rows[i], C_DSYM_OFF, (int64_t)(page * 4096 + off - (page % 3) * 4096));
	}
	CHECK(sample_block_encode(rows, n, NULL, &blk, &blk_len) == 0);
	plain = plain_copy(blk, blk_len, &plain_len);
	CHECK(plain && plain[4] == 2);
	if (plain) {
		size_t o10 = (size_t)plain[14 + 8 * C_PHYS] | (size_t)plain[15 + 8 * C_PHYS] << 8;
		size_t o17 = (size_t)plain[14 + 8 * C_DSYM_OFF] | (size_t)plain[15 + 8 * C_DSYM_OFF] << 8;
		CHECK(plain[14 + o10] & 0x20);
		CHECK(plain[14 + o17] & 0x20);
	}
	static const uint32_t masks[] = { ALL_COLS, BIT(C_PHYS), BIT(C_DSYM_OFF), BIT(C_ADDR), BIT(C_PHYS) | BIT(C_TIME) };
	for (size_t k = 0; k < sizeof(masks) / sizeof(masks[0]); k++) {
		CHECK(sample_block_decode(blk, blk_len, masks[k], &b, &why) == 0);
		CHECK(!rows_differ(rows, n, NULL, &b, masks[k]));
	}
	/* hostile: REL in a version-1 block, on another column */
	if (plain) {
		size_t o0 = (size_t)plain[14] | (size_t)plain[15] << 8;
		plain[4] = 1;
		CHECK(sample_block_decode(plain, plain_len, ALL_COLS, &b, &why) == -EINVAL);
		CHECK_STR(why, "bad column mode");
		plain[4] = 2;
		CHECK(sample_block_decode(plain, plain_len, ALL_COLS, &b, &why) == 0);
		plain[14 + o0] |= 0x20;
		CHECK(sample_block_decode(plain, plain_len, ALL_COLS, &b, &why) == -EINVAL);
		CHECK_STR(why, "bad column mode");
	}
	rel_len = blk_len;
	free(blk);
	free(plain);
	/* one row with phys and no addr: plain values, still exact */
	rows[3].present &= ~BIT(C_ADDR);
	rows[3].v[C_ADDR] = 0;
	CHECK(sample_block_encode(rows, n, NULL, &blk, &blk_len) == 0);
	plain = plain_copy(blk, blk_len, &plain_len);
	if (plain) {
		size_t o10 = (size_t)plain[14 + 8 * C_PHYS] | (size_t)plain[15 + 8 * C_PHYS] << 8;
		CHECK(!(plain[14 + o10] & 0x20));
	}
	CHECK(sample_block_decode(blk, blk_len, ALL_COLS, &b, &why) == 0);
	CHECK(!rows_differ(rows, n, NULL, &b, ALL_COLS));
	printf("# relative phys_addr, dsym_offset: %zu bytes; phys_addr as values: %zu\n", rel_len, blk_len);
	CHECK(rel_len < blk_len);
	/* hostile: REL without addr */
	{
		static const unsigned char addr_sec[] = { 0x02, 0x05, 0x02, 0x02 };   /* rows 0 and 2 */
		static const unsigned char phys_sec[] = { 0x21, 0x00, 0x00, 0x00 };   /* every row, relative */
		const unsigned char *sec[STORE_SAMPLE_COLS] = { 0 };
		size_t seclen[STORE_SAMPLE_COLS] = { 0 };
		unsigned char out[512];
		sec[C_ADDR] = addr_sec;
		seclen[C_ADDR] = sizeof(addr_sec);
		sec[C_PHYS] = phys_sec;
		seclen[C_PHYS] = sizeof(phys_sec);
		size_t len = build_plain(out, 3, sec, seclen);
		out[4] = 2;
		CHECK(sample_block_decode(out, len, ALL_COLS, &b, &why) == -EINVAL);
		CHECK_STR(why, "relative column without addr");
		CHECK(sample_block_decode(out, len, BIT(C_PHYS), &b, &why) == -EINVAL);
		CHECK(sample_block_decode(out, len, BIT(C_ADDR), &b, &why) == 0);
	}
	free(blk);
	free(plain);
	free(rows);
	sample_block_free(&b);
}

static void test_compressed_size(void)
{
	const size_t n = 4096;
	const int reps = 50;
	struct sample_block b = { 0 };
	unsigned char *blk = NULL, *plain = NULL;
	size_t blk_len = 0, plain_len = 0;
	const char *why = NULL;
	double t0, enc, dec, part;

	rng_seed(5);
	struct store_sample_rec *rows = gen_c2c(n);
	CHECK(rows);
	t0 = now_s();
	for (int r = 0; r < reps; r++) {
		free(blk);
		blk = NULL;
		CHECK(sample_block_encode(rows, n, NULL, &blk, &blk_len) == 0);
	}
	enc = (now_s() - t0) / reps;
	t0 = now_s();
	for (int r = 0; r < reps; r++)
		CHECK(sample_block_decode(blk, blk_len, UINT32_MAX, &b, &why) == 0);
	dec = (now_s() - t0) / reps;
	CHECK(!rows_differ(rows, n, NULL, &b, UINT32_MAX));
	t0 = now_s();
	for (int r = 0; r < reps; r++)
		CHECK(sample_block_decode(blk, blk_len, BIT(C_TIME) | BIT(C_CPU), &b, &why) == 0);
	part = (now_s() - t0) / reps;
	plain = plain_copy(blk, blk_len, &plain_len);
	CHECK(plain);
	printf("# c2c-shaped block of %zu rows: %zu bytes, %.2f bytes/sample (%.2f before zstd); CPU time "
	       "encode %.0f us, decode %.0f us (time+cpu only %.0f us)\n",
	       n, blk_len, (double)blk_len / n, (double)plain_len / n, enc * 1e6, dec * 1e6, part * 1e6);
	/* what zstd level 3 would give (the codec uses 1) */
	{
		size_t cap = ZSTD_compressBound(plain_len - 14), z = 0;
		unsigned char *zb = malloc(cap);
		CHECK(zb);
		for (int lvl = 1; lvl <= 3; lvl += 2) {
			t0 = now_s();
			for (int r = 0; r < reps; r++)
				z = ZSTD_compress(zb, cap, plain + 14, plain_len - 14, lvl);
			double dt = (now_s() - t0) / reps;
			CHECK(!ZSTD_isError(z));
			printf("# zstd level %d: %.2f bytes/sample, compress %.0f us\n", lvl, (double)(z + 14) / n,
			       dt * 1e6);
		}
		free(zb);
	}
	CHECK((double)blk_len / n < 20.0);
	free(plain);
	free(blk);
	free(rows);
	sample_block_free(&b);
}

TEST_MAIN(TEST_CASE(test_round_trip), TEST_CASE(test_extremes), TEST_CASE(test_partial_decode),
	  TEST_CASE(test_hostile), TEST_CASE(test_relative), TEST_CASE(test_compressed_size))
