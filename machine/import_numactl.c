/*
 * import_numactl — the topology from `numactl --hardware` output (pasted,
 * with a prompt or lscpu around it, or a file); see machine/import.h.
 *
 * Design notes.  The parser works on a private NUL-terminated copy of the
 * text split into lines, so every token has a line and a column for its
 * message; it is a small state machine over the four parts numactl prints
 * (available line, node lines, distance header, distance rows) and checks
 * every cross-reference between them (counts, ids, row lengths) at the
 * place where the mismatch shows.  A CPU owner table (MACHINE_MAX_CPUS
 * entries) catches a CPU listed under two nodes, which numa=fake produces.
 */
#include "machine/import_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/diag.h"
#include "machine/cpulist.h"
#include "machine/datafile.h"
#include "machine/machine.h"

/* ------------------------------------------------------------------ */
/* numactl --hardware                                                  */

struct nl_parser {
	const char *file;
	char *text;            /* private copy, lines NUL-terminated in place */
	char **lines;
	int nr_lines;
	int line;              /* 0-based index of the current line */
	struct machine_desc *m;
	struct diag *d;
	int *cpu_owner;        /* MACHINE_MAX_CPUS entries: node id or -1 */
	unsigned char *seen;   /* per position: 1 cpus, 2 size, 4 free */
	int *cpu_cap;          /* per position: capacity of nodes[].cpus */
	int avail_line;
	int skipped_before;    /* lines before 'available:' that are not numactl's */
	int skipped_after;     /* ... and after the distance table */
	int tail;              /* index of the first line after the table */
};

