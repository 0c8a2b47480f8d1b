/*
 * plot — `numasim plot DB [--metric GLOB [--x KEY]] [--bars WHAT] [--by KEY]
 * [--where KEY=VALUE]... [--top N] [--logx|--linx] [--title TEXT]
 * [--width W] [--height H] [-o FILE.svg|FILE.png] [--data FILE.csv]`: the
 * charts of analysis/plot.h (docs/guide/plots.md).  SVG is written by numasim
 * itself; PNG through gnuplot (pngcairo terminal), found on PATH or named
 * by $NUMASIM_GNUPLOT, with a clear error when it is not installed; the
 * plotted points as CSV with --data.  Everything is checked (the data, the
 * layout at the given size) before a file is written, and each file
 * appears only when complete (cli_write_file_atomic; PNG: gnuplot writes a
 * temporary name that is renamed into place).
 *
 * `numasim plot DB --flame [--run N | --diff A B] [--metric cycles|calls|
 * mispredicts] [--title T] [--width W] -o FILE.svg [--data FILE.folded]`:
 * the flame graph of a run's call paths, or the differential one of two
 * runs (analysis/flame.h); --data writes the folded stacks it drew.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "base/diag.h"
#include "analysis/flame.h"
#include "analysis/plot.h"
#include "analysis/store.h"

static const char usage_line[] =
	"numasim plot DB (--metric GLOB [--x KEY] | --bars profile|executed|taken|"
	"mispredicted) [--by KEY] [--where KEY=VALUE]... [--top N] [--logx|--linx] "
	"[--title TEXT] [--width W] [--height H] [-o FILE.svg|FILE.png] [--data FILE.csv]\n"
	"       numasim plot DB --flame [--run N | --diff A B] [--metric cycles|calls|"
	"mispredicts] [--title TEXT] [--width W] -o FILE.svg [--data FILE.folded]";

struct popts {
	const char *path, *metric, *x, *bars, *by, *out, *data, *title;
	const char **where;
	int nr_where;
	long long top, width, height;
	int logx;
	int flame;
	long long run, diff[2];
};

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a > b && !strcmp(s + a - b, suf);
}

/* The checks of a --flame command line. */
static int parse_flame(const struct popts *o)
{
	if (!o->out || !ends_with(o->out, ".svg"))
		return cli_usage_error("plot", usage_line, "--flame draws SVG: give -o FILE.svg");
	if (o->bars || o->x || o->by || o->nr_where || o->height || o->logx >= 0)
		return cli_usage_error("plot", usage_line, "--flame takes --run, --diff, "
				       "--metric, --title, --width, -o and --data only");
	if (o->run && o->diff[0])
		return cli_usage_error("plot", usage_line, "give either --run or --diff, not both");
	if (o->metric && flame_metric_parse(o->metric) < 0)
		return cli_unknown("numasim plot", "flame metric", o->metric, flame_metric_names,
				   CLI_NR(flame_metric_names), "numasim plot --help");
	if (o->data && !strcmp(o->out, o->data))
		return cli_usage_error("plot", usage_line, "-o and --data name the same file");
	return 0;
}

static int set_where(void *dst, const struct cli_option *opt, const char *typed,
		     const char *v)
{
	struct popts *o = dst;
	(void)opt;
	(void)typed;
	o->where[o->nr_where++] = v;
	return 0;
}

/* --logx, --linx */
static int set_axis(void *dst, const struct cli_option *opt, const char *typed,
		    const char *v)
{
	(void)typed;
	(void)v;
	*(int *)dst = !strcmp(opt->name, "--logx");
	return 0;
}

static int plot_operand(void *args, const char *arg)
{
	struct popts *o = args;
	if (o->path)
		return cli_usage_error("plot", usage_line,
				       "more than one database ('%s', '%s')", o->path, arg);
	o->path = arg;
	return 0;
}

#define PLOT_ARG(field) offsetof(struct popts, field)

static void print_help(const struct cli_spec *spec);

