/* The verdict of every cache line (store/types/typeinfo.h,
 * typeinfo_query_verdicts, typeinfo_line_verdict): each line's samples,
 * keyed by the member they were attributed to (else their byte offset in
 * the line), judged by layout_verdict() with the session's contention
 * evidence (HITM and peer-cache loads, from the samples' c2c classes), and
 * the evidence people read with it: writer and reader threads and CPUs,
 * the members truly shared and the victims, the top code sites. One
 * function for `report --verdicts`, the lines view's Verdict column and
 * the diff. */
#include "store/types/typeinfo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/base/appendf.h"
#include "collector/c2c/c2c.h"
#include "store/base/base.h"
#include "store/base/sample_merge.h"
#include "store/filter/filter.h"
#include "store/types/verdict_groups.h"

void typeinfo_set_min_evidence(struct store *st, uint32_t n)
{
	st->verdict_min_evidence = n;
	st->verdict_min_set = true;
}

uint32_t typeinfo_min_evidence(const struct store *st)
{
	return st->verdict_min_set ? st->verdict_min_evidence : LAYOUT_MIN_EVIDENCE_DEFAULT;
}

static uint32_t vline_size(const struct store *st)
{
	return st->line_size ? st->line_size : 64;
}

/* Verdict input of one line: its sample groups, in the order of their
 * first sample, with keys interned from member names or offsets. */
struct vline {
	struct layout_line_access *a;
	size_t n, cap;
	char (*keys)[192];
	size_t nkeys, kcap;
	uint64_t hitm, samples;
	char type[128];
};

static int vline_key(struct vline *l, const char *key)
{
	for (size_t i = 0; i < l->nkeys; i++)
		if (!strcmp(l->keys[i], key))
			return (int)i;
	if (store_grow((void **)&l->keys, &l->kcap, l->nkeys + 1, sizeof(*l->keys)) < 0)
		return -ENOMEM;
	store_copy(l->keys[l->nkeys], sizeof(l->keys[0]), key);
	return (int)l->nkeys++;
}

static int vline_add(struct vline *l, const struct vnames *names, const struct vgroup *g)
{
	char key[192];
	int k;

	if (g->key & VGROUP_OFFSET)
		snprintf(key, sizeof(key), "+%u", g->key & ~VGROUP_OFFSET);
	else
		snprintf(key, sizeof(key), "%.100s", vnames_text(names, g->key));
	if ((k = vline_key(l, key)) < 0 ||
	    store_grow((void **)&l->a, &l->cap, l->n + 1, sizeof(*l->a)) < 0)
		return -ENOMEM;
	/* perf's shared-line rule: a line is shared when it has HITM or peer
	 * loads; a sample is evidence once, whichever it is */
	l->a[l->n++] = (struct layout_line_access){
		.key = (uint32_t)k, .is_store = g->store, .tid = g->tid, .cpu = g->cpu,
		.count = g->count,
		.evidence = g->lcl_hitm + g->rmt_hitm + g->lcl_peer + g->rmt_peer ? g->count : 0,
		.lcl_hitm = g->lcl_hitm * g->count, .rmt_hitm = g->rmt_hitm * g->count,
		.lcl_peer = g->lcl_peer * g->count, .rmt_peer = g->rmt_peer * g->count,
		.site = g->site,
	};
	l->hitm += (uint64_t)(g->lcl_hitm + g->rmt_hitm) * g->count;
	l->samples += g->count;
	return 0;
}

/* The line's groups g[0..n), in the order of their first sample; its type
 * is that of its first sample (address, id) that has one. */
static int vline_fill(struct vline *l, const struct vnames *names, const struct vgroup *g, size_t n)
{
	const struct vgroup *typed = NULL;

	l->n = l->nkeys = 0;
	l->hitm = l->samples = 0;
	l->type[0] = 0;
	for (size_t i = 0; i < n; i++) {
		if (vline_add(l, names, &g[i]) < 0)
			return -ENOMEM;
		if (g[i].type && (!typed || g[i].type_addr < typed->type_addr ||
				  (g[i].type_addr == typed->type_addr && g[i].type_id < typed->type_id)))
			typed = &g[i];
	}
	if (typed)
		store_copy(l->type, sizeof(l->type), vnames_text(names, typed->type));
	return 0;
}

