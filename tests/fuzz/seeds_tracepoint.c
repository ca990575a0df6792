/* Writes the seed corpus of fuzz_tracepoint into DIR: tracing-data blobs
 * in both byte orders (first byte 0) and the lock tracepoints' format
 * texts followed by RAW payloads (first byte 1), as tests/gen builds them
 * for c2c-gen's lock scenarios. */
#include "tests/gen/perfdata_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int put(const char *dir, const char *name, const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "wb")))
		return -1;
	fwrite(a, 1, na, f);
	fwrite(b, 1, nb, f);
	return fclose(f);
}

int main(int argc, char **argv)
{
	const struct pdw_tp_format fmts[2] = {
		{ "lock", pdw_format_contention_begin }, { "lock", pdw_format_contention_end },
	};
	uint8_t raw[2 * 24], *blob, *buf;
	size_t len, nraw;
	int rc = 0;

	if (argc != 2)
		return 2;
	for (int be = 0; be < 2; be++) {
		char name[32];
		nraw = pdw_raw_contention(raw, be, 0, 42, 0xffff888012345680ull, 2);
		nraw += pdw_raw_contention(raw + nraw, be, 1, 42, 0xffff888012345680ull, 0);
		if (pdw_tracing_data(fmts, 2, be, &blob, &len) || !(buf = malloc(len + nraw + 1)))
			return 1;
		buf[0] = 0;
		memcpy(buf + 1, blob, len);
		memcpy(buf + 1 + len, raw, nraw);
		snprintf(name, sizeof(name), "tracing_data_%s", be ? "be" : "le");
		rc |= put(argv[1], name, buf, len + nraw + 1, NULL, 0);
		free(buf);
		free(blob);
		for (int e = 0; e < 2 && !be; e++) {
			const char *fmt = e ? pdw_format_contention_end : pdw_format_contention_begin;
			buf = malloc(strlen(fmt) + 2);
			if (!buf)
				return 1;
			buf[0] = 3;  /* 3 % 3 == 0: system "lock" */
			memcpy(buf + 1, fmt, strlen(fmt) + 1);
			snprintf(name, sizeof(name), "format_%s", e ? "end" : "begin");
			rc |= put(argv[1], name, buf, strlen(fmt) + 2, raw + (e ? 20 : 0), 20);
			free(buf);
		}
	}
	return rc ? 1 : 0;
}
