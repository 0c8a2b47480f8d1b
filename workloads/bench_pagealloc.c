/*
 * bench_pagealloc — see bench_pagealloc.h.
 *
 * Design notes.  One world (tables, layout, CPUs, page allocator) is built
 * per run; only the simulated CPU the benchmark runs on is given to the
 * cost model, so the set-up cost does not grow with the machine's CPU
 * count (the page allocator's per-cpu pagesets exist for simulated CPUs
 * only).  The page array is allocated once; the timed loop does no host
 * allocation after the first rounds (the model's detail pool warms up).
 * The scratch array the profile is sorted in is allocated with the page
 * array, before the first run, so an allocation failure is known before
 * any simulation.
 */
#include "workloads/bench_pagealloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cost/cost.h"
#include "cost/cpu.h"
#include "base/diag.h"
#include "base/records.h"
#include "machine/machine.h"
#include "models/page_alloc.h"

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

void bench_pagealloc_opts_default(struct bench_pagealloc_opts *o)
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
	o->cost_model = CPU_MODEL_OOO;          /* numasim run's cost.model default */
	o->accounting = CPU_ACCOUNTING_EXACT;
	struct cpu_params p;
	cpu_params_default(&p);
	o->sample_period = p.sample_period;
	o->sample_warm = p.sample_warm;
	o->sample_window = p.sample_window;
	o->code = MM_CODE_DEFAULT;
	o->progress = NULL;
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
		rc = mm_layout(&b->l, &b->t, b->fn_base, b->site_base, o->variant,
			       mm_code_resolve((enum mm_code)o->code,
					       (enum cpu_model)o->cost_model));
	struct cpu_params p;
	cpu_params_default(&p);
	p.bpred.mode = o->bpred;
	p.model = (enum cpu_model)o->cost_model;
	p.accounting = (enum cpu_accounting)o->accounting;
	p.sample_period = (uint32_t)o->sample_period;
	p.sample_warm = o->sample_warm;
	p.sample_window = (uint32_t)o->sample_window;
	/* one simulated CPU: cpu_sys_init() leaves the coherence directory off */
	/* the message `numasim run` gives at cost.model (scenarios/scenario_sections.c) */
	const char *miss = p.model == CPU_MODEL_OOO ? cpu_ooo_missing(&m->costs) : NULL;
	if (rc == NS_OK && miss)
		return diag_set(d, NS_EINPUT, NULL, 0, 0,
				"--cost-model ooo needs the core figure '%s' in the costs of "
				"machine '%s' (%s; docs/reference/machine-format.md, \"Core figures\")",
				miss, m->name, o->machine);
	if (rc == NS_OK)
		rc = cpu_sys_init(&b->s, m, &b->t, &b->l, &p, &cpu, 1);
	if (rc != NS_OK)
		return diag_set(d, rc, NULL, 0, 0, "cost model set-up failed");
	b->sys_ok = 1;
	struct mm_config cfg;
	mm_config_default(&cfg);
	cfg.iter = o->variant;
	cfg.code = (enum mm_code)o->code;
	return mm_world_create(m, &cfg, &b->s, b->fn_base, b->site_base, &b->w, d);
}

