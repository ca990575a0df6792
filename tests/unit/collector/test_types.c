/* collector/types and collector/insn on real binaries: tests/types/conn.c
 * built with -g -O2 (before and after layouts), and the kernel's BTF. */
#include "tests/unit/test.h"
#include "tests/unit/test_types_prog.h"

#include "collector/types/insn.h"
#include "collector/types/types.h"

#include <bpf/btf.h>
#include <errno.h>

static struct types_db *open_prog(int after)
{
	const char *p = types_prog_build(after);
	struct types_db *db = NULL;
	struct c2c_error err = { 0 };

	if (!p)
		return NULL;
	if (types_open_dwarf(&db, p, NULL, &err) < 0) {
		printf("# %s\n", err.msg);
		return NULL;
	}
	return db;
}

#define OPEN_OR_SKIP(db, after) \
	struct types_db *db = open_prog(after); \
	if (!db) { test_skip("cannot build tests/types/conn.c with cc -g"); return; }

static const char *path_at(struct types_db *db, uint32_t id, uint64_t off)
{
	static struct types_hit hit;
	if (types_resolve(db, id, off, &hit) < 0)
		return "(error)";
	return hit.path;
}

static void test_struct_layout_before(void)
{
	OPEN_OR_SKIP(db, 0);
	uint32_t id = types_find(db, "conn");
	const struct types_type *t = types_get(db, id);
	const struct types_member *m;
	size_t n = types_members(db, id, &m);
	char buf[128];

	CHECK(id != 0 && t);
	CHECK(t->kind == TYPES_STRUCT);
	CHECK_EQ_U64(t->size, 88);
	CHECK_EQ_U64(t->align, 8);
	CHECK_EQ_U64(n, 11);
	CHECK_STR(m[0].name, "id");
	CHECK_STR(m[1].name, "flags");
	CHECK_EQ_U64(m[1].bit_offset, 32);
	CHECK_EQ_U64(m[1].bit_size, 3);
	CHECK_STR(m[2].name, "kind");
	CHECK_EQ_U64(m[2].bit_offset, 35);
	CHECK_EQ_U64(m[3].bit_offset, 40);
	CHECK(m[8].name == NULL);           /* the anonymous union */
	CHECK_STR(m[6].name, "counter");
	CHECK_EQ_U64(m[6].bit_offset, 0x18 * 8);
	CHECK_STR(types_name(db, m[4].type, buf, sizeof(buf)), "const char *");
	CHECK_STR(types_name(db, m[9].type, buf, sizeof(buf)), "int[4]");
	CHECK_STR(types_name(db, id, buf, sizeof(buf)), "struct conn");
	CHECK(types_find(db, "struct conn") == id);
	CHECK(types_find(db, "union conn") == 0);
	CHECK(types_find(db, "no_such_struct") == 0);
	types_free(db);
}

static void test_struct_layout_after(void)
{
	OPEN_OR_SKIP(db, 1);
	uint32_t id = types_find(db, "conn");
	const struct types_type *t = types_get(db, id);

	CHECK(t && t->kind == TYPES_STRUCT);
	CHECK_EQ_U64(t->size, 192);
	CHECK_EQ_U64(t->align, 64);     /* DW_AT_alignment on counter */
	CHECK_STR(path_at(db, id, 128), "counter");
	CHECK_STR(path_at(db, id, 0x40 - 1), "slots[3]");
	CHECK_STR(path_at(db, id, 100), "<hole>");   /* padding before counter */
	CHECK_STR(path_at(db, id, 72), "config[1]");
	CHECK_STR(path_at(db, id, 0x20), "st.misses");
	types_free(db);
}

static void test_member_paths(void)
{
	OPEN_OR_SKIP(db, 0);
	uint32_t id = types_find(db, "conn");
	struct types_hit hit;

	CHECK_STR(path_at(db, id, 0), "id");
	CHECK_STR(path_at(db, id, 3), "id");
	CHECK_STR(path_at(db, id, 4), "flags");        /* first bitfield in the byte */
	CHECK_STR(path_at(db, id, 5), "prio");
	CHECK_STR(path_at(db, id, 6), "<hole>");
	CHECK_STR(path_at(db, id, 0x10), "limit");
	CHECK_STR(path_at(db, id, 0x18), "counter");
	CHECK_STR(path_at(db, id, 0x20), "st.hits");
	CHECK_STR(path_at(db, id, 0x2f), "st.misses");
	CHECK_STR(path_at(db, id, 0x30), "fd");         /* anonymous union: no component */
	CHECK_STR(path_at(db, id, 0x34), "handle");
	CHECK_STR(path_at(db, id, 0x40), "slots[2]");
	CHECK_STR(path_at(db, id, 0x43), "slots[2]");
	CHECK_STR(path_at(db, id, 0x50), "config[1]");
	CHECK(types_resolve(db, id, 88, &hit) == -ERANGE);
	CHECK(types_resolve(db, id, 0x24, &hit) == 0);
	CHECK_EQ_U64(hit.member_offset, 0x20);
	CHECK_EQ_U64(hit.member_size, 8);
	CHECK_EQ_U64(hit.top_index, 7);
	CHECK(types_resolve(db, id, 5, &hit) == 0);
	CHECK_EQ_U64(hit.bit_size, 8);
	CHECK_EQ_U64(hit.bit_offset, 0);
	CHECK_EQ_U64(hit.member_offset, 5);
	types_free(db);
}

