/* Matching two sessions (see store/diff/diff.h): lines that hold attributed
 * members matched by those members (a before line and an after line that
 * hold one member of one object are the same line, whatever their offsets:
 * groups of lines linked that way are matched, split, merged or
 * regrouped); the other lines keyed by data symbol + offset, else by the
 * attributed type + offset of the line in the object, else by address;
 * members of each type matched by name with their offsets, cache lines,
 * flags, latency and line verdicts in each build; code by function; lock
 * waits keyed by perf lock contention's caller and type. */
#include "store/diff/diff.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/c2c/c2c.h"
#include "store/types/typeinfo.h"

const char *diff_status_name(enum diff_status s)
{
	switch (s) {
	case DIFF_APPEARED: return "appeared";
	case DIFF_DISAPPEARED: return "disappeared";
	case DIFF_SPLIT: return "split";
	case DIFF_MERGED: return "merged";
	case DIFF_REGROUPED: return "regrouped";
	default: return "matched";
	}
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 16;
	while (nc < need)
		nc *= 2;
	void *n = realloc(*arr, nc * elem);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = nc;
	return 0;
}

/* Symbols like "[heap]" name a region, not an object: no use as a key. */
static bool real_symbol(const char *s)
{
	return s[0] && s[0] != '[';
}

/* ---- lock waits ---------------------------------------------------------- */

struct lock_side {
	struct diff_lock_row *v;  /* values in .b */
	size_t n, cap;
};

static void lock_add(struct diff_lock_vals *v, const struct store_lock_stat *s)
{
	if (!v->present) {
		v->present = true;
		v->wait_min = UINT64_MAX;
	}
	v->nrows++;
	v->contended += s->contended;
	v->acquired += s->acquired;
	v->wait_total += s->wait_total;
	if (s->wait_max > v->wait_max)
		v->wait_max = s->wait_max;
	if (s->wait_min < v->wait_min)
		v->wait_min = s->wait_min;
	/* perf's average: total over the waits that ended */
	v->avg_wait = v->acquired ? v->wait_total / v->acquired : 0;
}

/* perf lock contention's caller table of one session, rows of one caller
 * and type merged. A session without the table (no lock tracepoints, or
 * imported before it existed) has no lock rows. */
static int locks_load(struct store *st, struct diff_session *info, uint64_t recorded,
		      struct lock_side *out, struct c2c_error *err)
{
	struct store_locks_query q = { .by = STORE_LOCKS_BY_CALLER, .sort = STORE_LOCKS_SORT_WAIT_TOTAL };
	struct store_lock_stat *rows = NULL;
	struct c2c_error lerr = { 0 };
	size_t n = 0;
	int rc;

	rc = store_query_perf_locks(st, &q, &rows, &n, &lerr);
	if (rc == -ENOENT) {
		info->locks_stale = recorded > 0;
		return 0;
	}
	if (rc < 0)
		return c2c_error_set(err, rc, "%s", lerr.msg);
	info->has_locks = n > 0;
	for (size_t i = 0; i < n; i++) {
		const char *kind = store_lock_type_str(rows[i].flags);
		struct diff_lock_row *k = NULL;

		info->lock_contended += rows[i].contended;
		info->lock_wait_ns += rows[i].wait_total;
		for (size_t j = 0; j < out->n && !k; j++)
			if (!strcmp(out->v[j].caller, rows[i].name) && !strcmp(out->v[j].kind, kind))
				k = &out->v[j];
		if (!k) {
			if (grow((void **)&out->v, &out->cap, out->n + 1, sizeof(*out->v)) < 0) {
				free(rows);
				return c2c_error_set(err, -ENOMEM, "out of memory");
			}
			k = &out->v[out->n++];
			memset(k, 0, sizeof(*k));
			snprintf(k->caller, sizeof(k->caller), "%s", rows[i].name);
			snprintf(k->kind, sizeof(k->kind), "%s", kind);
		}
		lock_add(&k->b, &rows[i]);
	}
	free(rows);
	return 0;
}

/* ---- cache lines ---------------------------------------------------------- */

struct keyed {
	char key[192];
	char how[8];
	struct diff_vals v;
	uint64_t lat_sum, lat_cnt;
	char type[128];          /* of the members sampled on it ("" none) */
	char members[256];       /* the members sampled on it, " " between */
};

/* A line address of the session and the keyed line it went to. */
struct addr_key {
	uint64_t addr;
	size_t k;
};

struct side {
	struct keyed *v;
	size_t n, cap;
	struct addr_key *ak;     /* sorted by addr */
	size_t nak, akcap;
	struct typeinfo_place_row *pl;  /* sorted by type, object, member, line */
	size_t npl;
	size_t *pl_k;            /* keyed line of each place (SIZE_MAX: none) */
	struct typeinfo_verdict_row *vr;
	size_t nvr;
};

static void side_fini(struct side *s)
{
	free(s->v);
	free(s->ak);
	free(s->pl);
	free(s->pl_k);
	free(s->vr);
	memset(s, 0, sizeof(*s));
}

