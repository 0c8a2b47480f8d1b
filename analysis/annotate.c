/*
 * annotate — one function's branch sites in one run (see annotate.h).
 *
 * Design notes.  Three reads: the run (variant, kernel model, machine
 * text), the function's profile row, and the run's branch rows, matched
 * to the models' site table by name so that the order is the table's and
 * unexecuted sites appear.  The machine text is parsed again
 * (machine_load_buf) for its cost figures; that costs a millisecond and
 * keeps the cycles those of the run's machine, overrides included.
 */
#include "analysis/annotate.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cost/cpu.h"
#include "machine/machine.h"
#include "models/kcode.h"
#include "models/page_alloc.h"
#include "models/slub.h"

/*
 * Where each modelled function is defined.  Written from the kernel
 * sources the models follow: v4.6 (+ 682a3385) for the page allocator,
 * whose next_zones_zonelist is out of line in mm/mmzone.c before the patch
 * and a static inline in include/linux/mmzone.h after it (which calls
 * __next_zones_zonelist in mm/mmzone.c); v5.9 for mm/slub.c.  Names the
 * models give to parts of a function (free_fast, alloc_slow, uf_loop, ...)
 * are in the file of their function.
 */
static const struct {
	const char *fn, *file;
} kernel_files[] = {
	{"alloc_pages_current", "mm/mempolicy.c"},
	{"get_task_policy", "mm/mempolicy.c"},
	{"policy_zonelist", "mm/mempolicy.c"},
	{"policy_nodemask", "mm/mempolicy.c"},
	{"interleave_nodes", "mm/mempolicy.c"},
	{"alloc_page_interleave", "mm/mempolicy.c"},
	{"read_mems_allowed_begin", "include/linux/cpuset.h"},
	{"read_mems_allowed_retry", "include/linux/cpuset.h"},
	{"cpuset_zone_allowed", "include/linux/cpuset.h"},
	{"__cpuset_node_allowed", "kernel/cpuset.c"},
	{"_cond_resched", "kernel/sched/core.c"},
	{"first_zones_zonelist", "include/linux/mmzone.h"},
	{"next_zones_zonelist", "mm/mmzone.c (include/linux/mmzone.h inline with 682a3385)"},
	{"__next_zones_zonelist", "mm/mmzone.c"},
	{"__mod_zone_page_state", "mm/vmstat.c"},
	{"__inc_zone_state", "mm/vmstat.c"},
	{"mod_zone_page_state", "mm/vmstat.c"},
	{"zone_statistics", "mm/vmstat.c"},
	{"__count_zone_vm_events", "include/linux/vmstat.h"},
};

/* The mm/page_alloc.c functions of the page allocator model (mm_internal.h). */
static const char *const page_alloc_fns[] = {
	"__alloc_pages_nodemask", "get_page_from_freelist", "zone_watermark_ok",
	"__zone_watermark_ok", "buffered_rmqueue", "rmqueue_bulk", "__rmqueue",
	"__rmqueue_smallest", "expand", "__rmqueue_fallback", "find_suitable_fallback",
	"steal_suitable_fallback", "move_freepages_block", "prep_new_page",
	"check_new_page", "reset_alloc_batches", "__alloc_pages_slowpath",
	"wake_all_kswapds", "__free_pages", "free_hot_cold_page", "free_pages_prepare",
	"free_pages_check", "get_pfnblock_flags_mask", "free_pcppages_bulk",
	"__free_one_page", "__free_pages_ok", "gfp_zone", "zone_watermark_fast",
};

/* The SLUB model's functions and its names for parts of them (slub.c). */
static const char *const slub_fns[] = {
	"___slab_alloc", "__free_slab", "__slab_alloc", "__slab_free", "acquire_slab",
	"add_partial", "alloc_slow", "allocate_slab", "deactivate_slab", "discard_slab",
	"do_slab_free", "flush_slab", "free_fast", "get_any_partial", "get_freelist",
	"get_partial", "get_partial_node", "kfree", "kmem_cache_alloc", "kmem_cache_free",
	"kmem_cache_free_bulk", "new_slab", "new_slab_objects", "put_cpu_partial",
	"remove_full", "remove_partial", "sa_nopage", "slab_alloc_node", "slab_free",
	"uf_discard", "uf_loop", "uf_node", "unfreeze_partials",
};

