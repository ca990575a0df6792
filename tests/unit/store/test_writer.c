/* Unit tests of the perf.data writer (tests/gen/perfdata_writer.h): the byte
 * layout of the file header, attrs, feature sections and a few records, in
 * file and pipe format, little- and big-endian, with and without zstd.
 * The offsets checked here come from perf.data-file-format.txt and
 * include/uapi/linux/perf_event.h, not from the writer's code. */
#include "tests/unit/test.h"

#include <errno.h>
#include <zstd.h>

#include "tests/gen/perfdata_writer.h"
#include "tests/gen/scenario.h"

struct blob {
	unsigned char *p;
	size_t len;
	int be;
};

static int blob_load(struct blob *b, const char *path, int be)
{
	FILE *f = fopen(path, "rb");
	long n;

	b->p = NULL;
	b->len = 0;
	b->be = be;
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b->p = malloc(n > 0 ? (size_t)n : 1);
	if (b->p && fread(b->p, 1, (size_t)n, f) == (size_t)n)
		b->len = (size_t)n;
	fclose(f);
	return b->len == (size_t)n ? 0 : -1;
}

static uint64_t rd(const struct blob *b, size_t off, int size)
{
	uint64_t v = 0;

	if (off + (size_t)size > b->len)
		return 0xdeadbeefdeadbeefull;
	for (int i = 0; i < size; i++) {
		int k = b->be ? i : size - 1 - i;
		v = v << 8 | b->p[off + (size_t)k];
	}
	return v;
}
static uint64_t U16(const struct blob *b, size_t o) { return rd(b, o, 2); }
static uint64_t U32(const struct blob *b, size_t o) { return rd(b, o, 4); }
static uint64_t U64(const struct blob *b, size_t o) { return rd(b, o, 8); }

static const char *tmp_path(const char *name)
{
	static char path[512];
	snprintf(path, sizeof(path), "%s/%s", test_tmpdir(), name);
	return path;
}

/* A one-event writer with a known sample_type. */
static struct pdw *open_simple(const char *path, const struct pdw_options *o, uint64_t sample_type,
			       int sample_id_all)
{
	struct c2c_error err = { 0 };
	struct pdw *w = pdw_new(path, o, &err);
	struct pdw_attr a = {
		.type = 4, .config = 0x1cd, .config1 = 30, .sample_period = 4000,
		.sample_type = sample_type, .read_format = 4,
		.bits = PDW_ATTR_DISABLED | PDW_ATTR_FREQ | PDW_ATTR_MMAP |
			(sample_id_all ? PDW_ATTR_SAMPLE_ID_ALL : 0),
		.precise_ip = 3, .name = "cpu/mem-loads,ldlat=30/P", .nr_ids = 2,
	};

	if (!w)
		return NULL;
	if (pdw_add_attr(w, &a) != 0) {
		pdw_free(w);
		return NULL;
	}
	return w;
}

static struct c2c_sample sample_fixture(void)
{
	struct c2c_sample s;

	memset(&s, 0, sizeof(s));
	s.cpumode = C2C_MODE_USER;
	s.exact_ip = 1;
	s.ip = 0x401234;
	s.pid = 100;
	s.tid = 101;
	s.time = 123456789;
	s.addr = 0x7f0000001040;
	s.cpu = 3;
	s.period = 4000;
	s.weight = 250;
	s.data_src = pdw_data_src(PDW_LD_RMT_HITM, 0);
	s.phys_addr = 0x123456000;
	return s;
}

