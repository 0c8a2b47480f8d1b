/*
 * kcode — the modelled kernel code's names across the models; see kcode.h.
 */
#include "models/kcode.h"

#include <stdio.h>
#include <string.h>

#include "base/diag.h"
#include "models/kcode_lines.h"

static const struct kcode_source {
	enum kcode_kind kind;
	const char *name, *release, *file;
	int line;
} kcode_sources[] = {
#define KCODE_SOURCE_ROW(kind, name, release, file, line) {kind, name, release, file, line},
	KCODE_LINES(KCODE_SOURCE_ROW)
#undef KCODE_SOURCE_ROW
};

int kcode_line(enum kcode_kind kind, const char *name, const char **release,
	       const char **file)
{
	*release = *file = NULL;
	for (size_t i = 0; i < sizeof kcode_sources / sizeof kcode_sources[0]; i++)
		if (kcode_sources[i].kind == kind && !strcmp(kcode_sources[i].name, name)) {
			*release = kcode_sources[i].release;
			*file = kcode_sources[i].file;
			return kcode_sources[i].line;
		}
	return 0;
}

void kcode_model(int i, struct kcode_model *out)
{
	static void (*const fill[KCODE_NR_MODELS])(struct kcode_model *) = {
		mm_kcode, mm_series_kcode, slub_kcode, vmscan_kcode,
	};
	memset(out, 0, sizeof *out);
	if (i >= 0 && i < KCODE_NR_MODELS)
		fill[i](out);
}

const char *kcode_kind_name(enum kcode_kind kind)
{
	return kind == KCODE_FN ? "function" : kind == KCODE_SITE ? "site" : "block";
}

static int kcode_count(const struct kcode_model *m, enum kcode_kind kind)
{
	return kind == KCODE_FN ? m->nr_fns : kind == KCODE_SITE ? m->nr_sites : m->nr_blocks;
}

static const char *kcode_name(const struct kcode_model *m, enum kcode_kind kind, int i)
{
	return kind == KCODE_FN ? m->fns[i] : kind == KCODE_SITE ? m->sites[i].name
								 : m->blocks[i].name;
}

int kcode_find(enum kcode_kind kind, const char *name, int *idx)
{
	struct kcode_model m;
	for (int k = 0; k < KCODE_NR_MODELS; k++) {
		kcode_model(k, &m);
		for (int i = 0; i < kcode_count(&m, kind); i++)
			if (!strcmp(kcode_name(&m, kind, i), name)) {
				*idx = i;
				return k;
			}
	}
	return -1;
}

/* Levenshtein distance of a[0..la) and b (names are short: longer ones
 * count as far). */
static int kcode_distance(const char *a, unsigned la, const char *b)
{
	unsigned lb = (unsigned)strlen(b);
	int row[65];
	if (la > 64 || lb > 64)
		return 99;
	for (unsigned j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (unsigned i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (unsigned j = 1; j <= lb; j++) {
			int up = row[j];
			int best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *kcode_suggest(enum kcode_kind kind, const char *s, unsigned len)
{
	struct kcode_model m;
	const char *best = NULL;
	int bestd = 3;  /* as ytree_suggest: close matches only */
	for (int k = 0; k < KCODE_NR_MODELS; k++) {
		kcode_model(k, &m);
		for (int i = 0; i < kcode_count(&m, kind); i++) {
			const char *name = kcode_name(&m, kind, i);
			int d = kcode_distance(s, len, name);
			if (d < bestd) {
				bestd = d;
				best = name;
			}
		}
	}
	return best;
}

const struct kcode_callee *kcode_key_callee(const char *fn)
{
	struct kcode_model m;
	for (int k = 0; k < KCODE_NR_MODELS; k++) {
		kcode_model(k, &m);
		for (int i = 0; i < m.nr_key_callees; i++)
			if (!strcmp(m.key_callees[i].name, fn))
				return &m.key_callees[i];
	}
	return NULL;
}

int kcode_key_call(const char *caller, const char *callee)
{
	struct kcode_model m;
	for (int k = 0; k < KCODE_NR_MODELS; k++) {
		kcode_model(k, &m);
		for (int i = 0; i < m.nr_key_calls; i++)
			if (!strcmp(m.key_calls[i].caller, caller) &&
			    !strcmp(m.key_calls[i].callee, callee))
				return 1;
	}
	return 0;
}

/* s appended to buf[0 .. len) after ", " unless first. */
static void join(char *buf, size_t len, const char *s)
{
	size_t at = strlen(buf);
	if (at < len)
		snprintf(buf + at, len - at, "%s%s", at ? ", " : "", s);
}

int kcode_key_callers(const char *callee, char *buf, size_t len)
{
	struct kcode_model m;
	int n = 0;
	if (len)
		buf[0] = '\0';
	for (int k = 0; k < KCODE_NR_MODELS; k++) {
		kcode_model(k, &m);
		for (int i = 0; i < m.nr_key_calls; i++)
			if (!strcmp(m.key_calls[i].callee, callee)) {
				join(buf, len, m.key_calls[i].caller);
				n++;
			}
	}
	return n;
}

void kcode_key_callees(char *buf, size_t len)
{
	struct kcode_model m;
	if (len)
		buf[0] = '\0';
	for (int k = 0; k < KCODE_NR_MODELS; k++) {
		kcode_model(k, &m);
		for (int i = 0; i < m.nr_key_callees; i++)
			join(buf, len, m.key_callees[i].name);
	}
}

int kcode_check(void)
{
	struct kcode_model a, b;
	for (int kind = KCODE_FN; kind <= KCODE_BLOCK; kind++)
		for (int k = 0; k < KCODE_NR_MODELS; k++) {
			kcode_model(k, &a);
			for (int i = 0; i < kcode_count(&a, (enum kcode_kind)kind); i++) {
				const char *n = kcode_name(&a, (enum kcode_kind)kind, i);
				for (int k2 = k; k2 < KCODE_NR_MODELS; k2++) {
					kcode_model(k2, &b);
					for (int j = k2 == k ? i + 1 : 0;
					     j < kcode_count(&b, (enum kcode_kind)kind); j++)
						if (!strcmp(n, kcode_name(&b, (enum kcode_kind)kind, j)))
							return NS_EINTERNAL;
				}
			}
		}
	/* every key call's caller and callee are functions, its callee a
	 * keyable one, and every keyable callee has a call */
	for (int k = 0; k < KCODE_NR_MODELS; k++) {
		kcode_model(k, &a);
		int idx;
		for (int i = 0; i < a.nr_key_calls; i++)
			if (kcode_find(KCODE_FN, a.key_calls[i].caller, &idx) < 0 ||
			    kcode_find(KCODE_FN, a.key_calls[i].callee, &idx) < 0 ||
			    !kcode_key_callee(a.key_calls[i].callee))
				return NS_EINTERNAL;
		for (int i = 0; i < a.nr_key_callees; i++) {
			char buf[8];
			if (kcode_find(KCODE_FN, a.key_callees[i].name, &idx) < 0 ||
			    !kcode_key_callers(a.key_callees[i].name, buf, sizeof buf))
				return NS_EINTERNAL;
		}
	}
	return NS_OK;
}
