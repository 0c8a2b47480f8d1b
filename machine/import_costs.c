/*
 * import_costs — cost profiles: the shipped (or given) YAML file whose
 * costs: block an import copies into the machine it writes, found by name
 * in the data directories (machine/datafile.h); see machine/import.h.
 */
#include "machine/import_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "base/diag.h"
#include "machine/cpulist.h"
#include "machine/datafile.h"
#include "machine/machine.h"

/* ------------------------------------------------------------------ */
/* Cost profiles                                                       */

const char *import_default_costs(enum import_arch arch)
{
	/* The server cores the shipped profiles describe; ppc64/s390 boxes
	 * have no profile of their own and get the x86 server one. */
	return arch == IMPORT_ARCH_ARM64 ? "kunpeng920" : "skylake-sp";
}

/* Find the profile file (datafile.h: a path, or a name looked up in the
 * data directories); *path is malloc'ed. */
static int costs_find(const char *costs, char **path, struct diag *d)
{
	if (!strchr(costs, '/'))
		for (const char *p = costs; *p; p++)
			if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' &&
			    *p != '.')
				return diag_set(d, NS_EUSAGE, NULL, 0, 0, "cost profile "
						"name '%s' has characters other than "
						"letters, digits, '-', '_' and '.'", costs);
	struct diag rd;
	diag_init(&rd);
	int rc = datafile_resolve(DATAFILE_COSTS, costs, path, &rd);
	if (rc != NS_ENOENT || strchr(costs, '/')) {
		if (rc)
			*d = rd;
		return rc;
	}
	struct datafile_dirs dd;
	char where[1024] = "";
	datafile_kind_dirs(DATAFILE_COSTS, &dd);
	for (int i = 0; i < dd.nr; i++) {
		size_t l = strlen(where);
		snprintf(where + l, sizeof where - l, "%s%s", i ? ", " : "", dd.dir[i]);
	}
	return diag_set(d, NS_ENOENT, NULL, 0, 0, "no cost profile '%s' (looked "
			"in %s; set NUMASIM_CONFIGS or give --costs a path)", costs,
			dd.nr ? where : "no data directory");
}

int file_exists(const char *p)
{
	FILE *f = fopen(p, "rb");
	if (f)
		fclose(f);
	return f != NULL;
}

/* Skip one YAML node (and its children) whose first event is ev. */
static int yaml_skip(yaml_parser_t *yp, yaml_event_t *ev, yaml_mark_t *end,
		     const char *path, struct diag *d)
{
	int depth = 0;
	for (;;) {
		switch (ev->type) {
		case YAML_ALIAS_EVENT:
			return diag_set(d, NS_EINPUT, path,
					(int)ev->start_mark.line + 1,
					(int)ev->start_mark.column + 1,
					"YAML aliases are not accepted");
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT:
			if (++depth > 64)
				return diag_set(d, NS_EINPUT, path,
						(int)ev->start_mark.line + 1,
						(int)ev->start_mark.column + 1,
						"nesting deeper than 64 levels");
			break;
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			depth--;
			break;
		default:
			break;
		}
		*end = ev->end_mark;
		if (depth == 0)
			return NS_OK;
		yaml_event_delete(ev);
		if (!yaml_parser_parse(yp, ev))
			return diag_set(d, NS_EINPUT, path,
					(int)yp->problem_mark.line + 1,
					(int)yp->problem_mark.column + 1, "%s",
					yp->problem ? yp->problem : "YAML error");
	}
}

struct profile_scan {
	char *name, *description;
	size_t costs_key, costs_end; /* byte offsets: key start, value end */
	int costs_line;              /* 1-based */
	int has_costs;
};

static int scalar_copy(yaml_event_t *ev, char **out)
{
	free(*out);
	*out = strndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
	return *out ? NS_OK : NS_ENOMEM;
}

