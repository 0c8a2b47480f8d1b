/*
 * markup — the one escaping layer of every HTML and SVG writer (flame.c,
 * html_report.c, plot_render.c): text from a database, a sweep value or a
 * file name goes into a page or an SVG only through markup_write or
 * markup_puts.
 *
 * What it writes: the bytes of s with `&`, `<`, `>` and `"` as the entity
 * references &amp; &lt; &gt; &quot;, so the result is safe as element text
 * and inside a double-quoted attribute value, in HTML and in XML (SVG); no
 * `<script`, `</svg>` or `]]>` can come out of it.  Every byte that does
 * not start a well-formed UTF-8 sequence (RFC 3629: no overlong forms, no
 * surrogates, at most U+10FFFF, base/json.h's rule) and every control
 * character XML 1.0 does not allow (U+0000..U+001F but tab, line feed and
 * carriage return) becomes U+FFFD, the replacement character, so an SVG is
 * always well-formed XML whatever the input.  markup_write stops at a NUL
 * byte or after len bytes; a sequence cut by len is replaced like any
 * other ill-formed one.  NULL is written as nothing.
 *
 * Invariants: the output is a pure function of the input; text without
 * the four characters, controls and ill-formed bytes passes unchanged.
 *
 * Error policy: no allocation; write errors stay in the stream (ferror).
 */
#ifndef NUMASIM_MARKUP_H
#define NUMASIM_MARKUP_H

#include <stddef.h>
#include <stdio.h>

/* At most len bytes of s (up to a NUL), escaped. */
void markup_write(FILE *f, const char *s, size_t len);

/* All of s, escaped; NULL writes nothing. */
void markup_puts(FILE *f, const char *s);

/*
 * For a terminal: len bytes of s with every control character but tab and
 * line feed (ESC, CR, BS, BEL, DEL, and the C1 controls U+0080..U+009F)
 * shown as a visible escape "\x1b" instead of acted on, and every
 * ill-formed UTF-8 byte as U+FFFD: text from a database cannot move the
 * cursor, retitle the window or rewrite what is on the screen.
 */
void markup_terminal_write(FILE *f, const char *s, size_t len);

#endif
