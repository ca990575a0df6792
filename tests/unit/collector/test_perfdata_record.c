/* Unit tests of collector/perfdata/perf_record.c: one record at a time, every sample
 * field, both byte orders, and every truncation of a record. */
#include "tests/unit/test.h"
#include "tests/unit/test_perfdata_build.h"

#include "collector/perfdata/perf_record.h"

enum {
	S_IP = 1u << 0, S_TID = 1u << 1, S_TIME = 1u << 2, S_ADDR = 1u << 3,
	S_READ = 1u << 4, S_CALLCHAIN = 1u << 5, S_ID = 1u << 6, S_CPU = 1u << 7,
	S_PERIOD = 1u << 8, S_STREAM_ID = 1u << 9, S_RAW = 1u << 10,
	S_BRANCH_STACK = 1u << 11, S_REGS_USER = 1u << 12, S_STACK_USER = 1u << 13,
	S_WEIGHT = 1u << 14, S_DATA_SRC = 1u << 15, S_IDENTIFIER = 1u << 16,
	S_TRANSACTION = 1u << 17, S_REGS_INTR = 1u << 18, S_PHYS_ADDR = 1u << 19,
	S_AUX = 1u << 20, S_CGROUP = 1u << 21, S_DATA_PAGE_SIZE = 1u << 22,
	S_CODE_PAGE_SIZE = 1u << 23, S_WEIGHT_STRUCT = 1u << 24,
	S_ALL = (1u << 25) - 1 - S_WEIGHT,
	F_TE = 1, F_TR = 2, F_ID = 4, F_GROUP = 8, F_LOST = 16,
};

/* A sample carrying every field (WEIGHT_STRUCT rather than WEIGHT). */
static size_t build_full_sample(struct pdb *p)
{
	size_t at = pdb_rec_begin(p, PERF_REC_SAMPLE, 2 /* user */ | PERF_REC_MISC_EXACT_IP);
	pdb_u64(p, 77);                        /* IDENTIFIER */
	pdb_u64(p, 0x401000);                  /* IP */
	pdb_u32(p, 100); pdb_u32(p, 101);      /* TID */
	pdb_u64(p, 5000000123ull);             /* TIME */
	pdb_u64(p, 0x7f0000001040ull);         /* ADDR */
	pdb_u64(p, 77);                        /* ID */
	pdb_u64(p, 78);                        /* STREAM_ID */
	pdb_u32(p, 3); pdb_u32(p, 0);          /* CPU */
	pdb_u64(p, 4000);                      /* PERIOD */
	/* READ, group with TE, TR, ID, LOST: nr, te, tr, {value, id, lost} x2 */
	pdb_u64(p, 2); pdb_u64(p, 10); pdb_u64(p, 11);
	pdb_u64(p, 1); pdb_u64(p, 77); pdb_u64(p, 0);
	pdb_u64(p, 2); pdb_u64(p, 79); pdb_u64(p, 0);
	/* CALLCHAIN */
	pdb_u64(p, 3); pdb_u64(p, (uint64_t)-512); pdb_u64(p, 0x401000); pdb_u64(p, 0x402000);
	/* RAW: u32 size + 5 bytes, padded to 8 together */
	pdb_u32(p, 5); pdb_bytes(p, "abcde", 5); pdb_bytes(p, NULL, 7);
	/* BRANCH_STACK with HW_INDEX: nr, hw_idx, 2 x {from, to, flags} */
	pdb_u64(p, 2); pdb_u64(p, 9);
	for (int i = 0; i < 6; i++)
		pdb_u64(p, 0x1000 + (uint64_t)i);
	/* REGS_USER: abi, regs for mask 0x3 (2 regs) */
	pdb_u64(p, 2); pdb_u64(p, 0xaa); pdb_u64(p, 0xbb);
	/* STACK_USER: size 16, data, dyn_size */
	pdb_u64(p, 16); pdb_bytes(p, "0123456789abcdef", 16); pdb_u64(p, 12);
	/* WEIGHT_STRUCT: var1 (latency) low 32 bits, var2 (ins_lat) next 16 */
	pdb_u64(p, (uint64_t)0x0007 << 48 | (uint64_t)55 << 32 | 321);
	pdb_u64(p, 0x68100142ull);             /* DATA_SRC */
	pdb_u64(p, 0x10);                      /* TRANSACTION */
	pdb_u64(p, 2); pdb_u64(p, 0xcc);       /* REGS_INTR: abi, 1 reg for mask 0x8 */
	pdb_u64(p, 0x12345000ull);             /* PHYS_ADDR */
	pdb_u64(p, 0x99);                      /* CGROUP */
	pdb_u64(p, 4096);                      /* DATA_PAGE_SIZE */
	pdb_u64(p, 2097152);                   /* CODE_PAGE_SIZE */
	pdb_u64(p, 8); pdb_bytes(p, "AUXDATA!", 8);   /* AUX */
	pdb_rec_end(p, at);
	return at;
}

