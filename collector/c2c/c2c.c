/* c2c semantics: which counters one memory sample increments (perf 6.1's
 * c2c_decode_stats rules, re-derived from the perf_mem_data_src layout),
 * and the small rules `perf c2c report` uses to show them. Pure functions
 * only: the store aggregates with them, the report and the TUI print with
 * them, so one number has one definition. */
#include "collector/c2c/c2c.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* data_src fields (union perf_mem_data_src, little-endian bit layout) */
#define DS_OP(v)      (((v) >> PERF_MEM_OP_SHIFT) & 0x1f)
#define DS_LVL(v)     (((v) >> PERF_MEM_LVL_SHIFT) & 0x3fff)
#define DS_SNOOP(v)   (((v) >> PERF_MEM_SNOOP_SHIFT) & 0x1f)
#define DS_LOCK(v)    (((v) >> PERF_MEM_LOCK_SHIFT) & 0x3)
#define DS_TLB(v)     (((v) >> PERF_MEM_TLB_SHIFT) & 0x7f)
#define DS_LVLNUM(v)  (((v) >> PERF_MEM_LVLNUM_SHIFT) & 0xf)
#define DS_REMOTE(v)  (((v) >> PERF_MEM_REMOTE_SHIFT) & 0x1)
#define DS_SNOOPX(v)  (((v) >> PERF_MEM_SNOOPX_SHIFT) & 0x3)
#define DS_BLK(v)     (((v) >> PERF_MEM_BLK_SHIFT) & 0x7)
#define DS_HOPS(v)    (((v) >> PERF_MEM_HOPS_SHIFT) & 0x7)

static const char *const counter_names[C2C_COUNTER_MAX] = {
	"nr_entries", "locks", "store", "st_uncache", "st_noadrs",
	"st_l1hit", "st_l1miss", "st_na", "load", "ld_excl",
	"ld_shared", "ld_uncache", "ld_io", "ld_miss", "ld_noadrs",
	"ld_fbhit", "ld_l1hit", "ld_l2hit", "ld_llchit", "lcl_hitm",
	"rmt_hitm", "tot_hitm", "lcl_peer", "rmt_peer", "tot_peer",
	"rmt_hit", "lcl_dram", "rmt_dram", "blk_data", "blk_addr",
	"nomap", "noparse",
};

/* The enum indexes the struct members in declaration order. */
_Static_assert(sizeof(struct c2c_stats) == C2C_COUNTER_MAX * sizeof(uint64_t),
	       "struct c2c_stats must be C2C_COUNTER_MAX uint64_t counters");
_Static_assert(offsetof(struct c2c_stats, noparse) == C2C_NOPARSE * sizeof(uint64_t),
	       "enum c2c_counter out of step with struct c2c_stats");
_Static_assert(offsetof(struct c2c_stats, lcl_hitm) == C2C_LCL_HITM * sizeof(uint64_t),
	       "enum c2c_counter out of step with struct c2c_stats");

const char *c2c_counter_name(enum c2c_counter c)
{
	return (unsigned)c < C2C_COUNTER_MAX ? counter_names[c] : "?";
}

uint64_t *c2c_stats_ref(struct c2c_stats *s, enum c2c_counter c)
{
	/* struct c2c_stats is an array of uint64_t in all but name (asserted above) */
	return (uint64_t *)((char *)s + (size_t)c * sizeof(uint64_t));
}

uint64_t c2c_stats_get(const struct c2c_stats *s, enum c2c_counter c)
{
	uint64_t v;

	memcpy(&v, (const char *)s + (size_t)c * sizeof(uint64_t), sizeof(v));
	return v;
}

static void inc(uint64_t *bits, enum c2c_counter c)
{
	unsigned shift = 2 * (unsigned)c;
	uint64_t cur = (*bits >> shift) & 3;

	if (cur < 3) /* saturate: no real data_src comes close */
		*bits = (*bits & ~(3ull << shift)) | ((cur + 1) << shift);
}

