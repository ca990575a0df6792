/* Unit tests for collector/c2c/c2c_lineid.c: perf's dcacheline identity as
 * line-key variants. */
#include "tests/unit/test.h"

#include "collector/c2c/c2c.h"
#include "collector/c2c/c2c_lineid.h"
#include "collector/base/sample.h"
#include "collector/symbols/symbols.h"
#include "store/store.h"

#include <sys/mman.h>

static const struct c2c_map_id anon = { .mapped = true };
static const struct c2c_map_id anon_shared = { .mapped = true, .shared = true };
static const struct c2c_map_id file_a = { .mapped = true, .maj = 8, .min = 1, .ino = 1234, .ino_generation = 7 };
static const struct c2c_map_id file_b = { .mapped = true, .maj = 8, .min = 1, .ino = 99 };

static void test_ident_rules(void)
{
	struct c2c_line_ident a, b;

	/* private anonymous user memory: keyed by pid */
	c2c_line_ident_init(&a, C2C_MODE_USER, 10, &anon);
	CHECK(a.mapped && a.pid == 10);
	c2c_line_ident_init(&b, C2C_MODE_USER, 11, &anon);
	CHECK(!c2c_line_ident_equal(&a, &b));
	/* MAP_SHARED anonymous memory is not split by pid */
	c2c_line_ident_init(&a, C2C_MODE_USER, 10, &anon_shared);
	c2c_line_ident_init(&b, C2C_MODE_USER, 11, &anon_shared);
	CHECK(a.pid == -1 && c2c_line_ident_equal(&a, &b));
	/* file-backed: the dso identity, not the pid */
	c2c_line_ident_init(&a, C2C_MODE_USER, 10, &file_a);
	c2c_line_ident_init(&b, C2C_MODE_USER, 11, &file_a);
	CHECK(c2c_line_ident_equal(&a, &b));
	c2c_line_ident_init(&b, C2C_MODE_USER, 10, &file_b);
	CHECK(!c2c_line_ident_equal(&a, &b));
	/* kernel mode: no pid even for memory without inode */
	c2c_line_ident_init(&a, C2C_MODE_KERNEL, 10, &anon);
	c2c_line_ident_init(&b, C2C_MODE_KERNEL, 11, &anon);
	CHECK(a.pid == -1 && c2c_line_ident_equal(&a, &b));
	/* unmapped: cpumode alone; NULL and an unmapped id agree */
	struct c2c_map_id none = { 0 };
	c2c_line_ident_init(&a, C2C_MODE_USER, 10, NULL);
	c2c_line_ident_init(&b, C2C_MODE_USER, 11, &none);
	CHECK(!a.mapped && c2c_line_ident_equal(&a, &b));
	c2c_line_ident_init(&b, C2C_MODE_KERNEL, 10, NULL);
	CHECK(!c2c_line_ident_equal(&a, &b));
	/* mapped vs unmapped differ */
	c2c_line_ident_init(&b, C2C_MODE_USER, 10, &file_a);
	CHECK(!c2c_line_ident_equal(&a, &b));
}

static void test_variants(void)
{
	struct c2c_lineid *t = c2c_lineid_new(64);
	struct c2c_line_ident k, u, p1, p2;
	uint64_t key;

	CHECK(t);
	c2c_line_ident_init(&k, C2C_MODE_KERNEL, 5, NULL);
	c2c_line_ident_init(&u, C2C_MODE_USER, 5, NULL);
	c2c_line_ident_init(&p1, C2C_MODE_USER, 5, &anon);
	c2c_line_ident_init(&p2, C2C_MODE_USER, 6, &anon);
	/* first identity of a line: variant 0, key = plain line address */
	CHECK(c2c_lineid_key(t, 0x1234, &u, &key) == 0);
	CHECK_EQ_U64(key, 0x1200);
	CHECK_EQ_U64(c2c_lineid_variant(t, 0x0, &k), 0);
	CHECK_EQ_U64(c2c_lineid_variant(t, 0x8, &u), 1);   /* user after kernel at 0x0 */
	CHECK_EQ_U64(c2c_lineid_variant(t, 0x3f, &k), 0);  /* same line, same identity */
	CHECK_EQ_U64(c2c_lineid_variant(t, 0x40, &u), 0);  /* next line starts at 0 */
	CHECK_EQ_U64(c2c_lineid_variant(t, 0x7000, &p2), 0);
	CHECK_EQ_U64(c2c_lineid_variant(t, 0x7010, &p1), 1);
	CHECK_EQ_U64(c2c_lineid_variant(t, 0x7020, &p2), 0);
	CHECK(c2c_lineid_key(t, 0x7031, &p1, &key) == 0);
	CHECK_EQ_U64(key, 0x7001);
	CHECK_EQ_U64(c2c_line_display(key, 64), 0x7000);
	CHECK_EQ_U64(c2c_lineid_count(t), 6);
	CHECK_EQ_U64(c2c_lineid_overflows(t), 0);
	c2c_lineid_free(t);
}

