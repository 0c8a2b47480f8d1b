/* file_kind — the kind of a numasim file and the lookup of one; see
 * file_kind.h. */
#include "cli/file_kind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ytree.h"
#include "scenarios/scenario.h"

/* The key node (not the value) of key in map, or NULL. */
static const struct ynode *map_key(const struct ynode *map, const char *key)
{
	for (size_t p = 0; p < map->nr; p++) {
		const struct ynode *k = map->items[2 * p];
		if (k->kind == YNODE_SCALAR && !strcmp(k->str, key))
			return k;
	}
	return NULL;
}

/* The kind of root and the key that says so; -1 when none. */
static int kind_of(const struct ynode *root, const struct ynode **at)
{
	if (scenario_is_scenario_root(root)) {
		*at = map_key(root, "workload");
		return DATAFILE_SCENARIO;
	}
	if ((*at = map_key(root, "nodes")))
		return DATAFILE_MACHINE;
	if ((*at = map_key(root, "costs")))
		return DATAFILE_COSTS;
	return -1;
}

int cli_classify(const char *name, const char *buf, size_t len,
		 enum datafile_kind *kind, struct diag *d)
{
	struct ytree *t;
	const struct ynode *at;
	char desc[256];
	int rc = ytree_parse(name, buf, len, &t, d);
	if (rc)
		return rc;
	const struct ynode *root = t->root;
	int k = root->kind == YNODE_MAP ? kind_of(root, &at) : -1;
	if (root->kind != YNODE_MAP) {
		ynode_describe(root, desc, sizeof desc);
		rc = ytree_error(t, root, d, "top level must be a mapping, got %s", desc);
	} else if (k < 0) {
		rc = ytree_error(t, root, d,
				 "unknown file kind: a machine file has a 'nodes' "
				 "key, a cost profile has 'costs' and no 'nodes'");
	} else {
		*kind = (enum datafile_kind)k;
	}
	ytree_free(t);
	return rc;
}

/* What the file is and which commands take it. */
static const char *const what_it_is[] = {
	[DATAFILE_MACHINE] = "a machine file (it has 'nodes')",
	[DATAFILE_COSTS] = "a cost profile (it has 'costs' and no 'nodes')",
	[DATAFILE_SCENARIO] = "a scenario (it has 'workload')",
};

/* Which commands take a file of kind have, named name. */
static void taken_by(enum datafile_kind have, const char *name, char *buf,
		     size_t len)
{
	switch (have) {
	case DATAFILE_MACHINE:
		snprintf(buf, len, "`numasim topology %s` shows it, `numasim run "
			 "--machine %s --workload pagealloc|messaging|parallel` "
			 "runs a workload on it", name, name);
		break;
	case DATAFILE_COSTS:
		snprintf(buf, len, "`numasim import numactl|sysfs ... --costs %s` "
			 "puts it into a machine file", name);
		break;
	case DATAFILE_SCENARIO:
		snprintf(buf, len, "`numasim run %s` runs it, `numasim validate %s` "
			 "checks it with its machine", name, name);
		break;
	}
}

static int wrong_kind(const char *prog, enum datafile_kind want,
		      enum datafile_kind have, const char *name, const char *ref,
		      const char *buf, size_t len, struct diag *d)
{
	struct ytree *t;
	struct diag quiet;
	const struct ynode *at = NULL;
	char commands[1536];
	diag_init(&quiet);
	if (ytree_parse(name, buf, len, &t, &quiet))
		return diag_set(d, NS_EINPUT, name, 0, 0, "not a %s",
				datafile_kind_name(want));
	kind_of(t->root, &at);
	taken_by(have, ref, commands, sizeof commands);
	int rc = ytree_error(t, at ? at : t->root, d, "this is %s, not a %s: "
			     "%s takes a %s; %s", what_it_is[have],
			     datafile_kind_name(want), prog,
			     datafile_kind_name(want), commands);
	ytree_free(t);
	return rc;
}

/*
 * A name found nowhere as the kind wanted but shipped as another kind
 * (`numasim run rome-nps4`): the message says what the name is and the
 * command line that takes it; NS_ENOENT with d as it was otherwise.
 */
static int shipped_as_other(const char *prog, enum datafile_kind want, const char *ref,
			    struct diag *d)
{
	static const enum datafile_kind kinds[] = {
		DATAFILE_MACHINE, DATAFILE_COSTS, DATAFILE_SCENARIO,
	};
	struct diag quiet;
	char *other = NULL;
	if (strchr(ref, '/'))
		return NS_ENOENT;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		if (kinds[i] == want)
			continue;
		diag_init(&quiet);
		if (datafile_resolve(kinds[i], ref, &other, &quiet) != NS_OK)
			continue;
		free(other);
		char commands[1536];
		taken_by(kinds[i], ref, commands, sizeof commands);
		diag_init(d);              /* this message instead of "cannot open" */
		if (kinds[i] == DATAFILE_MACHINE && want == DATAFILE_SCENARIO)
			return diag_set(d, NS_ENOENT, ref, 0, 0, "'%s' is a shipped machine; "
					"%s takes a scenario: %s SCENARIO --machine %s "
					"(numasim list scenarios), or %s", ref, prog, prog,
					ref, commands);
		return diag_set(d, NS_ENOENT, ref, 0, 0, "'%s' is a shipped %s, not a %s: "
				"%s takes a %s; %s", ref, datafile_kind_name(kinds[i]),
				datafile_kind_name(want), prog, datafile_kind_name(want),
				commands);
	}
	return NS_ENOENT;
}

int cli_find_file(const char *prog, enum datafile_kind want, const char *ref,
		  char **path, struct diag *d)
{
	char *buf = NULL;
	size_t len = 0;
	struct diag quiet;
	enum datafile_kind have = want;
	int rc = datafile_resolve(want, ref, path, d);
	if (rc == NS_ENOENT)
		return shipped_as_other(prog, want, ref, d);
	if (rc || !strcmp(*path, "-"))
		return rc;
	diag_init(&quiet);
	/* Unreadable or unclassifiable: the loader says what is wrong. */
	if (ytree_read_file(*path, &buf, &len, &quiet) == NS_OK &&
	    cli_classify(*path, buf, len, &have, &quiet) == NS_OK && have != want)
		rc = wrong_kind(prog, want, have, *path, ref, buf, len, d);
	free(buf);
	if (rc) {
		free(*path);
		*path = NULL;
	}
	return rc;
}
