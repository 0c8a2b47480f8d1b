/*
 * report — `numasim report DB [--runs] [--run ID] [--top N]`.
 *
 * By default one page of text about a results database: how many runs
 * (ok / failed), the scenarios, machines, workloads, variants (with their
 * kernel models) and policies (the policy.* parameters) they cover; per
 * workload the compare table of analysis/compare.h by variant (Min and
 * Amean rows of the workload's main metrics: pagealloc's alloc/free/total
 * series, messaging's total_time_s; Welch's t-test); the simulated
 * profile's top functions by self cycles and the branch-site table, as
 * means per run of each variant (top 15 unless --top says otherwise).
 * --top limits every section (machines, variants, policy keys, compare
 * metrics, profile functions, branch sites; per run the profile, branch
 * sites and pagealloc table series); counts are printed as integers,
 * percentages with two decimals.  Branch sites are named with their
 * function: branches.function, or for databases written before runs
 * stored it, site_function() over this numasim's model site tables.
 *
 * With --runs (or --run ID): run by run, like `perf report` plus mmtests'
 * compare: the run's identity, its simulated profile (top functions by
 * self cycles), its branch sites (top by executions), and for pagealloc
 * runs the comparison table of each invocation's runs (analysis/table.h),
 * for messaging runs the seed-format summary, t-tests, SLUB stats and
 * __slab_free branch table of each invocation's runs (analysis/messaging_report.h).
 *
 * --slabinfo CACHE prints instead, run by run, the statistics tables
 * `slabinfo -r CACHE` prints (tools/vm/slabinfo.c) from the run's stored
 * SLUB counters, and the model's where_* counters (analysis/slabinfo.h);
 * a cache without counters in the database exits 2.
 *
 * --format html writes the whole database as one self-contained page
 * instead (analysis/html_report.h); -o FILE writes either form atomically.
 *
 * The database is opened read-only (docs/reference/schema.md): a missing file, a file
 * that is not a numasim database, a database without runs (summary) or
 * an unknown --run id exits 2 with a
 * message and nothing on standard output.  The report is composed in
 * memory and written only when complete.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "analysis/compare.h"
#include "analysis/flame.h"
#include "analysis/latency_hist.h"
#include "analysis/numastat.h"
#include "base/diag.h"
#include "analysis/html_report.h"
#include "analysis/messaging_report.h"
#include "analysis/slabinfo.h"
#include "analysis/resultset.h"
#include "analysis/store.h"
#include "analysis/table.h"
#include "base/records.h"
#include "models/page_alloc.h"
#include "models/slub.h"
#include "cost/cost.h"

#define REPORT_DEFAULT_TOP 20
#define SUMMARY_DEFAULT_TOP 15

static const char usage_line[] = "numasim report DB [--runs] [--run ID] [--children] "
	"[--top N] [--pool] [--per-cpu] [--format text|json|csv|html] [--section NAME] [--slabinfo CACHE]\n"
	"       [-o FILE] [--timeout SECONDS]";


struct rep {
	sqlite3 *db;
	const char *path;
	FILE *f;
	long long top;
	long long messaging_top;        /* --top as given, 0 when not: the messaging
					 * sections print whole, as `run` does */
	struct diag *d;
	struct rec_doc *doc;            /* --format json|csv: the document; NULL: text */
	int pool;                       /* --pool: compare_opts.pool */
	unsigned messaging_flags;       /* --per-cpu: MESSAGING_REPORT_PER_CPU */
};

static int db_err(struct rep *r)
{
	return diag_set(r->d, NS_EDB, r->path, 0, 0, "%s", sqlite3_errmsg(r->db));
}

static const char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	return s ? (const char *)s : "";
}

/* Prepare sql with ?1 = run and ?2 = the --top limit (-1: all); nonzero
 * when it does not compile. */
static int prepare_run_rows(struct rep *r, const char *sql, int64_t run, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(r->db, sql, -1, st, NULL) != SQLITE_OK)
		return 1;
	sqlite3_bind_int64(*st, 1, run);
	sqlite3_bind_int64(*st, 2, r->top > 0 ? r->top : -1);
	return 0;
}

static int print_profile(struct rep *r, int64_t run)
{
	sqlite3_stmt *st;
	int rc = NS_OK, s;
	if (prepare_run_rows(r, "SELECT function, inlined, calls, self_cycles, total_cycles, "
			     "self_pct, cycles_per_call FROM profile_report WHERE run_id = ?1 "
			     "ORDER BY self_cycles DESC, total_cycles DESC, function LIMIT ?2",
			     run, &st))
		return db_err(r);
	fprintf(r->f, "\n  Profile (simulated, by self core cycles)\n"
		"  %7s %17s %17s %12s %16s  %s\n", "Self%", "Self core cycles",
		"Total core cycles", "Calls", "Core cycles/call", "Function");
	int n = 0;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		fprintf(r->f, "  %6.2f%% %17lld %17lld %12lld"
			" %16.1f  %s%s\n", sqlite3_column_double(st, 5),
			sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 4),
			sqlite3_column_int64(st, 2), sqlite3_column_double(st, 6),
			col_text(st, 0), sqlite3_column_int(st, 1) ? " [inlined]" : "");
		n++;
	}
	if (s != SQLITE_DONE)
		rc = db_err(r);
	else if (n == 0)
		fprintf(r->f, "  (no profile rows)\n");
	sqlite3_finalize(st);
	return rc;
}

