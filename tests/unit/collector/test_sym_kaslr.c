/* symtab_kernel_shift: where a vmlinux sits under KASLR, the one rule the
 * symbolizer and the type attribution share. On the kernel-shaped test
 * image (tests/kernel/kvm.c + kernel.lds: _text at 0xffffffff81000000),
 * built here with cc; skipped when cc cannot build it. */
#include "tests/unit/test.h"

#include "collector/symbols/symbols.h"

#include <errno.h>

static const char *image(void)
{
	static char bin[600];
	static int built = -1;
	char cmd[2000];
	const char *top = getenv("C2C_TOP");

	if (built < 0) {
		snprintf(bin, sizeof(bin), "%s/vmlinux", test_tmpdir());
		snprintf(cmd, sizeof(cmd),
			 "cc -g -O1 -mcmodel=kernel -fno-pie -no-pie -nostdlib -ffreestanding -static"
			 " -Wl,--build-id -Wl,-T,'%s/tests/kernel/kernel.lds' -o '%s' '%s/tests/kernel/kvm.c'"
			 " 2>/dev/null", top ? top : ".", bin, top ? top : ".");
		built = system(cmd) == 0;
	}
	return built ? bin : NULL;
}

#define IMAGE_OR_SKIP(p) \
	const char *p = image(); \
	if (!p) { test_skip("cannot build tests/kernel/kvm.c with -mcmodel=kernel"); return; }

static void test_kaslr_shift_text(void)
{
	IMAGE_OR_SKIP(img);
	struct c2c_error err = { 0 };
	uint64_t shift = 1;

	/* perf record's "[kernel.kallsyms]_text" pgoff: the run-time _text */
	CHECK(symtab_kernel_shift(img, "_text", 0xffffffff83a00000ULL, &shift, &err) == 0);
	CHECK_EQ_U64(shift, 0x2a00000);
	/* an ip maps back into the image */
	CHECK_EQ_U64(0xffffffff83a00002ULL - shift, 0xffffffff81000002ULL);
	/* ref NULL is _text */
	CHECK(symtab_kernel_shift(img, NULL, 0xffffffff81000000ULL, &shift, &err) == 0);
	CHECK_EQ_U64(shift, 0);
}

/* A kernel placed below its link address: the shift wraps (unsigned), and
 * ip - shift still lands in the image; no 63-bit or signed assumption. */
static void test_kaslr_shift_below(void)
{
	IMAGE_OR_SKIP(img);
	struct c2c_error err = { 0 };
	uint64_t shift;

	CHECK(symtab_kernel_shift(img, "_text", 0xffffffff80000000ULL, &shift, &err) == 0);
	CHECK_EQ_U64(shift, (uint64_t)-0x1000000LL);
	CHECK_EQ_U64(0xffffffff80000008ULL - shift, 0xffffffff81000008ULL);
	/* through SQLite's int64 and back, as the session stores addresses */
	int64_t stored = (int64_t)0xffffffff80000008ULL;
	CHECK(stored < 0);
	CHECK_EQ_U64((uint64_t)stored - shift, 0xffffffff81000008ULL);
}

static void test_kaslr_shift_errors(void)
{
	IMAGE_OR_SKIP(img);
	struct c2c_error err = { 0 };
	uint64_t shift = 1;

	CHECK(symtab_kernel_shift(img, "no_such_symbol", 0xffffffff83a00000ULL, &shift, &err) == -ENOENT);
	CHECK(strstr(err.msg, "no symbol no_such_symbol") != NULL);
	CHECK_EQ_U64(shift, 0);
	memset(&err, 0, sizeof(err));
	CHECK(symtab_kernel_shift("/nonexistent/vmlinux", "_text", 0xffffffff83a00000ULL, &shift, &err) < 0);
	CHECK(strstr(err.msg, "/nonexistent/vmlinux") != NULL);
}

TEST_MAIN(TEST_CASE(test_kaslr_shift_text), TEST_CASE(test_kaslr_shift_below), TEST_CASE(test_kaslr_shift_errors))