uint64_t c2c_classify(uint64_t ds, uint64_t daddr, bool daddr_mapped, bool iaddr_mapped)
{
	uint64_t b = 0;
	uint64_t op = DS_OP(ds), lvl = DS_LVL(ds), snoop = DS_SNOOP(ds);
	uint64_t snoopx = DS_SNOOPX(ds), blk = DS_BLK(ds);
	/* Skylake reports an unknown remote level through the remote bit; on
	 * POWER the remote bit with a hop count means another core of the
	 * same node, so only remote-without-hops counts as remote here. */
	bool mrem = DS_REMOTE(ds) && !DS_HOPS(ds);

	inc(&b, C2C_NR_ENTRIES);
	if (DS_LOCK(ds) & PERF_MEM_LOCK_LOCKED)
		inc(&b, C2C_LOCKS);
	/* blocked accesses are counted before the op is looked at */
	if (blk & PERF_MEM_BLK_DATA)
		inc(&b, C2C_BLK_DATA);
	if (blk & PERF_MEM_BLK_ADDR)
		inc(&b, C2C_BLK_ADDR);

	if (op & PERF_MEM_OP_LOAD) {
		inc(&b, C2C_LOAD);
		if (!daddr) {
			inc(&b, C2C_LD_NOADRS);
			return b;
		}
		if (lvl & PERF_MEM_LVL_HIT) {
			if (lvl & PERF_MEM_LVL_UNC)
				inc(&b, C2C_LD_UNCACHE);
			if (lvl & PERF_MEM_LVL_IO)
				inc(&b, C2C_LD_IO);
			if (lvl & PERF_MEM_LVL_LFB)
				inc(&b, C2C_LD_FBHIT);
			if (lvl & PERF_MEM_LVL_L1)
				inc(&b, C2C_LD_L1HIT);
			if (lvl & PERF_MEM_LVL_L2) {
				inc(&b, C2C_LD_L2HIT);
				if (snoopx & PERF_MEM_SNOOPX_PEER) {
					inc(&b, C2C_LCL_PEER);
					inc(&b, C2C_TOT_PEER);
				}
			}
			if (lvl & PERF_MEM_LVL_L3) {
				if (snoop & PERF_MEM_SNOOP_HITM) {
					inc(&b, C2C_LCL_HITM);
					inc(&b, C2C_TOT_HITM);
				} else {
					inc(&b, C2C_LD_LLCHIT);
				}
				if (snoopx & PERF_MEM_SNOOPX_PEER) {
					inc(&b, C2C_LCL_PEER);
					inc(&b, C2C_TOT_PEER);
				}
			}
			if (lvl & PERF_MEM_LVL_LOC_RAM) {
				inc(&b, C2C_LCL_DRAM);
				inc(&b, (snoop & PERF_MEM_SNOOP_HIT) ? C2C_LD_SHARED : C2C_LD_EXCL);
			}
			if ((lvl & (PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2)) || mrem) {
				inc(&b, C2C_RMT_DRAM);
				inc(&b, (snoop & PERF_MEM_SNOOP_HIT) ? C2C_LD_SHARED : C2C_LD_EXCL);
			}
		}
		/* remote cache: not gated on HIT (perf does the same) */
		if ((lvl & (PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2)) || mrem) {
			if (snoop & PERF_MEM_SNOOP_HIT) {
				inc(&b, C2C_RMT_HIT);
			} else if (snoop & PERF_MEM_SNOOP_HITM) {
				inc(&b, C2C_RMT_HITM);
				inc(&b, C2C_TOT_HITM);
			} else if (snoopx & PERF_MEM_SNOOPX_PEER) {
				inc(&b, C2C_RMT_HIT);
				inc(&b, C2C_RMT_PEER);
				inc(&b, C2C_TOT_PEER);
			}
		}
		if (lvl & PERF_MEM_LVL_MISS)
			inc(&b, C2C_LD_MISS);
	} else if (op & PERF_MEM_OP_STORE) {
		inc(&b, C2C_STORE);
		if (!daddr) {
			inc(&b, C2C_ST_NOADRS);
			return b;
		}
		if (lvl & PERF_MEM_LVL_HIT) {
			if (lvl & PERF_MEM_LVL_UNC)
				inc(&b, C2C_ST_UNCACHE);
			if (lvl & PERF_MEM_LVL_L1)
				inc(&b, C2C_ST_L1HIT);
		}
		if ((lvl & PERF_MEM_LVL_MISS) && (lvl & PERF_MEM_LVL_L1))
			inc(&b, C2C_ST_L1MISS);
		if (lvl & PERF_MEM_LVL_NA)
			inc(&b, C2C_ST_NA);
	} else {
		inc(&b, C2C_NOPARSE);
		return b;
	}

	if (!daddr_mapped || !iaddr_mapped)
		inc(&b, C2C_NOMAP);
	return b;
}

