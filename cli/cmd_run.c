/*
 * run — `numasim run SCENARIO [--db FILE] [--quiet] [--inner N] [--jobs J]
 * [--resume] [--mpi]`: simulate a scenario's run plan (scenarios/run.h),
 * store every run in a results database (docs/reference/schema.md) and print the
 * mmtests-style comparison table of the runs, built from the rows just
 * written (analysis/table.h).  docs/guide/running.md is the user's guide.
 *
 * Output: the table on stdout; on stderr a progress bar when both stdout
 * and stderr are terminals, then one summary line (none with --quiet).
 * Under MPI (--mpi, scenarios/run_mpi.h) every rank loads and checks the
 * scenario, the ranks agree on the outcome before going on (so a bad
 * input stops all of them, each saying what it saw), and rank 0 alone
 * opens the database and prints.
 *
 * Everything is loaded and checked before the database is opened: a bad
 * scenario or machine file, a bad option or a configuration the model
 * refuses exits 2 and leaves any existing database byte for byte as it
 * was.  Ctrl-C (SIGINT) or SIGTERM stops at the next inner iteration:
 * committed runs stay, the runs being simulated are dropped, exit 130.
 * The signal handler only sets a flag (the one static of the command:
 * a handler has no other way to reach the run).
 */
#include <inttypes.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "analysis/compare.h"
#include "base/diag.h"
#include "analysis/fill_report.h"
#include "analysis/latency_hist.h"
#include "analysis/messaging_report.h"
#include "analysis/run_values.h"
#include "analysis/sweep_table.h"
#include "base/progress.h"
#include "scenarios/run.h"
#include "scenarios/run_mpi.h"
#include "scenarios/scenario.h"
#include "cost/cpu.h"
#include "cli/scenario_cli.h"
#include "analysis/store.h"
#include "analysis/table.h"
#include "analysis/resultset.h"
#include "base/records.h"
#include "numasim_config.h"

#define RUN_DEFAULT_DB "results.db"
/* Group commit defaults: one fsync per up to 64 runs or per half second
 * (docs/guide/running.md, "Group commit", has the measurements). */
#define RUN_DEFAULT_COMMIT_RUNS 64
#define RUN_DEFAULT_COMMIT_MS 500
#define EXIT_INTERRUPTED 130

static const char usage_line[] =
	"numasim run SCENARIO [--db FILE] [--quiet] [--inner N] [--jobs J] [--resume] [--mpi]\n"
	"             [--trust-db] [--yes] [--per-cpu] [--charges]\n"
	"             [--commit-runs N] [--commit-ms T] [--format text|json|csv] [--set KEY=VALUE]... [--sweep KEY=V1,V2,...]... [--machine M]\n"
	"       numasim run --machine M --workload W [options]";

static volatile sig_atomic_t run_stop;

static void on_signal(int sig)
{
	(void)sig;
	run_stop = 1;
}

struct run_args {
	const char *scenario, *db;
	int quiet, resume, mpi, trust_db, yes, per_cpu, charges, simulate_all;
	enum rec_format format;
	long long inner, jobs, commit_runs, commit_ms;
	struct scn_cli sc;              /* --set, --sweep, --machine, --workload */
};

#define RUN_ARG(field) offsetof(struct run_args, field)
#define RUN_STR(x) RUN_STR_(x)
#define RUN_STR_(x) #x

static int run_operand(void *args, const char *arg)
{
	struct run_args *a = args;
	if (a->scenario)
		return cli_usage_error("run", usage_line, "more than one scenario ('%s', '%s')",
				       a->scenario, arg);
	a->scenario = arg;
	return 0;
}

static void print_help(const struct cli_spec *spec);

/* --jobs' default: the host's online CPUs, within 1 .. RUN_MAX_JOBS. */
static long long host_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > RUN_MAX_JOBS ? RUN_MAX_JOBS : n;
}

static const char *run_note(const struct cli_option *o)
{
	return !strcmp(o->name, "--mpi") && !run_mpi_available()
	       ? "(not in this build: no MPI)" : NULL;
}

