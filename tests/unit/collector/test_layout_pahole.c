/* collector/layout/layout_pahole.h on real DWARF: struct conn of
 * tests/types/conn.c (both layouts) and the cases of
 * tests/types/pahole_cases.c, with the rows, holes, bit holes, boundaries
 * and statistics `pahole -C` prints for them (pahole 1.24 on gcc 12 -g;
 * tests/e2e/layout_pahole.sh compares against pahole itself). */
#include "tests/unit/test.h"
#include "tests/unit/test_types_prog.h"

#include <errno.h>

#include "collector/layout/layout.h"
#include "collector/layout/layout_pahole.h"
#include "collector/types/types.h"

static const struct layout_pahole_row *row(const struct layout_pahole *p, const char *name,
					   enum layout_pahole_kind kind)
{
	for (size_t i = 0; i < p->nrows; i++)
		if (!strcmp(p->rows[i].name, name) && p->rows[i].kind == kind)
			return &p->rows[i];
	return NULL;
}

static int build(struct layout_pahole *p, const char *bin, const char *type, struct types_db **db)
{
	uint32_t id;

	if (!bin || types_open_file(db, bin, NULL, NULL) < 0)
		return -1;
	id = types_find(*db, type);
	if (!id || layout_pahole_build(p, *db, id, 64, NULL) < 0) {
		types_free(*db);
		return -1;
	}
	return 0;
}

static void test_conn_before(void)
{
	const char *bin = types_prog_build(0);
	struct types_db *db;
	struct layout_pahole p;
	const struct layout_pahole_row *r;

	if (!bin) {
		test_skip("cannot build tests/types/conn.c with cc -g");
		return;
	}
	CHECK(build(&p, bin, "conn", &db) == 0);
	CHECK_STR(p.type_name, "struct conn");
	CHECK(!p.is_union);
	/* unsigned int flags:3, kind:5, prio:8: the unit at 4, bits 0, 3, 8 */
	CHECK((r = row(&p, "kind", LAYOUT_PAHOLE_MEMBER)));
	CHECK_EQ_U64(r->offset, 4);
	CHECK_EQ_U64(r->size, 4);
	CHECK_EQ_U64(r->bit_offset, 3);
	CHECK_EQ_U64(r->bit_size, 5);
	CHECK_STR(r->type, "unsigned int");
	CHECK_STR(r->decl, "kind:5");
	CHECK((r = row(&p, "prio", LAYOUT_PAHOLE_MEMBER)));
	CHECK_EQ_U64(r->bit_offset, 8);
	CHECK_EQ_U64(r->bit_hole, 16);   /* "XXX 16 bits hole" */
	CHECK_EQ_U64(r->hole, 0);
	/* struct stats st is one row; the anonymous union is opened */
	CHECK((r = row(&p, "st", LAYOUT_PAHOLE_MEMBER)));
	CHECK_EQ_U64(r->offset, 32);
	CHECK(!row(&p, "hits", LAYOUT_PAHOLE_MEMBER));
	CHECK((r = row(&p, "", LAYOUT_PAHOLE_OPEN)));
	CHECK_STR(r->type, "union");
	CHECK_EQ_U64(r->offset, 48);
	CHECK((r = row(&p, "handle", LAYOUT_PAHOLE_MEMBER)));
	CHECK_EQ_U64(r->depth, 1);
	CHECK_EQ_U64(r->offset, 48);
	CHECK_EQ_U64(r->size, 8);
	CHECK((r = row(&p, "", LAYOUT_PAHOLE_CLOSE)));
	CHECK_EQ_U64(r->size, 8);
	/* slots[4] at 56..71 straddles: the comment comes before config */
	CHECK((r = row(&p, "slots", LAYOUT_PAHOLE_MEMBER)));
	CHECK_STR(r->decl, "slots[4]");
	CHECK_EQ_U64(r->boundary_line, 0);
	CHECK((r = row(&p, "config", LAYOUT_PAHOLE_MEMBER)));
	CHECK_EQ_U64(r->boundary_line, 1);
	CHECK_EQ_U64(r->boundary_ago, 8);
	/* size: 88, cachelines: 2, members: 11; sum members: 84; 16 bits in 1 bit hole */
	CHECK_EQ_U64(p.size, 88);
	CHECK_EQ_U64(layout_pahole_cachelines(&p), 2);
	CHECK_EQ_U64(p.members, 11);
	CHECK_EQ_U64(p.sum_bytes, 84);
	CHECK_EQ_U64(p.sum_bits, 16);
	CHECK_EQ_U64(p.nr_holes, 0);
	CHECK_EQ_U64(p.nr_bit_holes, 1);
	CHECK_EQ_U64(p.sum_bit_holes, 16);
	CHECK_EQ_U64(p.padding, 0);
	layout_pahole_fini(&p);
	types_free(db);
}

