/*
 * term — the filtering stream of term.h, a glibc cookie stream (the
 * simplest way to put a function between printf and a file descriptor).
 */
#define _GNU_SOURCE
#include "cli/term.h"

#include <string.h>
#include <unistd.h>

#include "analysis/markup.h"

/* How many bytes a UTF-8 sequence starting with c has (1 if c is not a
 * lead byte: it is written, or replaced, on its own). */
static size_t lead_len(unsigned char c)
{
	return c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
	       : c >= 0xf0 && c <= 0xf4 ? 4 : 1;
}

/* The length of the tail of b[0..n) that is the start of a UTF-8
 * sequence still missing bytes (0 if there is none). */
static size_t cut_tail(const unsigned char *b, size_t n)
{
	for (size_t k = 1; k <= 3 && k <= n; k++) {
		unsigned char c = b[n - k];
		if ((c & 0xc0) == 0x80)
			continue;                       /* a continuation byte */
		return lead_len(c) > k ? k : 0;
	}
	return 0;
}

static ssize_t term_write(void *cookie, const char *buf, size_t size)
{
	struct term *t = cookie;
	size_t used = 0;
	if (t->ncarry) {                /* finish the held-back sequence first */
		size_t need = lead_len(t->carry[0]);
		while (t->ncarry < need && used < size &&
		       ((unsigned char)buf[used] & 0xc0) == 0x80)
			t->carry[t->ncarry++] = (unsigned char)buf[used++];
		if (t->ncarry < need && used == size)
			return (ssize_t)size;   /* still cut: wait for more */
		markup_terminal_write(t->out, (const char *)t->carry, t->ncarry);
		t->ncarry = 0;
	}
	size_t rest = size - used;
	size_t tail = cut_tail((const unsigned char *)buf + used, rest);
	markup_terminal_write(t->out, buf + used, rest - tail);
	memcpy(t->carry, buf + size - tail, tail);
	t->ncarry = tail;
	if (fflush(t->out) != 0)
		return -1;
	return (ssize_t)size;
}

static int term_close(void *cookie)
{
	struct term *t = cookie;
	if (t->ncarry)
		markup_terminal_write(t->out, (const char *)t->carry, t->ncarry);
	int rc = fclose(t->out);
	t->out = NULL;
	return rc;
}

/* *stream, writing to fd, replaced by a filtering stream over t if fd is
 * a terminal; *saved keeps the stream it replaced. */
static void filter_one(FILE **stream, FILE **saved, struct term *t, int fd,
		       int mode)
{
	if (!isatty(fd))
		return;
	int dupfd = dup(fd);
	FILE *out = dupfd < 0 ? NULL : fdopen(dupfd, "w");
	*t = (struct term){.out = out};
	FILE *f = out ? fopencookie(t, "w", (cookie_io_functions_t){
		.write = term_write, .close = term_close}) : NULL;
	if (!f) {
		if (out)
			fclose(out);
		else if (dupfd >= 0)
			close(dupfd);
		t->out = NULL;
		return;
	}
	setvbuf(f, NULL, mode, BUFSIZ);
	fflush(*stream);
	*saved = *stream;
	*stream = f;
}

void term_filter(struct term_streams *ts)
{
	*ts = (struct term_streams){0};
	filter_one(&stdout, &ts->saved_stdout, &ts->out, STDOUT_FILENO, _IOLBF);
	filter_one(&stderr, &ts->saved_stderr, &ts->err, STDERR_FILENO, _IONBF);
}

/* Close the filtering stream *stream if it is one and put back saved. */
static int restore_one(FILE **stream, FILE *saved)
{
	if (!saved)
		return 0;
	FILE *f = *stream;
	*stream = saved;
	return fclose(f);
}

int term_restore(struct term_streams *ts)
{
	int rc = restore_one(&stdout, ts->saved_stdout);
	if (restore_one(&stderr, ts->saved_stderr) != 0)
		rc = EOF;
	*ts = (struct term_streams){0};
	return rc;
}