static void test_overflow_and_growth(void)
{
	struct c2c_lineid *t = c2c_lineid_new(64);
	struct c2c_line_ident id;

	CHECK(t);
	CHECK_EQ_U64(c2c_lineid_max_variant(64), 63);
	CHECK_EQ_U64(c2c_lineid_max_variant(128), 63);
	CHECK_EQ_U64(c2c_lineid_max_variant(32), 31);
	/* 70 pids on one anonymous line: 0..63, then the last variant */
	for (int pid = 0; pid < 70; pid++) {
		c2c_line_ident_init(&id, C2C_MODE_USER, pid, &anon);
		int v = c2c_lineid_variant(t, 0x5000, &id);
		CHECK_EQ_U64(v, pid < 63 ? pid : 63);
	}
	CHECK_EQ_U64(c2c_lineid_overflows(t), 6);   /* pids 64..69 */
	/* many lines: the tables grow and keep every answer */
	for (uint64_t i = 0; i < 5000; i++) {
		c2c_line_ident_init(&id, (uint8_t)(i % 2 ? C2C_MODE_USER : C2C_MODE_KERNEL), 1, NULL);
		CHECK_EQ_U64(c2c_lineid_variant(t, 0x100000 + (i / 2) * 64, &id), i % 2);
	}
	for (uint64_t i = 0; i < 5000; i++) {
		c2c_line_ident_init(&id, (uint8_t)(i % 2 ? C2C_MODE_USER : C2C_MODE_KERNEL), 1, NULL);
		CHECK_EQ_U64(c2c_lineid_variant(t, 0x100000 + (i / 2) * 64 + 8, &id), i % 2);
	}
	c2c_line_ident_init(&id, C2C_MODE_USER, 3, &anon);
	CHECK_EQ_U64(c2c_lineid_variant(t, 0x5000, &id), 3);
	c2c_lineid_free(t);
}

static void test_line_size_128(void)
{
	struct c2c_lineid *t = c2c_lineid_new(128);
	struct c2c_line_ident k, u;
	uint64_t key;

	CHECK(t);
	c2c_line_ident_init(&k, C2C_MODE_KERNEL, 1, NULL);
	c2c_line_ident_init(&u, C2C_MODE_USER, 1, NULL);
	CHECK(c2c_lineid_key(t, 0x1040, &k, &key) == 0);
	CHECK_EQ_U64(key, 0x1000);
	CHECK(c2c_lineid_key(t, 0x1000, &u, &key) == 0);
	CHECK_EQ_U64(key, 0x1001);
	CHECK_EQ_U64(c2c_line_display(key, 128), 0x1000);
	c2c_lineid_free(t);
}

/* symtab_data_map_id: perf's daddr map under the sample's cpumode. */
static void test_symtab_map_id(void)
{
	struct c2c_error err = { 0 };
	struct symtab *st = symtab_new(NULL, &err);
	struct c2c_map_id id;

	CHECK(st);
	struct c2c_mmap anon_m = { .pid = 10, .tid = 10, .start = 0x10000, .len = 0x1000, .prot = PROT_READ | PROT_WRITE,
				   .flags = MAP_PRIVATE, .cpumode = C2C_MODE_USER, .filename = "//anon" };
	struct c2c_mmap shm_m = { .pid = 10, .tid = 10, .start = 0x20000, .len = 0x1000, .prot = PROT_READ,
				  .flags = MAP_SHARED, .cpumode = C2C_MODE_USER, .maj = 0, .min = 5, .ino = 77,
				  .filename = "/dev/shm/x" };
	struct c2c_mmap bid_m = { .pid = 10, .tid = 10, .start = 0x30000, .len = 0x1000, .prot = PROT_READ,
				  .flags = MAP_PRIVATE, .cpumode = C2C_MODE_USER, .build_id_size = 20,
				  .filename = "/usr/bin/true" };
	memset(bid_m.build_id, 0xab, 20);
	CHECK(symtab_mmap(st, &anon_m) == 0 && symtab_mmap(st, &shm_m) == 0 && symtab_mmap(st, &bid_m) == 0);

	CHECK(symtab_data_map_id(st, 10, 10, C2C_MODE_USER, 0x10010, &id));
	CHECK(id.mapped && !id.shared && !id.maj && !id.min && !id.ino && !id.ino_generation);
	CHECK(symtab_data_map_id(st, 10, 10, C2C_MODE_USER, 0x20010, &id));
	CHECK(id.shared && id.min == 5 && id.ino == 77);
	/* a build-id MMAP2: perf reads the union as the id, never all zero */
	CHECK(symtab_data_map_id(st, 10, 10, C2C_MODE_USER, 0x30010, &id));
	CHECK(id.maj == 20 && id.min == 0xababababu && id.ino == 0xababababababababull);
	/* kernel mode does not look at user maps; unmapped is all zero */
	CHECK(!symtab_data_map_id(st, 10, 10, C2C_MODE_KERNEL, 0x10010, &id));
	CHECK(!id.mapped && !id.ino);
	CHECK(!symtab_data_map_id(st, 10, 10, C2C_MODE_USER, 0x50000, &id));
	/* so a futex word touched in both modes gives two identities */
	struct c2c_line_ident a, b;
	symtab_data_map_id(st, 10, 10, C2C_MODE_USER, 0x10010, &id);
	c2c_line_ident_init(&a, C2C_MODE_USER, 10, &id);
	symtab_data_map_id(st, 10, 10, C2C_MODE_KERNEL, 0x10010, &id);
	c2c_line_ident_init(&b, C2C_MODE_KERNEL, 10, &id);
	CHECK(!c2c_line_ident_equal(&a, &b) && a.pid == 10 && b.pid == -1);
	symtab_free(st);
}

