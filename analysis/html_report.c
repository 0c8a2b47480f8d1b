/*
 * html_report — the HTML page of a results database (see html_report.h).
 *
 * Design notes.  The page is written top to bottom into the caller's
 * stream; every piece that another module renders (compare tables,
 * messaging report, plots, flame graph) is rendered into a memory buffer
 * first and then escaped (text) or embedded (SVG, its XML declaration
 * dropped), so a piece that fails leaves a note in the page instead of
 * half an element.  A piece that has nothing to show (no metric matches a
 * plot, no call paths in an old database) is left out with a sentence
 * saying why; only database and memory errors stop the page.  Tables that
 * come straight from SQL are written by one helper (sql_table) that
 * escapes every cell and marks numeric cells for the sort script.  Every
 * piece of text that is not a literal of this file (cells, names, ids,
 * messages, the embedded SVGs' text) goes through analysis/markup.h; a
 * NULL where runs has NOT NULL (an edited file) is refused up front.
 */
#include "analysis/html_report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "numasim_config.h"
#include "analysis/annotate.h"
#include "analysis/compare.h"
#include "analysis/diff.h"
#include "analysis/flame.h"
#include "analysis/html_compare.h"
#include "analysis/markup.h"
#include "analysis/messaging_report.h"
#include "analysis/latency_hist.h"
#include "analysis/numastat.h"
#include "analysis/plot.h"

/* The page's sections as opened, for the navigation bar. */
#define HTML_MAX_SECTIONS 16

struct html {
	sqlite3 *db;
	const char *dbname;
	const struct cost_tables *t;
	FILE *f;                /* the body, composed before the head and nav */
	struct diag *d;
	int pool;          /* compare_opts.pool */
	int nr_sections;
	const char *nav_id[HTML_MAX_SECTIONS], *nav_label[HTML_MAX_SECTIONS];
};

/*
 * <section id=ID data-check=ID><h2>TITLE</h2>, recorded for the navigation
 * bar (label: its link text); id, label and title are literals of this
 * file.  Every section of the page opens through here, so the bar links
 * exactly the sections the page has.
 */
static void section_open(struct html *h, const char *id, const char *label,
			 const char *title)
{
	fprintf(h->f, "<section id=\"%s\" data-check=\"%s\"><h2>%s</h2>\n", id, id, title);
	if (h->nr_sections < HTML_MAX_SECTIONS) {
		h->nav_id[h->nr_sections] = id;
		h->nav_label[h->nr_sections++] = label;
	}
}

static int db_err(struct html *h)
{
	return diag_set(h->d, NS_EDB, h->dbname, 0, 0, "%s", sqlite3_errmsg(h->db));
}

static const char style[] =
	"body{font-family:'DejaVu Sans',sans-serif;margin:16px 24px;color:#222;"
	"background:#fff}h1{font-size:22px;margin:4px 0 2px}h2{font-size:17px;"
	"border-bottom:2px solid #1f77b4;padding-bottom:2px;margin-top:28px}"
	"h3{font-size:14px;margin:14px 0 6px}p.note{color:#555;font-size:12px;margin:4px 0}"
	"table{border-collapse:collapse;font-size:12px;margin:6px 0}"
	"th,td{border:1px solid #ccc;padding:2px 6px;text-align:left;white-space:nowrap}"
	"th{background:#e8eef6}table.sortable th{cursor:pointer}td.n{text-align:right;"
	"font-family:'DejaVu Sans Mono',monospace}tr:nth-child(even) td{background:#f6f8fb}"
	"table.cmp th.grp{white-space:normal;min-width:7em;max-width:14em;text-align:right;"
	"vertical-align:bottom;font-weight:normal;font-size:11px}table.cmp th.base{"
	"background:#d5e1f0}table.cmp th.m{text-align:left;vertical-align:top;background:#f2f2f2;"
	"position:sticky;left:0;z-index:1}"
	"table.sortable td:first-child{position:sticky;left:0;background:#fff}"
	"table.sortable tr:nth-child(even) td:first-child{background:#f6f8fb}"
	"table.sortable th:first-child{position:sticky;left:0;z-index:1}"
	"table.cmp tr.first td,table.cmp tr.first th{border-top:2px solid #999}"
	"table.cmp td.base{background:#eef3fa}table.cmp td.g1{background:#e3f4e3}"
	"table.cmp td.g2{background:#b9e6b9}table.cmp td.r1{background:#fbe3e3}"
	"table.cmp td.r2{background:#f4b8b8}table.cmp .pct{color:#555;font-size:11px}"
	".km{color:#555;font-size:10px}"
	"pre{font-size:11.5px;background:#f8f8f4;border:1px solid #ddd;padding:6px;"
	"overflow-x:auto;margin:6px 0}details{margin:4px 0 8px;font-size:12px}"
	"summary{cursor:pointer;color:#1f5fa0}"
	".plots{display:grid;grid-template-columns:repeat(auto-fill,minmax(600px,1fr));"
	"gap:8px;margin-top:8px}.plots svg{width:100%;height:auto}"
	".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:8px}"
	".grid figure{margin:0;border:1px solid #ddd;padding:4px}.grid svg{width:100%;"
	"height:auto}.grid figcaption{font-size:11px;color:#444;overflow-wrap:anywhere}"
	".flame svg{width:100%;height:auto}.scroll{overflow-x:auto;max-width:100%}"
	"nav a{margin-right:12px;font-size:13px}ul.groups{font-size:12px;margin:4px 0}"
	"table.lhist td.bar{width:320px;padding:2px 4px}table.lhist td.bar span{display:block;"
	"height:10px;background:#1f77b4;min-width:1px}"
	".lgrid{display:flex;flex-wrap:wrap;gap:4px 28px}";

