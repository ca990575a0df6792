/* perf.data file header, attrs section and header feature sections
 * (tools/perf/Documentation/perf.data-file-format.txt). The same feature
 * parsers serve the pipe format's HEADER_FEATURE records. A feature section
 * that does not parse is counted and skipped: the samples are still good. */
#include "collector/perfdata/perfdata_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the reader assumes a little-endian host; swap logic is relative to it"
#endif

enum {
	FILE_HEADER_SIZE = 104,
	FILE_HEADER_SIZE_NOFEAT = 72,   /* before adds_features existed */
	PIPE_HEADER_SIZE = 16,
};

uint64_t pd_u64(const struct perfdata *pd, const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return perf_bswap64_if(v, pd->swap);
}

uint32_t pd_u32(const struct perfdata *pd, const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return perf_bswap32_if(v, pd->swap);
}

void *pd_alloc(struct perfdata *pd, size_t size)
{
	void *p;

	if (pd->nr_owned == pd->cap_owned) {
		size_t cap = pd->cap_owned ? pd->cap_owned * 2 : 32;
		void **n = realloc(pd->owned, cap * sizeof(*n));
		if (!n)
			return NULL;
		pd->owned = n;
		pd->cap_owned = cap;
	}
	p = calloc(1, size ? size : 1);
	if (p)
		pd->owned[pd->nr_owned++] = p;
	return p;
}

const unsigned char *pd_span(struct perfdata *pd, uint64_t off, uint64_t len)
{
	static const unsigned char none[1];
	unsigned char *b;

	if (!pd->windowed)
		return pd->map + off;
	if (!len)
		return none;
	if (len > SIZE_MAX || !(b = pd_alloc(pd, (size_t)len)))
		return NULL;
	return pd_pread_full(pd->fd, b, (size_t)len, off) < 0 ? NULL : b;
}


char *pd_strndup(struct perfdata *pd, const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d = pd_alloc(pd, len + 1);

	if (d)
		memcpy(d, s, len);
	return d;
}

/* ---- a bounded cursor over one feature section ---- */

struct fcur {
	struct perfdata *pd;
	const unsigned char *p;
	size_t left;
	bool bad;
};

static uint32_t fc_u32(struct fcur *c)
{
	uint32_t v;
	if (c->bad || c->left < 4) {
		c->bad = true;
		return 0;
	}
	v = pd_u32(c->pd, c->p);
	c->p += 4;
	c->left -= 4;
	return v;
}

static uint64_t fc_u64(struct fcur *c)
{
	uint64_t v;
	if (c->bad || c->left < 8) {
		c->bad = true;
		return 0;
	}
	v = pd_u64(c->pd, c->p);
	c->p += 8;
	c->left -= 8;
	return v;
}

/* struct perf_header_string: u32 len, then len bytes (NUL-padded). */
static const char *fc_str(struct fcur *c)
{
	uint32_t len = fc_u32(c);
	const char *s;

	if (c->bad || len > c->left) {
		c->bad = true;
		return NULL;
	}
	s = pd_strndup(c->pd, (const char *)c->p, len);
	if (!s)
		c->bad = true;
	c->p += len;
	c->left -= len;
	return s;
}

/* A count of items of at least `min_item` bytes each must fit what is left:
 * guards the allocations against absurd counts. */
static bool fc_count_ok(struct fcur *c, uint64_t n, size_t min_item)
{
	if (c->bad || n > c->left / min_item) {
		c->bad = true;
		return false;
	}
	return true;
}

static const char **fc_str_list(struct fcur *c, uint32_t *nr_out)
{
	uint32_t nr = fc_u32(c);
	const char **v;

	*nr_out = 0;
	if (!fc_count_ok(c, nr, 4))
		return NULL;
	v = pd_alloc(c->pd, (nr ? nr : 1) * sizeof(*v));
	if (!v) {
		c->bad = true;
		return NULL;
	}
	for (uint32_t i = 0; i < nr && !c->bad; i++)
		v[i] = fc_str(c);
	if (!c->bad)
		*nr_out = nr;
	return v;
}

/* ---- feature parsers ---- */

