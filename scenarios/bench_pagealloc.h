/*
 * bench_pagealloc — `numasim bench pagealloc`: the simulator's speed on
 * the page allocator model (models/pagealloc.h) with full cost accounting.
 *
 * What it measures: simulated order-0 alloc+free pairs per host second on
 * one CPU of a machine file, in rounds of `batch` allocations followed by
 * `batch` frees (the shape of mmtests' pagealloc-micro loop), plus the
 * simulated cycles per allocation and per free, the top of the simulated
 * profile, and the host's peak resident set size (getrusage), which is how
 * the memory representation of large machines is checked.
 *
 * Error policy: bad options are usage errors (exit status 2); a machine
 * file that does not load is reported as file:line:col (exit status 2);
 * the summary is printed only after the run succeeded and mm_check()
 * passed.
 */
#ifndef NUMASIM_PAGEALLOC_BENCH_H
#define NUMASIM_PAGEALLOC_BENCH_H

/* argv[0] is "pagealloc"; returns the process exit status. */
int bench_pagealloc_main(int argc, char **argv);

#endif