static int ak_cmp(const void *x, const void *y)
{
	const struct addr_key *a = x, *b = y;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* A word list without repeats ("parent rt_se"), cut at the buffer's end. */
static void word_add(char *list, size_t len, const char *w)
{
	size_t wl = strlen(w), o = strlen(list);

	for (const char *p = list; (p = strstr(p, w)); p += wl)
		if ((p == list || p[-1] == ' ') && (p[wl] == ' ' || !p[wl]))
			return;
	if (o + wl + 2 <= len)
		snprintf(list + o, len - o, "%s%s", o ? " " : "", w);
}

/* The members' places (store/types, typeinfo_query_places), each tied to
 * the keyed line its cache line went to. */
static int places_load(struct store *st, struct side *out, struct c2c_error *err)
{
	int rc;

	if (out->nak)
		qsort(out->ak, out->nak, sizeof(*out->ak), ak_cmp);
	if ((rc = typeinfo_query_places(st, &out->pl, &out->npl, err)) < 0)
		return rc;
	out->pl_k = calloc(out->npl ? out->npl : 1, sizeof(*out->pl_k));
	if (!out->pl_k)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < out->npl; i++) {
		struct addr_key key = { .addr = out->pl[i].line_addr };
		const struct addr_key *f = out->nak ? bsearch(&key, out->ak, out->nak, sizeof(*out->ak),
							     ak_cmp) : NULL;
		struct keyed *k;

		out->pl_k[i] = f ? f->k : SIZE_MAX;
		if (!f)
			continue;
		k = &out->v[f->k];
		if (!k->type[0])
			snprintf(k->type, sizeof(k->type), "%s", out->pl[i].type);
		word_add(k->members, sizeof(k->members), out->pl[i].member);
	}
	return 0;
}

static int side_load(struct store *st, struct diff_session *info, struct side *out,
		     struct lock_side *locks, struct c2c_error *err)
{
	struct store_lines_query q;
	struct store_line_row *rows = NULL;
	struct store_summary sum;
	struct typeinfo_verdict_row *vr = NULL;
	size_t n = 0, nvr = 0;
	uint64_t total = 0;
	int rc;

	store_lines_query_init(&q);
	q.show_all = true;
	if ((rc = store_query_summary(st, &q.filter, &sum, err)) < 0)
		return rc;
	snprintf(info->path, sizeof(info->path), "%s", store_path(st));
	store_get_status(st, &info->status);
	if (info->status.state != STORE_STATE_COMPLETE)
		store_status_line(&info->status, info->path, info->status_line, sizeof(info->status_line));
	info->samples = sum.nr_samples;
	info->hitm = sum.total.tot_hitm;
	info->seconds = sum.time_last > sum.time_first ? (double)(sum.time_last - sum.time_first) / 1e9
						       : 0;
	if ((rc = locks_load(st, info, sum.lock_waits, locks, err)) < 0)
		return rc;
	if ((rc = store_query_lines(st, &q, &rows, &n, &total, err)) < 0)
		return rc;
	if ((rc = typeinfo_query_verdicts(st, &vr, &nvr, err)) < 0) {
		free(rows);
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		const struct store_line_row *r = &rows[i];
		char key[192], how[8], type[128];
		uint64_t obj;
		struct keyed *k = NULL;
		uint64_t hitm = r->stats.tot_hitm;
		/* the line key without its identity variant (c2c_lineid.h):
		 * lines are matched by what lives at the address */
		uint64_t addr = c2c_line_display(r->addr, sum.cacheline_size);

		/* a line without loads or stores holds only lock waits (a slab
		 * address of this run) or the tracepoint samples, which have no
		 * data address (line 0): nothing to compare here; the waits
		 * are compared by caller in the lock section */
		if (!r->stats.load && !r->stats.store)
			continue;
		if (real_symbol(r->symbol)) {
			snprintf(key, sizeof(key), "%.150s+%#llx", r->symbol,
				 (unsigned long long)r->symbol_offset);
			snprintf(how, sizeof(how), "symbol");
		} else if (typeinfo_line_object(st, addr, type, sizeof(type), &obj) == 0) {
			long long off = (long long)(addr - obj);
			snprintf(key, sizeof(key), "%.150s%s%#llx", type, off < 0 ? "-" : "+",
				 (unsigned long long)(off < 0 ? -off : off));
			snprintf(how, sizeof(how), "type");
		} else {
			snprintf(key, sizeof(key), "%#llx", (unsigned long long)addr);
			snprintf(how, sizeof(how), "addr");
		}
		for (size_t j = 0; j < out->n; j++)
			if (!strcmp(out->v[j].key, key)) {
				k = &out->v[j];
				break;
			}
		if (!k) {
			if (grow((void **)&out->v, &out->cap, out->n + 1, sizeof(*out->v)) < 0) {
				rc = c2c_error_set(err, -ENOMEM, "out of memory");
				break;
			}
			k = &out->v[out->n++];
			memset(k, 0, sizeof(*k));
			snprintf(k->key, sizeof(k->key), "%s", key);
			snprintf(k->how, sizeof(k->how), "%s", how);
			k->v.present = true;
		}
		if (grow((void **)&out->ak, &out->akcap, out->nak + 1, sizeof(*out->ak)) < 0) {
			rc = c2c_error_set(err, -ENOMEM, "out of memory");
			break;
		}
		out->ak[out->nak].addr = addr;
		out->ak[out->nak++].k = (size_t)(k - out->v);
		/* objects of one type at one offset merge; the hottest line
		 * gives the address and the verdict */
		if (!k->v.nmerged || hitm > k->v.hitm) {
			k->v.addr = addr;
			for (size_t j = 0; j < nvr; j++)
				if (vr[j].line_addr == addr)
					k->v.verdict = vr[j].v.verdict;
		}
		k->v.nmerged++;
		k->v.records += r->stats.nr_entries;
		k->v.loads += r->stats.load;
		k->v.stores += r->stats.store;
		k->v.hitm += hitm;
		k->v.lcl_hitm += r->stats.lcl_hitm;
		k->v.rmt_hitm += r->stats.rmt_hitm;
		for (int l = 0; l < STORE_LAT__MAX; l++) {
			k->lat_sum += r->lat.sum[l];
			k->lat_cnt += r->lat.cnt[l];
		}
	}
	for (size_t j = 0; j < out->n; j++) {
		struct diff_vals *v = &out->v[j].v;
		v->lat = out->v[j].lat_cnt ? (double)out->v[j].lat_sum / (double)out->v[j].lat_cnt : 0;
	}
	free(rows);
	out->vr = vr;
	out->nvr = nvr;
	if (rc == 0)
		rc = places_load(st, out, err);
	return rc;
}

