/*
 * machine — loading, checking and querying machine files; see machine.h.
 *
 * Design notes.  Loading is two passes over the same bytes: ytree turns
 * them into a position-carrying node tree (refusing aliases, anchors, tags,
 * excess depth and size), then this file walks the tree against the schema
 * of docs/reference/machine-format.md, converting and checking every value as it is
 * read.  The first problem ends the walk; machine_free() copes with a
 * half-built machine, so every failure leaves through one exit path with
 * nothing allocated and *out = NULL.
 *
 * The cost figures are driven by MACHINE_COST_MAP: its unit column decides
 * how a value is read ("bytes" = a size with optional unit, "entries" = a
 * positive integer, anything else = a positive number).  Cost profiles
 * (configs/costs/NAME.yaml) share the same parser for their `costs` mapping.
 */
#include "machine/machine.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/cpulist.h"
#include "base/sha256.h"
#include "base/ytree.h"

#define PAGE_SIZE_MIN 4096u
#define PAGE_SIZE_MAX 65536u
#define PAGE_SIZE_DEFAULT 4096u

/* ---- zone types ---------------------------------------------------------- */

static const char *const zone_names[NR_ZONE_TYPES] = {
#define ZONE_TYPE_NAME(id, name) name,
	ZONE_TYPE_MAP(ZONE_TYPE_NAME)
#undef ZONE_TYPE_NAME
};

const char *zone_type_name(enum zone_type t)
{
	return (unsigned)t < NR_ZONE_TYPES ? zone_names[t] : "?";
}

int zone_type_parse(const char *s)
{
	for (int i = 0; i < NR_ZONE_TYPES; i++)
		if (strcmp(s, zone_names[i]) == 0)
			return i;
	return -1;
}

/* ---- the loader's context ------------------------------------------------ */

struct loader {
	const struct ytree *t;
	struct diag *d;
	uint32_t page_size;
};

/* One line of printable text, copied (ytree_text). */
static int get_text(struct loader *l, const struct ynode *n, const char *what,
		    int nonempty, char **out)
{
	return ytree_text(l->t, n, what, nonempty, out, l->d);
}

/* ---- sizes ---------------------------------------------------------------- */

struct size_unit {
	const char *name;
	unsigned shift;
};

static const struct size_unit size_units[] = {
	{"B", 0},    {"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40},
	{"K", 10},   {"M", 20},   {"G", 30},   {"T", 40},
	{"KB", 10},  {"MB", 20},  {"GB", 30},  {"TB", 40},
};

static int unit_shift(const char *u, size_t len)
{
	for (size_t i = 0; i < sizeof size_units / sizeof size_units[0]; i++)
		if (strlen(size_units[i].name) == len &&
		    memcmp(size_units[i].name, u, len) == 0)
			return (int)size_units[i].shift;
	return -1;
}

/*
 * A size in bytes: a plain integer counts `unit` bytes (the page size for
 * zones, 1 for cache sizes), or a number with one of the units above.
 * Zero is refused unless zero_ok (a node's `free:`: all of it in use).
 */
static int get_size_or_zero(struct loader *l, const struct ynode *n, const char *what,
			    uint64_t unit, int zero_ok, uint64_t *out)
{
	char q[200], desc[256];
	if (n->kind != YNODE_SCALAR || ynode_is_null(n) || n->style == YSTYLE_BLOCK) {
		ynode_describe(n, desc, sizeof desc);
		return ytree_error(l->t, n, l->d, "%s must be a size (pages, or a number with a unit "
			   "such as 16MiB), got %s", what, desc);
	}
	const char *s = n->str;
	size_t len = n->len, i = 0;
	ytree_quote(s, len, q, sizeof q);
	int neg = 0;
	if (i < len && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	size_t d0 = i;
	uint64_t v = 0;
	int over = 0;
	for (; i < len && isdigit((unsigned char)s[i]); i++) {
		unsigned dg = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - dg) / 10)
			over = 1;
		else
			v = v * 10 + dg;
	}
	if (i == d0)
		return ytree_error(l->t, n, l->d, "%s must be a size (pages, or a number with a unit "
			   "such as 16MiB), got '%s'", what, q);
	if (i < len && (s[i] == '.' || s[i] == 'e' || s[i] == 'E'))
		return ytree_error(l->t, n, l->d, "%s must be a whole number of bytes or pages, got '%s'",
			   what, q);
	size_t u = i;
	while (u < len && s[u] == ' ')
		u++;
	uint64_t mult = unit;
	if (u < len) {
		int sh = unit_shift(s + u, len - u);
		if (sh < 0)
			return ytree_error(l->t, n, l->d, "unknown size unit in '%s' (use B, KiB, MiB, "
				   "GiB or TiB)", q);
		mult = (uint64_t)1 << sh;
	} else if (n->style != YSTYLE_PLAIN || u != i) {
		return ytree_error(l->t, n, l->d, "%s '%s' needs a unit (B, KiB, MiB, GiB, TiB) or "
			   "must be a plain integer", what, q);
	}
	if (neg && (v || over || zero_ok))
		return ytree_error(l->t, n, l->d, "%s must be %s, got '%s'", what,
				   zero_ok ? "0 or more" : "positive", q);
	if (!over && v == 0 && !zero_ok)
		return ytree_error(l->t, n, l->d, "%s must be positive, got '%s'", what, q);
	if (over || v > UINT64_MAX / mult)
		return ytree_error(l->t, n, l->d, "%s '%s' overflows 64 bits", what, q);
	*out = v * mult;
	return NS_OK;
}

