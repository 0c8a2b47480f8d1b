/*
 * scenario_cli — --set/--sweep/--machine/--workload for the scenario
 * commands; see scenario_cli.h.
 */
#include "cli/scenario_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/file_kind.h"

int scn_cli_init(struct scn_cli *c, const char *cmd, const char *usage, int argc)
{
	memset(c, 0, sizeof *c);
	snprintf(c->prog, sizeof c->prog, "numasim %s", cmd);
	c->cmd = cmd;
	c->usage = usage;
	c->o.prog = c->prog;
	c->o.args = calloc((size_t)(argc > 0 ? argc : 1), sizeof *c->o.args);
	if (!c->o.args) {
		fprintf(stderr, "%s: error: out of memory\n", c->prog);
		return NS_ENOMEM;
	}
	return NS_OK;
}

void scn_cli_free(struct scn_cli *c)
{
	free(c->o.args);
	c->o.args = NULL;
}

int scn_cli_set(void *dst, const struct cli_option *opt, const char *typed,
		const char *v)
{
	struct scn_cli *c = dst;
	/* the option's number: enum scn_arg_kind, -1 for --workload */
	int kind = !strcmp(opt->name, "--set") ? SCN_ARG_SET
		   : !strcmp(opt->name, "--sweep") ? SCN_ARG_SWEEP
		   : !strcmp(opt->name, "--machine") ? SCN_ARG_MACHINE : -1;
	(void)typed;
	if (!*v)
		return cli_usage_error(c->cmd, c->usage, "%s needs a value", opt->name);
	for (const char *p = v; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return cli_usage_error(c->cmd, c->usage, "%s: control "
					       "characters are not allowed", opt->name);
	if (kind == SCN_ARG_SET || kind == SCN_ARG_SWEEP) {
		const char *eq = strchr(v, '=');
		if (!eq || eq == v)
			return cli_usage_error(c->cmd, c->usage, "%s %s: expected %s",
					       opt->name, v, kind == SCN_ARG_SET
					       ? "KEY=VALUE" : "KEY=V1,V2,...");
	}
	if (kind < 0) {
		if (c->workload)
			return cli_usage_error(c->cmd, c->usage, "--workload given twice");
		c->workload = v;
		return 0;
	}
	if (kind == SCN_ARG_MACHINE) {
		if (c->have_machine)
			return cli_usage_error(c->cmd, c->usage, "--machine given twice");
		c->have_machine = 1;
	}
	c->o.args[c->o.nr_args++] = (struct scn_arg){(enum scn_arg_kind)kind, v};
	return 0;
}

int scn_cli_adhoc(const struct scn_cli *c)
{
	return c->workload != NULL;
}

int scn_cli_load(const struct scn_cli *c, const char *path, struct scenario **s,
		 struct diag *d)
{
	*s = NULL;
	if (path && c->workload)
		return diag_set(d, NS_EUSAGE, c->prog, 0, 0, "--workload runs without "
				"a scenario file; give one or the other");
	if (c->workload && !c->have_machine)
		return diag_set(d, NS_EUSAGE, c->prog, 0, 0, "--workload needs --machine");
	if (!path && !c->workload)
		return diag_set(d, NS_EUSAGE, c->prog, 0, 0, "no scenario file (or "
				"--machine M --workload W)");
	if (path) {
		char *found;
		int rc = cli_find_file(c->prog, DATAFILE_SCENARIO, path, &found, d);
		if (rc == NS_OK)
			rc = scenario_load_file_opts(found, &c->o, s, d);
		free(found);
		return rc;
	}
	/* --machine is the adhoc loader's own first setting */
	struct scn_opts rest = c->o;
	struct scn_arg *args = calloc((size_t)(c->o.nr_args > 0 ? c->o.nr_args : 1),
				      sizeof *args);
	const char *machine = NULL;
	if (!args)
		return diag_set(d, NS_ENOMEM, c->prog, 0, 0, "out of memory");
	rest.args = args;
	rest.nr_args = 0;
	for (int i = 0; i < c->o.nr_args; i++) {
		if (c->o.args[i].kind == SCN_ARG_MACHINE)
			machine = c->o.args[i].text;
		else
			args[rest.nr_args++] = c->o.args[i];
	}
	int rc = scenario_load_adhoc(machine, c->workload, &rest, s, d);
	free(args);
	return rc;
}
