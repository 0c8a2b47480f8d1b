/*
 * main — the numasim entry point: dispatches to the subcommands of cli.h.
 * Exit status (docs/reference/exit-status.md, the one place it is described): 0
 * success, 1 runtime failure (including standard output that cannot be
 * written), 2 bad input or usage, 130 interrupted (run).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/term.h"
#include "numasim_config.h"

#include <gsl/gsl_version.h>
#include <sqlite3.h>
#include <yaml.h>

static void version_help(const struct cli_spec *spec)
{
	printf("usage: %s\n\nPrints the numasim version, how it was "
	       "built (optimization level, asserts, link-time and\nprofile-guided "
	       "optimisation, sanitizers: `numasim bench` figures depend on it) and the\n"
	       "versions of GSL, libyaml and SQLite it runs with.\n\noptions:\n",
	       spec->usage);
	cli_print_options(stdout, spec, NULL);
}

/* `numasim version` has no options but -h/--help: a table of none. */
static const struct cli_spec version_spec = {
	.cmd = "version", .usage = "numasim version", .help_col = 14, .help = version_help,
};

static int cmd_version(int argc, char **argv)
{
	/* the old order: the first argument only, an option before an operand */
	static const char *const known[] = {"--help", "-h"};
	if (argc > 1 && !strcmp(argv[1], "-"))   /* an unknown option, as it was */
		return cli_unknown_option("version", argv[1], known, CLI_NR(known));
	if (argc > 1) {
		int rc = cli_parse(&version_spec, NULL, 2, argv);
		if (rc)
			return rc == CLI_HELP_SHOWN ? 0 : rc;
	}
	printf("numasim %s\nbuild: %s\ngsl %s\nlibyaml %s\nsqlite %s\n", NUMASIM_VERSION,
	       NUMASIM_BUILD, gsl_version, yaml_get_version_string(), sqlite3_libversion());
	return 0;
}

static const struct cli_command commands[] = {
	/* name        function        summary, option table, raw terminal */
	{"version", cmd_version, "print the version, how it was built and its libraries", &version_spec, 0},
	{"bench", cmd_bench, "measure the simulator's own speed (phold, ...)", &cmd_bench_spec_self, 1},
	{"validate", cmd_validate, "check machine, cost profile and scenario files", &cmd_validate_spec, 0},
	{"topology", cmd_topology, "print a machine's nodes, distances and zonelists", &cmd_topology_spec, 0},
	{"import", cmd_import, "make a machine file from numactl output or sysfs", &cmd_import_spec, 0},
	{"run", cmd_run, "run a scenario and store its results", &cmd_run_spec, 1},
	{"report", cmd_report, "print profile, branches and tables of a results database", &cmd_report_spec, 0},
	{"trace", cmd_trace, "print model events of a scenario as JSON lines", &cmd_trace_spec, 1},
	{"compare", cmd_compare, "mmtests-style tables of runs with Welch's t-test", &cmd_compare_spec, 0},
	{"query", cmd_query, "run a read-only SQL query on a results database", &cmd_query_spec, 0},
	{"export", cmd_export, "write a table or query of a results database as CSV/JSON", &cmd_export_spec, 0},
	{"plot", cmd_plot, "plot metrics, profiles, branch sites or flame graphs as SVG or PNG", &cmd_plot_spec, 0},
	{"list", cmd_list, "list the shipped machines, scenarios, cost profiles, scenario keys", &cmd_list_spec, 0},
	{"annotate", cmd_annotate, "a modelled function's branch sites and cycles, like perf annotate", &cmd_annotate_spec, 0},
	{"numastat", cmd_numastat, "a run's NUMA allocation counters per node, like numastat", &cmd_numastat_spec, 0},
	{"diff", cmd_diff, "perf diff of two runs, variants or databases: functions and branch sites", &cmd_diff_spec, 0},
};

#define NR_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
	fprintf(f, "usage: numasim [--version] [--help] COMMAND [ARGS...]\n\n"
		   "numasim simulates Linux NUMA memory allocation.\n\ncommands:\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'numasim COMMAND --help' describes a command.\n");
}

/* One line with the nearest name, not the whole usage (issue: what a new
 * user trips over). */
static int unknown(const char *cmd)
{
	static const char *const opts[] = {"--help", "-h", "--version"};
	const char *names[NR_COMMANDS + 1];
	if (cmd[0] == '-')
		return cli_unknown("numasim", "option", cmd, opts, CLI_NR(opts),
				   "numasim --help");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		names[i] = commands[i].name;
	names[NR_COMMANDS] = "help";
	return cli_unknown("numasim", "command", cmd, names, NR_COMMANDS + 1,
			   "numasim --help");
}

/*
 * `numasim __options CMD [BENCHMARK]`, for bash completion
 * (scripts/numasim-completion.bash): the names of the command's options
 * from its table, one a line; nothing for an unknown command.  Hidden: not
 * in --help, not a "did you mean" candidate.
 */
static int list_options(int argc, char **argv)
{
	const struct cli_spec *spec = NULL;
	const char *names[128];
	for (size_t i = 0; argc > 2 && i < NR_COMMANDS; i++)
		if (!strcmp(argv[2], commands[i].name))
			spec = commands[i].spec;
	if (spec && argc > 3 && !strcmp(argv[2], "bench"))
		spec = cmd_bench_spec(argv[3]);
	if (!spec)
		return 0;
	size_t n = cli_option_names(spec, names, CLI_NR(names));
	for (size_t i = 0; i < n && i < CLI_NR(names); i++)
		printf("%s\n", names[i]);
	return 0;
}

/* The command's status for a usage/help line or the subcommand itself. */
static int dispatch(int argc, char **argv, struct term_streams *ts)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		printf("numasim %s\n", NUMASIM_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "__options"))
		return list_options(argc, argv);
	if (!strcmp(cmd, "help")) {
		if (argc < 3) {
			usage(stdout);
			return 0;
		}
		cmd = argv[2];
		for (size_t i = 0; i < NR_COMMANDS; i++)
			if (!strcmp(cmd, commands[i].name)) {
				char *hargv[] = {argv[2], "--help", NULL};
				return commands[i].fn(2, hargv);
			}
	}
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(cmd, commands[i].name)) {
			if (!commands[i].raw_terminal)
				term_filter(ts);
			return commands[i].fn(argc - 1, argv + 1);
		}
	return unknown(cmd);
}

/*
 * Standard output that could not be written (a full disk, a closed pipe
 * reader's EPIPE is a signal instead) is a runtime failure of every
 * command, exit 1, even where the command itself printed with plain
 * printf: checked once here, after the command (docs/reference/exit-status.md).
 */
static int finish_stdout(int status)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return status;
	fprintf(stderr, "numasim: error: writing standard output: %s\n",
		errno ? strerror(errno) : "write error");
	return status ? status : 1;
}

int main(int argc, char **argv)
{
	struct term_streams ts = {0};
	int status = finish_stdout(dispatch(argc, argv, &ts));
	if (term_restore(&ts) != 0 && status == 0)
		status = 1;
	return status;
}
