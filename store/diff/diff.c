/* Matching two sessions (see store/diff/diff.h): lines keyed by data symbol +
 * offset, else by the attributed type + offset of the line in the object,
 * else by address; members of each type matched by name with their
 * offsets, cache lines and false-sharing flags in each build; lock waits
 * keyed by perf lock contention's caller and type. */
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
};

struct side {
	struct keyed *v;
	size_t n, cap;
};

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
	free(vr);
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

static int match_lines(struct side *b, struct side *a, struct diff_result *out,
		       struct c2c_error *err)
{
	size_t cap = 0;
	bool *used = calloc(a->n ? a->n : 1, sizeof(*used));

	if (!used)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < b->n + a->n; i++) {
		struct diff_line_row *r;
		const struct keyed *kb = i < b->n ? &b->v[i] : NULL, *ka = NULL;

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
		if (grow((void **)&out->lines, &cap, out->nlines + 1, sizeof(*out->lines)) < 0) {
			free(used);
			return c2c_error_set(err, -ENOMEM, "out of memory");
		}
		r = &out->lines[out->nlines++];
		memset(r, 0, sizeof(*r));
		snprintf(r->key, sizeof(r->key), "%s", kb ? kb->key : ka->key);
		snprintf(r->how, sizeof(r->how), "%s", kb ? kb->how : ka->how);
		if (kb)
			r->b = kb->v;
		if (ka)
			r->a = ka->v;
		r->status = kb && ka ? DIFF_MATCHED : kb ? DIFF_DISAPPEARED : DIFF_APPEARED;
		normalize(&r->b, &out->before);
		normalize(&r->a, &out->after);
	}
	free(used);
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

static int add_member(struct diff_result *out, size_t *cap, const char *type,
		      const struct layout_row *rb, const struct layout *lb,
		      const struct layout_row *ra, const struct layout *la)
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
		m->off_b = rb->offset;
		m->size_b = rb->size;
		m->line_b = (uint32_t)((lb->base_misalign + rb->offset) / lb->line_size);
		m->fs_b = rb->fs_flag;
	}
	if (ra) {
		member_vals(&m->a, ra);
		m->off_a = ra->offset;
		m->size_a = ra->size;
		m->line_a = (uint32_t)((la->base_misalign + ra->offset) / la->line_size);
		m->fs_a = ra->fs_flag;
	}
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

static int match_members(struct store *sb, struct store *sa, struct diff_result *out,
			 struct c2c_error *err)
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
			rc = add_member(out, &cap, type, &lb.rows[r], &lb,
					ha ? row_named(&la, lb.rows[r].name) : NULL, ha ? &la : NULL);
		for (size_t r = 0; ha && rc == 0 && r < la.nrows; r++)
			if (!hb || !row_named(&lb, la.rows[r].name))
				rc = add_member(out, &cap, type, NULL, NULL, &la.rows[r], &la);
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

int diff_sessions(struct store *before, struct store *after, struct diff_result *out,
		  struct c2c_error *err)
{
	struct side sb = { 0 }, sa = { 0 };
	struct lock_side lb = { 0 }, la = { 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	rc = side_load(before, &out->before, &sb, &lb, err);
	if (rc == 0)
		rc = side_load(after, &out->after, &sa, &la, err);
	if (rc == 0)
		rc = match_lines(&sb, &sa, out, err);
	if (rc == 0)
		rc = match_members(before, after, out, err);
	if (rc == 0)
		rc = match_locks(&lb, &la, out, err);
	free(sb.v);
	free(sa.v);
	free(lb.v);
	free(la.v);
	if (rc < 0)
		diff_result_fini(out);
	return rc;
}

void diff_result_fini(struct diff_result *r)
{
	free(r->lines);
	free(r->members);
	free(r->locks);
	memset(r, 0, sizeof(*r));
}
