/*
 * fuzz_markup — libFuzzer target of the HTML and SVG writers (issue 51,
 * item 7): the input is arbitrary bytes, cut at newlines into strings
 * that become the frames, run labels and title of a flame graph
 * (flame_svg), the title, axis labels, series names and categories of a
 * line and a bar chart (plot_svg), and text passed through
 * analysis/markup.h directly.  The oracle: what markup_write makes holds
 * none of < > " and no byte that is not well-formed UTF-8 or an XML 1.0
 * character; the SVGs are valid UTF-8, hold no control character XML
 * forbids, and no "<script", "<img", "]]>" or on* attribute came from the
 * data (their tags are the writers' own: every "<" starts one of them; a
 * flame graph's one script is its writer's flame_script, byte for byte).
 */
#include <stddef.h>
#include <stdint.h>

#include "analysis/flame.h"
#include "analysis/markup.h"
#include "base/json.h"
#include "analysis/plot.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *buf, size_t len)
{
	fprintf(stderr, "fuzz: %s in:\n%.*s\n", what, (int)(len > 2000 ? 2000 : len), buf);
	abort();
}

/* Well-formed UTF-8 and XML 1.0 characters only. */
static void utf8_xml_ok(const char *what, const char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)buf;
	for (size_t i = 0; i < len;) {
		if (p[i] < 0x80) {
			if (p[i] < 0x20 && p[i] != '\t' && p[i] != '\n' && p[i] != '\r')
				fail(what, buf, len);
			i++;
			continue;
		}
		size_t n = json_utf8_len(p + i, len - i);
		if (!n)
			fail(what, buf, len);
		i += n;
	}
}

/*
 * A flame graph holds one script, the writer's own (flame_script, which
 * has no "<" or "&"): exactly once, byte for byte, then cut out so that
 * tags_ok checks the rest.  Returns the new length.
 */
static size_t own_script_cut(char *buf, size_t len)
{
	static const char head[] = "<script type=\"text/ecmascript\" "
				   "id=\"numasim-flame-script\"><![CDATA[\n";
	static const char tail[] = "]]></script>\n";
	size_t nopen = strlen(head), nscript = strlen(flame_script), nclose = strlen(tail);
	size_t whole = nopen + nscript + nclose;
	char *at = NULL;
	for (size_t i = 0; i + whole <= len && !at; i++)
		if (!memcmp(buf + i, head, nopen))
			at = buf + i;
	if (!at || memcmp(at + nopen, flame_script, nscript) ||
	    memcmp(at + nopen + nscript, tail, nclose))
		fail("the flame graph's own script is missing or changed", buf, len);
	memmove(at, at + whole, len - (size_t)(at - buf) - whole);
	return len - whole;
}