/* Width of the site column: the longest site name of the run (>= 4). */
static int site_width(struct rep *r, int64_t run)
{
	sqlite3_stmt *st;
	int w = 4;
	if (sqlite3_prepare_v2(r->db, "SELECT max(length(site)) FROM branches "
			       "WHERE run_id = ?1", -1, &st, NULL) != SQLITE_OK)
		return w;
	sqlite3_bind_int64(st, 1, run);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > w)
		w = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return w > 64 ? 64 : w;
}

static int print_branches(struct rep *r, int64_t run)
{
	sqlite3_stmt *st;
	int rc = NS_OK, s, w = site_width(r, run);
	if (prepare_run_rows(r, "SELECT site, executed, taken, taken_pct, mispredicted, "
			     "mispredict_pct, fallthrough, coalesce(function, site_function(site), "
			     "'?') FROM branch_stats WHERE run_id = ?1 ORDER BY executed DESC, "
			     "site LIMIT ?2", run, &st))
		return db_err(r);
	fprintf(r->f, "\n  Branch sites (by executions)\n"
		"  %-*s %14s %14s %8s %12s %8s  %-12s  %s\n", w, "Site", "Executed",
		"Taken", "Taken%", "Mispredicted", "Miss%", "Fall-through", "Function");
	int n = 0;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *ft = sqlite3_column_type(st, 6) == SQLITE_NULL ? "?"
				 : sqlite3_column_int(st, 6) ? "true" : "false";
		fprintf(r->f, "  %-*s %14lld %14lld %7.2f%% %12lld"
			" %7.2f%%  %-12s  %s\n", w, col_text(st, 0), sqlite3_column_int64(st, 1),
			sqlite3_column_int64(st, 2), sqlite3_column_double(st, 3),
			sqlite3_column_int64(st, 4), sqlite3_column_double(st, 5), ft,
			col_text(st, 7));
		n++;
	}
	if (s != SQLITE_DONE)
		rc = db_err(r);
	else if (n == 0)
		fprintf(r->f, "  (no branch rows)\n");
	sqlite3_finalize(st);
	return rc;
}

/* --runs as records: the run rows, then each run's profile and branch
 * sites (top N as in the text), with run_id in every row. */
static int record_runs(struct rep *r, int64_t only, int *found)
{
	static const char *const sql[] = {
		"SELECT run_id, scenario, point, repetition, seed, machine, workload, "
		"variant, kernel_model, status, started, finished, duration_s, message "
		"FROM runs WHERE ?1 = 0 OR run_id = ?1 ORDER BY run_id",
		"SELECT p.run_id, function, inlined, calls, self_cycles, total_cycles, "
		"self_pct, cycles_per_call FROM runs x, profile_report p WHERE p.run_id = "
		"x.run_id AND (?1 = 0 OR x.run_id = ?1) AND p.function IN (SELECT function "
		"FROM profile_report q WHERE q.run_id = x.run_id ORDER BY self_cycles DESC, "
		"total_cycles DESC, function LIMIT ?2) ORDER BY p.run_id, self_cycles DESC, "
		"total_cycles DESC, function",
		"SELECT b.run_id, site, coalesce(function, site_function(site)) AS function, "
		"executed, taken, taken_pct, mispredicted, mispredict_pct, fallthrough FROM "
		"runs x, branch_stats b WHERE b.run_id = x.run_id AND (?1 = 0 OR x.run_id = "
		"?1) AND b.site IN (SELECT site FROM branch_stats q WHERE q.run_id = "
		"x.run_id ORDER BY executed DESC, site LIMIT ?2) ORDER BY b.run_id, "
		"executed DESC, site",
	};
	static const char *const table[] = {"runs", "profile", "branches"};
	int rc = NS_OK;
	for (int i = 0; i < 3 && rc == NS_OK; i++) {
		sqlite3_stmt *st;
		long long n = 0;
		if (prepare_run_rows(r, sql[i], only, &st))
			return db_err(r);
		rc = resultset_records(st, r->doc, table[i], &n, r->path, r->d);
		sqlite3_finalize(st);
		if (i == 0)
			*found = (int)n;
	}
	return rc;
}

/* The run's numastat per node (analysis/numastat.h); nothing for a run
 * that stored no numastat counters. */
static int print_numastat(struct rep *r, int64_t run)
{
	struct numastat ns;
	int rc = numastat_read(r->db, r->path, run, &ns, r->d);
	if (rc == NS_ENOENT)
		return NS_OK;
	if (rc)
		return rc;
	fprintf(r->f, "\n  numastat (per node; numasim numastat DB --run %" PRId64 ")\n", run);
	numastat_print(&ns, r->f);
	numastat_free(&ns);
	return NS_OK;
}

/* The run's latency histograms (analysis/latency_hist.h) as bcc's
 * funclatency prints them, each under "HEAD NAME: N calls"; *shown counts
 * the histograms printed; nothing for a run that stored none. */