/* Sorting by a header click, and the layout check the browser test reads. */
static const char script[] =
	"(function(){\n"
	"function key(td){var t=td.textContent.trim().replace(/,/g,'');"
	"var v=parseFloat(t);return isNaN(v)||!/^[-+]?[0-9.]/.test(t)?t:v;}\n"
	"document.querySelectorAll('table.sortable th').forEach(function(th,i){"
	"th.addEventListener('click',function(){var tb=th.closest('table').tBodies[0];"
	"var rows=Array.prototype.slice.call(tb.rows);var up=th.dataset.dir!=='up';"
	"th.dataset.dir=up?'up':'down';rows.sort(function(a,b){var x=key(a.cells[i]),"
	"y=key(b.cells[i]);var c=(typeof x===typeof y)?(x<y?-1:x>y?1:0):"
	"(typeof x==='number'?-1:1);return up?c:-c;});rows.forEach(function(r){"
	"tb.appendChild(r);});});});\n"
	"var bad=[];document.querySelectorAll('[data-check]').forEach(function(e){"
	"var r=e.getBoundingClientRect();if(!(r.width>0&&r.height>0))bad.push(e.id||"
	"e.dataset.check);});document.body.dataset.layout=bad.length?'missing: '+"
	"bad.join(' '):'ok';document.body.dataset.plots=String(document.querySelectorAll("
	"'svg[data-check]').length);\n"
	"})();\n";

/*
 * A table from SQL (no parameters): a header of the
 * column names, cells escaped, numbers right-aligned and rounded to
 * decimals places (integers as they are).
 */
static int sql_table(struct html *h, const char *sql, int decimals)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_err(h);
	int nc = sqlite3_column_count(st), s, rows = 0;
	fputs("<div class=\"scroll\"><table class=\"sortable\"><thead><tr>", h->f);
	for (int i = 0; i < nc; i++) {
		fputs("<th>", h->f);
		markup_puts(h->f, sqlite3_column_name(st, i));
		fputs("</th>", h->f);
	}
	fputs("</tr></thead><tbody>\n", h->f);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		rows++;
		fputs("<tr>", h->f);
		for (int i = 0; i < nc; i++) {
			int ty = sqlite3_column_type(st, i);
			if (ty == SQLITE_INTEGER)
				fprintf(h->f, "<td class=\"n\">%lld</td>",
					(long long)sqlite3_column_int64(st, i));
			else if (ty == SQLITE_FLOAT)
				fprintf(h->f, "<td class=\"n\">%.*f</td>", decimals,
					sqlite3_column_double(st, i));
			else {
				fputs("<td>", h->f);
				markup_puts(h->f, (const char *)sqlite3_column_text(st, i));
				fputs("</td>", h->f);
			}
		}
		fputs("</tr>\n", h->f);
	}
	fputs("</tbody></table></div>\n", h->f);
	sqlite3_finalize(st);
	if (s != SQLITE_DONE)
		return db_err(h);
	if (!rows)
		fputs("<p class=\"note\">(no rows)</p>\n", h->f);
	return NS_OK;
}

/*
 * A section that is one SQL table: <section id data-check> with its
 * heading, an optional note (HTML, written as it is) and the table.
 */
struct sql_section {
	const char *id;
	const char *label;     /* in the navigation bar */
	const char *title;
	const char *note;      /* NULL: none */
	const char *sql;       /* no parameters */
	int decimals;
};

static int sql_section(struct html *h, const struct sql_section *s)
{
	section_open(h, s->id, s->label, s->title);
	if (s->note)
		fprintf(h->f, "<p class=\"note\">%s</p>\n", s->note);
	int rc = sql_table(h, s->sql, s->decimals);
	fputs("</section>\n", h->f);
	return rc;
}

/* SQL functions the page's queries use: kernel_file(fn), site_desc(site). */
static void fn_kernel_file(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const unsigned char *fn = sqlite3_value_text(argv[0]);
	const char *file = fn ? annotate_kernel_file((const char *)fn) : NULL;
	(void)argc;
	if (file)
		sqlite3_result_text(ctx, file, -1, SQLITE_STATIC);
	else
		sqlite3_result_null(ctx);
}

static void fn_site_desc(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const struct cost_tables *t = sqlite3_user_data(ctx);
	const unsigned char *site = sqlite3_value_text(argv[0]);
	int id = site ? cost_site_lookup(t, (const char *)site) : -1;
	(void)argc;
	if (id >= 0)
		sqlite3_result_text(ctx, t->sites[id]->desc, -1, SQLITE_STATIC);
	else
		sqlite3_result_null(ctx);
}

static int register_functions(struct html *h)
{
	if (sqlite3_create_function(h->db, "kernel_file", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
				    NULL, fn_kernel_file, NULL, NULL) != SQLITE_OK ||
	    sqlite3_create_function(h->db, "site_desc", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
				    (void *)h->t, fn_site_desc, NULL, NULL) != SQLITE_OK)
		return db_err(h);
	return NS_OK;
}

