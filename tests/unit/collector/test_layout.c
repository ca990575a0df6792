/* collector/layout on the real struct conn of tests/types/conn.c: rows,
 * holes and cache lines, per-member statistics, false-sharing flags,
 * line verdicts, the proposed layout and the what-if replay (against the
 * proposal and against the after build's layout). */
#include "tests/unit/test.h"
#include "tests/unit/test_types_prog.h"

#include "collector/layout/layout.h"
#include "collector/types/types.h"

struct conn_db {
	struct types_db *db;
	uint32_t id;
};

static int open_conn(struct conn_db *c, int after)
{
	const char *p = types_prog_build(after);

	memset(c, 0, sizeof(*c));
	if (!p || types_open_dwarf(&c->db, p, NULL, NULL) < 0)
		return -1;
	c->id = types_find(c->db, "conn");
	return c->id ? 0 : -1;
}

#define CONN_OR_SKIP(c, after) \
	struct conn_db c; \
	if (open_conn(&c, after) < 0) { test_skip("cannot build tests/types/conn.c with cc -g"); return; }

static long row_named(const struct layout *l, const char *name)
{
	for (size_t i = 0; i < l->nrows; i++)
		if (!strcmp(l->rows[i].name, name))
			return (long)i;
	return -1;
}

/* Offsets in the before layout. */
enum { OFF_ID = 0, OFF_FLAGS = 4, OFF_NAME = 8, OFF_LIMIT = 16, OFF_COUNTER = 0x18,
       OFF_HITS = 0x20, OFF_SLOT2 = 0x40, OFF_CONFIG = 0x48 };
#define OBJ 0x7f0000010000ULL   /* line-aligned heap object */

/* False sharing: thread 1 increments counter; threads 3, 4 and 5 read
 * limit, name and slots[2] in the same line and miss (HITM). */
static const struct layout_access fs_accesses[] = {
	{ OBJ, OFF_COUNTER, true, 1, 0, 1, 400, 0, 0 },
	{ OBJ, OFF_COUNTER, false, 1, 0, 1, 100, 0, 0 },
	{ OBJ, OFF_LIMIT, false, 3, 1, 2, 300, 60, 20 },
	{ OBJ, OFF_LIMIT, false, 4, 2, 2, 300, 50, 25 },
	{ OBJ, OFF_NAME, false, 5, 3, 3, 200, 30, 0 },
	{ OBJ, OFF_SLOT2, false, 4, 2, 4, 100, 15, 0 },
	{ OBJ, OFF_HITS, false, 3, 1, 5, 50, 0, 0 },
};
#define NFS (sizeof(fs_accesses) / sizeof(fs_accesses[0]))

static void print_line(void *ctx, const char *text)
{
	char *buf = ctx;
	size_t n = strlen(buf);
	snprintf(buf + n, 16384 - n, "%s\n", text);
}

static void test_rows_and_holes(void)
{
	CONN_OR_SKIP(c, 0);
	struct layout l;
	long r;

	CHECK(layout_build(&l, c.db, c.id, 64, NULL) == 0);
	CHECK_STR(l.type_name, "struct conn");
	CHECK_EQ_U64(l.size, 88);
	CHECK((r = row_named(&l, "st.hits")) >= 0);
	CHECK_EQ_U64(l.rows[r].depth, 1);
	CHECK_STR(l.rows[l.rows[r].top].name, "st");
	CHECK((r = row_named(&l, "{fd}")) >= 0);   /* anonymous union */
	CHECK(!l.rows[r].leaf);
	CHECK(row_named(&l, "fd") >= 0 && row_named(&l, "handle") >= 0);
	CHECK((r = row_named(&l, "prio")) >= 0);
	CHECK_EQ_U64(l.rows[r].bit_size, 8);
	CHECK_EQ_U64(l.rows[r].hole_after, 2);     /* prio ends at byte 6, name at 8 */
	CHECK_EQ_U64(l.holes, 2);
	CHECK((r = row_named(&l, "counter")) >= 0);
	CHECK(!l.rows[r].line_start);
	CHECK_EQ_U64(l.rows[r].line, 0);
	CHECK(l.rows[row_named(&l, "slots")].line_start);   /* 56..72 crosses 64 */
	CHECK(l.rows[row_named(&l, "config")].line == 1);
	CHECK_EQ_U64(layout_row_at(&l, OFF_HITS + 4), row_named(&l, "st.hits"));
	layout_fini(&l);
	types_free(c.db);
}

