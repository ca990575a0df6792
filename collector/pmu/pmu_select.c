/* Choosing the memory-sampling events for this machine from sysfs, in the
 * order perf's mem-events code looks: hybrid Intel PMUs, the core `cpu` PMU
 * with mem-loads, AMD's ibs_op, ARM's arm_spe_N. */
#include "collector/pmu/pmu.h"
#include "collector/pmu/pmu_sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PMU_DEFAULT_LDLAT 30

const char *pmu_kind_name(enum pmu_kind kind)
{
	switch (kind) {
	case PMU_KIND_INTEL: return "Intel PEBS";
	case PMU_KIND_INTEL_HYBRID: return "Intel PEBS (hybrid)";
	case PMU_KIND_AMD_IBS: return "AMD IBS";
	case PMU_KIND_ARM_SPE: return "ARM SPE";
	case PMU_KIND_NONE: break;
	}
	return "none";
}

static bool path_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static int read_type(const char *pmu_dir, uint32_t *type, struct c2c_error *err)
{
	char path[1024], buf[32];
	char *end;
	unsigned long v;

	pmu_path(path, sizeof(path), "%s/type", pmu_dir);
	if (pmu_read_file(path, buf, sizeof(buf)) <= 0)
		return c2c_error_set(err, -EINVAL, "cannot read %s", path);
	v = strtoul(buf, &end, 10);
	if (end == buf || *end)
		return c2c_error_set(err, -EINVAL, "bad PMU type '%s' in %s", buf, path);
	*type = (uint32_t)v;
	return 0;
}

static int read_max_precise(const char *pmu_dir)
{
	char path[1024], buf[16];

	pmu_path(path, sizeof(path), "%s/caps/max_precise", pmu_dir);
	if (pmu_read_file(path, buf, sizeof(buf)) > 0)
		return atoi(buf);
	return 3; /* older kernels: let the collector step down on EOPNOTSUPP */
}

static struct pmu_event *sel_add(struct pmu_selection *sel)
{
	struct pmu_event *ev;

	if (sel->nr_events >= PMU_MAX_EVENTS)
		return NULL;
	ev = &sel->events[sel->nr_events++];
	memset(ev, 0, sizeof(*ev));
	return ev;
}

/* Adds the event alias `alias` of PMU `pmu` (plus extra terms) to sel. */
static int add_alias(struct pmu_selection *sel, const char *devs, const char *pmu,
		     const char *alias, const char *extra, enum pmu_role role,
		     struct c2c_error *err)
{
	char dir[1024], path[1100], terms[512];
	struct pmu_event *ev = sel_add(sel);
	int rc;

	if (!ev)
		return c2c_error_set(err, -E2BIG, "too many memory events");
	pmu_path(dir, sizeof(dir), "%s/%s", devs, pmu);
	pmu_path(path, sizeof(path), "%s/events/%s", dir, alias);
	if (pmu_read_file(path, terms, sizeof(terms)) <= 0)
		return c2c_error_set(err, -EINVAL, "cannot read event encoding %s", path);
	rc = read_type(dir, &ev->type, err);
	if (rc < 0)
		return rc;
	rc = pmu_apply_terms(dir, terms, &ev->config, &ev->config1, &ev->config2, err);
	if (rc == 0 && extra && *extra)
		rc = pmu_apply_terms(dir, extra, &ev->config, &ev->config1, &ev->config2, err);
	if (rc < 0)
		return rc;
	snprintf(ev->pmu, sizeof(ev->pmu), "%s", pmu);
	snprintf(ev->name, sizeof(ev->name), "%s/%s%s%s/P", pmu, alias,
		 extra && *extra ? "," : "", extra ? extra : "");
	ev->role = role;
	ev->max_precise = read_max_precise(dir);
	pmu_path(path, sizeof(path), "%s/cpus", dir);
	if (pmu_read_file(path, ev->cpus, sizeof(ev->cpus)) < 0)
		ev->cpus[0] = '\0';
	return 0;
}

static bool has_alias(const char *devs, const char *pmu, const char *alias)
{
	char path[1024];

	pmu_path(path, sizeof(path), "%s/%s/events/%s", devs, pmu, alias);
	return path_exists(path);
}

