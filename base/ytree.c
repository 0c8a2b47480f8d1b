/*
 * ytree — strict YAML node tree; see ytree.h.
 *
 * Design notes.  The tree is built from libyaml's event API rather than its
 * document API: an alias or anchor is refused the moment its event arrives
 * (the document API would first build the aliased graph), and limits on
 * depth and node count are enforced while parsing, before any memory is
 * spent on an abusive input.  Open collections sit on a fixed stack of
 * YTREE_MAX_DEPTH frames, each collecting its children in a growable array;
 * when a collection ends its children are copied into the arena.  All nodes,
 * strings and child arrays live in one chunked bump arena, so a tree of a
 * million nodes costs a few hundred mallocs and is freed in one walk.
 */
#include "base/ytree.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

/* ---- arena ---------------------------------------------------------- */

/* Chunks grow from 4 KiB to 1 MiB: small files stay small, big ones take
 * few mallocs. */
#define ARENA_CHUNK_MIN ((size_t)4 << 10)
#define ARENA_CHUNK_MAX ((size_t)1 << 20)

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	max_align_t data[];
};

struct ytree_arena {
	struct arena_chunk *head;
	size_t next_cap;
};

static void *arena_alloc_aligned(struct ytree_arena *a, size_t size, size_t align)
{
	struct arena_chunk *c = a->head;
	if (c)
		c->used = (c->used + align - 1) / align * align;
	if (!c || c->used > c->cap || c->cap - c->used < size) {
		size_t cap = a->next_cap < ARENA_CHUNK_MIN ? ARENA_CHUNK_MIN : a->next_cap;
		if (cap < ARENA_CHUNK_MAX)
			a->next_cap = cap * 2;
		if (cap < size)
			cap = size;
		c = malloc(sizeof *c + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = a->head;
		a->head = c;
	}
	void *p = (unsigned char *)c->data + c->used;
	c->used += size;
	return p;
}

static void *arena_alloc(struct ytree_arena *a, size_t size)
{
	return arena_alloc_aligned(a, size, alignof(max_align_t));
}

/* Strings need no alignment: packing them saves a third of the memory of
 * a big flow list of small scalars. */
static char *arena_strdup(struct ytree_arena *a, const char *s, size_t len)
{
	char *p = arena_alloc_aligned(a, len + 1, 1);
	if (p) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

static void arena_free(struct ytree_arena *a)
{
	if (!a)
		return;
	for (struct arena_chunk *c = a->head, *n; c; c = n) {
		n = c->next;
		free(c);
	}
	free(a);
}

/* ---- positions and messages ---------------------------------------- */

const char *ytree_display_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

void ytree_offset_pos(const char *buf, size_t len, size_t off, int *line,
		      int *col)
{
	int l = 1, c = 1;
	if (off > len)
		off = len;
	for (size_t i = 0; i < off; i++) {
		unsigned char ch = (unsigned char)buf[i];
		if (ch == '\n' || (ch == '\r' && (i + 1 >= len || buf[i + 1] != '\n'))) {
			l++;
			c = 1;
		} else if (ch != '\r' && (ch & 0xC0) != 0x80) {
			c++;
		}
	}
	*line = l;
	*col = c;
}

int ytree_error(const struct ytree *t, const struct ynode *n, struct diag *d,
		const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = diag_vset(d, NS_EINPUT, t->name, n ? n->line : 1, n ? n->col : 1,
			   fmt, ap);
	va_end(ap);
	return rc;
}

char *ytree_quote(const char *s, size_t len, char *buf, size_t bufsz)
{
	const size_t limit = 40;
	size_t o = 0;
	if (!bufsz)
		return buf;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		char tmp[8];
		int k;
		if (i == limit) {
			k = snprintf(tmp, sizeof tmp, "...");
			i = len;
		} else if (ch >= 0x20 && ch < 0x7f) {
			tmp[0] = (char)ch;
			tmp[1] = '\0';
			k = 1;
		} else {
			k = snprintf(tmp, sizeof tmp, "\\x%02X", ch);
		}
		if (o + (size_t)k >= bufsz)
			break;
		memcpy(buf + o, tmp, (size_t)k);
		o += (size_t)k;
	}
	buf[o] = '\0';
	return buf;
}

int ynode_is_null(const struct ynode *n)
{
	static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};
	if (n->kind != YNODE_SCALAR || n->style != YSTYLE_PLAIN)
		return 0;
	for (size_t i = 0; i < sizeof nulls / sizeof nulls[0]; i++)
		if (strcmp(n->str, nulls[i]) == 0)
			return 1;
	return 0;
}