/* counter shares line 0 with name, limit and st: flagged, with evidence. */
static void test_flags_and_print(void)
{
	CONN_OR_SKIP(c, 0);
	struct layout l;
	static char text[16384];
	struct layout_out out = { print_line, text };
	long ctr, lim;

	CHECK(layout_build(&l, c.db, c.id, 64, NULL) == 0);
	CHECK(layout_account(&l, fs_accesses, NFS) == 0);
	CHECK_EQ_U64(l.base_misalign, 0);
	ctr = row_named(&l, "counter");
	lim = row_named(&l, "limit");
	CHECK_EQ_U64(l.rows[ctr].stores, 400);
	CHECK_EQ_U64(l.rows[ctr].loads, 100);
	CHECK_EQ_U64(l.rows[lim].loads, 600);
	CHECK_EQ_U64(l.rows[lim].lcl_hitm, 110);
	CHECK_EQ_U64(l.rows[lim].rmt_hitm, 45);
	CHECK_EQ_U64(l.rows[lim].threads.n, 2);
	CHECK_EQ_U64(l.rows[lim].cpus.n, 2);
	CHECK_EQ_U64(l.rows[row_named(&l, "st")].loads, 50);    /* parents aggregate */
	CHECK(l.rows[ctr].fs_flag);
	CHECK(!l.rows[lim].fs_flag);
	CHECK(l.rows[lim].fs_victim);
	CHECK(l.rows[row_named(&l, "name")].fs_victim);
	CHECK(l.rows[row_named(&l, "st.hits")].fs_victim);
	CHECK(!l.rows[row_named(&l, "config")].fs_victim);
	CHECK(strstr(l.rows[ctr].evidence, "400 stores by 1 thr/1 cpu from 1 site") != NULL);
	CHECK(strstr(l.rows[ctr].evidence, "line 0 shared with name, limit, st.hits") != NULL);
	text[0] = 0;
	layout_print(&l, &out);
	CHECK(strstr(text, "struct conn {") != NULL);
	CHECK(strstr(text, "FALSE-SHARING") != NULL);
	CHECK(strstr(text, "/* XXX 2 byte hole */") != NULL);
	/* slots (56..71) straddles line 1: pahole says so before config */
	CHECK(strstr(text, "/* --- cacheline 1 boundary (64 bytes) was 8 bytes ago --- */\n"
			   "  72 ") != NULL);
	CHECK(strstr(text, "cache line 1 (") == NULL);
	/* and each part of slots has its own counts */
	CHECK(strstr(text, "slots @ line 0") != NULL && strstr(text, "slots @ line 1") != NULL);
	layout_fini(&l);
	types_free(c.db);
}

/* Objects that start mid-line move the boundaries. */
static void test_misaligned_objects(void)
{
	CONN_OR_SKIP(c, 0);
	struct layout l;
	struct layout_access acc[NFS];

	memcpy(acc, fs_accesses, sizeof(acc));
	for (size_t i = 0; i < NFS; i++)
		acc[i].object += 0x28;
	CHECK(layout_build(&l, c.db, c.id, 64, NULL) == 0);
	CHECK(layout_account(&l, acc, NFS) == 0);
	CHECK_EQ_U64(l.base_misalign, 0x28);
	/* line 0 is object offsets -0x28..0x18: id..limit; counter starts line 1 */
	CHECK_EQ_U64(l.rows[row_named(&l, "counter")].line, 1);
	CHECK(l.rows[row_named(&l, "counter")].line_start);
	CHECK(!l.rows[row_named(&l, "limit")].fs_victim);
	CHECK(l.rows[row_named(&l, "st.hits")].fs_victim);
	CHECK(l.rows[row_named(&l, "counter")].fs_flag);
	layout_fini(&l);
	types_free(c.db);
}

/* A member across a boundary is split there: slots (56..71) is 56..63 on
 * line 0 and 64..71 on line 1, and loads of slots[2] (+64) count on line 1
 * only, so writes of counter on line 0 do not make slots a victim; loads
 * of slots[1] (+60) do. */
