/*
 * workload — the table of workloads: everything the scenario language
 * (scenarios/scenario.c), the run plans (scenarios/run.c) and the command
 * line know of a workload goes through one `struct workload_ops` per
 * workload, found by name in WORKLOAD_TABLE.  Adding a workload is one
 * file (workloads/wl_NAME.c defining wl_NAME_ops) plus one line in
 * WORKLOAD_TABLE below (workloads/meson.build finds the file from that
 * line); docs/guide/workloads.md shows the diff of a trivial one.
 *
 * What it models: the experiment's driver, not the kernel.  A workload
 * reads its section of a scenario file (`workload:`, docs/scenario-
 * format.md) into a parameter block of its own, checks it, lists it as a
 * run's parameters, runs on a world the run plan built (the page
 * allocator, plus SLUB when `slub`, plus reclaim when `reclaim`) and
 * writes its results into the store.
 *
 * Invariants: every table entry has a name, fields, adhoc, parse,
 * params, run and results (check, kernel_model, label_knob, set_inner,
 * params_free, setup and result_free may be NULL); names are distinct; WORKLOAD_TABLE's order is the order of the
 * scenario keys (`numasim list keys`) and of SCN_WL_* (scenarios/
 * scenario.h).
 *
 * Error policy: parse reports problems of the scenario file as NS_EINPUT
 * at the offending node (wl_err: file:line:col, a command-line value's
 * tree for --set and --sweep); check returns NS_EINTERNAL on a broken
 * parameter block; run returns NS_OK, WL_STOPPED (interrupted) or an
 * error with the diag set; results return the store's status.
 */
#ifndef NUMASIM_WORKLOAD_H
#define NUMASIM_WORKLOAD_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/ytree.h"
#include "machine/machine.h"

struct noise_params;

/* The workloads, in the order of the scenario keys: X(name, NAME), the
 * file workloads/wl_name.c defining wl_name_ops. */
#define WORKLOAD_TABLE(X)                                                      \
	X(pagealloc, PAGEALLOC)                                                \
	X(messaging, MESSAGING)                                                \
	X(parallel, PARALLEL)                                                  \
	X(fill, FILL)                                                          \
	X(replay, REPLAY)                                                      \
	/* one line per workload above this one: X(name, NAME) */

#define WL_STOPPED 1                      /* interrupted by *stop */
#define SCN_MAX_ORDER 11          /* MAX_ORDER of x86_64 v4.6: orders 0..10 */

struct cpu_sys;
struct cache_as;
struct mm_world;
struct slub_world;
struct slub_cache;
struct store;
struct progress_work;

/*
 * What a workload's parse reads: its section's fields through the
 * scenario loader (settings, sweeps, --set applied), the tree each node
 * belongs to (for positions), and the point's machine and policy.cpus.
 * What it writes: its parameter block, the placement (cpus, at least one
 * machine CPU) and whether the point runs the reclaim model.
 */
struct wl_reader {
	void *ctx;
	struct diag *d;
	const char *file;                 /* the scenario's name (nomem) */
	const struct ytree *(*tree_of)(void *ctx, const struct ynode *n);
	/* section `workload:` n (NULL: absent): ytree_fields with the
	 * settings "workload.KEY" applied, required keys checked */
	int (*fields)(void *ctx, const struct ynode *n, const char *what,
		      const struct ytree_field *f, size_t nr, const struct ynode **v);
};

struct wl_point {
	const struct machine *machine;
	int sched_v59;                    /* in: sched.placement v5.9 */
	int *nr_cpus;                     /* in: policy.cpus (0: none) */
	int **cpus;                       /* out: the placement (malloc'ed) */
	int *reclaim;                     /* out: 1 runs the reclaim model */
	void *params;                     /* out: the parameter block (malloc'ed) */
};

/* The world a run built for the workload, and the run's identity. */
struct wl_run {
	struct mm_world *w;
	struct slub_world *sw;            /* SLUB (ops->slub), else NULL */
	struct slub_cache *skb, *data;    /* the messaging caches (ops->setup) */
	struct cache_as *as;              /* shared by the allocators (ops->slub) */
	struct cpu_sys *sys;
	const void *params;
	int sched_v59;                    /* sched.placement v5.9 */
	uint64_t seed;
	const struct noise_params *noise; /* the point's noise sources (cost/noise.h) */
	const volatile sig_atomic_t *stop;
	struct progress_work *work;
	const char *path, *label;         /* for messages: scenario, point */
	long long rep;
	struct diag *d;
};

/* A run's parameters: key, text or (text NULL) num; non-zero stops. */
typedef int (*wl_param_fn)(void *arg, const char *key, const char *text,
			   long long num);

enum wl_event {                         /* what `numasim trace` may show */
	WL_EV_SLAB_FREE = 1,
	WL_EV_PAGE_ALLOC = 2,
	WL_EV_PAGE_FREE = 4,
	WL_EV_ALL = 7,
};

enum wl_report {                        /* what `numasim run` prints */
	WL_REPORT_TABLE,                  /* the pagealloc table */
	WL_REPORT_MESSAGING,              /* the messaging report */
	WL_REPORT_COMPARE,                /* the metrics compared by point */
	WL_REPORT_FILL,                   /* fill's per-run summary
					   * (analysis/fill_report.h) */
};