static void test_globals(void)
{
	OPEN_OR_SKIP(db, 0);
	const char *p = types_prog_build(0);
	uint64_t g = types_prog_sym(p, "global_conn", NULL);
	uint64_t tab = types_prog_sym(p, "conn_table", NULL);
	uint32_t type;
	uint64_t start;
	const char *name;
	struct types_attr a;

	CHECK(g && tab);
	CHECK(types_var_at(db, g + 0x18, &type, &start, &name) == 0);
	CHECK_EQ_U64(start, g);
	CHECK_STR(name, "global_conn");
	CHECK_STR(path_at(db, type, 0x18), "counter");
	CHECK(types_var_at(db, tab + 2 * 88 + 0x20, &type, &start, &name) == 0);
	CHECK_STR(name, "conn_table");
	CHECK_STR(path_at(db, type, 2 * 88 + 0x20), "[2].st.hits");
	CHECK(types_var_by_name(db, "global_conn", &type, &start) == 0);
	CHECK_EQ_U64(start, g);
	/* Through the attribution entry point, with a runtime address. */
	CHECK(types_attribute(db, NULL, 0, 0x7f0000001018, true, g + 0x18, &a) == 0);
	CHECK(a.how == TYPES_HOW_GLOBAL);
	CHECK_STR(a.hit.path, "counter");
	CHECK_EQ_U64(a.object, 0x7f0000001000);
	types_free(db);
}

/* A global array of structs is attributed to the element holding the byte:
 * the element type, its start, the offset in it, and a path naming the
 * element after the variable (conn_table: 4 elements of 88 bytes, so the
 * elements start anywhere in a line). */
