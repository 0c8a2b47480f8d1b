/*
 * validate — `numasim validate [--quiet] FILE...`: check machine files, cost
 * profiles (docs/reference/machine-format.md) and scenarios (docs/reference/scenario-format.md)
 * without running anything.
 *
 * A FILE that does not exist from the current directory is looked up
 * among the shipped files (machine/datafile.h): "validate rome-nps4" from
 * anywhere.  The kind of each file is decided by its top-level keys
 * (cli/file_kind.h): `workload` makes
 * a scenario (its machine is loaded and every point's world built once, so
 * validate accepts what `numasim run` accepts), `nodes` a machine file,
 * `costs` without `nodes` a cost profile; anything else is
 * refused as an unknown kind.  Each file is then loaded by its loader, so
 * validate accepts exactly what the simulator accepts.  Every file is
 * checked even after a bad one; good files print one "ok" line on stdout,
 * bad ones their first error on stderr.  Exit status: 0 if all files are
 * good, 2 if any is bad (1 if the only failures were runtime ones, such as
 * an unreadable file).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "base/diag.h"
#include "machine/machine.h"
#include "scenarios/run.h"
#include "scenarios/scenario.h"
#include "cli/file_kind.h"
#include "cli/scenario_cli.h"
#include "base/ytree.h"
#include "base/records.h"

static const char usage_line[] =
	"numasim validate [--quiet] [--format text|json|csv] [--set KEY=VALUE]...\n"
	"                 [--sweep KEY=V1,V2]... FILE...\n"
	"       numasim validate --all [--quiet] [--format text|json|csv]\n"
	"       numasim validate --machine M --workload W [--set KEY=VALUE]...";

struct validate_args {
	int quiet, nfiles, all;
	enum rec_format fmt;
	char **files;
	struct scn_cli sc;              /* --set, --sweep, --machine, --workload */
};

static int set_format(void *dst, const struct cli_option *o, const char *typed,
		      const char *v)
{
	(void)o;
	(void)typed;
	if (!v || rec_parse_format(v, dst))
		return cli_usage_error("validate", usage_line, "--format takes text, json or csv");
	return 0;
}

static int validate_operand(void *args, const char *arg)
{
	struct validate_args *a = args;
	a->files[a->nfiles++] = (char *)arg;
	return 0;
}

#define VALIDATE_ARG(field) offsetof(struct validate_args, field)

static void print_help(const struct cli_spec *spec);

static const struct cli_option validate_options[] = {
	SCN_CLI_OPTION("--set", "KEY=VALUE", struct validate_args, sc,
		       "apply to every scenario as `numasim run` applies it"),
	SCN_CLI_OPTION("--sweep", "KEY=V1,V2,...", struct validate_args, sc,
		       "the same for a sweep"),
	SCN_CLI_OPTION("--machine", "M", struct validate_args, sc,
		       "the same for the machine; with --machine M --workload W\n"
		       "and no FILE the one-off scenario 'adhoc' is checked"),
	SCN_CLI_OPTION("--workload", "W", struct validate_args, sc,
		       "the workload of the one-off scenario"),
	{.name = "--all", .kind = CLI_OPT_FLAG, .off = VALIDATE_ARG(all),
	 .help = "every shipped machine file, cost profile and scenario\n"
		 "(numasim list machines|costs|scenarios), after any FILE"},
	{.name = "--quiet", .alias = "-q", .kind = CLI_OPT_FLAG, .off = VALIDATE_ARG(quiet),
	 .help = "print nothing for good files"},
	{.name = "--format", .arg = "F", .kind = CLI_OPT_CALL, .flags = CLI_OPT_OWN_MISSING,
	 .off = VALIDATE_ARG(fmt), .call = set_format,
	 .help = "text (default), json or csv: one document with a row\n"
		 "per file (good ones with what they hold, bad ones\n"
		 "with their error; docs/reference/output-formats.md); errors\n"
		 "still go to standard error too"},
};

