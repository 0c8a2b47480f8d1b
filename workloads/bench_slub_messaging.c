/*
 * bench_slub_messaging — see bench_slub_messaging.h.
 *
 * Design notes.  One world per benchmark: cost tables with the page
 * allocator and SLUB registered, one layout, simulated CPUs, the page
 * allocator and SLUB sharing one address space, the kmalloc caches and
 * skbuff_head_cache — the same construction as a messaging run of
 * `numasim run`.  Host time is CLOCK_MONOTONIC around the measured loop
 * only (world set-up excluded), CPU time the process's over the same span.
 * With --repeat R every run builds its world afresh and must simulate
 * exactly what the first did (the simulation is deterministic; a
 * difference is reported as an internal error), so the spread of the
 * host rates is the host's, not the model's.
 */
#include "workloads/bench_slub_messaging.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cost/cost.h"
#include "cost/cpu.h"
#include "base/diag.h"
#include "base/records.h"
#include "machine/machine.h"
#include "models/page_alloc.h"
#include "models/slub.h"
#include "analysis/stats.h"
#include "workloads/wl_messaging.h"

#define DEFAULT_MACHINE "configs/skylake-2s.yaml"

struct bench_slub_world {
	struct machine *m;
	struct cost_tables t;
	struct cost_layout l;
	struct cpu_sys s;
	struct cache_as as;
	int have_t, have_l, have_s;
	struct mm_world *pa;
	struct slub_world *w;
	struct slub_cache *skb, *k512;
};

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Host time of one measured span. */
struct span {
	double wall0, cpu0, wall, cpu;
};

