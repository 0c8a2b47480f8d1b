/*
 * trace — `numasim trace SCENARIO --events LIST [--format jsonl|ftrace]
 * [--limit N] [-o FILE]`: simulate every run of a scenario (no database)
 * with the models' trace hooks set and print one record per event: each
 * __slab_free call (slub.h: struct slub_free_trace) and, on request, each
 * page allocation and free in the style of the kmem:mm_page_alloc and
 * kmem:mm_page_free tracepoints.  Every record carries the simulated
 * timestamp (the CPU's clock in ns), the CPU, the task (the workload's,
 * cpu_set_task(); a workload that names none: its own name and pid 100 +
 * CPU) and the call's core cycles.  As JSON lines (jsonl, the default) or
 * as the text of `trace-cmd report -t` (ftrace): a `cpus=N` line, a
 * comment per run, then `TASK-PID [CPU] SECONDS.NANOSECONDS: EVENT: FIELDS`
 * with the page events in v4.6's TP_printk formats of
 * include/trace/events/kmem.h (the modelled page allocator's) and
 * __slab_free, which has no tracepoint, as numasim's own `slab_free`
 * event; `numasim import trace` reads it back
 * (docs/reference/trace-format.md).
 *
 * Design notes.  Records are streamed as they come, never held in
 * memory: to standard output, or to a temporary file beside -o FILE that
 * is renamed into place only when every run finished and passed its
 * invariant walk and the file was written and synced (an error, a full
 * disk included, removes it: FILE is then unchanged; on standard output
 * the records written so far stay, and the exit status says it failed).  --limit counts
 * the records of the whole plan, --limit-per-run those of each run: once
 * a limit is reached the hooks are removed and the run's simulation is
 * cut at the workload's next stop check (run_each's RUN_CUT), so `--limit
 * 5` takes the time of the first few records, not of the whole plan; a
 * run cut short skips its invariant walk (its world is mid-workload).
 * The models call the hooks only when set: normal runs pay one
 * predictable branch.  Events the scenario's workload cannot produce
 * (slab_free of the pagealloc workload, which has no SLUB) are an error
 * before anything is simulated.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "base/diag.h"
#include "base/json.h"
#include "base/progress.h"
#include "models/page_alloc.h"
#include "scenarios/run.h"
#include "scenarios/scenario.h"
#include "cli/scenario_cli.h"
#include "models/slub.h"

static const char usage_line[] =
	"numasim trace SCENARIO --events slab_free[,page_alloc,page_free] "
	"[--format jsonl|ftrace] [--limit N] [--limit-per-run N] [-o FILE]\n"
	"             [--set KEY=VALUE]... [--sweep KEY=V1,V2]... [--machine M] "
	"[--workload W]";

enum { EV_SLAB_FREE = 1, EV_PAGE_ALLOC = 2, EV_PAGE_FREE = 4 };

enum trace_format { TF_JSONL, TF_FTRACE };

struct trace_args {
	const char *scenario, *out;
	unsigned events;
	enum trace_format format;
	long long limit;                /* records of the plan, 0 = no limit */
	long long limit_run;            /* records per run, 0 = no limit */
	struct scn_cli sc;              /* --set, --sweep, --machine, --workload */
};

struct tracer {
	const struct trace_args *a;
	FILE *f;
	const char *point;
	const char *workload;           /* the task of a workload that names none */
	long long rep;
	long long emitted;              /* records of the current run */
	long long total;                /* records of the plan */
	int incomplete;                 /* a record could not be completed */
	volatile sig_atomic_t cut;      /* run_each's stop: RUN_CUT, 1 at the limit */
	struct mm_world *pa;
	struct slub_world *sw;
};

static int parse_events(const char *v, unsigned *ev)
{
	const char *p = v;
	*ev = 0;
	while (*p) {
		size_t n = strcspn(p, ",");
		if (n == 9 && !strncmp(p, "slab_free", n))
			*ev |= EV_SLAB_FREE;
		else if (n == 10 && !strncmp(p, "page_alloc", n))
			*ev |= EV_PAGE_ALLOC;
		else if (n == 9 && !strncmp(p, "page_free", n))
			*ev |= EV_PAGE_FREE;
		else
			return cli_usage_error("trace", usage_line,
					       "unknown event '%.*s' in '%s' (slab_free, "
					       "page_alloc, page_free)", (int)n, p, v);
		p += n;
		if (*p == ',' && *++p == '\0')
			break;
	}
	if (!*ev || p[-1] == ',')
		return cli_usage_error("trace", usage_line, "bad --events list '%s'", v);
	return 0;
}