void c2c_stats_add_bits(struct c2c_stats *s, uint64_t bits)
{
	for (unsigned c = 0; bits && c < C2C_COUNTER_MAX; c++, bits >>= 2)
		*c2c_stats_ref(s, (enum c2c_counter)c) += bits & 3;
}

void c2c_stats_from_bits(struct c2c_stats *s, uint64_t bits)
{
	memset(s, 0, sizeof(*s));
	c2c_stats_add_bits(s, bits);
}

void c2c_stats_add(struct c2c_stats *s, const struct c2c_stats *add)
{
	for (unsigned c = 0; c < C2C_COUNTER_MAX; c++)
		*c2c_stats_ref(s, (enum c2c_counter)c) += c2c_stats_get(add, (enum c2c_counter)c);
}

uint64_t c2c_llc_misses(const struct c2c_stats *s)
{
	return s->lcl_dram + s->rmt_dram + s->rmt_hitm + s->rmt_hit;
}

uint64_t c2c_cache_hits(const struct c2c_stats *s)
{
	return s->ld_fbhit + s->ld_l1hit + s->ld_l2hit + s->ld_llchit + s->lcl_hitm;
}

uint64_t c2c_stores_total(const struct c2c_stats *s)
{
	return s->st_l1hit + s->st_l1miss + s->st_na;
}

uint64_t c2c_total_loads(const struct c2c_stats *s)
{
	return c2c_llc_misses(s) + c2c_cache_hits(s);
}

uint64_t c2c_total_records(const struct c2c_stats *s)
{
	return c2c_total_loads(s) + c2c_stores_total(s);
}

uint64_t c2c_llc_hit(const struct c2c_stats *s)
{
	return s->ld_llchit + s->lcl_hitm;
}

/* ---- display modes ---- */

static const char *const display_keys[] = { "tot", "lcl", "rmt", "peer" };
static const char *const display_titles[] = {
	"Total HITMs", "Local HITMs", "Remote HITMs", "Peer Snoop",
};

int c2c_display_parse(const char *s)
{
	for (int i = 0; s && i < 4; i++)
		if (!strcmp(s, display_keys[i]))
			return i;
	return -1;
}

const char *c2c_display_key(enum c2c_display d)
{
	return (unsigned)d < 4 ? display_keys[d] : "?";
}

const char *c2c_display_title(enum c2c_display d)
{
	return (unsigned)d < 4 ? display_titles[d] : "?";
}

enum c2c_display c2c_display_default(const char *arch)
{
	/* arm64 has no HITM; perf ranks by peer snoops there */
	return arch && (!strcmp(arch, "arm64") || !strcmp(arch, "aarch64")) ?
	       C2C_DISPLAY_PEER : C2C_DISPLAY_TOT;
}

uint64_t c2c_display_value(const struct c2c_stats *s, enum c2c_display d)
{
	switch (d) {
	case C2C_DISPLAY_LCL:  return s->lcl_hitm;
	case C2C_DISPLAY_RMT:  return s->rmt_hitm;
	case C2C_DISPLAY_PEER: return s->tot_peer;
	case C2C_DISPLAY_TOT:
	default:               return s->tot_hitm;
	}
}

bool c2c_line_is_shared(const struct c2c_stats *line)
{
	return line->lcl_hitm || line->rmt_hitm || line->lcl_peer || line->rmt_peer;
}

bool c2c_line_displayed(const struct c2c_stats *line, const struct c2c_stats *shared_total,
			enum c2c_display d, bool show_all)
{
	/* perf compares on 32-bit counters as a double ratio */
	uint32_t val = (uint32_t)c2c_display_value(line, d);
	uint32_t sum = (uint32_t)c2c_display_value(shared_total, d);

	if (show_all)
		return true;
	return !(sum == 0 || ((double)val / sum) < C2C_DISPLAY_LINE_LIMIT);
}

static int cmp_desc(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b ? 1 : 0;
}

int c2c_line_cmp(const struct c2c_stats *a, const struct c2c_stats *b, enum c2c_display d)
{
	return cmp_desc(c2c_display_value(a, d), c2c_display_value(b, d));
}

bool c2c_row_valid(const struct c2c_stats *row, enum c2c_display d)
{
	return row->store || c2c_display_value(row, d) != 0;
}