static void test_array_elements(void)
{
	OPEN_OR_SKIP(db, 0);
	const char *p = types_prog_build(0);
	uint64_t tab = types_prog_sym(p, "conn_table", NULL);
	uint64_t rt = 0x7f0000002000;   /* conn_table at run time */
	struct types_attr a;
	char tn[64];
	static const struct { uint64_t off; const char *path; uint64_t eoff; } cases[] = {
		{ 2 * 88 + 0x20, "conn_table[2].st.hits", 0x20 },
		{ 3 * 88 + 60, "conn_table[3].slots[1]", 60 },    /* an int of an array member */
		{ 1 * 88 + 48, "conn_table[1].fd", 48 },          /* anonymous union: no component */
		{ 0 * 88 + 4, "conn_table[0].flags", 4 },         /* bitfield */
		{ 3 * 88 + 87, "conn_table[3].config[1]", 87 },   /* the last byte */
	};

	CHECK(tab != 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK(types_attribute(db, NULL, 0, rt + cases[i].off, true, tab + cases[i].off, &a) == 0);
		CHECK(a.how == TYPES_HOW_GLOBAL);
		CHECK_STR(types_name(db, a.type, tn, sizeof(tn)), "struct conn");
		CHECK_STR(a.hit.path, cases[i].path);
		CHECK_EQ_U64(a.offset, cases[i].eoff);
		CHECK_EQ_U64(a.object, rt + cases[i].off - cases[i].eoff);
		CHECK_STR(a.var, "conn_table");
	}
	/* not an array: left alone */
	CHECK(types_attribute(db, NULL, 0, 0x7f0000001018, true,
			      types_prog_sym(p, "global_conn", NULL) + 0x18, &a) == 0);
	CHECK(!types_attr_element(db, &a));
	CHECK_STR(a.hit.path, "counter");
	/* an array of ints is not split (nothing to lay out in an int) */
	{
		uint32_t conn = types_find(db, "conn");
		const struct types_member *m;
		size_t n = types_members(db, conn, &m);
		memset(&a, 0, sizeof(a));
		for (size_t i = 0; i < n; i++)
			if (m[i].name && !strcmp(m[i].name, "slots"))
				a.type = m[i].type;
		a.how = TYPES_HOW_GLOBAL;
		a.offset = 8;
		snprintf(a.var, sizeof(a.var), "ints");
		CHECK(a.type && !types_attr_element(db, &a));
	}
	/* past the last element: not this object; no variable name: "?" */
	{
		uint32_t arr;
		uint64_t start;
		CHECK(types_var_by_name(db, "conn_table", &arr, &start) == 0);
		memset(&a, 0, sizeof(a));
		a.how = TYPES_HOW_GLOBAL;
		a.type = arr;
		a.offset = 4 * 88;
		CHECK(!types_attr_element(db, &a));
		a.offset = 88;
		CHECK(types_attr_element(db, &a));
		CHECK_STR(a.hit.path, "?[1].id");   /* no variable name known */
	}
	types_free(db);

	/* tests/types/arrays.c: a line-aligned element with nested and anonymous members */
	p = types_prog_build_src("arrays");
	if (!p || types_open_dwarf(&db, p, NULL, NULL) < 0) {
		test_skip("cannot build tests/types/arrays.c with cc -g");
		return;
	}
	tab = types_prog_sym(p, "table", NULL);
	CHECK(tab != 0 && tab % 64 == 0);
	CHECK(types_attribute(db, NULL, 0, rt + 3 * 192 + 8, true, tab + 3 * 192 + 8, &a) == 0);
	CHECK_STR(a.hit.path, "table[3].stats.avg");
	CHECK_STR(types_name(db, a.type, tn, sizeof(tn)), "struct slot_table");
	CHECK_EQ_U64(a.offset, 8);
	CHECK(types_attribute(db, NULL, 0, rt + 5 * 192 + 34, true, tab + 5 * 192 + 34, &a) == 0);
	CHECK_STR(a.hit.path, "table[5].hi");                   /* anonymous struct */
	CHECK(types_attribute(db, NULL, 0, rt + 3 * 192 + 64, true, tab + 3 * 192 + 64, &a) == 0);
	CHECK_STR(a.hit.path, "table[3].slots[2]");
	CHECK_EQ_U64(a.object, rt + 3 * 192);
	/* a stack array, through the sampled instruction and the CFA */
	{
		struct insn_decoder *dec;
		int found = 0;
		CHECK(insn_decoder_new(&dec, INSN_X86_64, NULL) == 0);
		for (int k = 0; k < 6; k++) {
			uint64_t pc = types_prog_mem_insn(p, "arr_on_stack", k);
			if (!pc)
				break;
			CHECK(types_attribute(db, dec, pc, 0x7ffd0000, false, 0, &a) == 0);
			if (a.how != TYPES_HOW_STACK) {
				printf("# arr_on_stack insn %d: %s (%s)\n", k, a.why, a.insn);
				continue;
			}
			CHECK_STR(types_name(db, a.type, tn, sizeof(tn)), "struct slot_table");
			CHECK(!strcmp(a.hit.path, "loc[1].counter") || !strcmp(a.hit.path, "loc[0].stats.avg"));
			CHECK_EQ_U64(a.offset, !strcmp(a.hit.path, "loc[1].counter") ? 72 : 8);
			found++;
		}
		CHECK(found >= 2);
		insn_decoder_free(dec);
	}
	types_free(db);
}

struct heap_case {
	const char *fn;
	int nth;
	const char *path;
	int is_store;
};

/* Heap objects: each accessor's real memory instruction, decoded, matched
 * against the DWARF location of the pointer parameter live in its base
 * register. */
static void test_heap_insn(void)
{
	OPEN_OR_SKIP(db, 0);
	const char *p = types_prog_build(0);
	struct insn_decoder *dec;
	static const struct heap_case cases[] = {
		{ "conn_bump", 0, "counter", 1 },
		{ "conn_read_limit", 0, "limit", 0 },
		{ "conn_read_slot", 0, "slots[2]", 0 },
		{ "conn_hits", 0, "st.hits", 0 },
		{ "conn_set_kind", 0, "flags", 0 },   /* movzbl 4(%rdi): the bitfield byte */
	};
	char tbuf[64];

	CHECK(insn_decoder_new(&dec, insn_arch_from_elf(types_machine(db)), NULL) == 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t pc = types_prog_mem_insn(p, cases[i].fn, cases[i].nth);
		struct types_attr a;
		CHECK(pc != 0);
		CHECK(types_attribute(db, dec, pc, 0x5000 + 0x100, false, 0, &a) == 0);
		if (a.how != TYPES_HOW_INSN)
			printf("# %s: %s\n", cases[i].fn, a.why);
		CHECK(a.how == TYPES_HOW_INSN);
		CHECK_STR(a.hit.path, cases[i].path);
		CHECK_STR(types_name(db, a.type, tbuf, sizeof(tbuf)), "struct conn");
		CHECK_STR(a.var, "c");
		CHECK_EQ_U64(a.object, 0x5100 - a.offset);
	}
	insn_decoder_free(dec);
	types_free(db);
}

/* Builds src (printf-escaped C) with cc -g -O2 as test_tmpdir()/name into
 * path and opens its DWARF; NULL (the test skipped or failed) otherwise. */
