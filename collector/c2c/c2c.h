/* c2c classification: perf_mem_data_src -> the counters perf c2c shows,
 * and the rules `perf c2c report` (perf 6.1) applies when it shows them:
 * which lines are "shared", the 0.1% display filter, the sort orders, the
 * percentages, the average cycles, the node and PA-count columns.
 * Every rule is a pure function here so the store computes its aggregates
 * and the report / TUI print them through the same code.
 * Owner: the c2c-semantics helper. The struct layout is shared with store/. */
#ifndef C2C_C2C_H
#define C2C_C2C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One counter per c2c class; names follow perf's struct c2c_stats so the
 * mapping to `perf c2c report` rows is obvious. All members are uint64_t,
 * in the order of enum c2c_counter. */
struct c2c_stats {
	uint64_t nr_entries;  /* samples classified */
	uint64_t locks;       /* locked load/store */
	uint64_t store;       /* all stores */
	uint64_t st_uncache;
	uint64_t st_noadrs;   /* store without data address */
	uint64_t st_l1hit;
	uint64_t st_l1miss;
	uint64_t st_na;       /* store, memory level not available */
	uint64_t load;        /* all loads */
	uint64_t ld_excl;     /* DRAM, snoop none/miss */
	uint64_t ld_shared;   /* DRAM, snoop hit */
	uint64_t ld_uncache;
	uint64_t ld_io;
	uint64_t ld_miss;
	uint64_t ld_noadrs;   /* load without data address */
	uint64_t ld_fbhit;    /* fill buffer (LFB) */
	uint64_t ld_l1hit;
	uint64_t ld_l2hit;
	uint64_t ld_llchit;
	uint64_t lcl_hitm;
	uint64_t rmt_hitm;
	uint64_t tot_hitm;
	uint64_t lcl_peer;
	uint64_t rmt_peer;
	uint64_t tot_peer;
	uint64_t rmt_hit;
	uint64_t lcl_dram;
	uint64_t rmt_dram;
	uint64_t blk_data;
	uint64_t blk_addr;
	uint64_t nomap;       /* data or code address outside every known map */
	uint64_t noparse;     /* data_src that is neither load nor store */
};

/* Index of each member of struct c2c_stats (same order). */
enum c2c_counter {
	C2C_NR_ENTRIES, C2C_LOCKS, C2C_STORE, C2C_ST_UNCACHE, C2C_ST_NOADRS,
	C2C_ST_L1HIT, C2C_ST_L1MISS, C2C_ST_NA, C2C_LOAD, C2C_LD_EXCL,
	C2C_LD_SHARED, C2C_LD_UNCACHE, C2C_LD_IO, C2C_LD_MISS, C2C_LD_NOADRS,
	C2C_LD_FBHIT, C2C_LD_L1HIT, C2C_LD_L2HIT, C2C_LD_LLCHIT, C2C_LCL_HITM,
	C2C_RMT_HITM, C2C_TOT_HITM, C2C_LCL_PEER, C2C_RMT_PEER, C2C_TOT_PEER,
	C2C_RMT_HIT, C2C_LCL_DRAM, C2C_RMT_DRAM, C2C_BLK_DATA, C2C_BLK_ADDR,
	C2C_NOMAP, C2C_NOPARSE,
	C2C_COUNTER_MAX /* 32 */
};

/* Field name of a counter ("ld_l1hit"), for JSON keys and SQL columns. */
const char *c2c_counter_name(enum c2c_counter c);
uint64_t c2c_stats_get(const struct c2c_stats *s, enum c2c_counter c);
uint64_t *c2c_stats_ref(struct c2c_stats *s, enum c2c_counter c);

/* ---- Classification ------------------------------------------------------
 * c2c_classify() returns how much ONE sample adds to each counter, packed
 * two bits per counter: counter i is (bits >> (2*i)) & 3. Two bits because
 * perf's rules can bump a counter more than once for one sample (a data_src
 * with both L2 and L3 set and SNOOPX_PEER adds 2 to lcl_peer). For every
 * data_src real hardware produces the value is 0 or 1.
 * daddr: the sample's data address (0 = none, as perf treats it).
 * daddr_mapped / iaddr_mapped: perf's "No Page Map Rejects" test - whether
 * the data address and the code address (ip) each fall in a known map of
 * the sampled thread (the symbols module answers that).
 * The rules are perf 6.1's c2c_decode_stats; see collector/c2c/c2c.c. */
uint64_t c2c_classify(uint64_t data_src, uint64_t daddr, bool daddr_mapped, bool iaddr_mapped);

static inline unsigned c2c_bits_count(uint64_t bits, enum c2c_counter c)
{
	return (unsigned)((bits >> (2 * (unsigned)c)) & 3);
}

void c2c_stats_add_bits(struct c2c_stats *s, uint64_t bits);
void c2c_stats_add(struct c2c_stats *s, const struct c2c_stats *add);
/* The counters of one sample (c2c_classify unpacked). */
void c2c_stats_from_bits(struct c2c_stats *s, uint64_t bits);

