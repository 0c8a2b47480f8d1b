/*
 * cmd_import_trace — `numasim import trace`; see cmd_import_trace.h.
 */
#include "cli/cmd_import_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "cli/cli.h"
#include "machine/datafile.h"
#include "workloads/ktrace.h"
#include "workloads/ktrace_stat.h"

int cmd_import_trace(const char *input, const char *out, int skip_bad)
{
	struct ktrace t;
	struct ktrace_stat s;
	struct diag d;
	char *bin = NULL;
	size_t len = 0;
	int rc;

	ktrace_init(&t);
	diag_init(&d);
	/* a relative path that is not here is looked up below the data roots
	 * (machine/datafile.h): the README's tour names the shipped fixture
	 * tests/fixtures/traces/perf-script-v6.txt from any directory */
	char *found = NULL;
	struct diag quiet;
	diag_init(&quiet);
	if (strcmp(input, "-") && input[0] != '/' && strchr(input, '/') && access(input, F_OK) &&
	    datafile_resolve(DATAFILE_SCENARIO, input, &found, &quiet) == NS_OK)
		input = found;
	rc = ktrace_read_file(&t, input, skip_bad, &d);
	if (rc == NS_OK && (rc = ktrace_check(&t, &d)) == NS_OK &&
	    (rc = ktrace_stat_compute(&t, &s)) == NS_OK) {
		if ((rc = ktrace_stat_check(&s, &d)) == NS_OK && out && strcmp(out, "-"))
			rc = ktrace_write_compact(&t, &bin, &len);
		if (rc == NS_OK && bin) {
			rc = cli_write_file_atomic(out, bin, len);
			if (rc) {               /* it printed the error */
				ktrace_stat_free(&s);
				free(bin);
				free(found);
				ktrace_free(&t);
				return ns_status_exit(rc);
			}
		}
		if (rc == NS_OK) {
			ktrace_stat_print(&t, &s, 0, stdout);
			if (bin)
				printf("\nwrote %s: %zu events, %u strings, %zu bytes\n", out,
				       t.nr, t.nr_str, len);
		}
		ktrace_stat_free(&s);
	}
	if (rc != NS_OK) {
		if (d.status != NS_OK)
			diag_print(&d, stderr);
		else
			fprintf(stderr, "numasim import: error: %s\n", ns_status_msg(rc));
	}
	free(bin);
	free(found);
	ktrace_free(&t);
	return ns_status_exit(rc);
}
