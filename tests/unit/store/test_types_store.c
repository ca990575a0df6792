/* store/typeinfo on real sessions: tests/types/conn.c built with -g, a
 * recording written by tests/tools/conn_perfdata (real instruction and
 * object addresses), imported by the import pipeline; then the attribution
 * (globals, heap through instruction decoding, stack, by hand), the layout
 * with flags, line members and verdicts read back from the session. Last,
 * the verdicts of a random synthetic session against a recomputation
 * sample by sample. */
#include "tests/unit/test.h"
#include "tests/unit/test_types_prog.h"

#include "collector/base/appendf.h"
#include "collector/c2c/c2c.h"
#include "collector/layout/layout.h"
#include "store/diff/diff.h"
#include "store/store.h"
#include "store/types/typeinfo.h"
#include "store/types/typeinfo_schema.h"
#include "store/ingest/import_pipeline.h"

#include <errno.h>
#include <sqlite3.h>

struct sess {
	char db[600];
	uint64_t heap, global, stack;
};

/* Builds (once per build) the session of conn_before/conn_after. */
static int make_session(int after, struct sess *s)
{
	static struct sess cache[2];
	static int done[2];
	const char *bin = types_prog_build(after);
	const char *bdir = getenv("C2C_BUILD");
	char data[600], cmd[2400], line[128];
	struct c2c_error err = { 0 };
	struct import_options io = { .generated = true };
	FILE *p;

	if (done[after]) {
		*s = cache[after];
		return done[after] > 0 ? 0 : -1;
	}
	done[after] = -1;
	if (!bin)
		return -1;
	memset(s, 0, sizeof(*s));
	snprintf(data, sizeof(data), "%s/%s.data", test_tmpdir(), after ? "after" : "before");
	snprintf(s->db, sizeof(s->db), "%s/%s.db", test_tmpdir(), after ? "after" : "before");
	snprintf(cmd, sizeof(cmd), "'%s/tools/conn_perfdata' '%s' '%s' %s", bdir ? bdir : "build",
		 bin, data, after ? "--after --seconds 2" : "--seconds 1");
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long v;
		if (sscanf(line, "heap %llx", &v) == 1)
			s->heap = v;
		else if (sscanf(line, "global %llx", &v) == 1)
			s->global = v;
		else if (sscanf(line, "stack %llx", &v) == 1)
			s->stack = v;
	}
	if (pclose(p) != 0 || !s->heap)
		return -1;
	if (import_pipeline_file(data, s->db, &io, &err) < 0) {
		printf("# import: %s\n", err.msg);
		return -1;
	}
	cache[after] = *s;
	done[after] = 1;
	return 0;
}

#define SESSION_OR_SKIP(s, after) \
	struct sess s; \
	if (make_session(after, &s) < 0) { test_skip("cannot build conn.c / run conn_perfdata"); return; }

static struct store *open_rw(const char *path)
{
	struct store *st = NULL;
	struct c2c_error err = { 0 };

	if (store_open(&st, path, STORE_OPEN_APPEND, &err) < 0)
		printf("# %s\n", err.msg);
	return st;
}

static void test_attribution(void)
{
	SESSION_OR_SKIP(s, 0);
	struct store *st = open_rw(s.db);
	struct typeinfo_stats ts;
	struct c2c_error err = { 0 };
	struct typeinfo_type_row *rows;
	size_t n;

	CHECK(st);
	CHECK(typeinfo_attribute(st, NULL, &ts, &err) == 0);
	CHECK_EQ_U64(ts.samples, 175);
	CHECK_EQ_U64(ts.by_how[TYPES_HOW_GLOBAL], 40);
	CHECK_EQ_U64(ts.by_how[TYPES_HOW_INSN], 120);
	CHECK_EQ_U64(ts.by_how[TYPES_HOW_STACK], 5);
	CHECK_EQ_U64(ts.by_how[TYPES_HOW_NONE], 10);
	CHECK_EQ_U64(ts.heap_tried, 135);
	CHECK(strstr(ts.why[0], "not a pointer") != NULL);
	CHECK_EQ_U64(ts.why_n[0], 10);
	printf("# heap/stack samples resolved through instructions: %llu of %llu; unresolved: %s (%llu)\n",
	       (unsigned long long)(ts.by_how[TYPES_HOW_INSN] + ts.by_how[TYPES_HOW_STACK]),
	       (unsigned long long)ts.heap_tried, ts.why[0], (unsigned long long)ts.why_n[0]);
	CHECK(typeinfo_query_types(st, &rows, &n, &err) == 0);
	CHECK_EQ_U64(n, 1);
	CHECK_STR(rows[0].type, "struct conn");
	CHECK_EQ_U64(rows[0].samples, 165);
	CHECK_EQ_U64(rows[0].objects, 3);          /* global, heap, stack */
	CHECK_EQ_U64(rows[0].size, 88);
	CHECK_EQ_U64(rows[0].lcl_hitm, 90);
	CHECK_EQ_U64(rows[0].stores, 65);
	free(rows);
	store_close(st);
}

static void test_line_members_and_verdict(void)
{
	SESSION_OR_SKIP(s, 0);
	struct store *st = open_rw(s.db);
	struct typeinfo_stats ts;
	struct c2c_error err = { 0 };
	struct typeinfo_member_row *m;
	struct typeinfo_verdict_row v;
	struct typeinfo_verdict_row *vr;
	size_t n, k, found = 0;

	CHECK(st);
	CHECK(typeinfo_attribute(st, NULL, &ts, &err) == 0);
	/* the heap object is 64-byte aligned: line 0 holds counter, limit, st */
	CHECK(typeinfo_line_members(st, s.heap, &m, &n, &err) == 0);
	for (k = 0; k < n; k++) {
		if (!strcmp(m[k].member, "counter")) {
			CHECK_EQ_U64(m[k].stores, 40);
			CHECK_EQ_U64(m[k].line_offset, 0x18);
			CHECK(m[k].how_mask & (1u << TYPES_HOW_INSN));
			found++;
		} else if (!strcmp(m[k].member, "limit")) {
			CHECK_EQ_U64(m[k].loads, 60);
			CHECK_EQ_U64(m[k].lcl_hitm, 60);
			CHECK_EQ_U64(m[k].nr_threads, 2);
			found++;
		} else if (!strcmp(m[k].member, "st.hits")) {
			found++;
		}
	}
	free(m);
	CHECK_EQ_U64(found, 3);
	CHECK(typeinfo_line_verdict(st, s.heap, &v, &err) == 0);
	CHECK(v.v.verdict == LAYOUT_FALSE);
	CHECK_EQ_U64(v.v.writer_threads, 1);
	CHECK_EQ_U64(v.v.other_threads, 3);     /* 102, 103, 104 */
	CHECK_EQ_U64(v.v.false_samples, 70);    /* limit 60 + st.hits 10 */
	/* the global's line too */
	CHECK(typeinfo_line_verdict(st, s.global & ~63ULL, &v, &err) == 0);
	CHECK(v.v.verdict == LAYOUT_FALSE);
	/* all lines, worst first; the stack line is written by one thread only */
	CHECK(typeinfo_query_verdicts(st, &vr, &n, &err) == 0);
	CHECK(n >= 3);
	CHECK_EQ_U64(vr[0].hitm, 70);
	CHECK(vr[0].line_addr == s.heap);
	CHECK(vr[0].v.verdict == LAYOUT_FALSE);
	CHECK_STR(vr[0].type, "struct conn");
	CHECK(strstr(vr[0].keys, "limit") != NULL);
	for (k = 0; k < n; k++)
		if (vr[k].line_addr == (s.stack & ~63ULL))
			CHECK(vr[k].v.verdict == LAYOUT_NONE);
	free(vr);
	store_close(st);
}

