/*
 * list — `numasim list machines|scenarios|costs|keys [--format
 * text|json|csv]`: what numasim ships, one line each, so a user can find
 * the names every command accepts in place of a path (`--machine
 * rome-nps4`, `numasim run seed-zonelist`; machine/datafile.h).
 *
 * machines: name, nodes, CPUs, memory (GiB), description of every machine
 * file in the directories bare names are looked up in, in their order
 * (datafile_kind_dirs: $NUMASIM_CONFIGS, then the data roots), each name
 * once (the first found, the one a bare name resolves to); costs: name
 * and description of the cost profiles; scenarios: name, machine,
 * workload, runs and description; keys: the scenario keys --set and
 * --sweep take (scenario_keys, the loader's own tables), for shell
 * completion; commits: the kernel commits `kernel.commit` selects
 * (models/kcommit.h), in series order: v3 number, id, status (modelled,
 * no executed change, or not modelled yet), title, and the functions and
 * sites the model changes.  Every file is loaded by its loader, so a listed name is
 * one the commands accept; a shipped file that does not load is an
 * error (exit 1: the installation is broken), nothing is printed.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "base/diag.h"
#include "base/records.h"
#include "machine/datafile.h"
#include "machine/machine.h"
#include "cost/cost.h"
#include "models/kcode.h"
#include "models/kcommit.h"
#include "scenarios/scenario.h"

static const char usage_line[] =
	"numasim list machines|scenarios|costs|keys|commits|functions|sites|blocks\n"
	"       [--format text|json|csv]";

struct list_args {
	const char *what;
	enum rec_format fmt;
};

static int set_format(void *dst, const struct cli_option *o, const char *typed,
		      const char *v)
{
	(void)o;
	(void)typed;
	if (!v || rec_parse_format(v, dst))
		return cli_usage_error("list", usage_line, "--format takes text, json or csv");
	return 0;
}

static int list_operand(void *args, const char *arg)
{
	struct list_args *a = args;
	if (a->what)
		return cli_usage_error("list", usage_line, "unexpected argument '%s'", arg);
	a->what = arg;
	return 0;
}

static void print_help(const struct cli_spec *spec);

static const struct cli_option list_options[] = {
	{.name = "--format", .arg = "F", .kind = CLI_OPT_CALL, .flags = CLI_OPT_OWN_MISSING,
	 .off = offsetof(struct list_args, fmt), .call = set_format,
	 .help = "text (default), json or csv (docs/reference/output-formats.md)"},
};

const struct cli_spec cmd_list_spec = {
	.cmd = "list", .usage = usage_line,
	.opts = list_options, .nr_opts = CLI_NR_OPTS(list_options), .help_col = 13,
	.operand = list_operand, .help = print_help,
};

static void print_help(const struct cli_spec *spec)
{
	printf("usage: %s\n\n"
	       "Lists what numasim ships, one line each; the names work wherever a\n"
	       "file is expected (numasim topology rome-nps4, run --machine\n"
	       "skylake-2s, numasim run seed-zonelist).\n\n"
	       "  machines   name, nodes, CPUs, memory and description of every\n"
	       "             machine file (configs/, $NUMASIM_CONFIGS first)\n"
	       "  scenarios  name, machine, workload, runs and description\n"
	       "  costs      name and description of the cost profiles\n"
	       "             (configs/costs/)\n"
	       "  keys       the scenario keys --set and --sweep accept\n"
	       "  commits    the kernel commits kernel.commit selects, in series\n"
	       "             order: v3 number, id, status, title, what changes\n"
	       "  functions  the models' functions (the names code-change files\n"
	       "             use: docs/reference/changes.md): model, layout,\n"
	       "             the callers whose call a static key can take\n"
	       "  sites      the branch sites: model, kernel function, hint,\n"
	       "             the outcome that falls through, condition\n"
	       "  blocks     the code blocks: model, work row, accesses, exit site\n\n"
	       "options:\n", spec->usage);
	cli_print_options(stdout, spec, NULL);
	printf("\nexit status: 0 ok, 1 a shipped file does not load, 2 bad usage\n");
}

#define LIST_MAX_FILES 256

/* One shipped file: its name (file name without .yaml) and path. */
struct entry {
	char name[128];
	char path[DATAFILE_PATH_MAX + 258];  /* dir + "/" + a d_name (<= 255) */
};

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