static void feat_cmdline(struct fcur *c)
{
	uint32_t nr;
	const char **argv = fc_str_list(c, &nr);
	size_t len = 1;
	char *s;

	if (c->bad)
		return;
	for (uint32_t i = 0; i < nr; i++)
		len += strlen(argv[i]) + 1;
	s = pd_alloc(c->pd, len);
	if (!s) {
		c->bad = true;
		return;
	}
	for (uint32_t i = 0; i < nr; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	c->pd->hdr.cmdline = s;
}

static bool printable_name(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

static void feat_event_desc(struct fcur *c)
{
	struct perfdata *pd = c->pd;
	uint32_t nre = fc_u32(c), sz = fc_u32(c);
	struct pd_desc *d;

	if (c->bad || sz < PERF_ATTR_SIZE_VER0 || !fc_count_ok(c, nre, (size_t)sz + 8)) {
		c->bad = true;
		return;
	}
	d = pd_alloc(pd, (nre ? nre : 1) * sizeof(*d));
	if (!d) {
		c->bad = true;
		return;
	}
	for (uint32_t i = 0; i < nre && !c->bad; i++) {
		uint32_t nr_ids;
		/* The attr itself is not needed: the attrs section has it. */
		if (c->left < sz) {
			c->bad = true;
			break;
		}
		c->p += sz;
		c->left -= sz;
		nr_ids = fc_u32(c);
		d[i].name = fc_str(c);
		if (d[i].name && !printable_name(d[i].name)) {
			/* perf's event names are printable ASCII: anything else
			 * is damage, said as a bad feature, not shown as a name */
			c->bad = true;
			break;
		}
		if (!fc_count_ok(c, nr_ids, 8))
			break;
		if (nr_ids) {
			d[i].first_id = pd_u64(pd, c->p);
			d[i].has_id = true;
		}
		c->p += (size_t)nr_ids * 8;
		c->left -= (size_t)nr_ids * 8;
	}
	if (!c->bad) {
		pd->descs = d;
		pd->nr_descs = nre;
	}
}

static void feat_cpu_topology(struct fcur *c)
{
	struct perfdata_header *h = &c->pd->hdr;
	uint32_t n = h->nr_cpus_avail;
	struct perfdata_cpu_topo *t;

	h->core_siblings = fc_str_list(c, &h->nr_core_siblings);
	h->thread_siblings = fc_str_list(c, &h->nr_thread_siblings);
	if (c->bad || c->left == 0)
		return;   /* old perf: no per-cpu ids */
	if (!fc_count_ok(c, n, 8))
		return;
	t = pd_alloc(c->pd, (n ? n : 1) * sizeof(*t));
	if (!t) {
		c->bad = true;
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		t[i].core_id = (int32_t)fc_u32(c);
		t[i].socket_id = (int32_t)fc_u32(c);
		t[i].die_id = -1;
	}
	if (c->bad)
		return;
	h->cpu_topo = t;
	h->nr_cpu_topo = n;
	if (c->left == 0)
		return;   /* no die information */
	h->die_siblings = fc_str_list(c, &h->nr_die_siblings);
	if (c->bad)
		return;
	if (c->left / 4 < n) {
		c->bad = true;
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		t[i].die_id = (int32_t)fc_u32(c);
}

static bool cpu_list_text(const char *s)
{
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || *s == ',' || *s == '-' || *s == '\n'))
			return false;
	return true;
}

static void feat_numa(struct fcur *c)
{
	struct perfdata_header *h = &c->pd->hdr;
	uint32_t nr = fc_u32(c);
	struct perfdata_numa_node *v;

	/* perf writes at least one node; none (a section read from the wrong
	 * place) is damage, not a machine without memory */
	if (!nr) {
		c->bad = true;
		return;
	}
	if (!fc_count_ok(c, nr, 24))
		return;
	v = pd_alloc(c->pd, (nr ? nr : 1) * sizeof(*v));
	if (!v) {
		c->bad = true;
		return;
	}
	for (uint32_t i = 0; i < nr && !c->bad; i++) {
		v[i].node = fc_u32(c);
		v[i].mem_total_kb = fc_u64(c);
		v[i].mem_free_kb = fc_u64(c);
		v[i].cpus = fc_str(c);
		if (v[i].cpus && !cpu_list_text(v[i].cpus))
			c->bad = true;  /* perf writes "0-3,8": anything else is damage */
	}
	/* The format never changed: bytes left over are damage, but for the
	 * zeros that pad a pipe file's feature record to 8 bytes. */
	for (size_t k = 0; k < c->left && !c->bad; k++)
		if (k >= 8 || c->p[k])
			c->bad = true;
	if (!c->bad) {
		h->numa_nodes = v;
		h->nr_numa_nodes = nr;
	}
}

static void feat_mem_topology(struct fcur *c)
{
	struct perfdata_header *h = &c->pd->hdr;
	uint64_t version = fc_u64(c), bsize = fc_u64(c), nr = fc_u64(c);
	struct perfdata_mem_node *v;

	if (c->bad || version != 1 || !fc_count_ok(c, nr, 24)) {
		c->bad = true;
		return;
	}
	v = pd_alloc(c->pd, (nr ? nr : 1) * sizeof(*v));
	if (!v) {
		c->bad = true;
		return;
	}
	for (uint64_t i = 0; i < nr && !c->bad; i++) {
		uint64_t bits, words;
		v[i].node = fc_u64(c);
		fc_u64(c);               /* size: superseded by the bitmap's */
		bits = fc_u64(c);
		words = bits / 64 + (bits % 64 != 0);
		if (!fc_count_ok(c, words, 8))
			break;
		v[i].nr_blocks_total = bits;
		uint64_t *map = words ? pd_alloc(c->pd, words * sizeof(*map)) : NULL;
		for (uint64_t w = 0; w < words; w++) {
			uint64_t word = fc_u64(c);
			if (map)
				map[w] = word;
			v[i].nr_blocks += (uint64_t)__builtin_popcountll(word);
		}
		v[i].blocks = map;
		v[i].bytes = v[i].nr_blocks * bsize;
	}
	if (!c->bad) {
		h->mem_block_size = bsize;
		h->mem_nodes = v;
		h->nr_mem_nodes = (uint32_t)nr;
	}
}

static void feat_cache(struct fcur *c)
{
	struct perfdata_header *h = &c->pd->hdr;
	uint32_t version = fc_u32(c), nr = fc_u32(c);
	struct perfdata_cache *v;

	if (c->bad || version != 1 || !fc_count_ok(c, nr, 28)) {
		c->bad = true;
		return;
	}
	v = pd_alloc(c->pd, (nr ? nr : 1) * sizeof(*v));
	if (!v) {
		c->bad = true;
		return;
	}
	for (uint32_t i = 0; i < nr && !c->bad; i++) {
		v[i].level = fc_u32(c);
		v[i].line_size = fc_u32(c);
		v[i].sets = fc_u32(c);
		v[i].ways = fc_u32(c);
		v[i].type = fc_str(c);
		v[i].size = fc_str(c);
		v[i].map = fc_str(c);
	}
	if (!c->bad) {
		h->caches = v;
		h->nr_caches = nr;
	}
}

static void feat_pmu_mappings(struct fcur *c)
{
	struct perfdata_header *h = &c->pd->hdr;
	uint32_t nr = fc_u32(c);
	struct perfdata_pmu *v;

	if (!fc_count_ok(c, nr, 8))
		return;
	v = pd_alloc(c->pd, (nr ? nr : 1) * sizeof(*v));
	if (!v) {
		c->bad = true;
		return;
	}
	for (uint32_t i = 0; i < nr && !c->bad; i++) {
		v[i].type = fc_u32(c);
		v[i].name = fc_str(c);
	}
	if (!c->bad) {
		h->pmus = v;
		h->nr_pmus = nr;
	}
}

int pd_add_build_id(struct perfdata *pd, const unsigned char *p, size_t len)
{
	/* struct perf_record_header_build_id: header, pid, build_id[24]
	 * (20 bytes + size byte + 3 reserved), filename[]. */
	struct perfdata_header *h = &pd->hdr;
	struct perf_rec_header rh;
	struct perfdata_build_id *b;

	if (len < 36 + 1)
		return -EINVAL;
	rh = perf_record_header(p, pd->swap);
	if ((h->nr_build_ids & (h->nr_build_ids - 1)) == 0) {
		/* grow at powers of two; old arrays stay owned until close */
		size_t cap = h->nr_build_ids ? (size_t)h->nr_build_ids * 2 : 8;
		b = pd_alloc(pd, cap * sizeof(*b));
		if (!b)
			return -ENOMEM;
		if (h->nr_build_ids)
			memcpy(b, h->build_ids, h->nr_build_ids * sizeof(*b));
		h->build_ids = b;
	}
	b = &h->build_ids[h->nr_build_ids];
	memset(b, 0, sizeof(*b));
	b->misc = rh.misc;
	b->pid = (int32_t)pd_u32(pd, p + 8);
	memcpy(b->build_id, p + 12, 20);
	b->size = (rh.misc & (1u << 15)) ? p[32] : 20;
	if (b->size > 20)
		b->size = 20;
	b->filename = pd_strndup(pd, (const char *)p + 36, len - 36);
	if (!b->filename)
		return -ENOMEM;
	h->nr_build_ids++;
	return 0;
}

static void feat_build_id(struct fcur *c)
{
	while (c->left >= 8 && !c->bad) {
		struct perf_rec_header rh = perf_record_header(c->p, c->pd->swap);
		if (rh.size < 8 || rh.size > c->left || pd_add_build_id(c->pd, c->p, rh.size) < 0) {
			c->bad = true;
			return;
		}
		c->p += rh.size;
		c->left -= rh.size;
	}
}

int pd_parse_feature(struct perfdata *pd, unsigned feat, const unsigned char *p, size_t len)
{
	struct perfdata_header *h = &pd->hdr;
	struct fcur c = { .pd = pd, .p = p, .left = len };

	switch (feat) {
	case PERFDATA_FEAT_TRACING_DATA: {
		void *blob = pd_alloc(pd, len);
		if (!blob)
			return -ENOMEM;
		memcpy(blob, p, len);
		h->tracing_data = blob;
		h->tracing_data_size = len;
		break;
	}
	case PERFDATA_FEAT_BUILD_ID: feat_build_id(&c); break;
	case PERFDATA_FEAT_HOSTNAME: h->hostname = fc_str(&c); break;
	case PERFDATA_FEAT_OSRELEASE: h->osrelease = fc_str(&c); break;
	case PERFDATA_FEAT_VERSION: h->version = fc_str(&c); break;
	case PERFDATA_FEAT_ARCH: h->arch = fc_str(&c); break;
	case PERFDATA_FEAT_CPUDESC: h->cpudesc = fc_str(&c); break;
	case PERFDATA_FEAT_CPUID: h->cpuid = fc_str(&c); break;
	case PERFDATA_FEAT_NRCPUS: {
		uint32_t avail = fc_u32(&c), online = fc_u32(&c);
		if (!c.bad) {
			h->nr_cpus_avail = avail;
			h->nr_cpus_online = online;
		}
		break;
	}
	case PERFDATA_FEAT_TOTAL_MEM: h->total_mem_kb = fc_u64(&c); break;
	case PERFDATA_FEAT_CMDLINE: feat_cmdline(&c); break;
	case PERFDATA_FEAT_EVENT_DESC: feat_event_desc(&c); break;
	case PERFDATA_FEAT_CPU_TOPOLOGY: feat_cpu_topology(&c); break;
	case PERFDATA_FEAT_NUMA_TOPOLOGY: feat_numa(&c); break;
	case PERFDATA_FEAT_PMU_MAPPINGS: feat_pmu_mappings(&c); break;
	case PERFDATA_FEAT_CACHE: feat_cache(&c); break;
	case PERFDATA_FEAT_MEM_TOPOLOGY: feat_mem_topology(&c); break;
	case PERFDATA_FEAT_SAMPLE_TIME: {
		uint64_t first = fc_u64(&c), last = fc_u64(&c);
		if (!c.bad) {
			h->first_sample_time = first;
			h->last_sample_time = last;
		}
		break;
	}
	case PERFDATA_FEAT_CLOCKID: h->clockid_res_ns = fc_u64(&c); break;
	case PERFDATA_FEAT_COMPRESSED: {
		uint32_t v[5];
		for (int i = 0; i < 5; i++)
			v[i] = fc_u32(&c);
		if (!c.bad) {
			h->comp_version = v[0];
			h->comp_type = v[1];
			h->comp_level = v[2];
			h->comp_ratio = v[3];
			h->comp_mmap_len = v[4];
		}
		break;
	}
	default:
		break;   /* known to perf, not needed here */
	}
	return c.bad ? -EINVAL : 0;
}

/* ---- attrs ---- */

static int idmap_put(struct perfdata *pd, uint64_t id, int32_t idx)
{
	if ((pd->idmap_n + 1) * 2 > pd->idmap_cap) {
		size_t cap = pd->idmap_cap ? pd->idmap_cap * 2 : 64;
		__typeof__(pd->idmap) n = calloc(cap, sizeof(*n));
		if (!n)
			return -ENOMEM;
		for (size_t i = 0; i < pd->idmap_cap; i++) {
			if (!pd->idmap[i].used)
				continue;
			size_t h = (size_t)(pd->idmap[i].id * 0x9E3779B97F4A7C15ull) & (cap - 1);
			while (n[h].used)
				h = (h + 1) & (cap - 1);
			n[h] = pd->idmap[i];
		}
		free(pd->idmap);
		pd->idmap = n;
		pd->idmap_cap = cap;
	}
	size_t h = (size_t)(id * 0x9E3779B97F4A7C15ull) & (pd->idmap_cap - 1);
	while (pd->idmap[h].used) {
		if (pd->idmap[h].id == id)
			return 0;    /* first attr claiming an id keeps it */
		h = (h + 1) & (pd->idmap_cap - 1);
	}
	pd->idmap[h].used = true;
	pd->idmap[h].id = id;
	pd->idmap[h].idx = idx;
	pd->idmap_n++;
	return 0;
}

int perfdata_attr_by_id(const struct perfdata *pd, uint64_t id)
{
	if (!pd->idmap_cap)
		return -1;
	size_t h = (size_t)(id * 0x9E3779B97F4A7C15ull) & (pd->idmap_cap - 1);
	while (pd->idmap[h].used) {
		if (pd->idmap[h].id == id)
			return pd->idmap[h].idx;
		h = (h + 1) & (pd->idmap_cap - 1);
	}
	return -1;
}

int pd_add_attr(struct perfdata *pd, const struct perf_attr_info *a, const unsigned char *ids,
		size_t nr_ids, struct c2c_error *err)
{
	struct perf_attr_info *dst;
	uint64_t *idv;

	if (pd->nr_attrs == pd->cap_attrs) {
		size_t cap = pd->cap_attrs ? pd->cap_attrs * 2 : 8;
		struct perf_attr_info **n = realloc(pd->attrs, cap * sizeof(*n));
		const char **un;
		if (!n)
			return c2c_error_set(err, -ENOMEM, "%s: out of memory for event attributes", pd->path);
		pd->attrs = n;
		un = realloc(pd->upd_names, cap * sizeof(*un));
		if (!un)
			return c2c_error_set(err, -ENOMEM, "%s: out of memory for event attributes", pd->path);
		pd->upd_names = un;
		pd->cap_attrs = cap;
	}
	idv = pd_alloc(pd, (nr_ids ? nr_ids : 1) * sizeof(*idv));
	if (!idv)
		return c2c_error_set(err, -ENOMEM, "%s: out of memory for event ids", pd->path);
	for (size_t i = 0; i < nr_ids; i++) {
		idv[i] = pd_u64(pd, ids + i * 8);
		if (idmap_put(pd, idv[i], (int32_t)pd->nr_attrs) < 0)
			return c2c_error_set(err, -ENOMEM, "%s: out of memory for event ids", pd->path);
	}
	/* Each attr has its own allocation: pointers handed out stay valid
	 * when pipe-mode HEADER_ATTR records add more. */
	dst = pd_alloc(pd, sizeof(*dst));
	if (!dst)
		return c2c_error_set(err, -ENOMEM, "%s: out of memory for event attributes", pd->path);
	pd->attrs[pd->nr_attrs] = dst;
	*dst = *a;
	dst->index = (uint32_t)pd->nr_attrs;
	dst->ids = idv;
	dst->nr_ids = (uint32_t)nr_ids;
	dst->name = NULL;
	pd->upd_names[pd->nr_attrs] = NULL;
	pd->nr_attrs++;
	return 0;
}

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses",
	"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
	"stalled-cycles-backend", "ref-cycles",
};
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches",
	"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
};

