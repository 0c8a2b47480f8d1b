/*
 * bench_pagealloc — see bench_pagealloc.h.
 *
 * Design notes.  One world (tables, layout, CPUs, page allocator) is built
 * per run; only the simulated CPU the benchmark runs on is given to the
 * cost model, so the set-up cost does not grow with the machine's CPU
 * count (the page allocator's per-cpu pagesets exist for simulated CPUs
 * only).  The page array is allocated once; the timed loop does no host
 * allocation after the first rounds (the model's detail pool warms up).
 */
#include "scenarios/bench_pagealloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cli/cli.h"
#include "sim/hw/cost.h"
#include "sim/hw/cpu.h"
#include "base/diag.h"
#include "sim/hw/machine.h"
#include "models/page_alloc.h"

#define BENCH_PAGEALLOC_USAGE                                                              \
	"numasim bench pagealloc [--machine FILE] [--pairs N] [--variant pre|post] " \
	"[--batch N] [--cpu C] [--order O] [--repeat R] [--profile N] [--bpred bimodal|gshare]"
#define BENCH_PAGEALLOC_CMD "bench pagealloc"

struct bench_pagealloc_opts {
	const char *machine;
	long long pairs, batch, cpu, order, repeat, profile;
	enum mmzone_iter variant;
	enum bpred_mode bpred;
};

struct bench_pagealloc_result {
	double host_s, cpu_s;
	uint64_t pairs;
	uint64_t alloc_cycles, free_cycles;
	uint64_t checksum;
	uint64_t failed;
};

static double now_s(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void bench_pagealloc_usage(void)
{
	printf("usage: %s\n\n"
	       "Simulated alloc_pages(GFP_KERNEL|__GFP_NOWARN, O) + __free_pages pairs per\n"
	       "host second on one CPU, with the full cost model (caches, predictor,\n"
	       "profile).  Each round allocates --batch pages, then frees them.\n"
	       "Reports pairs/s, simulated cycles per allocation and per free, the\n"
	       "simulated profile's top functions and the peak RSS of the process.\n\n"
	       "options:\n"
	       "  --machine FILE  machine file (default configs/seed-2016-2s.yaml)\n"
	       "  --pairs N       alloc+free pairs per run (default 10000000)\n"
	       "  --variant V     pre | post (pre-682a3385 | 682a3385; default post)\n"
	       "  --batch N       allocations per round (default 128)\n"
	       "  --cpu C         machine CPU number to run on (default: first CPU)\n"
	       "  --order O       allocation order 0..4 (default 0)\n"
	       "  --repeat R      runs (default 1); rates are reported per run\n"
	       "  --profile N     print the N functions with most self cycles (default 8)\n"
	       "  --bpred M       branch predictor model: gshare (default) or bimodal\n",
	       BENCH_PAGEALLOC_USAGE);
}

static int bench_pagealloc_parse(int argc, char **argv, struct bench_pagealloc_opts *o)
{
	o->machine = "configs/seed-2016-2s.yaml";
	o->pairs = 10000000;
	o->batch = 128;
	o->cpu = -1;
	o->order = 0;
	o->repeat = 1;
	o->profile = 8;
	o->variant = MMZONE_ITER_POST;
	o->bpred = BPRED_GSHARE;
	struct {
		const char *name;
		long long min, max, *val;
	} nums[] = {
		{"--pairs", 1, 1000000000000LL, &o->pairs},
		{"--batch", 1, 1 << 24, &o->batch},
		{"--cpu", 0, MACHINE_MAX_CPUS - 1, &o->cpu},
		{"--order", 0, 4, &o->order},
		{"--repeat", 1, 1000, &o->repeat},
		{"--profile", 0, 1000, &o->profile},
	};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			bench_pagealloc_usage();
			return 1;
		}
		const char *eq = strchr(a, '=');
		size_t klen = eq ? (size_t)(eq - a) : strlen(a);
		if (strncmp(a, "--", 2))
			return cli_usage_error(BENCH_PAGEALLOC_CMD, BENCH_PAGEALLOC_USAGE, "unexpected argument '%s'", a);
		if (eq) {
			val = eq + 1;
		} else if (i + 1 < argc) {
			val = argv[++i];
		} else {
			return cli_usage_error(BENCH_PAGEALLOC_CMD, BENCH_PAGEALLOC_USAGE, "%s needs a value", a);
		}
		if (klen == 9 && !strncmp(a, "--machine", klen)) {
			if (!*val)
				return cli_usage_error(BENCH_PAGEALLOC_CMD, BENCH_PAGEALLOC_USAGE, "--machine needs a file name");
			o->machine = val;
			continue;
		}
		if (klen == 7 && !strncmp(a, "--bpred", klen)) {
			if (!strcmp(val, "bimodal"))
				o->bpred = BPRED_BIMODAL;
			else if (!strcmp(val, "gshare"))
				o->bpred = BPRED_GSHARE;
			else
				return cli_usage_error(BENCH_PAGEALLOC_CMD, BENCH_PAGEALLOC_USAGE,
						       "--bpred '%s': expected bimodal or gshare", val);
			continue;
		}
		if (klen == 9 && !strncmp(a, "--variant", klen)) {
			int v = mmzone_iter_parse(val);
			if (v < 0)
				return cli_usage_error(BENCH_PAGEALLOC_CMD, BENCH_PAGEALLOC_USAGE,
						       "--variant '%s': expected pre or post", val);
			o->variant = (enum mmzone_iter)v;
			continue;
		}
		size_t k;
		for (k = 0; k < sizeof nums / sizeof nums[0]; k++)
			if (strlen(nums[k].name) == klen && !strncmp(a, nums[k].name, klen))
				break;
		if (k == sizeof nums / sizeof nums[0])
			return cli_usage_error(BENCH_PAGEALLOC_CMD, BENCH_PAGEALLOC_USAGE, "unknown option '%.*s'", (int)klen, a);
		if (cli_parse_long(BENCH_PAGEALLOC_CMD, nums[k].name, val, nums[k].min, nums[k].max,
				   nums[k].val) != NS_OK)
			return 2;
	}
	return 0;
}

