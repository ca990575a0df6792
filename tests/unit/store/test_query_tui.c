/* The explorer's own store queries (store/query/query_tui.c): a lock's call
 * sites with the filter applied, lock kind names from contention_begin's
 * flags, and lines holding lock waits in the lines table only when asked
 * (with_locks; perf's table, which report prints, keeps its rule). */
#include "tests/unit/test.h"
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct store *make_locks(const char *name, struct c2c_error *err)
{
	struct store *st;
	char path[4200];
	int64_t a, b;

	snprintf(path, sizeof(path), "%s/%s", test_tmpdir(), name);
	if (store_create(&st, path, err) < 0)
		return NULL;
	struct store_site_info sa = { .ip = 0xffffffff81000200ull, .pid = -1, .cpumode = C2C_MODE_KERNEL,
				      .function = "pipe_write", .offset = 0x40, .dso = "[kernel.kallsyms]" };
	struct store_site_info sb = { .ip = 0xffffffff81000300ull, .pid = -1, .cpumode = C2C_MODE_KERNEL,
				      .function = "pipe_read", .offset = 0x10, .dso = "[kernel.kallsyms]" };
	a = store_site_intern(st, &sa, err);
	b = store_site_intern(st, &sb, err);
	if (a <= 0 || b <= 0)
		goto fail;
	/* 6 waits from pipe_write (cpu 0/1), 3 from pipe_read (cpu 2), one
	 * without a caller; all on a mutex at +0x10 of line 0x...1000 */
	for (int i = 0; i < 10; i++) {
		struct store_lock_wait w = {
			.time = 1000 + (uint64_t)i * 100, .pid = 7, .tid = 7 + i % 3, .cpu = i < 6 ? (uint32_t)(i % 2) : 2,
			.lock_addr = 0x7f0000001010ull, .flags = STORE_LOCK_MUTEX | STORE_LOCK_SPIN,
			.wait_ns = 1000 * (uint64_t)(i + 1), .site = i < 6 ? a : i < 9 ? b : 0,
		};
		if (store_add_lock_wait(st, &w, err) < 0)
			goto fail;
	}
	if (store_finalize(st, err) < 0)
		goto fail;
	return st;
fail:
	store_close(st);
	return NULL;
}

static void test_lock_sites(void)
{
	struct c2c_error err = { 0 };
	struct store *st = make_locks("sites.db", &err);
	struct store_lock_site_row *rows;
	struct store_filter f;
	size_t n;

	CHECK(st != NULL);
	if (!st)
		return;
	CHECK(store_query_lock_sites(st, 0x7f0000001010ull, NULL, &rows, &n, &err) == 0);
	CHECK_EQ_U64(n, 3);
	/* by total wait: pipe_read 7+8+9 = 24 us, pipe_write 1+..+6 = 21 us, none 10 us */
	CHECK_STR(rows[0].function, "pipe_read");
	CHECK_EQ_U64(rows[0].waits, 3);
	CHECK_EQ_U64(rows[0].wait_ns, 24000);
	CHECK_EQ_U64(rows[0].max_wait_ns, 9000);
	CHECK_EQ_U64(rows[0].offset, 0x10);
	CHECK_STR(rows[1].function, "pipe_write");
	CHECK_EQ_U64(rows[1].waits, 6);
	CHECK_EQ_U64(rows[1].nr_threads, 3);
	CHECK_EQ_U64(rows[2].site, 0);
	CHECK_STR(rows[2].function, "");
	free(rows);

	store_filter_init(&f);
	f.cpu = 1;
	CHECK(store_query_lock_sites(st, 0x7f0000001010ull, &f, &rows, &n, &err) == 0);
	CHECK_EQ_U64(n, 1);
	CHECK_EQ_U64(rows[0].waits, 3);
	free(rows);
	store_filter_init(&f);
	f.time_from = 1500;
	f.time_to = 1800;
	CHECK(store_query_lock_sites(st, 0x7f0000001010ull, &f, &rows, &n, &err) == 0);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(rows[0].waits + rows[1].waits, 3);
	free(rows);
	CHECK(store_query_lock_sites(st, 0x1234, NULL, &rows, &n, &err) == 0);
	CHECK_EQ_U64(n, 0);
	free(rows);
	store_close(st);
}

static void test_lines_with_locks(void)
{
	struct c2c_error err = { 0 };
	struct store *st = make_locks("lines.db", &err);
	struct store_lines_query q;
	struct store_line_row *rows;
	size_t n;
	uint64_t total;

	CHECK(st != NULL);
	if (!st)
		return;
	store_lines_query_init(&q);
	CHECK(store_query_lines(st, &q, &rows, &n, &total, &err) == 0);
	CHECK_EQ_U64(total, 0);   /* perf's rule: no HITM, no store */
	free(rows);
	q.with_locks = true;
	q.sort = STORE_SORT_LOCK_WAIT;
	CHECK(store_query_lines(st, &q, &rows, &n, &total, &err) == 0);
	CHECK_EQ_U64(total, 1);
	CHECK_EQ_U64(n, 1);
	if (n) {
		CHECK_EQ_U64(rows[0].addr, 0x7f0000001000ull);
		CHECK_EQ_U64(rows[0].lock_waits, 10);
		CHECK_EQ_U64(rows[0].lock_wait_ns, 55000);
	}
	free(rows);
	store_close(st);
}

static void test_lock_kind(void)
{
	CHECK_STR(store_lock_kind(STORE_LOCK_SPIN), "spinlock");
	CHECK_STR(store_lock_kind(STORE_LOCK_SPIN | STORE_LOCK_READ), "rwlock");
	CHECK_STR(store_lock_kind(STORE_LOCK_SPIN | STORE_LOCK_WRITE), "rwlock");
	CHECK_STR(store_lock_kind(STORE_LOCK_READ), "rwsem");
	CHECK_STR(store_lock_kind(STORE_LOCK_WRITE), "rwsem");
	CHECK_STR(store_lock_kind(STORE_LOCK_MUTEX), "mutex");
	CHECK_STR(store_lock_kind(STORE_LOCK_MUTEX | STORE_LOCK_SPIN), "mutex");
	CHECK_STR(store_lock_kind(STORE_LOCK_RT), "rt-mutex");
	CHECK_STR(store_lock_kind(STORE_LOCK_RT | STORE_LOCK_READ), "rwlock-rt");
	CHECK_STR(store_lock_kind(STORE_LOCK_PERCPU | STORE_LOCK_WRITE), "percpu-rwsem");
	CHECK_STR(store_lock_kind(0), "semaphore");
}

TEST_MAIN(TEST_CASE(test_lock_sites), TEST_CASE(test_lines_with_locks), TEST_CASE(test_lock_kind))
