/*
 * ktrace — recorded kmem traces, text and compact; see ktrace.h.
 *
 * Design notes.  The text reader works a line at a time and never
 * backtracks: the prefix up to the CPU column `[NNN]` is the task (ftrace
 * `comm-pid`, perf `comm tid`), then an optional flags column, the
 * timestamp `S.FRAC:` and the event `NAME:` (perf: `kmem:NAME:`), then
 * `key=value` fields.  Values are read by key, whatever their order, so
 * one reader serves every version of the print formats; a key the
 * formats do not have, a required key missing, or a value of the wrong
 * form is an error at its column.  Strings (call sites, tasks, GFP
 * texts, cache names) are interned; an event is 48 bytes.
 */
#include "workloads/ktrace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "base/ytree.h"
#include "workloads/keymap.h"

static const char *const kind_names[KT_NR_KINDS] = {
#define KTRACE_KIND_NAME(id, name) name,
	KTRACE_KINDS(KTRACE_KIND_NAME)
#undef KTRACE_KIND_NAME
};

const char *ktrace_kind_name(enum ktrace_kind k)
{
	return (unsigned)k < KT_NR_KINDS ? kind_names[k] : "?";
}

/* --- strings ------------------------------------------------------------ */

struct intern {
	uint32_t *slot;                 /* index + 1, 0 empty */
	size_t cap;
};

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

void ktrace_init(struct ktrace *t)
{
	memset(t, 0, sizeof *t);
	t->max_cpu = -1;
}

void ktrace_free(struct ktrace *t)
{
	for (uint32_t i = 0; i < t->nr_str; i++)
		free(t->str[i]);
	free(t->str);
	free(t->ev);
	struct intern *in = t->intern;
	if (in)
		free(in->slot);
	free(in);
	ktrace_init(t);
}

const char *ktrace_str(const struct ktrace *t, uint32_t i)
{
	return i < t->nr_str ? t->str[i] : "";
}

static int intern_grow(struct ktrace *t)
{
	struct intern *in = t->intern;
	size_t cap = in->cap ? 2 * in->cap : 256;
	uint32_t *slot = calloc(cap, sizeof *slot);
	if (!slot)
		return NS_ENOMEM;
	for (uint32_t i = 0; i < t->nr_str; i++) {
		size_t j = hash_bytes(t->str[i], strlen(t->str[i])) & (cap - 1);
		while (slot[j])
			j = (j + 1) & (cap - 1);
		slot[j] = i + 1;
	}
	free(in->slot);
	in->slot = slot;
	in->cap = cap;
	return NS_OK;
}

/* The index of string s[0..n), added when new. */
static int intern(struct ktrace *t, const char *s, size_t n, uint32_t *out)
{
	if (!t->intern && !(t->intern = calloc(1, sizeof(struct intern))))
		return NS_ENOMEM;
	struct intern *in = t->intern;
	if (2 * ((size_t)t->nr_str + 1) > in->cap && intern_grow(t) != NS_OK)
		return NS_ENOMEM;
	size_t j = hash_bytes(s, n) & (in->cap - 1);
	while (in->slot[j]) {
		const char *x = t->str[in->slot[j] - 1];
		if (!strncmp(x, s, n) && x[n] == '\0') {
			*out = in->slot[j] - 1;
			return NS_OK;
		}
		j = (j + 1) & (in->cap - 1);
	}
	if (t->nr_str == t->cap_str) {
		uint32_t cap = t->cap_str ? 2 * t->cap_str : 64;
		char **ns = realloc(t->str, cap * sizeof *ns);
		if (!ns)
			return NS_ENOMEM;
		t->str = ns;
		t->cap_str = cap;
	}
	char *c = malloc(n + 1);
	if (!c)
		return NS_ENOMEM;
	memcpy(c, s, n);
	c[n] = '\0';
	t->str[t->nr_str] = c;
	in->slot[j] = ++t->nr_str;
	*out = t->nr_str - 1;
	return NS_OK;
}

static int push(struct ktrace *t, const struct ktrace_event *e)
{
	if (t->nr == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 1024;
		struct ktrace_event *n = realloc(t->ev, cap * sizeof *n);
		if (!n)
			return NS_ENOMEM;
		t->ev = n;
		t->cap = cap;
	}
	t->ev[t->nr++] = *e;
	t->n.by_kind[e->kind]++;
	if (e->cpu > t->max_cpu)
		t->max_cpu = e->cpu;
	return NS_OK;
}

/* --- the text reader ---------------------------------------------------- */

struct line {
	const char *s;                  /* the line, without its newline */
	size_t n;
	uint64_t no;                    /* 1-based */
	const char *name;
	struct diag *d;
};

