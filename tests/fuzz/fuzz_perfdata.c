/* libFuzzer target for the perf.data reader: the input is opened as a
 * whole perf.data image (file or pipe format) from memory and read to the
 * end, touching everything the header hands out; the same bytes are also
 * fed to the single-record parsers under an attr taken from the input, so
 * sample layouts the files never reach get exercised too. Built by
 * tests/fuzz/run.sh with clang -fsanitize=fuzzer,address,undefined. */
#include "collector/perfdata/perfdata.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void touch(const char *s)
{
	if (s)
		sink += strlen(s);
}

static void fuzz_file(const uint8_t *data, size_t size)
{
	struct perfdata *pd;
	struct perfdata_record r;
	struct c2c_error err;
	const struct perfdata_header *h;
	int rc, n = 0;

	if (perfdata_open_mem(&pd, data, size, "fuzz", &err) < 0)
		return;
	perfdata_set_ordered(pd, data[size - 1] & 1);
	while ((rc = perfdata_next(pd, &r, &err)) > 0 && n++ < 100000) {
		switch (r.kind) {
		case PERFDATA_SAMPLE:
			for (uint32_t i = 0; i < r.u.sample.nr_callchain; i++)
				sink += r.u.sample.callchain[i];
			if (r.u.sample.raw_size)
				sink += ((const uint8_t *)r.u.sample.raw)[r.u.sample.raw_size - 1];
			break;
		case PERFDATA_MMAP: touch(r.u.mmap.filename); break;
		case PERFDATA_COMM: touch(r.u.comm.comm); break;
		default: sink += r.size; break;
		}
	}
	h = perfdata_header(pd);
	touch(h->hostname); touch(h->osrelease); touch(h->version); touch(h->arch);
	touch(h->cpudesc); touch(h->cpuid); touch(h->cmdline);
	for (uint32_t i = 0; i < h->nr_core_siblings; i++) touch(h->core_siblings[i]);
	for (uint32_t i = 0; i < h->nr_thread_siblings; i++) touch(h->thread_siblings[i]);
	for (uint32_t i = 0; i < h->nr_die_siblings; i++) touch(h->die_siblings[i]);
	for (uint32_t i = 0; i < h->nr_cpu_topo; i++) sink += (uint64_t)h->cpu_topo[i].die_id;
	for (uint32_t i = 0; i < h->nr_numa_nodes; i++) touch(h->numa_nodes[i].cpus);
	for (uint32_t i = 0; i < h->nr_caches; i++) { touch(h->caches[i].type); touch(h->caches[i].map); }
	for (uint32_t i = 0; i < h->nr_mem_nodes; i++) sink += h->mem_nodes[i].bytes;
	for (uint32_t i = 0; i < h->nr_build_ids; i++) touch(h->build_ids[i].filename);
	for (uint32_t i = 0; i < h->nr_pmus; i++) touch(h->pmus[i].name);
	if (h->tracing_data_size)
		sink += ((const uint8_t *)h->tracing_data)[h->tracing_data_size - 1];
	for (size_t i = 0; i < perfdata_nr_attrs(pd); i++) {
		const struct perf_attr_info *a = perfdata_attr(pd, i);
		touch(a->name);
		for (uint32_t k = 0; k < a->nr_ids; k++) sink += a->ids[k];
	}
	perfdata_close(pd);
}

/* First 32 bytes: sample_type, read_format, branch_sample_type, regs mask;
 * the rest: one record. */
static void fuzz_record(const uint8_t *data, size_t size)
{
	struct perf_attr_info a;
	struct c2c_sample s;
	struct c2c_mmap m;
	struct c2c_comm c;
	struct c2c_task t;
	struct c2c_lost l;
	struct c2c_throttle th;
	struct perf_sample_id sid;
	uint64_t v[4], id;
	bool swap;

	if (size < 40)
		return;
	memcpy(v, data, sizeof(v));
	memset(&a, 0, sizeof(a));
	a.sample_type = v[0] & ((1u << 25) - 1);
	a.read_format = v[1] & 31;
	a.branch_sample_type = v[2];
	a.sample_regs_user = v[3];
	a.sample_regs_intr = v[3] >> 7;
	perf_attr_set_flags(&a, (v[1] & 32) ? PERF_ATTR_SAMPLE_ID_ALL : 0);
	swap = v[1] & 64;
	data += 32;
	size -= 32;
	if (perf_record_parse_sample(&a, data, size, swap, &s, NULL) == 0)
		for (uint32_t i = 0; i < s.nr_callchain; i++)
			sink += s.callchain[i];
	if (perf_record_parse_mmap(data, size, swap, &m, NULL) == 0)
		touch(m.filename);
	if (perf_record_parse_comm(&a, data, size, swap, &c, NULL) == 0)
		touch(c.comm);
	perf_record_parse_task(data, size, swap, &t, NULL);
	perf_record_parse_lost(&a, data, size, swap, &l, NULL);
	perf_record_parse_throttle(data, size, swap, &th, NULL);
	perf_record_parse_sample_id(&a, data, size, swap, &sid, NULL);
	perf_record_sample_id(&a, data, size, swap, &id);
	perf_attr_decode(data, size, swap, &a, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	fuzz_file(data, size);
	fuzz_record(data, size);
	return 0;
}