static int set_events(void *dst, const struct cli_option *o, const char *typed,
		      const char *v)
{
	(void)o;
	(void)typed;
	return parse_events(v, dst);
}

static int set_format(void *dst, const struct cli_option *o, const char *typed,
		      const char *v)
{
	enum trace_format *f = dst;
	(void)o;
	(void)typed;
	if (!strcmp(v, "jsonl"))
		*f = TF_JSONL;
	else if (!strcmp(v, "ftrace"))
		*f = TF_FTRACE;
	else
		return cli_usage_error("trace", usage_line, "unknown format '%s' (jsonl, "
				       "ftrace)", v);
	return 0;
}

static int trace_operand(void *args, const char *arg)
{
	struct trace_args *a = args;
	if (a->scenario)
		return cli_usage_error("trace", usage_line, "more than one scenario ('%s', '%s')",
				       a->scenario, arg);
	a->scenario = arg;
	return 0;
}

#define TRACE_ARG(field) offsetof(struct trace_args, field)

static void print_help(const struct cli_spec *spec);

static const struct cli_option trace_options[] = {
	{.name = "--events", .arg = "LIST", .kind = CLI_OPT_CALL, .off = TRACE_ARG(events),
	 .call = set_events, .help = "comma-separated event names (required)"},
	{.name = "--format", .arg = "F", .kind = CLI_OPT_CALL, .off = TRACE_ARG(format),
	 .call = set_format,
	 .help = "jsonl (one JSON object per record, the default) or\n"
		 "ftrace (trace-cmd report -t's text, which\n"
		 "`numasim import trace` reads back)"},
	{.name = "--limit", .arg = "N", .kind = CLI_OPT_NUM, .off = TRACE_ARG(limit),
	 .min = 1, .max = 1000000000000LL,
	 .help = "at most N records in all: the simulation stops\n"
		 "once they are written"},
	{.name = "--limit-per-run", .arg = "N", .kind = CLI_OPT_NUM,
	 .off = TRACE_ARG(limit_run), .min = 1, .max = 1000000000000LL,
	 .help = "at most N records of each run (each run is cut\n"
		 "short once it has them)"},
	{.name = "-o", .arg = "FILE", .kind = CLI_OPT_FILE, .off = TRACE_ARG(out),
	 .help = "write to FILE (atomically) instead of standard output"},
	SCN_CLI_OPTION("--set", "KEY=VALUE", struct trace_args, sc,
		       "as for `numasim run` (docs/reference/scenario-format.md)"),
	SCN_CLI_OPTION("--sweep", "KEY=V1,V2,...", struct trace_args, sc,
		       "as for `numasim run`"),
	SCN_CLI_OPTION("--machine", "M", struct trace_args, sc, "as for `numasim run`"),
	SCN_CLI_OPTION("--workload", "W", struct trace_args, sc, "as for `numasim run`"),
};

const struct cli_spec cmd_trace_spec = {
	.cmd = "trace", .usage = usage_line,
	.opts = trace_options, .nr_opts = CLI_NR_OPTS(trace_options), .help_col = 17,
	.operand = trace_operand, .help = print_help,
};

static void print_help(const struct cli_spec *spec)
{
	printf("usage: %s\n\n"
	       "Simulates every run of a scenario (no database) and prints a record\n"
	       "for each traced event:\n"
	       "  slab_free   each __slab_free call: the slab, node and per-cpu partial\n"
	       "              state before it, the stat items it incremented and the\n"
	       "              branch sites it evaluated, in order (docs/design/slub-model.md)\n"
	       "  page_alloc  kmem:mm_page_alloc (pfn, order, gfp, migratetype, node, cpu)\n"
	       "  page_free   kmem:mm_page_free (pfn, order, node, cpu)\n"
	       "Every record names its run (point, repetition) and carries the simulated\n"
	       "timestamp (ts_ns: the CPU's clock in ns), the CPU, the task (task, pid)\n"
	       "and the call's core cycles (cycles).  --format ftrace prints them as\n"
	       "trace-cmd report -t does: 'TASK-PID [CPU] SECONDS: EVENT: FIELDS', the\n"
	       "page events in v4.6's kmem formats, __slab_free as numasim's own\n"
	       "slab_free event (docs/reference/trace-format.md).  While the runs are\n"
	       "simulated, a progress bar goes to standard error when it is a terminal.\n\n"
	       "options:\n", spec->usage);
	cli_print_options(stdout, spec, NULL);
	printf("\nexit status: 0 ok, 1 runtime failure, 2 bad input or usage\n");
}