static int print_latency(struct rep *r, int64_t run, const char *head, int *shown)
{
	static const char *const names[] = {
#define LH_NAME(name, title) #name,
		LATENCY_HIST_NAMES(LH_NAME)
#undef LH_NAME
	};
	static const char *const titles[] = {
#define LH_TITLE(name, title) title,
		LATENCY_HIST_NAMES(LH_TITLE)
#undef LH_TITLE
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		struct latency_hist h;
		int rc = latency_hist_read(r->db, r->path, run, names[i], &h, r->d);
		if (rc == NS_ENOENT)
			continue;
		if (rc)
			return rc;
		fprintf(r->f, "\n%s%s: %" PRIu64 " %s\n", head, names[i],
			latency_hist_total(&h), titles[i]);
		latency_hist_print(&h, r->f);
		(*shown)++;
	}
	return NS_OK;
}

static int print_runs(struct rep *r, int64_t only, int *found)
{
	sqlite3_stmt *st;
	int rc = NS_OK, s;
	if (sqlite3_prepare_v2(r->db,
			       "SELECT run_id, scenario, point, repetition, seed, machine, "
			       "workload, variant, kernel_model, status, duration_s, started, "
			       "message FROM runs WHERE ?1 = 0 OR run_id = ?1 ORDER BY run_id",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(r);
	sqlite3_bind_int64(st, 1, only);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		(*found)++;
		fprintf(r->f, "%srun %" PRId64 ": scenario %s, point %lld (%s), "
			"repetition %lld, seed %lld\n"
			"  machine %s, workload %s, kernel model %s\n"
			"  status %s, started %s, %.3f s%s%s\n",
			*found > 1 ? "\n" : "", id, col_text(st, 1),
			sqlite3_column_int64(st, 2), col_text(st, 7),
			sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 4),
			col_text(st, 5), col_text(st, 6), col_text(st, 8), col_text(st, 9),
			col_text(st, 11), sqlite3_column_double(st, 10),
			sqlite3_column_type(st, 12) == SQLITE_NULL ? "" : ": ",
			col_text(st, 12));
		int shown = 0;
		if ((rc = print_profile(r, id)) || (rc = print_branches(r, id)) ||
		    (rc = print_numastat(r, id)) || (rc = print_latency(r, id, "  ", &shown)))
			break;
	}
	if (rc == NS_OK && s != SQLITE_DONE)
		rc = db_err(r);
	sqlite3_finalize(st);
	return rc;
}

/* The table of each invocation's runs of a workload (pagealloc or
 * messaging), or of the one run. */