static struct types_db *build_o2_prog(const char *name, const char *src, char *path, size_t len)
{
	struct types_db *db = NULL;
	struct c2c_error err = { 0 };
	char cmd[2400];

	snprintf(path, len, "%s/%s", test_tmpdir(), name);
	snprintf(cmd, sizeof(cmd), "printf '%s' | cc -x c -g -O2 -o '%s' - 2>/dev/null", src, path);
	if (system(cmd) != 0) {
		test_skip("cannot build a program with cc -g -O2");
		return NULL;
	}
	if (types_open_dwarf(&db, path, NULL, &err) < 0)
		test_failf(__FILE__, __LINE__, "types_open_dwarf(%s): %s", path, err.msg);
	return db;
}

/* A member touched by an inlined helper: the pointer parameter lives in
 * the function the helper was inlined into (dwarf_getscopes alone follows
 * the inlined body to its abstract definition and misses it). The kernel's
 * update_tg_load_avg(tg) around atomic_long_add(&tg->load_avg), reduced. */
static void test_heap_insn_inlined(void)
{
	static const char src[] =
		"struct tg { long a[16]; long load_avg; long rt_se; };\\n"
		"static inline void add(long i, long *v) { __atomic_fetch_add(v, i, __ATOMIC_RELAXED); }\\n"
		"__attribute__((noinline)) void update_tg(struct tg *tg, long d) { add(d, &tg->load_avg); }\\n"
		"int main(void) { static struct tg t; update_tg(&t, 1); return 0; }\\n";
	struct types_db *db;
	struct insn_decoder *dec;
	struct types_attr a;
	char path[512], tbuf[64];
	uint64_t pc;

	if (!(db = build_o2_prog("inlined", src, path, sizeof(path))))
		return;
	pc = types_prog_mem_insn(path, "update_tg", 0);
	CHECK(pc != 0);
	CHECK(insn_decoder_new(&dec, insn_arch_from_elf(types_machine(db)), NULL) == 0);
	CHECK(types_attribute(db, dec, pc, 0x5000, false, 0, &a) == 0);
	if (a.how != TYPES_HOW_INSN)
		printf("# update_tg: %s\n", a.why);
	CHECK(a.how == TYPES_HOW_INSN);
	CHECK_STR(a.hit.path, "load_avg");
	CHECK_STR(types_name(db, a.type, tbuf, sizeof(tbuf)), "struct tg");
	CHECK_STR(a.var, "tg");
	insn_decoder_free(dec);
	types_free(db);
}

/* The kernel's casts (tcp_sk(sk)): an access past the end of the declared
 * pointee is typed as the struct the function's scope declares that embeds
 * the pointee at its start (through nested first members) and covers the
 * offset; with no such struct it stays unresolved, saying so. */
static void test_heap_insn_container(void)
{
	static const char src[] =
		"struct sock { long state; long refcnt; };\n"
		"struct inet_sock { struct sock sk; long port; };\n"
		"struct tcp_sock { struct inet_sock inet; long pad[6]; long snd_una; };\n"
		"struct other { long x; struct sock sk; long y[12]; };\n"
		"__attribute__((noinline)) long ack(struct sock *sk)\n"
		"{ struct tcp_sock *tp = (struct tcp_sock *)sk; struct other *o = 0; (void)o;\n"
		"  return tp->snd_una; }\n"
		"__attribute__((noinline)) long bare(struct sock *sk) { return ((long *)sk)[9]; }\n"
		"int main(void) { static struct tcp_sock t; return (int)(ack(&t.inet.sk) + bare(&t.inet.sk)); }\n";
	struct types_db *db;
	struct insn_decoder *dec;
	struct types_attr a;
	char path[512], tbuf[64];
	uint64_t pc;

	if (!(db = build_o2_prog("container", src, path, sizeof(path))))
		return;
	CHECK(insn_decoder_new(&dec, insn_arch_from_elf(types_machine(db)), NULL) == 0);
	pc = types_prog_mem_insn(path, "ack", 0);
	CHECK(pc != 0);
	CHECK(types_attribute(db, dec, pc, 0x5048, false, 0, &a) == 0);
	if (a.how != TYPES_HOW_INSN)
		printf("# ack: %s\n", a.why);
	CHECK(a.how == TYPES_HOW_INSN);
	CHECK_STR(types_name(db, a.type, tbuf, sizeof(tbuf)), "struct tcp_sock");
	CHECK_STR(a.hit.path, "snd_una");
	CHECK(a.object == 0x5000);
	CHECK_STR(a.var, "sk as struct tcp_sock");
	/* no struct in scope embeds sock at its start and covers +72 */
	pc = types_prog_mem_insn(path, "bare", 0);
	CHECK(types_attribute(db, dec, pc, 0x5048, false, 0, &a) == 0);
	CHECK(a.how == TYPES_HOW_NONE);
	CHECK(strstr(a.why, "outside struct sock") != NULL);
	insn_decoder_free(dec);
	types_free(db);
}

