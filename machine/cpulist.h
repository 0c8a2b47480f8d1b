/*
 * cpulist — Linux cpulist syntax ("0-23,48-71", "0,2,4-7", "0-15:2" is
 * not accepted: strides are a bitmap_parselist extension numasim does not
 * need), as printed by /sys/devices/system/node/nodeN/cpulist and accepted
 * by taskset -c.  Models lib/bitmap.c bitmap_parselist() / the "%*pbl"
 * printk format for the subset sysfs prints.
 *
 * Error policy: parse errors return NS_EINPUT with the 0-based byte offset
 * of the offending character in *errpos and a message in errbuf; no output
 * is allocated then.  Whitespace around the list (e.g. a trailing newline
 * from sysfs) is ignored; an empty list is valid and yields zero CPUs.
 */
#ifndef NUMASIM_CPULIST_H
#define NUMASIM_CPULIST_H

#include <stddef.h>

/*
 * Parse s into a sorted array of unique CPU numbers in [0, max_cpus).
 * Duplicates or out-of-order ranges are accepted only if allow_overlap;
 * otherwise a CPU listed twice is an error.  *cpus is malloc'ed (NULL for
 * an empty list) and must be freed by the caller.
 */
int cpulist_parse(const char *s, int max_cpus, int allow_overlap, int **cpus,
		  int *nr, size_t *errpos, char *errbuf, size_t errlen);

/* Format sorted unique cpus as a cpulist ("0-3,8"); returns the length
 * the full string needs (like snprintf), writing at most len bytes. */
size_t cpulist_format(const int *cpus, int nr, char *buf, size_t len);

#endif