static int bad(const struct line *l, const char *at, const char *fmt, const char *arg)
{
	size_t col = at ? (size_t)(at - l->s) + 1 : 1;
	char q[96];
	ytree_quote(arg, strlen(arg), q, sizeof q);
	return diag_set(l->d, NS_EINPUT, l->name, (int)(l->no > 0x7fffffff ? 0 : l->no),
			(int)(col > 0x7fffffff ? 0 : col), fmt, q);
}

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int starts(const char *p, const char *end, const char *w)
{
	size_t n = strlen(w);
	return (size_t)(end - p) >= n && !memcmp(p, w, n);
}

/* Decimal digits [p, end) into *v (no sign); 0 if none or overflow. */
static int dec(const char *p, const char *end, uint64_t *v)
{
	uint64_t x = 0;
	if (p == end)
		return 0;
	for (; p < end; p++) {
		uint64_t d = (uint64_t)(*p - '0');
		if (!is_digit(*p) || x > (UINT64_MAX - d) / 10)
			return 0;
		x = x * 10 + d;
	}
	*v = x;
	return 1;
}

/* Hex digits [p, end), an optional 0x first. */
static int hex(const char *p, const char *end, uint64_t *v)
{
	uint64_t x = 0;
	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (p == end || end - p > 16)
		return 0;
	for (; p < end; p++) {
		if (!is_hex(*p))
			return 0;
		x = x << 4 | (uint64_t)(is_digit(*p) ? *p - '0' : (*p | 0x20) - 'a' + 10);
	}
	*v = x;
	return 1;
}

/* `CPU:N [LOST N EVENTS]` or trace-cmd's `CPU:N [N EVENTS DROPPED]`. */
static int lost_line(struct ktrace *t, const struct line *l, const char *p, const char *end)
{
	uint64_t cpu, n;
	const char *q = p + 4, *e = q;
	while (e < end && is_digit(*e))
		e++;
	if (!dec(q, e, &cpu))
		return bad(l, q, "expected a CPU number after 'CPU:'%s", "");
	while (e < end && is_space(*e))
		e++;
	if (e >= end || *e != '[')
		return bad(l, e, "expected '[LOST N EVENTS]' after the CPU%s", "");
	q = ++e;
	int lost = starts(q, end, "LOST ");
	if (lost)
		q += 5;
	e = q;
	while (e < end && is_digit(*e))
		e++;
	if (!dec(q, e, &n))
		return bad(l, q, "expected the number of events lost%s", "");
	const char *tail = lost ? " EVENTS]" : " EVENTS DROPPED]";
	if (!starts(e, end, tail))
		return bad(l, e, "expected '%s'", tail + 1);
	for (e += strlen(tail); e < end && is_space(*e); e++)
		;
	if (e != end)
		return bad(l, e, "unexpected text after the lost events count%s", "");
	t->n.lost_lines++;
	t->n.lost_events += n;
	return NS_OK;
}

/* A line that is not an event and not an error: 1. */
static int skippable(const char *p, const char *end, const char *line)
{
	if (p == end || *p == '#')
		return 1;
	if (starts(p, end, "cpus=") || starts(p, end, "version = ") ||
	    starts(p, end, "version="))
		return 1;
	if (starts(p, end, "CPU ") && end - p > 9 && !memcmp(end - 9, " is empty", 9))
		return 1;
	/* perf script call chain: indented "ADDR SYM (DSO)" */
	if (p != line) {
		const char *q = p;
		while (q < end && is_hex(*q))
			q++;
		if (q - p >= 4 && q < end && is_space(*q) && end[-1] == ')')
			return 1;
	}
	return 0;
}

enum field {
	FLD_PAGE, FLD_PFN, FLD_ORDER, FLD_MT, FLD_GFP, FLD_REFILL, FLD_COLD, FLD_CALL,
	FLD_PTR, FLD_REQ, FLD_ALLOC, FLD_NODE, FLD_ACCOUNTED, FLD_NAME, NR_FIELDS
};
static const char *const field_names[NR_FIELDS] = {
	"page", "pfn", "order", "migratetype", "gfp_flags", "percpu_refill", "cold",
	"call_site", "ptr", "bytes_req", "bytes_alloc", "node", "accounted", "name",
};