static void test_straddling_member(void)
{
	CONN_OR_SKIP(c, 0);
	struct layout l;
	long s;
	const struct layout_part *p;

	CHECK(layout_build(&l, c.db, c.id, 64, NULL) == 0);
	CHECK(layout_account(&l, fs_accesses, NFS) == 0);
	s = row_named(&l, "slots");
	CHECK(s >= 0 && l.rows[s].leaf);
	CHECK_EQ_U64(l.rows[s].nparts, 2);
	p = l.rows[s].parts;
	CHECK_EQ_U64(p[0].offset, 56);
	CHECK_EQ_U64(p[0].size, 8);
	CHECK_EQ_U64(p[0].line, 0);
	CHECK_EQ_U64(p[1].offset, 64);
	CHECK_EQ_U64(p[1].size, 8);
	CHECK_EQ_U64(p[1].line, 1);
	CHECK_EQ_U64(p[0].loads, 0);
	CHECK_EQ_U64(p[1].loads, 100);
	CHECK_EQ_U64(p[1].lcl_hitm, 15);
	CHECK_EQ_U64(l.rows[s].loads, 100);   /* the member's total */
	CHECK(!l.rows[s].fs_victim && !p[0].fs_victim && !p[1].fs_victim);
	/* parts tile the member; one part for members on one line */
	CHECK_EQ_U64(l.rows[row_named(&l, "limit")].nparts, 1);
	CHECK_EQ_U64(l.rows[row_named(&l, "st")].nparts, 0);   /* not a leaf: its members split */
	CHECK(strstr(l.rows[row_named(&l, "counter")].evidence, "(850 loads)") != NULL);
	layout_fini(&l);

	/* the same load at +60 (slots[1], line 0): now a victim, on line 0 only */
	{
		struct layout_access acc[NFS];
		memcpy(acc, fs_accesses, sizeof(acc));
		for (size_t i = 0; i < NFS; i++)
			if (acc[i].offset == OFF_SLOT2)
				acc[i].offset = 60;
		CHECK(layout_build(&l, c.db, c.id, 64, NULL) == 0);
		CHECK(layout_account(&l, acc, NFS) == 0);
		p = l.rows[s].parts;
		CHECK_EQ_U64(p[0].loads, 100);
		CHECK_EQ_U64(p[1].loads, 0);
		CHECK(l.rows[s].fs_victim && p[0].fs_victim && !p[1].fs_victim);
		layout_fini(&l);
	}
	/* untouched, slots is still split (the flags need it) but prints no parts */
	{
		struct layout_access acc[NFS];
		size_t k = 0;
		static char text[16384];
		struct layout_out out = { print_line, text };
		for (size_t i = 0; i < NFS; i++)
			if (fs_accesses[i].offset != OFF_SLOT2)
				acc[k++] = fs_accesses[i];
		CHECK(layout_build(&l, c.db, c.id, 64, NULL) == 0);
		CHECK(layout_account(&l, acc, k) == 0);
		CHECK_EQ_U64(l.rows[s].nparts, 2);
		text[0] = 0;
		layout_print(&l, &out);
		CHECK(strstr(text, "slots @ line") == NULL);
		CHECK(strstr(text, "cacheline 1 boundary (64 bytes) was 8 bytes ago") != NULL);
		layout_fini(&l);
	}
	/* objects 40 bytes into a line move the split: slots is 96..111, one line */
	{
		struct layout_access acc[NFS];
		memcpy(acc, fs_accesses, sizeof(acc));
		for (size_t i = 0; i < NFS; i++)
			acc[i].object += 40;
		CHECK(layout_build(&l, c.db, c.id, 64, NULL) == 0);
		CHECK(layout_account(&l, acc, NFS) == 0);
		CHECK_EQ_U64(l.rows[s].nparts, 1);
		CHECK_EQ_U64(l.rows[s].parts[0].line, 1);
		/* config (72..87) is 112..127: line 1 as well; name (8..15) is 48..55 on line 0 */
		CHECK_EQ_U64(l.rows[row_named(&l, "name")].parts[0].line, 0);
		layout_fini(&l);
	}
	types_free(c.db);
}

/* pahole's boundary comments (pahole -E places them): one before the first
 * row starting on a new line, "was N bytes ago" when it starts past it. */
static void test_boundary_text(void)
{
	CONN_OR_SKIP(c, 0);
	struct layout l;
	uint32_t last = 0;
	char buf[96];
	int n = 0;

	CHECK(layout_build(&l, c.db, c.id, 64, NULL) == 0);
	for (size_t i = 0; i < l.nrows; i++)
		if (layout_boundary_text(&l, i, &last, buf, sizeof(buf))) {
			CHECK_STR(l.rows[i].name, "config");
			CHECK_STR(buf, "/* --- cacheline 1 boundary (64 bytes) was 8 bytes ago --- */");
			n++;
		}
	CHECK_EQ_U64(n, 1);
	/* objects starting 24 bytes into a line: counter (24) starts line 1 exactly */
	l.base_misalign = 40;
	last = 0;
	n = 0;
	for (size_t i = 0; i < l.nrows; i++)
		if (layout_boundary_text(&l, i, &last, buf, sizeof(buf))) {
			CHECK_STR(l.rows[i].name, "counter");
			CHECK_STR(buf, "/* --- cacheline 1 boundary (24 bytes) --- */");
			n++;
		}
	CHECK_EQ_U64(n, 1);
	layout_fini(&l);
	types_free(c.db);
}

