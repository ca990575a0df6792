/* libFuzzer target for the tracepoint decoder (collector/tracepoint): the
 * first byte picks what the rest is; 0: a perf.data tracing-data blob
 * (HEADER_TRACING_DATA) whose last quarter is also decoded as a RAW
 * payload; otherwise: a tracefs format text up to the first NUL, then RAW
 * payloads of 8..64 bytes cut from what follows. Built by
 * tests/fuzz/run.sh with clang -fsanitize=fuzzer,address,undefined. */
#include "collector/tracepoint/tracepoint.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void decode(struct tp_decoder *dec, const uint8_t *raw, size_t size)
{
	struct tp_record r;
	struct c2c_error err;

	if (tp_decode(dec, raw, size, &r, &err) == 0)
		sink += r.lock_addr + (uint64_t)r.kind + (uint64_t)r.prev_pid + strlen(r.prev_comm) +
			strlen(r.next_comm) + (r.name ? strlen(r.name) : 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct c2c_error err;
	struct tp_decoder *dec;

	if (size < 2 || !(dec = tp_decoder_new(&err)))
		return 0;
	data++, size--;
	if (data[-1] == 0) {
		if (tp_decoder_load_tracing_data(dec, data, size, &err) > 0)
			decode(dec, data + size - size / 4, size / 4);
	} else {
		const uint8_t *nul = memchr(data, 0, size);
		size_t flen = nul ? (size_t)(nul - data) : size;
		static const char *const systems[] = { "lock", "sched", "other" };
		if (tp_decoder_add_format(dec, systems[data[-1] % 3], (const char *)data, flen, &err) >= 0 && nul) {
			const uint8_t *p = nul + 1, *end = data + size;
			while (p < end) {
				size_t n = 8 + (*p % 57);
				if (n > (size_t)(end - p))
					n = (size_t)(end - p);
				decode(dec, p, n);
				p += n;
			}
		}
	}
	if (tp_decoder_nr_events(dec) > 0)
		sink += (uint64_t)tp_decoder_find(dec, "lock", "contention_begin");
	tp_decoder_free(dec);
	return 0;
}