static int get_size(struct loader *l, const struct ynode *n, const char *what,
		    uint64_t unit, uint64_t *out)
{
	return get_size_or_zero(l, n, what, unit, 0, out);
}

/* ---- cost figures --------------------------------------------------------- */

enum cost_kind { COST_NUMBER, COST_COUNT, COST_BYTES };

static enum cost_kind cost_kind_of(const char *unit)
{
	if (strcmp(unit, "bytes") == 0)
		return COST_BYTES;
	if (strcmp(unit, "entries") == 0)
		return COST_COUNT;
	return COST_NUMBER;
}

static const struct {
	const char *key, *unit;
	size_t off;
	int required;          /* MACHINE_COST_MAP: 1, MACHINE_CORE_MAP: 0 */
} cost_keys[] = {
#define COST_KEY(field, unit, desc) {#field, unit, offsetof(struct machine_costs, field), 1},
#define CORE_KEY(field, unit, desc) {#field, unit, offsetof(struct machine_costs, field), 0},
	MACHINE_COST_MAP(COST_KEY)
	MACHINE_CORE_MAP(CORE_KEY)
#undef CORE_KEY
#undef COST_KEY
};

#define NR_COST_KEYS (sizeof cost_keys / sizeof cost_keys[0])

static struct cost_figure *cost_at(struct machine_costs *c, size_t i)
{
	return (struct cost_figure *)((char *)c + cost_keys[i].off);
}

static const struct cost_figure *cost_at_const(const struct machine_costs *c,
					       size_t i)
{
	return (const struct cost_figure *)((const char *)c + cost_keys[i].off);
}

static int get_positive(struct loader *l, const struct ynode *n, const char *what,
			double *out)
{
	int rc = ytree_number(l->t, n, what, out, l->d);
	if (rc)
		return rc;
	if (!(*out > 0))
		return ytree_error(l->t, n, l->d, "%s must be positive, got %s", what, n->str);
	return NS_OK;
}

static int parse_figure(struct loader *l, const struct ynode *n, size_t i,
			struct cost_figure *f)
{
	static const struct ytree_field fields[] = {{"value", 1}, {"source", 1}};
	const struct ynode *v[2];
	char what[96], desc[256];
	const char *key = cost_keys[i].key;
	int rc;

	if (n->kind != YNODE_MAP) {
		ynode_describe(n, desc, sizeof desc);
		return ytree_error(l->t, n, l->d, "cost figure '%s' must be written as {value: NUMBER, "
			   "source: \"...\"}, got %s", key, desc);
	}
	snprintf(what, sizeof what, "cost figure '%s'", key);
	if ((rc = ytree_fields(l->t, n, what, fields, 2, v, l->d)))
		return rc;
	snprintf(what, sizeof what, "'%s' value", key);
	switch (cost_kind_of(cost_keys[i].unit)) {
	case COST_BYTES: {
		uint64_t bytes;
		if ((rc = get_size(l, v[0], what, 1, &bytes)))
			return rc;
		f->value = (double)bytes;
		break;
	}
	case COST_COUNT: {
		long long c;
		if ((rc = ytree_int(l->t, v[0], what, 1, INT_MAX, &c, l->d)))
			return rc;
		f->value = (double)c;
		break;
	}
	case COST_NUMBER:
		if ((rc = get_positive(l, v[0], what, &f->value)))
			return rc;
		break;
	}
	f->line = v[0]->line;
	f->col = v[0]->col;
	snprintf(what, sizeof what, "'%s' source", key);
	return get_text(l, v[1], what, 1, &f->source);
}

static int parse_latency_table(struct loader *l, const struct ynode *n,
			       const char *key, int *nr_out,
			       struct latency_point **out)
{
	static const struct ytree_field fields[] = {
		{"distance", 1}, {"ns", 1}, {"source", 1}};
	const struct ynode *v[3];
	char what[96];
	int rc;