static int nl_err(struct nl_parser *p, int line, const char *at,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Error at line index `line` (0-based), column of `at` within that line. */
static int nl_err(struct nl_parser *p, int line, const char *at,
		  const char *fmt, ...)
{
	int col = 1;
	if (line < p->nr_lines && at)
		col = (int)(at - p->lines[line]) + 1;
	va_list ap;
	va_start(ap, fmt);
	int rc = diag_vset(p->d, NS_EINPUT, p->file, line + 1, col, fmt, ap);
	va_end(ap);
	return rc;
}

const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* If s starts with word followed by a blank or end, return what follows. */
static const char *match_word(const char *s, const char *word)
{
	size_t n = strlen(word);
	if (strncmp(s, word, n))
		return NULL;
	return s + n;
}

/* Parse an unsigned decimal below limit; returns the end or NULL. */
const char *parse_u64(const char *s, uint64_t limit, uint64_t *out)
{
	if (!isdigit((unsigned char)*s))
		return NULL;
	uint64_t v = 0;
	while (isdigit((unsigned char)*s)) {
		unsigned dgt = (unsigned)(*s - '0');
		if (v > (limit - dgt) / 10)
			return NULL;
		v = v * 10 + dgt;
		s++;
	}
	*out = v;
	return s;
}

static int is_blank_line(const char *s)
{
	return *skip_ws(s) == '\0';
}

static int nl_split(struct nl_parser *p, const char *text, size_t len)
{
	p->text = malloc(len + 1);
	if (!p->text)
		return NS_ENOMEM;
	if (len)
		memcpy(p->text, text, len);
	p->text[len] = '\0';
	if (strlen(p->text) != len)
		return diag_set(p->d, NS_EINPUT, p->file, 0, 0,
				"input contains a NUL byte: not numactl text output");
	int cap = 64;
	p->lines = malloc((size_t)cap * sizeof *p->lines);
	if (!p->lines)
		return NS_ENOMEM;
	char *s = p->text;
	while (*s) {
		if (p->nr_lines == cap) {
			char **nl = realloc(p->lines, (size_t)cap * 2 * sizeof *nl);
			if (!nl)
				return NS_ENOMEM;
			p->lines = nl;
			cap *= 2;
		}
		p->lines[p->nr_lines++] = s;
		char *e = strchr(s, '\n');
		char *next = e ? e + 1 : s + strlen(s);
		if (e)
			*e = '\0';
		size_t l = strlen(s);
		if (l && s[l - 1] == '\r')      /* CRLF from a Windows paste */
			s[l - 1] = '\0';
		s = next;
	}
	return NS_OK;
}

/* Lines numactl or libnuma may add that carry no topology. */
static int nl_ignorable(const char *s)
{
	s = skip_ws(s);
	return *s == '\0' || !strncmp(s, "libnuma: Warning:", 17);
}

/* "available: N nodes (LIST)" */
static int nl_available(struct nl_parser *p)
{
	int ln = p->line;
	const char *s = p->lines[ln], *t = skip_ws(s), *q;
	if (!strncmp(t, "No NUMA available on this system", 32))
		return nl_err(p, ln, t,
			      "numactl reports no NUMA on this system (a kernel "
			      "without CONFIG_NUMA): there is no node topology to "
			      "import; write a one-node machine file instead");
	if (!(q = match_word(t, "available:")))
		return nl_err(p, ln, t,
			      "expected numactl --hardware output starting with "
			      "'available: N nodes (LIST)'");
	uint64_t n;
	const char *num = skip_ws(q);
	if (!(q = parse_u64(num, MACHINE_MAX_NODES + 1, &n)))
		return nl_err(p, ln, num, "expected the number of nodes after 'available:'");
	const char *w = skip_ws(q);
	if (!(q = match_word(w, "nodes")) && !(q = match_word(w, "node")))
		return nl_err(p, ln, w, "expected 'nodes' after the node count");
	const char *open = skip_ws(q);
	if (*open != '(')
		return nl_err(p, ln, open, "expected '(' and the list of node ids");
	const char *close = strchr(open, ')');
	if (!close)
		return nl_err(p, ln, open + strlen(open), "missing ')' after the node list");
	if (*skip_ws(close + 1))
		return nl_err(p, ln, skip_ws(close + 1), "unexpected text after the node list");
	if (n == 0)
		return nl_err(p, ln, num, "numactl reports 0 NUMA nodes: no "
			      "topology to import (a container without NUMA "
			      "information?)");
	size_t ll = (size_t)(close - open - 1);
	char *list = strndup(open + 1, ll);
	if (!list)
		return NS_ENOMEM;
	int *ids, nr;
	size_t errpos;
	char msg[128];
	int rc = cpulist_parse(list, MACHINE_MAX_NODES, 0, &ids, &nr, &errpos,
			       msg, sizeof msg);
	free(list);
	if (rc == NS_EINPUT)
		return nl_err(p, ln, open + 1 + errpos, "bad node list: %s", msg);
	if (rc)
		return rc;
	if ((uint64_t)nr != n) {
		free(ids);
		return nl_err(p, ln, num, "'available:' says %llu nodes but the list "
			      "has %d", (unsigned long long)n, nr);
	}
	for (int i = 0; i < nr && rc == NS_OK; i++)
		rc = add_node(p->m, ids[i]);
	free(ids);
	if (rc)
		return rc;
	p->seen = calloc((size_t)nr, 1);
	p->cpu_cap = calloc((size_t)nr, sizeof *p->cpu_cap);
	if (!p->seen || !p->cpu_cap)
		return NS_ENOMEM;
	p->avail_line = ln;
	p->line++;
	return NS_OK;
}

static int nl_add_cpu(struct nl_parser *p, int pos, int cpu, const char *at)
{
	struct desc_node *n = &p->m->nodes[pos];
	int owner = p->cpu_owner[cpu];
	if (owner == n->id)
		return nl_err(p, p->line, at, "CPU %d is listed twice for node %d",
			      cpu, n->id);
	if (owner >= 0)
		return nl_err(p, p->line, at,
			      "CPU %d is already in node %d; a machine file needs "
			      "every CPU in exactly one node (numa=fake lists "
			      "the same CPUs under several nodes)", cpu, owner);
	if (n->nr_cpus == p->cpu_cap[pos]) {
		int cap = p->cpu_cap[pos] ? p->cpu_cap[pos] * 2 : 64;
		int *nc = realloc(n->cpus, (size_t)cap * sizeof *nc);
		if (!nc)
			return NS_ENOMEM;
		n->cpus = nc;
		p->cpu_cap[pos] = cap;
	}
	n->cpus[n->nr_cpus++] = cpu;
	p->cpu_owner[cpu] = n->id;
	return NS_OK;
}

/*
 * CPU numbers of one line: "0 1 2", or --cpu-compress "0-15, 32-47 (32)".
 * *count gets the "(N)" figure if present (-1 if not).
 */
static int nl_cpu_tokens(struct nl_parser *p, int pos, const char *s,
			 long *count)
{
	for (;;) {
		s = skip_ws(s);
		if (*s == ',') {
			s++;
			continue;
		}
		if (!*s)
			return NS_OK;
		if (*s == '(') {
			uint64_t c;
			const char *q = parse_u64(s + 1, MACHINE_MAX_CPUS + 1, &c);
			if (!q || *q != ')' || *skip_ws(q + 1))
				return nl_err(p, p->line, s, "expected '(COUNT)' at "
					      "the end of a --cpu-compress CPU list");
			*count = (long)c;
			return NS_OK;
		}
		uint64_t lo, hi;
		const char *q = parse_u64(s, MACHINE_MAX_CPUS - 1, &lo);
		if (!q)
			return nl_err(p, p->line, s, isdigit((unsigned char)*s) ?
				      "CPU number out of range (at most %d)" :
				      "expected a CPU number", MACHINE_MAX_CPUS - 1);
		hi = lo;
		if (*q == '-') {
			const char *h = q + 1;
			if (!(q = parse_u64(h, MACHINE_MAX_CPUS - 1, &hi)))
				return nl_err(p, p->line, h, "expected the CPU number "
					      "ending a range (at most %d)",
					      MACHINE_MAX_CPUS - 1);
			if (hi < lo)
				return nl_err(p, p->line, s, "CPU range %llu-%llu "
					      "is backwards", (unsigned long long)lo,
					      (unsigned long long)hi);
		}
		if (*q && *q != ' ' && *q != '\t' && *q != ',')
			return nl_err(p, p->line, q, "unexpected character '%c' "
				      "in CPU list", *q);
		for (uint64_t c = lo; c <= hi; c++) {
			int rc = nl_add_cpu(p, pos, (int)c, s);
			if (rc)
				return rc;
		}
		s = q;
	}
}

/* Is this line the wrapped tail of a CPU list (bare numbers only)? */
static int nl_is_continuation(const char *s)
{
	s = skip_ws(s);
	if (!isdigit((unsigned char)*s))
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s) && *s != ' ' && *s != '\t')
			return 0;
	return 1;
}

