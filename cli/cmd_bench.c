/*
 * cmd_bench — `numasim bench`: measure the simulator's own speed.
 *
 * Benchmarks are rows of one table (name, function, summary): the engine
 * benchmark phold, here, and the model benchmarks pagealloc, slub and
 * messaging, whose command lines are in cmd_bench_models.c.  Each
 * benchmark parses its own options, runs, and prints a perf-bench-like
 * summary on stdout only after every repetition succeeded.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "base/diag.h"
#include "sim/eventq.h"
#include "sim/phold.h"
#include "analysis/stats.h"
#include "base/records.h"

#define BENCH_USAGE "numasim bench BENCHMARK [OPTIONS] | numasim bench --help"
#define PHOLD_USAGE                                                            \
	"numasim bench phold [--lps N] [--events M] [--seed S] "               \
	"[--population P] [--repeat R] [--format text|json|csv]"
#define PHOLD_MAX_REPEAT 1000

struct bench {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static int bench_phold(int argc, char **argv);

static const struct bench benches[] = {
	/* name     function      summary */
	{"phold", bench_phold, "PHOLD event-loop throughput (event queue + GSL streams)"},
	{"pagealloc", cmd_bench_pagealloc, "page allocator model: order-0 alloc+free pairs/s, full costs"},
	{"slub", cmd_bench_slub, "SLUB model: kmalloc-512 alloc+remote free pairs/s, full costs"},
	{"messaging", cmd_bench_messaging, "sched messaging workload: messages/s over all CPUs"},
};

#define NR_BENCHES (sizeof benches / sizeof benches[0])

static void bench_usage(FILE *f);

static void bench_help(const struct cli_spec *spec)
{
	bench_usage(stdout);
	printf("\noptions:\n");
	cli_print_options(stdout, spec, NULL);
}

/* `numasim bench` itself takes a benchmark, not options: -h only. */
const struct cli_spec cmd_bench_spec_self = {
	.cmd = "bench", .usage = BENCH_USAGE, .help_col = 14, .help = bench_help,
};

static const struct cli_spec phold_spec;

const struct cli_spec *cmd_bench_spec(const char *name)
{
	if (!strcmp(name, "phold"))
		return &phold_spec;
	if (!strcmp(name, "pagealloc"))
		return &cmd_bench_pagealloc_spec;
	if (!strcmp(name, "slub"))
		return &cmd_bench_slub_spec;
	if (!strcmp(name, "messaging"))
		return &cmd_bench_messaging_spec;
	return NULL;
}

static void bench_usage(FILE *f)
{
	fprintf(f, "usage: %s\n\nMeasures the simulator's own speed.\n\nbenchmarks:\n",
		BENCH_USAGE);
	for (size_t i = 0; i < NR_BENCHES; i++)
		fprintf(f, "  %-10s %s\n", benches[i].name, benches[i].summary);
	fprintf(f, "\n'numasim bench BENCHMARK --help' lists a benchmark's options.\n");
}

struct phold_args {
	long long lps, population, events, seed, repeat;
	enum rec_format fmt;
};

/* --format: not with '=' and with its own message, as it always was. */
static int phold_format(void *dst, const struct cli_option *o, const char *typed,
			const char *v)
{
	(void)o;
	(void)typed;
	if (!v || rec_parse_format(v, dst))
		return cli_usage_error("bench phold", PHOLD_USAGE, "--format takes "
				       "text, json or csv");
	return 0;
}

#define PHOLD_NUM(opt, metavar, field, lo, hi, text)                           \
	{.name = opt, .arg = metavar, .kind = CLI_OPT_NUM, .flags = CLI_OPT_EQ,     \
	 .off = offsetof(struct phold_args, field), .min = lo, .max = hi, .help = text}

static void phold_usage(const struct cli_spec *spec);

static const struct cli_option phold_options[] = {
	PHOLD_NUM("--lps", "N", lps, 1, 10000000, "logical processes (default 1000)"),
	PHOLD_NUM("--population", "P", population, 1, 100000,
		  "initial events per LP (default 1)"),
	PHOLD_NUM("--events", "M", events, 1, 1000000000000LL,
		  "events to handle (default 10000000)"),
	PHOLD_NUM("--seed", "S", seed, 0, INT64_MAX, "run seed (default 1)"),
	PHOLD_NUM("--repeat", "R", repeat, 1, PHOLD_MAX_REPEAT,
		  "runs; reports min/median/max events/s (default 1)"),
	{.name = "--format", .arg = "F", .kind = CLI_OPT_CALL, .flags = CLI_OPT_OWN_MISSING,
	 .off = offsetof(struct phold_args, fmt), .call = phold_format,
	 .help = "text (default), json or csv: one document of the\n"
		 "runs and results (docs/reference/output-formats.md)"},
};

