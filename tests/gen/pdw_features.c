/* Header features of the perf.data writer: the setters that describe the
 * recording machine, and their encoding as feature sections (file mode) or
 * PERF_RECORD_HEADER_FEATURE records (pipe mode). Layouts follow
 * tools/perf/Documentation/perf.data-file-format.txt. */
#include "tests/gen/pdw_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NAME_ALIGN 64   /* perf pads header strings to 64 bytes */
#define REC_HEADER_TRACING_DATA 66
#define REC_HEADER_BUILD_ID 67
#define REC_HEADER_FEATURE 80
#define MISC_BUILD_ID_SIZE (1u << 15)

/* ---- byte builder ---------------------------------------------------- */

struct bb {
	const struct pdw *w;
	uint8_t *p;
	size_t len, cap;
	int oom;
};

static uint8_t *bb_grow(struct bb *b, size_t n)
{
	if (b->oom)
		return NULL;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		void *p;
		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = 1;
			return NULL;
		}
		b->p = p;
		b->cap = cap;
	}
	b->len += n;
	return b->p + b->len - n;
}

static void bb_u32(struct bb *b, uint32_t v)
{
	uint8_t *p = bb_grow(b, 4);
	if (p)
		put_u32(b->w, p, v);
}

static void bb_u64(struct bb *b, uint64_t v)
{
	uint8_t *p = bb_grow(b, 8);
	if (p)
		put_u64(b->w, p, v);
}

static void bb_bytes(struct bb *b, const void *v, size_t n)
{
	uint8_t *p = bb_grow(b, n);
	if (p && n)
		memcpy(p, v, n);
}

static void bb_zero(struct bb *b, size_t n)
{
	uint8_t *p = bb_grow(b, n);
	if (p)
		memset(p, 0, n);
}

