/* Unit tests of the symbols module: side-band semantics (FORK/EXIT/COMM,
 * overlapping maps, kernel maps), kallsyms, and real symbolization of a
 * program compiled at test time (PIE and non-PIE), checked against nm and
 * addr2line; build-id mismatch, --symfs and separate debug info. */
#include <errno.h>
#include <gelf.h>
#include <fcntl.h>
#include <sys/utsname.h>
#include <time.h>

#include "collector/symbols/symbols.h"
#include "tests/unit/test.h"

#define MISC_FORK_EXEC (1u << 13)

/* ---- helpers ------------------------------------------------------------ */

static int mmap_user(struct symtab *st, int32_t pid, int32_t tid, uint64_t start, uint64_t len,
		     uint64_t pgoff, const char *name)
{
	struct c2c_mmap m = {
		.pid = pid, .tid = tid, .start = start, .len = len, .pgoff = pgoff,
		.cpumode = C2C_MODE_USER, .filename = name,
	};
	return symtab_mmap(st, &m);
}

static int fork_task(struct symtab *st, int32_t pid, int32_t ppid, int32_t tid, int32_t ptid,
		     uint16_t misc)
{
	struct c2c_task t = { .pid = pid, .ppid = ppid, .tid = tid, .ptid = ptid };
	return symtab_fork_misc(st, &t, misc);
}

static bool umapped(struct symtab *st, int32_t pid, int32_t tid, uint64_t addr)
{
	return symtab_addr_mapped(st, pid, tid, C2C_MODE_USER, addr);
}

static const char *data_path(const char *rel)
{
	static char p[4096];
	const char *top = getenv("C2C_TOP");
	snprintf(p, sizeof(p), "%s%s%s", top ? top : "", top ? "/" : "", rel);
	return p;
}