static void normalize(struct diff_vals *v, const struct diff_session *s)
{
	double secs = s->seconds > 0 ? s->seconds : 1;

	if (!v->present)
		return;
	v->hitm_per_s = (double)v->hitm / secs;
	v->records_per_s = (double)v->records / secs;
	v->hitm_per_ksample = s->samples ? 1000.0 * (double)v->hitm / (double)s->samples : 0;
}

static int line_cmp(const void *x, const void *y)
{
	const struct diff_line_row *a = x, *b = y;
	uint64_t ha = a->b.hitm > a->a.hitm ? a->b.hitm : a->a.hitm;
	uint64_t hb = b->b.hitm > b->a.hitm ? b->b.hitm : b->a.hitm;
	uint64_t ra = a->b.records + a->a.records, rb = b->b.records + b->a.records;

	if (ha != hb)
		return ha > hb ? -1 : 1;
	if (ra != rb)
		return ra > rb ? -1 : 1;
	return strcmp(a->key, b->key);
}

/* ---- lines matched by the members they hold ---------------------------- */

static int place_key_cmp(const struct typeinfo_place_row *x, const struct typeinfo_place_row *y)
{
	int c;

	if ((c = strcmp(x->type, y->type)))
		return c;
	if ((c = strcmp(x->object, y->object)))
		return c;
	return strcmp(x->member, y->member);
}

/* One member (type, object, path) sampled in both sessions: its places
 * [b0, b1) in the before side's list, [a0, a1) in the after side's. */
struct mgroup {
	size_t b0, b1, a0, a1;
	size_t root;             /* its line group (union-find root) */
};

static size_t uf_find(size_t *up, size_t i)
{
	while (up[i] != i) {
		up[i] = up[up[i]];
		i = up[i];
	}
	return i;
}

static void uf_union(size_t *up, size_t x, size_t y)
{
	x = uf_find(up, x);
	y = uf_find(up, y);
	if (x != y)
		up[x > y ? x : y] = x < y ? x : y;
}

static size_t run_end(const struct side *s, size_t i)
{
	size_t j = i + 1;

	while (j < s->npl && !place_key_cmp(&s->pl[i], &s->pl[j]))
		j++;
	return j;
}

static bool run_linked(const struct side *s, size_t i0, size_t i1)
{
	for (size_t i = i0; i < i1; i++)
		if (s->pl_k[i] != SIZE_MAX)
			return true;
	return false;
}

/* Members present in both sessions (a merge of the two sorted lists). */
static int member_groups(const struct side *b, const struct side *a, struct mgroup **out, size_t *n)
{
	size_t i = 0, j = 0, cap = 0;

	*out = NULL;
	*n = 0;
	while (i < b->npl && j < a->npl) {
		size_t i1 = run_end(b, i), j1 = run_end(a, j);
		int c = place_key_cmp(&b->pl[i], &a->pl[j]);

		if (c == 0 && run_linked(b, i, i1) && run_linked(a, j, j1)) {
			if (grow((void **)out, &cap, *n + 1, sizeof(**out)) < 0)
				return -ENOMEM;
			(*out)[(*n)++] = (struct mgroup){ .b0 = i, .b1 = i1, .a0 = j, .a1 = j1 };
		}
		if (c <= 0)
			i = i1;
		if (c >= 0)
			j = j1;
	}
	return 0;
}