	snprintf(what, sizeof what, "'%s'", key);
	if ((rc = ytree_expect_seq(l->t, n, what, l->d)))
		return rc;
	if (n->nr == 0)
		return ytree_error(l->t, n, l->d, "'%s' needs at least one point, at distance 10", key);
	*out = calloc(n->nr, sizeof **out);
	if (!*out)
		return ytree_nomem(l->t, l->d);
	*nr_out = (int)n->nr;
	for (size_t i = 0; i < n->nr; i++) {
		const struct ynode *p = n->items[i];
		struct latency_point *lp = &(*out)[i];
		long long dist;
		snprintf(what, sizeof what, "'%s' point", key);
		if ((rc = ytree_fields(l->t, p, what, fields, 3, v, l->d)))
			return rc;
		snprintf(what, sizeof what, "'%s' distance", key);
		if ((rc = ytree_int(l->t, v[0], what, MACHINE_DISTANCE_LOCAL,
				    MACHINE_DISTANCE_UNREACHABLE, &dist, l->d)))
			return rc;
		if (i == 0 && dist != MACHINE_DISTANCE_LOCAL)
			return ytree_error(l->t, v[0], l->d, "'%s' must start at distance 10 (local), "
				   "got %lld", key, dist);
		if (i > 0 && dist <= (*out)[i - 1].distance)
			return ytree_error(l->t, v[0], l->d, "'%s' distances must be strictly ascending: "
				   "%lld after %d", key, dist, (*out)[i - 1].distance);
		lp->distance = (int)dist;
		snprintf(what, sizeof what, "'%s' ns", key);
		if ((rc = get_positive(l, v[1], what, &lp->ns)))
			return rc;
		snprintf(what, sizeof what, "'%s' source", key);
		if ((rc = get_text(l, v[2], what, 1, &lp->source)))
			return rc;
	}
	return NS_OK;
}

static int parse_costs(struct loader *l, const struct ynode *n,
		       struct machine_costs *c)
{
	struct ytree_field fields[NR_COST_KEYS + 2];
	const struct ynode *v[NR_COST_KEYS + 2];
	int rc;

	for (size_t i = 0; i < NR_COST_KEYS; i++)
		fields[i] = (struct ytree_field){cost_keys[i].key, cost_keys[i].required};
	fields[NR_COST_KEYS] = (struct ytree_field){"memory_latency", 1};
	fields[NR_COST_KEYS + 1] = (struct ytree_field){"line_transfer", 1};
	if ((rc = ytree_fields(l->t, n, "costs", fields, NR_COST_KEYS + 2, v, l->d)))
		return rc;
	for (size_t i = 0; i < NR_COST_KEYS; i++)
		if (v[i] && (rc = parse_figure(l, v[i], i, cost_at(c, i))))
			return rc;
	if ((rc = parse_latency_table(l, v[NR_COST_KEYS], "memory_latency",
				      &c->nr_memory_latency, &c->memory_latency)))
		return rc;
	return parse_latency_table(l, v[NR_COST_KEYS + 1], "line_transfer",
				   &c->nr_line_transfer, &c->line_transfer);
}

void machine_costs_free(struct machine_costs *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < NR_COST_KEYS; i++)
		free(cost_at(c, i)->source);
	for (int i = 0; i < c->nr_memory_latency; i++)
		free(c->memory_latency[i].source);
	for (int i = 0; i < c->nr_line_transfer; i++)
		free(c->line_transfer[i].source);
	free(c->memory_latency);
	free(c->line_transfer);
	free(c->name);
	free(c->description);
	memset(c, 0, sizeof *c);
}

/* ---- nodes ---------------------------------------------------------------- */

/*
 * Column of byte off inside a scalar: exact when the scalar is ASCII on one
 * line and its source text is the value itself (plain, or quoted without
 * escapes), else the scalar's start.
 */
static void scalar_pos(const struct ynode *n, size_t off, int *line, int *col)
{
	*line = n->line;
	*col = n->col;
	if (n->line != n->end_line || off > n->len)
		return;
	for (size_t i = 0; i < n->len; i++)
		if ((unsigned char)n->str[i] >= 0x80)
			return;
	if (n->style == YSTYLE_PLAIN && (size_t)(n->end_col - n->col) == n->len)
		*col = n->col + (int)off;
	else if (n->style == YSTYLE_QUOTED &&
		 (size_t)(n->end_col - n->col) == n->len + 2)
		*col = n->col + 1 + (int)off;
}

static int parse_cpus(struct loader *l, const struct ynode *n,
		      struct machine_node *mn, int *owner)
{
	char errbuf[128];
	size_t errpos = 0;
	const char *s;
	int rc;

	if (ynode_is_null(n))
		return ytree_error(l->t, n, l->d, "node %d: cpus must be a cpulist string; write "
			   "cpus: \"\" for a CPU-less node", mn->id);
	char what[64];
	snprintf(what, sizeof what, "node %d cpus", mn->id);
	if ((rc = ytree_string(l->t, n, what, 0, &s, l->d)))
		return rc;
	rc = cpulist_parse(s, MACHINE_MAX_CPUS, 0, &mn->cpus, &mn->nr_cpus, &errpos,
			   errbuf, sizeof errbuf);
	if (rc == NS_ENOMEM)
		return ytree_nomem(l->t, l->d);
	if (rc) {
		int line, col;
		scalar_pos(n, errpos, &line, &col);
		return diag_set(l->d, NS_EINPUT, l->t->name, line, col,
				"node %d: %s", mn->id, errbuf);
	}
	for (int i = 0; i < mn->nr_cpus; i++) {
		int cpu = mn->cpus[i];
		if (owner[cpu] >= 0)
			return ytree_error(l->t, n, l->d, "CPU %d of node %d is already in node %d: a "
				   "CPU belongs to one node only", cpu, mn->id,
				   owner[cpu]);
		owner[cpu] = mn->id;
	}
	return NS_OK;
}