static int run(const char *cmd)
{
	int rc = system(cmd);
	return rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* First line of a command's output, or "" */
static const char *run_line(const char *cmd)
{
	static char line[4096];
	line[0] = '\0';
	FILE *p = popen(cmd, "r");
	if (!p)
		return line;
	if (!fgets(line, sizeof(line), p))
		line[0] = '\0';
	pclose(p);
	line[strcspn(line, "\n")] = '\0';
	return line;
}

/* ---- side-band semantics ------------------------------------------------ */

static void fork_copies_process_maps(void)
{
	struct symtab *st = symtab_new(NULL, NULL);
	CHECK(st);
	CHECK(mmap_user(st, 100, 100, 0x10000, 0x1000, 0, "/nonexistent/a.so") == 0);
	struct c2c_comm c = { .pid = 100, .tid = 100, .comm = "parent" };
	CHECK(symtab_comm(st, &c) == 0);
	CHECK(fork_task(st, 200, 100, 200, 100, 0) == 0);
	CHECK(umapped(st, 200, 200, 0x10800));
	CHECK_STR(symtab_thread_comm(st, 200, 200), "parent");
	/* After the fork the two address spaces are independent. */
	CHECK(mmap_user(st, 100, 100, 0x30000, 0x1000, 0, "/nonexistent/b.so") == 0);
	CHECK(mmap_user(st, 200, 200, 0x50000, 0x1000, 0, "/nonexistent/c.so") == 0);
	CHECK(umapped(st, 100, 100, 0x30000));
	CHECK(!umapped(st, 200, 200, 0x30000));
	CHECK(umapped(st, 200, 200, 0x50fff));
	CHECK(!umapped(st, 100, 100, 0x50000));
	symtab_free(st);
}

static void threads_share_maps(void)
{
	struct symtab *st = symtab_new(NULL, NULL);
	CHECK(st);
	CHECK(mmap_user(st, 100, 100, 0x10000, 0x1000, 0, "//anon") == 0);
	CHECK(fork_task(st, 100, 100, 101, 100, 0) == 0);
	CHECK(umapped(st, 100, 101, 0x10000));
	/* A map made by any thread is seen by all of the process. */
	CHECK(mmap_user(st, 100, 101, 0x20000, 0x1000, 0, "//anon") == 0);
	CHECK(umapped(st, 100, 100, 0x20000));
	CHECK(mmap_user(st, 100, 100, 0x30000, 0x1000, 0, "//anon") == 0);
	CHECK(umapped(st, 100, 101, 0x30000));
	/* A thread seen only in a sample joins its process. */
	CHECK(umapped(st, 100, 105, 0x30000));
	/* ... even when the leader appears only later. */
	CHECK(!umapped(st, 300, 301, 0x40000));
	CHECK(mmap_user(st, 300, 300, 0x40000, 0x1000, 0, "//anon") == 0);
	CHECK(umapped(st, 300, 301, 0x40000));
	/* Unmapped stays unmapped. */
	CHECK(!umapped(st, 100, 101, 0x40000));
	symtab_free(st);
}

static void synthesized_fork_does_not_copy(void)
{
	struct symtab *st = symtab_new(NULL, NULL);
	CHECK(st);
	CHECK(mmap_user(st, 1, 1, 0x10000, 0x1000, 0, "//anon") == 0);
	CHECK(fork_task(st, 50, 1, 50, 1, MISC_FORK_EXEC) == 0);
	CHECK(!umapped(st, 50, 50, 0x10000));
	CHECK(fork_task(st, 60, 1, 60, 1, 0) == 0);
	CHECK(umapped(st, 60, 60, 0x10000));
	symtab_free(st);
}

static void exit_keeps_thread(void)
{
	struct symtab *st = symtab_new(NULL, NULL);
	CHECK(st);
	CHECK(mmap_user(st, 7, 7, 0x10000, 0x1000, 0, "//anon") == 0);
	struct c2c_task t = { .pid = 7, .ppid = 1, .tid = 7, .ptid = 1 };
	CHECK(symtab_exit(st, &t) == 0);
	CHECK(umapped(st, 7, 7, 0x10000));
	/* A new process reusing the tid replaces the old one. */
	CHECK(fork_task(st, 7, 1, 7, 1, 0) == 0);
	CHECK(!umapped(st, 7, 7, 0x10000));
	symtab_free(st);
}

static void overlapping_maps_replaced(void)
{
	struct symtab *st = symtab_new(NULL, NULL);
	struct sym_code c;
	CHECK(st);
	CHECK(mmap_user(st, 9, 9, 0x10000, 0x10000, 0x5000, "/nonexistent/big.so") == 0);
	CHECK(mmap_user(st, 9, 9, 0x14000, 0x1000, 0, "/nonexistent/mid.so") == 0);
	CHECK(symtab_resolve_ip(st, 9, 9, C2C_MODE_USER, 0x12000, &c) == 0);
	CHECK_STR(c.dso, "/nonexistent/big.so");
	CHECK_EQ_U64(c.rel_addr, 0x7000);
	CHECK_EQ_U64(c.map_start, 0x10000);
	CHECK(c.status == SYM_NO_FILE);
	CHECK(c.function == NULL);
	CHECK(symtab_resolve_ip(st, 9, 9, C2C_MODE_USER, 0x14800, &c) == 0);
	CHECK_STR(c.dso, "/nonexistent/mid.so");
	CHECK_EQ_U64(c.rel_addr, 0x800);
	/* The right remnant keeps file offsets continuous. */
	CHECK(symtab_resolve_ip(st, 9, 9, C2C_MODE_USER, 0x16000, &c) == 0);
	CHECK_STR(c.dso, "/nonexistent/big.so");
	CHECK_EQ_U64(c.map_start, 0x15000);
	CHECK_EQ_U64(c.rel_addr, 0xb000);
	/* A map over the start trims the left side; one over all removes it. */
	CHECK(mmap_user(st, 9, 9, 0xf000, 0x2000, 0, "//anon") == 0);
	CHECK(symtab_resolve_ip(st, 9, 9, C2C_MODE_USER, 0x10800, &c) == 0);
	CHECK_STR(c.dso, "//anon");
	CHECK(c.status == SYM_ANON);
	CHECK(mmap_user(st, 9, 9, 0x8000, 0x30000, 0, "[heap]") == 0);
	CHECK(symtab_resolve_ip(st, 9, 9, C2C_MODE_USER, 0x14800, &c) == 0);
	CHECK_STR(c.dso, "[heap]");
	CHECK(!umapped(st, 9, 9, 0x38000));
	CHECK(umapped(st, 9, 9, 0x37fff));
	CHECK(symtab_resolve_ip(st, 9, 9, C2C_MODE_USER, 0x38000, &c) == 0);
	CHECK(c.status == SYM_UNMAPPED && c.dso == NULL);
	symtab_free(st);
}

/* ---- kernel ------------------------------------------------------------- */

static int mmap_kernel(struct symtab *st, uint64_t start, uint64_t len, const char *name)
{
	struct c2c_mmap m = {
		.pid = -1, .tid = 0, .start = start, .len = len, .pgoff = start,
		.cpumode = C2C_MODE_KERNEL, .filename = name,
	};
	return symtab_mmap(st, &m);
}

static void kernel_maps_like_perf(void)
{
	struct symtab *st = symtab_new(NULL, NULL);
	CHECK(st);
	CHECK(mmap_kernel(st, 0xffffffff81000000ull, 0x1000000, "[kernel.kallsyms]_text") == 0);
	CHECK(mmap_kernel(st, 0xffffffffc0000000ull, 0x10000, "/lib/modules/x/fakemod.ko") == 0);
	CHECK(mmap_user(st, 5, 5, 0x400000, 0x1000, 0, "//anon") == 0);
	uint64_t ktext = 0xffffffff81000180ull;
	CHECK(symtab_addr_mapped(st, 5, 5, C2C_MODE_KERNEL, ktext));
	CHECK(symtab_addr_mapped(st, 0, 0, C2C_MODE_KERNEL, 0xffffffffc0000010ull));
	/* No fallback for data: a user-mode lookup sees only user maps. */
	CHECK(!symtab_addr_mapped(st, 5, 5, C2C_MODE_USER, ktext));
	CHECK(!symtab_addr_mapped(st, 5, 5, C2C_MODE_KERNEL, 0x400000));
	/* Code addresses try user then kernel maps, whatever the mode. */
	CHECK(symtab_ip_mapped(st, 5, 5, ktext));
	CHECK(symtab_ip_mapped(st, 5, 5, 0x400000));
	/* Slab/direct-map addresses are outside every kernel map. */
	CHECK(!symtab_addr_mapped(st, 5, 5, C2C_MODE_KERNEL, 0xffff888000001000ull));
	/* Guest and hypervisor modes have no maps on the host. */
	CHECK(!symtab_addr_mapped(st, 5, 5, C2C_MODE_GUEST_KERNEL, ktext));
	CHECK(!symtab_addr_mapped(st, 5, 5, C2C_MODE_HYPERVISOR, 0x400000));

	struct c2c_sample s = {
		.pid = 5, .tid = 5, .cpumode = C2C_MODE_KERNEL, .ip = ktext,
		.addr = 0xffffffff81300000ull,
	};
	CHECK(!symtab_sample_nomap(st, &s));
	s.addr = 0xffff888000001000ull;
	CHECK(symtab_sample_nomap(st, &s));
	s.cpumode = C2C_MODE_USER;
	s.addr = 0x400010;
	CHECK(!symtab_sample_nomap(st, &s));
	s.ip = 0x500000;
	CHECK(symtab_sample_nomap(st, &s));

	/* A second kernel MMAP moves the kernel map. */
	CHECK(mmap_kernel(st, 0xffffffff91000000ull, 0x1000000, "[kernel.kallsyms]_text") == 0);
	CHECK(!symtab_addr_mapped(st, 5, 5, C2C_MODE_KERNEL, ktext));
	CHECK(symtab_addr_mapped(st, 5, 5, C2C_MODE_KERNEL, 0xffffffff91000000ull));
	CHECK(symtab_addr_mapped(st, 0, 0, C2C_MODE_KERNEL, 0xffffffffc0000010ull));

	/* A length past the top of the address space means "to the top". */
	CHECK(mmap_kernel(st, 0xffffffff91000000ull, UINT64_MAX, "[kernel.kallsyms]_text") == 0);
	CHECK(symtab_addr_mapped(st, 5, 5, C2C_MODE_KERNEL, UINT64_MAX - 1));

	/* Without kernel symbols a kernel ip is "no kallsyms", not an error. */
	struct sym_code c;
	CHECK(symtab_resolve_ip(st, 5, 5, C2C_MODE_KERNEL, 0xffffffff91000010ull, &c) == 0);
	CHECK(c.status == SYM_NO_KALLSYMS);
	CHECK_STR(c.dso, "[kernel.kallsyms]");
	CHECK(c.function == NULL);
	symtab_free(st);
}

static void fake_kallsyms(void)
{
	const char *path = data_path("tests/data/symbols/kallsyms");
	struct symtab_options o = { .kallsyms = path };
	struct symtab *st = symtab_new(&o, NULL);
	struct sym_code c;
	struct sym_data d;
	CHECK(st);
	/* Absolute, undefined and malformed lines are not symbols. */
	CHECK_EQ_U64(symtab_kernel_symbols(st), 22);
	/* The BUILD_ID feature names the kernel "[kernel.kallsyms]". */
	CHECK(symtab_set_build_id(st, "[kernel.kallsyms]", (const uint8_t *)"\x01\x02\x03", 3) == 0);
	CHECK(mmap_kernel(st, 0xffffffff81000000ull, 0x400000, "[kernel.kallsyms]_text") == 0);
	CHECK(mmap_kernel(st, 0xffffffffc0001000ull, 0x4000, "/lib/modules/x/fakemod.ko") == 0);

	CHECK(symtab_resolve_ip(st, 0, 0, C2C_MODE_KERNEL, 0xffffffff81000184ull, &c) == 0);
	CHECK(c.status == SYM_OK);
	CHECK_STR(c.function, "do_work");      /* listed after its __pfx_ alias */
	CHECK(c.build_id_size == 3 && memcmp(c.build_id, "\x01\x02\x03", 3) == 0);
	CHECK_EQ_U64(c.offset, 4);
	CHECK_STR(c.dso, "[kernel.kallsyms]");
	CHECK(symtab_resolve_ip(st, 0, 0, C2C_MODE_KERNEL, 0xffffffff81000110ull, &c) == 0);
	CHECK_STR(c.function, "helper_local");
	CHECK_EQ_U64(c.offset, 0x10);
	CHECK(symtab_resolve_ip(st, 0, 0, C2C_MODE_KERNEL, 0xffffffff81000250ull, &c) == 0);
	CHECK_STR(c.function, "weak_thing");
	CHECK(symtab_resolve_ip(st, 0, 0, C2C_MODE_KERNEL, 0xffffffffc0001084ull, &c) == 0);
	CHECK_STR(c.function, "mod_poll");
	CHECK_EQ_U64(c.offset, 4);
	CHECK_STR(c.dso, "/lib/modules/x/fakemod.ko");
	/* A user-mode sample's ip in the kernel resolves too (perf's fallback). */
	CHECK(symtab_resolve_ip(st, 3, 3, C2C_MODE_USER, 0xffffffff81000300ull, &c) == 0);
	CHECK_STR(c.function, "schedule");
	CHECK_EQ_U64(c.offset, 0);
	/* An ip inside data is not a function. */
	CHECK(symtab_resolve_ip(st, 0, 0, C2C_MODE_KERNEL, 0xffffffff81300010ull, &c) == 0);
	CHECK(c.status == SYM_NO_SYMBOL && c.function == NULL);

	CHECK(symtab_resolve_data(st, 0, 0, C2C_MODE_KERNEL, 0xffffffff81300808ull, &d) == 0);
	CHECK(d.status == SYM_OK);
	CHECK_STR(d.symbol, "local_counter");
	CHECK_EQ_U64(d.offset, 8);
	CHECK_EQ_U64(d.sym_start, 0xffffffff81300800ull);
	CHECK(symtab_resolve_data(st, 0, 0, C2C_MODE_KERNEL, 0xffffffff81400104ull, &d) == 0);
	CHECK_STR(d.symbol, "jiffies_64");
	CHECK_EQ_U64(d.offset, 4);
	CHECK(symtab_resolve_data(st, 0, 0, C2C_MODE_KERNEL, 0xffffffff81200044ull, &d) == 0);
	CHECK_STR(d.symbol, "banner_text");
	/* Aliases: perf shows the last one listed at an address. */
	CHECK(symtab_resolve_data(st, 0, 0, C2C_MODE_KERNEL, 0xffffffff81200010ull, &d) == 0);
	CHECK_STR(d.symbol, "const_table");
	CHECK(symtab_resolve_data(st, 0, 0, C2C_MODE_KERNEL, 0xffffffff81300010ull, &d) == 0);
	CHECK_STR(d.symbol, "init_task");
	CHECK(symtab_resolve_ip(st, 0, 0, C2C_MODE_KERNEL, 0xffffffff81000000ull, &c) == 0);
	CHECK_STR(c.function, "_text");
	CHECK(symtab_resolve_data(st, 0, 0, C2C_MODE_KERNEL, 0xffffffffc0003050ull, &d) == 0);
	CHECK_STR(d.symbol, "mod_stats");
	CHECK_EQ_U64(d.offset, 0x10);
	/* A data address is named by data symbols only, never by a function;
	 * nothing past the last symbol; absolute (percpu) entries are not
	 * addresses. */
	CHECK(symtab_resolve_data(st, 0, 0, C2C_MODE_KERNEL, 0xffffffff81000184ull, &d) == 0);
	CHECK(d.status == SYM_NO_SYMBOL && d.symbol == NULL);
	CHECK(symtab_resolve_data(st, 0, 0, C2C_MODE_KERNEL, 0xffffffffc0001090ull, &d) == 0);
	CHECK(d.status == SYM_NO_SYMBOL && d.symbol == NULL);
	CHECK(symtab_resolve_data(st, 0, 0, C2C_MODE_KERNEL, 0xffffffffc0009000ull, &d) == 0);
	CHECK(d.status == SYM_NO_SYMBOL);
	/* The last vmlinux symbol does not stretch to the first module's. */
	CHECK(symtab_resolve_data(st, 0, 0, C2C_MODE_KERNEL, 0xffffffff81400f00ull, &d) == 0);
	CHECK_STR(d.symbol, "_end");
	CHECK(symtab_resolve_data(st, 0, 0, C2C_MODE_KERNEL, 0xffffffff81500000ull, &d) == 0);
	CHECK(d.status == SYM_NO_SYMBOL && d.symbol == NULL);
	CHECK(symtab_resolve_data(st, 0, 0, C2C_MODE_KERNEL, 0x1000, &d) == 0);
	CHECK(d.status == SYM_UNMAPPED && d.symbol == NULL);
	/* Kernel data outside the kernel maps (slab) is unmapped for perf
	 * but still named "[kernel.kallsyms]" with no symbol. */
	CHECK(symtab_resolve_data(st, 0, 0, C2C_MODE_KERNEL, 0xffff888000001000ull, &d) == 0);
	CHECK(d.status == SYM_NO_SYMBOL);
	CHECK_STR(d.dso, "[kernel.kallsyms]");
	symtab_free(st);
}

/* A kallsyms without CONFIG_KALLSYMS_ALL (as most distributions ship):
 * functions and section markers only. A lock address must not be named
 * by the nearest function nor by a marker a megabyte before it. */
static void kallsyms_no_data_symbols(void)
{
	const char *path = data_path("tests/data/symbols/kallsyms_nodata");
	struct symtab_options o = { .kallsyms = path };
	struct symtab *st = symtab_new(&o, NULL);
	struct sym_data d;
	struct sym_code c;
	CHECK(st);
	CHECK_EQ_U64(symtab_kernel_symbols(st), 9);
	CHECK(mmap_kernel(st, 0xffffffff81000000ull, 0x3000000, "[kernel.kallsyms]_text") == 0);

	/* in text: a function for an ip, nothing for data */
	CHECK(symtab_resolve_ip(st, 0, 0, C2C_MODE_KERNEL, 0xffffffff81200010ull, &c) == 0);
	CHECK_STR(c.function, "do_anonymous_page");
	CHECK(symtab_resolve_data(st, 0, 0, C2C_MODE_KERNEL, 0xffffffff81200010ull, &d) == 0);
	CHECK(d.status == SYM_NO_SYMBOL && d.symbol == NULL && d.offset == 0);
	/* the last function does not reach into the data after it */
	CHECK(symtab_resolve_data(st, 0, 0, C2C_MODE_KERNEL, 0xffffffff82000000ull, &d) == 0);
	CHECK(d.status == SYM_NO_SYMBOL && d.symbol == NULL);
	/* near a data marker: named by it */
	CHECK(symtab_resolve_data(st, 0, 0, C2C_MODE_KERNEL, 0xffffffff83000100ull, &d) == 0);
	CHECK(d.status == SYM_OK);
	CHECK_STR(d.symbol, "__start_init_stack");
	CHECK_EQ_U64(d.offset, 0x100);
	CHECK(symtab_resolve_data(st, 0, 0, C2C_MODE_KERNEL, 0xffffffff82400040ull, &d) == 0);
	CHECK_STR(d.symbol, "__start_rodata");
	CHECK(symtab_resolve_data(st, 0, 0, C2C_MODE_KERNEL, 0xffffffff8377c010ull, &d) == 0);
	CHECK_STR(d.symbol, "__init_begin");
	/* 1 MiB past the marker, before the next symbol: too far to be its */
	CHECK(symtab_resolve_data(st, 0, 0, C2C_MODE_KERNEL, 0xffffffff831113e0ull, &d) == 0);
	CHECK(d.status == SYM_NO_SYMBOL && d.symbol == NULL);
	CHECK_STR(d.dso, "[kernel.kallsyms]");
	CHECK(symtab_resolve_data(st, 0, 0, C2C_MODE_KERNEL, 0xffffffff8307ffffull, &d) == 0);
	CHECK_STR(d.symbol, "__start_init_stack");
	CHECK(symtab_resolve_data(st, 0, 0, C2C_MODE_KERNEL, 0xffffffff83080000ull, &d) == 0);
	CHECK(d.status == SYM_NO_SYMBOL);
	/* slab and struct page addresses (below the kernel image) */
	CHECK(symtab_resolve_data(st, 0, 0, C2C_MODE_KERNEL, 0xffff8881052b80b8ull, &d) == 0);
	CHECK(d.status == SYM_NO_SYMBOL && d.symbol == NULL);
	CHECK(symtab_resolve_data(st, 0, 0, C2C_MODE_KERNEL, 0xffffea0004999da8ull, &d) == 0);
	CHECK(d.status == SYM_NO_SYMBOL && d.symbol == NULL);
	symtab_free(st);
}

static void host_kallsyms(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	if (!f) {
		test_skip("/proc/kallsyms not readable");
		return;
	}
	char line[512];
	uint64_t addr = 0;
	while (fgets(line, sizeof(line), f)) {
		char type, name[256];
		unsigned long long a;
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 &&
		    strcmp(name, "schedule") == 0 && (type == 'T' || type == 't')) {
			addr = a;
			break;
		}
	}
	fclose(f);
	if (addr == 0) {
		test_skip("kptr_restrict hides kernel addresses (or no schedule symbol)");
		return;
	}
	struct symtab_options o = { .use_host_kallsyms = true };
	struct symtab *st = symtab_new(&o, NULL);
	struct sym_code c;
	CHECK(st);
	CHECK(symtab_resolve_ip(st, 0, 0, C2C_MODE_KERNEL, addr + 4, &c) == 0);
	CHECK(c.status == SYM_OK);
	CHECK_STR(c.function, "schedule");
	CHECK_EQ_U64(c.offset, 4);
	symtab_free(st);
}