const char *annotate_kernel_file(const char *function)
{
	for (size_t i = 0; i < sizeof kernel_files / sizeof kernel_files[0]; i++)
		if (!strcmp(kernel_files[i].fn, function))
			return kernel_files[i].file;
	for (size_t i = 0; i < sizeof page_alloc_fns / sizeof page_alloc_fns[0]; i++)
		if (!strcmp(page_alloc_fns[i], function))
			return "mm/page_alloc.c";
	for (size_t i = 0; i < sizeof slub_fns / sizeof slub_fns[0]; i++)
		if (!strcmp(slub_fns[i], function))
			return "mm/slub.c";
	return NULL;
}

static int db_err(sqlite3 *db, const char *dbname, struct diag *d)
{
	return diag_set(d, NS_EDB, dbname, 0, 0, "%s", sqlite3_errmsg(db));
}

struct run_info {
	char variant[160], kernel[160], machine[128];
	struct cpu_costs k;
	int have_costs;
	int ooo;                        /* the run's cost.model is ooo */
	int code, iter;                 /* its page allocator layout (enum mm_code,
					 * resolved) and zonelist iterator; -1:
					 * unknown (no blocks are attributed) */
	int slub_code, slub_variant;    /* SLUB's layout (resolved) and
					 * enum slub_variant; -1: no SLUB */
};

/*
 * The core cycles the run's timing model charged a site's branches
 * (cost/cpu.h): in-order, cpu_branch_cycles() (the clock's advance at
 * each branch, exactly); out of order (cpu_ooo_branch()), one fused uop
 * through dispatch (1/width cycle), the dispatch group a correctly
 * predicted taken branch ends (taken_branch cycles) and, per
 * mispredict, its resolution one cycle after its input and the refill
 * (1 + mispredict cycles).  The ooo figure leaves out the wait for the
 * branch's input (the dependent chain's loads), which stays in the
 * function's other cycles; taken branches are counted as predicted
 * except as many as were mispredicted (the site's counts do not say
 * which outcome a mispredict had).
 */
/*
 * The core cycles one execution of block b was charged for its
 * straight-line code (cost/cpu.h cpu_block()): in order, its uops at the
 * in-order rate and its declared accesses as L1 hits (cpu_block_init()'s
 * work + stall: what the block precharges; a miss's extra is memory);
 * out of order, its uops through dispatch (uops / width; the accesses'
 * latency overlaps or waits, which is memory).
 */
static double block_cycles(const struct run_info *ri, const struct mm_block_desc *b)
{
	if (ri->ooo)
		return (double)b->uops / (double)(ri->k.width ? ri->k.width : 1);
	struct cpu_block cb;
	if (cpu_block_init(&cb, b->uops, b->kinds, -1, &ri->k) != NS_OK)
		return 0;
	return (double)cb.work + (double)cb.stall;
}

static double site_cycles(const struct run_info *ri, uint64_t executed, uint64_t taken,
			  uint64_t mispredicted)
{
	if (!ri->have_costs)
		return 0;
	if (!ri->ooo)
		return (double)cpu_branch_cycles(&ri->k, executed, taken, mispredicted);
	uint64_t width = ri->k.width ? ri->k.width : 1;
	uint64_t taken_ok = taken > mispredicted ? taken - mispredicted : 0;
	return (double)executed / (double)width + (double)taken_ok * ri->k.taken_branch +
	       (double)mispredicted * (1.0 + ri->k.mispredict);
}