void ynode_describe(const struct ynode *n, char *buf, size_t bufsz)
{
	char q[200];
	if (n->kind == YNODE_MAP) {
		snprintf(buf, bufsz, "a mapping");
		return;
	}
	if (n->kind == YNODE_SEQ) {
		snprintf(buf, bufsz, "a sequence");
		return;
	}
	if (ynode_is_null(n)) {
		snprintf(buf, bufsz, "null");
		return;
	}
	ytree_quote(n->str, n->len, q, sizeof q);
	if (n->style == YSTYLE_QUOTED)
		snprintf(buf, bufsz, "the string \"%s\"", q);
	else if (n->style == YSTYLE_BLOCK)
		snprintf(buf, bufsz, "a block string");
	else if (ytree_is_int_text(n->str, n->len))
		snprintf(buf, bufsz, "the integer %s", q);
	else if (ytree_is_float_text(n->str, n->len))
		snprintf(buf, bufsz, "the number %s", q);
	else
		snprintf(buf, bufsz, "'%s'", q);
}

/* ---- file input ------------------------------------------------------ */

static int too_big(const char *name, const char *buf, size_t len, size_t max,
		   struct diag *d);

static int read_stream(FILE *f, const char *name, char **out, size_t *outlen,
		       struct diag *d)
{
	size_t cap = 1 << 16, len = 0;
	int rc;
	char *buf = malloc(cap + 1);
	if (!buf)
		return diag_set(d, NS_ENOMEM, name, 0, 0, "out of memory reading file");
	for (;;) {
		if (len == cap) {
			if (cap > YTREE_MAX_BYTES)
				break;
			size_t ncap = cap * 2;
			char *t = realloc(buf, ncap + 1);
			if (!t) {
				free(buf);
				return diag_set(d, NS_ENOMEM, name, 0, 0,
						"out of memory reading file");
			}
			buf = t;
			cap = ncap;
		}
		size_t r = fread(buf + len, 1, cap - len, f);
		len += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		int e = errno;
		free(buf);
		return diag_set(d, NS_EIO, name, 0, 0, "read error: %s", strerror(e));
	}
	if (len > YTREE_MAX_BYTES) {
		rc = too_big(name, buf, len, YTREE_MAX_BYTES, d);
		free(buf);
		return rc;
	}
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return NS_OK;
}

int ytree_read_file(const char *path, char **buf, size_t *len, struct diag *d)
{
	const char *name = ytree_display_name(path);
	int is_stdin = strcmp(path, "-") == 0;
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	struct stat st;
	int rc;

	*buf = NULL;
	*len = 0;
	if (!f)
		return diag_set(d, errno == ENOENT ? NS_ENOENT : NS_EIO, name, 0, 0,
				"cannot open: %s", strerror(errno));
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		rc = diag_set(d, NS_EINPUT, name, 0, 0, "is a directory, not a file");
		goto out;
	}
	rc = read_stream(f, name, buf, len, d);
out:
	if (!is_stdin)
		fclose(f);
	return rc;
}

/* ---- tree building ---------------------------------------------------- */

struct frame {
	struct ynode *node;
	struct ynode **items;
	size_t nr, cap;
};

struct builder {
	struct ytree *t;
	struct diag *d;
	const struct ytree_limits *lim;
	struct frame stack[YTREE_MAX_DEPTH];
	int depth;
	size_t nodes;
	int docs;
};

static void mark_pos(yaml_mark_t m, int *line, int *col)
{
	*line = m.line + 1 > (size_t)INT32_MAX ? INT32_MAX : (int)m.line + 1;
	*col = m.column + 1 > (size_t)INT32_MAX ? INT32_MAX : (int)m.column + 1;
}