/* struct perf_header_string: u32 len, then the string NUL-padded to len. */
static void bb_string(struct bb *b, const char *s)
{
	size_t n = strlen(s) + 1, len = (n + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;

	bb_u32(b, (uint32_t)len);
	bb_bytes(b, s, n - 1);
	bb_zero(b, len - (n - 1));
}

/* ---- setters --------------------------------------------------------- */

static int too_late(struct pdw *w)
{
	if (w->failed)
		return w->failed;
	if (w->pipe && w->frozen)
		return pdw_set_failed(w, -EBUSY, "perf.data writer: pipe-mode features must be set before the first record");
	return 0;
}

static int oom(struct pdw *w)
{
	return pdw_set_failed(w, -ENOMEM, "perf.data writer: out of memory");
}

static int grow(struct pdw *w, void **arr, uint32_t nr, size_t elem)
{
	/* Arrays grow by powers of two: reallocate when nr is 0 or a power of two. */
	if (nr == 0 || (nr & (nr - 1)) == 0) {
		void *p = realloc(*arr, (nr ? 2 * nr : 4) * elem);
		if (!p)
			return oom(w);
		*arr = p;
	}
	return 0;
}

int pdw_set_string(struct pdw *w, enum pdw_feature feat, const char *value)
{
	int ret = too_late(w);
	char *s;

	if (ret)
		return ret;
	if (feat != PDW_FEAT_HOSTNAME && feat != PDW_FEAT_OSRELEASE && feat != PDW_FEAT_VERSION &&
	    feat != PDW_FEAT_ARCH && feat != PDW_FEAT_CPUDESC && feat != PDW_FEAT_CPUID)
		return pdw_set_failed(w, -EINVAL, "perf.data writer: feature is not a string feature");
	if (!(s = strdup(value)))
		return oom(w);
	free(w->strings[feat]);
	w->strings[feat] = s;
	w->dropped &= ~(1ull << feat);
	return 0;
}

int pdw_set_nrcpus(struct pdw *w, uint32_t avail, uint32_t online)
{
	int ret = too_late(w);

	if (ret)
		return ret;
	if (avail > w->nr_cpus_alloc) {
		struct pdw_cpu_topo *c = realloc(w->cpus, avail * sizeof(*c));
		if (!c)
			return oom(w);
		memset(c + w->nr_cpus_alloc, 0, (avail - w->nr_cpus_alloc) * sizeof(*c));
		w->cpus = c;
		w->nr_cpus_alloc = avail;
	}
	w->have_nrcpus = 1;
	w->nr_avail = avail;
	w->nr_online = online;
	w->dropped &= ~(1ull << PDW_FEAT_NRCPUS);
	return 0;
}

int pdw_set_total_mem(struct pdw *w, uint64_t kib)
{
	int ret = too_late(w);

	if (ret)
		return ret;
	w->have_total_mem = 1;
	w->total_mem = kib;
	w->dropped &= ~(1ull << PDW_FEAT_TOTAL_MEM);
	return 0;
}

static void free_cmdline(struct pdw *w)
{
	for (int i = 0; i < w->nr_cmdline; i++)
		free(w->cmdline[i]);
	free(w->cmdline);
	w->cmdline = NULL;
	w->nr_cmdline = 0;
}

int pdw_set_cmdline(struct pdw *w, int argc, const char *const *argv)
{
	int ret = too_late(w);

	if (ret)
		return ret;
	free_cmdline(w);
	w->cmdline = calloc(argc > 0 ? (size_t)argc : 1, sizeof(char *));
	if (!w->cmdline)
		return oom(w);
	for (int i = 0; i < argc; i++) {
		if (!(w->cmdline[i] = strdup(argv[i]))) {
			w->nr_cmdline = i;
			return oom(w);
		}
	}
	w->nr_cmdline = argc;
	w->have_cmdline = 1;
	w->dropped &= ~(1ull << PDW_FEAT_CMDLINE);
	return 0;
}

int pdw_set_cpu(struct pdw *w, uint32_t cpu, uint32_t core_id, uint32_t socket_id, uint32_t die_id)
{
	int ret = too_late(w);

	if (ret)
		return ret;
	if (!w->have_nrcpus || cpu >= w->nr_avail)
		return pdw_set_failed(w, -EINVAL, "perf.data writer: set NRCPUS before describing a CPU beyond it");
	w->cpus[cpu] = (struct pdw_cpu_topo){ .set = 1, .core = core_id, .socket = socket_id, .die = die_id };
	w->dropped &= ~(1ull << PDW_FEAT_CPU_TOPOLOGY);
	return 0;
}

int pdw_add_numa_node(struct pdw *w, uint32_t node, uint64_t mem_total_kib, uint64_t mem_free_kib,
		      const char *cpus)
{
	int ret = too_late(w);
	char *s;

	if (ret || (ret = grow(w, (void **)&w->numa, w->nr_numa, sizeof(*w->numa))))
		return ret;
	if (!(s = strdup(cpus)))
		return oom(w);
	w->numa[w->nr_numa++] = (struct pdw_numa){ node, mem_total_kib, mem_free_kib, s };
	w->dropped &= ~(1ull << PDW_FEAT_NUMA_TOPOLOGY);
	return 0;
}

int pdw_add_cache(struct pdw *w, uint32_t level, uint32_t line_size, uint32_t sets, uint32_t ways,
		  const char *type, const char *size, const char *map)
{
	int ret = too_late(w);
	struct pdw_cache c = { level, line_size, sets, ways, strdup(type), strdup(size), strdup(map) };

	if (!ret && (!c.type || !c.size || !c.map))
		ret = oom(w);
	if (!ret)
		ret = grow(w, (void **)&w->caches, w->nr_caches, sizeof(*w->caches));
	if (ret) {
		free(c.type);
		free(c.size);
		free(c.map);
		return ret;
	}
	w->caches[w->nr_caches++] = c;
	w->dropped &= ~(1ull << PDW_FEAT_CACHE);
	return 0;
}

int pdw_set_mem_block_size(struct pdw *w, uint64_t bytes)
{
	int ret = too_late(w);

	if (ret)
		return ret;
	w->mem_block_size = bytes;
	return 0;
}

int pdw_add_mem_node(struct pdw *w, uint64_t node, uint64_t first_block, uint64_t nr_blocks)
{
	int ret = too_late(w);

	if (ret || (ret = grow(w, (void **)&w->mem_nodes, w->nr_mem_nodes, sizeof(*w->mem_nodes))))
		return ret;
	w->mem_nodes[w->nr_mem_nodes++] = (struct pdw_mem_node){ node, first_block, nr_blocks };
	w->dropped &= ~(1ull << PDW_FEAT_MEM_TOPOLOGY);
	return 0;
}

int pdw_add_build_id(struct pdw *w, int32_t pid, uint8_t cpumode, const uint8_t *id, uint8_t size,
		     const char *filename)
{
	int ret = too_late(w);
	struct pdw_build_id b = { .pid = pid, .cpumode = cpumode, .size = size > 20 ? 20 : size };

	if (ret || (ret = grow(w, (void **)&w->build_ids, w->nr_build_ids, sizeof(*w->build_ids))))
		return ret;
	memcpy(b.id, id, b.size);
	if (!(b.filename = strdup(filename)))
		return oom(w);
	w->build_ids[w->nr_build_ids++] = b;
	w->dropped &= ~(1ull << PDW_FEAT_BUILD_ID);
	return 0;
}

int pdw_set_sample_time(struct pdw *w, uint64_t first, uint64_t last)
{
	int ret = too_late(w);

	if (ret)
		return ret;
	w->have_sample_time = 1;
	w->sample_time_first = first;
	w->sample_time_last = last;
	w->dropped &= ~(1ull << PDW_FEAT_SAMPLE_TIME);
	return 0;
}

int pdw_set_tracing_data(struct pdw *w, const void *data, size_t size)
{
	int ret = too_late(w);
	uint8_t *p;

	if (ret)
		return ret;
	if (!(p = malloc(size ? size : 1)))
		return oom(w);
	memcpy(p, data, size);
	free(w->tracing);
	w->tracing = p;
	w->tracing_size = size;
	w->have_tracing = 1;
	w->dropped &= ~(1ull << PDW_FEAT_TRACING_DATA);
	return 0;
}

int pdw_drop_feature(struct pdw *w, enum pdw_feature feat)
{
	int ret = too_late(w);

	if (ret)
		return ret;
	if ((unsigned)feat >= PDW_NR_FEATS)
		return pdw_set_failed(w, -EINVAL, "perf.data writer: no such feature");
	w->dropped |= 1ull << feat;
	return 0;
}

void pdw_features_fini(struct pdw *w)
{
	for (int i = 0; i < PDW_NR_FEATS; i++)
		free(w->strings[i]);
	free_cmdline(w);
	free(w->cpus);
	for (uint32_t i = 0; i < w->nr_numa; i++)
		free(w->numa[i].cpus);
	free(w->numa);
	for (uint32_t i = 0; i < w->nr_caches; i++) {
		free(w->caches[i].type);
		free(w->caches[i].size);
		free(w->caches[i].map);
	}
	free(w->caches);
	free(w->mem_nodes);
	for (uint32_t i = 0; i < w->nr_build_ids; i++)
		free(w->build_ids[i].filename);
	free(w->build_ids);
	free(w->tracing);
}

/* ---- machine description --------------------------------------------- */

int pdw_describe_machine(struct pdw *w, uint32_t nodes, uint32_t cpus_per_node, const char *hostname)
{
	uint32_t n = nodes * cpus_per_node;
	const uint64_t node_kib = 16ull << 20;
	char list[64], l3[16];
	int ret;

	if (!nodes || !cpus_per_node || n > 4096)
		return pdw_set_failed(w, -EINVAL, "perf.data writer: machine must have 1..4096 CPUs");
	if ((ret = pdw_set_string(w, PDW_FEAT_HOSTNAME, hostname ? hostname : "c2c-gen (generated)")) ||
	    (ret = pdw_set_string(w, PDW_FEAT_OSRELEASE, "6.1.0-c2c-gen")) ||
	    (ret = pdw_set_string(w, PDW_FEAT_VERSION, "6.1.76")) ||
	    (ret = pdw_set_string(w, PDW_FEAT_ARCH, "x86_64")) ||
	    (ret = pdw_set_string(w, PDW_FEAT_CPUDESC, "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz")) ||
	    (ret = pdw_set_string(w, PDW_FEAT_CPUID, "GenuineIntel,6,85,4")) ||
	    (ret = pdw_set_nrcpus(w, n, n)) ||
	    (ret = pdw_set_total_mem(w, node_kib * nodes)))
		return ret;
	for (uint32_t c = 0; c < n; c++)
		if ((ret = pdw_set_cpu(w, c, c % cpus_per_node, c / cpus_per_node, 0)))
			return ret;
	for (uint32_t node = 0; node < nodes; node++) {
		uint32_t first = node * cpus_per_node, last = first + cpus_per_node - 1;
		if (first == last)
			snprintf(list, sizeof(list), "%u", first);
		else
			snprintf(list, sizeof(list), "%u-%u", first, last);
		if ((ret = pdw_add_numa_node(w, node, node_kib, node_kib / 2, list)) ||
		    (ret = pdw_add_mem_node(w, node, node * (node_kib << 10) / w->mem_block_size,
					    (node_kib << 10) / w->mem_block_size)))
			return ret;
	}
	/* Caches as perf lists them: every distinct (level, type, sharing) once;
	 * big machines keep CPU 0's private caches only, so that a pipe-mode
	 * feature record stays under 64 KiB. */
	for (uint32_t c = 0; c < (n <= 64 ? n : 1); c++) {
		snprintf(list, sizeof(list), "%u", c);
		if ((ret = pdw_add_cache(w, 1, 64, 64, 8, "Data", "32K", list)) ||
		    (ret = pdw_add_cache(w, 1, 64, 64, 8, "Instruction", "32K", list)) ||
		    (ret = pdw_add_cache(w, 2, 64, 1024, 16, "Unified", "1024K", list)))
			return ret;
	}
	for (uint32_t node = 0; node < nodes; node++) {
		uint32_t first = node * cpus_per_node, last = first + cpus_per_node - 1;
		if (first == last)
			snprintf(list, sizeof(list), "%u", first);
		else
			snprintf(list, sizeof(list), "%u-%u", first, last);
		snprintf(l3, sizeof(l3), "%uK", 1408 * cpus_per_node);
		if ((ret = pdw_add_cache(w, 3, 64, 2048 * cpus_per_node, 11, "Unified", l3, list)))
			return ret;
	}
	return 0;
}

/* ---- encoding -------------------------------------------------------- */

/* "0-3,8,10-11" for the sorted CPUs in cpus[0..n). */
static void bb_cpulist_string(struct bb *b, const uint32_t *cpus, uint32_t n)
{
	size_t cap = 16 + (size_t)n * 12, len = 0;
	char *s = malloc(cap);

	if (!s) {
		b->oom = 1;
		return;
	}
	s[0] = 0;
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i;
		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		len += (size_t)snprintf(s + len, cap - len, j > i ? "%s%u-%u" : "%s%u",
					len ? "," : "", cpus[i], cpus[j]);
		i = j + 1;
	}
	bb_string(b, s);
	free(s);
}