static const char *derive_name(struct perfdata *pd, const struct perf_attr_info *a)
{
	char buf[160];

	if (a->type == 0 && a->config < sizeof(hw_names) / sizeof(hw_names[0]))
		snprintf(buf, sizeof(buf), "%s", hw_names[a->config]);
	else if (a->type == 1 && a->config < sizeof(sw_names) / sizeof(sw_names[0]))
		snprintf(buf, sizeof(buf), "%s", sw_names[a->config]);
	else if (a->type == 2)
		snprintf(buf, sizeof(buf), "tracepoint:%" PRIu64, a->config);
	else {
		const char *pmu = NULL;
		for (uint32_t i = 0; i < pd->hdr.nr_pmus; i++)
			if (pd->hdr.pmus[i].type == a->type)
				pmu = pd->hdr.pmus[i].name;
		if (pmu)
			snprintf(buf, sizeof(buf), "%s/config=0x%" PRIx64 "/", pmu, a->config);
		else
			snprintf(buf, sizeof(buf), "type%u/config=0x%" PRIx64 "/", a->type, a->config);
	}
	return pd_strndup(pd, buf, sizeof(buf));
}

void pd_name_attrs(struct perfdata *pd)
{
	for (size_t i = 0; i < pd->nr_attrs; i++)
		pd->attrs[i]->name = pd->upd_names[i];
	for (size_t d = 0; d < pd->nr_descs; d++) {
		int idx = -1;
		if (!pd->descs[d].name)
			continue;
		if (pd->descs[d].has_id)
			idx = perfdata_attr_by_id(pd, pd->descs[d].first_id);
		else if (pd->nr_descs == pd->nr_attrs)
			idx = (int)d;   /* no ids recorded: same order as the attrs */
		if (idx >= 0 && !pd->attrs[idx]->name)
			pd->attrs[idx]->name = pd->descs[d].name;
	}
	for (size_t i = 0; i < pd->nr_attrs; i++) {
		if (!pd->attrs[i]->name)
			pd->attrs[i]->name = derive_name(pd, pd->attrs[i]);
		if (!pd->attrs[i]->name)
			pd->attrs[i]->name = "?";
	}
}