static bool run_has(const struct side *s, size_t i0, size_t i1, size_t k)
{
	for (size_t i = i0; i < i1; i++)
		if (s->pl_k[i] == k)
			return true;
	return false;
}

/* "load_avg -> struct group+0x80" onto a list (" " between; cut at the end). */
static void move_add(char *list, size_t len, const char *member, const char *arrow, const char *key)
{
	size_t o = strlen(list);
	char item[400];

	snprintf(item, sizeof(item), "%s %s %s", member, arrow, key);
	if (strstr(list, item))
		return;
	if (o + strlen(item) + 3 <= len)
		snprintf(list + o, len - o, "%s%s", o ? ", " : "", item);
}

struct sum {
	uint64_t hot, lat_sum, lat_cnt;
};

static void vals_add(struct diff_vals *d, struct sum *sm, const struct keyed *k)
{
	if (!d->present || k->v.hitm > sm->hot) {
		d->addr = k->v.addr;
		d->verdict = k->v.verdict;
		sm->hot = k->v.hitm;
	}
	d->present = true;
	d->nmerged += k->v.nmerged;
	d->records += k->v.records;
	d->loads += k->v.loads;
	d->stores += k->v.stores;
	d->hitm += k->v.hitm;
	d->lcl_hitm += k->v.lcl_hitm;
	d->rmt_hitm += k->v.rmt_hitm;
	sm->lat_sum += k->lat_sum;
	sm->lat_cnt += k->lat_cnt;
	d->lat = sm->lat_cnt ? (double)sm->lat_sum / (double)sm->lat_cnt : 0;
}

static void key_add(char *list, size_t len, const char *key)
{
	size_t o = strlen(list);

	if (o + strlen(key) + 3 <= len)
		snprintf(list + o, len - o, "%s%s", o ? ", " : "", key);
}

/* A pair of lines (before k, after k) that share members, and how many. */
struct lpair {
	size_t b, a;
	uint64_t shared;
};

static int lpair_cmp(const void *x, const void *y)
{
	const struct lpair *p = x, *q = y;

	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return p->a < q->a ? -1 : p->a > q->a;
}

static int mgroup_cmp(const void *x, const void *y)
{
	const struct mgroup *p = x, *q = y;

	return p->root < q->root ? -1 : p->root > q->root;
}

/* One row for a group of linked lines: the best pair (most members in
 * common, then the same key) is the main one; members that left it or
 * joined it are named, and every line of a split/merge is a part. */
static int group_row(const struct side *b, const struct side *a, size_t nb, const size_t *lines,
		     size_t nlines, size_t kb, size_t ka, const struct mgroup *g, size_t ng,
		     struct diff_line_row *r)
{
	size_t cb = 0, ca = 0;
	struct sum sb = { 0 }, sa = { 0 };

	memset(r, 0, sizeof(*r));
	snprintf(r->how, sizeof(r->how), "members");
	snprintf(r->type, sizeof(r->type), "%s", b->v[kb].type[0] ? b->v[kb].type : a->v[ka].type);
	key_add(r->key, sizeof(r->key), b->v[kb].key);
	key_add(r->key_a, sizeof(r->key_a), a->v[ka].key);
	vals_add(&r->b, &sb, &b->v[kb]);
	vals_add(&r->a, &sa, &a->v[ka]);
	for (size_t i = 0; i < nlines; i++) {
		bool after = lines[i] >= nb;
		size_t k = after ? lines[i] - nb : lines[i];

		if (after)
			ca++;
		else
			cb++;
		if (after && k != ka) {
			key_add(r->key_a, sizeof(r->key_a), a->v[k].key);
			vals_add(&r->a, &sa, &a->v[k]);
		} else if (!after && k != kb) {
			key_add(r->key, sizeof(r->key), b->v[k].key);
			vals_add(&r->b, &sb, &b->v[k]);
		}
	}
	r->status = cb == 1 && ca == 1 ? DIFF_MATCHED : cb == 1 ? DIFF_SPLIT : ca == 1 ? DIFF_MERGED
										   : DIFF_REGROUPED;
	if (r->status != DIFF_MATCHED) {
		if (!(r->parts = calloc(nlines, sizeof(*r->parts))))
			return -ENOMEM;
		/* before's lines first, the main one first on each side */
		for (int pass = 0; pass < 4; pass++)
			for (size_t i = 0; i < nlines; i++) {
				bool after = lines[i] >= nb;
				size_t k = after ? lines[i] - nb : lines[i];
				bool main_line = after ? k == ka : k == kb;
				const struct keyed *e = after ? &a->v[k] : &b->v[k];
				struct diff_line_part *pt;

				if (after != (pass >= 2) || main_line != !(pass & 1))
					continue;
				pt = &r->parts[r->nparts++];
				pt->after = after;
				snprintf(pt->key, sizeof(pt->key), "%s", e->key);
				pt->v = e->v;
				pt->v.lat = e->lat_cnt ? (double)e->lat_sum / (double)e->lat_cnt : 0;
				snprintf(pt->members, sizeof(pt->members), "%s", e->members);
			}
	}
	for (size_t i = 0; i < ng; i++) {
		bool in_b = run_has(b, g[i].b0, g[i].b1, kb), in_a = run_has(a, g[i].a0, g[i].a1, ka);
		const char *m = b->pl[g[i].b0].member;

		if (in_b && !in_a)
			for (size_t j = g[i].a0; j < g[i].a1; j++)
				if (a->pl_k[j] != SIZE_MAX)
					move_add(r->left, sizeof(r->left), m, "->", a->v[a->pl_k[j]].key);
		if (in_a && !in_b)
			for (size_t j = g[i].b0; j < g[i].b1; j++)
				if (b->pl_k[j] != SIZE_MAX)
					move_add(r->joined, sizeof(r->joined), m, "<-", b->v[b->pl_k[j]].key);
	}
	return 0;
}

