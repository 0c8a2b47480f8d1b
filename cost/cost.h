/*
 * cost — the static tables of the cycle-cost model: which modelled kernel
 * functions and branch sites exist in a world, and, per kernel variant, the
 * code layout the compiler gave them.
 *
 * What it models: the parts of a compiled kernel that the cost model needs
 * and the source does not say by itself.  Per function: is it a real
 * out-of-line call or was it inlined (design §4.2: "variants are data").  Per
 * branch site: the likely()/unlikely() hint written in the source and which
 * outcome of the condition the compiler placed on the fall-through path
 * (slub-free.md §4.1: GCC makes the expected successor the fall-through and
 * moves the other arm out of line, reached by a taken jump).
 *
 * Registration.  Each model declares its functions and sites once with an
 * X-macro list and registers them into the world's tables, which hands back
 * a base id; global id = base + the model's enum value:
 *
 *     #define MM_FUNCS(X) X(get_page_from_freelist) X(next_zones_zonelist)
 *     #define MM_SITES(X) X(A18, "first_zones_zonelist: nodemask == NULL") \
 *                         X(A23, "get_page_from_freelist: zone != NULL")
 *     #define MM_FN_ENUM(name) MM_FN_##name,
 *     #define MM_SITE_ENUM(id, desc) MM_SITE_##id,
 *     enum mm_fn { MM_FUNCS(MM_FN_ENUM) MM_NR_FN };
 *     enum mm_site { MM_SITES(MM_SITE_ENUM) MM_NR_SITE };
 *     static const char *const mm_fn_names[] = { MM_FUNCS(COST_FN_NAME) };
 *     static const struct cost_site_def mm_site_defs[] = { MM_SITES(COST_SITE_DEF) };
 *     ...
 *     cost_register_fns(t, mm_fn_names, MM_NR_FN, &m->fn_base);
 *     cost_register_sites(t, mm_site_defs, MM_NR_SITE, &m->site_base);
 *     cpu_branch(cpu, m->site_base + MM_SITE_A23, zone != NULL);
 *
 * The tables hold pointers to the caller's strings (string literals in
 * practice); they are not copied.  Names are unique among functions and
 * among sites of one table set (a duplicate is a model bug: NS_EINTERNAL).
 *
 * Layout defaults (cost_layout_init): every function out of line; every
 * site unhinted with fall-through = the condition being true, i.e. the
 * source order `if (cond) { then-block }` where the then-block follows the
 * test and `cond == false` jumps over it.  cost_layout_set_site() with
 * COST_FT_HINTED puts the hinted outcome on the fall-through path, which is
 * what GCC normally does with a hint.  The static prediction for a cold
 * site (first encounter) follows from the layout: the hinted outcome if the
 * site has a hint, otherwise not-taken (the fall-through); see bpred.h.
 *
 * Invariants (cost_layout_check()): a layout covers exactly the functions
 * and sites registered when it was created; fall-through and static
 * prediction are 0 or 1; the static prediction of a hinted site is the
 * hinted outcome, of an unhinted site "not taken"; a call key names a
 * function of the layout as callee, and one or -1 (every caller) as
 * caller.
 *
 * Error policy: registration and layout set-up return NS_ENOMEM or
 * NS_EINTERNAL (bad id, duplicate name: model bugs, not user input);
 * lookups by name (for variant files) return -1 when the name is unknown so
 * the caller can report it at the input's file:line:col.
 */
#ifndef NUMASIM_COST_H
#define NUMASIM_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* X-macro helpers for the name tables of a model (see above). */
#define COST_FN_NAME(name) #name,
#define COST_SITE_DEF(id, desc) {#id, desc},

struct cost_site_def {
	const char *name;      /* stable site id from the reference docs: "A18" */
	const char *desc;      /* one line: the condition as written in the source */
};

struct cost_tables {
	int nr_fns, cap_fns;
	const char **fn_names;
	int nr_sites, cap_sites;
	const struct cost_site_def **sites;
	/* the named units of straight-line work (a model's code blocks and
	 * the work it charges outside them): a run with charge kinds books
	 * each function's work cycles per unit (cpu_sys_units()) */
	int nr_units, cap_units;
	const char **unit_names;
};

void cost_tables_init(struct cost_tables *t);
void cost_tables_free(struct cost_tables *t);
/* Append n functions; *base receives the id of names[0]. */
int cost_register_fns(struct cost_tables *t, const char *const *names, int n,
		      int *base);
/* Append n sites; *base receives the id of defs[0]. */
int cost_register_sites(struct cost_tables *t, const struct cost_site_def *defs,
			int n, int *base);
/* Append n units of straight-line work (names unique among the units);
 * *base receives the id of names[0]. */
int cost_register_units(struct cost_tables *t, const char *const *names, int n, int *base);
/* Id of a function / site / unit by name, -1 if unknown. */
int cost_fn_lookup(const struct cost_tables *t, const char *name);
int cost_site_lookup(const struct cost_tables *t, const char *name);
int cost_unit_lookup(const struct cost_tables *t, const char *name);