int c2c_row_cmp(uint64_t off_a, const struct c2c_stats *a,
		uint64_t off_b, const struct c2c_stats *b, enum c2c_display d)
{
	int r;

	if (off_a != off_b)
		return off_a < off_b ? -1 : 1;
	switch (d) {
	case C2C_DISPLAY_RMT:
		r = cmp_desc(a->rmt_hitm, b->rmt_hitm);
		return r ? r : cmp_desc(a->lcl_hitm, b->lcl_hitm);
	case C2C_DISPLAY_LCL:
		r = cmp_desc(a->lcl_hitm, b->lcl_hitm);
		return r ? r : cmp_desc(a->rmt_hitm, b->rmt_hitm);
	case C2C_DISPLAY_PEER:
		return cmp_desc(a->tot_peer, b->tot_peer);
	case C2C_DISPLAY_TOT:
	default:
		return cmp_desc(a->tot_hitm, b->tot_hitm);
	}
}

/* ---- percentages ---- */

double c2c_percent(uint64_t st, uint64_t tot)
{
	uint32_t s32 = (uint32_t)st, t32 = (uint32_t)tot; /* perf's u32 arguments */

	return t32 ? 100. * (double)s32 / (double)t32 : 0;
}

double c2c_percent_costly(const struct c2c_stats *line, const struct c2c_stats *all,
			  enum c2c_display d)
{
	/* perf: int st, tot; p = tot ? (double)st / tot : 0; return 100 * p */
	int st = (int)c2c_display_value(line, d);
	int tot = (int)c2c_display_value(all, d);
	double p = tot ? (double)st / tot : 0;

	return 100 * p;
}

char *c2c_format_percent(char *buf, size_t size, double pct)
{
	snprintf(buf, size, "%.2F%%", pct);
	return buf;
}

/* ---- means ---- */

void c2c_mean_update(struct c2c_mean *m, uint64_t weight)
{
	double delta;

	m->n++;
	delta = (double)weight - m->mean;
	m->mean += delta / (double)m->n;
}

enum c2c_cycles_kind c2c_cycles_kind_of(uint64_t bits)
{
	if (c2c_bits_count(bits, C2C_RMT_HITM))
		return C2C_CYCLES_RMT_HITM;
	if (c2c_bits_count(bits, C2C_LCL_HITM))
		return C2C_CYCLES_LCL_HITM;
	if (c2c_bits_count(bits, C2C_RMT_PEER))
		return C2C_CYCLES_RMT_PEER;
	if (c2c_bits_count(bits, C2C_LCL_PEER))
		return C2C_CYCLES_LCL_PEER;
	if (c2c_bits_count(bits, C2C_LOAD))
		return C2C_CYCLES_LOAD;
	return C2C_CYCLES_NONE;
}

char *c2c_format_mean(char *buf, size_t size, double mean)
{
	char tmp[64];
	const char *p = tmp;

	snprintf(tmp, sizeof(tmp), "%6.0f", mean);
	while (*p == ' ')
		p++;
	snprintf(buf, size, "%s", p);
	return buf;
}

void c2c_paddr_track_update(struct c2c_paddr_track *t, uint64_t phys_addr)
{
	if (!phys_addr)
		return;
	if (t->last != phys_addr) {
		t->count++;
		t->last = phys_addr;
	}
}

int c2c_mem_node(const struct c2c_mem_range *ranges, size_t n, uint64_t phys_addr)
{
	if (!phys_addr)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (phys_addr >= ranges[i].start && phys_addr < ranges[i].end)
			return ranges[i].node;
	return -1;
}

int c2c_mem_ranges_from_blocks(struct c2c_mem_range **r, size_t *n, int node, const uint64_t *blocks,
			       uint64_t nbits, uint64_t bsize)
{
	if (!blocks || !bsize)
		return 0;
	for (uint64_t b = 0; b < nbits; b++) {
		uint64_t e = b;
		struct c2c_mem_range *nr;

		if (!((blocks[b / 64] >> (b % 64)) & 1))
			continue;
		while (e + 1 < nbits && ((blocks[(e + 1) / 64] >> ((e + 1) % 64)) & 1))
			e++;
		nr = realloc(*r, (*n + 1) * sizeof(**r));
		if (!nr)
			return -ENOMEM;
		*r = nr;
		nr[(*n)++] = (struct c2c_mem_range){ b * bsize, (e + 1) * bsize, node };
		b = e;
	}
	return 0;
}