static void test_conn_after(void)
{
	const char *bin = types_prog_build(1);
	struct types_db *db;
	struct layout_pahole p;
	const struct layout_pahole_row *r;

	if (!bin) {
		test_skip("cannot build tests/types/conn.c with cc -g");
		return;
	}
	CHECK(build(&p, bin, "struct conn", &db) == 0);
	CHECK((r = row(&p, "config", LAYOUT_PAHOLE_MEMBER)));
	CHECK_EQ_U64(r->boundary_line, 1);
	CHECK_EQ_U64(r->boundary_ago, 0);
	CHECK_EQ_U64(r->hole, 48);         /* before the aligned counter */
	CHECK((r = row(&p, "counter", LAYOUT_PAHOLE_MEMBER)));
	CHECK_EQ_U64(r->offset, 128);
	CHECK_EQ_U64(r->boundary_line, 2);
	CHECK_EQ_U64(p.size, 192);
	CHECK_EQ_U64(p.nr_holes, 1);
	CHECK_EQ_U64(p.sum_holes, 48);
	CHECK_EQ_U64(p.padding, 56);       /* the tail is padding, not a hole */
	layout_pahole_fini(&p);
	types_free(db);
}

static void test_bitfield_units(void)
{
	const char *bin = types_prog_build_src("pahole_cases");
	struct types_db *db;
	struct layout_pahole p;
	const struct layout_pahole_row *r;

	if (!bin) {
		test_skip("cannot build tests/types/pahole_cases.c with cc -g");
		return;
	}
	CHECK(build(&p, bin, "pc_bits", &db) == 0);
	/* char x; unsigned long long a:3 (in the 8-byte unit at 0, bit 8) */
	CHECK((r = row(&p, "a", LAYOUT_PAHOLE_MEMBER)));
	CHECK_EQ_U64(r->offset, 0);
	CHECK_EQ_U64(r->size, 8);
	CHECK_EQ_U64(r->bit_offset, 8);
	CHECK_EQ_U64(r->bit_hole, 21);
	CHECK((r = row(&p, "b", LAYOUT_PAHOLE_MEMBER)));
	CHECK_EQ_U64(r->offset, 4);
	CHECK_EQ_U64(r->bit_offset, 0);
	CHECK_EQ_U64(r->bit_hole, 2);
	CHECK((r = row(&p, "z", LAYOUT_PAHOLE_MEMBER)));
	CHECK_EQ_U64(r->offset, 8);
	CHECK_EQ_U64(r->bit_offset, 8);
	CHECK_EQ_U64(r->bit_hole, 20);
	CHECK_EQ_U64(r->hole, 4);
	CHECK_EQ_U64(p.sum_bytes, 10);
	CHECK_EQ_U64(p.sum_bits, 37);
	CHECK_EQ_U64(p.nr_bit_holes, 3);
	CHECK_EQ_U64(p.sum_bit_holes, 43);
	CHECK_EQ_U64(p.sum_holes, 4);
	layout_pahole_fini(&p);
	types_free(db);
}

static void test_union_and_anonymous(void)
{
	const char *bin = types_prog_build_src("pahole_cases");
	struct types_db *db;
	struct layout_pahole p;
	const struct layout_pahole_row *r;

	if (!bin) {
		test_skip("cannot build tests/types/pahole_cases.c with cc -g");
		return;
	}
	CHECK(build(&p, bin, "union pc_union", &db) == 0);
	CHECK(p.is_union);
	CHECK((r = row(&p, "y", LAYOUT_PAHOLE_MEMBER)));
	CHECK_EQ_U64(r->boundary_line, 1);
	CHECK_EQ_U64(r->boundary_ago, 8);
	CHECK((r = row(&p, "x", LAYOUT_PAHOLE_MEMBER)));
	CHECK_EQ_U64(r->hole, 2);
	/* the next union member starts on line 0 again: no comment */
	CHECK((r = row(&p, "z", LAYOUT_PAHOLE_MEMBER)));
	CHECK_EQ_U64(r->boundary_line, 0);
	layout_pahole_fini(&p);
	types_free(db);

	CHECK(build(&p, bin, "pc_anon", &db) == 0);
	/* an array of an anonymous struct: opened, element 0's offsets */
	CHECK((r = row(&p, "arr", LAYOUT_PAHOLE_CLOSE)));
	CHECK_STR(r->decl, "arr[3]");
	CHECK_EQ_U64(r->offset, 8);
	CHECK_EQ_U64(r->size, 48);
	CHECK((r = row(&p, "q", LAYOUT_PAHOLE_MEMBER)));
	CHECK_EQ_U64(r->offset, 16);
	CHECK((r = row(&p, "p", LAYOUT_PAHOLE_MEMBER)));
	CHECK_EQ_U64(r->hole, 4);
	/* a pointer to one: offsets relative to it */
	CHECK((r = row(&p, "k", LAYOUT_PAHOLE_MEMBER)));
	CHECK(r->relative);
	CHECK_EQ_U64(r->offset, 0);
	CHECK((r = row(&p, "pp", LAYOUT_PAHOLE_CLOSE)));
	CHECK_STR(r->decl, "* pp");
	CHECK_EQ_U64(r->offset, 72);
	CHECK((r = row(&p, "fn", LAYOUT_PAHOLE_MEMBER)));
	CHECK_STR(r->decl, "(*fn)()");
	/* struct pc_hole tail: 1 byte of padding at its end */
	CHECK((r = row(&p, "tail", LAYOUT_PAHOLE_MEMBER)));
	CHECK_EQ_U64(r->type_padding, 1);
	CHECK_EQ_U64(p.nr_paddings, 1);
	layout_pahole_fini(&p);
	/* int a, the first member's type, has no layout */
	{
		const struct types_member *m;
		CHECK(types_members(db, types_find(db, "pc_anon"), &m) > 0);
		CHECK(layout_pahole_build(&p, db, m[0].type, 64, NULL) == -EINVAL);
		CHECK_EQ_U64(p.nrows, 0);
	}
	types_free(db);
}