static void test_verdicts(void)
{
	struct layout_verdict_info v;
	/* false: 1 writes key 10, 2 and 3 read key 20 */
	const struct layout_line_access f[] = {
		{ .key = 10, .is_store = true, .tid = 1, .cpu = 0, .count = 100 },
		{ .key = 20, .is_store = false, .tid = 2, .cpu = 1, .count = 50 },
		{ .key = 20, .is_store = false, .tid = 3, .cpu = 2, .count = 50 },
	};
	/* true: 1 and 2 both write key 10 */
	const struct layout_line_access t[] = {
		{ .key = 10, .is_store = true, .tid = 1, .cpu = 0, .count = 100 },
		{ .key = 10, .is_store = true, .tid = 2, .cpu = 1, .count = 100 },
		{ .key = 10, .is_store = false, .tid = 2, .cpu = 1, .count = 10 },
	};
	/* mixed: the above plus 3 reading key 20 */
	const struct layout_line_access m[] = {
		{ .key = 10, .is_store = true, .tid = 1, .cpu = 0, .count = 100 },
		{ .key = 10, .is_store = true, .tid = 2, .cpu = 1, .count = 100 },
		{ .key = 20, .is_store = false, .tid = 3, .cpu = 2, .count = 100 },
	};
	/* none: one thread does everything; or nobody writes */
	const struct layout_line_access n1[] = {
		{ .key = 10, .is_store = true, .tid = 1, .cpu = 0, .count = 100 },
		{ .key = 20, .is_store = false, .tid = 1, .cpu = 0, .count = 100 },
	};
	const struct layout_line_access n2[] = {
		{ .key = 10, .is_store = false, .tid = 1, .cpu = 0, .count = 100 },
		{ .key = 10, .is_store = false, .tid = 2, .cpu = 1, .count = 100 },
	};
	/* a stray 5% of false sharing does not turn true sharing into mixed */
	const struct layout_line_access t2[] = {
		{ .key = 10, .is_store = true, .tid = 1, .cpu = 0, .count = 100 },
		{ .key = 10, .is_store = true, .tid = 2, .cpu = 1, .count = 100 },
		{ .key = 20, .is_store = false, .tid = 3, .cpu = 2, .count = 5 },
	};
	/* no tid: agents are CPUs */
	const struct layout_line_access c[] = {
		{ .key = 10, .is_store = true, .tid = -1, .cpu = 0, .count = 100 },
		{ .key = 20, .is_store = false, .tid = -1, .cpu = 1, .count = 100 },
	};

	CHECK(layout_verdict(f, 3, 0, &v) == 0);
	CHECK(v.verdict == LAYOUT_FALSE);
	CHECK_EQ_U64(v.false_samples, 100);
	CHECK_EQ_U64(v.true_samples, 0);
	CHECK_EQ_U64(v.writer_threads, 1);
	CHECK_EQ_U64(v.other_threads, 2);
	CHECK_EQ_U64(v.other_cpus, 2);
	CHECK_EQ_U64(v.nfalse_keys, 1);
	CHECK_EQ_U64(v.false_keys[0], 20);
	CHECK_EQ_U64(v.nwriter_keys, 1);          /* the writes that hurt: key 10 */
	CHECK_EQ_U64(v.writer_keys[0], 10);
	CHECK(layout_verdict(t, 3, 0, &v) == 0);
	CHECK(v.verdict == LAYOUT_TRUE);
	CHECK_EQ_U64(v.ntrue_keys, 1);
	CHECK_EQ_U64(v.writer_threads, 2);
	CHECK(layout_verdict(m, 3, 0, &v) == 0);
	CHECK(v.verdict == LAYOUT_MIXED);
	CHECK_EQ_U64(v.nwriter_keys, 1);
	CHECK_EQ_U64(v.ntrue_keys, 1);
	CHECK_EQ_U64(v.nfalse_keys, 1);
	CHECK_STR(layout_verdict_name(v.verdict), "mixed");
	CHECK(layout_verdict(n1, 2, 0, &v) == 0);
	CHECK(v.verdict == LAYOUT_NONE);
	CHECK(layout_verdict(n2, 2, 0, &v) == 0);
	CHECK(v.verdict == LAYOUT_NONE);
	CHECK(layout_verdict(t2, 3, 0, &v) == 0);
	CHECK(v.verdict == LAYOUT_TRUE);
	CHECK(layout_verdict(c, 2, 0, &v) == 0);
	CHECK(v.verdict == LAYOUT_FALSE);
	CHECK_EQ_U64(v.writer_cpus, 1);
	CHECK(layout_verdict(NULL, 0, 0, &v) == 0);
	CHECK(v.verdict == LAYOUT_NONE);
}

