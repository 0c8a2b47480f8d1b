/*
 * annotate — `perf annotate` for a modelled kernel function: its branch
 * sites in source order with what one run did at each (executed, taken,
 * mispredicted) and the cycles the cost model charged for them, and the
 * kernel source each site is in (docs/guide/plots.md "annotate").
 *
 * Source order is the order of the model's site table (the X-macro lists
 * of models/mm_internal.h and models/slub.c), which follows the numbering
 * of the reference pages along the code path (A02a .. A52, F01 .., S0 ..
 * S10).  Sites the run never executed are listed with zeros, as perf
 * annotate shows cold lines.  A site's cycles are cpu_branch_cycles() of
 * its counts with the cost figures of the run's machine as stored in the
 * database (inputs, by machine_sha256): branch + taken_branch per taken +
 * mispredict per mispredict under cost.model inorder, the interval
 * model's dispatch, taken-branch and resolve + refill charges under ooo
 * (the run's model, from its params); then the blocks of straight-line
 * code (the page allocator's MM_BLOCKS and SLUB's SLUB_BLOCKS:
 * models/page_alloc.h mm_block_describe(), models/slub.h
 * slub_block_describe()).  Without the run's charges a block is listed
 * when it ends at a site of the function, with its exit site's
 * executions and the core cycles its straight-line code costs in the
 * run's layout and model, and the rest of the function's self cycles
 * (memory, calls, blocks ending elsewhere) is one remainder line.  A
 * run made with `numasim run --charges` stored the function's self
 * cycles by cost/cpu.h enum cpu_charge (profile_charges) and its work
 * cycles per block (profile_work), recorded step by step: then the
 * blocks are those the function ran, as charged (an inlined callee's
 * among them; for an inlined function, its blocks booked to its
 * callers), the remainder is named (branch beyond the sites' estimate,
 * work outside any block, mem, call, lock as recorded, other) and the
 * rows sum to the self cycles; a section lists each kind.
 *
 * Kernel source: the file the function is defined in, at the run's kernel
 * model (runs.kernel_model), from annotate_kernel_file(): a table of the
 * modelled functions written from the v4.6 and v5.9 sources (see the
 * table's comment); per site and block exit, the line of the release the
 * model follows where models/kcode_lines.h has it (kcode_line()).
 *
 * Error policy: NS_EINPUT with a message for an unknown run or function
 * (the caller offers the nearest name); NS_EDB, NS_ENOMEM.
 */
#ifndef NUMASIM_ANNOTATE_H
#define NUMASIM_ANNOTATE_H

#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "base/diag.h"
#include "cost/cost.h"

/* The kernel file defining a modelled function ("mm/page_alloc.c"), or
 * NULL for a name the table does not know. */
const char *annotate_kernel_file(const char *function);

/* The annotation of function in run of db; t: the models' tables. */
int annotate_write(sqlite3 *db, const char *dbname, const struct cost_tables *t,
		   int64_t run, const char *function, FILE *out, struct diag *d);

#endif