static const struct cli_option run_options[] = {
	{.name = "--db", .arg = "FILE", .kind = CLI_OPT_FILE, .off = RUN_ARG(db),
	 .help = "results database (default ./%D; created if missing,\n"
		 "runs are appended)"},
	{.name = "--inner", .arg = "N", .kind = CLI_OPT_NUM, .off = RUN_ARG(inner),
	 .min = 1, .max = 100000000,
	 .help = "override workload.inner_iterations (quick looks:\n"
		 "below the workload's default the samples differ)"},
	{.name = "--jobs", .arg = "J", .kind = CLI_OPT_NUM, .off = RUN_ARG(jobs),
	 .min = 1, .max = RUN_MAX_JOBS,
	 .help = "simulate J runs at once (threads; default: the\n"
		 "host's online CPUs, %D here, at most " RUN_STR(RUN_MAX_JOBS) ";\n"
		 "1 with --mpi); the results and run order do not\n"
		 "depend on J"},
	{.name = "--resume", .kind = CLI_OPT_FLAG, .off = RUN_ARG(resume),
	 .help = "skip the runs the database already holds (status ok,\n"
		 "same scenario hash, point and repetition); the\n"
		 "table covers the whole plan"},
	{.name = "--simulate-all", .kind = CLI_OPT_FLAG, .off = RUN_ARG(simulate_all),
	 .help = "simulate every point, also one whose kernel.commit\n"
		 "differs from an earlier point's only by commits that\n"
		 "change nothing the model executes (by default such a\n"
		 "twin's runs are written from the earlier point's\n"
		 "simulation, param same_as_point)"},
	{.name = "--charges", .kind = CLI_OPT_FLAG, .off = RUN_ARG(charges),
	 .help = "also store each function's self cycles by charge\n"
		 "kind (table profile_charges: branch, work, mem,\n"
		 "call, lock) and its work by block (profile_work;\n"
		 "numasim annotate shows them); memo\n"
		 "accounting then runs exact (the same rows, slower);\n"
		 "not with sampled accounting"},
	{.name = "--commit-runs", .arg = "N", .kind = CLI_OPT_NUM, .off = RUN_ARG(commit_runs),
	 .min = 1, .max = 1000000,
	 .help = "commit finished runs in groups of up to N per\n"
		 "transaction (default %D; 1: one transaction per run)"},
	{.name = "--commit-ms", .arg = "T", .kind = CLI_OPT_NUM, .off = RUN_ARG(commit_ms),
	 .min = 0, .max = 3600000,
	 .help = "commit a group at the latest T ms after its first\n"
		 "run finished (default %D; 0: no time bound)"},
	{.name = "--format", .arg = "F", .kind = CLI_OPT_FORMAT, .off = RUN_ARG(format),
	 .help = "the final table as text (default), json (one document:\n"
		 "the plan's runs, their sweep-axis values and metrics;\n"
		 "docs/reference/output-formats.md) or csv (the same rows)"},
	{.name = "--per-cpu", .kind = CLI_OPT_FLAG, .off = RUN_ARG(per_cpu),
	 .help = "messaging: each SLUB stat's per-CPU counts C<cpu>=N\n"
		 "after its total (as the sysfs stat file; totals only\n"
		 "without it)"},
	{.name = "--trust-db", .kind = CLI_OPT_FLAG, .off = RUN_ARG(trust_db),
	 .help = "write into a database whose schema holds objects\n"
		 "numasim did not create (triggers, changed views,\n"
		 "extra tables); refused otherwise (exit 2)"},
	{.name = "--yes", .kind = CLI_OPT_FLAG, .off = RUN_ARG(yes),
	 .help = "run a plan larger than its plan_limits (default\n"
		 "more than " RUN_STR(SCN_LIMIT_RUNS) " runs or an estimated " RUN_STR(SCN_LIMIT_MEMORY_MIB) " MiB;\n"
		 "refused otherwise, with its size)"},
	{.name = "--mpi", .kind = CLI_OPT_FLAG, .off = RUN_ARG(mpi),
	 .help = "spread the runs over the ranks of an MPI job\n"
		 "(mpirun -n K numasim run ... --mpi; srun under\n"
		 "Slurm); rank 0 writes the database"},
	SCN_CLI_OPTION("--set", "KEY=VALUE", struct run_args, sc,
		       "set a scenario value (KEY as in the file:\n"
		       "workload.inner_iterations, policy.cpuset, kernel.KNOB,\n"
		       "overrides.PATH for a machine value, seed, ...); it\n"
		       "replaces the file's value or sweep of KEY"),
	SCN_CLI_OPTION("--sweep", "KEY=V1,V2,...", struct run_args, sc,
		       "make KEY an axis of the sweep (replacing the\n"
		       "file's value or list of KEY); values are YAML"),
	SCN_CLI_OPTION("--machine", "M", struct run_args, sc,
		       "the machine file (relative to the current directory)"),
	SCN_CLI_OPTION("--workload", "W", struct run_args, sc,
		       "without a scenario file: the one-off scenario 'adhoc'\n"
		       "of workload pagealloc, messaging, parallel or fill with\n"
		       "quick defaults on machine M\n"
		       "The options go into the stored scenario sha256\n"
		       "(docs/reference/scenario-format.md)"),
	{.name = "--quiet", .alias = "-q", .kind = CLI_OPT_FLAG, .off = RUN_ARG(quiet),
	 .help = "no progress bar, no summary line"},
};