static void same_host(void)
{
	struct utsname u;
	CHECK(uname(&u) == 0);
	CHECK(symtab_same_host(u.nodename, u.release));
	CHECK(!symtab_same_host(u.nodename, "0.0.0-not-this"));
	CHECK(!symtab_same_host("not-this-host.example", u.release));
	CHECK(!symtab_same_host(NULL, u.release));
}

/* ---- a real program ------------------------------------------------------ */

static const char prog_src[] =
	"int counter_a = 1;\n"                                   /* 1 */
	"long table_b[16] = { 1, 2, 3 };\n"                      /* 2 */
	"static char big_bss[1 << 17];\n"                        /* 3 */
	"const char ro_msg[32] = \"hello\";\n"                   /* 4 */
	"__attribute__((noinline)) int add_one(int x)\n"         /* 5 */
	"{\n"                                                    /* 6 */
	"\treturn x + 1;\n"                                      /* 7 */
	"}\n"                                                    /* 8 */
	"__attribute__((noinline)) long sum_table(void)\n"       /* 9 */
	"{\n"                                                    /* 10 */
	"\tlong s = 0;\n"                                        /* 11 */
	"\tfor (int i = 0; i < 16; i++)\n"                       /* 12 */
	"\t\ts += table_b[i];\n"                                 /* 13 */
	"\treturn s + big_bss[100000] + ro_msg[0];\n"            /* 14 */
	"}\n"                                                    /* 15 */
	"int main(void)\n"                                       /* 16 */
	"{\n"                                                    /* 17 */
	"\treturn add_one(counter_a) + (int)sum_table();\n"      /* 18 */
	"}\n"                                                    /* 19 */
	"int puts(const char *s);\n"                             /* 20 */
	"__attribute__((noinline)) void say(void) { puts(ro_msg); }\n";

