/* c2c_appendf: appends, cuts at the end of the buffer, saturates its
 * length at the size and never writes past it. */
#include "tests/unit/test.h"

#include "collector/base/appendf.h"

static void test_appends(void)
{
	char buf[32];
	size_t n = 0;

	buf[0] = 0;
	n = c2c_appendf(buf, sizeof(buf), n, "%s", "ab");
	n = c2c_appendf(buf, sizeof(buf), n, ",%d", 12);
	CHECK_EQ_U64(n, 5);
	CHECK_STR(buf, "ab,12");
}

static void test_overflow(void)
{
	/* guard bytes after the buffer must survive many appends past it */
	struct { char buf[8]; char guard[8]; } s;
	size_t n = 0;

	memset(&s, 'G', sizeof(s));
	s.buf[0] = 0;
	for (int i = 0; i < 100; i++)
		n = c2c_appendf(s.buf, sizeof(s.buf), n, "%s%d", i ? "," : "", i);
	CHECK_EQ_U64(n, sizeof(s.buf));
	CHECK_STR(s.buf, "0,1,2,3");
	for (size_t i = 0; i < sizeof(s.guard); i++)
		CHECK(s.guard[i] == 'G');
	/* exactly full: 7 characters fit in 8 bytes, 8 do not */
	n = c2c_appendf(s.buf, sizeof(s.buf), 0, "%s", "1234567");
	CHECK_EQ_U64(n, 7);
	n = c2c_appendf(s.buf, sizeof(s.buf), 0, "%s", "12345678");
	CHECK_EQ_U64(n, 8);
	CHECK_STR(s.buf, "1234567");
	/* a length already past the end, and a zero size, write nothing */
	CHECK_EQ_U64(c2c_appendf(s.buf, sizeof(s.buf), 1000, "x"), sizeof(s.buf));
	CHECK_EQ_U64(c2c_appendf(s.buf, 0, 0, "x"), 0);
	CHECK(s.guard[0] == 'G');
}

TEST_MAIN(TEST_CASE(test_appends), TEST_CASE(test_overflow))