static size_t keys_text(char *buf, size_t len, size_t o, const char *label, const struct vline *l,
			const uint32_t *keys, uint32_t n)
{
	if (!n)
		return o;
	o = c2c_appendf(buf, len, o, "%s%s", o ? "; " : "", label);
	for (uint32_t i = 0; i < n && o < len; i++)
		o = c2c_appendf(buf, len, o, " %s", l->keys[keys[i]]);
	return o;
}

/* "writes counter; hurt limit st.hits": the writers' keys, then the keys
 * of the accesses they disturb; for a verdict the members truly shared
 * and the victims of false sharing apart. */
static void vline_keys_text(const struct vline *l, const struct layout_verdict_info *v,
			    struct typeinfo_verdict_row *r)
{
	size_t o = 0, len = sizeof(r->keys);
	char *buf = r->keys;

	buf[0] = 0;
	o = keys_text(buf, len, o, "writes", l, v->writer_keys, v->nwriter_keys);
	if (o < len && (v->ntrue_keys || v->nvictim_keys)) {
		o = c2c_appendf(buf, len, o, "%shurt", o ? "; " : "");
		for (uint32_t i = 0; i < v->ntrue_keys && o < len; i++)
			o = c2c_appendf(buf, len, o, " %s", l->keys[v->true_keys[i]]);
		for (uint32_t i = 0; i < v->nvictim_keys && o < len; i++)
			o = c2c_appendf(buf, len, o, " %s", l->keys[v->victim_keys[i]]);
	}
	r->shared[0] = r->victims[0] = 0;
	o = 0;
	for (uint32_t i = 0; i < v->ntrue_keys; i++)
		o = c2c_appendf(r->shared, sizeof(r->shared), o, "%s%s", i ? " " : "",
				l->keys[v->true_keys[i]]);
	o = 0;
	for (uint32_t i = 0; i < v->nvictim_keys; i++)
		o = c2c_appendf(r->victims, sizeof(r->victims), o, "%s%s", i ? " " : "",
				l->keys[v->victim_keys[i]]);
}

static int id_cmp(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? -1 : a > b;
}

/* "101,102" from the distinct values, "+N" when they do not fit. */
static void ids_text(int64_t *v, size_t n, char *buf, size_t len)
{
	size_t k = 0, o = 0, shown = 0;

	buf[0] = 0;
	if (!n)
		return;
	qsort(v, n, sizeof(*v), id_cmp);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || v[i] != v[i - 1])
			v[k++] = v[i];
	for (size_t i = 0; i < k; i++) {
		char one[24];
		snprintf(one, sizeof(one), "%s%lld", i ? "," : "", (long long)v[i]);
		if (o + strlen(one) + 6 >= len)
			break;
		o = c2c_appendf(buf, len, o, "%s", one);
		shown++;
	}
	if (shown < k)
		c2c_appendf(buf, len, o, ",+%zu", k - shown);
}

static bool ids_has(const int64_t *v, size_t n, int64_t id)
{
	return bsearch(&id, v, n, sizeof(*v), id_cmp) != NULL;
}

/* Writer threads/CPUs (agents that store to the line) and readers (agents
 * that only load from it), as lists. */
static int vline_agents(const struct vline *l, struct typeinfo_verdict_row *r)
{
	size_t sz = (l->n ? l->n : 1) * sizeof(int64_t);
	int64_t *w = malloc(sz), *o = malloc(sz);

	if (!w || !o) {
		free(w);
		free(o);
		return -ENOMEM;
	}
	for (int cpu = 0; cpu < 2; cpu++) {
		size_t nw = 0, no = 0;
		for (size_t i = 0; i < l->n; i++) {
			int64_t id = cpu ? l->a[i].cpu : l->a[i].tid;
			if (id >= 0 && l->a[i].is_store)
				w[nw++] = id;
		}
		qsort(w, nw, sizeof(*w), id_cmp);
		for (size_t i = 0; i < l->n; i++) {
			int64_t id = cpu ? l->a[i].cpu : l->a[i].tid;
			if (id >= 0 && !l->a[i].is_store && !ids_has(w, nw, id))
				o[no++] = id;
		}
		ids_text(w, nw, cpu ? r->writer_cpus : r->writer_tids, sizeof(r->writer_tids));
		ids_text(o, no, cpu ? r->reader_cpus : r->reader_tids, sizeof(r->reader_tids));
	}
	free(w);
	free(o);
	return 0;
}

/* "func+0x12" for the line's top sites. */
static void vline_sites(struct store *st, const struct layout_verdict_info *v,
			struct typeinfo_verdict_row *r)
{
	sqlite3_stmt *s;

