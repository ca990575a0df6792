/* How the lock views (view_locks.c, view_lock.c) write a time and a
 * lock's name, shared as static inlines so neither view depends on the
 * other (views ask for each other by kind only). */
#ifndef C2C_VIEW_LOCKFMT_H
#define C2C_VIEW_LOCKFMT_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* perf lock contention's time format ("843.77 us", "2.88 ms"; float, as
 * perf computes it), so a cell reads as `c2ctui locks` prints it
 * (tui/report/report_locks.c). */
static inline void view_lock_time(char *buf, size_t size, uint64_t ns)
{
	static const struct {
		float base;
		const char *unit;
	} units[] = { { 1e9f * 3600, "h" }, { 1e9f * 60, "m" }, { 1e9f, "s" }, { 1e6f, "ms" }, { 1e3f, "us" } };

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if ((float)ns >= units[i].base) {
			snprintf(buf, size, "%.2f %s", (double)((float)ns / units[i].base), units[i].unit);
			return;
		}
	snprintf(buf, size, "%" PRIu64 " ns", ns);
}

/* A lock's name: its data symbol (a bare binary name such as
 * "[kernel.kallsyms]" names no object), else its address. */
static inline void view_lock_name(char *buf, size_t size, uint64_t addr, const char *symbol)
{
	if (symbol[0] && symbol[0] != '[')
		snprintf(buf, size, "%s", symbol);
	else
		snprintf(buf, size, "0x%" PRIx64, addr);
}

#endif /* C2C_VIEW_LOCKFMT_H */