static void test_layout_from_session(void)
{
	SESSION_OR_SKIP(s, 0);
	struct store *st = open_rw(s.db);
	struct typeinfo_stats ts;
	struct c2c_error err = { 0 };
	struct layout l;
	struct layout_access *acc;
	size_t nacc;
	struct layout_plan p;
	struct layout_whatif w;
	long ctr = -1, lim = -1;

	CHECK(st);
	CHECK(typeinfo_attribute(st, NULL, &ts, &err) == 0);
	CHECK(typeinfo_layout(st, "struct conn", &l, &acc, &nacc, &err) == 0);
	CHECK_EQ_U64(nacc, 165);
	CHECK_EQ_U64(l.size, 88);
	for (size_t i = 0; i < l.nrows; i++) {
		if (!strcmp(l.rows[i].name, "counter"))
			ctr = (long)i;
		if (!strcmp(l.rows[i].name, "limit"))
			lim = (long)i;
	}
	CHECK(ctr >= 0 && lim >= 0);
	CHECK_EQ_U64(l.rows[ctr].stores, 65);     /* heap 40 + global 20 + stack 5 */
	CHECK(l.rows[ctr].fs_flag);
	CHECK(l.rows[lim].fs_victim);
	CHECK_EQ_U64(l.rows[lim].lcl_hitm, 80);   /* heap 60 + global 20 */
	CHECK(layout_propose(&p, &l) == 0);
	CHECK(layout_whatif(&l, &p, acc, nacc, 0, &w) == 0);
	CHECK_EQ_U64(w.hitm_before, 90);
	CHECK_EQ_U64(w.hitm_after, 0);
	layout_whatif_fini(&w);
	layout_plan_fini(&p);
	free(acc);
	layout_fini(&l);
	CHECK(typeinfo_layout(st, "struct nope", &l, NULL, NULL, &err) == -ENOENT);
	store_close(st);
}

static const struct diff_line_row *line_key(const struct diff_result *r, const char *key)
{
	for (size_t i = 0; i < r->nlines; i++)
		if (!strcmp(r->lines[i].key, key))
			return &r->lines[i];
	return NULL;
}

static const struct diff_member_row *member_key(const struct diff_result *r, const char *m)
{
	for (size_t i = 0; i < r->nmembers; i++)
		if (!strcmp(r->members[i].type, "struct conn") && !strcmp(r->members[i].member, m))
			return &r->members[i];
	return NULL;
}

/* store/diff on the two builds' sessions: matching and deltas. */
static void test_diff_sessions(void)
{
	SESSION_OR_SKIP(b, 0);
	SESSION_OR_SKIP(a, 1);
	struct store *sb = open_rw(b.db), *sa = open_rw(a.db);
	struct typeinfo_stats ts;
	struct c2c_error err = { 0 };
	struct diff_result r;
	const struct diff_line_row *l;
	const struct diff_member_row *m;

	CHECK(sb && sa);
	CHECK(typeinfo_attribute(sb, NULL, &ts, &err) == 0);
	CHECK(typeinfo_attribute(sa, NULL, &ts, &err) == 0);
	CHECK(diff_sessions(sb, sa, &r, &err) == 0);
	CHECK_EQ_U64(r.before.samples, 175);
	CHECK_EQ_U64(r.before.hitm, 90);
	CHECK_EQ_U64(r.after.hitm, 0);
	CHECK(r.after.seconds > 1.9 && r.after.seconds < 2.0);
	/* the heap lines, matched by the members they hold (addresses and
	 * offsets differ between runs): line 0 lost counter to +0x80 and
	 * gained slots[2] from +0x40; the stack object's counter line joins */
	CHECK((l = line_key(&r, "struct conn+0, struct conn+0x40, struct conn+0x18")) != NULL);
	CHECK(l->status == DIFF_REGROUPED);
	CHECK_STR(l->how, "members");
	CHECK_STR(l->type, "struct conn");
	CHECK_STR(l->key_a, "struct conn+0, struct conn+0x80");
	CHECK(l->b.addr == b.heap && l->a.addr == a.heap);
	CHECK_EQ_U64(l->b.hitm, 70);
	CHECK_EQ_U64(l->a.hitm, 0);
	CHECK(l->b.verdict == LAYOUT_FALSE && l->a.verdict == LAYOUT_NONE);
	CHECK(l->b.hitm_per_s > 70.0 && l->b.hitm_per_s < 71.0);
	CHECK(l->b.hitm_per_ksample == 400.0);
	CHECK_STR(l->left, "counter -> struct conn+0x80");
	CHECK_STR(l->joined, "slots[2] <- struct conn+0x40");
	CHECK_EQ_U64(l->nparts, 5);
	/* counter's own line in the after build, as one of the group's lines */
	CHECK(l->parts[4].after);
	CHECK_STR(l->parts[4].key, "struct conn+0x80");
	CHECK_STR(l->parts[4].members, "counter");
	CHECK_EQ_U64(l->parts[4].v.stores, 55);  /* heap 40 + 10 unattributed + stack 5 */
	/* the global's line 0 split: counter left for +0x80 */
	CHECK((l = line_key(&r, "global_conn+0")) != NULL);
	CHECK(l->status == DIFF_SPLIT);
	CHECK_STR(l->how, "members");
	CHECK_EQ_U64(l->b.hitm, 20);
	CHECK_STR(l->left, "counter -> global_conn+0x80");
	/* nothing left to match by key */
	CHECK_EQ_U64(r.nlines, 2);
	/* members by name */
	CHECK((m = member_key(&r, "counter")) != NULL);
	CHECK_EQ_U64(m->off_b, 24);
	CHECK_EQ_U64(m->off_a, 128);
	CHECK_EQ_U64(m->line_b, 0);
	CHECK_EQ_U64(m->line_a, 2);
	CHECK(m->fs_b && !m->fs_a);
	CHECK(m->moved);
	CHECK(m->b.verdict == LAYOUT_FALSE && m->a.verdict == LAYOUT_NONE);
	CHECK((m = member_key(&r, "limit")) != NULL);
	CHECK(!m->moved);
	CHECK_EQ_U64(m->b.hitm, 80);
	CHECK_EQ_U64(m->b.lcl_hitm, 80);
	CHECK_EQ_U64(m->a.hitm, 0);
	CHECK(m->b.lat == 120.0);
	CHECK((m = member_key(&r, "st.hits")) != NULL);
	CHECK_EQ_U64(m->off_a, 24);
	/* code by function: each function of the workload, same counts */
	{
		const struct diff_func_row *f = NULL;
		for (size_t i = 0; i < r.nfuncs; i++)
			if (!strcmp(r.funcs[i].function, "conn_read_limit"))
				f = &r.funcs[i];
		CHECK(f != NULL);
		if (f) {
			CHECK(f->status == DIFF_MATCHED);
			CHECK_EQ_U64(f->b.loads, 80);
			CHECK_EQ_U64(f->b.hitm, 80);
			CHECK_EQ_U64(f->a.hitm, 0);
		}
	}
	diff_result_fini(&r);
	store_close(sb);
	store_close(sa);
}