/* A plot rendered to inline SVG; a note when it has nothing to show. */
static int plot_piece(struct html *h, struct plot *p, int rc_load, const char *id)
{
	char *buf = NULL;
	size_t len = 0;
	struct plot_layout l;
	if (rc_load == NS_EDB || rc_load == NS_ENOMEM)
		return rc_load;
	if (rc_load != NS_OK || plot_check(p) || plot_layout(p, &l, NULL)) {
		fprintf(h->f, "<p class=\"note\">(no plot: %s)</p>\n",
			rc_load ? "no series to draw" : "the data does not fit a chart");
		diag_init(h->d);
		return NS_OK;
	}
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return diag_set(h->d, NS_ENOMEM, h->dbname, 0, 0, "out of memory");
	int rc = plot_svg(p, m);
	fclose(m);
	if (rc == NS_OK) {
		/* mark the SVG for the layout check */
		const char *s = strstr(buf, "<svg");
		fputs("<svg id=\"", h->f);
		markup_puts(h->f, id);
		fputs("\" data-check=\"", h->f);
		markup_puts(h->f, id);
		fputc('"', h->f);
		fputs(s ? s + 4 : buf, h->f);
	}
	free(buf);
	return rc == NS_OK ? NS_OK : diag_set(h->d, rc, h->dbname, 0, 0, "cannot draw %s", id);
}

static int line_plot(struct html *h, const char *glob, const char *title, const char *id,
		     const char *const *where, int nr_where)
{
	struct plot p;
	plot_init(&p, PLOT_LINE);
	p.where = where;
	p.nr_where = nr_where;
	struct diag quiet;
	diag_init(&quiet);
	int rc = plot_load_line(&p, h->db, h->dbname, glob, NULL, NULL, &quiet);
	if (rc == NS_EDB || rc == NS_ENOMEM)
		diag_set(h->d, rc, h->dbname, 0, 0, "%s", quiet.msg);
	if (rc == NS_OK && title)
		snprintf(p.title, sizeof p.title, "%s", title);
	rc = plot_piece(h, &p, rc, id);
	plot_free(&p);
	return rc;
}

/* The workload's metrics in the compare tables. */
/* The compare table as `numasim compare` prints it, in a <pre> that opens on
 * a click (the table above it holds the same figures). */
static int pre_compare(struct html *h, const char *workload)
{
	char where[300], *buf = NULL;
	size_t len = 0;
	const char *wl[1] = {where};
	snprintf(where, sizeof where, "workload=%s", workload);
	struct compare_opts o = {
		.metrics = compare_report_metrics(workload),
		.where = wl, .nr_where = 1, .rows = COMPARE_ROW_MIN | COMPARE_ROW_AMEAN,
		.pool = h->pool,
	};
	struct compare *c = NULL;
	int rc = compare_new(&o, h->dbname, h->d, &c);
	if (rc == NS_OK)
		rc = compare_load(c, h->db, h->dbname);
	FILE *m = rc == NS_OK ? open_memstream(&buf, &len) : NULL;
	if (rc == NS_OK && !m)
		rc = diag_set(h->d, NS_ENOMEM, h->dbname, 0, 0, "out of memory");
	if (m) {
		rc = compare_print(c, m);
		fclose(m);
	}
	compare_free(c);
	if (rc == NS_OK) {
		fputs("<details><summary>as text (<code>numasim compare</code>)</summary>"
		      "<pre id=\"compare-text-", h->f);
		markup_puts(h->f, workload);
		fputs("\">", h->f);
		markup_puts(h->f, buf);
		fputs("</pre></details>\n", h->f);
	} else if (rc == NS_EINPUT || rc == NS_ENOENT) {
		diag_init(h->d);    /* table_compare wrote the note */
		rc = NS_OK;
	}
	free(buf);
	return rc;
}

/* The compare table as a <table> (analysis/html_compare.h); a note when
 * there is nothing to compare. */
static int table_compare(struct html *h, const char *workload)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return diag_set(h->d, NS_ENOMEM, h->dbname, 0, 0, "out of memory");
	int rc = html_compare_table(h->db, h->dbname, workload,
				    compare_report_metrics(workload), h->pool, m, h->d);
	fclose(m);
	if (rc == NS_OK) {
		fwrite(buf, 1, len, h->f);
	} else if (rc == NS_EINPUT || rc == NS_ENOENT) {
		fputs("<p class=\"note\">(no compare table: ", h->f);
		markup_puts(h->f, h->d->msg);
		fputs(")</p>\n", h->f);
		diag_init(h->d);
		rc = NS_OK;
	}
	free(buf);
	return rc;
}

static int section_runs(struct html *h)
{
	static const struct sql_section runs = {
		"runs", "runs", "Runs and provenance", NULL,
		"SELECT run_id AS run, scenario, point, repetition AS rep, seed, machine, "
		"substr(machine_sha256, 1, 12) AS machine_sha256, "
		"substr(scenario_sha256, 1, 12) AS scenario_sha256, workload, variant, "
		"kernel_model, status, tool_version AS tool, host, started, "
		"round(duration_s, 3) AS duration_s, coalesce(command, '') AS command "
		"FROM runs ORDER BY run_id", 3};
	return sql_section(h, &runs);
}

