/*
 * bpred — branch direction predictor (see bpred.h for the model).
 *
 * Design notes.  State is one byte per site plus, in gshare mode, one byte
 * per pattern-table entry: the hot path is a load, a table lookup for the
 * saturating update and a store.  The mode test is a host branch that never
 * changes within a run, so the host predicts it perfectly.  TAGE keeps its
 * twelve folded histories packed in three words and each site's hash
 * precomputed (bpred.h), so a branch costs about 166 host instructions
 * where the one-register-at-a-time version cost 290 (docs/design/cost-model.md
 * §7); the packed registers equal the scalar ones bit for bit
 * (test_bpred, bpred_check).  Since 2026-12-07 both history predictors
 * do their per-site work at set-up (gshare's site hash is ghash[], like
 * TAGE's tsite[]) and step without data-dependent host branches where
 * the outcome decides: gshare's cold rule and updates through masks and
 * unconditional stores, TAGE's provider, alternate and allocation from
 * 4-bit masks of the tables; test_bpred holds both to a copy of the
 * previous code bit for bit (predictions, tables, dirty flags).
 */
#include "cost/bpred.h"

#include <stdlib.h>
#include <string.h>

#include "base/diag.h"

void bpred_params_default(struct bpred_params *p)
{
	/* bpred.h "Default": the K8/K10 global-history table */
	p->mode = BPRED_GSHARE;
	p->table_bits = 14;
	p->history_bits = 12;
	/* bpred.h BPRED_TAGE: a small TAGE, histories 5 * 2.2^i */
	p->tage_bits = 10;
	p->tage_tag_bits = 9;
	static const int hist[BPRED_TAGE_TABLES] = {5, 11, 24, 52};
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

/* Width of the second tag register. */
#define TAG2_BITS(bp) ((bp)->tag_bits > 1 ? (bp)->tag_bits - 1 : 1)

_Static_assert(BPRED_TAGE_TABLES * 16 <= 64 && BPRED_TAGE_MAX_BITS < 16,
	       "a folded register and its wrap bit fit a 16-bit lane");

/* Lane i of a packed fold word. */
#define LANE(i) (16 * (i))
#define LANE_ONES 0x0001000100010001ull

/* The packed folds' fixed figures (bpred.h struct bpred). */
static void tage_fold_init(struct bpred *bp, const int *hist)
{
	int w[3] = {bp->tage_bits, bp->tag_bits, TAG2_BITS(bp)};
	for (int k = 0; k < 3; k++) {
		bp->fold_w[k] = (uint8_t)w[k];
		bp->fold_mask[k] = bp->fold_out[k] = 0;
		for (int i = 0; i < BPRED_TAGE_TABLES; i++) {
			bp->fold_mask[k] |= ((1ull << w[k]) - 1) << LANE(i);
			bp->fold_out[k] |= 1ull << (hist[i] % w[k] + LANE(i));
		}
	}
	for (int i = 0; i < BPRED_TAGE_TABLES; i++) {
		bp->tage_hist[i] = hist[i];
		bp->hist_m1[i] = (uint8_t)(hist[i] - 1);
	}
}

/*
 * The site's part of table i's index, (hash >> (32 - tage_bits - i)) &
 * mask (a different shift per table spreads one site's entries), and of
 * the tag, (hash >> 7) & mask, for every site (Fibonacci hash of the id).
 */
static void tage_sites_init(struct bpred *bp, int nr_sites)
{
	uint32_t imask = (1u << bp->tage_bits) - 1, tmask = (1u << bp->tag_bits) - 1;
	bp->tag_mask = tmask * LANE_ONES;
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
 */
static inline void tage_push(struct bpred *bp, unsigned taken)
{
	uint64_t g = bp->ghist;
	/* the outcomes leaving the windows, one per lane, then all-ones lanes */
	uint64_t out = ((g >> bp->hist_m1[0]) & 1) | ((g >> bp->hist_m1[1]) & 1) << LANE(1) |
		       ((g >> bp->hist_m1[2]) & 1) << LANE(2) |
		       ((g >> bp->hist_m1[3]) & 1) << LANE(3);
	uint64_t outs = out * 0xFFFFu;
	uint64_t in = (uint64_t)taken * LANE_ONES;
	for (int k = 0; k < 3; k++) {
		uint64_t t = bp->fold[k] << 1 | in;
		bp->fold[k] = ((t & bp->fold_mask[k]) ^ ((t >> bp->fold_w[k]) & LANE_ONES)) ^
			      (outs & bp->fold_out[k]);
	}
	bp->ghist = g << 1 | taken;
}

static void tage_decay(struct bpred *bp)
{
	for (int i = 0; i < BPRED_TAGE_TABLES; i++)
		for (uint32_t j = 0; j < (1u << bp->tage_bits); j++)
			bp->tt[i][j].u >>= 1;
}

/*
 * The four tables' indices and tags at once (lanes as the folds):
 * index = (site part ^ index fold) & mask, tag = (site part ^ tag fold ^
 * second tag fold << 1) & mask -- the paper's two tag registers.
 */
static inline uint64_t tage_indices(const struct bpred *bp, int site)
{
	return (bp->tsite[site].idx ^ bp->fold[BPRED_FOLD_IDX]) & bp->fold_mask[BPRED_FOLD_IDX];
}

static inline uint64_t tage_tags(const struct bpred *bp, int site)
{
	return (bp->tsite[site].tag ^ bp->fold[BPRED_FOLD_TAG] ^ bp->fold[BPRED_FOLD_TAG2] << 1) &
	       bp->tag_mask;
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

/*
 * The TAGE step.  Set up once per site (tsite: its hash's part of the
 * indices and tags) and per history (the packed folds), it finds the
 * provider and the alternate from one 4-bit mask of the tables whose tag
 * matches (the longest two, by table lookups rather than a loop that
 * stops), updates the provider's counters through small tables and
 * picks the table to allocate in from a second mask (the first longer
 * table whose entry is not useful).  The predictions, entries and dirty
 * flags are those of the loop it replaced bit for bit (test_bpred runs
 * both on a long stream).
 */
unsigned bpred_tage_predict_update(struct bpred *bp, int site, unsigned static_taken,
				   unsigned taken)
{
	uint8_t *base = &bp->site[site];
	if (*base == BPRED_COLD) {
		/* a BTB miss: the static rule, then the base counter learns */
		*base = (uint8_t)(1u + taken);
		bp->dirty = 1;
		tage_push(bp, taken);
		return static_taken;
	}
	uint64_t idxs = tage_indices(bp, site), tags = tage_tags(bp, site);
	struct bpred_tage_entry *e[BPRED_TAGE_TABLES];
	unsigned hit = 0, useful = 0;
	for (int i = 0; i < BPRED_TAGE_TABLES; i++) {
		e[i] = &bp->tt[i][LANE_OF(idxs, i)];
		hit |= (unsigned)((e[i]->tag == LANE_OF(tags, i)) & (e[i]->ctr != 0)) << i;
		useful |= (unsigned)(e[i]->u != 0) << i;
	}
	int prov = tage_top[hit], alt = tage_top[tage_rest[hit]];
	unsigned base_pred = *base >> 1;
	unsigned pred;
	uint8_t dirty = 0;
	if (prov >= 0) {
		struct bpred_tage_entry *p = e[prov];
		unsigned alt_pred = alt >= 0 ? e[alt]->ctr >> 2 : base_pred;
		pred = p->ctr >> 2;
		/* usefulness moves only when the provider and the alternate differ */
		uint8_t u = pred != alt_pred ? tage_u_next[p->u << 1 | (pred == taken)] : p->u;
		uint8_t ctr = tage_ctr_next[p->ctr << 1 | taken];
		dirty |= (uint8_t)((u != p->u) | (ctr != p->ctr));
		p->u = u;
		p->ctr = ctr;
	} else {
		pred = base_pred;
		uint8_t nv = bpred_next(*base, taken);
		dirty |= (uint8_t)(nv != *base);
		*base = nv;
	}
	if (pred != taken && prov < BPRED_TAGE_TABLES - 1) {
		unsigned longer = tage_longer[prov + 1];
		unsigned free_ = longer & ~useful;
		if (free_) {
			int j = __builtin_ctz(free_);
			*e[j] = (struct bpred_tage_entry){
				(uint16_t)LANE_OF(tags, j), (uint8_t)(taken ? 4 : 3), 0};
		} else {
			for (int j = prov + 1; j < BPRED_TAGE_TABLES; j++)
				e[j]->u--;
		}
		dirty = 1;
	}
	if (++bp->updates == BPRED_TAGE_U_PERIOD) {
		bp->updates = 0;
		tage_decay(bp);
		dirty = 1;
	}
	bp->dirty |= dirty;
	tage_push(bp, taken);
	return pred;
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
				    bpred_tage_fold(bp->ghist, bp->tage_hist[i], bp->fold_w[k]))
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