/*
 * The *.yaml files of kind's directories, sorted by name, each name once
 * (the first directory wins, as for datafile_resolve); *n of them.
 */
static int collect(enum datafile_kind kind, struct entry *e, int *n)
{
	char **paths;
	int nr, rc;
	*n = 0;
	if ((rc = datafile_list(kind, &paths, &nr)) != NS_OK)
		return rc;
	for (int i = 0; i < nr && *n < LIST_MAX_FILES; i++) {
		const char *slash = strrchr(paths[i], '/');
		const char *file = slash ? slash + 1 : paths[i];
		size_t len = strlen(file) - 5; /* without ".yaml" */
		if (len >= sizeof e->name || strlen(paths[i]) >= sizeof e->path)
			continue;
		snprintf(e[*n].name, sizeof e[*n].name, "%.*s", (int)len, file);
		snprintf(e[*n].path, sizeof e[*n].path, "%s", paths[i]);
		(*n)++;
	}
	datafile_list_free(paths, nr);
	qsort(e, (size_t)*n, sizeof *e, entry_cmp);
	return NS_OK;
}

/* Width of the name column of the text layout (>= the heading's). */
static int name_width(const struct entry *e, int n)
{
	int w = 4;
	for (int i = 0; i < n; i++)
		if ((int)strlen(e[i].name) > w)
			w = (int)strlen(e[i].name);
	return w;
}

/*
 * Each lister adds its rows to doc and, when txt is not NULL (--format
 * text), prints them as aligned columns with the description last.
 */
static int list_machines(struct rec_doc *doc, FILE *txt, const struct entry *e, int n,
			 struct diag *d)
{
	int w = name_width(e, n);
	rec_table(doc, "machines");
	if (txt)
		fprintf(txt, "%-*s %5s %5s %10s  %s\n", w, "NAME", "NODES", "CPUS", "MEMORY",
			"DESCRIPTION");
	for (int i = 0; i < n; i++) {
		struct machine *m = NULL;
		int rc = machine_load_file(e[i].path, &m, d);
		if (rc)
			return rc;
		rec_row(doc);
		rec_str(doc, "name", e[i].name);
		rec_int(doc, "nodes", m->nr_nodes);
		rec_int(doc, "cpus", m->nr_cpus);
		rec_int(doc, "memory_bytes", (long long)(machine_mem_pages(m) * m->page_size));
		rec_str(doc, "description", m->description);
		rec_str(doc, "path", datafile_shown(e[i].path));
		if (txt)
			fprintf(txt, "%-*s %5d %5d %6.0f GiB  %s\n", w, e[i].name, m->nr_nodes,
				m->nr_cpus, (double)(machine_mem_pages(m) * m->page_size) /
				(double)(1ull << 30), m->description ? m->description : "");
		machine_free(m);
	}
	return NS_OK;
}

static int list_costs(struct rec_doc *doc, FILE *txt, const struct entry *e, int n,
		      struct diag *d)
{
	int w = name_width(e, n);
	rec_table(doc, "costs");
	if (txt)
		fprintf(txt, "%-*s  %s\n", w, "NAME", "DESCRIPTION");
	for (int i = 0; i < n; i++) {
		struct machine_costs c;
		int rc = machine_costs_load_file(e[i].path, &c, d);
		if (rc)
			return rc;
		rec_row(doc);
		rec_str(doc, "name", e[i].name);
		rec_str(doc, "description", c.description);
		rec_str(doc, "path", datafile_shown(e[i].path));
		if (txt)
			fprintf(txt, "%-*s  %s\n", w, e[i].name, c.description ? c.description : "");
		machine_costs_free(&c);
	}
	return NS_OK;
}