static int add_intel_pmu(const struct pmu_options *opt, struct pmu_selection *sel,
			 const char *devs, const char *pmu, struct c2c_error *err)
{
	char ldlat[32], fmt[1100];
	int rc;

	if (!opt->no_loads && has_alias(devs, pmu, "mem-loads")) {
		/* Sapphire Rapids and hybrid cores need mem-loads-aux as leader. */
		if (has_alias(devs, pmu, "mem-loads-aux")) {
			rc = add_alias(sel, devs, pmu, "mem-loads-aux", NULL, PMU_ROLE_LOAD_AUX, err);
			if (rc < 0)
				return rc;
			sel->events[sel->nr_events - 1].leader = true;
		}
		ldlat[0] = '\0';
		pmu_path(fmt, sizeof(fmt), "%s/%s/format/ldlat", devs, pmu);
		if (path_exists(fmt))
			snprintf(ldlat, sizeof(ldlat), "ldlat=%u",
				 opt->ldlat ? opt->ldlat : PMU_DEFAULT_LDLAT);
		rc = add_alias(sel, devs, pmu, "mem-loads", ldlat, PMU_ROLE_LOAD, err);
		if (rc < 0)
			return rc;
	}
	if (!opt->no_stores && has_alias(devs, pmu, "mem-stores")) {
		rc = add_alias(sel, devs, pmu, "mem-stores", NULL, PMU_ROLE_STORE, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int select_amd(const struct pmu_options *opt, struct pmu_selection *sel,
		      const char *devs, struct c2c_error *err)
{
	char dir[1024], fmt[1100];
	struct pmu_event *ev = sel_add(sel);
	int rc;

	pmu_path(dir, sizeof(dir), "%s/ibs_op", devs);
	rc = read_type(dir, &ev->type, err);
	if (rc < 0)
		return rc;
	snprintf(ev->pmu, sizeof(ev->pmu), "ibs_op");
	snprintf(ev->name, sizeof(ev->name), "ibs_op//");
	ev->role = PMU_ROLE_IBS_OP;
	ev->max_precise = 0; /* IBS is opened on its own PMU, not through precise_ip */
	pmu_path(fmt, sizeof(fmt), "%s/format/ldlat", dir);
	if (opt->ldlat && path_exists(fmt)) {
		char term[32];
		snprintf(term, sizeof(term), "ldlat=%u", opt->ldlat);
		rc = pmu_apply_terms(dir, term, &ev->config, &ev->config1, &ev->config2, err);
		if (rc < 0)
			return rc;
		snprintf(ev->name, sizeof(ev->name), "ibs_op/%s/", term);
	}
	sel->kind = PMU_KIND_AMD_IBS;
	sel->system_wide_only = true;
	sel->no_mode_filter = true;
	snprintf(sel->note, sizeof(sel->note),
		 "AMD IBS: sampling is system-wide only and cannot filter user/kernel mode%s",
		 opt->ldlat && !path_exists(fmt) ? "; --ldlat is not supported by this ibs_op" : "");
	return 0;
}

int pmu_select(const struct pmu_options *opt, struct pmu_selection *sel,
	       struct c2c_error *err)
{
	const char *root = opt && opt->sysfs_root && *opt->sysfs_root ? opt->sysfs_root : "/sys";
	struct pmu_options def = { 0 };
	char devs[768], path[1024], spe[64] = "";
	DIR *d;
	struct dirent *de;
	int rc;

	if (!opt)
		opt = &def;
	memset(sel, 0, sizeof(*sel));
	pmu_path(devs, sizeof(devs), "%s/bus/event_source/devices", root);
	d = opendir(devs);
	if (!d)
		return c2c_error_set(err, -errno, "cannot read %s: %s", devs, strerror(errno));
	while ((de = readdir(d))) {
		if (!strncmp(de->d_name, "arm_spe", 7) && !spe[0])
			snprintf(spe, sizeof(spe), "%.60s", de->d_name);
	}
	closedir(d);

	/* Hybrid Intel: one set of events per core type. */
	if (has_alias(devs, "cpu_core", "mem-loads") || has_alias(devs, "cpu_atom", "mem-loads")) {
		static const char *const hybrid[] = { "cpu_core", "cpu_atom" };
		for (size_t i = 0; i < 2; i++) {
			pmu_path(path, sizeof(path), "%s/%s", devs, hybrid[i]);
			if (!path_exists(path))
				continue;
			rc = add_intel_pmu(opt, sel, devs, hybrid[i], err);
			if (rc < 0)
				return rc;
		}
		sel->kind = PMU_KIND_INTEL_HYBRID;
		return 0;
	}
	if (has_alias(devs, "cpu", "mem-loads") || has_alias(devs, "cpu", "mem-stores")) {
		rc = add_intel_pmu(opt, sel, devs, "cpu", err);
		if (rc < 0)
			return rc;
		sel->kind = PMU_KIND_INTEL;
		if (sel->nr_events == 0)
			snprintf(sel->note, sizeof(sel->note),
				 "the cpu PMU has no %s event: HITM sampling is unavailable here",
				 opt->no_stores ? "mem-loads" : "mem-stores");
		if (sel->nr_events == 0)
			sel->kind = PMU_KIND_NONE;
		return 0;
	}
	pmu_path(path, sizeof(path), "%s/ibs_op", devs);
	if (path_exists(path))
		return select_amd(opt, sel, devs, err);
	if (spe[0]) {
		sel->kind = PMU_KIND_ARM_SPE;
		snprintf(sel->note, sizeof(sel->note),
			 "ARM SPE (%s) found but not supported yet: c2ctui does not read SPE's AUX "
			 "buffer, so HITM sampling is unavailable here", spe);
		return 0;
	}
	sel->kind = PMU_KIND_NONE;
	snprintf(sel->note, sizeof(sel->note),
		 "no memory-sampling PMU in %.100s (no cpu/mem-loads, ibs_op or arm_spe; a virtual "
		 "machine without a virtual PMU?): HITM sampling is unavailable here", devs);
	return 0;
}
