/* Printers of c2ctui locks (report_locks.h). The text is perf lock
 * contention's stdio layout byte for byte: the same headers, widths and
 * time units (perf divides in float, so this does too). */
#include "tui/report/report_locks.h"

#include <inttypes.h>
#include <string.h>

#include "tui/report/escape.h"

static const struct {
	const char *name, *header;
	int len;
} fields[RLF__MAX] = {
	[RLF_CONTENDED] = { "contended", "contended", 10 },
	[RLF_WAIT_TOTAL] = { "wait_total", "total wait", 12 },
	[RLF_WAIT_MAX] = { "wait_max", "max wait", 12 },
	[RLF_WAIT_MIN] = { "wait_min", "min wait", 12 },
	[RLF_AVG_WAIT] = { "avg_wait", "avg wait", 12 },
};

int report_lock_field(const char *name)
{
	for (int i = 0; i < RLF__MAX; i++)
		if (!strcmp(fields[i].name, name))
			return i;
	return -1;
}

static void print_time(FILE *out, unsigned long long ns, int len)
{
	static const struct {
		float base;
		const char *unit;
	} units[] = { { 1e9f * 3600, "h " }, { 1e9f * 60, "m " }, { 1e9f, "s " }, { 1e6f, "ms" }, { 1e3f, "us" } };

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (ns >= units[i].base) {
			float v = (float)ns / units[i].base;
			fprintf(out, "%*.2f %s", len - 3, (double)v, units[i].unit);
			return;
		}
	fprintf(out, "%*llu %s", len - 3, ns, "ns");
}

static uint64_t field_value(const struct store_lock_stat *r, int f)
{
	switch (f) {
	case RLF_CONTENDED: return r->contended;
	case RLF_WAIT_TOTAL: return r->wait_total;
	case RLF_WAIT_MAX: return r->wait_max;
	case RLF_WAIT_MIN: return r->wait_min == UINT64_MAX ? 0 : r->wait_min;
	default: return r->avg_wait;
	}
}

static size_t nrows(const struct report_locks_opts *o, size_t n)
{
	return o->entries && o->entries < n ? o->entries : n;
}

void report_locks_text(FILE *out, const struct report_locks_opts *o, const struct store_lock_stat *rows, size_t n)
{
	for (size_t i = 0; i < o->nfields; i++)
		fprintf(out, "%*s ", fields[o->fields[i]].len, fields[o->fields[i]].header);
	switch (o->by) {
	case STORE_LOCKS_BY_TASK: fprintf(out, "  %10s   %s\n\n", "pid", "comm"); break;
	case STORE_LOCKS_BY_ADDR: fprintf(out, "  %16s   %s\n\n", "address", "symbol"); break;
	case STORE_LOCKS_BY_CALLER: fprintf(out, "  %10s   %s\n\n", "type", "caller"); break;
	}
	for (size_t r = 0; r < nrows(o, n); r++) {
		const struct store_lock_stat *s = &rows[r];
		for (size_t i = 0; i < o->nfields; i++) {
			int f = o->fields[i];
			if (f == RLF_CONTENDED)
				fprintf(out, "%*" PRIu64, fields[f].len, s->contended);
			else
				print_time(out, (unsigned long long)field_value(s, f), fields[f].len);
			fputc(' ', out);
		}
		switch (o->by) {
		case STORE_LOCKS_BY_TASK:
			fprintf(out, "  %10d   %s\n", (int32_t)s->key, s->name);
			break;
		case STORE_LOCKS_BY_ADDR:
			fprintf(out, "  %016" PRIx64 "   %s (%s)\n", s->key, s->name, store_lock_type_family(s->flags));
			break;
		case STORE_LOCKS_BY_CALLER:
			fprintf(out, "  %10s   %s\n", store_lock_type_str(s->flags), s->name);
			break;
		}
	}
}

void report_locks_csv(FILE *out, const struct report_locks_opts *o, const struct store_lock_stat *rows, size_t n)
{
	fputs("contended,acquired,wait_total_ns,wait_max_ns,wait_min_ns,avg_wait_ns,", out);
	fputs(o->by == STORE_LOCKS_BY_TASK ? "tid,comm\n" : o->by == STORE_LOCKS_BY_ADDR ? "address,symbol,kind\n"
	      : "kind,caller\n", out);
	for (size_t r = 0; r < nrows(o, n); r++) {
		const struct store_lock_stat *s = &rows[r];
		fprintf(out, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", s->contended,
			s->acquired, s->wait_total, s->wait_max, field_value(s, RLF_WAIT_MIN), s->avg_wait);
		if (o->by == STORE_LOCKS_BY_TASK) {
			fprintf(out, "%d,", (int32_t)s->key);
			report_csv_str(out, s->name);
		} else if (o->by == STORE_LOCKS_BY_ADDR) {
			fprintf(out, "0x%" PRIx64 ",", s->key);
			report_csv_str(out, s->name);
			fprintf(out, ",%s", store_lock_type_family(s->flags));
		} else {
			report_csv_str(out, store_lock_type_str(s->flags));
			fputc(',', out);
			report_csv_str(out, s->name);
		}
		fputc('\n', out);
	}
}

void report_locks_json(FILE *out, const struct report_locks_opts *o, const struct store_lock_stat *rows, size_t n)
{
	fprintf(out, "{\"by\": \"%s\", \"locks\": [",
		o->by == STORE_LOCKS_BY_TASK ? "thread" : o->by == STORE_LOCKS_BY_ADDR ? "lock" : "caller");
	for (size_t r = 0; r < nrows(o, n); r++) {
		const struct store_lock_stat *s = &rows[r];
		fprintf(out, "%s\n  {\"contended\": %" PRIu64 ", \"acquired\": %" PRIu64 ", \"wait_total_ns\": %" PRIu64
			", \"wait_max_ns\": %" PRIu64 ", \"wait_min_ns\": %" PRIu64 ", \"avg_wait_ns\": %" PRIu64 ", ",
			r ? "," : "", s->contended, s->acquired, s->wait_total, s->wait_max, field_value(s, RLF_WAIT_MIN),
			s->avg_wait);
		if (o->by == STORE_LOCKS_BY_TASK) {
			fprintf(out, "\"tid\": %d, \"comm\": ", (int32_t)s->key);
			report_json_str(out, s->name);
		} else {
			fprintf(out, "\"kind\": ");
			report_json_str(out, store_lock_type_str(s->flags));
			if (o->by == STORE_LOCKS_BY_ADDR) {
				fprintf(out, ", \"address\": \"0x%" PRIx64 "\", \"symbol\": ", s->key);
				report_json_str(out, s->name);
			} else {
				fprintf(out, ", \"key\": \"0x%" PRIx64 "\", \"caller\": ", s->key);
				report_json_str(out, s->name);
			}
		}
		fputc('}', out);
	}
	fputs(n ? "\n]}\n" : "]}\n", out);
}
