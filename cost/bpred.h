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
 * Default: gshare, 2^14 two-bit counters, 12 history bits.  Every x86
 * core of the last twenty years predicts from global history, because the
 * direction of a branch depends on the path that led to it, not only on
 * its address: AMD's K8 (Athlon 64 / Opteron) has a "global history bimodal
 * counter" table of 16384 2-bit counters indexed by the outcomes of the
 * last 8 conditional branches and branch-address bits (AMD Software
 * Optimization Guide for AMD64 Processors, 25112 rev. 3.06, 2005, §A.6);
 * K10 lengthened the history to 12 bits; Intel combined a global predictor
 * with loop and indirect predictors from the Pentium M on (Gochman et al.,
 * Intel Technology Journal 7(2), 2003; not re-read here), and both vendors
 * moved to TAGE-like designs later (below).  The defaults are the K8 table
 * size and the K10 history length.  A per-site bimodal counter cannot see
 * the call context: a site reached from two callers with opposite outcomes
 * -- v4.6's out-of-line next_zones_zonelist() tests `nodes == NULL` once
 * for the preferred-zone lookup (a nodemask) and once for the zone loop
 * (NULL) in every allocation -- alternates and a 2-bit counter mispredicts
 * it about every other time, which no real core does.  BPRED_BIMODAL stays
 * available (struct cpu_params.bpred.mode) as the history-free bound.
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
 * unsourced parameters and be tuned to nothing.  gshare is the simplest
 * documented predictor with the property that matters on the allocator
 * fast paths (patterns that repeat with the call path are learnt; heavily
 * biased branches cost only their cold encounter and their rare
 * direction).  It errs against TAGE in both directions: a 12-branch
 * history misses correlations further back, and its table never loses
 * state to unrelated code (only the simulated branches run), so absolute
 * mispredict counts are indicative and differences between variants are
 * what to read.

 *   BPRED_TAGE     TAGE (Seznec and Michaud, "A case for (partially)
 *                  TAgged GEometric history length branch prediction",
 *                  JILP 8, 2006): a base bimodal counter per site plus
 *                  BPRED_TAGE_TABLES tagged tables indexed by hash(site)
 *                  XOR the global history folded to the index width, with
 *                  history lengths in geometric series (5, 11, 24, 52:
 *                  ratio ~2.2, the paper's shape cut to the 64 outcomes
 *                  kept here).  Each entry: a partial tag (9 bits), a 3-bit
 *                  counter and a 2-bit usefulness counter.  The longest
 *                  matching table provides the prediction; on a mispredict
 *                  an entry is allocated in the first longer table whose
 *                  entry is not useful (the paper picks among them at
 *                  random; here the shortest, which keeps runs
 *                  deterministic without a random stream), else the longer
 *                  tables' usefulness decays; every BPRED_TAGE_U_PERIOD
 *                  updates all usefulness counters halve (the paper's
 *                  periodic reset).  Tags keep different (site, history)
 *                  pairs from sharing an entry, which gshare's untagged
 *                  XOR index cannot.  The default for cost.model ooo.
 *                  Sizes: 4 x 1024 entries x 14 bits = 7 KiB, below what
 *                  Haswell-and-later cores are believed to spend (their
 *                  sizes are undocumented; see "What real predictors do").
 *                  Simplified: no use_alt_on_na, no loop predictor or
 *                  statistical corrector, and the base table is per site
 *                  (ideal, no aliasing) like BPRED_BIMODAL.
 *
 * Speed (the step runs once per modelled branch: about 82 times per
 * simulated page allocator pair).  What depends only on the site is
 * computed once at set-up: gshare's part of the index (ghash[]), TAGE's
 * parts of the four indices and the tag (tsite[]).  What depends only on
 * TAGE's geometry is fixed at init (struct bpred_tage_geom), and for the
 * default geometry compiled in as constants (bpred.c tage_def, chosen by
 * bp->tage_default): its masks, lane widths and history shifts are
 * immediates.  TAGE reads each entry as one word, gathers the mask of
 * the tables that hit and takes provider and alternate from it by table
 * lookup; the rare parts, allocation on a mispredict (with the
 * usefulness mask it alone needs) and the periodic usefulness decay, are
 * out-of-line calls.  Predictions, tables, histories and dirty flags
 * equal the straightforward step's bit for bit: test_bpred drives long
 * random streams through both (the references in the test), the
 * generic-geometry step too.  Measured figures, in the profile-guided
 * build: docs/results/speed-tage-2026-12-07.md.
 *
 * Invariants (bpred_check()): every counter is 0..3, every site state is a
 * counter or BPRED_COLD (bimodal) / 0 or BPRED_COLD (gshare), the history
 * fits in history_bits, each site's ghash is its hash (bpred_gshare_hash());
 * TAGE: every folded register equals its definition
 * (bpred_tage_fold(): the XOR of the width-bit chunks of the last L
 * outcomes), counters and usefulness in range.
 *
 * Error policy: init returns NS_ERANGE for parameters out of range (table
 * bits 1..24, history bits 0..table bits; TAGE index and tag bits
 * 1..BPRED_TAGE_MAX_BITS, histories ascending in 1..64) and NS_ENOMEM; the hot path does
 * no checking (ids come from the tables).
 */