static const struct cli_option plot_options[] = {
	{.name = "--metric", .arg = "GLOB", .kind = CLI_OPT_TEXT, .off = PLOT_ARG(metric),
	 .help = "line plot: the metrics matching GLOB against --x, one\n"
		 "line per group, the mean with min-max error bars."},
	{.name = "--x", .arg = "KEY", .kind = CLI_OPT_TEXT, .off = PLOT_ARG(x),
	 .help = "name (default) takes x from the number after the\n"
		 "last '-' of the metric name (pagealloc's batch size:\n"
		 "--metric 'alloc-odr0-*'); KEY takes a numeric\n"
		 "parameter or runs column (workload.inner_iterations)"},
	{.name = "--bars", .arg = "WHAT", .kind = CLI_OPT_TEXT, .off = PLOT_ARG(bars),
	 .help = "bar chart: profile (self core cycles of the top\n"
		 "functions) or executed, taken, mispredicted (branch\n"
		 "sites), the mean per run of each group"},
	{.name = "--by", .arg = "KEY", .kind = CLI_OPT_TEXT, .off = PLOT_ARG(by),
	 .help = "one line / bar per value of KEY (a runs column or\n"
		 "a parameter, as in numasim compare); default: the\n"
		 "variant and the parameters that differ between its runs"},
	{.name = "--where", .arg = "KEY=VALUE", .kind = CLI_OPT_CALL, .call = set_where,
	 .help = "only runs whose KEY (column or parameter) has\n"
		 "VALUE; repeatable, all must hold (as in compare)"},
	{.name = "--top", .arg = "N", .kind = CLI_OPT_NUM, .off = PLOT_ARG(top),
	 .min = 1, .max = 1000,
	 .help = "bar charts: the N largest categories (default %D)"},
	{.name = "--logx", .kind = CLI_OPT_CALL, .off = PLOT_ARG(logx), .call = set_axis,
	 .help = "force a log2 x axis (default: log when x\n"
		 "spans a factor of 100 or more)"},
	{.name = "--linx", .kind = CLI_OPT_CALL, .off = PLOT_ARG(logx), .call = set_axis,
	 .help = "force a linear x axis"},
	{.name = "--title", .arg = "TEXT", .kind = CLI_OPT_TEXT, .off = PLOT_ARG(title),
	 .help = "the chart's title (default: what is plotted, by what)"},
	{.name = "--width", .arg = "W", .kind = CLI_OPT_NUM, .off = PLOT_ARG(width),
	 .min = 100, .max = PLOT_MAX_SIZE,
	 .help = "the canvas in pixels (default: sized from\n"
		 "the labels and legend around a 570 x 380 plot area);\n"
		 "too small for the labels is an error that says the\n"
		 "size needed"},
	{.name = "--height", .arg = "H", .kind = CLI_OPT_NUM, .off = PLOT_ARG(height),
	 .min = 100, .max = PLOT_MAX_SIZE, .help = "the same for the height"},
	{.name = "--output", .alias = "-o", .arg = "FILE", .kind = CLI_OPT_TEXT,
	 .off = PLOT_ARG(out),
	 .help = "FILE.svg (written by numasim) or FILE.png (needs\n"
		 "gnuplot, package gnuplot-nox; $NUMASIM_GNUPLOT names\n"
		 "another binary)"},
	{.name = "--data", .arg = "FILE", .kind = CLI_OPT_TEXT, .off = PLOT_ARG(data),
	 .help = "the plotted points as CSV (series,x,mean,min,max,n;\n"
		 "bar charts series,category,mean), for gnuplot or\n"
		 "pandas; -o, --data or both"},
	{.name = "--flame", .kind = CLI_OPT_FLAG, .off = PLOT_ARG(flame),
	 .help = "a flame graph of the simulated profile's call paths\n"
		 "(SVG): --run N (may be left out for a one-run\n"
		 "database), --metric cycles (default), calls or\n"
		 "mispredicts; --data FILE writes the folded stacks"},
	{.name = "--run", .arg = "N", .kind = CLI_OPT_NUM, .off = PLOT_ARG(run),
	 .min = 1, .max = INT64_MAX, .help = "with --flame: the run"},
	{.name = "--diff", .arg = "A B", .kind = CLI_OPT_NUM_PAIR, .off = PLOT_ARG(diff),
	 .min = 1, .max = INT64_MAX, .expected = "two run ids",
	 .help = "with --flame: the differential flame graph of runs A\n"
		 "and B, widths from A, red = more in B, blue = less"},
};