static int list_scenarios(struct rec_doc *doc, FILE *txt, const struct entry *e, int n,
			  struct diag *d)
{
	int w = name_width(e, n);
	rec_table(doc, "scenarios");
	if (txt)
		fprintf(txt, "%-*s %-16s %-9s %5s  %s\n", w, "NAME", "MACHINE", "WORKLOAD",
			"RUNS", "DESCRIPTION");
	for (int i = 0; i < n; i++) {
		struct scenario *s = NULL;
		int rc = scenario_load_file(e[i].path, &s, d);
		if (rc)
			return rc;
		rec_row(doc);
		rec_str(doc, "name", e[i].name);
		rec_str(doc, "machine", s->nr_machines == 1 ? s->machine->name : "(several)");
		rec_str(doc, "workload", scn_workload_name(s->workload));
		rec_int(doc, "runs", scenario_nr_runs(s));
		rec_str(doc, "description", s->description);
		rec_str(doc, "path", datafile_shown(e[i].path));
		if (txt)
			fprintf(txt, "%-*s %-16s %-9s %5lld  %s\n", w, e[i].name,
				s->nr_machines == 1 ? s->machine->name : "(several)",
				scn_workload_name(s->workload), scenario_nr_runs(s),
				s->description ? s->description : "");
		scenario_free(s);
	}
	return NS_OK;
}

static int list_keys(struct rec_doc *doc, FILE *txt, struct diag *d)
{
	char buf[8192];
	const char *keys[512];
	int n = scenario_keys(buf, sizeof buf, keys, 512);
	if (n > 512)
		return diag_set(d, NS_EINTERNAL, "numasim list", 0, 0, "%d keys: more "
				"than the 512 this command has room for", n);
	rec_table(doc, "keys");
	for (int i = 0; i < n; i++) {
		rec_row(doc);
		rec_str(doc, "key", keys[i]);
		if (txt)
			fprintf(txt, "%s\n", keys[i]);
	}
	return NS_OK;
}

/* kcommit's status letter as a word */
static const char *status_word(char st)
{
	return st == 'M' ? "modelled" : st == 'N' ? "no-change" : "pending";
}

static int list_commits(struct rec_doc *doc, FILE *txt, struct diag *d)
{
	if (kcommit_check())
		return diag_set(d, NS_EINTERNAL, "numasim list", 0, 0,
				"the table of commits (models/kcommit.h) is not in series order");
	rec_table(doc, "commits");
	if (txt)
		fprintf(txt, "%-4s %-3s %-20s %-9s %s\n", "TREE", "V3", "ID", "STATUS",
			"TITLE / CHANGES");
	for (int k = KCOMMIT_UNSET + 1; k < KCOMMIT_NR; k++) {
		enum kcommit c = (enum kcommit)k;
		const char *st = status_word(kcommit_status(c));
		rec_row(doc);
		rec_str(doc, "tree", kcommit_tree(c));
		rec_int(doc, "v3", kcommit_v3(c));
		rec_str(doc, "id", kcommit_id(c));
		rec_str(doc, "status", st);
		rec_str(doc, "title", kcommit_title(c));
		rec_str(doc, "changes", kcommit_changes(c));
		if (txt)
			fprintf(txt, "%-4s %02d  %-20s %-9s %s\n%39s%s\n", kcommit_tree(c),
				kcommit_v3(c), kcommit_id(c), st, kcommit_title(c), "",
				kcommit_changes(c));
	}
	return NS_OK;
}

static const char *const hint_words[] = {"", "likely", "unlikely"};

static const char *ft_word(int ft)
{
	return ft == COST_FT_HINTED ? "hinted" : ft ? "true" : "false";
}

/* The kernel source line of a name (kcode_line()) into the row, and as
 * "file:line" (or "-") into buf for the text. */
static const char *code_source(struct rec_doc *doc, enum kcode_kind kind, const char *name,
			       char *buf, size_t len)
{
	const char *release, *file;
	int line = kcode_line(kind, name, &release, &file);
	rec_str(doc, "source_release", line ? release : "");
	rec_str(doc, "source_file", line ? file : "");
	if (line)
		rec_int(doc, "source_line", line);
	else
		rec_null(doc, "source_line");
	if (line)
		snprintf(buf, len, "%s:%d", file, line);
	else
		snprintf(buf, len, "-");
	return buf;
}