struct lref {
	size_t root, line;
};

static int lref_cmp(const void *x, const void *y)
{
	const struct lref *p = x, *q = y;

	if (p->root != q->root)
		return p->root < q->root ? -1 : 1;
	return p->line < q->line ? -1 : p->line > q->line;
}

static int push_row(struct diff_result *out, size_t *cap, struct diff_line_row **r)
{
	if (grow((void **)&out->lines, cap, out->nlines + 1, sizeof(*out->lines)) < 0)
		return -ENOMEM;
	*r = &out->lines[out->nlines++];
	return 0;
}

/* Lines linked by members become one row per group; returns which lines
 * were linked (the rest are matched by key). */
static int match_by_members(struct side *b, struct side *a, struct diff_result *out, size_t *cap,
			    bool *linked)
{
	size_t nb = b->n, nl = b->n + a->n, ng = 0, np = 0, pcap = 0, nr = 0;
	size_t *up = malloc((nl ? nl : 1) * sizeof(*up));
	struct mgroup *g = NULL;
	struct lpair *pairs = NULL, *best = NULL;
	struct lref *refs = NULL;
	size_t *lines = NULL;
	int rc = -ENOMEM;

	if (!up || member_groups(b, a, &g, &ng) < 0)
		goto out;
	for (size_t i = 0; i < nl; i++)
		up[i] = i;
	for (size_t i = 0; i < ng; i++)
		for (size_t x = g[i].b0; x < g[i].b1; x++)
			for (size_t y = g[i].a0; y < g[i].a1; y++) {
				if (b->pl_k[x] == SIZE_MAX || a->pl_k[y] == SIZE_MAX)
					continue;
				uf_union(up, b->pl_k[x], nb + a->pl_k[y]);
				linked[b->pl_k[x]] = linked[nb + a->pl_k[y]] = true;
				if (grow((void **)&pairs, &pcap, np + 1, sizeof(*pairs)) < 0)
					goto out;
				pairs[np++] = (struct lpair){ b->pl_k[x], a->pl_k[y], 1 };
			}
	for (size_t i = 0; i < ng; i++) {
		size_t x = g[i].b0;
		while (b->pl_k[x] == SIZE_MAX)
			x++;
		g[i].root = uf_find(up, b->pl_k[x]);
	}
	if (ng)
		qsort(g, ng, sizeof(*g), mgroup_cmp);
	if (np)
		qsort(pairs, np, sizeof(*pairs), lpair_cmp);
	/* the best pair of each group, indexed by root */
	best = calloc(nl ? nl : 1, sizeof(*best));
	refs = malloc((nl ? nl : 1) * sizeof(*refs));
	lines = malloc((nl ? nl : 1) * sizeof(*lines));
	if (!best || !refs || !lines)
		goto out;
	for (size_t i = 0; i < np;) {
		size_t j = i + 1, root = uf_find(up, pairs[i].b);
		struct lpair *bp = &best[root];
		bool same, bsame;

		while (j < np && pairs[j].b == pairs[i].b && pairs[j].a == pairs[i].a)
			j++;
		pairs[i].shared = j - i;
		same = !strcmp(b->v[pairs[i].b].key, a->v[pairs[i].a].key);
		bsame = bp->shared && !strcmp(b->v[bp->b].key, a->v[bp->a].key);
		if (pairs[i].shared > bp->shared || (pairs[i].shared == bp->shared && same && !bsame))
			*bp = pairs[i];
		i = j;
	}
	for (size_t i = 0; i < nl; i++)
		if (linked[i])
			refs[nr++] = (struct lref){ uf_find(up, i), i };
	if (nr)
		qsort(refs, nr, sizeof(*refs), lref_cmp);
	for (size_t i = 0, gi = 0; i < nr;) {
		size_t j = i, root = refs[i].root, g0, n = 0;
		struct diff_line_row *r;

		while (j < nr && refs[j].root == root)
			lines[n++] = refs[j++].line;
		while (gi < ng && g[gi].root < root)
			gi++;
		g0 = gi;
		while (gi < ng && g[gi].root == root)
			gi++;
		if (push_row(out, cap, &r) < 0)
			goto out;
		if (group_row(b, a, nb, lines, n, best[root].b, best[root].a, &g[g0], gi - g0, r) < 0)
			goto out;
		normalize(&r->b, &out->before);
		normalize(&r->a, &out->after);
		for (uint32_t p = 0; p < r->nparts; p++)
			normalize(&r->parts[p].v, r->parts[p].after ? &out->after : &out->before);
		i = j;
	}
	rc = 0;
out:
	free(up);
	free(g);
	free(pairs);
	free(best);
	free(refs);
	free(lines);
	return rc;
}

