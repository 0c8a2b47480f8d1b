/*
 * bpred — the simulated CPU's conditional-branch direction predictor.
 *
 * What it models: the direction predictor of an out-of-order core, reduced
 * to what the simulator can observe: a stream of (site, taken) pairs per
 * CPU.  "Taken" is in layout space: a branch is taken when the condition's
 * outcome differs from the fall-through the code layout chose for the site
 * (cost.h).  Two modes:
 *
 *   BPRED_BIMODAL  one 2-bit saturating counter per site (Smith 1981).
 *                  Sites never alias (ids are dense), i.e. an ideal, infinite
 *                  pattern table indexed by branch address.
 *   BPRED_GSHARE   a shared table of 2^table_bits 2-bit counters indexed by
 *                  hash(site) XOR the last history_bits outcomes of all
 *                  branches of this CPU (McFarling 1993).  Sites can alias, as
 *                  in hardware; global history makes repeating patterns
 *                  (alternation, short loops) predictable.
 *
 * Cold branches.  The first time a CPU meets a site it has no history for
 * it (a BTB miss in hardware) and uses the static rule: predict the hinted
 * outcome when the site carries likely()/unlikely(), otherwise predict
 * not-taken (fall-through).  The classic "backward taken, forward not
 * taken" rule cannot be applied because the model has no code addresses;
 * loop-closing branches are expressed by their layout (fall-through = loop
 * exit) and so are predicted not-taken when cold, which costs at most one
 * mispredict per site per CPU.  Hardware does not read the hint (x86 branch
 * hint prefixes are ignored by every core in cost-figures.md); the hint acts
 * through layout, and the rule "predict the hinted outcome" is what that
 * layout gives with GCC's usual placement.  After the first encounter the
 * site's counter (bimodal) is set to the weak state of the outcome it saw;
 * gshare table entries start weakly not-taken.
 *
 * What real predictors do differently.  Current cores use TAGE-like
 * predictors (Intel since Haswell, AMD Zen 2+ "TAGE", Arm N1's hybrid):
 * several tables indexed by geometrically growing global-history lengths
 * (up to hundreds or thousands of branches) with partial tags, usefulness
 * counters and a base bimodal table, plus loop predictors and
 * statistical correctors; they also predict per fetch block, not per
 * branch, and share state between SMT siblings and with other code (the
 * whole kernel and user space compete for entries).  Their table sizes and
 * hash functions are undocumented.  A model of them would add dozens of
 * unsourced parameters and be tuned to nothing.  The bimodal mode gives the
 * per-site, history-free behaviour that dominates on the allocator fast
 * paths (heavily biased branches: costs come from cold sites and from the
 * rare direction); gshare shows what correlation adds.  Both err in the
 * same direction against TAGE: they mispredict more on patterns TAGE learns
 * and never lose state to unrelated code, so absolute mispredict counts are
 * a bound and differences between variants are what to read.
 *
 * Invariants (bpred_check()): every counter is 0..3, every site state is a
 * counter or BPRED_COLD (bimodal) / 0 or BPRED_COLD (gshare), the history
 * fits in history_bits.
 *
 * Error policy: init returns NS_ERANGE for parameters out of range (table
 * bits 1..24, history bits 0..table bits) and NS_ENOMEM; the hot path does
 * no checking (ids come from the tables).
 */
#ifndef NUMASIM_BPRED_H
#define NUMASIM_BPRED_H

#include <stdint.h>

enum bpred_mode {
	BPRED_BIMODAL = 0,
	BPRED_GSHARE,
};

struct bpred_params {
	enum bpred_mode mode;
	int table_bits;        /* gshare: log2 of the pattern table size */
	int history_bits;      /* gshare: global history length */
};

/* Defaults: bimodal; gshare 14 table bits, 12 history bits when selected. */
void bpred_params_default(struct bpred_params *p);
const char *bpred_mode_name(enum bpred_mode m);

#define BPRED_COLD 4u

struct bpred {
	enum bpred_mode mode;
	int nr_sites;
	uint8_t *site;         /* bimodal: counter 0..3 or COLD; gshare: 0 or COLD */
	uint8_t *pht;          /* gshare pattern table, NULL in bimodal mode */
	uint32_t table_mask, hist_mask, hist;
	int history_bits;
};

int bpred_init(struct bpred *bp, int nr_sites, const struct bpred_params *p);
void bpred_free(struct bpred *bp);
/* Forget everything (all sites cold, history empty). */
void bpred_reset(struct bpred *bp);
int bpred_check(const struct bpred *bp);

/* Saturating update of a 2-bit counter (index: ctr * 2 + taken). */
static inline uint8_t bpred_next(uint8_t ctr, unsigned taken)
{
	static const uint8_t next[8] = {0, 1, 0, 2, 1, 3, 2, 3};
	return next[ctr * 2u + taken];
}

static inline unsigned bpred_gshare_index(const struct bpred *bp, int site)
{
	/* Fibonacci hash spreads dense site ids over the table */
	uint32_t h = (uint32_t)site * 2654435769u;
	return ((h >> 16) ^ h ^ bp->hist) & bp->table_mask;
}

/*
 * Predict the branch at `site` (taken space), then train on the real
 * outcome.  static_taken is the layout's cold prediction.  Returns the
 * prediction.
 */
static inline unsigned bpred_predict_update(struct bpred *bp, int site,
					    unsigned static_taken,
					    unsigned taken)
{
	uint8_t s = bp->site[site];
	unsigned pred;
	if (bp->mode == BPRED_BIMODAL) {
		if (s == BPRED_COLD) {
			pred = static_taken;
			bp->site[site] = (uint8_t)(1u + taken);
		} else {
			pred = s >> 1;
			bp->site[site] = bpred_next(s, taken);
		}
		return pred;
	}
	unsigned i = bpred_gshare_index(bp, site);
	if (s == BPRED_COLD) {
		pred = static_taken;
		bp->site[site] = 0;
	} else {
		pred = bp->pht[i] >> 1;
	}
	bp->pht[i] = bpred_next(bp->pht[i], taken);
	bp->hist = ((bp->hist << 1) | taken) & bp->hist_mask;
	return pred;
}

#endif