struct bench_pagealloc_world {
	struct cost_tables t;
	struct cost_layout l;
	struct cpu_sys s;
	int fn_base, site_base, sys_ok;
	struct mm_world *w;
};

static void bench_pagealloc_world_free(struct bench_pagealloc_world *b)
{
	mm_world_destroy(b->w);
	if (b->sys_ok)
		cpu_sys_free(&b->s);
	cost_layout_free(&b->l);
	cost_tables_free(&b->t);
}

static int bench_pagealloc_world_init(struct bench_pagealloc_world *b, const struct machine *m, const struct bench_pagealloc_opts *o,
			  int cpu, struct diag *d)
{
	memset(b, 0, sizeof *b);
	cost_tables_init(&b->t);
	int rc = mm_register(&b->t, &b->fn_base, &b->site_base);
	if (rc == NS_OK)
		rc = cost_layout_init(&b->l, &b->t, mmzone_iter_name(o->variant));
	if (rc == NS_OK)
		rc = mm_layout(&b->l, &b->t, b->fn_base, b->site_base, o->variant);
	struct cpu_params p;
	cpu_params_default(&p);
	p.bpred.mode = o->bpred;
	/* one simulated CPU: no other cache can hold a line, the coherence
	 * directory would only cost host time */
	p.cache.coherence = false;
	if (rc == NS_OK)
		rc = cpu_sys_init(&b->s, m, &b->t, &b->l, &p, &cpu, 1);
	if (rc != NS_OK)
		return diag_set(d, rc, NULL, 0, 0, "cost model set-up failed");
	b->sys_ok = 1;
	struct mm_config cfg;
	mm_config_default(&cfg);
	cfg.iter = o->variant;
	return mm_world_create(m, &cfg, &b->s, b->fn_base, b->site_base, &b->w, d);
}