static int read_run(sqlite3 *db, const char *dbname, int64_t run, struct run_info *ri,
		    struct diag *d)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT r.variant, r.kernel_model, r.machine, i.content, "
			       "(SELECT value FROM params p WHERE p.run_id = r.run_id AND "
			       "p.key = 'cost.model'), (SELECT value FROM params p WHERE "
			       "p.run_id = r.run_id AND p.key = 'cost.code'), (SELECT value FROM "
			       "params p WHERE p.run_id = r.run_id AND p.key = "
			       "'kernel.zonelist_iter'), (SELECT value FROM params p WHERE "
			       "p.run_id = r.run_id AND p.key = 'kernel.slab_free_layout'), "
			       "(SELECT value FROM params p WHERE p.run_id = r.run_id AND p.key = "
			       "'kernel.compiler_layout'), (SELECT value FROM params p WHERE "
			       "p.run_id = r.run_id AND p.key = 'kernel.slub_stats') "
			       "FROM runs r LEFT JOIN inputs i ON "
			       "i.sha256 = r.machine_sha256 WHERE r.run_id = ?1", -1, &st,
			       NULL) != SQLITE_OK)
		return db_err(db, dbname, d);
	sqlite3_bind_int64(st, 1, run);
	int s = sqlite3_step(st), rc = NS_OK;
	if (s == SQLITE_ROW) {
		snprintf(ri->variant, sizeof ri->variant, "%s", sqlite3_column_text(st, 0));
		snprintf(ri->kernel, sizeof ri->kernel, "%s", sqlite3_column_text(st, 1));
		snprintf(ri->machine, sizeof ri->machine, "%s", sqlite3_column_text(st, 2));
		/* cost.model as the run stored it; a run of before the key was
		 * stored ran the in-order model (numasim 0.1.0) */
		const char *model = (const char *)sqlite3_column_text(st, 4);
		ri->ooo = model && !strcmp(model, "ooo");
		/* cost.code when given, else what MM_CODE_DEFAULT resolves to
		 * (models/page_alloc.h): compiled under ooo, estimate in order */
		const char *code = (const char *)sqlite3_column_text(st, 5);
		const char *iter = (const char *)sqlite3_column_text(st, 6);
		ri->code = code ? mm_code_parse(code)
				: ri->ooo ? MM_CODE_COMPILED : MM_CODE_ESTIMATE;
		ri->iter = iter ? mmzone_iter_parse(iter) : -1;
		/* SLUB's layout as slub_world_create() resolves it: cost.code
		 * when given, else compiled under ooo for gcc with stats on */
		const char *sv = (const char *)sqlite3_column_text(st, 7);
		const char *cc = (const char *)sqlite3_column_text(st, 8);
		const char *ss = (const char *)sqlite3_column_text(st, 9);
		ri->slub_variant = !sv ? -1 : strstr(sv, "pre") ? (int)SLUB_PRE
					    : slub_variant_parse(sv);
		int counted = cc && !strcmp(cc, "gcc") && ss && !strcmp(ss, "on");
		ri->slub_code = code ? mm_code_parse(code)
				     : ri->ooo && counted ? MM_CODE_COMPILED : MM_CODE_ESTIMATE;
		const char *text = (const char *)sqlite3_column_text(st, 3);
		struct machine *m = NULL;
		struct diag md;
		diag_init(&md);
		if (text && machine_load_buf(ri->machine, text, strlen(text), &m, &md) == NS_OK)
			ri->have_costs = cpu_costs_init(&ri->k, &m->costs) == NS_OK;
		/* the in-order figures leave width 0: the ooo core's own */
		if (ri->have_costs && m->costs.dispatch_width.value >= 1)
			ri->k.width = (uint32_t)m->costs.dispatch_width.value;
		machine_free(m);
	} else if (s == SQLITE_DONE) {
		rc = diag_set(d, NS_EINPUT, dbname, 0, 0, "no run %" PRId64 " in this database",
			      run);
	} else {
		rc = db_err(db, dbname, d);
	}
	sqlite3_finalize(st);
	return rc;
}

struct site_counts {
	uint64_t executed, taken, mispredicted;
};

/* The run's counts of site (zeros when it never executed). */
static int site_counts(sqlite3_stmt *st, int64_t run, const char *site,
		       struct site_counts *c)
{
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_text(st, 2, site, -1, SQLITE_STATIC);
	memset(c, 0, sizeof *c);
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW) {
		c->executed = (uint64_t)sqlite3_column_int64(st, 0);
		c->taken = (uint64_t)sqlite3_column_int64(st, 1);
		c->mispredicted = (uint64_t)sqlite3_column_int64(st, 2);
	}
	return s == SQLITE_ROW || s == SQLITE_DONE ? NS_OK : NS_EDB;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* "file:line" of a name where models/kcode_lines.h knows its line,
 * else the function's file. */