static bool bit_set(const uint64_t *bits, unsigned i)
{
	return (bits[i / 64] >> (i % 64)) & 1;
}

int c2c_bitmap_format(const uint64_t *bits, unsigned nbits, char *buf, size_t size)
{
	size_t len = 0;
	bool first = true;

	if (size)
		buf[0] = '\0';
	for (unsigned i = 0; i < nbits; i++) {
		unsigned j = i;
		int n;

		if (!bit_set(bits, i))
			continue;
		while (j + 1 < nbits && bit_set(bits, j + 1))
			j++;
		if (j == i)
			n = snprintf(buf + len, len < size ? size - len : 0, "%s%u", first ? "" : ",", i);
		else
			n = snprintf(buf + len, len < size ? size - len : 0, "%s%u-%u", first ? "" : ",", i, j);
		if (n > 0)
			len += (size_t)n;
		first = false;
		i = j;
	}
	if (size && len >= size)
		buf[size - 1] = '\0';
	return (int)len;
}

/* ---- classes ---- */

static const struct {
	const char *label, *name;
} class_text[C2C_CLASS_MAX] = {
	[C2C_CLASS_LD_RMT_HITM]  = { "RmtHITM",   "load, remote HITM (modified in a remote cache)" },
	[C2C_CLASS_LD_LCL_HITM]  = { "LclHITM",   "load, local HITM (modified in another core's cache)" },
	[C2C_CLASS_LD_RMT_PEER]  = { "RmtPeer",   "load, hit in a remote peer cache" },
	[C2C_CLASS_LD_LCL_PEER]  = { "LclPeer",   "load, hit in a local peer cache" },
	[C2C_CLASS_LD_RMT_HIT]   = { "RmtHit",    "load, clean hit in a remote cache" },
	[C2C_CLASS_LD_RMT_DRAM]  = { "RmtDRAM",   "load, remote DRAM" },
	[C2C_CLASS_LD_LCL_DRAM]  = { "LclDRAM",   "load, local DRAM" },
	[C2C_CLASS_LD_LLC]       = { "LLC",       "load, LLC hit" },
	[C2C_CLASS_LD_L2]        = { "L2",        "load, L2 hit" },
	[C2C_CLASS_LD_LFB]       = { "LFB",       "load, line fill buffer hit" },
	[C2C_CLASS_LD_L1]        = { "L1",        "load, L1 hit" },
	[C2C_CLASS_LD_UNCACHED]  = { "Unc",       "load, uncached memory" },
	[C2C_CLASS_LD_IO]        = { "IO",        "load, I/O memory" },
	[C2C_CLASS_LD_MISS]      = { "Miss",      "load, miss (level unknown)" },
	[C2C_CLASS_LD_NOADDR]    = { "NoAddr",    "load without data address" },
	[C2C_CLASS_LD_OTHER]     = { "Load",      "load, level not reported" },
	[C2C_CLASS_ST_L1HIT]     = { "St L1Hit",  "store, L1 hit" },
	[C2C_CLASS_ST_L1MISS]    = { "St L1Miss", "store, L1 miss" },
	[C2C_CLASS_ST_NA]        = { "St N/A",    "store, memory level not available" },
	[C2C_CLASS_ST_UNCACHED]  = { "St Unc",    "store, uncached memory" },
	[C2C_CLASS_ST_NOADDR]    = { "St NoAddr", "store without data address" },
	[C2C_CLASS_ST_OTHER]     = { "Store",     "store, level not reported" },
	[C2C_CLASS_NOMAP]        = { "NoMap",     "address outside every known map" },
	[C2C_CLASS_NOPARSE]      = { "NoParse",   "data source neither load nor store" },
};