static int section_compare(struct html *h)
{
	sqlite3_stmt *wl;
	int rc = NS_OK, s;
	if (sqlite3_prepare_v2(h->db, "SELECT DISTINCT workload FROM runs WHERE status = 'ok' "
			       "ORDER BY workload", -1, &wl, NULL) != SQLITE_OK)
		return db_err(h);
	section_open(h, "compare", "compare", "Compare: by variant");
	fputs("<p class=\"note\">Min and Amean by variant and the parameters that "
	      "differ between its runs, the first column the baseline; each value with "
	      "its change against the baseline (positive = better: fewer cycles for "
	      "cycle counts), green from +1 %, red from -1 %, darker from 5 %; the "
	      "difference over runs (exact when every run repeats, else Welch's "
	      "t-test) as <code>numasim compare</code> prints it (all rows there). The "
	      "plots below show every series: the mean per batch size with min-max "
	      "bars.</p>\n", h->f);
	while (rc == NS_OK && (s = sqlite3_step(wl)) == SQLITE_ROW) {
		const char *w = (const char *)sqlite3_column_text(wl, 0);
		char where[300];
		const char *wh[1] = {where};
		snprintf(where, sizeof where, "workload=%s", w);
		fputs("<h3>", h->f);
		markup_puts(h->f, w);
		fputs("</h3>\n", h->f);
		rc = table_compare(h, w);
		if (rc == NS_OK)
			rc = pre_compare(h, w);
		fputs("<div class=\"plots\">", h->f);
		if (rc == NS_OK && !strcmp(w, "pagealloc")) {
			static const char *const ops[] = {"alloc", "free", "total"};
			for (int i = 0; i < 3 && rc == NS_OK; i++) {
				char glob[32], title[64], id[32];
				snprintf(glob, sizeof glob, "%s-odr0-*", ops[i]);
				snprintf(title, sizeof title, "%s: cycles per page, order 0", ops[i]);
				snprintf(id, sizeof id, "plot-%s", ops[i]);
				rc = line_plot(h, glob, title, id, wh, 1);
			}
		} else if (rc == NS_OK) {
			struct plot p;
			struct diag quiet;
			diag_init(&quiet);
			plot_init(&p, PLOT_BAR);
			p.where = wh;
			p.nr_where = 1;
			int lr = plot_load_bars(&p, h->db, h->dbname, "profile", NULL, 10, &quiet);
			snprintf(p.title, sizeof p.title, "%s: top functions, self cycles per run", w);
			char id[64];
			snprintf(id, sizeof id, "plot-profile-%s", w);
			rc = plot_piece(h, &p, lr, id);
			plot_free(&p);
		}
		fputs("</div>\n", h->f);
	}
	if (rc == NS_OK && s != SQLITE_DONE)
		rc = db_err(h);
	sqlite3_finalize(wl);
	fputs("</section>\n", h->f);
	return rc;
}

/*
 * More than PROFILE_PIVOT variants (a series of kernels): one row per
 * function of the top 30 by self cycles over every run, one column per
 * variant in run order (mean self cycles per run), so that each kernel
 * is a column as in the compare table; the first column stays in view
 * when the table scrolls sideways.
 */
enum { PROFILE_PIVOT = 4 };

static int profile_pivot(struct html *h, int *done)
{
	sqlite3_stmt *st;
	*done = 0;
	if (sqlite3_prepare_v2(h->db, "SELECT variant FROM runs WHERE status = 'ok' "
			       "GROUP BY variant ORDER BY min(run_id)", -1, &st, NULL) != SQLITE_OK)
		return db_err(h);
	char *cols = sqlite3_mprintf("%s", "");
	int n = 0, s = SQLITE_DONE;
	while (cols && (s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);
		char *next = sqlite3_mprintf("%s, CAST(round(avg(CASE WHEN r.variant = %Q THEN "
					     "p.self_cycles END)) AS INTEGER) AS \"%w\"",
					     cols, v, v);
		sqlite3_free(cols);
		cols = next;
		n++;
	}
	if (cols && s != SQLITE_DONE) {
		int rc = db_err(h);
		sqlite3_finalize(st);
		sqlite3_free(cols);
		return rc;
	}
	sqlite3_finalize(st);
	if (!cols)
		return diag_set(h->d, NS_ENOMEM, h->dbname, 0, 0, "out of memory");
	int rc = NS_OK;
	if (n > PROFILE_PIVOT) {
		char *sql = sqlite3_mprintf(
			"WITH top AS (SELECT p.function, avg(p.self_cycles) AS s FROM profile_report p "
			"JOIN runs r USING (run_id) WHERE r.status = 'ok' GROUP BY p.function "
			"ORDER BY s DESC, p.function LIMIT 30) "
			"SELECT top.function, coalesce(kernel_file(top.function), '') AS kernel_file%s "
			"FROM top JOIN profile_report p USING (function) JOIN runs r USING (run_id) "
			"WHERE r.status = 'ok' GROUP BY top.function ORDER BY top.s DESC, top.function",
			cols);
		if (!sql) {
			sqlite3_free(cols);
			return diag_set(h->d, NS_ENOMEM, h->dbname, 0, 0, "out of memory");
		}
		section_open(h, "profile", "profile", "Simulated profile");
		fprintf(h->f, "<p class=\"note\">The top 30 functions by self cycles over every "
			"run; one column per variant (%d, in run order): its mean self cycles per "
			"run. Click a header to sort.</p>\n", n);
		rc = sql_table(h, sql, 0);
		fputs("</section>\n", h->f);
		sqlite3_free(sql);
		*done = 1;
	}
	sqlite3_free(cols);
	return rc;
}

static int section_profile(struct html *h)
{
	int done, rc = profile_pivot(h, &done);
	if (rc != NS_OK || done)
		return rc;
	static const struct sql_section profile = {
		"profile", "profile", "Simulated profile",
		"Top 30 functions by self core cycles, mean per run of each "
		"variant (perf report with children: total includes callees). Click a "
		"header to sort.",
		"SELECT p.function, coalesce(kernel_file(p.function), '') AS kernel_file, "
		"r.variant, max(p.inlined) AS inlined, CAST(round(avg(p.calls)) AS INTEGER) AS calls, "
		"CAST(round(avg(p.self_cycles)) AS INTEGER) AS \"self core cycles\", "
		"round(avg(p.self_pct), 2) AS self_pct, "
		"CAST(round(avg(p.total_cycles)) AS INTEGER) AS \"total core cycles\", "
		"round(avg(p.cycles_per_call), 2) AS \"core cycles per call\" "
		"FROM profile_report p JOIN runs r USING (run_id) WHERE r.status = 'ok' "
		"GROUP BY p.function, r.variant ORDER BY avg(p.self_cycles) DESC, p.function, "
		"r.variant LIMIT 30", 2};
	return sql_section(h, &profile);
}

