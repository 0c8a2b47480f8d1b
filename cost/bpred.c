/*
 * bpred — branch direction predictor (see bpred.h for the model).
 *
 * Design notes.  State is one byte per site plus, in gshare mode, one byte
 * per pattern-table entry: the hot path is a load, a table lookup for the
 * saturating update and a store.  The mode test is a host branch that never
 * changes within a run, so the host predicts it perfectly.  TAGE keeps its
 * twelve folded histories packed in three words and each site's hash
 * precomputed (bpred.h), so a branch cost about 166 host instructions
 * where the one-register-at-a-time version cost 290 (docs/design/cost-model.md
 * §7); the packed registers equal the scalar ones bit for bit
 * (test_bpred, bpred_check).  Both history predictors do their per-site
 * work at set-up (gshare's site hash is ghash[], like TAGE's
 * tsite[]) and step without data-dependent host branches where the
 * outcome decides: gshare's cold rule and updates through masks and
 * unconditional stores, TAGE's provider, alternate and allocation from
 * 4-bit masks of the tables; TAGE's step is instantiated twice, with the
 * default geometry's figures as constants and with the predictor's own
 * (bpred.h "Speed"); test_bpred holds every step to a straightforward
 * reference bit for bit (predictions, tables, dirty flags).
 */
#include "cost/bpred.h"

#include <stdlib.h>
#include <string.h>

#include "base/diag.h"

/* bpred.h BPRED_TAGE, the default geometry: a small TAGE, 2^10 entries,
 * 9-bit tags, histories 5 * 2.2^i (bpred_params_default() and the step
 * instantiated with them as constants, tage_def below) */
#define TAGE_DEF_BITS 10
#define TAGE_DEF_TAG 9
#define TAGE_DEF_H0 5
#define TAGE_DEF_H1 11
#define TAGE_DEF_H2 24
#define TAGE_DEF_H3 52

void bpred_params_default(struct bpred_params *p)
{
	/* bpred.h "Default": the K8/K10 global-history table */
	p->mode = BPRED_GSHARE;
	p->table_bits = 14;
	p->history_bits = 12;
	p->tage_bits = TAGE_DEF_BITS;
	p->tage_tag_bits = TAGE_DEF_TAG;
	static const int hist[BPRED_TAGE_TABLES] = {TAGE_DEF_H0, TAGE_DEF_H1, TAGE_DEF_H2,
						    TAGE_DEF_H3};
	for (int i = 0; i < BPRED_TAGE_TABLES; i++)
		p->tage_hist[i] = hist[i];
}

int bpred_mode_parse(const char *s)
{
	for (int m = BPRED_BIMODAL; m <= BPRED_TAGE; m++)
		if (!strcmp(s, bpred_mode_name((enum bpred_mode)m)))
			return m;
	return -1;
}

const char *bpred_mode_name(enum bpred_mode m)
{
	switch (m) {
	case BPRED_BIMODAL:
		return "bimodal";
	case BPRED_GSHARE:
		return "gshare";
	case BPRED_TAGE:
		return "tage";
	}
	return "unknown";
}

_Static_assert(BPRED_TAGE_TABLES * 16 <= 64 && BPRED_TAGE_MAX_BITS < 16,
	       "a folded register and its wrap bit fit a 16-bit lane");

/* Lane i of a packed fold word. */
#define LANE(i) (16 * (i))
#define LANE_ONES 0x0001000100010001ull

/* The packed folds' figures for widths (index, tag) and histories. */
static void tage_geom_init(struct bpred_tage_geom *g, int tage_bits, int tag_bits,
			   const int *hist)
{
	int w[3] = {tage_bits, tag_bits, tag_bits > 1 ? tag_bits - 1 : 1};
	for (int k = 0; k < 3; k++) {
		g->fold_w[k] = (uint8_t)w[k];
		g->fold_mask[k] = g->fold_out[k] = 0;
		for (int i = 0; i < BPRED_TAGE_TABLES; i++) {
			g->fold_mask[k] |= ((1ull << w[k]) - 1) << LANE(i);
			g->fold_out[k] |= 1ull << (hist[i] % w[k] + LANE(i));
		}
	}
	for (int i = 0; i < BPRED_TAGE_TABLES; i++)
		g->hist_m1[i] = (uint8_t)(hist[i] - 1);
	g->tag_mask = ((1ull << tag_bits) - 1) * LANE_ONES;
}