static struct perf_attr_info full_attr(void)
{
	struct perf_attr_info a;
	memset(&a, 0, sizeof(a));
	a.sample_type = S_ALL;
	a.read_format = F_GROUP | F_TE | F_TR | F_ID | F_LOST;
	a.branch_sample_type = 1u << 17;       /* HW_INDEX */
	a.sample_regs_user = 0x3;
	a.sample_regs_intr = 0x8;
	a.index = 4;
	perf_attr_set_flags(&a, PERF_ATTR_SAMPLE_ID_ALL);
	return a;
}

static void check_full_sample(bool be)
{
	struct pdb p = { .be = be };
	struct perf_attr_info a = full_attr();
	struct c2c_sample s;
	struct c2c_error err = { 0 };
	uint64_t id = 0;

	build_full_sample(&p);
	CHECK(perf_record_parse_sample(&a, p.b, p.n, be, &s, &err) == 0);
	CHECK_EQ_U64(s.event, 4);
	CHECK_EQ_U64(s.cpumode, C2C_MODE_USER);
	CHECK_EQ_U64(s.exact_ip, 1);
	CHECK_EQ_U64(s.id, 77);
	CHECK_EQ_U64(s.ip, 0x401000);
	CHECK_EQ_U64(s.pid, 100);
	CHECK_EQ_U64(s.tid, 101);
	CHECK_EQ_U64(s.time, 5000000123ull);
	CHECK_EQ_U64(s.addr, 0x7f0000001040ull);
	CHECK_EQ_U64(s.cpu, 3);
	CHECK_EQ_U64(s.period, 4000);
	CHECK_EQ_U64(s.nr_callchain, 3);
	CHECK(s.callchain != NULL);
	CHECK_EQ_U64(s.callchain[0], (uint64_t)-512);
	CHECK_EQ_U64(s.callchain[2], 0x402000);
	CHECK_EQ_U64(s.raw_size, 5);
	CHECK(memcmp(s.raw, "abcde", 5) == 0);
	CHECK_EQ_U64(s.weight, 321);
	CHECK_EQ_U64(s.ins_lat, 55);
	CHECK_EQ_U64(s.data_src, 0x68100142ull);
	CHECK_EQ_U64(s.transaction, 0x10);
	CHECK_EQ_U64(s.phys_addr, 0x12345000ull);
	CHECK_EQ_U64(s.data_page_size, 4096);
	CHECK_EQ_U64(s.code_page_size, 2097152);
	CHECK(s.has & C2C_HAS_WEIGHT);
	CHECK(s.has & C2C_HAS_DATA_SRC);
	CHECK(s.has & C2C_HAS_CALLCHAIN);
	CHECK(s.has & C2C_HAS_RAW);
	CHECK(perf_record_sample_id(&a, p.b, p.n, be, &id) == 1);
	CHECK_EQ_U64(id, 77);

	/* Every shorter size leaves some field hanging past the end. */
	for (size_t n = 0; n < p.n; n++) {
		if (perf_record_parse_sample(&a, p.b, n, be, &s, &err) == 0) {
			test_failf(__FILE__, __LINE__, "truncated sample of %zu/%zu bytes parsed", n, p.n);
			pdb_free(&p);
			return;
		}
	}
	CHECK(strstr(err.msg, "too short") != NULL);
	pdb_free(&p);
}