/*
 * The flame graph: a diff of the means of the first two variants (in run
 * order) over their runs, or the first run when there is one variant.
 */
static int section_flame(struct html *h)
{
	sqlite3_stmt *st;
	char *variant[2] = {NULL, NULL};
	int64_t first = 0, variants = 0;
	int n = 0, rc = NS_OK;
	if (sqlite3_prepare_v2(h->db, "SELECT variant, min(run_id), count(*) OVER () FROM runs "
			       "WHERE status = 'ok' GROUP BY variant ORDER BY min(run_id) LIMIT 2",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(h);
	while (rc == NS_OK && sqlite3_step(st) == SQLITE_ROW) {
		if (!n)
			first = sqlite3_column_int64(st, 1);
		variants = sqlite3_column_int64(st, 2);
		if (!(variant[n++] = strdup((const char *)sqlite3_column_text(st, 0))))
			rc = diag_set(h->d, NS_ENOMEM, h->dbname, 0, 0, "out of memory");
	}
	sqlite3_finalize(st);
	if (rc || !n) {
		free(variant[0]);
		free(variant[1]);
		return rc;
	}
	section_open(h, "flame", "flame graph", "Flame graph");
	struct flame fl;
	struct diag quiet;
	char *buf = NULL;
	size_t len = 0;
	diag_init(&quiet);
	flame_init(&fl);
	rc = n > 1 ? flame_load_variants(&fl, h->db, h->dbname, variant[0], variant[1],
					 FLAME_CYCLES, &quiet)
		   : flame_load(&fl, h->db, h->dbname, first, 0, FLAME_CYCLES, &quiet);
	FILE *m = rc == NS_OK ? open_memstream(&buf, &len) : NULL;
	if (m) {
		rc = flame_svg_inline(&fl, 1400, m);
		fclose(m);
	}
	if (rc == NS_OK) {
		fputs("<p class=\"note\">", h->f);
		if (n > 1) {
			fprintf(h->f, "Differential flame graph of the first two of the %" PRId64
				" variants, each path's cycles the mean over the variant's runs: ",
				variants);
			markup_puts(h->f, fl.label_a);
			fputs(" against ", h->f);
			markup_puts(h->f, fl.label_b);
			fprintf(h->f, ". Widths from the first; red = more cycles in the second, "
				"blue = fewer, untinted = a change under %.1f%% of the total. Two "
				"runs: <code>numasim plot ", 100.0 * FLAME_DIFF_MIN_SHARE);
			markup_puts(h->f, h->dbname);
			fprintf(h->f, " --flame --diff %" PRId64 " %" PRId64 " -o flame.svg</code>.",
				fl.run_a, fl.run_b);
		} else {
			fputs("Flame graph of ", h->f);
			markup_puts(h->f, fl.label_a);
			fputs(" (<code>numasim plot ", h->f);
			markup_puts(h->f, h->dbname);
			fprintf(h->f, " --flame --run %" PRId64 " -o flame.svg</code>).", first);
		}
		fputs(" Click a frame to zoom (Reset zoom or Escape to go back), Search to "
		      "highlight functions by a regular expression; hover for the figures."
		      "</p>\n<div class=\"flame\">", h->f);
		const char *s = strstr(buf, "<svg");
		fputs("<svg id=\"flamegraph\" data-check=\"flamegraph\"", h->f);
		fputs(s ? s + 4 : buf, h->f);
		fputs("</div>\n", h->f);
	} else if (rc == NS_EDB || rc == NS_ENOMEM) {
		diag_set(h->d, rc, h->dbname, 0, 0, "%s", quiet.msg);
	} else {
		fputs("<p class=\"note\">(no flame graph: ", h->f);
		markup_puts(h->f, quiet.msg);
		fputs(")</p>\n", h->f);
		rc = NS_OK;
	}
	free(buf);
	free(variant[0]);
	free(variant[1]);
	flame_free(&fl);
	fputs("</section>\n", h->f);
	return rc;
}

/*
 * `numasim diff` of the variants, per workload with at least two: the
 * first variant the baseline, the top functions and branch sites by
 * |delta| per operation.  A database whose rows diff refuses gets a note.
 */
static int section_diff(struct html *h)
{
	sqlite3_stmt *wl;
	int rc = NS_OK, s;
	if (sqlite3_prepare_v2(h->db, "SELECT workload FROM runs WHERE status = 'ok' "
			       "GROUP BY workload HAVING count(DISTINCT variant) > 1 "
			       "ORDER BY min(run_id)", -1, &wl, NULL) != SQLITE_OK)
		return db_err(h);
	if ((s = sqlite3_step(wl)) != SQLITE_ROW) {     /* no section to show */
		sqlite3_finalize(wl);
		return s == SQLITE_DONE ? NS_OK : db_err(h);
	}
	sqlite3_reset(wl);
	section_open(h, "diff", "diff", "Diff: by variant");
	fputs("<p class=\"note\">Like perf diff: per modelled function and branch site, "
	      "the baseline variant [0] and the change of every other variant [i] "
	      "against it, per operation of the workload, sorted by |delta|; the top 20 "
	      "(<code>numasim diff ", h->f);
	markup_puts(h->f, h->dbname);
	fputs(" --where workload=W</code> prints all).</p>\n", h->f);
	while (rc == NS_OK && (s = sqlite3_step(wl)) == SQLITE_ROW) {
		const char *w = (const char *)sqlite3_column_text(wl, 0);
		char where[300];
		const char *wh[1] = {where};
		snprintf(where, sizeof where, "workload=%s", w ? w : "");
		struct diff_opts o = {.where = wh, .nr_where = 1};
		struct diff *df = NULL;
		struct diag quiet;
		diag_init(&quiet);
		rc = diff_new(&o, h->dbname, &quiet, &df);
		if (rc == NS_OK)
			rc = diff_add_key(df, 0, h->db, h->dbname);
		if (rc == NS_OK)
			rc = diff_load(df, 0, h->db, h->dbname);
		if (rc == NS_OK)
			rc = diff_compute(df);
		fputs("<h3>", h->f);
		markup_puts(h->f, w);
		fputs("</h3>\n", h->f);
		if (rc == NS_OK) {
			rc = diff_html(df, h->f, 20);
		} else if (rc == NS_EDB || rc == NS_ENOMEM) {
			diag_set(h->d, rc, h->dbname, 0, 0, "%s", quiet.msg);
		} else {
			fputs("<p class=\"note\">(no diff: ", h->f);
			markup_puts(h->f, quiet.msg);
			fputs(")</p>\n", h->f);
			rc = NS_OK;
		}
		diff_free(df);
	}
	if (rc == NS_OK && s != SQLITE_DONE)
		rc = db_err(h);
	sqlite3_finalize(wl);
	fputs("</section>\n", h->f);
	return rc;
}

static int section_branches(struct html *h)
{
	static const struct sql_section branches = {
		"branches", "branch sites", "Branch sites",
		"Top 40 sites by executions, mean per run of each variant; "
		"site names as docs/reference/sites.md lists them, the condition is "
		"as written in the kernel source. <code>numasim annotate DB --run N "
		"FUNCTION</code> lists one function's sites in source order.",
		"SELECT b.site, coalesce(b.function, '') AS function, "
		"coalesce(kernel_file(b.function), '') AS kernel_file, r.variant, "
		"CAST(round(avg(b.executed)) AS INTEGER) AS executed, round(avg(b.taken_pct), 2) AS taken_pct, "
		"CAST(round(avg(b.mispredicted)) AS INTEGER) AS mispredicted, "
		"round(avg(b.mispredict_pct), 3) AS mispredict_pct, "
		"coalesce(site_desc(b.site), '') AS condition "
		"FROM branch_stats b JOIN runs r USING (run_id) WHERE r.status = 'ok' "
		"GROUP BY b.site, r.variant ORDER BY avg(b.executed) DESC, b.site, r.variant "
		"LIMIT 40", 3};
	return sql_section(h, &branches);
}

/* numastat per node (analysis/numastat.h) of the first runs that stored
 * the counters; no section when none did. */
#define HTML_NUMASTAT_RUNS 12
static int section_numastat(struct html *h)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h->db, "SELECT run_id, variant FROM runs WHERE status = 'ok' "
			       "ORDER BY run_id", -1, &st, NULL) != SQLITE_OK)
		return db_err(h);
	int rc = NS_OK, shown = 0, more = 0, s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct numastat ns;
		int64_t run = sqlite3_column_int64(st, 0);
		if (shown == HTML_NUMASTAT_RUNS) {
			more++;
			continue;
		}
		rc = numastat_read(h->db, h->dbname, run, &ns, h->d);
		if (rc == NS_ENOENT) {
			rc = NS_OK;
			continue;
		}
		if (rc)
			break;
		if (!shown++)
			section_open(h, "numastat", "numastat", "numastat per node");
		fprintf(h->f, "<h3>run %" PRId64 ": ", run);
		markup_puts(h->f, (const char *)sqlite3_column_text(st, 1));
		fputs("</h3>\n<div class=\"scroll\">", h->f);
		numastat_html(&ns, h->f);
		fputs("</div>\n", h->f);
		numastat_free(&ns);
	}
	if (rc == NS_OK && s != SQLITE_DONE)
		rc = db_err(h);
	sqlite3_finalize(st);
	if (rc == NS_OK && shown) {
		fprintf(h->f, "<p class=\"note\">As numastat(8) prints "
			"/sys/devices/system/node/nodeN/numastat: the sum over the node's zones "
			"of the run's counters; <code>numasim numastat DB --run N</code>.");
		if (more)
			fprintf(h->f, " The first %d runs; %d more in the database.",
				HTML_NUMASTAT_RUNS, more);
		fputs("</p>\n</section>\n", h->f);
	}
	return rc;
}

