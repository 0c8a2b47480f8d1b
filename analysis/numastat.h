/*
 * numastat — one run's NUMA allocation counters per node in the layout of
 * numastat(8) (numactl's numastat without options): a column per node
 * ("node0", "node1", ...), the rows numa_hit, numa_miss, numa_foreign,
 * interleave_hit, local_node and other_node, as the kernel's
 * /sys/devices/system/node/nodeN/numastat gives them (v4.6
 * drivers/base/node.c, node_read_numastat(): each the sum over the
 * node's zones of the zone counter, mm/vmstat.c zone_statistics()).
 *
 * Read from the run's stored counters (docs/reference/schema.md
 * "counters"): the rows of scope 'node' where the run stored them, else
 * the node's sum of the rows of scope 'zone' ("NODE/ZONE"), which is the
 * kernel's own sum.  A node the run stored no such counter for is not
 * listed (numastat lists the online nodes; a database holds what the run
 * stored).
 *
 * Used by `numasim numastat DB --run N`, `numasim report --runs` and the
 * HTML report (analysis/html_report.h).
 *
 * Error policy: NS_EINPUT with a message for a run the database does not
 * hold; NS_ENOENT (no message) when the run stored no numastat counter
 * (a database of another tool's rows); NS_EDB, NS_ENOMEM.  Nothing is
 * written on error.
 */
#ifndef NUMASIM_NUMASTAT_H
#define NUMASIM_NUMASTAT_H

#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "base/diag.h"

/* The rows, in numastat's order. */
#define NUMASTAT_ROWS(X)   \
	X(numa_hit)        \
	X(numa_miss)       \
	X(numa_foreign)    \
	X(interleave_hit)  \
	X(local_node)      \
	X(other_node)
#define NUMASTAT_NR_ROWS 6

struct numastat {
	int nr_nodes;
	int *node;                      /* [nr_nodes]: node ids, ascending */
	int64_t (*v)[NUMASTAT_NR_ROWS]; /* [nr_nodes][row] */
};

extern const char *const numastat_row_names[NUMASTAT_NR_ROWS];

/* The counters of run; numastat_free() after success. */
int numastat_read(sqlite3 *db, const char *dbname, int64_t run, struct numastat *ns,
		  struct diag *d);
void numastat_free(struct numastat *ns);

/* numastat(8)'s text: a header of "nodeN" columns, then one line per
 * row (label left, values right-aligned in 16 columns). */
void numastat_print(const struct numastat *ns, FILE *f);

/* The same as an HTML <table> (numbers right-aligned). */
void numastat_html(const struct numastat *ns, FILE *f);

#endif
