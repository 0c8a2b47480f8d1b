/*
 * messaging_report — the sched-messaging report; see messaging_report.h.
 *
 * Design notes.  The runs are read once (point, variant, repetition,
 * total_time_s) and grouped by point; everything else is one small query
 * per printed line, bound to the point's run ids.  The report is written
 * to a memory stream and copied to f at the end, so an error leaves f
 * untouched.
 */
#include "analysis/messaging_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/slub.h"
#include "analysis/slabinfo.h"
#include "analysis/stats.h"

#define VARIANT_MAX 512

struct mpoint {
	int point;
	char variant[VARIANT_MAX];
	int n, cap;
	int64_t *ids;
	long long *reps;
	double *t;
};

struct rep {
	sqlite3 *db;
	struct diag *d;
	FILE *g;
	long long top;                    /* rows per long section; <= 0: all */
	int per_cpu;                      /* MESSAGING_REPORT_PER_CPU */
	int seed;                         /* every run is of scenario seed-slub */
	int nr;
	struct mpoint *pts;
};

static int db_err(struct rep *r, const char *what)
{
	return diag_set(r->d, NS_EDB, "DB", 0, 0, "%s: %s", what, sqlite3_errmsg(r->db));
}

/* *acc += v, or NS_EINPUT when the sum leaves long long (an edited
 * database: no run counts 2^63 events). */
static int add_to(struct rep *r, long long *acc, long long v, const char *what)
{
	long long sum;
	if (__builtin_add_overflow(*acc, v, &sum))
		return diag_set(r->d, NS_EINPUT, "DB", 0, 0, "%s: the sum of the counters "
				"is beyond 2^63 (the database holds values no run can have)",
				what);
	*acc = sum;
	return NS_OK;
}

static int oom(struct rep *r)
{
	return diag_set(r->d, NS_ENOMEM, "DB", 0, 0, "out of memory");
}

static struct mpoint *point_of(struct rep *r, int point, const char *variant)
{
	for (int i = 0; i < r->nr; i++)
		if (r->pts[i].point == point)
			return &r->pts[i];
	struct mpoint *np = realloc(r->pts, (size_t)(r->nr + 1) * sizeof *np);
	if (!np)
		return NULL;
	r->pts = np;
	int at = r->nr;
	while (at > 0 && r->pts[at - 1].point > point)
		at--;
	memmove(&r->pts[at + 1], &r->pts[at], (size_t)(r->nr - at) * sizeof *np);
	r->nr++;
	struct mpoint *p = &r->pts[at];
	memset(p, 0, sizeof *p);
	p->point = point;
	snprintf(p->variant, sizeof p->variant, "%s", variant);
	return p;
}

static int add_run(struct mpoint *p, int64_t id, long long rep, double t)
{
	if (p->n == p->cap) {
		int cap = p->cap ? 2 * p->cap : 16;
		int64_t *ids = realloc(p->ids, (size_t)cap * sizeof *ids);
		if (ids)
			p->ids = ids;
		long long *reps = realloc(p->reps, (size_t)cap * sizeof *reps);
		if (reps)
			p->reps = reps;
		double *t2 = realloc(p->t, (size_t)cap * sizeof *t2);
		if (t2)
			p->t = t2;
		if (!ids || !reps || !t2)
			return NS_ENOMEM;
		p->cap = cap;
	}
	p->ids[p->n] = id;
	p->reps[p->n] = rep;
	p->t[p->n++] = t;
	return NS_OK;
}

static int load_runs(struct rep *r, const int64_t *ids, int n)
{
	static const char sql[] =
		"SELECT r.point, r.variant, r.repetition, m.value, r.scenario FROM runs r "
		"JOIN metrics m ON m.run_id = r.run_id AND m.name = 'total_time_s' "
		"WHERE r.run_id = ?1";
	sqlite3_stmt *st = NULL;
	int rc = NS_OK;

	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_err(r, "cannot read the runs");
	r->seed = n > 0;
	for (int i = 0; i < n && rc == NS_OK; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, ids[i]);
		int s = sqlite3_step(st);
		if (s == SQLITE_DONE) {
			rc = diag_set(r->d, NS_ENOENT, "DB", 0, 0,
				      "run %lld has no total_time_s metric (not a "
				      "messaging run)", (long long)ids[i]);
			break;
		}
		if (s != SQLITE_ROW) {
			rc = db_err(r, "cannot read the runs");
			break;
		}
		const char *v = (const char *)sqlite3_column_text(st, 1);
		const char *sc = (const char *)sqlite3_column_text(st, 4);
		if (!sc || strcmp(sc, MESSAGING_REPORT_SEED_SCENARIO))
			r->seed = 0;
		struct mpoint *p = point_of(r, sqlite3_column_int(st, 0), v ? v : "?");
		if (!p || add_run(p, ids[i], sqlite3_column_int64(st, 2),
				  sqlite3_column_double(st, 3)) != NS_OK)
			rc = oom(r);
	}
	sqlite3_finalize(st);
	return rc;
}