#ifndef NUMASIM_BPRED_H
#define NUMASIM_BPRED_H

#include <stdbool.h>
#include <stdint.h>

enum bpred_mode {
	BPRED_BIMODAL = 0,
	BPRED_GSHARE,
	BPRED_TAGE,
};

/* TAGE geometry (BPRED_TAGE above): tagged tables and their history lengths. */
#define BPRED_TAGE_TABLES 4
#define BPRED_TAGE_MAX_HIST 64
#define BPRED_TAGE_U_PERIOD (1u << 18) /* updates between usefulness decays */
/* Index and tag widths at most (a folded register is a 16-bit lane). */
#define BPRED_TAGE_MAX_BITS 15
enum { BPRED_FOLD_IDX, BPRED_FOLD_TAG, BPRED_FOLD_TAG2 };

struct bpred_params {
	enum bpred_mode mode;
	int table_bits;        /* gshare: log2 of the pattern table size */
	int history_bits;      /* gshare: global history length */
	int tage_bits;         /* tage: log2 of the entries per tagged table */
	int tage_tag_bits;     /* tage: partial tag width */
	int tage_hist[BPRED_TAGE_TABLES]; /* tage: history lengths, ascending */
};

/* Defaults: gshare, 14 table bits, 12 history bits; TAGE 4 x 2^10
 * entries, 9-bit tags, histories 5, 11, 24, 52 (see above). */
void bpred_params_default(struct bpred_params *p);
const char *bpred_mode_name(enum bpred_mode m);
/* "bimodal", "gshare", "tage" -> the mode, -1 if unknown. */
int bpred_mode_parse(const char *s);

#define BPRED_COLD 4u

/* One entry of a TAGE tagged table. */
struct bpred_tage_entry {
	uint16_t tag;
	uint8_t ctr;           /* 3-bit prediction counter, taken when >= 4 */
	uint8_t u;             /* 2-bit usefulness */
};

/* A site's hash as the TAGE tables use it, 16-bit lanes per table. */
struct bpred_tage_site {
	uint64_t idx, tag;
};

/*
 * The packed folds' figures, fixed at init (struct bpred, fold[]): per
 * kind the lane width, the lane masks and the lane bits where the
 * outcome leaving each table's window lands (tage_hist[i] % width); per
 * table its history length less one; tag_bits in every lane.
 */
struct bpred_tage_geom {
	uint64_t fold_mask[3], fold_out[3];
	uint64_t tag_mask;
	uint8_t fold_w[3];
	uint8_t hist_m1[BPRED_TAGE_TABLES]; /* tage_hist[i] - 1 */
};

struct bpred {
	enum bpred_mode mode;
	int nr_sites;
	uint8_t *site;         /* bimodal, tage: counter 0..3 or COLD; gshare: 0 or COLD */
	uint8_t *pht;          /* gshare pattern table, NULL in bimodal mode */
	uint32_t table_mask, hist_mask, hist;
	int history_bits;
	/* tage */
	struct bpred_tage_entry *tt[BPRED_TAGE_TABLES];
	int tage_bits, tag_bits, tage_hist[BPRED_TAGE_TABLES];
	uint64_t ghist;        /* last 64 outcomes, newest in bit 0 */
	/*
	 * The folded histories (the paper's circular shift registers), packed:
	 * fold[BPRED_FOLD_IDX] holds table i's index fold (the last
	 * tage_hist[i] outcomes folded to tage_bits bits) in bits 16i..16i+15,
	 * fold[BPRED_FOLD_TAG] the tag fold (tag_bits), fold[BPRED_FOLD_TAG2]
	 * the second tag fold (tag_bits - 1).  One push updates the four
	 * tables of a kind with one shift, one wrap and one XOR of the word
	 * (bpred.c tage_push); widths are at most 15 bits so a lane never
	 * spills into the next.  Their figures: g (struct bpred_tage_geom).
	 */
	uint64_t fold[3];
	struct bpred_tage_geom g;
	/*
	 * Per site, computed at init (a site's hash never changes), one
	 * array by mode (a union, so struct cpu's pinned layout around it,
	 * cost/cpu_struct.h, is that of one pointer): TAGE its hash's part
	 * of the four indices and of the tag, packed the same way; gshare
	 * its part of the index, bpred_gshare_hash().
	 */
	union {
		struct bpred_tage_site *tsite;
		uint32_t *ghash;
	};
	uint32_t updates;      /* since the last usefulness decay */
	/* set when an update changed a table entry or counter (and by resets,
	 * usefulness decays); the memo of cost/cpu_memo.c clears it and skips the
	 * predictor for a path whose last run changed nothing while nothing
	 * changed since */
	uint8_t dirty;
	/* tage: the geometry is the default one (bpred_params_default()), whose
	 * step has its figures as constants (bpred.c) */
	uint8_t tage_default;
};

