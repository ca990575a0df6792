/* perf lock contention's tables from a session's lock_contention rows
 * (store.h store_query_perf_locks): the same entries, counts and times as
 * perf's lock_stat (contended at the begin, wait time and acquired at the
 * end, avg = total / acquired), and perf's order, ties included: perf
 * inserts its hash table into the sorted tree bucket by bucket, newest
 * entry of a bucket first, and an equal key goes after the ones in.
 * Also the explorer's lock list (perf's by-lock numbers with threads, CPUs
 * and top caller), a lock's callers and a caller's call stack. */
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "store/base/base.h"
#include "store/filter/filter.h"

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
	/* a map name ("[kernel.kallsyms]": no data symbol covers the
	 * address) is no lock's name */
	if (buf[0] == '[')
		buf[0] = 0;
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

/* ---- the explorer's lock list, a lock's callers and a caller's stack ---- */

/* A (lock, perf caller key) pair's numbers. */
struct pair_ent {
	uint64_t addr;
	struct store_lock_stat s;
	bool used;
};

struct pair_table {
	struct pair_ent *e;
	size_t cap, n;
};

static size_t pair_slot(uint64_t addr, uint64_t key, size_t cap)
{
	return (size_t)((((addr * GOLDEN_RATIO_64) ^ key) * GOLDEN_RATIO_64) >> 40) & (cap - 1);
}

static struct pair_ent *pair_get(struct pair_table *t, uint64_t addr, uint64_t key)
{
	if ((t->n + 1) * 2 > t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 256;
		struct pair_ent *ne = calloc(ncap, sizeof(*ne));
		if (!ne)
			return NULL;
		for (size_t i = 0; i < t->cap; i++)
			if (t->e[i].used) {
				size_t j = pair_slot(t->e[i].addr, t->e[i].s.key, ncap);
				while (ne[j].used)
					j = (j + 1) & (ncap - 1);
				ne[j] = t->e[i];
			}
		free(t->e);
		t->e = ne;
		t->cap = ncap;
	}
	size_t j = pair_slot(addr, key, t->cap);
	while (t->e[j].used && (t->e[j].addr != addr || t->e[j].s.key != key))
		j = (j + 1) & (t->cap - 1);
	if (!t->e[j].used) {
		t->e[j].used = true;
		t->e[j].addr = addr;
		t->e[j].s.key = key;
		t->e[j].s.wait_min = UINT64_MAX;
		t->n++;
	}
	return &t->e[j];
}

static int cmp_caller(const void *a, const void *b)
{
	const struct store_lock_caller *x = a, *y = b;

	if (x->s.wait_total != y->s.wait_total)
		return x->s.wait_total > y->s.wait_total ? -1 : 1;
	if (x->s.contended != y->s.contended)
		return x->s.contended > y->s.contended ? -1 : 1;
	if (x->lock_addr != y->lock_addr)
		return x->lock_addr < y->lock_addr ? -1 : 1;
	return x->s.key < y->s.key ? -1 : x->s.key > y->s.key;
}

int store_query_lock_callers(struct store *st, uint64_t lock_addr, struct store_lock_caller **out, size_t *n,
			     struct c2c_error *err)
{
	sqlite3_stmt *s = NULL;
	struct table keys = { 0 };
	struct pair_table pairs = { 0 };
	struct store_lock_caller *rows = NULL;
	int r;

	*out = NULL;
	*n = 0;
	/* One scan of perf's caller pairing with the rules of
	 * store_query_perf_locks (by caller, -L ADDR): a key's entry is made
	 * at its first begin on any lock (its name and type are that
	 * begin's), an end counts only for a key some begin made. */
	r = sqlite3_prepare_v2(st->db, "SELECT kind, lock_addr, wait_ns, key, caller, flags FROM lock_contention"
			       " WHERE mode = ?1 ORDER BY id", -1, &s, NULL);
	if (r != SQLITE_OK) {
		sqlite3_finalize(s);
		return c2c_error_set(err, -ENOENT, "%s: no lock contention in this session", store_path(st));
	}
	sqlite3_bind_int(s, 1, STORE_LOCK_MODE_CALLER);
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		int kind = sqlite3_column_int(s, 0);
		uint64_t addr = (uint64_t)sqlite3_column_int64(s, 1);
		uint64_t wait = (uint64_t)sqlite3_column_int64(s, 2);
		uint64_t key = (uint64_t)sqlite3_column_int64(s, 3);
		struct entry *k;
		struct pair_ent *p;
		bool fresh;