/* Decimals giving about six significant digits for values up to vmax. */
static int decimals(const struct rep *r)
{
	double vmax = 0;
	for (int i = 0; i < r->nr; i++)
		for (int k = 0; k < r->pts[i].n; k++)
			vmax = fabs(r->pts[i].t[k]) > vmax ? fabs(r->pts[i].t[k]) : vmax;
	int dec = vmax > 0 ? 5 - (int)floor(log10(vmax)) : 3;
	return dec < 3 ? 3 : dec > 12 ? 12 : dec;
}

static void print_runs(struct rep *r, int dec)
{
	fprintf(r->g, "# perf bench sched messaging, per run\n");
	for (int i = 0; i < r->nr; i++)
		for (int k = 0; k < r->pts[i].n; k++)
			fprintf(r->g, "%s rep %lld: Total time: %.*f [sec]\n",
				r->pts[i].variant, r->pts[i].reps[k], dec, r->pts[i].t[k]);
}

static void print_welch(struct rep *r, const char *what, const struct stats_welch *w)
{
	fprintf(r->g, "%s: diff %+.6g s, Welch t = %.3f, df = %.1f, p = %.4f (two-sided)%s\n",
		what, w->diff, w->t, w->df, w->p,
		w->p < 0.05 ? ": significant at 5%" : ": not significant at 5%");
}

static void print_summary(struct rep *r, int dec)
{
	struct stats_summary *sm = calloc((size_t)r->nr, sizeof *sm);
	int *ok = calloc((size_t)r->nr, sizeof *ok);
	static const char *const rows[] = {"max.", "min.", "avg.", "stdev."};

	int wd = 14;
	if (!sm || !ok)
		goto out;
	for (int i = 0; i < r->nr; i++)
		if ((int)strlen(r->pts[i].variant) > wd)
			wd = (int)strlen(r->pts[i].variant);
	for (int i = 0; i < r->nr; i++) {
		ok[i] = stats_summary(r->pts[i].t, (size_t)r->pts[i].n, &sm[i]) == NS_OK;
		if (!ok[i] && r->pts[i].n == 1) {
			/* one run: its value is max., min. and avg.; no stdev */
			sm[i].max = sm[i].min = sm[i].mean = r->pts[i].t[0];
			ok[i] = 2;
		}
	}
	fprintf(r->g, "\n# Total time [sec] over repetitions (seed format)\n%-8s", "");
	for (int i = 0; i < r->nr; i++)
		fprintf(r->g, " %*s", wd, r->pts[i].variant);
	fputc('\n', r->g);
	for (int row = 0; row < 4; row++) {
		fprintf(r->g, "%-8s", rows[row]);
		for (int i = 0; i < r->nr; i++) {
			const struct stats_summary *s = &sm[i];
			double v = row == 0 ? s->max : row == 1 ? s->min : row == 2 ? s->mean
										: s->stdev;
			if (ok[i] == 1 || (ok[i] == 2 && row < 3))
				fprintf(r->g, " %*.*f", wd, dec, v);
			else
				fprintf(r->g, " %*s", wd, "-");
		}
		fputc('\n', r->g);
	}
	fprintf(r->g, "%-8s", "runs");
	for (int i = 0; i < r->nr; i++)
		fprintf(r->g, " %*d", wd, r->pts[i].n);
	fputc('\n', r->g);
	fputc('\n', r->g);
	for (int i = 1; i < r->nr; i++) {
		struct stats_welch w;
		char what[2 * VARIANT_MAX + 16];
		snprintf(what, sizeof what, "%s - %s", r->pts[0].variant, r->pts[i].variant);
		if (ok[0] == 1 && ok[i] == 1 && stats_welch_summary(&sm[0], &sm[i], &w) == NS_OK)
			print_welch(r, what, &w);
		else
			fprintf(r->g, "%s: Welch t-test needs at least 2 runs per variant\n", what);
	}
	struct stats_welch w;
	if (r->seed && stats_welch(MESSAGING_REPORT_SEED_PRE_AVG, MESSAGING_REPORT_SEED_PRE_SD, MESSAGING_REPORT_SEED_N,
			MESSAGING_REPORT_SEED_POST_AVG, MESSAGING_REPORT_SEED_POST_SD, MESSAGING_REPORT_SEED_N,
			&w) == NS_OK)
		print_welch(r, "seed's published numbers (189.154 sd 1.37 vs 188.086 sd 0.99, "
			    "n=10 each)", &w);
out:
	free(sm);
	free(ok);
}

