/*
 * cmd_import_trace — `numasim import trace FILE [-o OUT] [--skip-bad]`:
 * read a recorded kmem trace (perf script or ftrace text, or a compact
 * file; workloads/ktrace.h), print the events read by kind and the
 * summary in the manner of `perf kmem stat` (workloads/ktrace_stat.h) on
 * standard output, and with -o write the compact trace file the replay
 * workload reads (docs/reference/trace-format.md).
 *
 * Error policy: a bad line is `file:line:col: error: ...` and exit 2
 * (unless --skip-bad, which counts it); nothing is written or printed
 * of a failed import; the compact file is written atomically.
 */
#ifndef NUMASIM_CMD_IMPORT_TRACE_H
#define NUMASIM_CMD_IMPORT_TRACE_H

/* input: a path or "-"; out: NULL or "-" for no compact file.  Returns the
 * exit status. */
int cmd_import_trace(const char *input, const char *out, int skip_bad);

#endif
