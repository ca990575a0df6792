/* The state before collection starts, as records: COMM for every target
 * task and MMAP2 for every mapping of its process (from /proc), plus the
 * kernel map, so that addresses of tasks already running symbolize exactly
 * as in a perf.data file (perf record synthesizes the same records). */
#include "collector/live/live_priv.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <linux/perf_event.h>

static int grow(struct live *lv, size_t need)
{
	if (lv->synth_len + need <= lv->synth_cap)
		return 0;
	size_t ncap = lv->synth_cap ? lv->synth_cap * 2 : 65536;
	while (ncap < lv->synth_len + need)
		ncap *= 2;
	unsigned char *nb = realloc(lv->synth, ncap);
	if (!nb)
		return -ENOMEM;
	lv->synth = nb;
	lv->synth_cap = ncap;
	return 0;
}

/* Appends the sample_id_all trailer the tracking event's attr describes. */
static size_t put_trailer(const struct live *lv, unsigned char *p, int32_t pid, int32_t tid)
{
	const struct perf_attr_info *a = &lv->events[0].attr;
	uint64_t id = a->nr_ids ? a->ids[0] : 0;
	size_t n = 0;
	uint64_t zero = 0;

	if (a->sample_type & PERF_SAMPLE_TID) {
		memcpy(p + n, &pid, 4);
		memcpy(p + n + 4, &tid, 4);
		n += 8;
	}
	if (a->sample_type & PERF_SAMPLE_TIME) {
		memcpy(p + n, &zero, 8);
		n += 8;
	}
	if (a->sample_type & PERF_SAMPLE_ID) {
		memcpy(p + n, &id, 8);
		n += 8;
	}
	if (a->sample_type & PERF_SAMPLE_STREAM_ID) {
		memcpy(p + n, &id, 8);
		n += 8;
	}
	if (a->sample_type & PERF_SAMPLE_CPU) {
		memcpy(p + n, &zero, 8);
		n += 8;
	}
	if (a->sample_type & PERF_SAMPLE_IDENTIFIER) {
		memcpy(p + n, &id, 8);
		n += 8;
	}
	return n;
}

static int emit(struct live *lv, uint32_t type, uint16_t misc, const void *body, size_t body_len,
		const char *str, int32_t pid, int32_t tid)
{
	size_t slen = ((strlen(str) + 1 + 7) & ~(size_t)7);
	size_t size = 8 + body_len + slen + 64;
	unsigned char *p;
	struct perf_event_header h;
	size_t n;

	if (size > 65000 || grow(lv, size) < 0)
		return -ENOMEM;
	p = lv->synth + lv->synth_len;
	memset(p, 0, size);
	memcpy(p + 8, body, body_len);
	memcpy(p + 8 + body_len, str, strlen(str));
	n = 8 + body_len + slen;
	n += put_trailer(lv, p + n, pid, tid);
	h.type = type;
	h.misc = misc;
	h.size = (uint16_t)n;
	memcpy(p, &h, sizeof(h));
	lv->synth_len += n;
	lv->counts.synthesized++;
	return 0;
}

static int synth_comm(struct live *lv, int32_t pid, int32_t tid, const char *comm)
{
	int32_t ids[2] = { pid, tid };
	return emit(lv, PERF_RECORD_COMM, 0, ids, sizeof(ids), comm, pid, tid);
}

struct mmap2_body {
	int32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
};

static int synth_maps(struct live *lv, int32_t pid)
{
	char path[64], line[4096];
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0; /* exited meanwhile */
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off, ino;
		unsigned maj, min;
		char perms[8], name[4096] = "";
		struct mmap2_body b = { 0 };
		uint16_t misc = PERF_RECORD_MISC_USER;
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &start, &end, perms, &off,
			   &maj, &min, &ino, name) < 7)
			continue;
		char *nm = name;
		while (isspace((unsigned char)*nm))
			nm++;
		if (!*nm)
			nm = (char *)"//anon";
		if (!strcmp(nm, "[vsyscall]") || !strcmp(nm, "[vvar]"))
			continue;
		b.pid = b.tid = pid;
		b.addr = start;
		b.len = end - start;
		b.pgoff = off;
		b.maj = maj;
		b.min = min;
		b.ino = ino;
		b.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
			 (perms[2] == 'x' ? PROT_EXEC : 0);
		b.flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
		if (perms[2] != 'x')
			misc |= PERF_RECORD_MISC_MMAP_DATA;
		rc = emit(lv, PERF_RECORD_MMAP2, misc, &b, sizeof(b), nm, pid, pid);
		if (rc < 0)
			break;
	}
	fclose(f);
	return rc;
}

static int synth_process(struct live *lv, int32_t pid, bool all_threads, int32_t only_tid)
{
	char path[96], comm[64] = "";
	FILE *f;
	DIR *d;
	struct dirent *de;
	int rc;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if ((f = fopen(path, "r"))) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	if (!comm[0])
		return 0;
	if ((rc = synth_maps(lv, pid)) < 0)
		return rc;
	if (!all_threads)
		return synth_comm(lv, pid, only_tid, comm);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path)))
		return 0;
	while ((de = readdir(d))) {
		long tid = strtol(de->d_name, NULL, 10);
		if (tid > 0 && (rc = synth_comm(lv, pid, (int32_t)tid, comm)) < 0)
			break;
	}
	closedir(d);
	return rc < 0 ? rc : 0;
}

static int32_t tgid_of(int32_t tid)
{
	char path[64], line[256];
	FILE *f;
	int32_t tgid = tid;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (!(f = fopen(path, "r")))
		return tid;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

static int synth_kernel(struct live *lv)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], t;
	unsigned long long addr, text = 0;
	struct {
		int32_t pid, tid;
		uint64_t start, len, pgoff;
	} b;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &t, name) == 3 &&
		    (!strcmp(name, "_text") || !strcmp(name, "_stext"))) {
			text = addr;
			break;
		}
	}
	fclose(f);
	if (!text)
		return 0; /* kptr_restrict: kernel addresses stay hex */
	b.pid = -1;
	b.tid = 0;
	b.start = text;
	b.len = ~0ull - text;
	b.pgoff = text;
	return emit(lv, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, &b, sizeof(b),
		    "[kernel.kallsyms]_text", -1, 0);
}

int live_synthesize(struct live *lv, struct c2c_error *err)
{
	int rc = synth_kernel(lv);

	if (rc == 0 && !lv->task_mode) {
		DIR *d = opendir("/proc");
		struct dirent *de;
		if (!d)
			return c2c_error_set(err, -errno, "cannot read /proc: %s", strerror(errno));
		while (rc == 0 && (de = readdir(d))) {
			long pid = strtol(de->d_name, NULL, 10);
			if (pid > 0)
				rc = synth_process(lv, (int32_t)pid, true, 0);
		}
		closedir(d);
	}
	for (size_t i = 0; rc == 0 && i < lv->opt.nr_pids; i++)
		rc = synth_process(lv, lv->opt.pids[i], true, 0);
	for (size_t i = 0; rc == 0 && i < lv->opt.nr_tids; i++)
		rc = synth_process(lv, tgid_of(lv->opt.tids[i]), false, lv->opt.tids[i]);
	if (rc < 0)
		return c2c_error_set(err, rc, "out of memory describing the running tasks");
	return 0;
}