/*
 * The default geometry's figures as a constant (bpred_params_default():
 * 2^10 entries, 9-bit tags, histories 5, 11, 24, 52), for the step
 * instantiated with them: its masks, widths and shifts become immediates.
 */
#define DEF_MASK(w) (((1ull << (w)) - 1) * LANE_ONES)
#define DEF_OUT(w)                                                             \
	(1ull << (TAGE_DEF_H0 % (w)) | 1ull << (TAGE_DEF_H1 % (w) + 16) |      \
	 1ull << (TAGE_DEF_H2 % (w) + 32) | 1ull << (TAGE_DEF_H3 % (w) + 48))
static const struct bpred_tage_geom tage_def = {
	.fold_mask = {DEF_MASK(TAGE_DEF_BITS), DEF_MASK(TAGE_DEF_TAG), DEF_MASK(TAGE_DEF_TAG - 1)},
	.fold_out = {DEF_OUT(TAGE_DEF_BITS), DEF_OUT(TAGE_DEF_TAG), DEF_OUT(TAGE_DEF_TAG - 1)},
	.tag_mask = DEF_MASK(TAGE_DEF_TAG),
	.fold_w = {TAGE_DEF_BITS, TAGE_DEF_TAG, TAGE_DEF_TAG - 1},
	.hist_m1 = {TAGE_DEF_H0 - 1, TAGE_DEF_H1 - 1, TAGE_DEF_H2 - 1, TAGE_DEF_H3 - 1},
};

static void tage_fold_init(struct bpred *bp, const int *hist)
{
	tage_geom_init(&bp->g, bp->tage_bits, bp->tag_bits, hist);
	bool def = bp->tage_bits == TAGE_DEF_BITS && bp->tag_bits == TAGE_DEF_TAG;
	static const int def_hist[BPRED_TAGE_TABLES] = {TAGE_DEF_H0, TAGE_DEF_H1, TAGE_DEF_H2,
							 TAGE_DEF_H3};
	for (int i = 0; i < BPRED_TAGE_TABLES; i++) {
		bp->tage_hist[i] = hist[i];
		def &= hist[i] == def_hist[i];
	}
	bp->tage_default = def;
}

/*
 * The site's part of table i's index, (hash >> (32 - tage_bits - i)) &
 * mask (a different shift per table spreads one site's entries), and of
 * the tag, (hash >> 7) & mask, for every site (Fibonacci hash of the id).
 */
static void tage_sites_init(struct bpred *bp, int nr_sites)
{
	uint32_t imask = (1u << bp->tage_bits) - 1, tmask = (1u << bp->tag_bits) - 1;
	for (int site = 0; site <= nr_sites; site++) {
		uint32_t h = (uint32_t)site * 2654435769u;
		struct bpred_tage_site *ts = &bp->tsite[site];
		ts->idx = 0;
		for (int i = 0; i < BPRED_TAGE_TABLES; i++)
			ts->idx |= (uint64_t)((h >> (32 - bp->tage_bits - i)) & imask) << LANE(i);
		ts->tag = ((h >> 7) & tmask) * LANE_ONES;
	}
}