const struct cli_spec cmd_run_spec = {
	.cmd = "run", .usage = usage_line,
	.opts = run_options, .nr_opts = CLI_NR_OPTS(run_options), .help_col = 16,
	.operand = run_operand, .help = print_help, .note = run_note,
};

static void print_help(const struct cli_spec *spec)
{
	const struct run_args defaults = {
		.db = RUN_DEFAULT_DB, .commit_runs = RUN_DEFAULT_COMMIT_RUNS,
		.commit_ms = RUN_DEFAULT_COMMIT_MS, .jobs = host_jobs(),
	};
	printf("usage: %s\n\n"
	       "Simulates every run of a scenario (docs/reference/scenario-format.md): each\n"
	       "point of its sweep times its repetitions, one fresh world per run.\n"
	       "Finished runs are written to the results database in groups, one\n"
	       "transaction per group (docs/reference/schema.md); then the mmtests-style\n"
	       "table of the runs (Min per alloc, free and total series, base\n"
	       "column first) is printed on standard output, built from the\n"
	       "database rows (a pagealloc sweep\n"
	       "of more than 6 points: one row per point with its axis values; a\n"
	       "parallel scenario: numasim compare's table); for a messaging\n"
	       "scenario, perf bench's Total time per run, the seed-format summary,\n"
	       "Welch t-tests, the SLUB stats and the __slab_free branch table\n"
	       "instead.  A progress bar (when stdout and stderr are terminals)\n"
	       "and a summary line (runs stored, database, wall time) go to\n"
	       "standard error.\n\n"
	       "options:\n", spec->usage);
	cli_print_options(stdout, spec, &defaults);
	printf("\nCtrl-C or SIGTERM stops after the current inner iteration: committed\n"
	       "runs stay in the database, the unfinished ones are dropped (exit\n"
	       "130); a run is never committed in part, so even SIGKILL leaves whole\n"
	       "runs only (it loses the group not yet committed), and --resume\n"
	       "finishes the plan.  See docs/guide/running.md.\n\n"
	       "exit status: 0 ok, 1 runtime failure (a run failed its invariant\n"
	       "check: stored as 'failed'), 2 bad input or usage, 130 interrupted\n");
}

/*
 * --inner below the workload's default: each per-call sample is the mean
 * of the timed loop over `inner` iterations (wl_pagealloc.c run_series,
 * as mmtests' pagealloc module, which also carries 1/inner of the
 * previous sample into the next), so the cold first iterations weigh
 * more and the figures are not those of the default.
 */
static void warn_inner(const struct scenario *s, long long inner, int rank)
{
	if (!s->wl->set_inner || inner >= s->wl->inner_default || rank != 0)
		return;
	fprintf(stderr, "numasim run: warning: --inner %lld is below the %s workload's "
		"default %u: each per-call sample is the mean over %lld iteration%s "
		"instead of %u (the cold first ones, and the previous sample that "
		"mmtests' loop carries into the next, weigh more), so the results differ "
		"from a run at the default; use it for quick looks, not for figures\n",
		inner, scn_workload_name(s->workload), s->wl->inner_default, inner,
		inner == 1 ? "" : "s", s->wl->inner_default);
}

