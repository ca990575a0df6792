/* Memory-sampling event selection from sysfs, the way perf finds its c2c
 * events: Intel `cpu` (or hybrid `cpu_core`/`cpu_atom`) mem-loads with a
 * load-latency threshold plus mem-stores, AMD `ibs_op`, ARM `arm_spe_N`.
 * Encodings come from devices/PMU/events/NAME and devices/PMU/format/TERM, never from
 * tables compiled in, so a new CPU model works when its kernel exposes the
 * events. Tests point sysfs_root at fake trees in tests/data/sysfs. */
#ifndef C2C_PMU_H
#define C2C_PMU_H

#include <stdbool.h>
#include <stdint.h>

#include "collector/base/error.h"

enum pmu_kind {
	PMU_KIND_NONE = 0,       /* nothing usable for memory sampling */
	PMU_KIND_INTEL,          /* cpu/mem-loads,ldlat=N/P + cpu/mem-stores/P */
	PMU_KIND_INTEL_HYBRID,   /* the same on each of cpu_core and cpu_atom */
	PMU_KIND_AMD_IBS,        /* ibs_op// */
	PMU_KIND_ARM_SPE,        /* arm_spe_N: found, not supported (AUX path) */
};

enum pmu_role {
	PMU_ROLE_LOAD = 1,
	PMU_ROLE_STORE = 2,
	PMU_ROLE_LOAD_AUX = 3,   /* Intel mem-loads-aux: group leader of mem-loads */
	PMU_ROLE_IBS_OP = 4,     /* AMD: loads and stores from one event */
};

#define PMU_MAX_EVENTS 8

/* One perf_event_attr worth of encoding. */
struct pmu_event {
	char pmu[64];            /* sysfs PMU name, e.g. "cpu_core" */
	char name[64];           /* perf-style name, e.g. "cpu_core/mem-loads,ldlat=30/P" */
	enum pmu_role role;
	uint32_t type;           /* attr.type from PMU/type */
	uint64_t config, config1, config2;
	int max_precise;         /* from caps/max_precise (3 when absent on x86) */
	bool leader;             /* opened as a group leader of the next event */
	char cpus[64];           /* PMU/cpus (hybrid), "" means all CPUs */
};

struct pmu_selection {
	enum pmu_kind kind;
	int nr_events;
	struct pmu_event events[PMU_MAX_EVENTS];
	bool system_wide_only;   /* AMD IBS: cannot follow one task */
	bool no_mode_filter;     /* AMD IBS: no user/kernel exclusion */
	/* One line the command layer prints once: a limitation or why there is
	 * no memory sampling here ("" when nothing to say). */
	char note[256];
};

struct pmu_options {
	const char *sysfs_root;  /* NULL or "" means "/sys" */
	unsigned ldlat;          /* load latency threshold (cycles), 0 -> 30 */
	bool no_loads;           /* perf c2c -e ldlat-stores */
	bool no_stores;          /* perf c2c -e ldlat-loads */
};

/* Fills sel. Returns 0 with sel->kind != NONE when memory sampling is
 * possible, 0 with kind NONE or ARM_SPE (and sel->note saying why) when it is
 * not, and a negative errno only when sysfs could not be read at all or an
 * encoding was malformed (err says which file). */
int pmu_select(const struct pmu_options *opt, struct pmu_selection *sel,
	       struct c2c_error *err);

/* Encoding helpers (exposed for tests). term is "name=value" or "name";
 * the format file of that name under pmu_dir/format says where its bits go. */
int pmu_apply_terms(const char *pmu_dir, const char *terms, uint64_t *config,
		    uint64_t *config1, uint64_t *config2, struct c2c_error *err);

/* Human name of a kind ("Intel PEBS", "AMD IBS", ...). */
const char *pmu_kind_name(enum pmu_kind kind);

#endif /* C2C_PMU_H */
