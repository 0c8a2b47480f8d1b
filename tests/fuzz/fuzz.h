/*
 * fuzz — helpers shared by the libFuzzer targets of tests/fuzz/ (issue 18):
 * a scratch directory per fuzzing process, the input split into a file
 * and option lines, and the failure that tells libFuzzer a loaded object
 * broke its invariants.
 *
 * The targets feed one loader each with the input and run the loaded
 * object's *_check() invariant walker; a loader may refuse the input
 * (that is the point: a clear message, exit 2) but must never crash, leak
 * or hit undefined behaviour, and what it accepts must pass its check.
 * A check failing on an accepted input aborts(), which libFuzzer reports
 * as a crash with the input saved.  Everything here is test code: the
 * file is included by each target (one translation unit per target), so
 * its functions are static inline.
 */
#ifndef NUMASIM_FUZZ_H
#define NUMASIM_FUZZ_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"

/* The invariant walker refused what the loader accepted: a real bug. */
static inline void fuzz_check_failed(const char *what, const struct diag *d)
{
	fprintf(stderr, "fuzz: %s accepted an input its check refuses:\n", what);
	diag_print(d, stderr);
	abort();
}

/*
 * The loaders print nothing themselves, but the commands the database
 * target runs print tables: standard output goes to /dev/null (the run
 * script also passes -close_fd_mask so their errors do not flood the log).
 */
static inline void fuzz_quiet_stdout(void)
{
	FILE *f = freopen("/dev/null", "w", stdout);
	(void)f;
}

/* A scratch directory of this process, made once (mkdtemp under TMPDIR). */
static inline const char *fuzz_scratch(void)
{
	static char dir[256];
	if (!dir[0]) {
		const char *t = getenv("TMPDIR");
		snprintf(dir, sizeof dir, "%s/numasim-fuzz-XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(dir))
			abort();
	}
	return dir;
}

/*
 * Split data at the first line that is exactly "%%": the file before it
 * (*file, *file_len; not NUL-terminated) and the option text after it
 * (*opts, *opts_len; empty when there is no such line).
 */
static inline void fuzz_split(const char *data, size_t size, const char **file, size_t *file_len,
		       const char **opts, size_t *opts_len)
{
	*file = data;
	*file_len = size;
	*opts = data + size;
	*opts_len = 0;
	for (size_t i = 0; i + 2 <= size; i++) {
		if ((i == 0 || data[i - 1] == '\n') && data[i] == '%' && data[i + 1] == '%' &&
		    (i + 2 == size || data[i + 2] == '\n')) {
			*file_len = i;
			*opts = data + (i + 2 < size ? i + 3 : size);
			*opts_len = (size_t)(data + size - *opts);
			return;
		}
	}
}

#endif