const struct cli_spec cmd_plot_spec = {
	.cmd = "plot", .usage = usage_line,
	.opts = plot_options, .nr_opts = CLI_NR_OPTS(plot_options),
	.flags = CLI_HELP_FIRST, .help_col = 17,
	.operand = plot_operand, .help = print_help,
};

static void print_help(const struct cli_spec *spec)
{
	static const struct popts defaults = {.top = 15};
	printf("usage: %s\n\n"
	       "Draws a chart of a results database (opened read-only):\n", spec->usage);
	cli_print_options(stdout, spec, &defaults);
	printf("\nexit status: 0 ok, 1 database or gnuplot failure, 2 bad usage, missing\n"
	       "or foreign database, unknown key or metric, no runs left by --where,\n"
	       "a canvas too small for the labels, no gnuplot for PNG\n");
}

static int parse(int argc, char **argv, struct popts *o)
{
	int rc = cli_parse(&cmd_plot_spec, o, argc, argv);
	if (rc)
		return rc;
	if (!o->path)
		return cli_usage_error("plot", usage_line, "no database file");
	if (!o->out && !o->data)
		return cli_usage_error("plot", usage_line, "no output file (-o FILE.svg|FILE.png "
				       "or --data FILE.csv)");
	if (o->flame)
		return parse_flame(o);
	if (o->run || o->diff[0])
		return cli_usage_error("plot", usage_line, "--run and --diff are for --flame");
	if (o->out && !ends_with(o->out, ".svg") && !ends_with(o->out, ".png"))
		return cli_usage_error("plot", usage_line,
				       "the output file must end in .svg or .png, not '%s'", o->out);
	if (!o->metric == !o->bars)
		return cli_usage_error("plot", usage_line,
				       "give either --metric GLOB (line plot) or --bars WHAT");
	if (o->bars && o->x)
		return cli_usage_error("plot", usage_line, "--x is for line plots (--metric)");
	if (o->out && o->data && !strcmp(o->out, o->data))
		return cli_usage_error("plot", usage_line, "-o and --data name the same file");
	for (int i = 0; i < o->nr_where; i++)
		if (!strchr(o->where[i], '=') || o->where[i][0] == '=')
			return cli_usage_error("plot", usage_line,
					       "--where takes KEY=VALUE, not '%s'", o->where[i]);
	return 0;
}

/* The gnuplot binary: $NUMASIM_GNUPLOT or "gnuplot" on PATH; NULL if none. */
static char *find_gnuplot(void)
{
	const char *env = getenv("NUMASIM_GNUPLOT");
	if (env && *env)
		return access(env, X_OK) == 0 ? strdup(env) : NULL;
	const char *path = getenv("PATH");
	char *dirs = strdup(path && *path ? path : "/usr/bin:/bin"), *save = NULL;
	char *found = NULL;
	for (char *dir = dirs ? strtok_r(dirs, ":", &save) : NULL; dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		size_t len = strlen(dir) + sizeof "/gnuplot";
		char *cand = malloc(len);
		if (cand && snprintf(cand, len, "%s/gnuplot", dir) > 0 && access(cand, X_OK) == 0)
			found = cand;
		else
			free(cand);
	}
	free(dirs);
	return found;
}

/*
 * Run gnuplot on the script; it writes tmp (created by cli_output_temp
 * with the output's mode: gnuplot's `set output` truncates it and keeps
 * that mode); the caller renames it to out.  tmp is gone when this fails.
 */
