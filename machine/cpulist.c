/* cpulist — Linux cpulist parsing and printing; see cpulist.h. */
#include "machine/cpulist.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"

static int parse_uint(const char *s, size_t *pos, int max, int *out)
{
	size_t p = *pos;
	long v = 0;
	if (!isdigit((unsigned char)s[p]))
		return -1;
	while (isdigit((unsigned char)s[p])) {
		v = v * 10 + (s[p] - '0');
		if (v >= max)
			return -2;
		p++;
	}
	*pos = p;
	*out = (int)v;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int fail(size_t *errpos, size_t at, char *errbuf, size_t errlen,
		const char *msg)
{
	if (errpos)
		*errpos = at;
	if (errbuf && errlen)
		snprintf(errbuf, errlen, "%s", msg);
	return NS_EINPUT;
}

int cpulist_parse(const char *s, int max_cpus, int allow_overlap, int **cpus,
		  int *nr, size_t *errpos, char *errbuf, size_t errlen)
{
	size_t p = 0, end = strlen(s);
	int *out = NULL, n = 0, cap = 0, rc = NS_OK;
	char msg[128];

	*cpus = NULL;
	*nr = 0;
	while (p < end && isspace((unsigned char)s[p]))
		p++;
	while (end > p && isspace((unsigned char)s[end - 1]))
		end--;
	if (p == end)
		return NS_OK;
	for (;;) {
		int lo, hi, e;
		size_t at = p;
		if ((e = parse_uint(s, &p, max_cpus, &lo)) != 0) {
			snprintf(msg, sizeof msg, e == -2 ?
				 "CPU number out of range (at most %d)" :
				 "expected a CPU number in cpulist", max_cpus - 1);
			rc = fail(errpos, at, errbuf, errlen, msg);
			goto out;
		}
		hi = lo;
		if (p < end && s[p] == '-') {
			p++;
			at = p;
			if ((e = parse_uint(s, &p, max_cpus, &hi)) != 0) {
				snprintf(msg, sizeof msg, e == -2 ?
					 "CPU number out of range (at most %d)" :
					 "expected a CPU number after '-' in cpulist",
					 max_cpus - 1);
				rc = fail(errpos, at, errbuf, errlen, msg);
				goto out;
			}
			if (hi < lo) {
				rc = fail(errpos, at, errbuf, errlen,
					  "descending range in cpulist");
				goto out;
			}
		}
		for (int c = lo; c <= hi; c++) {
			if (n == cap) {
				int ncap = cap ? cap * 2 : 16;
				int *t = realloc(out, (size_t)ncap * sizeof *t);
				if (!t) {
					rc = NS_ENOMEM;
					goto out;
				}
				out = t;
				cap = ncap;
			}
			out[n++] = c;
		}
		if (p == end)
			break;
		if (s[p] != ',') {
			rc = fail(errpos, p, errbuf, errlen,
				  "expected ',' or '-' in cpulist");
			goto out;
		}
		p++;
	}
	qsort(out, (size_t)n, sizeof *out, cmp_int);
	{
		int w = 0;
		for (int i = 0; i < n; i++) {
			if (w > 0 && out[w - 1] == out[i]) {
				if (!allow_overlap) {
					snprintf(msg, sizeof msg,
						 "CPU %d listed twice in cpulist", out[i]);
					rc = fail(errpos, 0, errbuf, errlen, msg);
					goto out;
				}
				continue;
			}
			out[w++] = out[i];
		}
		n = w;
	}
out:
	if (rc != NS_OK) {
		free(out);
		return rc;
	}
	*cpus = out;
	*nr = n;
	return NS_OK;
}

size_t cpulist_format(const int *cpus, int nr, char *buf, size_t len)
{
	size_t used = 0;
	if (len)
		buf[0] = '\0';
	for (int i = 0; i < nr;) {
		int j = i;
		while (j + 1 < nr && cpus[j + 1] == cpus[j] + 1)
			j++;
		char tmp[32];
		int k = (j > i) ? snprintf(tmp, sizeof tmp, "%s%d-%d", i ? "," : "",
					   cpus[i], cpus[j])
				: snprintf(tmp, sizeof tmp, "%s%d", i ? "," : "", cpus[i]);
		if (used + (size_t)k < len)
			memcpy(buf + used, tmp, (size_t)k + 1);
		else if (len && used < len)
			buf[used] = '\0';
		used += (size_t)k;
		i = j + 1;
	}
	return used;
}
