/* The aggregator: per line, line x offset, line x offset x code address
 * (perf's Pareto rows), line x CPU, line x node, line x offset x CPU, CPU,
 * node and lock totals, with distinct CPU / thread / site counts. The
 * writer keeps one for the whole session in memory and writes the entries
 * changed since the last commit (INSERT OR REPLACE of full values, so a
 * reader always sees complete numbers); filtered views build a temporary
 * one from the samples table and write it into temp tables of the same
 * shape, so every query reads one table layout. */
#include "store/agg/agg_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void agg_init(struct agg *a, uint32_t line_size)
{
	memset(a, 0, sizeof(*a));
	a->line_size = line_size ? line_size : 64;
}

void agg_fini(struct agg *a)
{
	for (int i = 0; i < AGG__MAX; i++)
		agg_table_fini(&a->t[i]);
	for (int i = 0; i < SET__MAX; i++)
		key_set_fini(&a->sets[i]);
	free(a->ev_samples);
	a->ev_samples = NULL;
	a->nr_ev = 0;
	agg_rep_free(a);
	tl_log_free(a->tl);
	a->tl = NULL;
}

static struct agg_ent *get(struct agg *a, enum agg_kind k, uint64_t k0, uint64_t k1, uint64_t k2, uint64_t k3,
			   bool *created)
{
	uint64_t key[AGG_KEY_WORDS] = { k0, k1, k2, k3 };
	bool c;
	struct agg_ent *e = agg_table_get(&a->t[k], key, created ? created : &c);

	if (e && agg_table_mark(&a->t[k], e) < 0)
		return NULL;
	return e;
}

/* get() for the one-word keys of a small table, through cache[key] when
 * key < n. */
static struct agg_ent *cached(struct agg *a, enum agg_kind k, struct agg_ent **cache, uint64_t n, uint64_t key)
{
	struct agg_ent *e;

	if (key >= n)
		return get(a, k, key, 0, 0, 0, NULL);
	if (!(e = cache[key]) && !(e = cache[key] = get(a, k, key, 0, 0, 0, NULL)))
		return NULL;
	return agg_table_mark(&a->t[k], e) < 0 ? NULL : e;
}

static int set_add(struct agg *a, enum agg_set s, uint64_t k0, uint64_t k1, uint64_t k2, uint64_t k3)
{
	uint64_t key[AGG_KEY_WORDS] = { k0, k1, k2, k3 };
	return key_set_add(&a->sets[s], key);
}

/* Marks cpu in e's bitmap (an entry of t); returns 1 when it was new. */
static int cpu_add(struct agg_table *t, struct agg_ent *e, uint32_t cpu)
{
	uint32_t w = cpu / 64;
	if (!e->cpus) {
		e->cpus = e->cpus_inline;
		e->cpu_words = 4;
	}
	if (w >= e->cpu_words) {
		uint32_t nw = w + 1;
		uint64_t *p = malloc(nw * sizeof(uint64_t));
		if (!p)
			return -ENOMEM;
		memcpy(p, e->cpus, e->cpu_words * sizeof(uint64_t));
		memset(p + e->cpu_words, 0, (nw - e->cpu_words) * sizeof(uint64_t));
		if (e->cpus != e->cpus_inline)
			free(e->cpus);
		else
			t->heap_cpus++;
		e->cpus = p;
		e->cpu_words = nw;
	}
	if (e->cpus[w] & (1ull << (cpu % 64)))
		return 0;
	e->cpus[w] |= 1ull << (cpu % 64);
	e->nr_cpus++;
	return 1;
}

/* Adds one sample's counters: only the fields its bits set (a handful of
 * the 32), unpacked with c2c_bits_count. */
static void add_bits(struct c2c_stats *st, uint64_t bits)
{
	uint64_t *ctr = (uint64_t *)st;   /* C2C_COUNTER_MAX uint64_t, asserted in collector/c2c/c2c.c */
	while (bits) {
		unsigned i = (unsigned)__builtin_ctzll(bits) / 2;
		ctr[i] += c2c_bits_count(bits, (enum c2c_counter)i);
		bits &= ~(3ull << (2 * i));
	}
}

