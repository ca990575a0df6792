/* kernel_list_perfdata: writes a perf c2c recording of kernel-mode samples
 * at instructions listed on standard input, in any kernel image (a real
 * vmlinux too), as perf record holds them on a KASLR kernel
 * (tests/gen/kernel_rec.h):
 *
 *   kernel_list_perfdata VMLINUX OUT.data [--shift HEX] < LIST
 *
 * LIST: one sample per line, "IP KIND ADDR" in hex — IP an instruction's
 * address in the image, KIND "ld" (a load, local HITM) or "st" (a store),
 * ADDR the data address it touched (heap addresses are not moved by the
 * shift). Samples go round-robin over tids 101..104 on CPUs 0..3 of pid
 * 100, so that tests/e2e/kernel_real_types.sh can ask how many kernel heap
 * samples of real kernel code c2ctui attributes to a member. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/gen/kernel_rec.h"
#include "tests/gen/prog_probe.h"

int main(int argc, char **argv)
{
	struct kernel_rec k = { 0 };
	struct prog_probe *img;
	uint64_t shift = 0x2a00000, ip, addr;
	char kind[8];
	unsigned n = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: kernel_list_perfdata VMLINUX OUT.data [--shift HEX] < LIST\n");
		return 2;
	}
	for (int i = 3; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--shift"))
			shift = strtoull(argv[++i], NULL, 16);
	img = prog_probe_open(argv[1]);
	kernel_rec_open(&k, "kernel_list_perfdata", img, argv[2], shift, 1, 4, "kernel-list");
	kernel_rec_side_band(&k, img, 100, "kworker", 101, 4);
	while (scanf("%" SCNx64 " %7s %" SCNx64, &ip, kind, &addr) == 3) {
		bool store = !strcmp(kind, "st");
		kernel_rec_sample(&k, 101 + (int32_t)(n % 4), n % 4, ip, addr, store ? PDW_ST_L1_HIT : PDW_LD_LCL_HITM,
				  150, 1);
		if (++n % 256 == 0)
			kernel_rec_round(&k);
	}
	kernel_rec_round(&k);
	kernel_rec_close(&k);
	prog_probe_close(img);
	printf("%u samples\n", n);
	return 0;
}