/* 0 parsed, 1 --help printed, 2 usage error (printed). */
static int parse_args(int argc, char **argv, struct run_args *a)
{
	a->db = RUN_DEFAULT_DB;
	a->jobs = 0;                    /* not given: host_jobs(), 1 under --mpi */
	a->commit_runs = RUN_DEFAULT_COMMIT_RUNS;
	a->commit_ms = RUN_DEFAULT_COMMIT_MS;
	if (scn_cli_init(&a->sc, "run", usage_line, argc))
		return 2;
	int rc = cli_parse(&cmd_run_spec, a, argc, argv);
	if (rc)
		return rc == CLI_HELP_SHOWN ? 1 : rc;
	if (!a->scenario && !scn_cli_adhoc(&a->sc))
		return cli_usage_error("run", usage_line, "no scenario file");
	if (!a->jobs)
		a->jobs = a->mpi ? 1 : host_jobs();
	/* --resume identifies runs by the scenario hash, which --inner is
	 * not part of (--set values are) */
	if (a->resume && a->inner)
		return cli_usage_error("run", usage_line, "--inner cannot be combined "
				       "with --resume; use --set "
				       "workload.inner_iterations=N, which is part "
				       "of the scenario hash");
	return 0;
}

/*
 * The parallel and fill workloads have no mmtests series: their table is numasim
 * compare's (every metric, Min .. Max, Welch block) over this plan's runs,
 * grouped by point label, selected by the effective scenario hash (so a
 * --resume'd plan shows all its runs).
 */
static int print_compare(struct store *st, const struct scenario *s, FILE *f,
			 struct diag *d)
{
	char where[16 + SHA256_HEX_LEN + 1];
	const char *w[1] = {where};
	struct compare *c = NULL;
	snprintf(where, sizeof where, "scenario_sha256=%s", s->sha256);
	struct compare_opts o = {.by = "variant", .where = w, .nr_where = 1};
	int rc = compare_new(&o, "numasim run", d, &c);
	if (rc == NS_OK)
		rc = compare_load(c, store_sqlite(st), store_path(st));
	if (rc == NS_OK)
		rc = compare_print(c, f);
	compare_free(c);
	return rc;
}

/*
 * Past a handful of points the seed's layout (a column per point) is too
 * wide to read: a pagealloc sweep then gets one row per point with its
 * axis values (analysis/sweep_table.h); `numasim compare` gives the full
 * mmtests table of any subset.
 */
#define RUN_WIDE_TABLE_POINTS 6

static int print_points(struct store *st, const struct run_outcome *out,
			const struct scenario *s, FILE *f, struct diag *d)
{
	const char *axes[SCN_MAX_AXES];
	for (int i = 0; i < s->nr_axes; i++)
		axes[i] = s->axes[i].key;
	return sweep_table_print(store_sqlite(st), out->run_ids, out->nr_ids, axes,
			      s->nr_axes, f, d);
}

/* One statement per run id (?1) and, when keys is not NULL, per key
 * (?2), its rows appended to table of doc. */
static int records_per_run(struct store *st, const struct run_outcome *out,
			   const char *sql, const char *const *keys, int nkeys,
			   struct rec_doc *doc, const char *table, struct diag *d)
{
	sqlite3_stmt *q;
	int rc = NS_OK;
	if (sqlite3_prepare_v2(store_sqlite(st), sql, -1, &q, NULL) != SQLITE_OK)
		return diag_set(d, NS_EDB, store_path(st), 0, 0, "%s",
				sqlite3_errmsg(store_sqlite(st)));
	rec_table(doc, table);
	for (int i = 0; i < out->nr_ids && rc == NS_OK; i++)
		for (int k = 0; k < (keys ? nkeys : 1) && rc == NS_OK; k++) {
			sqlite3_reset(q);
			sqlite3_bind_int64(q, 1, out->run_ids[i]);
			if (keys)
				sqlite3_bind_text(q, 2, keys[k], -1, SQLITE_STATIC);
			rc = resultset_records(q, doc, table, NULL, store_path(st), d);
		}
	sqlite3_finalize(q);
	return rc;
}

/*
 * --format json|csv: the plan's runs (kept and written, plan order), the
 * values of the sweep's axes per run and every metric per run: what each
 * text table is built from (docs/reference/output-formats.md).
 */