static int print_tables(struct rep *r, int64_t only, const char *workload)
{
	int messaging = !strcmp(workload, "messaging");
	sqlite3_stmt *inv = NULL, *ids = NULL;
	int64_t *run = NULL;
	int rc = NS_OK, s;

	if (sqlite3_prepare_v2(r->db,
			       "SELECT invocation, scenario FROM runs WHERE workload = "
			       "?2 AND status = 'ok' AND (?1 = 0 OR run_id = ?1) "
			       "GROUP BY invocation, scenario ORDER BY min(run_id)", -1, &inv,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(r->db,
			       "SELECT run_id FROM runs WHERE invocation = ?1 AND scenario = ?2 "
			       "AND workload = ?4 AND status = 'ok' AND "
			       "(?3 = 0 OR run_id = ?3) ORDER BY run_id", -1, &ids,
			       NULL) != SQLITE_OK) {
		rc = db_err(r);
		goto out;
	}
	sqlite3_bind_int64(inv, 1, only);
	sqlite3_bind_text(inv, 2, workload, -1, SQLITE_STATIC);
	while ((s = sqlite3_step(inv)) == SQLITE_ROW) {
		int n = 0, cap = 16;
		free(run);
		run = malloc((size_t)cap * sizeof *run);
		if (!run) {
			rc = diag_set(r->d, NS_ENOMEM, r->path, 0, 0, "out of memory");
			goto out;
		}
		sqlite3_reset(ids);
		sqlite3_bind_text(ids, 1, col_text(inv, 0), -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(ids, 2, col_text(inv, 1), -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(ids, 3, only);
		sqlite3_bind_text(ids, 4, workload, -1, SQLITE_STATIC);
		int si;
		while ((si = sqlite3_step(ids)) == SQLITE_ROW) {
			if (n == cap) {
				int64_t *nr = realloc(run, (size_t)(cap *= 2) * sizeof *run);
				if (!nr) {
					rc = diag_set(r->d, NS_ENOMEM, r->path, 0, 0, "out of memory");
					goto out;
				}
				run = nr;
			}
			run[n++] = sqlite3_column_int64(ids, 0);
		}
		if (si != SQLITE_DONE) {
			rc = db_err(r);
			goto out;
		}
		/* The invocation came from the runs table, so it has runs,
		 * unless the file's indexes disagree with it (found by
		 * tests/fuzz: run[n - 1] was read at n == 0). */
		if (n == 0) {
			rc = diag_set(r->d, NS_EINPUT, r->path, 0, 0, "damaged database: "
				      "invocation '%s' of scenario '%s' lists no runs",
				      col_text(inv, 0), col_text(inv, 1));
			goto out;
		}
		fprintf(r->f, "\n%s: scenario %s, runs %" PRId64 "..%" PRId64
			" (invocation %s)\n\n", workload, col_text(inv, 1), run[0], run[n - 1],
			col_text(inv, 0));
		rc = messaging ? messaging_report_print(r->db, run, n, r->messaging_top,
							 r->messaging_flags, r->f, r->d)
			       : table_pagealloc_top(r->db, run, n, TABLE_MIN | TABLE_AMEAN,
						     (int)r->top, r->f, r->d);
		if (rc == NS_ENOENT) {
			fprintf(r->f, "%s\n", messaging ? "(no messaging results)"
							: "(no pagealloc samples)");
			rc = NS_OK;
			diag_init(r->d);
		}
		if (rc)
			goto out;
	}
	if (s != SQLITE_DONE)
		rc = db_err(r);
out:
	free(run);
	sqlite3_finalize(inv);
	sqlite3_finalize(ids);
	return rc;
}

/*
 * The summary's SQL as records: the percentages the text rounds with
 * printf('%.2f', x) for its columns are numbers with all their digits in
 * JSON and CSV (the one formatting call is dropped, the expression kept).
 */
static char *records_sql(const char *sql)
{
	static const char fmt[] = "printf('%.2f', ";
	char *out = malloc(strlen(sql) + 1), *o = out;
	if (!out)
		return NULL;
	for (const char *p = sql; *p;)
		if (!strncmp(p, fmt, sizeof fmt - 1)) {
			*o++ = '(';
			p += sizeof fmt - 1;
		} else {
			*o++ = *p++;
		}
	*o = '\0';
	return out;
}

/* One query of the summary as records of table name. */
static int summary_records(struct rep *r, const char *name, const char *sql)
{
	sqlite3_stmt *st = NULL;
	char *q = records_sql(sql);
	int rc = NS_OK;
	if (!q)
		return diag_set(r->d, NS_ENOMEM, r->path, 0, 0, "out of memory");
	if (sqlite3_prepare_v2(r->db, q, -1, &st, NULL) != SQLITE_OK)
		rc = db_err(r);
	if (rc == NS_OK) {
		sqlite3_bind_int64(st, 1, r->top > 0 ? r->top : -1);
		rc = resultset_records(st, r->doc, name, NULL, r->path, r->d);
	}
	sqlite3_finalize(st);
	free(q);
	return rc;
}

/* A titled resultset table of one query; "(none)" when it has no rows;
 * with --format json|csv the rows of table name. */
static int summary_query(struct rep *r, const char *name, const char *title,
			 const char *sql)
{
	if (r->doc)
		return summary_records(r, name, sql);
	char *b = NULL;
	size_t len = 0;
	long long n = 0;
	FILE *g = open_memstream(&b, &len);
	if (!g)
		return diag_set(r->d, NS_ENOMEM, r->path, 0, 0, "out of memory");
	sqlite3_stmt *st = NULL;
	int rc = NS_OK;
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		rc = db_err(r);
	if (rc == NS_OK) {
		sqlite3_bind_int64(st, 1, r->top > 0 ? r->top : -1);
		rc = resultset_statement(st, RESULTSET_TABLE, g, &n, r->path, r->d);
	}
	sqlite3_finalize(st);
	fclose(g);
	if (rc == NS_OK) {
		fprintf(r->f, "\n%s\n", title);
		if (n)
			fwrite(b, 1, len, r->f);
		else
			fprintf(r->f, "(none)\n");
	}
	free(b);
	return rc;
}

/* The main metrics of a workload for its compare table. */
static int summary_compare(struct rep *r, const char *workload)
{
	char where[300];
	const char *wl[1] = {where};
	struct compare_opts o = {.metrics = compare_report_metrics(workload), .where = wl,
				 .nr_where = 1, .rows = COMPARE_ROW_MIN | COMPARE_ROW_AMEAN,
				 .max_metrics = (int)(r->top > 0 ? r->top : 0), .pool = r->pool};
	struct compare *c = NULL;
	snprintf(where, sizeof where, "workload=%s", workload);
	int rc = compare_new(&o, r->path, r->d, &c);
	if (rc == NS_OK)
		rc = compare_load(c, r->db, r->path);
	if (rc == NS_EINPUT && compare_pool_refused(c)) {
		/* the other sections stand: this table says why it is left out */
		if (r->doc) {
			rec_table(r->doc, "compare_refused");
			rec_row(r->doc);
			rec_str(r->doc, "workload", workload);
			rec_str(r->doc, "message", r->d->msg);
		} else {
			fprintf(r->f, "\nCompare: %s runs by variant: refused: %s (numasim "
				"report --pool)\n", workload, r->d->msg);
		}
		diag_init(r->d);
		rc = NS_OK;
	} else if (rc == NS_OK && r->doc) {
		rc = compare_records(c, r->doc, "workload", workload);
	} else if (rc == NS_OK) {
		fprintf(r->f, "\nCompare: %s runs by variant (numasim compare %s --where "
			"workload=%s%s%s%s for all rows)\n", workload, r->path, workload,
			o.metrics ? " --metric '" : "", o.metrics ? o.metrics : "",
			o.metrics ? "'" : "");
		rc = compare_print(c, r->f);
	}
	compare_free(c);
	return rc;
}

/* The latency histograms of the first --top runs that stored them
 * (fill, replay); nothing when none did. */
static int summary_latency(struct rep *r)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db, "SELECT run_id, workload, variant FROM runs WHERE "
			       "status = 'ok' AND EXISTS (SELECT 1 FROM metrics m WHERE "
			       "m.run_id = runs.run_id AND m.name GLOB '" LATENCY_HIST_GLOB "') "
			       "ORDER BY run_id", -1, &st, NULL) != SQLITE_OK)
		return db_err(r);
	int rc = NS_OK, runs = 0, more = 0, shown = 0, s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		if (r->top > 0 && runs == r->top) {
			more++;
			continue;
		}
		int64_t run = sqlite3_column_int64(st, 0);
		if (!runs++)
			fprintf(r->f, "\nLatency histograms: core cycles per call, log2 buckets "
				"(as bcc's funclatency)\n");
		char head[256];
		snprintf(head, sizeof head, "run %" PRId64 " (%s, %s) ", run, col_text(st, 1),
			 col_text(st, 2));
		if ((rc = print_latency(r, run, head, &shown)))
			break;
	}
	if (rc == NS_OK && s != SQLITE_DONE)
		rc = db_err(r);
	sqlite3_finalize(st);
	if (rc == NS_OK && more)
		fprintf(r->f, "\n(the first %d runs; %d more: numasim report DB --runs --run ID)\n",
			runs, more);
	return rc;
}