/* A row 1 byte past a boundary: "was 1 byte ago", as pahole says it, in
 * both this view and the session's (layout_boundary_text). */
static void test_one_byte_ago(void)
{
	const char *bin = types_prog_build_src("pahole_cases");
	struct types_db *db;
	struct layout_pahole p;
	struct layout l;
	const struct layout_pahole_row *r;
	uint32_t last = 0;
	char buf[128] = "";
	long i;

	if (!bin) {
		test_skip("cannot build tests/types/pahole_cases.c with cc -g");
		return;
	}
	CHECK(build(&p, bin, "pc_packed", &db) == 0);
	CHECK((r = row(&p, "c", LAYOUT_PAHOLE_MEMBER)));
	CHECK_EQ_U64(r->offset, 65);
	CHECK_EQ_U64(r->boundary_line, 1);
	CHECK_EQ_U64(r->boundary_ago, 1);
	layout_pahole_fini(&p);
	CHECK(layout_build(&l, db, types_find(db, "pc_packed"), 64, NULL) == 0);
	CHECK((i = layout_row_at(&l, 65)) >= 0);
	for (long k = 0; k <= i; k++)
		layout_boundary_text(&l, (size_t)k, &last, buf, sizeof(buf));
	CHECK_STR(buf, "/* --- cacheline 1 boundary (64 bytes) was 1 byte ago --- */");
	layout_fini(&l);
	types_free(db);
}

/* char b[256]: DWARF's upper bound 255 as DW_FORM_data1 is not the -1 of a
 * flexible array (libdw sign-extends it; the vmlinux check found
 * snp_psc_desc.entries[253] printed as entries[0]). */
static void test_array_bounds(void)
{
	const char *bin = types_prog_build_src("pahole_cases");
	struct types_db *db;
	struct layout_pahole p;
	const struct layout_pahole_row *r;

	if (!bin) {
		test_skip("cannot build tests/types/pahole_cases.c with cc -g");
		return;
	}
	CHECK(build(&p, bin, "pc_arrays", &db) == 0);
	CHECK((r = row(&p, "b256", LAYOUT_PAHOLE_MEMBER)));
	CHECK_EQ_U64(r->size, 256);
	CHECK((r = row(&p, "i253", LAYOUT_PAHOLE_MEMBER)));
	CHECK_EQ_U64(r->offset, 256);
	CHECK_EQ_U64(r->size, 1012);
	CHECK((r = row(&p, "big", LAYOUT_PAHOLE_MEMBER)));
	CHECK_EQ_U64(r->offset, 1268);
	CHECK_EQ_U64(r->size, 65536);
	CHECK((r = row(&p, "flex", LAYOUT_PAHOLE_MEMBER)));
	CHECK_EQ_U64(r->offset, 66804);
	CHECK_EQ_U64(r->size, 0);
	CHECK_EQ_U64(p.size, 66804);
	CHECK_EQ_U64(p.nr_holes, 0);
	layout_pahole_fini(&p);
	types_free(db);
}

static void test_not_a_file_of_types(void)
{
	char path[600];
	FILE *f;
	struct types_db *db;
	struct c2c_error err = { 0 };

	snprintf(path, sizeof(path), "%s/junk", test_tmpdir());
	CHECK((f = fopen(path, "w")) != NULL);
	fputs("hello\n", f);
	fclose(f);
	CHECK(types_open_file(&db, path, NULL, &err) == -EINVAL);
	CHECK(strstr(err.msg, "neither BTF nor an ELF file") != NULL);
}

TEST_MAIN(
	TEST_CASE(test_conn_before),
	TEST_CASE(test_conn_after),
	TEST_CASE(test_bitfield_units),
	TEST_CASE(test_union_and_anonymous),
	TEST_CASE(test_one_byte_ago),
	TEST_CASE(test_array_bounds),
	TEST_CASE(test_not_a_file_of_types),
)
