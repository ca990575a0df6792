/* Private to collector/pmu_*.c: small sysfs file reader. */
#ifndef C2C_PMU_SYSFS_H
#define C2C_PMU_SYSFS_H

#include <stddef.h>

/* Reads a small text file, trailing newline stripped. Returns its length or
 * a negative errno. */
int pmu_read_file(const char *path, char *buf, size_t size);

/* vsnprintf into a path buffer (truncation is reported by the open that
 * follows failing, not silently used). */
int pmu_path(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* C2C_PMU_SYSFS_H */
