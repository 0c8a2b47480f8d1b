/*
 * fuzz_scenario — libFuzzer target: a scenario file and command-line
 * settings.  The input is the scenario's YAML, then optionally a line
 * "%%" and one option per line, "set KEY=VALUE" or "sweep KEY=V1,V2"
 * (as `numasim run --set/--sweep` pass them, at most 16).  The scenario
 * is loaded as tests/scenarios/fuzz.yaml of the source tree, so its
 * relative machine paths (../../configs/...) and the shipped machine
 * names resolve; what loads must pass scenario_check.  Seeds: scenarios/,
 * tests/scenarios/, tests/bad/scenarios/ and tests/fuzz/seeds/scenario/.
 */
#include <stddef.h>
#include <stdint.h>

#include "numasim_config.h"
#include "scenarios/scenario.h"
#include "tests/fuzz/fuzz.h"

#define FUZZ_MAX_ARGS 16
#define FUZZ_ARG_MAX 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Parse the option lines into args (texts in store); returns how many. */
static int parse_opts(const char *p, size_t len, struct scn_arg *args,
		      char store[][FUZZ_ARG_MAX])
{
	int n = 0;
	const char *end = p + len;
	while (p < end && n < FUZZ_MAX_ARGS) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = (size_t)((nl ? nl : end) - p);
		enum scn_arg_kind kind = SCN_ARG_SET;
		size_t skip = 0;
		if (l > 4 && !memcmp(p, "set ", 4))
			skip = 4;
		else if (l > 6 && !memcmp(p, "sweep ", 6))
			kind = SCN_ARG_SWEEP, skip = 6;
		if (skip && l - skip < FUZZ_ARG_MAX && !memchr(p, '\0', l)) {
			memcpy(store[n], p + skip, l - skip);
			store[n][l - skip] = '\0';
			args[n].kind = kind;
			args[n].text = store[n];
			n++;
		}
		p += l + 1;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char store[FUZZ_MAX_ARGS][FUZZ_ARG_MAX];
	struct scn_arg args[FUZZ_MAX_ARGS];
	const char *file, *opts;
	size_t file_len, opts_len;
	struct scenario *s = NULL;
	struct diag d;

	fuzz_split((const char *)data, size, &file, &file_len, &opts, &opts_len);
	struct scn_opts o = {.prog = "numasim run",
			     .nr_args = parse_opts(opts, opts_len, args, store),
			     .args = args};
	diag_init(&d);
	if (scenario_load(NUMASIM_SOURCE_ROOT "/tests/scenarios/fuzz.yaml", file, file_len,
			  &o, &s, &d) == NS_OK) {
		diag_init(&d);
		if (scenario_check(s, &d) != NS_OK)
			fuzz_check_failed("scenario_load", &d);
	}
	scenario_free(s);
	return 0;
}
