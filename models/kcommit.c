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
	const char *title;
	const char *changes;
};

static const struct kcommit_row kcommit_rows[KCOMMIT_NR] = {
	[KCOMMIT_UNSET] = {NULL, -1, NULL, NULL, NULL},
#define KCOMMIT_ROW(name, tree, v3, id, title, changes) \
	[KC_##name] = {tree, v3, id, title, changes},
	KCOMMIT_TABLE(KCOMMIT_ROW)
#undef KCOMMIT_ROW
};

static const struct kcommit_row *row(enum kcommit k)
{
	return (unsigned)k > KCOMMIT_UNSET && (unsigned)k < KCOMMIT_NR ? &kcommit_rows[k] : NULL;
}

const char *kcommit_id(enum kcommit k) { return row(k) ? row(k)->id : NULL; }
const char *kcommit_tree(enum kcommit k) { return row(k) ? row(k)->tree : NULL; }
int kcommit_v3(enum kcommit k) { return row(k) ? row(k)->v3 : -1; }
const char *kcommit_title(enum kcommit k) { return row(k) ? row(k)->title : NULL; }
const char *kcommit_changes(enum kcommit k) { return row(k) ? row(k)->changes : NULL; }

const char *kcommit_kernel_model(enum kcommit k)
{
	switch (k) {
#define KCOMMIT_MODEL(name, tree, v3, id, title, changes) \
	case KC_##name: return v3 ? "v4.6-rc2+series:" id : id;
	KCOMMIT_TABLE(KCOMMIT_MODEL)
#undef KCOMMIT_MODEL
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

int kcommit_check(void)
{
	for (int k = KCOMMIT_UNSET + 1; k < KCOMMIT_NR; k++) {
		const struct kcommit_row *r = &kcommit_rows[k];
		if (!r->tree || !r->id || !r->title || !r->changes)
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
			if (r->v3 != 0)
				return NS_EINTERNAL;
			for (int j = KCOMMIT_UNSET + 1; j < k - 1; j++)
				if (!strcmp(kcommit_rows[j].tree, r->tree))
					return NS_EINTERNAL;
		}
	}
	return NS_OK;
}
