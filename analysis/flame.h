/*
 * flame — flame graphs of the simulated profile's call paths
 * (docs/guide/plots.md "Flame graphs"; the table profile_paths and the view
 * profile_stacks of docs/reference/schema.md).
 *
 * What it shows: the calling context of every modelled out-of-line
 * function's self cycles (cost/cpu.h "Call paths"), as `perf record -g`
 * plus Brendan Gregg's stackcollapse would: one folded stack per call path,
 * "alloc_pages_current;__alloc_pages_nodemask;get_page_from_freelist
 * 123456", root first, with the path's self cycles (or its out-of-line
 * calls, or the conditional-branch mispredicts made while it was the
 * innermost frame).  Inlined functions have no frame of their own: their
 * cycles are their out-of-line caller's, as in perf without --inline.  The
 * folded lines of a run sum to the run's profile self cycles (table
 * profile), which is what flamegraph.pl, speedscope and the Firefox
 * Profiler read.
 *
 * A differential graph (two runs A and B) follows Gregg's difffolded.pl:
 * the folded form is "stack A B"; the SVG draws frame widths from run A
 * (flamegraph.pl --negate of a difffolded file: a frame that B no longer
 * has keeps its width) and colours each frame as flamegraph.pl does, by
 * the change of its self value (the stack that ends at it), B - A: red
 * where B spends more, blue where it spends less, white where equal, the
 * intensity scaled to the largest change of any frame.  For 682a3385
 * against its parent, next_zones_zonelist, out of line before the patch
 * and inlined after it (its cycles then its caller's), is the deepest
 * blue.
 *
 * The SVG: frames as <g class="frame"> with a <title> tooltip (function,
 * value and share of the root; for a diff A and B with their shares, the
 * change, and the self values), a <rect> and a <text> with the name where
 * it fits (DejaVu Sans Mono advances, cut with ".." otherwise), frames
 * narrower than 0.1 pixel left out, as flamegraph.pl does.  Colours of a
 * plain graph come from a hash of the function name (Gregg's "hot"
 * palette), so the same function has the same colour in every graph.  In
 * a diff, a frame whose self value changed by less than
 * FLAME_DIFF_MIN_SHARE of the larger of the two totals is drawn untinted
 * (light grey): a change that small is not worth the eye's attention.
 *
 * Interaction (flame_script, inline: no file is fetched), as flamegraph.pl
 * and speedscope: a click on a frame zooms into it (its ancestors drawn
 * full width and faded, everything beside it hidden, names re-fitted),
 * "Reset zoom" or Escape goes back; "Search" asks for a regular
 * expression, paints the matching frames magenta and shows the matched
 * share of the root (nested matches counted once); hovering a frame puts
 * its tooltip in the line at the bottom.  The script leaves its state in
 * attributes of the <svg> (data-ready="ok", data-zoom, data-matched,
 * data-hits), and sets flameZoom(name) and flameSearch(regexp) on it, for
 * tests and for pages that embed the graph.  The standalone SVG carries
 * the script (in CDATA); an inline one (flame_svg_inline) has none, and
 * the page that embeds it runs flame_script once for all its graphs.
 * Deterministic: same rows, same bytes.
 *
 * Invariants (flame_check): stacks sorted, unique and non-empty; totals are
 * the sums of the values.
 *
 * Error policy: NS_EINPUT with a message naming the database for an
 * unknown run or a run without call paths (a database written before
 * schema version 3), and for a row no writer of numasim makes (a NULL or
 * empty stack or frame, a negative value, more than FLAME_MAX_DEPTH
 * frames: the database was edited); NS_EDB on SQLite errors, NS_ENOMEM; the writers only
 * write to the given stream.
 */
#ifndef NUMASIM_FLAME_H
#define NUMASIM_FLAME_H

#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "base/diag.h"

/* The deepest call path flame_load accepts (a kernel stack has a few dozen
 * frames; perf's default limit, kernel.perf_event_max_stack, is 127). */
