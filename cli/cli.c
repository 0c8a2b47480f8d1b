/* cli — shared helpers of the subcommands; see cli.h. */
#include "cli/cli.h"

#include <malloc.h>

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"

int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "numasim %s: error: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: %s\n", usage);
	return 2;
}

/*
 * Optimal string alignment distance (Levenshtein plus the transposition
 * of two neighbours, the commonest typo: "rnu" is one step from "run").
 * Names longer than the buffer are never near anything.
 */
#define NEAR_MAX 64

static int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int d[NEAR_MAX + 1][NEAR_MAX + 1];
	if (la > NEAR_MAX || lb > NEAR_MAX)
		return NEAR_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			int cost = a[i - 1] != b[j - 1];
			int v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

const char *cli_nearest(const char *name, const char *const *known, size_t n)
{
	char core[NEAR_MAX + 1];
	/* "--jbos=2" is compared as "--jbos"; dashes count like letters */
	snprintf(core, sizeof core, "%.*s", (int)strcspn(name, "="), name);
	size_t letters = strlen(core) - strspn(core, "-");
	int limit = letters < 3 ? 1 : (int)(letters + 2) / 3;
	const char *best = NULL;
	int best_d = limit + 1;
	for (size_t i = 0; i < n; i++) {
		int dist = edit_distance(core, known[i]);
		if (dist < best_d) {
			best_d = dist;
			best = known[i];
		}
	}
	return best;
}

int cli_unknown(const char *prog, const char *what, const char *name,
		const char *const *known, size_t n, const char *help)
{
	const char *near = cli_nearest(name, known, n);
	if (near)
		fprintf(stderr, "%s: error: unknown %s '%s' (did you mean '%s'?)\n", prog,
			what, name, near);
	else
		fprintf(stderr, "%s: error: unknown %s '%s' (see '%s')\n", prog, what,
			name, help);
	return 2;
}

int cli_unknown_option(const char *cmd, const char *opt, const char *const *known,
		       size_t n)
{
	char prog[64], help[80];
	snprintf(prog, sizeof prog, "numasim %s", cmd);
	snprintf(help, sizeof help, "numasim %s --help", cmd);
	return cli_unknown(prog, "option", opt, known, n, help);
}

int cli_parse_long(const char *cmd, const char *opt, const char *arg,
		   long long min, long long max, long long *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end != '\0' || v < min || v > max) {
		fprintf(stderr,
			"numasim %s: error: %s takes a whole number from %lld to %lld, not '%s'\n",
			cmd, opt, min, max, arg);
		return NS_EUSAGE;
	}
	*out = v;
	return NS_OK;
}

char *cli_join_args(int argc, char **argv)
{
	size_t len = strlen("numasim") + 1;
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char *s = malloc(len);
	if (!s)
		return NULL;
	strcpy(s, "numasim");
	for (int i = 0; i < argc; i++) {
		strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

int cli_write_file_atomic(const char *path, const char *buf, size_t len)
{
	if (strcmp(path, "-") == 0) {
		if (fwrite(buf, 1, len, stdout) != len || fflush(stdout) != 0) {
			fprintf(stderr, "numasim: error: writing standard output: %s\n",
				strerror(errno));
			return NS_EIO;
		}
		return NS_OK;
	}
	size_t plen = strlen(path);
	char *tmp = malloc(plen + 16);
	if (!tmp)
		return NS_ENOMEM;
	snprintf(tmp, plen + 16, "%s.tmpXXXXXX", path);
	int fd = mkstemp(tmp);
	int rc = NS_OK;
	if (fd < 0) {
		fprintf(stderr, "%s: error: cannot create output file: %s\n", path,
			strerror(errno));
		free(tmp);
		return NS_EIO;
	}
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, buf + off, len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			rc = NS_EIO;
			break;
		}
		off += (size_t)w;
	}
	if (rc == NS_OK && fsync(fd) != 0)
		rc = NS_EIO;
	if (close(fd) != 0)
		rc = NS_EIO;
	if (rc == NS_OK && rename(tmp, path) != 0)
		rc = NS_EIO;
	if (rc != NS_OK) {
		fprintf(stderr, "%s: error: cannot write output file: %s\n", path,
			strerror(errno));
		unlink(tmp);
	}
	free(tmp);
	return rc;
}

/*
 * A world is built and torn down for every run (and for every point by
 * the preflight).  With glibc's default thresholds its cache-model arrays
 * (megabytes each) are mmap'ed or trimmed back to the kernel at every
 * free and faulted in again at the next build, which cost more than a
 * short run itself (3-4x the wall time of a sweep, docs/running.md):
 * keep freed memory in the heap instead.
 */
void cli_keep_freed_memory(void)
{
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
}