static void test_sample_all_fields_native(void) { check_full_sample(false); }
static void test_sample_all_fields_foreign_endian(void) { check_full_sample(true); }

/* Sizes inside the record that claim more than is there: no crash, an error. */
static void test_sample_absurd_counts(void)
{
	struct perf_attr_info a;
	struct c2c_sample s;
	struct pdb p = { 0 };
	size_t at;

	memset(&a, 0, sizeof(a));
	a.sample_type = S_CALLCHAIN;
	at = pdb_rec_begin(&p, PERF_REC_SAMPLE, 0);
	pdb_u64(&p, (uint64_t)1 << 61);          /* callchain nr */
	pdb_u64(&p, 1);
	pdb_rec_end(&p, at);
	CHECK(perf_record_parse_sample(&a, p.b, p.n, false, &s, NULL) < 0);

	a.sample_type = S_RAW;
	p.n = 0;
	at = pdb_rec_begin(&p, PERF_REC_SAMPLE, 0);
	pdb_u32(&p, 0xffffffffu);
	pdb_u32(&p, 0);
	pdb_rec_end(&p, at);
	CHECK(perf_record_parse_sample(&a, p.b, p.n, false, &s, NULL) < 0);

	a.sample_type = S_READ;
	a.read_format = F_GROUP | F_ID;
	p.n = 0;
	at = pdb_rec_begin(&p, PERF_REC_SAMPLE, 0);
	pdb_u64(&p, (uint64_t)1 << 62);
	pdb_rec_end(&p, at);
	CHECK(perf_record_parse_sample(&a, p.b, p.n, false, &s, NULL) < 0);

	a.sample_type = S_BRANCH_STACK;
	a.branch_sample_type = 1u << 19;         /* COUNTERS */
	p.n = 0;
	at = pdb_rec_begin(&p, PERF_REC_SAMPLE, 0);
	pdb_u64(&p, ((uint64_t)1 << 63) / 3);
	pdb_rec_end(&p, at);
	CHECK(perf_record_parse_sample(&a, p.b, p.n, false, &s, NULL) < 0);

	a.sample_type = S_STACK_USER;
	p.n = 0;
	at = pdb_rec_begin(&p, PERF_REC_SAMPLE, 0);
	pdb_u64(&p, ~0ull);
	pdb_rec_end(&p, at);
	CHECK(perf_record_parse_sample(&a, p.b, p.n, false, &s, NULL) < 0);
	pdb_free(&p);
}

/* WEIGHT (full u64) vs WEIGHT_STRUCT. */
static void test_sample_weight_full(void)
{
	struct perf_attr_info a;
	struct c2c_sample s;
	struct pdb p = { 0 };
	size_t at;

	memset(&a, 0, sizeof(a));
	a.sample_type = S_WEIGHT | S_DATA_SRC;
	at = pdb_rec_begin(&p, PERF_REC_SAMPLE, 1);
	pdb_u64(&p, 0x100000123ull);
	pdb_u64(&p, 0x42);
	pdb_rec_end(&p, at);
	CHECK(perf_record_parse_sample(&a, p.b, p.n, false, &s, NULL) == 0);
	CHECK_EQ_U64(s.weight, 0x100000123ull);
	CHECK_EQ_U64(s.ins_lat, 0);
	CHECK_EQ_U64(s.data_src, 0x42);
	CHECK_EQ_U64(s.cpumode, C2C_MODE_KERNEL);
	pdb_free(&p);
}