#define FLAME_MAX_DEPTH 1024
#define FLAME_MAX_DEPTH_S "1024"

enum flame_metric {
	FLAME_CYCLES = 0,       /* self_cycles */
	FLAME_CALLS,            /* out-of-line calls that entered the path */
	FLAME_MISPREDICTS,      /* mispredicted conditional branches */
};

/* "cycles", "calls", "mispredicts" -> metric; -1 when unknown. */
int flame_metric_parse(const char *name);
const char *flame_metric_name(enum flame_metric m);
/* The names, for "did you mean" (CLI_NR of the array: 3). */
extern const char *const flame_metric_names[3];

struct flame_stack {
	char *stack;            /* "a;b;c" */
	uint64_t a, b;          /* value in run A (and run B for a diff) */
};

struct flame {
	enum flame_metric metric;
	int64_t run_a, run_b;   /* run_b 0: not a diff */
	char label_a[160], label_b[160]; /* "run 1 (zonelist_iter=pre-682a3385)" */
	int nr, cap;
	struct flame_stack *s;  /* sorted by stack (strcmp) */
	uint64_t total_a, total_b;
	char title[400];        /* SVG title; set by flame_load, may be changed */
};

void flame_init(struct flame *f);
void flame_free(struct flame *f);

/* The call paths of run_a (and run_b > 0 for a diff) from db. */
int flame_load(struct flame *f, sqlite3 *db, const char *dbname, int64_t run_a,
	       int64_t run_b, enum flame_metric m, struct diag *d);

/*
 * A diff of two variants' means: each path's value is the mean over the
 * variant's ok runs (the sum divided by the number of runs, rounded to the
 * nearest unit; totals are the sums of these means), labels "VARIANT (mean
 * of N runs)", run_a and run_b the variants' first runs.  NS_EINPUT when a
 * variant has no ok run or a run of it has no call paths.
 */
int flame_load_variants(struct flame *f, sqlite3 *db, const char *dbname,
			const char *variant_a, const char *variant_b, enum flame_metric m,
			struct diag *d);

/*
 * The one run of a database, for commands whose --run may be left out
 * when there is no choice: NS_EINPUT "DB holds N runs; choose one with
 * --run ID (numasim report DB --runs lists them)" otherwise.
 */
int flame_only_run(sqlite3 *db, const char *dbname, int64_t *run, struct diag *d);

/* Folded stacks, one per line, sorted: "stack value" (paths whose value
 * is 0 are left out) or, for a diff, "stack A B" (left out when both 0). */
int flame_folded(const struct flame *f, FILE *out);
/* The flame graph as a standalone SVG document with its script (width
 * pixels wide; 0 = 1200); NS_EINPUT when there is nothing to draw (total 0). */
int flame_svg(const struct flame *f, int width, FILE *out);
/* The same <svg> element without the XML declaration and the script, for
 * an HTML page that runs flame_script itself. */
int flame_svg_inline(const struct flame *f, int width, FILE *out);

/* The script that makes every svg.flamegraph of a document interactive. */
extern const char flame_script[];

/* Diff colours: a frame's self change below this share of the larger
 * total is drawn untinted (0.1 %). */
#define FLAME_DIFF_MIN_SHARE 0.001

/*
 * The children view of run A, as `perf report --children` prints it: per
 * function (top of them by children; 0 = all) its children share (every
 * path it is on, counted once per path: itself and everything it called)
 * and its self share (the paths it ends), of the run's total; below it its
 * callers (the frame before its outermost one, "(root)" for the
 * outermost) and its callees as a tree (all the paths below it merged),
 * each with its share of the total, branches under min_pct left out.
 * Functions by children share, then name; callers and callees by share.
 */
int flame_children(const struct flame *f, int top, double min_pct, FILE *out);

int flame_check(const struct flame *f);

#endif