static int nl_cpus(struct nl_parser *p, int pos, const char *rest)
{
	long count = -1;
	int rc = nl_cpu_tokens(p, pos, rest, &count);
	while (rc == NS_OK && count < 0 && p->line + 1 < p->nr_lines &&
	       nl_is_continuation(p->lines[p->line + 1])) {
		p->line++;
		rc = nl_cpu_tokens(p, pos, p->lines[p->line], &count);
	}
	if (rc)
		return rc;
	struct desc_node *n = &p->m->nodes[pos];
	if (count >= 0 && count != n->nr_cpus)
		return nl_err(p, p->line, p->lines[p->line],
			      "node %d: --cpu-compress count (%ld) does not match "
			      "the %d CPUs listed", n->id, count, n->nr_cpus);
	if (n->nr_cpus > 1)
		qsort(n->cpus, (size_t)n->nr_cpus, sizeof *n->cpus, cmp_int);
	return NS_OK;
}

/* "N MB" (numactl prints mem >> 20 as "%llu MB"). */
static int nl_size(struct nl_parser *p, int pos, const char *rest, int store)
{
	const char *s = skip_ws(rest), *q;
	uint64_t mb;
	struct desc_node *n = &p->m->nodes[pos];
	if (!strncmp(s, "<not available>", 15))
		return nl_err(p, p->line, s, "numactl could not read the memory "
			      "size of node %d", n->id);
	/* At most 2^44 MiB = 16 EiB, so pages never overflow. */
	if (!(q = parse_u64(s, (uint64_t)1 << 44, &mb)))
		return nl_err(p, p->line, s, isdigit((unsigned char)*s) ?
			      "memory size too large" : "expected a size in MB");
	const char *u = skip_ws(q);
	if (strncmp(u, "MB", 2) || *skip_ws(u + 2))
		return nl_err(p, p->line, u, "expected 'MB' after the size");
	if (store) {
		n->mem_pages = mb * MiB / p->m->page_size;
	} else {
		n->has_free = 1;
		n->free_pages = mb * MiB / p->m->page_size;
	}
	return NS_OK;
}