static void test_file_header_and_attr(void)
{
	const char *path = tmp_path("hdr.data");
	struct c2c_error err = { 0 };
	struct pdw *w = open_simple(path, NULL, PDW_SAMPLE_C2C, 1);
	struct c2c_sample s = sample_fixture();
	struct blob b;
	uint64_t attrs, data, data_size, a;

	CHECK(w);
	CHECK(pdw_set_string(w, PDW_FEAT_HOSTNAME, "box") == 0);
	CHECK(pdw_set_nrcpus(w, 4, 4) == 0);
	CHECK(pdw_sample(w, &s) == 0);
	CHECK_EQ_U64(pdw_nr_samples(w), 1);
	CHECK(pdw_close(w, &err) == 0);
	CHECK(blob_load(&b, path, 0) == 0);
	CHECK(memcmp(b.p, "PERFILE2", 8) == 0);
	CHECK_EQ_U64(U64(&b, 8), 104);          /* header size */
	CHECK_EQ_U64(U64(&b, 16), 128 + 16);    /* attr + ids section */
	attrs = U64(&b, 24);
	CHECK_EQ_U64(U64(&b, 32), 144);
	data = U64(&b, 40);
	data_size = U64(&b, 48);
	CHECK_EQ_U64(U64(&b, 56), 0);           /* event_types */
	/* Feature bits: HOSTNAME (3), NRCPUS (7), EVENT_DESC (12), SAMPLE_TIME (21). */
	CHECK_EQ_U64(U64(&b, 72), (1u << 3) | (1u << 7) | (1u << 12) | (1u << 21));
	CHECK_EQ_U64(U64(&b, 80) | U64(&b, 88) | U64(&b, 96), 0);
	/* The attr: type, size, config, period, sample_type, read_format, flags. */
	a = attrs;
	CHECK_EQ_U64(U32(&b, a), 4);
	CHECK_EQ_U64(U32(&b, a + 4), 128);
	CHECK_EQ_U64(U64(&b, a + 8), 0x1cd);
	CHECK_EQ_U64(U64(&b, a + 16), 4000);
	CHECK_EQ_U64(U64(&b, a + 24), PDW_SAMPLE_C2C);
	CHECK_EQ_U64(U64(&b, a + 32), 4);
	CHECK_EQ_U64(U64(&b, a + 40), (1u << 0) | (1u << 8) | (1u << 10) | (3u << 15) | (1u << 18));
	CHECK_EQ_U64(U64(&b, a + 56), 30);       /* config1 = ldlat */
	/* Its ids section: two ids, numbered from 1. */
	CHECK_EQ_U64(U64(&b, a + 128 + 8), 16);
	CHECK_EQ_U64(U64(&b, U64(&b, a + 128)), 1);
	CHECK_EQ_U64(U64(&b, U64(&b, a + 128) + 8), 2);
	/* One sample record of 8 + 10 * 8 bytes fills the data section. */
	CHECK_EQ_U64(data_size, 88);
	CHECK_EQ_U64(U32(&b, data), 9);                         /* PERF_RECORD_SAMPLE */
	CHECK_EQ_U64(U16(&b, data + 4), 2 | (1u << 14));        /* USER | EXACT_IP */
	CHECK_EQ_U64(U16(&b, data + 6), 88);
	CHECK_EQ_U64(U64(&b, data + 8), 0x401234);              /* ip */
	CHECK_EQ_U64(U32(&b, data + 16), 100);                  /* pid */
	CHECK_EQ_U64(U32(&b, data + 20), 101);                  /* tid */
	CHECK_EQ_U64(U64(&b, data + 24), 123456789);            /* time */
	CHECK_EQ_U64(U64(&b, data + 32), 0x7f0000001040);       /* addr */
	CHECK_EQ_U64(U64(&b, data + 40), 2);                    /* id of cpu 3 % 2 ids */
	CHECK_EQ_U64(U32(&b, data + 48), 3);                    /* cpu */
	CHECK_EQ_U64(U64(&b, data + 56), 4000);                 /* period */
	CHECK_EQ_U64(U64(&b, data + 64), 250);                  /* weight */
	CHECK_EQ_U64(U64(&b, data + 72), s.data_src);
	CHECK_EQ_U64(U64(&b, data + 80), 0x123456000);          /* phys_addr */
	/* Feature index right after the data: 4 sections, the first HOSTNAME. */
	{
		uint64_t idx = data + data_size, off = U64(&b, idx), len = U64(&b, idx + 8);
		CHECK_EQ_U64(len, 4 + 64);
		CHECK_EQ_U64(U32(&b, off), 64);
		CHECK(memcmp(b.p + off + 4, "box", 4) == 0);
		/* NRCPUS: avail then online. */
		off = U64(&b, idx + 16);
		CHECK_EQ_U64(U64(&b, idx + 24), 8);
		CHECK_EQ_U64(U32(&b, off), 4);
		/* The last section ends the file. */
		CHECK_EQ_U64(U64(&b, idx + 48) + U64(&b, idx + 56), b.len);
	}
	free(b.p);
}

