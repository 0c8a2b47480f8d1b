/*
 * cmd_topology — `numasim topology`: what numasim makes of a machine file.
 *
 * Prints the nodes, CPUs, memory and SLIT distances the way
 * `numactl --hardware` does on the modelled kernel, then every online
 * node's zonelists as mm/page_alloc.c v4.6 build_all_zonelists() builds
 * them (models/zonelist.h), or all of it as one JSON object.  The whole
 * output is built in memory and written only once it is complete, so an
 * error leaves stdout empty.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/file_kind.h"
#include "machine/cpulist.h"
#include "base/diag.h"
#include "machine/machine.h"
#include "models/zonelist.h"

#define TOPO_USAGE                                                             \
	"numasim topology MACHINE|- [--format text|json] "                     \
	"[--zonelist-order node|zone] [--cpus-at-build given|none] "           \
	"[--memoryless online|offline-x86] [--x86-boot]"

struct topo_args {
	const char *path;
	bool json;
	struct zonelist_opts opts;
	bool cpus_set, memoryless_set;
	int x86_boot;
};

#define topo_usage(...) cli_usage_error("topology", TOPO_USAGE, __VA_ARGS__)

static int parse_format(const char *s)
{
	return !strcmp(s, "text") ? 0 : !strcmp(s, "json") ? 1 : -1;
}

/* The sysctl's "default" is node order on 64-bit kernels. */
static int parse_order(const char *s)
{
	return !strcmp(s, "default") ? ZONELIST_ORDER_NODE : zonelist_order_parse(s);
}

/* The four choices: the value through its parser into the arguments. */
static int set_choice(void *dst, const struct cli_option *o, const char *typed,
		      const char *v)
{
	struct topo_args *a = dst;
	int r;
	(void)typed;
	switch (o->name[2]) {
	case 'f':
		r = parse_format(v);
		break;
	case 'z':
		r = parse_order(v);
		break;
	case 'c':
		r = zonelist_cpus_at_build_parse(v);
		break;
	default:
		r = zonelist_memoryless_parse(v);
		break;
	}
	if (r < 0)
		return topo_usage("%s does not take '%s'", o->name, v);
	switch (o->name[2]) {
	case 'f':
		a->json = r;
		break;
	case 'z':
		a->opts.order = (enum zonelist_order)r;
		break;
	case 'c':
		a->opts.cpus_at_build = (enum zonelist_cpus_at_build)r;
		a->cpus_set = true;
		break;
	default:
		a->opts.memoryless = (enum zonelist_memoryless)r;
		a->memoryless_set = true;
		break;
	}
	return 0;
}

static int topo_operand(void *args, const char *arg)
{
	struct topo_args *a = args;
	if (a->path)
		return topo_usage("one machine file expected, got '%s' and '%s'", a->path, arg);
	a->path = arg;
	return 0;
}

static void topology_help(const struct cli_spec *spec);

#define TOPO_CHOICE(opt, metavar, text)                                        \
	{.name = opt, .arg = metavar, .kind = CLI_OPT_CALL, .flags = CLI_OPT_EQ,     \
	 .call = set_choice, .help = text}

static const struct cli_option topology_options[] = {
	TOPO_CHOICE("--format", "text|json",
		    "output format (default text); json is one\n"
		    "object with every node, its zones, the\n"
		    "find_next_best_node() picks and the lists"),
	TOPO_CHOICE("--zonelist-order", "node|zone",
		    "vm.numa_zonelist_order (default node, the\n"
		    "64-bit default; 'default' is accepted)"),
	TOPO_CHOICE("--cpus-at-build", "given|none",
		    "whether cpumask_of_node() is filled when the\n"
		    "lists are built (default given, as on a\n"
		    "rebuild after boot; none = x86 boot build,\n"
		    "so CPU-less nodes get no preference)"),
	TOPO_CHOICE("--memoryless", "online|offline-x86",
		    "online (default): every node in the file is\n"
		    "online; offline-x86: nodes with less than\n"
		    "4 MiB of memory stay offline and their CPUs\n"
		    "move to the nearest online node (numactl\n"
		    "then shows only online nodes)"),
	{.name = "--x86-boot", .kind = CLI_OPT_FLAG, .off = offsetof(struct topo_args, x86_boot),
	 .help = "the x86 v4.6 boot-time build: same as\n"
		 "--cpus-at-build none --memoryless offline-x86"},
};