static void account(struct agg_ent *e, const struct agg_sample *s, int kind)
{
	add_bits(&e->stats, s->bits);
	if (kind >= 0) {
		struct c2c_mean m = { e->lat.cnt[kind], e->lat.mean[kind] };
		c2c_mean_update(&m, s->weight);
		e->lat.cnt[kind] = m.n;
		e->lat.mean[kind] = m.mean;
		e->lat.sum[kind] += s->weight;
	}
	if (s->node >= 0 && s->node < 64)
		e->node_mask |= 1ull << s->node;
}

/* Keeps the data symbol that starts lowest (the object the line or offset
 * belongs to, for objects spanning several lines). */
static void set_dsym(struct agg_ent *e, const struct agg_sample *s)
{
	if (s->dsym > 0 && (e->dsym <= 0 || s->dsym_start < e->dsym_start)) {
		e->dsym = s->dsym;
		e->dsym_start = s->dsym_start;
	}
}

int agg_add_sample(struct agg *a, const struct agg_sample *s)
{
	/* the line key: address | perf's identity variant (c2c_lineid.h) */
	uint64_t line = c2c_cl_address(s->addr, a->line_size, false) | s->line_var;
	uint64_t off = c2c_cl_offset(s->addr, a->line_size, false);
	uint64_t thr = ((uint64_t)(uint32_t)s->pid << 32) | (uint32_t)s->tid;
	bool has_cpu = s->cpu != UINT32_MAX;
	bool c_off = false, c_lcpu = false, c_par, c_cell;
	int kind = (int)c2c_cycles_kind_of(s->bits);
	int r;

	if (kind >= STORE_LAT__MAX)
		kind = -1;
	struct agg_ent *ep = get(a, AGG_PARETO, line, off, s->ip, thr, &c_par);
	struct agg_ent *ec = get(a, AGG_CELL, line, off, s->cpu, 0, &c_cell);
	struct agg_ent *ecpu = cached(a, AGG_CPU, a->cpu_ent, 256, s->cpu);
	struct agg_ent *enode = cached(a, AGG_NODE, a->node_ent, 64, (uint64_t)(int64_t)s->node);
	if (!ep || !ec || !ecpu || !enode)
		return -ENOMEM;
	if (c_par) {
		ep->up1 = get(a, AGG_LINE, line, 0, 0, 0, NULL);
		ep->up2 = get(a, AGG_OFFSET, line, off, 0, 0, &c_off);
		if (!ep->up1 || !ep->up2)
			return -ENOMEM;
		if (c_off)
			ep->up1->nr_offsets++;
	}
	if (c_cell) {
		ec->up1 = get(a, AGG_LINE_CPU, line, s->cpu, 0, 0, &c_lcpu);
		ec->up2 = get(a, AGG_LINE_NODE, line, (uint64_t)(int64_t)s->node, 0, 0, NULL);
		if (!ec->up1 || !ec->up2)
			return -ENOMEM;
		if (c_lcpu && has_cpu) {
			ec->up2->nr_cpus++;
			/* A CPU new to a line may be new to its node. */
			if ((r = set_add(a, SET_NODE_CPU, (uint64_t)(int64_t)s->node, s->cpu, UINT64_MAX, 0)) < 0)
				return r;
			if (r)
				enode->nr_cpus++;
		}
	}
	struct agg_ent *el = ep->up1, *eo = ep->up2, *elc = ec->up1, *eln = ec->up2;
	if (agg_table_mark(&a->t[AGG_LINE], el) < 0 || agg_table_mark(&a->t[AGG_OFFSET], eo) < 0 ||
	    agg_table_mark(&a->t[AGG_LINE_CPU], elc) < 0 || agg_table_mark(&a->t[AGG_LINE_NODE], eln) < 0)
		return -ENOMEM;
	account(el, s, kind);
	account(eo, s, kind);
	account(ep, s, kind);
	account(ecpu, s, kind);
	account(enode, s, kind);
	account(elc, s, kind);
	account(eln, s, kind);
	account(ec, s, -1);
	ecpu->site = s->node;  /* the CPU's node, written with the CPU row */
	elc->site = s->node;
	set_dsym(el, s);
	set_dsym(eo, s);
	if (!ep->site)
		ep->site = s->site;
	if (a->rep && agg_rep_add(a, el, ep, s) < 0)
		return -ENOMEM;
	if (a->tl)
		tl_log_add(a->tl, s->time, line, &el->tl_idx, s->bits);
	if (has_cpu && (cpu_add(&a->t[AGG_LINE], el, s->cpu) < 0 || cpu_add(&a->t[AGG_OFFSET], eo, s->cpu) < 0 ||
			cpu_add(&a->t[AGG_PARETO], ep, s->cpu) < 0))
		return -ENOMEM;

	/* Every new (line, offset, thread, ip) combination is a new Pareto
	 * entry, so the distinct-thread and distinct-site sets only need a
	 * look when one is created. */
	if (c_par) {
		if ((r = set_add(a, SET_LINE_TID, line, thr, 0, 0)) < 0)
			return r;
		el->nr_threads += (uint32_t)r;
		if ((r = set_add(a, SET_OFF_TID, line, off, thr, 0)) < 0)
			return r;
		eo->nr_threads += (uint32_t)r;
		if ((r = set_add(a, SET_LINE_SITE, line, s->ip, 0, 0)) < 0)
			return r;
		el->nr_sites += (uint32_t)r;
		if ((r = set_add(a, SET_OFF_SITE, line, off, s->ip, 0)) < 0)
			return r;
		eo->nr_sites += (uint32_t)r;
		if ((r = set_add(a, SET_TID, thr, 0, 0, 0)) < 0)
			return r;
		a->nr_threads += (uint64_t)r;
	}

	if (s->time) {
		if (!a->time_first || s->time < a->time_first)
			a->time_first = s->time;
		if (s->time > a->time_last)
			a->time_last = s->time;
	}
	if (s->event < 4096) {
		if (s->event >= a->nr_ev) {
			size_t n = s->event + 1;
			uint64_t *p = realloc(a->ev_samples, n * sizeof(*p));
			if (!p)
				return -ENOMEM;
			memset(p + a->nr_ev, 0, (n - a->nr_ev) * sizeof(*p));
			a->ev_samples = p;
			a->nr_ev = n;
		}
		a->ev_samples[s->event]++;
	}
	a->nr_samples++;
	return 0;
}

