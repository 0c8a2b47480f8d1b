/*
 * fuzz_trace — libFuzzer target of the kmem trace reader
 * (workloads/ktrace.h) and the perf kmem stat summary
 * (workloads/ktrace_stat.h).
 *
 * The input is read by ktrace_read as numasim import trace reads a file:
 * text (perf script, ftrace, trace-cmd) or, when it starts with the
 * magic, a compact file; inputs whose first byte is odd are read with
 * --skip-bad.  What it accepts must pass ktrace_check; its summary must
 * be computed and pass ktrace_stat_check; its compact file must read
 * back to the same events, strings and counts.  Seeds: the fixtures of
 * tests/fixtures/traces (and its bad/), and a compact file made from one
 * of them by tests/fuzz/run.sh.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "workloads/ktrace.h"
#include "workloads/ktrace_stat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same(const struct ktrace *a, const struct ktrace *b)
{
	struct diag d;
	diag_init(&d);
	int ok = a->nr == b->nr && a->nr_str == b->nr_str && a->max_cpu == b->max_cpu &&
		 (!a->nr || !memcmp(a->ev, b->ev, a->nr * sizeof *a->ev)) &&
		 !memcmp(a->n.by_kind, b->n.by_kind, sizeof a->n.by_kind) &&
		 a->n.lost_events == b->n.lost_events && a->n.lines == b->n.lines;
	for (uint32_t i = 0; ok && i < a->nr_str; i++)
		ok = !strcmp(ktrace_str(a, i), ktrace_str(b, i));
	if (!ok) {
		diag_set(&d, NS_EINTERNAL, "fuzz", 0, 0, "the compact file does not read back "
			 "to the trace it was written from");
		fuzz_check_failed("the compact writer", &d);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ktrace t, u;
	struct ktrace_stat s;
	struct diag d;
	char *bin = NULL;
	size_t len = 0;
	ktrace_init(&t);
	diag_init(&d);
	if (ktrace_read(&t, "fuzz.txt", (const char *)data, size, size && (data[0] & 1),
			&d) != NS_OK)
		return 0;
	if (ktrace_check(&t, &d) != NS_OK)
		fuzz_check_failed("the trace reader", &d);
	if (ktrace_stat_compute(&t, &s) == NS_OK) {
		if (ktrace_stat_check(&s, &d) != NS_OK)
			fuzz_check_failed("the trace summary", &d);
		ktrace_stat_free(&s);
	}
	if (ktrace_write_compact(&t, &bin, &len) == NS_OK) {
		ktrace_init(&u);
		if (ktrace_read(&u, "fuzz.nst", bin, len, 0, &d) != NS_OK)
			fuzz_check_failed("the compact reader", &d);
		same(&t, &u);
		ktrace_free(&u);
		free(bin);
	}
	ktrace_free(&t);
	return 0;
}
