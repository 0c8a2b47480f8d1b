/*
 * keymap — a map of 64-bit keys to 64-bit values (open addressing, linear
 * probing, deletion by backward shift), for the trace importer and the
 * replay workload: pages by pfn, objects by pointer.
 *
 * What it models: nothing of the kernel; a host data structure.
 *
 * Invariants (keymap_check()): nr < cap (a free slot always exists), cap
 * a power of two, load at most 1/2 after every insertion; every stored
 * key is reachable from its home slot without crossing a free slot;
 * KEYMAP_EMPTY is never a key (keymap_put refuses it).
 *
 * Error policy: keymap_put returns NS_ENOMEM when the table cannot grow
 * (the map is unchanged) and NS_EINPUT for the reserved key; lookups and
 * deletions do not fail.
 */
#ifndef NUMASIM_KEYMAP_H
#define NUMASIM_KEYMAP_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"

#define KEYMAP_EMPTY UINT64_MAX

struct keymap {
	uint64_t *key, *val;
	size_t nr, cap;
};

void keymap_init(struct keymap *m);
void keymap_free(struct keymap *m);
/* Insert or replace. */
int keymap_put(struct keymap *m, uint64_t key, uint64_t val);
/* 1 and *val when present, else 0. */
int keymap_get(const struct keymap *m, uint64_t key, uint64_t *val);
/* Remove: 1 and *val (may be NULL) when it was present, else 0. */
int keymap_del(struct keymap *m, uint64_t key, uint64_t *val);
int keymap_check(const struct keymap *m, struct diag *d);

#endif
