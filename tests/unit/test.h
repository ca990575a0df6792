/* Minimal unit-test harness shared by tests/unit/test_*.c.
 * Each test prints "ok - name", "not ok - name: file:line: expr" or
 * "skip - name: reason"; tests/run.sh counts those lines. */
#ifndef C2C_TEST_H
#define C2C_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

struct test_state {
	const char *name;
	int failed;
	int skipped;
};
extern struct test_state test_current;

/* CHECK stops the current test at the first failed expectation. */
#define CHECK(cond) do { \
	if (!(cond)) { test_fail(__FILE__, __LINE__, #cond); return; } \
} while (0)
#define CHECK_EQ_U64(a, b) do { \
	uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b); \
	if (a_ != b_) { test_failf(__FILE__, __LINE__, "%s == %s (%" PRIu64 " != %" PRIu64 ")", #a, #b, a_, b_); return; } \
} while (0)
#define CHECK_STR(a, b) do { \
	const char *a_ = (a), *b_ = (b); \
	if (!a_ || !b_ || strcmp(a_, b_) != 0) { \
		test_failf(__FILE__, __LINE__, "%s == %s (\"%s\" != \"%s\")", #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); return; } \
} while (0)

void test_fail(const char *file, int line, const char *expr);
void test_failf(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Marks the current test skipped; the caller returns right after. */
void test_skip(const char *reason);
/* Path of a fixture under ../shared/fixtures (C2C_FIXTURES), or NULL if absent. */
const char *test_fixture(const char *rel);
/* A fresh temporary directory for this test binary (removed at exit). */
const char *test_tmpdir(void);

struct test_case {
	const char *name;
	void (*fn)(void);
};
#define TEST_CASE(fn) { #fn, fn }

int test_main(const struct test_case *cases, size_t n);
#define TEST_MAIN(...) \
	int main(void) { \
		static const struct test_case cases_[] = { __VA_ARGS__ }; \
		return test_main(cases_, sizeof(cases_) / sizeof(cases_[0])); \
	}

/* The implementation lives in exactly one place: define TEST_IMPL before
 * including test.h in... every test file includes it once, so it is here. */
#include <stdarg.h>
#include <unistd.h>
#include <sys/stat.h>

struct test_state test_current;

void test_fail(const char *file, int line, const char *expr)
{
	test_failf(file, line, "%s", expr);
}

void test_failf(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	if (test_current.failed++)
		return;
	printf("not ok - %s: %s:%d: ", test_current.name, file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

void test_skip(const char *reason)
{
	test_current.skipped = 1;
	printf("skip - %s: %s\n", test_current.name, reason);
}

const char *test_fixture(const char *rel)
{
	static char path[4096];
	const char *root = getenv("C2C_FIXTURES");
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", root ? root : "../shared/fixtures", rel);
	return stat(path, &st) == 0 ? path : NULL;
}

static char test_tmp[256];

static void test_rm_tmp(void)
{
	char cmd[300];
	if (test_tmp[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", test_tmp);
		if (system(cmd) != 0)
			fprintf(stderr, "# could not remove %s\n", test_tmp);
	}
}

const char *test_tmpdir(void)
{
	if (!test_tmp[0]) {
		snprintf(test_tmp, sizeof(test_tmp), "/tmp/c2ctest.XXXXXX");
		if (!mkdtemp(test_tmp)) {
			perror("mkdtemp");
			exit(2);
		}
		atexit(test_rm_tmp);
	}
	return test_tmp;
}

int test_main(const struct test_case *cases, size_t n)
{
	int nfail = 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; i < n; i++) {
		test_current = (struct test_state){ .name = cases[i].name };
		cases[i].fn();
		if (test_current.failed)
			nfail++;
		else if (!test_current.skipped)
			printf("ok - %s\n", cases[i].name);
	}
	return nfail ? 1 : 0;
}

#endif /* C2C_TEST_H */