static int run_records(struct store *st, const struct run_outcome *out,
		       const struct scenario *s, struct rec_doc *doc, struct diag *d)
{
	const char *axes[SCN_MAX_AXES];
	for (int i = 0; i < s->nr_axes; i++)
		axes[i] = s->axes[i].key;
	rec_meta_str(doc, "scenario", s->name);
	rec_meta_str(doc, "database", store_path(st));
	rec_meta_int(doc, "planned", out->planned);
	rec_meta_int(doc, "stored", out->nr_stored);
	rec_meta_int(doc, "skipped", out->nr_skipped);
	rec_meta_int(doc, "twins", out->nr_twins);
	rec_table(doc, "axes");
	for (int i = 0; i < s->nr_axes; i++) {
		rec_row(doc);
		rec_str(doc, "key", axes[i]);
	}
	int rc = records_per_run(st, out, "SELECT run_id, point, repetition, seed, machine, "
				 "workload, variant, kernel_model, status, duration_s FROM runs "
				 "WHERE run_id = ?1", NULL, 0, doc, "runs", d);
	if (rc == NS_OK && s->nr_axes)
		rc = records_per_run(st, out, "SELECT run_id, key, value FROM params WHERE "
				     "run_id = ?1 AND key = ?2", axes, s->nr_axes, doc,
				     "params", d);
	if (rc == NS_OK)
		rc = records_per_run(st, out, "SELECT run_id, name, value, unit FROM metrics "
				     "WHERE run_id = ?1 AND name NOT GLOB '"
				     LATENCY_HIST_GLOB "' ORDER BY name", NULL, 0, doc,
				     "metrics", d);
	return rc;
}

static int print_table(struct store *st, const struct run_outcome *out,
			const struct scenario *s, enum rec_format format, int per_cpu)
{
	struct diag d;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	diag_init(&d);
	if (!f) {
		fprintf(stderr, "numasim run: error: out of memory\n");
		return NS_ENOMEM;
	}
	int rc;
	struct rec_doc *doc = NULL;
	if (format != REC_TEXT) {
		doc = rec_doc_new("run");
		rc = doc ? run_records(st, out, s, doc, &d)
			 : diag_set(&d, NS_ENOMEM, "numasim run", 0, 0, "out of memory");
		if (rc == NS_OK && (rc = rec_write(doc, format, f)))
			diag_set(&d, rc, "numasim run", 0, 0, "out of memory");
		rec_doc_free(doc);
	} else if (out->nr_ids == 1 && s->wl->report != WL_REPORT_MESSAGING)
		rc = run_values_print(store_sqlite(st), out->run_ids[0], f, &d);
	else if (s->wl->report == WL_REPORT_MESSAGING)
		rc = messaging_report_print(store_sqlite(st), out->run_ids, out->nr_ids, 0,
					    per_cpu ? MESSAGING_REPORT_PER_CPU : 0, f, &d);
	else if (s->wl->report == WL_REPORT_FILL)
		rc = fill_report_print(store_sqlite(st), store_path(st), out->run_ids,
				       out->nr_ids, f, &d);
	else if (s->wl->report == WL_REPORT_COMPARE)
		rc = print_compare(st, s, f, &d);
	else if (s->nr_points > RUN_WIDE_TABLE_POINTS)
		rc = print_points(st, out, s, f, &d);
	else
		rc = table_pagealloc(store_sqlite(st), out->run_ids, out->nr_ids,
				     TABLE_MIN, f, &d);
	fclose(f);
	if (rc == NS_OK)
		fwrite(buf, 1, len, stdout);
	else
		diag_print(&d, stderr);
	free(buf);
	return rc;
}

/*
 * MPI ranks agree on a setup step: *done is set once the ranks know of a
 * failure (no more collective steps then); a rank that is fine while
 * another failed stops quietly (*peer).
 */
static int agree(struct run_mpi *m, int rc, int *peer, int *done)
{
	int any = 0;
	if (!m)
		return rc;
	int r = run_mpi_max(m, rc != NS_OK, &any);
	if (r || any)
		*done = 1;
	if (r)
		return r;
	*peer = rc == NS_OK && any;
	return *peer ? NS_EINPUT : rc;
}