/* Latency histograms (analysis/latency_hist.h) of the first runs that
 * stored them (fill, replay), one table per histogram, side by side when
 * the page is wide enough; no section when none did. */
#define HTML_LATENCY_RUNS 8
static int section_latency(struct html *h)
{
	static const char *const names[] = {
#define LH_NAME(name, title) #name,
		LATENCY_HIST_NAMES(LH_NAME)
#undef LH_NAME
	};
	static const char *const titles[] = {
#define LH_TITLE(name, title) title,
		LATENCY_HIST_NAMES(LH_TITLE)
#undef LH_TITLE
	};
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h->db, "SELECT run_id, workload, variant FROM runs WHERE "
			       "status = 'ok' AND EXISTS (SELECT 1 FROM metrics m WHERE "
			       "m.run_id = runs.run_id AND m.name GLOB '" LATENCY_HIST_GLOB "') "
			       "ORDER BY run_id", -1, &st, NULL) != SQLITE_OK)
		return db_err(h);
	int rc = NS_OK, shown = 0, more = 0, s;
	while (rc == NS_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t run = sqlite3_column_int64(st, 0);
		if (shown == HTML_LATENCY_RUNS) {
			more++;
			continue;
		}
		if (!shown++)
			section_open(h, "latency", "latency", "Latency histograms");
		fprintf(h->f, "<h3>run %" PRId64 ": ", run);
		markup_puts(h->f, (const char *)sqlite3_column_text(st, 1));
		fputs(", ", h->f);
		markup_puts(h->f, (const char *)sqlite3_column_text(st, 2));
		fputs("</h3>\n<div class=\"lgrid\">", h->f);
		for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
			struct latency_hist lh;
			rc = latency_hist_read(h->db, h->dbname, run, names[i], &lh, h->d);
			if (rc == NS_ENOENT) {
				rc = NS_OK;
				continue;
			}
			if (rc)
				break;
			fprintf(h->f, "<div class=\"scroll\"><p class=\"note\"><code>%s</code>: "
				"%" PRIu64 " %s</p>\n", names[i], latency_hist_total(&lh), titles[i]);
			latency_hist_html(&lh, h->f);
			fputs("</div>\n", h->f);
		}
		fputs("</div>\n", h->f);
	}
	if (rc == NS_OK && s != SQLITE_DONE)
		rc = db_err(h);
	sqlite3_finalize(st);
	if (rc == NS_OK && shown) {
		fprintf(h->f, "<p class=\"note\">Core cycles per call in power-of-two buckets, "
			"as bcc's funclatency prints them (<code>numasim report DB</code>); the "
			"metrics <code>NAME.lt_N</code> hold the counts (docs/reference/schema.md).");
		if (more)
			fprintf(h->f, " The first %d runs; %d more in the database.",
				HTML_LATENCY_RUNS, more);
		fputs("</p>\n</section>\n", h->f);
	}
	return rc;
}