static const struct cli_spec phold_spec = {
	.cmd = "bench phold", .usage = PHOLD_USAGE,
	.opts = phold_options, .nr_opts = CLI_NR_OPTS(phold_options),
	.flags = CLI_ALL_OPTIONS, .help_col = 18,
	.needs_value = "%s needs a value", .help = phold_usage,
};

static void phold_usage(const struct cli_spec *spec)
{
	printf("usage: %s\n\n"
	       "PHOLD: N logical processes; handling an event at one sends a new event\n"
	       "to a uniformly random LP at now + exponential(mean 1 unit = %d ticks).\n"
	       "Reports events handled, host seconds, events per second, the final\n"
	       "simulated time and a checksum that is the same for the same options.\n\n"
	       "options:\n", spec->usage, PHOLD_TICKS_PER_UNIT);
	cli_print_options(stdout, spec, NULL);
}

/*
 * The summary.  Rates are given per wall second (what perf bench reports)
 * and per CPU second of the benchmark thread, which stays meaningful when
 * other processes compete for the CPU.
 */
/* The same as one --format json|csv document on stdout. */
static int phold_records(const struct phold_params *p, const struct phold_result *res,
			 long long repeat, enum rec_format fmt)
{
	struct rec_doc *d = rec_doc_new("bench");
	char sum[17];
	char *buf = NULL;
	size_t len = 0;
	if (!d)
		return NS_ENOMEM;
	rec_meta_str(d, "benchmark", "phold");
	rec_meta_int(d, "lps", p->lps);
	rec_meta_int(d, "population", p->population);
	rec_meta_int(d, "events", (long long)p->events);
	rec_meta_int(d, "seed", (long long)p->seed);
	rec_meta_int(d, "repeat", repeat);
	rec_meta_str(d, "eventq", eventq_kind());
	rec_table(d, "runs");
	for (long long r = 0; r < repeat; r++) {
		rec_row(d);
		rec_int(d, "run", r + 1);
		rec_num(d, "host_s", res[r].host_seconds);
		rec_num(d, "cpu_s", res[r].cpu_seconds);
		rec_num(d, "events_per_s", (double)res[r].events / res[r].host_seconds);
		rec_num(d, "events_per_cpu_s", (double)res[r].events / res[r].cpu_seconds);
	}
	snprintf(sum, sizeof sum, "%016" PRIx64, res[0].checksum);
	rec_table(d, "results");
	rec_row(d);
	rec_int(d, "events", (long long)res[0].events);
	rec_int(d, "final_time_ticks", (long long)res[0].final_time);
	rec_int(d, "min_events_per_lp", (long long)res[0].min_received);
	rec_int(d, "max_events_per_lp", (long long)res[0].max_received);
	rec_str(d, "checksum", sum);
	FILE *f = open_memstream(&buf, &len);
	int rc = f ? rec_write(d, fmt, f) : NS_ENOMEM;
	if (f)
		fclose(f);
	if (rc == NS_OK)
		rc = cli_write_file_atomic("-", buf, len);
	free(buf);
	rec_doc_free(d);
	return rc;
}

