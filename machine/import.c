/*
 * import — machine descriptions from numactl output and sysfs; see import.h.
 *
 * Design notes.  Both importers fill the same struct machine_desc in two
 * steps: a parser that only establishes the topology (node ids, CPUs, node
 * memory, SLIT, and zones when the input has them), then import_complete()
 * which adds what the input cannot say (name, description, provenance and
 * the cost profile).  The numactl parser works on a private NUL-terminated
 * copy of the text split into lines, so every token has a line and a column
 * for its message; it is a small state machine over the four parts numactl
 * prints (available line, node lines, distance header, distance rows) and
 * checks every cross-reference between them (counts, ids, row lengths) at
 * the place where the mismatch shows.  A CPU owner table (MACHINE_MAX_CPUS
 * entries) catches a CPU listed under two nodes, which numa=fake produces.
 * Rendering always goes through machine_load_buf(), so what leaves this
 * module is a file the rest of numasim accepts.
 */
#include "machine/import.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "machine/cpulist.h"
#include "machine/datafile.h"
#include "machine/machine.h"
#include "numasim_config.h"

#define MiB ((uint64_t)1 << 20)
#define GiB ((uint64_t)1 << 30)
#define IMPORT_MAX_INPUT ((size_t)16 << 20)
#define IMPORT_MAX_PROFILE ((size_t)1 << 20)

static const char *const arch_names[] = {
#define IMPORT_ARCH_NAME(id, name) name,
	IMPORT_ARCH_MAP(IMPORT_ARCH_NAME)
#undef IMPORT_ARCH_NAME
};

const char *import_arch_name(enum import_arch a)
{
	return (unsigned)a < NR_IMPORT_ARCHS ? arch_names[a] : "unknown";
}

int import_arch_parse(const char *s)
{
	for (int i = 0; i < NR_IMPORT_ARCHS; i++)
		if (!strcmp(s, arch_names[i]))
			return i;
	if (!strcmp(s, "x86-64") || !strcmp(s, "amd64"))
		return IMPORT_ARCH_X86_64;
	if (!strcmp(s, "aarch64"))
		return IMPORT_ARCH_ARM64;
	return -1;
}

void import_opts_init(struct import_opts *o)
{
	memset(o, 0, sizeof *o);
	o->arch = IMPORT_ARCH_X86_64;
}

/* ------------------------------------------------------------------ */
/* Zone layout                                                         */

struct zone_span {
	enum zone_type type;
	uint64_t lo, hi;       /* bytes; hi = UINT64_MAX for "to the end" */
};

static int arch_spans(enum import_arch arch, struct zone_span *s)
{
	switch (arch) {
	case IMPORT_ARCH_X86_64:
		s[0] = (struct zone_span){ZONE_DMA, 0, 16 * MiB};
		s[1] = (struct zone_span){ZONE_DMA32, 16 * MiB, 4 * GiB};
		s[2] = (struct zone_span){ZONE_NORMAL, 4 * GiB, UINT64_MAX};
		return 3;
	case IMPORT_ARCH_ARM64:
		s[0] = (struct zone_span){ZONE_DMA, 0, 4 * GiB};
		s[1] = (struct zone_span){ZONE_NORMAL, 4 * GiB, UINT64_MAX};
		return 2;
	case IMPORT_ARCH_NONE:
	case NR_IMPORT_ARCHS:
		break;
	}
	s[0] = (struct zone_span){ZONE_NORMAL, 0, UINT64_MAX};
	return 1;
}

void import_layout_zones(struct machine_desc *m, enum import_arch arch)
{
	struct zone_span spans[NR_ZONE_TYPES];
	int nr_spans = arch_spans(arch, spans);
	uint64_t page = m->page_size;
	uint64_t addr = 0;     /* in pages: where the next node's memory starts */

	for (int i = 0; i < m->nr_nodes; i++) {
		struct desc_node *n = &m->nodes[i];
		uint64_t start = addr, end = addr + n->mem_pages;
		n->nr_zones = 0;
		for (int s = 0; s < nr_spans; s++) {
			uint64_t lo = spans[s].lo / page;
			uint64_t hi = spans[s].hi == UINT64_MAX ? UINT64_MAX :
				      spans[s].hi / page;
			uint64_t a = start > lo ? start : lo;
			uint64_t b = end < hi ? end : hi;
			if (b > a)
				n->zones[n->nr_zones++] =
					(struct desc_zone){spans[s].type, b - a};
		}
		addr = end;
	}
}

/* ------------------------------------------------------------------ */
/* Shared helpers                                                      */

