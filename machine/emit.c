/* emit — machine file writer; see emit.h. */
#include "machine/emit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/cpulist.h"
#include "base/diag.h"

void emit_buf_init(struct emit_buf *b)
{
	memset(b, 0, sizeof *b);
}

void emit_buf_free(struct emit_buf *b)
{
	free(b->data);
	emit_buf_init(b);
}

/* Make room for n more bytes plus the NUL; 0 on success. */
static int reserve(struct emit_buf *b, size_t n)
{
	if (b->oom)
		return -1;
	if (b->len + n + 1 <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + n + 1) {
		if (cap > SIZE_MAX / 2) {
			b->oom = 1;
			return -1;
		}
		cap *= 2;
	}
	char *p = realloc(b->data, cap);
	if (!p) {
		b->oom = 1;
		return -1;
	}
	b->data = p;
	b->cap = cap;
	return 0;
}

void emit_putn(struct emit_buf *b, const char *s, size_t n)
{
	if (reserve(b, n))
		return;
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void emit_puts(struct emit_buf *b, const char *s)
{
	emit_putn(b, s, strlen(s));
}

void emit_printf(struct emit_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void emit_quoted(struct emit_buf *b, const char *s)
{
	emit_putn(b, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': emit_puts(b, "\\\""); break;
		case '\\': emit_puts(b, "\\\\"); break;
		case '\n': emit_puts(b, "\\n"); break;
		case '\t': emit_puts(b, "\\t"); break;
		case '\r': emit_puts(b, "\\r"); break;
		default:
			/* Other C0 controls and DEL are not allowed raw in YAML. */
			if (*p < 0x20 || *p == 0x7f)
				emit_printf(b, "\\x%02x", *p);
			else
				emit_putn(b, (const char *)p, 1);
		}
	}
	emit_putn(b, "\"", 1);
}

void emit_size(struct emit_buf *b, uint64_t pages, uint32_t page_size)
{
	static const struct { const char *unit; unsigned shift; } units[] = {
		{"TiB", 40}, {"GiB", 30}, {"MiB", 20},
	};
	/* pages * page_size overflows only beyond 2^64 bytes; fall back to
	 * pages then (the loader accepts both). */
	if (pages <= UINT64_MAX / page_size) {
		uint64_t bytes = pages * page_size;
		for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
			uint64_t mask = ((uint64_t)1 << units[i].shift) - 1;
			if (bytes && !(bytes & mask)) {
				emit_printf(b, "%llu%s",
					    (unsigned long long)(bytes >> units[i].shift),
					    units[i].unit);
				return;
			}
		}
	}
	emit_printf(b, "%llu", (unsigned long long)pages);
}

void machine_desc_init(struct machine_desc *d)
{
	memset(d, 0, sizeof *d);
	d->page_size = 4096;
}

static void free_strv(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void machine_desc_free(struct machine_desc *d)
{
	free(d->name);
	free(d->description);
	free_strv(d->sources, d->nr_sources);
	free_strv(d->header, d->nr_header);
	for (int i = 0; i < d->nr_nodes; i++)
		free(d->nodes[i].cpus);
	free(d->nodes);
	free(d->distance);
	free(d->costs_text);
	free(d->costs_path);
	machine_desc_init(d);
}

static int strv_add(char ***v, int *n, const char *s)
{
	char *copy = strdup(s);
	char **nv = realloc(*v, (size_t)(*n + 1) * sizeof **v);
	if (!copy || !nv) {
		free(copy);
		if (nv)
			*v = nv;
		return NS_ENOMEM;
	}
	nv[(*n)++] = copy;
	*v = nv;
	return NS_OK;
}

int machine_desc_add_source(struct machine_desc *d, const char *s)
{
	return strv_add(&d->sources, &d->nr_sources, s);
}

int machine_desc_add_header(struct machine_desc *d, const char *s)
{
	return strv_add(&d->header, &d->nr_header, s);
}

static void emit_cpus(struct emit_buf *b, const struct desc_node *n)
{
	size_t need = cpulist_format(n->cpus, n->nr_cpus, NULL, 0) + 1;
	char *s = malloc(need);
	if (!s) {
		b->oom = 1;
		return;
	}
	cpulist_format(n->cpus, n->nr_cpus, s, need);
	emit_quoted(b, s);
	free(s);
}

static void emit_node(struct emit_buf *b, const struct desc_node *n,
		      uint32_t page_size)
{
	emit_printf(b, "  - id: %d\n    cpus: ", n->id);
	emit_cpus(b, n);
	if (n->has_free && n->nr_zones) {
		emit_puts(b, "\n    free: ");
		emit_size(b, n->free_pages, page_size);
	}
	if (!n->nr_zones) {
		emit_puts(b, "\n    zones: []\n");
		return;
	}
	emit_puts(b, "\n    zones:\n");
	for (int z = 0; z < n->nr_zones; z++) {
		emit_printf(b, "      - {type: %s, size: ",
			    zone_type_name(n->zones[z].type));
		emit_size(b, n->zones[z].pages, page_size);
		emit_puts(b, "}\n");
	}
}

int emit_machine(const struct machine_desc *d, struct emit_buf *b)
{
	for (int i = 0; i < d->nr_header; i++)
		emit_printf(b, "# %s\n", d->header[i]);
	emit_puts(b, "name: ");
	emit_quoted(b, d->name ? d->name : "");
	emit_puts(b, "\n");
	if (d->description) {
		emit_puts(b, "description: ");
		emit_quoted(b, d->description);
		emit_puts(b, "\n");
	}
	if (!d->nr_sources)
		emit_puts(b, "sources: []\n");
	else
		emit_puts(b, "sources:\n");
	for (int i = 0; i < d->nr_sources; i++) {
		emit_puts(b, "  - ");
		emit_quoted(b, d->sources[i]);
		emit_puts(b, "\n");
	}
	if (d->page_size != 4096)
		emit_printf(b, "page_size: %u\n", (unsigned)d->page_size);
	emit_puts(b, "nodes:\n");
	for (int i = 0; i < d->nr_nodes; i++)
		emit_node(b, &d->nodes[i], d->page_size);
	emit_puts(b, "distance:\n");
	for (int i = 0; i < d->nr_nodes; i++) {
		emit_puts(b, "  - [");
		for (int j = 0; j < d->nr_nodes; j++)
			emit_printf(b, j ? ", %d" : "%d",
				    d->distance[i * d->nr_nodes + j]);
		emit_puts(b, "]\n");
	}
	if (d->costs_text)
		emit_puts(b, d->costs_text);
	return b->oom ? NS_ENOMEM : NS_OK;
}