/* Every rank must simulate the same plan: compare with rank 0's hash. */
static int same_scenario(struct run_mpi *m, const struct scenario *s,
			 struct diag *d)
{
	char sha[sizeof s->sha256];
	memcpy(sha, s->sha256, sizeof sha);
	int rc = run_mpi_bcast(m, sha, sizeof sha);
	if (rc == NS_OK && memcmp(sha, s->sha256, sizeof sha))
		rc = diag_set(d, NS_EINPUT, s->path, 0, 0, "MPI rank %d reads a "
			      "different scenario than rank 0 (sha256 %.12s... vs "
			      "%.12s...): are the files the same on every node?",
			      run_mpi_rank(m), s->sha256, sha);
	return rc;
}

/* ", memo accounting" and the like when the plan's points share a mode
 * other than exact ("" when they are exact; ", accounting per point"
 * when a sweep mixes them): memo is the pagealloc default, so the line
 * says that the run used it (the results are exact's either way). */
static const char *accounting_note(const struct scenario *s, char *buf, size_t n)
{
	const struct scn_cost *c0 = &s->points[0].cost;
	for (int i = 1; i < s->nr_points; i++) {
		const struct scn_cost *c = &s->points[i].cost;
		if (c->accounting != c0->accounting || c->sample_period != c0->sample_period ||
		    c->sample_warm != c0->sample_warm || c->sample_window != c0->sample_window)
			return ", accounting per point";
	}
	return cpu_accounting_note((enum cpu_accounting)c0->accounting, c0->sample_period,
				   (enum cpu_warm)c0->sample_warm, c0->sample_window, buf, n);
}

/*
 * ", in-order timing (machine 'M' has no core figures)" when a point left
 * cost.model out and its machine could not run the ooo default
 * (scn_default_model()); nothing when every point runs the model it asked
 * for or the default ooo.
 */
static const char *model_note(const struct scenario *s, char *buf, size_t n)
{
	const char *name = NULL;
	for (int i = 0; i < s->nr_points; i++) {
		const struct scn_point *pt = &s->points[i];
		if (!pt->cost.model_fallback)
			continue;
		if (name && strcmp(name, pt->machine->name))
			return ", in-order timing on machines without core figures";
		name = pt->machine->name;
	}
	if (!name)
		return "";
	snprintf(buf, n, ", in-order timing (machine '%s' has no core figures)", name);
	return buf;
}

/*
 * What this command stored, read back from the file after the last commit:
 * the plan's runs of this invocation's id range that the file holds
 * finished.  A group whose commit failed is not counted.
 */
static int committed_runs(struct store *st, const struct run_outcome *out, int *n,
			  int64_t *first, int64_t *last)
{
	sqlite3_stmt *q;
	*n = 0;
	*first = *last = 0;
	if (!st || out->nr_stored <= 0 || !out->run_ids)
		return NS_OK;
	if (sqlite3_prepare_v2(store_sqlite(st), "SELECT 1 FROM runs WHERE run_id = ?1 AND "
			       "status <> 'running'", -1, &q, NULL) != SQLITE_OK)
		return NS_EDB;
	int rc = NS_OK;
	for (int i = 0; i < out->nr_ids && rc == NS_OK; i++) {
		int64_t id = out->run_ids[i];
		if (id < out->first_stored || id > out->last_stored)
			continue;
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, id);
		int r = sqlite3_step(q);
		if (r == SQLITE_ROW) {
			*first = *n ? (id < *first ? id : *first) : id;
			*last = *n ? (id > *last ? id : *last) : id;
			(*n)++;
		} else if (r != SQLITE_DONE) {
			rc = NS_EDB;
		}
	}
	sqlite3_finalize(q);
	return rc;
}