static int mark_err(struct builder *b, yaml_mark_t m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int mark_err(struct builder *b, yaml_mark_t m, const char *fmt, ...)
{
	int line, col;
	va_list ap;
	mark_pos(m, &line, &col);
	va_start(ap, fmt);
	int rc = diag_vset(b->d, NS_EINPUT, b->t->name, line, col, fmt, ap);
	va_end(ap);
	return rc;
}

static int oom(struct builder *b)
{
	return diag_set(b->d, NS_ENOMEM, b->t->name, 0, 0,
			"out of memory while reading YAML");
}

static int new_node(struct builder *b, enum ynode_kind kind,
		    const yaml_event_t *ev, struct ynode **out)
{
	if (b->nodes >= b->lim->max_nodes)
		return mark_err(b, ev->start_mark,
				"more than %zu YAML nodes in one file",
				b->lim->max_nodes);
	struct ynode *n = arena_alloc(b->t->arena, sizeof *n);
	if (!n)
		return oom(b);
	memset(n, 0, sizeof *n);
	b->nodes++;
	n->kind = kind;
	n->style = YSTYLE_PLAIN;
	mark_pos(ev->start_mark, &n->line, &n->col);
	mark_pos(ev->end_mark, &n->end_line, &n->end_col);
	n->str = "";
	*out = n;
	return NS_OK;
}

/* Anchors would let a later alias expand the node; tags would retype a
 * scalar behind the schema's back.  Both are refused where they stand. */
static int check_props(struct builder *b, const yaml_event_t *ev,
		       const yaml_char_t *anchor, const yaml_char_t *tag)
{
	char q[200];
	if (anchor)
		return mark_err(b, ev->start_mark,
				"YAML anchors (&%s) are not allowed: numasim files "
				"must not use anchors or aliases",
				ytree_quote((const char *)anchor,
					    strlen((const char *)anchor), q, sizeof q));
	if (tag)
		return mark_err(b, ev->start_mark,
				"YAML tags (%s) are not allowed: values are typed "
				"by the file format",
				ytree_quote((const char *)tag, strlen((const char *)tag),
					    q, sizeof q));
	return NS_OK;
}

static int attach(struct builder *b, struct ynode *n)
{
	if (b->depth == 0) {
		b->t->root = n;
		return NS_OK;
	}
	struct frame *f = &b->stack[b->depth - 1];
	if (f->node->kind == YNODE_MAP && f->nr % 2 == 0 && n->kind != YNODE_SCALAR)
		return ytree_error(b->t, n, b->d,
				"mapping keys must be plain strings, not %s",
				n->kind == YNODE_MAP ? "mappings" : "sequences");
	if (f->nr == f->cap) {
		size_t ncap = f->cap ? f->cap * 2 : 8;
		struct ynode **t = realloc(f->items, ncap * sizeof *t);
		if (!t)
			return oom(b);
		f->items = t;
		f->cap = ncap;
	}
	f->items[f->nr++] = n;
	return NS_OK;
}

static int on_scalar(struct builder *b, const yaml_event_t *ev)
{
	const char *val = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	int rc = check_props(b, ev, ev->data.scalar.anchor, ev->data.scalar.tag);
	if (rc)
		return rc;
	if (memchr(val, '\0', len))
		return mark_err(b, ev->start_mark,
				"NUL characters are not allowed in YAML scalars");
	struct ynode *n = NULL;
	if ((rc = new_node(b, YNODE_SCALAR, ev, &n)) != NS_OK)
		return rc;
	char *s = arena_strdup(b->t->arena, val, len);
	if (!s)
		return oom(b);
	n->str = s;
	n->len = len;
	switch (ev->data.scalar.style) {
	case YAML_SINGLE_QUOTED_SCALAR_STYLE:
	case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
		n->style = YSTYLE_QUOTED;
		break;
	case YAML_LITERAL_SCALAR_STYLE:
	case YAML_FOLDED_SCALAR_STYLE:
		n->style = YSTYLE_BLOCK;
		break;
	default:
		n->style = YSTYLE_PLAIN;
		break;
	}
	return attach(b, n);
}

static int on_start(struct builder *b, const yaml_event_t *ev, enum ynode_kind kind)
{
	const yaml_char_t *anchor, *tag;
	if (kind == YNODE_MAP) {
		anchor = ev->data.mapping_start.anchor;
		tag = ev->data.mapping_start.tag;
	} else {
		anchor = ev->data.sequence_start.anchor;
		tag = ev->data.sequence_start.tag;
	}
	int rc = check_props(b, ev, anchor, tag);
	if (rc)
		return rc;
	if (b->depth >= b->lim->max_depth || b->depth >= YTREE_MAX_DEPTH)
		return mark_err(b, ev->start_mark,
				"YAML nesting deeper than %d levels",
				b->lim->max_depth < YTREE_MAX_DEPTH ? b->lim->max_depth
								    : YTREE_MAX_DEPTH);
	struct ynode *n = NULL;
	if ((rc = new_node(b, kind, ev, &n)) != NS_OK)
		return rc;
	struct frame *f = &b->stack[b->depth++];
	f->node = n;
	f->items = NULL;
	f->nr = f->cap = 0;
	return NS_OK;
}

static int on_end(struct builder *b, const yaml_event_t *ev)
{
	struct frame *f = &b->stack[b->depth - 1];
	struct ynode *n = f->node;
	if (f->nr) {
		n->items = arena_alloc(b->t->arena, f->nr * sizeof *n->items);
		if (!n->items)
			return oom(b);
		memcpy(n->items, f->items, f->nr * sizeof *n->items);
	}
	n->nr = n->kind == YNODE_MAP ? f->nr / 2 : f->nr;
	mark_pos(ev->end_mark, &n->end_line, &n->end_col);
	free(f->items);
	f->items = NULL;
	b->depth--;
	return attach(b, n);
}

static int parser_error(struct builder *b, const yaml_parser_t *p,
			const char *buf, size_t len)
{
	int line, col;
	if (p->error == YAML_MEMORY_ERROR)
		return oom(b);
	const char *problem = p->problem ? p->problem : "unknown error";
	if (p->error == YAML_READER_ERROR) {
		ytree_offset_pos(buf, len, p->problem_offset, &line, &col);
		if (p->problem_value >= 0)
			return diag_set(b->d, NS_EINPUT, b->t->name, line, col,
					"invalid input: %s (byte 0x%02X); files must "
					"be UTF-8 text", problem,
					(unsigned)p->problem_value & 0xFFu);
		return diag_set(b->d, NS_EINPUT, b->t->name, line, col,
				"invalid input: %s", problem);
	}
	mark_pos(p->problem_mark, &line, &col);
	if (p->context) {
		int cl, cc;
		mark_pos(p->context_mark, &cl, &cc);
		return diag_set(b->d, NS_EINPUT, b->t->name, line, col,
				"malformed YAML: %s (%s at line %d, column %d)",
				problem, p->context, cl, cc);
	}
	return diag_set(b->d, NS_EINPUT, b->t->name, line, col,
			"malformed YAML: %s", problem);
}

static int on_event(struct builder *b, const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (b->docs++)
			return mark_err(b, ev->start_mark,
					"more than one YAML document in the file");
		return NS_OK;
	case YAML_ALIAS_EVENT:
		return mark_err(b, ev->start_mark,
				"YAML aliases (*name) are not allowed: numasim "
				"files must not use anchors or aliases");
	case YAML_SCALAR_EVENT:
		return on_scalar(b, ev);
	case YAML_SEQUENCE_START_EVENT:
		return on_start(b, ev, YNODE_SEQ);
	case YAML_MAPPING_START_EVENT:
		return on_start(b, ev, YNODE_MAP);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		return on_end(b, ev);
	default:
		return NS_OK;
	}
}

