/* store/typeinfo on real sessions: tests/types/conn.c built with -g, a
 * recording written by tests/tools/conn_perfdata (real instruction and
 * object addresses), imported by the import pipeline; then the attribution
 * (globals, heap through instruction decoding, stack, by hand), the layout
 * with flags, line members and verdicts read back from the session. */
#include "tests/unit/test.h"
#include "tests/unit/test_types_prog.h"

#include "collector/layout/layout.h"
#include "store/diff/diff.h"
#include "store/store.h"
#include "store/types/typeinfo.h"
#include "store/ingest/import_pipeline.h"

#include <errno.h>

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

TEST_MAIN(
	TEST_CASE(test_attribution),
	TEST_CASE(test_line_members_and_verdict),
	TEST_CASE(test_layout_from_session),
	TEST_CASE(test_diff_sessions),
	TEST_CASE(test_manual_assignment),
	TEST_CASE(test_after_session),
	TEST_CASE(test_readonly_attribution_never_writes),
)
