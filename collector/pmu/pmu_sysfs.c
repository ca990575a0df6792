/* Reading a PMU's sysfs description: small files, event aliases
 * ("event=0xcd,umask=0x1,ldlat=3") and format files ("config:0-7,32-35")
 * that say where each term's bits go in attr.config/config1/config2. */
#include "collector/pmu/pmu.h"
#include "collector/pmu/pmu_sysfs.h"

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pmu_read_file(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return (int)n;
}

/* Deposits value's bits into the ranges a format file lists, lowest bits
 * first, as the kernel's format attributes are defined. */
static int format_apply(const char *fmt, uint64_t value, uint64_t *config,
			uint64_t *config1, uint64_t *config2)
{
	uint64_t *dst;
	const char *p = strchr(fmt, ':');
	unsigned used = 0;

	if (!p)
		return -EINVAL;
	if (!strncmp(fmt, "config:", 7))
		dst = config;
	else if (!strncmp(fmt, "config1:", 8))
		dst = config1;
	else if (!strncmp(fmt, "config2:", 8))
		dst = config2;
	else
		return -EINVAL;
	p++;
	while (*p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi;

		if (end == p)
			return -EINVAL;
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			hi = strtoul(p, &end, 10);
			if (end == p)
				return -EINVAL;
			p = end;
		}
		if (hi < lo || hi > 63)
			return -EINVAL;
		for (unsigned long b = lo; b <= hi; b++, used++) {
			uint64_t bit = used < 64 ? (value >> used) & 1 : 0;
			*dst = (*dst & ~(1ull << b)) | (bit << b);
		}
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	return 0;
}

int pmu_apply_terms(const char *pmu_dir, const char *terms, uint64_t *config,
		    uint64_t *config1, uint64_t *config2, struct c2c_error *err)
{
	char copy[512], *save = NULL, *tok;

	if (strlen(terms) >= sizeof(copy))
		return c2c_error_set(err, -EINVAL, "event terms too long: %s", terms);
	strcpy(copy, terms);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char path[1024], fmt[256];
		char *eq = strchr(tok, '=');
		uint64_t value = 1;
		int rc;

		while (*tok == ' ')
			tok++;
		if (!*tok)
			continue;
		if (eq) {
			char *end;
			*eq = '\0';
			errno = 0;
			value = strtoull(eq + 1, &end, 0);
			if (errno || end == eq + 1 || *end)
				return c2c_error_set(err, -EINVAL, "bad value in term '%s=%s' (%s)",
						     tok, eq + 1, pmu_dir);
		}
		pmu_path(path, sizeof(path), "%s/format/%s", pmu_dir, tok);
		rc = pmu_read_file(path, fmt, sizeof(fmt));
		if (rc < 0)
			return c2c_error_set(err, -EINVAL, "event term '%s' has no format file %s",
					     tok, path);
		if (format_apply(fmt, value, config, config1, config2) < 0)
			return c2c_error_set(err, -EINVAL, "cannot parse format '%s' in %s", fmt, path);
	}
	return 0;
}

int pmu_path(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
