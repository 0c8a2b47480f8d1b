/*
 * options — the one option mechanism of the numasim command line: every
 * command (and every benchmark of `numasim bench`) describes its options
 * in one static table, a struct cli_spec, and that table drives
 *   - parsing (cli_parse): "--name VALUE", "--name=VALUE" where the option
 *     allows it (CLI_OPT_EQ), flags, repeated options, operands;
 *   - the options block of --help (cli_print_options), so --help cannot
 *     miss an option, and from --help the man pages (scripts/help2man.sh);
 *   - "did you mean" for an unknown option (cli_unknown_option over the
 *     table's names);
 *   - bash completion: the hidden `numasim __options CMD [BENCHMARK]`
 *     prints the table's names, one a line (scripts/numasim-completion.bash).
 * A command's own code keeps only what is its own: checks that relate
 * options (after cli_parse), and values with a message of their own
 * (a CLI_OPT_CALL option, handled by the option's call function).
 *
 * Conventions (cli.h): -h/--help is every command's, added by the
 * mechanism (not a row of the tables: recognised before them, the last
 * names of "did you mean", listed last in --help as "-h, --help  show
 * this help"); a usage error prints "numasim CMD: error: ..." and the
 * usage line and is status 2.
 *
 * Parsing, one argument at a time in command-line order:
 *   1. with CLI_HELP_FIRST, -h/--help anywhere prints the help before any
 *      other argument is looked at;
 *   2. -h/--help prints the help (cli_parse returns CLI_HELP_SHOWN);
 *   3. an argument equal to an option's name or alias (or "NAME=VALUE"
 *      for a CLI_OPT_EQ option) is that option: a flag sets its int to 1;
 *      any other takes the value after '=' or the next argument (none
 *      left: the spec's needs_value message, "option '%s' needs a value"
 *      unless set) and stores it by kind;
 *   4. with CLI_END_DASHDASH, "--" makes every later argument an operand
 *      (checked before 2 and 3);
 *   5. anything else that looks like an option ("-x"; only "--x" with
 *      CLI_DASHDASH; every argument with CLI_ALL_OPTIONS) is an unknown option:
 *      one line with the nearest name (cli_unknown_option), status 2,
 *      unless spec->takes_dash says it is an operand where it stands;
 *   6. anything else is an operand, given to spec->operand in order (no
 *      operand function: "unexpected argument 'X'").
 * The values are stored into the command's argument struct at the
 * option's offset (offsetof), so the tables are static const and can be
 * read without running the command (completion, the tests).
 *
 * Error policy: every function prints its own message; status 2 for a
 * usage error, as every command returns it.  No state outside the
 * arguments.
 */
#ifndef NUMASIM_CLI_OPTIONS_H
#define NUMASIM_CLI_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

enum cli_opt_kind {
	CLI_OPT_FLAG,          /* no value; int at off set to 1 */
	CLI_OPT_NUM,           /* whole number in [min, max] into long long at off */
	CLI_OPT_TEXT,          /* the value as typed into const char * at off */
	CLI_OPT_FILE,          /* a non-empty file name into const char * at off
				* ("--name needs a file name") */
	CLI_OPT_NUM_PAIR,      /* two whole numbers in [min, max] (two arguments)
				* into long long [2] at off; fewer left:
				* "option '--name' needs <expected>" */
	CLI_OPT_CHOICE,        /* choice(args + off, value); a refused one is
				* "--name 'V': expected <expected>" */
	CLI_OPT_CALL,          /* call(args + off, option, name as typed, value) */
	CLI_OPT_FORMAT,        /* text|json|csv into enum rec_format at off
				* ("unknown format 'V' (text, json or csv)") */
	CLI_OPT_DOC,           /* a line of --help only (another form of the
				* option above it): never parsed */
};

/* cli_option.flags */
#define CLI_OPT_EQ 1u          /* "--name=VALUE" as well as "--name VALUE" */
#define CLI_OPT_OWN_MISSING 2u /* CLI_OPT_CALL: a missing value calls the
				* option function with val NULL (it prints
				* its own message) */