static int parse_zones(struct loader *l, const struct ynode *n,
		       struct machine_node *mn)
{
	static const struct ytree_field fields[] = {{"type", 1}, {"size", 1}};
	const struct ynode *v[2];
	char q[200], what[64];
	int rc;

	snprintf(what, sizeof what, "node %d zones", mn->id);
	if ((rc = ytree_expect_seq(l->t, n, what, l->d)))
		return rc;
	for (size_t i = 0; i < n->nr; i++) {
		const struct ynode *z = n->items[i];
		const char *tname;
		uint64_t bytes;
		if ((rc = ytree_fields(l->t, z, "zone", fields, 2, v, l->d)))
			return rc;
		if ((rc = ytree_string(l->t, v[0], "zone type", 1, &tname, l->d)))
			return rc;
		int type = zone_type_parse(tname);
		if (type < 0)
			return ytree_error(l->t, v[0], l->d, "unknown zone type '%s' (expected DMA, "
				   "DMA32, Normal, HighMem or Movable)",
				   ytree_quote(tname, v[0]->len, q, sizeof q));
		if (mn->nr_zones > 0) {
			int prev = (int)mn->zones[mn->nr_zones - 1].type;
			if (type == prev)
				return ytree_error(l->t, v[0], l->d, "zone %s listed twice in node %d",
					   zone_names[type], mn->id);
			if (type < prev)
				return ytree_error(l->t, v[0], l->d, "zone %s listed after %s in node %d: "
					   "zones must be in kernel order (DMA, DMA32, "
					   "Normal, HighMem, Movable)", zone_names[type],
					   zone_names[prev], mn->id);
		}
		if ((rc = get_size(l, v[1], "zone size", l->page_size, &bytes)))
			return rc;
		if (bytes % l->page_size)
			return ytree_error(l->t, v[1], l->d, "zone size %llu bytes is not a multiple of "
				   "the page size (%u bytes)", (unsigned long long)bytes,
				   l->page_size);
		uint64_t pages = bytes / l->page_size;
		if (mn->mem_pages > UINT64_MAX / l->page_size - pages)
			return ytree_error(l->t, v[1], l->d, "memory of node %d overflows 64 bits", mn->id);
		mn->zones[mn->nr_zones].type = (enum zone_type)type;
		mn->zones[mn->nr_zones].pages = pages;
		mn->nr_zones++;
		mn->mem_pages += pages;
	}
	return NS_OK;
}

/* `free:` (optional): the node's free memory when the simulation starts,
 * at most the node's memory, whole pages; absent = all of it. */
static int parse_free(struct loader *l, const struct ynode *n,
		      struct machine_node *mn)
{
	uint64_t bytes;
	int rc;
	mn->used_pages = 0;
	if (!n)
		return NS_OK;
	if ((rc = get_size_or_zero(l, n, "node free", l->page_size, 1, &bytes)))
		return rc;
	if (bytes % l->page_size)
		return ytree_error(l->t, n, l->d, "node %d free %llu bytes is not a multiple of "
			   "the page size (%u bytes)", mn->id, (unsigned long long)bytes,
			   l->page_size);
	if (bytes / l->page_size > mn->mem_pages)
		return ytree_error(l->t, n, l->d, "node %d free memory (%llu pages) is more than "
			   "its memory (%llu pages in its zones)", mn->id,
			   (unsigned long long)(bytes / l->page_size),
			   (unsigned long long)mn->mem_pages);
	mn->used_pages = mn->mem_pages - bytes / l->page_size;
	return NS_OK;
}

static int parse_node(struct loader *l, struct machine *m, const struct ynode *n,
		      int pos, const struct ynode **id_nodes, int *owner)
{
	static const struct ytree_field fields[] = {
		{"id", 1}, {"cpus", 1}, {"zones", 1}, {"free", 0}};
	const struct ynode *v[4];
	struct machine_node *mn = &m->nodes[pos];
	long long id;
	int rc;

	if ((rc = ytree_fields(l->t, n, "node", fields, 4, v, l->d)))
		return rc;
	if ((rc = ytree_int(l->t, v[0], "node id", 0, MACHINE_MAX_NODES - 1, &id,
			    l->d)))
		return rc;
	if (m->node_index[id] >= 0)
		return ytree_error(l->t, v[0], l->d, "duplicate node id %lld (first at line %d)", id,
			   id_nodes[m->node_index[id]]->line);
	if (pos > 0 && id < m->nodes[pos - 1].id)
		return ytree_error(l->t, v[0], l->d, "node id %lld listed after node %d: nodes must be "
			   "in ascending id order", id, m->nodes[pos - 1].id);
	mn->id = (int)id;
	m->node_index[id] = pos;
	id_nodes[pos] = v[0];
	if ((rc = parse_cpus(l, v[1], mn, owner)))
		return rc;
	if ((rc = parse_zones(l, v[2], mn)))
		return rc;
	return parse_free(l, v[3], mn);
}