/* Builds prog_src into the test tmpdir, once per set of flags (tests only
 * read the binary, or copy it). NULL: no cc. */
static const char *build_prog(const char *flavour, const char *cflags)
{
	static struct { char flags[64], path[512]; bool ok; } built[4];
	static size_t nbuilt;
	for (size_t i = 0; i < nbuilt; i++)
		if (strcmp(built[i].flags, cflags) == 0)
			return built[i].ok ? built[i].path : NULL;
	if (nbuilt == 4)
		return NULL;
	const char *dir = test_tmpdir();
	char src[512], cmd[2048];
	snprintf(src, sizeof(src), "%s/prog.c", dir);
	FILE *f = fopen(src, "w");
	if (!f)
		return NULL;
	fputs(prog_src, f);
	fclose(f);
	size_t i = nbuilt++;
	snprintf(built[i].flags, sizeof(built[i].flags), "%s", cflags);
	snprintf(built[i].path, sizeof(built[i].path), "%s/prog_%s", dir, flavour);
	snprintf(cmd, sizeof(cmd), "cc -g -O0 %s -Wl,--build-id -o '%s' '%s' 2>/dev/null",
		 cflags, built[i].path, src);
	built[i].ok = run(cmd) == 0;
	return built[i].ok ? built[i].path : NULL;
}

/* nm's view of a binary, read once per binary (each popen costs). */
struct nm_sym {
	uint64_t addr, size;
	char name[64];
};
static struct {
	char bin[512];
	struct nm_sym v[256];
	size_t n;
} nm_cache;

static uint64_t nm_addr_size(const char *bin, const char *sym, uint64_t *size)
{
	if (strcmp(nm_cache.bin, bin) != 0) {
		char cmd[1024];
		snprintf(nm_cache.bin, sizeof(nm_cache.bin), "%s", bin);
		nm_cache.n = 0;
		snprintf(cmd, sizeof(cmd), "nm -S '%s' 2>/dev/null", bin);
		FILE *p = popen(cmd, "r");
		char line[512];
		while (p && nm_cache.n < 256 && fgets(line, sizeof(line), p)) {
			struct nm_sym *e = &nm_cache.v[nm_cache.n];
			char t;
			unsigned long long a, sz;
			if (sscanf(line, "%llx %llx %c %63s", &a, &sz, &t, e->name) == 4) {
				e->addr = a;
				e->size = sz;
				nm_cache.n++;
			}
		}
		if (p)
			pclose(p);
	}
	for (size_t i = 0; i < nm_cache.n; i++) {
		if (strcmp(nm_cache.v[i].name, sym) == 0) {
			if (size)
				*size = nm_cache.v[i].size;
			return nm_cache.v[i].addr;
		}
	}
	if (size)
		*size = 0;
	return 0;
}

static uint64_t nm_addr(const char *bin, const char *sym)
{
	return nm_addr_size(bin, sym, NULL);
}

/* addr2line's answers for n addresses in one run: function, file
 * basename, line. Returns false when addr2line is unusable. */
struct a2l_ans {
	char func[128], file[128];
	unsigned line;
};

static bool a2l_batch(const char *bin, const uint64_t *vaddrs, size_t n, struct a2l_ans *out)
{
	char cmd[8192];
	int len = snprintf(cmd, sizeof(cmd), "addr2line -f -e '%s'", bin);
	for (size_t i = 0; i < n && len < (int)sizeof(cmd) - 32; i++)
		len += snprintf(cmd + len, sizeof(cmd) - (size_t)len, " 0x%" PRIx64, vaddrs[i]);
	snprintf(cmd + len, sizeof(cmd) - (size_t)len, " 2>/dev/null");
	FILE *p = popen(cmd, "r");
	if (!p)
		return false;
	size_t got = 0;
	char fn[512], loc[2048];
	while (got < n && fgets(fn, sizeof(fn), p) && fgets(loc, sizeof(loc), p)) {
		struct a2l_ans *a = &out[got++];
		fn[strcspn(fn, "\n")] = '\0';
		loc[strcspn(loc, " \n")] = '\0';    /* drop " (discriminator N)" */
		char *colon = strrchr(loc, ':');
		a->line = colon ? (unsigned)strtoul(colon + 1, NULL, 10) : 0;
		if (colon)
			*colon = '\0';
		const char *base = strrchr(loc, '/');
		snprintf(a->file, sizeof(a->file), "%.127s", base ? base + 1 : loc);
		snprintf(a->func, sizeof(a->func), "%.127s", fn);
	}
	pclose(p);
	return got == n;
}

static const char *basename_of(const char *p)
{
	const char *b = p ? strrchr(p, '/') : NULL;
	return b ? b + 1 : p;
}

/* Feeds MMAP2 records the way the kernel maps the binary: one map per
 * PT_LOAD (page-aligned, file-backed up to p_filesz), then "//anon" for
 * the rest of .bss. */