/* The fields each kind must print (bits of enum field). */
static unsigned required(enum ktrace_kind k)
{
	const unsigned page = 1u << FLD_PFN, alloc = 1u << FLD_CALL | 1u << FLD_PTR |
		1u << FLD_REQ | 1u << FLD_ALLOC | 1u << FLD_GFP;
	switch (k) {
	case KT_MM_PAGE_ALLOC:
		return page | 1u << FLD_ORDER | 1u << FLD_GFP;
	case KT_MM_PAGE_FREE:
		return page | 1u << FLD_ORDER;
	case KT_MM_PAGE_FREE_BATCHED:
		return page;
	case KT_MM_PAGE_ALLOC_ZONE_LOCKED:
	case KT_MM_PAGE_PCPU_DRAIN:
		return page | 1u << FLD_ORDER | 1u << FLD_MT;
	case KT_KMEM_CACHE_ALLOC:
	case KT_KMALLOC:
		return alloc;
	case KT_KMEM_CACHE_ALLOC_NODE:
	case KT_KMALLOC_NODE:
		return alloc | 1u << FLD_NODE;
	case KT_KMEM_CACHE_FREE:
	case KT_KFREE:
		return 1u << FLD_CALL | 1u << FLD_PTR;
	case KT_NR_KINDS:
		break;
	}
	return 0;
}

/* A NULL pointer as %p prints it: (null), (nil), 0 or zeros. */
static int null_ptr(const char *p, const char *end, uint64_t *v)
{
	if ((end - p == 6 && !memcmp(p, "(null)", 6)) || (end - p == 5 && !memcmp(p, "(nil)", 5))) {
		*v = 0;
		return 1;
	}
	return 0;
}

static int int_value(const struct line *l, const char *p, const char *end, long long min,
		     long long max, const char *what, long long *out)
{
	uint64_t v;
	int neg = p < end && *p == '-';
	if (!dec(p + neg, end, &v))
		return bad(l, p, "expected %s (an integer)", what);
	long long x = v > (uint64_t)max + 1 ? max + 1 : neg ? -(long long)v : (long long)v;
	if (x < min || x > max) {
		char msg[96];
		snprintf(msg, sizeof msg, "%s out of range (%lld..%lld)", what, min, max);
		return bad(l, p, "%s", msg);
	}
	*out = x;
	return NS_OK;
}

