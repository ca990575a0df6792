/* Scenario generator: builds whole recordings that look like `perf c2c
 * record` on a 2-node machine running a demo program (see scenario.h and
 * docs/generated-fixtures.md). Each scenario is a deterministic function of
 * its seed; the counts it wrote are returned in struct gen_expect.
 *
 * Address space of every scenario (what the side-band records map):
 *   [kernel.kallsyms]_text  0xffffffff81000000 + 36 MiB (pid -1, MMAP)
 *   /usr/bin/c2c-demo       0x400000 + 16 KiB r-x (MMAP2 with build-id)
 *   //anon heap             0x7f3a40000000 + 16 MiB rw- (MMAP2)
 *   second process (mixed/bench): /usr/bin/c2c-demo2 at 0x600000 and its
 *   heap at 0x7f5b80000000
 * Data addresses in GEN_NOMAP_BASE.. fall outside every map ("nomap"). */
#include "tests/gen/scenario.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KERNEL_START 0xffffffff81000000ull
#define KERNEL_LEN   0x2400000ull
#define KERNEL_DATA  (KERNEL_START + 0x1800000ull)
#define BIN_LEN      0x4000ull
#define HEAP_LEN     0x1000000ull  /* at least; more for --lines past 36,000 */
#define GEN_NOMAP_BASE 0x6f0000000000ull
#define TIME0        1000000000000ull   /* 1000 s of perf clock */
#define ROUND_EVERY  1000u              /* samples between FINISHED_ROUNDs */
#define MAX_PROCS    2
#define MAX_THREADS  64

enum { MODE_KERNEL = 1, MODE_USER = 2 };

struct proc {
	int32_t pid;
	const char *comm, *binary;
	uint64_t bin, heap;
	uint32_t nr_threads;
	uint32_t cpu[MAX_THREADS];   /* thread t runs pinned on cpu[t] */
};

struct gen {
	struct pdw *w;
	struct gen_expect *e;
	uint64_t rng;
	uint64_t time;
	uint32_t nodes, cpn, ncpu;
	uint64_t heap_len;          /* each process's //anon heap map */
	uint32_t since_round;
	struct proc procs[MAX_PROCS];
	uint32_t nr_procs;
	int be;                      /* big-endian file: RAW payloads too */
};

/* One sample to write; tid/cpu come from (proc, thread). */
struct spec {
	uint8_t cls, mods, kernel, proc, thread;
	uint64_t ip, addr, weight;
};