static void test_insn_decode(void)
{
	struct insn_decoder *dec;
	struct insn_mem m;
	/* addq $0x1,0x40(%rdi) */
	static const uint8_t addq[] = { 0x48, 0x83, 0x47, 0x40, 0x01 };
	/* mov 0x10(%rdi),%rax */
	static const uint8_t mov[] = { 0x48, 0x8b, 0x47, 0x10 };
	/* mov 0x8(%rbx,%rcx,4),%eax */
	static const uint8_t sib[] = { 0x8b, 0x44, 0x8b, 0x08 };
	/* addq $1, 0x2f18(%rip) */
	static const uint8_t rip[] = { 0x48, 0x83, 0x05, 0x18, 0x2f, 0x00, 0x00, 0x01 };
	/* lea 0x10(%rdi),%rax */
	static const uint8_t lea[] = { 0x48, 0x8d, 0x47, 0x10 };
	/* arm64: ldr x0, [x1, #16] ; str w2, [sp, #8] */
	static const uint8_t ldr[] = { 0x20, 0x08, 0x40, 0xf9 };
	static const uint8_t str[] = { 0xe2, 0x0b, 0x00, 0xb9 };

	CHECK(insn_decoder_new(&dec, INSN_X86_64, NULL) == 0);
	CHECK(insn_decode_mem(dec, addq, sizeof(addq), 0x1250, &m) == 0);
	CHECK(m.base == 5 && m.index == -1 && m.disp == 0x40 && m.is_store && m.size == 8);
	CHECK_EQ_U64(m.length, 5);
	CHECK_STR(insn_reg_name(dec, m.base), "rdi");
	CHECK(insn_decode_mem(dec, mov, sizeof(mov), 0, &m) == 0);
	CHECK(m.base == 5 && m.disp == 0x10 && !m.is_store);
	CHECK(insn_decode_mem(dec, sib, sizeof(sib), 0, &m) == 0);
	CHECK(m.base == 3 && m.index == 2 && m.scale == 4 && m.disp == 8);
	CHECK(insn_decode_mem(dec, rip, sizeof(rip), 0x12e0, &m) == 0);
	CHECK(m.pc_relative);
	CHECK_EQ_U64(m.target, 0x4200);
	CHECK(insn_decode_mem(dec, lea, sizeof(lea), 0, &m) == -ENOENT);
	CHECK(insn_decode_mem(dec, (const uint8_t *)"\xff", 1, 0, &m) == -EINVAL);
	insn_decoder_free(dec);

	CHECK(insn_decoder_new(&dec, INSN_ARM64, NULL) == 0);
	CHECK(insn_decode_mem(dec, ldr, sizeof(ldr), 0, &m) == 0);
	CHECK(m.base == 1 && m.disp == 16 && !m.is_store);
	CHECK(insn_decode_mem(dec, str, sizeof(str), 0, &m) == 0);
	CHECK(m.base == 31 && m.disp == 8 && m.is_store);
	CHECK_STR(insn_reg_name(dec, m.base), "sp");
	insn_decoder_free(dec);
}

/* Stack objects: the local is addressed off %rsp; its location is
 * DW_OP_fbreg with the CFA as frame base, so the CFI gives rsp's offset. */
static void test_stack_insn(void)
{
	OPEN_OR_SKIP(db, 0);
	const char *p = types_prog_build(0);
	struct insn_decoder *dec;
	int found = 0;

	CHECK(insn_decoder_new(&dec, INSN_X86_64, NULL) == 0);
	for (int k = 0; k < 4; k++) {
		uint64_t pc = types_prog_mem_insn(p, "conn_on_stack", k);
		struct types_attr a;
		if (!pc)
			break;
		CHECK(types_attribute(db, dec, pc, 0x7ffd0000, false, 0, &a) == 0);
		if (a.how != TYPES_HOW_STACK) {
			printf("# conn_on_stack insn %d: %s (%s)\n", k, a.why, a.insn);
			continue;
		}
		CHECK_STR(a.var, "local");
		CHECK(!strcmp(a.hit.path, "counter") || !strcmp(a.hit.path, "limit"));
		found++;
	}
	CHECK(found >= 2);
	insn_decoder_free(dec);
	types_free(db);
}

/* A pointer loaded from memory into a scratch register: tracked from the
 * load `mov (%rdi),%rax` (rdi holds `struct conn **pc`) to the access. */