/* "node X cpus: ...", "node X size: ...", "node X free: ..." */
static int nl_node_line(struct nl_parser *p, const char *t)
{
	const char *q = skip_ws(t + 4), *idp = q;
	uint64_t id;
	if (!(q = parse_u64(q, MACHINE_MAX_NODES, &id)))
		return nl_err(p, p->line, idp, "expected a node id after 'node'");
	int pos = node_pos(p->m, (int)id);
	const char *kw = skip_ws(q);
	static const struct { const char *word; unsigned char bit; } kws[] = {
		{"cpus:", 1}, {"size:", 2}, {"free:", 4},
	};
	size_t k;
	for (k = 0; k < sizeof kws / sizeof kws[0]; k++)
		if (match_word(kw, kws[k].word))
			break;
	if (k == sizeof kws / sizeof kws[0])
		return nl_err(p, p->line, kw, "expected 'cpus:', 'size:' or "
			      "'free:' after 'node %llu'", (unsigned long long)id);
	if (pos < 0)
		return nl_err(p, p->line, idp, "node %llu is not in the "
			      "'available:' list (line %d)",
			      (unsigned long long)id, p->avail_line + 1);
	if (p->seen[pos] & kws[k].bit)
		return nl_err(p, p->line, kw, "second '%s' line for node %llu",
			      kws[k].word, (unsigned long long)id);
	p->seen[pos] |= kws[k].bit;
	p->m->nodes[pos].line = p->line + 1;
	const char *rest = kw + strlen(kws[k].word);
	if (k == 0)
		return nl_cpus(p, pos, rest);
	return nl_size(p, pos, rest, k == 1);
}

/* Every node of the available list needs its cpus and size lines. */
static int nl_check_nodes(struct nl_parser *p, int at_line)
{
	for (int i = 0; i < p->m->nr_nodes; i++) {
		const char *what = !(p->seen[i] & 1) ? "cpus" :
				   !(p->seen[i] & 2) ? "size" : NULL;
		if (what)
			return diag_set(p->d, NS_EINPUT, p->file, at_line + 1, 1,
					"node %d has no 'node %d %s:' line",
					p->m->nodes[i].id, p->m->nodes[i].id, what);
		const struct desc_node *n = &p->m->nodes[i];
		if (n->has_free && n->free_pages > n->mem_pages)
			return diag_set(p->d, NS_EINPUT, p->file, n->line, 1,
					"node %d: 'free:' (%llu MB) is more than 'size:' "
					"(%llu MB)", n->id,
					(unsigned long long)(n->free_pages * p->m->page_size / MiB),
					(unsigned long long)(n->mem_pages * p->m->page_size / MiB));
	}
	return NS_OK;
}