static int build_cpu_map(struct loader *l, struct machine *m, const int *owner)
{
	m->max_cpu = -1;
	m->nr_cpus = 0;
	for (int c = 0; c < MACHINE_MAX_CPUS; c++)
		if (owner[c] >= 0) {
			m->max_cpu = c;
			m->nr_cpus++;
		}
	if (m->max_cpu < 0)
		return NS_OK;
	m->cpu_node = malloc((size_t)(m->max_cpu + 1) * sizeof *m->cpu_node);
	if (!m->cpu_node)
		return ytree_nomem(l->t, l->d);
	memcpy(m->cpu_node, owner, (size_t)(m->max_cpu + 1) * sizeof *m->cpu_node);
	return NS_OK;
}

static int parse_nodes(struct loader *l, struct machine *m, const struct ynode *n)
{
	const struct ynode **id_nodes = NULL;
	int *owner = NULL;
	int rc;

	if ((rc = ytree_expect_seq(l->t, n, "'nodes'", l->d)))
		return rc;
	if (n->nr == 0)
		return ytree_error(l->t, n, l->d, "'nodes' must list at least one node");
	if (n->nr > MACHINE_MAX_NODES)
		return ytree_error(l->t, n->items[MACHINE_MAX_NODES], l->d, "more than %d nodes",
			   MACHINE_MAX_NODES);
	m->nodes = calloc(n->nr, sizeof *m->nodes);
	id_nodes = calloc(n->nr, sizeof *id_nodes);
	owner = malloc(MACHINE_MAX_CPUS * sizeof *owner);
	if (!m->nodes || !id_nodes || !owner) {
		rc = ytree_nomem(l->t, l->d);
		goto out;
	}
	m->nr_nodes = (int)n->nr;
	for (int c = 0; c < MACHINE_MAX_CPUS; c++)
		owner[c] = -1;
	for (size_t i = 0; i < n->nr; i++)
		if ((rc = parse_node(l, m, n->items[i], (int)i, id_nodes, owner)))
			goto out;
	rc = build_cpu_map(l, m, owner);
out:
	free(id_nodes);
	free(owner);
	return rc;
}

static int parse_distance(struct loader *l, struct machine *m,
			  const struct ynode *n)
{
	char what[96];
	int nn = m->nr_nodes, rc;

	if ((rc = ytree_expect_seq(l->t, n, "'distance'", l->d)))
		return rc;
	/* a flat list is a type error, not a row-count one */
	for (size_t i = 0; i < n->nr; i++) {
		snprintf(what, sizeof what, "distance row %zu", i);
		if ((rc = ytree_expect_seq(l->t, n->items[i], what, l->d)))
			return rc;
	}
	if (n->nr != (size_t)nn)
		return ytree_error(l->t, n, l->d, "distance matrix has %zu row%s, expected %d (one per "
			   "node)", n->nr, n->nr == 1 ? "" : "s", nn);
	m->distance = malloc((size_t)nn * (size_t)nn * sizeof *m->distance);
	if (!m->distance)
		return ytree_nomem(l->t, l->d);
	for (int i = 0; i < nn; i++) {
		const struct ynode *row = n->items[i];
		int from = m->nodes[i].id;
		if (row->nr != (size_t)nn)
			return ytree_error(l->t, row, l->d, "distance row %d (node %d) has %zu entr%s, "
				   "expected %d (one per node)", i, from, row->nr,
				   row->nr == 1 ? "y" : "ies", nn);
		for (int j = 0; j < nn; j++) {
			const struct ynode *e = row->items[j];
			long long v;
			if (i == j)
				snprintf(what, sizeof what,
					 "distance from node %d to itself", from);
			else
				snprintf(what, sizeof what,
					 "distance from node %d to node %d", from,
					 m->nodes[j].id);
			if ((rc = ytree_int(l->t, e, what, MACHINE_DISTANCE_LOCAL,
					    MACHINE_DISTANCE_UNREACHABLE, &v, l->d)))
				return rc;
			if (i == j && v != MACHINE_DISTANCE_LOCAL)
				return ytree_error(l->t, e, l->d, "%s must be 10, got %lld", what, v);
			m->distance[i * nn + j] = (int)v;
		}
	}
	return NS_OK;
}

static int parse_page_size(struct loader *l, const struct ynode *n)
{
	uint64_t ps;
	int rc;

	l->page_size = PAGE_SIZE_DEFAULT;
	if (!n)
		return NS_OK;
	if ((rc = get_size(l, n, "page_size", 1, &ps)))
		return rc;
	if (ps < PAGE_SIZE_MIN || ps > PAGE_SIZE_MAX || (ps & (ps - 1)))
		return ytree_error(l->t, n, l->d, "page_size must be a power of two from %u to %u "
			   "bytes, got %llu", PAGE_SIZE_MIN, PAGE_SIZE_MAX,
			   (unsigned long long)ps);
	l->page_size = (uint32_t)ps;
	return NS_OK;
}

