/*
 * fuzz_change — libFuzzer target of the code-change file parser
 * (scenarios/kchange.h, `kernel.change`).
 *
 * The input is parsed by kchange_parse as numasim reads a change file;
 * what it accepts must pass kchange_check, and its block edits must
 * gather (kchange_block_changes) and apply to a block (cpu_block_edit:
 * NS_OK or NS_EINPUT only, the block within its limits).  Seeds: the
 * shipped change files (scenarios/changes/) and the bad ones
 * (tests/bad/changes/).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "scenarios/kchange.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kchange *c;
	struct diag d;
	diag_init(&d);
	if (kchange_parse("fuzz.yaml", (const char *)data, size, &c, &d) != NS_OK)
		return 0;
	if (kchange_check(c, &d) != NS_OK)
		fuzz_check_failed("the change file parser", &d);
	struct cpu_block_change *ch = calloc((size_t)c->nr, sizeof *ch);
	int n = 0;
	if (ch && kchange_block_changes(c, ch, &n, c->nr, &d) == NS_OK) {
		for (int i = 0; i < n; i++) {
			struct cpu_block b = {.uops = 10};
			int rc = cpu_block_edit(&b, ch[i].uops, ch[i].add);
			if ((rc != NS_OK && rc != NS_EINPUT) || b.nextra > CPU_BLOCK_MAX_EXTRA) {
				diag_set(&d, NS_EINTERNAL, "fuzz", 0, 0, "a block edit broke its block");
				fuzz_check_failed("cpu_block_edit", &d);
			}
		}
	}
	free(ch);
	kchange_free(c);
	return 0;
}