static void test_sideband_records(void)
{
	const char *path = tmp_path("side.data");
	struct c2c_error err = { 0 };
	struct pdw *w = open_simple(path, NULL, PDW_SAMPLE_TID | PDW_SAMPLE_TIME | PDW_SAMPLE_ID |
				    PDW_SAMPLE_CPU | PDW_SAMPLE_IP, 1);
	struct c2c_mmap m = {
		.pid = 7, .tid = 8, .start = 0x400000, .len = 0x1000, .pgoff = 0, .prot = 5, .flags = 2,
		.cpumode = C2C_MODE_USER, .build_id_size = 20, .filename = "/bin/demo",
	};
	struct c2c_comm c = { .pid = 7, .tid = 7, .exec = 1, .comm = "demo" };
	struct pdw_sid sid = { .time = 555, .cpu = 1, .event = 0 };
	struct blob b;
	uint64_t d, size;

	CHECK(w);
	for (int i = 0; i < 20; i++)
		m.build_id[i] = (uint8_t)(i + 1);
	CHECK(pdw_mmap2(w, &m, &sid) == 0);
	CHECK(pdw_comm(w, &c, &sid) == 0);
	CHECK(pdw_lost(w, 0, 9, &sid) == 0);
	CHECK(pdw_finished_round(w) == 0);
	CHECK(pdw_close(w, &err) == 0);
	CHECK(blob_load(&b, path, 0) == 0);
	d = U64(&b, 40);
	/* MMAP2: 8 header + 32 + 24 build-id area + 8 prot/flags + "/bin/demo\0"
	 * padded to 16 + trailer tid, time, id, cpu (32). */
	size = 8 + 32 + 24 + 8 + 16 + 32;
	CHECK_EQ_U64(U32(&b, d), 10);
	CHECK_EQ_U64(U16(&b, d + 4), 2 | (1u << 14));      /* USER | MMAP_BUILD_ID */
	CHECK_EQ_U64(U16(&b, d + 6), size);
	CHECK_EQ_U64(U32(&b, d + 8), 7);
	CHECK_EQ_U64(U64(&b, d + 16), 0x400000);
	CHECK_EQ_U64(b.p[d + 40], 20);                       /* build_id_size */
	CHECK_EQ_U64(b.p[d + 44], 1);                        /* build_id[0] */
	CHECK_EQ_U64(b.p[d + 63], 20);                       /* build_id[19] */
	CHECK_EQ_U64(U32(&b, d + 64), 5);                    /* prot */
	CHECK(memcmp(b.p + d + 72, "/bin/demo\0\0\0\0\0\0\0", 16) == 0);
	CHECK_EQ_U64(U32(&b, d + 88), 7);                    /* trailer pid */
	CHECK_EQ_U64(U32(&b, d + 92), 8);                    /* trailer tid */
	CHECK_EQ_U64(U64(&b, d + 96), 555);                  /* trailer time */
	CHECK_EQ_U64(U64(&b, d + 104), 2);                   /* id of cpu 1 */
	CHECK_EQ_U64(U32(&b, d + 112), 1);                   /* cpu */
	d += size;
	/* COMM exec: 8 + pid/tid + "demo\0" padded to 8 + 32 trailer. */
	CHECK_EQ_U64(U32(&b, d), 3);
	CHECK_EQ_U64(U16(&b, d + 4), 1u << 13);
	CHECK_EQ_U64(U16(&b, d + 6), 8 + 8 + 8 + 32);
	CHECK(memcmp(b.p + d + 16, "demo\0\0\0\0", 8) == 0);
	d += 56;
	/* LOST: id 0 means the event's first id. */
	CHECK_EQ_U64(U32(&b, d), 2);
	CHECK_EQ_U64(U64(&b, d + 8), 1);
	CHECK_EQ_U64(U64(&b, d + 16), 9);
	d += U16(&b, d + 6);
	CHECK_EQ_U64(U32(&b, d), 68);                        /* FINISHED_ROUND */
	CHECK_EQ_U64(U16(&b, d + 6), 8);
	CHECK_EQ_U64(d + 8, U64(&b, 40) + U64(&b, 48));
	free(b.p);
}

