/* A tiny perf.data byte builder for the reader's unit tests: writes
 * headers, attrs, records and feature sections in either byte order, so
 * tests can hand-build exactly the bytes a case needs (foreign endianness,
 * odd attr sizes, damage). Not a general writer: tests/gen/ has that. */
#ifndef C2C_TEST_PERFDATA_BUILD_H
#define C2C_TEST_PERFDATA_BUILD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pdb {
	unsigned char *b;
	size_t n, cap;
	bool be;                 /* write big-endian (a foreign file on x86) */
};

static inline void pdb_bytes(struct pdb *p, const void *src, size_t n)
{
	if (p->n + n > p->cap) {
		size_t cap = p->cap ? p->cap : 4096;
		while (cap < p->n + n)
			cap *= 2;
		p->b = realloc(p->b, cap);
		if (!p->b)
			abort();
		p->cap = cap;
	}
	if (src)
		memcpy(p->b + p->n, src, n);
	else
		memset(p->b + p->n, 0, n);
	p->n += n;
}

static inline void pdb_uint(struct pdb *p, uint64_t v, int size)
{
	unsigned char t[8];
	for (int i = 0; i < size; i++)
		t[p->be ? size - 1 - i : i] = (unsigned char)(v >> (8 * i));
	pdb_bytes(p, t, (size_t)size);
}

static inline void pdb_u8(struct pdb *p, uint8_t v) { pdb_uint(p, v, 1); }
static inline void pdb_u16(struct pdb *p, uint16_t v) { pdb_uint(p, v, 2); }
static inline void pdb_u32(struct pdb *p, uint32_t v) { pdb_uint(p, v, 4); }
static inline void pdb_u64(struct pdb *p, uint64_t v) { pdb_uint(p, v, 8); }

static inline void pdb_patch(struct pdb *p, size_t off, uint64_t v, int size)
{
	size_t n = p->n;
	p->n = off;
	pdb_uint(p, v, size);
	p->n = n;
}

static inline void pdb_free(struct pdb *p)
{
	free(p->b);
	memset(p, 0, sizeof(*p));
}

/* perf_header_string: u32 length (padded), then the NUL-padded text. */
static inline void pdb_str(struct pdb *p, const char *s)
{
	size_t len = strlen(s) + 1, padded = (len + 7) & ~(size_t)7;
	pdb_u32(p, (uint32_t)padded);
	pdb_bytes(p, s, len);
	pdb_bytes(p, NULL, padded - len);
}

/* Records: begin writes a header with size 0, end patches the size. */
static inline size_t pdb_rec_begin(struct pdb *p, uint32_t type, uint16_t misc)
{
	size_t at = p->n;
	pdb_u32(p, type);
	pdb_u16(p, misc);
	pdb_u16(p, 0);
	return at;
}

static inline void pdb_rec_end(struct pdb *p, size_t at)
{
	pdb_patch(p, at + 6, (uint16_t)(p->n - at), 2);
}

/* An attr description; size decides how many bytes are written. */
struct tattr {
	uint32_t type, size;
	uint64_t config, period, sample_type, read_format, flags;
	uint64_t config1, config2, branch_sample_type, regs_user, regs_intr, config3;
	uint32_t stack_user;
	uint64_t ids[8];
	int nids;
};

/* The flags bitfield of a big-endian writer: bits allocated from each
 * byte's most significant end. */
static inline void pdb_attr_flags(struct pdb *p, uint64_t flags)
{
	unsigned char t[8];
	if (p->be) {
		/* precise_ip (2 bits at 15..16) keeps its value's MSB first on a
		 * big-endian machine, so its two bits trade places too. */
		uint64_t pi = (flags >> 15) & 3;
		flags = (flags & ~(3ull << 15)) | (((pi & 1) << 1 | pi >> 1) << 15);
	}
	for (int i = 0; i < 8; i++) {
		unsigned char x = (unsigned char)(flags >> (8 * i)), r = 0;
		for (int k = 0; k < 8; k++)
			if (x & (1u << k))
				r |= (unsigned char)(p->be ? 0x80u >> k : 1u << k);
		t[i] = r;
	}
	pdb_bytes(p, t, 8);
}