/*
 * The kernel function a site's branch is in, read from its description,
 * whose convention is "function: condition" ("__zone_watermark_ok: likely
 * (!alloc_harder)"): the identifier before the first ": ", skipping the
 * variant and file notes models put there ("PRE", "POST", "inline",
 * "v4.6", "(mmzone.c)") and a label after the name ("__slab_free
 * slab_empty: prior"); a further "helper: " names the inline helper the
 * branch is in ("retry_cpuset: read_mems_allowed_begin: cpusets_enabled()"
 * is in read_mems_allowed_begin).  A description without ": " names its
 * first identifier ("trace_mm_page_alloc (static key)").  Writes the name
 * to buf (len > 0; truncated to fit) and returns its length, 0 when the
 * description names no function.
 */
size_t cost_site_function(const struct cost_site_def *def, char *buf,
			  size_t len);

enum cost_hint {
	COST_HINT_NONE = 0,
	COST_HINT_LIKELY,      /* likely(cond): cond expected true */
	COST_HINT_UNLIKELY,    /* unlikely(cond): cond expected false */
};
const char *cost_hint_name(enum cost_hint h);

/* fall-through argument of cost_layout_set_site: the hinted outcome
 * (or "true" for an unhinted site). */
#define COST_FT_HINTED (-1)

/*
 * Short names for the site tables of the models' X-macro lists: a site
 * declares its hint as N (none), L (likely) or U (unlikely) and its
 * fall-through as T (condition true), F (false) or H (the hinted outcome),
 * pasted as COST_HINT_##h and COST_FT_##f.
 */
#define COST_HINT_N COST_HINT_NONE
#define COST_HINT_L COST_HINT_LIKELY
#define COST_HINT_U COST_HINT_UNLIKELY
#define COST_FT_T 1
#define COST_FT_F 0
#define COST_FT_H COST_FT_HINTED

/* Per-site layout, packed for the hot path (cpu_branch reads it). */
struct cost_site_layout {
	uint8_t fallthrough;   /* outcome of cond that falls through: 0/1 */
	uint8_t hint;          /* enum cost_hint */
	uint8_t static_taken;  /* cold prediction, in taken space: 0/1 */
	uint8_t fixed;         /* 0: a test; 1 + v: the test is removed and
				* cpu_branch returns v (a change file's
				* `site: S, fixed: v`) */
};

/*
 * A call behind a static key (a change file's `call: CALLER -> CALLEE` or
 * `function: CALLEE` with `static-key:`): the calls of callee made from
 * caller (-1: from any caller) are not made (on == 0: the key is off) or
 * cost one uop more (on == 1: the jump the patched key site is).  The
 * cost layer applies it at the call step (cost/cpu.h, "Calls behind a
 * static key").
 */
struct cost_call_key {
	int32_t caller;        /* function id, or -1: every caller */
	int32_t callee;        /* function id */
	uint8_t on;
};

struct cost_layout {
	const char *name;      /* variant name, caller's string */
	int nr_fns, nr_sites;
	uint8_t *fn_inline;    /* [nr_fns]: 1 = inlined */
	struct cost_site_layout *site; /* [nr_sites] */
	int nr_fixed;          /* sites whose test is removed (fixed != 0) */
	int nr_keys;           /* calls behind a static key, in the order given */
	struct cost_call_key *keys;
};

/* A layout for every function and site registered in t so far (defaults above). */
int cost_layout_init(struct cost_layout *l, const struct cost_tables *t,
		     const char *name);
void cost_layout_free(struct cost_layout *l);
int cost_layout_set_fn(struct cost_layout *l, int fn, bool inlined);
/*
 * A model's functions fn_base .. fn_base+nr-1 out of line, except the
 * model-relative ids inl[0..nr_inl-1], which are inlined.
 */
int cost_layout_set_model_fns(struct cost_layout *l, int fn_base, int nr,
			      const int *inl, size_t nr_inl);
/* fallthrough: 0, 1 or COST_FT_HINTED. */
int cost_layout_set_site(struct cost_layout *l, int site, enum cost_hint hint,
			 int fallthrough);
/* Remove the test at site, its condition fixed to value: the branch is no
 * longer charged and cpu_branch() returns value (NS_EINTERNAL for a site
 * outside the layout). */
int cost_layout_fix_site(struct cost_layout *l, int site, bool value);
/* Put the calls of callee from caller (-1: any caller) behind a static
 * key that is on or off (appended: a later key of the same call wins;
 * NS_EINTERNAL for an id outside the layout, NS_ENOMEM). */
int cost_layout_key_call(struct cost_layout *l, int caller, int callee, bool on);
/* The key of a call of callee from caller: the last one given that
 * names this callee and this caller or every caller; NULL when none. */
const struct cost_call_key *cost_layout_call_key(const struct cost_layout *l, int caller,
						 int callee);
int cost_layout_check(const struct cost_layout *l, const struct cost_tables *t);

/*
 * Column col of a model's work table written as rows of three columns
 * (the estimate, compiled PRE, compiled POST: MM_WORK, SLUB_WORK), into
 * out[0..n-1]: the models copy their layout's column once at world set-up.
 */
enum cost_work_col { COST_WORK_EST, COST_WORK_PRE, COST_WORK_POST };
static inline void cost_work_column(const uint32_t (*rows)[3], size_t n, enum cost_work_col col,
				    uint32_t *out)
{
	for (size_t i = 0; i < n; i++)
		out[i] = rows[i][col];
}

#endif