/* Groups of CPUs sharing a key: strings in order of each group's first CPU. */
static void bb_sibling_lists(struct bb *b, const struct pdw *w, uint64_t (*key)(const struct pdw_cpu_topo *))
{
	uint32_t n = w->nr_avail, nr_groups = 0, count;
	uint32_t *cpus = malloc((n ? n : 1) * sizeof(uint32_t));
	uint8_t *done = calloc(n ? n : 1, 1);
	size_t count_at;

	if (!cpus || !done) {
		free(cpus);
		free(done);
		b->oom = 1;
		return;
	}
	count_at = b->len;
	bb_u32(b, 0);
	for (uint32_t i = 0; i < n; i++) {
		if (!w->cpus[i].set || done[i])
			continue;
		count = 0;
		for (uint32_t j = i; j < n; j++) {
			if (w->cpus[j].set && !done[j] && key(&w->cpus[j]) == key(&w->cpus[i])) {
				done[j] = 1;
				cpus[count++] = j;
			}
		}
		bb_cpulist_string(b, cpus, count);
		nr_groups++;
	}
	if (!b->oom)
		put_u32(w, b->p + count_at, nr_groups);
	free(cpus);
	free(done);
}

static uint64_t key_socket(const struct pdw_cpu_topo *c) { return c->socket; }
static uint64_t key_die(const struct pdw_cpu_topo *c) { return (uint64_t)c->socket << 32 | c->die; }
static uint64_t key_core(const struct pdw_cpu_topo *c)
{
	return (uint64_t)c->socket << 40 | (uint64_t)(c->die & 0xff) << 32 | c->core;
}