static void span_start(struct span *t)
{
	t->wall0 = clock_s(CLOCK_MONOTONIC);
	t->cpu0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

static void span_stop(struct span *t)
{
	t->wall = clock_s(CLOCK_MONOTONIC) - t->wall0;
	t->cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - t->cpu0;
}

/*
 * With more than one run: each run's rate per host second and per CPU
 * second, then min/median/max of both (items: what is counted, in
 * millions).  rate[] and cpu[] (repeat entries each) are scratch.
 */
static void print_spread(FILE *out, const char *items, uint64_t n, const struct span *t,
			 long long repeat, double *rate, double *cpu)
{
	double rs[3], cs[3];
	for (long long r = 0; r < repeat; r++) {
		rate[r] = (double)n / t[r].wall / 1e6;
		cpu[r] = (double)n / t[r].cpu / 1e6;
		fprintf(out, "run %lld: %" PRIu64 " %s in %.3f s: %.3f M %s/s (host), %.3f M %s "
			"per CPU second\n", r + 1, n, items, t[r].wall, rate[r], items,
			cpu[r], items);
	}
	stats_spread(rate, (size_t)repeat, rs);
	stats_spread(cpu, (size_t)repeat, cs);
	fprintf(out, "M %s/s (host) over %lld runs: min %.3f  median %.3f  max %.3f\n", items,
		repeat, rs[0], rs[1], rs[2]);
	fprintf(out, "M %s per CPU second: min %.3f  median %.3f  max %.3f\n", items, cs[0],
		cs[1], cs[2]);
}

/* The runs of a benchmark as table runs of d (items: "pairs", ...). */
static void record_runs(struct rec_doc *d, const char *items, uint64_t n,
			const struct span *t, long long repeat)
{
	char k1[48], k2[48];
	snprintf(k1, sizeof k1, "%s_per_s", items);
	snprintf(k2, sizeof k2, "%s_per_cpu_s", items);
	rec_table(d, "runs");
	for (long long r = 0; r < repeat; r++) {
		rec_row(d);
		rec_int(d, "run", r + 1);
		rec_num(d, "host_s", t[r].wall);
		rec_num(d, "cpu_s", t[r].cpu);
		rec_num(d, k1, (double)n / t[r].wall);
		rec_num(d, k2, (double)n / t[r].cpu);
	}
}

static void bench_slub_free(struct bench_slub_world *b)
{
	slub_world_destroy(b->w);
	mm_world_destroy(b->pa);
	if (b->have_s)
		cpu_sys_free(&b->s);
	if (b->have_l)
		cost_layout_free(&b->l);
	if (b->have_t)
		cost_tables_free(&b->t);
	machine_free(b->m);
}

/* How the CPUs of a world account (--accounting, --sample-period,
 * --sample-warm, --sample-window). */
struct bench_acct {
	enum cpu_accounting mode;
	uint32_t period;
	enum cpu_warm warm;
	uint32_t window;
};

/* The world over every CPU of the machine (all = 1) or its first CPU of
 * each of the first two nodes, its CPUs accounting as acc says. */
static int bench_slub_setup(struct bench_slub_world *b, const char *machine, enum slub_variant v, int all,
		    const struct bench_acct *acc, struct diag *d)
{
	struct slub_config sc;
	struct mm_config pc;
	struct cpu_params cp;
	int mm_fn, mm_site, sl_fn, sl_site, n = 0, rc;

	if ((rc = machine_load_file(machine, &b->m, d)))
		return rc;
	cache_as_init(&b->as);
	slub_config_default(&sc);
	sc.variant = v;
	sc.as = &b->as;
	mm_config_default(&pc);
	pc.as = &b->as;
	cost_tables_init(&b->t);
	b->have_t = 1;
	if ((rc = mm_register(&b->t, &mm_fn, &mm_site)) ||
	    (rc = slub_register(&b->t, &sl_fn, &sl_site)))
		return diag_set(d, rc, machine, 0, 0, "cannot register the models");
	if ((rc = cost_layout_init(&b->l, &b->t, slub_variant_name(v))))
		return diag_set(d, rc, machine, 0, 0, "out of memory");
	b->have_l = 1;
	cpu_params_default(&cp);
	cp.accounting = acc->mode;
	cp.sample_period = acc->period;
	cp.sample_warm = acc->warm;
	cp.sample_window = acc->window;
	if ((rc = mm_layout(&b->l, &b->t, mm_fn, mm_site, pc.iter,
			    mm_code_resolve(pc.code, cp.model))) ||
	    (rc = slub_layout(&b->l, &b->t, sl_fn, sl_site, &sc)))
		return diag_set(d, rc, machine, 0, 0, "cannot lay out the models");
	int *cpus = calloc((size_t)b->m->nr_cpus + 1, sizeof *cpus);
	if (!cpus)
		return diag_set(d, NS_ENOMEM, machine, 0, 0, "out of memory");
	for (int p = 0; p < b->m->nr_nodes && (all || n < 2); p++)
		for (int k = 0; k < b->m->nodes[p].nr_cpus && (all || k < 1); k++)
			cpus[n++] = b->m->nodes[p].cpus[k];
	rc = n ? cpu_sys_init(&b->s, b->m, &b->t, &b->l, &cp, cpus, n) : NS_EINPUT;
	free(cpus);
	if (rc)
		return diag_set(d, rc, machine, 0, 0, "cannot simulate the machine's CPUs");
	b->have_s = 1;
	if ((rc = mm_world_create(b->m, &pc, &b->s, mm_fn, mm_site, &b->pa, d)) ||
	    (rc = slub_world_create(b->m, &sc, &b->s, b->pa, sl_fn, sl_site, &b->w, d)) ||
	    (rc = slub_kmalloc_create(b->w, d)) ||
	    (rc = slub_cache_create(b->w, "skbuff_head_cache", WL_MSG_SKB_HEAD, 0,
				    SLUB_HWCACHE_ALIGN | SLUB_PANIC, &b->skb, d)))
		return diag_set(d, rc, machine, 0, 0, "cannot set up the models");
	b->k512 = slub_kmalloc_cache(b->w, WL_MSG_DATA_ALLOC);
	return b->k512 ? NS_OK : diag_set(d, NS_EINTERNAL, machine, 0, 0, "no kmalloc-512");
}

static int bench_slub_check(struct bench_slub_world *b, struct diag *d)
{
	int rc = slub_check(b->w, d);
	return rc ? rc : mm_check(b->pa, d);
}

void bench_slub_opts_default(struct bench_slub_opts *o)
{
	o->machine = DEFAULT_MACHINE;
	o->pairs = 5000000;
	o->batch = 64;
	o->repeat = 1;
	o->local_free = false;
	o->variant = SLUB_PRE;
	o->accounting = CPU_ACCOUNTING_EXACT;
	struct cpu_params p;
	cpu_params_default(&p);
	o->sample_period = p.sample_period;
	o->sample_warm = p.sample_warm;
	o->sample_window = p.sample_window;
	o->progress = NULL;
}

void bench_messaging_opts_default(struct bench_messaging_opts *o)
{
	o->machine = DEFAULT_MACHINE;
	o->groups = 20;
	o->loops = 50;
	o->seed = 1;
	o->repeat = 1;
	o->variant = SLUB_PRE;
	o->placement_v59 = false;
	o->accounting = CPU_ACCOUNTING_EXACT;
	struct cpu_params p;
	cpu_params_default(&p);
	o->sample_period = p.sample_period;
	o->sample_warm = p.sample_warm;
	o->sample_window = p.sample_window;
	o->progress = NULL;
}

/* The accounting of the options' worlds. */
static struct bench_acct bench_acct(int accounting, long long period, enum cpu_warm warm,
				    long long window)
{
	return (struct bench_acct){(enum cpu_accounting)accounting, (uint32_t)period, warm,
				   (uint32_t)window};
}

/* The meta fields of the accounting (--format json|csv): accounting, and
 * under sampled sample_period, sample_warm and (when not 0)
 * sample_window. */
static void record_acct(struct rec_doc *dd, const struct bench_acct *a)
{
	rec_meta_str(dd, "accounting", cpu_accounting_name(a->mode));
	if (a->mode != CPU_ACCOUNTING_SAMPLED)
		return;
	rec_meta_int(dd, "sample_period", a->period);
	rec_meta_str(dd, "sample_warm", cpu_warm_name(a->warm));
	if (a->window)
		rec_meta_int(dd, "sample_window", a->window);
}

/* The path statistics line of a memo or sampled run. */
static void print_memo(FILE *out, int accounting, const struct cpu_memo_stats *st)
{
	char line[CPU_MEMO_STATS_LINE];
	if (accounting != CPU_ACCOUNTING_MEMO && accounting != CPU_ACCOUNTING_SAMPLED)
		return;
	cpu_memo_stats_format(st, line, sizeof line);
	fprintf(out, "%s: %s\n", accounting == CPU_ACCOUNTING_SAMPLED ? "sampled" : "memoized paths",
		line);
}

/* What one bench slub run simulated (the host time is in a span). */
struct slub_run {
	uint64_t done, cycles, failed;
	int cpu_alloc, cpu_free;
	struct cpu_memo_stats memo;
};

static int slub_once(const char *machine, enum slub_variant v, const struct bench_acct *acc,
		     long long pairs, long long batch, bool local, struct progress_work *work,
		     char *name, size_t name_len, struct slub_run *o, struct span *t,
		     struct diag *d)
{
	struct bench_slub_world b = {0};
	slub_obj_t *objs = NULL;
	int rc = bench_slub_setup(&b, machine, v, 0, acc, d);
	objs = calloc((size_t)batch, sizeof *objs);
	if (rc == NS_OK && !objs)
		rc = diag_set(d, NS_ENOMEM, "bench slub", 0, 0, "out of memory");
	if (rc)
		goto out;
	struct cpu *ca = &b.s.cpu[0], *cf = local ? ca : &b.s.cpu[b.s.nr_cpus - 1];
	uint64_t done = 0, c0 = ca->now + cf->now, failed = 0;
	progress_work_start(work, pairs);
	span_start(t);
	while (done < (uint64_t)pairs && rc == NS_OK) {
		uint64_t n = (uint64_t)pairs - done < (uint64_t)batch ? (uint64_t)pairs - done
								    : (uint64_t)batch;
		for (uint64_t i = 0; i < n; i++) {
			objs[i] = slub_alloc(b.w, ca, b.k512, SLUB_NUMA_NO_NODE);
			failed += objs[i] == 0;
		}
		cpu_advance_to(cf, ca->now);
		for (uint64_t i = 0; i < n && rc == NS_OK; i++)
			if (objs[i])
				rc = slub_free(b.w, cf, b.k512, objs[i]);
		cpu_advance_to(ca, cf->now);
		done += n;
		progress_work_set(work, (long long)done);
	}
	span_stop(t);
	if (rc)
		rc = diag_set(d, rc, "bench slub", 0, 0, "the model failed: %s", ns_status_msg(rc));
	if (rc == NS_OK)
		rc = bench_slub_check(&b, d);
	o->done = done;
	o->cycles = local ? ca->now - ca->ctr[CPU_CTR_idle_cycles] - c0 / 2
			  : ca->now + cf->now - c0 - ca->ctr[CPU_CTR_idle_cycles] -
				    cf->ctr[CPU_CTR_idle_cycles];
	o->failed = failed;
	o->cpu_alloc = ca->id;
	o->cpu_free = cf->id;
	cpu_memo_stats(&b.s, &o->memo);
	snprintf(name, name_len, "%s", b.m->name);
out:
	free(objs);
	bench_slub_free(&b);
	return rc;
}

int bench_slub_run(const struct bench_slub_opts *opt, FILE *out, struct diag *d)
{
	char name[256] = "";
	long long repeat = opt->repeat;
	struct slub_run o[2] = {0};
	const struct bench_acct acc = bench_acct(opt->accounting, opt->sample_period,
						 opt->sample_warm, opt->sample_window);
	char note[CPU_ACCOUNTING_NOTE];
	struct span *t = calloc((size_t)repeat, sizeof *t);
	double *rate = calloc(2 * (size_t)repeat, sizeof *rate);
	int rc = t && rate ? NS_OK : diag_set(d, NS_ENOMEM, "bench slub", 0, 0, "out of memory");
	for (long long r = 0; r < repeat && rc == NS_OK; r++) {
		struct slub_run *x = &o[r > 0];
		rc = slub_once(opt->machine, opt->variant, &acc, opt->pairs, opt->batch, opt->local_free,
			       opt->progress ? &opt->progress->work : NULL, name, sizeof name,
			       x, &t[r], d);
		progress_plan_run_done(opt->progress);
		if (rc == NS_OK && r > 0 &&
		    (x->cycles != o[0].cycles || x->failed != o[0].failed || x->done != o[0].done))
			rc = diag_set(d, NS_EINTERNAL, "bench slub", 0, 0,
				      "run %lld simulated other cycles than run 1", r + 1);
	}
	if (rc)
		goto out;
	if (opt->doc) {
		struct rec_doc *dd = opt->doc;
		rec_meta_str(dd, "benchmark", "slub");
		rec_meta_str(dd, "machine", name);
		rec_meta_str(dd, "variant", slub_variant_name(opt->variant));
		rec_meta_str(dd, "free", opt->local_free ? "local" : "remote");
		record_acct(dd, &acc);
		rec_meta_int(dd, "cpu_alloc", o[0].cpu_alloc);
		rec_meta_int(dd, "cpu_free", o[0].cpu_free);
		rec_meta_int(dd, "repeat", repeat);
		record_runs(dd, "pairs", o[0].done, t, repeat);
		rec_table(dd, "results");
		rec_row(dd);
		rec_int(dd, "pairs", (long long)o[0].done);
		rec_num(dd, "cycles_per_pair",
			(double)o[0].cycles / (double)(o[0].done ? o[0].done : 1));
		rec_int(dd, "failed", (long long)o[0].failed);
		goto out;
	}
	fprintf(out, "# Running 'slub' benchmark: kmalloc-512 alloc on CPU %d, free on CPU %d "
		"(%s, %s%s)\n", o[0].cpu_alloc, o[0].cpu_free, name, slub_variant_name(opt->variant),
		cpu_accounting_note(acc.mode, acc.period, acc.warm, acc.window, note,
				    sizeof note));
	if (repeat == 1)
		fprintf(out, "%" PRIu64 " pairs in %.3f s: %.3f M pairs/s (host)\n", o[0].done,
			t[0].wall, (double)o[0].done / t[0].wall / 1e6);
	else
		print_spread(out, "pairs", o[0].done, t, repeat, rate, rate + repeat);
	fprintf(out, "simulated: %.1f cycles per pair (%s, idle excluded), %" PRIu64
		" failed allocations%s\n",
		(double)o[0].cycles / (double)(o[0].done ? o[0].done : 1),
		opt->local_free ? "one CPU" : "both CPUs", o[0].failed,
		repeat > 1 ? ", the same in every run" : "");
	print_memo(out, opt->accounting, &o[0].memo);
out:
	free(t);
	free(rate);
	return rc;
}

/* One bench messaging run on a fresh world; name: the machine's. */
static int msg_once(const char *machine, enum slub_variant v, const struct bench_acct *acc,
		    const struct wl_msg_params *p, uint64_t seed, struct progress_work *work,
		    char *name, size_t name_len, int *nr_cpus, struct wl_msg_result *r,
		    struct cpu_memo_stats *memo, struct span *t, struct diag *d)
{
	struct bench_slub_world b = {0};
	struct wl_msg_params q = *p;
	int rc = bench_slub_setup(&b, machine, v, 1, acc, d);
	if (rc)
		goto out;
	/* v5.9 placement charges the task state's lines in the world's
	 * address space; placement none does not use one */
	if (q.placement)
		q.as = &b.as;
	span_start(t);
	rc = wl_messaging_run(b.w, &b.s, b.skb, b.k512, &q, seed, NULL, work, r);
	span_stop(t);
	if (rc)
		rc = diag_set(d, rc, "bench messaging", 0, 0, "the workload failed: %s",
			      ns_status_msg(rc));
	if (rc == NS_OK)
		rc = bench_slub_check(&b, d);
	*nr_cpus = b.s.nr_cpus;
	cpu_memo_stats(&b.s, memo);
	snprintf(name, name_len, "%s", b.m->name);
out:
	bench_slub_free(&b);
	return rc;
}

/* Two runs simulated the same thing. */
static bool same_msg_result(const struct wl_msg_result *a, const struct wl_msg_result *b)
{
	return a->total_time_s == b->total_time_s && a->messages == b->messages &&
	       a->events == b->events && a->ctx_switches == b->ctx_switches &&
	       a->preemptions == b->preemptions;
}

int bench_messaging_run(const struct bench_messaging_opts *o, FILE *out, struct diag *d)
{
	struct wl_msg_params p;
	struct wl_msg_result r[2];
	struct cpu_memo_stats memo;
	const struct bench_acct acc = bench_acct(o->accounting, o->sample_period, o->sample_warm,
						 o->sample_window);
	char name[256] = "", note[CPU_ACCOUNTING_NOTE];
	int nr_cpus = 0;
	long long repeat = o->repeat;
	wl_msg_params_default(&p);
	p.groups = (uint32_t)o->groups;
	p.loops = (uint64_t)o->loops;
	p.placement = o->placement_v59;
	struct span *t = calloc((size_t)repeat, sizeof *t);
	double *rate = calloc(2 * (size_t)repeat, sizeof *rate);
	int rc = t && rate ? NS_OK
			   : diag_set(d, NS_ENOMEM, "bench messaging", 0, 0, "out of memory");
	for (long long k = 0; k < repeat && rc == NS_OK; k++) {
		rc = msg_once(o->machine, o->variant, &acc, &p, (uint64_t)o->seed,
			      o->progress ? &o->progress->work : NULL, name, sizeof name,
			      &nr_cpus, &r[k > 0], &memo, &t[k], d);
		progress_plan_run_done(o->progress);
		if (rc == NS_OK && k > 0 && !same_msg_result(&r[0], &r[1]))
			rc = diag_set(d, NS_EINTERNAL, "bench messaging", 0, 0,
				      "run %lld simulated another schedule than run 1", k + 1);
	}
	if (rc)
		goto out;
	if (o->doc) {
		struct rec_doc *dd = o->doc;
		rec_meta_str(dd, "benchmark", "messaging");
		rec_meta_str(dd, "machine", name);
		rec_meta_str(dd, "variant", slub_variant_name(o->variant));
		rec_meta_str(dd, "placement", o->placement_v59 ? "v5.9" : "none");
		record_acct(dd, &acc);
		rec_meta_int(dd, "groups", o->groups);
		rec_meta_int(dd, "loops", o->loops);
		rec_meta_int(dd, "cpus", nr_cpus);
		rec_meta_int(dd, "seed", o->seed);
		rec_meta_int(dd, "repeat", repeat);
		record_runs(dd, "messages", r[0].messages, t, repeat);
		rec_table(dd, "results");
		rec_row(dd);
		rec_num(dd, "total_time_s", r[0].total_time_s);
		rec_int(dd, "messages", (long long)r[0].messages);
		rec_int(dd, "events", (long long)r[0].events);
		rec_int(dd, "ctx_switches", (long long)r[0].ctx_switches);
		rec_int(dd, "preemptions", (long long)r[0].preemptions);
		rec_int(dd, "wake_preemptions", (long long)r[0].wake_preemptions);
		rec_int(dd, "sender_blocks", (long long)r[0].sender_blocks);
		rec_int(dd, "receiver_blocks", (long long)r[0].receiver_blocks);
		goto out;
	}
	fprintf(out, "# Running 'sched/messaging' benchmark: %lld groups, %lld loops, %d CPUs "
		"(%s, %s, placement %s%s)\n", o->groups, o->loops, nr_cpus, name,
		slub_variant_name(o->variant), o->placement_v59 ? "v5.9" : "none",
		cpu_accounting_note(acc.mode, acc.period, acc.warm, acc.window, note,
				    sizeof note));
	fprintf(out, "Total time: %.6f [sec] (simulated)\n", r[0].total_time_s);
	if (repeat == 1)
		fprintf(out, "%" PRIu64 " messages in %.3f s: %.3f M messages/s (host), %" PRIu64
			" events\n", r[0].messages, t[0].wall,
			(double)r[0].messages / t[0].wall / 1e6, r[0].events);
	else
		print_spread(out, "messages", r[0].messages, t, repeat, rate, rate + repeat);
	if (repeat > 1)
		fprintf(out, "%" PRIu64 " events per run\n", r[0].events);
	fprintf(out, "scheduler: %" PRIu64 " context switches, %" PRIu64 " preemptions (%" PRIu64
		" by wake-up), %" PRIu64 " sender and %" PRIu64 " receiver blocks%s\n",
		r[0].ctx_switches, r[0].preemptions, r[0].wake_preemptions, r[0].sender_blocks,
		r[0].receiver_blocks, repeat > 1 ? "; the same in every run" : "");
	print_memo(out, o->accounting, &memo);
out:
	free(t);
	free(rate);
	return rc;
}
