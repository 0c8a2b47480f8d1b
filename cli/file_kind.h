/*
 * file_kind — which kind of numasim file a YAML file is (machine file,
 * cost profile or scenario), and the lookup every command does before it
 * loads one: resolve the name (machine/datafile.h: shipped names and paths
 * from any directory) and refuse a file of the wrong kind with a message
 * that says what the file is and which command takes it, instead of the
 * loader's "unknown key" at the first key it does not expect.
 *
 * The kind is decided by the top-level keys, as `numasim validate` always
 * did: `workload` makes a scenario, `nodes` a machine file, `costs` without
 * `nodes` a cost profile.
 *
 * Error policy: cli_classify fails (NS_EINPUT, file:line:col) on YAML that
 * does not parse, a top level that is not a mapping, or a mapping with
 * none of the three keys.  cli_find_file fails with NS_ENOENT when the
 * name is found nowhere and NS_EINPUT (at the key that gives the kind
 * away) when the file is of another kind; a file it cannot classify is
 * left to the kind's own loader, whose messages are more precise.
 * Standard input ("-") is not read ahead, so it is not checked.
 */
#ifndef NUMASIM_FILE_KIND_H
#define NUMASIM_FILE_KIND_H

#include <stddef.h>

#include "base/diag.h"
#include "machine/datafile.h"

/* The kind of the YAML text buf (len bytes; name is used in messages). */
int cli_classify(const char *name, const char *buf, size_t len,
		 enum datafile_kind *kind, struct diag *d);

/*
 * Resolve ref as a file of kind want for the command prog ("numasim run",
 * "numasim bench pagealloc --machine"), into *path (malloc'ed), and check
 * its kind.
 */
int cli_find_file(const char *prog, enum datafile_kind want, const char *ref,
		  char **path, struct diag *d);

#endif