/* ---- Derived numbers (perf's helpers of the same meaning) --------------- */
uint64_t c2c_llc_misses(const struct c2c_stats *s);   /* lcl+rmt dram, rmt hitm, rmt hit */
uint64_t c2c_cache_hits(const struct c2c_stats *s);   /* fb, l1, l2, llc, lcl hitm */
uint64_t c2c_stores_total(const struct c2c_stats *s); /* st l1hit + l1miss + na */
uint64_t c2c_total_loads(const struct c2c_stats *s);  /* table "Total Loads" */
uint64_t c2c_total_records(const struct c2c_stats *s);/* table "Total records" */
uint64_t c2c_llc_hit(const struct c2c_stats *s);      /* "Load LLC hit" = llchit + lcl hitm */

/* ---- Display modes (-d) -------------------------------------------------- */
enum c2c_display {
	C2C_DISPLAY_TOT,   /* total HITMs (perf's default) */
	C2C_DISPLAY_LCL,   /* local HITMs */
	C2C_DISPLAY_RMT,   /* remote HITMs */
	C2C_DISPLAY_PEER,  /* peer snoops (perf's default on arm64) */
};
/* "tot"/"lcl"/"rmt"/"peer" -> mode; -1 when unknown. */
int c2c_display_parse(const char *s);
const char *c2c_display_key(enum c2c_display d);   /* "tot" ... */
const char *c2c_display_title(enum c2c_display d); /* "Total HITMs", as perf's "Cachelines sort on" */
/* perf's default: "peer" when the recording's arch is arm64, else "tot". */
enum c2c_display c2c_display_default(const char *arch);
/* The counter a display mode ranks lines by (tot_hitm, lcl_hitm, rmt_hitm, tot_peer). */
uint64_t c2c_display_value(const struct c2c_stats *s, enum c2c_display d);

/* ---- Which lines are shown ----------------------------------------------
 * A cache line is "shared" when it has a local or remote HITM or a local or
 * remote peer load; the shared lines' stats summed are the "Global Shared
 * Cache Line Event Information" and the denominators of the 0.1% filter. */
bool c2c_line_is_shared(const struct c2c_stats *line);
/* perf's filter: a line is listed when its display counter is at least
 * 0.1% of the shared lines' total of that counter (never when that total
 * is 0); show_all lists every line, shared or not. */
#define C2C_DISPLAY_LINE_LIMIT 0.001
bool c2c_line_displayed(const struct c2c_stats *line, const struct c2c_stats *shared_total,
			enum c2c_display d, bool show_all);
/* Line order in the table: descending by the display counter (rmt: rmt_hitm,
 * lcl: lcl_hitm, tot: tot_hitm, peer: tot_peer); ties keep perf's key order
 * (the store's line-key order), so sort stably. <0: a first. */
int c2c_line_cmp(const struct c2c_stats *a, const struct c2c_stats *b, enum c2c_display d);

/* Pareto rows: a row is printed when it has stores or a record of the
 * display kind (lcl_hitm / rmt_hitm / tot_hitm / tot_peer). */
bool c2c_row_valid(const struct c2c_stats *row, enum c2c_display d);
/* Row order inside a line: offset ascending, then (tot: tot_hitm, rmt:
 * rmt_hitm then lcl_hitm, lcl: lcl_hitm then rmt_hitm, peer: tot_peer)
 * descending; ties keep the coalesce-key order (sort stably). */
int c2c_row_cmp(uint64_t off_a, const struct c2c_stats *a,
		uint64_t off_b, const struct c2c_stats *b, enum c2c_display d);

/* ---- Percentages -------------------------------------------------------
 * perf computes them on 32-bit counters: 100*st/tot, 0 when tot is 0. */
double c2c_percent(uint64_t st, uint64_t tot);
/* Table column "Hitm %" / "Peer %": the line's display counter over the
 * total of all samples (every line, shared or not). */
double c2c_percent_costly(const struct c2c_stats *line, const struct c2c_stats *all,
			  enum c2c_display d);
/* Formats like perf's "%.2F%%" ("12.50%"). Returns buf. */
char *c2c_format_percent(char *buf, size_t size, double pct);

/* ---- Average cycles (Pareto "cycles" columns) ---------------------------
 * perf keeps a running mean per Pareto row and kind, updated sample by
 * sample in time order (Welford: mean += (w - mean) / n). Keep n and mean
 * as they are to reproduce perf's rounding exactly. */
struct c2c_mean {
	uint64_t n;
	double mean;
};
void c2c_mean_update(struct c2c_mean *m, uint64_t weight);
/* Which mean a sample's weight feeds, from the sample's own counters:
 * rmt hitm, else lcl hitm, else rmt peer, else lcl peer, else any load. */
enum c2c_cycles_kind {
	C2C_CYCLES_NONE = -1,
	C2C_CYCLES_RMT_HITM = 0,
	C2C_CYCLES_LCL_HITM,
	C2C_CYCLES_RMT_PEER,
	C2C_CYCLES_LCL_PEER,
	C2C_CYCLES_LOAD,
	C2C_CYCLES_MAX
};
enum c2c_cycles_kind c2c_cycles_kind_of(uint64_t bits);
/* perf prints "%6.0f" of the mean; this returns the same digits, trimmed. */
char *c2c_format_mean(char *buf, size_t size, double mean);