static uint64_t rng_next(struct gen *g)
{
	/* splitmix64: fast, and the same sequence on every machine. */
	uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t rng_below(struct gen *g, uint32_t n)
{
	return (uint32_t)(((rng_next(g) >> 32) * (uint64_t)n) >> 32);
}

static int is_store(uint8_t cls)
{
	return cls == PDW_ST_L1_HIT || cls == PDW_ST_L1_MISS || cls == PDW_ST_NA || cls == PDW_ST_UNCACHED;
}

static int addr_mapped(const struct gen *g, const struct spec *s)
{
	if (s->kernel)
		return s->addr >= KERNEL_START && s->addr < KERNEL_START + KERNEL_LEN;
	for (uint32_t i = 0; i < g->nr_procs; i++)
		if (i == s->proc && s->addr >= g->procs[i].heap && s->addr < g->procs[i].heap + g->heap_len)
			return 1;
	return 0;
}

/* A plausible load latency (cycles) for a class: what ldlat-30 PEBS shows. */
static uint64_t class_weight(struct gen *g, uint8_t cls)
{
	switch (cls) {
	case PDW_LD_L1_HIT: return 30 + rng_below(g, 12);
	case PDW_LD_LFB_HIT: return 40 + rng_below(g, 60);
	case PDW_LD_L2_HIT: return 38 + rng_below(g, 30);
	case PDW_LD_LLC_HIT: return 60 + rng_below(g, 80);
	case PDW_LD_LCL_HITM: return 150 + rng_below(g, 200);
	case PDW_LD_RMT_HITM: return 300 + rng_below(g, 400);
	case PDW_LD_RMT_HIT: return 250 + rng_below(g, 200);
	case PDW_LD_LCL_DRAM: case PDW_LD_LCL_DRAM_SHARED: return 200 + rng_below(g, 150);
	case PDW_LD_RMT_DRAM: case PDW_LD_RMT_DRAM_SHARED: return 320 + rng_below(g, 200);
	default: return is_store(cls) ? 0 : 50 + rng_below(g, 100);
	}
}

static int round_tick(struct gen *g)
{
	if (++g->since_round < ROUND_EVERY)
		return 0;
	g->since_round = 0;
	return pdw_finished_round(g->w);
}

static int emit(struct gen *g, const struct spec *s)
{
	const struct proc *p = &g->procs[s->proc];
	struct gen_expect *e = g->e;
	struct c2c_sample x;
	int store = is_store(s->cls), ret;

	memset(&x, 0, sizeof(x));
	/* ~4000 Hz per CPU on 16 CPUs: one sample every ~15 us overall. */
	g->time += 5000 + rng_below(g, 20000);
	x.event = store ? 1 : 0;
	x.cpumode = s->kernel ? MODE_KERNEL : MODE_USER;
	x.exact_ip = 1;
	x.time = g->time;
	x.ip = s->ip;
	x.pid = p->pid;
	x.tid = p->pid + (int32_t)s->thread;
	x.cpu = p->cpu[s->thread];
	x.addr = s->addr;
	x.phys_addr = s->addr ? 0x100000000ull + (s->addr & 0x3fffffffull) : 0;
	x.period = 1500 + rng_below(g, 1000);
	x.weight = store ? 0 : s->weight;
	x.data_src = pdw_data_src((enum pdw_mem_class)s->cls, s->mods);
	if ((ret = pdw_sample(g->w, &x)) < 0)
		return ret;
	e->samples++;
	if (s->cls == PDW_NOPARSE)
		e->noparse++;
	else if (store)
		e->stores++;
	else
		e->loads++;
	if (!s->addr && s->cls != PDW_NOPARSE)
	{
		if (store)
			e->st_noadrs++;
		else
			e->ld_noadrs++;
	} else
		e->by_class[s->cls]++;
	if (s->addr && s->cls != PDW_NOPARSE && !addr_mapped(g, s))
		e->nomap++;
	if (s->mods & PDW_MEM_LOCKED)
		e->locked++;
	if (s->mods & PDW_MEM_BLK_DATA)
		e->blk_data++;
	if (s->mods & PDW_MEM_BLK_ADDR)
		e->blk_addr++;
	if (s->kernel)
		e->kernel++;
	return round_tick(g);
}

/* ---- set-up: machine, events, processes ------------------------------ */

static void proc_init(struct gen *g, struct proc *p, int32_t pid, const char *comm, const char *binary,
		      uint64_t bin, uint64_t heap, uint32_t nr_threads, uint32_t first)
{
	p->pid = pid;
	p->comm = comm;
	p->binary = binary;
	p->bin = bin;
	p->heap = heap;
	p->nr_threads = nr_threads > MAX_THREADS ? MAX_THREADS : nr_threads;
	/* Threads alternate between nodes 0 and 1 (whatever the node count, so
	 * that the scenarios' local/remote HITM labels stay true): thread t of
	 * proc 0 runs on node t % 2. */
	for (uint32_t t = 0; t < p->nr_threads; t++) {
		uint32_t two = g->nodes > 1 ? 2 : 1;
		uint32_t node = (t + first) % two, slot = (t + first) / two;
		p->cpu[t] = node * g->cpn + slot % g->cpn;
	}
	g->nr_procs++;
}

static void build_id_of(const struct proc *p, uint8_t id[20])
{
	for (int i = 0; i < 20; i++)
		id[i] = (uint8_t)(0xc2 ^ (p->pid * 31 + i * 17));
}

static int tracepoint_attrs(struct gen *g)
{
	struct pdw_tp_format fmts[2] = {
		{ "lock", pdw_format_contention_begin }, { "lock", pdw_format_contention_end },
	};
	/* What perf record -e lock:contention_begin,lock:contention_end -a -g
	 * asks for: IDENTIFIER instead of ID (several events), RAW payloads. */
	struct pdw_attr a = {
		.type = 2, .sample_period = 1,
		.sample_type = PDW_SAMPLE_IP | PDW_SAMPLE_TID | PDW_SAMPLE_TIME | PDW_SAMPLE_CALLCHAIN |
			       PDW_SAMPLE_CPU | PDW_SAMPLE_PERIOD | PDW_SAMPLE_RAW | PDW_SAMPLE_IDENTIFIER,
		.read_format = 4, .nr_ids = g->ncpu,
	};
	uint8_t *blob;
	size_t len;
	int ret;

	if ((ret = pdw_tracing_data(fmts, 2, g->be, &blob, &len)))
		return ret;
	ret = pdw_set_tracing_data(g->w, blob, len);
	free(blob);
	if (ret)
		return ret;
	a.config = PDW_TP_CONTENTION_BEGIN_ID;
	a.name = "lock:contention_begin";
	a.bits = PDW_ATTR_DISABLED | PDW_ATTR_INHERIT | PDW_ATTR_MMAP | PDW_ATTR_COMM | PDW_ATTR_TASK |
		 PDW_ATTR_SAMPLE_ID_ALL | PDW_ATTR_EXCLUDE_GUEST | PDW_ATTR_MMAP2 | PDW_ATTR_COMM_EXEC;
	if ((ret = pdw_add_attr(g->w, &a)) < 0)
		return ret;
	a.config = PDW_TP_CONTENTION_END_ID;
	a.name = "lock:contention_end";
	a.bits = PDW_ATTR_DISABLED | PDW_ATTR_INHERIT | PDW_ATTR_SAMPLE_ID_ALL | PDW_ATTR_EXCLUDE_GUEST;
	if ((ret = pdw_add_attr(g->w, &a)) < 0)
		return ret;
	return 0;
}

static int header_setup(struct gen *g, const struct gen_params *prm, uint64_t samples, int lock)
{
	struct pdw_attr loads, stores;
	char seed[32], nsamples[32];
	const char *argv[] = { "c2c-gen (generated)", "--scenario", prm->scenario, "--seed", seed,
			       "--samples", nsamples };
	int ret;

	snprintf(seed, sizeof(seed), "%" PRIu64, prm->seed ? prm->seed : 1);
	snprintf(nsamples, sizeof(nsamples), "%" PRIu64, samples);
	if ((ret = pdw_describe_machine(g->w, g->nodes, g->cpn, "c2c-gen (generated)")) ||
	    (ret = pdw_set_cmdline(g->w, 7, argv)))
		return ret;
	for (uint32_t i = 0; i < g->nr_procs; i++) {
		uint8_t id[20];
		build_id_of(&g->procs[i], id);
		if ((ret = pdw_add_build_id(g->w, g->procs[i].pid, MODE_USER, id, 20, g->procs[i].binary)))
			return ret;
	}
	if (lock)
		return tracepoint_attrs(g);
	pdw_attr_mem_loads(&loads, 30, g->ncpu);
	pdw_attr_mem_stores(&stores, g->ncpu);
	if ((ret = pdw_add_attr(g->w, &loads)) < 0 || (ret = pdw_add_attr(g->w, &stores)) < 0)
		return ret;
	return 0;
}

static int sideband_setup(struct gen *g)
{
	struct c2c_mmap k = {
		.pid = -1, .tid = 0, .start = KERNEL_START, .len = KERNEL_LEN, .pgoff = KERNEL_START,
		.cpumode = MODE_KERNEL, .filename = "[kernel.kallsyms]_text",
	};
	struct pdw_sid sid = { .time = 0, .cpu = 0, .event = 0 };
	int ret;

	/* perf record synthesizes the kernel map first, then each process. */
	if ((ret = pdw_mmap(g->w, &k, &sid)))
		return ret;
	for (uint32_t i = 0; i < g->nr_procs; i++) {
		const struct proc *p = &g->procs[i];
		struct c2c_comm c = { .pid = p->pid, .tid = p->pid, .exec = 1, .time = 0, .comm = p->comm };
		struct c2c_mmap bin = {
			.pid = p->pid, .tid = p->pid, .start = p->bin, .len = BIN_LEN, .pgoff = 0,
			.prot = 5, .flags = 2, .cpumode = MODE_USER, .build_id_size = 20,
			.filename = p->binary,
		};
		struct c2c_mmap heap = {
			.pid = p->pid, .tid = p->pid, .start = p->heap, .len = g->heap_len, .pgoff = 0,
			.prot = 3, .flags = 0x22, .cpumode = MODE_USER, .filename = "//anon",
		};
		build_id_of(p, bin.build_id);
		sid.cpu = p->cpu[0];
		sid.time = g->time;
		if ((ret = pdw_comm(g->w, &c, &sid)) || (ret = pdw_mmap2(g->w, &bin, &sid)) ||
		    (ret = pdw_mmap2(g->w, &heap, &sid)))
			return ret;
		for (uint32_t t = 1; t < p->nr_threads; t++) {
			struct c2c_task f = { .pid = p->pid, .ppid = p->pid, .tid = p->pid + (int32_t)t,
					      .ptid = p->pid, .time = g->time += 1000 };
			struct c2c_comm tc = { .pid = p->pid, .tid = p->pid + (int32_t)t, .comm = p->comm };
			sid.time = g->time;
			if ((ret = pdw_fork(g->w, &f, &sid)) || (ret = pdw_comm(g->w, &tc, &sid)))
				return ret;
		}
	}
	return pdw_finished_init(g->w);
}

static int exits(struct gen *g)
{
	for (uint32_t i = 0; i < g->nr_procs; i++) {
		const struct proc *p = &g->procs[i];
		for (uint32_t t = p->nr_threads; t-- > 0;) {
			struct c2c_task x = { .pid = p->pid, .ppid = p->pid, .tid = p->pid + (int32_t)t,
					      .ptid = p->pid, .time = g->time += 1000 };
			struct pdw_sid sid = { .time = g->time, .cpu = p->cpu[t], .event = 0 };
			int ret = pdw_exit(g->w, &x, &sid);
			if (ret)
				return ret;
		}
	}
	return pdw_finished_round(g->w);
}

/* ---- list-based scenarios (exact counts, shuffled) ------------------- */

struct list {
	struct spec *v;
	size_t n, cap;
};

static int list_add(struct list *l, uint32_t count, const struct spec *s)
{
	if (l->n + count > l->cap) {
		size_t cap = l->cap ? l->cap : 1024;
		void *p;
		while (cap < l->n + count)
			cap *= 2;
		if (!(p = realloc(l->v, cap * sizeof(*l->v))))
			return -ENOMEM;
		l->v = p;
		l->cap = cap;
	}
	for (uint32_t i = 0; i < count; i++)
		l->v[l->n++] = *s;
	return 0;
}

/* count samples of class cls by thread t of proc 0 at addr from code ip. */
static int add(struct gen *g, struct list *l, uint32_t count, uint8_t cls, uint8_t mods, uint8_t t,
	       uint64_t addr, uint64_t ip)
{
	struct spec s = { .cls = cls, .mods = mods, .thread = t, .ip = ip, .addr = addr };

	(void)g;   /* weights are drawn at emission, in shuffled order */
	return list_add(l, count, &s);
}

/* Cold traffic on many other lines so that the hot ones stand out. */
static int add_background(struct gen *g, struct list *l, uint64_t count)
{
	const struct proc *p = &g->procs[0];
	static const uint8_t mix[20] = {
		PDW_LD_L1_HIT, PDW_LD_L1_HIT, PDW_LD_L1_HIT, PDW_LD_L1_HIT, PDW_LD_L1_HIT,
		PDW_LD_L1_HIT, PDW_LD_L1_HIT, PDW_LD_L1_HIT, PDW_LD_LFB_HIT, PDW_LD_LFB_HIT,
		PDW_LD_L2_HIT, PDW_LD_L2_HIT, PDW_LD_L2_HIT, PDW_LD_LLC_HIT, PDW_LD_LLC_HIT,
		PDW_LD_LCL_DRAM, PDW_LD_RMT_DRAM, PDW_ST_L1_HIT, PDW_ST_L1_HIT, PDW_ST_L1_MISS,
	};

	for (uint64_t i = 0; i < count; i++) {
		struct spec s = {
			.cls = mix[rng_below(g, 20)],
			.thread = (uint8_t)rng_below(g, p->nr_threads),
			.addr = p->heap + 0x100000 + (uint64_t)rng_below(g, 256) * 0x40 + rng_below(g, 8) * 8,
			.ip = p->bin + 0x1800 + (uint64_t)rng_below(g, 16) * 0x10,
		};
		int ret = list_add(l, 1, &s);
		if (ret)
			return ret;
	}
	return 0;
}

static int list_emit(struct gen *g, struct list *l)
{
	/* Fisher-Yates with the scenario's generator: interleaved like real
	 * sampling, yet the same file for the same seed. */
	for (size_t i = l->n; i > 1; i--) {
		size_t j = rng_below(g, (uint32_t)i);
		struct spec t = l->v[i - 1];
		l->v[i - 1] = l->v[j];
		l->v[j] = t;
	}
	for (size_t i = 0; i < l->n; i++) {
		int ret;
		if (!is_store(l->v[i].cls) && l->v[i].cls != PDW_NOPARSE)
			l->v[i].weight = class_weight(g, l->v[i].cls);
		if ((ret = emit(g, &l->v[i])))
			return ret;
	}
	return 0;
}

/* false-sharing: three adjacent lines of a struct array; in each, three
 * threads own one field each (A at +0x00 and C at +0x10 run on one node,
 * B at +0x20 on the other) and write it; their loads of their own field miss
 * with HITM because the neighbours' stores own the line. Line i is
 * (3 - i) times as busy. */
static int scen_false_sharing(struct gen *g, struct list *l, uint64_t total)
{
	const struct proc *p = &g->procs[0];
	int ret = 0;

	for (uint32_t i = 0; i < 3 && !ret; i++) {
		uint64_t line = p->heap + 0x10000 + i * 0x40;
		uint32_t f = 3 - i;
		struct { uint8_t thread; uint32_t off; int has_local_peer; } own[3] = {
			/* Thread t runs on node t % 2: 3i and 3i+2 share a node. */
			{ (uint8_t)(3 * i), 0x00, 1 },      /* A */
			{ (uint8_t)(3 * i + 2), 0x10, 1 },  /* C */
			{ (uint8_t)(3 * i + 1), 0x20, 0 },  /* B */
		};
		for (int k = 0; k < 3 && !ret; k++) {
			uint64_t addr = line + own[k].off;
			uint64_t st_ip = p->bin + 0x1100 + i * 0x100 + k * 0x20, ld_ip = st_ip + 0x8;
			uint8_t t = own[k].thread;
			if ((ret = add(g, l, 16 * f, PDW_ST_L1_HIT, 0, t, addr, st_ip)) ||
			    (ret = add(g, l, 8 * f, PDW_ST_L1_MISS, 0, t, addr, st_ip)) ||
			    (ret = add(g, l, own[k].has_local_peer ? 6 * f : 0, PDW_LD_LCL_HITM, 0, t, addr, ld_ip)) ||
			    (ret = add(g, l, 10 * f, PDW_LD_RMT_HITM, 0, t, addr, ld_ip)) ||
			    (ret = add(g, l, 24 * f, PDW_LD_L1_HIT, 0, t, addr, ld_ip)) ||
			    (ret = add(g, l, 6 * f, PDW_LD_LFB_HIT, 0, t, addr, ld_ip)))
				break;
		}
	}
	if (!ret && total > l->n)
		ret = add_background(g, l, total - l->n);
	return ret;
}

/* true-sharing: a counter at +0x00 of one line incremented (locked) by six
 * threads on both nodes, and a flag at +0x08 of the next line written by
 * thread 0 and polled by all the others: same offsets written and read. */
static int scen_true_sharing(struct gen *g, struct list *l, uint64_t total)
{
	const struct proc *p = &g->procs[0];
	uint64_t counter = p->heap + 0x20000, flag = p->heap + 0x20040 + 0x08;
	uint64_t inc_ip = p->bin + 0x1300, poll_ip = p->bin + 0x1340, set_ip = p->bin + 0x1380;
	int ret = 0;

	for (uint8_t t = 0; t < 6 && !ret; t++) {
		if ((ret = add(g, l, 12, PDW_ST_L1_HIT, PDW_MEM_LOCKED, t, counter, inc_ip)) ||
		    (ret = add(g, l, 8, PDW_ST_L1_MISS, PDW_MEM_LOCKED, t, counter, inc_ip)) ||
		    (ret = add(g, l, 8, PDW_LD_LCL_HITM, PDW_MEM_LOCKED, t, counter, inc_ip)) ||
		    (ret = add(g, l, 10, PDW_LD_RMT_HITM, PDW_MEM_LOCKED, t, counter, inc_ip)) ||
		    (ret = add(g, l, 10, PDW_LD_L1_HIT, PDW_MEM_LOCKED, t, counter, inc_ip)))
			break;
		if (t == 0)
			ret = add(g, l, 30, PDW_ST_L1_HIT, 0, t, flag, set_ip);
		/* Thread t runs on node t % 2; thread 0 (the writer) on node 0. */
		else if ((ret = add(g, l, t % 2 ? 6 : 5, t % 2 ? PDW_LD_RMT_HITM : PDW_LD_LCL_HITM, 0, t,
				    flag, poll_ip)) == 0)
			ret = add(g, l, 20, PDW_LD_L1_HIT, 0, t, flag, poll_ip);
	}
	if (!ret && total > l->n)
		ret = add_background(g, l, total - l->n);
	return ret;
}

/* classes: class c has 5 + c samples on its own line (c = enum order), plus
 * modifiers and address cases in known numbers (see docs). */
static int scen_classes(struct gen *g, struct list *l, uint64_t total)
{
	const struct proc *p = &g->procs[0];
	uint64_t base = p->heap + 0x30000, ip = p->bin + 0x1400;
	int ret = 0;

	for (uint32_t c = 0; c < PDW_MEM_CLASS_COUNT && !ret; c++)
		ret = add(g, l, 5 + c, (uint8_t)c, 0, (uint8_t)(c % p->nr_threads), base + c * 0x40 + 8,
			  ip + c * 0x10);
	if (ret ||
	    (ret = add(g, l, 7, PDW_LD_L1_HIT, PDW_MEM_LOCKED, 1, base + 0x800, ip + 0x200)) ||
	    (ret = add(g, l, 3, PDW_ST_L1_HIT, PDW_MEM_LOCKED, 1, base + 0x800, ip + 0x210)) ||
	    (ret = add(g, l, 4, PDW_LD_LLC_HIT, PDW_MEM_BLK_DATA, 2, base + 0x840, ip + 0x220)) ||
	    (ret = add(g, l, 2, PDW_LD_L2_HIT, PDW_MEM_BLK_ADDR, 3, base + 0x880, ip + 0x230)) ||
	    (ret = add(g, l, 5, PDW_LD_L1_HIT, 0, 0, 0, ip + 0x240)) ||
	    (ret = add(g, l, 4, PDW_ST_L1_HIT, 0, 0, 0, ip + 0x250)) ||
	    (ret = add(g, l, 6, PDW_LD_L1_HIT, 0, 4, GEN_NOMAP_BASE + 0x40, ip + 0x260)) ||
	    (ret = add(g, l, 2, PDW_ST_L1_HIT, 0, 4, GEN_NOMAP_BASE + 0x80, ip + 0x270)))
		return ret;
	if (total > l->n)
		ret = add_background(g, l, total - l->n);
	return ret;
}

/* ---- streaming scenarios: mixed and bench ---------------------------- */

#define MIX_LINES 512u     /* the mixed/bench shape's defaults */
#define MIX_SITES 200u
#define MIX_HOT   16u

/* The streaming scenarios' shape: how many objects (each about one cache
 * line), code sites and threads (--lines/--sites/--threads of c2c-gen). */
struct mix {
	uint32_t lines, sites;
	double *cum;              /* Zipf-like cumulative popularity */
};

static uint32_t mix_pick_line(struct gen *g, const struct mix *m)
{
	double u = (double)(rng_next(g) >> 11) * (1.0 / 9007199254740992.0) * m->cum[m->lines - 1];
	uint32_t lo = 0, hi = m->lines - 1;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (m->cum[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint8_t mix_load_class(struct gen *g, int hot)
{
	uint32_t r = rng_below(g, 100);

	if (hot) {
		if (r < 15) return PDW_LD_LCL_HITM;
		if (r < 35) return PDW_LD_RMT_HITM;
		if (r < 70) return PDW_LD_L1_HIT;
		if (r < 80) return PDW_LD_LFB_HIT;
		if (r < 85) return PDW_LD_L2_HIT;
		if (r < 95) return PDW_LD_LLC_HIT;
		return PDW_LD_RMT_HIT;
	}
	if (r < 55) return PDW_LD_L1_HIT;
	if (r < 65) return PDW_LD_LFB_HIT;
	if (r < 77) return PDW_LD_L2_HIT;
	if (r < 87) return PDW_LD_LLC_HIT;
	if (r < 93) return PDW_LD_LCL_DRAM;
	if (r < 97) return PDW_LD_RMT_DRAM;
	if (r < 99) return PDW_LD_LCL_HITM;
	return PDW_LD_RMT_HITM;
}

static int mix_sample(struct gen *g, const struct mix *m, uint64_t i)
{
	uint32_t k = mix_pick_line(g, m), r = rng_below(g, 1000);
	uint8_t pi = (uint8_t)(k % g->nr_procs);
	const struct proc *p = &g->procs[pi];
	uint32_t nf = 1 + k % 4, f = rng_below(g, nf), nsites = 1 + (k + f) % 3;
	struct spec s = { .proc = pi, .thread = (uint8_t)rng_below(g, p->nr_threads) };

	(void)i;
	s.addr = p->heap + 0x40000 + (uint64_t)k * 0x1c0 + f * 16 + (k & 1) * 8;
	s.ip = p->bin + 0x1000 + ((k * 7 + f * 3 + rng_below(g, nsites)) % m->sites) * 0x10;
	if (rng_below(g, 4) == 0)
		s.cls = rng_below(g, 10) < 7 ? PDW_ST_L1_HIT : PDW_ST_L1_MISS;
	else
		s.cls = mix_load_class(g, k < MIX_HOT);
	if (r < 10) {
		/* 1%: the data address is outside every map. */
		s.addr = GEN_NOMAP_BASE + (uint64_t)rng_below(g, 0x1000) * 8;
	} else if (r < 15) {
		/* 0.5%: kernel code touching kernel data (per-cpu counters). */
		s.kernel = 1;
		s.ip = KERNEL_START + 0x100000 + (uint64_t)rng_below(g, 0x1000) * 0x10;
		s.addr = KERNEL_DATA + (uint64_t)rng_below(g, 64) * 0x40;
	} else if (r < 17) {
		s.addr = 0;       /* 0.2%: no data address */
	}
	if (!is_store(s.cls))
		s.weight = class_weight(g, s.cls);
	return emit(g, &s);
}

static int scen_mixed(struct gen *g, const struct gen_params *prm, uint64_t total)
{
	struct mix m = { .lines = prm->lines ? prm->lines : MIX_LINES, .sites = prm->sites ? prm->sites : MIX_SITES };
	int ret = 0;

	if (!(m.cum = malloc(m.lines * sizeof(*m.cum))))
		return -ENOMEM;
	for (uint32_t k = 0; k < m.lines; k++)
		m.cum[k] = (k ? m.cum[k - 1] : 0) + 1.0 / pow(k + 1.0, 1.1);
	for (uint64_t i = 0; i < total && !ret; i++) {
		struct pdw_sid sid = { .time = g->time, .cpu = g->procs[0].cpu[1 % g->procs[0].nr_threads] };
		if (i == total / 3 || i == 2 * total / 3) {
			uint64_t lost = i == total / 3 ? 17 : 5;
			if ((ret = pdw_lost(g->w, 0, lost, &sid)))
				break;
			g->e->lost += lost;
			g->e->lost_records++;
		}
		if (i == total / 2 && (ret = pdw_throttle(g->w, 0, g->time, &sid)) == 0 &&
		    (ret = pdw_lost_samples(g->w, 3, &sid)) == 0)
			ret = pdw_throttle(g->w, 1, g->time + 100, &sid);
		if (!ret)
			ret = mix_sample(g, &m, i);
	}
	free(m.cum);
	return ret;
}

/* line-identity: perf's dcacheline key splits lines that share an address
 * (collector/c2c/c2c_lineid.h). Both processes have private anonymous memory
 * at the same virtual address (one line per pid); a futex-like word is
 * touched from user mode and from kernel mode (two lines: the kernel-mode
 * samples find no map for a user address); a kernel data line touched by
 * both processes in kernel mode stays one line (the kernel is not keyed
 * by pid); loads without a data address come from both modes (two 0x0
 * lines, shown with --show-all). */
static int ident_add(struct list *l, uint32_t count, uint8_t cls, uint8_t mods, uint8_t proc, uint8_t t,
		     uint8_t kernel, uint64_t addr, uint64_t ip)
{
	struct spec s = { .cls = cls, .mods = mods, .proc = proc, .thread = t, .kernel = kernel,
			  .ip = ip, .addr = addr };

	return list_add(l, count, &s);
}

static int scen_line_identity(struct gen *g, struct list *l, uint64_t total)
{
	const struct proc *a = &g->procs[0], *b = &g->procs[1];
	uint64_t shared = a->heap + 0x60000, futex = a->heap + 0x70000 + 0x4;
	uint64_t kdata = KERNEL_DATA + 0x2000, kip = KERNEL_START + 0x100400;
	int ret = 0;

	for (uint8_t t = 0; t < 2 && !ret; t++) {
		/* same virtual line, two processes: two lines in perf */
		if ((ret = ident_add(l, 7, PDW_LD_RMT_HITM, 0, 0, t, 0, shared + 0x0, a->bin + 0x1100)) ||
		    (ret = ident_add(l, 3, PDW_LD_LCL_HITM, 0, 0, t, 0, shared + 0x8, a->bin + 0x1108)) ||
		    (ret = ident_add(l, 10, PDW_ST_L1_HIT, 0, 0, t, 0, shared + 0x8, a->bin + 0x1110)) ||
		    (ret = ident_add(l, 10, PDW_LD_L1_HIT, 0, 0, t, 0, shared + 0x0, a->bin + 0x1100)) ||
		    (ret = ident_add(l, 5, PDW_LD_RMT_HITM, 0, 1, t, 0, shared + 0x0, b->bin + 0x1100)) ||
		    (ret = ident_add(l, 2, PDW_LD_LCL_HITM, 0, 1, t, 0, shared + 0x10, b->bin + 0x1120)) ||
		    (ret = ident_add(l, 8, PDW_ST_L1_MISS, 0, 1, t, 0, shared + 0x10, b->bin + 0x1128)) ||
		    (ret = ident_add(l, 5, PDW_LD_L1_HIT, 0, 1, t, 0, shared + 0x0, b->bin + 0x1100)))
			break;
		/* one word from user and kernel mode: two lines */
		if ((ret = ident_add(l, 6, PDW_LD_RMT_HITM, PDW_MEM_LOCKED, 0, (uint8_t)(t + 2), 0, futex,
				     a->bin + 0x1200)) ||
		    (ret = ident_add(l, 4, PDW_ST_L1_HIT, PDW_MEM_LOCKED, 0, (uint8_t)(t + 2), 0, futex, a->bin + 0x1200)) ||
		    (ret = ident_add(l, 4, PDW_LD_RMT_HITM, 0, 0, t, 1, futex, kip)) ||
		    (ret = ident_add(l, 1, PDW_LD_LCL_HITM, 0, 0, t, 1, futex, kip + 0x10)) ||
		    (ret = ident_add(l, 3, PDW_ST_L1_HIT, PDW_MEM_LOCKED, 0, t, 1, futex, kip + 0x20)))
			break;
		/* kernel data from both processes: one line */
		if ((ret = ident_add(l, 3, PDW_LD_RMT_HITM, 0, 0, t, 1, kdata, kip + 0x40)) ||
		    (ret = ident_add(l, 2, PDW_LD_RMT_HITM, 0, 1, t, 1, kdata + 0x8, kip + 0x48)) ||
		    (ret = ident_add(l, 2, PDW_ST_L1_HIT, 0, 1, t, 1, kdata + 0x8, kip + 0x50)))
			break;
		/* no data address, from both modes */
		if ((ret = ident_add(l, 2, PDW_LD_L1_HIT, 0, 0, t, 1, 0, kip + 0x60)) ||
		    (ret = ident_add(l, 3, PDW_LD_L2_HIT, 0, 1, t, 0, 0, b->bin + 0x1300)))
			break;
	}
	if (!ret && total > l->n)
		ret = add_background(g, l, total - l->n);
	return ret;
}

/* ---- lock-tracepoints ------------------------------------------------ */

#define LCB_F_SPIN  0x01
#define LCB_F_READ  0x02
#define LCB_F_WRITE 0x04
#define LCB_F_MUTEX 0x20
#define CTX_KERNEL  ((uint64_t)-128)     /* PERF_CONTEXT_KERNEL */
#define CTX_USER    ((uint64_t)-512)     /* PERF_CONTEXT_USER */

/* Three kernel locks the demo's threads fight over: mmap_lock (an rwsem,
 * page faults), a mutex, and a spinlock; wait length ranges in ns. */
static const struct lock_desc {
	uint64_t addr, min_ns, span_ns, kip, uip;
} gen_locks[3] = {
	{ 0xffff888104a3c0a8ull, 2000, 48000, KERNEL_START + 0xa1b40, 0x401500 },
	{ 0xffff88810b2e1840ull, 5000, 195000, KERNEL_START + 0xa2c80, 0x401540 },
	{ 0xffff88813fc2d9c0ull, 200, 2800, KERNEL_START + 0xa3d00, 0x401580 },
};

struct lock_ev {
	uint64_t time, seq;
	uint8_t thread, lock, end;
	int32_t value;
};

static int lock_ev_cmp(const void *a, const void *b)
{
	const struct lock_ev *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int lock_emit(struct gen *g, const struct lock_ev *ev)
{
	const struct proc *p = &g->procs[0];
	const struct lock_desc *d = &gen_locks[ev->lock];
	uint64_t kip = d->kip + (ev->end ? 0x40 : 0);
	uint64_t chain[7] = {
		CTX_KERNEL, kip, KERNEL_START + 0x1000 + ev->lock * 0x100ull, KERNEL_START + 0x2000,
		CTX_USER, d->uip + ev->thread % 4 * 8ull, p->bin + 0x1050,
	};
	uint8_t raw[24];
	struct c2c_sample s;

	memset(&s, 0, sizeof(s));
	s.event = ev->end;
	s.cpumode = MODE_KERNEL;
	s.time = ev->time;
	s.ip = kip;
	s.pid = p->pid;
	s.tid = p->pid + ev->thread;
	s.cpu = p->cpu[ev->thread];
	s.period = 1;
	s.nr_callchain = 7;
	s.callchain = chain;
	s.raw_size = (uint32_t)pdw_raw_contention(raw, g->be, ev->end, s.tid, d->addr, ev->value);
	s.raw = raw;
	if (pdw_sample(g->w, &s))
		return pdw_error(g->w)->code;
	g->e->samples++;
	if (g->time < ev->time)
		g->time = ev->time;
	return round_tick(g);
}

/* waits contended waits: threads take locks one wait after another (a
 * task waits for one lock at a time), waits of different threads overlap.
 * A third of the mutex waits spin first (begin MUTEX|SPIN, then a nested
 * begin MUTEX when going to sleep). One end without its begin opens the
 * recording; one begin without its end closes it. */
static int scen_lock_tracepoints(struct gen *g, uint64_t waits)
{
	const struct proc *p = &g->procs[0];
	struct gen_expect *e = g->e;
	uint64_t cur[MAX_THREADS], seq = 0, last = 0;
	struct lock_ev *ev = malloc((size_t)(3 * waits + 2) * sizeof(*ev));
	size_t n = 0;
	int ret = 0;

	if (!ev)
		return -ENOMEM;
	for (uint32_t t = 0; t < p->nr_threads; t++)
		cur[t] = g->time + 100000 + t * 1000ull;
	ev[n++] = (struct lock_ev){ g->time + 50000, seq++, 1, 2, 1, 0 };
	e->lock_ends++;
	e->lock_unmatched++;
	for (uint64_t i = 0; i < waits; i++) {
		uint32_t r = rng_below(g, 10);
		uint8_t k = r < 4 ? 0 : r < 6 ? 1 : 2, t = (uint8_t)rng_below(g, p->nr_threads);
		const struct lock_desc *d = &gen_locks[k];
		uint64_t begin = cur[t] + 1000 + rng_below(g, 20000);
		uint64_t dur = d->min_ns + rng_below(g, (uint32_t)d->span_ns);
		int32_t flags = k == 0 ? (rng_below(g, 4) ? LCB_F_READ : LCB_F_WRITE) :
				k == 1 ? LCB_F_MUTEX : LCB_F_SPIN;

		if (k == 1 && rng_below(g, 3) == 0) {
			ev[n++] = (struct lock_ev){ begin, seq++, t, k, 0, LCB_F_MUTEX | LCB_F_SPIN };
			ev[n++] = (struct lock_ev){ begin + dur / 3, seq++, t, k, 0, LCB_F_MUTEX };
			e->lock_begins += 2;
			e->lock_nested++;
		} else {
			ev[n++] = (struct lock_ev){ begin, seq++, t, k, 0, flags };
			e->lock_begins++;
		}
		ev[n++] = (struct lock_ev){ begin + dur, seq++, t, k, 1, 0 };
		e->lock_ends++;
		e->lock_waits++;
		e->lock_wait_ns += dur;
		e->lock_waits_by_lock[k]++;
		e->lock_wait_ns_by_lock[k] += dur;
		cur[t] = begin + dur;
		if (cur[t] > last)
			last = cur[t];
	}
	ev[n++] = (struct lock_ev){ last + 1000, seq++, 2 % p->nr_threads, 1, 0, LCB_F_MUTEX };
	e->lock_begins++;
	e->lock_pending++;
	qsort(ev, n, sizeof(*ev), lock_ev_cmp);
	for (size_t i = 0; i < n && !ret; i++)
		ret = lock_emit(g, &ev[i]);
	free(ev);
	return ret;
}

/* ---- driver ---------------------------------------------------------- */

static const char *const names[] = {
	"false-sharing", "true-sharing", "classes", "mixed", "bench", "lock-tracepoints", "line-identity", NULL,
};

const char *const *gen_scenario_names(void)
{
	return names;
}

uint64_t gen_scenario_default_samples(const char *name)
{
	if (!strcmp(name, "false-sharing") || !strcmp(name, "true-sharing"))
		return 2000;
	if (!strcmp(name, "classes"))
		return 1;   /* just the class samples (the list decides) */
	if (!strcmp(name, "mixed"))
		return 20000;
	if (!strcmp(name, "bench"))
		return 1000000;
	if (!strcmp(name, "lock-tracepoints"))
		return 120;
	if (!strcmp(name, "line-identity"))
		return 600;
	return 0;
}

int gen_scenario(const char *path, const struct gen_params *prm, struct gen_expect *exp,
		 struct c2c_error *err)
{
	struct gen_expect local;
	struct gen g;
	struct list l = { 0 };
	const char *name = prm->scenario ? prm->scenario : "";
	uint64_t total = prm->samples ? prm->samples : gen_scenario_default_samples(name);
	int list_based, lock, ret;

	if (!gen_scenario_default_samples(name))
		return c2c_error_set(err, -EINVAL, "unknown scenario '%s'", name);
	memset(&g, 0, sizeof(g));
	g.e = exp ? exp : &local;
	memset(g.e, 0, sizeof(*g.e));
	g.rng = prm->seed ? prm->seed : 1;
	g.nodes = prm->nodes ? prm->nodes : 2;
	g.cpn = prm->cpus_per_node ? prm->cpus_per_node : 8;
	g.ncpu = g.nodes * g.cpn;
	g.time = TIME0;
	g.be = prm->pdw.big_endian;
	/* The mixed objects start at heap+0x40000, 0x1c0 bytes apart. */
	g.heap_len = (0x40000 + (uint64_t)prm->lines * 0x1c0 + 0xfffff) & ~0xfffffull;
	if (g.heap_len < HEAP_LEN)
		g.heap_len = HEAP_LEN;
	if (g.ncpu > 4096)
		return c2c_error_set(err, -EINVAL, "at most 4096 CPUs");
	if ((prm->lines || prm->sites || prm->threads) && strcmp(name, "mixed") && strcmp(name, "bench"))
		return c2c_error_set(err, -EINVAL, "--lines, --sites and --threads shape mixed and bench only");
	if (prm->threads > MAX_THREADS || prm->lines > 1000000 || prm->sites > 100000)
		return c2c_error_set(err, -EINVAL, "at most %d threads, 1000000 lines, 100000 sites", MAX_THREADS);
	proc_init(&g, &g.procs[0], 4242, "c2c-demo", "/usr/bin/c2c-demo", 0x400000, 0x7f3a40000000ull,
		  prm->threads ? prm->threads : !strcmp(name, "mixed") || !strcmp(name, "bench") ? 8 : 9, 0);
	if (!strcmp(name, "mixed") || !strcmp(name, "bench"))
		proc_init(&g, &g.procs[1], 5151, "c2c-demo2", "/usr/bin/c2c-demo2", 0x600000,
			  0x7f5b80000000ull, 4, 1);
	/* line-identity: the second process's heap at the first one's address */
	if (!strcmp(name, "line-identity"))
		proc_init(&g, &g.procs[1], 5151, "c2c-demo2", "/usr/bin/c2c-demo2", 0x600000,
			  0x7f3a40000000ull, 4, 1);
	g.e->nr_cpus = g.ncpu;
	g.e->nr_nodes = g.nodes;
	g.e->pids = g.nr_procs;
	for (uint32_t i = 0; i < g.nr_procs; i++)
		g.e->threads += g.procs[i].nr_threads;

	g.w = pdw_new(path, &prm->pdw, err);
	if (!g.w)
		return err ? err->code : -EIO;
	lock = !strcmp(name, "lock-tracepoints");
	list_based = strcmp(name, "mixed") && strcmp(name, "bench") && !lock;
	/* classes without --samples writes only its class samples. */
	if (!strcmp(name, "classes"))
		total = prm->samples;
	if ((ret = header_setup(&g, prm, total, lock)) ||
	    (ret = sideband_setup(&g)))
		goto out;
	if (!strcmp(name, "false-sharing"))
		ret = scen_false_sharing(&g, &l, total);
	else if (!strcmp(name, "true-sharing"))
		ret = scen_true_sharing(&g, &l, total);
	else if (!strcmp(name, "classes"))
		ret = scen_classes(&g, &l, total);
	else if (!strcmp(name, "line-identity"))
		ret = scen_line_identity(&g, &l, total);
	else if (lock)
		ret = scen_lock_tracepoints(&g, total);
	else
		ret = scen_mixed(&g, prm, total);
	if (ret == -ENOMEM && !pdw_error(g.w)->code)
		c2c_error_set(err, ret, "scenario %s: out of memory", name);
	if (!ret && list_based)
		ret = list_emit(&g, &l);
	if (!ret)
		ret = exits(&g);
out:
	free(l.v);
	g.e->records = pdw_nr_records(g.w);
	if (ret && pdw_error(g.w)->code) {
		if (err)
			*err = *pdw_error(g.w);
		pdw_free(g.w);
		return ret;
	}
	if (ret) {
		pdw_free(g.w);
		return ret;
	}
	return pdw_close(g.w, err);
}

void gen_expect_print(FILE *f, const struct gen_expect *e)
{
	const uint64_t *c = e->by_class;

	fprintf(f, "samples %" PRIu64 "\n", e->samples);
	fprintf(f, "records %" PRIu64 "\n", e->records);
	fprintf(f, "loads %" PRIu64 "\n", e->loads);
	fprintf(f, "stores %" PRIu64 "\n", e->stores);
	fprintf(f, "noparse %" PRIu64 "\n", e->noparse);
	for (int i = 0; i < PDW_MEM_CLASS_COUNT; i++)
		fprintf(f, "class.%s %" PRIu64 "\n", pdw_mem_class_name((enum pdw_mem_class)i), c[i]);
	fprintf(f, "lcl_hitm %" PRIu64 "\n", c[PDW_LD_LCL_HITM]);
	fprintf(f, "rmt_hitm %" PRIu64 "\n", c[PDW_LD_RMT_HITM]);
	fprintf(f, "tot_hitm %" PRIu64 "\n", c[PDW_LD_LCL_HITM] + c[PDW_LD_RMT_HITM]);
	fprintf(f, "locked %" PRIu64 "\n", e->locked);
	fprintf(f, "blk_data %" PRIu64 "\n", e->blk_data);
	fprintf(f, "blk_addr %" PRIu64 "\n", e->blk_addr);
	fprintf(f, "ld_noadrs %" PRIu64 "\n", e->ld_noadrs);
	fprintf(f, "st_noadrs %" PRIu64 "\n", e->st_noadrs);
	fprintf(f, "nomap %" PRIu64 "\n", e->nomap);
	fprintf(f, "kernel %" PRIu64 "\n", e->kernel);
	fprintf(f, "lost %" PRIu64 "\n", e->lost);
	fprintf(f, "lost_records %" PRIu64 "\n", e->lost_records);
	fprintf(f, "nr_cpus %u\n", e->nr_cpus);
	fprintf(f, "nr_nodes %u\n", e->nr_nodes);
	fprintf(f, "pids %u\n", e->pids);
	fprintf(f, "threads %u\n", e->threads);
	fprintf(f, "lock_begins %" PRIu64 "\n", e->lock_begins);
	fprintf(f, "lock_ends %" PRIu64 "\n", e->lock_ends);
	fprintf(f, "lock_waits %" PRIu64 "\n", e->lock_waits);
	fprintf(f, "lock_nested %" PRIu64 "\n", e->lock_nested);
	fprintf(f, "lock_unmatched %" PRIu64 "\n", e->lock_unmatched);
	fprintf(f, "lock_pending %" PRIu64 "\n", e->lock_pending);
	fprintf(f, "lock_wait_ns %" PRIu64 "\n", e->lock_wait_ns);
	for (int i = 0; i < 3; i++)
		fprintf(f, "lock.%#" PRIx64 " %" PRIu64 " %" PRIu64 "\n", gen_locks[i].addr,
			e->lock_waits_by_lock[i], e->lock_wait_ns_by_lock[i]);
}