static void test_manual_assignment(void)
{
	SESSION_OR_SKIP(s, 0);
	struct store *st = open_rw(s.db);
	struct typeinfo_stats ts;
	struct c2c_error err = { 0 };
	struct typeinfo_member_row *m;
	size_t n;
	char **names;
	int saw_conn = 0, saw_stats = 0;

	CHECK(st);
	CHECK(typeinfo_attribute(st, NULL, &ts, &err) == 0);
	CHECK(typeinfo_struct_names(st, NULL, NULL, &names, &n, &err) == 0);
	for (size_t i = 0; i < n; i++) {
		saw_conn += !strcmp(names[i], "conn");
		saw_stats += !strcmp(names[i], "stats");
		if (i)
			CHECK(strcmp(names[i - 1], names[i]) < 0);
	}
	free(names);
	CHECK(saw_conn == 1 && saw_stats == 1);
	CHECK(typeinfo_struct_names(st, NULL, "CON", &names, &n, &err) == 0);
	CHECK(n >= 1);
	free(names);

	/* the 10 samples through a pointer loaded from memory become "counter" */
	CHECK(typeinfo_assign(st, s.heap, "struct conn", NULL, NULL, &err) == 0);
	CHECK(typeinfo_line_members(st, s.heap, &m, &n, &err) == 0);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(m[i].member, "counter")) {
			CHECK_EQ_U64(m[i].stores, 50);
			CHECK(m[i].how_mask == (1u << TYPES_HOW_MANUAL));
		}
	free(m);
	/* saved in the session: a new attribution pass keeps it */
	CHECK(typeinfo_attribute(st, NULL, &ts, &err) == 0);
	CHECK_EQ_U64(ts.by_how[TYPES_HOW_MANUAL], 130);
	CHECK_EQ_U64(ts.by_how[TYPES_HOW_INSN], 0);
	CHECK_EQ_U64(ts.by_how[TYPES_HOW_NONE], 0);
	CHECK(typeinfo_assign(st, s.heap, "struct no_such", NULL, NULL, &err) == -ENOENT);
	CHECK(strstr(err.msg, "no_such") != NULL);
	store_close(st);
}

static void test_after_session(void)
{
	SESSION_OR_SKIP(s, 1);
	struct store *st = open_rw(s.db);
	struct typeinfo_stats ts;
	struct c2c_error err = { 0 };
	struct typeinfo_verdict_row v;
	struct layout l;

	CHECK(st);
	CHECK(typeinfo_attribute(st, NULL, &ts, &err) == 0);
	CHECK_EQ_U64(ts.by_how[TYPES_HOW_INSN], 120);
	CHECK_EQ_U64(ts.by_how[TYPES_HOW_GLOBAL], 40);
	/* counter alone in line 2: written, read by nobody else */
	CHECK(typeinfo_line_verdict(st, s.heap + 128, &v, &err) == 0);
	CHECK(v.v.verdict == LAYOUT_NONE);
	CHECK(typeinfo_line_verdict(st, s.heap, &v, &err) == 0);
	CHECK(v.v.verdict == LAYOUT_NONE);
	CHECK(typeinfo_layout(st, "struct conn", &l, NULL, NULL, &err) == 0);
	CHECK_EQ_U64(l.size, 192);
	for (size_t i = 0; i < l.nrows; i++)
		CHECK(!l.rows[i].fs_flag);
	layout_fini(&l);
	store_close(st);
}

/* FNV-1a of a file's bytes (0 when it cannot be read). */
static uint64_t file_hash(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint64_t h = 1469598103934665603ull;
	int c;

	if (!f)
		return 0;
	while ((c = getc(f)) != EOF)
		h = (h ^ (uint64_t)c) * 1099511628211ull;
	fclose(f);
	return h;
}

/* Reading attributes into the handle's TEMP tables: the file (and the
 * folder: no journal, no WAL) stays byte for byte as it was; a saved
 * assignment (an explicit edit) is applied; another handle sees nothing. */
static void test_readonly_attribution_never_writes(void)
{
	SESSION_OR_SKIP(s, 0);
	struct store *st = NULL, *other = NULL, *w;
	struct typeinfo_stats ts;
	struct c2c_error err = { 0 };
	char copy[700], cmd[2200], side[720];
	uint64_t h;

	snprintf(copy, sizeof(copy), "%s.ro-test.db", s.db);
	snprintf(cmd, sizeof(cmd), "rm -f '%s' && cp '%s' '%s'", copy, s.db, copy);
	CHECK(system(cmd) == 0);
	CHECK((w = open_rw(copy)) != NULL);
	if (!w)
		return;
	/* the earlier tests saved an attribution in the session: an
	 * explicit assignment drops it, to be recomputed with it */
	CHECK(typeinfo_save_assignment(w, s.heap, "struct conn", NULL, &err) == 0);
	store_close(w);
	h = file_hash(copy);
	CHECK(h != 0);

	CHECK(store_open(&st, copy, STORE_OPEN_RDONLY, &err) == 0);
	CHECK(!typeinfo_present(st));
	CHECK(typeinfo_attribute(st, NULL, &ts, &err) == 0);
	CHECK(typeinfo_present(st));
	CHECK_EQ_U64(ts.by_how[TYPES_HOW_MANUAL], 130);
	CHECK(typeinfo_assign(st, s.heap, "struct conn", NULL, NULL, &err) == 0);
	CHECK(store_open(&other, copy, STORE_OPEN_RDONLY, &err) == 0);
	CHECK(!typeinfo_present(other));
	store_close(other);
	store_close(st);

	CHECK(file_hash(copy) == h);
	snprintf(side, sizeof(side), "%s-journal", copy);
	CHECK(access(side, F_OK) != 0);
	snprintf(side, sizeof(side), "%s-wal", copy);
	CHECK(access(side, F_OK) != 0);
	unlink(copy);
}

/* ---- verdicts from grouped samples == the per-sample computation ----
 * typeinfo_query_verdicts and typeinfo_line_verdict group a line's samples
 * (store/types/verdict_groups.c) and order the groups by their first
 * sample; the verdicts were first computed from one access per sample in
 * (addr, id) order. The test builds a random session, computes every
 * line's row that first way here, and wants the store's rows equal to it:
 * keys interned in another order, another writer list or another top site
 * would show. */