static void test_tracked_through_load(void)
{
	OPEN_OR_SKIP(db, 0);
	const char *p = types_prog_build(0);
	struct insn_decoder *dec;
	uint64_t pc = types_prog_mem_insn(p, "conn_bump_indirect", 1);
	struct types_attr a;

	CHECK(pc);
	CHECK(insn_decoder_new(&dec, INSN_X86_64, NULL) == 0);
	CHECK(types_attribute(db, dec, pc, 0x5018, false, 0, &a) == 0);
	if (a.how != TYPES_HOW_INSN)
		printf("# %s\n", a.why);
	CHECK(a.how == TYPES_HOW_INSN);
	CHECK_STR(a.hit.path, "counter");
	CHECK_STR(a.var, "(rax, tracked)");
	CHECK_EQ_U64(a.object, 0x5000);
	insn_decoder_free(dec);
	types_free(db);
}

/* An integer used as an address: the register holds a variable, but not a
 * pointer; the answer says so. */
static void test_unresolved_integer(void)
{
	OPEN_OR_SKIP(db, 0);
	const char *p = types_prog_build(0);
	struct insn_decoder *dec;
	uint64_t pc = types_prog_mem_insn(p, "conn_bump_raw", 0);
	struct types_attr a;

	CHECK(pc);
	CHECK(insn_decoder_new(&dec, INSN_X86_64, NULL) == 0);
	CHECK(types_attribute(db, dec, pc, 0x5018, false, 0, &a) == 0);
	CHECK(a.how == TYPES_HOW_NONE);
	CHECK(strstr(a.why, "not a pointer") != NULL);
	CHECK(strstr(a.why, "rdi") != NULL);
	insn_decoder_free(dec);
	types_free(db);
}

/* -O0 code keeps pointers on the stack and reloads them into scratch
 * registers before every access: tracked through the stack variable. */
static void test_O0_tracking(void)
{
	char bin[600], cmd[1500];
	const char *top = getenv("C2C_TOP");
	struct types_db *db = NULL;
	struct insn_decoder *dec;
	int resolved = 0;

	snprintf(bin, sizeof(bin), "%s/conn_O0", test_tmpdir());
	snprintf(cmd, sizeof(cmd), "cc -g -O0 -o '%s' '%s/tests/types/conn.c' 2>/dev/null", bin,
		 top ? top : ".");
	if (system(cmd) != 0) {
		test_skip("cannot build tests/types/conn.c with cc -g -O0");
		return;
	}
	CHECK(types_open_dwarf(&db, bin, NULL, NULL) == 0);
	CHECK(insn_decoder_new(&dec, INSN_X86_64, NULL) == 0);
	for (int k = 0; k < 8; k++) {
		uint64_t pc = types_prog_mem_insn(bin, "conn_bump", k);
		struct types_attr a;
		if (!pc)
			break;
		CHECK(types_attribute(db, dec, pc, 0x7000, false, 0, &a) == 0);
		/* the accesses through the reloaded pointer, not the spill of c */
		if (a.how == TYPES_HOW_INSN) {
			CHECK_STR(a.hit.path, "counter");
			CHECK_STR(types_name(db, a.type, a.insn, sizeof(a.insn)), "struct conn");
			resolved++;
		}
	}
	CHECK(resolved >= 1);
	insn_decoder_free(dec);
	types_free(db);
}

struct count_ctx {
	int n;
	int saw_conn;
};

static int count_struct(void *vctx, const char *name, uint32_t id)
{
	struct count_ctx *c = vctx;
	(void)id;
	c->n++;
	if (!strcmp(name, "conn"))
		c->saw_conn++;
	return 0;
}

static void test_struct_list(void)
{
	OPEN_OR_SKIP(db, 0);
	struct count_ctx c = { 0, 0 };

	CHECK(types_each_struct(db, count_struct, &c) == 0);
	CHECK(c.saw_conn == 1);
	CHECK(c.n >= 2);    /* conn, stats (+ libc's when present) */
	types_free(db);
}

static void test_missing_debug(void)
{
	struct types_db *db = NULL;
	struct c2c_error err = { 0 };
	char path[512], cmd[1200];

	snprintf(path, sizeof(path), "%s/nodebug", test_tmpdir());
	snprintf(cmd, sizeof(cmd), "printf 'int main(void){return 0;}' | cc -x c -O2 -o '%s' - 2>/dev/null"
		 " && strip '%s'", path, path);
	if (system(cmd) != 0) {
		test_skip("cannot build a stripped binary");
		return;
	}
	CHECK(types_open_dwarf(&db, path, test_tmpdir(), &err) == -ENOENT);
	CHECK(db == NULL);
	CHECK(strstr(err.msg, "no debug info") != NULL);
	CHECK(types_open_dwarf(&db, "/nonexistent", NULL, &err) < 0);
}

