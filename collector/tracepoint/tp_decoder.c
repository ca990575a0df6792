/* Tracepoint formats and RAW payload decoding through libtraceevent. */
#include "collector/tracepoint/tracepoint.h"
#include "collector/tracepoint/tp_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#define TRACEFS_MAGIC_ 0x74726163
#define DEBUGFS_MAGIC_ 0x64626720

struct tp_decoder {
	struct tep_handle *tep;
	int nr_events;
};

struct tp_decoder *tp_decoder_new(struct c2c_error *err)
{
	struct tp_decoder *dec = calloc(1, sizeof(*dec));

	if (!dec || !(dec->tep = tep_alloc())) {
		free(dec);
		c2c_error_set(err, -ENOMEM, "out of memory creating the tracepoint decoder");
		return NULL;
	}
	tep_set_long_size(dec->tep, (int)sizeof(long));
	tep_set_page_size(dec->tep, (int)sysconf(_SC_PAGESIZE));
	tep_set_file_bigendian(dec->tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(dec->tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	return dec;
}

void tp_decoder_free(struct tp_decoder *dec)
{
	if (!dec)
		return;
	tep_free(dec->tep);
	free(dec);
}

struct tep_handle *tp_decoder_tep(struct tp_decoder *dec)
{
	return dec->tep;
}

int tp_decoder_nr_events(const struct tp_decoder *dec)
{
	return dec->nr_events;
}

int tp_find_tracefs(char *buf, size_t size, struct c2c_error *err)
{
	static const char *const cand[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	struct statfs sfs;

	for (size_t i = 0; i < 2; i++) {
		char ev[64];
		struct stat st;

		snprintf(ev, sizeof(ev), "%s/events", cand[i]);
		if (statfs(cand[i], &sfs) == 0 &&
		    ((unsigned long)sfs.f_type == TRACEFS_MAGIC_ || (unsigned long)sfs.f_type == DEBUGFS_MAGIC_)) {
			if (stat(ev, &st) == 0) {
				snprintf(buf, size, "%s", cand[i]);
				return 0;
			}
			if (errno == EACCES || errno == EPERM)
				return c2c_error_set(err, -EACCES, "no permission to read %s: tracepoints "
						     "need root (or a tracefs mounted with gid= for your group)",
						     cand[i]);
		}
	}
	return c2c_error_set(err, -ENOENT,
			     "tracefs is not mounted: run 'mount -t tracefs nodev /sys/kernel/tracing' as root");
}

int tp_decoder_add_format(struct tp_decoder *dec, const char *sys, const char *buf, size_t len,
			  struct c2c_error *err)
{
	struct tep_event *ev = NULL;
	/* Fields are read by name; the "print fmt" is never used, and
	 * libtraceevent dereferences NULL on one that names a field the format
	 * lacks (found by fuzz_tracepoint: a crafted perf.data's tracing data
	 * could crash an import). Parse the checked lines before it with an
	 * empty one. */
	static const char empty_fmt[] = "\nprint fmt: \"\"\n";
	const char *pf = memmem(buf, len, "\nprint fmt:", 11);
	size_t head = pf ? (size_t)(pf - buf) : len;
	char why[96], *copy;

	if (tp_format_check(buf, head, why, sizeof(why)) < 0)
		return c2c_error_set(err, -EINVAL, "cannot parse the %s tracepoint format: %s", sys, why);
	copy = malloc(head + sizeof(empty_fmt));
	if (!copy)
		return c2c_error_set(err, -ENOMEM, "out of memory");
	memcpy(copy, buf, head);
	memcpy(copy + head, empty_fmt, sizeof(empty_fmt));
	buf = copy;
	len = head + sizeof(empty_fmt) - 1;
	enum tep_errno rc = tep_parse_format(dec->tep, &ev, buf, len, sys);
	free(copy);

	if (rc != 0 || !ev) {
		char msg[128] = "";
		tep_strerror(dec->tep, rc, msg, sizeof(msg));
		/* A format libtraceevent cannot fully parse (print fmt helpers it
		 * does not know) still gives usable fields. */
		if (!ev || rc != TEP_ERRNO__READ_PRINT_FAILED)
			return c2c_error_set(err, -EINVAL, "cannot parse the %s tracepoint format: %s",
					     sys, msg);
	}
	dec->nr_events++;
	return ev->id;
}

int tp_decoder_find(struct tp_decoder *dec, const char *sys, const char *name)
{
	struct tep_event *ev = tep_find_event_by_name(dec->tep, sys, name);
	return ev ? ev->id : -ENOENT;
}

int tp_decoder_load_tracefs(struct tp_decoder *dec, const char *tracefs, const char *sys,
			    const char *name, struct c2c_error *err)
{
	char path[1024];
	char *buf = NULL;
	size_t cap = 0, len = 0;
	FILE *f;
	int rc;

	rc = tp_decoder_find(dec, sys, name);
	if (rc >= 0)
		return rc;
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, sys, name);
	f = fopen(path, "r");
	if (!f) {
		int e = errno;
		if (e == EACCES || e == EPERM)
			return c2c_error_set(err, -EACCES, "cannot read %s: permission denied "
					     "(run as root to use tracepoints)", path);
		return c2c_error_set(err, -ENOENT, "tracepoint %s:%s is not available on this kernel "
				     "(%s missing)", sys, name, path);
	}
	for (;;) {
		size_t n;
		if (len + 4096 > cap) {
			char *nb = realloc(buf, cap + 8192);
			if (!nb) {
				free(buf);
				fclose(f);
				return c2c_error_set(err, -ENOMEM, "out of memory reading %s", path);
			}
			buf = nb;
			cap += 8192;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		if (n == 0)
			break;
		len += n;
	}
	fclose(f);
	buf[len] = '\0';
	rc = tp_decoder_add_format(dec, sys, buf, len, err);
	free(buf);
	return rc;
}

/* Reads a numeric field by name; false when absent or outside the payload. */
static bool read_num(struct tep_event *ev, const char *name, const void *raw, size_t size,
		     unsigned long long *val)
{
	struct tep_format_field *f = tep_find_any_field(ev, name);

	if (!f || (size_t)f->offset + (size_t)f->size > size)
		return false;
	return tep_read_number_field(f, raw, val) == 0;
}

static void read_str(struct tep_event *ev, const char *name, const void *raw, size_t size,
		     char *out, size_t outsize)
{
	struct tep_format_field *f = tep_find_any_field(ev, name);
	size_t n;

	out[0] = '\0';
	if (!f || (size_t)f->offset + (size_t)f->size > size)
		return;
	n = (size_t)f->size < outsize - 1 ? (size_t)f->size : outsize - 1;
	memcpy(out, (const char *)raw + f->offset, n);
	out[n] = '\0';
}

int tp_decode(struct tp_decoder *dec, const void *raw, size_t size, struct tp_record *out,
	      struct c2c_error *err)
{
	struct tep_record rec = { .data = (void *)(uintptr_t)raw, .size = (int)size };
	struct tep_event *ev;
	unsigned long long v;
	int type;

	memset(out, 0, sizeof(*out));
	if (size < 8)
		return c2c_error_set(err, -EINVAL, "tracepoint payload of %zu bytes is too short", size);
	type = tep_data_type(dec->tep, &rec);
	ev = tep_find_event(dec->tep, type);
	if (!ev)
		return c2c_error_set(err, -ENOENT, "no format for tracepoint id %d", type);
	out->id = type;
	out->system = ev->system;
	out->name = ev->name;
	if (read_num(ev, "common_pid", raw, size, &v))
		out->common_pid = (int32_t)v;
	if (!strcmp(ev->system, "lock") &&
	    (!strcmp(ev->name, "contention_begin") || !strcmp(ev->name, "contention_end"))) {
		bool begin = ev->name[11] == 'b';
		if (!read_num(ev, "lock_addr", raw, size, &v))
			return c2c_error_set(err, -EINVAL, "lock:%s payload has no lock_addr", ev->name);
		out->lock_addr = v;
		if (begin) {
			out->kind = TP_CONTENTION_BEGIN;
			if (read_num(ev, "flags", raw, size, &v))
				out->flags = (uint32_t)v;
		} else {
			out->kind = TP_CONTENTION_END;
			if (read_num(ev, "ret", raw, size, &v))
				out->ret = (int32_t)v;
		}
	} else if (!strcmp(ev->system, "sched") && !strcmp(ev->name, "sched_switch")) {
		out->kind = TP_SCHED_SWITCH;
		if (read_num(ev, "prev_pid", raw, size, &v))
			out->prev_pid = (int32_t)v;
		if (read_num(ev, "next_pid", raw, size, &v))
			out->next_pid = (int32_t)v;
		if (read_num(ev, "prev_state", raw, size, &v))
			out->prev_state = (int64_t)v;
		read_str(ev, "prev_comm", raw, size, out->prev_comm, sizeof(out->prev_comm));
		read_str(ev, "next_comm", raw, size, out->next_comm, sizeof(out->next_comm));
	} else if (!strcmp(ev->system, "sched") && !strcmp(ev->name, "sched_migrate_task")) {
		out->kind = TP_SCHED_MIGRATE;
		if (read_num(ev, "pid", raw, size, &v))
			out->pid = (int32_t)v;
		if (read_num(ev, "orig_cpu", raw, size, &v))
			out->orig_cpu = (int32_t)v;
		if (read_num(ev, "dest_cpu", raw, size, &v))
			out->dest_cpu = (int32_t)v;
	}
	return 0;
}
