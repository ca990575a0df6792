/* perf.data tracing data (HEADER_TRACING_DATA): the recording host's
 * header_page, ftrace and event formats. Layout, as perf writes it:
 *   "\027\010\104tracing" version\0 endian(1) long_size(1) page_size(u32)
 *   "header_page\0" u64 size, data   "header_event\0" u64 size, data
 *   u32 nr_ftrace, { u64 size, data }...
 *   u32 nr_systems, { sys\0 u32 nr, { u64 size, data }... }...
 *   u32 size, kallsyms   u32 size, printk formats   [0.6: u64 size, cmdlines]
 * Numbers are in the recording host's byte order (the endian byte). Only the
 * event formats matter to c2ctui; the rest is skipped by its size. */
#include "collector/tracepoint/tracepoint.h"
#include "collector/tracepoint/tp_priv.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <traceevent/event-parse.h>

struct cursor {
	const unsigned char *p, *end;
	bool swap;
};

static bool take(struct cursor *c, void *out, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return false;
	if (out)
		memcpy(out, c->p, n);
	c->p += n;
	return true;
}

static bool take_u32(struct cursor *c, uint32_t *v)
{
	if (!take(c, v, 4))
		return false;
	if (c->swap)
		*v = __builtin_bswap32(*v);
	return true;
}

static bool take_u64(struct cursor *c, uint64_t *v)
{
	if (!take(c, v, 8))
		return false;
	if (c->swap)
		*v = __builtin_bswap64(*v);
	return true;
}

static const char *take_str(struct cursor *c)
{
	const unsigned char *nul = memchr(c->p, '\0', (size_t)(c->end - c->p));
	const char *s = (const char *)c->p;

	if (!nul)
		return NULL;
	c->p = nul + 1;
	return s;
}

/* A u64-sized blob: returns its start, or NULL when truncated. */
static const unsigned char *take_blob(struct cursor *c, uint64_t *size)
{
	const unsigned char *start;

	if (!take_u64(c, size) || *size > (uint64_t)(c->end - c->p))
		return NULL;
	start = c->p;
	c->p += *size;
	return start;
}

int tp_decoder_load_tracing_data(struct tp_decoder *dec, const void *buf, size_t len,
				 struct c2c_error *err)
{
	static const unsigned char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct tep_handle *tep = tp_decoder_tep(dec);
	struct cursor c = { buf, (const unsigned char *)buf + len, false };
	unsigned char endian = 0, long_size = 0;
	const char *version, *label;
	const unsigned char *data;
	uint32_t page_size, nr, nsys;
	uint64_t size;
	int added = 0;

	if (len < sizeof(magic) || memcmp(buf, magic, sizeof(magic)) != 0)
		return c2c_error_set(err, -EINVAL, "tracing data: bad magic");
	c.p += sizeof(magic);
	version = take_str(&c);
	if (!version || !take(&c, &endian, 1) || !take(&c, &long_size, 1))
		return c2c_error_set(err, -EINVAL, "tracing data: truncated header");
	c.swap = (endian != 0) != (tep_is_bigendian() != 0);
	if (!take_u32(&c, &page_size))
		return c2c_error_set(err, -EINVAL, "tracing data: truncated header");
	tep_set_file_bigendian(tep, endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, long_size);
	tep_set_page_size(tep, (int)page_size);

	label = take_str(&c);
	if (!label || strcmp(label, "header_page") || !(data = take_blob(&c, &size)))
		return c2c_error_set(err, -EINVAL, "tracing data: bad header_page section");
	tep_parse_header_page(tep, (char *)(uintptr_t)data, (unsigned long)size, long_size);
	label = take_str(&c);
	if (!label || strcmp(label, "header_event") || !take_blob(&c, &size))
		return c2c_error_set(err, -EINVAL, "tracing data: bad header_event section");

	if (!take_u32(&c, &nr))
		return c2c_error_set(err, -EINVAL, "tracing data: truncated ftrace formats");
	for (uint32_t i = 0; i < nr; i++)
		if (!take_blob(&c, &size))
			return c2c_error_set(err, -EINVAL, "tracing data: truncated ftrace format %u", i);

	if (!take_u32(&c, &nsys))
		return c2c_error_set(err, -EINVAL, "tracing data: truncated event systems");
	for (uint32_t s = 0; s < nsys; s++) {
		const char *sys = take_str(&c);

		if (!sys || !take_u32(&c, &nr))
			return c2c_error_set(err, -EINVAL, "tracing data: truncated system %u", s);
		for (uint32_t i = 0; i < nr; i++) {
			int rc;
			if (!(data = take_blob(&c, &size)))
				return c2c_error_set(err, -EINVAL, "tracing data: truncated %s format %u", sys, i);
			rc = tp_decoder_add_format(dec, sys, (const char *)data, (size_t)size, err);
			if (rc < 0)
				return rc;
			added++;
		}
	}
	/* kallsyms, printk formats and saved cmdlines follow; c2ctui takes
	 * kernel symbols from the symbolizer instead. */
	return added;
}