/* Messaging runs: the messaging report per invocation and the scheduler summary. */
static int section_messaging(struct html *h)
{
	sqlite3_stmt *inv, *ids;
	int rc = NS_OK, s;
	if (sqlite3_prepare_v2(h->db, "SELECT invocation FROM runs WHERE status = 'ok' AND "
			       "workload = 'messaging' GROUP BY invocation ORDER BY min(run_id)",
			       -1, &inv, NULL) != SQLITE_OK)
		return db_err(h);
	if (sqlite3_prepare_v2(h->db, "SELECT run_id FROM runs WHERE status = 'ok' AND "
			       "workload = 'messaging' AND invocation = ?1 ORDER BY run_id",
			       -1, &ids, NULL) != SQLITE_OK) {
		sqlite3_finalize(inv);
		return db_err(h);
	}
	int first = 1;
	while (rc == NS_OK && (s = sqlite3_step(inv)) == SQLITE_ROW) {
		int64_t *run = NULL;
		int n = 0, cap = 0;
		sqlite3_reset(ids);
		sqlite3_bind_text(ids, 1, (const char *)sqlite3_column_text(inv, 0), -1,
				  SQLITE_TRANSIENT);
		while (rc == NS_OK && sqlite3_step(ids) == SQLITE_ROW) {
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				int64_t *nr = realloc(run, (size_t)cap * sizeof *nr);
				if (!nr) {
					rc = diag_set(h->d, NS_ENOMEM, h->dbname, 0, 0,
						      "out of memory");
					break;
				}
				run = nr;
			}
			run[n++] = sqlite3_column_int64(ids, 0);
		}
		char *buf = NULL;
		size_t len = 0;
		FILE *m = rc == NS_OK && n ? open_memstream(&buf, &len) : NULL;
		if (m) {
			rc = messaging_report_print(h->db, run, n, 0, 0, m, h->d);
			fclose(m);
		}
		if (rc == NS_OK && buf) {
			if (first)
				section_open(h, "slub", "SLUB", "Messaging: perf bench, SLUB "
					     "stats per cache, __slab_free sites");
			first = 0;
			fprintf(h->f, "<h3>runs %" PRId64 "..%" PRId64 "</h3><pre>", run[0],
				run[n - 1]);
			markup_puts(h->f, buf);
			fputs("</pre>\n", h->f);
		}
		free(buf);
		free(run);
	}
	sqlite3_finalize(inv);
	sqlite3_finalize(ids);
	if (rc)
		return rc;
	if (!first)
		fputs("</section>\n", h->f);
	if (first)
		return NS_OK;
	static const struct sql_section sched = {
		"sched", "scheduler", "Scheduler summary",
		"System-scope counters of the messaging runs (CFS model, "
		"kernel/sched/fair.c v5.9), mean per run of each variant.",
		"SELECT c.name, r.variant, round(avg(c.value), 1) AS mean, min(c.value) AS min, "
		"max(c.value) AS max FROM counters c JOIN runs r USING (run_id) "
		"WHERE r.status = 'ok' AND r.workload = 'messaging' AND c.scope = 'system' "
		"GROUP BY c.name, r.variant ORDER BY c.name, min(r.run_id)", 1};
	return sql_section(h, &sched);
}

/* Sweeps: one small plot per point of each pagealloc scenario with more than
 * two points (two are an A/B pair, which the compare plots show). */