int agg_add_lock(struct agg *a, const struct agg_lock_sample *w)
{
	uint64_t line = c2c_cl_address(w->lock_addr, a->line_size, false);
	int r;
	struct agg_ent *ek = get(a, AGG_LOCK, w->lock_addr, 0, 0, 0, NULL);
	struct agg_ent *el = get(a, AGG_LINE, line, 0, 0, 0, NULL);

	if (!ek || !el)
		return -ENOMEM;
	ek->lock_waits++;
	ek->lock_wait_ns += w->wait_ns;
	if (w->wait_ns > ek->lock_wait_max)
		ek->lock_wait_max = w->wait_ns;
	ek->lock_flags |= w->flags;
	if (w->dsym > 0 && (ek->dsym <= 0 || w->dsym_start < ek->dsym_start)) {
		ek->dsym = w->dsym;
		ek->dsym_start = w->dsym_start;
	}
	el->lock_waits++;
	el->lock_wait_ns += w->wait_ns;
	if ((r = set_add(a, SET_LOCK_TID, w->lock_addr, (uint64_t)(uint32_t)w->tid, 0, 0)) < 0)
		return r;
	ek->nr_threads += (uint32_t)r;
	if ((r = set_add(a, SET_LOCK_SITE, w->lock_addr, (uint64_t)w->site, 0, 0)) < 0)
		return r;
	ek->nr_sites += (uint32_t)r;
	return 0;
}

/* ---- SQL side -------------------------------------------------------- */

struct agg_table_sql {
	const char *name;
	const char *keydefs;     /* key column definitions */
	const char *keycols;     /* key column names */
	int nkeys;
	const char *extra_defs;  /* non-stats columns */
	const char *extra_cols;
	int nextra;
	bool lat;
	const char *pk;
	const char *index;       /* extra index (column list) or NULL */
};

