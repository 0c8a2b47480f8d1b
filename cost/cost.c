/*
 * cost — function/site tables and per-variant code layouts.
 *
 * Design notes.  Ids are dense small integers so the hot path indexes flat
 * arrays (profile, site stats, predictor state) without hashing.  Tables
 * grow by doubling during registration only; a world registers every model
 * before it builds its layouts and CPUs, after which nothing here changes.
 * Name lookups are linear: they run when variant files are read, never per
 * simulated event.
 */
#include "cost/cost.h"

#include <stdlib.h>
#include <string.h>

#include "base/diag.h"

void cost_tables_init(struct cost_tables *t)
{
	memset(t, 0, sizeof *t);
}

void cost_tables_free(struct cost_tables *t)
{
	free(t->fn_names);
	free(t->sites);
	free(t->unit_names);
	memset(t, 0, sizeof *t);
}

/* Make room for `need` pointers in *arr (capacity *cap, doubling). */
static int grow(void *arr, int *cap, int need, size_t elem)
{
	void **p = arr;
	if (need <= *cap)
		return NS_OK;
	int ncap = *cap ? *cap : 16;
	while (ncap < need)
		ncap *= 2;
	void *n = realloc(*p, (size_t)ncap * elem);
	if (!n)
		return NS_ENOMEM;
	*p = n;
	*cap = ncap;
	return NS_OK;
}

int cost_fn_lookup(const struct cost_tables *t, const char *name)
{
	for (int i = 0; i < t->nr_fns; i++)
		if (strcmp(t->fn_names[i], name) == 0)
			return i;
	return -1;
}

int cost_site_lookup(const struct cost_tables *t, const char *name)
{
	for (int i = 0; i < t->nr_sites; i++)
		if (strcmp(t->sites[i]->name, name) == 0)
			return i;
	return -1;
}

int cost_unit_lookup(const struct cost_tables *t, const char *name)
{
	for (int i = 0; i < t->nr_units; i++)
		if (strcmp(t->unit_names[i], name) == 0)
			return i;
	return -1;
}

static int ident_char(char c, int first)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (!first && c >= '0' && c <= '9');
}

/* Length of the identifier at p (0 if none). */
static size_t ident_len(const char *p)
{
	size_t n = 0;
	if (!ident_char(p[0], 1))
		return 0;
	while (ident_char(p[n], n == 0))
		n++;
	return n;
}

/* A word of a description's head that is a note, not the function. */
static int note_word(const char *w, size_t n)
{
	return (n == 3 && !strncmp(w, "PRE", 3)) || (n == 4 && !strncmp(w, "POST", 4)) ||
	       (n == 6 && !strncmp(w, "inline", 6)) || w[0] == '(' ||
	       (w[0] == 'v' && n > 1 && w[1] >= '0' && w[1] <= '9');
}

/*
 * The function named by one head ("POST __alloc_pages_nodemask", "v4.6
 * zone_statistics", "__slab_free slab_empty"): *name and *nlen; the number of
 * words that are not notes.  A head whose first such word is not an
 * identifier names none.
 */
static int head_function(const char *h, size_t hlen, const char **name,
			 size_t *nlen)
{
	int words = 0;
	*nlen = 0;
	for (size_t i = 0; i < hlen;) {
		while (i < hlen && h[i] == ' ')
			i++;
		size_t j = i;
		while (j < hlen && h[j] != ' ')
			j++;
		if (j > i && !note_word(h + i, j - i)) {
			if (words++ == 0) {
				*name = h + i;
				*nlen = ident_len(h + i) == j - i ? j - i : 0;
			}
		}
		i = j;
	}
	return *nlen ? words : 0;
}

size_t cost_site_function(const struct cost_site_def *def, char *buf,
			  size_t len)
{
	const char *p = def->desc, *best = NULL, *name;
	size_t best_len = 0, nlen;
	for (int depth = 0;; depth++) {
		const char *colon = strstr(p, ": ");
		size_t hlen = colon ? (size_t)(colon - p) : strlen(p);
		int words = head_function(p, hlen, &name, &nlen);
		/* without ": " the first identifier; the outer head may carry
		 * a label, an inner one must be a single name */
		if (!colon) {
			if (!best && (nlen = ident_len(p)) > 0) {
				best = p;
				best_len = nlen;
			}
			break;
		}
		if (words == 0 || words > (depth ? 1 : 2))
			break;
		best = name;
		best_len = nlen;
		p = colon + 2;
	}
	if (best_len >= len)
		best_len = len - 1;
	memcpy(buf, best ? best : "", best_len);
	buf[best_len] = '\0';
	return best_len;
}