static int any_cpu_set(const struct pdw *w)
{
	for (uint32_t i = 0; i < w->nr_avail; i++)
		if (w->cpus[i].set)
			return 1;
	return 0;
}

static const char *event_name(const struct pdw_attr_rec *a, char *buf, size_t len)
{
	if (a->name)
		return a->name;
	if (a->type == 4)
		snprintf(buf, len, "r%llx", (unsigned long long)a->config);
	else
		snprintf(buf, len, "event-%u:%llu", a->type, (unsigned long long)a->config);
	return buf;
}

/* Encodes feature bit into b; returns 1 when the writer has it, 0 when not. */
static int feature_encode(struct pdw *w, int bit, struct bb *b)
{
	if (w->dropped & (1ull << bit))
		return 0;
	switch (bit) {
	case PDW_FEAT_TRACING_DATA:
		if (!w->have_tracing)
			return 0;
		bb_bytes(b, w->tracing, w->tracing_size);
		return 1;
	case PDW_FEAT_BUILD_ID:
		if (!w->nr_build_ids)
			return 0;
		for (uint32_t i = 0; i < w->nr_build_ids; i++) {
			const struct pdw_build_id *e = &w->build_ids[i];
			size_t fl = strlen(e->filename) + 1;
			size_t len = (fl + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
			uint8_t *p = bb_grow(b, 36 + len);
			if (!p)
				return 1;
			/* struct build_id_event: header, pid, build_id[24] (20 + size
			 * byte + padding), filename padded to 64 bytes. */
			memset(p, 0, 36 + len);
			put_u32(w, p, 0);
			put_u16(w, p + 4, (uint16_t)(e->cpumode | MISC_BUILD_ID_SIZE));
			put_u16(w, p + 6, (uint16_t)(36 + len));
			put_u32(w, p + 8, (uint32_t)e->pid);
			memcpy(p + 12, e->id, e->size);
			p[32] = e->size;
			memcpy(p + 36, e->filename, fl);
		}
		return 1;
	case PDW_FEAT_HOSTNAME: case PDW_FEAT_OSRELEASE: case PDW_FEAT_VERSION:
	case PDW_FEAT_ARCH: case PDW_FEAT_CPUDESC: case PDW_FEAT_CPUID:
		if (!w->strings[bit])
			return 0;
		bb_string(b, w->strings[bit]);
		return 1;
	case PDW_FEAT_NRCPUS:
		if (!w->have_nrcpus)
			return 0;
		bb_u32(b, w->nr_avail);
		bb_u32(b, w->nr_online);
		return 1;
	case PDW_FEAT_TOTAL_MEM:
		if (!w->have_total_mem)
			return 0;
		bb_u64(b, w->total_mem);
		return 1;
	case PDW_FEAT_CMDLINE:
		if (!w->have_cmdline)
			return 0;
		bb_u32(b, (uint32_t)w->nr_cmdline);
		for (int i = 0; i < w->nr_cmdline; i++)
			bb_string(b, w->cmdline[i]);
		return 1;
	case PDW_FEAT_EVENT_DESC:
		if (!w->nr_attrs)
			return 0;
		bb_u32(b, w->nr_attrs);
		bb_u32(b, w->attr_size);
		for (uint32_t i = 0; i < w->nr_attrs; i++) {
			const struct pdw_attr_rec *a = &w->attrs[i];
			char name[64];
			uint8_t *p = bb_grow(b, w->attr_size);
			if (p)
				pdw_attr_bytes(w, a, p);
			bb_u32(b, a->nr_ids);
			bb_string(b, event_name(a, name, sizeof(name)));
			for (uint32_t j = 0; j < a->nr_ids; j++)
				bb_u64(b, a->ids[j]);
		}
		return 1;
	case PDW_FEAT_CPU_TOPOLOGY:
		if (!w->have_nrcpus || !any_cpu_set(w))
			return 0;
		bb_sibling_lists(b, w, key_socket);
		bb_sibling_lists(b, w, key_core);
		for (uint32_t i = 0; i < w->nr_avail; i++) {
			bb_u32(b, w->cpus[i].set ? w->cpus[i].core : UINT32_MAX);
			bb_u32(b, w->cpus[i].set ? w->cpus[i].socket : UINT32_MAX);
		}
		bb_sibling_lists(b, w, key_die);
		for (uint32_t i = 0; i < w->nr_avail; i++)
			bb_u32(b, w->cpus[i].set ? w->cpus[i].die : UINT32_MAX);
		return 1;
	case PDW_FEAT_NUMA_TOPOLOGY:
		if (!w->nr_numa)
			return 0;
		bb_u32(b, w->nr_numa);
		for (uint32_t i = 0; i < w->nr_numa; i++) {
			bb_u32(b, w->numa[i].node);
			bb_u64(b, w->numa[i].total);
			bb_u64(b, w->numa[i].free);
			bb_string(b, w->numa[i].cpus);
		}
		return 1;
	case PDW_FEAT_CACHE:
		if (!w->nr_caches)
			return 0;
		bb_u32(b, 1);
		bb_u32(b, w->nr_caches);
		for (uint32_t i = 0; i < w->nr_caches; i++) {
			const struct pdw_cache *c = &w->caches[i];
			bb_u32(b, c->level);
			bb_u32(b, c->line_size);
			bb_u32(b, c->sets);
			bb_u32(b, c->ways);
			bb_string(b, c->type);
			bb_string(b, c->size);
			bb_string(b, c->map);
		}
		return 1;
	case PDW_FEAT_SAMPLE_TIME:
		if (w->have_sample_time) {
			bb_u64(b, w->sample_time_first);
			bb_u64(b, w->sample_time_last);
			return 1;
		}
		if (w->pipe || !w->nr_samples)
			return 0;
		bb_u64(b, w->first_time);
		bb_u64(b, w->last_time);
		return 1;
	case PDW_FEAT_MEM_TOPOLOGY:
		if (!w->nr_mem_nodes)
			return 0;
		bb_u64(b, 1);
		bb_u64(b, w->mem_block_size);
		bb_u64(b, w->nr_mem_nodes);
		for (uint32_t i = 0; i < w->nr_mem_nodes; i++) {
			const struct pdw_mem_node *m = &w->mem_nodes[i];
			uint64_t bits = m->first + m->count, words = (bits + 63) / 64;
			bb_u64(b, m->node);
			bb_u64(b, bits);
			bb_u64(b, bits);   /* do_write_bitmap repeats the size */
			for (uint64_t wd = 0; wd < words; wd++) {
				uint64_t v = 0;
				for (int k = 0; k < 64; k++) {
					uint64_t bit_i = wd * 64 + (uint64_t)k;
					if (bit_i >= m->first && bit_i < bits)
						v |= 1ull << k;
				}
				bb_u64(b, v);
			}
		}
		return 1;
	case PDW_FEAT_COMPRESSED:
		if (!w->compress)
			return 0;
		bb_u32(b, 1);              /* version */
		bb_u32(b, 1);              /* PERF_COMP_ZSTD */
		bb_u32(b, w->comp_level);
		bb_u32(b, 1);              /* ratio: informative only */
		/* perf sizes its decompression buffer from mmap_len: it must hold
		 * the raw bytes of one COMPRESSED record. */
		bb_u32(b, 1u << 17);
		return 1;
	default:
		return 0;
	}
}

int pdw_features_file(struct pdw *w, uint64_t feat[4])
{
	struct bb bufs[PDW_NR_FEATS];
	int present[PDW_NR_FEATS] = { 0 }, nr = 0, ret = 0;
	uint64_t pos;
	uint8_t *idx;

	memset(bufs, 0, sizeof(bufs));
	for (int bit = 1; bit < PDW_NR_FEATS; bit++) {
		bufs[bit].w = w;
		present[bit] = feature_encode(w, bit, &bufs[bit]);
		if (bufs[bit].oom)
			ret = -ENOMEM;
		if (present[bit]) {
			feat[bit / 64] |= 1ull << (bit % 64);
			nr++;
		}
	}
	if (ret) {
		pdw_set_failed(w, ret, "perf.data writer: out of memory");
		goto out;
	}
	/* The index of (offset, size) pairs sits right after the data; perf
	 * finds it there. The sections follow it. */
	pos = pdw_offset(w) + 16ull * (uint64_t)nr;
	idx = malloc(16 * (size_t)(nr ? nr : 1));
	if (!idx) {
		ret = pdw_set_failed(w, -ENOMEM, "perf.data writer: out of memory");
		goto out;
	}
	for (int bit = 1, i = 0; bit < PDW_NR_FEATS; bit++) {
		if (!present[bit])
			continue;
		put_u64(w, idx + 16 * i, pos);
		put_u64(w, idx + 16 * i + 8, bufs[bit].len);
		pos += bufs[bit].len;
		i++;
	}
	ret = pdw_out_write(w, idx, 16 * (size_t)nr);
	free(idx);
	for (int bit = 1; !ret && bit < PDW_NR_FEATS; bit++)
		if (present[bit])
			ret = pdw_out_write(w, bufs[bit].p, bufs[bit].len);
out:
	for (int bit = 0; bit < PDW_NR_FEATS; bit++)
		free(bufs[bit].p);
	return ret;
}

int pdw_features_pipe(struct pdw *w)
{
	int ret = 0;

	for (int bit = 1; !ret && bit < PDW_NR_FEATS; bit++) {
		struct bb b = { .w = w };

		/* perf record -o - sends these differently (tracing data and
		 * build-ids as their own records, names as EVENT_UPDATE). */
		if (bit == PDW_FEAT_TRACING_DATA || bit == PDW_FEAT_BUILD_ID || bit == PDW_FEAT_EVENT_DESC)
			continue;
		bb_u64(&b, (uint64_t)bit);
		if (feature_encode(w, bit, &b) && !b.oom)
			ret = pdw_pipe_record(w, REC_HEADER_FEATURE, 0, b.p, b.len, 8);
		if (b.oom)
			ret = pdw_set_failed(w, -ENOMEM, "perf.data writer: out of memory");
		free(b.p);
	}
	return ret;
}

int pdw_sideband_pipe(struct pdw *w)
{
	int ret = 0;

	if (w->have_tracing && !(w->dropped & (1ull << PDW_FEAT_TRACING_DATA))) {
		/* struct tracing_data_event { header; u32 size; } (12 bytes), then
		 * the blob padded to 8 bytes; size holds the padded length. */
		size_t padded = (w->tracing_size + 7) / 8 * 8;
		uint8_t hdr[12];
		put_u32(w, hdr, REC_HEADER_TRACING_DATA);
		put_u16(w, hdr + 4, 0);
		put_u16(w, hdr + 6, 12);
		put_u32(w, hdr + 8, (uint32_t)padded);
		if ((ret = pdw_out_write(w, hdr, sizeof(hdr))) ||
		    (ret = pdw_out_write(w, w->tracing, w->tracing_size)))
			return ret;
		if (padded > w->tracing_size) {
			static const uint8_t zero[8];
			if ((ret = pdw_out_write(w, zero, padded - w->tracing_size)))
				return ret;
		}
	}
	for (uint32_t i = 0; !ret && i < w->nr_build_ids && !(w->dropped & (1ull << PDW_FEAT_BUILD_ID)); i++) {
		const struct pdw_build_id *e = &w->build_ids[i];
		size_t fl = strlen(e->filename) + 1, len = (fl + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
		uint8_t body[28 + 4096 + NAME_ALIGN];
		if (len > 4096)
			return pdw_set_failed(w, -ENAMETOOLONG, "perf.data writer: build-id file name too long");
		memset(body, 0, 28 + len);
		put_u32(w, body, (uint32_t)e->pid);
		memcpy(body + 4, e->id, e->size);
		body[24] = e->size;
		memcpy(body + 28, e->filename, fl);
		ret = pdw_pipe_record(w, REC_HEADER_BUILD_ID, (uint16_t)(e->cpumode | MISC_BUILD_ID_SIZE),
				      body, 28 + len, 0);
	}
	return ret;
}