/* functions, sites or blocks of models/kcode.h, model by model. */
static int list_code(struct rec_doc *doc, FILE *txt, enum kcode_kind kind, struct diag *d)
{
	if (kcode_check())
		return diag_set(d, NS_EINTERNAL, "numasim list", 0, 0,
				"a name of the models' tables (models/kcode.h) is not unique");
	rec_table(doc, kind == KCODE_FN ? "functions" : kind == KCODE_SITE ? "sites" : "blocks");
	if (txt && kind == KCODE_FN)
		fprintf(txt, "%-28s %-9s %-11s %-25s %-46s %s\n", "FUNCTION", "MODEL", "LAYOUT",
			"SOURCE", "KEY-CALLERS", "KERNEL");
	if (txt && kind == KCODE_SITE)
		fprintf(txt, "%-24s %-9s %-28s %-8s %-11s %-25s %s\n", "SITE", "MODEL", "FUNCTION",
			"HINT", "FALLS-THRU", "SOURCE", "CONDITION");
	if (txt && kind == KCODE_BLOCK)
		fprintf(txt, "%-24s %-9s %-24s %-8s %-25s %s\n", "BLOCK", "MODEL", "WORK-ROW",
			"ACCESSES", "SOURCE", "EXIT");
	char src[96];
	for (int k = 0; k < KCODE_NR_MODELS; k++) {
		struct kcode_model m;
		kcode_model(k, &m);
		for (int i = 0; kind == KCODE_FN && i < m.nr_fns; i++) {
			const char *lay = m.fn_inline[i] ? "inline" : "out-of-line";
			rec_row(doc);
			rec_str(doc, "name", m.fns[i]);
			rec_str(doc, "model", m.name);
			rec_str(doc, "layout", lay);
			rec_str(doc, "kernel", m.kernel);
			code_source(doc, KCODE_FN, m.fns[i], src, sizeof src);
			/* the calls a change file can put behind a static key
			 * (`call: CALLER -> CALLEE`), by caller */
			char callers[160], cell[160];
			kcode_key_callers(m.fns[i], callers, sizeof callers);
			rec_str(doc, "key_callers", callers);
			snprintf(cell, sizeof cell, "%s", callers);
			for (char *p = cell; (p = strstr(p, ", ")); )
				memmove(p + 1, p + 2, strlen(p + 2) + 1);
			if (txt)
				fprintf(txt, "%-28s %-9s %-11s %-25s %-46s %s\n", m.fns[i], m.name, lay,
					src, cell[0] ? cell : "-", m.kernel);
		}
		for (int i = 0; kind == KCODE_SITE && i < m.nr_sites; i++) {
			const struct kcode_site *st = &m.sites[i];
			struct cost_site_def def = {st->name, st->desc};
			char fn[64];
			if (!cost_site_function(&def, fn, sizeof fn))
				fn[0] = '\0';
			const char *hint = st->hint < 3 ? hint_words[st->hint] : "?";
			rec_row(doc);
			rec_str(doc, "name", st->name);
			rec_str(doc, "model", m.name);
			rec_str(doc, "function", fn);
			rec_str(doc, "hint", hint);
			rec_str(doc, "fall_through", ft_word(st->ft));
			rec_str(doc, "condition", st->desc);
			code_source(doc, KCODE_SITE, st->name, src, sizeof src);
			if (txt)
				fprintf(txt, "%-24s %-9s %-28s %-8s %-11s %-25s %s\n", st->name, m.name,
					fn, hint[0] ? hint : "-", ft_word(st->ft), src, st->desc);
		}
		for (int i = 0; kind == KCODE_BLOCK && i < m.nr_blocks; i++) {
			const struct kcode_block *b = &m.blocks[i];
			/* the exit as the table writes it: S_ID / SS_ID, or -1 */
			const char *exit = !strcmp(b->exit, "-1") ? ""
					   : !strncmp(b->exit, "SS_", 3) ? b->exit + 3
					   : !strncmp(b->exit, "S_", 2) ? b->exit + 2 : b->exit;
			rec_row(doc);
			rec_str(doc, "name", b->name);
			rec_str(doc, "model", m.name);
			rec_str(doc, "work_row", b->row);
			rec_str(doc, "accesses", b->kinds);
			rec_str(doc, "exit", exit);
			code_source(doc, KCODE_BLOCK, b->name, src, sizeof src);
			if (txt)
				fprintf(txt, "%-24s %-9s %-24s %-8s %-25s %s\n", b->name, m.name, b->row,
					b->kinds[0] ? b->kinds : "-", src,
					exit[0] ? exit : "(a call, a return or the next block)");
		}
	}
	return NS_OK;
}