/* The evidence rules: false/true/mixed only with at least min_evidence
 * HITM or peer samples on the line; the pattern alone is "potential". */
static void test_verdict_evidence(void)
{
	struct layout_verdict_info v;
	/* false sharing by pattern, many samples, no HITM at all */
	const struct layout_line_access quiet[] = {
		{ .key = 10, .is_store = true, .tid = 1, .cpu = 0, .count = 400 },
		{ .key = 20, .is_store = false, .tid = 2, .cpu = 1, .count = 300 },
		{ .key = 20, .is_store = false, .tid = 3, .cpu = 2, .count = 300 },
	};
	/* the same with 4 HITM: below the default minimum of 5 */
	const struct layout_line_access few[] = {
		{ .key = 10, .is_store = true, .tid = 1, .cpu = 0, .count = 400 },
		{ .key = 20, .is_store = false, .tid = 2, .cpu = 1, .count = 300,
		  .evidence = 3, .lcl_hitm = 2, .rmt_hitm = 1, .lcl_peer = 0, .rmt_peer = 0,
		  .site = 7 },
		{ .key = 20, .is_store = false, .tid = 3, .cpu = 2, .count = 300,
		  .evidence = 1, .lcl_hitm = 1, .rmt_hitm = 0, .lcl_peer = 0, .rmt_peer = 0,
		  .site = 8 },
	};
	/* mixed with evidence: 1 and 2 write key 10 (truly shared), 3 reads
	 * key 20 (a victim), 4 reads key 10 (shared too) */
	const struct layout_line_access mixed[] = {
		{ .key = 10, .is_store = true, .tid = 1, .cpu = 0, .count = 100,
		  .evidence = 0, .lcl_hitm = 0, .rmt_hitm = 0, .lcl_peer = 0, .rmt_peer = 0,
		  .site = 1 },
		{ .key = 10, .is_store = true, .tid = 2, .cpu = 1, .count = 100,
		  .evidence = 0, .lcl_hitm = 0, .rmt_hitm = 0, .lcl_peer = 0, .rmt_peer = 0,
		  .site = 2 },
		{ .key = 20, .is_store = false, .tid = 3, .cpu = 2, .count = 100,
		  .evidence = 30, .lcl_hitm = 20, .rmt_hitm = 10, .lcl_peer = 0, .rmt_peer = 0,
		  .site = 3 },
		{ .key = 10, .is_store = false, .tid = 4, .cpu = 3, .count = 50,
		  .evidence = 12, .lcl_hitm = 0, .rmt_hitm = 12, .lcl_peer = 0, .rmt_peer = 0,
		  .site = 4 },
	};
	/* AMD IBS / ARM SPE: no HITM, peer-cache loads are the evidence */
	const struct layout_line_access peer[] = {
		{ .key = 10, .is_store = true, .tid = 1, .cpu = 0, .count = 100 },
		{ .key = 20, .is_store = false, .tid = 2, .cpu = 1, .count = 100,
		  .evidence = 9, .lcl_hitm = 0, .rmt_hitm = 0, .lcl_peer = 6, .rmt_peer = 3,
		  .site = 5 },
	};
	/* one thread does everything, with HITM (a migration): no contention */
	const struct layout_line_access alone[] = {
		{ .key = 10, .is_store = true, .tid = 1, .cpu = 0, .count = 100 },
		{ .key = 20, .is_store = false, .tid = 1, .cpu = 0, .count = 100,
		  .evidence = 50, .lcl_hitm = 50, .rmt_hitm = 0, .lcl_peer = 0, .rmt_peer = 0,
		  .site = 0 },
	};

	CHECK(layout_verdict(quiet, 3, LAYOUT_MIN_EVIDENCE_DEFAULT, &v) == 0);
	CHECK(v.verdict == LAYOUT_POTENTIAL);
	CHECK(v.pattern == LAYOUT_FALSE);
	CHECK_EQ_U64(v.evidence, 0);
	CHECK_EQ_U64(v.samples, 1000);
	CHECK_STR(layout_verdict_name(v.verdict), "potential");
	CHECK_STR(layout_verdict_key(v.verdict), "potential");
	CHECK(!layout_verdict_contended(v.verdict));
	/* --min-evidence 0: the pattern alone, as before */
	CHECK(layout_verdict(quiet, 3, 0, &v) == 0);
	CHECK(v.verdict == LAYOUT_FALSE);

	CHECK(layout_verdict(few, 3, LAYOUT_MIN_EVIDENCE_DEFAULT, &v) == 0);
	CHECK(v.verdict == LAYOUT_POTENTIAL);
	CHECK_EQ_U64(v.evidence, 4);
	CHECK_EQ_U64(v.lcl_hitm, 3);
	CHECK_EQ_U64(v.rmt_hitm, 1);
	CHECK(layout_verdict(few, 3, 4, &v) == 0);
	CHECK(v.verdict == LAYOUT_FALSE);
	CHECK_EQ_U64(v.nsites, 2);
	CHECK_EQ_U64(v.sites[0], 7);          /* 3 HITM before 1 */
	CHECK_EQ_U64(v.sites[1], 8);

	CHECK(layout_verdict(mixed, 4, LAYOUT_MIN_EVIDENCE_DEFAULT, &v) == 0);
	CHECK(v.verdict == LAYOUT_MIXED);
	CHECK_EQ_U64(v.evidence, 42);
	CHECK_EQ_U64(v.lcl_hitm, 20);
	CHECK_EQ_U64(v.rmt_hitm, 22);
	CHECK_EQ_U64(v.loads, 150);
	CHECK_EQ_U64(v.stores, 200);
	CHECK_EQ_U64(v.writer_threads, 2);
	CHECK_EQ_U64(v.other_threads, 2);
	CHECK_EQ_U64(v.ntrue_keys, 1);        /* truly shared: key 10 */
	CHECK_EQ_U64(v.true_keys[0], 10);
	CHECK_EQ_U64(v.nvictim_keys, 1);      /* victim: key 20 */
	CHECK_EQ_U64(v.victim_keys[0], 20);
	CHECK_EQ_U64(v.sites[0], 3);          /* the most evidence first */
	CHECK_EQ_U64(v.sites[1], 4);

	CHECK(layout_verdict(peer, 2, LAYOUT_MIN_EVIDENCE_DEFAULT, &v) == 0);
	CHECK(v.verdict == LAYOUT_FALSE);
	CHECK_EQ_U64(v.lcl_hitm + v.rmt_hitm, 0);
	CHECK_EQ_U64(v.lcl_peer, 6);
	CHECK_EQ_U64(v.rmt_peer, 3);

	CHECK(layout_verdict(alone, 2, LAYOUT_MIN_EVIDENCE_DEFAULT, &v) == 0);
	CHECK(v.verdict == LAYOUT_NONE);
	CHECK_STR(layout_verdict_name(v.verdict), "no contention");
	CHECK_STR(layout_verdict_key(v.verdict), "none");
}

