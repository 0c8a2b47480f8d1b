/*
 * term — standard output and standard error on a terminal show the
 * control characters a command prints instead of acting on them.
 *
 * Text from a results database (a workload, variant or function name, a
 * query's cell, a stored description) can hold ESC, CR, BS, BEL, DEL or
 * the C1 controls.  Printed raw on a terminal they move the cursor,
 * retitle the window or rewrite what is already on the screen.  When a
 * stream is a terminal, term_filter() replaces it by one that passes every
 * byte through markup_terminal_write() (analysis/markup.h: "\x1b" is
 * shown, ill-formed UTF-8 becomes U+FFFD), so every reader command gets
 * this from one place, whatever function it prints with.  A stream that
 * is a file or a pipe is left alone: what is written there is the data.
 *
 * A UTF-8 sequence cut between two writes is held back (at most three
 * bytes) and joined with the next write, so a well-formed character is
 * never replaced because of where the buffer ended.
 *
 * The state lives in a struct term_streams the caller owns (main's
 * frame), which must outlive every write: term_restore() closes the
 * filtering streams, flushing them, and puts the original ones back
 * before that frame ends.
 *
 * Error policy: if the replacement stream cannot be made the stream is
 * left as it was (the output is then unfiltered, not lost); write errors
 * of the terminal are kept in the stream (ferror) as for any FILE.
 */
#ifndef NUMASIM_TERM_H
#define NUMASIM_TERM_H

#include <stdio.h>

/* One filtering stream's state (private to term.c). */
struct term {
	FILE *out;                      /* the terminal, a FILE of its own */
	unsigned char carry[4];         /* the cut start of a UTF-8 sequence */
	size_t ncarry;
};

struct term_streams {
	struct term out, err;
	FILE *saved_stdout, *saved_stderr;  /* NULL: that stream not replaced */
};

/* If fd 1 (2) is a terminal, make stdout (stderr) a filtering stream
 * whose state is in *ts. */
void term_filter(struct term_streams *ts);

/* Flush and close the filtering streams of *ts and put the original
 * stdout and stderr back; 0, or EOF if a final write failed. */
int term_restore(struct term_streams *ts);

#endif