static void check_sideband(bool be)
{
	struct perf_attr_info a;
	struct pdb p = { .be = be };
	struct c2c_mmap m;
	struct c2c_comm cm;
	struct c2c_task tk;
	struct c2c_lost l;
	struct c2c_throttle th;
	struct perf_sample_id sid;
	uint64_t id;
	size_t at;

	memset(&a, 0, sizeof(a));
	a.sample_type = S_TID | S_TIME | S_ID | S_CPU | S_IDENTIFIER;
	perf_attr_set_flags(&a, PERF_ATTR_SAMPLE_ID_ALL);
	CHECK_EQ_U64(perf_record_sample_id_size(&a), 40);

	/* MMAP2 with build-id, and its trailer */
	at = pdb_rec_begin(&p, PERF_REC_MMAP2, 2 | PERF_REC_MISC_MMAP_BUILD_ID);
	pdb_u32(&p, 10); pdb_u32(&p, 11);
	pdb_u64(&p, 0x400000); pdb_u64(&p, 0x2000); pdb_u64(&p, 0x1000);
	pdb_u8(&p, 20); pdb_u8(&p, 0); pdb_u16(&p, 0);
	for (int i = 0; i < 20; i++)
		pdb_u8(&p, (uint8_t)(0xa0 + i));
	pdb_u32(&p, 5); pdb_u32(&p, 2);
	pdb_bytes(&p, "/usr/bin/x\0\0\0\0\0\0", 16);
	pdb_u32(&p, 10); pdb_u32(&p, 11);        /* TID */
	pdb_u64(&p, 999);                        /* TIME */
	pdb_u64(&p, 1234);                       /* ID */
	pdb_u32(&p, 7); pdb_u32(&p, 0);          /* CPU */
	pdb_u64(&p, 1234);                       /* IDENTIFIER */
	pdb_rec_end(&p, at);
	CHECK(perf_record_parse_mmap(p.b, p.n, be, &m, NULL) == 0);
	CHECK_EQ_U64(m.pid, 10);
	CHECK_EQ_U64(m.start, 0x400000);
	CHECK_EQ_U64(m.len, 0x2000);
	CHECK_EQ_U64(m.pgoff, 0x1000);
	CHECK_EQ_U64(m.build_id_size, 20);
	CHECK_EQ_U64(m.build_id[19], 0xa0 + 19);
	CHECK_EQ_U64(m.prot, 5);
	CHECK_EQ_U64(m.flags, 2);
	CHECK_STR(m.filename, "/usr/bin/x");
	CHECK(perf_record_parse_sample_id(&a, p.b, p.n, be, &sid, NULL) == 0);
	CHECK_EQ_U64(sid.time, 999);
	CHECK_EQ_U64(sid.cpu, 7);
	CHECK_EQ_U64(sid.pid, 10);
	CHECK_EQ_U64(sid.id, 1234);
	CHECK(perf_record_sample_id(&a, p.b, p.n, be, &id) == 1);
	CHECK_EQ_U64(id, 1234);

	/* MMAP2 with maj/min/ino, MMAP */
	p.n = 0;
	at = pdb_rec_begin(&p, PERF_REC_MMAP2, 2);
	pdb_u32(&p, 1); pdb_u32(&p, 1);
	pdb_u64(&p, 1); pdb_u64(&p, 2); pdb_u64(&p, 3);
	pdb_u32(&p, 8); pdb_u32(&p, 3); pdb_u64(&p, 4242); pdb_u64(&p, 1);
	pdb_u32(&p, 7); pdb_u32(&p, 1);
	pdb_bytes(&p, "libc\0\0\0\0", 8);
	pdb_rec_end(&p, at);
	CHECK(perf_record_parse_mmap(p.b, p.n, be, &m, NULL) == 0);
	CHECK_EQ_U64(m.maj, 8);
	CHECK_EQ_U64(m.min, 3);
	CHECK_EQ_U64(m.ino, 4242);
	CHECK_EQ_U64(m.build_id_size, 0);
	CHECK_STR(m.filename, "libc");
	/* a filename without its NUL inside the record */
	CHECK(perf_record_parse_mmap(p.b, p.n - 4, be, &m, NULL) < 0);

	p.n = 0;
	at = pdb_rec_begin(&p, PERF_REC_MMAP, 1);
	pdb_u32(&p, 2); pdb_u32(&p, 3);
	pdb_u64(&p, 0xffffffff81000000ull); pdb_u64(&p, 0x1000000); pdb_u64(&p, 0);
	pdb_bytes(&p, "[kernel.kallsyms]_text\0\0", 24);
	pdb_rec_end(&p, at);
	CHECK(perf_record_parse_mmap(p.b, p.n, be, &m, NULL) == 0);
	CHECK_EQ_U64(m.cpumode, C2C_MODE_KERNEL);
	CHECK_STR(m.filename, "[kernel.kallsyms]_text");

	/* COMM with exec flag and time from the trailer */
	p.n = 0;
	at = pdb_rec_begin(&p, PERF_REC_COMM, PERF_REC_MISC_COMM_EXEC);
	pdb_u32(&p, 20); pdb_u32(&p, 21);
	pdb_bytes(&p, "worker\0\0", 8);
	pdb_u32(&p, 20); pdb_u32(&p, 21); pdb_u64(&p, 555); pdb_u64(&p, 1); pdb_u64(&p, 0); pdb_u64(&p, 1);
	pdb_rec_end(&p, at);
	CHECK(perf_record_parse_comm(&a, p.b, p.n, be, &cm, NULL) == 0);
	CHECK_EQ_U64(cm.pid, 20);
	CHECK_EQ_U64(cm.exec, 1);
	CHECK_EQ_U64(cm.time, 555);
	CHECK_STR(cm.comm, "worker");

	/* FORK */
	p.n = 0;
	at = pdb_rec_begin(&p, PERF_REC_FORK, 0);
	pdb_u32(&p, 30); pdb_u32(&p, 1); pdb_u32(&p, 31); pdb_u32(&p, 1); pdb_u64(&p, 777);
	pdb_rec_end(&p, at);
	CHECK(perf_record_parse_task(p.b, p.n, be, &tk, NULL) == 0);
	CHECK_EQ_U64(tk.pid, 30);
	CHECK_EQ_U64(tk.ppid, 1);
	CHECK_EQ_U64(tk.tid, 31);
	CHECK_EQ_U64(tk.time, 777);
	CHECK(perf_record_parse_task(p.b, p.n - 8, be, &tk, NULL) < 0);

	/* LOST, LOST_SAMPLES */
	p.n = 0;
	at = pdb_rec_begin(&p, PERF_REC_LOST, 0);
	pdb_u64(&p, 1234); pdb_u64(&p, 17);
	pdb_rec_end(&p, at);
	CHECK(perf_record_parse_lost(NULL, p.b, p.n, be, &l, NULL) == 0);
	CHECK_EQ_U64(l.id, 1234);
	CHECK_EQ_U64(l.lost, 17);
	CHECK(!l.samples);
	p.n = 0;
	at = pdb_rec_begin(&p, PERF_REC_LOST_SAMPLES, 0);
	pdb_u64(&p, 5);
	pdb_rec_end(&p, at);
	CHECK(perf_record_parse_lost(NULL, p.b, p.n, be, &l, NULL) == 0);
	CHECK_EQ_U64(l.lost, 5);
	CHECK(l.samples);

	/* THROTTLE / UNTHROTTLE */
	p.n = 0;
	at = pdb_rec_begin(&p, PERF_REC_UNTHROTTLE, 0);
	pdb_u64(&p, 100); pdb_u64(&p, 1234); pdb_u64(&p, 9);
	pdb_rec_end(&p, at);
	CHECK(perf_record_parse_throttle(p.b, p.n, be, &th, NULL) == 0);
	CHECK(th.unthrottle);
	CHECK_EQ_U64(th.time, 100);
	CHECK_EQ_U64(th.id, 1234);
	CHECK(perf_record_parse_throttle(p.b, 24, be, &th, NULL) < 0);
	pdb_free(&p);
}