/* The fields after `EVENT: ` into e. */
static int fields(struct ktrace *t, const struct line *l, const char *p, const char *end,
		  const char *name_at, struct ktrace_event *e)
{
	unsigned seen = 0;
	int rc;
	while (p < end) {
		while (p < end && is_space(*p))
			p++;
		if (p == end)
			break;
		const char *k = p;
		while (p < end && *p != '=' && !is_space(*p))
			p++;
		if (p == end || *p != '=') {
			char tok[64];
			snprintf(tok, sizeof tok, "%.*s", (int)(p - k < 60 ? p - k : 60), k);
			return bad(l, k, "expected KEY=VALUE, found '%s'", tok);
		}
		size_t kn = (size_t)(p - k);
		int f;
		for (f = 0; f < NR_FIELDS; f++)
			if (strlen(field_names[f]) == kn && !memcmp(field_names[f], k, kn))
				break;
		if (f == NR_FIELDS) {
			char key[64];
			snprintf(key, sizeof key, "%.*s", (int)(kn < 60 ? kn : 60), k);
			return bad(l, k, "unknown field '%s' (not one of the kmem events' "
				   "fields)", key);
		}
		if (seen & 1u << f)
			return bad(l, k, "field '%s' given twice", field_names[f]);
		seen |= 1u << f;
		p++;
		while (p < end && is_space(*p))   /* %p pads "(null)" to 16 */
			p++;
		const char *v = p;
		while (p < end && !is_space(*p))
			p++;
		const char *ve = p;
		if (v == ve)
			return bad(l, v, "field '%s' has no value", field_names[f]);
		long long x;
		uint64_t u;
		switch ((enum field)f) {
		case FLD_PAGE:
			if (!null_ptr(v, ve, &u) && !hex(v, ve, &u))
				return bad(l, v, "expected a pointer after 'page='%s", "");
			if (!u && (e->kind == KT_MM_PAGE_ALLOC))
				e->flags |= KT_F_FAILED;
			break;
		case FLD_PFN:
			if (!((ve - v > 2 && v[1] == 'x') ? hex(v, ve, &u) : dec(v, ve, &u)))
				return bad(l, v, "expected a pfn (decimal or 0x-hex)%s", "");
			e->key = u;
			break;
		case FLD_ORDER:
			if ((rc = int_value(l, v, ve, 0, KT_MAX_ORDER - 1, "order", &x)))
				return rc;
			e->order = (uint8_t)x;
			break;
		case FLD_MT:
			if ((rc = int_value(l, v, ve, -1, 127, "migratetype", &x)))
				return rc;
			e->migratetype = (int8_t)x;
			break;
		case FLD_REFILL:
		case FLD_COLD:
			if ((rc = int_value(l, v, ve, 0, 1, field_names[f], &x)))
				return rc;
			if (x)
				e->flags |= f == FLD_REFILL ? KT_F_PERCPU_REFILL : KT_F_COLD;
			break;
		case FLD_GFP:
			if ((rc = intern(t, v, (size_t)(ve - v), &e->gfp)))
				return rc;
			break;
		case FLD_CALL:
			/* %pS of a module symbol: "sym+0x1/0x2 [mod]" */
			if (p + 1 < end && p[1] == '[') {
				const char *q = memchr(p + 1, ']', (size_t)(end - p - 1));
				if (q && (q + 1 == end || is_space(q[1])))
					ve = p = q + 1;
			}
			if ((rc = intern(t, v, (size_t)(ve - v), &e->call_site)))
				return rc;
			break;
		case FLD_PTR:
			if (!null_ptr(v, ve, &u) && !hex(v, ve, &u))
				return bad(l, v, "expected a pointer after 'ptr='%s", "");
			e->key = u;
			if (!u)
				e->flags |= KT_F_FAILED;
			break;
		case FLD_REQ:
		case FLD_ALLOC:
			if (!dec(v, ve, &u) || u > UINT32_MAX)
				return bad(l, v, "expected a size in bytes after '%s='",
					   field_names[f]);
			*(f == FLD_REQ ? &e->bytes_req : &e->bytes_alloc) = (uint32_t)u;
			break;
		case FLD_NODE:
			if ((rc = int_value(l, v, ve, -1, 127, "node", &x)))
				return rc;
			e->node = (int8_t)x;
			break;
		case FLD_ACCOUNTED:
			if (ve - v == 4 && !memcmp(v, "true", 4))
				e->flags |= KT_F_ACCOUNTED;
			else if (!(ve - v == 5 && !memcmp(v, "false", 5)))
				return bad(l, v, "expected true or false after 'accounted='%s", "");
			break;
		case FLD_NAME:
			if ((rc = intern(t, v, (size_t)(ve - v), &e->cache)))
				return rc;
			break;
		case NR_FIELDS:
			break;
		}
	}
	unsigned miss = required((enum ktrace_kind)e->kind) & ~seen;
	for (int f = 0; f < NR_FIELDS; f++)
		if (miss & 1u << f)
			return bad(l, name_at, "event lacks the field '%s'", field_names[f]);
	if (e->kind == KT_MM_PAGE_FREE_BATCHED)
		e->order = 0;
	if (e->kind == KT_KFREE || e->kind == KT_KMEM_CACHE_FREE)
		e->flags &= (uint8_t)~KT_F_FAILED;    /* kfree(NULL) is a no-op, kept */
	return NS_OK;
}