static int parse_sources(struct loader *l, struct machine *m,
			 const struct ynode *n)
{
	int rc;
	if ((rc = ytree_expect_seq(l->t, n, "'sources'", l->d)))
		return rc;
	if (n->nr == 0)
		return NS_OK;
	m->sources = calloc(n->nr, sizeof *m->sources);
	if (!m->sources)
		return ytree_nomem(l->t, l->d);
	m->nr_sources = (int)n->nr;
	for (size_t i = 0; i < n->nr; i++) {
		char what[48];
		snprintf(what, sizeof what, "sources[%zu]", i);
		if ((rc = get_text(l, n->items[i], what, 1, &m->sources[i])))
			return rc;
	}
	return NS_OK;
}

enum { F_NAME, F_DESC, F_SOURCES, F_PAGE_SIZE, F_NODES, F_DISTANCE, F_COSTS,
       NR_MACHINE_FIELDS };

static int parse_machine(struct loader *l, struct machine *m)
{
	static const struct ytree_field fields[NR_MACHINE_FIELDS] = {
		[F_NAME] = {"name", 1},         [F_DESC] = {"description", 0},
		[F_SOURCES] = {"sources", 1},   [F_PAGE_SIZE] = {"page_size", 0},
		[F_NODES] = {"nodes", 1},       [F_DISTANCE] = {"distance", 1},
		[F_COSTS] = {"costs", 1},
	};
	const struct ynode *v[NR_MACHINE_FIELDS];
	int rc;

	if ((rc = ytree_fields(l->t, l->t->root, "machine file", fields,
			       NR_MACHINE_FIELDS, v, l->d)))
		return rc;
	if ((rc = get_text(l, v[F_NAME], "name", 1, &m->name)))
		return rc;
	if (v[F_DESC] && (rc = get_text(l, v[F_DESC], "description", 0,
					&m->description)))
		return rc;
	if ((rc = parse_sources(l, m, v[F_SOURCES])))
		return rc;
	if ((rc = parse_page_size(l, v[F_PAGE_SIZE])))
		return rc;
	m->page_size = l->page_size;
	if ((rc = parse_nodes(l, m, v[F_NODES])))
		return rc;
	if ((rc = parse_distance(l, m, v[F_DISTANCE])))
		return rc;
	return parse_costs(l, v[F_COSTS], &m->costs);
}

/* ---- public entry points -------------------------------------------------- */

static int load_machine(const char *name, const char *path, const char *buf,
			size_t len, struct machine **out, struct diag *d)
{
	struct ytree *t = NULL;
	struct machine *m = NULL;
	struct loader l = {0};
	int rc;

	*out = NULL;
	if ((rc = ytree_parse(name, buf, len, &t, d)))
		return rc;
	l.t = t;
	l.d = d;
	m = calloc(1, sizeof *m);
	if (!m) {
		rc = ytree_nomem(t, d);
		goto out;
	}
	for (int i = 0; i < MACHINE_MAX_NODES; i++)
		m->node_index[i] = -1;
	m->max_cpu = -1;
	m->path = strdup(path);
	if (!m->path) {
		rc = ytree_nomem(t, d);
		goto out;
	}
	if ((rc = parse_machine(&l, m)))
		goto out;
	sha256(buf, len, m->sha256);
out:
	ytree_free(t);
	if (rc) {
		machine_free(m);
		return rc;
	}
	*out = m;
	return NS_OK;
}

int machine_load_buf(const char *name, const char *buf, size_t len,
		     struct machine **out, struct diag *d)
{
	return load_machine(name, name, buf, len, out, d);
}

int machine_load_file(const char *path, struct machine **out, struct diag *d)
{
	char *buf;
	size_t len;
	*out = NULL;
	int rc = ytree_read_file(path, &buf, &len, d);
	if (rc)
		return rc;
	rc = load_machine(ytree_display_name(path), path, buf, len, out, d);
	free(buf);
	return rc;
}

void machine_free(struct machine *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->nr_nodes; i++)
		free(m->nodes[i].cpus);
	free(m->nodes);
	for (int i = 0; i < m->nr_sources; i++)
		free(m->sources[i]);
	free(m->sources);
	free(m->distance);
	free(m->cpu_node);
	machine_costs_free(&m->costs);
	free(m->path);
	free(m->name);
	free(m->description);
	free(m);
}

static int parse_cost_profile(struct loader *l, struct machine_costs *c)
{
	static const struct ytree_field fields[] = {
		{"name", 1}, {"description", 0}, {"costs", 1}};
	const struct ynode *v[3];
	int rc;

	if ((rc = ytree_fields(l->t, l->t->root, "cost profile", fields, 3, v, l->d)))
		return rc;
	if ((rc = get_text(l, v[0], "name", 1, &c->name)))
		return rc;
	if (v[1] && (rc = get_text(l, v[1], "description", 0, &c->description)))
		return rc;
	return parse_costs(l, v[2], c);
}