/* "node   0   1   3" must list the available ids in order. */
static int nl_dist_header(struct nl_parser *p)
{
	const char *s = p->lines[p->line], *t = skip_ws(s);
	if (!match_word(t, "node"))
		return nl_err(p, p->line, t, "expected the distance table header "
			      "'node ID ID ...'");
	const char *q = t + 4;
	int i = 0;
	for (;;) {
		const char *tok = skip_ws(q);
		if (!*tok)
			break;
		uint64_t id;
		if (!(q = parse_u64(tok, MACHINE_MAX_NODES, &id)) ||
		    (*q && *q != ' ' && *q != '\t'))
			return nl_err(p, p->line, tok, "expected a node id in the "
				      "distance table header");
		if (i >= p->m->nr_nodes)
			return nl_err(p, p->line, tok, "distance table header lists "
				      "more than the %d available nodes",
				      p->m->nr_nodes);
		if ((int)id != p->m->nodes[i].id)
			return nl_err(p, p->line, tok, "distance table header has "
				      "node %llu where node %d was expected",
				      (unsigned long long)id, p->m->nodes[i].id);
		i++;
	}
	if (i < p->m->nr_nodes)
		return nl_err(p, p->line, s + strlen(s), "distance table header "
			      "lists %d of the %d available nodes", i,
			      p->m->nr_nodes);
	p->line++;
	return NS_OK;
}

/* "  0:  10  21" : the row of node m->nodes[row]. */
static int nl_dist_row(struct nl_parser *p, int row)
{
	const char *s = p->lines[p->line], *t = skip_ws(s), *q;
	int nn = p->m->nr_nodes, id = p->m->nodes[row].id;
	uint64_t v;
	if (!(q = parse_u64(t, MACHINE_MAX_NODES, &v)) || *q != ':')
		return nl_err(p, p->line, t, "expected the distance row "
			      "'%d: ...' (the table has %d of %d rows)", id, row, nn);
	if ((int)v != id)
		return nl_err(p, p->line, t, "distance row for node %llu where "
			      "node %d was expected", (unsigned long long)v, id);
	q++;
	for (int j = 0;; j++) {
		const char *tok = skip_ws(q);
		if (!*tok) {
			if (j < nn)
				return nl_err(p, p->line, tok, "distance row of node "
					      "%d has %d values, expected %d", id, j, nn);
			break;
		}
		if (j >= nn)
			return nl_err(p, p->line, tok, "distance row of node %d has "
				      "more than %d values", id, nn);
		if (!(q = parse_u64(tok, 1000000, &v)) ||
		    (*q && *q != ' ' && *q != '\t'))
			return nl_err(p, p->line, tok, "expected a distance (a "
				      "whole number)");
		if (j == row && v != MACHINE_DISTANCE_LOCAL)
			return nl_err(p, p->line, tok, "distance of node %d to "
				      "itself is %llu; SLIT local distance must be "
				      "10", id, (unsigned long long)v);
		if (v < MACHINE_DISTANCE_LOCAL || v > MACHINE_DISTANCE_UNREACHABLE)
			return nl_err(p, p->line, tok, "distance %llu out of range "
				      "10..255", (unsigned long long)v);
		p->m->distance[row * nn + j] = (int)v;
	}
	p->line++;
	return NS_OK;
}

int nl_alloc_distance(struct machine_desc *m)
{
	size_t n = (size_t)m->nr_nodes;
	m->distance = calloc(n * n, sizeof *m->distance);
	return m->distance ? NS_OK : NS_ENOMEM;
}

/* Does numactl's own output start at this line? */
static int nl_is_start(const char *s)
{
	s = skip_ws(s);
	return match_word(s, "available:") ||
	       !strncmp(s, "No NUMA available on this system", 32);
}

/*
 * Text pasted from a terminal or a mail starts with a shell prompt
 * ("[user@host dir]$ numactl --hardware") or a header ("Command: numactl
 * --hardware"): skip to the first line numactl itself prints, counting the
 * skipped lines.  Without such a line the first line is reported as not
 * being numactl output.
 */