const struct cli_spec cmd_validate_spec = {
	.cmd = "validate", .usage = usage_line,
	.opts = validate_options, .nr_opts = CLI_NR_OPTS(validate_options),
	.flags = CLI_END_DASHDASH, .help_col = 16,
	.operand = validate_operand, .help = print_help,
};

static void print_help(const struct cli_spec *spec)
{
	printf("usage: %s\n\n"
	       "Checks machine files and cost profiles (docs/reference/machine-format.md)\n"
	       "and scenarios (docs/reference/scenario-format.md).  A file with a top-level\n"
	       "'workload' key is a scenario (its machine file is checked too);\n"
	       "one with 'nodes' a machine file; one with 'costs' and no 'nodes' a\n"
	       "cost profile.  '-' reads standard input.  --all checks every shipped\n"
	       "machine file, cost profile and scenario.\n\n"
	       "For each good file prints\n"
	       "  FILE: ok (machine NAME: N nodes, M CPUs, X GiB)\n"
	       "  FILE: ok (cost profile NAME)\n"
	       "  FILE: ok (scenario NAME: machine M, P points x R repetitions = N runs)\n"
	       "on standard output; for a bad one its first error as\n"
	       "  FILE:LINE:COL: error: MESSAGE\n"
	       "on standard error.\n\n"
	       "options:\n", spec->usage);
	cli_print_options(stdout, spec, NULL);
	printf("\nexit status: 0 all files good, 2 some file bad, 1 runtime failure\n");
}

/*
 * FILE as given, or a shipped file of that name of any kind (machines
 * first: "rome-nps4", "seed-zonelist", "zen2"); *path is malloc'ed.
 */
static int find_any(const char *ref, char **path, struct diag *d)
{
	static const enum datafile_kind kinds[] = {
		DATAFILE_MACHINE, DATAFILE_SCENARIO, DATAFILE_COSTS,
	};
	struct diag first;
	diag_init(&first);
	int rc = datafile_resolve(kinds[0], ref, path, &first);
	for (size_t k = 1; rc == NS_ENOENT && k < sizeof kinds / sizeof *kinds; k++) {
		struct diag quiet;
		diag_init(&quiet);
		rc = datafile_resolve(kinds[k], ref, path, &quiet);
	}
	if (rc == NS_ENOENT && !strchr(ref, '/'))
		return diag_set(d, rc, ref, 0, 0, "cannot open: no such file, and no "
				"shipped machine, scenario or cost profile of that "
				"name");
	if (rc)
		*d = first;
	return rc;
}

/* "96", "1.5", "0.02": GiB with at most two decimals. */
static void format_gib(uint64_t bytes, char *buf, size_t len)
{
	snprintf(buf, len, "%.2f", (double)bytes / (double)(1ull << 30));
	char *dot = strchr(buf, '.');
	if (!dot)
		return;
	char *end = buf + strlen(buf) - 1;
	while (end > dot && *end == '0')
		*end-- = '\0';
	if (end == dot)
		*end = '\0';
}

/* A row of table files for file name: status ok, its kind and name. */
static void record_ok(struct rec_doc *doc, const char *file, const char *kind,
		      const char *name)
{
	rec_table(doc, "files");
	rec_row(doc);
	rec_str(doc, "file", file);
	rec_str(doc, "status", "ok");
	rec_str(doc, "kind", kind);
	rec_str(doc, "name", name);
}

static int report_machine(const char *name, const char *buf, size_t len,
			  int quiet, struct rec_doc *doc, struct diag *d)
{
	struct machine *m;
	char gib[64];
	int rc = machine_load_buf(name, buf, len, &m, d);
	if (rc)
		return rc;
	rc = machine_check(m, d);
	if (rc == NS_OK && doc) {
		record_ok(doc, name, "machine", m->name);
		rec_int(doc, "nodes", m->nr_nodes);
		rec_int(doc, "cpus", m->nr_cpus);
		rec_int(doc, "memory_bytes", (long long)(machine_mem_pages(m) * m->page_size));
	} else if (rc == NS_OK && !quiet) {
		format_gib(machine_mem_pages(m) * m->page_size, gib, sizeof gib);
		printf("%s: ok (machine %s: %d node%s, %d CPU%s, %s GiB)\n", name,
		       m->name, m->nr_nodes, m->nr_nodes == 1 ? "" : "s",
		       m->nr_cpus, m->nr_cpus == 1 ? "" : "s", gib);
	}
	machine_free(m);
	return rc;
}