const struct cli_spec cmd_topology_spec = {
	.cmd = "topology", .usage = TOPO_USAGE,
	.opts = topology_options, .nr_opts = CLI_NR_OPTS(topology_options), .help_col = 30,
	.needs_value = "%s needs a value", .operand = topo_operand, .help = topology_help,
};

static void topology_help(const struct cli_spec *spec)
{
	printf("usage: %s\n\n"
	       "Loads a machine file (docs/reference/machine-format.md; '-' reads standard input,\n"
	       "a shipped machine's name such as rome-nps4 works from any directory)\n"
	       "and prints its nodes, CPUs, memory and node distances in the layout of\n"
	       "`numactl --hardware`, followed by every online node's zonelists as\n"
	       "Linux v4.6/v4.7 mm/page_alloc.c build_all_zonelists() builds them:\n"
	       "the fallback order of nodes, the fallback zonelist (ZONELIST_FALLBACK)\n"
	       "and the __GFP_THISNODE list (ZONELIST_NOFALLBACK), as ZONE@NODE.\n\n"
	       "'free' is the node's memory free when a simulation starts: the\n"
	       "machine's 'free:' key, or all of it ('size') without one.\n\n"
	       "options:\n", spec->usage);
	cli_print_options(stdout, spec, NULL);
	printf("\nexit status: 0 success, 1 internal failure, 2 bad usage or machine file\n");
}

/* Returns NS_OK, NS_EUSAGE (message printed) or 1 when help was printed. */
static int parse_args(int argc, char **argv, struct topo_args *a)
{
	*a = (struct topo_args){.opts = ZONELIST_OPTS_DEFAULT};
	int rc = cli_parse(&cmd_topology_spec, a, argc, argv);
	if (rc)
		return rc == CLI_HELP_SHOWN ? 1 : NS_EUSAGE;
	if (!a->path) {
		topo_usage("no machine file given");
		return NS_EUSAGE;
	}
	if (a->x86_boot) {
		if ((a->cpus_set && a->opts.cpus_at_build != ZONELIST_CPUS_NONE) ||
		    (a->memoryless_set &&
		     a->opts.memoryless != ZONELIST_MEMORYLESS_OFFLINE_X86)) {
			topo_usage("--x86-boot means --cpus-at-build none --memoryless "
				   "offline-x86; drop the conflicting option");
			return NS_EUSAGE;
		}
		a->opts.cpus_at_build = ZONELIST_CPUS_NONE;
		a->opts.memoryless = ZONELIST_MEMORYLESS_OFFLINE_X86;
	}
	return NS_OK;
}

/* ---- shared helpers ---- */

static unsigned long long node_mb(const struct machine *m, const struct machine_node *mn)
{
	return (unsigned long long)(mn->mem_pages * m->page_size) >> 20;
}

/* Free when a simulation starts (key `free:`), as numactl prints it. */
static unsigned long long node_free_mb(const struct machine *m, const struct machine_node *mn)
{
	return (unsigned long long)((mn->mem_pages - mn->used_pages) * m->page_size) >> 20;
}

static void print_zoneref_list(FILE *f, const struct zonelist *z)
{
	if (z->nr == 0)
		fputs(" (empty)", f);
	for (int i = 0; i < z->nr; i++)
		fprintf(f, " %s@%d", zone_type_name(z->zonerefs[i].zone_idx),
			z->zonerefs[i].node);
	fputc('\n', f);
}