static long plan_member(const struct layout_plan *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->m[i].name, name))
			return (long)i;
	return -1;
}

static void test_propose_and_whatif(void)
{
	CONN_OR_SKIP(c, 0);
	struct layout l;
	struct layout_plan p;
	struct layout_whatif w;
	long k;

	CHECK(layout_build(&l, c.db, c.id, 64, NULL) == 0);
	CHECK(layout_account(&l, fs_accesses, NFS) == 0);
	CHECK(layout_propose(&p, &l) == 0);
	/* flags, kind and prio share one storage unit: one plan member */
	CHECK(plan_member(&p, "flags") >= 0 && plan_member(&p, "kind") < 0);
	CHECK_EQ_U64(p.n, 9);
	k = plan_member(&p, "counter");
	CHECK(k >= 0 && p.m[k].group == 1);
	/* the readers pack from 0; counter goes to a line of its own */
	CHECK_EQ_U64(p.m[plan_member(&p, "limit")].new_offset, 16);
	CHECK_EQ_U64(p.m[plan_member(&p, "st")].new_offset, 24);
	CHECK_EQ_U64(p.m[plan_member(&p, "config")].new_offset, 64);
	CHECK_EQ_U64(p.m[k].new_offset, 128);
	CHECK_EQ_U64(p.align, 64);
	CHECK_EQ_U64(p.size, 192);
	CHECK(p.nreasoning == 3);
	CHECK(strstr(p.reasoning[0], "1 write-hot member") != NULL);
	CHECK(strstr(p.m[k].why, "written by 1 thread") != NULL);
	/* the edit that gives it: counter moves to the end, on a new line */
	CHECK_EQ_U64(p.nannotations, 1);
	CHECK(strstr(p.annotations[0], "move counter to the end (after config)") != NULL);
	CHECK(strstr(p.annotations[0], "____cacheline_aligned_in_smp") != NULL);

	CHECK(layout_whatif(&l, &p, fs_accesses, NFS, 0, &w) == 0);
	CHECK_EQ_U64(w.hitm_before, 200);
	CHECK_EQ_U64(w.hitm_after, 0);
	CHECK_EQ_U64(w.contended_lines_before, 1);
	CHECK_EQ_U64(w.contended_lines_after, 0);
	CHECK_EQ_U64(w.unmapped, 0);
	layout_whatif_fini(&w);
	layout_plan_fini(&p);

	/* The current layout replayed against itself changes nothing. */
	CHECK(layout_plan_from_layout(&p, &l) == 0);
	CHECK(layout_whatif(&l, &p, fs_accesses, NFS, 0, &w) == 0);
	CHECK_EQ_U64(w.hitm_after, 185);   /* line 0; slots[2] (line 1) was never contended */
	CHECK_EQ_U64(w.contended_lines_after, 1);
	CHECK_EQ_U64(w.nlines, 1);
	CHECK(w.lines[0].verdict == LAYOUT_FALSE);
	CHECK(strstr(w.lines[0].members, "counter") != NULL);
	CHECK(strstr(w.lines[0].members, "limit") != NULL);
	layout_whatif_fini(&w);
	layout_plan_fini(&p);
	layout_fini(&l);
	types_free(c.db);
}