static void test_big_endian(void)
{
	const char *path = tmp_path("be.data");
	struct pdw_options o = { .big_endian = 1, .fd = -1 };
	struct c2c_error err = { 0 };
	struct pdw *w = open_simple(path, &o, PDW_SAMPLE_C2C, 1);
	struct c2c_sample s = sample_fixture();
	struct blob b;
	uint64_t a, d;

	CHECK(w);
	CHECK(pdw_sample(w, &s) == 0);
	CHECK(pdw_close(w, &err) == 0);
	CHECK(blob_load(&b, path, 1) == 0);
	/* A big-endian machine writes the magic u64 byte-swapped. */
	CHECK(memcmp(b.p, "2ELIFREP", 8) == 0);
	CHECK_EQ_U64(U64(&b, 8), 104);
	a = U64(&b, 24);
	CHECK_EQ_U64(U32(&b, a + 4), 128);
	/* Bitfields: disabled (bit 0) is the top bit of byte 0, freq (bit 10)
	 * bit 5 of byte 1, precise_ip 3 (bits 15-16) spans bytes 1 and 2. */
	CHECK_EQ_U64(b.p[a + 40], 0x80 | 0x00);
	CHECK_EQ_U64(b.p[a + 41], 0x80 | 0x20 | 0x01);   /* mmap(8), freq(10), precise bit 15 */
	CHECK_EQ_U64(b.p[a + 42], 0x80 | 0x20);          /* precise bit 16, sample_id_all(18) */
	d = U64(&b, 40);
	CHECK_EQ_U64(U32(&b, d), 9);
	CHECK_EQ_U64(U32(&b, d + 16), 100);
	CHECK_EQ_U64(U32(&b, d + 20), 101);
	CHECK_EQ_U64(U64(&b, d + 72), s.data_src);
	free(b.p);
}

static void test_pipe(void)
{
	const char *path = tmp_path("pipe.data");
	struct pdw_options o = { .pipe = 1, .fd = -1 };
	struct c2c_error err = { 0 };
	struct pdw *w = open_simple(path, &o, PDW_SAMPLE_C2C, 1);
	struct c2c_sample s = sample_fixture();
	struct blob b;
	size_t off = 16;
	int saw_feature = 0, saw_attr = 0, saw_name = 0, saw_sample = 0;

	CHECK(w);
	CHECK(pdw_set_string(w, PDW_FEAT_HOSTNAME, "piped") == 0);
	CHECK(pdw_sample(w, &s) == 0);
	/* Features cannot change once the stream has started. */
	CHECK(pdw_set_string(w, PDW_FEAT_ARCH, "x86_64") == -EBUSY);
	CHECK(pdw_close(w, &err) == -EBUSY);
	w = open_simple(path, &o, PDW_SAMPLE_C2C, 1);
	CHECK(w);
	CHECK(pdw_set_string(w, PDW_FEAT_HOSTNAME, "piped") == 0);
	CHECK(pdw_sample(w, &s) == 0);
	CHECK(pdw_close(w, &err) == 0);
	CHECK(blob_load(&b, path, 0) == 0);
	CHECK(memcmp(b.p, "PERFILE2", 8) == 0);
	CHECK_EQ_U64(U64(&b, 8), 16);
	while (off + 8 <= b.len) {
		uint32_t type = (uint32_t)U32(&b, off);
		uint16_t size = (uint16_t)U16(&b, off + 6);
		CHECK(size >= 8);
		if (type == 80) {                       /* HEADER_FEATURE */
			CHECK(!saw_attr);               /* features come first */
			if (U64(&b, off + 8) == 3) {
				CHECK(memcmp(b.p + off + 20, "piped", 6) == 0);
				saw_feature = 1;
			}
		} else if (type == 64) {                /* HEADER_ATTR: attr + 2 ids */
			CHECK_EQ_U64(size, 8 + 128 + 16);
			CHECK_EQ_U64(U32(&b, off + 8 + 4), 128);
			saw_attr = 1;
		} else if (type == 78) {                /* EVENT_UPDATE name */
			CHECK_EQ_U64(U64(&b, off + 8), 2);
			CHECK(strcmp((const char *)b.p + off + 24, "cpu/mem-loads,ldlat=30/P") == 0);
			saw_name = 1;
		} else if (type == 9) {
			CHECK(saw_attr);
			saw_sample = 1;
		}
		off += size;
	}
	CHECK_EQ_U64(off, b.len);
	CHECK(saw_feature && saw_attr && saw_name && saw_sample);
	free(b.p);
}