int bpred_init(struct bpred *bp, int nr_sites, const struct bpred_params *p)
{
	memset(bp, 0, sizeof *bp);
	if (nr_sites < 0)
		return NS_EINTERNAL;
	if (p->mode != BPRED_BIMODAL && p->mode != BPRED_GSHARE && p->mode != BPRED_TAGE)
		return NS_ERANGE;
	bp->mode = p->mode;
	bp->nr_sites = nr_sites;
	if (p->mode == BPRED_TAGE) {
		if (p->tage_bits < 1 || p->tage_bits > BPRED_TAGE_MAX_BITS ||
		    p->tage_tag_bits < 1 || p->tage_tag_bits > BPRED_TAGE_MAX_BITS)
			return NS_ERANGE;
		for (int i = 0; i < BPRED_TAGE_TABLES; i++)
			if (p->tage_hist[i] < 1 || p->tage_hist[i] > BPRED_TAGE_MAX_HIST ||
			    (i && p->tage_hist[i] <= p->tage_hist[i - 1]))
				return NS_ERANGE;
		bp->tage_bits = p->tage_bits;
		bp->tag_bits = p->tage_tag_bits;
		tage_fold_init(bp, p->tage_hist);
		bp->tsite = malloc(((size_t)nr_sites + 1) * sizeof *bp->tsite);
		if (!bp->tsite)
			return NS_ENOMEM;
		tage_sites_init(bp, nr_sites);
		for (int i = 0; i < BPRED_TAGE_TABLES; i++) {
			bp->tt[i] = malloc(sizeof *bp->tt[i] << p->tage_bits);
			if (!bp->tt[i]) {
				bpred_free(bp);
				return NS_ENOMEM;
			}
		}
	}
	if (p->mode == BPRED_GSHARE) {
		if (p->table_bits < 1 || p->table_bits > 24 ||
		    p->history_bits < 0 || p->history_bits > p->table_bits)
			return NS_ERANGE;
		bp->table_mask = (1u << p->table_bits) - 1;
		bp->hist_mask = (uint32_t)((1ull << p->history_bits) - 1);
		bp->history_bits = p->history_bits;
		bp->pht = malloc((size_t)bp->table_mask + 1);
		bp->ghash = malloc(((size_t)nr_sites + 1) * sizeof *bp->ghash);
		if (!bp->pht || !bp->ghash) {
			bpred_free(bp);
			return NS_ENOMEM;
		}
		for (int site = 0; site <= nr_sites; site++)
			bp->ghash[site] = bpred_gshare_hash(site);
	}
	bp->site = malloc((size_t)nr_sites + 1);
	if (!bp->site) {
		bpred_free(bp);
		return NS_ENOMEM;
	}
	bpred_reset(bp);
	return NS_OK;
}

void bpred_free(struct bpred *bp)
{
	free(bp->site);
	free(bp->pht);
	free(bp->tsite); /* or ghash: one array (bpred.h) */
	for (int i = 0; i < BPRED_TAGE_TABLES; i++)
		free(bp->tt[i]);
	memset(bp, 0, sizeof *bp);
}

void bpred_reset(struct bpred *bp)
{
	memset(bp->site, BPRED_COLD, (size_t)bp->nr_sites + 1);
	if (bp->pht)
		memset(bp->pht, 1, (size_t)bp->table_mask + 1); /* weakly not-taken */
	bp->hist = 0;
	for (int i = 0; i < BPRED_TAGE_TABLES && bp->tt[i]; i++)
		memset(bp->tt[i], 0, sizeof *bp->tt[i] << bp->tage_bits);
	bp->ghist = 0;
	bp->updates = 0;
	bp->dirty = 1;
	memset(bp->fold, 0, sizeof bp->fold);
}

uint32_t bpred_tage_fold(uint64_t ghist, int len, int width)
{
	uint64_t h = len >= 64 ? ghist : ghist & ((1ull << len) - 1);
	uint32_t f = 0;
	for (int at = 0; at < len; at += width)
		f ^= (uint32_t)(h >> at);
	return f & ((1u << width) - 1);
}

/*
 * Push an outcome into the global history and every folded register.
 * Each register is the last L outcomes folded to w bits (bpred_tage_fold:
 * the outcome of age j sits at bit j mod w), so one more outcome rotates
 * it left by one within its w bits, puts the new outcome in at bit 0 and
 * cancels the outcome now L old at bit L mod w (Seznec and Michaud 2006,
 * "folded history").  Packed four tables to a word (bpred.h): the shift,
 * the wrap of bit w to bit 0 and the XORs act on all four lanes at once.
 * g is the geometry: a constant one (tage_def) folds to immediates.
 */
static inline __attribute__((always_inline)) void
tage_push(struct bpred *bp, unsigned taken, const struct bpred_tage_geom *g)
{
	uint64_t h = bp->ghist;
	/* the outcomes leaving the windows, one per lane, then all-ones lanes */
	uint64_t out = ((h >> g->hist_m1[0]) & 1) | ((h >> g->hist_m1[1]) & 1) << LANE(1) |
		       ((h >> g->hist_m1[2]) & 1) << LANE(2) |
		       ((h >> g->hist_m1[3]) & 1) << LANE(3);
	uint64_t outs = out * 0xFFFFu;
	uint64_t in = (uint64_t)taken * LANE_ONES;
	for (int k = 0; k < 3; k++) {
		uint64_t t = bp->fold[k] << 1 | in;
		bp->fold[k] = ((t & g->fold_mask[k]) ^ ((t >> g->fold_w[k]) & LANE_ONES)) ^
			      (outs & g->fold_out[k]);
	}
	bp->ghist = h << 1 | taken;
}