static int report_costs(const char *name, const char *buf, size_t len,
			int quiet, struct rec_doc *doc, struct diag *d)
{
	struct machine_costs c;
	int rc = machine_costs_load_buf(name, buf, len, &c, d);
	if (rc)
		return rc;
	rc = machine_costs_check(&c, name, d);
	if (rc == NS_OK && doc)
		record_ok(doc, name, "costs", c.name);
	else if (rc == NS_OK && !quiet)
		printf("%s: ok (cost profile %s)\n", name, c.name);
	machine_costs_free(&c);
	return rc;
}

static int report_scenario(const char *path, const char *buf, size_t len,
			   int quiet, const struct scn_cli *sc, struct rec_doc *doc,
			   struct diag *d)
{
	const char *name = path ? ytree_display_name(path) : "adhoc";
	struct scenario *s;
	int rc = path ? scenario_load(path, buf, len, &sc->o, &s, d)
		      : scn_cli_load(sc, NULL, &s, d);
	if (rc)
		return rc;
	rc = run_preflight(s, d);
	if (rc == NS_OK && doc) {
		record_ok(doc, name, "scenario", s->name);
		rec_str(doc, "machine", s->nr_machines == 1 ? s->machine->name : NULL);
		rec_int(doc, "machines", s->nr_machines);
		rec_int(doc, "points", s->nr_points);
		rec_int(doc, "repetitions", s->repetitions);
		rec_int(doc, "runs", scenario_nr_runs(s));
	} else if (rc == NS_OK && !quiet)
		printf("%s: ok (scenario %s: machine %s, %d point%s x %lld "
		       "repetition%s = %lld run%s)\n", name, s->name,
		       s->nr_machines == 1 ? s->machine->name : "(several)",
		       s->nr_points, s->nr_points == 1 ? "" : "s", s->repetitions,
		       s->repetitions == 1 ? "" : "s", scenario_nr_runs(s),
		       scenario_nr_runs(s) == 1 ? "" : "s");
	scenario_free(s);
	return rc;
}

/* A bad file's row: status error, where and what (d's first error). */
static void record_error(struct rec_doc *doc, const char *file, const struct diag *d)
{
	if (!doc)
		return;
	rec_table(doc, "files");
	rec_row(doc);
	rec_str(doc, "file", file);
	rec_str(doc, "status", "error");
	rec_str(doc, "error_file", d->file[0] ? d->file : file);
	rec_int(doc, "line", d->line);
	rec_int(doc, "col", d->col);
	rec_str(doc, "message", d->msg);
	rec_int(doc, "exit_status", ns_status_exit(d->status));
}

/* Validate one file; returns its process exit status (0, 1 or 2). */
static int validate_one(const char *path, int quiet, const struct scn_cli *sc,
			struct rec_doc *doc)
{
	const char *given = path;
	struct diag d;
	enum datafile_kind kind = DATAFILE_MACHINE;
	char *buf = NULL, *found = NULL;
	size_t len = 0;
	int rc;

	diag_init(&d);
	rc = find_any(path, &found, &d);
	if (rc == NS_OK)
		path = found;
	const char *name = ytree_display_name(path);
	if (rc == NS_OK)
		rc = ytree_read_file(path, &buf, &len, &d);
	if (rc == NS_OK)
		rc = cli_classify(name, buf, len, &kind, &d);
	if (rc == NS_OK && kind == DATAFILE_SCENARIO)
		rc = report_scenario(path, buf, len, quiet, sc, doc, &d);
	else if (rc == NS_OK)
		rc = kind == DATAFILE_MACHINE ? report_machine(name, buf, len, quiet, doc, &d)
					      : report_costs(name, buf, len, quiet, doc, &d);
	free(buf);
	if (rc == NS_OK) {
		free(found);
		return 0;
	}
	record_error(doc, found ? ytree_display_name(found) : given, &d);
	free(found);
	fflush(stdout);
	diag_print(&d, stderr);
	return ns_status_exit(rc);
}