static void test_sideband_native(void) { check_sideband(false); }
static void test_sideband_foreign_endian(void) { check_sideband(true); }

/* The id of a record without IDENTIFIER: ID at its position. */
static void test_sample_id_position(void)
{
	struct perf_attr_info a;
	struct pdb p = { 0 };
	uint64_t id = 0;
	size_t at;

	memset(&a, 0, sizeof(a));
	a.sample_type = S_IP | S_TID | S_TIME | S_ADDR | S_ID | S_CPU;
	perf_attr_set_flags(&a, PERF_ATTR_SAMPLE_ID_ALL);
	at = pdb_rec_begin(&p, PERF_REC_SAMPLE, 0);
	for (int i = 0; i < 4; i++)
		pdb_u64(&p, 1);
	pdb_u64(&p, 4321);
	pdb_u64(&p, 0);
	pdb_rec_end(&p, at);
	CHECK(perf_record_sample_id(&a, p.b, p.n, false, &id) == 1);
	CHECK_EQ_U64(id, 4321);
	CHECK(perf_record_sample_id(&a, p.b, 40, false, &id) < 0);

	/* non-sample: trailer TID TIME ID CPU; id is 2 words from the end */
	p.n = 0;
	at = pdb_rec_begin(&p, PERF_REC_EXIT, 0);
	for (int i = 0; i < 4; i++)
		pdb_u32(&p, 0);
	pdb_u64(&p, 0);
	pdb_u64(&p, 1); pdb_u64(&p, 2); pdb_u64(&p, 8765); pdb_u64(&p, 3);
	pdb_rec_end(&p, at);
	CHECK(perf_record_sample_id(&a, p.b, p.n, false, &id) == 1);
	CHECK_EQ_U64(id, 8765);
	perf_attr_set_flags(&a, 0);
	CHECK(perf_record_sample_id(&a, p.b, p.n, false, &id) == 0);
	pdb_free(&p);
}