/* One line; NS_OK also for lines that are skipped. */
static int parse_line(struct ktrace *t, const struct line *l)
{
	const char *s = l->s, *end = s + l->n, *p = s;
	while (p < end && is_space(*p))
		p++;
	if (skippable(p, end, s)) {
		t->n.skipped_lines++;
		return NS_OK;
	}
	if (starts(p, end, "CPU:"))
		return lost_line(t, l, p, end);
	/* the CPU column: the first " [digits]" */
	const char *cpu = NULL;
	for (const char *q = p; q < end; q++) {
		if (*q != '[' || q == p || !is_space(q[-1]))
			continue;
		const char *r = q + 1;
		while (r < end && is_digit(*r))
			r++;
		if (r > q + 1 && r < end && *r == ']') {
			cpu = q;
			break;
		}
	}
	if (!cpu)
		return bad(l, p, "expected an event line 'TASK-PID [CPU] TIMESTAMP: "
			   "EVENT: FIELDS'%s", "");
	/* the task: "comm-pid" or perf's "comm tid", then an optional (tgid) */
	const char *te = cpu;
	while (te > p && is_space(te[-1]))
		te--;
	if (te > p && te[-1] == ')') {
		const char *o = te - 1;
		while (o > p && o[-1] != '(')
			o--;
		if (o == p)
			return bad(l, p, "unbalanced ')' in the task column%s", "");
		te = o - 1;
		while (te > p && is_space(te[-1]))
			te--;
	}
	const char *pid = te;
	while (pid > p && is_digit(pid[-1]))
		pid--;
	if (pid == te || pid == p || !(pid[-1] == '-' || is_space(pid[-1])))
		return bad(l, p, "expected the task as COMM-PID or COMM TID before the "
			   "CPU%s", "");
	const char *ce = pid - 1;
	while (ce > p && is_space(ce[-1]))
		ce--;
	char task[96];
	snprintf(task, sizeof task, "%.*s-%.*s", (int)((ce - p) > 64 ? 64 : ce - p), p,
		 (int)(te - pid > 20 ? 20 : te - pid), pid);
	struct ktrace_event e = {.call_site = KT_NO_STR, .gfp = KT_NO_STR, .cache = KT_NO_STR,
				 .migratetype = -1, .node = KT_NO_NODE};
	int rc;
	uint64_t v;
	const char *q = cpu + 1, *r = q;
	while (*r != ']')
		r++;
	if (!dec(q, r, &v) || v >= KT_MAX_CPUS)
		return bad(l, q, "CPU number out of range%s", "");
	e.cpu = (uint16_t)v;
	/* an optional flags column ("d..1.", "...."), then "SECS.FRAC:" */
	q = r + 1;
	for (int col = 0; col < 2; col++) {
		while (q < end && is_space(*q))
			q++;
		r = q;
		while (r < end && !is_space(*r))
			r++;
		if (r > q && r[-1] == ':')
			break;
		if (col == 1 || r == end)
			return bad(l, q, "expected the timestamp 'SECONDS.FRACTION:'%s", "");
		q = r;
	}
	const char *dot = memchr(q, '.', (size_t)(r - q));
	uint64_t sec, frac;
	if (!dot || !dec(q, dot, &sec) || r - 1 - (dot + 1) > 9 || r - 1 == dot + 1 ||
	    !dec(dot + 1, r - 1, &frac) || sec > 9000000000ull)
		return bad(l, q, "expected the timestamp 'SECONDS.FRACTION:'%s", "");
	for (long i = (long)(r - 1 - (dot + 1)); i < 9; i++)
		frac *= 10;
	e.ts_ns = sec * 1000000000ull + frac;
	/* the event */
	q = r;
	while (q < end && is_space(*q))
		q++;
	const char *name_at = q;
	r = q;
	while (r < end && !is_space(*r))
		r++;
	if (r == q || r[-1] != ':')
		return bad(l, q, "expected the event name 'EVENT:'%s", "");
	const char *ne = r - 1, *sys = memchr(q, ':', (size_t)(ne - q));
	if (sys) {   /* perf: "kmem:kmalloc:" */
		if (!(sys - q == 4 && !memcmp(q, "kmem", 4))) {
			t->n.other_events++;
			return NS_OK;
		}
		q = sys + 1;
	}
	int k;
	for (k = 0; k < KT_NR_KINDS; k++)
		if (strlen(kind_names[k]) == (size_t)(ne - q) && !memcmp(kind_names[k], q, (size_t)(ne - q)))
			break;
	if (k == KT_NR_KINDS) {
		t->n.other_events++;
		return NS_OK;
	}
	e.kind = (uint8_t)k;
	if ((rc = fields(t, l, r, end, name_at, &e)) ||
	    (rc = intern(t, task, strlen(task), &e.task)))
		return rc;
	return push(t, &e);
}

int ktrace_parse(struct ktrace *t, const char *name, const char *buf, size_t len,
		 int skip_bad, struct diag *d)
{
	struct line l = {.name = name, .d = d};
	struct diag ld;
	size_t off = 0;
	int rc = NS_OK;
	while (off < len) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (buf + off)) : len - off;
		l.s = buf + off;
		l.n = n;
		l.no++;
		t->n.lines++;
		if (!nl)
			t->n.truncated = 1;
		if (l.n && l.s[l.n - 1] == '\r')
			l.n--;
		diag_init(&ld);
		l.d = &ld;
		if (memchr(l.s, '\0', l.n)) {
			rc = bad(&l, memchr(l.s, '\0', l.n), "a NUL byte in a text trace%s", "");
		} else if (!nl && l.n) {
			/* perf and ftrace end every line: the file was cut here */
			rc = bad(&l, l.s + l.n, "the file ends inside this line (truncated "
				 "trace)%s", "");
		} else {
			rc = parse_line(t, &l);
		}
		if (rc == NS_EINPUT && skip_bad) {
			t->n.bad_lines++;
			rc = NS_OK;
		} else if (rc != NS_OK) {
			if (rc == NS_EINPUT)
				*d = ld;
			else
				diag_set(d, rc, name, 0, 0, "%s", ns_status_msg(rc));
			break;
		}
		off += n + (nl ? 1 : 0);
	}
	if (rc != NS_OK) {
		ktrace_free(t);
		return rc;
	}
	ktrace_mark_slab_pages(t);
	return NS_OK;
}

/* --- slab pages ----------------------------------------------------------- */

