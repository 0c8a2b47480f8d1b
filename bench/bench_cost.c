/*
 * bench_cost — throughput of the cycle-cost primitives (cost/cpu.h): how many
 * simulated branches, call/return pairs and memory accesses the host
 * executes per second.  Not a timed test; `--smoke` runs a tiny iteration
 * count so the test suite only checks that it works.
 *
 * The machine is built in code with Skylake-SP-like figures
 * (reference/cost-figures.md: mispredict 14, RSB 16, L1 4 / L2 14 / LLC 46
 * cycles, 78.5 / 144.1 ns DRAM, 45 / 110 ns transfers) and 2 nodes x 2 CPUs.
 * The model has 16 functions and 256 sites; branch outcomes come from an
 * xorshift generator with per-site bias (most sites 97% one way, like the
 * allocator fast paths), so the host's own predictor cannot learn the
 * stream and the figure is not flattered.
 *
 * Usage: bench_cost [--smoke] [--iterations N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cost/cost.h"
#include "cost/cpu.h"
#include "base/diag.h"

#define NFN 16
#define NSITE 256

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static void fig(struct cost_figure *f, double v)
{
	f->value = v;
	f->source = "bench";
}

static struct latency_point mem_lat[] = {{10, 78.5, "bench"}, {21, 144.1, "bench"}};
static struct latency_point xfer_lat[] = {{10, 45.1, "bench"}, {21, 110.0, "bench"}};

static void build_machine(struct machine *m, int *dist, int *cpu_node,
			  struct machine_node *nodes)
{
	static int c0[] = {0, 1}, c1[] = {2, 3};
	memset(m, 0, sizeof *m);
	m->name = "bench";
	m->nr_nodes = 2;
	m->nodes = nodes;
	nodes[0] = (struct machine_node){.id = 0, .nr_cpus = 2, .cpus = c0};
	nodes[1] = (struct machine_node){.id = 1, .nr_cpus = 2, .cpus = c1};
	for (int i = 0; i < MACHINE_MAX_NODES; i++)
		m->node_index[i] = -1;
	m->node_index[0] = 0;
	m->node_index[1] = 1;
	dist[0] = dist[3] = 10;
	dist[1] = dist[2] = 21;
	m->distance = dist;
	m->nr_cpus = 4;
	m->max_cpu = 3;
	cpu_node[0] = cpu_node[1] = 0;
	cpu_node[2] = cpu_node[3] = 1;
	m->cpu_node = cpu_node;
	struct machine_costs *c = &m->costs;
	fig(&c->clock_ghz, 2.7);
	fig(&c->call_return, 4);
	fig(&c->branch, 1);
	fig(&c->taken_branch, 1);
	fig(&c->mispredict, 14);
	fig(&c->return_stack, 16);
	fig(&c->line_size, 64);
	fig(&c->l1d_size, 32 * 1024);
	fig(&c->l1d_latency, 4);
	fig(&c->l2_size, 1024 * 1024);
	fig(&c->l2_latency, 14);
	fig(&c->llc_size, 11 * 1408 * 1024);
	fig(&c->llc_latency, 46);
	fig(&c->atomic, 18);
	fig(&c->lock_uncontended, 28);
	fig(&c->irq_save_restore, 37);
	fig(&c->this_cpu_cmpxchg, 9);
	c->nr_memory_latency = 2;
	c->memory_latency = mem_lat;
	c->nr_line_transfer = 2;
	c->line_transfer = xfer_lat;
}

struct result {
	const char *what;
	double ops, secs;
	uint64_t sim_cycles;
};

static void report(const struct result *r)
{
	printf("%-28s %12.0f ops  %8.3f s  %8.1f M/s  %6.2f ns/op  (%llu sim cycles)\n",
	       r->what, r->ops, r->secs, r->ops / r->secs / 1e6,
	       r->secs / r->ops * 1e9, (unsigned long long)r->sim_cycles);
}

int main(int argc, char **argv)
{
	long long iters = 100000000;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--smoke") == 0) {
			iters = 100000;
		} else if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc) {
			iters = atoll(argv[++i]);
			if (iters < 1) {
				fprintf(stderr, "bench_cost: error: bad --iterations\n");
				return 2;
			}
		} else {
			fprintf(stderr, "usage: bench_cost [--smoke] [--iterations N]\n");
			return 2;
		}
	}

	static char fn_buf[NFN][16], site_buf[NSITE][16];
	static const char *fn_names[NFN];
	static struct cost_site_def sites[NSITE];
	for (int i = 0; i < NFN; i++) {
		snprintf(fn_buf[i], sizeof fn_buf[i], "fn%02d", i);
		fn_names[i] = fn_buf[i];
	}
	for (int i = 0; i < NSITE; i++) {
		snprintf(site_buf[i], sizeof site_buf[i], "B%03d", i);
		sites[i] = (struct cost_site_def){site_buf[i], "bench site"};
	}
	struct machine m;
	int dist[4], cpu_node[4];
	struct machine_node nodes[2];
	build_machine(&m, dist, cpu_node, nodes);
	struct cost_tables t;
	struct cost_layout l;
	struct cpu_sys s;
	struct cpu_params p;
	int fb, sb, rc;
	cost_tables_init(&t);
	rc = cost_register_fns(&t, fn_names, NFN, &fb);
	if (!rc)
		rc = cost_register_sites(&t, sites, NSITE, &sb);
	if (!rc)
		rc = cost_layout_init(&l, &t, "bench");
	for (int i = 0; !rc && i < NFN; i += 4)
		rc = cost_layout_set_fn(&l, fb + i, true);   /* a quarter inlined */
	for (int i = 0; !rc && i < NSITE; i += 3)
		rc = cost_layout_set_site(&l, sb + i, COST_HINT_UNLIKELY, COST_FT_HINTED);
	cpu_params_default(&p);
	int cpus[] = {0, 1, 2, 3};
	if (!rc)
		rc = cpu_sys_init(&s, &m, &t, &l, &p, cpus, 4);
	if (rc) {
		fprintf(stderr, "bench_cost: error: set-up failed: %s\n", ns_status_msg(rc));
		return 1;
	}
	struct cpu *c = &s.cpu[0];

	/* per-site bias: 97% one way, every 8th site 50/50 */
	static uint32_t thresh[NSITE];
	uint64_t rng = 88172645463325252ull;
	for (int i = 0; i < NSITE; i++)
		thresh[i] = i % 8 == 7 ? 1u << 31 : (uint32_t)(0.97 * 4294967296.0);

	struct result r;
	double t0;
	uint64_t c0;
	unsigned sum = 0;

	/* 1. branches: one xorshift per 4 branches, sites walk the table */
	c0 = c->now;
	t0 = now_s();
	for (long long i = 0; i < iters; i += 4) {
		uint64_t x = xorshift(&rng);
		int site = (int)(i & (NSITE - 1));
		for (int k = 0; k < 4; k++) {
			uint32_t draw = (uint32_t)(x >> (16 * k)) << 16;
			sum += cpu_branch(c, sb + site + k, draw < thresh[site + k]);
		}
	}
	r = (struct result){"branch", (double)iters, now_s() - t0, c->now - c0};
	report(&r);

	/* 2. call + ret pairs with one branch inside (depth 1..4) */
	long long pairs = iters / 4;
	c0 = c->now;
	t0 = now_s();
	for (long long i = 0; i < pairs; i++) {
		int fn = fb + (int)(i & (NFN - 1));
		cpu_call(c, fn);
		cpu_call(c, fb + ((fn + 1) & (NFN - 1)));
		cpu_ret(c);
		cpu_ret(c);
	}
	r = (struct result){"call+ret (x2 nested)", (double)pairs * 2, now_s() - t0,
			    c->now - c0};
	report(&r);

	/* 3. memory: L1-resident working set (16 KiB), then 4 MiB (L2/LLC) */
	struct cache_as as;
	cache_as_init(&as);
	uint64_t small, big;
	if (cache_as_alloc(&as, 0, 16 * 1024, 4096, &small) ||
	    cache_as_alloc(&as, 1, 4 << 20, 4096, &big)) {
		fprintf(stderr, "bench_cost: error: address space\n");
		return 1;
	}
	long long mems = iters / 4;
	c0 = c->now;
	t0 = now_s();
	for (long long i = 0; i < mems; i++)
		cpu_mem(c, small + ((uint64_t)(i * 64) & (16 * 1024 - 1)), 8, 0,
			(i & 1) ? CPU_STORE : CPU_LOAD_DEP);
	r = (struct result){"mem (L1 working set)", (double)mems, now_s() - t0, c->now - c0};
	report(&r);
	c0 = c->now;
	t0 = now_s();
	for (long long i = 0; i < mems; i++) {
		uint64_t off = (xorshift(&rng) & ((4 << 20) - 1)) & ~63ull;
		cpu_mem(c, big + off, 8, 1, CPU_LOAD_DEP);
	}
	r = (struct result){"mem (4 MiB random)", (double)mems, now_s() - t0, c->now - c0};
	report(&r);

	/* 4. an allocator-like mix: call, 6 branches, 3 mem, 1 work, ret */
	long long mixes = iters / 16;
	c0 = c->now;
	t0 = now_s();
	for (long long i = 0; i < mixes; i++) {
		uint64_t x = xorshift(&rng);
		int fn = fb + (int)(i & (NFN - 1));
		int site = (int)(i & (NSITE - 1)) & ~7;
		cpu_call(c, fn);
		for (int k = 0; k < 6; k++)
			sum += cpu_branch(c, sb + site + k,
					  (uint32_t)(x >> (8 * k)) << 8 < thresh[site + k]);
		cpu_mem(c, small + ((x >> 20) & (16 * 1024 - 64)), 8, 0, CPU_LOAD_DEP);
		cpu_mem(c, small + ((x >> 34) & (16 * 1024 - 64)), 8, 0, CPU_STORE);
		cpu_mem(c, big + ((x >> 40) & ((4 << 20) - 64)), 8, 1, CPU_LOAD_DEP);
		cpu_work(c, 5);
		cpu_ret(c);
	}
	r = (struct result){"mix (1 call, 6 br, 3 mem)", (double)mixes, now_s() - t0,
			    c->now - c0};
	report(&r);

	rc = cpu_sys_check(&s);
	printf("check: %s (checksum %u)\n", rc ? "FAILED" : "ok", sum);
	cpu_sys_free(&s);
	cost_layout_free(&l);
	cost_tables_free(&t);
	return rc ? 1 : 0;
}
