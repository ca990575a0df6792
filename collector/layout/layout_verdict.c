/* collector/layout: the verdict on one cache line (false / true / mixed
 * sharing when the line has contention evidence, potential when only the
 * access pattern says so, with the evidence), and the what-if replay of
 * accesses against another layout, judged line by line with the same
 * rules. */
#include "collector/layout/layout_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *layout_verdict_name(enum layout_verdict v)
{
	switch (v) {
	case LAYOUT_FALSE: return "false";
	case LAYOUT_TRUE: return "true";
	case LAYOUT_MIXED: return "mixed";
	case LAYOUT_POTENTIAL: return "potential";
	default: return "no contention";
	}
}

const char *layout_verdict_key(enum layout_verdict v)
{
	return v == LAYOUT_NONE ? "none" : layout_verdict_name(v);
}

bool layout_verdict_contended(enum layout_verdict v)
{
	return v == LAYOUT_FALSE || v == LAYOUT_TRUE || v == LAYOUT_MIXED;
}

struct key_info {
	uint32_t key;
	struct layout_set writers;   /* agents */
};

static struct key_info *key_find(struct key_info *k, size_t n, uint32_t key)
{
	for (size_t i = 0; i < n; i++)
		if (k[i].key == key)
			return &k[i];
	return NULL;
}

/* Some writer of k other than agent b? */
static bool written_by_other(const struct key_info *k, int64_t b)
{
	return k->writers.n >= 2 || (k->writers.n == 1 && k->writers.v[0] != b);
}

static void add_key(uint32_t *arr, uint32_t *n, uint32_t key)
{
	for (uint32_t i = 0; i < *n; i++)
		if (arr[i] == key)
			return;
	if (*n < LAYOUT_VERDICT_KEYS)
		arr[(*n)++] = key;
}

/* The contended accesses' code sites with the most evidence, then
 * samples: sites[0..k) are (site, evidence, samples) triples, grouped here. */
struct site_sum {
	uint32_t site;
	uint64_t evidence, count;
};

static int site_cmp(const void *x, const void *y)
{
	const struct site_sum *a = x, *b = y;
	return a->site < b->site ? -1 : a->site > b->site;
}

static int site_rank(const void *x, const void *y)
{
	const struct site_sum *a = x, *b = y;
	if (a->evidence != b->evidence)
		return a->evidence > b->evidence ? -1 : 1;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return site_cmp(x, y);
}

static void top_sites(struct layout_verdict_info *out, struct site_sum *s, size_t k)
{
	size_t m = 0;

	if (!k)
		return;
	qsort(s, k, sizeof(*s), site_cmp);
	for (size_t i = 0; i < k; i++) {
		if (m && s[m - 1].site == s[i].site) {
			s[m - 1].evidence += s[i].evidence;
			s[m - 1].count += s[i].count;
		} else {
			s[m++] = s[i];
		}
	}
	qsort(s, m, sizeof(*s), site_rank);
	for (size_t i = 0; i < m && i < LAYOUT_VERDICT_SITES; i++) {
		out->sites[i] = s[i].site;
		out->site_evidence[i] = s[i].evidence;
		out->site_samples[i] = s[i].count;
		out->nsites = (uint32_t)i + 1;
	}
}

