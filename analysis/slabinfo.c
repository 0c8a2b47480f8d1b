/* slabinfo -r's statistics tables from the stored SLUB counters; see slabinfo.h. */
#include "analysis/slabinfo.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "models/slub.h"

/* The counters slab_stats() reads, in enum order (sysfs names). */
#define SI_ITEMS(X)                                                            \
	X(alloc_fastpath) X(alloc_slowpath) X(free_fastpath) X(free_slowpath)  \
	X(free_frozen) X(free_add_partial) X(free_remove_partial)              \
	X(alloc_from_partial) X(alloc_slab) X(alloc_refill)                    \
	X(alloc_node_mismatch) X(free_slab) X(cpuslab_flush)                   \
	X(deactivate_full) X(deactivate_empty) X(deactivate_to_head)           \
	X(deactivate_to_tail) X(deactivate_remote_frees) X(deactivate_bypass)  \
	X(cmpxchg_double_fail) X(cmpxchg_double_cpu_fail) X(cpu_partial_alloc) \
	X(cpu_partial_free)

struct si {
#define SI_FIELD(n) unsigned long n;
	SI_ITEMS(SI_FIELD)
#undef SI_FIELD
	unsigned long where[SLUB_NR_WHERE];
	int has_where;
};

static int set_item(struct si *s, const char *name, unsigned long v)
{
#define SI_SET(n)                                                              \
	if (!strcmp(name, #n)) {                                               \
		s->n = v;                                                      \
		return 1;                                                      \
	}
	SI_ITEMS(SI_SET)
#undef SI_SET
	for (int i = 0; i < SLUB_NR_WHERE; i++)
		if (!strcmp(name, slub_where_name((enum slub_where)i))) {
			s->where[i] = v;
			s->has_where = 1;
			return 1;
		}
	return 0;
}

/* slab_stats() of tools/vm/slabinfo.c, its formats and integer arithmetic. */
static void slab_stats(FILE *f, const struct si *s)
{
	if (!s->alloc_slab)
		return;
	unsigned long total_alloc = s->alloc_fastpath + s->alloc_slowpath;
	unsigned long total_free = s->free_fastpath + s->free_slowpath;
	if (!total_alloc)
		return;
#define PCT(x, t) ((t) ? (x) * 100 / (t) : 0)
	fprintf(f, "\nSlab Perf Counter       Alloc     Free %%Al %%Fr\n");
	fprintf(f, "--------------------------------------------------\n");
	fprintf(f, "Fastpath             %8lu %8lu %3lu %3lu\n", s->alloc_fastpath,
		s->free_fastpath, PCT(s->alloc_fastpath, total_alloc),
		PCT(s->free_fastpath, total_free));
	fprintf(f, "Slowpath             %8lu %8lu %3lu %3lu\n", total_alloc - s->alloc_fastpath,
		s->free_slowpath, PCT(total_alloc - s->alloc_fastpath, total_alloc),
		PCT(s->free_slowpath, total_free));
	fprintf(f, "Page Alloc           %8lu %8lu %3lu %3lu\n", s->alloc_slab, s->free_slab,
		PCT(s->alloc_slab, total_alloc), PCT(s->free_slab, total_free));
	unsigned long add = s->deactivate_to_head + s->deactivate_to_tail;
	fprintf(f, "Add partial          %8lu %8lu %3lu %3lu\n", add, s->free_add_partial,
		PCT(add, total_alloc), PCT(s->free_add_partial, total_free));
	fprintf(f, "Remove partial       %8lu %8lu %3lu %3lu\n", s->alloc_from_partial,
		s->free_remove_partial, PCT(s->alloc_from_partial, total_alloc),
		PCT(s->free_remove_partial, total_free));
	fprintf(f, "Cpu partial list     %8lu %8lu %3lu %3lu\n", s->cpu_partial_alloc,
		s->cpu_partial_free, PCT(s->cpu_partial_alloc, total_alloc),
		PCT(s->cpu_partial_free, total_free));
	fprintf(f, "RemoteObj/SlabFrozen %8lu %8lu %3lu %3lu\n", s->deactivate_remote_frees,
		s->free_frozen, PCT(s->deactivate_remote_frees, total_alloc),
		PCT(s->free_frozen, total_free));
	fprintf(f, "Total                %8lu %8lu\n\n", total_alloc, total_free);
	if (s->cpuslab_flush)
		fprintf(f, "Flushes %8lu\n", s->cpuslab_flush);
	unsigned long total = s->deactivate_full + s->deactivate_empty + s->deactivate_to_head +
			      s->deactivate_to_tail + s->deactivate_bypass;
	if (total) {
		fprintf(f, "\nSlab Deactivation             Ocurrences  %%\n");
		fprintf(f, "-------------------------------------------------\n");
		const struct {
			const char *label;
			unsigned long v;
		} rows[] = {
			{"Slab full                    ", s->deactivate_full},
			{"Slab empty                   ", s->deactivate_empty},
			{"Moved to head of partial list", s->deactivate_to_head},
			{"Moved to tail of partial list", s->deactivate_to_tail},
			{"Deactivation bypass          ", s->deactivate_bypass},
			{"Refilled from foreign frees  ", s->alloc_refill},
			{"Node mismatch                ", s->alloc_node_mismatch},
		};
		for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
			fprintf(f, "%s %7lu  %3lu%%\n", rows[i].label, rows[i].v,
				rows[i].v * 100 / total);
	}
	if (s->cmpxchg_double_fail || s->cmpxchg_double_cpu_fail)
		fprintf(f, "\nCmpxchg_double Looping\n------------------------\n"
			   "Locked Cmpxchg Double redos   %lu\nUnlocked Cmpxchg Double redos %lu\n",
			s->cmpxchg_double_fail, s->cmpxchg_double_cpu_fail);
#undef PCT
}

/* The model's where_* counters: not slabinfo's. */
static void where_table(FILE *f, const struct si *s)
{
	if (!s->has_where || !s->free_slowpath)
		return;
	fprintf(f, "\nModel only (numasim where_* counters): the slab at each slow-path free\n");
	fprintf(f, "------------------------------------------------------------------------\n");
	for (int i = 0; i < SLUB_NR_WHERE; i++)
		fprintf(f, "%-24s %9lu  %5.1f%%  %s\n", slub_where_name((enum slub_where)i),
			s->where[i], 100.0 * (double)s->where[i] / (double)s->free_slowpath,
			slub_where_desc((enum slub_where)i));
}

static int db_err(sqlite3 *db, struct diag *d, const char *path)
{
	return diag_set(d, NS_EDB, path, 0, 0, "cannot read the counters: %s", sqlite3_errmsg(db));
}

/* NS_ENOENT naming the caches the database has counters of. */
static int no_cache(sqlite3 *db, const char *path, const char *cache, struct diag *d)
{
	sqlite3_stmt *st = NULL;
	char list[512];
	size_t used = 0;
	list[0] = 0;
	if (sqlite3_prepare_v2(db, "SELECT DISTINCT scope_id FROM counters WHERE scope = 'cache' "
				   "AND name = 'alloc_slab' AND value > 0 ORDER BY scope_id",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(db, d, path);
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW && used < sizeof list)
		used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "",
					 (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (s != SQLITE_ROW && s != SQLITE_DONE)
		return db_err(db, d, path);
	if (!used)
		return diag_set(d, NS_ENOENT, path, 0, 0, "no SLUB counters of cache '%s' "
				"(the database has no slab allocations)", cache);
	return diag_set(d, NS_ENOENT, path, 0, 0, "no SLUB counters of cache '%s' (caches "
			"with slabs: %s)", cache, list);
}

/* The counters of one run into *si; *found 0 when it has none of the cache. */
static int load_run(sqlite3 *db, sqlite3_stmt *ctr, const char *path, int64_t run_id,
		    const char *cache, struct si *si, int *found, struct diag *d)
{
	memset(si, 0, sizeof *si);
	*found = 0;
	sqlite3_reset(ctr);
	sqlite3_bind_int64(ctr, 1, run_id);
	sqlite3_bind_text(ctr, 2, cache, -1, SQLITE_STATIC);
	int c;
	while ((c = sqlite3_step(ctr)) == SQLITE_ROW) {
		set_item(si, (const char *)sqlite3_column_text(ctr, 0),
			 (unsigned long)sqlite3_column_int64(ctr, 1));
		*found = 1;
	}
	return c == SQLITE_DONE ? NS_OK : db_err(db, d, path);
}

static const char ctr_sql[] =
	"SELECT name, value FROM counters WHERE run_id = ?1 AND scope = 'cache' "
	"AND scope_id = ?2";

int slabinfo_print_run(sqlite3 *db, const char *path, int64_t run_id, const char *cache,
		       FILE *f, struct diag *d)
{
	sqlite3_stmt *ctr = NULL;
	struct si si;
	int found, rc;
	if (sqlite3_prepare_v2(db, ctr_sql, -1, &ctr, NULL) != SQLITE_OK)
		return db_err(db, d, path);
	rc = load_run(db, ctr, path, run_id, cache, &si, &found, d);
	sqlite3_finalize(ctr);
	if (rc == NS_OK && found) {
		slab_stats(f, &si);
		where_table(f, &si);
	}
	return rc;
}

int slabinfo_wanted(sqlite3 *db, const int64_t *run_ids, int n, int *out, struct diag *d)
{
	sqlite3_stmt *st = NULL;
	int rc = NS_OK;
	*out = 0;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM params WHERE run_id = ?1 AND key = "
				   "'kernel.slub_cpu_partial' AND value <> 'v5.9'",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(db, d, "DB");
	for (int i = 0; i < n && !*out && rc == NS_OK; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, run_ids[i]);
		int s = sqlite3_step(st);
		if (s == SQLITE_ROW)
			*out = 1;
		else if (s != SQLITE_DONE)
			rc = db_err(db, d, "DB");
	}
	sqlite3_finalize(st);
	return rc;
}

int slabinfo_report(sqlite3 *db, const char *path, const char *cache, FILE *f, struct diag *d)
{
	static const char runs_sql[] =
		"SELECT run_id, point, repetition, variant FROM runs WHERE EXISTS (SELECT 1 "
		"FROM counters c WHERE c.run_id = runs.run_id AND c.scope = 'cache' AND "
		"c.scope_id = ?1) ORDER BY run_id";
	sqlite3_stmt *runs = NULL, *ctr = NULL;
	char *buf = NULL;
	size_t len = 0;
	int rc = NS_OK, found = 0, s;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return diag_set(d, NS_ENOMEM, path, 0, 0, "out of memory");
	if (sqlite3_prepare_v2(db, runs_sql, -1, &runs, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, ctr_sql, -1, &ctr, NULL) != SQLITE_OK) {
		rc = db_err(db, d, path);
		goto out;
	}
	sqlite3_bind_text(runs, 1, cache, -1, SQLITE_STATIC);
	while ((s = sqlite3_step(runs)) == SQLITE_ROW) {
		struct si si;
		int has;
		if ((rc = load_run(db, ctr, path, sqlite3_column_int64(runs, 0), cache, &si, &has,
				   d)))
			goto out;
		fprintf(m, "%sSlabcache: %-20s  run %lld, point %d, repetition %d: %s\n",
			found ? "\n" : "", cache, (long long)sqlite3_column_int64(runs, 0),
			sqlite3_column_int(runs, 1), sqlite3_column_int(runs, 2),
			(const char *)sqlite3_column_text(runs, 3));
		found++;
		slab_stats(m, &si);
		where_table(m, &si);
	}
	if (s != SQLITE_DONE)
		rc = db_err(db, d, path);
	else if (!found)
		rc = no_cache(db, path, cache, d);
out:
	sqlite3_finalize(runs);
	sqlite3_finalize(ctr);
	fclose(m);
	if (rc == NS_OK)
		fwrite(buf, 1, len, f);
	free(buf);
	return rc;
}