static void test_compressed(void)
{
	const char *path = tmp_path("z.data");
	struct pdw_options o = { .compress = 1, .fd = -1 };
	struct c2c_error err = { 0 };
	struct pdw *w = open_simple(path, &o, PDW_SAMPLE_C2C, 1);
	struct c2c_sample s = sample_fixture();
	struct blob b, inner;
	static unsigned char out[1 << 17];
	size_t n = 0, d, end;

	CHECK(w);
	for (int i = 0; i < 1000; i++) {
		s.time++;
		CHECK(pdw_sample(w, &s) == 0);
	}
	CHECK(pdw_close(w, &err) == 0);
	CHECK(blob_load(&b, path, 0) == 0);
	CHECK(U64(&b, 72) & (1ull << 27));       /* COMPRESSED feature */
	d = U64(&b, 40);
	end = d + U64(&b, 48);
	/* Every record is COMPRESSED; their frames inflate to 1000 samples. */
	while (d < end) {
		size_t size = U16(&b, d + 6), got;
		CHECK_EQ_U64(U32(&b, d), 81);
		got = ZSTD_decompress(out + n, sizeof(out) - n, b.p + d + 8, size - 8);
		CHECK(!ZSTD_isError(got));
		n += got;
		d += size;
	}
	CHECK_EQ_U64(d, end);
	CHECK_EQ_U64(n, 1000 * 88);
	inner = (struct blob){ out, n, 0 };
	CHECK_EQ_U64(U32(&inner, 88 * 999), 9);
	CHECK_EQ_U64(U64(&inner, 88 * 999 + 24), 123456789 + 1000);
	free(b.p);
}

static void test_attr_sizes(void)
{
	const char *path = tmp_path("a136.data");
	struct pdw_options o = { .attr_size = 136, .fd = -1 };
	struct c2c_error err = { 0 };
	struct pdw *w = open_simple(path, &o, PDW_SAMPLE_IP, 0);
	struct blob b;

	CHECK(w);
	CHECK(pdw_close(w, &err) == 0);
	CHECK(blob_load(&b, path, 0) == 0);
	CHECK_EQ_U64(U64(&b, 16), 136 + 16);
	CHECK_EQ_U64(U32(&b, U64(&b, 24) + 4), 136);
	free(b.p);
	o.attr_size = 60;
	CHECK(pdw_new(path, &o, &err) == NULL);
	CHECK(err.code == -EINVAL);
	o.attr_size = 64;
	w = open_simple(path, &o, PDW_SAMPLE_IP, 0);
	CHECK(w);
	CHECK(pdw_close(w, &err) == 0);
	CHECK(blob_load(&b, path, 0) == 0);
	CHECK_EQ_U64(U64(&b, 16), 64 + 16);
	CHECK_EQ_U64(U64(&b, U64(&b, 24) + 56), 30);  /* config1 still fits in 64 bytes */
	free(b.p);
}

static void test_misuse(void)
{
	const char *path = tmp_path("bad.data");
	struct c2c_error err = { 0 };
	struct pdw *w = open_simple(path, NULL, PDW_SAMPLE_IP, 0);
	struct pdw_attr read_attr = { .type = 1, .sample_type = 1u << 4 };   /* READ */
	struct c2c_sample s = sample_fixture();

	CHECK(w);
	CHECK(pdw_add_attr(w, &read_attr) == -ENOTSUP);
	pdw_free(w);
	w = open_simple(path, NULL, PDW_SAMPLE_IP, 0);
	CHECK(w);
	s.event = 5;
	CHECK(pdw_sample(w, &s) == -EINVAL);
	CHECK(pdw_error(w)->code == -EINVAL);
	pdw_free(w);
	w = open_simple(path, NULL, PDW_SAMPLE_IP, 0);
	CHECK(w);
	s.event = 0;
	CHECK(pdw_sample(w, &s) == 0);
	CHECK(pdw_add_attr(w, &read_attr) == -EBUSY);
	CHECK(pdw_close(w, &err) == -EBUSY);
	CHECK(pdw_new("/nonexistent-dir/x.data", NULL, &err) == NULL);
	CHECK(err.code == -ENOENT);
}

