/* kernel_perfdata: writes a perf c2c recording (with the test perf.data
 * writer) of kernel-mode samples in a kernel image (tests/kernel/kvm.c
 * built as a vmlinux) as perf record would hold them on a KASLR kernel:
 * the "[kernel.kallsyms]_text" MMAP at _text + SHIFT with pgoff the
 * run-time _text, the image's build-id as the kernel's BUILD_ID entry,
 * and PERF_RECORD_MISC_KERNEL samples at the real (shifted) instructions
 * of its functions touching the shared vcpu0.
 *
 *   kernel_perfdata VMLINUX OUT.data [--shift HEX]   (default 0x2a00000)
 *                   [--module KO --modmap NAME [--modbase HEX] [--modbid KO2]]
 *
 * With --module, a kernel module too: the MMAP perf record synthesizes
 * from /proc/modules (kernel mode, pid -1, the map name NAME — a path
 * under /lib/modules or "[name]" —, start --modbase (default
 * 0xffffffffc0a00000, where the module's .text runs), pgoff 0), the .ko's
 * build-id (or KO2's: a recording of another build) as NAME's BUILD_ID
 * entry, and samples of tid 204 at its instructions: kvm_test_count_exit's
 * store 9 and kvm_test_halt_poll's load (HITM) 11, on vcpu0 too.
 *
 * Workload (pid 200 "qemu-kvm"): tid 201 writes vcpu0.requests
 * (kvm_vcpu_kick) 12, tid 202 increments vcpu0.stat_exits
 * (vcpu_enter_guest) 10 and reads vcpu0.mode (HITM) 8, tid 203 reads
 * vcpu0.cpu (kvm_arch_vcpu_runnable, HITM) 14. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/gen/perfdata_writer.h"
#include "tests/gen/prog_probe.h"

static struct prog_probe *prog;

struct ctx {
	struct pdw *w;
	int ld, st;
	uint64_t t;
};

static void sample(struct ctx *c, int32_t tid, uint32_t cpu, uint64_t ip, uint64_t addr,
		   enum pdw_mem_class cls, int n)
{
	bool store = cls >= PDW_ST_L1_HIT;
	for (int i = 0; i < n; i++) {
		struct c2c_sample s = {
			.event = (uint32_t)(store ? c->st : c->ld),
			.cpumode = C2C_MODE_KERNEL, .exact_ip = 1,
			.time = c->t, .ip = ip, .pid = 200, .tid = tid, .cpu = cpu,
			.addr = addr, .period = 1, .weight = store ? 0 : 150,
			.data_src = pdw_data_src(cls, 0),
		};
		c->t += 1000000;
		if (pdw_sample(c->w, &s) < 0) {
			fprintf(stderr, "kernel_perfdata: %s\n", pdw_error(c->w)->msg);
			exit(1);
		}
	}
}

int main(int argc, char **argv)
{
	struct c2c_error err = { 0 };
	struct pdw_attr la, sa;
	struct pdw_sid sid = { 0 };
	struct ctx c = { 0 };
	uint64_t shift = 0x2a00000;
	uint8_t bid[20];
	size_t bn;

	if (argc < 3) {
		fprintf(stderr, "usage: kernel_perfdata VMLINUX OUT.data [--shift HEX]\n");
		return 2;
	}
	const char *ko = NULL, *modmap = NULL, *modbid = NULL;
	uint64_t modbase = 0xffffffffc0a00000ull;
	for (int i = 3; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "--shift"))
			shift = strtoull(argv[++i], NULL, 16);
		else if (!strcmp(argv[i], "--module"))
			ko = argv[++i];
		else if (!strcmp(argv[i], "--modmap"))
			modmap = argv[++i];
		else if (!strcmp(argv[i], "--modbase"))
			modbase = strtoull(argv[++i], NULL, 16);
		else if (!strcmp(argv[i], "--modbid"))
			modbid = argv[++i];
	}
	if (ko && !modmap) {
		fprintf(stderr, "kernel_perfdata: --module needs --modmap NAME\n");
		return 2;
	}
	prog = prog_probe_open(argv[1]);
	if (!(bn = prog_probe_build_id(prog, bid))) {
		fprintf(stderr, "kernel_perfdata: %s has no build-id\n", argv[1]);
		return 1;
	}
	uint64_t text = prog_probe_sym(prog, "_text"), vcpu = prog_probe_sym(prog, "vcpu0") + shift;
	c.w = pdw_new(argv[2], NULL, &err);
	if (!c.w) {
		fprintf(stderr, "kernel_perfdata: %s\n", err.msg);
		return 1;
	}
	pdw_describe_machine(c.w, 1, 4, "kernel-test");
	pdw_add_build_id(c.w, -1, 1 /* PERF_RECORD_MISC_KERNEL */, bid, (uint8_t)bn, "[kernel.kallsyms]");
	pdw_attr_mem_loads(&la, 30, 4);
	pdw_attr_mem_stores(&sa, 4);
	c.ld = pdw_add_attr(c.w, &la);
	c.st = pdw_add_attr(c.w, &sa);
	c.t = 1000000000ULL;
	sid.time = c.t - 1000;
	/* What perf record synthesizes for a KASLR kernel. */
	struct c2c_mmap km = { .pid = -1, .tid = 0, .cpumode = C2C_MODE_KERNEL,
			       .filename = "[kernel.kallsyms]_text", .start = text + shift,
			       .len = 0x2000000, .pgoff = text + shift, .prot = 5 };
	pdw_mmap(c.w, &km, &sid);
	struct prog_probe *mod = NULL;
	if (ko) {
		uint8_t mbid[20];
		struct prog_probe *bp = prog_probe_open(modbid ? modbid : ko);
		size_t mbn = prog_probe_build_id(bp, mbid);
		prog_probe_close(bp);
		if (!mbn) {
			fprintf(stderr, "kernel_perfdata: %s has no build-id\n", modbid ? modbid : ko);
			return 1;
		}
		mod = prog_probe_open(ko);
		pdw_add_build_id(c.w, -1, 1, mbid, (uint8_t)mbn, modmap);
		struct c2c_mmap mm = { .pid = -1, .tid = 0, .cpumode = C2C_MODE_KERNEL, .filename = modmap,
				       .start = modbase, .len = 0x4000, .pgoff = 0, .prot = 5 };
		pdw_mmap(c.w, &mm, &sid);
	}
	struct c2c_comm cm = { .pid = 200, .tid = 200, .exec = 1, .comm = "qemu-kvm" };
	pdw_comm(c.w, &cm, &sid);
	for (int32_t t = 201; t <= (ko ? 204 : 203); t++) {
		struct c2c_task tk = { .pid = 200, .ppid = 200, .tid = t, .ptid = 200, .time = sid.time };
		pdw_fork(c.w, &tk, &sid);
	}
	uint64_t ip_kick = prog_probe_mem_insn(prog, "kvm_vcpu_kick", 0) + shift;
	uint64_t ip_exits = prog_probe_mem_insn(prog, "vcpu_enter_guest", 0) + shift;
	uint64_t ip_mode = prog_probe_mem_insn(prog, "vcpu_enter_guest", 1) + shift;
	uint64_t ip_run = prog_probe_mem_insn(prog, "kvm_arch_vcpu_runnable", 0) + shift;
	/* A .ko's symbol values and these addresses are .text-relative. */
	uint64_t ip_mexit = mod ? prog_probe_mem_insn(mod, "kvm_test_count_exit", 0) + modbase : 0;
	uint64_t ip_mhalt = mod ? prog_probe_mem_insn(mod, "kvm_test_halt_poll", 1) + modbase : 0;
	for (int round = 0; round < 2; round++) {
		sample(&c, 201, 0, ip_kick, vcpu + 8, PDW_ST_L1_HIT, 6);
		sample(&c, 202, 1, ip_exits, vcpu + 24, PDW_ST_L1_HIT, 5);
		sample(&c, 202, 1, ip_mode, vcpu, PDW_LD_LCL_HITM, 4);
		sample(&c, 203, 2, ip_run, vcpu + 16, PDW_LD_LCL_HITM, 7);
		if (mod) {
			sample(&c, 204, 3, ip_mexit, vcpu + 8, PDW_ST_L1_HIT, round ? 4 : 5);
			sample(&c, 204, 3, ip_mhalt, vcpu + 16, PDW_LD_LCL_HITM, round ? 5 : 6);
		}
		pdw_finished_round(c.w);
	}
	if (pdw_close(c.w, &err) < 0) {
		fprintf(stderr, "kernel_perfdata: %s\n", err.msg);
		return 1;
	}
	printf("shift %#" PRIx64 "\n", shift);
	prog_probe_close(prog);
	if (mod)
		prog_probe_close(mod);
	return 0;
}
