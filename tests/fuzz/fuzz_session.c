/* libFuzzer target for the session opener: the input is written to a
 * private file and opened as any session someone sent (store_open,
 * read-only, with its header, schema and version checks), then read by a
 * few of the queries report and the explorer run: summary, events, lines,
 * a line's matrix, threads, locks. Seeds are small real sessions (run.sh
 * imports them). Built by tests/fuzz/run.sh with clang
 * -fsanitize=fuzzer,address,undefined over the store and collector
 * sources. */
#include "store/store.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void queries(struct store *st)
{
	struct c2c_error err;
	struct store_filter f;
	struct store_summary sum;
	struct store_lines_query q;
	struct store_event_row *ev = NULL;
	struct store_line_row *lines = NULL;
	struct store_cell_row *cells = NULL;
	struct store_thread_row *th = NULL;
	struct store_lock_row *locks = NULL;
	size_t n = 0;
	uint64_t total = 0;
	char buf[256];

	store_filter_init(&f);
	if (store_query_summary(st, &f, &sum, &err) == 0)
		sink += sum.cacheline_size;
	if (store_query_events(st, &ev, &n, &err) == 0 && n)
		sink += ev[n - 1].nr_samples;
	free(ev);
	store_lines_query_init(&q);
	n = 0;
	if (store_query_lines(st, &q, &lines, &n, &total, &err) == 0 && n) {
		size_t m = 0;
		if (store_query_line_matrix(st, lines[0].addr, &f, &cells, &m, &err) == 0)
			sink += m;
		free(cells);
	}
	free(lines);
	n = 0;
	if (store_query_threads(st, &f, false, &th, &n, &err) == 0)
		sink += n;
	free(th);
	n = 0;
	if (store_query_locks(st, STORE_ALL_LINES, &f, &locks, &n, &err) == 0)
		sink += n;
	free(locks);
	if (store_get_meta(st, "arch", buf, sizeof(buf)) > 0)
		sink += (unsigned char)buf[0];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	struct store *st;
	struct c2c_error err;
	int fd;

	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/c2ctui-fuzz-session.%d.db", (int)getpid());
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	close(fd);
	if (store_open(&st, path, STORE_OPEN_RDONLY, &err) == 0) {
		queries(st);
		store_close(st);
	}
	unlink(path);
	/* a header saying WAL makes SQLite create these beside it */
	for (int i = 0; i < 2; i++) {
		char side[80];
		snprintf(side, sizeof(side), "%s%s", path, i ? "-shm" : "-wal");
		unlink(side);
	}
	return 0;
}
