/* cli — shared helpers of the subcommands; see cli.h. */
#include "cli/cli.h"

#include <malloc.h>

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/*
 * The mode a new output file gets: an existing regular file's own mode
 * (replacing it must not change who may read it), else 0666 & ~umask as
 * open(2) would give.  umask() can only be read by setting it, so it is
 * set back at once (commands write their outputs from one thread).
 */
static mode_t output_mode(const char *path)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		return st.st_mode & 07777;
	mode_t mask = umask(022);
	umask(mask);
	return 0666 & ~mask;
}

/* "path: error: <what>: <errno text>"; the status by ns_status_from_errno. */
static int output_error(const char *path, const char *what, int err)
{
	fprintf(stderr, "%s: error: %s: %s\n", path, what, strerror(err));
	return ns_status_from_errno(err);
}

static int write_all(int fd, const char *buf, size_t len)
{
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, buf + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		off += (size_t)w;
	}
	return 0;
}

int cli_output_temp(const char *path, const char *suffix, char **tmp, int *fd)
{
	size_t n = strlen(path) + strlen(suffix) + 16;
	*tmp = malloc(n);
	if (!*tmp)
		return NS_ENOMEM;
	snprintf(*tmp, n, "%s.tmpXXXXXX%s", path, suffix);
	mode_t mode = output_mode(path);
	*fd = mkstemps(*tmp, (int)strlen(suffix));
	int err = *fd < 0 ? errno : 0;
	/* mkstemp creates 0600; the file gets its final mode before it has
	 * a name anyone else sees. */
	if (!err && fchmod(*fd, mode) != 0) {
		err = errno;
		close(*fd);
		unlink(*tmp);
	}
	if (!err)
		return NS_OK;
	free(*tmp);
	*tmp = NULL;
	*fd = -1;
	return output_error(path, "cannot create output file", err);
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
	char *tmp;
	int fd;
	int rc = cli_output_temp(path, "", &tmp, &fd);
	if (rc)
		return rc;
	int err = 0;
	if (write_all(fd, buf, len) != 0 || fsync(fd) != 0)
		err = errno;
	if (close(fd) != 0 && !err)
		err = errno;
	if (!err && rename(tmp, path) != 0)
		err = errno;
	if (err) {
		rc = output_error(path, "cannot write output file", err);
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