	if (!v->nsites || sqlite3_prepare_v2(st->db, "SELECT function, offset, ip FROM main.sites"
					     " WHERE id = ?", -1, &s, NULL) != SQLITE_OK)
		return;
	for (uint32_t i = 0; i < v->nsites; i++) {
		sqlite3_bind_int64(s, 1, v->sites[i]);
		if (sqlite3_step(s) == SQLITE_ROW) {
			const char *f = (const char *)sqlite3_column_text(s, 0);
			if (f && *f)
				snprintf(r->sites[i], sizeof(r->sites[i]), "%.80s+%#llx", f,
					 (unsigned long long)sqlite3_column_int64(s, 1));
			else
				snprintf(r->sites[i], sizeof(r->sites[i]), "%#llx",
					 (unsigned long long)sqlite3_column_int64(s, 2));
			r->site_samples[i] = v->site_samples[i];
			r->site_evidence[i] = v->site_evidence[i];
			r->nsites = i + 1;
		}
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
}

/* The samples with an address; a line's (its two bounds bound) with their
 * types joined; for every line the types come from attr_load instead (a
 * join would look each sample up). No order: the groups keep theirs. */
static int verdict_stmt(struct store *st, sqlite3_stmt **s, bool one, struct c2c_error *err)
{
	char sql[512];

	if (one && typeinfo_present(st))
		snprintf(sql, sizeof(sql), "SELECT s.id, s.addr, s.tid, s.cpu, s.class_bits, s.site, a.type_name,"
					   " a.member FROM samples s LEFT JOIN type_attr a ON a.sample_id = s.id"
					   " AND a.how > 0 WHERE s.addr != 0 AND s.addr >= ? AND s.addr < ?");
	else
		snprintf(sql, sizeof(sql), "SELECT s.id, s.addr, s.tid, s.cpu, s.class_bits, s.site, NULL, NULL"
					   " FROM samples s WHERE s.addr != 0%s",
			 one ? " AND s.addr >= ? AND s.addr < ?" : "");
	if (sqlite3_prepare_v2(st->db, sql, -1, s, NULL) != SQLITE_OK) {
		*s = NULL;
		return store_sqlerr(st, err, "preparing the verdicts query");
	}
	return 0;
}

/* A sample's type and member (name ids), by sample id. */
struct vattr {
	int64_t id;
	uint32_t type, member;
};

struct vscan {
	struct vgroups groups;
	struct vattr *attr;       /* ascending id */
	size_t nattr, cap, hint;
	uint32_t line_size;
	uint64_t lo, hi;          /* one line: its bounds; else 0, 0 */
};

/* Every attributed sample's type and member, in sample id order. */
static int attr_load(struct store *st, struct vscan *v, struct c2c_error *err)
{
	sqlite3_stmt *s;
	int rc = 0, step;

	if (!typeinfo_present(st))
		return 0;
	if (sqlite3_prepare_v2(st->db, "SELECT sample_id, type_name, member FROM type_attr WHERE how > 0"
				       " AND type_name IS NOT NULL AND member IS NOT NULL ORDER BY sample_id",
			       -1, &s, NULL) != SQLITE_OK)
		return store_sqlerr(st, err, "reading the sample types");
	while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(s, 1);
		const char *m = (const char *)sqlite3_column_text(s, 2);
		struct vattr a = { .id = sqlite3_column_int64(s, 0) };
		if (!t || !m)
			continue;
		if (*t)
			a.type = vnames_id(&v->groups.names, t, &rc);
		a.member = vnames_id(&v->groups.names, m, &rc);
		if (rc == 0 && store_grow((void **)&v->attr, &v->cap, v->nattr + 1, sizeof(*v->attr)) < 0)
			rc = -ENOMEM;
		if (rc == 0)
			v->attr[v->nattr++] = a;
	}
	if (rc == 0 && step != SQLITE_DONE)
		rc = store_sqlerr(st, err, "reading the sample types");
	else if (rc < 0)
		rc = c2c_error_set(err, rc, "out of memory");
	sqlite3_finalize(s);
	return rc;
}

/* The attribute of sample id, or NULL. The scan reads samples in id order
 * within each block: search forward from the last hit first. */
