/* Tests for cost/bpred: cold static rule, 2-bit counters, gshare history,
 * TAGE; the set-up-time, branch-free steps (TAGE's with the default
 * geometry as constants and the generic one) against straightforward
 * references. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cost/bpred.h"
#include "base/diag.h"

/* Run n outcomes (taken space) of one site; return the mispredicts. */
static int run(struct bpred *bp, int site, unsigned static_taken,
	       const unsigned *pattern, int plen, int n, int skip)
{
	int miss = 0;
	for (int i = 0; i < n; i++) {
		unsigned t = pattern[i % plen];
		unsigned p = bpred_predict_update(bp, site, static_taken, t);
		if (i >= skip)
			miss += p != t;
	}
	return miss;
}

static void test_cold_static_rule(void **state)
{
	(void)state;
	struct bpred_params p;
	bpred_params_default(&p);
	p.mode = BPRED_BIMODAL;
	struct bpred bp;
	assert_int_equal(bpred_init(&bp, 4, &p), NS_OK);
	/* cold: the static prediction is used whatever the outcome */
	assert_int_equal(bpred_predict_update(&bp, 0, 0, 1), 0);
	assert_int_equal(bpred_predict_update(&bp, 1, 1, 0), 1);
	/* then the counter is weak in the direction seen */
	assert_int_equal(bp.site[0], 2);
	assert_int_equal(bp.site[1], 1);
	assert_int_equal(bp.site[2], BPRED_COLD);
	assert_int_equal(bpred_check(&bp), NS_OK);
	bpred_reset(&bp);
	assert_int_equal(bp.site[0], BPRED_COLD);
	bpred_free(&bp);
}

static void test_always_taken_learns(void **state)
{
	(void)state;
	struct bpred_params p;
	bpred_params_default(&p);
	p.mode = BPRED_BIMODAL;
	struct bpred bp;
	assert_int_equal(bpred_init(&bp, 2, &p), NS_OK);
	const unsigned taken[] = {1};
	/* cold predicts not-taken: one mispredict, then never again */
	assert_int_equal(run(&bp, 0, 0, taken, 1, 1000, 0), 1);
	/* hinted the right way: never */
	assert_int_equal(run(&bp, 1, 1, taken, 1, 1000, 0), 0);
	/* one excursion from a strong counter costs one mispredict, not two */
	const unsigned once_not[] = {0};
	assert_int_equal(run(&bp, 0, 0, once_not, 1, 1, 0), 1);
	assert_int_equal(run(&bp, 0, 0, taken, 1, 100, 0), 0);
	bpred_free(&bp);
}

static void test_alternating_bimodal(void **state)
{
	(void)state;
	struct bpred_params p;
	bpred_params_default(&p);
	p.mode = BPRED_BIMODAL;
	struct bpred bp;
	assert_int_equal(bpred_init(&bp, 1, &p), NS_OK);
	/*
	 * N,T,N,T...: cold N predicted right (static not-taken), counter := 1;
	 * T: predict N (miss) -> 2; N: predict T (miss) -> 1; ... every later
	 * branch mispredicts: 99 of 100.
	 */
	const unsigned alt[] = {0, 1};
	assert_int_equal(run(&bp, 0, 0, alt, 2, 100, 0), 99);
	/* from a strong state the 2-bit counter mispredicts half of them */
	bpred_reset(&bp);
	const unsigned t[] = {1};
	run(&bp, 0, 0, t, 1, 10, 0);          /* counter saturates at 3 */
	const unsigned alt2[] = {0, 1};       /* N: miss ->2, T: hit ->3 */
	assert_int_equal(run(&bp, 0, 0, alt2, 2, 100, 0), 50);
	assert_int_equal(bpred_check(&bp), NS_OK);
	bpred_free(&bp);
}