static int map_like_kernel(struct symtab *st, int32_t pid, const char *bin, const char *recorded,
			   uint64_t base, const uint8_t *bid, size_t bid_size)
{
	int fd = open(bin, O_RDONLY);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t phnum = 0;
	int rc = elf && elf_getphdrnum(elf, &phnum) == 0 ? 0 : -EINVAL;
	const uint64_t pg = 4096;
	for (size_t i = 0; rc == 0 && i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		uint64_t s = base + (ph.p_vaddr & ~(pg - 1));
		uint64_t fe = base + ((ph.p_vaddr + ph.p_filesz + pg - 1) & ~(pg - 1));
		uint64_t me = base + ((ph.p_vaddr + ph.p_memsz + pg - 1) & ~(pg - 1));
		struct c2c_mmap m = {
			.pid = pid, .tid = pid, .start = s, .len = fe - s,
			.pgoff = ph.p_offset & ~(pg - 1), .cpumode = C2C_MODE_USER,
			.prot = (uint32_t)ph.p_flags, .filename = recorded,
		};
		if (bid_size) {
			m.build_id_size = (uint8_t)bid_size;
			memcpy(m.build_id, bid, bid_size);
		}
		rc = symtab_mmap(st, &m);
		if (rc == 0 && me > fe)
			rc = mmap_user(st, pid, pid, fe, me - fe, 0, "//anon");
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

static void check_program(const char *bin, uint64_t base)
{
	struct symtab *st = symtab_new(NULL, NULL);
	struct sym_code c;
	struct sym_data d;
	CHECK(st);
	CHECK(map_like_kernel(st, 42, bin, bin, base, NULL, 0) == 0);

	const char *funcs[] = { "add_one", "sum_table", "main" };
	unsigned a2l_checked = 0;
	for (size_t i = 0; i < 3; i++) {
		uint64_t fsize;
		uint64_t fa = nm_addr_size(bin, funcs[i], &fsize);
		CHECK(fa != 0 && fsize > 0);
		/* Several ips in each function, all checked against addr2line. */
		uint64_t vaddrs[64];
		struct a2l_ans ans[64];
		size_t n = 0;
		for (uint64_t off = 0; off < fsize && n < 64; off += 3)
			vaddrs[n++] = fa + off;
		bool have_a2l = a2l_batch(bin, vaddrs, n, ans);
		for (size_t k = 0; k < n; k++) {
			uint64_t off = vaddrs[k] - fa;
			CHECK(symtab_resolve_ip(st, 42, 42, C2C_MODE_USER, base + vaddrs[k], &c) == 0);
			CHECK(c.status == SYM_OK);
			CHECK_STR(c.function, funcs[i]);
			CHECK_EQ_U64(c.offset, off);
			CHECK_EQ_U64(c.rel_addr, vaddrs[k]);
			CHECK_STR(c.dso, bin);
			if (have_a2l && ans[k].line > 0) {
				CHECK_STR(c.function, ans[k].func);
				CHECK_STR(basename_of(c.srcfile), ans[k].file);
				CHECK_EQ_U64(c.line, ans[k].line);
				a2l_checked++;
			} else {
				CHECK_STR(basename_of(c.srcfile), "prog.c");
				CHECK(c.line >= 5 && c.line <= 21);
			}
		}
	}
	printf("# %s: %u ips agree with addr2line (function, file, line)\n", basename_of(bin),
	       a2l_checked);
	/* The cache gives the same answer a second time. */
	uint64_t fa = nm_addr(bin, "add_one");
	CHECK(symtab_resolve_ip(st, 42, 42, C2C_MODE_USER, base + fa + 5, &c) == 0);
	CHECK_STR(c.function, "add_one");
	CHECK_EQ_U64(c.offset, 5);

	struct { const char *sym; uint64_t off, size; } vars[] = {
		{ "counter_a", 2, 4 }, { "table_b", 17, 128 }, { "ro_msg", 5, 32 },
		{ "big_bss", 100000, 1 << 17 },
	};
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		uint64_t va = nm_addr(bin, vars[i].sym);
		CHECK(va != 0);
		CHECK(symtab_addr_mapped(st, 42, 42, C2C_MODE_USER, base + va + vars[i].off));
		CHECK(symtab_resolve_data(st, 42, 42, C2C_MODE_USER, base + va + vars[i].off, &d) == 0);
		if (d.status != SYM_OK)
			test_failf(__FILE__, __LINE__, "%s: status %s", vars[i].sym, sym_status_str(d.status));
		CHECK(d.status == SYM_OK);
		CHECK_STR(d.symbol, vars[i].sym);
		CHECK_EQ_U64(d.offset, vars[i].off);
		CHECK_EQ_U64(d.sym_size, vars[i].size);
		CHECK_EQ_U64(d.sym_start, base + va);
		CHECK_STR(d.dso, bin);
	}

	/* The kernel touching a user variable (a futex word): unmapped for
	 * perf's kernel-mode lookup, yet named from the process's maps. */
	uint64_t ca = nm_addr(bin, "counter_a");
	CHECK(!symtab_addr_mapped(st, 42, 42, C2C_MODE_KERNEL, base + ca));
	CHECK(symtab_resolve_data(st, 42, 42, C2C_MODE_KERNEL, base + ca + 1, &d) == 0);
	CHECK(d.status == SYM_OK);
	CHECK_STR(d.symbol, "counter_a");
	CHECK_EQ_U64(d.offset, 1);
	/* Guest modes have no maps here. */
	CHECK(symtab_resolve_data(st, 42, 42, C2C_MODE_GUEST_USER, base + ca, &d) == 0);
	CHECK(d.status == SYM_UNMAPPED && d.symbol == NULL);

	/* Outside every map: unmapped and unresolved, not an error. */
	CHECK(!symtab_addr_mapped(st, 42, 42, C2C_MODE_USER, 0x10));
	CHECK(symtab_resolve_ip(st, 42, 42, C2C_MODE_USER, 0x10, &c) == 0);
	CHECK(c.status == SYM_UNMAPPED && c.function == NULL && c.dso == NULL);
	CHECK(symtab_resolve_data(st, 42, 42, C2C_MODE_USER, 0x10, &d) == 0);
	CHECK(d.status == SYM_UNMAPPED && d.symbol == NULL);

	/* The per-binary handle for the types code. */
	uint64_t rel = 0;
	struct sym_dso *dso = symtab_dso_for(st, 42, 42, base + fa, &rel);
	CHECK(dso);
	CHECK_EQ_U64(rel, fa);
	CHECK_EQ_U64(sym_dso_bias(dso), base);
	CHECK(sym_dso_status(dso) == SYM_OK);
	CHECK(sym_dso_elf(dso) != NULL);
	CHECK(sym_dso_dwarf(dso) != NULL);
	CHECK_STR(sym_dso_path(dso), bin);
	CHECK_STR(sym_dso_file(dso), bin);
	CHECK(symtab_dso_by_path(st, bin) == dso);
	CHECK(symtab_dso_for(st, 42, 42, 0x10, NULL) == NULL);
	/* The .bss tail in "//anon" belongs to the binary too. */
	uint64_t bss = nm_addr(bin, "big_bss");
	CHECK(symtab_dso_for(st, 42, 42, base + bss + 100000, &rel) == dso);
	CHECK_EQ_U64(rel, bss + 100000);
	symtab_free(st);
}

/* PLT entries get "name@plt" symbols as in perf; objdump labels them. */
static void plt_entries_named(void)
{
	const char *bin = build_prog("plt", "-fPIE -pie");
	if (!bin) {
		test_skip("no C compiler");
		return;
	}
	char cmd[1024];
	snprintf(cmd, sizeof(cmd),
		 "objdump -d -j .plt.sec -j .plt '%s' 2>/dev/null | sed -n 's/^\\([0-9a-f]*\\) <\\(puts@plt\\)>:$/\\1/p'",
		 bin);
	uint64_t pa = strtoull(run_line(cmd), NULL, 16);
	if (pa == 0) {
		test_skip("objdump absent or no puts@plt entry");
		return;
	}
	uint64_t base = 0x555555554000ull;
	struct symtab *st = symtab_new(NULL, NULL);
	struct sym_code c;
	CHECK(st);
	CHECK(map_like_kernel(st, 1, bin, bin, base, NULL, 0) == 0);
	CHECK(symtab_resolve_ip(st, 1, 1, C2C_MODE_USER, base + pa + 6, &c) == 0);
	CHECK(c.status == SYM_OK);
	CHECK_STR(c.function, "puts@plt");
	CHECK_EQ_U64(c.offset, 6);
	symtab_free(st);
}

static void program_pie(void)
{
	const char *bin = build_prog("pie", "-fPIE -pie");
	if (!bin) {
		test_skip("no C compiler");
		return;
	}
	check_program(bin, 0x555555554000ull);
}

static void program_non_pie(void)
{
	const char *bin = build_prog("exec", "-fno-pie -no-pie");
	if (!bin) {
		test_skip("no C compiler (or no -no-pie)");
		return;
	}
	check_program(bin, 0);
}

static size_t read_build_id(const char *bin, uint8_t out[20])
{
	char cmd[4500];
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null | sed -n 's/.*Build ID: *//p'", bin);
	const char *hex = run_line(cmd);
	size_t n = 0;
	while (n < 20 && hex[2 * n] && hex[2 * n + 1]) {
		unsigned v;
		if (sscanf(hex + 2 * n, "%2x", &v) != 1)
			break;
		out[n++] = (uint8_t)v;
	}
	return n;
}

static void build_id_checked(void)
{
	const char *bin = build_prog("bid", "-fPIE -pie");
	if (!bin) {
		test_skip("no C compiler");
		return;
	}
	uint8_t bid[20];
	size_t n = read_build_id(bin, bid);
	if (n == 0) {
		test_skip("readelf absent or no build-id note");
		return;
	}
	uint64_t base = 0x7f0000000000ull, fa = nm_addr(bin, "add_one");
	struct sym_code c;
	struct sym_data d;
	struct symtab *st = symtab_new(NULL, NULL);
	CHECK(st && fa);
	/* Right build-id: symbolized. */
	CHECK(map_like_kernel(st, 1, bin, bin, base, bid, n) == 0);
	CHECK(symtab_resolve_ip(st, 1, 1, C2C_MODE_USER, base + fa, &c) == 0);
	CHECK(c.status == SYM_OK);
	CHECK_STR(c.function, "add_one");
	CHECK(c.build_id_size == n && memcmp(c.build_id, bid, n) == 0);
	/* Wrong build-id (another process, same path): not symbolized. */
	uint8_t bad[20];
	memcpy(bad, bid, n);
	bad[0] ^= 0xff;
	CHECK(map_like_kernel(st, 2, bin, bin, base, bad, n) == 0);
	CHECK(symtab_resolve_ip(st, 2, 2, C2C_MODE_USER, base + fa, &c) == 0);
	CHECK(c.status == SYM_BUILD_ID_MISMATCH);
	CHECK(c.function == NULL && c.srcfile == NULL);
	CHECK_STR(c.dso, bin);
	CHECK(strstr(sym_status_str(c.status), "build-id") != NULL);
	CHECK(symtab_resolve_data(st, 2, 2, C2C_MODE_USER, base + nm_addr(bin, "counter_a"), &d) == 0);
	CHECK(d.status == SYM_BUILD_ID_MISMATCH && d.symbol == NULL);
	CHECK(symtab_addr_mapped(st, 2, 2, C2C_MODE_USER, base + fa));
	symtab_free(st);

	/* The BUILD_ID feature applies to MMAPs that carry none. */
	st = symtab_new(NULL, NULL);
	CHECK(st);
	CHECK(symtab_set_build_id(st, bin, bad, n) == 0);
	CHECK(map_like_kernel(st, 3, bin, bin, base, NULL, 0) == 0);
	CHECK(symtab_resolve_ip(st, 3, 3, C2C_MODE_USER, base + fa, &c) == 0);
	CHECK(c.status == SYM_BUILD_ID_MISMATCH);
	symtab_free(st);
}

static void symfs_prefix(void)
{
	const char *bin = build_prog("symfs", "-fPIE -pie");
	if (!bin) {
		test_skip("no C compiler");
		return;
	}
	char root[512], cmd[2048];
	snprintf(root, sizeof(root), "%s/symfs", test_tmpdir());
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/opt/app' && cp '%s' '%s/opt/app/prog'", root, bin, root);
	CHECK(run(cmd) == 0);
	uint64_t base = 0x560000000000ull, fa = nm_addr(bin, "sum_table");
	struct sym_code c;

	struct symtab *st = symtab_new(NULL, NULL);
	CHECK(st);
	CHECK(map_like_kernel(st, 1, bin, "/opt/app/prog", base, NULL, 0) == 0);
	CHECK(symtab_resolve_ip(st, 1, 1, C2C_MODE_USER, base + fa + 2, &c) == 0);
	CHECK(c.status == SYM_NO_FILE && c.function == NULL);
	CHECK_STR(c.dso, "/opt/app/prog");
	symtab_free(st);

	char slash[600];
	snprintf(slash, sizeof(slash), "%s/", root);    /* a trailing '/' is fine */
	struct symtab_options o = { .symfs = slash };
	st = symtab_new(&o, NULL);
	CHECK(st);
	CHECK(map_like_kernel(st, 1, bin, "/opt/app/prog", base, NULL, 0) == 0);
	CHECK(symtab_resolve_ip(st, 1, 1, C2C_MODE_USER, base + fa + 2, &c) == 0);
	CHECK(c.status == SYM_OK);
	CHECK_STR(c.function, "sum_table");
	CHECK_EQ_U64(c.offset, 2);
	CHECK_STR(c.dso, "/opt/app/prog");
	CHECK_STR(basename_of(c.srcfile), "prog.c");
	symtab_free(st);

	/* A map of a file since deleted (or replaced) names it "... (deleted)". */
	char deleted[700];
	snprintf(deleted, sizeof(deleted), "%s (deleted)", bin);
	st = symtab_new(NULL, NULL);
	CHECK(st);
	CHECK(map_like_kernel(st, 1, bin, deleted, base, NULL, 0) == 0);
	CHECK(symtab_resolve_ip(st, 1, 1, C2C_MODE_USER, base + fa + 2, &c) == 0);
	CHECK(c.status == SYM_OK);
	CHECK_STR(c.function, "sum_table");
	CHECK_STR(c.dso, deleted);
	symtab_free(st);
}

static void separate_debuginfo(void)
{
	const char *bin = build_prog("dbg", "-fPIE -pie");
	if (!bin) {
		test_skip("no C compiler");
		return;
	}
	char dir[512], cmd[4096];
	snprintf(dir, sizeof(dir), "%s/stripped", test_tmpdir());
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p '%s' && objcopy --only-keep-debug '%s' '%s/prog.debug' && "
		 "strip --strip-all -o '%s/prog' '%s' && "
		 "cd '%s' && objcopy --add-gnu-debuglink=prog.debug prog 2>/dev/null",
		 dir, bin, dir, dir, bin, dir);
	if (run(cmd) != 0) {
		test_skip("objcopy/strip absent");
		return;
	}
	char sbin[600];
	snprintf(sbin, sizeof(sbin), "%s/prog", dir);
	uint64_t base = 0x561000000000ull, fa = nm_addr(bin, "add_one"), va = nm_addr(bin, "table_b");
	const char *const no_dirs[] = { NULL };
	struct symtab_options o = { .debuginfo_dirs = no_dirs };
	struct symtab *st = symtab_new(&o, NULL);
	struct sym_code c;
	struct sym_data d;
	CHECK(st && fa && va);
	CHECK(map_like_kernel(st, 1, sbin, sbin, base, NULL, 0) == 0);
	CHECK(symtab_resolve_ip(st, 1, 1, C2C_MODE_USER, base + fa + 4, &c) == 0);
	CHECK(c.status == SYM_OK);
	CHECK_STR(c.function, "add_one");
	CHECK_EQ_U64(c.offset, 4);
	CHECK_STR(basename_of(c.srcfile), "prog.c");
	CHECK(c.line >= 5 && c.line <= 8);
	CHECK(symtab_resolve_data(st, 1, 1, C2C_MODE_USER, base + va + 8, &d) == 0);
	CHECK_STR(d.symbol, "table_b");
	CHECK_EQ_U64(d.offset, 8);
	struct sym_dso *dso = symtab_dso_for(st, 1, 1, base + fa, NULL);
	CHECK(dso && sym_dso_dwarf(dso) != NULL);
	symtab_free(st);
}