int bpred_init(struct bpred *bp, int nr_sites, const struct bpred_params *p);
/* The fold of the last len outcomes of ghist to width bits by definition
 * (the XOR of its width-bit chunks): what tage_push() keeps incrementally;
 * the reference of bpred_check() and the tests. */
uint32_t bpred_tage_fold(uint64_t ghist, int len, int width);
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

/* The Fibonacci hash that spreads dense site ids over the table: the
 * site's part, bp->ghash[site] (bpred_init()). */
static inline uint32_t bpred_gshare_hash(int site)
{
	uint32_t h = (uint32_t)site * 2654435769u;
	return (h >> 16) ^ h;
}

static inline unsigned bpred_gshare_index(const struct bpred *bp, int site)
{
	return (bp->ghash[site] ^ bp->hist) & bp->table_mask;
}

/* TAGE prediction and training (bpred.c). */
unsigned bpred_tage_predict_update(struct bpred *bp, int site, unsigned static_taken,
				   unsigned taken);

/*
 * Predict the branch at `site` (taken space), then train on the real
 * outcome.  static_taken is the layout's cold prediction.  Returns the
 * prediction.  One function per mode, so that a caller whose mode is
 * fixed (cost/cpu_exact.c binds one branch step per model and predictor) tests
 * none: bpred_update_as() with a constant mode; bpred_predict_update()
 * picks by bp->mode.
 */
static inline unsigned bpred_bimodal_update(struct bpred *bp, int site,
					    unsigned static_taken, unsigned taken)
{
	uint8_t s = bp->site[site];
	unsigned pred;
	uint8_t nv;
	if (s == BPRED_COLD) {
		pred = static_taken;
		nv = (uint8_t)(1u + taken);
	} else {
		pred = s >> 1;
		nv = bpred_next(s, taken);
	}
	if (nv != s) {
		bp->site[site] = nv;
		bp->dirty = 1;
	}
	return pred;
}

/*
 * gshare without a data-dependent host branch: a cold site (site byte
 * BPRED_COLD = 4, else 0) takes the static prediction through a mask,
 * and the site byte and the counter are stored whether or not they
 * change (dirty is set exactly when one did).
 */
static inline unsigned bpred_gshare_update(struct bpred *bp, int site,
					   unsigned static_taken, unsigned taken)
{
	unsigned cold = bp->site[site] >> 2;
	unsigned i = bpred_gshare_index(bp, site);
	uint8_t o = bp->pht[i], nv = bpred_next(o, taken);
	unsigned learnt = o >> 1u;
	unsigned pred = learnt ^ ((learnt ^ static_taken) & cold);
	bp->site[site] = 0;
	bp->pht[i] = nv;
	bp->dirty |= (uint8_t)(cold | (nv != o));
	bp->hist = ((bp->hist << 1) | taken) & bp->hist_mask;
	return pred;
}

/* The update of mode; inlined with a constant mode it tests nothing. */
static inline __attribute__((always_inline)) unsigned
bpred_update_as(struct bpred *bp, int site, unsigned static_taken, unsigned taken,
		enum bpred_mode mode)
{
	switch (mode) {
	case BPRED_TAGE:
		return bpred_tage_predict_update(bp, site, static_taken, taken);
	case BPRED_BIMODAL:
		return bpred_bimodal_update(bp, site, static_taken, taken);
	case BPRED_GSHARE:
		break;
	}
	return bpred_gshare_update(bp, site, static_taken, taken);
}

static inline unsigned bpred_predict_update(struct bpred *bp, int site,
					    unsigned static_taken,
					    unsigned taken)
{
	return bpred_update_as(bp, site, static_taken, taken, bp->mode);
}

/*
 * The global history: with the tables it decides the next predictions.
 * TAGE's folded registers are functions of ghist (every history length
 * is at most its 64 bits), so two histories with the same hist and
 * ghist predict alike.
 */
struct bpred_hist {
	uint64_t ghist, fold[3];
	uint32_t hist;
};

static inline void bpred_hist_get(const struct bpred *bp, struct bpred_hist *h)
{
	h->ghist = bp->ghist;
	h->hist = bp->hist;
	for (int i = 0; i < 3; i++)
		h->fold[i] = bp->fold[i];
}

static inline void bpred_hist_set(struct bpred *bp, const struct bpred_hist *h)
{
	bp->ghist = h->ghist;
	bp->hist = h->hist;
	for (int i = 0; i < 3; i++)
		bp->fold[i] = h->fold[i];
}

static inline bool bpred_hist_same(const struct bpred *bp, const struct bpred_hist *h)
{
	return bp->ghist == h->ghist && bp->hist == h->hist;
}

#endif