static void test_raw_and_weight_struct(void)
{
	const char *path = tmp_path("raw.data");
	struct c2c_error err = { 0 };
	struct pdw *w = open_simple(path, NULL, PDW_SAMPLE_RAW | PDW_SAMPLE_WEIGHT_STRUCT, 0);
	struct c2c_sample s = sample_fixture();
	static const char payload[5] = "abcde";
	struct blob b;
	uint64_t d, off;

	CHECK(w);
	s.raw = payload;
	s.raw_size = 5;
	s.ins_lat = 7;
	CHECK(pdw_sample(w, &s) == 0);
	off = pdw_offset(w);
	CHECK(pdw_raw(w, "\x01\x02\x03", 3) == 0);
	CHECK_EQ_U64(pdw_offset(w), off + 3);
	CHECK(pdw_close(w, &err) == 0);
	CHECK(blob_load(&b, path, 0) == 0);
	d = U64(&b, 40);
	/* u32 size + 5 bytes padded so that 4 + size is 8-aligned: size 12. */
	CHECK_EQ_U64(U16(&b, d + 6), 8 + 16 + 8);
	CHECK_EQ_U64(U32(&b, d + 8), 12);
	CHECK(memcmp(b.p + d + 12, "abcde\0\0\0\0\0\0\0", 12) == 0);
	CHECK_EQ_U64(U64(&b, d + 24), 250 | (7ull << 32));
	CHECK_EQ_U64(b.p[off], 1);
	CHECK_EQ_U64(U64(&b, 48), 32 + 3);
	free(b.p);
}

static void test_data_src(void)
{
	uint64_t v = pdw_data_src(PDW_LD_LCL_HITM, PDW_MEM_LOCKED);

	CHECK_EQ_U64(v & 0x1f, 0x02);                 /* OP_LOAD */
	CHECK_EQ_U64((v >> 5) & 0x3fff, 0x02 | 0x40); /* LVL_HIT | LVL_L3 */
	CHECK_EQ_U64((v >> 19) & 0x1f, 0x10);         /* SNOOP_HITM */
	CHECK_EQ_U64((v >> 24) & 0x3, 0x02);          /* LOCK_LOCKED */
	CHECK_EQ_U64((v >> 33) & 0xf, 0x03);          /* LVLNUM_L3 */
	v = pdw_data_src(PDW_LD_RMT_HITM, 0);
	CHECK_EQ_U64((v >> 5) & 0x400, 0x400);        /* REM_CCE1 */
	CHECK_EQ_U64((v >> 37) & 1, 1);               /* remote */
	v = pdw_data_src(PDW_LD_RMT_PEER, PDW_MEM_BLK_ADDR);
	CHECK_EQ_U64((v >> 38) & 0x3, 0x02);          /* SNOOPX_PEER */
	CHECK_EQ_U64((v >> 40) & 0x7, 0x04);          /* BLK_ADDR */
	CHECK_EQ_U64(pdw_data_src(PDW_NOPARSE, 0) & 0x1f, 0x01);
	CHECK_EQ_U64(pdw_mem_src(4, 0, 0, 0, 0, 0, 0, 0, 0, 3), 4 | (3ull << 43));
	CHECK_STR(pdw_mem_class_name(PDW_ST_L1_MISS), "st_l1miss");
}

static void test_scenario_classes(void)
{
	const char *path = tmp_path("classes.data");
	struct gen_params p = { .scenario = "classes", .pdw = { .fd = -1 } };
	struct gen_expect e, e2;
	struct c2c_error err = { 0 };
	struct blob b1, b2;

	CHECK(gen_scenario(path, &p, &e, &err) == 0);
	CHECK_EQ_U64(e.by_class[PDW_LD_LCL_HITM], 5 + PDW_LD_LCL_HITM);
	CHECK_EQ_U64(e.locked, 10);
	CHECK_EQ_U64(e.ld_noadrs, 5);
	CHECK_EQ_U64(e.nomap, 8);
	CHECK_EQ_U64(e.samples, e.loads + e.stores + e.noparse);
	CHECK(blob_load(&b1, path, 0) == 0);
	/* Same seed, same bytes; another seed, another file. */
	CHECK(gen_scenario(path, &p, &e2, &err) == 0);
	CHECK(blob_load(&b2, path, 0) == 0);
	CHECK(b1.len == b2.len && memcmp(b1.p, b2.p, b1.len) == 0);
	free(b2.p);
	p.seed = 7;
	CHECK(gen_scenario(path, &p, &e2, &err) == 0);
	CHECK(blob_load(&b2, path, 0) == 0);
	CHECK(b1.len == b2.len && memcmp(b1.p, b2.p, b1.len) != 0);
	CHECK_EQ_U64(e2.samples, e.samples);
	free(b1.p);
	free(b2.p);
	p.scenario = "no-such";
	CHECK(gen_scenario(path, &p, &e2, &err) == -EINVAL);
}