/* [vdso]: no file, but perf's build-id cache holds a copy. This process's
 * own vdso, saved into a fake $HOME/.debug, stands in for it. */
static void vdso_from_build_id_cache(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned long long lo = 0, hi = 0;
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &lo, &hi) == 2)
			break;
	if (f)
		fclose(f);
	if (!lo || hi <= lo) {
		test_skip("no [vdso] in this process");
		return;
	}
	const char *dir = test_tmpdir();
	char vdso[600], cmd[2048];
	snprintf(vdso, sizeof(vdso), "%s/vdso.so", dir);
	f = fopen(vdso, "wb");
	CHECK(f);
	CHECK(fwrite((const void *)(uintptr_t)lo, 1, hi - lo, f) == hi - lo);
	fclose(f);
	uint8_t bid[20];
	size_t n = read_build_id(vdso, bid);
	snprintf(cmd, sizeof(cmd),
		 "nm -D '%s' 2>/dev/null | awk '$3 ~ /^(__vdso_)?clock_gettime(@.*)?$/ { print $1; exit }'",
		 vdso);
	uint64_t fa = strtoull(run_line(cmd), NULL, 16);
	if (n == 0 || fa == 0) {
		test_skip("readelf/nm absent, or the vdso has no build-id");
		return;
	}
	char hex[41], home[600];
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", bid[i]);
	snprintf(home, sizeof(home), "%s/home", dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/.debug/.build-id/%.2s/%s' && cp '%s' '%s/.debug/.build-id/%.2s/%s/elf'",
		 home, hex, hex + 2, vdso, home, hex, hex + 2);
	CHECK(run(cmd) == 0);
	const char *old = getenv("HOME");
	char saved[600] = "";
	if (old)
		snprintf(saved, sizeof(saved), "%s", old);
	setenv("HOME", home, 1);

	uint64_t base = 0x7fff00000000ull;
	struct sym_code c;
	struct symtab *st = symtab_new(NULL, NULL);
	bool ok = st && mmap_user(st, 1, 1, base, hi - lo, 0, "[vdso]") == 0 &&
		  symtab_resolve_ip(st, 1, 1, C2C_MODE_USER, base + fa + 2, &c) == 0;
	int status_without = ok ? c.status : -1;
	symtab_free(st);
	st = symtab_new(NULL, NULL);
	ok = ok && st && symtab_set_build_id(st, "[vdso]", bid, n) == 0 &&
	     mmap_user(st, 2, 2, base, hi - lo, 0, "[vdso]") == 0 &&
	     symtab_resolve_ip(st, 2, 2, C2C_MODE_USER, base + fa + 2, &c) == 0;
	if (old)
		setenv("HOME", saved, 1);
	else
		unsetenv("HOME");
	CHECK(ok);
	CHECK(status_without == SYM_ANON);
	CHECK(c.status == SYM_OK);
	CHECK(strstr(c.function, "clock_gettime") != NULL);
	CHECK_EQ_U64(c.offset, 2);
	CHECK_STR(c.dso, "[vdso]");
	symtab_free(st);
}

