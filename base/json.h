/*
 * json — JSON string literals for numasim's machine-readable output
 * (`numasim trace --format jsonl`, and any command that writes JSON).
 *
 * What it does: writes a C string as a JSON string literal (RFC 8259 §7)
 * with the quotes around it.  `"` and `\` are backslash-escaped; \b \f \n
 * \r \t use their short forms; every other control character (U+0000 ..
 * U+001F) and DEL are written as \u00XX.  Well-formed UTF-8 sequences
 * (RFC 3629: no overlong forms, no surrogates, at most U+10FFFF) pass
 * through unchanged; every byte that does not start a well-formed sequence
 * becomes \ufffd (the replacement character), so the output is always
 * valid UTF-8 and valid JSON whatever the input bytes (names read from
 * user files, for instance).  NULL is written as "".
 *
 * Invariants: json_escape and json_write_string produce the same bytes;
 * the output is a pure function of the input.
 *
 * Error policy: no allocation.  json_escape truncates like snprintf and
 * returns the full length; json_write_string returns 0, or EOF when the
 * stream reported a write error.
 */
#ifndef NUMASIM_JSON_H
#define NUMASIM_JSON_H

#include <stddef.h>
#include <stdio.h>

/* Writes the literal (quotes included) of s into buf (at most cap bytes,
 * NUL-terminated when cap > 0); returns its length without the NUL. */
size_t json_escape(char *buf, size_t cap, const char *s);

/* Length of the well-formed UTF-8 sequence (2..4 bytes) that starts at p,
 * reading at most n bytes; 0 when there is none (overlong forms,
 * surrogates and code points above U+10FFFF are not well formed).  The
 * one UTF-8 check of the project: JSON, HTML/SVG and terminal output use it. */
size_t json_utf8_len(const unsigned char *p, size_t n);

/* Writes the literal (quotes included) of s to f. */
int json_write_string(FILE *f, const char *s);

#endif