/* One run on a fresh world b (which the caller frees, also on failure). */
static int bench_pagealloc_once(const struct machine *m, const struct bench_pagealloc_opts *o, int cpu,
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
	struct progress_work *work = o->progress ? &o->progress->work : NULL;
	progress_work_start(work, o->pairs);
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
		progress_work_set(work, o->pairs - (long long)left);
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

/* The top rows of the simulated profile; p: scratch for the rows. */
static void print_profile(FILE *out, struct bench_pagealloc_world *b, struct prof_top *p,
			  uint64_t pairs, long long top)
{
	p->n = 0;
	cpu_sys_profile(&b->s, -1, prof_cb, p);
	qsort(p->rows, (size_t)p->n, sizeof p->rows[0], cmp_self);
	fprintf(out, "\n  simulated profile (per pair; self = out-of-line function's own cycles):\n");
	fprintf(out, "  %-26s %8s %10s %10s\n", "function", "calls", "self cyc", "total cyc");
	for (int i = 0; i < p->n && i < top; i++) {
		const struct cpu_profile_row *r = &p->rows[i];
		fprintf(out, "  %-26s %8.2f %10.2f %10.2f%s\n", r->function,
			(double)r->calls / (double)pairs, (double)r->self_cycles / (double)pairs,
			(double)r->total_cycles / (double)pairs, r->inlined ? "  (inlined)" : "");
	}
}

/* The cost model's counters the report gives per pair (text and records). */
static const enum cpu_counter report_ctrs[] = {
	CPU_CTR_calls, CPU_CTR_branches, CPU_CTR_branches_taken, CPU_CTR_branch_mispredict,
	CPU_CTR_work_cycles, CPU_CTR_mem_accesses, CPU_CTR_mem_stall_cycles,
	CPU_CTR_mem_load_dep, CPU_CTR_mem_load, CPU_CTR_mem_store, CPU_CTR_l1d_hit,
	CPU_CTR_l1d_miss, CPU_CTR_l2_miss, CPU_CTR_llc_miss, CPU_CTR_atomic,
	CPU_CTR_lock_acquire, CPU_CTR_irq_save,
};

/* The cost model's counters per pair: where the simulated cycles went. */
static void print_counters(FILE *out, struct bench_pagealloc_world *b, uint64_t pairs)
{
	struct cpu *c = &b->s.cpu[0];
	fprintf(out, "\n  cost model counters per pair:\n");
	for (size_t i = 0; i < sizeof report_ctrs / sizeof report_ctrs[0]; i++)
		fprintf(out, "  %-28s %.2f\n", cpu_counter_name(report_ctrs[i]),
			(double)cpu_counter(c, report_ctrs[i]) / (double)pairs);
	/* the out-of-order core's own counters (zero in-order) */
	static const enum cpu_counter ooo_ids[] = {
		CPU_CTR_uops, CPU_CTR_rob_stall_cycles, CPU_CTR_mispredict_resolve_cycles,
		CPU_CTR_mlp_wait_cycles, CPU_CTR_fence_wait_cycles, CPU_CTR_l2_prefetch,
	};
	for (size_t i = 0; c->ooo && i < sizeof ooo_ids / sizeof ooo_ids[0]; i++)
		fprintf(out, "  %-28s %.2f\n", cpu_counter_name(ooo_ids[i]),
			(double)cpu_counter(c, ooo_ids[i]) / (double)pairs);
}

/*
 * The same report as records: meta (benchmark, machine, variant, ...),
 * table runs (run, host_s, cpu_s, pairs_per_s, pairs_per_cpu_s), results
 * (one row), counters (name, per_pair) and, with --profile N, profile
 * (function, inlined, calls, self_cycles, total_cycles per pair).
 */
static void record_report(struct rec_doc *d, const struct bench_pagealloc_opts *o,
			  const struct machine *m, int cpu,
			  const struct bench_pagealloc_result *res,
			  struct bench_pagealloc_world *b, struct prof_top *p)
{
	double pairs = (double)res[0].pairs;
	char sum[17];
	rec_meta_str(d, "benchmark", "pagealloc");
	rec_meta_str(d, "machine", m->name);
	rec_meta_int(d, "cpu", cpu);
	rec_meta_str(d, "variant", mmzone_iter_name(o->variant));
	rec_meta_str(d, "cost_model", cpu_model_name((enum cpu_model)o->cost_model));
	rec_meta_str(d, "bpred", bpred_mode_name(o->bpred));
	rec_meta_str(d, "accounting", cpu_accounting_name((enum cpu_accounting)o->accounting));
	if (o->accounting == CPU_ACCOUNTING_SAMPLED) {
		rec_meta_int(d, "sample_period", o->sample_period);
		rec_meta_str(d, "sample_warm", cpu_warm_name(o->sample_warm));
		if (o->sample_window)
			rec_meta_int(d, "sample_window", o->sample_window);
	}
	rec_meta_str(d, "code", mm_code_name(o->code != MM_CODE_DEFAULT ? (enum mm_code)o->code
					 : o->cost_model == CPU_MODEL_OOO ? MM_CODE_COMPILED
					 : MM_CODE_ESTIMATE));
	rec_meta_int(d, "order", o->order);
	rec_meta_int(d, "batch", o->batch);
	rec_meta_int(d, "repeat", o->repeat);
	rec_table(d, "runs");
	for (long long r = 0; r < o->repeat; r++) {
		rec_row(d);
		rec_int(d, "run", r + 1);
		rec_num(d, "host_s", res[r].host_s);
		rec_num(d, "cpu_s", res[r].cpu_s);
		rec_num(d, "pairs_per_s", (double)res[r].pairs / res[r].host_s);
		rec_num(d, "pairs_per_cpu_s", (double)res[r].pairs / res[r].cpu_s);
	}
	snprintf(sum, sizeof sum, "%016" PRIx64, res[0].checksum);
	rec_table(d, "results");
	rec_row(d);
	rec_int(d, "pairs", (long long)res[0].pairs);
	rec_num(d, "cycles_per_alloc", (double)res[0].alloc_cycles / pairs);
	rec_num(d, "cycles_per_free", (double)res[0].free_cycles / pairs);
	rec_int(d, "failed", (long long)res[0].failed);
	rec_str(d, "checksum", sum);
	if (o->accounting == CPU_ACCOUNTING_MEMO || o->accounting == CPU_ACCOUNTING_SAMPLED) {
		struct cpu_memo_stats ms;
		cpu_memo_stats(&b->s, &ms);
		rec_int(d, "memo_replayed", (long long)ms.replayed);
		rec_int(d, "memo_exact", (long long)ms.exact);
		rec_int(d, "memo_paths", (long long)ms.paths);
		if (o->accounting == CPU_ACCOUNTING_SAMPLED) {
			rec_int(d, "memo_fast", (long long)ms.fast);
			rec_int(d, "memo_matched", (long long)ms.matched);
			rec_int(d, "memo_lost", (long long)ms.lost);
			rec_int(d, "memo_samples", (long long)ms.samples);
			rec_int(d, "memo_copied", (long long)ms.copied);
		}
	}
	rec_table(d, "counters");
	for (size_t i = 0; i < sizeof report_ctrs / sizeof report_ctrs[0]; i++) {
		rec_row(d);
		rec_str(d, "name", cpu_counter_name(report_ctrs[i]));
		rec_num(d, "per_pair", (double)cpu_counter(&b->s.cpu[0], report_ctrs[i]) / pairs);
	}
	if (!o->profile)
		return;
	p->n = 0;
	cpu_sys_profile(&b->s, -1, prof_cb, p);
	qsort(p->rows, (size_t)p->n, sizeof p->rows[0], cmp_self);
	rec_table(d, "profile");
	for (int i = 0; i < p->n && i < o->profile; i++) {
		const struct cpu_profile_row *r = &p->rows[i];
		rec_row(d);
		rec_str(d, "function", r->function);
		rec_bool(d, "inlined", r->inlined);
		rec_num(d, "calls", (double)r->calls / pairs);
		rec_num(d, "self_cycles", (double)r->self_cycles / pairs);
		rec_num(d, "total_cycles", (double)r->total_cycles / pairs);
	}
}

/* The report of res[0..repeat) on machine m; b is the last run's world. */
static void print_report(FILE *out, const struct bench_pagealloc_opts *o, const struct machine *m,
			 int cpu, const struct bench_pagealloc_result *res,
			 struct bench_pagealloc_world *b, struct prof_top *prof)
{
	struct rusage ru;
	char note[CPU_ACCOUNTING_NOTE];
	getrusage(RUSAGE_SELF, &ru);
	fprintf(out, "# Running 'pagealloc' benchmark:\n"
		"# machine %s (%d nodes, %.1f GiB), CPU %d, variant %s, timing model %s, "
		"%s predictor%s\n"
		"# alloc_pages(GFP_KERNEL|__GFP_NOWARN, %lld) x %lld then __free_pages x %lld, "
		"%lld pairs per run, %lld run%s\n\n",
		m->name, m->nr_nodes,
		(double)machine_mem_pages(m) * m->page_size / (1024.0 * 1024 * 1024), cpu,
		mmzone_iter_name(o->variant), cpu_model_name((enum cpu_model)o->cost_model),
		bpred_mode_name(o->bpred),
		cpu_accounting_note((enum cpu_accounting)o->accounting, (uint32_t)o->sample_period,
				    o->sample_warm, (uint32_t)o->sample_window, note, sizeof note),
		o->order, o->batch,
		o->batch, o->pairs, o->repeat, o->repeat == 1 ? "" : "s");
	for (long long r = 0; r < o->repeat; r++) {
		const struct bench_pagealloc_result *x = &res[r];
		fprintf(out, "  run %-3lld host %.3f s  cpu %.3f s  %.2f M pairs/s  %.2f M pairs/cpu-s\n",
			r + 1, x->host_s, x->cpu_s, (double)x->pairs / x->host_s / 1e6,
			(double)x->pairs / x->cpu_s / 1e6);
	}
	fprintf(out, "\n  %-28s %" PRIu64 "\n", "pairs:", res[0].pairs);
	fprintf(out, "  %-28s %.2f\n", "sim cycles per alloc:",
		(double)res[0].alloc_cycles / (double)res[0].pairs);
	fprintf(out, "  %-28s %.2f\n", "sim cycles per free:",
		(double)res[0].free_cycles / (double)res[0].pairs);
	fprintf(out, "  %-28s %" PRIu64 "\n", "failed allocations:", res[0].failed);
	fprintf(out, "  %-28s %ld KiB\n", "peak RSS:", ru.ru_maxrss);
	fprintf(out, "  %-28s %016" PRIx64 "\n", "checksum:", res[0].checksum);
	if (o->accounting == CPU_ACCOUNTING_MEMO || o->accounting == CPU_ACCOUNTING_SAMPLED) {
		struct cpu_memo_stats ms;
		char line[CPU_MEMO_STATS_LINE];
		cpu_memo_stats(&b->s, &ms);
		cpu_memo_stats_format(&ms, line, sizeof line);
		fprintf(out, "  %-28s %s\n",
			o->accounting == CPU_ACCOUNTING_SAMPLED ? "sampled:" : "memoized paths:", line);
	}
	print_counters(out, b, res[0].pairs);
	if (o->profile)
		print_profile(out, b, prof, res[0].pairs, o->profile);
}

int bench_pagealloc_run(const struct bench_pagealloc_opts *o, FILE *out, struct diag *d)
{
	struct machine *m = NULL;
	/* every machine-file failure is bad input (exit status 2) */
	if (machine_load_file(o->machine, &m, d) != NS_OK)
		return NS_EINPUT;
	int status = NS_OK;
	struct page **pages = NULL;
	struct prof_top *prof = NULL;
	struct bench_pagealloc_result *res = calloc((size_t)o->repeat, sizeof *res);
	int cpu = (int)o->cpu;
	if (cpu < 0) {
		for (cpu = 0; cpu <= m->max_cpu && m->cpu_node[cpu] < 0; cpu++)
			;
	}
	if (cpu > m->max_cpu || m->cpu_node[cpu] < 0) {
		status = diag_set(d, NS_EUSAGE, NULL, 0, 0, "machine %s has no CPU %d", m->name,
				  (int)o->cpu);
		goto out;
	}
	pages = malloc((size_t)o->batch * sizeof *pages);
	prof = malloc(sizeof *prof);
	if (!pages || !res || !prof) {
		status = diag_set(d, NS_ENOMEM, "numasim bench", 0, 0, "%s",
				  ns_status_msg(NS_ENOMEM));
		goto out;
	}
	struct bench_pagealloc_world b;
	for (long long r = 0; r < o->repeat; r++) {
		int rc = bench_pagealloc_once(m, o, cpu, pages, &res[r], &b, d);
		if (rc != NS_OK) {
			bench_pagealloc_world_free(&b);
			status = rc;
			goto out;
		}
		if (res[r].checksum != res[0].checksum || res[r].alloc_cycles != res[0].alloc_cycles) {
			bench_pagealloc_world_free(&b);
			status = diag_set(d, NS_EINTERNAL, "numasim bench", 0, 0,
					  "run %lld differs from run 1: the model is not deterministic",
					  r + 1);
			goto out;
		}
		progress_plan_run_done(o->progress);
		if (r + 1 < o->repeat)
			bench_pagealloc_world_free(&b);
	}
	if (o->doc)
		record_report(o->doc, o, m, cpu, res, &b, prof);
	else
		print_report(out, o, m, cpu, res, &b, prof);
	bench_pagealloc_world_free(&b);
out:
	free(prof);
	free(pages);
	free(res);
	machine_free(m);
	return status;
}
