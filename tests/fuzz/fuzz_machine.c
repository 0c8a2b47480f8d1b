/*
 * fuzz_machine — libFuzzer target: the input as a machine file
 * (machine_load_buf) and as a cost profile (machine_costs_load_buf); what
 * loads must pass machine_check / machine_costs_check (tests/fuzz/fuzz.h).
 * Seeds: configs/, configs/costs/, tests/bad/machines/, tests/costs/.
 */
#include <stddef.h>
#include <stdint.h>

#include "machine/machine.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct machine *m = NULL;
	struct machine_costs c;
	struct diag d;

	diag_init(&d);
	if (machine_load_buf("fuzz.yaml", (const char *)data, size, &m, &d) == NS_OK) {
		diag_init(&d);
		if (machine_check(m, &d) != NS_OK)
			fuzz_check_failed("machine_load_buf", &d);
	}
	machine_free(m);
	diag_init(&d);
	memset(&c, 0, sizeof c);
	if (machine_costs_load_buf("fuzz-costs.yaml", (const char *)data, size, &c, &d) == NS_OK) {
		diag_init(&d);
		if (machine_costs_check(&c, "fuzz-costs.yaml", &d) != NS_OK)
			fuzz_check_failed("machine_costs_load_buf", &d);
	}
	machine_costs_free(&c);
	return 0;
}