static int phold_report(const struct phold_params *p, const struct phold_result *res,
			long long repeat)
{
	double *wall = malloc(2 * (size_t)repeat * sizeof *wall);
	if (!wall)
		return NS_ENOMEM;
	double *cpu = wall + repeat, ws[3], cs[3];
	for (long long r = 0; r < repeat; r++) {
		wall[r] = (double)res[r].events / res[r].host_seconds / 1e6;
		cpu[r] = (double)res[r].events / res[r].cpu_seconds / 1e6;
	}
	printf("# Running 'phold' benchmark:\n"
	       "# %" PRIu32 " LPs x %" PRIu32 " initial events, %" PRIu64
	       " events per run, seed %" PRIu64 ", %lld run%s\n"
	       "# engine: %s for events, GSL taus2 stream\n\n",
	       p->lps, p->population, p->events, p->seed, repeat, repeat == 1 ? "" : "s",
	       eventq_kind());
	if (repeat > 1) {
		printf("  %4s %10s %10s %12s %12s\n", "run", "host s", "cpu s",
		       "M events/s", "M ev/cpu-s");
		for (long long r = 0; r < repeat; r++)
			printf("  %4lld %10.3f %10.3f %12.2f %12.2f\n", r + 1,
			       res[r].host_seconds, res[r].cpu_seconds, wall[r], cpu[r]);
		printf("\n");
	}
	printf("  %-22s %" PRIu64 "\n", "events:", res[0].events);
	if (repeat > 1) {
		stats_spread(wall, (size_t)repeat, ws);
		stats_spread(cpu, (size_t)repeat, cs);
		printf("  %-22s min %.2f  median %.2f  max %.2f\n", "M events/s:",
		       ws[0], ws[1], ws[2]);
		printf("  %-22s min %.2f  median %.2f  max %.2f\n", "M events/cpu-s:",
		       cs[0], cs[1], cs[2]);
	} else {
		printf("  %-22s %.3f\n", "host seconds:", res[0].host_seconds);
		printf("  %-22s %.3f\n", "cpu seconds:", res[0].cpu_seconds);
		printf("  %-22s %.2f\n", "M events/s:", wall[0]);
		printf("  %-22s %.2f\n", "M events/cpu-s:", cpu[0]);
	}
	printf("  %-22s %" PRIu64 " ticks (%.3f units)\n", "final simulated time:",
	       res[0].final_time, (double)res[0].final_time / PHOLD_TICKS_PER_UNIT);
	printf("  %-22s %" PRIu64 " min, %" PRIu64 " max\n", "events per LP:",
	       res[0].min_received, res[0].max_received);
	printf("  %-22s %016" PRIx64 "\n", "checksum:", res[0].checksum);
	free(wall);
	return NS_OK;
}

static int bench_phold(int argc, char **argv)
{
	struct phold_args a = {.lps = 1000, .population = 1, .events = 10000000, .seed = 1,
			       .repeat = 1, .fmt = REC_TEXT};
	int prc = cli_parse(&phold_spec, &a, argc, argv);
	if (prc)
		return prc == CLI_HELP_SHOWN ? 0 : 2;
	long long lps = a.lps, population = a.population, events = a.events, seed = a.seed,
		  repeat = a.repeat;
	enum rec_format fmt = a.fmt;
	if (lps * population > (long long)PHOLD_MAX_PENDING)
		return cli_usage_error("bench phold", PHOLD_USAGE,
				       "--lps x --population is %lld; at most %u events can be pending",
				       lps * population, PHOLD_MAX_PENDING);

	struct phold_params p = {
		.lps = (uint32_t)lps, .population = (uint32_t)population,
		.events = (uint64_t)events, .seed = (uint64_t)seed,
	};
	struct phold_result *res = calloc((size_t)repeat, sizeof *res);
	if (!res) {
		fprintf(stderr, "numasim bench: error: %s\n", ns_status_msg(NS_ENOMEM));
		return 1;
	}
	int status = 0;
	for (long long r = 0; r < repeat; r++) {
		int rc = phold_run(&p, &res[r]);
		if (rc != NS_OK) {
			fprintf(stderr, "numasim bench: error: phold run %lld: %s\n", r + 1,
				ns_status_msg(rc));
			status = ns_status_exit(rc);
			goto out;
		}
		if (res[r].checksum != res[0].checksum) {
			fprintf(stderr, "numasim bench: error: phold run %lld checksum %016" PRIx64
				" differs from run 1 (%016" PRIx64 "): the engine is not deterministic\n",
				r + 1, res[r].checksum, res[0].checksum);
			status = 1;
			goto out;
		}
	}
	if ((fmt == REC_TEXT ? phold_report(&p, res, repeat)
			     : phold_records(&p, res, repeat, fmt)) != NS_OK) {
		fprintf(stderr, "numasim bench: error: %s\n", ns_status_msg(NS_ENOMEM));
		status = 1;
	}
out:
	free(res);
	return status;
}

int cmd_bench(int argc, char **argv)
{
	if (argc < 2)
		return cli_usage_error("bench", BENCH_USAGE, "no benchmark given");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		bench_help(&cmd_bench_spec_self);
		return 0;
	}
	for (size_t i = 0; i < NR_BENCHES; i++)
		if (!strcmp(argv[1], benches[i].name))
			return benches[i].fn(argc - 1, argv + 1);
	const char *names[NR_BENCHES];
	for (size_t i = 0; i < NR_BENCHES; i++)
		names[i] = benches[i].name;
	return cli_unknown("numasim bench", "benchmark", argv[1], names, NR_BENCHES,
			   "numasim bench --help");
}