static void test_tracing_data(void)
{
	struct pdw_tp_format f[3] = {
		{ "lock", pdw_format_contention_begin }, { "sched", "name: x\nID: 1\n" },
		{ "lock", pdw_format_contention_end },
	};
	uint8_t *p, raw[24];
	size_t len, off;
	struct blob b;

	CHECK(pdw_tracing_data(f, 3, 0, &p, &len) == 0);
	b = (struct blob){ p, len, 0 };
	CHECK(memcmp(p, "\027\010\104tracing0.6\0", 14) == 0);
	CHECK_EQ_U64(p[14], 0);                      /* little-endian */
	CHECK_EQ_U64(p[15], 8);                      /* sizeof(long) */
	CHECK_EQ_U64(U32(&b, 16), 4096);
	CHECK(memcmp(p + 20, "header_page\0", 12) == 0);
	off = 32 + 8 + U64(&b, 32);
	CHECK(memcmp(p + off, "header_event\0", 13) == 0);
	off += 13;
	off += 8 + U64(&b, off);
	CHECK_EQ_U64(U32(&b, off), 0);               /* no ftrace formats */
	CHECK_EQ_U64(U32(&b, off + 4), 2);           /* systems: lock, sched */
	off += 8;
	CHECK(strcmp((const char *)p + off, "lock") == 0);
	off += 5;
	CHECK_EQ_U64(U32(&b, off), 2);               /* both lock formats together */
	CHECK_EQ_U64(U64(&b, off + 4), strlen(pdw_format_contention_begin));
	CHECK(memcmp(p + off + 12, "name: contention_begin\nID: 408\n", 31) == 0);
	off += 12 + strlen(pdw_format_contention_begin);
	off += 8 + strlen(pdw_format_contention_end);
	CHECK(strcmp((const char *)p + off, "sched") == 0);
	off += 6 + 4 + 8 + strlen("name: x\nID: 1\n");
	/* kallsyms, printk formats (u32 sizes) and saved cmdlines (u64). */
	CHECK_EQ_U64(off + 4 + 4 + 8, len);
	free(p);
	CHECK(pdw_tracing_data(f, 1, 1, &p, &len) == 0);
	CHECK_EQ_U64(p[14], 1);
	b = (struct blob){ p, len, 1 };
	CHECK_EQ_U64(U32(&b, 16), 4096);
	free(p);
	CHECK_EQ_U64(pdw_raw_contention(raw, 0, 0, 77, 0xffff888100001000ull, 0x21), 20);
	b = (struct blob){ raw, 24, 0 };
	CHECK_EQ_U64(U16(&b, 0), PDW_TP_CONTENTION_BEGIN_ID);
	CHECK_EQ_U64(U32(&b, 4), 77);
	CHECK_EQ_U64(U64(&b, 8), 0xffff888100001000ull);
	CHECK_EQ_U64(U32(&b, 16), 0x21);
	pdw_raw_contention(raw, 1, 1, 77, 0xffff888100001000ull, -4);
	b.be = 1;
	CHECK_EQ_U64(U16(&b, 0), PDW_TP_CONTENTION_END_ID);
	CHECK_EQ_U64(U32(&b, 16), (uint32_t)-4);
}

static void test_pipe_tracing_record(void)
{
	const char *path = tmp_path("tpipe.data");
	struct pdw_options o = { .pipe = 1, .fd = -1 };
	struct c2c_error err = { 0 };
	struct pdw *w = open_simple(path, &o, PDW_SAMPLE_IP, 0);
	static const char blob5[5] = "ABCDE";
	struct blob b;
	size_t off = 16;

	CHECK(w);
	CHECK(pdw_set_tracing_data(w, blob5, 5) == 0);
	CHECK(pdw_finished_round(w) == 0);
	CHECK(pdw_close(w, &err) == 0);
	CHECK(blob_load(&b, path, 0) == 0);
	/* Skip to the record of type 66: a 12-byte record, then the blob padded to 8. */
	while (off + 8 <= b.len && U32(&b, off) != 66)
		off += U16(&b, off + 6);
	CHECK(off + 12 <= b.len);
	CHECK_EQ_U64(U16(&b, off + 6), 12);
	CHECK_EQ_U64(U32(&b, off + 8), 8);
	CHECK(memcmp(b.p + off + 12, "ABCDE\0\0\0", 8) == 0);
	CHECK_EQ_U64(U32(&b, off + 20), 68);          /* the data goes on after it */
	free(b.p);
}