		if (kind == STORE_LOCK_EV_ACQUIRED) {
			size_t j;
			if (!keys.cap)
				continue;
			j = (size_t)((key * GOLDEN_RATIO_64) >> 40) & (keys.cap - 1);
			while (keys.e[j].used && keys.e[j].s.key != key)
				j = (j + 1) & (keys.cap - 1);
			if (!keys.e[j].used)
				continue;
		} else {
			if (!(k = table_get(&keys, key, &fresh)))
				goto nomem;
			if (fresh) {
				k->s.flags = (uint32_t)sqlite3_column_int64(s, 5);
				store_col_text(s, 4, k->s.name, sizeof(k->s.name));
				if (!k->s.name[0])
					snprintf(k->s.name, sizeof(k->s.name), "Unknown");
			}
		}
		/* after the key table: a key may be made at another lock's begin */
		if (lock_addr != STORE_ALL_LINES && addr != lock_addr)
			continue;
		if (!(p = pair_get(&pairs, addr, key)))
			goto nomem;
		if (kind == STORE_LOCK_EV_BEGIN) {
			p->s.contended++;
		} else if (kind == STORE_LOCK_EV_ACQUIRED) {
			p->s.acquired++;
			p->s.wait_total += wait;
			if (wait > p->s.wait_max)
				p->s.wait_max = wait;
			if (wait < p->s.wait_min)
				p->s.wait_min = wait;
			p->s.avg_wait = p->s.wait_total / p->s.acquired;
		}
	}
	if (r != SQLITE_DONE) {
		r = store_sqlerr(st, err, "reading lock contention");
		goto out;
	}
	rows = calloc(pairs.n ? pairs.n : 1, sizeof(*rows));
	if (!rows)
		goto nomem;
	for (size_t i = 0; i < pairs.cap; i++) {
		struct pair_ent *p = &pairs.e[i];
		size_t j;
		if (!p->used || (!p->s.contended && !p->s.acquired))
			continue;   /* a nested begin's key that never counted here */
		j = (size_t)((p->s.key * GOLDEN_RATIO_64) >> 40) & (keys.cap - 1);
		while (keys.e[j].used && keys.e[j].s.key != p->s.key)
			j = (j + 1) & (keys.cap - 1);
		rows[*n].lock_addr = p->addr;
		rows[*n].s = p->s;
		rows[*n].s.flags = keys.e[j].s.flags;
		memcpy(rows[*n].s.name, keys.e[j].s.name, sizeof(rows[*n].s.name));
		(*n)++;
	}
	if (*n)
		qsort(rows, *n, sizeof(*rows), cmp_caller);
	*out = rows;
	rows = NULL;
	r = 0;
	goto out;
nomem:
	r = c2c_error_set(err, -ENOMEM, "out of memory");
out:
	sqlite3_finalize(s);
	free(keys.e);
	free(pairs.e);
	free(rows);
	if (r < 0)
		*n = 0;
	return r;
}