static int print_summary(struct rep *r)
{
	static const char overview[] =
		"SELECT count(*) AS runs, sum(status = 'ok') AS ok, sum(status = 'failed') "
		"AS failed, count(DISTINCT scenario) AS scenarios, count(DISTINCT invocation) "
		"AS invocations, min(started) AS first, max(finished) AS last FROM runs "
		"WHERE ?1 <> 0";
	static const char machines[] =
		"SELECT machine, substr(machine_sha256, 1, 12) AS sha256, count(*) AS runs, "
		"group_concat(DISTINCT workload) AS workloads FROM runs WHERE ?1 <> 0 "
		"GROUP BY machine, machine_sha256 ORDER BY min(run_id) LIMIT ?1";
	static const char variants[] =
		"SELECT workload, variant, group_concat(DISTINCT kernel_model) AS kernel_model, "
		"count(*) AS runs, count(DISTINCT point) AS points FROM runs WHERE ?1 <> 0 "
		"GROUP BY workload, variant ORDER BY min(run_id) LIMIT ?1";
	static const char policies[] =
		"SELECT key, group_concat(DISTINCT CAST(value AS TEXT)) AS \"values\", "
		"count(DISTINCT run_id) AS runs FROM params WHERE ?1 <> 0 AND (key GLOB "
		"'policy.*' OR key IN ('kernel.cpusets', 'kernel.mems_allowed')) "
		"GROUP BY key ORDER BY key LIMIT ?1";
	/* Counts are means per run rounded to integers, percentages have two
	 * decimals (printf: SQLite would print 12.1 and 0.0). */
	static const char profile[] =
		"WITH top AS (SELECT function FROM v_profile WHERE status = 'ok' GROUP BY "
		"function ORDER BY sum(self_cycles) DESC, function LIMIT ?1) "
		"SELECT p.function, p.variant, CAST(round(avg(p.calls)) AS INTEGER) AS "
		"calls_per_run, CAST(round(avg(p.self_cycles)) AS INTEGER) AS "
		"self_core_cycles_per_run, printf('%.2f', avg(p.self_pct)) AS self_pct "
		"FROM v_profile p JOIN top USING "
		"(function) WHERE p.status = 'ok' GROUP BY p.function, p.variant ORDER BY "
		"(SELECT sum(self_cycles) FROM v_profile q WHERE q.function = p.function) "
		"DESC, p.function, min(p.run_id)";
	static const char branches[] =
		"WITH top AS (SELECT site FROM v_branches WHERE status = 'ok' GROUP BY site "
		"ORDER BY sum(executed) DESC, site LIMIT ?1) "
		"SELECT b.site, coalesce(max(b.function), site_function(b.site)) AS function, "
		"b.variant, CAST(round(avg(b.executed)) AS INTEGER) AS executed_per_run, "
		"CASE WHEN sum(b.executed) > 0 THEN printf('%.2f', 100.0 * sum(b.taken) / "
		"sum(b.executed)) END AS taken_pct, CAST(round(avg(b.mispredicted)) AS "
		"INTEGER) AS mispredicted_per_run, CASE WHEN sum(b.executed) > 0 THEN "
		"printf('%.2f', 100.0 * sum(b.mispredicted) / sum(b.executed)) END AS "
		"mispredict_pct FROM v_branches b JOIN top USING (site) WHERE b.status = "
		"'ok' GROUP BY b.site, b.variant ORDER BY (SELECT sum(executed) FROM "
		"v_branches q WHERE q.site = b.site) DESC, b.site, min(b.run_id)";
	sqlite3_stmt *wl = NULL;
	int rc, s;

	int64_t nruns = 0;
	if (sqlite3_prepare_v2(r->db, "SELECT count(*) FROM runs", -1, &wl, NULL) != SQLITE_OK)
		return db_err(r);
	if (sqlite3_step(wl) == SQLITE_ROW)
		nruns = sqlite3_column_int64(wl, 0);
	sqlite3_finalize(wl);
	wl = NULL;
	if (nruns == 0)
		return diag_set(r->d, NS_EINPUT, r->path, 0, 0, "no runs in this database");
	if (!r->doc)
		fprintf(r->f, "numasim report: %s\n", r->path);
	if ((rc = summary_query(r, "overview", "Runs", overview)) ||
	    (rc = summary_query(r, "machines", "Machines", machines)) ||
	    (rc = summary_query(r, "variants", "Variants", variants)) ||
	    (rc = summary_query(r, "policies", "Policies (policy.* parameters)", policies)))
		return rc;
	if (sqlite3_prepare_v2(r->db, "SELECT DISTINCT workload FROM runs WHERE status = "
			       "'ok' ORDER BY workload", -1, &wl, NULL) != SQLITE_OK)
		return db_err(r);
	while (rc == NS_OK && (s = sqlite3_step(wl)) == SQLITE_ROW)
		rc = summary_compare(r, col_text(wl, 0));
	if (rc == NS_OK && s != SQLITE_DONE)
		rc = db_err(r);
	sqlite3_finalize(wl);
	char title[128];
	snprintf(title, sizeof title, "Profile: top %lld functions by self core cycles, "
		 "mean per run of each variant", r->top);
	if (rc == NS_OK)
		rc = summary_query(r, "profile", title, profile);
	snprintf(title, sizeof title, "Branch sites: top %lld by executions, per run of "
		 "each variant", r->top);
	if (rc == NS_OK)
		rc = summary_query(r, "branches", title, branches);
	if (rc == NS_OK && !r->doc)
		rc = summary_latency(r);
	return rc;
}

