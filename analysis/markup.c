/*
 * markup — HTML and XML escaping (see markup.h).  One pass over the bytes:
 * ASCII through a switch, a lead byte through json_utf8_len, anything
 * else as U+FFFD.
 */
#include "analysis/markup.h"

#include "base/json.h"

#include <string.h>

static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD */

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
			size_t n = json_utf8_len(p + i, len - i);
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
			size_t n = json_utf8_len(p + i, len - i);
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