static int usage_what(const char *what)
{
	static const char *const known[] = {"machines", "scenarios", "costs", "keys", "commits",
					    "functions", "sites", "blocks"};
	return cli_unknown("numasim list", "list", what, known, CLI_NR(known),
			   "numasim list --help");
}

int cmd_list(int argc, char **argv)
{
	struct list_args a = {.fmt = REC_TEXT};
	int prc = cli_parse(&cmd_list_spec, &a, argc, argv);
	if (prc)
		return prc == CLI_HELP_SHOWN ? 0 : prc;
	const char *what = a.what;
	enum rec_format fmt = a.fmt;
	if (!what)
		return cli_usage_error("list", usage_line, "what to list: machines, "
				       "scenarios, costs, keys, commits, functions, sites or blocks");
	enum datafile_kind kind = !strcmp(what, "machines") ? DATAFILE_MACHINE
				  : !strcmp(what, "costs") ? DATAFILE_COSTS
							   : DATAFILE_SCENARIO;
	int code = !strcmp(what, "functions") ? KCODE_FN : !strcmp(what, "sites") ? KCODE_SITE
		   : !strcmp(what, "blocks") ? KCODE_BLOCK : -1;
	if (strcmp(what, "machines") && strcmp(what, "costs") && strcmp(what, "scenarios") &&
	    strcmp(what, "keys") && strcmp(what, "commits") && code < 0)
		return usage_what(what);
	int no_files = !strcmp(what, "keys") || !strcmp(what, "commits") || code >= 0;

	struct diag d;
	struct entry *e = calloc(LIST_MAX_FILES, sizeof *e);
	struct rec_doc *doc = rec_doc_new("list");
	char *buf = NULL;
	size_t len = 0;
	int n = 0, rc = e && doc ? NS_OK : NS_ENOMEM;
	diag_init(&d);
	if (rc == NS_OK && !no_files)
		rc = collect(kind, e, &n);
	FILE *f = rc == NS_OK ? open_memstream(&buf, &len) : NULL;
	if (rc == NS_OK && !f)
		rc = NS_ENOMEM;
	FILE *txt = fmt == REC_TEXT ? f : NULL;
	if (rc == NS_OK) {
		rec_meta_str(doc, "list", what);
		rc = !strcmp(what, "keys") ? list_keys(doc, txt, &d)
		     : !strcmp(what, "commits") ? list_commits(doc, txt, &d)
		     : code >= 0 ? list_code(doc, txt, (enum kcode_kind)code, &d)
		     : kind == DATAFILE_MACHINE ? list_machines(doc, txt, e, n, &d)
		     : kind == DATAFILE_COSTS ? list_costs(doc, txt, e, n, &d)
					      : list_scenarios(doc, txt, e, n, &d);
	}
	if (rc == NS_OK && !txt)
		rc = rec_write(doc, fmt, f);
	if (f)
		fclose(f);
	if (rc == NS_OK)
		rc = cli_write_file_atomic("-", buf, len);
	else if (rc == NS_ENOMEM && !d.status)
		fprintf(stderr, "numasim list: error: out of memory\n");
	else
		diag_print(&d, stderr);
	free(buf);
	free(e);
	rec_doc_free(doc);
	return rc ? ns_status_exit(rc) : 0;
}
