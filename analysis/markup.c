/*
 * markup — HTML and XML escaping (see markup.h).  One pass over the bytes:
 * ASCII through a switch, a lead byte through markup_utf8_len, anything
 * else as U+FFFD.
 */
#include "analysis/markup.h"

#include <string.h>

static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD */

size_t markup_utf8_len(const unsigned char *p, size_t n)
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

void markup_write(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	if (!p)
		return;
	for (size_t i = 0; i < len && p[i];) {
		unsigned char c = p[i];
		switch (c) {
		case '<': fputs("&lt;", f); i++; continue;
		case '>': fputs("&gt;", f); i++; continue;
		case '&': fputs("&amp;", f); i++; continue;
		case '"': fputs("&quot;", f); i++; continue;
		case '\t': case '\n': case '\r': fputc(c, f); i++; continue;
		default: break;
		}
		if (c < 0x20 || c == 0x7f) {
			fputs(replacement, f);
			i++;
		} else if (c < 0x80) {
			fputc(c, f);
			i++;
		} else {
			size_t n = markup_utf8_len(p + i, len - i);
			if (n) {
				fwrite(p + i, 1, n, f);
				i += n;
			} else {
				fputs(replacement, f);
				i++;
			}
		}
	}
}

void markup_puts(FILE *f, const char *s)
{
	if (s)
		markup_write(f, s, strlen(s));
}

void markup_terminal_write(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		unsigned char c = p[i];
		if (c == '\t' || c == '\n' || (c >= 0x20 && c < 0x7f)) {
			fputc(c, f);
			i++;
		} else if (c < 0x80) {
			fprintf(f, "\\x%02x", c);
			i++;
		} else {
			size_t n = markup_utf8_len(p + i, len - i);
			if (n == 2 && c == 0xc2 && p[i + 1] < 0xa0)
				fprintf(f, "\\u%04x", p[i + 1]);   /* a C1 control */
			else if (n)
				fwrite(p + i, 1, n, f);
			else
				fputs(replacement, f);
			i += n ? n : 1;
		}
	}
}
