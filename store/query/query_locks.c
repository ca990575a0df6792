/* perf lock contention's tables from a session's lock_contention rows
 * (store.h store_query_perf_locks): the same entries, counts and times as
 * perf's lock_stat (contended at the begin, wait time and acquired at the
 * end, avg = total / acquired), and perf's order, ties included: perf
 * inserts its hash table into the sorted tree bucket by bucket, newest
 * entry of a bucket first, and an equal key goes after the ones in. */
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "store/base/base.h"

#define GOLDEN_RATIO_64 0x61C8864680B583EBull
#define LOCKHASH_BITS 12

static const struct {
	uint32_t flags;
	const char *str, *family;
} lock_types[] = {
	{ 0, "semaphore", "semaphore" },
	{ STORE_LOCK_SPIN, "spinlock", "spinlock" },
	{ STORE_LOCK_SPIN | STORE_LOCK_READ, "rwlock:R", "rwlock" },
	{ STORE_LOCK_SPIN | STORE_LOCK_WRITE, "rwlock:W", "rwlock" },
	{ STORE_LOCK_READ, "rwsem:R", "rwsem" },
	{ STORE_LOCK_WRITE, "rwsem:W", "rwsem" },
	{ STORE_LOCK_RT, "rtmutex", "rt-mutex" },
	{ STORE_LOCK_RT | STORE_LOCK_READ, "rwlock-rt:R", "rwlock-rt" },
	{ STORE_LOCK_RT | STORE_LOCK_WRITE, "rwlock-rt:W", "rwlock-rt" },
	{ STORE_LOCK_PERCPU | STORE_LOCK_READ, "pcpu-sem:R", "percpu-rwsem" },
	{ STORE_LOCK_PERCPU | STORE_LOCK_WRITE, "pcpu-sem:W", "percpu-rwsem" },
	{ STORE_LOCK_MUTEX, "mutex", "mutex" },
	{ STORE_LOCK_MUTEX | STORE_LOCK_SPIN, "mutex", "mutex" },
};

const char *store_lock_type_family(uint32_t flags)
{
	for (size_t i = 0; i < sizeof(lock_types) / sizeof(lock_types[0]); i++)
		if (lock_types[i].flags == flags)
			return lock_types[i].family;
	return "unknown";
}

const char *store_lock_type_str(uint32_t flags)
{
	for (size_t i = 0; i < sizeof(lock_types) / sizeof(lock_types[0]); i++)
		if (lock_types[i].flags == flags)
			return lock_types[i].str;
	return "unknown";
}

size_t store_lock_type_flags(const char *name, uint32_t *flags, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof(lock_types) / sizeof(lock_types[0]) && n < max; i++)
		if (!strcmp(lock_types[i].str, name) || !strcmp(lock_types[i].family, name) ||
		    (!strcmp(name, "pcpu-sem") && lock_types[i].flags & STORE_LOCK_PERCPU))
			flags[n++] = lock_types[i].flags;
	return n;
}

struct entry {
	struct store_lock_stat s;
	uint64_t order;          /* creation order */
	bool used;
};

struct table {
	struct entry *e;
	size_t cap, n;
};

static struct entry *table_get(struct table *t, uint64_t key, bool *fresh)
{
	if ((t->n + 1) * 2 > t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 256;
		struct entry *ne = calloc(ncap, sizeof(*ne));
		if (!ne)
			return NULL;
		for (size_t i = 0; i < t->cap; i++)
			if (t->e[i].used) {
				size_t j = (size_t)((t->e[i].s.key * GOLDEN_RATIO_64) >> 40) & (ncap - 1);
				while (ne[j].used)
					j = (j + 1) & (ncap - 1);
				ne[j] = t->e[i];
			}
		free(t->e);
		t->e = ne;
		t->cap = ncap;
	}
	size_t j = (size_t)((key * GOLDEN_RATIO_64) >> 40) & (t->cap - 1);
	while (t->e[j].used && t->e[j].s.key != key)
		j = (j + 1) & (t->cap - 1);
	*fresh = !t->e[j].used;
	if (*fresh) {
		t->e[j].used = true;
		t->e[j].s.key = key;
		t->e[j].s.wait_min = UINT64_MAX;
		t->e[j].order = t->n++;
	}
	return &t->e[j];
}