static void nl_skip_leading(struct nl_parser *p)
{
	int at = p->line;
	while (at < p->nr_lines && !nl_is_start(p->lines[at]))
		at++;
	if (at == p->nr_lines)
		return;
	for (; p->line < at; p->line++)
		p->skipped_before += !nl_ignorable(p->lines[p->line]);
}

/* A trailing line numactl could have printed (a distance row, a node
 * line): after a complete table that is a damaged paste, not a prompt. */
static int nl_looks_like_numactl(const char *s)
{
	uint64_t v;
	const char *t = skip_ws(s), *q = parse_u64(t, UINT64_MAX, &v);
	return (q && *q == ':') || match_word(t, "node ") || nl_is_start(t);
}

static int nl_parse(struct nl_parser *p)
{
	int rc;
	while (p->line < p->nr_lines && nl_ignorable(p->lines[p->line]))
		p->line++;
	if (p->line >= p->nr_lines)
		return diag_set(p->d, NS_EINPUT, p->file, p->line + 1, 1,
				"empty input: expected numactl --hardware output");
	nl_skip_leading(p);
	if ((rc = nl_available(p)))
		return rc;
	/* Node lines until the distance part. */
	for (;; p->line++) {
		if (p->line >= p->nr_lines) {
			if ((rc = nl_check_nodes(p, p->line)))
				return rc;
			return diag_set(p->d, NS_EINPUT, p->file, p->line + 1, 1,
					"input ends without a 'node distances:' "
					"table (numactl output cut short?)");
		}
		const char *s = p->lines[p->line], *t = skip_ws(s);
		if (nl_ignorable(s))
			continue;
		if (!strncmp(t, "node distances:", 15) && !*skip_ws(t + 15))
			break;
		if (!strncmp(t, "No distance information available.", 34)) {
			if ((rc = nl_check_nodes(p, p->line)))
				return rc;
			if (p->m->nr_nodes > 1)
				return nl_err(p, p->line, t, "numactl has no distance "
					      "information for these %d nodes; a "
					      "machine file needs the SLIT distances",
					      p->m->nr_nodes);
			if ((rc = nl_alloc_distance(p->m)))
				return rc;
			p->m->distance[0] = MACHINE_DISTANCE_LOCAL;
			p->line++;
			goto trailer;
		}
		if (!match_word(t, "node") || !(t[4] == ' ' || t[4] == '\t'))
			return nl_err(p, p->line, t, "expected a 'node N ...' line "
				      "or 'node distances:'");
		if ((rc = nl_node_line(p, t)))
			return rc;
	}
	if ((rc = nl_check_nodes(p, p->line)))
		return rc;
	p->line++;
	while (p->line < p->nr_lines && nl_ignorable(p->lines[p->line]))
		p->line++;
	if (p->line >= p->nr_lines)
		return diag_set(p->d, NS_EINPUT, p->file, p->line + 1, 1,
				"input ends before the distance table header");
	if ((rc = nl_dist_header(p)) || (rc = nl_alloc_distance(p->m)))
		return rc;
	for (int row = 0; row < p->m->nr_nodes; row++) {
		while (p->line < p->nr_lines && is_blank_line(p->lines[p->line]))
			p->line++;
		if (p->line >= p->nr_lines)
			return diag_set(p->d, NS_EINPUT, p->file, p->line + 1, 1,
					"distance table ends after %d of %d rows",
					row, p->m->nr_nodes);
		if ((rc = nl_dist_row(p, row)))
			return rc;
	}
trailer:
	p->tail = p->line;
	/* What follows the table (the next shell prompt) is skipped. */
	for (; p->line < p->nr_lines; p->line++) {
		const char *t = p->lines[p->line];
		if (nl_ignorable(t))
			continue;
		if (nl_looks_like_numactl(t))
			return nl_err(p, p->line, skip_ws(t), "unexpected text after "
				      "the distance table (%d rows for %d nodes)",
				      p->m->nr_nodes, p->m->nr_nodes);
		p->skipped_after++;
	}
	return NS_OK;
}

