/* The threads / processes table of `c2ctui report --threads|--processes`
 * (report_threads.h): one row per thread (tid, pid, comm) or process (pid,
 * comm, threads) with the display mode's HITM, local and remote HITM,
 * loads, stores, records, lines touched and CPUs. The numbers are
 * store_query_threads' as they are; the explorer's threads view shows the
 * same ones. */
#include "tui/report/report_threads.h"
#include "tui/report/report.h"
#include "tui/report/escape.h"

#include <inttypes.h>
#include <stdlib.h>

uint64_t report_threads_hitm(const struct c2c_stats *s, enum c2c_display d)
{
	return c2c_display_value(s, d);
}

static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct store_thread_row *x = a, *y = b;
	enum c2c_display d = *(const enum c2c_display *)arg;
	uint64_t hx = report_threads_hitm(&x->stats, d), hy = report_threads_hitm(&y->stats, d);
	uint64_t rx = c2c_total_records(&x->stats), ry = c2c_total_records(&y->stats);

	if (hx != hy)
		return hx > hy ? -1 : 1;
	if (rx != ry)
		return rx > ry ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

void report_threads_sort(struct store_thread_row *rows, size_t n, enum c2c_display d)
{
	if (n)
		qsort_r(rows, n, sizeof(*rows), cmp_rows, &d);
}

static void print_text(FILE *out, const struct store_thread_row *rows, size_t n, bool by_process,
		       enum c2c_display d)
{
	fprintf(out, "=================================================\n");
	fprintf(out, "      %s: %zu, sorted on %s\n", by_process ? "Processes" : "Threads", n, c2c_display_title(d));
	fprintf(out, "=================================================\n");
	if (by_process)
		fprintf(out, "%8s  %-16s %7s", "Pid", "Command", "Threads");
	else
		fprintf(out, "%8s %8s  %-16s", "Tid", "Pid", "Command");
	fprintf(out, " %8s %8s %8s %9s %9s %9s %8s %5s\n", "Hitm", "LclHitm", "RmtHitm", "Loads", "Stores", "Records",
		"Lines", "CPUs");
	for (size_t i = 0; i < n; i++) {
		const struct store_thread_row *r = &rows[i];
		if (by_process)
			fprintf(out, "%8" PRId32 "  %-16s %7" PRIu32, r->pid, r->comm[0] ? r->comm : "-", r->nr_threads);
		else
			fprintf(out, "%8" PRId32 " %8" PRId32 "  %-16s", r->tid, r->pid, r->comm[0] ? r->comm : "-");
		fprintf(out, " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %8" PRIu64
			" %5" PRIu32 "\n", report_threads_hitm(&r->stats, d), r->stats.lcl_hitm, r->stats.rmt_hitm,
			c2c_total_loads(&r->stats), c2c_stores_total(&r->stats), c2c_total_records(&r->stats),
			r->nr_lines, r->nr_cpus);
	}
}

static void print_csv(FILE *out, const struct store_thread_row *rows, size_t n, bool by_process, enum c2c_display d)
{
	fprintf(out, "%s,hitm,lcl_hitm,rmt_hitm,loads,stores,records,lines,cpus\n",
		by_process ? "pid,comm,threads" : "tid,pid,comm");
	for (size_t i = 0; i < n; i++) {
		const struct store_thread_row *r = &rows[i];
		if (by_process)
			fprintf(out, "%" PRId32 ",", r->pid);
		else
			fprintf(out, "%" PRId32 ",%" PRId32 ",", r->tid, r->pid);
		report_csv_str(out, r->comm);
		if (by_process)
			fprintf(out, ",%" PRIu32, r->nr_threads);
		fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu32 "\n",
			report_threads_hitm(&r->stats, d), r->stats.lcl_hitm, r->stats.rmt_hitm,
			c2c_total_loads(&r->stats), c2c_stores_total(&r->stats), c2c_total_records(&r->stats),
			r->nr_lines, r->nr_cpus);
	}
}

static void print_json(FILE *out, const struct store_thread_row *rows, size_t n, bool by_process,
		       enum c2c_display d)
{
	fprintf(out, "{\"display\":\"%s\",\"%s\":[", c2c_display_key(d), by_process ? "processes" : "threads");
	for (size_t i = 0; i < n; i++) {
		const struct store_thread_row *r = &rows[i];
		fprintf(out, "%s\n{", i ? "," : "");
		if (!by_process)
			fprintf(out, "\"tid\":%" PRId32 ",", r->tid);
		fprintf(out, "\"pid\":%" PRId32 ",\"comm\":", r->pid);
		report_json_str(out, r->comm);
		if (by_process)
			fprintf(out, ",\"threads\":%" PRIu32, r->nr_threads);
		fprintf(out, ",\"hitm\":%" PRIu64 ",\"lcl_hitm\":%" PRIu64 ",\"rmt_hitm\":%" PRIu64 ",\"loads\":%" PRIu64
			",\"stores\":%" PRIu64 ",\"records\":%" PRIu64 ",\"lines\":%" PRIu64 ",\"cpus\":%" PRIu32 "}",
			report_threads_hitm(&r->stats, d), r->stats.lcl_hitm, r->stats.rmt_hitm,
			c2c_total_loads(&r->stats), c2c_stores_total(&r->stats), c2c_total_records(&r->stats),
			r->nr_lines, r->nr_cpus);
	}
	fprintf(out, "\n]}\n");
}

int report_threads_print(FILE *out, const struct store_thread_row *rows, size_t n, bool by_process,
			 enum c2c_display d, int format)
{
	switch (format) {
	case REPORT_CSV:
		print_csv(out, rows, n, by_process, d);
		break;
	case REPORT_JSON:
		print_json(out, rows, n, by_process, d);
		break;
	default:
		print_text(out, rows, n, by_process, d);
		break;
	}
	return ferror(out) ? -1 : 0;
}