/* Nothing written: the proposal keeps the layout and says why. */
static void test_propose_nothing(void)
{
	CONN_OR_SKIP(c, 0);
	struct layout l;
	struct layout_plan p;
	const struct layout_access ro[] = { { OBJ, OFF_LIMIT, false, 3, 1, 2, 10, 0, 0 } };

	CHECK(layout_build(&l, c.db, c.id, 64, NULL) == 0);
	CHECK(layout_account(&l, ro, 1) == 0);
	CHECK(layout_propose(&p, &l) == 0);
	CHECK_EQ_U64(p.size, 88);
	CHECK_EQ_U64(p.m[plan_member(&p, "counter")].new_offset, OFF_COUNTER);
	CHECK(strstr(p.reasoning[0], "no member is written") != NULL);
	layout_plan_fini(&p);
	layout_fini(&l);
	types_free(c.db);
}

/* The before session's accesses against the after build's struct (where
 * counter sits alone in line 2): the HITM on name/limit/st go. */
static void test_whatif_after_build(void)
{
	CONN_OR_SKIP(b, 0);
	CONN_OR_SKIP(a, 1);
	struct layout lb, la;
	struct layout_plan p;
	struct layout_whatif w;

	CHECK(layout_build(&lb, b.db, b.id, 64, NULL) == 0);
	CHECK(layout_account(&lb, fs_accesses, NFS) == 0);
	CHECK(layout_build(&la, a.db, a.id, 64, NULL) == 0);
	CHECK(layout_plan_from_layout(&p, &la) == 0);
	CHECK_EQ_U64(p.align, 64);
	CHECK_EQ_U64(p.m[plan_member(&p, "counter")].new_offset, 128);
	CHECK_EQ_U64(p.m[plan_member(&p, "config")].new_offset, 64);
	CHECK_EQ_U64(p.m[plan_member(&p, "limit")].new_offset, 16);
	CHECK(layout_whatif(&lb, &p, fs_accesses, NFS, 0, &w) == 0);
	CHECK_EQ_U64(w.hitm_before, 200);
	CHECK_EQ_U64(w.hitm_after, 0);
	CHECK_EQ_U64(w.contended_lines_after, 0);
	layout_whatif_fini(&w);
	layout_plan_fini(&p);
	layout_fini(&lb);
	layout_fini(&la);
	types_free(a.db);
	types_free(b.db);
}

