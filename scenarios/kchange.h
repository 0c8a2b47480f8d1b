/*
 * kchange — code-change files: a patch of the kind kernel developers send
 * to the page allocator and SLUB, written as operations on the modelled
 * code layout (`kernel.change: FILE` in a scenario, several in order;
 * docs/reference/changes.md has the format).
 *
 * What it models: the parts of a patch the cost model represents as data
 * (cost/cost.h, cost/cpu.h): a function inlined or moved out of line (the
 * layout's fn_inline), a branch site's likely/unlikely hint and the outcome
 * the compiler puts on the fall-through path (the layout's site entry),
 * straight-line work added to or removed from a code block (its uops, and
 * accesses added as L1 hits: cpu_block_edit()), and a block put behind a
 * static key that is off (its work gone) or on (its work plus the jump),
 * and a branch site's test removed with its condition fixed to true or
 * false (cost_layout_fix_site(): not charged, the fixed value returned,
 * the model's disagreements counted), and a call put behind a static key
 * that is off (the call not made: cost_layout_key_call(), cost/cpu.h
 * "Calls behind a static key") or on (one uop more), for the callees
 * whose changes nothing the model runs later reads (models/kcode.h
 * kcode_key_callee(): statistics and debug checks; every other callee is
 * refused at its place, with the list of those accepted).
 * Names are the models' (models/kcode.h: `numasim list functions|sites|
 * blocks`).  A change applies on top of the run's kernel.commit: after
 * every model's layout is filled (kchange_apply_layout) and, for blocks,
 * when the world costs its blocks (the edits travel in mm_config /
 * slub_config as struct cpu_block_change, kchange_block_changes).
 *
 * Invariants: a loaded change has a name, the sha256 of its bytes, and
 * operations whose names exist in models/kcode.h's tables (each op keeps
 * the model that has it and its file position); a block edit adds at most
 * CPU_BLOCK_MAX_EXTRA accesses; a call operation names a keyable callee
 * and, with a caller, a call the model makes.
 *
 * Error policy: every problem of a file is NS_EINPUT at its
 * `file:line:col` with "did you mean" for a name close to a known one;
 * NS_ENOMEM / NS_EIO / NS_ENOENT as the file reader's.  On failure nothing
 * is returned and nothing stays allocated.
 */
#ifndef NUMASIM_KCHANGE_H
#define NUMASIM_KCHANGE_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/sha256.h"
#include "cost/cost.h"
#include "cost/cpu.h"

enum kchange_kind {
	KCH_INLINE,          /* inline: FUNCTION */
	KCH_OUTLINE,         /* out-of-line: FUNCTION */
	KCH_SITE,            /* site: ID, hint:, fall-through: */
	KCH_WORK,            /* block: NAME, uops:, loads:, dep-loads:, stores: */
	KCH_KEY,             /* block: NAME, static-key: on|off */
	KCH_FIX,             /* site: ID, fixed: true|false (the test removed) */
	KCH_CALL,            /* call: CALLER -> CALLEE, or function: CALLEE;
			      * static-key: on|off */
};

#define KCH_KEEP (-2)        /* hint / fall-through not given */

struct kchange_op {
	enum kchange_kind kind;
	char *name;                     /* function, site or block name (KCH_CALL:
					 * the callee) */
	char *caller;                   /* KCH_CALL: the caller, NULL for every
					 * caller (`function:`) */
	int model;                      /* models/kcode.h model number */
	int line, col;                  /* the name's position in the file */
	int hint;                       /* enum cost_hint or KCH_KEEP */
	int ft;                         /* 0, 1, COST_FT_HINTED or KCH_KEEP */
	int32_t uops;                   /* KCH_WORK, KCH_KEY */
	char add[CPU_BLOCK_MAX_EXTRA + 1]; /* accesses added: "D", "L", "S" */
	int key_on;                     /* KCH_KEY, KCH_CALL */
	int fixed;                      /* KCH_FIX: 0 or 1 */
};

struct kchange {
	char *path;                     /* as given */
	char *file;                     /* its display name (messages) */
	char *name;                     /* `change:` or the file's base name */
	char *description;              /* or NULL */
	char sha256[SHA256_HEX_LEN + 1];
	char ident[160];                /* "NAME@" + 12 hex of sha256 (params) */
	int nr;
	struct kchange_op *ops;
};

/* Load and check a change file ("-" is not accepted: a change is a file). */
int kchange_load_file(const char *path, struct kchange **out, struct diag *d);
/* The same from a buffer; name is the file name used in messages. */
int kchange_parse(const char *name, const char *buf, size_t len, struct kchange **out,
		  struct diag *d);
void kchange_free(struct kchange *c);
/* The invariants above: NS_OK, or NS_EINTERNAL with a message. */
int kchange_check(const struct kchange *c, struct diag *d);

/*
 * The layout operations of c (inline, out-of-line, site, fixed site, call) on layout l of
 * the tables t, after every model's layout was filled.  A name that this
 * run did not register (a SLUB name in a page-allocator-only run, a
 * series site under v3 04 or 05) is NS_EINPUT at its position.
 */
int kchange_apply_layout(const struct kchange *c, struct cost_layout *l,
			 const struct cost_tables *t, struct diag *d);
/* The block edits of c appended to out[*n .. max): NS_EINPUT at the op's
 * position when more than max edits, or more than CPU_BLOCK_MAX_EXTRA
 * added accesses on one block over out[0 .. *n). */
/* The first call operation of the change files cs[0 .. n) (for an error
 * at its place: sampled accounting cannot run it), or NULL. */
const struct kchange_op *kchange_first_call(struct kchange *const *cs, int n,
					    const struct kchange **in);
int kchange_block_changes(const struct kchange *c, struct cpu_block_change *out, int *n,
			  int max, struct diag *d);

#endif