static const struct vattr *attr_find(struct vscan *v, int64_t id)
{
	size_t lo = 0, hi = v->nattr;

	if (v->hint < v->nattr && v->attr[v->hint].id <= id) {
		size_t step = 1;
		lo = v->hint;
		while (lo + step < v->nattr && v->attr[lo + step].id <= id) {
			lo += step;
			step *= 2;
		}
		hi = lo + step < v->nattr ? lo + step + 1 : v->nattr;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v->attr[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	v->hint = lo;
	return lo < v->nattr && v->attr[lo].id == id ? &v->attr[lo] : NULL;
}

/* One sample into its group; loads and stores only. t and m: its type
 * and member when the query joined them, else NULL (attr_find). */
static int scan_add(struct vscan *v, int64_t id, uint64_t addr, int32_t tid, int32_t cpu, uint64_t bits,
		    uint32_t site, const char *t, const char *m)
{
	bool store = c2c_bits_count(bits, C2C_STORE) > 0;
	struct vgroup g = {
		.first_id = id, .first_addr = addr, .count = 1, .tid = tid, .cpu = cpu, .site = site,
		.store = store,
		.lcl_hitm = (uint8_t)c2c_bits_count(bits, C2C_LCL_HITM),
		.rmt_hitm = (uint8_t)c2c_bits_count(bits, C2C_RMT_HITM),
		.lcl_peer = (uint8_t)c2c_bits_count(bits, C2C_LCL_PEER),
		.rmt_peer = (uint8_t)c2c_bits_count(bits, C2C_RMT_PEER),
	};
	int rc = 0;

	if (!store && !c2c_bits_count(bits, C2C_LOAD))
		return 0;
	g.line = v->hi ? v->lo : addr & ~(uint64_t)(v->line_size - 1);
	if (t && m) {
		if (*t)
			g.type = vnames_id(&v->groups.names, t, &rc);
		g.key = vnames_id(&v->groups.names, m, &rc);
	} else if (v->nattr) {
		const struct vattr *a = attr_find(v, id);
		if (a) {
			g.type = a->type;
			g.key = a->member;
		}
	}
	if (!g.key)
		g.key = VGROUP_OFFSET | (uint32_t)(addr - g.line);
	g.type_addr = addr;
	g.type_id = id;
	return rc < 0 ? rc : vgroups_add(&v->groups, &g);
}

static int scan_row(struct vscan *v, sqlite3_stmt *s)
{
	bool typed = sqlite3_column_type(s, 6) != SQLITE_NULL && sqlite3_column_type(s, 7) != SQLITE_NULL;

	return scan_add(v, sqlite3_column_int64(s, 0), (uint64_t)sqlite3_column_int64(s, 1),
			sqlite3_column_type(s, 2) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 2),
			sqlite3_column_type(s, 3) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 3),
			(uint64_t)sqlite3_column_int64(s, 4), (uint32_t)sqlite3_column_int64(s, 5),
			typed ? (const char *)sqlite3_column_text(s, 6) : NULL,
			typed ? (const char *)sqlite3_column_text(s, 7) : NULL);
}

/* Every sample of a block session, decoded in C (no SQL row per sample):
 * cpu, tid, site, addr, class_bits. */
static int scan_blocks(struct store *st, struct vscan *v, struct c2c_error *err)
{
	const uint32_t cols = (1u << 2) | (1u << 5) | (1u << 8) | (1u << 9) | (1u << 11);
	const struct store_sample_rec *x;
	const unsigned char *raw;
	struct sample_merge *m;
	int64_t id;
	int r, more;

	if ((r = store_filter_merge_open(st, NULL, cols, &m, err)) < 0)
		return r;
	while (r == 0 && (more = sample_merge_next(m, &x, &raw, &id)) != 0) {
		if (more < 0) {
			r = store_filter_merge_error(st, m, more, err);
			break;
		}
		if (!((x->present >> 9) & 1u) || !x->v[9])
			continue;
		if (scan_add(v, id, (uint64_t)x->v[9], (x->present >> 5) & 1u ? (int32_t)x->v[5] : -1,
			     (x->present >> 2) & 1u ? (int32_t)x->v[2] : -1, (uint64_t)x->v[11], (uint32_t)x->v[8],
			     NULL, NULL) < 0)
			r = c2c_error_set(err, -ENOMEM, "out of memory");
	}
	sample_merge_close(m);
	return r;
}

