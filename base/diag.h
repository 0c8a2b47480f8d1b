/*
 * diag — status codes and user-facing diagnostics for numasim.
 *
 * Every fallible numasim function returns an int status from NS_STATUS_MAP
 * (0 = NS_OK, negative = failure) and, for failures caused by user input,
 * fills a struct diag with the location and text of the first error.  The
 * message printed to the user always has the form
 *
 *     file:line:col: error: message
 *
 * (line and column 1-based; "file: error: message" when no position is
 * known).  The status table is the one place that maps statuses to names,
 * messages and process exit codes (libuv's UV_ERRNO_MAP idea): bad input or
 * usage exits 2, runtime failures exit 1.
 *
 * Invariants: a struct diag holds at most one error (the first one set
 * wins, later ones are ignored, so a failing parser reports the root cause
 * rather than its consequences).  No function in this module allocates.
 */
#ifndef NUMASIM_DIAG_H
#define NUMASIM_DIAG_H

#include <stdarg.h>
#include <stdio.h>

/* X(name, value, exit status, message) */
#define NS_STATUS_MAP(X)                                                       \
	X(OK, 0, 0, "success")                                                 \
	X(EINPUT, -1, 2, "invalid input")                                      \
	X(EUSAGE, -2, 2, "invalid command-line usage")                         \
	X(ENOMEM, -3, 1, "out of memory")                                      \
	X(EIO, -4, 1, "input/output error")                                    \
	X(EDB, -5, 1, "database error")                                        \
	X(ERANGE, -6, 2, "value out of range")                                 \
	X(ENOENT, -7, 2, "no such file or directory")                          \
	X(EINTERNAL, -8, 1, "internal error (invariant violated)")

enum ns_status {
#define NS_STATUS_ENUM(name, val, exitc, msg) NS_##name = (val),
	NS_STATUS_MAP(NS_STATUS_ENUM)
#undef NS_STATUS_ENUM
};

/* Name ("EINPUT") and message of a status; "unknown" for foreign values. */
const char *ns_status_name(int status);
const char *ns_status_msg(int status);
/* Process exit status for a status: 0, 1 (runtime) or 2 (input/usage). */
int ns_status_exit(int status);
/*
 * The status of a failure to create, open or write a path the user named
 * (an output file, a database), from its errno: the path itself is wrong
 * (no such directory, not a directory, permission denied, read-only file
 * system, name too long) -> NS_ENOENT or NS_EINPUT (exit 2: the user must
 * name another path); anything else (disk full, I/O error) -> NS_EIO or
 * NS_ENOMEM (exit 1).  Every command maps such errors through this one
 * function, so run --db, import -o, export -o and plot -o agree.
 */
int ns_status_from_errno(int err);

#define DIAG_FILE_MAX 512
#define DIAG_MSG_MAX 1024

struct diag {
	int status;            /* NS_OK while no error was recorded */
	int line, col;         /* 1-based; 0 when unknown */
	char file[DIAG_FILE_MAX];
	char msg[DIAG_MSG_MAX];
};

void diag_init(struct diag *d);
/*
 * Record an error at file:line:col (line/col 1-based, 0 = unknown) unless
 * one is already recorded.  Returns the status recorded in d (so callers can
 * write `return diag_set(d, NS_EINPUT, ...)`).  d may be NULL.
 */
int diag_set(struct diag *d, int status, const char *file, int line, int col,
	     const char *fmt, ...) __attribute__((format(printf, 6, 7)));
int diag_vset(struct diag *d, int status, const char *file, int line, int col,
	      const char *fmt, va_list ap);
/* Print "file:line:col: error: msg\n" (or the status message) to f. */
void diag_print(const struct diag *d, FILE *f);

#endif