struct cli_option {
	const char *name;      /* "--db" */
	const char *alias;     /* "-q", or NULL */
	const char *arg;       /* the value's name in --help ("FILE");
				* NULL for a flag */
	enum cli_opt_kind kind;
	unsigned flags;        /* CLI_OPT_EQ, CLI_OPT_OWN_MISSING */
	size_t off;            /* offsetof the value in the command's args */
	long long min, max;    /* CLI_OPT_NUM, CLI_OPT_NUM_PAIR */
	int (*choice)(void *dst, const char *val);     /* NS_OK or not */
	const char *expected;  /* CLI_OPT_CHOICE: "text, json or csv";
				* CLI_OPT_NUM_PAIR: "two run ids" */
	/* CLI_OPT_CALL: 0, or the status after printing the error (val
	 * NULL: a flag, or a missing value with CLI_OPT_OWN_MISSING) */
	int (*call)(void *dst, const struct cli_option *o, const char *typed,
		    const char *val);
	/* its text in --help: lines separated by '\n', indented to the
	 * spec's column by cli_print_options; "%D" prints the option's
	 * default from the defaults given to cli_print_options (a long
	 * long for CLI_OPT_NUM, else a const char *) */
	const char *help;
};

/* cli_spec.flags */
#define CLI_HELP_FIRST 1u      /* -h/--help anywhere wins over any error */
#define CLI_ALL_OPTIONS 2u     /* no operands: every unmatched argument is
				* an unknown option */
#define CLI_DASHDASH 4u        /* an unmatched "--x" is an unknown option; any
				* other argument is an operand (default: "-x") */
#define CLI_END_DASHDASH 8u    /* "--" ends the options: every argument after
				* it is an operand */
#define CLI_ALL_EQ 16u         /* every option takes "--name=VALUE" too */

struct cli_spec {
	const char *cmd;       /* "run", "bench pagealloc" */
	const char *usage;     /* the usage line(s), without "usage: " */
	const struct cli_option *opts;
	size_t nr_opts;
	unsigned flags;        /* CLI_HELP_FIRST, ... CLI_ALL_EQ */
	int help_col;          /* where the help text of an option starts */
	/* a missing value: printf format with the option as typed (NULL:
	 * "option '%s' needs a value") */
	const char *needs_value;
	/* an unmatched argument that looks like an option but is an operand
	 * here (NULL: none is) */
	int (*takes_dash)(const void *args, const char *arg);
	/* an operand: 0, or the status after printing the error */
	int (*operand)(void *args, const char *arg);
	/* the whole --help text; it prints the options with cli_print_options */
	void (*help)(const struct cli_spec *spec);
	/* an extra line after an option's help, or NULL (what this build lacks) */
	const char *(*note)(const struct cli_option *o);
};

#define CLI_HELP_SHOWN (-1)

/*
 * Parse argv[1..argc) into args by spec: 0 when parsed, CLI_HELP_SHOWN
 * when -h/--help printed the help (exit 0), else the usage status (2)
 * after printing the error.
 */
int cli_parse(const struct cli_spec *spec, void *args, int argc, char **argv);

/*
 * The options block of --help: one entry per option in table order, the
 * synopsis ("-q, --quiet", "--db FILE") in a column of spec->help_col
 * (on a line of its own when it does not fit), then -h, --help.
 * defaults: the command's argument struct with its defaults, for "%D"
 * (NULL when no help text has one).
 */
void cli_print_options(FILE *f, const struct cli_spec *spec, const void *defaults);

/*
 * The names a user can type (names and aliases of the parsed options,
 * then "--help", "-h") into names[0..max); returns how many there are
 * (more than max: only max were stored).
 */
size_t cli_option_names(const struct cli_spec *spec, const char **names, size_t max);

#define CLI_NR_OPTS(a) (sizeof(a) / sizeof((a)[0]))

#endif