/* Walk the profile's top-level mapping: name, description, costs. */
static int profile_scan(const char *path, const char *text, size_t len,
			struct profile_scan *ps, struct diag *d)
{
	yaml_parser_t yp;
	yaml_event_t ev;
	int rc = NS_OK, level = 0, have_ev = 0;
	if (!yaml_parser_initialize(&yp))
		return NS_ENOMEM;
	yaml_parser_set_input_string(&yp, (const unsigned char *)text, len);
	for (;;) {
		if (!yaml_parser_parse(&yp, &ev)) {
			rc = diag_set(d, NS_EINPUT, path, (int)yp.problem_mark.line + 1,
				      (int)yp.problem_mark.column + 1, "%s",
				      yp.problem ? yp.problem : "YAML error");
			break;
		}
		have_ev = 1;
		int line = (int)ev.start_mark.line + 1, col = (int)ev.start_mark.column + 1;
		if (ev.type == YAML_STREAM_END_EVENT || ev.type == YAML_DOCUMENT_END_EVENT)
			break;
		if (ev.type == YAML_STREAM_START_EVENT || ev.type == YAML_DOCUMENT_START_EVENT) {
			yaml_event_delete(&ev);
			have_ev = 0;
			continue;
		}
		if (level == 0) {
			if (ev.type != YAML_MAPPING_START_EVENT ||
			    ev.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE) {
				rc = diag_set(d, NS_EINPUT, path, line, col, "a cost "
					      "profile is a block mapping with keys "
					      "name, description and costs");
				break;
			}
			level = 1;
			yaml_event_delete(&ev);
			have_ev = 0;
			continue;
		}
		if (ev.type == YAML_MAPPING_END_EVENT)
			break;
		if (ev.type != YAML_SCALAR_EVENT) {
			rc = diag_set(d, NS_EINPUT, path, line, col, "expected a key");
			break;
		}
		char key[32];
		snprintf(key, sizeof key, "%.*s", (int)ev.data.scalar.length,
			 (const char *)ev.data.scalar.value);
		size_t key_at = ev.start_mark.index;
		int key_line = line, key_col = col;
		yaml_event_delete(&ev);
		have_ev = 0;
		if (!yaml_parser_parse(&yp, &ev)) {
			rc = diag_set(d, NS_EINPUT, path, (int)yp.problem_mark.line + 1,
				      (int)yp.problem_mark.column + 1, "%s",
				      yp.problem ? yp.problem : "YAML error");
			break;
		}
		have_ev = 1;
		line = (int)ev.start_mark.line + 1;
		col = (int)ev.start_mark.column + 1;
		if (!strcmp(key, "name") || !strcmp(key, "description")) {
			if (ev.type != YAML_SCALAR_EVENT) {
				rc = diag_set(d, NS_EINPUT, path, line, col, "'%s' must "
					      "be a string", key);
				break;
			}
			rc = scalar_copy(&ev, key[0] == 'n' ? &ps->name : &ps->description);
		} else if (!strcmp(key, "costs")) {
			yaml_mark_t end = {0, 0, 0};
			if (key_col != 1) {
				rc = diag_set(d, NS_EINPUT, path, key_line, key_col,
					      "'costs:' must start in column 1");
				break;
			}
			if (ev.type != YAML_MAPPING_START_EVENT) {
				rc = diag_set(d, NS_EINPUT, path, line, col, "'costs' "
					      "must be a mapping");
				break;
			}
			rc = yaml_skip(&yp, &ev, &end, path, d);
			ps->has_costs = 1;
			ps->costs_key = key_at;
			ps->costs_end = end.index;
			ps->costs_line = key_line;
		} else {
			rc = diag_set(d, NS_EINPUT, path, key_line, key_col, "unknown "
				      "key '%s' in a cost profile (expected name, "
				      "description, costs)", key);
		}
		if (rc)
			break;
		yaml_event_delete(&ev);
		have_ev = 0;
	}
	if (have_ev)
		yaml_event_delete(&ev);
	yaml_parser_delete(&yp);
	if (rc == NS_OK && !ps->has_costs)
		rc = diag_set(d, NS_EINPUT, path, 1, 1, "cost profile has no "
			      "'costs:' mapping");
	return rc;
}

int import_load_costs(const char *costs, char **block, char **path, char **pname,
		      char **pdescription, int *block_line, struct diag *d)
{
	char *text = NULL;
	size_t len;
	struct profile_scan ps = {0};
	int rc = costs_find(costs, path, d);
	if (rc)
		return rc;
	if ((rc = read_file(*path, IMPORT_MAX_PROFILE, &text, &len, d)))
		goto out;
	/* The cost loader judges the figures (with positions in the
	 * profile); the scan only locates the block to copy. */
	struct machine_costs c;
	if ((rc = machine_costs_load_buf(*path, text, len, &c, d)))
		goto out;
	machine_costs_free(&c);
	if ((rc = profile_scan(*path, text, len, &ps, d)))
		goto out;
	/* The block runs from "costs:" to the end of the line where the
	 * mapping's last value ends (keeping a trailing comment there). */
	size_t end = ps.costs_end;
	while (end < len && text[end] != '\n')
		end++;
	*block = malloc(end - ps.costs_key + 2);
	if (!*block) {
		rc = NS_ENOMEM;
		goto out;
	}
	memcpy(*block, text + ps.costs_key, end - ps.costs_key);
	(*block)[end - ps.costs_key] = '\n';
	(*block)[end - ps.costs_key + 1] = '\0';
	if (block_line)
		*block_line = ps.costs_line;
	if (pname) {
		*pname = ps.name;
		ps.name = NULL;
	}
	if (pdescription) {
		*pdescription = ps.description;
		ps.description = NULL;
	}
out:
	if (rc) {
		free(*path);
		*path = NULL;
	}
	free(ps.name);
	free(ps.description);
	free(text);
	return rc;
}
