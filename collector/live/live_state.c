/* Small reads of an open collection that both its set-up (live_open.c)
 * and its threads (live_run.c) use: the clock, the event behind a sample
 * id, and a snapshot of the counters. Kept apart so the two depend on this
 * file and not on each other. */
#include "collector/live/live_priv.h"

#include <time.h>

uint64_t live_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int live_event_of_id(const struct live *lv, uint64_t id)
{
	size_t lo = 0, hi = lv->nr_ids;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (lv->ids[mid].id == id)
			return (int)lv->ids[mid].index;
		if (lv->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

void live_get_counts(struct live *lv, struct live_counts *out)
{
	uint64_t *dst = (uint64_t *)out, *src = (uint64_t *)&lv->counts;

	for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}