static int bench_pagealloc_run(const struct machine *m, const struct bench_pagealloc_opts *o, int cpu,
		   struct page **pages, struct bench_pagealloc_result *r, struct bench_pagealloc_world *b,
		   struct diag *d)
{
	int rc = bench_pagealloc_world_init(b, m, o, cpu, d);
	if (rc != NS_OK)
		return rc;
	struct cpu *c = &b->s.cpu[0];
	const uint32_t gfp = GFP_KERNEL | __GFP_NOWARN;
	const unsigned order = (unsigned)o->order;
	memset(r, 0, sizeof *r);
	double h0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
	uint64_t left = (uint64_t)o->pairs;
	while (left) {
		uint64_t n = left < (uint64_t)o->batch ? left : (uint64_t)o->batch;
		uint64_t t0 = c->now;
		for (uint64_t i = 0; i < n; i++) {
			pages[i] = mm_alloc_pages(b->w, c, gfp, order);
			if (pages[i])
				r->checksum = r->checksum * 1000003u + mm_page_pfn(b->w, pages[i]);
			else
				r->failed++;
		}
		uint64_t t1 = c->now;
		for (uint64_t i = 0; i < n; i++)
			if (pages[i])
				mm_free_pages(b->w, c, pages[i], order);
		r->alloc_cycles += t1 - t0;
		r->free_cycles += c->now - t1;
		left -= n;
	}
	r->host_s = now_s(CLOCK_MONOTONIC) - h0;
	r->cpu_s = now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	r->pairs = (uint64_t)o->pairs;
	return mm_check(b->w, d);
}

struct prof_top {
	struct cpu_profile_row rows[1024];
	int n;
};

static int prof_cb(void *arg, const struct cpu_profile_row *row)
{
	struct prof_top *p = arg;
	if (p->n < (int)(sizeof p->rows / sizeof p->rows[0]))
		p->rows[p->n++] = *row;
	return NS_OK;
}

static int cmp_self(const void *a, const void *b)
{
	const struct cpu_profile_row *x = a, *y = b;
	if (x->self_cycles != y->self_cycles)
		return x->self_cycles < y->self_cycles ? 1 : -1;
	return strcmp(x->function, y->function);
}

static void print_profile(struct bench_pagealloc_world *b, uint64_t pairs, long long top)
{
	static struct prof_top p;
	p.n = 0;
	cpu_sys_profile(&b->s, -1, prof_cb, &p);
	qsort(p.rows, (size_t)p.n, sizeof p.rows[0], cmp_self);
	printf("\n  simulated profile (per pair; self = out-of-line function's own cycles):\n");
	printf("  %-26s %8s %10s %10s\n", "function", "calls", "self cyc", "total cyc");
	for (int i = 0; i < p.n && i < top; i++) {
		const struct cpu_profile_row *r = &p.rows[i];
		printf("  %-26s %8.2f %10.2f %10.2f%s\n", r->function, (double)r->calls / (double)pairs,
		       (double)r->self_cycles / (double)pairs, (double)r->total_cycles / (double)pairs,
		       r->inlined ? "  (inlined)" : "");
	}
}

/* The cost model's counters per pair: where the simulated cycles went. */
static void print_counters(struct bench_pagealloc_world *b, uint64_t pairs)
{
	static const enum cpu_counter ids[] = {
		CPU_CTR_calls, CPU_CTR_branches, CPU_CTR_branches_taken, CPU_CTR_branch_mispredict,
		CPU_CTR_work_cycles, CPU_CTR_mem_accesses, CPU_CTR_mem_stall_cycles,
		CPU_CTR_mem_load_dep, CPU_CTR_mem_load, CPU_CTR_mem_store, CPU_CTR_l1d_hit,
		CPU_CTR_l1d_miss, CPU_CTR_l2_miss, CPU_CTR_llc_miss, CPU_CTR_atomic,
		CPU_CTR_lock_acquire, CPU_CTR_irq_save,
	};
	struct cpu *c = &b->s.cpu[0];
	printf("\n  cost model counters per pair:\n");
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
		printf("  %-28s %.2f\n", cpu_counter_name(ids[i]),
		       (double)cpu_counter(c, ids[i]) / (double)pairs);
}

