/*
 * scenario_cli — the scenario options shared by `numasim run`, `validate`
 * and `trace`: --set KEY=VALUE, --sweep KEY=V1,V2,..., --machine M and
 * --workload W (docs/reference/scenario-format.md, "From the command line").
 *
 * What it does: collects the options in command-line order (their order
 * is part of the effective scenario's sha256) and loads either the
 * scenario file with them applied, or, with --machine and --workload and
 * no file, the one-off scenario "adhoc".  The scenario file is found by
 * cli_find_file (cli/file_kind.h: a shipped name such as "seed-zonelist"
 * from any directory, and a machine file or cost profile given in its
 * place is refused with what it is).  With a scenario file, --machine M
 * replaces its machine (a path relative to the current directory, or a
 * shipped machine's name).
 *
 * Error policy: a malformed option is a usage error (`numasim CMD: error:
 * ...`, status 2) from scn_cli_set; bad values are reported by the
 * loader as `numasim CMD: error: --set KEY=VALUE: ...` (NS_EINPUT).
 * scn_cli_free releases what scn_cli_init allocated; nothing else is held.
 */
#ifndef NUMASIM_SCENARIO_CLI_H
#define NUMASIM_SCENARIO_CLI_H

#include <stddef.h>

#include "base/diag.h"
#include "cli/options.h"
#include "scenarios/scenario.h"

struct scn_cli {
	char prog[32];                  /* "numasim run" */
	const char *cmd, *usage;        /* for usage errors */
	struct scn_opts o;              /* args: [argc] */
	const char *workload;           /* --workload W */
	int have_machine;
};

/*
 * The rows of the four options in a command's option table
 * (cli/options.h): args is the command's argument struct, field its
 * struct scn_cli; each row's help text is the command's own.  Each takes
 * "--opt VALUE" or "--opt=VALUE", in command-line order, --set and
 * --sweep repeatedly.
 */
#define SCN_CLI_OPTION(opt, metavar, args, field, text)                      \
	{.name = opt, .arg = metavar, .kind = CLI_OPT_CALL,                      \
	 .flags = CLI_OPT_EQ, .off = offsetof(args, field), .call = scn_cli_set,  \
	 .help = text}

/* Prepare for up to argc options; NS_ENOMEM (printed) on failure. */
int scn_cli_init(struct scn_cli *c, const char *cmd, const char *usage, int argc);
void scn_cli_free(struct scn_cli *c);

/*
 * The option function of the four (a CLI_OPT_CALL, dst the struct
 * scn_cli): checks and records the value; 0, or 2 after printing a usage
 * error.
 */
int scn_cli_set(void *dst, const struct cli_option *opt, const char *typed,
		const char *v);

/* Is a scenario file optional (--machine and --workload were given)? */
int scn_cli_adhoc(const struct scn_cli *c);

/*
 * Load the scenario: path (NULL with --machine/--workload) with the
 * options applied.  A usage problem (a file and --workload, --workload
 * without --machine, no file at all) is NS_EUSAGE in d ("numasim CMD:
 * error: ..."); bad values NS_EINPUT.
 */
int scn_cli_load(const struct scn_cli *c, const char *path, struct scenario **s,
		 struct diag *d);

#endif
