/*
 * store_image — moving finished runs between results databases as
 * SQLite database images (sqlite3_serialize), for distributed sweeps
 * (`numasim run --mpi`, scenarios/run_mpi.h): a worker writes each run
 * into a private scratch store with the ordinary store functions, takes
 * the image of it, and rank 0 imports the image into the real database,
 * so one code path (run.c's write_run) produces the rows everywhere and
 * a distributed sweep stores the same rows as a serial one.
 *
 * Scratch store: a store (store.h) on a fresh file in $TMPDIR (default
 * /tmp), unlinked right after opening (nothing is left behind, even after
 * a crash), with its journal in memory and no fsync: it holds at most one
 * run at a time and is disposable.
 *
 * Import: the image must be a numasim database of this schema version
 * holding exactly one finished run (status ok or failed); its run row and
 * every row that references it (the tables with a run_id column), and its
 * inputs, are copied in ONE transaction (BEGIN IMMEDIATE ... COMMIT), so
 * the destination's durability promise (store.h) holds for imported runs
 * too; the run gets the destination's next run_id, every other column is
 * kept (host, invocation, started/finished timestamps come from where it
 * ran).  Columns are listed from the schema at run time, so the copy
 * follows schema changes.  Call between runs only (no run of the
 * destination open).
 *
 * Error policy: NS_* codes; a malformed image is NS_EINPUT, SQLite errors
 * NS_EDB, each with a message in d; a failed import leaves the
 * destination as it was.
 */
#ifndef NUMASIM_STORE_IMAGE_H
#define NUMASIM_STORE_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "analysis/store.h"

int store_image_scratch(struct store **out, struct diag *d);
/*
 * The scratch store's content as an image (*img, *len; free with
 * store_image_free), then its runs are deleted so the next image holds
 * only the next run.
 */
int store_image_take(struct store *scratch, unsigned char **img, size_t *len,
		     struct diag *d);
void store_image_free(unsigned char *img);
/* Copy the image's one run into st; *run_id = its id in st. */
int store_image_import(struct store *st, const unsigned char *img, size_t len,
		       int64_t *run_id, struct diag *d);

#endif