/*
 * site_function(site): the function of a branch site from this numasim's
 * site tables (cost/cost.h cost_site_function), for databases written
 * before runs stored it in branches.function; NULL for an unknown site.
 */
static void fn_site_function(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const struct cost_tables *t = sqlite3_user_data(ctx);
	const unsigned char *site = sqlite3_value_text(argv[0]);
	char buf[128];
	int id = site ? cost_site_lookup(t, (const char *)site) : -1;
	(void)argc;
	if (id >= 0 && cost_site_function(t->sites[id], buf, sizeof buf))
		sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
	else
		sqlite3_result_null(ctx);
}

/* The models' site tables (page allocator, SLUB, reclaim, the page
 * allocator's 2016 series) and site_function(). */
static int register_sites(sqlite3 *db, struct cost_tables *t, const char *path,
			  struct diag *d)
{
	int fb, sb;
	int rc = mm_register(t, &fb, &sb);
	if (rc == NS_OK)
		rc = slub_register(t, &fb, &sb);
	if (rc == NS_OK)
		rc = vmscan_register(t, &fb, &sb);
	if (rc == NS_OK)
		rc = mm_series_register(t, &fb, &sb);
	if (rc)
		return diag_set(d, rc, path, 0, 0, "cannot build the site tables");
	if (sqlite3_create_function(db, "site_function", 1,
				    SQLITE_UTF8 | SQLITE_DETERMINISTIC, t,
				    fn_site_function, NULL, NULL) != SQLITE_OK)
		return diag_set(d, NS_EDB, path, 0, 0, "%s", sqlite3_errmsg(db));
	return NS_OK;
}

/* --runs / --run ID as text: each run, then the per-invocation tables. */
static int report_runs(struct rep *r, int64_t only)
{
	int found = 0;
	int rc = print_runs(r, only, &found);
	if (rc == NS_OK && only && !found)
		rc = diag_set(r->d, NS_ENOENT, r->path, 0, 0, "no run %lld in this database",
			      (long long)only);
	if (rc == NS_OK && !found)
		fprintf(r->f, "%s: no runs\n", r->path);
	if (rc == NS_OK)
		rc = print_tables(r, only, "pagealloc");
	if (rc == NS_OK)
		rc = print_tables(r, only, "messaging");
	return rc;
}

/* --section NAME that the report has not: the names it has. */
static int unknown_section(struct rep *r, const char *section)
{
	char names[1024] = "meta";
	size_t used = strlen(names);
	for (int i = 0; i < rec_nr_tables(r->doc) && used < sizeof names; i++)
		used += (size_t)snprintf(names + used, sizeof names - used, ", %s",
					 rec_table_name(r->doc, i));
	return diag_set(r->d, NS_EUSAGE, r->path, 0, 0, "no section '%s' in this report "
			"(it has: %s)", section, names);
}

/* --format json|csv: the summary's or --runs' tables as one document;
 * csv: one table per section, or --section's alone. */
static int report_records(struct rep *r, enum rec_format fmt, int runs, int64_t only,
			  const char *section)
{
	int found = 0, rc;
	if (!(r->doc = rec_doc_new("report")))
		return diag_set(r->d, NS_ENOMEM, r->path, 0, 0, "out of memory");
	rec_meta_str(r->doc, "database", r->path);
	rec_meta_str(r->doc, "view", runs ? "runs" : "summary");
	rec_meta_int(r->doc, "top", r->top);
	rc = runs ? record_runs(r, only, &found) : print_summary(r);
	if (rc == NS_OK && runs && only && !found)
		rc = diag_set(r->d, NS_ENOENT, r->path, 0, 0, "no run %lld in this database",
			      (long long)only);
	if (rc == NS_OK && fmt == REC_CSV) {
		rc = rec_write_csv_tables(r->doc, section, r->f);
		if (rc == NS_ENOENT)
			rc = unknown_section(r, section);
		else if (rc)
			diag_set(r->d, rc, r->path, 0, 0, "out of memory");
	} else if (rc == NS_OK && (rc = rec_write(r->doc, fmt, r->f))) {
		diag_set(r->d, rc, r->path, 0, 0, "out of memory");
	}
	rec_doc_free(r->doc);
	r->doc = NULL;
	return rc;
}

