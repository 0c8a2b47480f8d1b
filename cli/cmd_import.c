/*
 * cmd_import — `numasim import numactl|sysfs ...`: write a machine file
 * (docs/reference/machine-format.md) from a real box's description, using the
 * importers of machine/import.h.
 *
 * The whole file is built and validated (loaded back by the machine
 * loader) in memory before anything is written; output goes to standard
 * output or atomically to -o OUT, so a failed import leaves nothing behind.
 */
#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_import_trace.h"
#include "cli/options.h"
#include "cli/file_kind.h"
#include "base/diag.h"
#include "machine/datafile.h"
#include "machine/import.h"
#include "machine/machine.h"
#include "base/ytree.h"

#define IMPORT_USAGE                                                           \
	"numasim import numactl FILE|- [options]\n"                            \
	"       numasim import sysfs [ROOT] [options]\n"                       \
	"       numasim import trace FILE|- [-o OUT] [--skip-bad]\n"             \
	"       numasim import --list-costs"

static int usage_err(const char *fmt, const char *arg)
{
	return cli_usage_error("import", IMPORT_USAGE, fmt, arg);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Profiles in one costs/ directory, sorted, skipping names seen before. */
static int list_dir(const char *dir, char ***seen, int *nseen)
{
	char path[DATAFILE_PATH_MAX + 300];
	DIR *dp = opendir(dir);
	if (!dp)
		return 0;
	char **names = NULL;
	int n = 0, shown = 0;
	struct dirent *e;
	while ((e = readdir(dp))) {
		size_t l = strlen(e->d_name);
		if (l <= 5 || strcmp(e->d_name + l - 5, ".yaml"))
			continue;
		char **nn = realloc(names, (size_t)(n + 1) * sizeof *nn);
		if (!nn)
			break;
		names = nn;
		if (!(names[n] = strndup(e->d_name, l - 5)))
			break;
		n++;
	}
	closedir(dp);
	if (n > 1)
		qsort(names, (size_t)n, sizeof *names, cmp_str);
	for (int i = 0; i < n; i++) {
		int dup = 0;
		for (int j = 0; j < *nseen; j++)
			dup |= !strcmp((*seen)[j], names[i]);
		char *block = NULL, *p = NULL, *desc = NULL;
		struct diag d;
		diag_init(&d);
		snprintf(path, sizeof path, "%s/%s.yaml", dir, names[i]);
		if (dup) {
			free(names[i]);
			continue;
		}
		if (import_load_costs(path, &block, &p, NULL, &desc, NULL,
				      &d) == NS_OK)
			printf("%-16s %s\n%-16s (%s)\n", names[i], desc ? desc : "",
			       "", path);
		else
			printf("%-16s (%s: invalid: %s)\n", names[i], path, d.msg);
		shown++;
		free(block);
		free(p);
		free(desc);
		char **ns = realloc(*seen, (size_t)(*nseen + 1) * sizeof *ns);
		if (ns) {
			*seen = ns;
			(*seen)[(*nseen)++] = names[i];
		} else {
			free(names[i]);
		}
	}
	free(names);
	return shown;
}

static int list_costs(void)
{
	struct datafile_dirs dd;
	char **seen = NULL;
	int nseen = 0, found = 0;
	datafile_kind_dirs(DATAFILE_COSTS, &dd);
	for (int i = 0; i < dd.nr; i++)
		found += list_dir(dd.dir[i], &seen, &nseen);
	for (int i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
	if (!found) {
		fprintf(stderr, "numasim import: error: no cost profiles found "
			"(set NUMASIM_CONFIGS to the configs directory)\n");
		return 1;
	}
	return 0;
}

/* What the import chose on its own, on standard error (stdout may be the
 * machine file). */
static void print_notes(const struct import_notes *n)
{
	if (n->one_node[0])
		fprintf(stderr, "numasim import: %s\n", n->one_node);
	int b = n->skipped_before, a = n->skipped_after;
	if (b || a)
		fprintf(stderr, "numasim import: skipped %d line%s before and %d "
			"line%s after the numactl --hardware output (shell prompts, "
			"headers)\n", b, b == 1 ? "" : "s", a, a == 1 ? "" : "s");
	fprintf(stderr, "numasim import: machine name '%s' (%s)\n", n->name,
		n->name_from);
	fprintf(stderr, "numasim import: cost profile %s: %s\n", n->costs,
		n->costs_from);
}

/*
 * The SLIT distances whose latency the cost profile does not give: the
 * cost model interpolates it between the profile's two nearest points
 * (or extrapolates past the last; docs/reference/machine-format.md), so
 * the import says so, once per distinct distance, with the first pair of
 * nodes at it.
 */
static void print_interpolated(const char *text, size_t len)
{
	struct machine *m = NULL;
	struct diag quiet;
	diag_init(&quiet);
	if (machine_load_buf("import", text, len, &m, &quiet) != NS_OK)
		return;
	const struct machine_costs *k = &m->costs;
	int seen[64], nseen = 0;
	for (int i = 0; i < m->nr_nodes; i++)
		for (int j = 0; j < m->nr_nodes; j++) {
			int dist = m->distance[i * m->nr_nodes + j], p = 0, dup = 0;
			for (int s = 0; s < nseen && !dup; s++)
				dup = seen[s] == dist;
			while (p < k->nr_memory_latency && k->memory_latency[p].distance < dist)
				p++;
			if (dup || (p < k->nr_memory_latency && k->memory_latency[p].distance == dist))
				continue;
			if (nseen < 64)
				seen[nseen++] = dist;
			const struct latency_point *lo = &k->memory_latency[p - 1];
			if (p < k->nr_memory_latency)
				fprintf(stderr, "numasim import: SLIT distance %d (node %d to node "
					"%d): the cost profile gives no memory latency for it; "
					"interpolated between distance %d (%.1f ns) and %d (%.1f "
					"ns): %.1f ns\n", dist, m->nodes[i].id, m->nodes[j].id,
					lo->distance, lo->ns, k->memory_latency[p].distance,
					k->memory_latency[p].ns, machine_memory_latency_ns(m, dist));
			else
				fprintf(stderr, "numasim import: SLIT distance %d (node %d to node "
					"%d): beyond the cost profile's last memory latency "
					"(distance %d, %.1f ns); extrapolated: %.1f ns\n", dist,
					m->nodes[i].id, m->nodes[j].id, lo->distance, lo->ns,
					machine_memory_latency_ns(m, dist));
		}
	machine_free(m);
}

struct import_args {
	struct import_opts o;
	const char *kind, *input, *out;
	int list, skip_bad;
	long long one_cpus, one_mib;    /* --cpus, --memory (no NUMA) */
};

static int set_arch(void *dst, const struct cli_option *opt, const char *typed,
		    const char *val)
{
	(void)opt;
	(void)typed;
	int arch = import_arch_parse(val);
	if (arch < 0)
		return usage_err("--arch takes x86_64, arm64 or none, not '%s'", val);
	*(enum import_arch *)dst = (enum import_arch)arch;
	return 0;
}

static int import_operand(void *args, const char *arg)
{
	struct import_args *a = args;
	if (!a->kind)
		a->kind = arg;
	else if (!a->input)
		a->input = arg;
	else
		return usage_err("unexpected argument '%s'", arg);
	return 0;
}

#define IMPORT_ARG(field) offsetof(struct import_args, field)

static void import_help(const struct cli_spec *spec);

static const struct cli_option import_options[] = {
	{.name = "--output", .alias = "-o", .arg = "OUT", .kind = CLI_OPT_TEXT,
	 .off = IMPORT_ARG(out),
	 .help = "write to OUT (atomically) instead of standard output"},
	{.name = "--name", .arg = "NAME", .kind = CLI_OPT_TEXT, .off = IMPORT_ARG(o.name),
	 .help = "machine name (default: input file name; for\n"
		 "standard input -o's file name, else a pasted\n"
		 "prompt's host; the host name for a live\n"
		 "sysfs import)"},
	{.name = "--description", .arg = "TEXT", .kind = CLI_OPT_TEXT,
	 .off = IMPORT_ARG(o.description),
	 .help = "one-line description (default: a summary)"},
	{.name = "--costs", .arg = "NAME|PATH", .kind = CLI_OPT_TEXT, .off = IMPORT_ARG(o.costs),
	 .help = "cost profile (default: the one nearest to the\n"
		 "CPU in ROOT/proc/cpuinfo or pasted lscpu lines,\n"
		 "else %D\n"
		 "arm64); NAME is looked up in $NUMASIM_CONFIGS/\n"
		 "costs, the installed data directory and the\n"
		 "source tree"},
	{.name = "--arch", .arg = "x86_64|arm64|none", .kind = CLI_OPT_CALL,
	 .off = IMPORT_ARG(o.arch), .call = set_arch,
	 .help = "zone layout when zone sizes are unknown"},
	{.name = "--cpus", .arg = "N", .kind = CLI_OPT_NUM, .off = IMPORT_ARG(one_cpus),
	 .min = 1, .max = MACHINE_MAX_CPUS,
	 .help = "numactl: when it says \"No NUMA available on this\n"
		 "system\", the one node's CPUs (0..N-1; default:\n"
		 "this host's)"},
	{.name = "--memory", .arg = "MIB", .kind = CLI_OPT_NUM, .off = IMPORT_ARG(one_mib),
	 .min = 16, .max = 1LL << 40,
	 .help = "numactl, no NUMA: the node's memory in MiB\n"
		 "(default: this host's)"},
	{.name = "--list-costs", .kind = CLI_OPT_FLAG, .off = IMPORT_ARG(list),
	 .help = "list the cost profiles found and exit"},
	{.name = "--skip-bad", .kind = CLI_OPT_FLAG, .off = IMPORT_ARG(skip_bad),
	 .help = "trace: count lines that are not understood\n"
		 "and go on (default: error, exit 2)"},
};

const struct cli_spec cmd_import_spec = {
	.cmd = "import", .usage = IMPORT_USAGE,
	.opts = import_options, .nr_opts = CLI_NR_OPTS(import_options), .help_col = 26,
	.needs_value = "%s needs a value", .operand = import_operand, .help = import_help,
};

static void import_help(const struct cli_spec *spec)
{
	char costs[128];
	/* the one %D of the table: --costs's defaults, by architecture */
	struct import_args defaults = {.out = "-"};
	snprintf(costs, sizeof costs, "%s for x86_64 and none, %s for",
		 import_default_costs(IMPORT_ARCH_X86_64),
		 import_default_costs(IMPORT_ARCH_ARM64));
	defaults.o.costs = costs;
	printf("usage: %s\n\n"
	       "Writes a machine file from a real machine's description:\n"
	       "  numactl FILE   the output of `numactl --hardware` ('-' reads "
	       "standard input);\n"
	       "                 lines before it and after it (a pasted shell prompt or\n"
	       "                 header) are skipped and counted on standard error\n"
	       "  sysfs [ROOT]   /sys/devices/system/node (and /proc/zoneinfo) under "
	       "ROOT,\n"
	       "                 default '/', i.e. this machine\n"
	       "  trace FILE     a recorded kmem trace (perf script or ftrace text): prints\n"
	       "                 the events by kind and a perf kmem stat summary; -o OUT\n"
	       "                 writes the compact trace file of the replay workload\n\n"
	       "Node ids, CPUs, memory and the SLIT distances come from the input.\n"
	       "Zone sizes come from ROOT/proc/zoneinfo (present pages) when it is\n"
	       "there; otherwise each node's total is split into zones by --arch:\n"
	       "  x86_64  DMA below 16 MiB, DMA32 below 4 GiB, Normal above "
	       "(default)\n"
	       "  arm64   DMA in the first 4 GiB, Normal above (Linux v5.11+)\n"
	       "  none    everything in Normal (ppc64, s390)\n"
	       "taking memory as contiguous from address 0 in node-id order.\n"
	       "Cost figures are copied from a cost profile (configs/costs/NAME.yaml).\n"
	       "The result is loaded back and checked before it is written.\n\n"
	       "options:\n", spec->usage);
	cli_print_options(stdout, spec, &defaults);
	printf("\nexit status: 0 success, 2 bad input or usage, 1 runtime failure\n");
}

int cmd_import(int argc, char **argv)
{
	struct import_opts o;
	const char *kind = NULL, *input = NULL, *out = "-", *given_costs = NULL;
	char *command = NULL, *buf = NULL, *text = NULL, *costs_path = NULL;
	size_t len = 0, tlen = 0;
	struct machine_desc m;
	struct import_notes notes;
	struct diag d;
	int rc = NS_OK, list = 0;

	import_opts_init(&o);
	machine_desc_init(&m);
	diag_init(&d);
	struct import_args args = {.out = "-"};
	args.o = o;
	int prc = cli_parse(&cmd_import_spec, &args, argc, argv);
	if (prc)
		return prc == CLI_HELP_SHOWN ? 0 : prc;
	o = args.o;
	kind = args.kind;
	input = args.input;
	out = args.out;
	list = args.list;
	if (list)
		return list_costs();
	if (!kind)
		return usage_err("%s", "give 'numactl FILE', 'sysfs [ROOT]' or 'trace FILE'");
	if (!strcmp(kind, "trace")) {
		if (!input)
			return usage_err("%s", "import trace needs a FILE ('-' for "
					 "standard input)");
		return cmd_import_trace(input, out, args.skip_bad);
	}
	if (strcmp(kind, "numactl") && strcmp(kind, "sysfs"))
		return usage_err("unknown input kind '%s' (numactl, sysfs or trace)", kind);
	if (!strcmp(kind, "numactl") && !input)
		return usage_err("%s", "import numactl needs a FILE ('-' for "
				 "standard input)");
	if (o.name && !*o.name)
		return usage_err("%s", "--name must not be empty");
	command = cli_join_args(argc, argv);
	if (!command) {
		rc = NS_ENOMEM;
		goto out;
	}
	o.command = command;
	o.output = out;
	/* numactl's "No NUMA available": the one node, as given or this host's */
	long host_cpus = sysconf(_SC_NPROCESSORS_CONF);
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	o.one_node_cpus = args.one_cpus ? (int)args.one_cpus
			  : host_cpus > 0 && host_cpus <= MACHINE_MAX_CPUS ? (int)host_cpus : 0;
	o.one_node_mib = args.one_mib ? (uint64_t)args.one_mib
			 : pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize >> 20 : 0;
	o.one_node_from = args.one_cpus && args.one_mib ? "given with --cpus and --memory"
			  : args.one_cpus || args.one_mib ? "given, and this host's for the rest"
			  : "this host's: give --cpus and --memory for another machine's";
	if (o.costs) {
		/* a machine file or scenario given as --costs is named as such;
		 * a profile found nowhere is reported by the importer */
		rc = cli_find_file("numasim import --costs", DATAFILE_COSTS, o.costs,
				   &costs_path, &d);
		if (rc == NS_ENOENT) {
			diag_init(&d);
			rc = NS_OK;
		} else if (rc == NS_OK) {
			given_costs = o.costs;
			o.costs = costs_path;
		} else {
			goto out;
		}
	}
	if (!strcmp(kind, "numactl")) {
		const char *name = ytree_display_name(input);
		rc = ytree_read_file(input, &buf, &len, &d);
		if (rc == NS_OK)
			rc = import_numactl(strcmp(input, "-") ? name : "-", buf, len,
					    &o, &m, &notes, &d);
		if (rc == NS_EINPUT && !strcmp(input, "-") && !strcmp(d.file, "-"))
			snprintf(d.file, sizeof d.file, "%s", name);
	} else {
		rc = import_sysfs(input ? input : "/", &o, &m, &notes, &d);
	}
	if (rc == NS_OK)
		rc = import_render(&m, out, &text, &tlen, &d);
	if (rc == NS_OK) {
		rc = cli_write_file_atomic(out, text, tlen);
		if (rc)
			goto quiet;   /* cli_write_file_atomic printed the error */
		if (costs_path)   /* as the user gave it, not as it was found */
			snprintf(notes.costs, sizeof notes.costs, "%s", given_costs);
		print_notes(&notes);
		print_interpolated(text, tlen);
	}
out:
	if (rc != NS_OK) {
		if (rc == NS_EUSAGE)
			cli_usage_error("import", IMPORT_USAGE, "%s", d.msg);
		else if (d.status != NS_OK)
			diag_print(&d, stderr);
		else
			fprintf(stderr, "numasim import: error: %s\n", ns_status_msg(rc));
	}
quiet:
	free(command);
	free(costs_path);
	free(buf);
	free(text);
	machine_desc_free(&m);
	return ns_status_exit(rc);
}