/* Every tag is one the writers write. */
static void tags_ok(const char *what, const char *buf, size_t len)
{
	static const char *const tags[] = {"<?xml ", "<svg ", "</svg>", "<style>", "</style>",
		"<rect ", "<g ", "<g>", "</g>", "<title>", "</title>", "<text ", "</text>",
		"<line ", "<polyline ", "<circle ", "</circle>", "</rect>", "<path ", "<defs>",
		"</defs>"};
	for (size_t i = 0; i + 3 <= len; i++)
		if (!memcmp(buf + i, "]]>", 3))
			fail("]]> in an SVG", buf, len);
	for (const char *p = buf; (p = memchr(p, '<', len - (size_t)(p - buf))); p++) {
		size_t k, left = len - (size_t)(p - buf);
		for (k = 0; k < sizeof tags / sizeof *tags; k++)
			if (strlen(tags[k]) <= left && !memcmp(p, tags[k], strlen(tags[k])))
				break;
		if (k == sizeof tags / sizeof *tags)
			fail(what, p, left);
	}
	utf8_xml_ok(what, buf, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = malloc(size + 1), *buf = NULL;
	size_t len = 0;
	if (!in)
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	/* up to 16 NUL-terminated strings, cut at newlines */
	char *str[16];
	int ns = 0;
	for (char *p = in; ns < 16;) {
		str[ns++] = p;
		char *nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	for (int i = ns; i < 16; i++)
		str[i] = "";

	/* markup_write itself */
	FILE *m = open_memstream(&buf, &len);
	markup_write(m, (const char *)data, size);
	fclose(m);
	if (memchr(buf, '<', len) || memchr(buf, '>', len) || memchr(buf, '"', len))
		fail("markup_write left < > or \"", buf, len);
	utf8_xml_ok("markup_write", buf, len);
	free(buf);

	/* a differential flame graph of the strings as stacks */
	struct flame f;
	flame_init(&f);
	f.run_a = 1;
	f.run_b = size & 1 ? 2 : 0;
	snprintf(f.label_a, sizeof f.label_a, "%s", str[0]);
	snprintf(f.label_b, sizeof f.label_b, "%s", str[1]);
	snprintf(f.title, sizeof f.title, "%s", str[2]);
	f.s = calloc(8, sizeof *f.s);
	for (int i = 3; f.s && i < 11 && i < ns; i++) {
		if (!str[i][0] || strstr(str[i], ";;") || str[i][0] == ';' ||
		    str[i][strlen(str[i]) - 1] == ';')
			continue;
		f.s[f.nr] = (struct flame_stack){.stack = strdup(str[i]), .a = 100 + (uint64_t)i,
						 .b = f.run_b ? 50 + 7 * (uint64_t)i : 0};
		f.total_a += f.s[f.nr].a;
		f.total_b += f.s[f.nr].b;
		f.nr++;
		f.cap = 8;
	}
	buf = NULL;
	len = 0;
	m = open_memstream(&buf, &len);
	if (flame_svg(&f, 800, m) == NS_OK) {
		fclose(m);
		len = own_script_cut(buf, len);
		tags_ok("flame_svg", buf, len);
	} else {
		fclose(m);
	}
	free(buf);
	flame_free(&f);

	/* a line chart and a bar chart with the strings as text */
	for (int kind = 0; kind < 2; kind++) {
		struct plot p;
		plot_init(&p, kind ? PLOT_BAR : PLOT_LINE);
		snprintf(p.title, sizeof p.title, "%s", str[11]);
		snprintf(p.xlabel, sizeof p.xlabel, "%s", str[12]);
		snprintf(p.ylabel, sizeof p.ylabel, "%s", str[13]);
		p.nr_series = 2;
		p.series = calloc(2, sizeof *p.series);
		if (kind) {
			p.nr_cats = 2;
			p.cats = calloc(2, sizeof *p.cats);
			p.cats[0] = strdup(str[14]);
			p.cats[1] = strdup(str[15]);
		}
		for (int k = 0; k < 2; k++) {
			struct plot_series *s = &p.series[k];
			s->name = strdup(str[14 + k]);
			s->n = s->cap = 2;
			s->x = calloc(2, sizeof(double));
			s->y = calloc(2, sizeof(double));
			s->lo = calloc(2, sizeof(double));
			s->hi = calloc(2, sizeof(double));
			s->nobs = calloc(2, sizeof(double));
			for (int j = 0; j < 2; j++) {
				s->x[j] = kind ? j : 1 << j;
				s->y[j] = s->lo[j] = s->hi[j] = 10.0 + k + j;
				s->nobs[j] = 1;
			}
		}
		buf = NULL;
		len = 0;
		m = open_memstream(&buf, &len);
		struct plot_layout l;
		if (plot_check(&p) == NS_OK && plot_layout(&p, &l, NULL) == NS_OK &&
		    plot_svg(&p, m) == NS_OK) {
			fclose(m);
			tags_ok("plot_svg", buf, len);
		} else {
			fclose(m);
		}
		free(buf);
		plot_free(&p);
	}
	free(in);
	return 0;
}
