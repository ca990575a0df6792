/* For the tools that write a perf c2c recording of kernel-mode samples in a
 * kernel-shaped test image (tests/kernel/): what perf record holds for a
 * KASLR kernel — the image's build-id as the kernel's BUILD_ID entry, the
 * "[kernel.kallsyms]_text" MMAP at _text + shift with pgoff the run-time
 * _text, the c2c load and store events — and PERF_RECORD_MISC_KERNEL
 * samples at the image's instructions moved by the shift.
 * Errors print one line and exit: these are test tools. */
#ifndef C2C_TESTS_KERNEL_REC_H
#define C2C_TESTS_KERNEL_REC_H

#include <stdint.h>

#include "tests/gen/perfdata_writer.h"
#include "tests/gen/prog_probe.h"

struct kernel_rec {
	struct pdw *w;
	const char *tool;    /* for messages */
	int ld, st;          /* event indexes */
	uint64_t shift;      /* KASLR offset added to the image's addresses */
	uint64_t t, step;    /* next sample time, ns between samples */
	int32_t pid;         /* the process every sample belongs to */
};

/* Creates OUT with the header features (nodes, cpus per node, host), the image's
 * build-id as the kernel's and the c2c events; starts time at 1 s. */
void kernel_rec_open(struct kernel_rec *k, const char *tool, struct prog_probe *img,
		     const char *out, uint64_t shift, int nodes, int cpus_per_node, const char *host);
/* The shifted kernel map, the process's COMM and a FORK per thread
 * (tids first_tid..first_tid+ntids-1). */
void kernel_rec_side_band(struct kernel_rec *k, struct prog_probe *img, int32_t pid,
			  const char *comm, int32_t first_tid, int ntids);
/* A kernel module's map as perf record synthesizes it from /proc/modules
 * (kernel mode, pid -1, the map name NAME — a path under /lib/modules or
 * "[name]" —, start base where its .text runs, pgoff 0) and bid_file's
 * build-id as NAME's BUILD_ID entry (the .ko's own, or another build's).
 * Module addresses are not moved by the kernel's shift. */
void kernel_rec_module(struct kernel_rec *k, const char *bid_file, const char *name, uint64_t base);
/* n samples of class cls by tid on cpu at image address ip (shifted here)
 * touching data address addr; loads weigh weight cycles. */
void kernel_rec_sample(struct kernel_rec *k, int32_t tid, uint32_t cpu, uint64_t ip,
		       uint64_t addr, enum pdw_mem_class cls, uint64_t weight, int n);
/* A FINISHED_ROUND record (perf record writes one per flush). */
void kernel_rec_round(struct kernel_rec *k);
void kernel_rec_close(struct kernel_rec *k);

#endif /* C2C_TESTS_KERNEL_REC_H */