/* Line key of the row at addr|var, or NULL. */
static const struct store_line_row *find_row(const struct store_line_row *rows, size_t n, uint64_t key)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].addr == key)
			return &rows[i];
	return NULL;
}

/* The store keys lines by address | variant, keeps the variant per sample
 * (a filtered view recomputes the same lines) and numbers identities in
 * sample order. */
static void test_store_lines(void)
{
	struct c2c_error err = { 0 };
	struct store *st = NULL;
	char path[512];
	/* load, L1 hit */
	uint64_t ds = 0x2 | (0xaull << 5);
	struct { int32_t pid; uint8_t mode; uint64_t addr; bool mapped; } in[] = {
		{ 10, C2C_MODE_USER, 0x7000, true },    /* user anon, pid 10: variant 0 */
		{ 11, C2C_MODE_USER, 0x7008, true },    /* pid 11: variant 1 */
		{ 10, C2C_MODE_KERNEL, 0x7008, false }, /* kernel mode, no map: variant 2 */
		{ 10, C2C_MODE_USER, 0x7030, true },    /* pid 10 again: variant 0 */
		{ 11, C2C_MODE_USER, 0x7040, true },    /* next line: variant 0 */
	};

	snprintf(path, sizeof(path), "%s/lineid.db", test_tmpdir());
	CHECK(store_create(&st, path, &err) == 0);
	CHECK(store_set_meta(st, STORE_META_CACHELINE, "64", &err) == 0);
	struct store_event ev = { .index = 0, .name = "cpu/mem-loads,ldlat=30/P", .attr_type = 4, .config = 0x1cd };
	CHECK(store_add_event(st, &ev, &err) == 0);
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		struct c2c_sample smp = { .has = C2C_HAS_CPU | C2C_HAS_DATA_SRC, .cpumode = in[i].mode,
					  .time = 1000 + i, .ip = 0x400000, .pid = in[i].pid, .tid = in[i].pid,
					  .cpu = 0, .addr = in[i].addr, .data_src = ds };
		struct c2c_map_id m = { .mapped = in[i].mapped };
		struct c2c_line_ident id;
		struct store_sample_ctx ctx = { .node = 0 };

		c2c_line_ident_init(&id, in[i].mode, in[i].pid, &m);
		ctx.class_bits = c2c_classify(ds, smp.addr, in[i].mapped, true);
		ctx.line_ident = &id;
		CHECK(store_add_sample(st, &smp, &ctx, &err) == 0);
	}
	CHECK(store_finalize(st, &err) == 0);

	struct store_lines_query q;
	struct store_line_row *rows = NULL;
	size_t n = 0;
	uint64_t total = 0;
	store_lines_query_init(&q);
	q.show_all = true;
	CHECK(store_query_lines(st, &q, &rows, &n, &total, &err) == 0);
	CHECK_EQ_U64(n, 4);
	CHECK(find_row(rows, n, 0x7000) && find_row(rows, n, 0x7000)->stats.nr_entries == 2);
	CHECK(find_row(rows, n, 0x7001) && find_row(rows, n, 0x7001)->stats.nr_entries == 1);
	CHECK(find_row(rows, n, 0x7002) && find_row(rows, n, 0x7002)->stats.nr_entries == 1);
	CHECK(find_row(rows, n, 0x7040) && find_row(rows, n, 0x7040)->stats.nr_entries == 1);
	CHECK_EQ_U64(c2c_line_display(0x7002, 64), 0x7000);
	free(rows);

	/* a pid filter recomputes from the samples table: same keys */
	rows = NULL;
	q.filter.pid = 10;
	int rc = store_query_lines(st, &q, &rows, &n, &total, &err);
	if (rc < 0)
		printf("# %s\n", err.msg);
	CHECK(rc == 0);
	CHECK_EQ_U64(n, 2);
	CHECK(find_row(rows, n, 0x7000) && find_row(rows, n, 0x7000)->stats.nr_entries == 2);
	CHECK(find_row(rows, n, 0x7002) && find_row(rows, n, 0x7002)->stats.nr_entries == 1);
	free(rows);
	store_close(st);
}

TEST_MAIN(TEST_CASE(test_ident_rules), TEST_CASE(test_variants), TEST_CASE(test_overflow_and_growth),
	  TEST_CASE(test_line_size_128), TEST_CASE(test_symtab_map_id),
	  TEST_CASE(test_store_lines))