static int slab_alloc_kind(int k)
{
	return k == KT_KMEM_CACHE_ALLOC || k == KT_KMEM_CACHE_ALLOC_NODE || k == KT_KMALLOC ||
	       k == KT_KMALLOC_NODE;
}

static int internal_kind(int k)
{
	return k == KT_MM_PAGE_ALLOC_ZONE_LOCKED || k == KT_MM_PAGE_PCPU_DRAIN;
}

uint64_t ktrace_mark_slab_pages(struct ktrace *t)
{
	uint64_t marked = 0;
	size_t ncpu = (size_t)(t->max_cpu + 1);
	size_t *last = ncpu ? malloc(ncpu * sizeof *last) : NULL;
	struct keymap pfns;
	keymap_init(&pfns);
	if (ncpu && !last)
		return 0;
	for (size_t c = 0; c < ncpu; c++)
		last[c] = SIZE_MAX;
	for (size_t i = 0; i < t->nr; i++) {
		struct ktrace_event *e = &t->ev[i];
		if (internal_kind(e->kind))
			continue;
		size_t prev = last[e->cpu];
		last[e->cpu] = i;
		if (slab_alloc_kind(e->kind) && prev != SIZE_MAX &&
		    t->ev[prev].kind == KT_MM_PAGE_ALLOC && !(t->ev[prev].flags & KT_F_FAILED) &&
		    !(t->ev[prev].flags & KT_F_SLAB_PAGE) &&
		    t->ev[prev].migratetype != KT_MIGRATE_MOVABLE) {
			t->ev[prev].flags |= KT_F_SLAB_PAGE;
			marked++;
			if (keymap_put(&pfns, t->ev[prev].key, 1) != NS_OK)
				break;
		} else if ((e->kind == KT_MM_PAGE_FREE || e->kind == KT_MM_PAGE_FREE_BATCHED) &&
			   keymap_del(&pfns, e->key, NULL)) {
			e->flags |= KT_F_SLAB_PAGE;
		} else if (e->kind == KT_MM_PAGE_ALLOC) {
			keymap_del(&pfns, e->key, NULL);   /* reused pfn: not a slab's */
		}
	}
	free(last);
	keymap_free(&pfns);
	return marked;
}

/* --- the compact file ----------------------------------------------------- */

#define KT_MAGIC "NSKTRACE"
#define KT_VERSION 1u
#define KT_HEADER 96u
#define KT_RECORD 48u

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int ktrace_is_compact(const char *buf, size_t len)
{
	return len >= 8 && !memcmp(buf, KT_MAGIC, 8);
}

int ktrace_write_compact(const struct ktrace *t, char **out, size_t *len)
{
	uint64_t sbytes = 0;
	for (uint32_t i = 0; i < t->nr_str; i++)
		sbytes += strlen(t->str[i]) + 1;
	size_t total = KT_HEADER + (size_t)sbytes + t->nr * KT_RECORD;
	unsigned char *b = calloc(1, total), *p = b;
	if (!b)
		return NS_ENOMEM;
	memcpy(p, KT_MAGIC, 8);
	put32(p + 8, KT_VERSION);
	put32(p + 12, KT_RECORD);
	put64(p + 16, t->nr);
	put32(p + 24, t->nr_str);
	put32(p + 28, 0);
	put64(p + 32, sbytes);
	put64(p + 40, t->n.lost_events);
	put64(p + 48, t->n.lost_lines);
	put64(p + 56, t->n.bad_lines);
	put64(p + 64, t->n.lines);
	put64(p + 72, t->n.other_events);
	put64(p + 80, t->n.skipped_lines);
	put64(p + 88, (uint64_t)t->n.truncated);
	p += KT_HEADER;
	for (uint32_t i = 0; i < t->nr_str; i++) {
		size_t n = strlen(t->str[i]) + 1;
		memcpy(p, t->str[i], n);
		p += n;
	}
	for (size_t i = 0; i < t->nr; i++, p += KT_RECORD) {
		const struct ktrace_event *e = &t->ev[i];
		put64(p, e->ts_ns);
		put64(p + 8, e->key);
		put32(p + 16, e->call_site);
		put32(p + 20, e->task);
		put32(p + 24, e->gfp);
		put32(p + 28, e->cache);
		put32(p + 32, e->bytes_req);
		put32(p + 36, e->bytes_alloc);
		p[40] = (unsigned char)(e->cpu & 0xff);
		p[41] = (unsigned char)(e->cpu >> 8);
		p[42] = e->kind;
		p[43] = e->order;
		p[44] = (unsigned char)e->migratetype;
		p[45] = (unsigned char)e->node;
		p[46] = e->flags;
		p[47] = 0;
	}
	*out = (char *)b;
	*len = total;
	return NS_OK;
}

