/* Tracepoint material for the perf.data writer: the format texts of the
 * lock contention tracepoints, the tracing-data blob perf stores in the
 * TRACING_DATA feature (layout of tools/perf/util/trace-event-info.c's
 * output, as described in collector/tracepoint/tp_tracing_data.c), and RAW payloads
 * laid out by those formats. */
#include "tests/gen/perfdata_writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char pdw_format_contention_begin[] =
	"name: contention_begin\n"
	"ID: 408\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:void * lock_addr;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int flags;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"%p (flags=%s)\", REC->lock_addr, __print_flags(REC->flags, \"|\", "
	"{ (1U << 0), \"SPIN\" }, { (1U << 1), \"READ\" }, { (1U << 2), \"WRITE\" }, "
	"{ (1U << 3), \"RT\" }, { (1U << 4), \"PERCPU\" }, { (1U << 5), \"MUTEX\" } )\n";

const char pdw_format_contention_end[] =
	"name: contention_end\n"
	"ID: 407\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:void * lock_addr;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int ret;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"%p (ret=%d)\", REC->lock_addr, REC->ret\n";

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

struct buf {
	uint8_t *p;
	size_t len, cap;
	int be, oom;
};

static void put(struct buf *b, const void *v, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		void *p;
		while (cap < b->len + n)
			cap *= 2;
		if (!(p = realloc(b->p, cap))) {
			b->oom = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, v, n);
	b->len += n;
}

static void put_u32(struct buf *b, uint32_t v)
{
	if (b->be)
		v = __builtin_bswap32(v);
	put(b, &v, 4);
}

static void put_u64(struct buf *b, uint64_t v)
{
	if (b->be)
		v = __builtin_bswap64(v);
	put(b, &v, 8);
}

static void put_file(struct buf *b, const char *text)
{
	size_t n = strlen(text);

	put_u64(b, n);
	put(b, text, n);
}

int pdw_tracing_data(const struct pdw_tp_format *fmts, size_t n, int big_endian, uint8_t **out,
		     size_t *len)
{
	static const uint8_t magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct buf b = { .be = big_endian };
	uint8_t endian = big_endian ? 1 : 0, long_size = 8;
	uint32_t nr_systems = 0;
	char *done = calloc(n ? n : 1, 1);

	if (!done)
		return -ENOMEM;
	put(&b, magic, sizeof(magic));
	put(&b, "0.6", 4);
	put(&b, &endian, 1);
	put(&b, &long_size, 1);
	put_u32(&b, 4096);
	put(&b, "header_page", 12);
	put_file(&b, header_page);
	put(&b, "header_event", 13);
	put_file(&b, header_event);
	put_u32(&b, 0);                          /* ftrace formats */
	for (size_t i = 0; i < n; i++) {
		int first = 1;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(fmts[j].system, fmts[i].system))
				first = 0;
		nr_systems += (uint32_t)first;
	}
	put_u32(&b, nr_systems);
	for (size_t i = 0; i < n; i++) {
		uint32_t count = 0;
		if (done[i])
			continue;
		for (size_t j = i; j < n; j++)
			if (!strcmp(fmts[j].system, fmts[i].system))
				count++;
		put(&b, fmts[i].system, strlen(fmts[i].system) + 1);
		put_u32(&b, count);
		for (size_t j = i; j < n; j++) {
			if (!strcmp(fmts[j].system, fmts[i].system)) {
				put_file(&b, fmts[j].format);
				done[j] = 1;
			}
		}
	}
	put_u32(&b, 0);                          /* kallsyms */
	put_u32(&b, 0);                          /* ftrace_printk formats */
	put_u64(&b, 0);                          /* saved cmdlines (0.6) */
	free(done);
	if (b.oom) {
		free(b.p);
		return -ENOMEM;
	}
	*out = b.p;
	*len = b.len;
	return 0;
}

size_t pdw_raw_contention(uint8_t *out, int big_endian, int end, int32_t pid, uint64_t lock_addr,
			  int32_t value)
{
	uint16_t type = (uint16_t)(end ? PDW_TP_CONTENTION_END_ID : PDW_TP_CONTENTION_BEGIN_ID);
	uint32_t upid = (uint32_t)pid, uval = (uint32_t)value;

	if (big_endian) {
		type = (uint16_t)(type >> 8 | type << 8);
		upid = __builtin_bswap32(upid);
		lock_addr = __builtin_bswap64(lock_addr);
		uval = __builtin_bswap32(uval);
	}
	memset(out, 0, 24);
	memcpy(out, &type, 2);           /* common_type; flags and preempt count 0 */
	memcpy(out + 4, &upid, 4);
	memcpy(out + 8, &lock_addr, 8);
	memcpy(out + 16, &uval, 4);
	return 20;
}