enum c2c_class c2c_class_of(uint64_t bits)
{
	static const struct { enum c2c_counter c; enum c2c_class cls; } ld_order[] = {
		{ C2C_RMT_HITM, C2C_CLASS_LD_RMT_HITM }, { C2C_LCL_HITM, C2C_CLASS_LD_LCL_HITM },
		{ C2C_RMT_PEER, C2C_CLASS_LD_RMT_PEER }, { C2C_LCL_PEER, C2C_CLASS_LD_LCL_PEER },
		{ C2C_RMT_HIT, C2C_CLASS_LD_RMT_HIT },   { C2C_RMT_DRAM, C2C_CLASS_LD_RMT_DRAM },
		{ C2C_LCL_DRAM, C2C_CLASS_LD_LCL_DRAM }, { C2C_LD_LLCHIT, C2C_CLASS_LD_LLC },
		{ C2C_LD_L2HIT, C2C_CLASS_LD_L2 },       { C2C_LD_FBHIT, C2C_CLASS_LD_LFB },
		{ C2C_LD_L1HIT, C2C_CLASS_LD_L1 },       { C2C_LD_UNCACHE, C2C_CLASS_LD_UNCACHED },
		{ C2C_LD_IO, C2C_CLASS_LD_IO },          { C2C_LD_MISS, C2C_CLASS_LD_MISS },
	};

	if (c2c_bits_count(bits, C2C_NOPARSE))
		return C2C_CLASS_NOPARSE;
	if (c2c_bits_count(bits, C2C_LOAD)) {
		if (c2c_bits_count(bits, C2C_LD_NOADRS))
			return C2C_CLASS_LD_NOADDR;
		if (c2c_bits_count(bits, C2C_NOMAP))
			return C2C_CLASS_NOMAP;
		for (size_t i = 0; i < sizeof(ld_order) / sizeof(ld_order[0]); i++)
			if (c2c_bits_count(bits, ld_order[i].c))
				return ld_order[i].cls;
		return C2C_CLASS_LD_OTHER;
	}
	if (c2c_bits_count(bits, C2C_STORE)) {
		if (c2c_bits_count(bits, C2C_ST_NOADRS))
			return C2C_CLASS_ST_NOADDR;
		if (c2c_bits_count(bits, C2C_NOMAP))
			return C2C_CLASS_NOMAP;
		if (c2c_bits_count(bits, C2C_ST_L1MISS))
			return C2C_CLASS_ST_L1MISS;
		if (c2c_bits_count(bits, C2C_ST_L1HIT))
			return C2C_CLASS_ST_L1HIT;
		if (c2c_bits_count(bits, C2C_ST_UNCACHE))
			return C2C_CLASS_ST_UNCACHED;
		if (c2c_bits_count(bits, C2C_ST_NA))
			return C2C_CLASS_ST_NA;
		return C2C_CLASS_ST_OTHER;
	}
	return C2C_CLASS_NOPARSE;
}

const char *c2c_class_label(enum c2c_class c)
{
	return (unsigned)c < C2C_CLASS_MAX ? class_text[c].label : "?";
}

const char *c2c_class_name(enum c2c_class c)
{
	return (unsigned)c < C2C_CLASS_MAX ? class_text[c].name : "?";
}

/* ---- data_src to text (perf mem's wording) ---- */