/* --machine M --workload W without files: the adhoc scenario. */
static int validate_adhoc(int quiet, const struct scn_cli *sc, struct rec_doc *doc)
{
	struct diag d;
	diag_init(&d);
	int rc = report_scenario(NULL, NULL, 0, quiet, sc, doc, &d);
	if (rc == NS_OK)
		return 0;
	record_error(doc, "adhoc", &d);
	fflush(stdout);
	diag_print(&d, stderr);
	return ns_status_exit(rc);
}

/* --all: the shipped files of each kind, machines first (a scenario's
 * error is clearer once its machine is known good). */
static int validate_shipped(int quiet, const struct scn_cli *sc, struct rec_doc *doc)
{
	static const enum datafile_kind kinds[] = {
		DATAFILE_MACHINE, DATAFILE_COSTS, DATAFILE_SCENARIO,
	};
	int status = 0;
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		char **paths;
		int n;
		if (datafile_list(kinds[k], &paths, &n)) {
			fprintf(stderr, "numasim validate: error: out of memory\n");
			return 1;
		}
		if (n == 0) {
			fprintf(stderr, "numasim validate: error: --all: no shipped %s found\n",
				datafile_kind_name(kinds[k]));
			status = 1;
		}
		for (int i = 0; i < n; i++) {
			int e = validate_one(paths[i], quiet, sc, doc);
			if (e > status)
				status = e;
		}
		datafile_list_free(paths, n);
	}
	return status;
}

int cmd_validate(int argc, char **argv)
{
	int status = 0;
	struct validate_args a = {.fmt = REC_TEXT, .files = calloc((size_t)argc, sizeof *a.files)};
	struct rec_doc *doc = NULL;

	cli_keep_freed_memory();      /* the preflight builds every point's world */
	if (scn_cli_init(&a.sc, "validate", usage_line, argc) || !a.files) {
		fprintf(stderr, "numasim validate: error: out of memory\n");
		scn_cli_free(&a.sc);
		free(a.files);
		return 1;
	}
	status = cli_parse(&cmd_validate_spec, &a, argc, argv);
	if (status) {
		status = status == CLI_HELP_SHOWN ? 0 : status;
		goto out;
	}
	if (a.nfiles == 0 && !a.all && !scn_cli_adhoc(&a.sc)) {
		status = cli_usage_error("validate", usage_line, "no input files");
		goto out;
	}
	if (a.fmt != REC_TEXT && !(doc = rec_doc_new("validate"))) {
		fprintf(stderr, "numasim validate: error: out of memory\n");
		status = 1;
		goto out;
	}
	if (a.nfiles == 0 && !a.all)
		status = validate_adhoc(a.quiet, &a.sc, doc);
	for (int i = 0; i < a.nfiles; i++) {
		int e = validate_one(a.files[i], a.quiet, &a.sc, doc);
		if (e > status)
			status = e;
	}
	if (a.all) {
		int e = validate_shipped(a.quiet, &a.sc, doc);
		if (e > status)
			status = e;
	}
	if (doc) {
		rec_meta_int(doc, "exit_status", status);
		char *b = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&b, &len);
		int rc = f ? rec_write(doc, a.fmt, f) : NS_ENOMEM;
		if (f)
			fclose(f);
		if (rc == NS_OK)
			rc = cli_write_file_atomic("-", b, len);
		else
			fprintf(stderr, "numasim validate: error: %s\n", ns_status_msg(rc));
		if (rc)
			status = ns_status_exit(rc);
		free(b);
	}
out:
	rec_doc_free(doc);
	scn_cli_free(&a.sc);
	free(a.files);
	return status;
}