/* 0 parsed, 1 --help printed, 2 usage error (printed). */
static int parse_args(int argc, char **argv, struct trace_args *a)
{
	if (scn_cli_init(&a->sc, "trace", usage_line, argc))
		return 2;
	int rc = cli_parse(&cmd_trace_spec, a, argc, argv);
	if (rc)
		return rc == CLI_HELP_SHOWN ? 1 : rc;
	if (!a->scenario && !scn_cli_adhoc(&a->sc))
		return cli_usage_error("trace", usage_line, "no scenario file");
	if (!a->events)
		return cli_usage_error("trace", usage_line, "no --events given");
	return 0;
}

static const char *tf(int b)
{
	return b ? "true" : "false";
}

/* At a limit: no more records, and the simulation of the run (or of the
 * plan) ends at the workload's next stop check. */
static void count_record(struct tracer *t)
{
	int all = t->a->limit && ++t->total >= t->a->limit;
	int run = t->a->limit_run && ++t->emitted >= t->a->limit_run;
	if (!all && !run)
		return;
	mm_set_trace_hook(t->pa, NULL, NULL);
	if (t->sw)
		slub_set_trace_hook(t->sw, NULL, NULL);
	t->cut = all ? 1 : RUN_CUT;
}

static void run_ident(struct tracer *t, const char *event)
{
	fputs("{\"event\":", t->f);
	json_write_string(t->f, event);
	fputs(",\"point\":", t->f);
	json_write_string(t->f, t->point);
	fprintf(t->f, ",\"repetition\":%lld", t->rep);
}

/* The task of a record: the workload's, or its own name and pid 100 + CPU. */
static const char *task_comm(const struct tracer *t, const char *comm, int pid, int cpu,
			     int *out_pid)
{
	*out_pid = comm ? pid : 100 + cpu;
	return comm ? comm : t->workload;
}

/* The record's timestamp, CPU, task and cycles (jsonl). */
static void when_who(struct tracer *t, uint64_t ts_ns, int cpu, const char *comm, int pid,
		     uint64_t cycles)
{
	int p;
	const char *task = task_comm(t, comm, pid, cpu, &p);
	fprintf(t->f, ",\"ts_ns\":%" PRIu64 ",\"cpu\":%d,\"task\":", ts_ns, cpu);
	json_write_string(t->f, task);
	fprintf(t->f, ",\"pid\":%d,\"cycles\":%" PRIu64, p, cycles);
}

/*
 * trace-cmd report -t's line prefix: "%16s-%-5d [%03d] %5lu.%09lu: " then
 * the event name and a colon padded to 20 columns and a space.  A task's
 * name is the kernel's comm: at most 15 characters.
 */
static void ftrace_prefix(struct tracer *t, uint64_t ts_ns, int cpu, const char *comm,
			  int pid, const char *event)
{
	int p;
	const char *task = task_comm(t, comm, pid, cpu, &p);
	int pad = 20 - (int)strlen(event);
	fprintf(t->f, "%16.15s-%-5d [%03d] %5" PRIu64 ".%09" PRIu64 ": %s:%*s ", task, p, cpu,
		ts_ns / 1000000000u, ts_ns % 1000000000u, event, pad > 0 ? pad : 0, "");
}

/*
 * __slab_free has no tracepoint: numasim's own event, in the key=value
 * style of the kmem events, with the slab (its struct page, as %px), the
 * cache, the objects freed and the path and cycles of the call.
 */
static void ftrace_slab_free(struct tracer *t, const struct slub_free_trace *e)
{
	ftrace_prefix(t, e->ts_ns, e->cpu, e->comm, e->pid, "slab_free");
	fprintf(t->f, "page=%016" PRIx64 " name=%s cnt=%u inuse=%u frozen=%d node=%d "
		"path=%s cycles=%" PRIu64 "\n", e->page, e->cache, e->cnt, e->inuse, e->frozen,
		e->node, e->path, e->cycles);
}