static void summary(const struct run_args *a, const struct scenario *s,
		    const struct run_outcome *out, int stored, int64_t first, int64_t last)
{
	char note[CPU_ACCOUNTING_NOTE], mnote[160];
	if (a->quiet || (stored == 0 && out->nr_skipped == 0 && out->nr_stored == 0))
		return;
	fprintf(stderr, "numasim run: %d run%s stored in %s", stored,
		stored == 1 ? "" : "s", a->db);
	if (stored > 0)
		fprintf(stderr, " (run_id %" PRId64 "..%" PRId64 ")", first, last);
	if (a->resume)
		fprintf(stderr, ", %lld of %lld skipped (already complete)",
			out->nr_skipped, out->planned);
	if (out->nr_twins > 0)
		fprintf(stderr, ", %d of them written from a twin point's simulation "
			"(the same model code: --simulate-all runs them)", out->nr_twins);
	fprintf(stderr, ", wall time %.1f s", out->wall_s);
	/* a rate needs more than one run; slow runs read better per run */
	double rate = out->wall_s > 0 ? stored / out->wall_s : 0;
	if (stored > 1 && rate >= 1)
		fprintf(stderr, ", %.1f runs/s", rate);
	else if (stored > 1 && rate > 0)
		fprintf(stderr, ", %.1f s/run", 1 / rate);
	fputs(model_note(s, mnote, sizeof mnote), stderr);
	fputs(accounting_note(s, note, sizeof note), stderr);
	fputc('\n', stderr);
}

/*
 * A plan larger than the scenario's plan_limits (more runs, or more
 * memory: the bookkeeping of its runs plus one world per job, measured
 * by building the largest point's world) starts only with --yes; its
 * size is said first.
 */
static int check_plan_size(const struct scenario *s, int jobs, struct diag *d)
{
	long long runs = scenario_nr_runs(s);
	size_t book = run_plan_bytes(runs), world = 0;
	int rc;
	if (runs > s->limit_runs) {
		return diag_set(d, NS_EINPUT, "numasim run", 0, 0, "the plan has %lld runs "
				"(%d points x %lld repetitions; %.0f MiB of bookkeeping before the "
				"first run), more than plan_limits.runs = %lld: add --yes to run "
				"it", runs, s->nr_points, runs / (s->nr_points > 0 ? s->nr_points : 1),
				(double)book / 1048576.0, s->limit_runs);
	}
	if ((rc = run_world_bytes(s, &world, d)))
		return rc;
	long long held = jobs < runs ? jobs : runs;
	double mib = ((double)book + (double)held * (double)world) / 1048576.0;
	if (mib <= (double)s->limit_memory_mib)
		return NS_OK;
	return diag_set(d, NS_EINPUT, "numasim run", 0, 0, "the plan needs at least "
			"%.0f MiB (%lld runs: %.0f MiB of bookkeeping; %lld at once x %.0f MiB "
			"per world as set up), more than plan_limits.memory_mib = %lld: add "
			"--yes to run it", mib, runs, (double)book / 1048576.0, held,
			(double)world / 1048576.0, s->limit_memory_mib);
}

/*
 * Without --resume, say when the database already holds runs of this plan
 * (the scenario hash, --set included, and this version, as --resume
 * matches them): the new runs repeat them with the same seeds, and
 * compare and report refuse to pool the copies unless told (--pool).  A
 * note, not an error: a second invocation may be wanted (host timing).
 */