struct workload_ops {
	const char *name;                 /* workload.type */
	const struct ytree_field *fields; /* the keys of its section */
	int nr_fields;
	const char *adhoc;                /* the section of `--workload NAME` */
	int slub;                         /* runs SLUB over the page allocator */
	int reclaim;                      /* may run the reclaim model */
	int accounting;                   /* cost.accounting when absent */
	int noise;                        /* delivers noise.ticks and noise.pollution
					   * (cost/noise.h); noise.page_placement
					   * is the world's and holds for all */
	const char *label_knob;           /* the kernel knob naming a point
					   * (NULL: zonelist_iter) */
	enum wl_report report;
	unsigned events;                  /* enum wl_event: the trace events */
	/* the kernel the point models: "v4.6+patches1-4+682a3385", ...
	 * (NULL: the page allocator's, "v4.6+patches1-4[+682a3385]") */
	const char *(*kernel_model)(int iter_post, int slub_post);
	int (*parse)(const struct wl_reader *r, const struct ynode *n,
		     struct wl_point *pt);
	/* NS_EINTERNAL on a broken block (NULL: nothing to check) */
	int (*check)(const void *params, const struct machine *m, int nr_cpus,
		     const int *cpus, const char *path, struct diag *d);
	int (*params)(const void *params, wl_param_fn fn, void *arg);
	void (*params_free)(void *params);    /* NULL: free() */
	/* numasim run --inner (NULL: not applicable), and the default it is
	 * compared with (run warns below it) */
	void (*set_inner)(void *params, uint32_t inner);
	uint32_t inner_default;
	/* after the world is built, before the run (NULL: nothing): the
	 * workload's own objects, r->skb and r->data (SLUB caches) */
	int (*setup)(struct wl_run *r);
	int (*run)(const struct wl_run *r, void **result);
	int (*results)(const void *result, const struct wl_run *r,
		       struct store *st, int64_t id);
	void (*result_free)(void *result);
};

#define WL_OPS_DECLARE(name, NAME) extern const struct workload_ops wl_##name##_ops;
WORKLOAD_TABLE(WL_OPS_DECLARE)
#undef WL_OPS_DECLARE

/* The table, in WORKLOAD_TABLE's order, and its size. */
extern const struct workload_ops *const workload_table[];
extern const int workload_count;

/* The workload of that name, or NULL; its index in *index (may be NULL). */
const struct workload_ops *workload_find(const char *name, int *index);
/* "pagealloc, messaging, parallel, fill" into buf. */
void workload_names(char *buf, size_t len);

/* ---- helpers of the workloads' parse (workload.c) ---- */

int wl_err(const struct wl_reader *r, const struct ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int wl_nomem(const struct wl_reader *r);
const struct ytree *wl_tree(const struct wl_reader *r, const struct ynode *n);
int wl_get_u32(const struct wl_reader *r, const struct ynode *n, const char *what,
	       long long min, long long max, uint32_t *out);
int wl_get_frac(const struct wl_reader *r, const struct ynode *n, const char *what,
		double min, double max, double *out);
/* A list of distinct orders 0..max_order-1, or one integer. */
int wl_get_orders(const struct wl_reader *r, const struct ynode *n, int max_order,
		  unsigned *orders, int *nr_orders);
/* A gfp mask as the kernel writes it; n NULL keeps *text (reported at sec). */
int wl_get_gfp(const struct wl_reader *r, const struct ynode *n, const struct ynode *sec,
	       const char **text, uint32_t *gfp);
/* Every CPU of the machine as the placement. */
int wl_all_cpus(const struct wl_reader *r, struct wl_point *pt);
/* "0,1,2" of n unsigned (u) or uint32_t (b) values. */
void wl_list_text(const unsigned *u, const uint32_t *b, int n, char *buf, size_t len);

/* ---- helpers of the workloads' check, run and results (workload.c) ---- */

/* In a check (ops->check, whose arguments are named path and d): a broken
 * parameter block is NS_EINTERNAL with the message. */
#define WL_CHECK(cond, ...)                                                    \
	do {                                                                   \
		if (!(cond))                                                   \
			return diag_set(d, NS_EINTERNAL, path, 0, 0, __VA_ARGS__); \
	} while (0)

/* A run's result block of size bytes, zeroed, in *result (which the plan
 * frees with ops->result_free, or free()); NULL with the diag set and
 * *result unchanged. */
void *wl_result_alloc(const struct wl_run *r, size_t size, void **result);
/* What ops->run returns after its workload returned rc: WL_STOPPED when it
 * was interrupted, the error with the point and repetition named, or NS_OK. */
int wl_run_status(const struct wl_run *r, int rc, int stopped);

/* One metric row of a run (store_metric()). */
struct wl_metric {
	const char *name, *unit;
	double v;
};
/* Store n metric rows in order; the store's status. */
int wl_store_metrics(struct store *st, int64_t id, const struct wl_metric *rows, size_t n);
#define WL_NR(rows) (sizeof(rows) / sizeof((rows)[0]))

#endif