static enum store_locks_sort sort_key;

static uint64_t sort_value(const struct store_lock_stat *s)
{
	switch (sort_key) {
	case STORE_LOCKS_SORT_CONTENDED: return s->contended;
	case STORE_LOCKS_SORT_WAIT_MAX: return s->wait_max;
	case STORE_LOCKS_SORT_WAIT_MIN: return s->wait_min;
	case STORE_LOCKS_SORT_AVG_WAIT: return s->avg_wait;
	case STORE_LOCKS_SORT_WAIT_TOTAL: break;
	}
	return s->wait_total;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	uint64_t vx = sort_value(&x->s), vy = sort_value(&y->s);
	uint64_t bx = (x->s.key * GOLDEN_RATIO_64) >> (64 - LOCKHASH_BITS);
	uint64_t by = (y->s.key * GOLDEN_RATIO_64) >> (64 - LOCKHASH_BITS);

	if (vx != vy)
		return vx > vy ? -1 : 1;
	if (bx != by)
		return bx < by ? -1 : 1;
	return x->order > y->order ? -1 : x->order < y->order;  /* newest of a bucket first */
}

static bool keep(const struct store_locks_query *q, uint32_t flags, uint64_t addr, const char *sym)
{
	bool ok;

	if (q->ntypes) {
		ok = false;
		for (size_t i = 0; i < q->ntypes; i++)
			ok |= q->types[i] == flags;
		if (!ok)
			return false;
	}
	if (q->naddrs || q->nsyms) {
		ok = false;
		for (size_t i = 0; i < q->naddrs; i++)
			ok |= q->addrs[i] == addr;
		for (size_t i = 0; i < q->nsyms && sym; i++)
			ok |= !strcmp(q->syms[i], sym);
		if (!ok)
			return false;
	}
	return true;
}

/* The kernel data symbol that starts at addr (as perf's -L NAME), or that
 * holds it (the by-lock table's symbol column). */
static void lock_symbol(struct store *st, sqlite3_stmt *s, uint64_t addr, char *buf, size_t size, bool exact)
{
	buf[0] = 0;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)addr);
	if (sqlite3_step(s) == SQLITE_ROW && (!exact || (uint64_t)sqlite3_column_int64(s, 1) == addr))
		store_col_text(s, 0, buf, size);
	sqlite3_reset(s);
	(void)st;
}