/* Separate debug file found by build-id under --debuginfo DIR. */
static void test_separate_debug(void)
{
	const char *p = types_prog_build(0);
	char dir[512], cmd[3000], stripped[600];
	struct types_db *db = NULL;
	struct c2c_error err = { 0 };

	if (!p || system("command -v objcopy >/dev/null") != 0) {
		test_skip("needs cc and objcopy");
		return;
	}
	snprintf(dir, sizeof(dir), "%s/dbg", test_tmpdir());
	snprintf(stripped, sizeof(stripped), "%s/conn_stripped", test_tmpdir());
	snprintf(cmd, sizeof(cmd),
		 "set -e; id=$(readelf -n '%s' | sed -n 's/.*Build ID: //p'); "
		 "mkdir -p '%s/.build-id/'${id%%${id#??}}; "
		 "objcopy --only-keep-debug '%s' '%s/.build-id/'${id%%${id#??}}/${id#??}.debug; "
		 "objcopy --strip-debug '%s' '%s'",
		 p, dir, p, dir, p, stripped);
	if (system(cmd) != 0) {
		test_skip("could not split debug info");
		return;
	}
	CHECK(types_open_dwarf(&db, stripped, dir, &err) == 0);
	CHECK(strstr(types_path(db), "/.build-id/") != NULL);
	CHECK(types_get(db, types_find(db, "conn"))->size == 88);
	{
		/* Code bytes still come from the stripped binary itself. */
		uint64_t pc = types_prog_mem_insn(stripped, "conn_bump", 0);
		uint8_t b[4];
		CHECK(pc);
		CHECK(types_read_code(db, pc, b, sizeof(b)) == 4);
		CHECK(b[0] == 0x48 && b[1] == 0x83);
	}
	types_free(db);
}

/* BTF: the kernel's arrays of structs split into elements the same way
 * (pglist_data.node_zones is an array of struct zone on every kernel). */
static void test_btf_array_elements(void)
{
	struct types_db *db = NULL;
	uint32_t pg, zones = 0, zone;
	const struct types_member *m;
	size_t n;
	uint64_t zs, moff = 0;
	const char *mname = NULL;
	struct types_attr a;
	char want[160], tn[64];

	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		test_skip("no /sys/kernel/btf/vmlinux");
		return;
	}
	CHECK(types_open_btf(&db, NULL, NULL) == 0);
	pg = types_find(db, "pglist_data");
	n = types_members(db, pg, &m);
	for (size_t i = 0; i < n; i++)
		if (m[i].name && !strcmp(m[i].name, "node_zones"))
			zones = m[i].type;
	CHECK(zones != 0);
	zone = types_get(db, types_strip(db, zones))->ref;
	zs = types_get(db, zone)->size;
	CHECK(zs > 64);
	n = types_members(db, types_strip(db, zone), &m);
	for (size_t i = 1; i < n && !mname; i++)
		if (m[i].name && !m[i].bit_size && types_get(db, types_strip(db, m[i].type))->kind == TYPES_BASE) {
			mname = m[i].name;
			moff = m[i].bit_offset / 8;
		}
	CHECK(mname != NULL);
	memset(&a, 0, sizeof(a));
	a.how = TYPES_HOW_GLOBAL;
	a.type = zones;
	a.offset = 2 * zs + moff;
	a.object = 0xffff888000000000ULL;
	snprintf(a.var, sizeof(a.var), "node_zones");
	CHECK(types_attr_element(db, &a));
	snprintf(want, sizeof(want), "node_zones[2].%s", mname ? mname : "?");
	CHECK_STR(a.hit.path, want);
	CHECK_STR(types_name(db, a.type, tn, sizeof(tn)), "struct zone");
	CHECK_EQ_U64(a.offset, moff);
	CHECK_EQ_U64(a.object, 0xffff888000000000ULL + 2 * zs);
	types_free(db);
}