/* A pasted prompt "[user@host dir]$ ..." or "user@host:~$ ...": host. */
static void prompt_host(const char *s, char *host, size_t len)
{
	const char *at = strchr(s, '@'), *h, *e;
	if (host[0] || !at || at == s || !(isalnum((unsigned char)at[-1]) ||
					   at[-1] == '_' || at[-1] == '-'))
		return;
	for (h = e = at + 1; isalnum((unsigned char)*e) || *e == '-' || *e == '.' ||
			     *e == '_'; e++)
		;
	if (e == h || (*e != ':' && *e != ' ' && *e != ']') ||
	    !strpbrk(e, "$#%>"))
		return;
	snprintf(host, len, "%.*s", (int)(e - h), h);
}

/* The lines around numactl's output: a prompt's host, a pasted lscpu. */
static void nl_notes(const struct nl_parser *p, struct cpu_id *cpu,
		     struct import_notes *notes)
{
	for (int i = 0; i < p->nr_lines; i++) {
		if (i == p->avail_line)
			i = p->tail;
		if (i >= p->nr_lines)
			break;
		if (notes)
			prompt_host(p->lines[i], notes->host, sizeof notes->host);
		cpu_id_line(cpu, p->lines[i]);
	}
	if (notes) {
		notes->skipped_before = p->skipped_before;
		notes->skipped_after = p->skipped_after;
	}
}

static int parse_numactl(const char *name, const char *text, size_t len,
			 enum import_arch arch, struct machine_desc *out,
			 struct cpu_id *cpu, struct import_notes *notes,
			 struct diag *d)
{
	struct nl_parser p = {.file = name, .m = out, .d = d};
	int rc;
	if (len > IMPORT_MAX_INPUT)
		return diag_set(d, NS_EINPUT, name, 0, 0, "input larger than "
				"%zu bytes", IMPORT_MAX_INPUT);
	p.cpu_owner = malloc(MACHINE_MAX_CPUS * sizeof *p.cpu_owner);
	if (!p.cpu_owner) {
		rc = NS_ENOMEM;
		goto out;
	}
	for (int i = 0; i < MACHINE_MAX_CPUS; i++)
		p.cpu_owner[i] = -1;
	if ((rc = nl_split(&p, text, len)) || (rc = nl_parse(&p)))
		goto out;
	import_layout_zones(out, arch);
	nl_notes(&p, cpu, notes);
out:
	if (rc && rc != NS_ENOMEM && d && d->status == NS_OK)
		diag_set(d, rc, name, 0, 0, "%s", ns_status_msg(rc));
	if (rc)
		machine_desc_free(out);
	free(p.cpu_owner);
	free(p.seen);
	free(p.cpu_cap);
	free(p.lines);
	free(p.text);
	return rc;
}

int import_parse_numactl(const char *name, const char *text, size_t len,
			 enum import_arch arch, struct machine_desc *out,
			 struct diag *d)
{
	struct cpu_id cpu;
	cpu_id_init(&cpu);
	return parse_numactl(name, text, len, arch, out, &cpu, NULL, d);
}

static void numactl_name(const char *name, const struct import_opts *o,
			 const struct import_notes *n, char *buf, size_t len,
			 char *from, size_t flen)
{
	char base[256];
	const char *out = o->output && strcmp(o->output, "-") ? o->output : NULL;
	if (strcmp(name, "-")) {
		base_name(name, base, sizeof base);
		snprintf(from, flen, "the input file's name");
	} else if (out) {
		base_name(out, base, sizeof base);
		snprintf(from, flen, "the -o file's name");
	} else if (n->host[0]) {
		snprintf(base, sizeof base, "%s", n->host);
		snprintf(from, flen, "the host of the pasted shell prompt");
	} else {
		snprintf(base, sizeof base, "stdin");
		snprintf(from, flen, "standard input has no name: give --name or -o");
	}
	snprintf(buf, len, "%s", base[0] ? base : "imported");
}