/* Groups the samples of every line, or of [lo, hi) when hi != 0. */
static int vscan_run(struct store *st, struct vscan *v, struct c2c_error *err)
{
	sqlite3_stmt *s;
	int rc, step;

	v->line_size = vline_size(st);
	if (!v->hi && (rc = attr_load(st, v, err)) < 0)
		return rc;
	if (!v->hi && st->sample_blocks)
		return scan_blocks(st, v, err);
	if ((rc = verdict_stmt(st, &s, v->hi != 0, err)) < 0)
		return rc;
	if (v->hi) {
		sqlite3_bind_int64(s, 1, (sqlite3_int64)v->lo);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)v->hi);
	}
	while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW)
		if (scan_row(v, s) < 0)
			rc = c2c_error_set(err, -ENOMEM, "out of memory");
	if (rc == 0 && step != SQLITE_DONE)
		rc = store_sqlerr(st, err, "reading the samples for the verdicts");
	sqlite3_finalize(s);
	return rc;
}

static void vscan_fini(struct vscan *v)
{
	vgroups_fini(&v->groups);
	free(v->attr);
}

/* One line's row: the verdict and, when the pattern says sharing, its
 * evidence in words. */
static int vline_row(struct store *st, struct vline *l, uint64_t line,
		     struct typeinfo_verdict_row *r)
{
	memset(r, 0, sizeof(*r));
	r->line_addr = line;
	if (layout_verdict(l->a, l->n, typeinfo_min_evidence(st), &r->v) < 0)
		return -ENOMEM;
	r->hitm = l->hitm;
	r->samples = l->samples;
	store_copy(r->type, sizeof(r->type), l->type);
	vline_keys_text(l, &r->v, r);
	if (r->v.pattern == LAYOUT_NONE)
		return 0;
	if (vline_agents(l, r) < 0)
		return -ENOMEM;
	vline_sites(st, &r->v, r);
	return 0;
}

int typeinfo_line_verdict(struct store *st, uint64_t line_addr, struct typeinfo_verdict_row *out,
			  struct c2c_error *err)
{
	struct vscan v = { 0 };
	struct vline l = { 0 };
	struct vgroup *g;
	size_t n;
	int rc;

	/* a line key may carry an identity variant (c2c_lineid.h): types are
	 * about the addresses, so every identity of the line counts */
	line_addr = c2c_line_display(line_addr, vline_size(st));
	memset(out, 0, sizeof(*out));
	v.lo = line_addr;
	v.hi = line_addr + vline_size(st);
	if ((rc = vscan_run(st, &v, err)) == 0) {
		g = vgroups_sorted(&v.groups, &n);
		if (vline_fill(&l, &v.groups.names, g, n) < 0 || vline_row(st, &l, line_addr, out) < 0)
			rc = c2c_error_set(err, -ENOMEM, "out of memory");
	}
	vscan_fini(&v);
	free(l.a);
	free(l.keys);
	return rc;
}

static int vrow_cmp(const void *x, const void *y)
{
	const struct typeinfo_verdict_row *a = x, *b = y;
	if (a->hitm != b->hitm)
		return a->hitm > b->hitm ? -1 : 1;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return a->line_addr < b->line_addr ? -1 : a->line_addr > b->line_addr;
}

/* Every line with samples, one row each, by HITM then samples. */
static int verdict_rows(struct store *st, struct vgroups *gs, struct typeinfo_verdict_row **rows,
			size_t *k)
{
	struct vline l = { 0 };
	size_t n, cap = 0;
	struct vgroup *g = vgroups_sorted(gs, &n);
	int rc = 0;

	for (size_t i = 0, j; rc == 0 && i < n; i = j) {
		for (j = i; j < n && g[j].line == g[i].line; j++)
			;
		if (store_grow((void **)rows, &cap, *k + 1, sizeof(**rows)) < 0 ||
		    vline_fill(&l, &gs->names, &g[i], j - i) < 0 ||
		    vline_row(st, &l, g[i].line, &(*rows)[(*k)++]) < 0)
			rc = -ENOMEM;
	}
	free(l.a);
	free(l.keys);
	return rc;
}

int typeinfo_query_verdicts(struct store *st, struct typeinfo_verdict_row **rows, size_t *n,
			    struct c2c_error *err)
{
	struct vscan v = { 0 };
	struct typeinfo_verdict_row *r = NULL;
	size_t k = 0;
	int rc;

	*rows = NULL;
	*n = 0;
	if ((rc = vscan_run(st, &v, err)) == 0 && (rc = verdict_rows(st, &v.groups, &r, &k)) < 0)
		rc = c2c_error_set(err, rc, "out of memory");
	vscan_fini(&v);
	if (rc < 0) {
		free(r);
		return rc;
	}
	if (k)
		qsort(r, k, sizeof(*r), vrow_cmp);
	*rows = r;
	*n = k;
	return 0;
}
