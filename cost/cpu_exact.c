/*
 * cpu_exact — exact accounting (cost.accounting exact): every primitive
 * charges as it runs (the inline steps of cost/cpu_hot.h); here the exact
 * branch step per (model, predictor), bound to each CPU at set-up, and the
 * engine's hooks (struct cpu_acct_ops), which have nothing to do.
 */
#include "cost/cpu_internal.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"

/* The exact branch step per (model, predictor): cpu_branch_as() with both
 * constant, one of them bound to each CPU (cpus_bind()). */
#define BRANCH_STEP(name, ooo, mode)                                           \
	static bool name(struct cpu *c, int site, bool cond)                   \
	{                                                                      \
		return cpu_branch_as(c, site, cond, ooo, mode);                \
	}
BRANCH_STEP(branch_inorder_bimodal, false, BPRED_BIMODAL)
BRANCH_STEP(branch_inorder_gshare, false, BPRED_GSHARE)
BRANCH_STEP(branch_inorder_tage, false, BPRED_TAGE)
BRANCH_STEP(branch_ooo_bimodal, true, BPRED_BIMODAL)
BRANCH_STEP(branch_ooo_gshare, true, BPRED_GSHARE)
BRANCH_STEP(branch_ooo_tage, true, BPRED_TAGE)
#undef BRANCH_STEP

bool (*branch_step(bool ooo, enum bpred_mode mode))(struct cpu *, int, bool)
{
	switch (mode) {
	case BPRED_BIMODAL:
		return ooo ? branch_ooo_bimodal : branch_inorder_bimodal;
	case BPRED_TAGE:
		return ooo ? branch_ooo_tage : branch_inorder_tage;
	case BPRED_GSHARE:
		break;
	}
	return ooo ? branch_ooo_gshare : branch_inorder_gshare;
}

/* --- the engine's hooks (struct cpu_acct_ops, cpu_internal.h) ----------- */

/* Exact accounting keeps no table (c->mt NULL, c->memo 0): nothing to set
 * up, hold back, fold or forget, and no top-level call is taken. */
static int exact_init(struct cpu *c, const struct cpu_params *p)
{
	(void)c;
	(void)p;
	return NS_OK;
}

static void exact_nothing(struct cpu *c)
{
	(void)c;
}

static bool exact_begin(struct cpu *c, int fn)
{
	(void)c;
	(void)fn;
	return false;
}

static int exact_check(const struct cpu *c)
{
	return c->memo || c->mlog_on ? NS_EINTERNAL : NS_OK;
}

static void exact_stats(const struct cpu *c, struct cpu_memo_stats *st)
{
	(void)c;
	(void)st;
}

const struct cpu_acct_ops cpu_acct_exact = {
	.name = "exact",
	.init = exact_init,
	.free = exact_nothing,
	.clear = exact_nothing,
	.begin = exact_begin,
	.end = exact_nothing,
	.fold = exact_nothing,
	.check = exact_check,
	.stats = exact_stats,
};