int machine_costs_load_buf(const char *name, const char *buf, size_t len,
			   struct machine_costs *out, struct diag *d)
{
	struct ytree *t = NULL;
	struct loader l = {0};
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = ytree_parse(name, buf, len, &t, d)))
		return rc;
	l.t = t;
	l.d = d;
	rc = parse_cost_profile(&l, out);
	if (rc != NS_OK)
		machine_costs_free(out);
	ytree_free(t);
	return rc;
}

int machine_costs_load_file(const char *path, struct machine_costs *out,
			    struct diag *d)
{
	char *buf;
	size_t len;
	memset(out, 0, sizeof *out);
	int rc = ytree_read_file(path, &buf, &len, d);
	if (rc)
		return rc;
	rc = machine_costs_load_buf(ytree_display_name(path), buf, len, out, d);
	free(buf);
	return rc;
}

/* ---- queries -------------------------------------------------------------- */

double machine_latency_ns(const struct latency_point *p, int nr, int distance)
{
	if (nr <= 0)
		return 0.0;
	if (distance <= p[0].distance)
		return p[0].ns;
	for (int i = 1; i < nr; i++)
		if (distance <= p[i].distance) {
			double f = (double)(distance - p[i - 1].distance) /
				   (double)(p[i].distance - p[i - 1].distance);
			return p[i - 1].ns + f * (p[i].ns - p[i - 1].ns);
		}
	/* beyond the table: SLIT distance is relative latency */
	return p[nr - 1].ns * (double)distance / (double)p[nr - 1].distance;
}

double machine_memory_latency_ns(const struct machine *m, int distance)
{
	return machine_latency_ns(m->costs.memory_latency,
				  m->costs.nr_memory_latency, distance);
}

double machine_line_transfer_ns(const struct machine *m, int distance)
{
	return machine_latency_ns(m->costs.line_transfer,
				  m->costs.nr_line_transfer, distance);
}

uint64_t machine_mem_pages(const struct machine *m)
{
	uint64_t sum = 0;
	for (int i = 0; i < m->nr_nodes; i++)
		sum += m->nodes[i].mem_pages;
	return sum;
}

/* ---- invariants ----------------------------------------------------------- */

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond))                                                   \
			return diag_set(d, NS_EINTERNAL, file, 0, 0, __VA_ARGS__); \
	} while (0)

static int check_table(const struct latency_point *p, int nr, const char *key,
		       const char *file, struct diag *d)
{
	CHECK(nr >= 1 && p, "%s: empty table", key);
	CHECK(p[0].distance == MACHINE_DISTANCE_LOCAL, "%s: first distance %d",
	      key, p[0].distance);
	for (int i = 0; i < nr; i++) {
		CHECK(i == 0 || p[i].distance > p[i - 1].distance,
		      "%s: distance %d not ascending", key, p[i].distance);
		CHECK(p[i].distance <= MACHINE_DISTANCE_UNREACHABLE,
		      "%s: distance %d out of range", key, p[i].distance);
		CHECK(p[i].ns > 0 && isfinite(p[i].ns), "%s: ns %g at distance %d",
		      key, p[i].ns, p[i].distance);
		CHECK(p[i].source && p[i].source[0], "%s: point %d has no source",
		      key, i);
	}
	return NS_OK;
}

int machine_costs_check(const struct machine_costs *c, const char *file,
			struct diag *d)
{
	for (size_t i = 0; i < NR_COST_KEYS; i++) {
		const struct cost_figure *f = cost_at_const(c, i);
		if (!cost_keys[i].required && f->value == 0 && !f->source)
			continue;      /* an optional core figure left out */
		CHECK(f->value > 0 && isfinite(f->value), "cost %s = %g is not positive",
		      cost_keys[i].key, f->value);
		CHECK(f->source && f->source[0], "cost %s has no source",
		      cost_keys[i].key);
	}
	int rc = check_table(c->memory_latency, c->nr_memory_latency,
			     "memory_latency", file, d);
	if (rc)
		return rc;
	return check_table(c->line_transfer, c->nr_line_transfer, "line_transfer",
			   file, d);
}

static int check_node(const struct machine *m, int pos, const char *file,
		      struct diag *d)
{
	const struct machine_node *mn = &m->nodes[pos];
	uint64_t sum = 0;