static void source_of(enum kcode_kind kind, const char *name, const char *file, char *buf,
		      size_t len)
{
	const char *release, *kfile;
	int line = kcode_line(kind, name, &release, &kfile);
	if (line > 0)
		snprintf(buf, len, "%s:%d", kfile, line);
	else  /* the file alone, without a note after it */
		snprintf(buf, len, "%.*s", file ? (int)strcspn(file, " ") : 1, file ? file : "?");
}

/* Block i of the run's models (the page allocator's MM_BLOCKS, then
 * SLUB's SLUB_BLOCKS) in the run's layouts: 0, or non-zero past the
 * last. */
static int block_describe(const struct run_info *ri, int i, struct mm_block_desc *b)
{
	int n = 0;
	if (ri->code > 0 && ri->iter >= 0) {
		n = mm_block_describe(i, (enum mm_code)ri->code, (enum mmzone_iter)ri->iter, b);
		if (!n)
			return 0;
	} else {
		struct mm_block_desc x;
		n = mm_block_describe(-1, MM_CODE_ESTIMATE, MMZONE_ITER_PRE, &x);
	}
	if (ri->slub_variant < 0)
		return 1;
	return slub_block_describe(i - n, (enum mm_code)ri->slub_code,
				   (enum slub_variant)ri->slub_variant, b);
}

/* Block `name` of the run's models into *b: 1 when found. */
static int block_find(const struct run_info *ri, const char *name, struct mm_block_desc *b)
{
	for (int i = 0; !block_describe(ri, i, b); i++)
		if (!strcmp(b->name, name))
			return 1;
	return 0;
}

/* SLUB's `!n` blocks of __slab_free (models/slub.c free_unlocked(),
 * enum slub_block), units of their own. */
static const struct {
	const char *unit, *what;
} nblocks[] = {
	{"nblock_frozen", "__slab_free's `!n` block, was_frozen (FREE_FROZEN)"},
	{"nblock_put", "__slab_free's `!n` block, new.frozen (put_cpu_partial)"},
	{"nblock_none", "__slab_free's `!n` block, neither"},
};

/* Is unit's code in function: the function of its exit site, or
 * __slab_free for a `!n` block. */
static int unit_in(const struct run_info *ri, const struct cost_tables *t, const char *unit,
		   const char *function)
{
	for (size_t i = 0; i < sizeof nblocks / sizeof nblocks[0]; i++)
		if (!strcmp(nblocks[i].unit, unit))
			return !strcmp(function, "__slab_free");
	struct mm_block_desc b;
	char fn[128];
	int sid = block_find(ri, unit, &b) && b.exit_site ? cost_site_lookup(t, b.exit_site) : -1;
	return sid >= 0 && cost_site_function(t->sites[sid], fn, sizeof fn) &&
	       !strcmp(fn, function);
}

/* A unit of work in a function's rows: a block's or one of SLUB's
 * `!n` blocks' (cost_register_units()). */
struct unit_row {
	char name[64];
	uint64_t executed;
	double cycles;                  /* as charged (recorded), or the estimate */
	char *booked;                   /* an inlined function's: the function
					 * its cycles are booked to (owned) */
};
struct units {
	int n;
	struct unit_row *u;
};

static void units_free(struct units *us)
{
	for (int i = 0; i < us->n; i++)
		free(us->u[i].booked);
	free(us->u);
	memset(us, 0, sizeof *us);
}

/* One block row: executions, core cycles, per call, what the block is
 * (its uops in the run's layout, accesses, exit site and its source). */