/* Does the text say "No NUMA available on this system" (first numactl line)? */
static int says_no_numa(const char *text, size_t len)
{
	for (size_t i = 0; i < len;) {
		const char *e = memchr(text + i, '\n', len - i);
		size_t n = e ? (size_t)(e - (text + i)) : len - i;
		const char *t = text + i;
		while (n && (*t == ' ' || *t == '\t'))
			t++, n--;
		if (n >= 10 && !strncmp(t, "available:", 10))
			return 0;
		if (n >= 32 && !strncmp(t, "No NUMA available on this system", 32))
			return 1;
		i += n + (size_t)(t - (text + i)) + 1;
	}
	return 0;
}

/*
 * numactl --hardware on a kernel without CONFIG_NUMA prints only "No NUMA
 * available on this system": the kernel then has one node, 0, holding
 * every CPU and all memory (include/linux/numa.h: MAX_NUMNODES 1).  The
 * numactl text of that node is written and parsed as any other.
 */
static char *one_node_text(const struct import_opts *o, size_t *len)
{
	size_t cap = 256 + (size_t)o->one_node_cpus * 6;
	char *b = malloc(cap);
	if (!b)
		return NULL;
	size_t at = (size_t)snprintf(b, cap, "available: 1 nodes (0)\nnode 0 cpus:");
	for (int c = 0; c < o->one_node_cpus; c++)
		at += (size_t)snprintf(b + at, cap - at, " %d", c);
	at += (size_t)snprintf(b + at, cap - at, "\nnode 0 size: %llu MB\nnode 0 free: %llu MB\n"
			       "node distances:\nnode   0\n  0:  10\n",
			       (unsigned long long)o->one_node_mib,
			       (unsigned long long)o->one_node_mib);
	*len = at;
	return b;
}

int import_numactl(const char *name, const char *text, size_t len,
		   const struct import_opts *o, struct machine_desc *out,
		   struct import_notes *notes, struct diag *d)
{
	char note[512], base[256];
	struct import_notes local;
	struct import_notes *n = notes ? notes : &local;
	struct cpu_id cpu;
	memset(n, 0, sizeof *n);
	cpu_id_init(&cpu);
	int rc;
	if (o->one_node_cpus > 0 && o->one_node_mib > 0 && len <= IMPORT_MAX_INPUT &&
	    says_no_numa(text, len)) {
		size_t olen;
		char *one = one_node_text(o, &olen);
		if (!one)
			return NS_ENOMEM;
		rc = parse_numactl(name, one, olen, o->arch, out, &cpu, NULL, d);
		free(one);
		snprintf(n->one_node, sizeof n->one_node, "numactl reports no NUMA (a kernel "
			 "without CONFIG_NUMA): one node 0 with %d CPUs and %llu MiB (%s)",
			 o->one_node_cpus, (unsigned long long)o->one_node_mib,
			 o->one_node_from ? o->one_node_from : "given");
	} else {
		rc = parse_numactl(name, text, len, o->arch, out, &cpu, n, d);
	}
	if (rc)
		return rc;
	numactl_name(name, o, n, base, sizeof base, n->name_from,
		     sizeof n->name_from);
	snprintf(n->name, sizeof n->name, "%s", o->name ? o->name : base);
	if (o->name)
		snprintf(n->name_from, sizeof n->name_from, "given with --name");
	const char *costs = choose_costs(o, &cpu, "the numactl --hardware output", n);
	rc = import_complete(out, o, "numactl --hardware output",
			     strcmp(name, "-") ? name : "standard input",
			     layout_note(o->arch, note, sizeof note), base, costs, d);
	if (rc)
		machine_desc_free(out);
	return rc;
}

/* Default name of a sysfs import: the tree's directory name, or for the
 * live system its host name. */