/* --children: the call-graph view of one run (analysis/flame.h). */
static int report_children(struct rep *r, long long only)
{
	int64_t run = only;
	struct flame fl;
	int rc = NS_OK;
	flame_init(&fl);
	if (!run)
		rc = flame_only_run(r->db, r->path, &run, r->d);
	if (rc == NS_OK)
		rc = flame_load(&fl, r->db, r->path, run, 0, FLAME_CYCLES, r->d);
	if (rc == NS_OK) {
		rc = flame_children(&fl, (int)r->top, 0.5, r->f);
		if (rc == NS_ENOMEM)
			diag_set(r->d, rc, r->path, 0, 0, "out of memory");
	}
	flame_free(&fl);
	return rc;
}

struct report_args {
	const char *path, *out_path, *slabinfo, *section;
	long long only, top, timeout;
	int runs, html, pool, children, per_cpu;
	enum rec_format format;
};

static int set_format(void *dst, const struct cli_option *o, const char *typed,
		      const char *v)
{
	struct report_args *a = dst;
	(void)o;
	(void)typed;
	if (!strcmp(v, "html"))
		a->html = 1, a->format = REC_TEXT;
	else if (rec_parse_format(v, &a->format))
		return cli_usage_error("report", usage_line, "unknown format "
				       "'%s' (text, json, csv or html)", v);
	else
		a->html = 0;
	return 0;
}

static int report_operand(void *args, const char *arg)
{
	struct report_args *a = args;
	if (a->path)
		return cli_usage_error("report", usage_line,
				       "more than one database ('%s', '%s')", a->path, arg);
	a->path = arg;
	return 0;
}

#define REPORT_ARG(field) offsetof(struct report_args, field)
#define REPORT_STR(x) REPORT_STR_(x)
#define REPORT_STR_(x) #x

static void print_help(const struct cli_spec *spec);

static const struct cli_option report_options[] = {
	{.name = "--runs", .kind = CLI_OPT_FLAG, .off = REPORT_ARG(runs),
	 .help = "the per-run report"},
	{.name = "--run", .arg = "ID", .kind = CLI_OPT_NUM, .off = REPORT_ARG(only),
	 .min = 1, .max = INT64_MAX,
	 .help = "the per-run report of this run only (and its table)"},
	{.name = "--children", .kind = CLI_OPT_FLAG, .off = REPORT_ARG(children),
	 .help = "the call-graph view of one run (--run ID; perf report\n"
		 "--children): per function its children and self shares,\n"
		 "callers and callee tree, from the stored call paths"},
	{.name = "--top", .arg = "N", .kind = CLI_OPT_NUM, .off = REPORT_ARG(top),
	 .min = 0, .max = 1000000,
	 .help = "rows of the profile and branch tables (default "
		 REPORT_STR(SUMMARY_DEFAULT_TOP) " in the\n"
		 "summary, " REPORT_STR(REPORT_DEFAULT_TOP) " per run; 0 = all)"},
	{.name = "--format", .arg = "F", .kind = CLI_OPT_CALL, .call = set_format,
	 .help = "text (default); json (one document of the same tables;\n"
		 "docs/reference/output-formats.md) or csv (one table per\n"
		 "section, each after a line '# NAME'): --runs gives the runs, profiles and branch\n"
		 "sites (the per-invocation tables: numasim compare);\n"
		 "html: one self-contained page of the whole database (runs\n"
		 "and provenance, compare tables with their plots, profile,\n"
		 "flame graph, branch sites, SLUB and scheduler summaries,\n"
		 "small multiples of sweeps; analysis/html_report.h)"},
	{.name = "--section", .arg = "NAME", .kind = CLI_OPT_TEXT, .off = REPORT_ARG(section),
	 .help = "with --format csv: that section's table alone (one\n"
		 "plain CSV file: overview, stats, profile, ...)"},
	{.name = "--pool", .kind = CLI_OPT_FLAG, .off = REPORT_ARG(pool),
	 .help = "the compare tables pool the same runs of one plan\n"
		 "stored by several invocations (refused otherwise:\n"
		 "docs/design/statistics.md)"},
	{.name = "--per-cpu", .kind = CLI_OPT_FLAG, .off = REPORT_ARG(per_cpu),
	 .help = "messaging: each SLUB stat's per-CPU counts C<cpu>=N\n"
		 "after its total (totals only without it)"},
	{.name = "--slabinfo", .arg = "CACHE", .kind = CLI_OPT_TEXT, .off = REPORT_ARG(slabinfo),
	 .help = "instead: per run, the SLUB statistics of CACHE as\n"
		 "`slabinfo -r CACHE` prints them (skbuff_head_cache,\n"
		 "kmalloc-512, ...), then the model's where_* counters"},
	{.name = "-o", .arg = "FILE", .kind = CLI_OPT_TEXT, .off = REPORT_ARG(out_path),
	 .help = "write FILE atomically instead of standard output"},
	{.name = "--timeout", .arg = "S", .kind = CLI_OPT_NUM, .off = REPORT_ARG(timeout),
	 .min = 0, .max = 86400 * 365,
	 .help = "stop a statement still running after S seconds\n"
		 "(default %D; 0: no limit): exit 1, naming the limit\n"
		 "(a report of many runs on a loaded host may need more)"},
};