static void on_slab_free(void *arg, const struct slub_free_trace *e)
{
	struct tracer *t = arg;
	FILE *f = t->f;
	if (e->incomplete)
		t->incomplete = 1;
	if (t->a->format == TF_FTRACE) {
		ftrace_slab_free(t, e);
		count_record(t);
		return;
	}
	run_ident(t, "slab_free");
	when_who(t, e->ts_ns, e->cpu, e->comm, e->pid, e->cycles);
	fputs(",\"cache\":", f);
	json_write_string(f, e->cache);
	fprintf(f, ",\"variant\":\"%s\",\"has_cpu_partial\":%s,\"frozen\":%s,"
		"\"inuse\":%u,\"objects\":%u,\"freelist_empty\":%s,\"cnt\":%u,\"node\":%d,"
		"\"nr_partial\":%lu,\"min_partial\":%lu,\"cpu_partial_limit\":%u,"
		"\"cpu_partial\":[",
		e->variant == SLUB_PRE ? "pre" : "post", tf(e->has_cpu_partial),
		tf(e->frozen), e->inuse, e->objects, tf(e->freelist_empty), e->cnt, e->node,
		e->nr_partial, e->min_partial, e->cpu_partial_limit);
	for (unsigned i = 0; i < e->nr_chain; i++)
		fprintf(f, "%s{\"objects\":%u,\"inuse\":%u,\"node\":%d}", i ? "," : "",
			e->chain[i].objects, e->chain[i].inuse, e->chain[i].node);
	fprintf(f, "],\"cpu_partial_pages\":%d,\"cpu_partial_pobjects\":%d,\"stats\":[",
		e->cpu_partial_pages, e->cpu_partial_pobjects);
	for (unsigned i = 0; i < e->nr_stats; i++) {
		fputs(i ? "," : "", f);
		json_write_string(f, slub_stat_name(e->stats[i]));
	}
	fputs("],\"sites\":[", f);
	for (unsigned i = 0; i < e->nr_sites; i++) {
		fputs(i ? ",[" : "[", f);
		json_write_string(f, e->sites[i].name);
		fprintf(f, ",%s]", tf(e->sites[i].outcome));
	}
	fputs("],\"path\":", f);
	json_write_string(f, e->path);
	fputs("}\n", f);
	count_record(t);
}

/* show_gfp_flags: the composite names first, then the remaining bits
 * (quoted: a JSON string). */
static void gfp_str(FILE *f, uint32_t gfp, int quoted)
{
	static const struct { const char *name; uint32_t bits; } names[] = {
		{"GFP_HIGHUSER_MOVABLE", GFP_HIGHUSER_MOVABLE},
		{"GFP_USER", GFP_USER},
		{"GFP_KERNEL", GFP_KERNEL},
		{"GFP_ATOMIC", GFP_ATOMIC},
		{"__GFP_DMA", __GFP_DMA}, {"__GFP_HIGHMEM", __GFP_HIGHMEM},
		{"__GFP_DMA32", __GFP_DMA32}, {"__GFP_MOVABLE", __GFP_MOVABLE},
		{"__GFP_RECLAIMABLE", __GFP_RECLAIMABLE}, {"__GFP_HIGH", __GFP_HIGH},
		{"__GFP_IO", __GFP_IO}, {"__GFP_FS", __GFP_FS},
		{"__GFP_COLD", __GFP_COLD}, {"__GFP_NOWARN", __GFP_NOWARN},
		{"__GFP_REPEAT", __GFP_REPEAT}, {"__GFP_NOFAIL", __GFP_NOFAIL},
		{"__GFP_NORETRY", __GFP_NORETRY}, {"__GFP_MEMALLOC", __GFP_MEMALLOC},
		{"__GFP_COMP", __GFP_COMP}, {"__GFP_ZERO", __GFP_ZERO},
		{"__GFP_NOMEMALLOC", __GFP_NOMEMALLOC}, {"__GFP_HARDWALL", __GFP_HARDWALL},
		{"__GFP_THISNODE", __GFP_THISNODE}, {"__GFP_ATOMIC", __GFP_ATOMIC},
		{"__GFP_DIRECT_RECLAIM", __GFP_DIRECT_RECLAIM},
		{"__GFP_OTHER_NODE", __GFP_OTHER_NODE}, {"__GFP_WRITE", __GFP_WRITE},
		{"__GFP_KSWAPD_RECLAIM", __GFP_KSWAPD_RECLAIM},
	};
	uint32_t left = gfp;
	int first = 1;
	if (quoted)
		fputc('"', f);
	for (size_t i = 0; i < sizeof names / sizeof names[0] && left; i++) {
		if ((left & names[i].bits) != names[i].bits)
			continue;
		fprintf(f, "%s%s", first ? "" : "|", names[i].name);
		left &= ~names[i].bits;
		first = 0;
	}
	if (left)
		fprintf(f, "%s0x%" PRIx32, first ? "" : "|", left);
	else if (first)
		fputs("0", f);
	if (quoted)
		fputc('"', f);
}

