/*
 * cli — the numasim command line: one function per subcommand, each taking
 * the arguments after the subcommand name (argv[0] is the subcommand) and
 * returning the process exit status: 0 success, 1 runtime failure, 2 bad
 * input or usage (see NS_STATUS_MAP in diag.h).
 *
 * Conventions every subcommand follows:
 *   - its options are one table (cli/options.h), which drives parsing,
 *     the options block of --help, "did you mean" and completion;
 *   - `-h`/`--help` prints its usage on stdout and exits 0;
 *   - a usage error prints "numasim CMD: error: ..." and the usage line on
 *     stderr and exits 2; an unknown command, option or benchmark is one
 *     line instead, with the nearest known name ("did you mean") or a
 *     pointer to --help (cli_unknown);
 *   - errors in input files print file:line:col: error: ... and exit 2;
 *   - nothing is written to stdout or to an output file before the whole
 *     result is known to be good (output files are written to a temporary
 *     name and renamed into place).
 */
#ifndef NUMASIM_CLI_H
#define NUMASIM_CLI_H

#include <stdio.h>

struct cli_spec;

struct cli_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	const struct cli_spec *spec;    /* its option table (cli/options.h) */
	int raw_terminal;               /* draws a progress bar: its output on a
					   terminal is not filtered (cli/term.h) */
};

int cmd_validate(int argc, char **argv);
int cmd_topology(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_numastat(int argc, char **argv);

/* The option tables of the commands (cli/options.h), beside each
 * command's function. */
extern const struct cli_spec cmd_validate_spec, cmd_topology_spec, cmd_import_spec,
	cmd_run_spec, cmd_report_spec, cmd_trace_spec, cmd_compare_spec, cmd_query_spec,
	cmd_export_spec, cmd_plot_spec, cmd_list_spec, cmd_annotate_spec, cmd_diff_spec,
	cmd_numastat_spec,
	cmd_bench_spec_self,             /* `numasim bench` itself: -h only */
	cmd_bench_pagealloc_spec, cmd_bench_slub_spec, cmd_bench_messaging_spec;

/* The option table of benchmark name of `numasim bench` (NULL: none). */
const struct cli_spec *cmd_bench_spec(const char *name);

/* The model benchmarks of `numasim bench` (cmd_bench_models.c); argv[0]
 * is the benchmark's name. */
int cmd_bench_pagealloc(int argc, char **argv);
int cmd_bench_slub(int argc, char **argv);
int cmd_bench_messaging(int argc, char **argv);

/* Print "numasim CMD: error: <fmt>" and the usage line; returns 2. */
int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * An unknown name typed by the user: one line on stderr, "PROG: error:
 * unknown WHAT 'NAME' (did you mean 'X'?)" with the nearest of known[0..n)
 * by edit distance (within about a third of the name's letters), else
 * "(see 'HELP')"; no usage text (it hides the one line that matters).
 * Returns 2.
 */
int cli_unknown(const char *prog, const char *what, const char *name,
		const char *const *known, size_t n, const char *help);
/* The same for an option of subcommand cmd ("numasim CMD: error: unknown
 * option '--frob' ..."; help is 'numasim CMD --help'). */
int cli_unknown_option(const char *cmd, const char *opt, const char *const *known,
		       size_t n);
/* The nearest of known[0..n) to name (text after '=' ignored), or NULL
 * when none is close enough to be a typo of it. */
const char *cli_nearest(const char *name, const char *const *known, size_t n);
#define CLI_NR(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Parse a whole decimal integer option value in [min, max]; on failure
 * prints a usage error naming the option and returns NS_EUSAGE.
 */
int cli_parse_long(const char *cmd, const char *opt, const char *arg,
		   long long min, long long max, long long *out);

/*
 * Output files (every -o and --data of every command goes through these).
 *
 * cli_write_file_atomic writes buf (len bytes) to path atomically: a
 * temporary file in the target's directory, fsync, rename.  "-" writes
 * to stdout.  Returns an NS_ status and prints "path: error: ..." on
 * failure; the path is then unchanged and no temporary file is left.
 *
 * What may be at path: nothing (a new file is created with 0666 &
 * ~umask, like a file any other tool creates), a regular file (replaced;
 * it keeps its mode, and its owner where the process may set it), or a
 * symbolic link, which is followed: the file it points to is replaced
 * the same way and the link stays (a link to a missing file is refused).
 * A device, FIFO, socket or directory is refused with "path: error:
 * cannot write output file: it is a character device (...)", exit 2:
 * renaming over it would replace it (`-o /dev/null` as root would
 * destroy /dev/null).  An empty name is a usage error (exit 2).  A path
 * that cannot be created (no such directory, permission denied,
 * read-only file system) is bad input: "path: error: cannot create
 * output file: <errno text>", exit 2; other failures (disk full, I/O)
 * exit 1 (ns_status_from_errno in base/diag.h).
 *
 * cli_output_temp creates the temporary file of an atomic write of path:
 * "TARGET.tmpXXXXXX" + suffix beside path's target, already with the
 * mode above, open as *fd; *tmp is malloc'ed.  On failure it prints the
 * error and returns its status (*tmp NULL, *fd -1).  cli_output_rename
 * puts the finished temporary file in place (checking path again) or
 * removes it, printing the error.
 */
int cli_write_file_atomic(const char *path, const char *buf, size_t len);
int cli_output_temp(const char *path, const char *suffix, char **tmp, int *fd);
int cli_output_rename(const char *tmp, const char *path);

/* "numasim ARG0 ARG1 ..." (malloc'ed; NULL when out of memory): the
 * command line as typed, for provenance in outputs and databases. */
char *cli_join_args(int argc, char **argv);

/*
 * Commands that build a world per run or point (run, validate, trace):
 * keep freed memory in the heap instead of returning it to the kernel at
 * every world's teardown (glibc mallopt; docs/guide/running.md has the figures).
 */
void cli_keep_freed_memory(void);

#endif
