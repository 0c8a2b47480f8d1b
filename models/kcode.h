/*
 * kcode — the modelled kernel code's names, as code-change files and
 * `numasim list functions|sites|blocks` use them: every function, branch
 * site and code block of the models' X-macro tables (models/mm_tables.h:
 * MM_FUNCS, MM_SITES, MM_BLOCKS and the 2016 series' MM_SERIES_*;
 * models/slub_internal.h: SLUB_FUNCS, SLUB_SITES, SLUB_BLOCKS; the reclaim
 * tables VM_FUNCS, VM_SITES), grouped by model.
 *
 * What it models: no kernel code; the read-only view of the tables the
 * cost layer registers (cost/cost.h): a function's name and whether the
 * estimate layout inlines it, a site's condition as the kernel source
 * writes it ("function: condition"), its likely/unlikely hint and the
 * outcome the compiler puts on the fall-through path, a block's work row,
 * its declared accesses ("D" a load the next step waits for, "L" an
 * independent load, "S" a store) and the site that ends it.
 *
 * Invariants: names are unique among the functions, among the sites and
 * among the blocks of all models (kcode_check()); the arrays are static
 * and live for the program.  Error policy: lookups return -1 for an
 * unknown name; nothing fails otherwise.
 */
#ifndef NUMASIM_KCODE_H
#define NUMASIM_KCODE_H

#include <stdint.h>

struct kcode_site {
	const char *name, *desc;       /* "A42a", "zone_statistics: unlikely(...)" */
	uint8_t hint;                  /* enum cost_hint */
	int8_t ft;                     /* 0, 1 or COST_FT_HINTED (gcc's, for SLUB) */
};

struct kcode_block {
	const char *name, *row, *kinds, *exit; /* exit: a site name or "" */
};

struct kcode_model {
	const char *name;              /* "mm", "mm-series", "slub", "vmscan" */
	const char *kernel;            /* what it mirrors: "v4.6 mm/page_alloc.c, ..." */
	int nr_fns;
	const char *const *fns;
	const uint8_t *fn_inline;      /* [nr_fns]: inlined in the estimate layout */
	int nr_sites;
	const struct kcode_site *sites;
	int nr_blocks;
	const struct kcode_block *blocks;
};

/* The tables of each model (defined beside its registration). */
void mm_kcode(struct kcode_model *out);
void mm_series_kcode(struct kcode_model *out);
void slub_kcode(struct kcode_model *out);
void vmscan_kcode(struct kcode_model *out);

enum kcode_kind { KCODE_FN, KCODE_SITE, KCODE_BLOCK };
#define KCODE_NR_MODELS 4

/* Model i (0 .. KCODE_NR_MODELS - 1) into *out. */
void kcode_model(int i, struct kcode_model *out);
/* The model and index of a name of this kind: the model's number, or -1
 * when no model has it (*idx untouched). */
int kcode_find(enum kcode_kind kind, const char *name, int *idx);
/* The name of this kind nearest to s[0..len) (edit distance under 3), or
 * NULL: for "did you mean". */
const char *kcode_suggest(enum kcode_kind kind, const char *s, unsigned len);
/* "function", "site", "block". */
const char *kcode_kind_name(enum kcode_kind kind);
/* Names unique per kind across the models: NS_OK or NS_EINTERNAL. */
int kcode_check(void);

#endif