/* PERF_RECORD_EVENT_UPDATE (perf's struct perf_record_event_update): u64
 * type, u64 id, then the payload of that type. perf record -o - names its
 * events this way, right after their HEADER_ATTR records. Only the two u64
 * words are byte-swapped; a name is bytes. */
enum {
	EVUPD_UNIT = 0, EVUPD_SCALE = 1, EVUPD_NAME = 2, EVUPD_CPUS = 3,
	EVUPD_HDR = 24,              /* header + type + id */
};

int pd_event_update(struct perfdata *pd, const unsigned char *rec, size_t size)
{
	const unsigned char *payload = rec + EVUPD_HDR;
	size_t plen;
	uint64_t type;
	int idx;

	if (size < EVUPD_HDR)
		return -EINVAL;
	plen = size - EVUPD_HDR;
	type = pd_u64(pd, rec + 8);
	/* perf looks the event up by id and rejects the record without one. */
	idx = perfdata_attr_by_id(pd, pd_u64(pd, rec + 16));
	if (idx < 0)
		return -ENOENT;
	switch (type) {
	case EVUPD_NAME: {
		const unsigned char *nul = memchr(payload, 0, plen);
		char *name;
		if (!nul || nul == payload)
			return -EINVAL;   /* unterminated or empty */
		name = pd_strndup(pd, (const char *)payload, (size_t)(nul - payload));
		if (!name)
			return -ENOMEM;
		pd->upd_names[idx] = name;
		pd_name_attrs(pd);
		return 0;
	}
	case EVUPD_UNIT:
		/* Used by perf stat; c2ctui has no use for units. */
		return memchr(payload, 0, plen) ? 0 : -EINVAL;
	case EVUPD_SCALE:
		return plen >= 8 ? 0 : -EINVAL;
	case EVUPD_CPUS:
		/* perf_record_cpu_map_data starts with its u16 type. */
		return plen >= 2 ? 0 : -EINVAL;
	default:
		return 0;   /* perf ignores types it does not know too */
	}
}