int store_query_perf_locks(struct store *st, const struct store_locks_query *q, struct store_lock_stat **out,
			   size_t *n, struct c2c_error *err)
{
	sqlite3_stmt *s = NULL, *sym = NULL, *comm = NULL;
	struct table t = { 0 };
	int r;

	*out = NULL;
	*n = 0;
	r = sqlite3_prepare_v2(st->db, "SELECT kind, tid, lock_addr, flags, wait_ns, key, caller FROM lock_contention"
			       " WHERE mode = ?1 ORDER BY id", -1, &s, NULL);
	if (r != SQLITE_OK) {
		sqlite3_finalize(s);
		return c2c_error_set(err, -ENOENT, "%s: no lock contention in this session (no lock:contention_begin/end"
				     " recorded, or imported by an older c2ctui: import it again)", store_path(st));
	}
	if (sqlite3_prepare_v2(st->db, "SELECT d.name, d.start FROM lock_waits w JOIN dsyms d ON d.id = w.dsym"
			       " WHERE w.lock_addr = ?1 AND w.dsym > 0 LIMIT 1", -1, &sym, NULL) != SQLITE_OK)
		sym = NULL;
	sqlite3_bind_int(s, 1, q->by == STORE_LOCKS_BY_CALLER ? STORE_LOCK_MODE_CALLER : STORE_LOCK_MODE_TASK);
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		int kind = sqlite3_column_int(s, 0);
		int32_t tid = sqlite3_column_int(s, 1);
		uint64_t addr = (uint64_t)sqlite3_column_int64(s, 2);
		uint32_t flags = (uint32_t)sqlite3_column_int64(s, 3);
		uint64_t wait = (uint64_t)sqlite3_column_int64(s, 4);
		uint64_t key = q->by == STORE_LOCKS_BY_CALLER ? (uint64_t)sqlite3_column_int64(s, 5)
			     : q->by == STORE_LOCKS_BY_TASK ? (uint64_t)(uint32_t)tid : addr;
		char lsym[128] = "";
		bool fresh;

		/* perf makes the entry at a begin, before its filters; an
		 * end only adds to an existing one. */
		struct entry *e;
		if (kind == STORE_LOCK_EV_ACQUIRED) {
			size_t cap = t.cap;
			if (!cap)
				continue;
			size_t j = (size_t)((key * GOLDEN_RATIO_64) >> 40) & (cap - 1);
			while (t.e[j].used && t.e[j].s.key != key)
				j = (j + 1) & (cap - 1);
			if (!t.e[j].used)
				continue;
			e = &t.e[j];
		} else {
			if (!(e = table_get(&t, key, &fresh))) {
				r = c2c_error_set(err, -ENOMEM, "out of memory");
				goto out;
			}
			if (fresh) {
				e->s.flags = flags;
				if (q->by == STORE_LOCKS_BY_CALLER)
					store_col_text(s, 6, e->s.name, sizeof(e->s.name));
				if (!e->s.name[0] && q->by == STORE_LOCKS_BY_CALLER)
					snprintf(e->s.name, sizeof(e->s.name), "Unknown");
				if (q->by == STORE_LOCKS_BY_ADDR && sym)
					lock_symbol(st, sym, addr, e->s.name, sizeof(e->s.name), false);
			}
		}
		if (q->nsyms && sym)
			lock_symbol(st, sym, addr, lsym, sizeof(lsym), true);
		if (!keep(q, flags, addr, lsym))
			continue;
		if (kind == STORE_LOCK_EV_BEGIN) {
			e->s.contended++;
		} else if (kind == STORE_LOCK_EV_ACQUIRED) {
			e->s.acquired++;
			e->s.wait_total += wait;
			if (wait > e->s.wait_max)
				e->s.wait_max = wait;
			if (wait < e->s.wait_min)
				e->s.wait_min = wait;
			e->s.avg_wait = e->s.wait_total / e->s.acquired;
		}
	}
	if (r != SQLITE_DONE) {
		r = store_sqlerr(st, err, "reading lock contention");
		goto out;
	}
	/* Compact, sort as perf, name threads by their last comm. */
	size_t m = 0;
	for (size_t i = 0; i < t.cap; i++)
		if (t.e[i].used)
			t.e[m++] = t.e[i];
	sort_key = q->sort;
	qsort(t.e, m, sizeof(*t.e), cmp_entry);
	struct store_lock_stat *rows = calloc(m ? m : 1, sizeof(*rows));
	if (!rows) {
		r = c2c_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (q->by == STORE_LOCKS_BY_TASK &&
	    sqlite3_prepare_v2(st->db, "SELECT comm FROM comms WHERE tid = ?1 ORDER BY time DESC, id DESC LIMIT 1",
			       -1, &comm, NULL) != SQLITE_OK)
		comm = NULL;
	for (size_t i = 0; i < m; i++) {
		rows[i] = t.e[i].s;
		if (q->by == STORE_LOCKS_BY_TASK) {
			rows[i].name[0] = 0;
			if (comm) {
				sqlite3_bind_int64(comm, 1, (sqlite3_int64)rows[i].key);
				if (sqlite3_step(comm) == SQLITE_ROW)
					store_col_text(comm, 0, rows[i].name, sizeof(rows[i].name));
				sqlite3_reset(comm);
			}
			if (!rows[i].name[0])  /* perf's name of a thread without a comm */
				snprintf(rows[i].name, sizeof(rows[i].name), ":%d", (int32_t)rows[i].key);
		}
	}
	*out = rows;
	*n = m;
	r = 0;
out:
	sqlite3_finalize(s);
	sqlite3_finalize(sym);
	sqlite3_finalize(comm);
	free(t.e);
	return r;
}