/* CPUs whose effective node (after x86 init_cpu_to_node()) is id. */
static void print_effective_cpus(FILE *f, const struct zonelists *zl, int id)
{
	for (int cpu = 0; cpu <= zl->m->max_cpu; cpu++)
		if (zl->cpu_to_node[cpu] == id)
			fprintf(f, " %d", cpu);
	fputc('\n', f);
}

/* ---- text: numactl --hardware, then the zonelists ---- */

static int print_available(FILE *f, const struct zonelists *zl)
{
	int *ids = malloc(sizeof *ids * (size_t)zl->nr_nodes), n = 0;
	if (!ids)
		return NS_ENOMEM;
	for (int p = 0; p < zl->nr_nodes; p++)
		if (zl->nodes[p].online)
			ids[n++] = zl->nodes[p].id;
	char buf[64];
	size_t need = cpulist_format(ids, n, buf, sizeof buf);
	char *list = need < sizeof buf ? buf : malloc(need + 1);
	if (!list) {
		free(ids);
		return NS_ENOMEM;
	}
	if (list != buf)
		cpulist_format(ids, n, list, need + 1);
	fprintf(f, "available: %d nodes (%s)\n", n, list);
	if (list != buf)
		free(list);
	free(ids);
	return NS_OK;
}

/* numactl's print_distances(): "% 3d " cells, online nodes only. */
static void print_distances(FILE *f, const struct zonelists *zl)
{
	fputs("node distances:\nnode ", f);
	for (int p = 0; p < zl->nr_nodes; p++)
		if (zl->nodes[p].online)
			fprintf(f, "% 3d ", zl->nodes[p].id);
	fputc('\n', f);
	for (int i = 0; i < zl->nr_nodes; i++) {
		if (!zl->nodes[i].online)
			continue;
		fprintf(f, "% 3d: ", zl->nodes[i].id);
		for (int k = 0; k < zl->nr_nodes; k++)
			if (zl->nodes[k].online)
				fprintf(f, "% 3d ", zl->m->distance[i * zl->nr_nodes + k]);
		fputc('\n', f);
	}
}

static void print_offline_node(FILE *f, const struct zonelists *zl, int p)
{
	const struct machine_node *mn = &zl->m->nodes[p];
	const struct zonelist_node *zn = &zl->nodes[p];
	unsigned long long kb = (unsigned long long)(mn->mem_pages * zl->m->page_size) >> 10;
	if (kb)
		fprintf(f, "node %d offline: %llu KB of memory", zn->id, kb);
	else
		fprintf(f, "node %d offline: no memory", zn->id);
	fputs(" (x86 brings a node online only with >= 4 MB); ", f);
	if (mn->nr_cpus == 0) {
		fprintf(f, "no cpus (nearest online node %d)\n", zn->cpu_target);
		return;
	}
	fputs("cpus", f);
	for (int c = 0; c < mn->nr_cpus; c++)
		fprintf(f, " %d", mn->cpus[c]);
	fprintf(f, " map to node %d\n", zn->cpu_target);
}