static int add_node(struct machine_desc *m, int id)
{
	struct desc_node *nn = realloc(m->nodes,
				       (size_t)(m->nr_nodes + 1) * sizeof *nn);
	if (!nn)
		return NS_ENOMEM;
	m->nodes = nn;
	memset(&nn[m->nr_nodes], 0, sizeof *nn);
	nn[m->nr_nodes].id = id;
	m->nr_nodes++;
	return NS_OK;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int node_pos(const struct machine_desc *m, int id)
{
	for (int i = 0; i < m->nr_nodes; i++)
		if (m->nodes[i].id == id)
			return i;
	return -1;
}

/* Read a whole (small) file; NS_ENOENT if it does not exist. */
static int read_file(const char *path, size_t max, char **out, size_t *len,
		     struct diag *d)
{
	/* O_NONBLOCK: a FIFO planted in the tree must not block the open;
	 * anything but a regular file is refused before it is read */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return diag_set(d, errno == ENOENT ? NS_ENOENT : NS_EIO, path, 0, 0,
				"cannot open: %s", strerror(errno));
	struct stat sb = {0};
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return diag_set(d, NS_EINPUT, path, 0, 0, "not a regular file (%s)",
				S_ISDIR(sb.st_mode) ? "a directory" : S_ISFIFO(sb.st_mode) ?
				"a FIFO" : S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) ?
				"a device" : S_ISSOCK(sb.st_mode) ? "a socket" : "not a file");
	}
	FILE *f = fdopen(fd, "rb");
	if (!f) {
		close(fd);
		return diag_set(d, NS_ENOMEM, path, 0, 0, "out of memory");
	}
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	int rc = NS_OK;
	if (!buf) {
		rc = NS_ENOMEM;
		goto out;
	}
	for (;;) {
		if (n + 1 >= cap) {
			if (cap > max) {
				rc = diag_set(d, NS_EINPUT, path, 0, 0,
					      "file larger than %zu bytes", max);
				goto out;
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				rc = NS_ENOMEM;
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		rc = diag_set(d, NS_EIO, path, 0, 0, "read error");
		goto out;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	buf = NULL;
out:
	free(buf);
	fclose(f);
	return rc;
}

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

static const char *skip_ws(const char *s)
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
static const char *parse_u64(const char *s, uint64_t limit, uint64_t *out)
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

/* The CPU, from /proc/cpuinfo or a pasted lscpu (kept with the numactl
 * parser for its text helpers; used by both importers). */

/*
 * What the input says about the CPU: /proc/cpuinfo ("vendor_id : ...",
 * "cpu family", "model", "model name"; arm64 "CPU implementer", "CPU
 * part"; ppc64 "cpu") or lscpu ("Vendor ID:", "CPU family:", "Model:",
 * "Model name:", "Architecture:").  The first value of each key counts
 * (cpuinfo repeats them per CPU).
 */
struct cpu_id {
	char vendor[32], model_name[128], arch[32], ppc[64];
	long family, model, implementer, part;   /* -1: not given */
};

static void cpu_id_init(struct cpu_id *c)
{
	memset(c, 0, sizeof *c);
	c->family = c->model = c->implementer = c->part = -1;
}

/* Is key (before the colon, blanks trimmed) k, ignoring case? */
static int key_is(const char *key, size_t kl, const char *k)
{
	return strlen(k) == kl && !strncasecmp(key, k, kl);
}

static void cpu_id_line(struct cpu_id *c, const char *line)
{
	const char *colon = strchr(line, ':');
	if (!colon)
		return;
	const char *key = skip_ws(line);
	size_t kl = (size_t)(colon - key);
	while (kl && (key[kl - 1] == ' ' || key[kl - 1] == '\t'))
		kl--;
	const char *v = skip_ws(colon + 1);
	size_t vl = strcspn(v, "\r\n");
	while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
		vl--;
	char val[128];
	if (!kl || !vl)
		return;
	snprintf(val, sizeof val, "%.*s", (int)vl, v);
	char *end;
	long num = strtol(val, &end, 0);
	int is_num = end != val && *end == '\0' && num >= 0;
	if ((key_is(key, kl, "vendor_id") || key_is(key, kl, "vendor id")) && !c->vendor[0])
		snprintf(c->vendor, sizeof c->vendor, "%.31s", val);
	else if ((key_is(key, kl, "model name")) && !c->model_name[0])
		snprintf(c->model_name, sizeof c->model_name, "%s", val);
	else if (key_is(key, kl, "architecture") && !c->arch[0])
		snprintf(c->arch, sizeof c->arch, "%.31s", val);
	else if (key_is(key, kl, "cpu") && !c->ppc[0] && !strncmp(val, "POWER", 5))
		snprintf(c->ppc, sizeof c->ppc, "%.*s", (int)strcspn(val, " ("), val);
	else if (key_is(key, kl, "cpu family") && is_num && c->family < 0)
		c->family = num;
	else if (key_is(key, kl, "model") && is_num && c->model < 0)
		c->model = num;
	else if (key_is(key, kl, "cpu implementer") && is_num && c->implementer < 0)
		c->implementer = num;
	else if (key_is(key, kl, "cpu part") && is_num && c->part < 0)
		c->part = num;
}

/* x86 family 6 models of the shipped Intel profiles (arch/x86/include/
 * asm/intel-family.h); the rest of family 6 takes the server default. */
static const char *intel_profile(long model)
{
	static const struct { long model; const char *profile; } t[] = {
		{0x3F, "broadwell-ep"}, {0x4F, "broadwell-ep"}, {0x56, "broadwell-ep"},
		{0x55, "skylake-sp"}, {0x6A, "skylake-sp"}, {0x6C, "skylake-sp"},
		{0x8F, "skylake-sp"}, {0xCF, "skylake-sp"}, {0xAD, "skylake-sp"},
		{0x4E, "client-skylake"}, {0x5E, "client-skylake"},
		{0x8E, "client-skylake"}, {0x9E, "client-skylake"},
		{0xA5, "client-skylake"}, {0xA6, "client-skylake"},
		{0x7D, "client-skylake"}, {0x7E, "client-skylake"},
		{0x8C, "client-skylake"}, {0x8D, "client-skylake"},
		{0x97, "client-skylake"}, {0x9A, "client-skylake"},
		{0xB7, "client-skylake"}, {0xBA, "client-skylake"},
		{0xBF, "client-skylake"},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (t[i].model == model)
			return t[i].profile;
	return NULL;
}

/*
 * The shipped profile nearest to the CPU, or NULL when the input does not
 * name one; *cpu_text describes the CPU as the input did.
 */
static const char *cpu_profile(const struct cpu_id *c, char *cpu_text, size_t len)
{
	const char *prof = NULL;
	int intel = !strcmp(c->vendor, "GenuineIntel");
	int amd = !strcmp(c->vendor, "AuthenticAMD") || !strcmp(c->vendor, "HygonGenuine");
	if (c->model_name[0])
		snprintf(cpu_text, len, "%s", c->model_name);
	else if (c->vendor[0] || c->implementer >= 0)
		snprintf(cpu_text, len, "%s", c->vendor[0] ? c->vendor : "arm64");
	else if (c->ppc[0])
		snprintf(cpu_text, len, "%s", c->ppc);
	else
		cpu_text[0] = '\0';
	if (intel && c->family == 6)
		prof = intel_profile(c->model);
	if (intel && !prof)
		prof = "skylake-sp";
	/* Zen 1/Zen+ (and Hygon's Dhyana, family 0x18) are nearest Zen 2;
	 * Zen 4/5 nearest Zen 3. */
	if (amd)
		prof = c->family >= 0x19 ? "zen3" : "zen2";
	if (c->implementer >= 0 || !strcmp(c->vendor, "HiSilicon") ||
	    !strcmp(c->vendor, "ARM") || !strcmp(c->arch, "aarch64"))
		prof = "kunpeng920";
	if (prof && (c->family >= 0 || c->implementer >= 0)) {
		size_t n = strlen(cpu_text);
		if (c->family >= 0)
			snprintf(cpu_text + n, len - n, "%sfamily 0x%lx model 0x%lx%s",
				 n ? " (" : "", c->family, c->model < 0 ? 0 : c->model,
				 n ? ")" : "");
		else
			snprintf(cpu_text + n, len - n, "%simplementer 0x%lx part 0x%lx%s",
				 n ? " (" : "", c->implementer, c->part < 0 ? 0 : c->part,
				 n ? ")" : "");
	}
	return prof;
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
	if (store)
		n->mem_pages = mb * MiB / p->m->page_size;
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

static int nl_alloc_distance(struct machine_desc *m)
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

/* ------------------------------------------------------------------ */
/* sysfs / procfs                                                      */

struct sf_reader {
	const char *root;
	struct machine_desc *m;
	struct diag *d;
	char path[4096];
};

static const char *sf_path(struct sf_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static const char *sf_path(struct sf_reader *r, const char *fmt, ...)
{
	size_t n = strlen(r->root);
	while (n > 1 && r->root[n - 1] == '/')
		n--;
	int k = snprintf(r->path, sizeof r->path, "%.*s",
			 (int)(n == 1 && r->root[0] == '/' ? 0 : n), r->root);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->path + k, sizeof r->path - (size_t)k, fmt, ap);
	va_end(ap);
	return r->path;
}

/* A cpulist-format file: node/online or nodeN/cpulist. */
static int sf_cpulist(struct sf_reader *r, const char *path, int max,
		      int **out, int *nr)
{
	char *buf;
	size_t len;
	int rc = read_file(path, IMPORT_MAX_PROFILE, &buf, &len, r->d);
	if (rc)
		return rc;
	size_t errpos;
	char msg[128];
	rc = cpulist_parse(buf, max, 0, out, nr, &errpos, msg, sizeof msg);
	if (rc == NS_EINPUT) {
		int line = 1, col = 1;
		for (size_t i = 0; i < errpos && buf[i]; i++, col++)
			if (buf[i] == '\n') {
				line++;
				col = 0;
			}
		rc = diag_set(r->d, NS_EINPUT, path, line, col, "%s", msg);
	}
	free(buf);
	return rc;
}

/* nodeN/distance: one line of nr_nodes numbers, in online-node order. */
static int sf_distance(struct sf_reader *r, int row)
{
	int nn = r->m->nr_nodes, id = r->m->nodes[row].id;
	const char *path = sf_path(r, "/sys/devices/system/node/node%d/distance", id);
	char *buf;
	size_t len;
	int rc = read_file(path, IMPORT_MAX_PROFILE, &buf, &len, r->d);
	if (rc)
		return rc;
	const char *q = buf;
	int j;
	for (j = 0;; j++) {
		const char *tok = q;
		while (*tok == ' ' || *tok == '\t')
			tok++;
		int col = (int)(tok - buf) + 1;
		if (!*tok || *tok == '\n') {
			if (j < nn)
				rc = diag_set(r->d, NS_EINPUT, path, 1, col, "%d distances "
					      "for %d online nodes", j, nn);
			else if (*tok == '\n' && tok[1])
				rc = diag_set(r->d, NS_EINPUT, path, 2, 1,
					      "unexpected second line");
			break;
		}
		uint64_t v;
		if (j >= nn) {
			rc = diag_set(r->d, NS_EINPUT, path, 1, col, "more than %d "
				      "distances for %d online nodes", nn, nn);
			break;
		}
		if (!(q = parse_u64(tok, 1000000, &v)) ||
		    (*q && *q != ' ' && *q != '\t' && *q != '\n')) {
			rc = diag_set(r->d, NS_EINPUT, path, 1, col,
				      "expected a distance (a whole number)");
			break;
		}
		if ((j == row && v != MACHINE_DISTANCE_LOCAL) ||
		    v < MACHINE_DISTANCE_LOCAL || v > MACHINE_DISTANCE_UNREACHABLE) {
			rc = diag_set(r->d, NS_EINPUT, path, 1, col, j == row ?
				      "local distance must be 10, not %llu" :
				      "distance %llu out of range 10..255",
				      (unsigned long long)v);
			break;
		}
		r->m->distance[row * nn + j] = (int)v;
	}
	free(buf);
	return rc;
}

/* nodeN/meminfo: "Node N MemTotal:   K kB" gives the node total. */
static int sf_meminfo(struct sf_reader *r, int pos)
{
	struct desc_node *n = &r->m->nodes[pos];
	const char *path = sf_path(r, "/sys/devices/system/node/node%d/meminfo",
				   n->id);
	char *buf;
	size_t len;
	int rc = read_file(path, IMPORT_MAX_PROFILE, &buf, &len, r->d);
	if (rc)
		return rc;
	int line = 1, found = 0;
	for (char *s = buf; *s && !found; line++) {
		char *e = strchr(s, '\n');
		if (e)
			*e = '\0';
		int nid, off = 0;
		if (sscanf(s, "Node %d MemTotal:%n", &nid, &off) == 1 && off > 0) {
			const char *t = skip_ws(s + off), *q;
			uint64_t kb;
			if (nid != n->id)
				rc = diag_set(r->d, NS_EINPUT, path, line, 6, "meminfo "
					      "of node %d is about node %d", n->id, nid);
			else if (!(q = parse_u64(t, (uint64_t)1 << 54, &kb)) ||
				 strcmp(skip_ws(q), "kB"))
				rc = diag_set(r->d, NS_EINPUT, path, line,
					      (int)(t - s) + 1, "expected 'K kB'");
			else
				n->mem_pages = kb * 1024 / r->m->page_size;
			found = 1;
		}
		s = e ? e + 1 : s + strlen(s);
	}
	if (!found && rc == NS_OK)
		rc = diag_set(r->d, NS_EINPUT, path, 0, 0, "no 'Node %d MemTotal:' "
			      "line", n->id);
	free(buf);
	return rc;
}

/*
 * proc/zoneinfo: "Node N, zone NAME" starts a zone; its "present P" line
 * gives the size.  Returns NS_ENOENT (without a message) if absent.
 */
static int sf_zoneinfo(struct sf_reader *r)
{
	const char *path = sf_path(r, "/proc/zoneinfo");
	char *buf;
	size_t len;
	struct diag quiet;
	diag_init(&quiet);
	int rc = read_file(path, IMPORT_MAX_INPUT, &buf, &len, &quiet);
	if (rc == NS_ENOENT)
		return rc;
	if (rc)
		return diag_set(r->d, rc, quiet.file, 0, 0, "%s", quiet.msg);
	int line = 1, pos = -1, type = -1, zone_line = 0;
	for (char *s = buf; *s && rc == NS_OK; line++) {
		char *e = strchr(s, '\n');
		if (e)
			*e = '\0';
		int nid, off = 0;
		char zname[32];
		const char *t = skip_ws(s);
		if (sscanf(s, "Node %d, zone %31s%n", &nid, zname, &off) == 2 &&
		    off > 0) {
			pos = node_pos(r->m, nid);
			zone_line = line;
			if (pos < 0) {
				rc = diag_set(r->d, NS_EINPUT, path, line, 6, "zone of "
					      "node %d, which is not online", nid);
				break;
			}
			type = zone_type_parse(zname);
			if (type < 0 && strcmp(zname, "Device"))
				rc = diag_set(r->d, NS_EINPUT, path, line,
					      (int)(strstr(s, zname) - s) + 1,
					      "unknown zone type '%s'", zname);
		} else if (!strncmp(t, "present", 7) &&
			   (t[7] == ' ' || t[7] == '\t') && pos >= 0 && type >= 0) {
			const char *v = skip_ws(t + 7), *q;
			uint64_t pages;
			if (!(q = parse_u64(v, (uint64_t)1 << 52, &pages)) || *skip_ws(q)) {
				rc = diag_set(r->d, NS_EINPUT, path, line,
					      (int)(v - s) + 1, "expected a page count "
					      "after 'present'");
				break;
			}
			struct desc_node *n = &r->m->nodes[pos];
			for (int z = 0; z < n->nr_zones; z++)
				if (n->zones[z].type == (enum zone_type)type) {
					rc = diag_set(r->d, NS_EINPUT, path, zone_line, 1,
						      "second zone %s for node %d",
						      zone_type_name((enum zone_type)type),
						      n->id);
					break;
				}
			if (rc == NS_OK && pages) {
				if (n->nr_zones &&
				    n->zones[n->nr_zones - 1].type > (enum zone_type)type)
					rc = diag_set(r->d, NS_EINPUT, path, zone_line, 1,
						      "zones of node %d out of order",
						      n->id);
				else
					n->zones[n->nr_zones++] = (struct desc_zone){
						(enum zone_type)type, pages};
			}
			type = -1;      /* one present line per zone */
		}
		s = e ? e + 1 : s + strlen(s);
	}
	free(buf);
	return rc;
}

int import_parse_sysfs(const char *root, enum import_arch arch,
		       struct machine_desc *out, struct diag *d)
{
	struct sf_reader r = {.root = root, .m = out, .d = d};
	int *ids = NULL, nr = 0, rc;
	rc = sf_cpulist(&r, sf_path(&r, "/sys/devices/system/node/online"),
			MACHINE_MAX_NODES, &ids, &nr);
	if (rc)
		goto out;
	if (!nr) {
		rc = diag_set(d, NS_EINPUT, r.path, 1, 1, "no online NUMA nodes");
		goto out;
	}
	for (int i = 0; i < nr && rc == NS_OK; i++)
		rc = add_node(out, ids[i]);
	if (rc || (rc = nl_alloc_distance(out)))
		goto out;
	int *owner = malloc(MACHINE_MAX_CPUS * sizeof *owner);
	if (!owner) {
		rc = NS_ENOMEM;
		goto out;
	}
	for (int c = 0; c < MACHINE_MAX_CPUS; c++)
		owner[c] = -1;
	for (int i = 0; i < nr && rc == NS_OK; i++) {
		struct desc_node *n = &out->nodes[i];
		const char *path = sf_path(&r, "/sys/devices/system/node/node%d/cpulist",
					   n->id);
		rc = sf_cpulist(&r, path, MACHINE_MAX_CPUS, &n->cpus, &n->nr_cpus);
		for (int c = 0; rc == NS_OK && c < n->nr_cpus; c++) {
			if (owner[n->cpus[c]] >= 0)
				rc = diag_set(d, NS_EINPUT, path, 1, 1, "CPU %d is also "
					      "in node %d", n->cpus[c], owner[n->cpus[c]]);
			owner[n->cpus[c]] = n->id;
		}
		if (rc == NS_OK)
			rc = sf_distance(&r, i);
		if (rc == NS_OK)
			rc = sf_meminfo(&r, i);
	}
	free(owner);
	if (rc)
		goto out;
	rc = sf_zoneinfo(&r);
	if (rc == NS_ENOENT) {
		import_layout_zones(out, arch);
		rc = NS_OK;
		goto out;
	}
	/* zoneinfo present pages >= MemTotal (managed); a smaller sum means
	 * the two files come from different boots or boxes. */
	for (int i = 0; i < nr && rc == NS_OK; i++) {
		struct desc_node *n = &out->nodes[i];
		uint64_t sum = 0;
		for (int z = 0; z < n->nr_zones; z++)
			sum += n->zones[z].pages;
		if (sum < n->mem_pages)
			rc = diag_set(d, NS_EINPUT, sf_path(&r, "/proc/zoneinfo"), 0, 0,
				      "node %d: zones have %llu present pages but "
				      "node%d/meminfo MemTotal is %llu pages",
				      n->id, (unsigned long long)sum, n->id,
				      (unsigned long long)n->mem_pages);
		n->mem_pages = sum;
	}
out:
	free(ids);
	if (rc && rc != NS_ENOMEM && d && d->status == NS_OK)
		diag_set(d, rc, root, 0, 0, "%s", ns_status_msg(rc));
	if (rc)
		machine_desc_free(out);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Cost profiles                                                       */

const char *import_default_costs(enum import_arch arch)
{
	/* The server cores the shipped profiles describe; ppc64/s390 boxes
	 * have no profile of their own and get the x86 server one. */
	return arch == IMPORT_ARCH_ARM64 ? "kunpeng920" : "skylake-sp";
}

/* Find the profile file (datafile.h: a path, or a name looked up in the
 * data directories); *path is malloc'ed. */
static int costs_find(const char *costs, char **path, struct diag *d)
{
	if (!strchr(costs, '/'))
		for (const char *p = costs; *p; p++)
			if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' &&
			    *p != '.')
				return diag_set(d, NS_EUSAGE, NULL, 0, 0, "cost profile "
						"name '%s' has characters other than "
						"letters, digits, '-', '_' and '.'", costs);
	struct diag rd;
	diag_init(&rd);
	int rc = datafile_resolve(DATAFILE_COSTS, costs, path, &rd);
	if (rc != NS_ENOENT || strchr(costs, '/')) {
		if (rc)
			*d = rd;
		return rc;
	}
	struct datafile_dirs dd;
	char where[1024] = "";
	datafile_kind_dirs(DATAFILE_COSTS, &dd);
	for (int i = 0; i < dd.nr; i++) {
		size_t l = strlen(where);
		snprintf(where + l, sizeof where - l, "%s%s", i ? ", " : "", dd.dir[i]);
	}
	return diag_set(d, NS_ENOENT, NULL, 0, 0, "no cost profile '%s' (looked "
			"in %s; set NUMASIM_CONFIGS or give --costs a path)", costs,
			dd.nr ? where : "no data directory");
}

static int file_exists(const char *p)
{
	FILE *f = fopen(p, "rb");
	if (f)
		fclose(f);
	return f != NULL;
}

/* Skip one YAML node (and its children) whose first event is ev. */
static int yaml_skip(yaml_parser_t *yp, yaml_event_t *ev, yaml_mark_t *end,
		     const char *path, struct diag *d)
{
	int depth = 0;
	for (;;) {
		switch (ev->type) {
		case YAML_ALIAS_EVENT:
			return diag_set(d, NS_EINPUT, path,
					(int)ev->start_mark.line + 1,
					(int)ev->start_mark.column + 1,
					"YAML aliases are not accepted");
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT:
			if (++depth > 64)
				return diag_set(d, NS_EINPUT, path,
						(int)ev->start_mark.line + 1,
						(int)ev->start_mark.column + 1,
						"nesting deeper than 64 levels");
			break;
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			depth--;
			break;
		default:
			break;
		}
		*end = ev->end_mark;
		if (depth == 0)
			return NS_OK;
		yaml_event_delete(ev);
		if (!yaml_parser_parse(yp, ev))
			return diag_set(d, NS_EINPUT, path,
					(int)yp->problem_mark.line + 1,
					(int)yp->problem_mark.column + 1, "%s",
					yp->problem ? yp->problem : "YAML error");
	}
}

struct profile_scan {
	char *name, *description;
	size_t costs_key, costs_end; /* byte offsets: key start, value end */
	int costs_line;              /* 1-based */
	int has_costs;
};

static int scalar_copy(yaml_event_t *ev, char **out)
{
	free(*out);
	*out = strndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
	return *out ? NS_OK : NS_ENOMEM;
}

/* Walk the profile's top-level mapping: name, description, costs. */
static int profile_scan(const char *path, const char *text, size_t len,
			struct profile_scan *ps, struct diag *d)
{
	yaml_parser_t yp;
	yaml_event_t ev;
	int rc = NS_OK, level = 0, have_ev = 0;
	if (!yaml_parser_initialize(&yp))
		return NS_ENOMEM;
	yaml_parser_set_input_string(&yp, (const unsigned char *)text, len);
	for (;;) {
		if (!yaml_parser_parse(&yp, &ev)) {
			rc = diag_set(d, NS_EINPUT, path, (int)yp.problem_mark.line + 1,
				      (int)yp.problem_mark.column + 1, "%s",
				      yp.problem ? yp.problem : "YAML error");
			break;
		}
		have_ev = 1;
		int line = (int)ev.start_mark.line + 1, col = (int)ev.start_mark.column + 1;
		if (ev.type == YAML_STREAM_END_EVENT || ev.type == YAML_DOCUMENT_END_EVENT)
			break;
		if (ev.type == YAML_STREAM_START_EVENT || ev.type == YAML_DOCUMENT_START_EVENT) {
			yaml_event_delete(&ev);
			have_ev = 0;
			continue;
		}
		if (level == 0) {
			if (ev.type != YAML_MAPPING_START_EVENT ||
			    ev.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE) {
				rc = diag_set(d, NS_EINPUT, path, line, col, "a cost "
					      "profile is a block mapping with keys "
					      "name, description and costs");
				break;
			}
			level = 1;
			yaml_event_delete(&ev);
			have_ev = 0;
			continue;
		}
		if (ev.type == YAML_MAPPING_END_EVENT)
			break;
		if (ev.type != YAML_SCALAR_EVENT) {
			rc = diag_set(d, NS_EINPUT, path, line, col, "expected a key");
			break;
		}
		char key[32];
		snprintf(key, sizeof key, "%.*s", (int)ev.data.scalar.length,
			 (const char *)ev.data.scalar.value);
		size_t key_at = ev.start_mark.index;
		int key_line = line, key_col = col;
		yaml_event_delete(&ev);
		have_ev = 0;
		if (!yaml_parser_parse(&yp, &ev)) {
			rc = diag_set(d, NS_EINPUT, path, (int)yp.problem_mark.line + 1,
				      (int)yp.problem_mark.column + 1, "%s",
				      yp.problem ? yp.problem : "YAML error");
			break;
		}
		have_ev = 1;
		line = (int)ev.start_mark.line + 1;
		col = (int)ev.start_mark.column + 1;
		if (!strcmp(key, "name") || !strcmp(key, "description")) {
			if (ev.type != YAML_SCALAR_EVENT) {
				rc = diag_set(d, NS_EINPUT, path, line, col, "'%s' must "
					      "be a string", key);
				break;
			}
			rc = scalar_copy(&ev, key[0] == 'n' ? &ps->name : &ps->description);
		} else if (!strcmp(key, "costs")) {
			yaml_mark_t end = {0, 0, 0};
			if (key_col != 1) {
				rc = diag_set(d, NS_EINPUT, path, key_line, key_col,
					      "'costs:' must start in column 1");
				break;
			}
			if (ev.type != YAML_MAPPING_START_EVENT) {
				rc = diag_set(d, NS_EINPUT, path, line, col, "'costs' "
					      "must be a mapping");
				break;
			}
			rc = yaml_skip(&yp, &ev, &end, path, d);
			ps->has_costs = 1;
			ps->costs_key = key_at;
			ps->costs_end = end.index;
			ps->costs_line = key_line;
		} else {
			rc = diag_set(d, NS_EINPUT, path, key_line, key_col, "unknown "
				      "key '%s' in a cost profile (expected name, "
				      "description, costs)", key);
		}
		if (rc)
			break;
		yaml_event_delete(&ev);
		have_ev = 0;
	}
	if (have_ev)
		yaml_event_delete(&ev);
	yaml_parser_delete(&yp);
	if (rc == NS_OK && !ps->has_costs)
		rc = diag_set(d, NS_EINPUT, path, 1, 1, "cost profile has no "
			      "'costs:' mapping");
	return rc;
}

int import_load_costs(const char *costs, char **block, char **path, char **pname,
		      char **pdescription, int *block_line, struct diag *d)
{
	char *text = NULL;
	size_t len;
	struct profile_scan ps = {0};
	int rc = costs_find(costs, path, d);
	if (rc)
		return rc;
	if ((rc = read_file(*path, IMPORT_MAX_PROFILE, &text, &len, d)))
		goto out;
	/* The cost loader judges the figures (with positions in the
	 * profile); the scan only locates the block to copy. */
	struct machine_costs c;
	if ((rc = machine_costs_load_buf(*path, text, len, &c, d)))
		goto out;
	machine_costs_free(&c);
	if ((rc = profile_scan(*path, text, len, &ps, d)))
		goto out;
	/* The block runs from "costs:" to the end of the line where the
	 * mapping's last value ends (keeping a trailing comment there). */
	size_t end = ps.costs_end;
	while (end < len && text[end] != '\n')
		end++;
	*block = malloc(end - ps.costs_key + 2);
	if (!*block) {
		rc = NS_ENOMEM;
		goto out;
	}
	memcpy(*block, text + ps.costs_key, end - ps.costs_key);
	(*block)[end - ps.costs_key] = '\n';
	(*block)[end - ps.costs_key + 1] = '\0';
	if (block_line)
		*block_line = ps.costs_line;
	if (pname) {
		*pname = ps.name;
		ps.name = NULL;
	}
	if (pdescription) {
		*pdescription = ps.description;
		ps.description = NULL;
	}
out:
	if (rc) {
		free(*path);
		*path = NULL;
	}
	free(ps.name);
	free(ps.description);
	free(text);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Completion and rendering                                            */

static void summary(const struct machine_desc *m, char *buf, size_t len)
{
	int cpus = 0, memnodes = 0, cpunodes = 0;
	uint64_t pages = 0;
	for (int i = 0; i < m->nr_nodes; i++) {
		cpus += m->nodes[i].nr_cpus;
		pages += m->nodes[i].mem_pages;
		memnodes += m->nodes[i].mem_pages > 0;
		cpunodes += m->nodes[i].nr_cpus > 0;
	}
	uint64_t mib = pages * m->page_size / MiB;
	snprintf(buf, len, "%d node%s (%d with CPUs, %d with memory), %d CPUs, "
		 "%llu MiB", m->nr_nodes, m->nr_nodes == 1 ? "" : "s", cpunodes,
		 memnodes, cpus, (unsigned long long)mib);
}

static const char *base_name(const char *p, char *buf, size_t len)
{
	size_t n = strlen(p);
	while (n > 1 && p[n - 1] == '/')
		n--;
	size_t s = n;
	while (s > 0 && p[s - 1] != '/')
		s--;
	size_t k = n - s;
	const char *dot = memchr(p + s, '.', k);
	if (dot && dot > p + s)
		k = (size_t)(dot - (p + s));
	snprintf(buf, len, "%.*s", (int)k, p + s);
	return buf;
}

/* Shipped profiles are cited relative to their data directory, so that
 * the same import gives the same file from any checkout or install. */
static const char *shown_path(const char *path)
{
	return datafile_shown(path);
}

/*
 * The cost profile: --costs, else the shipped profile nearest to the CPU
 * the input names (cpu_profile), else the arch's default; the choice and
 * its reason go into notes (when given) for the command to print.
 */
static const char *choose_costs(const struct import_opts *o,
				const struct cpu_id *cpu, const char *cpu_where,
				struct import_notes *n)
{
	char text[256], why[512];
	const char *prof = cpu_profile(cpu, text, sizeof text);
	const char *costs = o->costs ? o->costs : prof ? prof :
			    import_default_costs(o->arch);
	if (o->costs)
		snprintf(why, sizeof why, "given with --costs");
	else if (prof)
		snprintf(why, sizeof why, "the shipped profile nearest to the CPU "
			 "%s in %s", text, cpu_where);
	else
		snprintf(why, sizeof why, "the default for --arch %s, as %s %s; "
			 "give --costs NAME for another (--list-costs lists them)",
			 import_arch_name(o->arch), cpu_where, text[0] ?
			 "names a CPU with no shipped profile" : "does not name the CPU");
	if (n) {
		snprintf(n->costs, sizeof n->costs, "%s", costs);
		snprintf(n->costs_from, sizeof n->costs_from, "%s", why);
	}
	return costs;
}

static int import_complete(struct machine_desc *m, const struct import_opts *o,
			   const char *kind, const char *input, const char *zones,
			   const char *default_name, const char *costs,
			   struct diag *d)
{
	char *block = NULL, *path = NULL, *pname = NULL, *pdesc = NULL;
	char buf[1024], sum[256];
	int rc, line = 0;
	if ((rc = import_load_costs(costs, &block, &path, &pname,
				    &pdesc, &line, d)))
		goto out;
	m->costs_text = block;
	m->costs_path = path;
	m->costs_line = line;
	block = path = NULL;
	summary(m, sum, sizeof sum);
	m->name = strdup(o->name ? o->name : default_name);
	snprintf(buf, sizeof buf, "%s imported from %s: %s", kind, input, sum);
	m->description = strdup(o->description ? o->description : buf);
	if (!m->name || !m->description) {
		rc = NS_ENOMEM;
		goto out;
	}
	snprintf(buf, sizeof buf, "%s of %s", kind, input);
	if ((rc = machine_desc_add_source(m, buf)))
		goto out;
	snprintf(buf, sizeof buf, "cost profile %s (%s)%s%s", pname ? pname : costs,
		 shown_path(m->costs_path), pdesc ? ": " : "", pdesc ? pdesc : "");
	if ((rc = machine_desc_add_source(m, buf)))
		goto out;
	snprintf(buf, sizeof buf, "Generated by numasim %s%s%s", NUMASIM_VERSION,
		 o->command ? ": " : " import", o->command ? o->command : "");
	if ((rc = machine_desc_add_header(m, buf)))
		goto out;
	snprintf(buf, sizeof buf, "Topology: %s of %s (%s).", kind, input, sum);
	if ((rc = machine_desc_add_header(m, buf)))
		goto out;
	if ((rc = machine_desc_add_header(m, zones)))
		goto out;
	snprintf(buf, sizeof buf, "Costs: copied from %s.", shown_path(m->costs_path));
	rc = machine_desc_add_header(m, buf);
out:
	free(block);
	free(path);
	free(pname);
	free(pdesc);
	return rc;
}

static const char *layout_note(enum import_arch arch, char *buf, size_t len)
{
	static const char *const rule[] = {
		[IMPORT_ARCH_X86_64] = "DMA below 16 MiB, DMA32 below 4 GiB, Normal above",
		[IMPORT_ARCH_ARM64] = "DMA in the first 4 GiB, Normal above",
		[IMPORT_ARCH_NONE] = "all memory in Normal",
	};
	snprintf(buf, len, "Zones: node totals split by the --arch %s rule (%s), "
		 "memory taken as contiguous from address 0 in node-id order, "
		 "holes not modelled.", import_arch_name(arch),
		 (unsigned)arch < NR_IMPORT_ARCHS ? rule[arch] : "?");
	return buf;
}

/* The default name of a numactl import and where it comes from: the
 * input file's name, for standard input -o's, a pasted prompt's host. */
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
	int rc = parse_numactl(name, text, len, o->arch, out, &cpu, n, d);
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
static void sysfs_name(const char *root, char *buf, size_t len)
{
	base_name(root, buf, len);
	if (buf[0] && strcmp(buf, "/"))
		return;
	size_t rl = strlen(root);
	char *p = malloc(rl + 32), *text = NULL;
	size_t tl;
	struct diag quiet;
	diag_init(&quiet);
	snprintf(buf, len, "localhost");
	if (!p)
		return;
	snprintf(p, rl + 32, "%s/proc/sys/kernel/hostname",
		 strcmp(root, "/") ? root : "");
	if (read_file(p, 4096, &text, &tl, &quiet) == NS_OK) {
		text[strcspn(text, "\n")] = '\0';
		if (text[0])
			snprintf(buf, len, "%s", text);
		free(text);
	}
	free(p);
}

/* ROOT/proc/cpuinfo, when the tree has it, names the CPU. */
static void sysfs_cpu(const char *root, struct cpu_id *cpu, char *where,
		      size_t wlen)
{
	char path[4096], *text = NULL;
	size_t tl;
	struct diag quiet;
	diag_init(&quiet);
	snprintf(path, sizeof path, "%s/proc/cpuinfo", strcmp(root, "/") ? root : "");
	snprintf(where, wlen, "%s", path);
	if (read_file(path, IMPORT_MAX_INPUT, &text, &tl, &quiet) != NS_OK) {
		snprintf(where, wlen, "the tree (no %s)", path);
		return;
	}
	for (char *s = text; *s;) {
		char *e = strchr(s, '\n');
		if (e)
			*e = '\0';
		cpu_id_line(cpu, s);
		s = e ? e + 1 : s + strlen(s);
	}
	free(text);
}

int import_sysfs(const char *root, const struct import_opts *o,
		 struct machine_desc *out, struct import_notes *notes,
		 struct diag *d)
{
	char note[4608], base[256], where[4200];
	struct import_notes local;
	struct import_notes *n = notes ? notes : &local;
	struct cpu_id cpu;
	memset(n, 0, sizeof *n);
	cpu_id_init(&cpu);
	int rc = import_parse_sysfs(root, o->arch, out, d);
	if (rc)
		return rc;
	sysfs_cpu(root, &cpu, where, sizeof where);
	const char *costs = choose_costs(o, &cpu, where, n);
	char zi[4096];
	snprintf(zi, sizeof zi, "%s/proc/zoneinfo", strcmp(root, "/") ? root : "");
	int have_zi = file_exists(zi);
	if (have_zi)
		snprintf(note, sizeof note, "Zones: present pages of each zone in "
			 "%s (present, not managed: boot reservations vary "
			 "by kernel and command line).", zi);
	else
		layout_note(o->arch, note, sizeof note);
	sysfs_name(root, base, sizeof base);
	snprintf(n->name, sizeof n->name, "%s", o->name ? o->name : base);
	snprintf(n->name_from, sizeof n->name_from, "%s", o->name ?
		 "given with --name" : strcmp(root, "/") ? "the tree's directory name"
		 : "the host name");
	rc = import_complete(out, o, "sysfs", root, note, base, costs, d);
	if (rc)
		machine_desc_free(out);
	return rc;
}

/* The loaded machine must describe exactly what was emitted. */
static int same_topology(const struct machine_desc *m, const struct machine *lm,
			 struct diag *d)
{
	int ok = lm->nr_nodes == m->nr_nodes && lm->page_size == m->page_size;
	for (int i = 0; ok && i < m->nr_nodes; i++) {
		const struct desc_node *a = &m->nodes[i];
		const struct machine_node *b = &lm->nodes[i];
		uint64_t pages = 0;
		for (int z = 0; z < a->nr_zones; z++)
			pages += a->zones[z].pages;
		ok = a->id == b->id && a->nr_cpus == b->nr_cpus &&
		     pages == b->mem_pages && a->nr_zones == b->nr_zones &&
		     (!a->nr_cpus || !memcmp(a->cpus, b->cpus,
					     (size_t)a->nr_cpus * sizeof *a->cpus));
		for (int j = 0; ok && j < m->nr_nodes; j++)
			ok = m->distance[i * m->nr_nodes + j] ==
			     lm->distance[i * m->nr_nodes + j];
	}
	return ok ? NS_OK : diag_set(d, NS_EINTERNAL, NULL, 0, 0, "the machine "
				      "file read back differs from what was "
				      "written (emitter bug)");
}

/* Where does the emitted costs block start (1-based line)? */
static int costs_line_in(const char *text, const char *block)
{
	const char *at = block ? strstr(text, block) : NULL;
	int line = 1;
	if (!at)
		return 0;
	for (const char *p = text; p < at; p++)
		line += *p == '\n';
	return line;
}

int import_render(const struct machine_desc *m, const char *out_name,
		  char **text, size_t *len, struct diag *d)
{
	struct emit_buf b;
	struct machine *lm = NULL;
	struct diag ld;
	int rc;
	emit_buf_init(&b);
	diag_init(&ld);
	if ((rc = emit_machine(m, &b)))
		goto out;
	rc = machine_load_buf(out_name, b.data, b.len, &lm, &ld);
	if (rc) {
		int first = costs_line_in(b.data, m->costs_text);
		int nl = 0;
		for (const char *p = m->costs_text; p && *p; p++)
			nl += *p == '\n';
		if (first && ld.line >= first && ld.line < first + nl && m->costs_path)
			/* A problem inside the copied block is the profile's. */
			rc = diag_set(d, rc, m->costs_path,
				      m->costs_line + ld.line - first, ld.col,
				      "%s", ld.msg);
		else
			rc = diag_set(d, rc, ld.file, ld.line, ld.col,
				      "imported machine does not validate: %s", ld.msg);
		goto out;
	}
	if ((rc = machine_check(lm, d)) || (rc = same_topology(m, lm, d)))
		goto out;
	*text = b.data;
	*len = b.len;
	b.data = NULL;
out:
	machine_free(lm);
	emit_buf_free(&b);
	return rc;
}