static int build(struct builder *b, const char *buf, size_t len)
{
	yaml_parser_t p;
	int rc = NS_OK, done = 0;

	if (!yaml_parser_initialize(&p))
		return oom(b);
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	yaml_parser_set_encoding(&p, YAML_UTF8_ENCODING);
	while (!done && rc == NS_OK) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&p, &ev)) {
			rc = parser_error(b, &p, buf, len);
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		rc = on_event(b, &ev);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	for (int i = 0; i < b->depth; i++)
		free(b->stack[i].items);
	if (rc == NS_OK && b->docs == 0)
		rc = diag_set(b->d, NS_EINPUT, b->t->name, 1, 1,
			      "empty file: no YAML document");
	return rc;
}

static const struct ytree_limits default_limits = {
	YTREE_MAX_BYTES, YTREE_MAX_DEPTH, YTREE_MAX_NODES,
};

int ytree_parse(const char *name, const char *buf, size_t len,
		struct ytree **out, struct diag *d)
{
	return ytree_parse_limited(name, buf, len, &default_limits, out, d);
}

static int too_big(const char *name, const char *buf, size_t len, size_t max,
		   struct diag *d)
{
	int line, col;
	ytree_offset_pos(buf, len, max, &line, &col);
	if (max % (1 << 20) == 0)
		return diag_set(d, NS_EINPUT, name, line, col,
				"file is larger than the %zu MiB limit", max >> 20);
	return diag_set(d, NS_EINPUT, name, line, col,
			"file is larger than the %zu byte limit", max);
}