static int match_lines(struct side *b, struct side *a, struct diff_result *out,
		       struct c2c_error *err)
{
	size_t cap = 0;
	bool *used = calloc(a->n ? a->n : 1, sizeof(*used));
	bool *linked = calloc(b->n + a->n ? b->n + a->n : 1, sizeof(*linked));

	if (!used || !linked || match_by_members(b, a, out, &cap, linked) < 0) {
		free(used);
		free(linked);
		return c2c_error_set(err, -ENOMEM, "out of memory");
	}
	/* lines that share no member with the other session: by key */
	for (size_t j = 0; j < a->n; j++)
		used[j] = linked[b->n + j];
	for (size_t i = 0; i < b->n + a->n; i++) {
		struct diff_line_row *r;
		const struct keyed *kb = i < b->n ? &b->v[i] : NULL, *ka = NULL;

		if (linked[i])
			continue;
		if (!kb) {
			if (used[i - b->n])
				continue;
			ka = &a->v[i - b->n];
		} else {
			for (size_t j = 0; j < a->n; j++)
				if (!used[j] && !strcmp(a->v[j].key, kb->key)) {
					ka = &a->v[j];
					used[j] = true;
					break;
				}
		}
		if (push_row(out, &cap, &r) < 0) {
			free(used);
			free(linked);
			return c2c_error_set(err, -ENOMEM, "out of memory");
		}
		memset(r, 0, sizeof(*r));
		snprintf(r->key, sizeof(r->key), "%s", kb ? kb->key : ka->key);
		snprintf(r->how, sizeof(r->how), "%s", kb ? kb->how : ka->how);
		snprintf(r->type, sizeof(r->type), "%s", kb && kb->type[0] ? kb->type : ka ? ka->type : "");
		if (kb)
			r->b = kb->v;
		if (ka)
			r->a = ka->v;
		r->status = kb && ka ? DIFF_MATCHED : kb ? DIFF_DISAPPEARED : DIFF_APPEARED;
		normalize(&r->b, &out->before);
		normalize(&r->a, &out->after);
	}
	free(used);
	free(linked);
	if (out->nlines)
		qsort(out->lines, out->nlines, sizeof(*out->lines), line_cmp);
	return 0;
}

static void member_vals(struct diff_vals *v, const struct layout_row *r)
{
	v->present = true;
	v->loads = r->loads;
	v->stores = r->stores;
	v->records = r->loads + r->stores;
	v->lcl_hitm = r->lcl_hitm;
	v->rmt_hitm = r->rmt_hitm;
	v->hitm = r->lcl_hitm + r->rmt_hitm;
}

/* A member's latency and the verdict of the line its samples mostly sit
 * on, from the side's places: every place of the type whose path is the
 * row's or inside it ("st" covers "st.hits"). */
static void member_extra(const struct side *s, const char *type, const char *name, struct diff_vals *v)
{
	uint64_t most = 0, line = 0, sum = 0, cnt = 0;
	size_t nl = strlen(name);

	if (!s)
		return;
	for (size_t i = 0; i < s->npl; i++) {
		const struct typeinfo_place_row *p = &s->pl[i];
		if (strcmp(p->type, type) || strncmp(p->member, name, nl) ||
		    (p->member[nl] && p->member[nl] != '.' && p->member[nl] != '['))
			continue;
		for (int k = 0; k < STORE_LAT__MAX; k++) {
			sum += p->lat.sum[k];
			cnt += p->lat.cnt[k];
		}
		if (p->samples > most) {
			most = p->samples;
			line = p->line_addr;
		}
	}
	v->lat = cnt ? (double)sum / (double)cnt : 0;
	for (size_t j = 0; most && j < s->nvr; j++)
		if (s->vr[j].line_addr == line)
			v->verdict = s->vr[j].v.verdict;
}

static int add_member(struct diff_result *out, size_t *cap, const char *type,
		      const struct layout_row *rb, const struct layout *lb, const struct side *sb,
		      const struct layout_row *ra, const struct layout *la, const struct side *sa)
{
	struct diff_member_row *m;

	if (grow((void **)&out->members, cap, out->nmembers + 1, sizeof(*out->members)) < 0)
		return -ENOMEM;
	m = &out->members[out->nmembers++];
	memset(m, 0, sizeof(*m));
	snprintf(m->type, sizeof(m->type), "%s", type);
	snprintf(m->member, sizeof(m->member), "%s", rb ? rb->name : ra->name);
	m->depth = rb ? rb->depth : ra->depth;
	m->status = rb && ra ? DIFF_MATCHED : rb ? DIFF_DISAPPEARED : DIFF_APPEARED;
	if (rb) {
		member_vals(&m->b, rb);
		member_extra(sb, type, rb->name, &m->b);
		m->off_b = rb->offset;
		m->size_b = rb->size;
		m->line_b = (uint32_t)((lb->base_misalign + rb->offset) / lb->line_size);
		m->fs_b = rb->fs_flag;
	}
	if (ra) {
		member_vals(&m->a, ra);
		member_extra(sa, type, ra->name, &m->a);
		m->off_a = ra->offset;
		m->size_a = ra->size;
		m->line_a = (uint32_t)((la->base_misalign + ra->offset) / la->line_size);
		m->fs_a = ra->fs_flag;
	}
	m->moved = rb && ra && m->line_b != m->line_a;
	normalize(&m->b, &out->before);
	normalize(&m->a, &out->after);
	return 0;
}

