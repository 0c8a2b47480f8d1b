/*
 * json — see json.h.  Both entry points walk the input one character at a
 * time through next_piece(), which yields the bytes to emit for it.
 */
#include "base/json.h"

#include <string.h>

size_t json_utf8_len(const unsigned char *p, size_t n)
{
	unsigned char c = p[0];
	size_t len;
	unsigned lo = 0x80, hi = 0xbf;   /* allowed range of the second byte */

	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;           /* overlong */
		else if (c == 0xed)
			hi = 0x9f;           /* surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;           /* overlong */
		else if (c == 0xf4)
			hi = 0x8f;           /* above U+10FFFF */
	} else
		return 0;
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

/* The output for the character at p: into out (at most 6 bytes, not
 * NUL-terminated), its length in *len; returns the input bytes used. */
static size_t next_piece(const unsigned char *p, char out[6], size_t *len)
{
	static const char hex[] = "0123456789abcdef";
	static const char shortc[] = "\b\f\n\r\t";
	static const char shortn[] = "bfnrt";
	unsigned char c = *p;

	if (c == '"' || c == '\\') {
		out[0] = '\\';
		out[1] = (char)c;
		*len = 2;
		return 1;
	}
	if (c < 0x20 || c == 0x7f) {
		const char *s = c ? strchr(shortc, c) : NULL;
		out[0] = '\\';
		if (s) {
			out[1] = shortn[s - shortc];
			*len = 2;
		} else {
			memcpy(out + 1, "u00", 3);
			out[4] = hex[c >> 4];
			out[5] = hex[c & 15];
			*len = 6;
		}
		return 1;
	}
	if (c < 0x80) {
		out[0] = (char)c;
		*len = 1;
		return 1;
	}
	size_t n = json_utf8_len(p, 4);   /* p is NUL-terminated: a NUL ends it */
	if (n) {
		memcpy(out, p, n);
		*len = n;
		return n;
	}
	memcpy(out, "\\ufffd", 6);
	*len = 6;
	return 1;
}

size_t json_escape(char *buf, size_t cap, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t at = 0;
	char piece[6];
	size_t len;

#define PUT(ch)                                                                \
	do {                                                                   \
		if (at + 1 < cap)                                              \
			buf[at] = (ch);                                        \
		at++;                                                          \
	} while (0)
	PUT('"');
	while (*p) {
		p += next_piece(p, piece, &len);
		for (size_t i = 0; i < len; i++)
			PUT(piece[i]);
	}
	PUT('"');
#undef PUT
	if (cap)
		buf[at < cap ? at : cap - 1] = '\0';
	return at;
}

int json_write_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char piece[6];
	size_t len;

	if (fputc('"', f) == EOF)
		return EOF;
	while (*p) {
		p += next_piece(p, piece, &len);
		if (fwrite(piece, 1, len, f) != len)
			return EOF;
	}
	return fputc('"', f) == EOF ? EOF : 0;
}