enum { VR_RANDOM = 4000, VR_TRAP = 6, VR_N = VR_RANDOM + VR_TRAP, VR_LINES = 8, VR_KEYS = 128, VR_SITES = 5 };
/* the trap line, in lines from VR_BASE (after the random ones) */
enum { VR_TRAP_LINE = 20 };
#define VR_BASE 0x7f0000200000ull
#define VR_T0 1000000ull

/* Where each line is, in lines from VR_BASE; the last one only gets
 * samples that are neither loads nor stores (no verdict row). */
static const unsigned vr_line_at[VR_LINES] = { 0, 1, 2, 4, 7, 11, 12, 14 };

/* Per line: the bytes [ws, we) its writers store to, the first writer
 * thread and how many (0: any thread), whether other threads stay off
 * those bytes, one stray store in `stray` samples (0: none), how many in
 * 16 loads are HITM or peer, the one offset of every sample (-1: any).
 * Meant to give false, true and mixed sharing, a potential one and one
 * without stores. */
static const struct {
	unsigned ws, we;
	int32_t writer, nwriters;
	bool own;
	unsigned stray, hot;
	int fixed;
} vr_lines[VR_LINES] = {
	{ 16, 24, 1001, 1, true, 0, 6, -1 }, { 8, 24, 0, 0, false, 0, 5, -1 },
	{ 0, 8, 1003, 2, false, 32, 8, -1 }, { 0, 64, 0, 0, false, 0, 4, -1 },
	{ 0, 0, 0, 0, false, 0, 5, -1 }, { 0, 64, 0, 0, false, 0, 8, 24 },
	{ 0, 32, 0, 0, false, 0, 1, -1 }, { 0, 0, 0, 0, false, 0, 0, -1 },
};

/* 100 characters and more: two members that differ only after them make
 * one key (keys keep "%.100s") */
#define VR_LONG "outer.inner.deeper.a_member_path_long_enough_that_a_key_text_cuts_it_at_one_hundred_characters_of_it."

/* Bytes [from, to) of line `line` are `member` of `type`. */
static const struct vr_span {
	unsigned line, from, to;
	const char *type, *member;
} vr_spans[] = {
	{ 0, 0, 8, "struct conn", "refcnt" },
	{ 0, 8, 16, "struct conn", "lock" },
	{ 0, 16, 24, "struct conn", "counter" },
	{ 0, 24, 32, "struct conn", "limit" },
	{ 0, 32, 40, "struct conn", "st.hits" },
	{ 0, 40, 48, "struct conn", "st.misses" },
	/* two types on one line */
	{ 1, 0, 8, "struct rq", "nr_running" },
	{ 1, 8, 24, "struct rq", "clock" },
	{ 1, 32, 40, "struct cfs_rq", "load.weight" },
	{ 1, 40, 56, "struct cfs_rq", "min_vruntime" },
	/* lines 2 and 5: never attributed, keyed by byte offsets; line 3:
	 * the first member has an empty type name (a key, not the line's
	 * type) */
	{ 3, 0, 16, "", VR_LONG "first" },
	{ 3, 16, 32, "struct deep", VR_LONG "second" },
	{ 3, 32, 64, "struct deep", "tail" },
	{ 4, 0, 64, "struct big", "val" },
	{ 6, 0, 32, "struct rare", "a" },
	{ 7, 0, 64, "struct cold", "x" },
	{ VR_TRAP_LINE, 0, 16, "struct trap", "m" },
	{ VR_TRAP_LINE, 32, 40, "struct trap", "w" },
};

/* What type_attr says of a sample: nothing, an attribution, or rows the
 * verdicts must ignore (how 0, no member, no type). */
enum vr_attr { VR_NO_ROW, VR_ATTR, VR_HOW0, VR_NO_MEMBER, VR_NO_TYPE };

struct vr_sample {
	struct c2c_sample s;
	struct store_sample_ctx ctx;
	int span;                /* vr_spans index, -1 none */
	enum vr_attr attr;
	unsigned how;
};

static struct vr_sample vr_samples[VR_N];

static uint64_t vr_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static uint64_t vr_bit(enum c2c_counter c, unsigned n)
{
	return (uint64_t)n << (2 * (unsigned)c);
}

/* A load's class: plain, or HITM / peer evidence (now and then two peer
 * counts, or HITM and peer at once: still one sample of evidence). */
static uint64_t vr_load_class(uint64_t r, unsigned hot)
{
	uint64_t load = vr_bit(C2C_LOAD, 1);

	if (r % 16 >= hot)
		return load | vr_bit((r >> 4) & 1 ? C2C_LD_L1HIT : C2C_LD_FBHIT, 1);
	switch ((r >> 4) % 6) {
	case 0:
		return load | vr_bit(C2C_LCL_HITM, 1) | vr_bit(C2C_TOT_HITM, 1);
	case 1:
		return load | vr_bit(C2C_RMT_HITM, 1) | vr_bit(C2C_TOT_HITM, 1);
	case 2:
		return load | vr_bit(C2C_LCL_PEER, 1) | vr_bit(C2C_TOT_PEER, 1);
	case 3:
		return load | vr_bit(C2C_RMT_PEER, 1) | vr_bit(C2C_TOT_PEER, 1);
	case 4:
		return load | vr_bit(C2C_LCL_PEER, 2) | vr_bit(C2C_TOT_PEER, 2);
	default:
		return load | vr_bit(C2C_LCL_HITM, 1) | vr_bit(C2C_TOT_HITM, 1) | vr_bit(C2C_LCL_PEER, 1);
	}
}

/* The samples: on seven lines, skewed (the last one without loads or
 * stores); a few without an address or neither load nor store; threads
 * 1001..1006 and CPUs 0..7, some unknown. */
