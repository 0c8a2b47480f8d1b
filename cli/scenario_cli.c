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

int scn_cli_option(struct scn_cli *c, int argc, char **argv, int *i)
{
	static const struct {
		const char *opt;
		int kind;                       /* enum scn_arg_kind, -1 workload */
	} opts[] = {
		{"--set", SCN_ARG_SET}, {"--sweep", SCN_ARG_SWEEP},
		{"--machine", SCN_ARG_MACHINE}, {"--workload", -1},
	};
	const char *o = argv[*i];
	for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
		size_t ol = strlen(opts[k].opt);
		const char *v;
		if (strncmp(o, opts[k].opt, ol) || (o[ol] != '\0' && o[ol] != '='))
			continue;
		if (o[ol] == '=') {
			v = o + ol + 1;
		} else if (*i + 1 < argc) {
			v = argv[++*i];
		} else {
			return cli_usage_error(c->cmd, c->usage, "option '%s' needs a value", o);
		}
		if (!*v)
			return cli_usage_error(c->cmd, c->usage, "%s needs a value",
					       opts[k].opt);
		for (const char *p = v; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				return cli_usage_error(c->cmd, c->usage, "%s: control "
						       "characters are not allowed",
						       opts[k].opt);
		if (opts[k].kind == SCN_ARG_SET || opts[k].kind == SCN_ARG_SWEEP) {
			const char *eq = strchr(v, '=');
			if (!eq || eq == v)
				return cli_usage_error(c->cmd, c->usage, "%s %s: expected "
						       "%s", opts[k].opt, v,
						       opts[k].kind == SCN_ARG_SET
						       ? "KEY=VALUE" : "KEY=V1,V2,...");
		}
		if (opts[k].kind < 0) {
			if (c->workload)
				return cli_usage_error(c->cmd, c->usage,
						       "--workload given twice");
			c->workload = v;
			return 1;
		}
		if (opts[k].kind == SCN_ARG_MACHINE) {
			if (c->have_machine)
				return cli_usage_error(c->cmd, c->usage,
						       "--machine given twice");
			c->have_machine = 1;
		}
		c->o.args[c->o.nr_args++] = (struct scn_arg){
			(enum scn_arg_kind)opts[k].kind, v};
		return 1;
	}
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