/* marks[i] bit 1: access i is truly contended, bit 2: falsely contended. */
static int verdict_core(const struct layout_line_access *a, size_t n, uint32_t min_evidence,
			struct layout_verdict_info *out, uint8_t *marks)
{
	struct key_info *keys = calloc(n ? n : 1, sizeof(*keys));
	struct site_sum *sites = malloc((n ? n : 1) * sizeof(*sites));
	size_t nsites = 0;
	struct layout_set wt = { 0 }, wc = { 0 }, ot = { 0 }, oc = { 0 }, wag = { 0 };
	size_t nk = 0;
	uint64_t tw = 0, fw = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!keys || !sites) {
		free(keys);
		free(sites);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct key_info *k = key_find(keys, nk, a[i].key);
		if (!k) {
			k = &keys[nk++];
			k->key = a[i].key;
		}
		if (a[i].is_store) {
			int64_t ag = layout_agent(a[i].tid, a[i].cpu);
			if (layout_set_add(&k->writers, ag) < 0 || layout_set_add(&wag, ag) < 0) {
				rc = -ENOMEM;
				goto out;
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		int64_t b = layout_agent(a[i].tid, a[i].cpu);
		struct key_info *k = key_find(keys, nk, a[i].key);
		uint8_t m = 0;

		if (written_by_other(k, b)) {
			m |= 1;
			tw += a[i].count;
			add_key(out->true_keys, &out->ntrue_keys, a[i].key);
		}
		if (m & 1)
			add_key(out->writer_keys, &out->nwriter_keys, a[i].key);
		for (size_t j = 0; j < nk; j++) {
			if (keys[j].key != a[i].key && written_by_other(&keys[j], b)) {
				if (!(m & 2)) {
					fw += a[i].count;
					add_key(out->false_keys, &out->nfalse_keys, a[i].key);
				}
				m |= 2;
				add_key(out->writer_keys, &out->nwriter_keys, keys[j].key);
			}
		}
		if (marks)
			marks[i] = m;
		if (m && a[i].site)
			sites[nsites++] = (struct site_sum){ a[i].site, a[i].evidence, a[i].count };
		out->samples += a[i].count;
		out->evidence += a[i].evidence;
		out->lcl_hitm += a[i].lcl_hitm;
		out->rmt_hitm += a[i].rmt_hitm;
		out->lcl_peer += a[i].lcl_peer;
		out->rmt_peer += a[i].rmt_peer;
		if (a[i].is_store)
			out->stores += a[i].count;
		else
			out->loads += a[i].count;
		if (a[i].is_store) {
			if (a[i].tid >= 0)
				layout_set_add(&wt, a[i].tid);
			if (a[i].cpu >= 0)
				layout_set_add(&wc, a[i].cpu);
		} else if (!layout_set_has(&wag, b)) {
			if (a[i].tid >= 0)
				layout_set_add(&ot, a[i].tid);
			if (a[i].cpu >= 0)
				layout_set_add(&oc, a[i].cpu);
		}
	}
	out->true_samples = tw;
	out->false_samples = fw;
	out->writer_threads = wt.n;
	out->writer_cpus = wc.n;
	out->other_threads = ot.n;
	out->other_cpus = oc.n;
	top_sites(out, sites, nsites);
	/* truly shared keys are not victims, even when another key's writer
	 * hurts them too */
	for (uint32_t i = 0; i < out->nfalse_keys; i++) {
		bool shared = false;
		for (uint32_t j = 0; j < out->ntrue_keys; j++)
			shared |= out->true_keys[j] == out->false_keys[i];
		if (!shared)
			add_key(out->victim_keys, &out->nvictim_keys, out->false_keys[i]);
	}
	if (tw + fw == 0)
		out->pattern = LAYOUT_NONE;
	else if (fw * 10 < tw + fw)
		out->pattern = LAYOUT_TRUE;
	else if (tw * 10 < tw + fw)
		out->pattern = LAYOUT_FALSE;
	else
		out->pattern = LAYOUT_MIXED;
	out->min_evidence = min_evidence;
	out->verdict = out->pattern;
	if (out->pattern != LAYOUT_NONE && out->evidence < min_evidence)
		out->verdict = LAYOUT_POTENTIAL;
out:
	for (size_t i = 0; i < nk; i++)
		layout_set_free(&keys[i].writers);
	free(keys);
	free(sites);
	layout_set_free(&wt);
	layout_set_free(&wc);
	layout_set_free(&ot);
	layout_set_free(&oc);
	layout_set_free(&wag);
	return rc;
}

int layout_verdict(const struct layout_line_access *a, size_t n, uint32_t min_evidence,
		   struct layout_verdict_info *out)
{
	return verdict_core(a, n, min_evidence, out, NULL);
}

struct replay {
	uint64_t object;     /* grouping: object (after) or 0 (before, absolute lines) */
	uint64_t line;
	uint32_t member;     /* plan member index (after) */
	struct layout_line_access acc;
	uint64_t hitm;
};

static int replay_cmp(const void *x, const void *y)
{
	const struct replay *a = x, *b = y;
	if (a->object != b->object)
		return a->object < b->object ? -1 : 1;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return 0;
}

/* Judges each (object, line) group; returns HITM on contended accesses and
 * optionally records the contended groups. */
static int judge(struct replay *r, size_t n, const struct layout_plan *to, uint32_t min_evidence,
		 uint64_t *hitm_left, uint64_t *ncontended, struct layout_whatif *w)
{
	struct layout_line_access *acc = malloc((n ? n : 1) * sizeof(*acc));
	uint8_t *marks = malloc(n ? n : 1);
	size_t i = 0;

	*hitm_left = *ncontended = 0;
	if (!acc || !marks) {
		free(acc);
		free(marks);
		return -ENOMEM;
	}
	qsort(r, n, sizeof(*r), replay_cmp);
	while (i < n) {
		size_t j = i;
		struct layout_verdict_info vi;
		uint64_t left = 0, before = 0;

		while (j < n && r[j].object == r[i].object && r[j].line == r[i].line)
			j++;
		for (size_t k = i; k < j; k++)
			acc[k - i] = r[k].acc;
		if (verdict_core(acc, j - i, min_evidence, &vi, marks) < 0) {
			free(acc);
			free(marks);
			return -ENOMEM;
		}
		/* a line without contention evidence keeps none of its HITM */
		for (size_t k = i; k < j; k++) {
			before += r[k].hitm;
			if (marks[k - i] && layout_verdict_contended(vi.verdict))
				left += r[k].hitm;
		}
		*hitm_left += left;
		if (layout_verdict_contended(vi.verdict)) {
			(*ncontended)++;
			if (w) {
				struct layout_whatif_line *nl = realloc(w->lines,
									(w->nlines + 1) * sizeof(*nl));
				if (!nl) {
					free(acc);
					free(marks);
					return -ENOMEM;
				}
				w->lines = nl;
				nl = &w->lines[w->nlines++];
				memset(nl, 0, sizeof(*nl));
				nl->object = r[i].object;
				nl->line = (uint32_t)r[i].line;
				nl->verdict = vi.verdict;
				nl->hitm_before = before;
				nl->hitm_after = left;
				for (size_t k = i; k < j; k++) {
					const char *nm = to->m[r[k].member].name;
					if (strstr(nl->members, nm))
						continue;
					if (strlen(nl->members) + strlen(nm) + 3 >= sizeof(nl->members))
						break;
					if (nl->members[0])
						strcat(nl->members, ", ");
					strcat(nl->members, nm);
				}
			}
		}
		i = j;
	}
	free(acc);
	free(marks);
	return 0;
}

static int line_cmp(const void *x, const void *y)
{
	const struct layout_whatif_line *a = x, *b = y;
	if (a->hitm_after != b->hitm_after)
		return a->hitm_after > b->hitm_after ? -1 : 1;
	if (a->hitm_before != b->hitm_before)
		return a->hitm_before > b->hitm_before ? -1 : 1;
	if (a->object != b->object)
		return a->object < b->object ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

int layout_whatif(const struct layout *from, const struct layout_plan *to,
		  const struct layout_access *a, size_t n, uint32_t min_evidence,
		  struct layout_whatif *out)
{
	struct replay *before = calloc(n ? n : 1, sizeof(*before));
	struct replay *after = calloc(n ? n : 1, sizeof(*after));
	size_t na = 0, nb = 0;
	uint64_t ls = to->line_size ? to->line_size : 64;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!before || !after) {
		free(before);
		free(after);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		long row = layout_row_at(from, a[i].offset);
		const struct layout_row *top;
		size_t pm;
		uint64_t hitm = a[i].lcl_hitm + a[i].rmt_hitm, new_off, mis;
		struct layout_line_access la = {
			.key = row < 0 ? UINT32_MAX : (uint32_t)row,
			.is_store = a[i].is_store, .tid = a[i].tid, .cpu = a[i].cpu,
			.site = a[i].site, .count = a[i].count,
			.lcl_hitm = a[i].lcl_hitm, .rmt_hitm = a[i].rmt_hitm, .evidence = hitm,
		};

		out->hitm_before += hitm;
		before[nb].object = 0;
		before[nb].line = (a[i].object + a[i].offset) / (from->line_size ? from->line_size : 64);
		before[nb].acc = la;
		before[nb].hitm = hitm;
		before[nb].member = 0;
		nb++;
		if (row < 0) {
			out->unmapped += a[i].count;
			continue;
		}
		top = &from->rows[from->rows[row].top];
		/* bitfields of one storage unit travel with the unit's first one */
		while (top->bit_size && top > from->rows) {
			const struct layout_row *p = top - 1;
			while (p > from->rows && p->depth)
				p--;
			if (p->depth || !p->bit_size || p->offset + p->size < top->offset)
				break;
			top = p;
		}
		for (pm = 0; pm < to->n; pm++)
			if (!strcmp(to->m[pm].name, top->name))
				break;
		if (pm == to->n) {
			out->unmapped += a[i].count;
			continue;
		}
		new_off = to->m[pm].new_offset + (a[i].offset - top->offset);
		/* An object of a type aligned to a line starts on a line; else
		 * keep the misalignment the object had. */
		mis = to->align >= ls ? 0 : a[i].object % ls;
		after[na].object = a[i].object;
		after[na].line = (mis + new_off) / ls;
		after[na].member = (uint32_t)pm;
		after[na].acc = la;
		after[na].hitm = hitm;
		na++;
	}
	/* "before" judges the real addresses, members as recorded */
	{
		uint64_t left_before;
		struct layout_plan none = { .m = NULL, .n = 0 };
		rc = judge(before, nb, &none, min_evidence, &left_before,
			   &out->contended_lines_before, NULL);
	}
	if (rc == 0)
		rc = judge(after, na, to, min_evidence, &out->hitm_after,
			   &out->contended_lines_after, out);
	free(before);
	free(after);
	if (rc < 0) {
		layout_whatif_fini(out);
		return rc;
	}
	if (out->nlines)
		qsort(out->lines, out->nlines, sizeof(*out->lines), line_cmp);
	return 0;
}

void layout_whatif_fini(struct layout_whatif *w)
{
	free(w->lines);
	memset(w, 0, sizeof(*w));
}
