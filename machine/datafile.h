/*
 * datafile — where numasim finds the files it ships: machine files
 * (configs/NAME.yaml), cost profiles (configs/costs/NAME.yaml) and
 * scenarios (scenarios/NAME.yaml), so that `numasim bench pagealloc`,
 * `--machine rome-nps4` or `numasim run seed-zonelist` work from any
 * directory.  Every command that takes one of these files resolves it here
 * (the one resolver), before its loader opens it.
 *
 * Resolution of a reference REF of a kind:
 *   - "-" (standard input) and a path that exists from the current
 *     directory are taken as they are: an explicit path that exists wins;
 *   - a bare name ("rome-nps4", "zen2.yaml": no '/') is looked up as
 *     NAME.yaml (".yaml" added unless it ends in .yaml or .yml) in the
 *     kind's directory of every data root, after $NUMASIM_CONFIGS (a
 *     configs directory: machines in it, profiles in its costs/) for
 *     machines and cost profiles;
 *   - a relative path that does not exist ("configs/rome-nps4.yaml" from
 *     /tmp, a scenario's "../configs/skylake-2s.yaml" read from standard
 *     input) is looked up below every data root, with its leading "./" and
 *     "../" left off.
 * The data roots, each holding configs/ and scenarios/, are the installed
 * data directory (found next to the executable, ../share/numasim from its
 * bin/, so `meson install --destdir` trees and moved installs work, then
 * the configured prefix's) and the source tree the binary was built from.
 * A binary run from its build directory searches the source tree first,
 * so a build never reads an older installed copy; an installed one
 * searches the installed data first.  Only existing directories count.
 *
 * Error policy: a reference found nowhere is NS_ENOENT with the reference
 * as the diag's file and the places searched in the message; out of memory
 * is NS_ENOMEM.  Nothing is cached (no globals): every call looks again.
 */
#ifndef NUMASIM_DATAFILE_H
#define NUMASIM_DATAFILE_H

#include "base/diag.h"

enum datafile_kind {
	DATAFILE_MACHINE,
	DATAFILE_COSTS,
	DATAFILE_SCENARIO,
};

#define DATAFILE_PATH_MAX 4096
#define DATAFILE_MAX_DIRS 4

/* Directories searched, in order; dir[i] are absolute or as configured. */
struct datafile_dirs {
	int nr;
	char dir[DATAFILE_MAX_DIRS][DATAFILE_PATH_MAX];
};

/* "machine file", "cost profile", "scenario". */
const char *datafile_kind_name(enum datafile_kind k);

/* The data roots (directories holding configs/ and scenarios/). */
void datafile_roots(struct datafile_dirs *out);

/* The directories where bare names of kind k are looked up, in order. */
void datafile_kind_dirs(enum datafile_kind k, struct datafile_dirs *out);

/* Resolve ref (see above); *out is malloc'ed. */
int datafile_resolve(enum datafile_kind k, const char *ref, char **out,
		     struct diag *d);

/*
 * The shipped files of kind k: every NAME.yaml of the kind's directories
 * (datafile_kind_dirs), each name once (the first directory wins, as for
 * datafile_resolve), sorted by name; *paths is a malloc'ed array of
 * malloc'ed paths (datafile_list_free()).  NS_ENOMEM, else NS_OK (none
 * found: *n = 0).
 */
int datafile_list(enum datafile_kind k, char ***paths, int *n);
void datafile_list_free(char **paths, int n);

/*
 * path relative to the data root it lies in ("configs/costs/zen2.yaml"),
 * so that files cite shipped files the same way from any install or
 * checkout; path itself when it lies in none.  Points into path.
 */
const char *datafile_shown(const char *path);

#endif