static void test_machine_features(void)
{
	const char *path = tmp_path("machine.data");
	struct c2c_error err = { 0 };
	struct pdw *w = open_simple(path, NULL, PDW_SAMPLE_IP, 0);
	const char *argv[] = { "perf", "c2c", "record" };
	static const uint8_t id[20] = { 0xaa, 0xbb };
	struct blob b;
	uint64_t want, idx, off;

	CHECK(w);
	CHECK(pdw_describe_machine(w, 2, 4, NULL) == 0);
	CHECK(pdw_set_cmdline(w, 3, argv) == 0);
	CHECK(pdw_add_build_id(w, 42, 2, id, 20, "/usr/bin/x") == 0);
	CHECK(pdw_drop_feature(w, PDW_FEAT_EVENT_DESC) == 0);
	CHECK(pdw_set_nrcpus(w, 8, 6) == 0);         /* override after describe */
	CHECK(pdw_close(w, &err) == 0);
	CHECK(blob_load(&b, path, 0) == 0);
	want = (1u << 2) | (1u << 3) | (1u << 4) | (1u << 5) | (1u << 6) | (1u << 7) | (1u << 8) |
	       (1u << 9) | (1u << 10) | (1u << 11) | (1u << 13) | (1u << 14) | (1u << 20) | (1u << 22);
	CHECK_EQ_U64(U64(&b, 72), want);
	idx = U64(&b, 40) + U64(&b, 48);
	/* BUILD_ID first: a build_id_event with misc USER | BUILD_ID_SIZE. */
	off = U64(&b, idx);
	CHECK_EQ_U64(U16(&b, off + 4), 2 | (1u << 15));
	CHECK_EQ_U64(U16(&b, off + 6), 36 + 64);
	CHECK_EQ_U64(U32(&b, off + 8), 42);
	CHECK_EQ_U64(b.p[off + 12], 0xaa);
	CHECK_EQ_U64(b.p[off + 32], 20);
	CHECK(strcmp((const char *)b.p + off + 36, "/usr/bin/x") == 0);
	/* HOSTNAME (second) defaults to the generated marker. */
	off = U64(&b, idx + 16);
	CHECK(strcmp((const char *)b.p + off + 4, "c2c-gen (generated)") == 0);
	/* NRCPUS (sixth section): the override. */
	off = U64(&b, idx + 5 * 16);
	CHECK_EQ_U64(U32(&b, off), 8);
	CHECK_EQ_U64(U32(&b, off + 4), 6);
	/* CMDLINE (tenth): 3 strings, first "perf". */
	off = U64(&b, idx + 9 * 16);
	CHECK_EQ_U64(U32(&b, off), 3);
	CHECK(strcmp((const char *)b.p + off + 8, "perf") == 0);
	/* NUMA_TOPOLOGY (twelfth): node 1 holds CPUs 4-7. */
	off = U64(&b, idx + 11 * 16);
	CHECK_EQ_U64(U32(&b, off), 2);
	off += 4 + 4 + 16 + 4 + 64;
	CHECK_EQ_U64(U32(&b, off), 1);
	CHECK(strcmp((const char *)b.p + off + 4 + 16 + 4, "4-7") == 0);
	free(b.p);
}

TEST_MAIN(
	TEST_CASE(test_file_header_and_attr),
	TEST_CASE(test_sideband_records),
	TEST_CASE(test_big_endian),
	TEST_CASE(test_pipe),
	TEST_CASE(test_compressed),
	TEST_CASE(test_attr_sizes),
	TEST_CASE(test_misuse),
	TEST_CASE(test_raw_and_weight_struct),
	TEST_CASE(test_data_src),
	TEST_CASE(test_scenario_classes),
	TEST_CASE(test_tracing_data),
	TEST_CASE(test_pipe_tracing_record),
	TEST_CASE(test_machine_features),
)