/* The kernel's BTF: lay out struct task_group by name. */
static void test_kernel_btf(void)
{
	struct types_db *db = NULL;
	struct c2c_error err = { 0 };
	uint32_t id;
	const struct types_type *t;
	const struct types_member *m;
	size_t n;
	int named = 0;

	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		test_skip("no /sys/kernel/btf/vmlinux");
		return;
	}
	CHECK(types_open_btf(&db, NULL, &err) == 0);
	CHECK(types_source(db) == TYPES_SRC_BTF);
	id = types_find(db, "task_group");
	t = types_get(db, id);
	CHECK(id && t && t->kind == TYPES_STRUCT && t->size > 64);
	n = types_members(db, id, &m);
	CHECK(n > 3);
	CHECK_STR(m[0].name, "css");
	for (size_t i = 0; i < n; i++) {
		struct types_hit hit;
		const struct types_type *mt = types_get(db, m[i].type);
		if (!m[i].name || m[i].bit_size || !mt || !mt->size)
			continue;
		CHECK(types_resolve(db, id, m[i].bit_offset / 8, &hit) == 0);
		if (strncmp(hit.path, m[i].name, strlen(m[i].name)))
			printf("# member %s resolved as %s\n", m[i].name, hit.path);
		/* the path starts with the member's own name */
		CHECK(!strncmp(hit.path, m[i].name, strlen(m[i].name)));
		CHECK_EQ_U64(hit.top_index, i);
		named++;
	}
	CHECK(named > 3);
	/* nested: task_struct.se.avg.load_avg exists on every CFS kernel */
	{
		uint32_t ts = types_find(db, "task_struct");
		const struct types_member *tm;
		size_t tn = types_members(db, ts, &tm);
		uint64_t se_off = 0, avg_off = 0, la_off = 0;
		int ok = 0;
		for (size_t i = 0; i < tn; i++)
			if (tm[i].name && !strcmp(tm[i].name, "se")) {
				const struct types_member *sm;
				size_t sn = types_members(db, types_strip(db, tm[i].type), &sm);
				se_off = tm[i].bit_offset / 8;
				for (size_t k = 0; k < sn; k++)
					if (sm[k].name && !strcmp(sm[k].name, "avg")) {
						const struct types_member *am;
						size_t an = types_members(db, types_strip(db, sm[k].type), &am);
						avg_off = sm[k].bit_offset / 8;
						for (size_t j = 0; j < an; j++)
							if (am[j].name && !strcmp(am[j].name, "load_avg")) {
								la_off = am[j].bit_offset / 8;
								ok = 1;
							}
					}
			}
		CHECK(ok);
		CHECK_STR(path_at(db, ts, se_off + avg_off + la_off), "se.avg.load_avg");
	}
	types_free(db);
	CHECK(types_open_btf(&db, "/nonexistent/btf", &err) < 0);
}

/* Every VAR of the kernel's BTF is found by name (sorted lookup) with the
 * type libbpf's own linear search gives; absent names are -ENOENT. */
static void test_btf_vars_by_name(void)
{
	struct types_db *db = NULL;
	struct btf *btf;
	uint32_t n, vars = 0, type;
	uint64_t start;

	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		test_skip("no /sys/kernel/btf/vmlinux");
		return;
	}
	btf = btf__parse("/sys/kernel/btf/vmlinux", NULL);
	CHECK(btf != NULL);
	CHECK(types_open_btf(&db, NULL, NULL) == 0);
	if (!btf || !db)
		return;
	n = btf__type_cnt(btf);
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *v = btf__type_by_id(btf, id), *vt;
		const char *name;
		const struct types_type *got;
		int first;

		if (!btf_is_var(v))
			continue;
		name = btf__name_by_offset(btf, v->name_off);
		first = btf__find_by_name_kind(btf, name, BTF_KIND_VAR);
		vt = btf__type_by_id(btf, btf__type_by_id(btf, (uint32_t)first)->type);
		vars++;
		if (types_var_by_name(db, name, &type, &start) != 0) {
			printf("# var %s not found\n", name);
			CHECK(0);
			continue;
		}
		got = types_get(db, type);
		CHECK(got != NULL);
		if (got && vt->name_off)
			CHECK_STR(got->name, btf__name_by_offset(btf, vt->name_off));
		if (got && (btf_is_struct(vt) || btf_is_int(vt)))
			CHECK_EQ_U64(got->size, vt->size);
	}
	CHECK(vars > 10);
	CHECK(types_var_by_name(db, "runqueues", &type, &start) == 0 &&
	      types_get(db, type) && !strcmp(types_get(db, type)->name, "rq"));
	CHECK(types_var_by_name(db, "no_such_variable_c2ctui", &type, &start) == -ENOENT);
	CHECK(types_var_by_name(db, "", &type, &start) == -ENOENT);
	CHECK(types_var_by_name(db, "zzzzzzzz", &type, &start) == -ENOENT);
	types_free(db);
	btf__free(btf);
}

TEST_MAIN(
	TEST_CASE(test_struct_layout_before),
	TEST_CASE(test_struct_layout_after),
	TEST_CASE(test_member_paths),
	TEST_CASE(test_globals),
	TEST_CASE(test_array_elements),
	TEST_CASE(test_insn_decode),
	TEST_CASE(test_heap_insn),
	TEST_CASE(test_heap_insn_inlined),
	TEST_CASE(test_heap_insn_container),
	TEST_CASE(test_stack_insn),
	TEST_CASE(test_tracked_through_load),
	TEST_CASE(test_unresolved_integer),
	TEST_CASE(test_O0_tracking),
	TEST_CASE(test_struct_list),
	TEST_CASE(test_missing_debug),
	TEST_CASE(test_separate_debug),
	TEST_CASE(test_kernel_btf),
	TEST_CASE(test_btf_array_elements),
	TEST_CASE(test_btf_vars_by_name),
)
