/* A kernel-mode c2c recording of a kernel-shaped test image
 * (tests/gen/kernel_rec.h). */
#include "tests/gen/kernel_rec.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static void check(struct kernel_rec *k, int rc)
{
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", k->tool, pdw_error(k->w)->msg);
		exit(1);
	}
}

void kernel_rec_open(struct kernel_rec *k, const char *tool, struct prog_probe *img,
		     const char *out, uint64_t shift, int nodes, int cpus_per_node, const char *host)
{
	uint32_t cpus = (uint32_t)(nodes * cpus_per_node);
	struct c2c_error err = { 0 };
	struct pdw_attr la, sa;
	uint8_t bid[20];
	size_t bn = prog_probe_build_id(img, bid);

	k->tool = tool;
	k->shift = shift;
	k->t = 1000000000ULL;
	if (!k->step)
		k->step = 1000000;
	if (!bn) {
		fprintf(stderr, "%s: the kernel image has no build-id\n", tool);
		exit(1);
	}
	if (!(k->w = pdw_new(out, NULL, &err))) {
		fprintf(stderr, "%s: %s\n", tool, err.msg);
		exit(1);
	}
	pdw_describe_machine(k->w, (uint32_t)nodes, (uint32_t)cpus_per_node, host);
	check(k, pdw_add_build_id(k->w, -1, 1 /* PERF_RECORD_MISC_KERNEL */, bid, (uint8_t)bn,
				  "[kernel.kallsyms]"));
	pdw_attr_mem_loads(&la, 30, cpus);
	pdw_attr_mem_stores(&sa, cpus);
	check(k, k->ld = pdw_add_attr(k->w, &la));
	check(k, k->st = pdw_add_attr(k->w, &sa));
}

void kernel_rec_side_band(struct kernel_rec *k, struct prog_probe *img, int32_t pid,
			  const char *comm, int32_t first_tid, int ntids)
{
	struct pdw_sid sid = { .time = k->t - 1000 };
	uint64_t text = prog_probe_sym(img, "_text") + k->shift;
	/* What perf record synthesizes for a KASLR kernel. */
	struct c2c_mmap km = { .pid = -1, .tid = 0, .cpumode = C2C_MODE_KERNEL,
			       .filename = "[kernel.kallsyms]_text", .start = text,
			       .len = 0x2000000, .pgoff = text, .prot = 5 };
	struct c2c_comm cm = { .pid = pid, .tid = pid, .exec = 1, .comm = comm };

	k->pid = pid;
	check(k, pdw_mmap(k->w, &km, &sid));
	check(k, pdw_comm(k->w, &cm, &sid));
	for (int32_t t = first_tid; t < first_tid + ntids; t++) {
		struct c2c_task tk = { .pid = pid, .ppid = pid, .tid = t, .ptid = pid, .time = sid.time };
		check(k, pdw_fork(k->w, &tk, &sid));
	}
}

void kernel_rec_module(struct kernel_rec *k, const char *bid_file, const char *name, uint64_t base)
{
	struct pdw_sid sid = { .time = k->t - 1000 };
	struct prog_probe *bp = prog_probe_open(bid_file);
	uint8_t bid[20];
	size_t bn = prog_probe_build_id(bp, bid);
	struct c2c_mmap mm = { .pid = -1, .tid = 0, .cpumode = C2C_MODE_KERNEL, .filename = name,
			       .start = base, .len = 0x4000, .pgoff = 0, .prot = 5 };

	prog_probe_close(bp);
	if (!bn) {
		fprintf(stderr, "%s: %s has no build-id\n", k->tool, bid_file);
		exit(1);
	}
	check(k, pdw_add_build_id(k->w, -1, 1 /* PERF_RECORD_MISC_KERNEL */, bid, (uint8_t)bn, name));
	check(k, pdw_mmap(k->w, &mm, &sid));
}

void kernel_rec_sample(struct kernel_rec *k, int32_t tid, uint32_t cpu, uint64_t ip,
		       uint64_t addr, enum pdw_mem_class cls, uint64_t weight, int n)
{
	bool store = cls >= PDW_ST_L1_HIT;

	for (int i = 0; i < n; i++) {
		struct c2c_sample s = {
			.event = (uint32_t)(store ? k->st : k->ld),
			.cpumode = C2C_MODE_KERNEL, .exact_ip = 1,
			.time = k->t, .ip = ip + k->shift, .pid = k->pid, .tid = tid, .cpu = cpu,
			.addr = addr, .period = 1, .weight = store ? 0 : weight,
			.data_src = pdw_data_src(cls, 0),
		};
		k->t += k->step;
		check(k, pdw_sample(k->w, &s));
	}
}

void kernel_rec_round(struct kernel_rec *k)
{
	check(k, pdw_finished_round(k->w));
}

void kernel_rec_close(struct kernel_rec *k)
{
	struct c2c_error err = { 0 };

	if (pdw_close(k->w, &err) < 0) {
		fprintf(stderr, "%s: %s\n", k->tool, err.msg);
		exit(1);
	}
	k->w = NULL;
}
