/*
 * sched_fair_internal — what the two files of the v5.9 CFS model share
 * (models/sched_fair.h): models/sched_fair.c (kernel/sched/fair.c's
 * scheduling and placement paths) and models/sched_fair_setup.c (set-up,
 * statistics, cfs_check()).  Only those files include it.
 *
 * Invariants and error policy: those of models/sched_fair.h.
 */
#ifndef NUMASIM_SCHED_FAIR_INTERNAL_H
#define NUMASIM_SCHED_FAIR_INTERNAL_H

#include "models/sched_fair.h"

/*
 * TASK_HOT_BYTES 512: the task lines schedule() and the return to user
 * mode touch on the CPU it is switched in on: 3 lines of sched_entity and
 * task flags, 1 of thread_struct (sp, fsbase), 3 of pt_regs (168 bytes)
 * and 1 of the stack frames of __schedule/switch_to.  After a migration
 * they are on the old CPU (a transfer) or in memory.  An estimate from
 * the code's size, not a measurement.
 */
enum { TASK_HOT_BYTES = 512 };

/* The v5.9 placement (cfs.placement v5.9) is on. */
static inline int v59(const struct cfs_sched *cs)
{
	return cs->params.placement == CFS_PLACEMENT_V59;
}

static inline int cpu_ok(const struct cfs_sched *cs, int cpu)
{
	return cpu >= 0 && cpu < cs->sys->nr_cpus;
}

#endif
