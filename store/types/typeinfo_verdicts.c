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

/* Verdict input of one line: keys interned from member names or offsets. */
struct vline {
	struct layout_line_access *a;
	size_t n, cap;
	char (*keys)[192];
	size_t nkeys, kcap;
	uint64_t hitm;
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

static int vline_add(struct vline *l, sqlite3_stmt *s, uint64_t line_addr)
{
	uint64_t addr = (uint64_t)sqlite3_column_int64(s, 1);
	uint64_t bits = (uint64_t)sqlite3_column_int64(s, 4);
	const char *t = (const char *)sqlite3_column_text(s, 5);
	const char *m = (const char *)sqlite3_column_text(s, 6);
	bool store = c2c_bits_count(bits, C2C_STORE) > 0;
	unsigned lh = c2c_bits_count(bits, C2C_LCL_HITM), rh = c2c_bits_count(bits, C2C_RMT_HITM);
	unsigned lp = c2c_bits_count(bits, C2C_LCL_PEER), rp = c2c_bits_count(bits, C2C_RMT_PEER);
	char key[192];
	int k;

	if (!store && !c2c_bits_count(bits, C2C_LOAD))
		return 0;
	if (t && m) {
		snprintf(key, sizeof(key), "%.100s", m);
		if (!l->type[0])
			store_copy(l->type, sizeof(l->type), t);
	} else {
		snprintf(key, sizeof(key), "+%llu", (unsigned long long)(addr - line_addr));
	}
	if ((k = vline_key(l, key)) < 0 ||
	    store_grow((void **)&l->a, &l->cap, l->n + 1, sizeof(*l->a)) < 0)
		return -ENOMEM;
	/* perf's shared-line rule: a line is shared when it has HITM or peer
	 * loads; a sample is evidence once, whichever it is */
	l->a[l->n++] = (struct layout_line_access){
		.key = (uint32_t)k, .is_store = store,
		.tid = sqlite3_column_type(s, 2) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 2),
		.cpu = sqlite3_column_type(s, 3) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 3),
		.count = 1,
		.evidence = lh + rh + lp + rp ? 1 : 0,
		.lcl_hitm = lh, .rmt_hitm = rh, .lcl_peer = lp, .rmt_peer = rp,
		.site = (uint32_t)sqlite3_column_int64(s, 7),
	};
	l->hitm += lh + rh;
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

static const char verdict_sql[] =
	"SELECT s.addr, s.addr, s.tid, s.cpu, s.class_bits, a.type_name, a.member, s.site"
	" FROM samples s LEFT JOIN %s a ON a.sample_id = s.id AND a.how > 0 WHERE s.addr != 0 %s"
	" ORDER BY s.addr, s.id";

static int verdict_stmt(struct store *st, sqlite3_stmt **s, bool one, struct c2c_error *err)
{
	char sql[512];
	bool attr = typeinfo_present(st);

	/* without the types tables, join an empty row set of the same shape */
	snprintf(sql, sizeof(sql), verdict_sql,
		 attr ? "type_attr" : "(SELECT NULL AS sample_id, NULL AS how, NULL AS type_name,"
				      " NULL AS member WHERE 0)",
		 one ? "AND s.addr >= ? AND s.addr < ?" : "");
	if (sqlite3_prepare_v2(st->db, sql, -1, s, NULL) != SQLITE_OK) {
		*s = NULL;
		return store_sqlerr(st, err, "preparing the verdicts query");
	}
	return 0;
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
	r->samples = l->n;
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
	sqlite3_stmt *s;
	struct vline l = { 0 };
	int rc = verdict_stmt(st, &s, true, err);
	/* a line key may carry an identity variant (c2c_lineid.h): types are
	 * about the addresses, so every identity of the line counts */
	line_addr = c2c_line_display(line_addr, vline_size(st));

	memset(out, 0, sizeof(*out));
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)line_addr);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)(line_addr + vline_size(st)));
	while (rc == 0 && sqlite3_step(s) == SQLITE_ROW)
		if (vline_add(&l, s, line_addr) < 0)
			rc = c2c_error_set(err, -ENOMEM, "out of memory");
	sqlite3_finalize(s);
	if (rc == 0 && vline_row(st, &l, line_addr, out) < 0)
		rc = c2c_error_set(err, -ENOMEM, "out of memory");
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

static int vline_flush(struct store *st, struct vline *l, uint64_t line,
		       struct typeinfo_verdict_row **v, size_t *k, size_t *cap)
{
	if (!l->n)
		goto reset;
	if (store_grow((void **)v, cap, *k + 1, sizeof(**v)) < 0)
		return -ENOMEM;
	if (vline_row(st, l, line, &(*v)[(*k)++]) < 0)
		return -ENOMEM;
reset:
	l->n = 0;
	l->nkeys = 0;
	l->hitm = 0;
	l->type[0] = 0;
	return 0;
}

int typeinfo_query_verdicts(struct store *st, struct typeinfo_verdict_row **rows, size_t *n,
			    struct c2c_error *err)
{
	sqlite3_stmt *s;
	struct typeinfo_verdict_row *v = NULL;
	struct vline l = { 0 };
	size_t k = 0, cap = 0;
	uint64_t cur = 0;
	bool have = false;
	int rc = verdict_stmt(st, &s, false, err);

	*rows = NULL;
	*n = 0;
	if (rc < 0)
		return rc;
	while (rc == 0 && sqlite3_step(s) == SQLITE_ROW) {
		uint64_t line = (uint64_t)sqlite3_column_int64(s, 0) & ~(uint64_t)(vline_size(st) - 1);
		if (have && line != cur && vline_flush(st, &l, cur, &v, &k, &cap) < 0)
			rc = -ENOMEM;
		cur = line;
		have = true;
		if (rc == 0 && vline_add(&l, s, line) < 0)
			rc = -ENOMEM;
	}
	sqlite3_finalize(s);
	if (rc == 0 && have && vline_flush(st, &l, cur, &v, &k, &cap) < 0)
		rc = -ENOMEM;
	free(l.a);
	free(l.keys);
	if (rc < 0) {
		free(v);
		return c2c_error_set(err, rc, "out of memory");
	}
	if (k)
		qsort(v, k, sizeof(*v), vrow_cmp);
	*rows = v;
	*n = k;
	return 0;
}