struct out {
	char *buf;
	size_t size, len;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->buf + (o->len < o->size ? o->len : o->size),
		      o->len < o->size ? o->size - o->len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static const char *const lvl_names[] = {
	"N/A", "HIT", "MISS", "L1", "LFB/MAB", "L2", "L3", "Local RAM",
	"Remote RAM (1 hop)", "Remote RAM (2 hops)", "Remote Cache (1 hop)",
	"Remote Cache (2 hops)", "I/O", "Uncached",
};

static const char *const lvlnum_names[16] = {
	[PERF_MEM_LVLNUM_L1] = "L1", [PERF_MEM_LVLNUM_L2] = "L2",
	[PERF_MEM_LVLNUM_L3] = "L3", [PERF_MEM_LVLNUM_L4] = "L4",
	[5] = "L2 MHB", [6] = "Memory-side Cache", [8] = "Uncached",
	[PERF_MEM_LVLNUM_CXL] = "CXL", [PERF_MEM_LVLNUM_IO] = "I/O",
	[PERF_MEM_LVLNUM_ANY_CACHE] = "Any cache", [PERF_MEM_LVLNUM_LFB] = "LFB/MAB",
	[PERF_MEM_LVLNUM_RAM] = "RAM", [PERF_MEM_LVLNUM_PMEM] = "PMEM",
	[PERF_MEM_LVLNUM_NA] = "N/A",
};

static const char *const hops_names[8] = {
	[0] = "", [1] = "core, same node", [2] = "node, same socket",
	[3] = "socket, same board", [4] = "board",
};

static void format_op(struct out *o, uint64_t ds)
{
	uint64_t op = DS_OP(ds);

	if (op & PERF_MEM_OP_LOAD)
		put(o, "LOAD");
	else if (op & PERF_MEM_OP_STORE)
		put(o, "STORE");
	else if (op & PERF_MEM_OP_PFETCH)
		put(o, "PFETCH");
	else if (op & PERF_MEM_OP_EXEC)
		put(o, "EXEC");
	else if (op & PERF_MEM_OP_NA)
		put(o, "N/A");
	else
		put(o, "No");
}

static void format_lvl(struct out *o, uint64_t ds)
{
	uint64_t lvl = DS_LVL(ds), num = DS_LVLNUM(ds);
	const char *hm = (lvl & PERF_MEM_LVL_HIT) ? "hit" : (lvl & PERF_MEM_LVL_MISS) ? "miss" : NULL;
	bool any = false;

	/* The newer composite fields win when the PMU fills them. */
	if (num && num != PERF_MEM_LVLNUM_NA) {
		unsigned hops = DS_HOPS(ds);

		if (hops && hops < 8 && hops_names[hops][0])
			put(o, "Remote %s ", hops_names[hops]);
		else if (DS_REMOTE(ds))
			put(o, "Remote ");
		if (lvlnum_names[num])
			put(o, "%s", lvlnum_names[num]);
		else
			put(o, "Unknown level %u", (unsigned)num);
		if (hm)
			put(o, " %s", hm);
		return;
	}
	lvl &= ~(uint64_t)(PERF_MEM_LVL_HIT | PERF_MEM_LVL_MISS | PERF_MEM_LVL_NA);
	for (unsigned i = 0; i < sizeof(lvl_names) / sizeof(lvl_names[0]); i++) {
		if (!(lvl & (1ull << i)))
			continue;
		put(o, "%s%s", any ? " or " : "", lvl_names[i]);
		any = true;
	}
	if (!any) {
		put(o, "N/A");
		return;
	}
	if (hm)
		put(o, " %s", hm);
}

static void format_snoop(struct out *o, uint64_t ds)
{
	static const char *const snp[] = { "N/A", "None", "Hit", "Miss", "HitM" };
	uint64_t s = DS_SNOOP(ds), x = DS_SNOOPX(ds);
	bool any = false;

	put(o, "SNP ");
	for (unsigned i = 1; i < 5; i++) {
		if (!(s & (1u << i)))
			continue;
		put(o, "%s%s", any ? " or " : "", snp[i]);
		any = true;
	}
	if (x & PERF_MEM_SNOOPX_FWD) {
		put(o, "%sFwd", any ? " or " : "");
		any = true;
	}
	if (x & PERF_MEM_SNOOPX_PEER) {
		put(o, "%sPeer", any ? " or " : "");
		any = true;
	}
	if (!any)
		put(o, "N/A");
}

static void format_tlb(struct out *o, uint64_t ds)
{
	static const char *const tlb[] = { "N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault" };
	uint64_t t = DS_TLB(ds);
	bool any = false;

	put(o, "TLB ");
	for (unsigned i = 3; i < 7; i++) {
		if (!(t & (1u << i)))
			continue;
		put(o, "%s%s", any ? " or " : "", tlb[i]);
		any = true;
	}
	if (!any)
		put(o, "N/A");
	if (t & PERF_MEM_TLB_HIT)
		put(o, " hit");
	else if (t & PERF_MEM_TLB_MISS)
		put(o, " miss");
}

int c2c_data_src_format(uint64_t ds, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };
	uint64_t lock = DS_LOCK(ds), blk = DS_BLK(ds);

	if (size)
		buf[0] = '\0';
	format_op(&o, ds);
	put(&o, "|");
	format_lvl(&o, ds);
	put(&o, "|");
	format_snoop(&o, ds);
	put(&o, "|");
	format_tlb(&o, ds);
	put(&o, "|LCK %s", (lock & PERF_MEM_LOCK_LOCKED) ? "Yes" : (lock & PERF_MEM_LOCK_NA) ? "N/A" : "No");
	put(&o, "|BLK");
	if (blk & PERF_MEM_BLK_DATA)
		put(&o, " Data");
	if (blk & PERF_MEM_BLK_ADDR)
		put(&o, " Addr");
	if (!(blk & (PERF_MEM_BLK_DATA | PERF_MEM_BLK_ADDR)))
		put(&o, " N/A");
	return (int)o.len;
}
