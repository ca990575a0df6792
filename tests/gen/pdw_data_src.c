/* data_src values (union perf_mem_data_src) for each c2c class, encoded as
 * the hardware reports them: Intel PEBS load-latency and precise-store
 * encodings (arch/x86/events/intel/ds.c tables), ARM SPE for peer snoops.
 * Tests use them to build samples whose classification is known. */
#include "tests/gen/perfdata_writer.h"

/* PERF_MEM_* field values and shifts (include/uapi/linux/perf_event.h). */
enum {
	OP_NA = 0x01, OP_LOAD = 0x02, OP_STORE = 0x04,
	LVL_NA = 0x01, LVL_HIT = 0x02, LVL_MISS = 0x04, LVL_L1 = 0x08, LVL_LFB = 0x10,
	LVL_L2 = 0x20, LVL_L3 = 0x40, LVL_LOC_RAM = 0x80, LVL_REM_RAM1 = 0x100,
	LVL_REM_CCE1 = 0x400, LVL_IO = 0x1000, LVL_UNC = 0x2000,
	SNOOP_NA = 0x01, SNOOP_NONE = 0x02, SNOOP_HIT = 0x04, SNOOP_MISS = 0x08, SNOOP_HITM = 0x10,
	LOCK_NA = 0x01, LOCK_LOCKED = 0x02,
	TLB_NA = 0x01, TLB_HIT = 0x02, TLB_MISS = 0x04, TLB_L1 = 0x08, TLB_L2 = 0x10, TLB_WK = 0x20,
	LVLNUM_L1 = 0x01, LVLNUM_L2 = 0x02, LVLNUM_L3 = 0x03, LVLNUM_ANY_CACHE = 0x0b,
	LVLNUM_LFB = 0x0c, LVLNUM_RAM = 0x0d, LVLNUM_NA = 0x0f,
	REMOTE = 0x01, SNOOPX_PEER = 0x02,
	BLK_DATA = 0x02, BLK_ADDR = 0x04,
};

uint64_t pdw_mem_src(uint64_t op, uint64_t lvl, uint64_t snoop, uint64_t lock, uint64_t dtlb,
		     uint64_t lvl_num, uint64_t remote, uint64_t snoopx, uint64_t blk, uint64_t hops)
{
	return (op & 0x1f) | (lvl & 0x3fff) << 5 | (snoop & 0x1f) << 19 | (lock & 0x3) << 24 |
	       (dtlb & 0x7f) << 26 | (lvl_num & 0xf) << 33 | (remote & 1) << 37 |
	       (snoopx & 0x3) << 38 | (blk & 0x7) << 40 | (hops & 0x7) << 43;
}

struct class_desc {
	const char *name;
	uint16_t op, lvl;
	uint8_t snoop, lvl_num, remote, snoopx;
};

