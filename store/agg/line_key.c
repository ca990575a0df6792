/* perf's identity of a cache line entry, from the line's first sample:
 * its cpumode, pid and the data map holding the address at that time
 * (perf's dcacheline sort key: map device/inode, and the pid for private
 * anonymous memory). The recorded maps are loaded once per query; the
 * report's scan (store/query/query_report.c) and its precomputed numbers
 * (store/agg/agg_report.c) both key lines here. */
#include "store/agg/agg.h"

#include <errno.h>
#include <stdlib.h>

int store_maps_load(struct store *st, struct store_maps *out, struct c2c_error *err)
{
	sqlite3_stmt *s;
	size_t cap = 0;
	int r, rc;

	out->v = NULL;
	out->n = 0;
	r = store_prepare(st, &s, "SELECT pid, start, len, COALESCE(maj, 0), COALESCE(min, 0), COALESCE(ino, 0),"
			  " COALESCE(ino_generation, 0), COALESCE(flags, 0), COALESCE(time, 0) FROM main.maps ORDER BY id",
			  err);
	if (r < 0)
		return r;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_map_ent *m;

		if (store_grow((void **)&out->v, &cap, out->n + 1, sizeof(*out->v)) < 0) {
			sqlite3_finalize(s);
			store_maps_free(out);
			return c2c_error_set(err, -ENOMEM, "out of memory");
		}
		m = &out->v[out->n++];
		m->pid = sqlite3_column_int(s, 0);
		m->start = (uint64_t)sqlite3_column_int64(s, 1);
		m->end = m->start + (uint64_t)sqlite3_column_int64(s, 2);
		m->maj = (uint32_t)sqlite3_column_int64(s, 3);
		m->min = (uint32_t)sqlite3_column_int64(s, 4);
		m->ino = (uint64_t)sqlite3_column_int64(s, 5);
		m->gen = (uint64_t)sqlite3_column_int64(s, 6);
		m->flags = (uint32_t)sqlite3_column_int64(s, 7);
		m->time = (uint64_t)sqlite3_column_int64(s, 8);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		store_maps_free(out);
		return store_sqlerr(st, err, "reading the maps");
	}
	return 0;
}

void store_maps_free(struct store_maps *m)
{
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

/* The newest map of pid (-1: the kernel maps) holding addr at time t. */
static const struct store_map_ent *find_map(const struct store_maps *maps, int32_t pid, uint64_t addr, uint64_t t)
{
	for (size_t i = maps->n; i-- > 0;) {
		const struct store_map_ent *m = &maps->v[i];
		if (m->pid == pid && addr >= m->start && addr < m->end && (!t || !m->time || m->time <= t))
			return m;
	}
	return NULL;
}

void store_line_key_set(struct store_line_key *k, const struct store_maps *maps, uint8_t cpumode, int32_t pid,
			uint64_t daddr, uint64_t time, bool nomap)
{
	/* perf looks a kernel-mode address up in the kernel maps (pid -1)
	 * only, a user-mode one in the process's maps only */
	const struct store_map_ent *m = daddr ? find_map(maps, cpumode == C2C_MODE_KERNEL ? -1 : pid, daddr, time) : NULL;

	k->cpumode = cpumode;
	k->pid = pid;
	k->mapped = m || (daddr != 0 && !nomap);
	if (m) {
		k->maj = m->maj;
		k->min = m->min;
		k->ino = m->ino;
		k->ino_generation = m->gen;
		/* perf: user memory, not MAP_SHARED, no device/inode */
		k->anon = cpumode != C2C_MODE_KERNEL && !(m->flags & 0x01) && !m->maj && !m->min && !m->ino && !m->gen;
	}
}