/* ---- the file header ---- */

static void read_feature_bitmap(struct perfdata *pd, const unsigned char *p)
{
	struct perfdata_header *h = &pd->hdr;

	for (int i = 0; i < 4; i++)
		h->features[i] = pd_u64(pd, p + i * 8);
	/* A big-endian 32-bit writer stored the bitmap as u32 words: perf
	 * detects that by HOSTNAME (always written) missing after the u64 swap. */
	if (pd->swap && !perfdata_has_feature(h, PERFDATA_FEAT_HOSTNAME)) {
		uint64_t alt[4];
		for (int i = 0; i < 4; i++)
			alt[i] = (uint64_t)pd_u32(pd, p + i * 8) | (uint64_t)pd_u32(pd, p + i * 8 + 4) << 32;
		if ((alt[0] >> PERFDATA_FEAT_HOSTNAME) & 1)
			memcpy(h->features, alt, sizeof(alt));
	}
}

static void read_features(struct perfdata *pd)
{
	struct perfdata_header *h = &pd->hdr;
	uint64_t table = h->data_offset + h->data_size;
	unsigned nr = 0, slot = 0;

	for (unsigned b = 0; b < PERFDATA_FEAT_BITS; b++) {
		if (!perfdata_has_feature(h, b))
			continue;
		nr++;
		if (b >= PERFDATA_FEAT_KNOWN || b == 0)
			h->nr_unknown_features++;
	}
	pd->stats.unknown_features = h->nr_unknown_features;
	if (!nr)
		return;
	const unsigned char *tab;
	if (table < h->data_offset || table > pd->map_len || (uint64_t)nr * 16 > pd->map_len - table ||
	    !(tab = pd_span(pd, table, (uint64_t)nr * 16))) {
		/* Truncated file: the feature table is gone. */
		h->nr_bad_features += nr - h->nr_unknown_features;
		return;
	}
	for (unsigned b = 0; b < PERFDATA_FEAT_BITS; b++) {
		uint64_t off, size;
		if (!perfdata_has_feature(h, b))
			continue;
		const unsigned char *sec;
		off = pd_u64(pd, tab + slot * 16);
		size = pd_u64(pd, tab + slot * 16 + 8);
		slot++;
		if (b == 0 || b >= PERFDATA_FEAT_KNOWN)
			continue;
		if (off > pd->map_len || size > pd->map_len - off || !(sec = pd_span(pd, off, size)) ||
		    pd_parse_feature(pd, b, sec, (size_t)size) < 0)
			h->nr_bad_features++;
	}
}