int bench_pagealloc_main(int argc, char **argv)
{
	struct bench_pagealloc_opts o;
	int rc = bench_pagealloc_parse(argc, argv, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	struct diag d;
	diag_init(&d);
	struct machine *m = NULL;
	if (machine_load_file(o.machine, &m, &d) != NS_OK) {
		diag_print(&d, stderr);
		return 2;
	}
	int status = 0;
	struct page **pages = NULL;
	struct bench_pagealloc_result *res = calloc((size_t)o.repeat, sizeof *res);
	int cpu = (int)o.cpu;
	if (cpu < 0) {
		for (cpu = 0; cpu <= m->max_cpu && m->cpu_node[cpu] < 0; cpu++)
			;
	}
	if (cpu > m->max_cpu || m->cpu_node[cpu] < 0) {
		status = cli_usage_error(BENCH_PAGEALLOC_CMD, BENCH_PAGEALLOC_USAGE, "machine %s has no CPU %d", m->name,
					 (int)o.cpu);
		goto out;
	}
	pages = malloc((size_t)o.batch * sizeof *pages);
	if (!pages || !res) {
		fprintf(stderr, "numasim bench: error: %s\n", ns_status_msg(NS_ENOMEM));
		status = 1;
		goto out;
	}
	struct bench_pagealloc_world b;
	for (long long r = 0; r < o.repeat; r++) {
		rc = bench_pagealloc_run(m, &o, cpu, pages, &res[r], &b, &d);
		if (rc != NS_OK) {
			diag_print(&d, stderr);
			bench_pagealloc_world_free(&b);
			status = ns_status_exit(rc);
			goto out;
		}
		if (res[r].checksum != res[0].checksum || res[r].alloc_cycles != res[0].alloc_cycles) {
			fprintf(stderr, "numasim bench: error: run %lld differs from run 1: the model is "
					"not deterministic\n", r + 1);
			bench_pagealloc_world_free(&b);
			status = 1;
			goto out;
		}
		if (r + 1 < o.repeat)
			bench_pagealloc_world_free(&b);
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("# Running 'pagealloc' benchmark:\n"
	       "# machine %s (%d nodes, %.1f GiB), CPU %d, variant %s, %s predictor\n"
	       "# alloc_pages(GFP_KERNEL|__GFP_NOWARN, %lld) x %lld then __free_pages x %lld, "
	       "%lld pairs per run, %lld run%s\n\n",
	       m->name, m->nr_nodes,
	       (double)machine_mem_pages(m) * m->page_size / (1024.0 * 1024 * 1024), cpu,
	       mmzone_iter_name(o.variant), bpred_mode_name(o.bpred), o.order, o.batch, o.batch, o.pairs, o.repeat,
	       o.repeat == 1 ? "" : "s");
	for (long long r = 0; r < o.repeat; r++) {
		const struct bench_pagealloc_result *x = &res[r];
		printf("  run %-3lld host %.3f s  cpu %.3f s  %.2f M pairs/s  %.2f M pairs/cpu-s\n",
		       r + 1, x->host_s, x->cpu_s, (double)x->pairs / x->host_s / 1e6,
		       (double)x->pairs / x->cpu_s / 1e6);
	}
	printf("\n  %-28s %" PRIu64 "\n", "pairs:", res[0].pairs);
	printf("  %-28s %.2f\n", "sim cycles per alloc:",
	       (double)res[0].alloc_cycles / (double)res[0].pairs);
	printf("  %-28s %.2f\n", "sim cycles per free:",
	       (double)res[0].free_cycles / (double)res[0].pairs);
	printf("  %-28s %" PRIu64 "\n", "failed allocations:", res[0].failed);
	printf("  %-28s %ld KiB\n", "peak RSS:", ru.ru_maxrss);
	printf("  %-28s %016" PRIx64 "\n", "checksum:", res[0].checksum);
	print_counters(&b, res[0].pairs);
	if (o.profile)
		print_profile(&b, res[0].pairs, o.profile);
	bench_pagealloc_world_free(&b);
out:
	free(pages);
	free(res);
	machine_free(m);
	return status;
}