const struct cli_spec cmd_report_spec = {
	.cmd = "report", .usage = usage_line,
	.opts = report_options, .nr_opts = CLI_NR_OPTS(report_options), .help_col = 13,
	.operand = report_operand, .help = print_help,
};

static void print_help(const struct cli_spec *spec)
{
	printf("usage: %s\n\n"
	       "Prints one page about a results database: runs, scenarios, machines,\n"
	       "workloads, variants and policies; per workload the mmtests-style compare\n"
	       "table by variant (Min, Amean, Welch's t-test; numasim compare prints\n"
	       "all rows); the simulated profile's top functions (self cycles per run)\n"
	       "and the branch sites (executions, mispredicts per run) by variant.\n\n"
	       "With --runs, prints instead, for every run (or the one given with\n"
	       "--run): its scenario, variant, seed and status; the simulated\n"
	       "profile like perf report (function, calls, self cycles, self %%,\n"
	       "total cycles, cycles per call), top N by self cycles; the branch\n"
	       "sites (executed, taken, mispredicted and their rates), top N by\n"
	       "executions; and for pagealloc runs the mmtests-style table (Min and\n"
	       "Amean per series, base column first) of each `numasim run`\n"
	       "invocation.  The database is opened read-only.\n\n"
	       "options:\n", spec->usage);
	const struct report_args defaults = {.timeout = (long long)STORE_READ_TIMEOUT_S};
	cli_print_options(stdout, spec, &defaults);
	printf("\nexit status: 0 ok, 1 database error, 2 bad usage, missing file,\n"
	       "not a numasim database or unknown run\n");
}

int cmd_report(int argc, char **argv)
{
	const char *path = NULL, *out_path = NULL;
	long long only = 0, top = -1;
	int runs = 0, html = 0;
	enum rec_format format = REC_TEXT;
	struct store *st = NULL;
	struct cost_tables sites;
	struct diag d;
	char *buf = NULL;
	size_t len = 0;
	int rc, status;

	diag_init(&d);
	cost_tables_init(&sites);
	struct report_args a = {.top = -1, .format = REC_TEXT, .timeout = -1};
	int prc = cli_parse(&cmd_report_spec, &a, argc, argv);
	if (prc)
		return prc == CLI_HELP_SHOWN ? 0 : prc;
	path = a.path;
	out_path = a.out_path;
	only = a.only;
	top = a.top;
	runs = a.runs;
	html = a.html;
	format = a.format;
	if (!path)
		return cli_usage_error("report", usage_line, "no database file");
	if (a.section && format != REC_CSV)
		return cli_usage_error("report", usage_line, "--section picks a table of "
				       "--format csv");
	if (a.children && (html || format != REC_TEXT || runs))
		return cli_usage_error("report", usage_line, "--children is a text view of "
				       "one run: not with --format or --runs");
	if (html && (runs || only || top >= 0))
		return cli_usage_error("report", usage_line, "--format html is the whole "
				       "database: --runs, --run and --top are for text");
	if (a.slabinfo && (html || format != REC_TEXT || runs || only || top >= 0))
		return cli_usage_error("report", usage_line, "--slabinfo is a text report of "
				       "its own: no --format, --runs, --run or --top");
	if ((rc = store_open(path, STORE_RDONLY, &st, &d)))
		goto fail;
	if (a.timeout >= 0)
		store_set_timeout(st, (double)a.timeout);
	if ((rc = register_sites(store_sqlite(st), &sites, path, &d)))
		goto fail;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		rc = diag_set(&d, NS_ENOMEM, path, 0, 0, "out of memory");
		goto fail;
	}
	if (only && !a.children)
		runs = 1;
	long long messaging_top = top > 0 ? top : 0;
	if (top < 0)
		top = runs ? REPORT_DEFAULT_TOP : SUMMARY_DEFAULT_TOP;
	struct rep r = {.db = store_sqlite(st), .path = path, .f = f, .top = top,
			.messaging_top = messaging_top, .d = &d, .pool = a.pool,
			.messaging_flags = a.per_cpu ? MESSAGING_REPORT_PER_CPU : 0};
	/* one switch over the format: each case composes the whole output in f */
	if (a.slabinfo) {
		rc = slabinfo_report(store_sqlite(st), path, a.slabinfo, f, &d);
	} else if (a.children) {
		rc = report_children(&r, only);
	} else if (html) {
		rc = html_report_write(store_sqlite(st), path, &sites, a.pool, f, &d);
	} else {
		switch (format) {
		case REC_TEXT:
			rc = runs ? report_runs(&r, only) : print_summary(&r);
			break;
		case REC_JSON:
		case REC_CSV:
			rc = report_records(&r, format, runs, only, a.section);
			break;
		}
	}
	fclose(f);
	if (rc)
		goto fail;
	if (out_path && (rc = cli_write_file_atomic(out_path, buf, len)))
		goto fail_quiet;
	if (!out_path)
		fwrite(buf, 1, len, stdout);
	status = 0;
	goto out;
fail:
	fflush(stdout);
	rc = store_read_status(st, rc);
	diag_print(&d, stderr);
fail_quiet:
	status = ns_status_exit(rc);
out:
	free(buf);
	store_close(st);
	cost_tables_free(&sites);
	return status;
}