static const struct layout_row *row_named(const struct layout *l, const char *name)
{
	for (size_t i = 0; l && i < l->nrows; i++)
		if (!strcmp(l->rows[i].name, name))
			return &l->rows[i];
	return NULL;
}

static int match_members(struct store *sb, struct store *sa, const struct side *pb,
			 const struct side *pa, struct diff_result *out, struct c2c_error *err)
{
	struct typeinfo_type_row *tb = NULL, *ta = NULL;
	size_t nb = 0, na = 0, cap = 0;
	int rc;

	if ((rc = typeinfo_query_types(sb, &tb, &nb, err)) < 0)
		return rc;
	if ((rc = typeinfo_query_types(sa, &ta, &na, err)) < 0) {
		free(tb);
		return rc;
	}
	for (size_t i = 0; rc == 0 && i < nb + na; i++) {
		const char *type = i < nb ? tb[i].type : ta[i - nb].type;
		struct layout lb, la;
		bool hb, ha;

		if (i >= nb) {   /* after-only types; the rest were done */
			bool seen = false;
			for (size_t j = 0; j < nb; j++)
				seen |= !strcmp(tb[j].type, type);
			if (seen)
				continue;
		}
		hb = typeinfo_layout(sb, type, &lb, NULL, NULL, NULL) == 0;
		ha = typeinfo_layout(sa, type, &la, NULL, NULL, NULL) == 0;
		for (size_t r = 0; hb && rc == 0 && r < lb.nrows; r++)
			rc = add_member(out, &cap, type, &lb.rows[r], &lb, pb,
					ha ? row_named(&la, lb.rows[r].name) : NULL, ha ? &la : NULL, pa);
		for (size_t r = 0; ha && rc == 0 && r < la.nrows; r++)
			if (!hb || !row_named(&lb, la.rows[r].name))
				rc = add_member(out, &cap, type, NULL, NULL, NULL, &la.rows[r], &la, pa);
		if (hb)
			layout_fini(&lb);
		if (ha)
			layout_fini(&la);
		if (rc < 0)
			rc = c2c_error_set(err, -ENOMEM, "out of memory");
	}
	free(tb);
	free(ta);
	return rc;
}

static void lock_normalize(struct diff_lock_vals *v, const struct diff_session *s)
{
	double secs = s->seconds > 0 ? s->seconds : 1;

	if (!v->present)
		return;
	v->contended_per_s = (double)v->contended / secs;
	v->wait_ns_per_s = (double)v->wait_total / secs;
}

static int lock_cmp(const void *x, const void *y)
{
	const struct diff_lock_row *a = x, *b = y;
	uint64_t wa = a->b.wait_total > a->a.wait_total ? a->b.wait_total : a->a.wait_total;
	uint64_t wb = b->b.wait_total > b->a.wait_total ? b->b.wait_total : b->a.wait_total;
	int c;

	if (wa != wb)
		return wa > wb ? -1 : 1;
	if ((c = strcmp(a->caller, b->caller)))
		return c;
	return strcmp(a->kind, b->kind);
}

static int match_locks(struct lock_side *b, struct lock_side *a, struct diff_result *out,
		       struct c2c_error *err)
{
	size_t cap = 0;
	bool *used = calloc(a->n ? a->n : 1, sizeof(*used));

	if (!used)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < b->n + a->n; i++) {
		const struct diff_lock_row *kb = i < b->n ? &b->v[i] : NULL, *ka = NULL;
		struct diff_lock_row *r;

		if (!kb) {
			if (used[i - b->n])
				continue;
			ka = &a->v[i - b->n];
		} else {
			for (size_t j = 0; j < a->n && !ka; j++)
				if (!used[j] && !strcmp(a->v[j].caller, kb->caller) &&
				    !strcmp(a->v[j].kind, kb->kind)) {
					ka = &a->v[j];
					used[j] = true;
				}
		}
		if (grow((void **)&out->locks, &cap, out->nlocks + 1, sizeof(*out->locks)) < 0) {
			free(used);
			return c2c_error_set(err, -ENOMEM, "out of memory");
		}
		r = &out->locks[out->nlocks++];
		memset(r, 0, sizeof(*r));
		snprintf(r->caller, sizeof(r->caller), "%s", kb ? kb->caller : ka->caller);
		snprintf(r->kind, sizeof(r->kind), "%s", kb ? kb->kind : ka->kind);
		if (kb)
			r->b = kb->b;
		if (ka)
			r->a = ka->b;
		r->status = kb && ka ? DIFF_MATCHED : kb ? DIFF_DISAPPEARED : DIFF_APPEARED;
		lock_normalize(&r->b, &out->before);
		lock_normalize(&r->a, &out->after);
	}
	free(used);
	if (out->nlocks)
		qsort(out->locks, out->nlocks, sizeof(*out->locks), lock_cmp);
	return 0;
}

