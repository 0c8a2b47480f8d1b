/*
 * scenario_internal — the scenario loader's parts, private to scenarios/:
 * the loader context shared by scenario.c (top level, points, labels),
 * scenario_settings.c (the loader context, settings: sweeps, overrides,
 * --set, --sweep), scenario_machine.c (a point's machine and its
 * overrides) and scenario_sections.c (kernel knobs, policy, sched and
 * cost sections).  scenario.c's design notes describe the walk.
 *
 * Invariants: a loader resolves one point at a time (pt); every setting
 * it holds has a key and either one value or an axis; l->s->wl is set
 * before the first point is resolved.
 *
 * Error policy: as scenario.h's: problems of the file are NS_EINPUT at
 * their node (scn_err), a command-line value's node in its own tree.
 */
#ifndef NUMASIM_SCENARIO_INTERNAL_H
#define NUMASIM_SCENARIO_INTERNAL_H

#include <stddef.h>

#include "base/diag.h"
#include "base/ytree.h"
#include "scenarios/scenario.h"

/* A dotted key with a fixed value or an axis of values. */
struct setting {
	char *key;
	const struct ynode *at;         /* where it was given (for errors) */
	const struct ynode *one;        /* fixed value, or NULL for an axis */
	const struct ynode **vals;      /* axis values [nr] (malloc'ed) */
	int nr;
	int axis;                       /* axis index, -1 for a fixed value */
	int used;                       /* consumed by a lookup at point 0 */
	int cli;                        /* from the command line */
};

struct loader {
	const struct ytree *t;
	struct diag *d;
	struct scenario *s;
	const struct scn_opts *o;
	struct setting *set;
	int nr_set, cap_set;
	struct scn_point *pt;           /* the point being resolved */
	const struct ynode *top_workload, *top_kernel, *top_policy, *top_sched, *top_cost,
			  *top_noise;
	const struct ynode *cpuset_local;  /* policy.cpuset: local, to resolve */
};


/* The tree a node of the point being resolved belongs to. */
#define TT(n) scn_tree_of(l, (n))

extern const char *const scn_knob_names[SCN_NR_KNOBS];
extern const char scn_knob_kinds[SCN_NR_KNOBS];

/* scenario_settings.c: the loader's context, settings, sweeps, overrides, --set and --sweep */
const struct ytree *scn_tree_of(const struct loader *l, const struct ynode *n);
int scn_is_cli(const struct loader *l, const struct ynode *n);
int scn_err(struct loader *l, const struct ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int scn_nomem(struct loader *l);
int scn_get_text(struct loader *l, const struct ynode *n, const char *what,
		    int nonempty, char **out);
const struct ynode *scn_lookup(struct loader *l, const char *key);
int scn_section_fields(struct loader *l, const struct ynode *n,
			  const char *prefix, const char *what,
			  const struct ytree_field *fields, size_t nr,
			  const struct ynode **v);
void scn_node_text(const struct ynode *n, char *buf, size_t len);
int scn_kernel_lists(struct loader *l);
int scn_file_map(struct loader *l, const struct ynode *n, int sweep);
int scn_cli_setting(struct loader *l, int i);
int scn_assign_axes(struct loader *l);
int scn_unused_settings(struct loader *l);

/* scenario_machine.c: a point's machine; dir(scenario path) + "/" + ref
 * unless ref is absolute or the scenario came from standard input
 * (malloc'ed, NULL when out of memory) */
char *scn_resolve_path(const char *scenario_path, const char *ref);
int scn_get_machine(struct loader *l, const struct ynode *n);

/* scenario_sections.c: kernel knobs, policy, sched, cost, noise */
int scn_knob_lookup(const char *name);
int scn_resolve_cpuset_local(struct loader *l);
int scn_parse_policy(struct loader *l);
int scn_parse_sched(struct loader *l);
int scn_uses_slub(const struct scenario *s);
int scn_parse_cost(struct loader *l);
int scn_parse_noise(struct loader *l);
void scn_default_knobs(struct scn_point *pt);
const char *scn_moved_knob(const char *key);
int scn_parse_kernel(struct loader *l);

#endif