static void vr_make_samples(const int64_t *site_ids)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < VR_RANDOM; i++) {
		struct vr_sample *v = &vr_samples[i];
		uint64_t r = vr_rand(&x), r2 = vr_rand(&x);
		unsigned pick = r % 100, line, off, site;
		bool store;

		memset(v, 0, sizeof(*v));
		line = pick < 28 ? 0 : pick < 46 ? 1 : pick < 62 ? 2 : pick < 74 ? 3 : pick < 88 ? 4 :
		       pick < 91 ? 5 : pick < 92 ? 6 : 7;
		off = (r >> 8) % 8 ? ((r >> 11) % 16) * 4 : (r >> 11) % 64;
		if (vr_lines[line].fixed >= 0)
			off = (unsigned)vr_lines[line].fixed;
		v->s.has = C2C_HAS_IP | C2C_HAS_TID | C2C_HAS_TIME | C2C_HAS_ADDR | C2C_HAS_DATA_SRC;
		if ((r >> 17) % 20)
			v->s.has |= C2C_HAS_CPU;
		v->s.time = VR_T0 + (uint64_t)i * 1000;
		v->s.pid = 100;
		v->s.tid = (r >> 25) % 20 ? 1001 + (int32_t)((r >> 30) % 6) : -1;
		/* threads mostly stay on their CPU: groups of many samples */
		v->s.cpu = v->s.tid >= 0 && (r >> 22) % 8 < 6 ? (uint32_t)(v->s.tid - 1001) : (uint32_t)((r >> 36) % 8);
		v->s.cpumode = C2C_MODE_USER;
		if (vr_lines[line].own && off >= vr_lines[line].ws && off < vr_lines[line].we &&
		    v->s.tid != vr_lines[line].writer)
			off += 32;
		v->s.addr = pick < 97 ? VR_BASE + vr_line_at[line] * 64ull + off : 0;
		v->ctx.node = (int32_t)(v->s.cpu / 4);
		store = (off >= vr_lines[line].ws && off < vr_lines[line].we &&
			 (!vr_lines[line].writer || (v->s.tid >= vr_lines[line].writer &&
						     v->s.tid < vr_lines[line].writer + vr_lines[line].nwriters)) &&
			 (r2 >> 9) % 10 < 7) ||
			(vr_lines[line].stray && (r2 >> 13) % vr_lines[line].stray == 0);
		/* stores from two sites, loads mostly from one; now and then none */
		site = store ? 1 + (unsigned)(r2 >> 3) % 2 : (r2 >> 3) % 8 < 5 ? 0 : (r2 >> 3) % 8 < 7 ? 3 : 4;
		v->s.ip = 0x401000 + site * 0x40;
		v->ctx.site = (r2 >> 6) % 16 ? site_ids[site] : 0;
		if (line == VR_LINES - 1 || (r2 >> 17) % 33 == 0)
			v->ctx.class_bits = (r2 >> 23) & 1 ? vr_bit(C2C_NOPARSE, 1) : 0;
		else if (store)
			v->ctx.class_bits = vr_bit(C2C_STORE, 1) | vr_bit((r2 >> 23) & 1 ? C2C_ST_L1HIT : C2C_ST_L1MISS, 1);
		else
			v->ctx.class_bits = vr_load_class(r2 >> 24, vr_lines[line].hot);
		v->span = -1;
		for (size_t k = 0; k < sizeof(vr_spans) / sizeof(vr_spans[0]); k++)
			if (vr_spans[k].line == line && off >= vr_spans[k].from && off < vr_spans[k].to)
				v->span = (int)k;
		if (v->span >= 0) {
			unsigned a = (r2 >> 40) % 10;
			v->attr = a < 6 ? VR_ATTR : a == 6 ? VR_HOW0 : a == 7 ? VR_NO_MEMBER : a == 8 ? VR_NO_TYPE : VR_NO_ROW;
			v->how = v->attr == VR_HOW0 ? TYPES_HOW_NONE : 1 + (unsigned)((r2 >> 50) % 4);
		}
	}
}

/* After the random samples, a line where one group's first sample read
 * is not its first in (addr, id) order: thread 1004 loads member m at +8,
 * then +4 (inside m, not attributed), then m at +0, m's loads in one
 * group; thread 1005 writes w.
 * In (addr, id) order m comes before +4 ("hurt m +4"); a group ordered
 * by the sample it saw first would put +4 first. */
static void vr_make_trap(const int64_t *site_ids)
{
	static const struct { unsigned off; int32_t tid; bool store; } trap[VR_TRAP] = {
		{ 8, 1004, false }, { 4, 1004, false }, { 0, 1004, false },
		{ 32, 1005, true }, { 32, 1005, true }, { 36, 1005, true },
	};

	for (int k = 0; k < VR_TRAP; k++) {
		struct vr_sample *v = &vr_samples[VR_RANDOM + k];
		unsigned site = trap[k].store ? 1 : 0;

		memset(v, 0, sizeof(*v));
		v->s.has = C2C_HAS_IP | C2C_HAS_TID | C2C_HAS_TIME | C2C_HAS_ADDR | C2C_HAS_DATA_SRC | C2C_HAS_CPU;
		v->s.time = VR_T0 + (uint64_t)(VR_RANDOM + k) * 1000;
		v->s.pid = 100;
		v->s.tid = trap[k].tid;
		v->s.cpu = (uint32_t)(trap[k].tid - 1001);
		v->s.cpumode = C2C_MODE_USER;
		v->s.addr = VR_BASE + VR_TRAP_LINE * 64ull + trap[k].off;
		v->s.ip = 0x401000 + site * 0x40;
		v->ctx.site = site_ids[site];
		v->ctx.node = (int32_t)(v->s.cpu / 4);
		v->ctx.class_bits = trap[k].store ? vr_bit(C2C_STORE, 1) | vr_bit(C2C_ST_L1HIT, 1) :
						    vr_bit(C2C_LOAD, 1) | vr_bit(C2C_LD_L1HIT, 1);
		v->span = -1;
		for (size_t j = 0; j < sizeof(vr_spans) / sizeof(vr_spans[0]); j++)
			if (vr_spans[j].line == VR_TRAP_LINE && trap[k].off >= vr_spans[j].from &&
			    trap[k].off < vr_spans[j].to)
				v->span = (int)j;
		/* +4 is inside m, but that sample was not attributed */
		v->attr = v->span >= 0 && trap[k].off != 4 ? VR_ATTR : VR_NO_ROW;
		v->how = TYPES_HOW_INSN;
	}
}

/* Writes the session: events, CPUs, sites, the samples. */
static int vr_write_session(const char *path)
{
	static const char *const fn[VR_SITES] = { "vr_read", "vr_write", "vr_lock", "vr_stats", NULL };
	struct c2c_error err = { 0 };
	struct store *st;
	int64_t site_ids[VR_SITES];

	if (store_create(&st, path, &err) < 0) {
		printf("# %s\n", err.msg);
		return -1;
	}
	store_set_meta(st, STORE_META_CACHELINE, "64", &err);
	struct store_event ev = { .index = 0, .name = "cpu/mem-loads,ldlat=30/P", .attr_type = 4, .config = 0x1cd };
	store_add_event(st, &ev, &err);
	for (uint32_t c = 0; c < 8; c++) {
		struct store_cpu cpu = { .cpu = c, .core = (int32_t)c, .socket = (int32_t)(c / 4), .node = (int32_t)(c / 4) };
		store_add_cpu(st, &cpu, &err);
	}
	for (int k = 0; k < VR_SITES; k++) {
		struct store_site_info si = { .ip = 0x401000 + (uint64_t)k * 0x40, .pid = 100, .cpumode = C2C_MODE_USER,
					      .function = fn[k], .offset = 4 + (uint64_t)k * 4, .dso = "/usr/bin/vr" };
		if ((site_ids[k] = store_site_intern(st, &si, &err)) <= 0)
			goto fail;
	}
	vr_make_samples(site_ids);
	vr_make_trap(site_ids);
	for (int i = 0; i < VR_N; i++)
		if (store_add_sample(st, &vr_samples[i].s, &vr_samples[i].ctx, &err) < 0)
			goto fail;
	if (store_finalize(st, &err) < 0)
		goto fail;
	store_close(st);
	return 0;
fail:
	printf("# %s\n", err.msg);
	store_close(st);
	return -1;
}