static const struct agg_table_sql tables[AGG__MAX] = {
	[AGG_LINE] = { "agg_line", "line INTEGER NOT NULL", "line", 1,
		"nr_cpus INTEGER, nr_threads INTEGER, nr_sites INTEGER, nr_offsets INTEGER, node_mask INTEGER,"
		" cpus BLOB, dsym INTEGER, dsym_start INTEGER, lock_waits INTEGER, lock_wait_ns INTEGER,"
		" shared INTEGER",
		"nr_cpus,nr_threads,nr_sites,nr_offsets,node_mask,cpus,dsym,dsym_start,lock_waits,lock_wait_ns,shared",
		11, true, "line", NULL },
	[AGG_OFFSET] = { "agg_offset", "line INTEGER NOT NULL, off INTEGER NOT NULL", "line,off", 2,
		"nr_cpus INTEGER, nr_threads INTEGER, nr_sites INTEGER, node_mask INTEGER, cpus BLOB,"
		" dsym INTEGER, dsym_start INTEGER",
		"nr_cpus,nr_threads,nr_sites,node_mask,cpus,dsym,dsym_start", 7, true, "line,off", NULL },
	[AGG_PARETO] = { "agg_pareto", "line INTEGER NOT NULL, off INTEGER NOT NULL, ip INTEGER NOT NULL,"
		" pid INTEGER NOT NULL, tid INTEGER NOT NULL", "line,off,ip,pid,tid", 5,
		"site INTEGER, nr_cpus INTEGER, node_mask INTEGER, cpus BLOB",
		"site,nr_cpus,node_mask,cpus", 4, true, "line,off,ip,pid,tid", "ip" },
	[AGG_LINE_CPU] = { "agg_line_cpu", "line INTEGER NOT NULL, cpu INTEGER NOT NULL", "line,cpu", 2,
		"node INTEGER", "node", 1, true, "line,cpu", NULL },
	[AGG_LINE_NODE] = { "agg_line_node", "line INTEGER NOT NULL, node INTEGER NOT NULL", "line,node", 2,
		"nr_cpus INTEGER", "nr_cpus", 1, true, "line,node", NULL },
	[AGG_CELL] = { "agg_cell", "line INTEGER NOT NULL, off INTEGER NOT NULL, cpu INTEGER NOT NULL",
		"line,off,cpu", 3, NULL, NULL, 0, false, "line,off,cpu", NULL },
	[AGG_CPU] = { "agg_cpu", "cpu INTEGER NOT NULL", "cpu", 1, "node INTEGER", "node", 1, true, "cpu", NULL },
	[AGG_NODE] = { "agg_node", "node INTEGER NOT NULL", "node", 1, "nr_cpus INTEGER", "nr_cpus", 1, true,
		"node", NULL },
	[AGG_LOCK] = { "agg_lock", "lock_addr INTEGER NOT NULL", "lock_addr", 1,
		"line INTEGER, flags INTEGER, waits INTEGER, wait_ns INTEGER, max_wait_ns INTEGER,"
		" nr_threads INTEGER, nr_sites INTEGER, dsym INTEGER, dsym_start INTEGER",
		"line,flags,waits,wait_ns,max_wait_ns,nr_threads,nr_sites,dsym,dsym_start", 9, false, "lock_addr",
		"line" },
};

