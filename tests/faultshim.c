/*
 * faultshim — an LD_PRELOAD library for the I/O fault-injection test
 * (tests/cli/fault-injection.sh, issue 18 item 5), in the manner of
 * SQLite's own test VFS: it fails the Nth write (write, pwrite, pwrite64,
 * writev, pwritev) or the Nth sync (fsync, fdatasync) on files whose path
 * contains FAULT_PATH, so every such call of a small run can be failed in
 * turn.  Test code only; numasim never links it.
 *
 * Environment:
 *   FAULT_PATH   substring of the paths that count (the database name, so
 *                its -wal and -journal count too; standard output never)
 *   FAULT_OP     "write" or "sync": which calls count
 *   FAULT_N      fail the Nth counted call (1-based); 0 = fail none
 *   FAULT_ERRNO  "ENOSPC" (default) or "EIO"
 *   FAULT_STICKY "1": every call after the Nth fails too (a full disk
 *                stays full); otherwise only the Nth fails
 *   FAULT_COUNT  a file that gets, at exit, the number of counted calls
 *                (the test runs once with FAULT_N=0 to learn the range)
 *
 * Counting is atomic, so a --jobs run counts every thread's calls.  The
 * path of an fd is read from /proc/self/fd at each call: slow, and
 * irrelevant for runs of a few hundred writes.
 */
/* pwrite and pwrite64 are both wrapped: the build's -D_FILE_OFFSET_BITS=64
 * would make the first an alias of the second. */
#undef _FILE_OFFSET_BITS
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static long counted;

enum op { OP_WRITE, OP_SYNC };

/* Whether fd names a file under test. */
static int watched(int fd)
{
	const char *want = getenv("FAULT_PATH");
	char link[64], path[PATH_MAX];
	if (!want || !*want)
		return 0;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof path - 1);
	if (n <= 0)
		return 0;
	path[n] = '\0';
	return strstr(path, want) != NULL;
}

/* 1 when this call must fail (errno set). */
static int fault(int fd, enum op op)
{
	const char *o = getenv("FAULT_OP");
	if (!o || strcmp(o, op == OP_WRITE ? "write" : "sync") || !watched(fd))
		return 0;
	long n = __atomic_add_fetch(&counted, 1, __ATOMIC_SEQ_CST);
	const char *ns = getenv("FAULT_N"), *sticky = getenv("FAULT_STICKY");
	long at = ns ? atol(ns) : 0;
	if (at <= 0 || n < at || (n > at && !(sticky && !strcmp(sticky, "1"))))
		return 0;
	const char *e = getenv("FAULT_ERRNO");
	errno = e && !strcmp(e, "EIO") ? EIO : ENOSPC;
	return 1;
}

__attribute__((destructor)) static void report(void)
{
	const char *f = getenv("FAULT_COUNT");
	FILE *out = f && *f ? fopen(f, "w") : NULL;
	if (out) {
		fprintf(out, "%ld\n", __atomic_load_n(&counted, __ATOMIC_SEQ_CST));
		fclose(out);
	}
}

/* __extension__: ISO C has no object-to-function pointer conversion, POSIX
 * dlsym needs one. */
#define NEXT(name) (__extension__(__typeof__(&name))dlsym(RTLD_NEXT, #name))

ssize_t write(int fd, const void *buf, size_t len)
{
	if (fault(fd, OP_WRITE))
		return -1;
	return NEXT(write)(fd, buf, len);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	if (fault(fd, OP_WRITE))
		return -1;
	return NEXT(pwrite)(fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off64_t off)
{
	if (fault(fd, OP_WRITE))
		return -1;
	return NEXT(pwrite64)(fd, buf, len, off);
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
	if (fault(fd, OP_WRITE))
		return -1;
	return NEXT(writev)(fd, iov, n);
}

ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
	if (fault(fd, OP_WRITE))
		return -1;
	return NEXT(pwritev)(fd, iov, n, off);
}

int fsync(int fd)
{
	if (fault(fd, OP_SYNC))
		return -1;
	return NEXT(fsync)(fd);
}

int fdatasync(int fd)
{
	if (fault(fd, OP_SYNC))
		return -1;
	return NEXT(fdatasync)(fd);
}