static void block_row(FILE *out, int w, const struct run_info *ri, const struct cost_tables *t,
		      const struct unit_row *u, uint64_t calls, int first, const char *function,
		      const char *file)
{
	if (first)
		fprintf(out, "%-*s %12s %54s %9s  %s\n", w, "block", "executed", "core cycles",
			"per call", "straight-line code charged as one unit");
	char what[512] = "";
	struct mm_block_desc b;
	for (size_t i = 0; i < sizeof nblocks / sizeof nblocks[0]; i++)
		if (!strcmp(nblocks[i].unit, u->name))
			snprintf(what, sizeof what, "%s", nblocks[i].what);
	if (!what[0] && block_find(ri, u->name, &b)) {
		char where[160] = "";
		int sid = b.exit_site ? cost_site_lookup(t, b.exit_site) : -1;
		char fn[128] = "";
		if (sid >= 0)
			cost_site_function(t->sites[sid], fn, sizeof fn);
		const char *efile = annotate_kernel_file(fn[0] ? fn : function);
		if (b.exit_site && (efile || kcode_line(KCODE_SITE, b.exit_site, &(const char *){0},
							&(const char *){0})))
			source_of(KCODE_SITE, b.exit_site, efile, where, sizeof where);
		snprintf(what, sizeof what, "%" PRIu32 " uops%s%s, ends at %s%s%s%s%s%s", b.uops,
			 b.kinds[0] ? ", accesses " : "", b.kinds,
			 b.exit_site ? b.exit_site : "a call, a return or the next block",
			 where[0] ? " (" : "", where, where[0] ? ")" : "",
			 fn[0] && strcmp(fn, function) ? ", in " : "",
			 fn[0] && strcmp(fn, function) ? fn : "");
	}
	if (!what[0])
		snprintf(what, sizeof what, "%s", file ? file : "?");
	double cyc = u->cycles;
	fprintf(out, "%-*s %12" PRIu64 " %54.0f %9.2f  %s%s%s\n", w, u->name, u->executed, cyc,
		calls ? cyc / (double)calls : 0, what, u->booked ? "; booked to " : "",
		u->booked ? u->booked : "");
}

/* The work units of function as the run recorded them (profile_work,
 * `numasim run --charges`), by cycles: booked to it; for a function the
 * run inlined, the units whose exit site is in it, booked to its
 * callers. */
static int read_units(sqlite3 *db, const char *dbname, const struct run_info *ri,
		      const struct cost_tables *t, int64_t run, const char *function,
		      struct units *us, struct diag *d)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT w.unit, w.executed, w.cycles, w.function FROM "
			       "profile_work w JOIN profile p USING (run_id, function) "
			       "WHERE w.run_id = ?1 AND (w.function = ?2 OR (SELECT inlined "
			       "FROM profile WHERE run_id = ?1 AND function = ?2) = 1) "
			       "ORDER BY w.cycles DESC, w.unit, w.function", -1, &st,
			       NULL) != SQLITE_OK) {
		/* a file of before schema 5 read-only has the table as TEMP: a
		 * failure here is a damaged file */
		return db_err(db, dbname, d);
	}
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_text(st, 2, function, -1, SQLITE_STATIC);
	int s, rc = NS_OK;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *unit = (const char *)sqlite3_column_text(st, 0);
		const char *fn = (const char *)sqlite3_column_text(st, 3);
		if (!unit || !fn)
			continue;
		if (strcmp(fn, function) && !unit_in(ri, t, unit, function))
			continue;
		struct unit_row *nu = realloc(us->u, (size_t)(us->n + 1) * sizeof *nu);
		if (!nu) {
			rc = NS_ENOMEM;
			break;
		}
		us->u = nu;
		struct unit_row *u = &us->u[us->n++];
		memset(u, 0, sizeof *u);
		snprintf(u->name, sizeof u->name, "%s", unit);
		u->executed = (uint64_t)sqlite3_column_int64(st, 1);
		u->cycles = (double)sqlite3_column_int64(st, 2);
		if (strcmp(fn, function))
			u->booked = strdup(fn);
	}
	if (rc == NS_OK && s != SQLITE_DONE)
		rc = db_err(db, dbname, d);
	sqlite3_finalize(st);
	return rc;
}

/* The function's recorded self cycles by charge kind (profile_charges,
 * `numasim run --charges`), in enum cpu_charge order; *have: any row. */