/* ---- Cache lines ----------------------------------------------------- */
static inline uint64_t c2c_cl_address(uint64_t addr, uint32_t line_size, bool double_cl)
{
	uint64_t sz = (uint64_t)(line_size ? line_size : 64) * (double_cl ? 2 : 1);
	return addr & ~(sz - 1);
}
/* A line key (cache-line address | identity variant, see
 * collector/c2c/c2c_lineid.h) without its variant: the address to print. */
static inline uint64_t c2c_line_display(uint64_t line_key, uint32_t line_size)
{
	return line_key & ~((uint64_t)(line_size ? line_size : 64) - 1);
}
static inline uint64_t c2c_cl_offset(uint64_t addr, uint32_t line_size, bool double_cl)
{
	uint64_t sz = (uint64_t)(line_size ? line_size : 64) * (double_cl ? 2 : 1);
	return addr & (sz - 1);
}

/* "PA cnt": perf counts how often the physical address changes between
 * consecutive samples (time order) of a line or Pareto row. perf skips a
 * sample whose phys_addr is 0 or maps to no memory node, so call this only
 * for samples with c2c_mem_node() >= 0. */
struct c2c_paddr_track {
	uint64_t last;
	uint64_t count;
};
void c2c_paddr_track_update(struct c2c_paddr_track *t, uint64_t phys_addr);

/* perf's mem2node: the memory node of a physical address from the
 * recording's MEM_TOPOLOGY feature (ranges [start, end) per node). -1 when
 * no range holds it (then perf shows the "Node" column as "N/A"). */
struct c2c_mem_range {
	uint64_t start, end;
	int node;
};
int c2c_mem_node(const struct c2c_mem_range *ranges, size_t n, uint64_t phys_addr);
/* Appends node's ranges from a MEM_TOPOLOGY block bitmap (nbits bits; block
 * b = [b*bsize, (b+1)*bsize)), merging adjacent blocks. *r is realloc'd
 * (the caller frees it). 0, or -ENOMEM. */
int c2c_mem_ranges_from_blocks(struct c2c_mem_range **r, size_t *n, int node, const uint64_t *blocks,
			       uint64_t nbits, uint64_t bsize);

/* A set of small integers (CPUs, nodes) written like perf's bitmap lists:
 * "0-3,6,8-9"; "" for an empty set. bits: nbits bits, LSB first per word. */
int c2c_bitmap_format(const uint64_t *bits, unsigned nbits, char *buf, size_t size);

/* ---- Classes for display -------------------------------------------------
 * The one class a sample is shown as (perf's classes, most costly first). */
enum c2c_class {
	C2C_CLASS_LD_RMT_HITM,
	C2C_CLASS_LD_LCL_HITM,
	C2C_CLASS_LD_RMT_PEER,
	C2C_CLASS_LD_LCL_PEER,
	C2C_CLASS_LD_RMT_HIT,
	C2C_CLASS_LD_RMT_DRAM,
	C2C_CLASS_LD_LCL_DRAM,
	C2C_CLASS_LD_LLC,
	C2C_CLASS_LD_L2,
	C2C_CLASS_LD_LFB,
	C2C_CLASS_LD_L1,
	C2C_CLASS_LD_UNCACHED,
	C2C_CLASS_LD_IO,
	C2C_CLASS_LD_MISS,
	C2C_CLASS_LD_NOADDR,
	C2C_CLASS_LD_OTHER,
	C2C_CLASS_ST_L1HIT,
	C2C_CLASS_ST_L1MISS,
	C2C_CLASS_ST_NA,
	C2C_CLASS_ST_UNCACHED,
	C2C_CLASS_ST_NOADDR,
	C2C_CLASS_ST_OTHER,
	C2C_CLASS_NOMAP,
	C2C_CLASS_NOPARSE,
	C2C_CLASS_MAX
};
/* From c2c_classify's bits. */
enum c2c_class c2c_class_of(uint64_t bits);
const char *c2c_class_label(enum c2c_class c); /* short: "RmtHITM", "L1", "St L1Miss" */
const char *c2c_class_name(enum c2c_class c);  /* words: "load, remote HITM" */
/* Extra flags shown next to the class. */
static inline bool c2c_bits_locked(uint64_t bits) { return c2c_bits_count(bits, C2C_LOCKS) != 0; }
static inline bool c2c_bits_blocked(uint64_t bits)
{
	return c2c_bits_count(bits, C2C_BLK_DATA) || c2c_bits_count(bits, C2C_BLK_ADDR);
}

/* A raw data_src as text, perf mem style:
 * "LOAD|Remote Cache (1 hop) HITM|SNP HitM|TLB L1 or L2 hit|LCK No|BLK N/A".
 * Returns the length written (snprintf semantics). */
int c2c_data_src_format(uint64_t data_src, char *buf, size_t size);

#endif /* C2C_C2C_H */