/* A real kernel struct laid out from this machine's BTF, by name. */
static void test_kernel_task_group(void)
{
	struct types_db *db = NULL;
	struct layout l;
	static char text[65536];
	struct layout_out out = { print_line, text };
	uint64_t covered = 0;

	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		test_skip("no /sys/kernel/btf/vmlinux");
		return;
	}
	CHECK(types_open_btf(&db, NULL, NULL) == 0);
	CHECK(layout_build(&l, db, types_find(db, "task_group"), 64, NULL) == 0);
	CHECK_STR(l.type_name, "struct task_group");
	CHECK(l.size > 64 && l.nrows > 3);
	CHECK_STR(l.rows[0].name, "css");
	CHECK_STR(l.rows[0].type, "struct cgroup_subsys_state");
	/* top-level members and holes tile the struct (bitfields aside) */
	for (size_t i = 0; i < l.nrows; i++)
		if (l.rows[i].depth == 0 && !l.rows[i].bit_size)
			covered += l.rows[i].size + l.rows[i].hole_after;
	CHECK(covered <= l.size);
	CHECK(covered + 64 > l.size);   /* at most tail padding to a line */
	text[0] = 0;
	layout_print(&l, &out);
	CHECK(strstr(text, "struct task_group {") != NULL);
	/* pahole's words, with or without "was N bytes ago" */
	CHECK(strstr(text, "/* --- cacheline 1 boundary (64 bytes)") != NULL);
	layout_fini(&l);
	types_free(db);
}

struct all_ctx {
	struct types_db *db;
	long structs, rows, bad;
	char first_bad[160];
};

static void discard_line(void *ctx, const char *text)
{
	(void)ctx;
	(void)text;
}

static int lay_one(void *vctx, const char *name, uint32_t id)
{
	struct all_ctx *c = vctx;
	struct layout l;
	struct layout_out out = { discard_line, NULL };
	const struct types_type *t = types_get(c->db, id);
	uint64_t last = 0;

	if (!t || t->kind != TYPES_STRUCT || layout_build(&l, c->db, id, 64, NULL) < 0)
		return 0;
	c->structs++;
	c->rows += (long)l.nrows;
	for (size_t i = 0; i < l.nrows; i++) {
		const struct layout_row *r = &l.rows[i];
		struct types_hit hit;
		/* top-level members ascend and lie inside the struct; the byte
		 * at each named member's start resolves to a path in it */
		if (r->depth == 0) {
			if (r->offset < last || r->offset + r->size > l.size + (r->size == 0))
				goto bad;
			last = r->offset;
			if (r->size && !r->bit_size && r->name[0] != '{' &&
			    (types_resolve(c->db, id, r->offset, &hit) < 0 ||
			     strncmp(hit.path, r->name, strlen(r->name))))
				goto bad;
		}
	}
	layout_print(&l, &out);
	layout_fini(&l);
	return 0;
bad:
	if (!c->bad++)
		snprintf(c->first_bad, sizeof(c->first_bad), "%s", name);
	layout_fini(&l);
	return 0;
}

/* Every struct of the running kernel laid out and resolved: the type graph
 * and the layout code on ~10k real structs (nesting, anonymous members,
 * bitfields, flexible arrays, zero-sized members). */
static void test_kernel_all_structs(void)
{
	struct all_ctx c = { 0 };

	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		test_skip("no /sys/kernel/btf/vmlinux");
		return;
	}
	CHECK(types_open_btf(&c.db, NULL, NULL) == 0);
	CHECK(types_each_struct(c.db, lay_one, &c) == 0);
	printf("# %ld kernel structs, %ld rows laid out\n", c.structs, c.rows);
	if (c.bad)
		printf("# %ld inconsistent, first: %s\n", c.bad, c.first_bad);
	CHECK(c.structs > 1000);
	CHECK_EQ_U64(c.bad, 0);
	types_free(c.db);
}

TEST_MAIN(
	TEST_CASE(test_rows_and_holes),
	TEST_CASE(test_flags_and_print),
	TEST_CASE(test_misaligned_objects),
	TEST_CASE(test_straddling_member),
	TEST_CASE(test_boundary_text),
	TEST_CASE(test_verdicts),
	TEST_CASE(test_verdict_evidence),
	TEST_CASE(test_propose_and_whatif),
	TEST_CASE(test_propose_nothing),
	TEST_CASE(test_whatif_after_build),
	TEST_CASE(test_kernel_task_group),
	TEST_CASE(test_kernel_all_structs),
)