static int read_charges(sqlite3 *db, const char *dbname, int64_t run, const char *function,
			uint64_t kc[CPU_NR_CHARGES], int *have, struct diag *d)
{
	sqlite3_stmt *st;
	memset(kc, 0, CPU_NR_CHARGES * sizeof *kc);
	*have = 0;
	if (sqlite3_prepare_v2(db, "SELECT kind, cycles FROM profile_charges WHERE run_id = ?1 "
			       "AND function = ?2", -1, &st, NULL) != SQLITE_OK)
		return db_err(db, dbname, d);
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_text(st, 2, function, -1, SQLITE_STATIC);
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(st, 0);
		for (int k = 0; k < CPU_NR_CHARGES; k++)
			if (kind && !strcmp(kind, cpu_charge_name((enum cpu_charge)k)))
				kc[k] += (uint64_t)sqlite3_column_int64(st, 1);
		*have = 1;
	}
	sqlite3_finalize(st);
	return s == SQLITE_DONE ? NS_OK : db_err(db, dbname, d);
}

/* The charges section: each kind's recorded cycles, per call and share
 * of self; what the sites and blocks above estimate of branch and work. */
static void write_charges(FILE *out, const uint64_t kc[CPU_NR_CHARGES], uint64_t self,
			  uint64_t calls, double sites, double blocks, int recorded)
{
	fprintf(out, "\nSelf cycles by charge (recorded by run --charges: the clock's "
		"advance at each step of the run's timing model)\n");
	fprintf(out, "%-8s %12s %9s %7s  %s\n", "charge", "core cycles", "per call", "self%",
		"what");
	for (int k = 0; k < CPU_NR_CHARGES; k++) {
		fprintf(out, "%-8s %12" PRIu64 " %9.2f %7.2f  %s", cpu_charge_name((enum cpu_charge)k),
			kc[k], calls ? (double)kc[k] / (double)calls : 0, pct(kc[k], self),
			cpu_charge_desc((enum cpu_charge)k));
		if (k == CPU_CHARGE_branch)
			fprintf(out, " (the sites above: %.0f)", sites);
		else if (k == CPU_CHARGE_work && recorded)
			fprintf(out, " (the blocks above: %.0f, as charged; outside any "
				"block: %.0f)", blocks, (double)kc[k] - blocks);
		else if (k == CPU_CHARGE_work)
			fprintf(out, " (the blocks above: %.0f; the rest: blocks ending "
				"elsewhere, inlined callees)", blocks);
		fputc('\n', out);
	}
}

