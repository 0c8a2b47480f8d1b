/*
 * kcommit — the table of modelled kernel commits: names, lookup and the
 * table's check.  See kcommit.h.
 */
#include "models/kcommit.h"

#include "base/diag.h"

#include <stdio.h>
#include <string.h>

struct kcommit_row {
	const char *tree;
	int v3;
	const char *id;
	char status;
	const char *title;
	const char *changes;
};

static const struct kcommit_row kcommit_rows[KCOMMIT_NR] = {
	[KCOMMIT_UNSET] = {NULL, -1, NULL, 0, NULL, NULL},
#define KCOMMIT_ROW(name, tree, v3, id, status, title, changes) \
	[KC_##name] = {tree, v3, id, status, title, changes},
	KCOMMIT_ALL(KCOMMIT_ROW)
#undef KCOMMIT_ROW
};

static const struct kcommit_row *row(enum kcommit k)
{
	return (unsigned)k > KCOMMIT_UNSET && (unsigned)k < KCOMMIT_NR ? &kcommit_rows[k] : NULL;
}

const char *kcommit_id(enum kcommit k) { return row(k) ? row(k)->id : NULL; }
const char *kcommit_tree(enum kcommit k) { return row(k) ? row(k)->tree : NULL; }
int kcommit_v3(enum kcommit k) { return row(k) ? row(k)->v3 : -1; }
char kcommit_status(enum kcommit k) { return row(k) ? row(k)->status : 0; }
const char *kcommit_title(enum kcommit k) { return row(k) ? row(k)->title : NULL; }
const char *kcommit_changes(enum kcommit k) { return row(k) ? row(k)->changes : NULL; }

const char *kcommit_kernel_model(enum kcommit k)
{
	switch (k) {
#define KCOMMIT_MODEL(name, tree, v3, id, status, title, changes) \
	case KC_##name: return v3 ? "v4.6-rc2+series:" id : id;
	KCOMMIT_TABLE(KCOMMIT_MODEL)
#undef KCOMMIT_MODEL
	case KC_v5_9: return "v5.9";
	case KC_slub_01: return "v5.9+b47291ef02b0";
	case KC_slub_02: return "v5.9+b47291ef02b0+23e98ad1ce89";
	case KCOMMIT_UNSET:
	case KCOMMIT_NR:
		break;
	}
	return NULL;
}

static int is_hex12(const char *s)
{
	if (strlen(s) != 12)
		return 0;
	for (const char *p = s; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return 0;
	return 1;
}

enum kcommit kcommit_parse(const char *tree, const char *s)
{
	if (!s || !tree)
		return KCOMMIT_UNSET;
	size_t n = strlen(s);
	enum kcommit found = KCOMMIT_UNSET;
	for (int k = KCOMMIT_UNSET + 1; k < KCOMMIT_NR; k++) {
		const struct kcommit_row *r = &kcommit_rows[k];
		if (strcmp(r->tree, tree))
			continue;
		if (!strcmp(r->id, s))
			return (enum kcommit)k;
		/* a prefix of 7 or more hex digits of a 12-hex id */
		if (n >= 7 && n < 12 && is_hex12(r->id) && !strncmp(r->id, s, n)) {
			if (found != KCOMMIT_UNSET)
				return KCOMMIT_UNSET;  /* ambiguous */
			found = (enum kcommit)k;
		}
	}
	return found;
}

int kcommit_selectable(enum kcommit k)
{
	const struct kcommit_row *r = row(k);
	if (!r)
		return 0;
	for (int j = KCOMMIT_UNSET + 1; j <= (int)k; j++)
		if (!strcmp(kcommit_rows[j].tree, r->tree) && kcommit_rows[j].status == 'P')
			return 0;
	return 1;
}

enum kcommit kcommit_effective(enum kcommit k)
{
	if (!row(k))
		return KCOMMIT_UNSET;
	/* a tree's first entry is its base, 'M' (kcommit_check) */
	while (kcommit_rows[k].status == 'N' && kcommit_rows[k].v3 > 0)
		k = (enum kcommit)(k - 1);
	return k;
}

enum kcommit kcommit_last_selectable(const char *tree)
{
	enum kcommit last = KCOMMIT_UNSET;
	for (int k = KCOMMIT_UNSET + 1; k < KCOMMIT_NR; k++)
		if (!strcmp(kcommit_rows[k].tree, tree) && kcommit_selectable((enum kcommit)k))
			last = (enum kcommit)k;
	return last;
}

/* Levenshtein distance of two short strings (ids are at most 32 bytes;
 * longer input is cut there, which only makes a suggestion less likely). */
static int edit_distance(const char *a, const char *b)
{
	enum { MAXLEN = 32 };
	size_t la = strlen(a), lb = strlen(b);
	la = la > MAXLEN ? MAXLEN : la;
	lb = lb > MAXLEN ? MAXLEN : lb;
	int prev[MAXLEN + 1], cur[MAXLEN + 1];
	for (size_t j = 0; j <= lb; j++)
		prev[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			int del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, sizeof prev);
	}
	return prev[lb];
}

const char *kcommit_suggest(const char *tree, const char *s)
{
	if (!s || !tree)
		return NULL;
	const char *best = NULL;
	int bestd = 4;          /* suggest only close names */
	size_t n = strlen(s);
	for (int k = KCOMMIT_UNSET + 1; k < KCOMMIT_NR; k++) {
		const struct kcommit_row *r = &kcommit_rows[k];
		if (strcmp(r->tree, tree))
			continue;
		/* an abbreviated id that is too short or ambiguous */
		if (n >= 4 && n < strlen(r->id) && !strncmp(r->id, s, n))
			return r->id;
		/* a misspelt id compares with its first n characters */
		char cut[64];
		snprintf(cut, sizeof cut, "%.*s", (int)(is_hex12(r->id) && n >= 7 && n < 12 ? n : 63),
			 r->id);
		int d = edit_distance(s, cut);
		if (d < bestd) {
			bestd = d;
			best = r->id;
		}
	}
	return best;
}

void kcommit_list(const char *tree, char *buf, unsigned len)
{
	size_t off = 0;
	if (len)
		buf[0] = '\0';
	for (int k = KCOMMIT_UNSET + 1; k < KCOMMIT_NR && off < len; k++) {
		if (strcmp(kcommit_rows[k].tree, tree))
			continue;
		int w = snprintf(buf + off, len - off, "%s%s", off ? ", " : "", kcommit_rows[k].id);
		if (w < 0)
			break;
		off += (size_t)w;
	}
}

/* The entry of any tree whose id is the n bytes at s (or a unique prefix
 * of 7 or more hex digits of one); KCOMMIT_UNSET if none. */
static enum kcommit parse_any(const char *s, size_t n)
{
	char part[64];
	if (n == 0 || n >= sizeof part)
		return KCOMMIT_UNSET;
	memcpy(part, s, n);
	part[n] = '\0';
	enum kcommit k = kcommit_parse("mm", part);
	return k != KCOMMIT_UNSET ? k : kcommit_parse("slub", part);
}

int kcommit_parse_pair(const char *s, enum kcommit *mm, enum kcommit *slub,
		       const char **bad, int *bad_len)
{
	*mm = *slub = KCOMMIT_UNSET;
	*bad = NULL;
	*bad_len = 0;
	const char *plus = strchr(s, '+');
	size_t n1 = plus ? (size_t)(plus - s) : strlen(s);
	const char *parts[2] = {s, plus ? plus + 1 : NULL};
	size_t lens[2] = {n1, plus ? strlen(plus + 1) : 0};
	for (int i = 0; i < 2 && parts[i]; i++) {
		enum kcommit k = parse_any(parts[i], lens[i]);
		if (k == KCOMMIT_UNSET) {
			*bad = parts[i];
			*bad_len = (int)lens[i];
			return NS_EINPUT;
		}
		enum kcommit *slot = !strcmp(kcommit_tree(k), "mm") ? mm : slub;
		if (*slot != KCOMMIT_UNSET)
			return NS_EINPUT;       /* two of one tree */
		*slot = k;
	}
	return NS_OK;
}

int kcommit_check(void)
{
	for (int k = KCOMMIT_UNSET + 1; k < KCOMMIT_NR; k++) {
		const struct kcommit_row *r = &kcommit_rows[k];
		if (!r->tree || !r->id || !r->title || !r->changes ||
		    (r->status != 'M' && r->status != 'N' && r->status != 'P'))
			return NS_EINTERNAL;
		for (int j = KCOMMIT_UNSET + 1; j < k; j++)
			if (!strcmp(kcommit_rows[j].id, r->id))
				return NS_EINTERNAL;
		/* contiguous per tree, v3 numbers ascending from 0 */
		const struct kcommit_row *p = k > KCOMMIT_UNSET + 1 ? &kcommit_rows[k - 1] : NULL;
		if (p && !strcmp(p->tree, r->tree)) {
			if (r->v3 != p->v3 + 1)
				return NS_EINTERNAL;
		} else {
			/* a tree's base: v3 0, modelled (kcommit_effective
			 * stops there) */
			if (r->v3 != 0 || r->status != 'M')
				return NS_EINTERNAL;
			for (int j = KCOMMIT_UNSET + 1; j < k - 1; j++)
				if (!strcmp(kcommit_rows[j].tree, r->tree))
					return NS_EINTERNAL;
		}
	}
	return NS_OK;
}