static void note_stored_plan(struct store *st, const struct scenario *s, const char *db)
{
	sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v2(store_sqlite(st), "SELECT count(*), count(DISTINCT invocation) "
			       "FROM runs WHERE scenario_sha256 = ?1 AND tool_version = ?2 AND "
			       "status = 'ok'", -1, &q, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_text(q, 1, s->sha256, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, NUMASIM_VERSION, -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int64(q, 0) > 0)
		fprintf(stderr, "numasim run: note: %s already holds %lld run%s of this plan "
			"(scenario %s, hash %.12s, %lld invocation%s): the runs of this "
			"invocation repeat them with the same seeds, and compare and report "
			"refuse to pool the copies without --pool; --resume runs only the "
			"runs missing\n", db, (long long)sqlite3_column_int64(q, 0),
			sqlite3_column_int64(q, 0) == 1 ? "" : "s", s->name, s->sha256,
			(long long)sqlite3_column_int64(q, 1),
			sqlite3_column_int64(q, 1) == 1 ? "" : "s");
	sqlite3_finalize(q);
}

int cmd_run(int argc, char **argv)
{
	struct run_args a = {0};
	struct scenario *s = NULL;
	struct store *st = NULL;
	struct run_outcome out = {0};
	struct run_mpi *mpi = NULL;
	struct progress bar = {0};
	char *command = NULL;
	struct diag d;
	int status, rc, rank = 0, peer = 0, agreed = 0;

	diag_init(&d);
	cli_keep_freed_memory();
	if ((status = parse_args(argc, argv, &a))) {
		scn_cli_free(&a.sc);
		return status == 1 ? 0 : status;
	}
	if (a.mpi && (rc = run_mpi_init(&argc, &argv, &mpi, &d))) {
		agreed = 1;
		goto fail;
	}
	rank = mpi ? run_mpi_rank(mpi) : 0;
	/* from the start: an interrupt while loading stops before the first run */
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if ((rc = scn_cli_load(&a.sc, a.scenario, &s, &d)))
		goto fail;
	if (a.inner) {
		scenario_set_inner(s, (uint32_t)a.inner);
		warn_inner(s, a.inner, rank);
	}
	if ((rc = run_preflight_share(s, (int)a.jobs, rank,
				      mpi ? run_mpi_size(mpi) : 1, &d)) ||
	    (!a.yes && (rc = check_plan_size(s, (int)a.jobs, &d))))
		goto fail;
	command = cli_join_args(argc, argv);
	if (!command) {
		rc = diag_set(&d, NS_ENOMEM, "numasim run", 0, 0, "out of memory");
		goto fail;
	}
	if ((rc = agree(mpi, NS_OK, &peer, &agreed)) ||
	    (mpi && (rc = same_scenario(mpi, s, &d))) ||
	    (rank == 0 && (rc = store_open(a.db, STORE_RDWR | (a.trust_db ? STORE_TRUST_SCHEMA : 0),
				     &st, &d))) ||
	    (rc = agree(mpi, NS_OK, &peer, &agreed)))
		goto fail;
	agreed = 1;   /* from here on failures travel with the runs */
	if (rank == 0 && !a.resume)
		note_stored_plan(st, s, a.db);

	struct run_opts o = {
		.jobs = (int)a.jobs,
		.command = command,
		.stop = &run_stop,
		.bar = !a.quiet && rank == 0 && isatty(STDOUT_FILENO) &&
		       isatty(STDERR_FILENO) ? &bar : NULL,
		.resume = a.resume,
		.simulate_all = a.simulate_all,
		.charges = a.charges,
		.mpi = mpi,
		.commit_runs = (int)a.commit_runs,
		.commit_ms = (int)a.commit_ms,
	};
	bar.f = stderr;
	rc = run_scenario(s, st, &o, &out, &d);
	if (rank != 0) {
		/* a worker's failure reached rank 0, which reports it */
		status = rc == RUN_STOPPED ? EXIT_INTERRUPTED : ns_status_exit(rc);
		goto out;
	}
	int table_rc = NS_OK, stored = 0;
	int64_t first = 0, last = 0;
	if (rc == NS_OK && out.nr_ids > 0)
		table_rc = print_table(st, &out, s, a.format, a.per_cpu);
	fflush(stdout);
	/* the group left open (Ctrl-C) is committed first, then counted */
	if (st && rc != NS_OK && store_open_run(st) == 0)
		store_flush(st);
	if (committed_runs(st, &out, &stored, &first, &last) != NS_OK && rc == NS_OK)
		rc = diag_set(&d, NS_EDB, a.db, 0, 0, "cannot count the stored runs: %s",
			      sqlite3_errmsg(store_sqlite(st)));
	summary(&a, s, &out, stored, first, last);
	if (rc == RUN_STOPPED) {
		fprintf(stderr, "numasim run: interrupted: %d of %lld runs stored in %s\n",
			stored, out.planned, a.db);
		status = EXIT_INTERRUPTED;
		goto out;
	}
	if (rc)
		goto fail;
	status = table_rc ? ns_status_exit(table_rc) : 0;
	goto out;
fail:
	fflush(stdout);
	if (mpi && !agreed) {
		int any;
		run_mpi_max(mpi, 1, &any);   /* the step the other ranks wait in */
	}
	if (!peer)
		diag_print(&d, stderr);
	else if (rank == 0)
		fprintf(stderr, "numasim run: error: another MPI rank failed (see "
			"its message)\n");
	status = ns_status_exit(rc);
out:
	run_outcome_free(&out);
	store_close(st);
	scenario_free(s);
	scn_cli_free(&a.sc);
	free(command);
	run_mpi_finalize(mpi);
	return status;
}
