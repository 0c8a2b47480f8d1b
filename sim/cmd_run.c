/*
 * run — `numasim run SCENARIO [--db FILE] [--quiet] [--inner N] [--jobs J]`:
 * simulate a scenario's run plan (scenarios/run.h), store every run in a
 * results database (docs/schema.md) and print the mmtests-style comparison
 * table of the runs, built from the rows just written (analysis/table.h).
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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diag.h"
#include "msgreport.h"
#include "run.h"
#include "scenario.h"
#include "store.h"
#include "table.h"

#define RUN_DEFAULT_DB "results.db"
#define EXIT_INTERRUPTED 130

static const char usage_line[] =
	"numasim run SCENARIO [--db FILE] [--quiet] [--inner N] [--jobs J]";

static volatile sig_atomic_t run_stop;

static void on_signal(int sig)
{
	(void)sig;
	run_stop = 1;
}

static void print_help(void)
{
	printf("usage: %s\n\n"
	       "Simulates every run of a scenario (docs/scenario-format.md): each\n"
	       "point of its sweep times its repetitions, one fresh world per run.\n"
	       "Each run is written to the results database in one transaction\n"
	       "(docs/schema.md); then the mmtests-style table of the runs (Min per\n"
	       "alloc, free and total series, base column first) is printed on\n"
	       "standard output, built from the database rows; for a messaging\n"
	       "scenario, perf bench's Total time per run, the seed-format summary,\n"
	       "Welch t-tests, the SLUB stats and the __slab_free branch table\n"
	       "instead.  Progress, the database path and the wall time go to\n"
	       "standard error.\n\n"
	       "options:\n"
	       "  --db FILE     results database (default ./%s; created if missing,\n"
	       "                runs are appended)\n"
	       "  --inner N     override workload.inner_iterations (quick looks)\n"
	       "  --jobs J      simulate J runs at once (threads; default 1); the\n"
	       "                results and run order do not depend on J\n"
	       "  -q, --quiet   no progress lines\n"
	       "  -h, --help    show this help\n\n"
	       "Ctrl-C stops after the current inner iteration: committed runs stay\n"
	       "in the database, the unfinished ones are dropped (exit 130).\n\n"
	       "exit status: 0 ok, 1 runtime failure (a run failed its invariant\n"
	       "check: stored as 'failed'), 2 bad input or usage, 130 interrupted\n",
	       usage_line, RUN_DEFAULT_DB);
}

struct run_args {
	const char *scenario, *db;
	int quiet;
	long long inner, jobs;
};

static int parse_args(int argc, char **argv, struct run_args *a)
{
	a->db = RUN_DEFAULT_DB;
	a->jobs = 1;
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			print_help();
			return 1;
		}
		if (!strcmp(o, "-q") || !strcmp(o, "--quiet")) {
			a->quiet = 1;
		} else if (!strcmp(o, "--db") || !strcmp(o, "--inner") ||
			   !strcmp(o, "--jobs")) {
			if (i + 1 >= argc)
				return cli_usage_error("run", usage_line,
						       "option '%s' needs a value", o);
			const char *v = argv[++i];
			if (!strcmp(o, "--db")) {
				if (!*v)
					return cli_usage_error("run", usage_line,
							       "--db needs a file name");
				a->db = v;
			} else if (!strcmp(o, "--inner")) {
				if (cli_parse_long("run", "--inner", v, 1, 100000000, &a->inner))
					return 2;
			} else if (cli_parse_long("run", "--jobs", v, 1, RUN_MAX_JOBS,
						  &a->jobs)) {
				return 2;
			}
		} else if (o[0] == '-' && o[1] != '\0') {
			return cli_usage_error("run", usage_line, "unknown option '%s'", o);
		} else if (a->scenario) {
			return cli_usage_error("run", usage_line,
					       "more than one scenario ('%s', '%s')",
					       a->scenario, o);
		} else {
			a->scenario = o;
		}
	}
	if (!a->scenario)
		return cli_usage_error("run", usage_line, "no scenario file");
	return 0;
}

static void print_table(struct store *st, const struct run_outcome *out, int messaging)
{
	struct diag d;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	diag_init(&d);
	if (!f)
		return;
	int rc = messaging
		? msgreport_print(store_sqlite(st), out->run_ids, out->nr_stored, f, &d)
		: table_pagealloc(store_sqlite(st), out->run_ids, out->nr_stored,
				  TABLE_MIN, f, &d);
	fclose(f);
	if (rc == NS_OK)
		fwrite(buf, 1, len, stdout);
	else
		diag_print(&d, stderr);
	free(buf);
}

int cmd_run(int argc, char **argv)
{
	struct run_args a = {0};
	struct scenario *s = NULL;
	struct store *st = NULL;
	struct run_outcome out = {0};
	char *command = NULL;
	struct diag d;
	int status, rc;

	diag_init(&d);
	if ((status = parse_args(argc, argv, &a)))
		return status == 1 ? 0 : status;
	if ((rc = scenario_load_file(a.scenario, &s, &d)))
		goto fail;
	if (a.inner)
		scenario_set_inner(s, (uint32_t)a.inner);
	if ((rc = run_preflight(s, &d)))
		goto fail;
	command = cli_join_args(argc, argv);
	if (!command) {
		rc = diag_set(&d, NS_ENOMEM, "numasim run", 0, 0, "out of memory");
		goto fail;
	}
	if ((rc = store_open(a.db, STORE_RDWR, &st, &d)))
		goto fail;

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	struct run_opts o = {
		.jobs = (int)a.jobs,
		.command = command,
		.stop = &run_stop,
		.progress = a.quiet ? NULL : stderr,
	};
	rc = run_scenario(s, st, &o, &out, &d);
	if (rc == NS_OK)
		print_table(st, &out, s->workload == SCN_WL_MESSAGING);
	fflush(stdout);
	if (out.nr_stored > 0)
		fprintf(stderr, "numasim run: %d run%s stored in %s (run_id %" PRId64
			"..%" PRId64 "), wall time %.1f s\n", out.nr_stored,
			out.nr_stored == 1 ? "" : "s", a.db, out.run_ids[0],
			out.run_ids[out.nr_stored - 1], out.wall_s);
	if (rc == RUN_STOPPED) {
		fprintf(stderr, "numasim run: interrupted: %d of %lld runs stored in %s\n",
			out.nr_stored, out.planned, a.db);
		status = EXIT_INTERRUPTED;
		goto out;
	}
	if (rc)
		goto fail;
	status = 0;
	goto out;
fail:
	fflush(stdout);
	diag_print(&d, stderr);
	status = ns_status_exit(rc);
out:
	run_outcome_free(&out);
	store_close(st);
	scenario_free(s);
	free(command);
	return status;
}