int store_query_lock_list(struct store *st, struct store_lock_list_row **out, size_t *n, struct c2c_error *err)
{
	struct store_locks_query q = { .by = STORE_LOCKS_BY_ADDR, .sort = STORE_LOCKS_SORT_WAIT_TOTAL };
	struct store_lock_stat *locks = NULL;
	struct store_lock_caller *callers = NULL;
	struct store_lock_list_row *rows = NULL;
	size_t nl = 0, nc = 0;
	sqlite3_stmt *s = NULL;
	int r;

	*out = NULL;
	*n = 0;
	/* The numbers are `c2ctui locks -l`'s, from the same query. */
	if ((r = store_query_perf_locks(st, &q, &locks, &nl, err)) < 0)
		return r;
	if ((r = store_query_lock_callers(st, STORE_ALL_LINES, &callers, &nc, err)) < 0)
		goto out;
	if (!(rows = calloc(nl ? nl : 1, sizeof(*rows)))) {
		r = c2c_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	/* Threads and CPUs from the waits themselves: a lock-only session
	 * has no memory samples to count them from. */
	if ((r = store_prepare(st, &s, "SELECT COUNT(DISTINCT tid), COUNT(DISTINCT cpu) FROM lock_waits"
			       " WHERE lock_addr = ?1", err)) < 0)
		goto out;
	for (size_t i = 0; i < nl; i++) {
		rows[i].s = locks[i];
		/* callers are sorted by total wait: the first of the lock is its top */
		for (size_t j = 0; j < nc; j++)
			if (callers[j].lock_addr == locks[i].key) {
				snprintf(rows[i].top_caller, sizeof(rows[i].top_caller), "%s", callers[j].s.name);
				break;
			}
		sqlite3_bind_int64(s, 1, (sqlite3_int64)locks[i].key);
		if (sqlite3_step(s) == SQLITE_ROW) {
			rows[i].nr_threads = (uint32_t)sqlite3_column_int64(s, 0);
			rows[i].nr_cpus = (uint32_t)sqlite3_column_int64(s, 1);
		}
		sqlite3_reset(s);
	}
	*out = rows;
	*n = nl;
	rows = NULL;
	r = 0;
out:
	sqlite3_finalize(s);
	free(locks);
	free(callers);
	free(rows);
	return r;
}

int store_query_lock_stack(struct store *st, uint64_t lock_addr, uint64_t key, struct store_lock_frame **out,
			   size_t *n, uint64_t *waits, struct c2c_error *err)
{
	/* The begins of this caller key on this lock, matched to the stored
	 * waits by thread and begin time; their most common call chain. */
	static const char chain_sql[] =
		"SELECT w.callchain, COUNT(*) FROM lock_contention c JOIN lock_waits w"
		" ON w.tid = c.tid AND w.time = c.time AND w.lock_addr = c.lock_addr"
		" WHERE c.mode = 1 AND c.kind = 0 AND c.lock_addr = ?1 AND c.key = ?2 AND w.callchain > 0"
		" GROUP BY w.callchain ORDER BY 2 DESC, 1 LIMIT 1";
	sqlite3_stmt *s = NULL, *site = NULL;
	struct store_lock_frame *f = NULL;
	int64_t chain = 0;
	size_t len = 0;
	int r;

	*out = NULL;
	*n = 0;
	*waits = 0;
	if ((r = store_prepare(st, &s, chain_sql, err)) < 0)
		return r;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)lock_addr);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)key);
	if (sqlite3_step(s) == SQLITE_ROW) {
		chain = sqlite3_column_int64(s, 0);
		*waits = (uint64_t)sqlite3_column_int64(s, 1);
	}
	sqlite3_finalize(s);
	s = NULL;
	if (!chain)
		return 0;
	if ((r = store_prepare(st, &s, "SELECT sites FROM callchains WHERE id = ?1", err)) < 0)
		return r;
	if ((r = store_prepare(st, &site, "SELECT ip, function, offset, dso FROM sites WHERE id = ?1", err)) < 0)
		goto out;
	sqlite3_bind_int64(s, 1, chain);
	if (sqlite3_step(s) == SQLITE_ROW) {
		const unsigned char *blob = sqlite3_column_blob(s, 0);
		len = blob ? (size_t)sqlite3_column_bytes(s, 0) / sizeof(int64_t) : 0;
		if (len && !(f = calloc(len, sizeof(*f)))) {
			r = c2c_error_set(err, -ENOMEM, "out of memory");
			goto out;
		}
		for (size_t i = 0; i < len; i++) {
			memcpy(&f[i].site, blob + i * sizeof(int64_t), sizeof(int64_t));
			sqlite3_bind_int64(site, 1, f[i].site);
			if (sqlite3_step(site) == SQLITE_ROW) {
				f[i].ip = (uint64_t)sqlite3_column_int64(site, 0);
				store_col_text(site, 1, f[i].function, sizeof(f[i].function));
				f[i].offset = (uint64_t)sqlite3_column_int64(site, 2);
				store_col_text(site, 3, f[i].dso, sizeof(f[i].dso));
			}
			sqlite3_reset(site);
		}
	}
	*out = f;
	*n = len;
	f = NULL;
	r = 0;
out:
	sqlite3_finalize(s);
	sqlite3_finalize(site);
	free(f);
	return r;
}