static int str_ok(uint32_t i, uint32_t nr)
{
	return i == KT_NO_STR || i < nr;
}

int ktrace_load_compact(struct ktrace *t, const char *name, const char *buf, size_t len,
			struct diag *d)
{
	const unsigned char *b = (const unsigned char *)buf;
	if (len < KT_HEADER || memcmp(b, KT_MAGIC, 8))
		return diag_set(d, NS_EINPUT, name, 0, 0, "not a compact trace file "
				"(too short or no NSKTRACE magic)");
	if (get32(b + 8) != KT_VERSION || get32(b + 12) != KT_RECORD)
		return diag_set(d, NS_EINPUT, name, 0, 0, "compact trace version %u "
				"(record %u bytes); this numasim reads version %u",
				get32(b + 8), get32(b + 12), KT_VERSION);
	uint64_t nr = get64(b + 16), sbytes = get64(b + 32);
	uint32_t nstr = get32(b + 24);
	if (sbytes > len - KT_HEADER || nr > (len - KT_HEADER - sbytes) / KT_RECORD ||
	    KT_HEADER + sbytes + nr * KT_RECORD != len)
		return diag_set(d, NS_EINPUT, name, 0, 0, "compact trace truncated or padded: "
				"%zu bytes, the header says %llu", len,
				(unsigned long long)(KT_HEADER + (sbytes < len ? sbytes : 0) +
						     (nr < len ? nr : 0) * KT_RECORD));
	const char *s = buf + KT_HEADER, *se = s + sbytes;
	int rc = NS_OK;
	uint32_t idx;
	for (uint32_t i = 0; i < nstr && rc == NS_OK; i++) {
		const char *z = memchr(s, '\0', (size_t)(se - s));
		if (!z)
			return ktrace_free(t), diag_set(d, NS_EINPUT, name, 0, 0,
					"compact trace: string %u runs past the table", i);
		rc = intern(t, s, (size_t)(z - s), &idx);
		if (rc == NS_OK && idx != i)
			return ktrace_free(t), diag_set(d, NS_EINPUT, name, 0, 0,
					"compact trace: string %u repeats an earlier one", i);
		s = z + 1;
	}
	if (rc == NS_OK && s != se)
		return ktrace_free(t), diag_set(d, NS_EINPUT, name, 0, 0,
				"compact trace: the string table has bytes after string %u", nstr);
	if (rc == NS_OK && nr && !(t->ev = malloc((size_t)nr * sizeof *t->ev)))
		rc = NS_ENOMEM;
	t->cap = (size_t)nr;
	const unsigned char *p = (const unsigned char *)se;
	for (uint64_t i = 0; rc == NS_OK && i < nr; i++, p += KT_RECORD) {
		struct ktrace_event e = {
			.ts_ns = get64(p), .key = get64(p + 8), .call_site = get32(p + 16),
			.task = get32(p + 20), .gfp = get32(p + 24), .cache = get32(p + 28),
			.bytes_req = get32(p + 32), .bytes_alloc = get32(p + 36),
			.cpu = (uint16_t)(p[40] | p[41] << 8), .kind = p[42], .order = p[43],
			.migratetype = (int8_t)p[44], .node = (int8_t)p[45], .flags = p[46],
		};
		if (e.kind >= KT_NR_KINDS || e.order >= KT_MAX_ORDER || e.flags & ~KT_F_ALL ||
		    p[47] || !str_ok(e.call_site, nstr) || !str_ok(e.task, nstr) ||
		    !str_ok(e.gfp, nstr) || !str_ok(e.cache, nstr)) {
			ktrace_free(t);
			return diag_set(d, NS_EINPUT, name, 0, 0, "compact trace: record %llu "
					"(at byte %zu) is not valid", (unsigned long long)i + 1,
					(size_t)(p - b));
		}
		rc = push(t, &e);
	}
	if (rc != NS_OK) {
		ktrace_free(t);
		return diag_set(d, rc, name, 0, 0, "%s", ns_status_msg(rc));
	}
	t->n.lost_events = get64(b + 40);
	t->n.lost_lines = get64(b + 48);
	t->n.bad_lines = get64(b + 56);
	t->n.lines = get64(b + 64);
	t->n.other_events = get64(b + 72);
	t->n.skipped_lines = get64(b + 80);
	t->n.truncated = get64(b + 88) != 0;
	return NS_OK;
}

int ktrace_read(struct ktrace *t, const char *name, const char *buf, size_t len,
		int skip_bad, struct diag *d)
{
	if (ktrace_is_compact(buf, len))
		return ktrace_load_compact(t, name, buf, len, d);
	return ktrace_parse(t, name, buf, len, skip_bad, d);
}