static int stat_total(struct rep *r, sqlite3_stmt *tot, int64_t id, const char *cache,
		      const char *name, long long *out)
{
	sqlite3_reset(tot);
	sqlite3_bind_int64(tot, 1, id);
	sqlite3_bind_text(tot, 2, cache, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(tot, 3, name, -1, SQLITE_TRANSIENT);
	int s = sqlite3_step(tot);
	if (s != SQLITE_ROW && s != SQLITE_DONE)
		return db_err(r, "cannot read the SLUB counters");
	*out = s == SQLITE_ROW ? sqlite3_column_int64(tot, 0) : 0;
	return NS_OK;
}

static int print_stat(struct rep *r, sqlite3_stmt *tot, sqlite3_stmt *per, int64_t id,
		      const char *cache, const char *name)
{
	char lo[256], hi[256];
	snprintf(lo, sizeof lo, "%s/", cache);
	snprintf(hi, sizeof hi, "%s0", cache);
	long long total = 0;
	int s = stat_total(r, tot, id, cache, name, &total);
	if (s != NS_OK)
		return s;
	fprintf(r->g, "%-24s %lld", name, total);
	if (!r->per_cpu) {
		fputc('\n', r->g);
		return NS_OK;
	}
	sqlite3_reset(per);
	sqlite3_bind_int64(per, 1, id);
	sqlite3_bind_text(per, 2, lo, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(per, 3, hi, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(per, 4, name, -1, SQLITE_TRANSIENT);
	while ((s = sqlite3_step(per)) == SQLITE_ROW)
		fprintf(r->g, " C%lld=%lld", sqlite3_column_int64(per, 0),
			sqlite3_column_int64(per, 1));
	if (s != SQLITE_DONE)
		return db_err(r, "cannot read the SLUB counters");
	fputc('\n', r->g);
	return NS_OK;
}

/*
 * The stat items to print, in order: all of them in stat_item order, or
 * with r->top > 0 the top ones by total, largest first (ties in stat_item
 * order).  *n is the count.
 */
static int stat_order(struct rep *r, sqlite3_stmt *tot, int64_t id, const char *cache,
		      int order[SLUB_NR_STATS], int *n)
{
	long long total[SLUB_NR_STATS] = {0};
	for (int k = 0; k < SLUB_NR_STATS; k++) {
		order[k] = k;
		if (r->top > 0) {
			int rc = stat_total(r, tot, id, cache, slub_stat_name((enum slub_stat)k),
					    &total[k]);
			if (rc)
				return rc;
		}
	}
	*n = SLUB_NR_STATS;
	if (r->top <= 0 || r->top >= SLUB_NR_STATS)
		return NS_OK;
	for (int k = 1; k < SLUB_NR_STATS; k++)       /* stable insertion sort */
		for (int j = k; j > 0 && total[order[j]] > total[order[j - 1]]; j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	*n = (int)r->top;
	return NS_OK;
}

static int print_slub_stats(struct rep *r)
{
	static const char tot_sql[] =
		"SELECT value FROM counters WHERE run_id = ?1 AND scope = 'cache' "
		"AND scope_id = ?2 AND name = ?3";
	static const char per_sql[] =
		"SELECT CAST(substr(scope_id, instr(scope_id, '/') + 1) AS INTEGER) AS cpu, "
		"value FROM counters WHERE run_id = ?1 AND scope = 'cache_cpu' "
		"AND scope_id >= ?2 AND scope_id < ?3 AND name = ?4 AND value <> 0 "
		"ORDER BY cpu";
	static const char *const caches[] = {"skbuff_head_cache", "kmalloc-512"};
	sqlite3_stmt *tot = NULL, *per = NULL;
	int rc = NS_OK;

	if (sqlite3_prepare_v2(r->db, tot_sql, -1, &tot, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(r->db, per_sql, -1, &per, NULL) != SQLITE_OK) {
		rc = db_err(r, "cannot read the SLUB counters");
		goto out;
	}
	for (int i = 0; i < r->nr && rc == NS_OK; i++) {
		const struct mpoint *p = &r->pts[i];
		for (int c = 0; c < 2 && rc == NS_OK; c++) {
			int order[SLUB_NR_STATS], n = SLUB_NR_STATS;
			fprintf(r->g, "\n# /sys/kernel/slab/%s/<stat> of %s, repetition %lld "
				"(run %lld)\n", caches[c], p->variant, p->reps[0],
				(long long)p->ids[0]);
			rc = stat_order(r, tot, p->ids[0], caches[c], order, &n);
			for (int k = 0; k < n && rc == NS_OK; k++)
				rc = print_stat(r, tot, per, p->ids[0], caches[c],
						slub_stat_name((enum slub_stat)order[k]));
			if (rc == NS_OK && n < SLUB_NR_STATS)
				fprintf(r->g, "(%d of %d stats, largest first; --top 0 prints all)\n",
					n, SLUB_NR_STATS);
		}
	}
out:
	sqlite3_finalize(tot);
	sqlite3_finalize(per);
	return rc;
}

/* Sites of __slab_free in the reference's order. */
static const char *const free_sites[] = {
	"S0", "S1", "S2a", "S2b", "S2c", "S3a", "S3b", "S4", "S5", "S6", "S7",
	"S8a", "S8b", "S9a", "S9b", "S10", "PRE6a", "PRE6b", "PRE7", "POST6", "POST7",
};
#define NR_FREE_SITES (sizeof free_sites / sizeof free_sites[0])

static int sum_point(struct rep *r, sqlite3_stmt *st, const struct mpoint *p,
		     const char *site, long long out[3])
{
	out[0] = out[1] = out[2] = 0;
	for (int k = 0; k < p->n; k++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, p->ids[k]);
		sqlite3_bind_text(st, 2, site, -1, SQLITE_STATIC);
		int s = sqlite3_step(st);
		if (s == SQLITE_ROW) {
			for (int j = 0; j < 3; j++) {
				char what[80];
				snprintf(what, sizeof what, "run %lld, branch site %.40s",
					 (long long)p->ids[k], site);
				int rc = add_to(r, &out[j], sqlite3_column_int64(st, j), what);
				if (rc)
					return rc;
			}
		} else if (s != SQLITE_DONE)
			return db_err(r, "cannot read the branch statistics");
	}
	return NS_OK;
}

#define SITE_LINE_MAX 4096

/*
 * The executed sites' rows in the reference's order; with r->top > 0 only
 * the top sites by executions (ties: the earlier site), and a line saying
 * how many executed sites were left out.
 */
static void print_site_lines(struct rep *r, char (*lines)[SITE_LINE_MAX],
			     const long long executed[NR_FREE_SITES])
{
	int nr_exec = 0, shown = 0;
	for (size_t k = 0; k < NR_FREE_SITES; k++)
		nr_exec += executed[k] != 0;
	for (size_t k = 0; k < NR_FREE_SITES; k++) {
		if (!executed[k])
			continue;
		int rank = 0;           /* executed sites that come before k */
		for (size_t j = 0; j < NR_FREE_SITES; j++)
			rank += executed[j] > executed[k] || (executed[j] == executed[k] && j < k);
		if (r->top > 0 && rank >= r->top)
			continue;
		fprintf(r->g, "%s\n", lines[k]);
		shown++;
	}
	if (shown < nr_exec)
		fprintf(r->g, "(%d of %d executed sites, most executed; --top 0 prints all)\n",
			shown, nr_exec);
}

static int print_branches(struct rep *r)
{
	static const char sql[] =
		"SELECT executed, taken, mispredicted FROM branches WHERE run_id = ?1 "
		"AND site = ?2";
	static const char slow_sql[] =
		"SELECT value, 0, 0 FROM counters WHERE run_id = ?1 AND scope = 'cache' "
		"AND name = 'free_slowpath' AND scope_id = ?2";
	sqlite3_stmt *st = NULL, *slow = NULL;
	long long (*all)[3] = calloc((size_t)r->nr, sizeof *all);
	long long *frees = calloc((size_t)r->nr, sizeof *frees);
	char (*lines)[SITE_LINE_MAX] = calloc(NR_FREE_SITES, sizeof *lines);
	long long executed[NR_FREE_SITES] = {0};
	int rc = NS_OK;

	if (!all || !frees || !lines) {
		rc = oom(r);
		goto out;
	}
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(r->db, slow_sql, -1, &slow, NULL) != SQLITE_OK) {
		rc = db_err(r, "cannot read the branch statistics");
		goto out;
	}
	fprintf(r->g, "\n# __slab_free branch sites, summed over each variant's runs: "
		"executed taken mispredicted\n%-8s", "site");
	for (int i = 0; i < r->nr; i++)
		fprintf(r->g, " %38s", r->pts[i].variant);
	fputc('\n', r->g);
	for (size_t k = 0; k < NR_FREE_SITES && rc == NS_OK; k++) {
		long long v[3];
		char *line = lines[k];
		int off = snprintf(line, SITE_LINE_MAX, "%-8s", free_sites[k]);
		for (int i = 0; i < r->nr && rc == NS_OK; i++) {
			rc = sum_point(r, st, &r->pts[i], free_sites[k], v);
			if (rc == NS_OK)
				rc = add_to(r, &executed[k], v[0], free_sites[k]);
			for (int j = 0; j < 3 && rc == NS_OK; j++)
				rc = add_to(r, &all[i][j], v[j], r->pts[i].variant);
			if (rc == NS_OK && off < SITE_LINE_MAX)
				off += snprintf(line + off, SITE_LINE_MAX - (size_t)off,
						" %12lld %12lld %12lld", v[0], v[1], v[2]);
		}
	}
	if (rc == NS_OK)
		print_site_lines(r, lines, executed);
	for (int i = 0; i < r->nr && rc == NS_OK; i++) {
		long long a[3], b[3];
		if ((rc = sum_point(r, slow, &r->pts[i], "skbuff_head_cache", a)) ||
		    (rc = sum_point(r, slow, &r->pts[i], "kmalloc-512", b)))
			break;
		frees[i] = a[0];
		if ((rc = add_to(r, &frees[i], b[0], "free_slowpath")))
			break;
	}
	if (rc)
		goto out;
	fprintf(r->g, "%-8s", "all");
	for (int i = 0; i < r->nr; i++)
		fprintf(r->g, " %12lld %12lld %12lld", all[i][0], all[i][1], all[i][2]);
	fprintf(r->g, "\n%-8s", "/slow");
	for (int i = 0; i < r->nr; i++) {
		double f = frees[i] ? (double)frees[i] : 1;
		fprintf(r->g, " %12.4f %12.4f %12.4f", (double)all[i][0] / f,
			(double)all[i][1] / f, (double)all[i][2] / f);
	}
	fprintf(r->g, "\n(/slow: per free_slowpath of skbuff_head_cache and kmalloc-512)\n");
out:
	sqlite3_finalize(st);
	sqlite3_finalize(slow);
	free(all);
	free(frees);
	free(lines);
	return rc;
}

/* The mean per run of metrics `names` for each point, with the change
 * against the first point, under `title` (and `note`, when not empty, in
 * the title's parentheses). */
static int print_means(struct rep *r, const char *title, const char *note,
		       const char *const *names, int nr)
{
	static const char sql[] =
		"SELECT value FROM metrics WHERE run_id = ?1 AND name = ?2";
	double base[8] = {0};
	sqlite3_stmt *st = NULL;
	int rc = NS_OK;

	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_err(r, "cannot read the workload's metrics");
	fprintf(r->g, "\n# %s, mean per run (%% against the first point%s%s)\n", title,
		*note ? "; " : "", note);
	for (int i = 0; i < r->nr && rc == NS_OK; i++) {
		const struct mpoint *p = &r->pts[i];
		fprintf(r->g, "%-38s", p->variant);
		for (int k = 0; k < nr && k < 8 && rc == NS_OK; k++) {
			double sum = 0;
			for (int j = 0; j < p->n; j++) {
				sqlite3_reset(st);
				sqlite3_bind_int64(st, 1, p->ids[j]);
				sqlite3_bind_text(st, 2, names[k], -1, SQLITE_STATIC);
				int s = sqlite3_step(st);
				if (s == SQLITE_ROW)
					sum += sqlite3_column_double(st, 0);
				else if (s != SQLITE_DONE)
					rc = db_err(r, "cannot read the workload's metrics");
			}
			double mean = p->n > 0 ? sum / p->n : 0;
			if (i == 0)
				base[k] = mean;
			fprintf(r->g, "  %s %.0f", names[k], mean);
			if (i > 0 && base[k] > 0)
				fprintf(r->g, " (%+.2f %%)", 100 * (mean - base[k]) / base[k]);
		}
		fprintf(r->g, "\n");
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * The scheduler's side of each point: the mean per run of the workload's
 * scheduling metrics, with the change against the first point.  In a
 * schedule-bound benchmark a few cycles on the receiver's path change how
 * often receivers block and are woken, which can move Total time more than
 * the cycles themselves (docs/design/slub-model.md §11.3).
 */
static int print_sched(struct rep *r)
{
	static const char *const names[] = {
		"ctx_switches", "wakeups", "preemptions", "sender_blocks", "receiver_blocks",
		"migrations",
	};
	/* the task placement of the points' runs (sched.placement: stored
	 * for every messaging run since the default became v5.9; a run
	 * without the param ran with none), named when all agree; v5.9
	 * runs also store their migrations, then a column */
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(r->db,
			       "SELECT coalesce((SELECT value FROM params WHERE run_id = ?1 AND "
			       "key = 'sched.placement'), 'none'), (SELECT count(*) FROM metrics "
			       "WHERE run_id = ?1 AND name = 'migrations')",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(r, "cannot read the runs' task placement");
	char note[64] = "", first[16] = "";
	int nr = (int)(sizeof names / sizeof names[0]) - 1, same = 1, migrations = 0, rc = NS_OK;
	for (int i = 0; i < r->nr && rc == NS_OK; i++)
		for (int k = 0; k < r->pts[i].n && rc == NS_OK; k++) {
			sqlite3_reset(st);
			sqlite3_bind_int64(st, 1, r->pts[i].ids[k]);
			if (sqlite3_step(st) != SQLITE_ROW) {
				rc = db_err(r, "cannot read the runs' task placement");
				break;
			}
			const char *v = (const char *)sqlite3_column_text(st, 0);
			if (!first[0])
				snprintf(first, sizeof first, "%s", v ? v : "");
			else if (strcmp(first, v ? v : ""))
				same = 0;
			migrations |= sqlite3_column_int64(st, 1) > 0;
		}
	sqlite3_finalize(st);
	if (rc)
		return rc;
	/* only the two values the scenario loader writes (the database may
	 * come from elsewhere) */
	if (same && (!strcmp(first, "none") || !strcmp(first, "v5.9")))
		snprintf(note, sizeof note, "task placement %s", first);
	nr += migrations;
	return print_means(r, "Scheduler", note, names, nr);
}

/*
 * Pipe mode (-p) has no slab object per message: where its buffers' pages
 * came from (alloc_page or the pipe's tmp_page, or a write merged into
 * the last buffer) and where they went (kept as tmp_page or put_page).
 * Only for runs that stored them.
 */
static int print_pipe(struct rep *r)
{
	static const char *const names[] = {
		"pipe.merges", "pipe.alloc_page", "pipe.tmp_page_reuse", "pipe.tmp_page_keep",
		"pipe.put_page", "pipe.spurious_wakeups",
	};
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(r->db, "SELECT 1 FROM metrics WHERE run_id = ?1 AND "
			       "name = 'pipe.alloc_page'", -1, &st, NULL) != SQLITE_OK)
		return db_err(r, "cannot read the pipe metrics");
	int any = 0;
	for (int i = 0; i < r->nr && !any; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, r->pts[i].ids[0]);
		any = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	return any ? print_means(r, "Pipe buffers' pages", "", names,
				 sizeof names / sizeof names[0]) : NS_OK;
}

/* Sum of a cache counter over a point's runs and both caches. */
static int sum_cache(struct rep *r, sqlite3_stmt *st, const struct mpoint *p, const char *name,
		     double *out)
{
	static const char *const caches[] = {"skbuff_head_cache", "kmalloc-512"};
	*out = 0;
	for (int k = 0; k < p->n; k++)
		for (int c = 0; c < 2; c++) {
			sqlite3_reset(st);
			sqlite3_bind_int64(st, 1, p->ids[k]);
			sqlite3_bind_text(st, 2, caches[c], -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 3, name, -1, SQLITE_STATIC);
			int s = sqlite3_step(st);
			if (s == SQLITE_ROW)
				*out += sqlite3_column_double(st, 0);
			else if (s != SQLITE_DONE)
				return db_err(r, "cannot read the SLUB counters");
		}
	return NS_OK;
}

/*
 * The FREE_FROZEN path per free (the model's free_frozen_* counters): the
 * `!n` block's branches, taken branches and mispredicts, the cycles of the
 * whole __slab_free call, and what the cycle difference to the first point
 * amounts to: cycles per free x FREE_FROZEN frees per run / (CPUs x
 * end_cycles), the share of the CPUs' time (Total time is the busiest
 * CPU's clock, so a saving spread evenly over the CPUs shortens it by
 * about that share).  Under cost.model ooo the call's cycles include the
 * cmpxchg_double's wait for older ops still in flight (the caller's page
 * struct miss, docs/design/slub-model.md §11.1): printed as "fence", with the
 * call's cycles without it and their difference to the first point (the
 * fence wait follows the schedule's earlier misses, the rest the call's
 * own code), and left out of the in-order lines (there it is 0).  The
 * per-free figures divide by free_frozen_measured, the calls the sums
 * cover (under sampled accounting the exactly accounted ones only).
 */
static int print_frozen(struct rep *r)
{
	static const char sql[] =
		"SELECT value FROM counters WHERE run_id = ?1 AND scope = 'cache' "
		"AND scope_id = ?2 AND name = ?3";
	static const char cpus_sql[] =
		"SELECT count(*) FROM counters WHERE run_id = ?1 AND scope = 'cache_cpu' "
		"AND name = 'free_slowpath' AND scope_id LIKE 'kmalloc-512/%'";
	static const char end_sql[] =
		"SELECT value FROM metrics WHERE run_id = ?1 AND name = 'end_cycles'";
	static const char *const names[] = {
		"free_frozen", "free_slowpath", "free_frozen_branches",
		"free_frozen_branches_taken", "free_frozen_mispredicts", "free_frozen_cycles",
		"free_frozen_fence_wait_cycles", "free_frozen_measured",
	};
	sqlite3_stmt *st = NULL, *cs = NULL, *es = NULL;
	double base_cyc = 0, base_after = 0;
	int rc = NS_OK;

	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(r->db, cpus_sql, -1, &cs, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(r->db, end_sql, -1, &es, NULL) != SQLITE_OK) {
		rc = db_err(r, "cannot read the SLUB counters");
		goto out;
	}
	fprintf(r->g, "\n# FREE_FROZEN path per free (both caches, all runs): share of "
		"free_slowpath; the !n block's branches, taken, mispredicted; cycles of the "
		"__slab_free call; cycle difference to the first column x FREE_FROZEN frees "
		"/ (CPUs x end_cycles); ooo: fence, the cycles the cmpxchg_double waited for "
		"older ops, and the call's cycles without them\n");
	for (int i = 0; i < r->nr && rc == NS_OK; i++) {
		const struct mpoint *p = &r->pts[i];
		double v[8], end = 0, cpus = 0;
		for (int k = 0; k < 8 && rc == NS_OK; k++)
			rc = sum_cache(r, st, p, names[k], &v[k]);
		for (int k = 0; k < p->n && rc == NS_OK; k++) {
			sqlite3_reset(es);
			sqlite3_bind_int64(es, 1, p->ids[k]);
			sqlite3_reset(cs);
			sqlite3_bind_int64(cs, 1, p->ids[k]);
			if (sqlite3_step(es) != SQLITE_ROW || sqlite3_step(cs) != SQLITE_ROW) {
				rc = db_err(r, "cannot read the run's end_cycles");
				break;
			}
			end += sqlite3_column_double(es, 0);
			cpus = sqlite3_column_double(cs, 0);
		}
		if (rc)
			break;
		/* the sums cover the calls measured: every FREE_FROZEN one but
		 * the fast calls of sampled accounting (a database written
		 * before free_frozen_measured has only the first kind) */
		double ff = v[7] > 0 ? v[7] : v[0] > 0 ? v[0] : 1;
		double cyc = v[5] / ff;
		if (i == 0)
			base_cyc = cyc;
		double share = end > 0 && cpus > 0 ? (base_cyc - cyc) * v[0] / (cpus * end) : 0;
		fprintf(r->g, "%-38s share %.4f  block %.4f %.4f %.4f  cycles %.2f  diff %+.2f "
			"cycles = %+.4f %% of CPU time", p->variant, v[0] / (v[1] > 0 ? v[1] : 1),
			v[2] / ff, v[3] / ff, v[4] / ff, cyc, base_cyc - cyc, 100 * share);
		double after = (v[5] - v[6]) / ff;
		if (i == 0)
			base_after = after;
		if (v[6] > 0)
			fprintf(r->g, "  fence %.2f  after it %.2f (diff %+.2f)", v[6] / ff, after,
				base_after - after);
		fputc('\n', r->g);
	}
out:
	sqlite3_finalize(st);
	sqlite3_finalize(cs);
	sqlite3_finalize(es);
	return rc;
}

/* The cumulative window counters of run id: end_s, messages, fastpath,
 * slowpath, frozen, cpu_partial_free at window i, or 0 when absent. */
static int window_at(struct rep *r, sqlite3_stmt *st, int64_t id, long long i, double v[6])
{
	static const char *const series[] = {"window.end_s", "window.messages",
					     "window.free_fastpath", "window.free_slowpath",
					     "window.free_frozen", "window.cpu_partial_free"};
	for (int k = 0; k < 6; k++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, series[k], -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, i);
		int s = sqlite3_step(st);
		if (s == SQLITE_ROW)
			v[k] = sqlite3_column_double(st, 0);
		else if (s == SQLITE_DONE)
			return NS_ENOENT;
		else
			return db_err(r, "cannot read the window samples");
	}
	return NS_OK;
}

static void print_mix_row(struct rep *r, const char *label, const double a[6], const double b[6])
{
	double fast = b[2] - a[2], slow = b[3] - a[3], frozen = b[4] - a[4], cpf = b[5] - a[5];
	double all = fast + slow > 0 ? fast + slow : 1;
	fprintf(r->g, "%-16s %10.0f  fast %.4f  frozen %.4f  cpu_partial_free %.4f  "
		"node_partial %.4f  frozen/slow %.4f\n", label, b[1] - a[1], fast / all,
		frozen / all, cpf / all, (slow - frozen - cpf) / all, frozen / (slow > 0 ? slow : 1));
}

/*
 * The frees' path mix per window of simulated time (workload.window_ms),
 * of each point's first run: shares of all frees (FREE_FASTPATH,
 * FREE_FROZEN, CPU_PARTIAL_FREE, the other slow-path frees: slabs on a
 * node partial list) and FREE_FROZEN's share of FREE_SLOWPATH.  More than
 * 20 windows are merged into 20 rows (the counters are cumulative).  Then
 * the measured part after the warm-up (workload.warmup_*), when there is
 * one, and the extrapolated Total time with its interval.
 */
static int print_windows(struct rep *r)
{
	static const char sql[] =
		"SELECT value FROM samples WHERE run_id = ?1 AND metric = ?2 AND idx = ?3";
	static const char nsql[] =
		"SELECT count(*) FROM samples WHERE run_id = ?1 AND metric = 'window.end_s'";
	static const char msql[] =
		"SELECT value FROM metrics WHERE run_id = ?1 AND name = ?2";
	sqlite3_stmt *st = NULL, *ns = NULL, *ms = NULL;
	int rc = NS_OK, header = 0;

	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(r->db, nsql, -1, &ns, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(r->db, msql, -1, &ms, NULL) != SQLITE_OK) {
		rc = db_err(r, "cannot read the window samples");
		goto out;
	}
	for (int i = 0; i < r->nr && rc == NS_OK; i++) {
		const struct mpoint *p = &r->pts[i];
		if (p->n == 0)
			continue;
		sqlite3_reset(ns);
		sqlite3_bind_int64(ns, 1, p->ids[0]);
		if (sqlite3_step(ns) != SQLITE_ROW) {
			rc = db_err(r, "cannot read the window samples");
			break;
		}
		long long n = sqlite3_column_int64(ns, 0);
		if (n == 0)
			continue;
		if (!header)
			fprintf(r->g, "\n# Path mix of the frees per window of simulated time (first "
				"run of each point): messages, shares of all frees, FREE_FROZEN / "
				"FREE_SLOWPATH\n");
		header = 1;
		fprintf(r->g, "%s (repetition %lld)\n", p->variant, p->reps[0]);
		long long stride = n > 20 ? (n + 19) / 20 : 1;
		double prev[6] = {0}, cur[6];
		for (long long k = stride - 1; rc == NS_OK; k += stride) {
			long long at = k < n ? k : n - 1;
			if ((rc = window_at(r, st, p->ids[0], at, cur)))
				break;
			char label[32];
			snprintf(label, sizeof label, "to %.1f ms", 1e3 * cur[0]);
			print_mix_row(r, label, prev, cur);
			memcpy(prev, cur, sizeof prev);
			if (at == n - 1)
				break;
		}
		if (rc == NS_ENOENT)
			rc = NS_OK;
		/* the measured part */
		static const char *const mn[] = {"measured.start_s", "measured.messages",
						 "measured.free_fastpath", "measured.free_slowpath",
						 "measured.free_frozen", "measured.cpu_partial_free",
						 "measured.time_s", "total_time_ci_low_s",
						 "total_time_ci_high_s", "total_time_extrapolated"};
		double mv[10] = {0};
		int have = 1;
		for (int k = 0; k < 10 && rc == NS_OK && have; k++) {
			sqlite3_reset(ms);
			sqlite3_bind_int64(ms, 1, p->ids[0]);
			sqlite3_bind_text(ms, 2, mn[k], -1, SQLITE_STATIC);
			int s = sqlite3_step(ms);
			if (s == SQLITE_ROW)
				mv[k] = sqlite3_column_double(ms, 0);
			else if (s == SQLITE_DONE)
				have = 0;
			else
				rc = db_err(r, "cannot read the measured part");
		}
		if (!have || rc)
			continue;
		double zero[6] = {0}, meas[6] = {0, mv[1], mv[2], mv[3], mv[4], mv[5]};
		char label[48];
		snprintf(label, sizeof label, "measured");
		print_mix_row(r, label, zero, meas);
		fprintf(r->g, "  measured part: from %.1f ms for %.1f ms", 1e3 * mv[0], 1e3 * mv[6]);
		if (mv[9] > 0 && mv[8] > 0)
			fprintf(r->g, "; Total time extrapolated to all messages %.3f s (95 %% CI of "
				"the per-window rate: %.3f .. %.3f s)", p->t[0], mv[7], mv[8]);
		else if (mv[9] > 0)
			fprintf(r->g, "; Total time extrapolated to all messages %.3f s (no "
				"interval: fewer than 2 whole windows in the measured part)", p->t[0]);
		fprintf(r->g, "\n");
	}
out:
	sqlite3_finalize(st);
	sqlite3_finalize(ns);
	sqlite3_finalize(ms);
	return rc;
}

/* slabinfo -r's tables of both caches per point (its first run), when a
 * run selected kernel.slub_cpu_partial other than v5.9 (analysis/slabinfo.h). */
static int print_slabinfo(struct rep *r, const int64_t *run_ids, int nr_runs)
{
	static const char *const caches[] = {"skbuff_head_cache", "kmalloc-512"};
	int want, rc = slabinfo_wanted(r->db, run_ids, nr_runs, &want, r->d);
	for (int i = 0; i < r->nr && want && rc == NS_OK; i++) {
		const struct mpoint *p = &r->pts[i];
		for (int c = 0; c < 2 && rc == NS_OK; c++) {
			fprintf(r->g, "\n# slabinfo -r %s of %s, repetition %lld (run %lld)\n",
				caches[c], p->variant, p->reps[0], (long long)p->ids[0]);
			rc = slabinfo_print_run(r->db, "DB", p->ids[0], caches[c], r->g, r->d);
		}
	}
	return rc;
}

int messaging_report_print(sqlite3 *db, const int64_t *run_ids, int nr_runs, long long top,
			   unsigned flags, FILE *f, struct diag *d)
{
	struct rep r = {.db = db, .d = d, .top = top,
			.per_cpu = !!(flags & MESSAGING_REPORT_PER_CPU)};
	char *buf = NULL;
	size_t len = 0;
	int rc;

	r.g = open_memstream(&buf, &len);
	if (!r.g)
		return oom(&r);
	rc = load_runs(&r, run_ids, nr_runs);
	if (rc == NS_OK && r.nr == 0)
		rc = diag_set(d, NS_ENOENT, "DB", 0, 0, "no messaging runs to report");
	if (rc == NS_OK) {
		int dec = decimals(&r);
		print_runs(&r, dec);
		print_summary(&r, dec);
		rc = print_sched(&r);
	}
	if (rc == NS_OK)
		rc = print_pipe(&r);
	if (rc == NS_OK) {
		rc = print_slub_stats(&r);
	}
	if (rc == NS_OK)
		rc = print_slabinfo(&r, run_ids, nr_runs);
	if (rc == NS_OK)
		rc = print_branches(&r);
	if (rc == NS_OK)
		rc = print_frozen(&r);
	if (rc == NS_OK)
		rc = print_windows(&r);
	fclose(r.g);
	if (rc == NS_OK)
		fwrite(buf, 1, len, f);
	free(buf);
	for (int i = 0; i < r.nr; i++) {
		free(r.pts[i].ids);
		free(r.pts[i].reps);
		free(r.pts[i].t);
	}
	free(r.pts);
	return rc;
}
