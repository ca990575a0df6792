/* A big regular perf.data read through a window of its bytes (see
 * perfdata_internal.h): bounded memory and address space whatever the
 * file's size. Used by the record loop (perfdata_reader.c) and the header
 * parser (perfdata_header.c, through pd_span). */
#include "collector/perfdata/perfdata_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#define WINDOW_SIZE (8u << 20)

int pd_pread_full(int fd, unsigned char *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, buf + got, n - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		got += (size_t)r;
	}
	return 0;
}

/* The n bytes of the file at off, in the window (moved and refilled when
 * they are not in it), or NULL when they cannot be read. Valid until the
 * next call. */
const unsigned char *pd_window_at(struct perfdata *pd, uint64_t off, size_t n)
{
	if (off >= pd->win_off && off + n <= pd->win_off + pd->win_len)
		return pd->win + (off - pd->win_off);
	size_t want = n > WINDOW_SIZE ? n : WINDOW_SIZE;
	if (want > pd->map_len - off)
		want = (size_t)(pd->map_len - off);
	if (want < n)
		return NULL;
	if (want > pd->win_cap) {
		unsigned char *b = realloc(pd->win, want);
		if (!b)
			return NULL;
		pd->win = b;
		pd->win_cap = want;
	}
	pd->win_len = 0;
	if (pd_pread_full(pd->fd, pd->win, want, off) < 0)
		return NULL;
	pd->win_off = off;
	pd->win_len = want;
	return pd->win;
}