/* gfpflags_to_migratetype: UNMOVABLE 0, MOVABLE 1, RECLAIMABLE 2. */
static int migratetype(uint32_t gfp)
{
	return gfp & __GFP_MOVABLE ? 1 : gfp & __GFP_RECLAIMABLE ? 2 : 0;
}

/* x86-64's vmemmap (VMEMMAP_START of v4.6, no KASLR) and its 64-byte
 * struct page: pfn_to_page(), as v4.6 prints %p unhashed. */
#define TRACE_VMEMMAP UINT64_C(0xffffea0000000000)
#define TRACE_STRUCT_PAGE 64u

/* v4.6's TP_printk of mm_page_alloc and mm_page_free. */
static void ftrace_page(struct tracer *t, const struct mm_trace_event *e)
{
	ftrace_prefix(t, e->ts_ns, e->cpu, e->comm, e->pid,
		      e->alloc ? "mm_page_alloc" : "mm_page_free");
	fprintf(t->f, "page=%016" PRIx64 " pfn=%" PRIu64 " order=%u",
		TRACE_VMEMMAP + e->pfn * TRACE_STRUCT_PAGE, e->pfn, e->order);
	if (e->alloc) {
		fprintf(t->f, " migratetype=%d gfp_flags=", migratetype(e->gfp));
		gfp_str(t->f, e->gfp, 0);
	}
	fputc('\n', t->f);
}

static void on_page(void *arg, const struct mm_trace_event *e)
{
	struct tracer *t = arg;
	if (!(t->a->events & (e->alloc ? EV_PAGE_ALLOC : EV_PAGE_FREE)))
		return;
	if (t->a->format == TF_FTRACE) {
		ftrace_page(t, e);
		count_record(t);
		return;
	}
	run_ident(t, e->alloc ? "mm_page_alloc" : "mm_page_free");
	when_who(t, e->ts_ns, e->cpu, e->comm, e->pid, e->cycles);
	fprintf(t->f, ",\"pfn\":%" PRIu64 ",\"order\":%u", e->pfn, e->order);
	if (e->alloc) {
		fputs(",\"gfp\":", t->f);
		gfp_str(t->f, e->gfp, 1);
		fprintf(t->f, ",\"migratetype\":%d", migratetype(e->gfp));
	}
	fprintf(t->f, ",\"node\":%d}\n", e->node);
	count_record(t);
}

static int on_world(void *arg, const char *point, long long rep, struct mm_world *pa,
		    struct slub_world *sw)
{
	struct tracer *t = arg;
	t->point = point;
	t->rep = rep;
	if (t->a->format == TF_FTRACE)
		fprintf(t->f, "# run %s, repetition %lld\n", point, rep);
	t->emitted = 0;
	t->cut = 0;
	t->pa = pa;
	t->sw = sw;
	if (t->a->events & (EV_PAGE_ALLOC | EV_PAGE_FREE))
		mm_set_trace_hook(pa, on_page, t);
	if (sw && (t->a->events & EV_SLAB_FREE))
		slub_set_trace_hook(sw, on_slab_free, t);
	return NS_OK;
}

/* The events the workload makes (its table entry's; pagealloc has no
 * SLUB world). */
static unsigned workload_events(const struct workload_ops *w)
{
	return (w->events & WL_EV_SLAB_FREE ? EV_SLAB_FREE : 0) |
	       (w->events & WL_EV_PAGE_ALLOC ? EV_PAGE_ALLOC : 0) |
	       (w->events & WL_EV_PAGE_FREE ? EV_PAGE_FREE : 0);
}