/* The store numbers the samples: sample id -> our index, by time. */
struct vr_ids {
	int64_t id[VR_N];
	size_t n;
	int bad;
};

static int vr_ids_row(void *ctx, int ncols, const char *const *names, const char *const *values)
{
	struct vr_ids *m = ctx;
	uint64_t t;

	(void)names;
	if (!values)
		return 0;
	if (ncols != 2 || !values[0] || !values[1]) {
		m->bad++;
		return 0;
	}
	t = strtoull(values[1], NULL, 10);
	if (t < VR_T0 || (t - VR_T0) % 1000 || (t - VR_T0) / 1000 >= VR_N)
		m->bad++;
	else
		m->id[(t - VR_T0) / 1000] = strtoll(values[0], NULL, 10);
	m->n++;
	return 0;
}

/* type_attr rows written into the session file, as an attribution would. */
static int vr_write_attr(const char *path, const struct vr_ids *m)
{
	sqlite3 *db;
	sqlite3_stmt *s = NULL;
	int rc = -1;

	if (sqlite3_open(path, &db) != SQLITE_OK || sqlite3_exec(db, typeinfo_schema, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO type_attr (sample_id, how, type_name, object, offset, member, top, why)"
			       " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", -1, &s, NULL) != SQLITE_OK)
		goto out;
	for (int i = 0; i < VR_N; i++) {
		const struct vr_sample *v = &vr_samples[i];
		const struct vr_span *sp = v->span >= 0 ? &vr_spans[v->span] : NULL;
		uint64_t obj = v->s.addr & ~63ull;
		if (!sp || v->attr == VR_NO_ROW)
			continue;
		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
		sqlite3_bind_int64(s, 1, m->id[i]);
		sqlite3_bind_int(s, 2, (int)v->how);
		if (v->attr != VR_NO_TYPE)
			sqlite3_bind_text(s, 3, sp->type, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)obj);
		sqlite3_bind_int64(s, 5, (sqlite3_int64)(v->s.addr - obj));
		if (v->attr != VR_NO_MEMBER) {
			sqlite3_bind_text(s, 6, sp->member, -1, SQLITE_STATIC);
			sqlite3_bind_text(s, 7, sp->member, (int)strcspn(sp->member, "."), SQLITE_TRANSIENT);
		}
		if (v->attr == VR_HOW0)
			sqlite3_bind_text(s, 8, "not a pointer", -1, SQLITE_STATIC);
		if (sqlite3_step(s) != SQLITE_DONE)
			goto out;
	}
	rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
out:
	if (rc < 0)
		printf("# type_attr: %s\n", sqlite3_errmsg(db));
	sqlite3_finalize(s);
	sqlite3_close(db);
	return rc;
}

/* One line as the per-sample method saw it: one access a sample, keys
 * interned in the order of their first sample. */
struct vr_line {
	uint64_t line;
	struct layout_line_access *a;
	size_t n;
	char keys[VR_KEYS][192];
	size_t nkeys;
	uint64_t hitm;
	char type[128];
};

struct vr_ref {
	struct vr_line lines[VR_LINES];
	size_t nlines;
	int bad;
};

static int vr_ref_key(struct vr_line *l, const char *key)
{
	for (size_t i = 0; i < l->nkeys; i++)
		if (!strcmp(l->keys[i], key))
			return (int)i;
	if (l->nkeys == VR_KEYS)
		return -1;
	snprintf(l->keys[l->nkeys], sizeof(l->keys[0]), "%s", key);
	return (int)l->nkeys++;
}

/* A row of the reference query: addr, tid, cpu, class_bits, type_name,
 * member, site. */
static int vr_ref_row(void *ctx, int ncols, const char *const *names, const char *const *values)
{
	struct vr_ref *ref = ctx;
	struct vr_line *l;
	uint64_t addr, line, bits;
	unsigned lh, rh, lp, rp;
	bool store;
	char key[192];
	int k;

	(void)names;
	if (!values)
		return 0;
	if (ncols != 7 || !values[0] || !values[3]) {
		ref->bad++;
		return -EINVAL;
	}
	addr = strtoull(values[0], NULL, 10);
	bits = (uint64_t)strtoll(values[3], NULL, 10);
	store = c2c_bits_count(bits, C2C_STORE) > 0;
	if (!store && !c2c_bits_count(bits, C2C_LOAD))
		return 0;
	line = addr & ~63ull;
	if (!ref->nlines || ref->lines[ref->nlines - 1].line != line) {
		if (ref->nlines == VR_LINES) {
			ref->bad++;
			return -EINVAL;
		}
		ref->lines[ref->nlines++].line = line;
	}
	l = &ref->lines[ref->nlines - 1];
	if (values[4] && values[5]) {
		snprintf(key, sizeof(key), "%.100s", values[5]);
		if (!l->type[0])
			snprintf(l->type, sizeof(l->type), "%s", values[4]);
	} else {
		snprintf(key, sizeof(key), "+%llu", (unsigned long long)(addr - line));
	}
	if ((k = vr_ref_key(l, key)) < 0 || l->n == VR_N) {
		ref->bad++;
		return -EINVAL;
	}
	lh = c2c_bits_count(bits, C2C_LCL_HITM);
	rh = c2c_bits_count(bits, C2C_RMT_HITM);
	lp = c2c_bits_count(bits, C2C_LCL_PEER);
	rp = c2c_bits_count(bits, C2C_RMT_PEER);
	l->a[l->n++] = (struct layout_line_access){
		.key = (uint32_t)k, .is_store = store,
		.tid = values[1] ? (int32_t)strtol(values[1], NULL, 10) : -1,
		.cpu = values[2] ? (int32_t)strtol(values[2], NULL, 10) : -1,
		.count = 1, .evidence = lh + rh + lp + rp ? 1 : 0,
		.lcl_hitm = lh, .rmt_hitm = rh, .lcl_peer = lp, .rmt_peer = rp,
		.site = values[6] ? (uint32_t)strtoul(values[6], NULL, 10) : 0,
	};
	l->hitm += lh + rh;
	return 0;
}

/* The sites' display text ("func+0x8", or the ip unresolved), by id. */
struct vr_site_names {
	int64_t id[16];
	char text[16][96];
	size_t n;
};

static int vr_site_row(void *ctx, int ncols, const char *const *names, const char *const *values)
{
	struct vr_site_names *s = ctx;

	(void)names;
	if (!values || ncols != 4 || s->n == 16)
		return 0;
	s->id[s->n] = strtoll(values[0], NULL, 10);
	if (values[1] && *values[1])
		snprintf(s->text[s->n], sizeof(s->text[0]), "%.80s+%#llx", values[1],
			 values[2] ? strtoull(values[2], NULL, 10) : 0ull);
	else
		snprintf(s->text[s->n], sizeof(s->text[0]), "%#llx", values[3] ? strtoull(values[3], NULL, 10) : 0ull);
	s->n++;
	return 0;
}

