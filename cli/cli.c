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

/* "path: error: <what>: <errno text>"; the status by ns_status_from_errno. */
static int output_error(const char *path, const char *what, int err)
{
	fprintf(stderr, "%s: error: %s: %s\n", path, what, strerror(err));
	return ns_status_from_errno(err);
}

/* What st is, for the message refusing it. */
static const char *file_type(const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		return "a directory";
	if (S_ISCHR(st->st_mode))
		return "a character device";
	if (S_ISBLK(st->st_mode))
		return "a block device";
	if (S_ISFIFO(st->st_mode))
		return "a FIFO";
	if (S_ISSOCK(st->st_mode))
		return "a socket";
	return "not a regular file";
}

/*
 * Where an output named path really goes, and the mode and owner it gets
 * (cli.h, "Output files").  A missing path is created; a regular file is
 * replaced, keeping its mode (and owner, where this process may set it);
 * a symbolic link is followed, so the file it points to is replaced and
 * the link stays a link (a link to a missing file is refused: following
 * it would create a file at a place the user did not name); anything
 * else (device, FIFO, socket, directory) is refused, exit 2, because
 * renaming over it would destroy it (`-o /dev/null` as root).  A new
 * file's mode is 0666 & ~umask as open(2) would give; umask() can only
 * be read by setting it, so it is set back at once (commands write their
 * outputs from one thread).  *target is malloc'ed; on failure it is NULL
 * and the error is printed.
 */
static int output_target(const char *path, char **target, struct stat *st,
			 int *exists)
{
	*target = NULL;
	*exists = 0;
	if (!path[0]) {
		fprintf(stderr, "numasim: error: an output file name is empty\n");
		return NS_EUSAGE;
	}
	if (lstat(path, st) != 0) {
		if (errno != ENOENT)
			return output_error(path, "cannot create output file", errno);
		mode_t mask = umask(022);
		umask(mask);
		memset(st, 0, sizeof *st);
		st->st_mode = S_IFREG | (0666 & ~mask);
		*target = strdup(path);
		return *target ? NS_OK : NS_ENOMEM;
	}
	if (S_ISLNK(st->st_mode)) {
		*target = realpath(path, NULL);
		if (!*target && errno == ENOENT) {
			fprintf(stderr, "%s: error: cannot write output file: it is a "
				"symbolic link to a missing file\n", path);
			return NS_EINPUT;
		}
		if (!*target || stat(*target, st) != 0) {
			int err = errno;
			free(*target);
			*target = NULL;
			return output_error(path, "cannot write output file", err);
		}
	} else if (!(*target = strdup(path))) {
		return NS_ENOMEM;
	}
	if (!S_ISREG(st->st_mode)) {
		fprintf(stderr, "%s: error: cannot write output file: it is %s "
			"(numasim writes or replaces regular files only)\n", path,
			file_type(st));
		free(*target);
		*target = NULL;
		return NS_EINPUT;
	}
	*exists = 1;
	return NS_OK;
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

/* Give fd the owner of the file it replaces, where this process may (as
 * root); otherwise the new file is the caller's, as any editor's would be. */
static void keep_owner(int fd, const struct stat *st)
{
	if (fchown(fd, st->st_uid, st->st_gid) != 0) {
		/* not permitted: keep the caller as owner */
	}
}

int cli_output_temp(const char *path, const char *suffix, char **tmp, int *fd)
{
	char *target = NULL;
	struct stat st;
	int exists, err = 0;
	*tmp = NULL;
	*fd = -1;
	int rc = output_target(path, &target, &st, &exists);
	if (rc)
		return rc;
	/* target + ".tmp" + mkstemps()'s six-letter template + suffix, joined
	 * with memcpy: gcc -O1 with the sanitizers took snprintf's %s of
	 * target for a null pointer */
	static const char tmpl[] = ".tmpXXXXXX";
	size_t lt = strlen(target), lx = sizeof tmpl - 1, ls = strlen(suffix);
	if (!(*tmp = malloc(lt + lx + ls + 1))) {
		free(target);
		return NS_ENOMEM;
	}
	memcpy(*tmp, target, lt);
	memcpy(*tmp + lt, tmpl, lx);
	memcpy(*tmp + lt + lx, suffix, ls + 1);
	free(target);
	*fd = mkstemps(*tmp, (int)strlen(suffix));
	if (*fd < 0)
		err = errno;
	/* mkstemp creates 0600; the file gets its final mode (and, replacing
	 * a file, its owner) before it has a name anyone else sees. */
	if (!err && exists && (st.st_uid != geteuid() || st.st_gid != getegid()))
		keep_owner(*fd, &st);
	if (!err && fchmod(*fd, st.st_mode & 07777) != 0) {
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

int cli_output_rename(const char *tmp, const char *path)
{
	char *target = NULL;
	struct stat st;
	int exists;
	/* Resolved again: what is at path now, not what was there when the
	 * temporary file was made, is what the rename replaces. */
	int rc = output_target(path, &target, &st, &exists);
	if (rc == NS_OK && rename(tmp, target) != 0)
		rc = output_error(path, "cannot write output file", errno);
	if (rc)
		unlink(tmp);
	free(target);
	return rc;
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
	if (err) {
		rc = output_error(path, "cannot write output file", err);
		unlink(tmp);
	} else {
		rc = cli_output_rename(tmp, path);
	}
	free(tmp);
	return rc;
}

/*
 * A world is built and torn down for every run (and for every point by
 * the preflight).  With glibc's default thresholds its cache-model arrays
 * (megabytes each) are mmap'ed or trimmed back to the kernel at every
 * free and faulted in again at the next build, which cost more than a
 * short run itself (3-4x the wall time of a sweep, docs/guide/running.md):
 * keep freed memory in the heap instead.
 */
void cli_keep_freed_memory(void)
{
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
}