static void test_gshare_learns_alternation(void **state)
{
	(void)state;
	struct bpred_params p = {.mode = BPRED_GSHARE, .table_bits = 10, .history_bits = 4};
	struct bpred bp;
	assert_int_equal(bpred_init(&bp, 3, &p), NS_OK);
	const unsigned alt[] = {0, 1};
	int warm = run(&bp, 0, 0, alt, 2, 20, 0);
	assert_true(warm >= 1 && warm <= 8);
	assert_int_equal(run(&bp, 0, 0, alt, 2, 1000, 0), 0);
	/* period-3 pattern needs history too: learnt as well */
	const unsigned p3[] = {1, 1, 0};
	run(&bp, 1, 0, p3, 3, 60, 0);
	assert_int_equal(run(&bp, 1, 0, p3, 3, 999, 0), 0);
	assert_int_equal(bpred_check(&bp), NS_OK);
	bpred_free(&bp);

	/* without history gshare is bimodal with aliasing: still fails */
	struct bpred_params p0 = {.mode = BPRED_GSHARE, .table_bits = 10, .history_bits = 0};
	assert_int_equal(bpred_init(&bp, 1, &p0), NS_OK);
	assert_true(run(&bp, 0, 0, alt, 2, 1000, 100) >= 450);
	bpred_free(&bp);
}

/*
 * The default predictor is gshare (K8 table, K10 history) and captures call
 * context: site 0 is reached after site 1 with outcome 0 and after site 2
 * with outcome 1 (v4.6's `nodes == NULL` test in next_zones_zonelist, once
 * for the preferred-zone lookup and once for the zone loop).  A per-site
 * 2-bit counter mispredicts it every other time.
 */
static int run_context(struct bpred *bp, int iters, int skip)
{
	int miss = 0;
	for (int i = 0; i < iters; i++) {
		bpred_predict_update(bp, 1, 0, 1);
		unsigned p = bpred_predict_update(bp, 0, 0, 0);
		miss += i >= skip && p != 0;
		bpred_predict_update(bp, 2, 0, 0);
		bpred_predict_update(bp, 3, 0, 1);
		p = bpred_predict_update(bp, 0, 0, 1);
		miss += i >= skip && p != 1;
	}
	return miss;
}

static void test_default_gshare_call_context(void **state)
{
	(void)state;
	struct bpred_params p;
	bpred_params_default(&p);
	assert_int_equal(p.mode, BPRED_GSHARE);
	assert_int_equal(p.table_bits, 14);
	assert_int_equal(p.history_bits, 12);
	struct bpred bp;
	assert_int_equal(bpred_init(&bp, 4, &p), NS_OK);
	int warm = run_context(&bp, 20, 0);
	assert_true(warm >= 1 && warm <= 12);
	assert_int_equal(run_context(&bp, 1000, 0), 0);
	assert_int_equal(bpred_check(&bp), NS_OK);
	bpred_free(&bp);
	p.mode = BPRED_BIMODAL;
	assert_int_equal(bpred_init(&bp, 4, &p), NS_OK);
	run_context(&bp, 20, 0);
	assert_true(run_context(&bp, 1000, 0) >= 1000);
	bpred_free(&bp);
}

static void test_params_and_check(void **state)
{
	(void)state;
	struct bpred bp;
	struct bpred_params bad = {.mode = BPRED_GSHARE, .table_bits = 0, .history_bits = 0};
	assert_int_equal(bpred_init(&bp, 1, &bad), NS_ERANGE);
	bad.table_bits = 8;
	bad.history_bits = 9;
	assert_int_equal(bpred_init(&bp, 1, &bad), NS_ERANGE);
	bad.mode = (enum bpred_mode)9;
	assert_int_equal(bpred_init(&bp, 1, &bad), NS_ERANGE);
	struct bpred_params p;
	bpred_params_default(&p);
	assert_int_equal(bpred_init(&bp, 2, &p), NS_OK);
	bp.site[1] = 9;
	assert_int_equal(bpred_check(&bp), NS_EINTERNAL);
	bpred_free(&bp);
	assert_string_equal(bpred_mode_name(BPRED_GSHARE), "gshare");
}