static int print_text(FILE *f, const struct zonelists *zl)
{
	const struct machine *m = zl->m;
	int rc = print_available(f, zl);
	if (rc != NS_OK)
		return rc;
	for (int p = 0; p < zl->nr_nodes; p++) {
		const struct zonelist_node *zn = &zl->nodes[p];
		if (!zn->online)
			continue;
		fprintf(f, "node %d cpus:", zn->id);
		print_effective_cpus(f, zl, zn->id);
		fprintf(f, "node %d size: %llu MB\n", zn->id, node_mb(m, &m->nodes[p]));
		fprintf(f, "node %d free: %llu MB\n", zn->id, node_free_mb(m, &m->nodes[p]));
	}
	print_distances(f, zl);

	fprintf(f, "\nBuilt %d zonelists in %s order (cpus at build: %s, "
		   "memoryless nodes: %s)\nPolicy zone: %s\n",
		zl->nr_online_nodes, zl->opts.order == ZONELIST_ORDER_NODE ? "Node" : "Zone",
		zonelist_cpus_at_build_name(zl->opts.cpus_at_build),
		zonelist_memoryless_name(zl->opts.memoryless),
		zone_type_name(zl->policy_zone));
	for (int p = 0; p < zl->nr_nodes; p++) {
		const struct zonelist_node *zn = &zl->nodes[p];
		if (!zn->online) {
			print_offline_node(f, zl, p);
			continue;
		}
		fprintf(f, "node %d fallback nodes:", zn->id);
		for (int i = 0; i < zn->nr_picks; i++)
			fprintf(f, " %d", zn->picks[i].node);
		fprintf(f, "\nnode %d zonelist:", zn->id);
		print_zoneref_list(f, &zn->zonelists[ZONELIST_FALLBACK]);
		fprintf(f, "node %d zonelist nofallback:", zn->id);
		print_zoneref_list(f, &zn->zonelists[ZONELIST_NOFALLBACK]);
	}
	return NS_OK;
}

/* ---- JSON ---- */

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void json_zonerefs(FILE *f, const struct zonelist *z)
{
	if (!z) {
		fputs("null", f);
		return;
	}
	fputc('[', f);
	for (int i = 0; i < z->nr; i++)
		fprintf(f, "%s{\"node\":%d,\"zone\":\"%s\"}", i ? "," : "",
			z->zonerefs[i].node, zone_type_name(z->zonerefs[i].zone_idx));
	fputc(']', f);
}

static void json_picks(FILE *f, const struct zonelist_node *zn)
{
	if (!zn->online) {
		fputs("null", f);
		return;
	}
	fputc('[', f);
	for (int i = 0; i < zn->nr_picks; i++) {
		const struct zonelist_pick *k = &zn->picks[i];
		fprintf(f, "%s{\"node\":%d,\"distance\":%d,\"penalty_lower\":%d,"
			   "\"penalty_cpus\":%d,\"node_load\":%d,\"value\":%lld,"
			   "\"new_class\":%s,\"load_set\":",
			i ? "," : "", k->node, k->distance, k->penalty_lower,
			k->penalty_cpus, k->node_load, (long long)k->value,
			k->new_class ? "true" : "false");
		if (k->new_class)
			fprintf(f, "%d}", k->load_set);
		else
			fputs("null}", f);
	}
	fputc(']', f);
}

static void json_node(FILE *f, const struct zonelists *zl, int p)
{
	const struct machine *m = zl->m;
	const struct machine_node *mn = &m->nodes[p];
	const struct zonelist_node *zn = &zl->nodes[p];

	fprintf(f, "{\"id\":%d,\"cpus\":[", mn->id);
	for (int c = 0; c < mn->nr_cpus; c++)
		fprintf(f, "%s%d", c ? "," : "", mn->cpus[c]);
	fprintf(f, "],\"mem_pages\":%llu,\"mem_bytes\":%llu,\"free_pages\":%llu,"
		   "\"online\":%s,"
		   "\"memory\":%s,\"cpus_map_to\":%d,\"build_cpus\":%d,"
		   "\"node_load\":%d,\"zones\":[",
		(unsigned long long)mn->mem_pages,
		(unsigned long long)(mn->mem_pages * m->page_size),
		(unsigned long long)(mn->mem_pages - mn->used_pages),
		zn->online ? "true" : "false", zn->memory ? "true" : "false",
		zn->cpu_target, zn->nr_build_cpus, zl->node_load[p]);
	for (int z = 0; z < mn->nr_zones; z++)
		fprintf(f, "%s{\"type\":\"%s\",\"pages\":%llu}", z ? "," : "",
			zone_type_name(mn->zones[z].type),
			(unsigned long long)mn->zones[z].pages);
	fputs("],\"fallback_order\":", f);
	json_picks(f, zn);
	fputs(",\"zonelist\":", f);
	json_zonerefs(f, zonelist_get(zl, mn->id, ZONELIST_FALLBACK));
	fputs(",\"zonelist_nofallback\":", f);
	json_zonerefs(f, zonelist_get(zl, mn->id, ZONELIST_NOFALLBACK));
	fputc('}', f);
}