/* ---- code by function ----------------------------------------------------- */

static void func_vals(struct diff_vals *v, const struct store_function_row *f)
{
	uint64_t sum = 0, cnt = 0;

	v->present = true;
	v->records = f->stats.load + f->stats.store;
	v->loads = f->stats.load;
	v->stores = f->stats.store;
	v->hitm = f->stats.tot_hitm;
	v->lcl_hitm = f->stats.lcl_hitm;
	v->rmt_hitm = f->stats.rmt_hitm;
	v->nmerged = f->nr_sites;
	for (int k = 0; k < STORE_LAT__MAX; k++) {
		sum += f->lat.sum[k];
		cnt += f->lat.cnt[k];
	}
	v->lat = cnt ? (double)sum / (double)cnt : 0;
}

static int func_cmp(const void *x, const void *y)
{
	const struct diff_func_row *a = x, *b = y;
	uint64_t ha = a->b.hitm > a->a.hitm ? a->b.hitm : a->a.hitm;
	uint64_t hb = b->b.hitm > b->a.hitm ? b->b.hitm : b->a.hitm;
	uint64_t sa = a->b.stores > a->a.stores ? a->b.stores : a->a.stores;
	uint64_t sb = b->b.stores > b->a.stores ? b->b.stores : b->a.stores;

	if (ha != hb)
		return ha > hb ? -1 : 1;
	if (sa != sb)
		return sa > sb ? -1 : 1;
	return strcmp(a->function, b->function);
}

/* Both lists come sorted by name: a merge. */
static int match_funcs(struct store *sb, struct store *sa, struct diff_result *out, struct c2c_error *err)
{
	struct store_function_row *fb = NULL, *fa = NULL;
	size_t nb = 0, na = 0, i = 0, j = 0, cap = 0;
	int rc;

	if ((rc = store_query_functions(sb, &fb, &nb, err)) < 0)
		return rc;
	if ((rc = store_query_functions(sa, &fa, &na, err)) < 0) {
		free(fb);
		return rc;
	}
	while (i < nb || j < na) {
		int c = i >= nb ? 1 : j >= na ? -1 : strcmp(fb[i].function, fa[j].function);
		struct diff_func_row *r;
		const char *name = c <= 0 ? fb[i].function : fa[j].function;

		if (grow((void **)&out->funcs, &cap, out->nfuncs + 1, sizeof(*out->funcs)) < 0) {
			rc = c2c_error_set(err, -ENOMEM, "out of memory");
			break;
		}
		r = &out->funcs[out->nfuncs++];
		memset(r, 0, sizeof(*r));
		snprintf(r->function, sizeof(r->function), "%s", name[0] ? name : "[unknown]");
		if (c <= 0)
			func_vals(&r->b, &fb[i++]);
		if (c >= 0)
			func_vals(&r->a, &fa[j++]);
		r->status = c == 0 ? DIFF_MATCHED : c < 0 ? DIFF_DISAPPEARED : DIFF_APPEARED;
		normalize(&r->b, &out->before);
		normalize(&r->a, &out->after);
	}
	free(fb);
	free(fa);
	if (rc == 0 && out->nfuncs)
		qsort(out->funcs, out->nfuncs, sizeof(*out->funcs), func_cmp);
	return rc;
}

int diff_sessions(struct store *before, struct store *after, struct diff_result *out,
		  struct c2c_error *err)
{
	struct side sb = { 0 }, sa = { 0 };
	struct lock_side lb = { 0 }, la = { 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	out->min_evidence = typeinfo_min_evidence(before);
	rc = side_load(before, &out->before, &sb, &lb, err);
	if (rc == 0)
		rc = side_load(after, &out->after, &sa, &la, err);
	if (rc == 0)
		rc = match_lines(&sb, &sa, out, err);
	if (rc == 0)
		rc = match_members(before, after, &sb, &sa, out, err);
	if (rc == 0)
		rc = match_funcs(before, after, out, err);
	if (rc == 0)
		rc = match_locks(&lb, &la, out, err);
	side_fini(&sb);
	side_fini(&sa);
	free(lb.v);
	free(la.v);
	if (rc < 0)
		diff_result_fini(out);
	return rc;
}

void diff_result_fini(struct diff_result *r)
{
	for (size_t i = 0; i < r->nlines; i++)
		free(r->lines[i].parts);
	free(r->lines);
	free(r->members);
	free(r->locks);
	free(r->funcs);
	memset(r, 0, sizeof(*r));
}
