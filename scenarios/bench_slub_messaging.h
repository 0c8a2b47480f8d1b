/*
 * bench_slub_messaging — `numasim bench slub` and `numasim bench messaging`: the
 * simulator's speed on the SLUB model (models/slub.h) and on the
 * sched-messaging workload (scenarios/wl_messaging.h), full cost model.
 *
 * bench slub: simulated kmalloc-512 alloc+free pairs per host second on
 * two CPUs of different nodes when the machine has two (allocate a batch on
 * the first, free it on the second: the remote-free pattern of messaging),
 * plus simulated cycles per pair.  bench messaging: simulated messages
 * per host second of perf bench sched messaging over every CPU of the
 * machine, with the simulated Total time.
 *
 * Error policy: bad options are usage errors (exit status 2); a machine
 * file that does not load is reported as file:line:col (exit status 2);
 * the summary is printed only after the run succeeded and slub_check and
 * mm_check passed (exit 1 otherwise).
 */
#ifndef NUMASIM_MSG_BENCH_H
#define NUMASIM_MSG_BENCH_H

/* argv[0] is "slub" / "messaging"; return the process exit status. */
int bench_slub_main(int argc, char **argv);
int bench_messaging_main(int argc, char **argv);

#endif