/* Every BPRED_TAGE_U_PERIOD updates: out of line (the step's rare part). */
static __attribute__((noinline, cold)) void tage_decay(struct bpred *bp)
{
	for (int i = 0; i < BPRED_TAGE_TABLES; i++)
		for (uint32_t j = 0; j < (1u << bp->tage_bits); j++)
			bp->tt[i][j].u >>= 1;
}

#define LANE_OF(w, i) ((uint32_t)((w) >> LANE(i)) & 0xFFFFu)

_Static_assert(BPRED_TAGE_TABLES == 4, "the 4-bit table masks below");

/* Of a mask of the four tables: the longest table in it (-1: none), the
 * mask without it, and the tables longer than table i - 1 (index i + 1
 * in 0..4, i = -1 for "no table"). */
static const int8_t tage_top[16] = {-1, 0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3};
static const uint8_t tage_rest[16] = {0, 0, 0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7};
static const uint8_t tage_longer[5] = {0xF, 0xE, 0xC, 0x8, 0x0};

/* The 3-bit counter (1..7; 0 marks an empty entry) and the 2-bit
 * usefulness after an update: [value << 1 | taken] and [u << 1 | right]. */
static const uint8_t tage_ctr_next[16] = {0, 1, 1, 2, 1, 3, 2, 4, 3, 5, 4, 6, 5, 7, 6, 7};
static const uint8_t tage_u_next[8] = {0, 1, 0, 2, 1, 3, 2, 3};

/* An entry as one 32-bit word (little end first: tag, counter, usefulness). */
static inline uint32_t tage_word(const struct bpred_tage_entry *e)
{
	uint32_t w;
	memcpy(&w, e, sizeof w);
	return w;
}

/* Table i's entry at the index lanes idxs. */
static inline struct bpred_tage_entry *tage_entry(const struct bpred *bp, int i, uint64_t idxs)
{
	return &bp->tt[i][LANE_OF(idxs, i)];
}

/*
 * A mispredict that a longer table than the provider prov (-1: none)
 * could have caught: allocate an entry in the first longer table whose
 * entry is not useful, else age the longer tables' entries.  Out of
 * line: about one branch in a thousand of the page allocator's
 * mispredicts, and keeping it in the step made the compiler keep more
 * values live across the whole step.  The entries it reads are in
 * tables longer than prov, which the provider's update did not touch.
 */
static __attribute__((noinline)) void tage_allocate(struct bpred *bp, uint64_t idxs,
						    uint64_t tags, int prov, unsigned taken)
{
	unsigned useful = 0;
	for (int j = 0; j < BPRED_TAGE_TABLES; j++)
		useful |= (unsigned)(tage_entry(bp, j, idxs)->u != 0) << j;
	unsigned free_ = tage_longer[prov + 1] & ~useful;
	if (free_) {
		int j = __builtin_ctz(free_);
		*tage_entry(bp, j, idxs) = (struct bpred_tage_entry){
			(uint16_t)LANE_OF(tags, j), (uint8_t)(taken ? 4 : 3), 0};
	} else {
		for (int j = prov + 1; j < BPRED_TAGE_TABLES; j++)
			tage_entry(bp, j, idxs)->u--;
	}
}

/*
 * The TAGE step, with the geometry g (constant for the default one).
 * Set up once per site (tsite: its hash's part of the indices and tags)
 * and per history (the packed folds), it finds the provider and the
 * alternate from one 4-bit mask of the tables whose tag matches (the
 * longest two, by table lookups rather than a loop that stops), each
 * entry read as one word, and updates the provider's counters through
 * small tables; the rare parts (allocation on a mispredict, the periodic
 * usefulness decay) are calls.  The predictions, entries and dirty
 * flags are those of the straightforward step bit for bit (test_bpred
 * runs both on a long stream).
 */