int ytree_parse_limited(const char *name, const char *buf, size_t len,
			const struct ytree_limits *lim, struct ytree **out,
			struct diag *d)
{
	struct builder b;
	int rc;

	*out = NULL;
	if (len > lim->max_bytes)
		return too_big(name, buf, len, lim->max_bytes, d);
	memset(&b, 0, sizeof b);
	b.lim = lim;
	b.d = d;  /* diag_set() accepts NULL and still returns the status */
	b.t = calloc(1, sizeof *b.t);
	if (!b.t)
		return diag_set(d, NS_ENOMEM, name, 0, 0, "out of memory");
	b.t->name = strdup(name);
	b.t->arena = calloc(1, sizeof *b.t->arena);
	if (!b.t->name || !b.t->arena) {
		ytree_free(b.t);
		return diag_set(d, NS_ENOMEM, name, 0, 0, "out of memory");
	}
	rc = build(&b, buf, len);
	if (rc != NS_OK) {
		ytree_free(b.t);
		return rc;
	}
	*out = b.t;
	return NS_OK;
}

void ytree_free(struct ytree *t)
{
	if (!t)
		return;
	arena_free(t->arena);
	free(t->name);
	free(t);
}

/* ---- typed access ------------------------------------------------------ */

const struct ynode *ynode_map_get(const struct ynode *map, const char *key)
{
	if (!map || map->kind != YNODE_MAP)
		return NULL;
	size_t klen = strlen(key);
	for (size_t i = 0; i < map->nr; i++) {
		const struct ynode *k = map->items[2 * i];
		if (k->len == klen && memcmp(k->str, key, klen) == 0)
			return map->items[2 * i + 1];
	}
	return NULL;
}

/* Levenshtein distance, capped: keys longer than 63 bytes never match. */
static int edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
	int row[64];
	if (la > 63 || lb > 63)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int sub = diag + (tolower((unsigned char)a[i - 1]) !=
					  tolower((unsigned char)b[j - 1]));
			int best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
			row[j] = sub < best ? sub : best;
			diag = up;
		}
	}
	return row[lb];
}

static const char *suggest_key(const char *key, size_t klen,
			       const struct ytree_field *fields, size_t nr)
{
	const char *best = NULL;
	int bestd = 3; /* suggest only close matches */
	for (size_t i = 0; i < nr; i++) {
		int dist = edit_distance(key, klen, fields[i].key, strlen(fields[i].key));
		if (dist < bestd) {
			bestd = dist;
			best = fields[i].key;
		}
	}
	return best;
}

const char *ytree_suggest(const char *s, size_t len, const char *const *choices, size_t nr)
{
	const char *best = NULL;
	int bestd = 3; /* as suggest_key: close matches only */
	for (size_t i = 0; i < nr; i++) {
		int dist = edit_distance(s, len, choices[i], strlen(choices[i]));
		if (dist < bestd) {
			bestd = dist;
			best = choices[i];
		}
	}
	return best;
}