/* The whole of f (at most KT_MAX_FILE bytes) into a malloc'ed *buf. */
static int read_all(FILE *f, const char *name, char **buf, size_t *len, struct diag *d)
{
	size_t cap = 1u << 20, n = 0;
	char *b = malloc(cap);
	if (!b)
		return diag_set(d, NS_ENOMEM, name, 0, 0, "out of memory");
	for (;;) {
		if (n == cap) {
			if (cap >= KT_MAX_FILE) {
				free(b);
				return diag_set(d, NS_EINPUT, name, 0, 0, "file is larger than "
						"the %llu GiB limit of a trace",
						(unsigned long long)(KT_MAX_FILE >> 30));
			}
			char *nb = realloc(b, 2 * cap);
			if (!nb) {
				free(b);
				return diag_set(d, NS_ENOMEM, name, 0, 0, "out of memory");
			}
			b = nb;
			cap *= 2;
		}
		size_t got = fread(b + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		free(b);
		return diag_set(d, NS_EIO, name, 0, 0, "read error");
	}
	*buf = b;
	*len = n;
	return NS_OK;
}

/* Whether ktrace_read_file() maps the file of st: a regular file, not
 * empty, within the limit. */
static int mapped(const struct stat *st, int known)
{
	return known && S_ISREG(st->st_mode) && st->st_size > 0 &&
	       (unsigned long long)st->st_size <= KT_MAX_FILE;
}

/* ktrace_read() of a regular file of len bytes, mapped rather than read:
 * the page cache's pages are read in place, where a copy into a buffer
 * of the heap would zero and then fill as many fresh pages (a compact
 * file of 1 M events is 48 MB).  A file that cannot be mapped is read.
 * Closes f. */
static int map_file(struct ktrace *t, FILE *f, const char *name, size_t len, int skip_bad,
		    struct diag *d)
{
	void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fileno(f), 0);
	if (p == MAP_FAILED) {
		char *buf = NULL;
		size_t n = 0;
		int rc = read_all(f, name, &buf, &n, d);
		if (rc == NS_OK)
			rc = ktrace_read(t, name, buf, n, skip_bad, d);
		free(buf);
		fclose(f);
		return rc;
	}
	int rc = ktrace_read(t, name, p, len, skip_bad, d);
	munmap(p, len);
	fclose(f);
	return rc;
}

int ktrace_read_file(struct ktrace *t, const char *path, int skip_bad, struct diag *d)
{
	const char *name = ytree_display_name(path);
	int is_stdin = !strcmp(path, "-");
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int rc;
	if (!f)
		return diag_set(d, errno == ENOENT ? NS_ENOENT : NS_EIO, name, 0, 0,
				"cannot open: %s", strerror(errno));
	int known = fstat(fileno(f), &st) == 0;
	if (known && S_ISDIR(st.st_mode))
		rc = diag_set(d, NS_EINPUT, name, 0, 0, "is a directory, not a file");
	else if (known && !is_stdin && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)))
		rc = diag_set(d, NS_EINPUT, name, 0, 0, "is a device, not a file");
	else if (!is_stdin && mapped(&st, known))
		return map_file(t, f, name, (size_t)st.st_size, skip_bad, d);
	else
		rc = read_all(f, name, &buf, &len, d);
	if (!is_stdin)
		fclose(f);
	if (rc == NS_OK)
		rc = ktrace_read(t, name, buf, len, skip_bad, d);
	free(buf);
	return rc;
}

int ktrace_check(const struct ktrace *t, struct diag *d)
{
	uint64_t sum = 0;
	for (int k = 0; k < KT_NR_KINDS; k++)
		sum += t->n.by_kind[k];
	if (sum != t->nr)
		return diag_set(d, NS_EINTERNAL, NULL, 0, 0, "ktrace: %llu events counted, "
				"%zu held", (unsigned long long)sum, t->nr);
	for (size_t i = 0; i < t->nr; i++) {
		const struct ktrace_event *e = &t->ev[i];
		if (e->kind >= KT_NR_KINDS || e->order >= KT_MAX_ORDER || e->flags & ~KT_F_ALL ||
		    !str_ok(e->call_site, t->nr_str) || !str_ok(e->task, t->nr_str) ||
		    !str_ok(e->gfp, t->nr_str) || !str_ok(e->cache, t->nr_str) ||
		    (int)e->cpu > t->max_cpu)
			return diag_set(d, NS_EINTERNAL, NULL, 0, 0, "ktrace: event %zu out of "
					"range", i);
	}
	return NS_OK;
}