static inline __attribute__((always_inline)) unsigned
tage_step(struct bpred *bp, int site, unsigned static_taken, unsigned taken,
	  const struct bpred_tage_geom *g)
{
	uint8_t *base = &bp->site[site];
	uint8_t b = *base;
	if (b == BPRED_COLD) {
		/* a BTB miss: the static rule, then the base counter learns */
		*base = (uint8_t)(1u + taken);
		bp->dirty = 1;
		tage_push(bp, taken, g);
		return static_taken;
	}
	const struct bpred_tage_site *ts = &bp->tsite[site];
	uint64_t idxs = (ts->idx ^ bp->fold[BPRED_FOLD_IDX]) & g->fold_mask[BPRED_FOLD_IDX];
	uint64_t tags = (ts->tag ^ bp->fold[BPRED_FOLD_TAG] ^ bp->fold[BPRED_FOLD_TAG2] << 1) &
			g->tag_mask;
	unsigned hit = 0;
	for (int i = 0; i < BPRED_TAGE_TABLES; i++) {
		uint32_t w = tage_word(tage_entry(bp, i, idxs));
		/* the tag matches and the counter is not 0 (an empty entry) */
		hit |= (unsigned)(((w ^ LANE_OF(tags, i)) & 0xFFFFu) == 0 && (w & 0xFF0000u)) << i;
	}
	unsigned base_pred = b >> 1;
	unsigned pred;
	uint8_t dirty = bp->dirty;
	int prov = tage_top[hit];
	if (prov >= 0) {
		int alt = tage_top[tage_rest[hit]];
		struct bpred_tage_entry *p = tage_entry(bp, prov, idxs);
		unsigned alt_pred = alt >= 0 ? tage_entry(bp, alt, idxs)->ctr >> 2 : base_pred;
		uint8_t pu = p->u, pc = p->ctr;
		pred = pc >> 2;
		/* usefulness moves only when the provider and the alternate differ */
		uint8_t u = pred != alt_pred ? tage_u_next[pu << 1 | (pred == taken)] : pu;
		uint8_t ctr = tage_ctr_next[pc << 1 | taken];
		dirty |= (uint8_t)((u != pu) | (ctr != pc));
		p->u = u;
		p->ctr = ctr;
	} else {
		pred = base_pred;
		uint8_t nv = bpred_next(b, taken);
		dirty |= (uint8_t)(nv != b);
		*base = nv;
	}
	if (__builtin_expect(pred != taken, 0) && prov < BPRED_TAGE_TABLES - 1) {
		tage_allocate(bp, idxs, tags, prov, taken);
		dirty = 1;
	}
	if (__builtin_expect(++bp->updates == BPRED_TAGE_U_PERIOD, 0)) {
		bp->updates = 0;
		tage_decay(bp);
		dirty = 1;
	}
	bp->dirty = dirty;
	tage_push(bp, taken, g);
	return pred;
}

/* The step with the default geometry's figures as constants, else with
 * the predictor's own (one host branch that never changes in a run). */
unsigned bpred_tage_predict_update(struct bpred *bp, int site, unsigned static_taken,
				   unsigned taken)
{
	if (bp->tage_default)
		return tage_step(bp, site, static_taken, taken, &tage_def);
	return tage_step(bp, site, static_taken, taken, &bp->g);
}

int bpred_check(const struct bpred *bp)
{
	for (int i = 0; i < bp->nr_sites; i++) {
		uint8_t s = bp->site[i];
		if (bp->mode != BPRED_GSHARE ? s > BPRED_COLD
					     : (s != 0 && s != BPRED_COLD))
			return NS_EINTERNAL;
	}
	if (bp->mode == BPRED_TAGE) {
		for (int i = 0; i < BPRED_TAGE_TABLES; i++) {
			if (!bp->tt[i])
				return NS_EINTERNAL;
			for (int k = 0; k < 3; k++)
				if (((bp->fold[k] >> LANE(i)) & 0xFFFFu) !=
				    bpred_tage_fold(bp->ghist, bp->tage_hist[i], bp->g.fold_w[k]))
					return NS_EINTERNAL;
			for (uint32_t j = 0; j < (1u << bp->tage_bits); j++) {
				const struct bpred_tage_entry *e = &bp->tt[i][j];
				if (e->ctr > 7 || e->u > 3 || e->tag >> bp->tag_bits)
					return NS_EINTERNAL;
			}
		}
		return bp->updates < BPRED_TAGE_U_PERIOD ? NS_OK : NS_EINTERNAL;
	}
	if (bp->mode == BPRED_GSHARE) {
		if (!bp->pht || !bp->ghash || (bp->hist & ~bp->hist_mask))
			return NS_EINTERNAL;
		for (int i = 0; i <= bp->nr_sites; i++)
			if (bp->ghash[i] != bpred_gshare_hash(i))
				return NS_EINTERNAL;
		for (uint32_t i = 0; i <= bp->table_mask; i++)
			if (bp->pht[i] > 3)
				return NS_EINTERNAL;
	} else if (bp->pht || bp->hist) {
		return NS_EINTERNAL;
	}
	return NS_OK;
}
