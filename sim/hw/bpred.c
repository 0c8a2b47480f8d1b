/*
 * bpred — branch direction predictor (see bpred.h for the model).
 *
 * Design notes.  State is one byte per site plus, in gshare mode, one byte
 * per pattern-table entry: the hot path is a load, a table lookup for the
 * saturating update and a store.  The mode test is a host branch that never
 * changes within a run, so the host predicts it perfectly.
 */
#include "sim/hw/bpred.h"

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
		if (p->tage_bits < 1 || p->tage_bits > 20 || p->tage_tag_bits < 1 ||
		    p->tage_tag_bits > 16)
			return NS_ERANGE;
		for (int i = 0; i < BPRED_TAGE_TABLES; i++)
			if (p->tage_hist[i] < 1 || p->tage_hist[i] > BPRED_TAGE_MAX_HIST ||
			    (i && p->tage_hist[i] <= p->tage_hist[i - 1]))
				return NS_ERANGE;
		bp->tage_bits = p->tage_bits;
		bp->tag_bits = p->tage_tag_bits;
		for (int i = 0; i < BPRED_TAGE_TABLES; i++) {
			bp->tage_hist[i] = p->tage_hist[i];
			bp->oidx[i] = (uint8_t)(p->tage_hist[i] % p->tage_bits);
			bp->otag[i] = (uint8_t)(p->tage_hist[i] % p->tage_tag_bits);
			bp->otag2[i] = (uint8_t)(p->tage_hist[i] %
						 (p->tage_tag_bits > 1 ? p->tage_tag_bits - 1 : 1));
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
		if (!bp->pht)
			return NS_ENOMEM;
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
	memset(bp->fidx, 0, sizeof bp->fidx);
	memset(bp->ftag, 0, sizeof bp->ftag);
	memset(bp->ftag2, 0, sizeof bp->ftag2);
}

/*
 * Fold one more outcome into a register that holds the last len outcomes
 * folded (XOR of bits-wide chunks, each rotated by its position) to bits
 * bits: shift in the new outcome, cancel the one leaving the window, wrap
 * the bit shifted out (Seznec and Michaud 2006, "folded history").
 */
static uint32_t fold_push(uint32_t f, unsigned in, unsigned out, int out_at, int bits)
{
	f = (f << 1) | in;
	f ^= out << out_at;
	f ^= f >> bits;
	return f & ((1u << bits) - 1);
}

/* Width of the second tag register. */
#define TAG2_BITS(bp) ((bp)->tag_bits > 1 ? (bp)->tag_bits - 1 : 1)

/* Push an outcome into the global history and every folded register. */
static void tage_push(struct bpred *bp, unsigned taken)
{
	for (int i = 0; i < BPRED_TAGE_TABLES; i++) {
		int L = bp->tage_hist[i];
		unsigned out = (unsigned)(bp->ghist >> (L - 1)) & 1u;
		bp->fidx[i] = fold_push(bp->fidx[i], taken, out, bp->oidx[i], bp->tage_bits);
		bp->ftag[i] = fold_push(bp->ftag[i], taken, out, bp->otag[i], bp->tag_bits);
		bp->ftag2[i] = fold_push(bp->ftag2[i], taken, out, bp->otag2[i], TAG2_BITS(bp));
	}
	bp->ghist = (bp->ghist << 1) | taken;
}

static void tage_index(const struct bpred *bp, int site, int i, uint32_t *idx,
		       uint16_t *tag)
{
	uint32_t h = (uint32_t)site * 2654435769u;
	uint32_t imask = (1u << bp->tage_bits) - 1, tmask = (1u << bp->tag_bits) - 1;
	/* a different shift of the site hash per table spreads one site's
	 * entries; the tag uses two foldings (the paper's two registers) */
	*idx = ((h >> (32 - bp->tage_bits - i)) ^ bp->fidx[i]) & imask;
	*tag = (uint16_t)(((h >> 7) ^ bp->ftag[i] ^ (bp->ftag2[i] << 1)) & tmask);
}

static void tage_decay(struct bpred *bp)
{
	for (int i = 0; i < BPRED_TAGE_TABLES; i++)
		for (uint32_t j = 0; j < (1u << bp->tage_bits); j++)
			bp->tt[i][j].u >>= 1;
}

unsigned bpred_tage_predict_update(struct bpred *bp, int site, unsigned static_taken,
				   unsigned taken)
{
	uint8_t *base = &bp->site[site];
	unsigned pred;
	if (*base == BPRED_COLD) {
		/* a BTB miss: the static rule, then the base counter learns */
		*base = (uint8_t)(1u + taken);
		tage_push(bp, taken);
		return static_taken;
	}
	uint32_t idx[BPRED_TAGE_TABLES];
	uint16_t tag[BPRED_TAGE_TABLES];
	int prov = -1, alt = -1;
	for (int i = BPRED_TAGE_TABLES - 1; i >= 0; i--) {
		tage_index(bp, site, i, &idx[i], &tag[i]);
		if (bp->tt[i][idx[i]].tag == tag[i] && bp->tt[i][idx[i]].ctr) {
			if (prov < 0)
				prov = i;
			else if (alt < 0)
				alt = i;
		}
	}
	unsigned base_pred = *base >> 1;
	unsigned alt_pred = alt >= 0 ? bp->tt[alt][idx[alt]].ctr >= 4 : base_pred;
	if (prov >= 0) {
		struct bpred_tage_entry *e = &bp->tt[prov][idx[prov]];
		pred = e->ctr >= 4;
		if (pred != alt_pred)
			e->u = pred == taken ? (uint8_t)(e->u + (e->u < 3))
					     : (uint8_t)(e->u - (e->u > 0));
		/* 3-bit counter 1..7 (0 marks an empty entry) */
		if (taken)
			e->ctr = (uint8_t)(e->ctr + (e->ctr < 7));
		else
			e->ctr = (uint8_t)(e->ctr - (e->ctr > 1));
	} else {
		pred = base_pred;
		*base = bpred_next(*base, taken);
	}
	if (pred != taken && prov < BPRED_TAGE_TABLES - 1) {
		int j = prov + 1;
		while (j < BPRED_TAGE_TABLES && bp->tt[j][idx[j]].u)
			j++;
		if (j < BPRED_TAGE_TABLES) {
			bp->tt[j][idx[j]] = (struct bpred_tage_entry){
				tag[j], (uint8_t)(taken ? 4 : 3), 0};
		} else {
			for (j = prov + 1; j < BPRED_TAGE_TABLES; j++)
				bp->tt[j][idx[j]].u--;
		}
	}
	if (++bp->updates == BPRED_TAGE_U_PERIOD) {
		bp->updates = 0;
		tage_decay(bp);
	}
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
			for (uint32_t j = 0; j < (1u << bp->tage_bits); j++) {
				const struct bpred_tage_entry *e = &bp->tt[i][j];
				if (e->ctr > 7 || e->u > 3 || e->tag >> bp->tag_bits)
					return NS_EINTERNAL;
			}
		}
		return bp->updates < BPRED_TAGE_U_PERIOD ? NS_OK : NS_EINTERNAL;
	}
	if (bp->mode == BPRED_GSHARE) {
		if (!bp->pht || (bp->hist & ~bp->hist_mask))
			return NS_EINTERNAL;
		for (uint32_t i = 0; i <= bp->table_mask; i++)
			if (bp->pht[i] > 3)
				return NS_EINTERNAL;
	} else if (bp->pht || bp->hist) {
		return NS_EINTERNAL;
	}
	return NS_OK;
}