int annotate_write(sqlite3 *db, const char *dbname, const struct cost_tables *t,
		   int64_t run, const char *function, FILE *out, struct diag *d)
{
	struct run_info ri = {0};
	int rc = read_run(db, dbname, run, &ri, d);
	if (rc)
		return rc;
	if (cost_fn_lookup(t, function) < 0)
		return diag_set(d, NS_EINPUT, dbname, 0, 0, "no modelled function '%s'",
				function);
	/* the function's profile row (absent: never called in this run) */
	sqlite3_stmt *st;
	uint64_t calls = 0, self = 0, total = 0, run_self = 0;
	int inlined = -1;
	if (sqlite3_prepare_v2(db, "SELECT inlined, calls, self_cycles, total_cycles, "
			       "(SELECT sum(self_cycles) FROM profile WHERE run_id = ?1) "
			       "FROM profile WHERE run_id = ?1 AND function = ?2", -1, &st,
			       NULL) != SQLITE_OK)
		return db_err(db, dbname, d);
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_text(st, 2, function, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW) {
		inlined = sqlite3_column_int(st, 0);
		calls = (uint64_t)sqlite3_column_int64(st, 1);
		self = (uint64_t)sqlite3_column_int64(st, 2);
		total = (uint64_t)sqlite3_column_int64(st, 3);
		run_self = (uint64_t)sqlite3_column_int64(st, 4);
	}
	sqlite3_finalize(st);
	if (s != SQLITE_ROW && s != SQLITE_DONE)
		return db_err(db, dbname, d);
	const char *file = annotate_kernel_file(function);
	fprintf(out, "Annotate %s: run %" PRId64 " (%s) of %s\n", function, run, ri.variant,
		dbname);
	fprintf(out, "Kernel source: %s, %s(), kernel model %s\n", file ? file : "(unknown file)",
		function, ri.kernel);
	if (inlined < 0)
		fprintf(out, "Not called in this run.\n");
	else
		fprintf(out, "%s: %" PRIu64 " calls, self %" PRIu64 " core cycles (%.2f%% of "
			"the run's), total %" PRIu64 " core cycles, %.2f core cycles per call\n",
			inlined ? "Inlined (its cycles are its caller's)" : "Out of line", calls,
			self, pct(self, run_self), total, calls ? (double)total / (double)calls : 0);
	if (ri.have_costs && ri.ooo)
		fprintf(out, "Timing model of the run: ooo (cost.model), machine %s: a branch is "
			"1/%" PRIu32 " core cycle of dispatch, +%" PRIu32 " a predicted taken one, "
			"+1+%" PRIu32 " a mispredicted one (resolve, refill); its input's wait is "
			"in other\n", ri.machine, ri.k.width ? ri.k.width : 1, ri.k.taken_branch,
			ri.k.mispredict);
	else if (ri.have_costs)
		fprintf(out, "Timing model of the run: inorder (cost.model), machine %s: %" PRIu32
			" per branch, +%" PRIu32 " taken, +%" PRIu32 " mispredicted (core "
			"cycles)\n", ri.machine, ri.k.branch, ri.k.taken_branch, ri.k.mispredict);
	fputc('\n', out);
	if (sqlite3_prepare_v2(db, "SELECT executed, taken, mispredicted FROM branches "
			       "WHERE run_id = ?1 AND site = ?2", -1, &st, NULL) != SQLITE_OK)
		return db_err(db, dbname, d);
	/* the recorded units of work (run --charges) */
	struct units us = {0};
	if ((rc = read_units(db, dbname, &ri, t, run, function, &us, d))) {
		sqlite3_finalize(st);
		return rc;
	}
	int w = 11;             /* the name column: the longest name, "branch-rest" */
	for (int i = 0; i < t->nr_sites; i++) {
		char fn[128];
		int n = (int)strlen(t->sites[i]->name);
		if (cost_site_function(t->sites[i], fn, sizeof fn) && !strcmp(fn, function))
			w = n > w ? n : w;
	}
	for (int i = 0; i < us.n; i++)
		w = (int)strlen(us.u[i].name) > w ? (int)strlen(us.u[i].name) : w;
	struct mm_block_desc bd;
	for (int i = 0; !us.n && !block_describe(&ri, i, &bd); i++)
		if (unit_in(&ri, t, bd.name, function))
			w = (int)strlen(bd.name) > w ? (int)strlen(bd.name) : w;
	fprintf(out, "%-*s %12s %12s %7s %12s %7s %12s %9s  %s\n", w, "site", "executed", "taken",
		"taken%", "mispredicted", "miss%", "core cycles", "per call",
		"source: condition");
	double sum_cycles = 0;
	int nsites = 0;
	for (int i = 0; i < t->nr_sites && rc == NS_OK; i++) {
		char fn[128];
		if (!cost_site_function(t->sites[i], fn, sizeof fn) || strcmp(fn, function))
			continue;
		struct site_counts c;
		if (site_counts(st, run, t->sites[i]->name, &c)) {
			rc = db_err(db, dbname, d);
			break;
		}
		double cyc = site_cycles(&ri, c.executed, c.taken, c.mispredicted);
		sum_cycles += cyc;
		nsites++;
		char where[160];
		source_of(KCODE_SITE, t->sites[i]->name, file, where, sizeof where);
		fprintf(out, "%-*s %12" PRIu64 " %12" PRIu64 " %7.2f %12" PRIu64 " %7.2f %12.0f"
			" %9.2f  %s: %s\n", w, t->sites[i]->name, c.executed, c.taken,
			pct(c.taken, c.executed), c.mispredicted, pct(c.mispredicted, c.executed),
			cyc, calls ? cyc / (double)calls : 0, where, t->sites[i]->desc);
	}
	/* the blocks that end at a site of this function, executions its
	 * exit site's (every block, when the run recorded its units: then
	 * each unit's executions and cycles as charged) */
	int nblk = 0;
	double block_sum = 0;
	if (rc == NS_OK && us.n) {
		/* as charged: booked to the function, or for an inlined one to
		 * its callers (then not part of its self cycles) */
		for (int i = 0; i < us.n; i++) {
			block_row(out, w, &ri, t, &us.u[i], calls, nblk++ == 0, function, file);
			block_sum += inlined == 0 ? us.u[i].cycles : 0;
		}
	} else {
		for (int i = 0; rc == NS_OK && nsites && ri.have_costs; i++) {
			struct mm_block_desc b;
			if (block_describe(&ri, i, &b))
				break;
			int sid = b.exit_site ? cost_site_lookup(t, b.exit_site) : -1;
			char fn[128];
			if (sid < 0 || !cost_site_function(t->sites[sid], fn, sizeof fn) ||
			    strcmp(fn, function))
				continue;
			struct site_counts c;
			if (site_counts(st, run, b.exit_site, &c)) {
				rc = db_err(db, dbname, d);
				break;
			}
			struct unit_row u = {.executed = c.executed,
					     .cycles = block_cycles(&ri, &b) * (double)c.executed,
					     .booked = NULL};
			snprintf(u.name, sizeof u.name, "%s", b.name);
			block_row(out, w, &ri, t, &u, calls, nblk++ == 0, function, file);
			sum_cycles += u.cycles;
			block_sum += u.cycles;
		}
	}
	sqlite3_finalize(st);
	if (rc) {
		units_free(&us);
		return rc;
	}
	int recorded = us.n > 0;
	units_free(&us);
	uint64_t kc[CPU_NR_CHARGES];
	int have_kc;
	if ((rc = read_charges(db, dbname, run, function, kc, &have_kc, d)))
		return rc;
	if (!nsites)
		fprintf(out, "(no branch sites are modelled in %s)\n", function);
	if (have_kc && inlined == 0) {
		/* the recorded split: branch in the sites' place, work in the
		 * units' (as charged when the run recorded them), what remains
		 * of them named, other what no step booked */
		double sites = sum_cycles - (recorded ? 0 : block_sum);
		double rest_b = (double)kc[CPU_CHARGE_branch] - sites;
		double rest_w = (double)kc[CPU_CHARGE_work] - block_sum;
		static const int named[] = {CPU_CHARGE_mem, CPU_CHARGE_call, CPU_CHARGE_lock};
		fprintf(out, "%-*s %12s %54.0f %9.2f  branch charges beyond the sites' "
			"estimate: inlined callees' sites; under ooo the wait for an "
			"input\n", w, "branch-rest", "", rest_b, calls ? rest_b / (double)calls : 0);
		fprintf(out, "%-*s %12s %54.0f %9.2f  %s\n", w, "work-rest", "", rest_w,
			calls ? rest_w / (double)calls : 0, recorded ?
			"straight-line work booked outside any block (work rows that are "
			"not blocks: reclaim's, the scheduler's)" :
			"straight-line work outside the blocks above (run with --charges "
			"of this version to book it per block)");
		for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
			fprintf(out, "%-*s %12s %54" PRIu64 " %9.2f  %s\n", w,
				cpu_charge_name((enum cpu_charge)named[i]), "", kc[named[i]],
				calls ? (double)kc[named[i]] / (double)calls : 0,
				cpu_charge_desc((enum cpu_charge)named[i]));
		fprintf(out, "%-*s %12s %54" PRIu64 " %9.2f  %s\n", w, "other", "",
			kc[CPU_CHARGE_other], calls ? (double)kc[CPU_CHARGE_other] /
			(double)calls : 0, cpu_charge_desc(CPU_CHARGE_other));
		write_charges(out, kc, self, calls, sites, block_sum, recorded);
	} else if (nsites && inlined == 0) {
		double rest = (double)self > sum_cycles ? (double)self - sum_cycles : 0;
		fprintf(out, "%-*s %12s %54.0f %9.2f  the rest of the self cycles: %s\n", w,
			"other", "", rest, calls ? rest / (double)calls : 0, nblk ?
			(ri.ooo ? "memory and the waits for it, calls, blocks ending elsewhere, "
				  "inlined callees" :
				  "memory beyond L1 hits, calls, blocks ending elsewhere, inlined "
				  "callees") :
			"straight-line work, memory, calls, inlined callees");
		fprintf(out, "(run with --charges to split the self cycles by charge: "
			"branch, work per block, mem, call, lock)\n");
	}
	return ferror(out) ? NS_EIO : NS_OK;
}