int store_query_lock_cpus(struct store *st, uint64_t line_addr, const struct store_filter *f,
			  struct store_lock_cpu_row **rows, size_t *n, struct c2c_error *err)
{
	/* lock_waits answers the cpu, pid, tid and time filters directly
	 * (node and symbol do not apply to a wait), as store_query_lock_sites. */
	static const char head[] =
		"SELECT cpu, COUNT(*), SUM(wait_ns), MAX(wait_ns), COUNT(DISTINCT tid) FROM lock_waits"
		" WHERE (?1 = 0 OR line = ?2) AND (?3 < 0 OR cpu = ?3) AND (?4 < 0 OR pid = ?4)"
		" AND (?5 < 0 OR tid = ?5) AND time >= ?6 AND (?7 = 0 OR time < ?7)";
	struct store_filter none;
	char *sql;
	sqlite3_stmt *s;
	size_t cap = 0;
	int rc, r;

	*rows = NULL;
	*n = 0;
	if (!f) {
		store_filter_init(&none);
		f = &none;
	}
	if (!(sql = store_sql_with_sets(head, f, "", " GROUP BY cpu ORDER BY cpu")))
		return c2c_error_set(err, -ENOMEM, "out of memory");
	r = store_prepare(st, &s, sql, err);
	free(sql);
	if (r < 0)
		return r;
	sqlite3_bind_int(s, 1, line_addr != STORE_ALL_LINES);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)line_addr);
	sqlite3_bind_int64(s, 3, f->cpu);
	sqlite3_bind_int64(s, 4, f->pid);
	sqlite3_bind_int64(s, 5, f->tid);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)f->time_from);
	sqlite3_bind_int64(s, 7, (sqlite3_int64)f->time_to);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_lock_cpu_row *row;
		if (store_grow((void **)rows, &cap, *n + 1, sizeof(**rows)) < 0) {
			sqlite3_finalize(s);
			free(*rows);
			*rows = NULL;
			*n = 0;
			return c2c_error_set(err, -ENOMEM, "out of memory");
		}
		row = &(*rows)[(*n)++];
		row->cpu = (int32_t)sqlite3_column_int64(s, 0);
		row->waits = (uint64_t)sqlite3_column_int64(s, 1);
		row->wait_ns = (uint64_t)sqlite3_column_int64(s, 2);
		row->max_wait_ns = (uint64_t)sqlite3_column_int64(s, 3);
		row->nr_threads = (uint32_t)sqlite3_column_int64(s, 4);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		free(*rows);
		*rows = NULL;
		*n = 0;
		return store_sqlerr(st, err, "reading lock waits per CPU");
	}
	return 0;
}

int store_query_lock_counts(struct store *st, uint64_t line_addr, const struct store_filter *f, uint32_t *nr_cpus,
			    uint32_t *nr_threads, struct c2c_error *err)
{
	static const char head[] =
		"SELECT COUNT(DISTINCT cpu), COUNT(DISTINCT tid) FROM lock_waits"
		" WHERE (?1 = 0 OR line = ?2) AND (?3 < 0 OR cpu = ?3) AND (?4 < 0 OR pid = ?4)"
		" AND (?5 < 0 OR tid = ?5) AND time >= ?6 AND (?7 = 0 OR time < ?7)";
	struct store_filter none;
	char *sql;
	sqlite3_stmt *s;
	int r;

	*nr_cpus = *nr_threads = 0;
	if (!f) {
		store_filter_init(&none);
		f = &none;
	}
	if (!(sql = store_sql_with_sets(head, f, "", "")))
		return c2c_error_set(err, -ENOMEM, "out of memory");
	r = store_prepare(st, &s, sql, err);
	free(sql);
	if (r < 0)
		return r;
	sqlite3_bind_int(s, 1, line_addr != STORE_ALL_LINES);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)line_addr);
	sqlite3_bind_int64(s, 3, f->cpu);
	sqlite3_bind_int64(s, 4, f->pid);
	sqlite3_bind_int64(s, 5, f->tid);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)f->time_from);
	sqlite3_bind_int64(s, 7, (sqlite3_int64)f->time_to);
	if ((r = sqlite3_step(s)) == SQLITE_ROW) {
		*nr_cpus = (uint32_t)sqlite3_column_int64(s, 0);
		*nr_threads = (uint32_t)sqlite3_column_int64(s, 1);
	}
	sqlite3_finalize(s);
	return r == SQLITE_ROW ? 0 : store_sqlerr(st, err, "counting lock waits");
}
