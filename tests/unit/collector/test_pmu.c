/* Event selection over fake sysfs trees in tests/data/sysfs modelled on
 * real Intel, hybrid Intel, AMD, ARM machines and a VM without a PMU. */
#include "tests/unit/test.h"
#include "collector/pmu/pmu.h"

#include <errno.h>

static const char *root(const char *name)
{
	static char path[1024];
	const char *top = getenv("C2C_TOP");

	snprintf(path, sizeof(path), "%s/tests/data/sysfs/%s", top ? top : ".", name);
	return path;
}

static void test_intel(void)
{
	struct pmu_options opt = { .sysfs_root = root("intel") };
	struct pmu_selection sel;
	struct c2c_error err = { 0 };

	CHECK(pmu_select(&opt, &sel, &err) == 0);
	CHECK(sel.kind == PMU_KIND_INTEL);
	CHECK(sel.nr_events == 2);
	CHECK(sel.events[0].role == PMU_ROLE_LOAD);
	CHECK_EQ_U64(sel.events[0].type, 4);
	CHECK_EQ_U64(sel.events[0].config, 0x1cd);
	CHECK_EQ_U64(sel.events[0].config1, 30);      /* default ldlat replaces the alias' 3 */
	CHECK_STR(sel.events[0].name, "cpu/mem-loads,ldlat=30/P");
	CHECK_EQ_U64(sel.events[0].max_precise, 3);
	CHECK(!sel.events[0].leader);
	CHECK(sel.events[1].role == PMU_ROLE_STORE);
	CHECK_EQ_U64(sel.events[1].config, 0x82d0);
	CHECK_EQ_U64(sel.events[1].config1, 0);
	CHECK_STR(sel.events[1].name, "cpu/mem-stores/P");
	CHECK(!sel.system_wide_only);
	CHECK_STR(sel.note, "");
}

static void test_intel_ldlat_and_filters(void)
{
	struct pmu_options opt = { .sysfs_root = root("intel"), .ldlat = 50, .no_stores = true };
	struct pmu_selection sel;

	CHECK(pmu_select(&opt, &sel, NULL) == 0);
	CHECK(sel.nr_events == 1);
	CHECK_EQ_U64(sel.events[0].config1, 50);
	CHECK_STR(sel.events[0].name, "cpu/mem-loads,ldlat=50/P");
	opt = (struct pmu_options){ .sysfs_root = root("intel"), .no_loads = true };
	CHECK(pmu_select(&opt, &sel, NULL) == 0);
	CHECK(sel.nr_events == 1);
	CHECK(sel.events[0].role == PMU_ROLE_STORE);
}

static void test_intel_hybrid(void)
{
	struct pmu_options opt = { .sysfs_root = root("intel_hybrid") };
	struct pmu_selection sel;

	CHECK(pmu_select(&opt, &sel, NULL) == 0);
	CHECK(sel.kind == PMU_KIND_INTEL_HYBRID);
	CHECK(sel.nr_events == 5);
	/* cpu_core: aux leader, loads, stores */
	CHECK_STR(sel.events[0].pmu, "cpu_core");
	CHECK(sel.events[0].role == PMU_ROLE_LOAD_AUX);
	CHECK(sel.events[0].leader);
	CHECK_EQ_U64(sel.events[0].config, 0x8203);
	CHECK(sel.events[1].role == PMU_ROLE_LOAD);
	CHECK_EQ_U64(sel.events[1].type, 4);
	CHECK_EQ_U64(sel.events[1].config, 0x1cd);
	CHECK_EQ_U64(sel.events[1].config1, 30);
	CHECK_STR(sel.events[1].cpus, "0-15");
	CHECK_EQ_U64(sel.events[2].config, 0x2cd);
	/* cpu_atom: no aux event */
	CHECK_STR(sel.events[3].pmu, "cpu_atom");
	CHECK(sel.events[3].role == PMU_ROLE_LOAD);
	CHECK_EQ_U64(sel.events[3].type, 10);
	CHECK_EQ_U64(sel.events[3].config, 0x5d0);
	CHECK_EQ_U64(sel.events[3].config1, 30);
	CHECK_STR(sel.events[3].cpus, "16-23");
	CHECK(sel.events[4].role == PMU_ROLE_STORE);
	CHECK_EQ_U64(sel.events[4].config, 0x6d0);
}