static int print_json(FILE *f, const struct zonelists *zl)
{
	const struct machine *m = zl->m;
	fputs("{\"machine\":", f);
	json_string(f, m->name);
	fprintf(f, ",\"page_size\":%u,\"zonelist_order\":\"%s\",\"cpus_at_build\":"
		   "\"%s\",\"memoryless\":\"%s\",\"nr_online_nodes\":%d,"
		   "\"policy_zone\":\"%s\",\"max_numnodes\":%d,\"nodes\":[",
		(unsigned)m->page_size, zonelist_order_name(zl->opts.order),
		zonelist_cpus_at_build_name(zl->opts.cpus_at_build),
		zonelist_memoryless_name(zl->opts.memoryless), zl->nr_online_nodes,
		zone_type_name(zl->policy_zone), ZONELIST_MAX_NUMNODES);
	for (int p = 0; p < zl->nr_nodes; p++) {
		if (p)
			fputc(',', f);
		json_node(f, zl, p);
	}
	fputs("],\"distance\":[", f);
	for (int i = 0; i < m->nr_nodes; i++) {
		fputs(i ? ",[" : "[", f);
		for (int k = 0; k < m->nr_nodes; k++)
			fprintf(f, "%s%d", k ? "," : "", m->distance[i * m->nr_nodes + k]);
		fputc(']', f);
	}
	fputs("],\"cpu_to_node\":[", f);
	for (int cpu = 0; cpu <= m->max_cpu; cpu++) {
		if (cpu)
			fputc(',', f);
		if (zl->cpu_to_node[cpu] < 0)
			fputs("null", f);
		else
			fprintf(f, "%d", zl->cpu_to_node[cpu]);
	}
	fputs("]}\n", f);
	return NS_OK;
}

/* Render everything into memory: NS_OK with the text in buf and len. */
static int render(const struct zonelists *zl, bool json, char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);
	if (!f)
		return NS_ENOMEM;
	int rc = json ? print_json(f, zl) : print_text(f, zl);
	if (ferror(f))
		rc = NS_ENOMEM;
	if (fclose(f) != 0 && rc == NS_OK)
		rc = NS_ENOMEM;
	return rc;
}

int cmd_topology(int argc, char **argv)
{
	struct topo_args a;
	struct machine *m = NULL;
	struct zonelists *zl = NULL;
	char *out = NULL;
	size_t len = 0;
	struct diag d;
	int rc = parse_args(argc, argv, &a);

	if (rc == 1)
		return 0;
	if (rc != NS_OK)
		return ns_status_exit(rc);
	diag_init(&d);
	char *path = NULL;
	rc = cli_find_file("numasim topology", DATAFILE_MACHINE, a.path, &path, &d);
	if (rc == NS_OK)
		rc = machine_load_file(path, &m, &d);
	free(path);
	if (rc == NS_OK)
		rc = zonelist_build(m, &a.opts, &zl, &d);
	if (rc == NS_OK)
		rc = zonelist_check(zl, &d);
	if (rc != NS_OK) {
		diag_print(&d, stderr);
		goto out;
	}
	rc = render(zl, a.json, &out, &len);
	if (rc != NS_OK) {
		fprintf(stderr, "numasim topology: error: %s\n", ns_status_msg(rc));
		goto out;
	}
	rc = cli_write_file_atomic("-", out, len);
out:
	free(out);
	zonelist_free(zl);
	machine_free(m);
	return ns_status_exit(rc);
}