static size_t vr_keys_text(char *buf, size_t len, size_t o, const char *label, const struct vr_line *l,
			   const uint32_t *keys, uint32_t n)
{
	if (!n)
		return o;
	o = c2c_appendf(buf, len, o, "%s%s", o ? "; " : "", label);
	for (uint32_t i = 0; i < n && o < len; i++)
		o = c2c_appendf(buf, len, o, " %s", l->keys[keys[i]]);
	return o;
}

static int vr_id_cmp(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? -1 : a > b;
}

/* "101,102": distinct, ascending, "+N" for those that do not fit. */
static void vr_ids_text(int64_t *v, size_t n, char *buf, size_t len)
{
	size_t k = 0, o = 0, shown = 0;

	buf[0] = 0;
	if (!n)
		return;
	qsort(v, n, sizeof(*v), vr_id_cmp);
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

/* The row the per-sample method gave for line l. */
static int vr_expect(struct store *st, const struct vr_line *l, const struct vr_site_names *sn,
		     struct typeinfo_verdict_row *r)
{
	struct layout_verdict_info *v = &r->v;
	int64_t *w, *o;
	size_t len = sizeof(r->keys), off = 0;

	memset(r, 0, sizeof(*r));
	r->line_addr = l->line;
	if (layout_verdict(l->a, l->n, typeinfo_min_evidence(st), v) < 0)
		return -ENOMEM;
	r->hitm = l->hitm;
	r->samples = l->n;
	snprintf(r->type, sizeof(r->type), "%s", l->type);
	off = vr_keys_text(r->keys, len, off, "writes", l, v->writer_keys, v->nwriter_keys);
	if (off < len && (v->ntrue_keys || v->nvictim_keys)) {
		off = c2c_appendf(r->keys, len, off, "%shurt", off ? "; " : "");
		for (uint32_t i = 0; i < v->ntrue_keys && off < len; i++)
			off = c2c_appendf(r->keys, len, off, " %s", l->keys[v->true_keys[i]]);
		for (uint32_t i = 0; i < v->nvictim_keys && off < len; i++)
			off = c2c_appendf(r->keys, len, off, " %s", l->keys[v->victim_keys[i]]);
	}
	off = 0;
	for (uint32_t i = 0; i < v->ntrue_keys; i++)
		off = c2c_appendf(r->shared, sizeof(r->shared), off, "%s%s", i ? " " : "", l->keys[v->true_keys[i]]);
	off = 0;
	for (uint32_t i = 0; i < v->nvictim_keys; i++)
		off = c2c_appendf(r->victims, sizeof(r->victims), off, "%s%s", i ? " " : "",
				  l->keys[v->victim_keys[i]]);
	if (v->pattern == LAYOUT_NONE)
		return 0;
	w = malloc((l->n + 1) * sizeof(*w));
	o = malloc((l->n + 1) * sizeof(*o));
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
		qsort(w, nw, sizeof(*w), vr_id_cmp);
		for (size_t i = 0; i < l->n; i++) {
			int64_t id = cpu ? l->a[i].cpu : l->a[i].tid;
			if (id >= 0 && !l->a[i].is_store && !bsearch(&id, w, nw, sizeof(*w), vr_id_cmp))
				o[no++] = id;
		}
		vr_ids_text(w, nw, cpu ? r->writer_cpus : r->writer_tids, sizeof(r->writer_tids));
		vr_ids_text(o, no, cpu ? r->reader_cpus : r->reader_tids, sizeof(r->reader_tids));
	}
	free(w);
	free(o);
	for (uint32_t i = 0; i < v->nsites; i++)
		for (size_t j = 0; j < sn->n; j++)
			if (sn->id[j] == v->sites[i]) {
				snprintf(r->sites[i], sizeof(r->sites[i]), "%s", sn->text[j]);
				r->site_samples[i] = v->site_samples[i];
				r->site_evidence[i] = v->site_evidence[i];
				r->nsites = i + 1;
			}
	return 0;
}

/* Every field of the store's row against the expected one; key lists as
 * indexes (both intern keys in the order of their first sample) and as
 * the text people read. */
static void vr_check_row(const struct typeinfo_verdict_row *e, const struct typeinfo_verdict_row *r)
{
	const struct layout_verdict_info *a = &e->v, *b = &r->v;

	CHECK_EQ_U64(r->line_addr, e->line_addr);
	CHECK_EQ_U64(b->verdict, a->verdict);
	CHECK_EQ_U64(b->pattern, a->pattern);
	CHECK_EQ_U64(b->min_evidence, a->min_evidence);
	CHECK_EQ_U64(b->evidence, a->evidence);
	CHECK_EQ_U64(b->lcl_hitm, a->lcl_hitm);
	CHECK_EQ_U64(b->rmt_hitm, a->rmt_hitm);
	CHECK_EQ_U64(b->lcl_peer, a->lcl_peer);
	CHECK_EQ_U64(b->rmt_peer, a->rmt_peer);
	CHECK_EQ_U64(b->loads, a->loads);
	CHECK_EQ_U64(b->stores, a->stores);
	CHECK_EQ_U64(b->samples, a->samples);
	CHECK_EQ_U64(b->true_samples, a->true_samples);
	CHECK_EQ_U64(b->false_samples, a->false_samples);
	CHECK_EQ_U64(b->writer_threads, a->writer_threads);
	CHECK_EQ_U64(b->writer_cpus, a->writer_cpus);
	CHECK_EQ_U64(b->other_threads, a->other_threads);
	CHECK_EQ_U64(b->other_cpus, a->other_cpus);
	CHECK_EQ_U64(b->ntrue_keys, a->ntrue_keys);
	CHECK_EQ_U64(b->nfalse_keys, a->nfalse_keys);
	CHECK_EQ_U64(b->nvictim_keys, a->nvictim_keys);
	CHECK_EQ_U64(b->nwriter_keys, a->nwriter_keys);
	for (uint32_t i = 0; i < a->ntrue_keys && i < LAYOUT_VERDICT_KEYS; i++)
		CHECK_EQ_U64(b->true_keys[i], a->true_keys[i]);
	for (uint32_t i = 0; i < a->nfalse_keys && i < LAYOUT_VERDICT_KEYS; i++)
		CHECK_EQ_U64(b->false_keys[i], a->false_keys[i]);
	for (uint32_t i = 0; i < a->nvictim_keys && i < LAYOUT_VERDICT_KEYS; i++)
		CHECK_EQ_U64(b->victim_keys[i], a->victim_keys[i]);
	for (uint32_t i = 0; i < a->nwriter_keys && i < LAYOUT_VERDICT_KEYS; i++)
		CHECK_EQ_U64(b->writer_keys[i], a->writer_keys[i]);
	CHECK_EQ_U64(b->nsites, a->nsites);
	for (uint32_t i = 0; i < a->nsites && i < LAYOUT_VERDICT_SITES; i++) {
		CHECK_EQ_U64(b->sites[i], a->sites[i]);
		CHECK_EQ_U64(b->site_samples[i], a->site_samples[i]);
		CHECK_EQ_U64(b->site_evidence[i], a->site_evidence[i]);
	}
	CHECK_EQ_U64(r->hitm, e->hitm);
	CHECK_EQ_U64(r->samples, e->samples);
	CHECK_STR(r->type, e->type);
	CHECK_STR(r->keys, e->keys);
	CHECK_STR(r->shared, e->shared);
	CHECK_STR(r->victims, e->victims);
	CHECK_STR(r->writer_tids, e->writer_tids);
	CHECK_STR(r->writer_cpus, e->writer_cpus);
	CHECK_STR(r->reader_tids, e->reader_tids);
	CHECK_STR(r->reader_cpus, e->reader_cpus);
	CHECK_EQ_U64(r->nsites, e->nsites);
	for (uint32_t i = 0; i < e->nsites; i++) {
		CHECK_STR(r->sites[i], e->sites[i]);
		CHECK_EQ_U64(r->site_samples[i], e->site_samples[i]);
		CHECK_EQ_U64(r->site_evidence[i], e->site_evidence[i]);
	}
}