static int write_png(const struct plot *p, const char *tmp, const char *out,
		     struct diag *d)
{
	char *gp = find_gnuplot(), *script = NULL;
	size_t len = 0;
	int rc = NS_OK;
	FILE *f = gp ? open_memstream(&script, &len) : NULL;
	if (!gp)
		rc = diag_set(d, NS_EINPUT, out, 0, 0, "PNG output needs gnuplot, which is "
			      "not installed (install gnuplot-nox, or write FILE.svg: numasim "
			      "draws SVG itself)");
	else if (!f)
		rc = diag_set(d, NS_ENOMEM, out, 0, 0, "out of memory");
	if (rc)
		goto out;
	plot_gnuplot(p, tmp, f);
	fclose(f);
	char *const argv[] = {gp, NULL};
	int pipefd[2];
	if (pipe(pipefd) != 0) {
		rc = diag_set(d, NS_EIO, out, 0, 0, "cannot run gnuplot: %s", strerror(errno));
		goto out;
	}
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pipefd[0], 0);
		close(pipefd[0]);
		close(pipefd[1]);
		execv(gp, argv);
		_exit(127);
	}
	close(pipefd[0]);
	size_t off = 0;
	while (pid > 0 && off < len) {
		ssize_t w = write(pipefd[1], script + off, len - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(pipefd[1]);
	int ws = 0;
	struct stat st;
	if (pid < 0 || waitpid(pid, &ws, 0) < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0 ||
	    stat(tmp, &st) != 0 || st.st_size == 0) {
		rc = diag_set(d, NS_EIO, out, 0, 0, "gnuplot (%s) failed to draw the PNG "
			      "(exit status %d)", gp, WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
		goto out;
	}
out:
	if (rc)
		unlink(tmp);
	free(gp);
	free(script);
	return rc;
}

/* The chart or the CSV of p in memory (*buf, *len); NS_ENOMEM. */
static int render(const struct plot *p, int csv, char **buf, size_t *len, struct diag *d)
{
	FILE *f = open_memstream(buf, len);
	if (!f)
		return diag_set(d, NS_ENOMEM, "numasim plot", 0, 0, "out of memory");
	int rc = csv ? plot_csv(p, f) : plot_svg(p, f);
	fclose(f);
	if (rc)
		return diag_set(d, rc, "numasim plot", 0, 0, "cannot draw the chart");
	return NS_OK;
}

static int load(struct plot *p, const struct popts *o, struct diag *d)
{
	struct store *st = NULL;
	struct plot_layout l;
	int rc = store_open(o->path, STORE_RDONLY, &st, d);
	if (rc == NS_OK)
		rc = o->metric ? plot_load_line(p, store_sqlite(st), o->path, o->metric, o->x,
						o->by, d)
			       : plot_load_bars(p, store_sqlite(st), o->path, o->bars, o->by,
						(int)o->top, d);
	rc = store_read_status(st, rc);
	store_close(st);
	if (rc == NS_OK && plot_check(p) != NS_OK)
		rc = diag_set(d, NS_EINTERNAL, "numasim plot", 0, 0, "inconsistent plot data");
	if (rc == NS_OK && o->title)
		snprintf(p->title, sizeof p->title, "%s", o->title);
	if (rc == NS_OK)
		rc = plot_layout(p, &l, d);
	return rc;
}

/* --flame: the SVG (and with --data the folded stacks) in memory. */
static int flame_render(const struct popts *o, char **svg, size_t *svg_len, char **fold,
			size_t *fold_len, struct diag *d)
{
	struct store *st = NULL;
	struct flame fl;
	int64_t a = o->diff[0] ? o->diff[0] : o->run;
	flame_init(&fl);
	int rc = store_open(o->path, STORE_RDONLY, &st, d);
	if (rc == NS_OK && !a)
		rc = flame_only_run(store_sqlite(st), o->path, &a, d);
	if (rc == NS_OK)
		rc = flame_load(&fl, store_sqlite(st), o->path, a, o->diff[1],
				o->metric ? (enum flame_metric)flame_metric_parse(o->metric)
					  : FLAME_CYCLES, d);
	store_close(st);
	if (rc == NS_OK && flame_check(&fl))
		rc = diag_set(d, NS_EINTERNAL, "numasim plot", 0, 0, "inconsistent call paths");
	if (rc == NS_OK && o->title)
		snprintf(fl.title, sizeof fl.title, "%s", o->title);
	FILE *f = rc == NS_OK ? open_memstream(svg, svg_len) : NULL;
	if (rc == NS_OK && !f)
		rc = diag_set(d, NS_ENOMEM, "numasim plot", 0, 0, "out of memory");
	if (f) {
		rc = flame_svg(&fl, (int)o->width, f);
		fclose(f);
		if (rc == NS_EINPUT)
			diag_set(d, rc, o->path, 0, 0, "run %lld has no %s to draw",
				 (long long)a, flame_metric_name(fl.metric));
	}
	if (rc == NS_OK && o->data) {
		f = open_memstream(fold, fold_len);
		if (!f)
			rc = diag_set(d, NS_ENOMEM, "numasim plot", 0, 0, "out of memory");
		else {
			rc = flame_folded(&fl, f);
			fclose(f);
		}
	}
	flame_free(&fl);
	return rc;
}

int cmd_plot(int argc, char **argv)
{
	struct popts o = {.top = 15, .logx = -1};
	struct plot p;
	struct diag d;
	char *svg = NULL, *csv = NULL;
	size_t svg_len = 0, csv_len = 0;
	int rc = NS_OK, status;

	diag_init(&d);
	plot_init(&p, PLOT_LINE);
	if (!(o.where = calloc((size_t)argc, sizeof *o.where))) {
		rc = diag_set(&d, NS_ENOMEM, "numasim plot", 0, 0, "out of memory");
		goto fail;
	}
	if ((status = parse(argc, argv, &o))) {
		status = status == CLI_HELP_SHOWN ? 0 : status;
		goto out;
	}
	if (o.flame) {
		if ((rc = flame_render(&o, &svg, &svg_len, &csv, &csv_len, &d)))
			goto fail;
		if ((rc = cli_write_file_atomic(o.out, svg, svg_len)) ||
		    (csv && (rc = cli_write_file_atomic(o.data, csv, csv_len))))
			goto fail_quiet;
		status = 0;
		goto out;
	}
	plot_init(&p, o.metric ? PLOT_LINE : PLOT_BAR);
	p.logx = o.logx;
	p.width = (int)o.width;
	p.height = (int)o.height;
	p.where = o.where;
	p.nr_where = o.nr_where;
	/* Everything that can fail on the input before any file is written. */
	if ((rc = load(&p, &o, &d)) ||
	    (o.out && ends_with(o.out, ".svg") && (rc = render(&p, 0, &svg, &svg_len, &d))) ||
	    (o.data && (rc = render(&p, 1, &csv, &csv_len, &d))))
		goto fail;
	if (o.out && ends_with(o.out, ".png")) {
		char *tmp = NULL;
		int fd;
		if ((rc = cli_output_temp(o.out, ".png", &tmp, &fd)))
			goto fail_quiet;
		close(fd);
		rc = write_png(&p, tmp, o.out, &d);
		if (rc) {
			free(tmp);
			goto fail;
		}
		rc = cli_output_rename(tmp, o.out);
		free(tmp);
		if (rc)
			goto fail_quiet;
	}
	if ((svg && (rc = cli_write_file_atomic(o.out, svg, svg_len))) ||
	    (csv && (rc = cli_write_file_atomic(o.data, csv, csv_len))))
		goto fail_quiet;
	status = 0;
	goto out;
fail:
	diag_print(&d, stderr);
fail_quiet:
	status = ns_status_exit(rc);
out:
	free(svg);
	free(csv);
	free(o.where);
	plot_free(&p);
	return status;
}