static const struct class_desc classes[PDW_MEM_CLASS_COUNT] = {
	[PDW_LD_L1_HIT]   = { "ld_l1hit",  OP_LOAD, LVL_HIT | LVL_L1, SNOOP_NONE, LVLNUM_L1, 0, 0 },
	[PDW_LD_LFB_HIT]  = { "ld_fbhit",  OP_LOAD, LVL_HIT | LVL_LFB, SNOOP_NONE, LVLNUM_LFB, 0, 0 },
	[PDW_LD_L2_HIT]   = { "ld_l2hit",  OP_LOAD, LVL_HIT | LVL_L2, SNOOP_NONE, LVLNUM_L2, 0, 0 },
	[PDW_LD_LLC_HIT]  = { "ld_llchit", OP_LOAD, LVL_HIT | LVL_L3, SNOOP_NONE, LVLNUM_L3, 0, 0 },
	[PDW_LD_LCL_HITM] = { "lcl_hitm",  OP_LOAD, LVL_HIT | LVL_L3, SNOOP_HITM, LVLNUM_L3, 0, 0 },
	[PDW_LD_RMT_HITM] = { "rmt_hitm",  OP_LOAD, LVL_HIT | LVL_REM_CCE1, SNOOP_HITM, LVLNUM_L3, REMOTE, 0 },
	[PDW_LD_RMT_HIT]  = { "rmt_hit",   OP_LOAD, LVL_HIT | LVL_REM_CCE1, SNOOP_HIT, LVLNUM_L3, REMOTE, 0 },
	[PDW_LD_LCL_PEER] = { "lcl_peer",  OP_LOAD, LVL_HIT | LVL_L2, SNOOP_NA, LVLNUM_L2, 0, SNOOPX_PEER },
	[PDW_LD_RMT_PEER] = { "rmt_peer",  OP_LOAD, LVL_REM_CCE1, SNOOP_NA, LVLNUM_ANY_CACHE, REMOTE, SNOOPX_PEER },
	[PDW_LD_LCL_DRAM] = { "lcl_dram",  OP_LOAD, LVL_HIT | LVL_LOC_RAM, SNOOP_NONE | SNOOP_MISS, LVLNUM_RAM, 0, 0 },
	[PDW_LD_LCL_DRAM_SHARED] = { "lcl_dram_shared", OP_LOAD, LVL_HIT | LVL_LOC_RAM, SNOOP_HIT, LVLNUM_RAM, 0, 0 },
	[PDW_LD_RMT_DRAM] = { "rmt_dram",  OP_LOAD, LVL_HIT | LVL_REM_RAM1, SNOOP_NONE | SNOOP_MISS, LVLNUM_RAM, REMOTE, 0 },
	[PDW_LD_RMT_DRAM_SHARED] = { "rmt_dram_shared", OP_LOAD, LVL_HIT | LVL_REM_RAM1, SNOOP_HIT, LVLNUM_L3, REMOTE, 0 },
	[PDW_LD_UNCACHED] = { "ld_uncache", OP_LOAD, LVL_HIT | LVL_UNC, SNOOP_NONE, LVLNUM_NA, 0, 0 },
	[PDW_LD_IO]       = { "ld_io",     OP_LOAD, LVL_HIT | LVL_IO, SNOOP_NONE, LVLNUM_NA, 0, 0 },
	[PDW_LD_MISS]     = { "ld_miss",   OP_LOAD, LVL_MISS | LVL_L3, SNOOP_NA, LVLNUM_L3, 0, 0 },
	[PDW_ST_L1_HIT]   = { "st_l1hit",  OP_STORE, LVL_HIT | LVL_L1, SNOOP_NA, 0, 0, 0 },
	[PDW_ST_L1_MISS]  = { "st_l1miss", OP_STORE, LVL_MISS | LVL_L1, SNOOP_NA, 0, 0, 0 },
	[PDW_ST_NA]       = { "st_na",     OP_STORE, LVL_NA, SNOOP_NA, 0, 0, 0 },
	[PDW_ST_UNCACHED] = { "st_uncache", OP_STORE, LVL_HIT | LVL_UNC, SNOOP_NA, 0, 0, 0 },
	[PDW_NOPARSE]     = { "noparse",   OP_NA, LVL_NA, SNOOP_NA, 0, 0, 0 },
};

uint64_t pdw_data_src(enum pdw_mem_class c, unsigned mods)
{
	const struct class_desc *d;
	uint64_t tlb, lock, blk = 0;

	if ((unsigned)c >= PDW_MEM_CLASS_COUNT)
		c = PDW_NOPARSE;
	d = &classes[c];
	/* Intel reports the dTLB for loads and stores; NA when nothing is known. */
	if (c == PDW_NOPARSE)
		tlb = TLB_NA;
	else if (mods & PDW_MEM_TLB_MISS)
		tlb = TLB_MISS | TLB_WK;
	else
		tlb = TLB_HIT | TLB_L1 | TLB_L2;
	lock = (mods & PDW_MEM_LOCKED) ? LOCK_LOCKED : LOCK_NA;
	if (mods & PDW_MEM_BLK_DATA)
		blk |= BLK_DATA;
	if (mods & PDW_MEM_BLK_ADDR)
		blk |= BLK_ADDR;
	return pdw_mem_src(d->op, d->lvl, d->snoop, lock, tlb, d->lvl_num, d->remote, d->snoopx, blk, 0);
}

const char *pdw_mem_class_name(enum pdw_mem_class c)
{
	if ((unsigned)c >= PDW_MEM_CLASS_COUNT)
		return "?";
	return classes[c].name;
}