static void test_verdicts_grouped_equal_per_sample(void)
{
	static struct vr_ref ref;
	static struct vr_ids ids;
	static const char ref_sql[] =
		"SELECT s.addr, s.tid, s.cpu, s.class_bits, a.type_name, a.member, s.site FROM samples s"
		" LEFT JOIN type_attr a ON a.sample_id = s.id AND a.how > 0 WHERE s.addr != 0 ORDER BY s.addr, s.id";
	struct vr_site_names sn = { .n = 0 };
	struct c2c_error err = { 0 };
	struct store *st = NULL;
	struct typeinfo_verdict_row *rows = NULL, e, one;
	size_t n = 0, long_keys = 0;
	unsigned seen = 0, nverdict[5] = { 0 };
	char path[600];
	int rc;

	CHECK(strlen(VR_LONG) >= 100);
	snprintf(path, sizeof(path), "%s/verdicts-random.db", test_tmpdir());
	CHECK(vr_write_session(path) == 0);
	memset(&ids, 0, sizeof(ids));
	CHECK(store_open(&st, path, STORE_OPEN_RDONLY, &err) == 0);
	rc = store_sql(st, "SELECT id, time FROM samples", vr_ids_row, &ids, &err);
	store_close(st);
	st = NULL;
	CHECK(rc == 0);
	CHECK_EQ_U64(ids.bad, 0);
	CHECK_EQ_U64(ids.n, VR_N);
	CHECK(vr_write_attr(path, &ids) == 0);

	CHECK(store_open(&st, path, STORE_OPEN_RDONLY, &err) == 0);
	memset(&ref, 0, sizeof(ref));
	if (!typeinfo_present(st)) {
		test_failf(__FILE__, __LINE__, "no type_attr in the session");
		goto out;
	}
	for (int i = 0; i < VR_LINES; i++)
		if (!(ref.lines[i].a = calloc(VR_N, sizeof(*ref.lines[i].a)))) {
			test_failf(__FILE__, __LINE__, "out of memory");
			goto out;
		}
	if (store_sql(st, ref_sql, vr_ref_row, &ref, &err) < 0 || ref.bad ||
	    store_sql(st, "SELECT id, function, offset, ip FROM sites", vr_site_row, &sn, &err) < 0) {
		test_failf(__FILE__, __LINE__, "reference query: %s", err.msg);
		goto out;
	}
	/* the last random line has no load or store (no row); the trap line
	 * comes after the others */
	if (ref.nlines != VR_LINES || sn.n != VR_SITES) {
		test_failf(__FILE__, __LINE__, "%zu lines, %zu sites", ref.nlines, sn.n);
		goto out;
	}
	if (typeinfo_query_verdicts(st, &rows, &n, &err) < 0 || n != ref.nlines) {
		test_failf(__FILE__, __LINE__, "typeinfo_query_verdicts: %zu rows (%s)", n, err.msg);
		goto out;
	}
	for (size_t i = 0; i < ref.nlines && !test_current.failed; i++) {
		const struct vr_line *l = &ref.lines[i];
		const struct typeinfo_verdict_row *r = NULL;
		for (size_t j = 0; j < n; j++)
			if (rows[j].line_addr == l->line)
				r = &rows[j];
		if (!r || vr_expect(st, l, &sn, &e) < 0) {
			test_failf(__FILE__, __LINE__, "line %#llx: no row", (unsigned long long)l->line);
			break;
		}
		vr_check_row(&e, r);
		if (test_current.failed) {
			printf("# line %#llx, typeinfo_query_verdicts: keys \"%s\", expected \"%s\"\n",
			       (unsigned long long)l->line, r->keys, e.keys);
			break;
		}
		if (typeinfo_line_verdict(st, l->line, &one, &err) < 0) {
			test_failf(__FILE__, __LINE__, "typeinfo_line_verdict: %s", err.msg);
			break;
		}
		vr_check_row(&e, &one);
		if (test_current.failed) {
			printf("# line %#llx, typeinfo_line_verdict: keys \"%s\", expected \"%s\"\n",
			       (unsigned long long)l->line, one.keys, e.keys);
			break;
		}
		seen |= 1u << e.v.verdict;
		nverdict[e.v.verdict]++;
		for (size_t k = 0; k < l->nkeys; k++)
			long_keys += !strncmp(l->keys[k], VR_LONG, 20);
	}
	if (test_current.failed)
		goto out;
	printf("# %zu lines as computed sample by sample: false %u, true %u, mixed %u, potential %u, none %u\n",
	       ref.nlines, nverdict[LAYOUT_FALSE], nverdict[LAYOUT_TRUE], nverdict[LAYOUT_MIXED],
	       nverdict[LAYOUT_POTENTIAL], nverdict[LAYOUT_NONE]);
	/* what the session is meant to exercise did happen: every verdict,
	 * two types on line 1 (the first attributed sample's wins), the two
	 * long members as one key, the line whose first attribution has no
	 * type name */
	if (seen != 0x1f || long_keys != 1 || strcmp(ref.lines[1].type, "struct rq") ||
	    strcmp(ref.lines[3].type, "struct deep") || strcmp(ref.lines[VR_LINES - 1].keys[0], "m"))
		test_failf(__FILE__, __LINE__, "session lacks a case: verdicts %#x, %zu long keys, types %s, %s",
			   seen, long_keys, ref.lines[1].type, ref.lines[3].type);
out:
	free(rows);
	for (int i = 0; i < VR_LINES; i++)
		free(ref.lines[i].a);
	store_close(st);
}

TEST_MAIN(
	TEST_CASE(test_attribution),
	TEST_CASE(test_line_members_and_verdict),
	TEST_CASE(test_layout_from_session),
	TEST_CASE(test_diff_sessions),
	TEST_CASE(test_manual_assignment),
	TEST_CASE(test_after_session),
	TEST_CASE(test_readonly_attribution_never_writes),
	TEST_CASE(test_verdicts_grouped_equal_per_sample),
)