static void test_amd(void)
{
	struct pmu_options opt = { .sysfs_root = root("amd"), .ldlat = 64 };
	struct pmu_selection sel;

	CHECK(pmu_select(&opt, &sel, NULL) == 0);
	CHECK(sel.kind == PMU_KIND_AMD_IBS);
	CHECK(sel.nr_events == 1);
	CHECK_EQ_U64(sel.events[0].type, 11);
	CHECK_EQ_U64(sel.events[0].config, 0);
	CHECK_STR(sel.events[0].name, "ibs_op//");
	CHECK(sel.system_wide_only);
	CHECK(sel.no_mode_filter);
	CHECK(strstr(sel.note, "system-wide only") != NULL);
	CHECK(strstr(sel.note, "user/kernel") != NULL);
	CHECK(strstr(sel.note, "--ldlat is not supported") != NULL);
}

static void test_arm(void)
{
	struct pmu_options opt = { .sysfs_root = root("arm") };
	struct pmu_selection sel;

	CHECK(pmu_select(&opt, &sel, NULL) == 0);
	CHECK(sel.kind == PMU_KIND_ARM_SPE);
	CHECK(sel.nr_events == 0);
	CHECK(strstr(sel.note, "arm_spe_0") != NULL);
	CHECK(strstr(sel.note, "not supported yet") != NULL);
}

static void test_none(void)
{
	struct pmu_options opt = { .sysfs_root = root("none") };
	struct pmu_selection sel;

	CHECK(pmu_select(&opt, &sel, NULL) == 0);
	CHECK(sel.kind == PMU_KIND_NONE);
	CHECK(sel.nr_events == 0);
	CHECK(strstr(sel.note, "HITM sampling is unavailable") != NULL);
}

static void test_missing_root(void)
{
	struct pmu_options opt = { .sysfs_root = "/nonexistent/sysfs" };
	struct pmu_selection sel;
	struct c2c_error err = { 0 };

	CHECK(pmu_select(&opt, &sel, &err) == -ENOENT);
	CHECK(strstr(err.msg, "/nonexistent/sysfs/bus/event_source/devices") != NULL);
}

static void test_format_split_ranges(void)
{
	uint64_t c = 0, c1 = 0, c2 = 0;
	char dir[1100];
	struct c2c_error err = { 0 };

	snprintf(dir, sizeof(dir), "%s/bus/event_source/devices/cpu", root("amd"));
	/* AMD's event format is config:0-7,32-35: bits above 7 go to 32.. */
	CHECK(pmu_apply_terms(dir, "event=0x1ff,umask=0x3,inv", &c, &c1, &c2, &err) == 0);
	CHECK_EQ_U64(c, 0xffull | (1ull << 32) | (0x3ull << 8) | (1ull << 23));
	CHECK(pmu_apply_terms(dir, "nosuchterm=1", &c, &c1, &c2, &err) == -EINVAL);
	CHECK(strstr(err.msg, "nosuchterm") != NULL);
	CHECK(pmu_apply_terms(dir, "event=zz", &c, &c1, &c2, &err) == -EINVAL);
}

static void test_real_sysfs(void)
{
	struct pmu_selection sel;
	struct c2c_error err = { 0 };

	/* Whatever this machine has, selection must succeed and explain itself. */
	CHECK(pmu_select(NULL, &sel, &err) == 0);
	CHECK(sel.nr_events > 0 || sel.note[0] != '\0');
	printf("# this machine: %s%s%s\n", pmu_kind_name(sel.kind), sel.note[0] ? ": " : "", sel.note);
}

TEST_MAIN(TEST_CASE(test_intel), TEST_CASE(test_intel_ldlat_and_filters),
	  TEST_CASE(test_intel_hybrid), TEST_CASE(test_amd), TEST_CASE(test_arm),
	  TEST_CASE(test_none), TEST_CASE(test_missing_root),
	  TEST_CASE(test_format_split_ranges), TEST_CASE(test_real_sysfs))
