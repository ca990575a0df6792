/* c2c-gen: writes a generated perf.data file for one scenario (see
 * tests/gen/scenario.h and docs/generated-fixtures.md).
 *
 *   c2c-gen --scenario NAME -o FILE [--samples N] [--seed S] [--pipe]
 *           [--compress] [--big-endian] [--attr-size N] [--nodes N --cpus N]
 *           [--expect] [--list] [--lines N] [--sites N] [--threads N]
 *
 * -o - writes to stdout (pipe format needs --pipe unless stdout is a file).
 * --cpus is the total number of CPUs, split evenly over --nodes.
 * --expect prints what the file contains as "name value" lines (stdout, or
 * stderr when the data goes to stdout). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/gen/scenario.h"

static void usage(FILE *f)
{
	const char *const *n = gen_scenario_names();

	fprintf(f, "usage: c2c-gen --scenario NAME -o FILE [--samples N] [--seed S] [--pipe] [--compress]\n"
		   "               [--big-endian] [--attr-size N] [--nodes N --cpus N] [--expect] [--list]\n"
		   "               [--lines N] [--sites N] [--threads N]   (mixed, bench: the shape)\n"
		   "scenarios:");
	for (; *n; n++)
		fprintf(f, " %s", *n);
	fprintf(f, "\n");
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || !*s || *end || *s == '-' ? -1 : 0;
}

int main(int argc, char **argv)
{
	enum { OPT_PIPE = 256, OPT_COMPRESS, OPT_BE, OPT_ATTR, OPT_NODES, OPT_CPUS, OPT_EXPECT, OPT_LIST,
	       OPT_SAMPLES, OPT_SEED, OPT_TIME, OPT_LINES, OPT_SITES, OPT_THREADS };
	static const struct option opts[] = {
		{ "scenario", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "samples", required_argument, NULL, OPT_SAMPLES },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "pipe", no_argument, NULL, OPT_PIPE },
		{ "compress", no_argument, NULL, OPT_COMPRESS },
		{ "big-endian", no_argument, NULL, OPT_BE },
		{ "attr-size", required_argument, NULL, OPT_ATTR },
		{ "nodes", required_argument, NULL, OPT_NODES },
		{ "cpus", required_argument, NULL, OPT_CPUS },
		{ "expect", no_argument, NULL, OPT_EXPECT },
		{ "list", no_argument, NULL, OPT_LIST },
		{ "time", no_argument, NULL, OPT_TIME },
		{ "lines", required_argument, NULL, OPT_LINES },
		{ "sites", required_argument, NULL, OPT_SITES },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct gen_params p = { .pdw = { .fd = -1 } };
	struct gen_expect e;
	struct c2c_error err = { 0 };
	const char *out = NULL;
	uint64_t v, nodes = 2, cpus = 16;
	int c, expect = 0, show_time = 0, ret;
	struct timespec t0, t1;

	while ((c = getopt_long(argc, argv, "s:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 's': p.scenario = optarg; break;
		case 'o': out = optarg; break;
		case OPT_SAMPLES:
			if (parse_u64(optarg, &p.samples) || !p.samples) {
				fprintf(stderr, "c2c-gen: --samples wants a positive number\n");
				return 2;
			}
			break;
		case OPT_SEED:
			if (parse_u64(optarg, &p.seed)) {
				fprintf(stderr, "c2c-gen: --seed wants a number\n");
				return 2;
			}
			break;
		case OPT_PIPE: p.pdw.pipe = 1; break;
		case OPT_COMPRESS: p.pdw.compress = 1; break;
		case OPT_BE: p.pdw.big_endian = 1; break;
		case OPT_ATTR:
			if (parse_u64(optarg, &v) || v > 1024) {
				fprintf(stderr, "c2c-gen: --attr-size wants a number\n");
				return 2;
			}
			p.pdw.attr_size = (uint32_t)v;
			break;
		case OPT_NODES:
			if (parse_u64(optarg, &nodes) || !nodes || nodes > 64) {
				fprintf(stderr, "c2c-gen: --nodes wants 1..64\n");
				return 2;
			}
			break;
		case OPT_CPUS:
			if (parse_u64(optarg, &cpus) || !cpus || cpus > 4096) {
				fprintf(stderr, "c2c-gen: --cpus wants 1..4096\n");
				return 2;
			}
			break;
		case OPT_LINES:
		case OPT_SITES:
		case OPT_THREADS:
			/* the scenario checks the upper bounds */
			if (parse_u64(optarg, &v) || !v || v > UINT32_MAX) {
				fprintf(stderr, "c2c-gen: --%s wants a positive number\n",
					c == OPT_LINES ? "lines" : c == OPT_SITES ? "sites" : "threads");
				return 2;
			}
			*(c == OPT_LINES ? &p.lines : c == OPT_SITES ? &p.sites : &p.threads) = (uint32_t)v;
			break;
		case OPT_EXPECT: expect = 1; break;
		case OPT_TIME: show_time = 1; break;
		case OPT_LIST:
			for (const char *const *n = gen_scenario_names(); *n; n++)
				printf("%s\n", *n);
			return 0;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc || !p.scenario || !out) {
		usage(stderr);
		return 2;
	}
	if (cpus % nodes) {
		fprintf(stderr, "c2c-gen: --cpus %" PRIu64 " is not a multiple of --nodes %" PRIu64 "\n", cpus, nodes);
		return 2;
	}
	p.nodes = (uint32_t)nodes;
	p.cpus_per_node = (uint32_t)(cpus / nodes);
	if (!strcmp(out, "-")) {
		p.pdw.fd = STDOUT_FILENO;
		out = NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = gen_scenario(out, &p, &e, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ret < 0) {
		fprintf(stderr, "c2c-gen: %s\n", err.msg[0] ? err.msg : strerror(-ret));
		return 1;
	}
	if (expect)
		gen_expect_print(out ? stdout : stderr, &e);
	if (show_time)
		fprintf(stderr, "c2c-gen: %" PRIu64 " samples in %.3f s\n", e.samples,
			(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