int ytree_expect_map(const struct ytree *t, const struct ynode *n,
		     const char *what, struct diag *d)
{
	char desc[256];
	if (n->kind == YNODE_MAP)
		return NS_OK;
	ynode_describe(n, desc, sizeof desc);
	return ytree_error(t, n, d, "%s must be a mapping, got %s", what, desc);
}

int ytree_expect_seq(const struct ytree *t, const struct ynode *n,
		     const char *what, struct diag *d)
{
	char desc[256];
	if (n->kind == YNODE_SEQ)
		return NS_OK;
	ynode_describe(n, desc, sizeof desc);
	return ytree_error(t, n, d, "%s must be a sequence, got %s", what, desc);
}

static size_t field_index(const struct ynode *k, const struct ytree_field *fields,
			  size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (strlen(fields[i].key) == k->len &&
		    memcmp(fields[i].key, k->str, k->len) == 0)
			return i;
	return nr;
}

int ytree_fields(const struct ytree *t, const struct ynode *n, const char *what,
		 const struct ytree_field *fields, size_t nr,
		 const struct ynode **vals, struct diag *d)
{
	char q[200];
	int rc = ytree_expect_map(t, n, what, d);
	if (rc)
		return rc;
	for (size_t i = 0; i < nr; i++)
		vals[i] = NULL;
	for (size_t p = 0; p < n->nr; p++) {
		const struct ynode *k = n->items[2 * p];
		size_t i = field_index(k, fields, nr);
		ytree_quote(k->str, k->len, q, sizeof q);
		if (i == nr) {
			const char *s = suggest_key(k->str, k->len, fields, nr);
			if (s)
				return ytree_error(t, k, d,
						   "unknown key '%s' in %s (did you mean '%s'?)",
						   q, what, s);
			return ytree_error(t, k, d, "unknown key '%s' in %s", q, what);
		}
		if (vals[i]) {
			int first = 0;
			for (size_t e = 0; e < p; e++)
				if (field_index(n->items[2 * e], fields, nr) == i) {
					first = n->items[2 * e]->line;
					break;
				}
			return ytree_error(t, k, d,
					   "duplicate key '%s' in %s (first at line %d)",
					   q, what, first);
		}
		vals[i] = n->items[2 * p + 1];
	}
	for (size_t i = 0; i < nr; i++)
		if (fields[i].required && !vals[i])
			return ytree_error(t, n, d, "missing required key '%s' in %s",
					   fields[i].key, what);
	return NS_OK;
}

int ytree_string(const struct ytree *t, const struct ynode *n,
		 const char *what, int nonempty, const char **out,
		 struct diag *d)
{
	char desc[256];
	if (n->kind != YNODE_SCALAR || ynode_is_null(n)) {
		ynode_describe(n, desc, sizeof desc);
		return ytree_error(t, n, d, "%s must be a string, got %s", what, desc);
	}
	if (nonempty) {
		size_t i = 0;
		while (i < n->len && isspace((unsigned char)n->str[i]))
			i++;
		if (i == n->len)
			return ytree_error(t, n, d, "%s must not be empty", what);
	}
	*out = n->str;
	return NS_OK;
}