	CHECK(mn->id >= 0 && mn->id < MACHINE_MAX_NODES, "node %d: id out of range",
	      mn->id);
	CHECK(pos == 0 || mn->id > m->nodes[pos - 1].id,
	      "node %d: ids not strictly ascending", mn->id);
	CHECK(m->node_index[mn->id] == pos, "node %d: node_index is %d, not %d",
	      mn->id, m->node_index[mn->id], pos);
	CHECK(mn->nr_cpus >= 0 && (mn->nr_cpus == 0 || mn->cpus),
	      "node %d: bad cpu array", mn->id);
	for (int i = 0; i < mn->nr_cpus; i++) {
		int c = mn->cpus[i];
		CHECK(c >= 0 && c <= m->max_cpu && c < MACHINE_MAX_CPUS,
		      "node %d: CPU %d out of range", mn->id, c);
		CHECK(i == 0 || c > mn->cpus[i - 1], "node %d: CPUs not ascending",
		      mn->id);
		CHECK(m->cpu_node[c] == mn->id, "CPU %d: cpu_node says %d, node %d "
		      "lists it", c, m->cpu_node[c], mn->id);
	}
	CHECK(mn->nr_zones >= 0 && mn->nr_zones <= NR_ZONE_TYPES,
	      "node %d: %d zones", mn->id, mn->nr_zones);
	for (int z = 0; z < mn->nr_zones; z++) {
		const struct machine_zone *zn = &mn->zones[z];
		CHECK((unsigned)zn->type < NR_ZONE_TYPES, "node %d: bad zone type",
		      mn->id);
		CHECK(z == 0 || zn->type > mn->zones[z - 1].type,
		      "node %d: zones not in ascending type order", mn->id);
		CHECK(zn->pages > 0, "node %d: empty zone %s", mn->id,
		      zone_type_name(zn->type));
		CHECK(sum <= UINT64_MAX - zn->pages, "node %d: pages overflow", mn->id);
		sum += zn->pages;
	}
	CHECK(sum == mn->mem_pages, "node %d: mem_pages %llu, zones sum to %llu",
	      mn->id, (unsigned long long)mn->mem_pages, (unsigned long long)sum);
	CHECK(mn->used_pages <= mn->mem_pages, "node %d: used_pages %llu over mem_pages %llu",
	      mn->id, (unsigned long long)mn->used_pages, (unsigned long long)mn->mem_pages);
	return NS_OK;
}

int machine_check(const struct machine *m, struct diag *d)
{
	const char *file = m && m->path ? m->path : "machine";
	int present = 0, cpus = 0, rc;

	CHECK(m, "no machine");
	CHECK(m->name && m->name[0], "machine has no name");
	CHECK(m->page_size >= PAGE_SIZE_MIN && m->page_size <= PAGE_SIZE_MAX &&
	      !(m->page_size & (m->page_size - 1)), "page_size %u", m->page_size);
	CHECK(m->nr_sources >= 0 && (m->nr_sources == 0 || m->sources),
	      "bad sources array");
	CHECK(m->nr_nodes >= 1 && m->nr_nodes <= MACHINE_MAX_NODES && m->nodes,
	      "%d nodes", m->nr_nodes);
	CHECK(m->max_cpu >= -1 && m->max_cpu < MACHINE_MAX_CPUS, "max_cpu %d",
	      m->max_cpu);
	CHECK(m->max_cpu < 0 || m->cpu_node, "no cpu_node map");
	for (int id = 0; id < MACHINE_MAX_NODES; id++) {
		int p = m->node_index[id];
		CHECK(p >= -1 && p < m->nr_nodes, "node_index[%d] = %d", id, p);
		CHECK(p < 0 || m->nodes[p].id == id, "node_index[%d] = %d holds node %d",
		      id, p, m->nodes[p].id);
		present += p >= 0;
	}
	CHECK(present == m->nr_nodes, "node_index has %d ids for %d nodes", present,
	      m->nr_nodes);
	for (int i = 0; i < m->nr_nodes; i++) {
		if ((rc = check_node(m, i, file, d)))
			return rc;
		cpus += m->nodes[i].nr_cpus;
	}
	CHECK(cpus == m->nr_cpus, "nodes list %d CPUs, nr_cpus is %d", cpus,
	      m->nr_cpus);
	int mapped = 0;
	for (int c = 0; c <= m->max_cpu; c++) {
		CHECK(m->cpu_node[c] == -1 ||
		      (m->cpu_node[c] >= 0 && m->cpu_node[c] < MACHINE_MAX_NODES &&
		       m->node_index[m->cpu_node[c]] >= 0),
		      "cpu_node[%d] = %d is not a node", c, m->cpu_node[c]);
		mapped += m->cpu_node[c] >= 0;
	}
	CHECK(mapped == m->nr_cpus, "cpu_node maps %d CPUs, nr_cpus is %d", mapped,
	      m->nr_cpus);
	CHECK(m->max_cpu < 0 || m->cpu_node[m->max_cpu] >= 0,
	      "max_cpu %d has no node", m->max_cpu);
	CHECK(m->distance, "no distance matrix");
	for (int i = 0; i < m->nr_nodes; i++)
		for (int j = 0; j < m->nr_nodes; j++) {
			int v = m->distance[i * m->nr_nodes + j];
			CHECK(i == j ? v == MACHINE_DISTANCE_LOCAL
				     : v >= MACHINE_DISTANCE_LOCAL &&
				       v <= MACHINE_DISTANCE_UNREACHABLE,
			      "distance[%d][%d] = %d", i, j, v);
		}
	return machine_costs_check(&m->costs, file, d);
}
