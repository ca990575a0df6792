/* kernel_perfdata: writes a perf c2c recording (with the test perf.data
 * writer) of kernel-mode samples in a kernel image (tests/kernel/kvm.c
 * built as a vmlinux) as perf record would hold them on a KASLR kernel:
 * the "[kernel.kallsyms]_text" MMAP at _text + SHIFT with pgoff the
 * run-time _text, the image's build-id as the kernel's BUILD_ID entry,
 * and PERF_RECORD_MISC_KERNEL samples at the real (shifted) instructions
 * of its functions touching the shared vcpu0.
 *
 *   kernel_perfdata VMLINUX OUT.data [--shift HEX] [--heap]   (default 0x2a00000)
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
 * vcpu0.cpu (kvm_arch_vcpu_runnable, HITM) 14.
 *
 * --heap adds the same accesses to HEAP_OBJS heap vcpus (direct-map
 * addresses HEAP_BASE + k * 0x40, no data symbol: only the instruction's
 * register and the image's DWARF type them), per object: requests stored
 * 3 times (tid 201), stat_exits stored 2 (tid 202), mode loaded 2 (tid
 * 202, HITM), cpu loaded 4 (tid 203, HITM). With 4 objects: 12, 8, 8, 16;
 * 44 samples. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/gen/kernel_rec.h"
#include "tests/gen/prog_probe.h"

/* Kernel heap objects: the x86-64 direct map (page_offset_base). */
#define HEAP_BASE 0xffff888100000000ULL
#define HEAP_OBJS 4

int main(int argc, char **argv)
{
	struct kernel_rec k = { 0 };
	struct prog_probe *prog;
	uint64_t shift = 0x2a00000;
	bool heap = false;
	const char *ko = NULL, *modmap = NULL, *modbid = NULL;
	uint64_t modbase = 0xffffffffc0a00000ull;
	struct prog_probe *mod = NULL;

	if (argc < 3) {
		fprintf(stderr, "usage: kernel_perfdata VMLINUX OUT.data [--shift HEX] [--heap]\n");
		return 2;
	}
	for (int i = 3; i < argc; i++)
		if (!strcmp(argv[i], "--shift") && i + 1 < argc)
			shift = strtoull(argv[++i], NULL, 16);
		else if (!strcmp(argv[i], "--heap"))
			heap = true;
		else if (!strcmp(argv[i], "--module") && i + 1 < argc)
			ko = argv[++i];
		else if (!strcmp(argv[i], "--modmap") && i + 1 < argc)
			modmap = argv[++i];
		else if (!strcmp(argv[i], "--modbase") && i + 1 < argc)
			modbase = strtoull(argv[++i], NULL, 16);
		else if (!strcmp(argv[i], "--modbid") && i + 1 < argc)
			modbid = argv[++i];
	if (ko && !modmap) {
		fprintf(stderr, "kernel_perfdata: --module needs --modmap NAME\n");
		return 2;
	}
	prog = prog_probe_open(argv[1]);
	kernel_rec_open(&k, "kernel_perfdata", prog, argv[2], shift, 1, 4, "kernel-test");
	kernel_rec_side_band(&k, prog, 200, "qemu-kvm", 201, ko ? 4 : 3);
	if (ko) {
		kernel_rec_module(&k, modbid ? modbid : ko, modmap, modbase);
		mod = prog_probe_open(ko);
	}
	uint64_t vcpu = prog_probe_sym(prog, "vcpu0") + shift;
	uint64_t ip_kick = prog_probe_mem_insn(prog, "kvm_vcpu_kick", 0);
	uint64_t ip_exits = prog_probe_mem_insn(prog, "vcpu_enter_guest", 0);
	uint64_t ip_mode = prog_probe_mem_insn(prog, "vcpu_enter_guest", 1);
	uint64_t ip_run = prog_probe_mem_insn(prog, "kvm_arch_vcpu_runnable", 0);
	/* A .ko's symbol values are .text-relative; kernel_rec_sample adds the
	 * kernel's shift, which module addresses do not have: taken off here. */
	uint64_t ip_mexit = mod ? prog_probe_mem_insn(mod, "kvm_test_count_exit", 0) + modbase - shift : 0;
	uint64_t ip_mhalt = mod ? prog_probe_mem_insn(mod, "kvm_test_halt_poll", 1) + modbase - shift : 0;
	for (int round = 0; round < 2; round++) {
		kernel_rec_sample(&k, 201, 0, ip_kick, vcpu + 8, PDW_ST_L1_HIT, 150, 6);
		kernel_rec_sample(&k, 202, 1, ip_exits, vcpu + 24, PDW_ST_L1_HIT, 150, 5);
		kernel_rec_sample(&k, 202, 1, ip_mode, vcpu, PDW_LD_LCL_HITM, 150, 4);
		kernel_rec_sample(&k, 203, 2, ip_run, vcpu + 16, PDW_LD_LCL_HITM, 150, 7);
		if (mod) {
			kernel_rec_sample(&k, 204, 3, ip_mexit, vcpu + 8, PDW_ST_L1_HIT, 150, round ? 4 : 5);
			kernel_rec_sample(&k, 204, 3, ip_mhalt, vcpu + 16, PDW_LD_LCL_HITM, 150, round ? 5 : 6);
		}
		kernel_rec_round(&k);
	}
	for (int n = 0; heap && n < HEAP_OBJS; n++) {
		uint64_t o = HEAP_BASE + (uint64_t)n * 0x40;
		kernel_rec_sample(&k, 201, 0, ip_kick, o + 8, PDW_ST_L1_HIT, 150, 3);
		kernel_rec_sample(&k, 202, 1, ip_exits, o + 24, PDW_ST_L1_HIT, 150, 2);
		kernel_rec_sample(&k, 202, 1, ip_mode, o, PDW_LD_LCL_HITM, 150, 2);
		kernel_rec_sample(&k, 203, 2, ip_run, o + 16, PDW_LD_LCL_HITM, 150, 4);
		kernel_rec_round(&k);
	}
	kernel_rec_close(&k);
	printf("shift %#" PRIx64 "\n", shift);
	prog_probe_close(prog);
	if (mod)
		prog_probe_close(mod);
	return 0;
}