int ytree_text(const struct ytree *t, const struct ynode *n, const char *what,
	       int nonempty, char **out, struct diag *d)
{
	const char *s;
	int rc = ytree_string(t, n, what, nonempty, &s, d);
	if (rc)
		return rc;
	for (size_t i = 0; i < n->len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return ytree_error(t, n, d, "%s must be one line of text without "
					   "control characters", what);
	*out = strdup(s);
	return *out ? NS_OK : diag_set(d, NS_ENOMEM, t->name, 0, 0, "out of memory");
}

int ytree_is_int_text(const char *s, size_t len)
{
	size_t i = 0;
	if (i < len && (s[i] == '-' || s[i] == '+'))
		i++;
	if (i == len)
		return 0;
	for (; i < len; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

int ytree_is_float_text(const char *s, size_t len)
{
	size_t i = 0, digits = 0;
	if (i < len && (s[i] == '-' || s[i] == '+'))
		i++;
	while (i < len && isdigit((unsigned char)s[i]))
		i++, digits++;
	if (i < len && s[i] == '.') {
		i++;
		while (i < len && isdigit((unsigned char)s[i]))
			i++, digits++;
	}
	if (!digits)
		return 0;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		size_t ed = 0;
		i++;
		if (i < len && (s[i] == '-' || s[i] == '+'))
			i++;
		while (i < len && isdigit((unsigned char)s[i]))
			i++, ed++;
		if (!ed)
			return 0;
	}
	return i == len;
}

int ytree_int(const struct ytree *t, const struct ynode *n, const char *what,
	      long long min, long long max, long long *out, struct diag *d)
{
	char desc[256];
	if (n->kind != YNODE_SCALAR || n->style != YSTYLE_PLAIN || ynode_is_null(n) ||
	    !ytree_is_int_text(n->str, n->len)) {
		ynode_describe(n, desc, sizeof desc);
		if (n->kind == YNODE_SCALAR && n->style == YSTYLE_PLAIN &&
		    ytree_is_float_text(n->str, n->len))
			return ytree_error(t, n, d, "%s must be a whole number, got %s",
					   what, desc);
		return ytree_error(t, n, d, "%s must be a decimal integer, got %s",
				   what, desc);
	}
	const char *s = n->str;
	int neg = s[0] == '-';
	if (s[0] == '-' || s[0] == '+')
		s++;
	if (s[0] == '0' && s[1] != '\0')
		return ytree_error(t, n, d,
				   "%s: leading zeros are not allowed in '%s' (YAML "
				   "1.1 reads them as octal)", what, n->str);
	/* accumulate as unsigned so any digit string is checked, not wrapped */
	unsigned long long mag = 0, lim = neg ? (unsigned long long)LLONG_MAX + 1
					      : (unsigned long long)LLONG_MAX;
	int over = 0;
	for (; *s; s++) {
		unsigned dg = (unsigned)(*s - '0');
		if (mag > (lim - dg) / 10) {
			over = 1;
			break;
		}
		mag = mag * 10 + dg;
	}
	long long v = 0;
	if (!over)
		v = neg ? (mag == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN
								   : -(long long)mag)
			: (long long)mag;
	if (over || v < min || v > max)
		return ytree_error(t, n, d, "%s must be between %lld and %lld, got %s",
				   what, min, max, n->len > 40 ? "a larger number" : n->str);
	*out = v;
	return NS_OK;
}

int ytree_number(const struct ytree *t, const struct ynode *n,
		 const char *what, double *out, struct diag *d)
{
	char desc[256];
	if (n->kind != YNODE_SCALAR || n->style != YSTYLE_PLAIN || ynode_is_null(n) ||
	    !ytree_is_float_text(n->str, n->len)) {
		ynode_describe(n, desc, sizeof desc);
		return ytree_error(t, n, d, "%s must be a number, got %s", what, desc);
	}
	errno = 0;
	char *end;
	double v = strtod(n->str, &end);
	if (end != n->str + n->len || !isfinite(v))
		return ytree_error(t, n, d, "%s: number '%s' is out of range", what,
				   ytree_quote(n->str, n->len, desc, sizeof desc));
	*out = v;
	return NS_OK;
}

int ytree_u32(const struct ytree *t, const struct ynode *n, const char *what,
	      long long min, long long max, uint32_t *out, struct diag *d)
{
	long long v;
	int rc = ytree_int(t, n, what, min, max, &v, d);
	if (rc == NS_OK)
		*out = (uint32_t)v;
	return rc;
}

int ytree_number_in(const struct ytree *t, const struct ynode *n, const char *what,
		    double min, double max, double *out, struct diag *d)
{
	double v;
	int rc = ytree_number(t, n, what, &v, d);
	if (rc)
		return rc;
	if (v < min || v > max)
		return ytree_error(t, n, d, "%s must be between %g and %g, got %g", what,
				   min, max, v);
	*out = v;
	return NS_OK;
}

int ytree_nomem(const struct ytree *t, struct diag *d)
{
	return diag_set(d, NS_ENOMEM, t->name, 0, 0, "out of memory");
}