int cost_register_fns(struct cost_tables *t, const char *const *names, int n,
		      int *base)
{
	if (n < 0)
		return NS_EINTERNAL;
	for (int i = 0; i < n; i++) {
		if (!names[i] || cost_fn_lookup(t, names[i]) >= 0)
			return NS_EINTERNAL;
		for (int j = 0; j < i; j++)
			if (strcmp(names[i], names[j]) == 0)
				return NS_EINTERNAL;
	}
	int rc = grow(&t->fn_names, &t->cap_fns, t->nr_fns + n, sizeof *t->fn_names);
	if (rc)
		return rc;
	*base = t->nr_fns;
	for (int i = 0; i < n; i++)
		t->fn_names[t->nr_fns++] = names[i];
	return NS_OK;
}

int cost_register_sites(struct cost_tables *t, const struct cost_site_def *defs,
			int n, int *base)
{
	if (n < 0)
		return NS_EINTERNAL;
	for (int i = 0; i < n; i++) {
		if (!defs[i].name || !defs[i].desc ||
		    cost_site_lookup(t, defs[i].name) >= 0)
			return NS_EINTERNAL;
		for (int j = 0; j < i; j++)
			if (strcmp(defs[i].name, defs[j].name) == 0)
				return NS_EINTERNAL;
	}
	int rc = grow(&t->sites, &t->cap_sites, t->nr_sites + n, sizeof *t->sites);
	if (rc)
		return rc;
	*base = t->nr_sites;
	for (int i = 0; i < n; i++)
		t->sites[t->nr_sites++] = &defs[i];
	return NS_OK;
}

int cost_register_units(struct cost_tables *t, const char *const *names, int n, int *base)
{
	if (n < 0)
		return NS_EINTERNAL;
	for (int i = 0; i < n; i++) {
		if (!names[i] || cost_unit_lookup(t, names[i]) >= 0)
			return NS_EINTERNAL;
		for (int j = 0; j < i; j++)
			if (strcmp(names[i], names[j]) == 0)
				return NS_EINTERNAL;
	}
	int rc = grow(&t->unit_names, &t->cap_units, t->nr_units + n, sizeof *t->unit_names);
	if (rc)
		return rc;
	*base = t->nr_units;
	for (int i = 0; i < n; i++)
		t->unit_names[t->nr_units++] = names[i];
	return NS_OK;
}

const char *cost_hint_name(enum cost_hint h)
{
	switch (h) {
	case COST_HINT_NONE:
		return "none";
	case COST_HINT_LIKELY:
		return "likely";
	case COST_HINT_UNLIKELY:
		return "unlikely";
	}
	return "unknown";
}

/* Cold prediction in taken space: hinted outcome, else fall-through. */
static uint8_t static_taken(const struct cost_site_layout *s)
{
	switch (s->hint) {
	case COST_HINT_LIKELY:
		return s->fallthrough != 1;
	case COST_HINT_UNLIKELY:
		return s->fallthrough != 0;
	default:
		return 0;
	}
}

int cost_layout_init(struct cost_layout *l, const struct cost_tables *t,
		     const char *name)
{
	memset(l, 0, sizeof *l);
	l->name = name;
	l->nr_fns = t->nr_fns;
	l->nr_sites = t->nr_sites;
	/* +1 so empty tables still give distinct non-NULL blocks */
	l->fn_inline = calloc((size_t)l->nr_fns + 1, sizeof *l->fn_inline);
	l->site = calloc((size_t)l->nr_sites + 1, sizeof *l->site);
	if (!l->fn_inline || !l->site) {
		cost_layout_free(l);
		return NS_ENOMEM;
	}
	for (int i = 0; i < l->nr_sites; i++) {
		l->site[i].fallthrough = 1;
		l->site[i].hint = COST_HINT_NONE;
		l->site[i].static_taken = 0;
	}
	return NS_OK;
}

void cost_layout_free(struct cost_layout *l)
{
	free(l->keys);
	free(l->fn_inline);
	free(l->site);
	memset(l, 0, sizeof *l);
}

