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
}

const char *bpred_mode_name(enum bpred_mode m)
{
	switch (m) {
	case BPRED_BIMODAL:
		return "bimodal";
	case BPRED_GSHARE:
		return "gshare";
	}
	return "unknown";
}

int bpred_init(struct bpred *bp, int nr_sites, const struct bpred_params *p)
{
	memset(bp, 0, sizeof *bp);
	if (nr_sites < 0)
		return NS_EINTERNAL;
	if (p->mode != BPRED_BIMODAL && p->mode != BPRED_GSHARE)
		return NS_ERANGE;
	bp->mode = p->mode;
	bp->nr_sites = nr_sites;
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
	memset(bp, 0, sizeof *bp);
}

void bpred_reset(struct bpred *bp)
{
	memset(bp->site, BPRED_COLD, (size_t)bp->nr_sites + 1);
	if (bp->pht)
		memset(bp->pht, 1, (size_t)bp->table_mask + 1); /* weakly not-taken */
	bp->hist = 0;
}

int bpred_check(const struct bpred *bp)
{
	for (int i = 0; i < bp->nr_sites; i++) {
		uint8_t s = bp->site[i];
		if (bp->mode == BPRED_BIMODAL ? s > BPRED_COLD
					      : (s != 0 && s != BPRED_COLD))
			return NS_EINTERNAL;
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