static inline void pdb_attr(struct pdb *p, const struct tattr *a, uint32_t size_field)
{
	struct pdb t = { .be = p->be };
	pdb_u32(&t, a->type);
	pdb_u32(&t, size_field);
	pdb_u64(&t, a->config);
	pdb_u64(&t, a->period);
	pdb_u64(&t, a->sample_type);
	pdb_u64(&t, a->read_format);
	pdb_attr_flags(&t, a->flags);
	pdb_u32(&t, 0);                 /* wakeup_events */
	pdb_u32(&t, 0);                 /* bp_type */
	pdb_u64(&t, a->config1);        /* 64 = VER0 */
	pdb_u64(&t, a->config2);        /* 72 */
	pdb_u64(&t, a->branch_sample_type);   /* 80 */
	pdb_u64(&t, a->regs_user);
	pdb_u32(&t, a->stack_user);
	pdb_u32(&t, 0);                 /* clockid: 96 */
	pdb_u64(&t, a->regs_intr);      /* 104 */
	pdb_u32(&t, 0);
	pdb_u16(&t, 0);
	pdb_u16(&t, 0);                 /* 112 */
	pdb_u32(&t, 0);
	pdb_u32(&t, 0);                 /* 120 */
	pdb_u64(&t, 0);                 /* sig_data: 128 */
	pdb_u64(&t, a->config3);        /* 136 */
	while (t.n < a->size)
		pdb_u8(&t, 0xee);           /* fields from the future: must be ignored */
	pdb_bytes(p, t.b, a->size);
	pdb_free(&t);
}

/* One feature section's bytes. */
struct tfeat {
	unsigned bit;
	struct pdb body;
};

/* Builds a whole file-format perf.data: header, attrs (+ ids), the data
 * section (records already built with the same byte order), features. */
static inline void pdb_file(struct pdb *out, const struct tattr *attrs, int nattrs, const struct pdb *data,
		     struct tfeat *feats, int nfeats)
{
	uint32_t asz = attrs[0].size;
	size_t attr_entry = asz + 16;
	size_t ids_off = 104, attrs_off, data_off, feat_off;
	uint64_t bits[4] = { 0 };
	size_t nids = 0;

	for (int i = 0; i < nattrs; i++)
		nids += (size_t)attrs[i].nids;
	attrs_off = ids_off + nids * 8;
	data_off = attrs_off + attr_entry * (size_t)nattrs;
	feat_off = data_off + data->n;
	for (int i = 0; i < nfeats; i++)
		bits[feats[i].bit / 64] |= 1ull << (feats[i].bit % 64);

	pdb_bytes(out, out->be ? "2ELIFREP" : "PERFILE2", 8);
	pdb_u64(out, 104);
	pdb_u64(out, attr_entry);
	pdb_u64(out, attrs_off);
	pdb_u64(out, attr_entry * (size_t)nattrs);
	pdb_u64(out, data_off);
	pdb_u64(out, data->n);
	pdb_u64(out, 0);
	pdb_u64(out, 0);
	for (int i = 0; i < 4; i++)
		pdb_u64(out, bits[i]);
	for (int i = 0; i < nattrs; i++)
		for (int k = 0; k < attrs[i].nids; k++)
			pdb_u64(out, attrs[i].ids[k]);
	{
		size_t idpos = ids_off;
		for (int i = 0; i < nattrs; i++) {
			pdb_attr(out, &attrs[i], attrs[i].size);
			pdb_u64(out, idpos);
			pdb_u64(out, (uint64_t)attrs[i].nids * 8);
			idpos += (size_t)attrs[i].nids * 8;
		}
	}
	pdb_bytes(out, data->b, data->n);
	/* Feature table (in bit order), then the bodies. */
	{
		size_t body = feat_off + (size_t)nfeats * 16;
		for (unsigned b = 0; b < 256; b++)
			for (int i = 0; i < nfeats; i++)
				if (feats[i].bit == b) {
					pdb_u64(out, body);
					pdb_u64(out, feats[i].body.n);
					body += feats[i].body.n;
				}
		for (unsigned b = 0; b < 256; b++)
			for (int i = 0; i < nfeats; i++)
				if (feats[i].bit == b)
					pdb_bytes(out, feats[i].body.b, feats[i].body.n);
	}
}

/* Writes bytes to a file in the test's temp dir; returns its path (one of
 * 8 rotating static buffers). */
static inline const char *pdb_save(const struct pdb *p, const char *tmpdir, const char *name)
{
	static char path[8][512];
	static int slot;
	char *dst = path[slot++ % 8];
	FILE *f;

	snprintf(dst, 512, "%s/%s", tmpdir, name);
	f = fopen(dst, "wb");
	if (!f)
		return NULL;
	if (p->n && fwrite(p->b, 1, p->n, f) != p->n) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	/* tests/fuzz/run.sh collects these files as fuzzing seeds */
	if (getenv("C2C_PERFDATA_SEEDS")) {
		char seed[512];
		snprintf(seed, sizeof(seed), "%s/%s", getenv("C2C_PERFDATA_SEEDS"), name);
		f = fopen(seed, "wb");
		if (f) {
			if (p->n && fwrite(p->b, 1, p->n, f) != p->n)
				fprintf(stderr, "# could not write seed %s\n", seed);
			fclose(f);
		}
	}
	return dst;
}

#endif /* C2C_TEST_PERFDATA_BUILD_H */