int cost_layout_set_fn(struct cost_layout *l, int fn, bool inlined)
{
	if (fn < 0 || fn >= l->nr_fns)
		return NS_EINTERNAL;
	l->fn_inline[fn] = inlined;
	return NS_OK;
}

int cost_layout_set_model_fns(struct cost_layout *l, int fn_base, int nr,
			      const int *inl, size_t nr_inl)
{
	if (fn_base < 0 || nr < 0 || fn_base + nr > l->nr_fns)
		return NS_EINTERNAL;
	for (int f = 0; f < nr; f++)
		l->fn_inline[fn_base + f] = false;
	for (size_t i = 0; i < nr_inl; i++) {
		if (inl[i] < 0 || inl[i] >= nr)
			return NS_EINTERNAL;
		l->fn_inline[fn_base + inl[i]] = true;
	}
	return NS_OK;
}

int cost_layout_set_site(struct cost_layout *l, int site, enum cost_hint hint,
			 int fallthrough)
{
	if (site < 0 || site >= l->nr_sites)
		return NS_EINTERNAL;
	if (hint != COST_HINT_NONE && hint != COST_HINT_LIKELY &&
	    hint != COST_HINT_UNLIKELY)
		return NS_EINTERNAL;
	if (fallthrough != 0 && fallthrough != 1 && fallthrough != COST_FT_HINTED)
		return NS_EINTERNAL;
	struct cost_site_layout *s = &l->site[site];
	s->hint = (uint8_t)hint;
	if (fallthrough == COST_FT_HINTED)
		s->fallthrough = hint != COST_HINT_UNLIKELY;
	else
		s->fallthrough = (uint8_t)fallthrough;
	s->static_taken = static_taken(s);
	return NS_OK;
}

int cost_layout_fix_site(struct cost_layout *l, int site, bool value)
{
	if (site < 0 || site >= l->nr_sites)
		return NS_EINTERNAL;
	struct cost_site_layout *s = &l->site[site];
	if (!s->fixed)
		l->nr_fixed++;
	s->fixed = (uint8_t)(1 + value);
	return NS_OK;
}

int cost_layout_key_call(struct cost_layout *l, int caller, int callee, bool on)
{
	if (caller < -1 || caller >= l->nr_fns || callee < 0 || callee >= l->nr_fns)
		return NS_EINTERNAL;
	struct cost_call_key *k = realloc(l->keys, ((size_t)l->nr_keys + 1) * sizeof *k);
	if (!k)
		return NS_ENOMEM;
	l->keys = k;
	k[l->nr_keys++] = (struct cost_call_key){.caller = caller, .callee = callee, .on = on};
	return NS_OK;
}

const struct cost_call_key *cost_layout_call_key(const struct cost_layout *l, int caller,
						 int callee)
{
	for (int i = l->nr_keys - 1; i >= 0; i--) {
		const struct cost_call_key *k = &l->keys[i];
		if (k->callee == callee && (k->caller < 0 || k->caller == caller))
			return k;
	}
	return NULL;
}

int cost_layout_check(const struct cost_layout *l, const struct cost_tables *t)
{
	int nr_fixed = 0;
	if (l->nr_fns != t->nr_fns || l->nr_sites != t->nr_sites)
		return NS_EINTERNAL;
	if (l->nr_keys < 0 || (l->nr_keys && !l->keys))
		return NS_EINTERNAL;
	for (int i = 0; i < l->nr_keys; i++) {
		const struct cost_call_key *k = &l->keys[i];
		if (k->caller < -1 || k->caller >= l->nr_fns || k->callee < 0 ||
		    k->callee >= l->nr_fns || k->on > 1)
			return NS_EINTERNAL;
	}
	for (int i = 0; i < l->nr_fns; i++)
		if (l->fn_inline[i] > 1)
			return NS_EINTERNAL;
	for (int i = 0; i < l->nr_sites; i++) {
		const struct cost_site_layout *s = &l->site[i];
		if (s->fallthrough > 1 || s->hint > COST_HINT_UNLIKELY ||
		    s->static_taken != static_taken(s) || s->fixed > 2)
			return NS_EINTERNAL;
		nr_fixed += s->fixed != 0;
	}
	return nr_fixed == l->nr_fixed ? NS_OK : NS_EINTERNAL;
}
