/*
 * keymap — 64-bit keys to 64-bit values; see keymap.h.
 */
#include "workloads/keymap.h"

#include <stdlib.h>

static size_t home(const struct keymap *m, uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (m->cap - 1);
}

void keymap_init(struct keymap *m)
{
	m->key = m->val = NULL;
	m->nr = m->cap = 0;
}

void keymap_free(struct keymap *m)
{
	free(m->key);
	free(m->val);
	keymap_init(m);
}

static int grow(struct keymap *m)
{
	size_t cap = m->cap ? 2 * m->cap : 64;
	uint64_t *k = malloc(cap * sizeof *k), *v = malloc(cap * sizeof *v);
	if (!k || !v) {
		free(k);
		free(v);
		return NS_ENOMEM;
	}
	for (size_t i = 0; i < cap; i++)
		k[i] = KEYMAP_EMPTY;
	struct keymap n = {.key = k, .val = v, .nr = m->nr, .cap = cap};
	for (size_t i = 0; i < m->cap; i++) {
		if (m->key[i] == KEYMAP_EMPTY)
			continue;
		size_t j = home(&n, m->key[i]);
		while (k[j] != KEYMAP_EMPTY)
			j = (j + 1) & (cap - 1);
		k[j] = m->key[i];
		v[j] = m->val[i];
	}
	free(m->key);
	free(m->val);
	*m = n;
	return NS_OK;
}

int keymap_put(struct keymap *m, uint64_t key, uint64_t val)
{
	if (key == KEYMAP_EMPTY)
		return NS_EINPUT;
	if (2 * (m->nr + 1) > m->cap && grow(m) != NS_OK)
		return NS_ENOMEM;
	size_t i = home(m, key);
	while (m->key[i] != KEYMAP_EMPTY && m->key[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (m->key[i] == KEYMAP_EMPTY)
		m->nr++;
	m->key[i] = key;
	m->val[i] = val;
	return NS_OK;
}

static size_t find(const struct keymap *m, uint64_t key)
{
	if (!m->cap || key == KEYMAP_EMPTY)
		return SIZE_MAX;
	size_t i = home(m, key);
	while (m->key[i] != KEYMAP_EMPTY) {
		if (m->key[i] == key)
			return i;
		i = (i + 1) & (m->cap - 1);
	}
	return SIZE_MAX;
}

int keymap_get(const struct keymap *m, uint64_t key, uint64_t *val)
{
	size_t i = find(m, key);
	if (i == SIZE_MAX)
		return 0;
	*val = m->val[i];
	return 1;
}

int keymap_del(struct keymap *m, uint64_t key, uint64_t *val)
{
	size_t i = find(m, key);
	if (i == SIZE_MAX)
		return 0;
	if (val)
		*val = m->val[i];
	/* backward shift: move later entries of the run into the hole when
	 * their home does not lie cyclically in (hole, j] */
	size_t mask = m->cap - 1, j = i;
	for (;;) {
		m->key[i] = KEYMAP_EMPTY;
		for (;;) {
			j = (j + 1) & mask;
			if (m->key[j] == KEYMAP_EMPTY) {
				m->nr--;
				return 1;
			}
			size_t h = home(m, m->key[j]);
			if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
				continue;
			break;
		}
		m->key[i] = m->key[j];
		m->val[i] = m->val[j];
		i = j;
	}
}

int keymap_check(const struct keymap *m, struct diag *d)
{
	if (!m->cap)
		return m->nr ? diag_set(d, NS_EINTERNAL, NULL, 0, 0, "keymap: entries without a table")
			     : NS_OK;
	if (m->cap & (m->cap - 1) || m->nr >= m->cap || 2 * m->nr > m->cap)
		return diag_set(d, NS_EINTERNAL, NULL, 0, 0, "keymap: bad size %zu/%zu",
				m->nr, m->cap);
	size_t n = 0;
	for (size_t i = 0; i < m->cap; i++) {
		if (m->key[i] == KEYMAP_EMPTY)
			continue;
		n++;
		if (find(m, m->key[i]) != i)
			return diag_set(d, NS_EINTERNAL, NULL, 0, 0,
					"keymap: key in slot %zu not reachable", i);
	}
	if (n != m->nr)
		return diag_set(d, NS_EINTERNAL, NULL, 0, 0, "keymap: %zu keys, count says %zu",
				n, m->nr);
	return NS_OK;
}