/* Damaged or foreign files are unresolved, never a crash or an error. */
static void broken_files_unresolved(void)
{
	const char *bin = build_prog("broken", "-fPIE -pie");
	if (!bin) {
		test_skip("no C compiler");
		return;
	}
	const char *dir = test_tmpdir();
	char paths[3][600], cmd[2048];
	snprintf(paths[0], sizeof(paths[0]), "%s/garbage.so", dir);
	snprintf(paths[1], sizeof(paths[1]), "%s/truncated.so", dir);
	snprintf(paths[2], sizeof(paths[2]), "%s/text.so", dir);
	FILE *f = fopen(paths[0], "wb");
	CHECK(f);
	fwrite("\177ELF\2\1\1", 1, 7, f);
	for (int i = 0; i < 4096; i++)
		fputc((i * 37 + 11) & 0xff, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "head -c 3000 '%s' > '%s' && echo 'not an ELF file' > '%s'",
		 bin, paths[1], paths[2]);
	CHECK(run(cmd) == 0);
	struct symtab *st = symtab_new(NULL, NULL);
	CHECK(st);
	for (int i = 0; i < 3; i++) {
		uint64_t base = 0x100000000ull * (uint64_t)(i + 1);
		CHECK(mmap_user(st, 5, 5, base, 0x10000, 0, paths[i]) == 0);
		for (uint64_t off = 0; off < 0x10000; off += 0x777) {
			struct sym_code c;
			struct sym_data d;
			CHECK(symtab_resolve_ip(st, 5, 5, C2C_MODE_USER, base + off, &c) == 0);
			CHECK(c.status == SYM_NO_FILE || c.status == SYM_NO_SYMBOL);
			CHECK(c.function == NULL || i == 1);
			CHECK_STR(c.dso, paths[i]);
			CHECK(symtab_resolve_data(st, 5, 5, C2C_MODE_USER, base + off, &d) == 0);
			CHECK(d.status != SYM_UNMAPPED);
		}
		CHECK(symtab_addr_mapped(st, 5, 5, C2C_MODE_USER, base));
	}
	symtab_free(st);
	/* A kallsyms file that is not one is refused, saying why; with no
	 * kallsyms at all, kernel addresses stay unresolved. */
	struct symtab_options o = { .kallsyms = paths[0] };
	struct c2c_error err = { 0 };
	CHECK(symtab_new(&o, &err) == NULL);
	CHECK(err.code == -EINVAL && strstr(err.msg, "is an ELF file, not a kallsyms list"));
	o.kallsyms = paths[2];
	CHECK(symtab_new(&o, &err) == NULL);
	CHECK(err.code == -EINVAL && strstr(err.msg, "is not a kallsyms list"));
	snprintf(paths[2], sizeof(paths[2]), "%s/no-such-kallsyms", dir);
	CHECK(symtab_new(&o, &err) == NULL);
	CHECK(err.code == -ENOENT && strstr(err.msg, "no-such-kallsyms"));
	st = symtab_new(NULL, NULL);
	CHECK(st);
	struct sym_code c;
	CHECK(symtab_resolve_ip(st, 0, 0, C2C_MODE_KERNEL, 0xffffffff81000000ull, &c) == 0);
	CHECK(c.status == SYM_NO_KALLSYMS);
	CHECK_EQ_U64(symtab_kernel_symbols(st), 0);
	symtab_free(st);
}

/* Not a timed assertion: prints the cached lookup rate for the report. */
static void lookup_rate(void)
{
	const char *bin = build_prog("rate", "-fPIE -pie");
	if (!bin) {
		test_skip("no C compiler");
		return;
	}
	uint64_t base = 0x555555554000ull, fa = nm_addr(bin, "sum_table");
	struct symtab *st = symtab_new(NULL, NULL);
	struct sym_code c;
	CHECK(st && fa);
	CHECK(map_like_kernel(st, 1, bin, bin, base, NULL, 0) == 0);
	struct timespec t0, t1;
	const unsigned n = 1000000;
	unsigned ok = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned i = 0; i < n; i++) {
		CHECK(symtab_resolve_ip(st, 1, 1 + (int32_t)(i & 7), C2C_MODE_USER,
					base + fa + (i % 64), &c) == 0);
		ok += c.status == SYM_OK;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("# %u resolve_ip calls in %.3f s (%.0f ns each)\n", n, s, s * 1e9 / n);
	CHECK(ok == n);
	uint64_t va = nm_addr(bin, "table_b");
	struct sym_data d;
	ok = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned i = 0; i < n; i++) {
		CHECK(symtab_resolve_data(st, 1, 1, C2C_MODE_USER, base + va + (i % 128), &d) == 0);
		ok += d.status == SYM_OK;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("# %u resolve_data calls in %.3f s (%.0f ns each)\n", n, s, s * 1e9 / n);
	CHECK(ok == n);
	symtab_free(st);
}

/* A module .ko (tests/kernel/kmod.c, ld -r --build-id) on a "[kvm-test]"
 * map: found by name under SYMFS/lib/modules/R/ ('-' and '_' alike),
 * placed at the map's start (.text), function+offset as nm, line as
 * addr2line at the .text offset; another build is not used and listed by
 * symtab_kmod_refused once. */
static void kernel_module(void)
{
	const char *dir = test_tmpdir();
	char src[4096], cmd[20000], ko[700], other[700];
	snprintf(src, sizeof(src), "%s", data_path("tests/kernel/kmod.c"));
	snprintf(ko, sizeof(ko), "%s/root/lib/modules/0.1-c2c/extra/kvm_test.ko", dir);
	snprintf(other, sizeof(other), "%s/other.ko", dir);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p '%s/root/lib/modules/0.1-c2c/extra' && cd '%s' && "
		 "cc -c -g -O1 -mcmodel=kernel -fno-pic -ffreestanding -fno-asynchronous-unwind-tables "
		 "-o km.o '%s' 2>/dev/null && ld -r --build-id km.o -o '%s' && "
		 "cc -c -g -O1 -DOTHER -mcmodel=kernel -fno-pic -ffreestanding -o km2.o '%s' 2>/dev/null && "
		 "ld -r --build-id km2.o -o '%s'", dir, dir, src, ko, src, other);
	if (run(cmd) != 0) {
		test_skip("cannot build the module-shaped object (cc -mcmodel=kernel, ld -r)");
		return;
	}
	uint64_t f = nm_addr(ko, "kvm_test_halt_poll"), base = 0xffffffffc0200000ull;
	uint8_t bid[20], obid[20];
	const char *kos[2] = { ko, other };
	uint8_t *bids[2] = { bid, obid };
	for (int k = 0; k < 2; k++) {
		char hex[64];
		snprintf(cmd, sizeof(cmd), "readelf -n '%s' | awk '/Build ID/ { print $3 }'", kos[k]);
		snprintf(hex, sizeof(hex), "%s", run_line(cmd));
		CHECK(strlen(hex) == 40);
		for (size_t i = 0; i < 20; i++)
			sscanf(hex + 2 * i, "%2hhx", &bids[k][i]);
	}
	char root[700];
	snprintf(root, sizeof(root), "%s/root", dir);
	struct symtab_options o = { .symfs = root, .osrelease = "0.1-c2c" };
	struct c2c_error err = { 0 };
	struct c2c_mmap mod = { .pid = -1, .cpumode = C2C_MODE_KERNEL, .filename = "[kvm-test]",
				.start = base, .len = 0x4000 };
	for (int k = 0; k < 2; k++) {
		struct symtab *st = symtab_new(&o, &err);
		CHECK(st);
		CHECK(symtab_set_build_id(st, "[kvm-test]", bids[k], 20) == 0);
		CHECK(symtab_mmap(st, &mod) == 0);
		struct sym_code c;
		CHECK(symtab_resolve_ip(st, 7, 7, C2C_MODE_KERNEL, base + f + 3, &c) == 0);
		CHECK(symtab_resolve_ip(st, 7, 7, C2C_MODE_KERNEL, base + f + 3, &c) == 0);
		const char *m = NULL, *file = NULL;
		if (k == 0) {
			CHECK(c.status == SYM_OK);
			CHECK_STR(c.function, "kvm_test_halt_poll");
			CHECK_EQ_U64(c.offset, 3);
			CHECK_STR(c.dso, "[kvm-test]");
			snprintf(cmd, sizeof(cmd), "addr2line -e '%s' %#llx | sed 's|.*/||'", ko,
				 (unsigned long long)(f + 3));
			char want[256], got[300];
			snprintf(want, sizeof(want), "%s", run_line(cmd));
			const char *b = c.srcfile ? c.srcfile : "?";
			snprintf(got, sizeof(got), "%s:%u", strrchr(b, '/') ? strrchr(b, '/') + 1 : b, c.line);
			CHECK_STR(got, want);
			CHECK(!symtab_kmod_refused(st, 0, &m, &file));
		} else {
			/* Recorded as another build: the file is not used. */
			CHECK(c.function == NULL);
			CHECK(symtab_kmod_refused(st, 0, &m, &file));
			CHECK(m && !strcmp(m, "[kvm-test]") && file && !strcmp(file, ko));
			CHECK(!symtab_kmod_refused(st, 1, &m, &file));
		}
		symtab_free(st);
	}
}