/* Attr sizes of every ABI version, a 136-byte one and a bigger future one. */
static void test_attr_sizes(void)
{
	static const uint32_t sizes[] = { 64, 72, 80, 96, 104, 112, 120, 128, 136, 160 };

	for (int be = 0; be < 2; be++) {
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			struct tattr t = { .type = 4, .size = sizes[i], .config = 0x1cd, .period = 4000,
					   .sample_type = 0x8c18f, .read_format = F_ID,
					   .flags = PERF_ATTR_FREQ | PERF_ATTR_SAMPLE_ID_ALL | (2ull << 15) |
						    PERF_ATTR_EXCLUDE_KERNEL,
					   .config1 = 0x1f, .config2 = 7, .branch_sample_type = 9,
					   .regs_user = 0xff, .stack_user = 8192, .regs_intr = 0xf0,
					   .config3 = 0x33 };
			struct pdb p = { .be = be };
			struct perf_attr_info a;
			struct c2c_error err;

			pdb_attr(&p, &t, t.size);
			CHECK(perf_attr_decode(p.b, p.n, be, &a, &err) == 0);
			CHECK_EQ_U64(a.size, sizes[i]);
			CHECK_EQ_U64(a.type, 4);
			CHECK_EQ_U64(a.config, 0x1cd);
			CHECK_EQ_U64(a.sample_period, 4000);
			CHECK_EQ_U64(a.sample_type, 0x8c18f);
			CHECK(a.freq && a.sample_id_all && a.exclude_kernel && !a.exclude_user);
			CHECK_EQ_U64(a.precise_ip, 2);
			CHECK_EQ_U64(a.config1, 0x1f);
			CHECK_EQ_U64(a.config2, sizes[i] >= 72 ? 7 : 0);
			CHECK_EQ_U64(a.branch_sample_type, sizes[i] >= 80 ? 9 : 0);
			CHECK_EQ_U64(a.sample_regs_user, sizes[i] >= 96 ? 0xff : 0);
			CHECK_EQ_U64(a.sample_stack_user, sizes[i] >= 96 ? 8192 : 0);
			CHECK_EQ_U64(a.sample_regs_intr, sizes[i] >= 104 ? 0xf0 : 0);
			CHECK_EQ_U64(a.config3, sizes[i] >= 136 ? 0x33 : 0);
			pdb_free(&p);
		}
	}
}

