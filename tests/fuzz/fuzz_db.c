/*
 * fuzz_db — libFuzzer target of the database readers: the input is a
 * database file image (seeded with small numasim databases that
 * tests/fuzz/run.sh makes, which libFuzzer then damages).  It is written
 * to a scratch file and opened read-only (store_open, then store_check
 * on the schema-level invariants, which an accepted file must pass), and
 * the reading commands run on it as a user would: report, report --runs,
 * compare, query of a v_* view, export (csv, json, folded), plot (a
 * chart, a flame graph and a differential one), diff (by variant as
 * text, two runs as JSON) and the HTML report.  Each
 * must return 0, 1 or 2 (never crash) and none may change the file: the
 * image is compared after them.  The escaping oracle (issue 51): the HTML
 * page holds one <script> element, its own, a flame graph one (its own)
 * and the charts none; no markup
 * from the data comes through.  Then `run --resume` of a 3-run scenario
 * writes to a copy of the file (a writer must refuse or append, never
 * crash).
 */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/store.h"
#include "cli/cli.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void side_remove(const char *db, const char *suffix)
{
	char p[512];
	snprintf(p, sizeof p, "%s%s", db, suffix);
	unlink(p);
}

/* Run one command's function with argv; its status must be an exit code. */
static void run_cmd(int (*fn)(int, char **), int argc, char **argv)
{
	int st = fn(argc, argv);
	if (st < 0 || st > 2) {
		fprintf(stderr, "fuzz: numasim %s returned %d\n", argv[0], st);
		abort();
	}
}

/* A file written by a command: at most `most` "<script" in it (any case). */
static void scripts_at_most(const char *path, int most)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return;
	int n = 0, c;
	const char *want = "<script";
	size_t at = 0;
	while ((c = fgetc(f)) != EOF) {
		at = tolower(c) == want[at] ? at + 1 : tolower(c) == '<';
		if (!want[at]) {
			n++;
			at = 0;
		}
	}
	fclose(f);
	if (n > most) {
		fprintf(stderr, "fuzz: %s holds %d <script elements (at most %d): data "
			"came through unescaped\n", path, n, most);
		abort();
	}
	unlink(path);
}

/* A copy of the file, for the writer. */
static void copy_file(const char *from, const char *to)
{
	FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
	char buf[65536];
	size_t n;
	while (a && b && (n = fread(buf, 1, sizeof buf, a)) > 0)
		fwrite(buf, 1, n, b);
	if (a)
		fclose(a);
	if (b)
		fclose(b);
}

/* The file still holds exactly the input. */
static void same_image(const char *db, const uint8_t *data, size_t size)
{
	FILE *f = fopen(db, "rb");
	uint8_t *buf = malloc(size + 1);
	size_t n = f && buf ? fread(buf, 1, size + 1, f) : 0;
	if (f)
		fclose(f);
	if (!buf || n != size || (size && memcmp(buf, data, size))) {
		fprintf(stderr, "fuzz: a reading command changed the database file\n");
		abort();
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char db[512], svg[512], html[512], copy[512], scenario[512];
	struct store *s = NULL;
	struct diag d;

	if (!db[0]) {
		snprintf(db, sizeof db, "%s/fuzz.db", fuzz_scratch());
		snprintf(svg, sizeof svg, "%s/fuzz.svg", fuzz_scratch());
		snprintf(html, sizeof html, "%s/fuzz.html", fuzz_scratch());
		snprintf(copy, sizeof copy, "%s/copy.db", fuzz_scratch());
		const char *src = getenv("NUMASIM_SRC");
		snprintf(scenario, sizeof scenario, "%s/tests/scenarios/fault-3runs.yaml",
			 src && *src ? src : ".");
		fuzz_quiet_stdout();
	}
	side_remove(db, "-wal");
	side_remove(db, "-shm");
	FILE *f = fopen(db, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	diag_init(&d);
	if (store_open(db, STORE_RDONLY, &s, &d) == NS_OK) {
		diag_init(&d);
		store_set_diag(s, &d);
		if (store_check(s, 0) != NS_OK)
			fuzz_check_failed("store_open", &d);
	}
	store_close(s);

	char *report[] = {"report", db, NULL};
	char *runs[] = {"report", db, "--runs", NULL};
	char *compare[] = {"compare", db, "--metric", "*", NULL};
	char *query[] = {"query", db, "SELECT * FROM v_metrics", "--format", "csv", NULL};
	char *export[] = {"export", db, "--format", "json", "--table", "samples", NULL};
	char *plot[] = {"plot", db, "--metric", "*", "-o", svg, NULL};
	run_cmd(cmd_report, 2, report);
	run_cmd(cmd_report, 3, runs);
	run_cmd(cmd_compare, 4, compare);
	run_cmd(cmd_query, 5, query);
	run_cmd(cmd_export, 6, export);
	run_cmd(cmd_plot, 6, plot);
	scripts_at_most(svg, 0);
	char *flame[] = {"plot", db, "--flame", "--run", "1", "-o", svg, NULL};
	char *diff[] = {"plot", db, "--flame", "--diff", "1", "2", "-o", svg, NULL};
	char *folded[] = {"export", db, "--format", "folded", "--run", "1", NULL};
	char *csv[] = {"export", db, "--format", "csv", "--table", "runs", NULL};
	char *page[] = {"report", db, "--format", "html", "-o", html, NULL};
	/* a flame graph holds one script, its own (fuzz_markup checks it) */
	run_cmd(cmd_plot, 7, flame);
	scripts_at_most(svg, 1);
	run_cmd(cmd_plot, 8, diff);
	scripts_at_most(svg, 1);
	run_cmd(cmd_export, 6, folded);
	run_cmd(cmd_export, 6, csv);
	char *pdiff[] = {"diff", db, NULL};
	char *pdiff_runs[] = {"diff", db, "--run", "1", "--run", "2", "--format", "json", NULL};
	run_cmd(cmd_diff, 2, pdiff);
	run_cmd(cmd_diff, 8, pdiff_runs);
	run_cmd(cmd_report, 6, page);
	scripts_at_most(html, 1);
	same_image(db, data, size);

	/* a writer on a copy: refuse or append */
	side_remove(copy, "-wal");
	side_remove(copy, "-shm");
	copy_file(db, copy);
	char *resume[] = {"run", scenario, "--db", copy, "--resume", "-q", NULL};
	run_cmd(cmd_run, 6, resume);
	return 0;
}