static void event_names(unsigned ev, char *buf, size_t len)
{
	static const char *const names[] = {"slab_free", "page_alloc", "page_free"};
	buf[0] = '\0';
	for (unsigned i = 0; i < 3; i++)
		if (ev & (1u << i))
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
				 buf[0] ? ", " : "", names[i]);
}

/* Asking for events the workload never makes would print nothing. */
static int produced(const struct scenario *s, unsigned events, struct diag *d)
{
	unsigned have = workload_events(s->wl), missing = events & ~have;
	char miss[64], made[64];
	if (!missing)
		return NS_OK;
	event_names(missing, miss, sizeof miss);
	event_names(have, made, sizeof made);
	return diag_set(d, NS_EINPUT, "numasim trace", 0, 0, "--events %s: scenario "
			"'%s' runs the %s workload, which makes no %s events (it makes "
			"%s)", miss, s->name, scn_workload_name(s->workload), miss, made);
}

int cmd_trace(int argc, char **argv)
{
	struct trace_args a = {0};
	struct scenario *s = NULL;
	struct tracer t = {.a = &a};
	char *tmp = NULL;
	int fd = -1;
	struct diag d;
	int status, rc;

	diag_init(&d);
	cli_keep_freed_memory();      /* a world per run of the plan */
	if ((status = parse_args(argc, argv, &a))) {
		scn_cli_free(&a.sc);
		return status == 1 ? 0 : status;
	}
	if ((rc = scn_cli_load(&a.sc, a.scenario, &s, &d)) || (rc = produced(s, a.events, &d)) ||
	    (rc = run_preflight(s, &d)))
		goto fail;
	if (a.out) {
		if ((rc = cli_output_temp(a.out, "", &tmp, &fd))) {
			status = ns_status_exit(rc);   /* the message is printed */
			goto out;
		}
		t.f = fdopen(fd, "w");
		if (!t.f) {
			close(fd);
			rc = diag_set(&d, NS_ENOMEM, "numasim trace", 0, 0, "out of memory");
			goto fail;
		}
	} else {
		t.f = stdout;
	}
	/* the records go to stdout or a file when complete; the bar to a
	 * terminal on stderr only */
	struct progress bar = {.f = stderr};
	t.workload = scn_workload_name(s->workload);
	if (a.format == TF_FTRACE)   /* trace-cmd report's first line (point 0's machine) */
		fprintf(t.f, "cpus=%d\n", s->machine->max_cpu + 1);
	rc = run_each(s, &t.cut, on_world, &t, isatty(STDERR_FILENO) ? &bar : NULL, &d);
	if (rc == RUN_STOPPED && t.cut == 1)
		rc = NS_OK;              /* --limit reached: the output is complete */
	if (rc == NS_OK && t.incomplete)
		rc = diag_set(&d, NS_ENOMEM, "numasim trace", 0, 0, "out of memory "
			      "while recording a __slab_free call");
	int werr = 0;
	if (fflush(t.f) != 0 || ferror(t.f))
		werr = errno ? errno : EIO;
	if (a.out && !werr && fsync(fileno(t.f)) != 0)
		werr = errno;
	if (a.out && fclose(t.f) != 0 && !werr)
		werr = errno;
	t.f = NULL;
	if (werr && rc == NS_OK)
		rc = diag_set(&d, ns_status_from_errno(werr) == NS_EINPUT ? NS_EIO :
			      ns_status_from_errno(werr), a.out ? a.out : "numasim trace", 0,
			      0, "cannot write %s: %s", a.out ? "the output file" :
			      "standard output", strerror(werr));
	if (rc)
		goto fail;
	if (a.out) {
		rc = cli_output_rename(tmp, a.out);
		free(tmp);
		tmp = NULL;
		if (rc) {
			status = ns_status_exit(rc);   /* the message is printed */
			goto out;
		}
	}
	status = 0;
	goto out;
fail:
	diag_print(&d, stderr);
	status = ns_status_exit(rc);
out:
	if (t.f && t.f != stdout)
		fclose(t.f);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	scenario_free(s);
	scn_cli_free(&a.sc);
	return status;
}