/* xorshift64: the tests' own deterministic outcomes */
static uint64_t xs(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * 6000 sites, each with a fixed direction, run in a fixed order: every
 * site sees one history, and gshare's 2^14 untagged counters, indexed by
 * hash(site) XOR 12 history bits, give some pairs of opposite sites the
 * same counter (aliasing).  TAGE predicts each from its own base counter.
 */
static int run_many_sites(struct bpred *bp, int rounds, int skip)
{
	int miss = 0;
	for (int r = 0; r < rounds; r++) {
		uint64_t x = 88172645463325252ull;
		for (int s = 0; s < 6000; s++) {
			unsigned t = (unsigned)(xs(&x) >> 63);
			unsigned p = bpred_predict_update(bp, s, 0, t);
			if (r >= skip)
				miss += p != t;
		}
	}
	return miss;
}

static void test_tage_no_aliasing(void **state)
{
	(void)state;
	struct bpred_params p;
	bpred_params_default(&p);
	struct bpred g, t;
	assert_int_equal(bpred_init(&g, 6000, &p), NS_OK);
	p.mode = BPRED_TAGE;
	assert_int_equal(bpred_init(&t, 6000, &p), NS_OK);
	int gm = run_many_sites(&g, 10, 2), tm = run_many_sites(&t, 10, 2);
	print_message("many sites, rounds 3-10: gshare %d, tage %d mispredicts of %d\n",
		      gm, tm, 8 * 6000);
	assert_true(gm > 8 * 6000 / 100);  /* over 1 % */
	assert_int_equal(tm, 0);
	assert_int_equal(bpred_check(&g), NS_OK);
	assert_int_equal(bpred_check(&t), NS_OK);
	bpred_free(&g);
	bpred_free(&t);
}

/*
 * Site 1's outcome repeats site 0's random outcome of 20 branches earlier,
 * with 19 always-taken branches (site 2) in between: beyond gshare's 12
 * history bits, within TAGE's 24- and 52-outcome tables.
 */
static int run_far_correlation(struct bpred *bp, int n, int skip)
{
	uint64_t x = 1234567;
	int miss = 0;
	for (int i = 0; i < n; i++) {
		unsigned a = (unsigned)(xs(&x) >> 63);
		bpred_predict_update(bp, 0, 0, a);
		for (int k = 0; k < 19; k++)
			bpred_predict_update(bp, 2, 0, 1);
		unsigned p = bpred_predict_update(bp, 1, 0, a);
		if (i >= skip)
			miss += p != a;
	}
	return miss;
}

static void test_tage_long_history(void **state)
{
	(void)state;
	struct bpred_params p;
	bpred_params_default(&p);
	struct bpred g, t;
	assert_int_equal(bpred_init(&g, 3, &p), NS_OK);
	p.mode = BPRED_TAGE;
	assert_int_equal(bpred_init(&t, 3, &p), NS_OK);
	int gm = run_far_correlation(&g, 4000, 2000);
	int tm = run_far_correlation(&t, 4000, 2000);
	print_message("correlation 20 back, last 2000: gshare %d, tage %d mispredicts\n", gm, tm);
	assert_true(gm > 2000 * 35 / 100); /* a coin: about half */
	assert_true(tm < 2000 * 5 / 100);
	assert_int_equal(bpred_check(&t), NS_OK);
	bpred_free(&g);
	bpred_free(&t);
}

static void test_tage_params(void **state)
{
	(void)state;
	struct bpred_params p;
	bpred_params_default(&p);
	p.mode = BPRED_TAGE;
	struct bpred bp;
	p.tage_hist[2] = p.tage_hist[1];   /* not ascending */
	assert_int_equal(bpred_init(&bp, 1, &p), NS_ERANGE);
	bpred_params_default(&p);
	p.mode = BPRED_TAGE;
	assert_int_equal(bpred_init(&bp, 2, &p), NS_OK);
	assert_int_equal(bpred_predict_update(&bp, 0, 1, 0), 1); /* cold: static */
	bp.tt[1][5].ctr = 9;
	assert_int_equal(bpred_check(&bp), NS_EINTERNAL);
	bpred_free(&bp);
	assert_int_equal(bpred_mode_parse("tage"), BPRED_TAGE);
	assert_int_equal(bpred_mode_parse("gshare"), BPRED_GSHARE);
	assert_int_equal(bpred_mode_parse("perceptron"), -1);
	assert_string_equal(bpred_mode_name(BPRED_TAGE), "tage");
}

/* The scalar folded-history register of the first TAGE model (one
 * register per table and kind, one outcome at a time): the reference the
 * packed registers must equal bit for bit. */
static uint32_t ref_fold_push(uint32_t f, unsigned in, unsigned out, int out_at, int bits)
{
	f = (f << 1) | in;
	f ^= out << out_at;
	f ^= f >> bits;
	return f & ((1u << bits) - 1);
}

static void check_packed_folds(int tage_bits, int tag_bits, const int *hist, int steps)
{
	struct bpred_params p;
	bpred_params_default(&p);
	p.mode = BPRED_TAGE;
	p.tage_bits = tage_bits;
	p.tage_tag_bits = tag_bits;
	for (int i = 0; i < BPRED_TAGE_TABLES; i++)
		p.tage_hist[i] = hist[i];
	struct bpred bp;
	assert_int_equal(bpred_init(&bp, 64, &p), NS_OK);
	int w[3] = {tage_bits, tag_bits, tag_bits > 1 ? tag_bits - 1 : 1};
	uint32_t ref[3][BPRED_TAGE_TABLES] = {{0}};
	uint64_t g = 0, x = 0x9E3779B97F4A7C15ull;
	for (int n = 0; n < steps; n++) {
		unsigned t = (unsigned)(xs(&x) >> 63);
		int site = (int)(xs(&x) % 64);
		(void)bpred_predict_update(&bp, site, 0, t);
		for (int i = 0; i < BPRED_TAGE_TABLES; i++) {
			unsigned out = (unsigned)(g >> (hist[i] - 1)) & 1u;
			for (int k = 0; k < 3; k++)
				ref[k][i] = ref_fold_push(ref[k][i], t, out, hist[i] % w[k], w[k]);
		}
		g = g << 1 | t;
		assert_true(bp.ghist == g);
		for (int k = 0; k < 3; k++)
			for (int i = 0; i < BPRED_TAGE_TABLES; i++) {
				assert_int_equal((bp.fold[k] >> (16 * i)) & 0xFFFFu, ref[k][i]);
				assert_int_equal(bpred_tage_fold(g, hist[i], w[k]), ref[k][i]);
			}
	}
	assert_int_equal(bpred_check(&bp), NS_OK);
	bp.fold[BPRED_FOLD_TAG] ^= 1u << 16;  /* table 1's tag fold corrupted */
	assert_int_equal(bpred_check(&bp), NS_EINTERNAL);
	bpred_free(&bp);
}

static void test_tage_packed_folds(void **state)
{
	(void)state;
	static const int def[BPRED_TAGE_TABLES] = {5, 11, 24, 52};
	static const int edge[BPRED_TAGE_TABLES] = {1, 15, 16, 64};
	check_packed_folds(10, 9, def, 5000);
	check_packed_folds(15, 15, edge, 3000);
	check_packed_folds(1, 1, def, 3000);
	check_packed_folds(7, 2, edge, 3000);
	/* a fold wider than a lane holds is refused */
	struct bpred_params p;
	struct bpred bp;
	bpred_params_default(&p);
	p.mode = BPRED_TAGE;
	p.tage_bits = BPRED_TAGE_MAX_BITS + 1;
	assert_int_equal(bpred_init(&bp, 1, &p), NS_ERANGE);
	bpred_params_default(&p);
	p.mode = BPRED_TAGE;
	p.tage_tag_bits = BPRED_TAGE_MAX_BITS + 1;
	assert_int_equal(bpred_init(&bp, 1, &p), NS_ERANGE);
}

/*
 * Reference predictors: gshare and TAGE as first written (a site's hash
 * computed at every branch, the folds from their definition, the
 * provider found by a loop over the tables, every update behind a test),
 * kept here to hold the set-up-time, branch-free step of cost/bpred.c to
 * the same predictions, table states and dirty flags bit for bit.
 */
#define REF_SITES 700

struct ref_pred {
	enum bpred_mode mode;
	uint8_t site[REF_SITES + 1];
	/* gshare */
	uint8_t pht[1u << 14];
	uint32_t table_mask, hist_mask, hist;
	/* tage */
	struct bpred_tage_entry tt[BPRED_TAGE_TABLES][1u << 10];
	int bits, tbits, thist[BPRED_TAGE_TABLES];
	uint64_t ghist;
	uint32_t updates;
	uint8_t dirty;
};

static void ref_init(struct ref_pred *r, const struct bpred_params *p)
{
	memset(r, 0, sizeof *r);
	r->mode = p->mode;
	memset(r->site, BPRED_COLD, sizeof r->site);
	r->table_mask = (1u << p->table_bits) - 1;
	r->hist_mask = (1u << p->history_bits) - 1;
	memset(r->pht, 1, sizeof r->pht);
	r->bits = p->tage_bits;
	r->tbits = p->tage_tag_bits;
	for (int i = 0; i < BPRED_TAGE_TABLES; i++)
		r->thist[i] = p->tage_hist[i];
	r->dirty = 1;
}

static unsigned ref_gshare(struct ref_pred *r, int site, unsigned static_taken,
			   unsigned taken)
{
	uint32_t h = (uint32_t)site * 2654435769u;
	unsigned i = ((h >> 16) ^ h ^ r->hist) & r->table_mask;
	unsigned pred;
	if (r->site[site] == BPRED_COLD) {
		pred = static_taken;
		r->site[site] = 0;
		r->dirty = 1;
	} else {
		pred = r->pht[i] >> 1;
	}
	uint8_t o = r->pht[i], nv = bpred_next(o, taken);
	if (nv != o) {
		r->pht[i] = nv;
		r->dirty = 1;
	}
	r->hist = ((r->hist << 1) | taken) & r->hist_mask;
	return pred;
}

static unsigned ref_bimodal(struct ref_pred *r, int site, unsigned static_taken,
			    unsigned taken)
{
	uint8_t *s = &r->site[site];
	unsigned pred;
	if (*s == BPRED_COLD) {
		pred = static_taken;
		*s = (uint8_t)(1u + taken);
		r->dirty = 1;
		return pred;
	}
	pred = *s >= 2;
	uint8_t nv = taken ? (uint8_t)(*s + (*s < 3)) : (uint8_t)(*s - (*s > 0));
	if (nv != *s) {
		*s = nv;
		r->dirty = 1;
	}
	return pred;
}

static unsigned ref_tage(struct ref_pred *r, int site, unsigned static_taken,
			 unsigned taken)
{
	uint8_t *base = &r->site[site];
	unsigned pred;
	if (*base == BPRED_COLD) {
		*base = (uint8_t)(1u + taken);
		r->dirty = 1;
		r->ghist = r->ghist << 1 | taken;
		return static_taken;
	}
	uint32_t h = (uint32_t)site * 2654435769u;
	uint32_t imask = (1u << r->bits) - 1, tmask = (1u << r->tbits) - 1;
	int t2 = r->tbits > 1 ? r->tbits - 1 : 1;
	uint32_t tag[BPRED_TAGE_TABLES];
	struct bpred_tage_entry *e[BPRED_TAGE_TABLES];
	int prov = -1, alt = -1;
	for (int i = BPRED_TAGE_TABLES - 1; i >= 0; i--) {
		uint32_t idx = (((h >> (32 - r->bits - i)) & imask) ^
				bpred_tage_fold(r->ghist, r->thist[i], r->bits)) & imask;
		tag[i] = (((h >> 7) & tmask) ^ bpred_tage_fold(r->ghist, r->thist[i], r->tbits) ^
			  bpred_tage_fold(r->ghist, r->thist[i], t2) << 1) & tmask;
		e[i] = &r->tt[i][idx];
		if (e[i]->tag == tag[i] && e[i]->ctr) {
			if (prov < 0)
				prov = i;
			else if (alt < 0)
				alt = i;
		}
	}
	unsigned base_pred = *base >> 1;
	unsigned alt_pred = alt >= 0 ? e[alt]->ctr >= 4 : base_pred;
	if (prov >= 0) {
		struct bpred_tage_entry *p = e[prov];
		struct bpred_tage_entry was = *p;
		pred = p->ctr >= 4;
		if (pred != alt_pred)
			p->u = pred == taken ? (uint8_t)(p->u + (p->u < 3))
					     : (uint8_t)(p->u - (p->u > 0));
		if (taken)
			p->ctr = (uint8_t)(p->ctr + (p->ctr < 7));
		else
			p->ctr = (uint8_t)(p->ctr - (p->ctr > 1));
		if (was.u != p->u || was.ctr != p->ctr)
			r->dirty = 1;
	} else {
		pred = base_pred;
		uint8_t nv = bpred_next(*base, taken);
		if (nv != *base) {
			*base = nv;
			r->dirty = 1;
		}
	}
	if (pred != taken && prov < BPRED_TAGE_TABLES - 1) {
		int j = prov + 1;
		while (j < BPRED_TAGE_TABLES && e[j]->u)
			j++;
		if (j < BPRED_TAGE_TABLES) {
			*e[j] = (struct bpred_tage_entry){(uint16_t)tag[j],
							  (uint8_t)(taken ? 4 : 3), 0};
		} else {
			for (j = prov + 1; j < BPRED_TAGE_TABLES; j++)
				e[j]->u--;
		}
		r->dirty = 1;
	}
	if (++r->updates == BPRED_TAGE_U_PERIOD) {
		r->updates = 0;
		for (int i = 0; i < BPRED_TAGE_TABLES; i++)
			for (uint32_t j = 0; j <= imask; j++)
				r->tt[i][j].u >>= 1;
		r->dirty = 1;
	}
	r->ghist = r->ghist << 1 | taken;
	return pred;
}

/*
 * A long stream of branches over REF_SITES sites of mixed kinds (biased,
 * repeating a pattern, following an earlier outcome, random), each with
 * a random static prediction, into both the predictor under test and
 * the reference: every prediction and dirty flag equal, and the tables
 * equal at the end.  Also run with the mode chosen at run time.
 */
static void check_against_ref(enum bpred_mode mode, int steps, bool generic)
{
	struct bpred_params p;
	bpred_params_default(&p);
	p.mode = mode;
	struct bpred bp;
	assert_int_equal(bpred_init(&bp, REF_SITES, &p), NS_OK);
	/* TAGE's default geometry runs the step with constant figures;
	 * generic: the one that reads them from bp->g */
	assert_int_equal(bp.tage_default, mode == BPRED_TAGE);
	if (generic)
		bp.tage_default = 0;
	static struct ref_pred r;
	ref_init(&r, &p);
	uint64_t x = 0xC0FFEE123ull + (uint64_t)mode;
	unsigned last = 0, misses = 0;
	for (int n = 0; n < steps; n++) {
		uint64_t v = xs(&x);
		/* hot sites far more often than cold ones */
		int site = (int)((v & 0xffff) % (v >> 63 ? 40 : REF_SITES + 1));
		unsigned t;
		switch (site % 4) {
		case 0: t = (unsigned)((v >> 20) % 16 != 0); break;   /* biased */
		case 1: t = (unsigned)((n / 3) & 1); break;           /* pattern */
		case 2: t = last; break;                              /* correlated */
		default: t = (unsigned)(v >> 40) & 1u; break;         /* random */
		}
		unsigned st = (unsigned)(site * 7 % 3 == 0);
		bp.dirty = 0;
		r.dirty = 0;
		unsigned got = bpred_predict_update(&bp, site, st, t);
		unsigned want = mode == BPRED_TAGE    ? ref_tage(&r, site, st, t)
				: mode == BPRED_GSHARE ? ref_gshare(&r, site, st, t)
						       : ref_bimodal(&r, site, st, t);
		if (got != want || bp.dirty != r.dirty)
			fail_msg("step %d site %d: prediction %u/%u dirty %u/%u", n, site, got,
				 want, bp.dirty, r.dirty);
		misses += want != t;
		last = t;
	}
	print_message("%s: %d branches, %u mispredicts, all equal to the reference\n",
		      bpred_mode_name(mode), steps, misses);
	assert_true(misses > 0 && misses < (unsigned)steps / 2);
	assert_memory_equal(bp.site, r.site, REF_SITES + 1);
	if (mode == BPRED_TAGE) {
		assert_true(bp.ghist == r.ghist);
		assert_int_equal(bp.updates, r.updates);
		for (int i = 0; i < BPRED_TAGE_TABLES; i++)
			assert_memory_equal(bp.tt[i], r.tt[i], sizeof r.tt[i]);
	} else if (mode == BPRED_GSHARE) {
		assert_int_equal(bp.hist, r.hist);
		assert_memory_equal(bp.pht, r.pht, sizeof r.pht);
	}
	assert_int_equal(bpred_check(&bp), NS_OK);
	bpred_free(&bp);
}

static void test_gshare_same_as_reference(void **state)
{
	(void)state;
	check_against_ref(BPRED_GSHARE, 400000, false);
}

static void test_bimodal_same_as_reference(void **state)
{
	(void)state;
	check_against_ref(BPRED_BIMODAL, 200000, false);
}

static void test_tage_same_as_reference(void **state)
{
	(void)state;
	/* past two usefulness decays (BPRED_TAGE_U_PERIOD updates each) */
	check_against_ref(BPRED_TAGE, 2 * (int)BPRED_TAGE_U_PERIOD + 100000, false);
}

static void test_tage_generic_same_as_reference(void **state)
{
	(void)state;
	check_against_ref(BPRED_TAGE, (int)BPRED_TAGE_U_PERIOD + 50000, true);
	/* any other geometry takes the generic step */
	struct bpred_params p;
	bpred_params_default(&p);
	p.mode = BPRED_TAGE;
	p.tage_hist[3] = 51;
	struct bpred bp;
	assert_int_equal(bpred_init(&bp, 4, &p), NS_OK);
	assert_int_equal(bp.tage_default, 0);
	bpred_free(&bp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cold_static_rule),
		cmocka_unit_test(test_always_taken_learns),
		cmocka_unit_test(test_alternating_bimodal),
		cmocka_unit_test(test_gshare_learns_alternation),
		cmocka_unit_test(test_default_gshare_call_context),
		cmocka_unit_test(test_params_and_check),
		cmocka_unit_test(test_tage_no_aliasing),
		cmocka_unit_test(test_tage_long_history),
		cmocka_unit_test(test_tage_params),
		cmocka_unit_test(test_tage_packed_folds),
		cmocka_unit_test(test_gshare_same_as_reference),
		cmocka_unit_test(test_bimodal_same_as_reference),
		cmocka_unit_test(test_tage_same_as_reference),
		cmocka_unit_test(test_tage_generic_same_as_reference),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