int pd_read_file_header(struct perfdata *pd, struct c2c_error *err)
{
	struct perfdata_header *h = &pd->hdr;
	const unsigned char *p = pd_span(pd, 0, pd->map_len < FILE_HEADER_SIZE ? pd->map_len : FILE_HEADER_SIZE);
	const unsigned char *attrs;
	uint64_t hsize, attr_size, attrs_off, attrs_size, nr_attrs;

	if (!p)
		return c2c_error_set(err, -EIO, "%s: cannot read the header", pd->path);
	if (pd->map_len < 8)
		return c2c_error_set(err, -EINVAL, "%s: not a perf.data file (only %zu bytes)", pd->path,
				     pd->map_len);
	if (memcmp(p, "PERFILE2", 8) == 0) {
		pd->swap = false;
	} else if (memcmp(p, "2ELIFREP", 8) == 0) {
		pd->swap = true;
	} else if (memcmp(p, "PERFFILE", 8) == 0) {
		return c2c_error_set(err, -EINVAL, "%s: perf.data version 1 (PERFFILE) is too old to read",
				     pd->path);
	} else {
		return c2c_error_set(err, -EINVAL, "%s: not a perf.data file (bad magic)", pd->path);
	}
	h->swapped = pd->swap;
	if (pd->map_len < 16)
		return c2c_error_set(err, -EINVAL, "%s: truncated perf.data header (%zu bytes)", pd->path,
				     pd->map_len);
	hsize = pd_u64(pd, p + 8);
	if (hsize == PIPE_HEADER_SIZE) {
		pd->pipe = h->pipe = true;
		pd->pos = PIPE_HEADER_SIZE;
		pd->end = pd->map_len;
		return 0;
	}
	if (hsize != FILE_HEADER_SIZE && hsize != FILE_HEADER_SIZE_NOFEAT)
		return c2c_error_set(err, -EINVAL, "%s: unsupported perf.data header size %" PRIu64, pd->path,
				     hsize);
	if (pd->map_len < hsize)
		return c2c_error_set(err, -EINVAL, "%s: truncated perf.data header (%zu of %" PRIu64 " bytes)",
				     pd->path, pd->map_len, hsize);
	attr_size = pd_u64(pd, p + 16);
	attrs_off = pd_u64(pd, p + 24);
	attrs_size = pd_u64(pd, p + 32);
	h->data_offset = pd_u64(pd, p + 40);
	h->data_size = pd_u64(pd, p + 48);
	if (hsize == FILE_HEADER_SIZE)
		read_feature_bitmap(pd, p + 72);

	/* Each attrs entry is struct perf_file_attr: the attr, then a file
	 * section pointing at its ids. */
	if (attr_size < PERF_ATTR_SIZE_VER0 + 16 || attr_size > PERF_ATTR_SIZE_MAX + 16)
		return c2c_error_set(err, -EINVAL, "%s: invalid attribute entry size %" PRIu64 " in the header",
				     pd->path, attr_size);
	nr_attrs = attrs_size / attr_size;
	if (attrs_off > pd->map_len || attrs_size > pd->map_len - attrs_off)
		return c2c_error_set(err, -EINVAL,
				     "%s: the attrs section (%" PRIu64 " attrs at offset %" PRIu64
				     ") runs past the end of the file",
				     pd->path, nr_attrs, attrs_off);
	if (nr_attrs == 0)
		return c2c_error_set(err, -EINVAL, "%s: the file has no event attributes", pd->path);
	if (!(attrs = pd_span(pd, attrs_off, nr_attrs * attr_size)))
		return c2c_error_set(err, -EIO, "%s: cannot read the attrs section", pd->path);
	for (uint64_t i = 0; i < nr_attrs; i++) {
		const unsigned char *e = attrs + i * attr_size, *ids;
		struct perf_attr_info a;
		uint64_t ids_off, ids_size;
		struct c2c_error aerr;
		int rc;

		if (perf_attr_decode(e, (size_t)attr_size - 16, pd->swap, &a, &aerr) < 0)
			return c2c_error_set(err, -EINVAL, "%s: attr %" PRIu64 ": %s", pd->path, i, aerr.msg);
		ids_off = pd_u64(pd, e + attr_size - 16);
		ids_size = pd_u64(pd, e + attr_size - 8);
		if (ids_off > pd->map_len || ids_size > pd->map_len - ids_off)
			return c2c_error_set(err, -EINVAL, "%s: attr %" PRIu64 ": its id list runs past the end of the file",
					     pd->path, i);
		if (!(ids = pd_span(pd, ids_off, ids_size)))
			return c2c_error_set(err, -EIO, "%s: attr %" PRIu64 ": cannot read its id list", pd->path, i);
		rc = pd_add_attr(pd, &a, ids, (size_t)(ids_size / 8), err);
		if (rc < 0)
			return rc;
	}

	if (h->data_size == 0 && h->data_offset < pd->map_len) {
		/* perf writes the data size (and the features after the data)
		 * only when it finishes; perf itself reads nothing then. The
		 * records are all there: read up to the end of the file. */
		h->unfinished = true;
		h->nr_bad_features = 0;
		for (unsigned b = 1; b < PERFDATA_FEAT_KNOWN; b++)
			h->nr_bad_features += perfdata_has_feature(h, b);
		memset(h->features, 0, sizeof(h->features));
		h->data_size = pd->map_len - h->data_offset;
	} else {
		read_features(pd);
	}
	pd_name_attrs(pd);

	pd->pos = h->data_offset;
	pd->end = h->data_offset + h->data_size;
	if (pd->end < h->data_offset || pd->end > pd->map_len) {
		/* Truncated: read what is there and report the rest as missing. */
		pd->stats.truncated = true;
		pd->end = pd->map_len;
		if (pd->pos > pd->end)
			pd->pos = pd->end;
	}
	return 0;
}