static void test_attr_bad_sizes(void)
{
	struct tattr t = { .type = 4, .size = 136 };
	struct pdb p = { 0 };
	struct perf_attr_info a;
	struct c2c_error err;

	pdb_attr(&p, &t, 0);          /* size field 0: ABI 0, 64 bytes */
	CHECK(perf_attr_decode(p.b, p.n, false, &a, &err) == 0);
	CHECK_EQ_U64(a.size, 64);
	CHECK(perf_attr_decode(p.b, 63, false, &a, &err) < 0);
	p.n = 0;
	pdb_attr(&p, &t, 200);        /* claims more than there is */
	CHECK(perf_attr_decode(p.b, p.n, false, &a, &err) < 0);
	CHECK(strstr(err.msg, "200") != NULL);
	p.n = 0;
	pdb_attr(&p, &t, 12);         /* below the minimum */
	CHECK(perf_attr_decode(p.b, p.n, false, &a, &err) < 0);
	pdb_free(&p);
}

/* PERF_CONTEXT_* markers: recognised, and the mode they name is taken up;
 * addresses (even high kernel ones) are not markers. */
static void test_callchain_markers(void)
{
	uint8_t mode = C2C_MODE_UNKNOWN;

	CHECK(!perf_callchain_marker(0xffffffff81000000ull, &mode));
	CHECK(mode == C2C_MODE_UNKNOWN);
	CHECK(perf_callchain_marker((uint64_t)-128, &mode) && mode == C2C_MODE_KERNEL);
	CHECK(perf_callchain_marker((uint64_t)-512, &mode) && mode == C2C_MODE_USER);
	CHECK(perf_callchain_marker((uint64_t)-32, &mode) && mode == C2C_MODE_HYPERVISOR);
	CHECK(perf_callchain_marker((uint64_t)-2176, &mode) && mode == C2C_MODE_GUEST_KERNEL);
	CHECK(perf_callchain_marker((uint64_t)-2560, &mode) && mode == C2C_MODE_GUEST_USER);
	/* PERF_CONTEXT_GUEST (-2048) is a marker naming no mode: mode unchanged */
	CHECK(perf_callchain_marker((uint64_t)-2048, &mode) && mode == C2C_MODE_GUEST_USER);
	CHECK(!perf_callchain_marker((uint64_t)-4096, &mode));
}

TEST_MAIN(
	TEST_CASE(test_sample_all_fields_native),
	TEST_CASE(test_sample_all_fields_foreign_endian),
	TEST_CASE(test_sample_absurd_counts),
	TEST_CASE(test_sample_weight_full),
	TEST_CASE(test_sideband_native),
	TEST_CASE(test_sideband_foreign_endian),
	TEST_CASE(test_sample_id_position),
	TEST_CASE(test_attr_sizes),
	TEST_CASE(test_attr_bad_sizes),
	TEST_CASE(test_callchain_markers),
)
