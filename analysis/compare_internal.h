/*
 * compare_internal.h — what analysis/compare.c (loading, the table, the
 * records) and analysis/compare_runs.c (groups from what differs, the
 * column heads, differences and the 2x2 interaction over runs) share;
 * private to analysis/.
 *
 * Invariants (compare_check): groups are unique by value (by value and
 * parameter list while what-differs groups are being loaded); per metric
 * and group, obs.nr <= obs.n (one value per run, each run at least one
 * observation); groups past nr_groups hold no observations.
 */
#ifndef NUMASIM_COMPARE_INTERNAL_H
#define NUMASIM_COMPARE_INTERNAL_H

#include <stdio.h>

#include "analysis/compare.h"
#include "analysis/stats.h"
#include "analysis/table.h"

struct obs {
	size_t n, cap;
	double *v;         /* every observation (a series' samples) */
	size_t nr, rcap;
	double *rv;        /* one value per run: the inference's data */
};

struct group {
	char *value;
	char *model;       /* the group's kernel model, "" when mixed */
	char *kv;          /* what-differs grouping: the runs' parameters,
			      "key=value" joined by '\x1f'; NULL otherwise */
	char head[TABLE_HEAD_MAX];
	size_t vlen;       /* value's length before the what-differs keys */
	char *suffix;      /* the what-differs keys for the head, by their last
			      component (",inner_iterations=10"); NULL: none */
	long long nr_runs;
	long long seed0;   /* the first run's seed */
	int seeds_differ;  /* some run has another seed */
};

struct metric {
	char *name;
	char *unit;
	struct obs *obs;   /* [cap_groups] */
};

/* A loaded run's place in its plan, across databases. */
struct run_ident {
	char *ident;       /* scenario hash, machine hash, version, point, repetition */
	long long run_id;
	int db;            /* index of its database in load order */
	const char *dbname;
};

struct compare {
	struct compare_opts o;
	const char *origin;
	struct diag *d;
	int nr_groups, cap_groups;
	struct group *groups;
	int nr_metrics, cap_metrics;
	struct metric *metrics;
	long long nr_runs;
	int differs;       /* no --by: group by what differs between runs */
	int refused;       /* compare_load refused to pool a plan stored twice */
	int pooled;        /* ... or pooled it (opts.pool) */
	struct run_ident *idents;   /* every loaded run, for check_ident */
	size_t nr_idents, cap_idents;
	int nr_dbs;        /* databases loaded */
	char *warn;        /* warnings of compare_load, printed by compare_print */
	size_t warn_len;
	FILE *warn_f;
	/* per database being loaded: run_id -> group */
	long long *run_ids;
	int *run_group;
	size_t nr_map;
};

/* NS_ENOMEM with "out of memory" for c's origin. */
int compare_oom(struct compare *c);
/* Append an observation / one run's value; NS_ENOMEM. */
int compare_obs_add(struct obs *o, double v);
int compare_obs_run_add(struct obs *o, double v);
/* Whether every run of the groups compared has the same seed. */
int compare_one_seed(const struct compare *c);

/*
 * No --by (c->differs == 1): regroup the loaded (variant, parameters)
 * groups by the variant and the parameters that differ between runs of
 * one variant, labelled "VARIANT,KEY=VALUE"; c->differs becomes 2.
 */
int compare_group_by_differences(struct compare *c);
/* Column heads of every group (table_variant_heads' short variant, then
 * the differing keys by their last component). */
void compare_make_heads(struct compare *c);

/*
 * The difference of group g against the baseline over runs: one value
 * per run (a series' mean of its samples), never a run's samples.
 * DIFF_TEST: Welch's t-test of the run values (both groups have two runs
 * or more and some vary); DIFF_EXACT: both groups have two runs or more
 * and every run of each gave the same value (deterministic); DIFF_ONE_RUN:
 * a group has one run, the difference of the values, no test.
 */
enum diff_kind { DIFF_NONE, DIFF_TEST, DIFF_EXACT, DIFF_ONE_RUN };

struct runs_diff {
	enum diff_kind kind;
	double diff;            /* mean(g) - mean(base) over runs; the contrast */
	struct stats_welch w;   /* DIFF_TEST */
	double lo, hi;          /* DIFF_TEST: the confidence interval */
	size_t n, n_base;       /* runs */
};

struct runs_diff compare_runs_diff(const struct compare *c, const struct metric *m, int g,
				   int base);

/*
 * A 2x2 what-if: after compare_group_by_differences, with the baseline
 * first, four groups whose parameters differ in exactly two factors of
 * two values each (a factor: the keys that split the groups alike).
 * cell[a][b] is the group at factor A's level a and B's level b (0: the
 * baseline's); name and value texts for the legend.  0 when not a 2x2.
 */
struct compare_2x2 {
	int cell[2][2];
	char factor[2][256];       /* the keys, '+'-joined */
	char level[2][2][64];      /* [factor][level] the first key's value */
};
int compare_find_2x2(const struct compare *c, struct compare_2x2 *x);
/* The interaction (cell11 - cell01) - (cell10 - cell00) of metric m over
 * runs, as a difference: exact, one run, or Welch-Satterthwaite's test. */
struct runs_diff compare_interaction(const struct compare *c, const struct metric *m,
				     const struct compare_2x2 *x);

#endif