/* A vmlinux (tests/kernel/kvm.c linked at 0xffffffff81000000) placed by
 * the kernel map's "[kernel.kallsyms]_text" pgoff: kernel ips shifted by
 * KASLR get the image's functions (nm), offsets and lines (addr2line),
 * data its objects; module maps do not use it; --kallsyms wins over it; an
 * image of another build is refused by symtab_check_vmlinux. */
static void vmlinux_kaslr(void)
{
	const char *dir = test_tmpdir();
	char img[600], other[600], lds[4096], src[4096], cmd[20000];
	/* data_path has one buffer: copied before the next call. */
	snprintf(lds, sizeof(lds), "%s", data_path("tests/kernel/kernel.lds"));
	snprintf(src, sizeof(src), "%s", data_path("tests/kernel/kvm.c"));
	snprintf(img, sizeof(img), "%s/vmlinux", dir);
	snprintf(other, sizeof(other), "%s/vmlinux.other", dir);
	snprintf(cmd, sizeof(cmd),
		 "cc -g -O1 -mcmodel=kernel -fno-pie -no-pie -nostdlib -ffreestanding -static -Wl,--build-id "
		 "-Wl,-T,'%s' -o '%s' '%s' 2>/dev/null && "
		 "cc -g -O1 -DOTHER -mcmodel=kernel -fno-pie -no-pie -nostdlib -ffreestanding -static "
		 "-Wl,--build-id -Wl,-T,'%s' -o '%s' '%s' 2>/dev/null",
		 lds, img, src, lds, other, src);
	if (run(cmd) != 0) {
		test_skip("cannot build the kernel-shaped image (cc -mcmodel=kernel)");
		return;
	}
	/* _text has no size, which nm_addr skips. */
	snprintf(cmd, sizeof(cmd), "nm '%s' | awk '$3 == \"_text\" { print $1 }'", img);
	uint64_t text = strtoull(run_line(cmd), NULL, 16), f = nm_addr(img, "vcpu_enter_guest");
	uint64_t v = nm_addr(img, "vcpu0"), shift = 0x1e00000;
	CHECK(text == 0xffffffff81000000ull && f > text && v > text);
	/* The image's build-id, as the recording's BUILD_ID feature has it. */
	uint8_t bid[20];
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | awk '/Build ID/ { print $3 }'", img);
	char hex[64];
	snprintf(hex, sizeof(hex), "%s", run_line(cmd));
	size_t bn = strlen(hex) / 2;
	CHECK(bn == 20);
	for (size_t i = 0; i < bn && i < 20; i++)
		sscanf(hex + 2 * i, "%2hhx", &bid[i]);

	/* No /lib/modules/R of this host: the module map below finds no .ko. */
	struct symtab_options o = { .vmlinux = img, .osrelease = "0.0-c2c-none" };
	struct c2c_error err = { 0 };
	struct symtab *st = symtab_new(&o, &err);
	CHECK(st);
	CHECK(symtab_set_build_id(st, "[kernel.kallsyms]", bid, 20) == 0);
	CHECK(symtab_check_vmlinux(st, &err) == 0);
	struct c2c_mmap km = { .pid = -1, .cpumode = C2C_MODE_KERNEL, .filename = "[kernel.kallsyms]_text",
			       .start = text + shift, .len = 0x1000000, .pgoff = text + shift };
	struct c2c_mmap mod = { .pid = -1, .cpumode = C2C_MODE_KERNEL, .filename = "/lib/modules/kvm.ko",
				.start = 0xffffffffc0000000ull, .len = 0x10000 };
	CHECK(symtab_mmap(st, &km) == 0 && symtab_mmap(st, &mod) == 0);
	struct sym_code c;
	CHECK(symtab_resolve_ip(st, 7, 7, C2C_MODE_KERNEL, f + shift + 2, &c) == 0);
	CHECK(c.status == SYM_OK);
	CHECK_STR(c.function, "vcpu_enter_guest");
	CHECK_EQ_U64(c.offset, 2);
	CHECK_STR(c.dso, "[kernel.kallsyms]");
	snprintf(cmd, sizeof(cmd), "addr2line -e '%s' %#llx | sed 's|.*/||'", img, (unsigned long long)(f + 2));
	char want[256];
	snprintf(want, sizeof(want), "%s", run_line(cmd));
	char got[300];
	const char *base = c.srcfile ? c.srcfile : "?";
	if (strrchr(base, '/'))
		base = strrchr(base, '/') + 1;
	snprintf(got, sizeof(got), "%s:%u", base, c.line);
	CHECK_STR(got, want);
	/* Unshifted, the same ip is somewhere else: no function of the image. */
	CHECK(symtab_resolve_ip(st, 7, 7, C2C_MODE_KERNEL, f + 2, &c) == 0);
	CHECK(c.function == NULL || strcmp(c.function, "vcpu_enter_guest") != 0);
	struct sym_data d;
	CHECK(symtab_resolve_data(st, 7, 7, C2C_MODE_KERNEL, v + shift + 24, &d) == 0);
	CHECK(d.status == SYM_OK);
	CHECK_STR(d.symbol, "vcpu0");
	CHECK_EQ_U64(d.offset, 24);
	CHECK_EQ_U64(d.sym_start, v + shift);
	/* A module address is not the image's. */
	CHECK(symtab_resolve_ip(st, 7, 7, C2C_MODE_KERNEL, 0xffffffffc0000010ull, &c) == 0);
	CHECK(c.function == NULL);
	symtab_free(st);

	/* --kallsyms wins over the image, as in perf. */
	o.kallsyms = data_path("tests/data/symbols/kallsyms");
	st = symtab_new(&o, &err);
	CHECK(st);
	CHECK(symtab_mmap(st, &km) == 0);
	CHECK(symtab_resolve_ip(st, 7, 7, C2C_MODE_KERNEL, f + shift + 2, &c) == 0);
	CHECK(c.function == NULL || strcmp(c.function, "vcpu_enter_guest") != 0);
	symtab_free(st);

	/* Another build's image: refused, naming the recorded build-id. */
	o.kallsyms = NULL;
	o.vmlinux = other;
	st = symtab_new(&o, &err);
	CHECK(st);
	CHECK(symtab_set_build_id(st, "[kernel.kallsyms]", bid, 20) == 0);
	CHECK(symtab_check_vmlinux(st, &err) == -EINVAL && strstr(err.msg, hex));
	CHECK(symtab_mmap(st, &km) == 0);
	CHECK(symtab_resolve_ip(st, 7, 7, C2C_MODE_KERNEL, f + shift + 2, &c) == 0);
	CHECK(c.function == NULL);
	symtab_free(st);
}

TEST_MAIN(
	TEST_CASE(fork_copies_process_maps),
	TEST_CASE(threads_share_maps),
	TEST_CASE(synthesized_fork_does_not_copy),
	TEST_CASE(exit_keeps_thread),
	TEST_CASE(overlapping_maps_replaced),
	TEST_CASE(kernel_maps_like_perf),
	TEST_CASE(fake_kallsyms),
	TEST_CASE(kallsyms_no_data_symbols),
	TEST_CASE(host_kallsyms),
	TEST_CASE(same_host),
	TEST_CASE(program_pie),
	TEST_CASE(program_non_pie),
	TEST_CASE(plt_entries_named),
	TEST_CASE(build_id_checked),
	TEST_CASE(symfs_prefix),
	TEST_CASE(separate_debuginfo),
	TEST_CASE(vdso_from_build_id_cache),
	TEST_CASE(broken_files_unresolved),
	TEST_CASE(vmlinux_kaslr),
	TEST_CASE(kernel_module),
	TEST_CASE(lookup_rate),
)