static int section_sweep(struct html *h)
{
	sqlite3_stmt *sc, *pt;
	int rc = NS_OK, opened = 0;
	if (sqlite3_prepare_v2(h->db, "SELECT scenario FROM runs WHERE status = 'ok' AND "
			       "workload = 'pagealloc' GROUP BY scenario HAVING "
			       "count(DISTINCT point) > 2 ORDER BY min(run_id)", -1, &sc,
			       NULL) != SQLITE_OK)
		return db_err(h);
	if (sqlite3_prepare_v2(h->db, "SELECT r.point, min(p.params) FROM runs r JOIN "
			       "run_params p USING (run_id) WHERE r.status = 'ok' AND "
			       "r.scenario = ?1 GROUP BY r.point ORDER BY r.point", -1, &pt,
			       NULL) != SQLITE_OK) {
		sqlite3_finalize(sc);
		return db_err(h);
	}
	while (rc == NS_OK && sqlite3_step(sc) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(sc, 0);
		if (!opened) {
			section_open(h, "sweep", "sweeps", "Sweeps: small multiples");
			fputs("<p class=\"note\">Cycles per order-0 allocation "
			      "against the batch size, one plot per sweep point (its parameters "
			      "below it), lines by variant.</p>\n", h->f);
		}
		opened = 1;
		fputs("<h3>", h->f);
		markup_puts(h->f, name);
		fputs("</h3><div class=\"grid\">\n", h->f);
		sqlite3_reset(pt);
		sqlite3_bind_text(pt, 1, name, -1, SQLITE_TRANSIENT);
		while (rc == NS_OK && sqlite3_step(pt) == SQLITE_ROW) {
			int64_t point = sqlite3_column_int64(pt, 0);
			char w1[300], w2[64], id[64], title[64];
			const char *wh[2] = {w1, w2};
			snprintf(w1, sizeof w1, "scenario=%s", name);
			snprintf(w2, sizeof w2, "point=%" PRId64, point);
			snprintf(id, sizeof id, "sweep-%" PRId64, point);
			snprintf(title, sizeof title, "point %" PRId64, point);
			fputs("<figure>", h->f);
			rc = line_plot(h, "alloc-odr0-*", title, id, wh, 2);
			fputs("<figcaption>", h->f);
			markup_puts(h->f, (const char *)sqlite3_column_text(pt, 1));
			fputs("</figcaption></figure>\n", h->f);
		}
		fputs("</div>\n", h->f);
	}
	sqlite3_finalize(sc);
	sqlite3_finalize(pt);
	if (opened)
		fputs("</section>\n", h->f);
	return rc;
}

int html_report_write(sqlite3 *db, const char *dbname, const struct cost_tables *t,
		      int pool, FILE *f, struct diag *d)
{
	struct html h = {.db = db, .dbname = dbname, .t = t, .f = f, .d = d, .pool = pool};
	sqlite3_stmt *st;
	int64_t runs = 0, ok = 0;
	if (sqlite3_prepare_v2(db, "SELECT count(*), sum(status = 'ok') FROM runs", -1, &st,
			       NULL) != SQLITE_OK)
		return db_err(&h);
	if (sqlite3_step(st) == SQLITE_ROW) {
		runs = sqlite3_column_int64(st, 0);
		ok = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (!runs)
		return diag_set(d, NS_EINPUT, dbname, 0, 0, "no runs in this database");
	/* the page names runs by these; a NULL is an edited file */
	if (sqlite3_prepare_v2(db, "SELECT run_id, CASE WHEN workload IS NULL THEN 'workload' "
			       "WHEN variant IS NULL THEN 'variant' WHEN scenario IS NULL THEN "
			       "'scenario' ELSE 'invocation' END FROM runs WHERE workload IS NULL "
			       "OR variant IS NULL OR scenario IS NULL OR invocation IS NULL "
			       "LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return db_err(&h);
	if (sqlite3_step(st) == SQLITE_ROW) {
		int rc = diag_set(d, NS_EINPUT, dbname, 0, 0, "run %lld has no %s (NULL in "
				  "table runs)", (long long)sqlite3_column_int64(st, 0),
				  (const char *)sqlite3_column_text(st, 1));
		sqlite3_finalize(st);
		return rc;
	}
	sqlite3_finalize(st);
	int rc = register_functions(&h);
	if (rc)
		return rc;
	/* the body first, into memory: the navigation bar links the sections
	 * it has */
	char *body = NULL;
	size_t len = 0;
	h.f = open_memstream(&body, &len);
	if (!h.f)
		return diag_set(d, NS_ENOMEM, dbname, 0, 0, "out of memory");
	if ((rc = section_runs(&h)) || (rc = section_compare(&h)) ||
	    (rc = section_profile(&h)) || (rc = section_flame(&h)) || (rc = section_diff(&h)) ||
	    (rc = section_branches(&h)) || (rc = section_numastat(&h)) ||
	    (rc = section_latency(&h)) || (rc = section_messaging(&h)) ||
	    (rc = section_sweep(&h))) {
		fclose(h.f);
		free(body);
		return rc;
	}
	if (fclose(h.f)) {
		free(body);
		return diag_set(d, NS_ENOMEM, dbname, 0, 0, "out of memory");
	}
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n<title>"
	      "numasim report: ", f);
	markup_puts(f, dbname);
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>numasim report: ", style);
	markup_puts(f, dbname);
	fprintf(f, "</h1>\n<p class=\"note\">%" PRId64 " runs (%" PRId64 " ok); written by "
		"numasim %s from the database alone (<code>numasim report DB --format html</code>)."
		"</p>\n<nav>", runs, ok, NUMASIM_VERSION);
	for (int i = 0; i < h.nr_sections; i++)
		fprintf(f, "<a href=\"#%s\">%s</a>", h.nav_id[i], h.nav_label[i]);
	fputs("</nav>\n", f);
	fwrite(body, 1, len, f);
	free(body);
	fprintf(f, "<script>\n%s%s</script>\n</body></html>\n", script, flame_script);
	return ferror(f) ? diag_set(d, NS_EIO, dbname, 0, 0, "cannot write the page") : NS_OK;
}