int agg_create_tables(struct store *st, const char *schema, struct c2c_error *err)
{
	char *sql;
	int r;

	for (int k = 0; k < AGG__MAX; k++) {
		const struct agg_table_sql *t = &tables[k];
		bool stats = k != AGG_LOCK;
		if (asprintf(&sql, "CREATE TABLE IF NOT EXISTS %s.%s (%s%s%s%s%s%s%s, PRIMARY KEY (%s)) WITHOUT ROWID;",
			     schema, t->name, t->keydefs,
			     stats ? ", " : "", stats ? store_stats_coldefs() : "",
			     t->lat ? ", " : "", t->lat ? store_lat_coldefs() : "",
			     t->extra_defs ? ", " : "", t->extra_defs ? t->extra_defs : "", t->pk) < 0)
			return c2c_error_set(err, -ENOMEM, "out of memory");
		r = store_exec(st, sql, err);
		free(sql);
		if (r < 0)
			return r;
		/* a filtered view's temp tables are read whole or by key: an
		 * extra index only costs its rebuild time */
		if (t->index && !strcmp(schema, "main")) {
			if (asprintf(&sql, "CREATE INDEX IF NOT EXISTS %s.%s_%s ON %s (%s);", schema, t->name,
				     t->index, t->name, t->index) < 0)
				return c2c_error_set(err, -ENOMEM, "out of memory");
			r = store_exec(st, sql, err);
			free(sql);
			if (r < 0)
				return r;
		}
	}
	/* The line list's display filter keeps the lines with at least a
	 * thousandth of the shared lines' count of the display mode: an index
	 * per mode makes that a range (the session's lines only; a filtered
	 * view's temp tables are small and scanned). */
	for (int m = 0; !strcmp(schema, "main") && m < 4; m++) {
		static const char *const mode_cols[] = { "tot_hitm", "lcl_hitm", "rmt_hitm", "tot_peer" };
		if (asprintf(&sql, "CREATE INDEX IF NOT EXISTS main.agg_line_%s ON agg_line (%s);", mode_cols[m],
			     mode_cols[m]) < 0)
			return c2c_error_set(err, -ENOMEM, "out of memory");
		r = store_exec(st, sql, err);
		free(sql);
		if (r < 0)
			return r;
	}
	if (asprintf(&sql, "CREATE TABLE IF NOT EXISTS %s.agg_session (name TEXT PRIMARY KEY, value INTEGER)"
		     " WITHOUT ROWID;", schema) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	r = store_exec(st, sql, err);
	free(sql);
	return r;
}

/* The CPU bitmap without its trailing zero words (at least one word):
 * readers take the words there are, and most rows name CPUs below 64. */
static void bind_cpus(sqlite3_stmt *s, int i, const struct agg_ent *e)
{
	uint32_t words = e->cpu_words;

	while (words > 1 && !e->cpus[words - 1])
		words--;
	sqlite3_bind_blob(s, i, e->cpus, (int)(words * sizeof(uint64_t)), SQLITE_STATIC);
}

static int bind_extra(sqlite3_stmt *s, int i, enum agg_kind k, const struct agg_ent *e, uint32_t line_size)
{
	switch (k) {
	case AGG_LINE:
		sqlite3_bind_int64(s, i++, e->nr_cpus);
		sqlite3_bind_int64(s, i++, e->nr_threads);
		sqlite3_bind_int64(s, i++, e->nr_sites);
		sqlite3_bind_int64(s, i++, e->nr_offsets);
		sqlite3_bind_int64(s, i++, (sqlite3_int64)e->node_mask);
		bind_cpus(s, i++, e);
		sqlite3_bind_int64(s, i++, e->dsym);
		sqlite3_bind_int64(s, i++, (sqlite3_int64)e->dsym_start);
		sqlite3_bind_int64(s, i++, (sqlite3_int64)e->lock_waits);
		sqlite3_bind_int64(s, i++, (sqlite3_int64)e->lock_wait_ns);
		sqlite3_bind_int(s, i++, c2c_line_is_shared(&e->stats));
		break;
	case AGG_OFFSET:
		sqlite3_bind_int64(s, i++, e->nr_cpus);
		sqlite3_bind_int64(s, i++, e->nr_threads);
		sqlite3_bind_int64(s, i++, e->nr_sites);
		sqlite3_bind_int64(s, i++, (sqlite3_int64)e->node_mask);
		bind_cpus(s, i++, e);
		sqlite3_bind_int64(s, i++, e->dsym);
		sqlite3_bind_int64(s, i++, (sqlite3_int64)e->dsym_start);
		break;
	case AGG_PARETO:
		sqlite3_bind_int64(s, i++, e->site);
		sqlite3_bind_int64(s, i++, e->nr_cpus);
		sqlite3_bind_int64(s, i++, (sqlite3_int64)e->node_mask);
		bind_cpus(s, i++, e);
		break;
	case AGG_LINE_CPU:
	case AGG_CPU:
		sqlite3_bind_int64(s, i++, e->site);   /* node */
		break;
	case AGG_LINE_NODE:
	case AGG_NODE:
		sqlite3_bind_int64(s, i++, e->nr_cpus);
		break;
	case AGG_LOCK:
		sqlite3_bind_int64(s, i++, (sqlite3_int64)c2c_cl_address(e->key[0], line_size, false));
		sqlite3_bind_int64(s, i++, (sqlite3_int64)e->lock_flags);
		sqlite3_bind_int64(s, i++, (sqlite3_int64)e->lock_waits);
		sqlite3_bind_int64(s, i++, (sqlite3_int64)e->lock_wait_ns);
		sqlite3_bind_int64(s, i++, (sqlite3_int64)e->lock_wait_max);
		sqlite3_bind_int64(s, i++, e->nr_threads);
		sqlite3_bind_int64(s, i++, e->nr_sites);
		sqlite3_bind_int64(s, i++, e->dsym);
		sqlite3_bind_int64(s, i++, (sqlite3_int64)e->dsym_start);
		break;
	default:
		break;
	}
	return i;
}

#define AGG_MAX_KEY_COLS 5

/* An entry's key as the table's key columns hold it. */
static void key_cols(enum agg_kind k, const struct agg_ent *e, int64_t *kv)
{
	for (int j = 0; j < tables[k].nkeys; j++) {
		if (k == AGG_PARETO && j >= 3) {
			/* key word 3 is (pid << 32 | tid): two columns */
			uint64_t thr = e->key[3];
			kv[j] = j == 3 ? (int32_t)(thr >> 32) : (int32_t)(uint32_t)thr;
			continue;
		}
		uint64_t v = e->key[j];
		/* Small signed keys (node -1, cpu absent) keep their sign. */
		if ((k == AGG_LINE_NODE && j == 1) || (k == AGG_NODE && j == 0))
			kv[j] = (int64_t)v;
		else if ((k == AGG_LINE_CPU && j == 1) || (k == AGG_CELL && j == 2) || (k == AGG_CPU && j == 0))
			kv[j] = v == UINT32_MAX ? -1 : (int64_t)v;
		else
			kv[j] = (int64_t)v;
	}
}

struct keyed_ent {
	int64_t kv[AGG_MAX_KEY_COLS];
	struct agg_ent *e;
};

/* qsort_r: entries by their key columns, as SQLite orders integers. */
static int cmp_key_cols(const void *pa, const void *pb, void *ctx)
{
	int nkeys = *(const int *)ctx;
	const struct keyed_ent *a = pa, *b = pb;

	for (int j = 0; j < nkeys; j++)
		if (a->kv[j] != b->kv[j])
			return a->kv[j] < b->kv[j] ? -1 : 1;
	return 0;
}

/* The table's changed entries with their key columns, in key order: each
 * insert then lands next to the previous one in the table's b-tree instead
 * of on a random page. NULL when out of memory. */
static struct keyed_ent *sorted_dirty(enum agg_kind k, const struct agg_table *tab)
{
	struct keyed_ent *v = malloc(tab->ndirty * sizeof(*v));
	int nkeys = tables[k].nkeys;

	if (!v)
		return NULL;
	for (size_t n = 0; n < tab->ndirty; n++) {
		v[n].e = tab->dirty[n];
		key_cols(k, v[n].e, v[n].kv);
	}
	qsort_r(v, tab->ndirty, sizeof(*v), cmp_key_cols, &nkeys);
	return v;
}

static int flush_table(struct agg *a, struct store *st, const char *schema, enum agg_kind k,
		       struct c2c_error *err)
{
	const struct agg_table_sql *t = &tables[k];
	struct agg_table *tab = &a->t[k];
	bool stats = k != AGG_LOCK;
	int ncols = t->nkeys + (stats ? C2C_COUNTER_MAX : 0) + (t->lat ? STORE_NR_LAT_COLS : 0) + t->nextra;
	char *sql, *q;
	sqlite3_stmt *s;
	int r = 0;

	if (!tab->ndirty)
		return 0;
	q = malloc((size_t)ncols * 2 + 1);
	if (!q)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	for (int i = 0; i < ncols; i++) {
		q[2 * i] = i ? ',' : ' ';
		q[2 * i + 1] = '?';
	}
	q[2 * ncols] = 0;
	r = asprintf(&sql, "INSERT OR REPLACE INTO %s.%s (%s%s%s%s%s%s%s) VALUES (%s)", schema, t->name, t->keycols,
		     stats ? "," : "", stats ? store_stats_cols() : "", t->lat ? "," : "",
		     t->lat ? store_lat_cols() : "", t->extra_cols ? "," : "", t->extra_cols ? t->extra_cols : "",
		     q + 1);
	free(q);
	if (r < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	r = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	free(sql);
	if (r != SQLITE_OK)
		return store_sqlerr(st, err, "writing aggregates");
	r = 0;
	struct keyed_ent *sorted = sorted_dirty(k, tab);
	if (!sorted) {
		sqlite3_finalize(s);
		return c2c_error_set(err, -ENOMEM, "out of memory");
	}
	for (size_t n = 0; n < tab->ndirty; n++) {
		struct agg_ent *e = sorted[n].e;
		int i = 1;
		for (int j = 0; j < t->nkeys; j++)
			sqlite3_bind_int64(s, i++, sorted[n].kv[j]);
		if (stats)
			i = store_bind_stats(s, i, &e->stats);
		if (t->lat)
			i = store_bind_lat(s, i, &e->lat);
		bind_extra(s, i, k, e, a->line_size);
		if (sqlite3_step(s) != SQLITE_DONE) {
			r = store_sqlerr(st, err, "writing aggregates");
			break;
		}
		sqlite3_reset(s);
		e->dirty = false;
	}
	free(sorted);
	sqlite3_finalize(s);
	if (r < 0) {
		/* Keep the rest marked dirty for a retry; the written ones too
		 * (the transaction rolls back). */
		for (size_t n = 0; n < tab->ndirty; n++)
			tab->dirty[n]->dirty = true;
		return r;
	}
	tab->ndirty = 0;
	return 0;
}

int agg_flush(struct agg *a, struct store *st, const char *schema, struct c2c_error *err)
{
	return agg_flush_tables(a, st, schema, AGG_FLUSH_ALL, err);
}

int agg_flush_tables(struct agg *a, struct store *st, const char *schema, unsigned mask, struct c2c_error *err)
{
	static const char *const names[] = { "nr_threads", "time_first", "time_last", "nr_samples" };
	uint64_t vals[] = { a->nr_threads, a->time_first, a->time_last, a->nr_samples };
	sqlite3_stmt *s;
	char *sql;
	int r;

	for (int k = 0; k < AGG__MAX; k++)
		if ((mask & (1u << k)) && (r = flush_table(a, st, schema, (enum agg_kind)k, err)) < 0)
			return r;
	if ((mask & AGG_FLUSH_REP) && a->rep && (r = agg_rep_flush(a, st, schema, err)) < 0)
		return r;
	if (!(mask & AGG_FLUSH_SESSION))
		return 0;
	if (asprintf(&sql, "INSERT OR REPLACE INTO %s.agg_session (name, value) VALUES (?, ?)", schema) < 0)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	r = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	free(sql);
	if (r != SQLITE_OK)
		return store_sqlerr(st, err, "writing aggregates");
	r = 0;
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		sqlite3_bind_text(s, 1, names[i], -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)vals[i]);
		if (sqlite3_step(s) != SQLITE_DONE) {
			r = store_sqlerr(st, err, "writing aggregates");
			break;
		}
		sqlite3_reset(s);
	}
	for (size_t i = 0; i < a->nr_ev && r == 0; i++) {
		char name[32];
		snprintf(name, sizeof(name), "event:%zu", i);
		sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)a->ev_samples[i]);
		if (sqlite3_step(s) != SQLITE_DONE)
			r = store_sqlerr(st, err, "writing aggregates");
		sqlite3_reset(s);
	}
	if (r == 0)
		r = agg_line_summary_write(a, st, s, err);
	sqlite3_finalize(s);
	return r;
}
