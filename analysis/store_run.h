/*
 * store_run — the runs of the results database: one run's transaction,
 * group commit, and the rows a run writes (params, metrics, samples,
 * counters, profile, call paths, branches).  Not a kernel model: the
 * tables are docs/reference/schema.md's, created by analysis/schema/vN.sql.  Every
 * caller includes analysis/store.h, which includes this header; opening,
 * closing and checking a store are there.
 *
 * One run = one transaction: store_run_begin() takes the write lock
 * (BEGIN IMMEDIATE) and inserts the run row with status 'running', the row
 * functions add its params, metrics, samples, counters, profile, call-path
 * and branch rows, and store_run_commit() (status 'ok') or store_run_fail() (status
 * 'failed' plus a message, keeping the partial diagnostics) commit it.  A
 * run that is aborted, that hits an error while its rows are written, or
 * whose process dies before the commit leaves the database exactly as it
 * was: the database is in WAL mode with synchronous=FULL, so committed runs
 * survive crashes and power loss, and 'running' is never visible to
 * readers.  Callers should simulate first and write the results in one
 * burst, so the write lock is held only for the time the rows take.
 * store_set_group() lets several runs share one transaction (group
 * commit; see its comment below).
 *
 * Invariants (store_check, analysis/store.h): a run transaction is open
 * exactly when store_open_run() != 0 or a group is open; a read-only
 * store never has one; a group holds fewer finished runs than its
 * max_runs; outside a run no committed row has status 'running' and every
 * child row references an existing run.
 *
 * Error policy: every function returns an NS_* status and records the
 * first error in the store's diag (analysis/store.h).  NS_EDB: SQLite
 * failed (I/O, lock timeout, constraint); NS_EINTERNAL: API misuse (a row
 * for a run that is not open, a NULL or malformed argument); NS_ERANGE: a
 * value SQLite cannot hold (a uint64 above INT64_MAX).  An error while a
 * run is being written rolls that run back: the run is gone and later
 * rows for it fail with NS_EINTERNAL.
 *
 * The row functions reuse statements prepared at open and allocate
 * nothing themselves, so writing ~1e5 sample rows per run is cheap
 * (several 1e5 rows/s including the durable commit).
 */
#ifndef NUMASIM_STORE_RUN_H
#define NUMASIM_STORE_RUN_H

#include <stddef.h>
#include <stdint.h>

struct store;

/*
 * Counter scopes and how their scope_id is formed from (id, key) in
 * store_counter().  Cache names never contain '/' (they are sysfs
 * directory names), zone names are the kernel's (DMA, DMA32, Normal,
 * Movable).
 *   system      scope_id 0           (id 0, key NULL)   whole machine
 *   node        scope_id = id        (key NULL)         NUMA node
 *   cpu         scope_id = id        (key NULL)         simulated CPU
 *   zone        "id/key"  "0/Normal" (id node, key zone name)
 *   cache       "key"     "kmalloc-64" (id ignored, pass -1)
 *   cache_node  "key/id"  "kmalloc-64/1" (kmem_cache_node of node id)
 *   cache_cpu   "key/id"  "kmalloc-64/3" (kmem_cache_cpu of cpu id)
 */
#define STORE_SCOPE_MAP(X)                                                     \
	X(SYSTEM, "system")                                                    \
	X(NODE, "node")                                                        \
	X(CPU, "cpu")                                                          \
	X(ZONE, "zone")                                                        \
	X(CACHE, "cache")                                                      \
	X(CACHE_NODE, "cache_node")                                            \
	X(CACHE_CPU, "cache_cpu")

enum store_scope {
#define STORE_SCOPE_ENUM(name, str) STORE_SCOPE_##name,
	STORE_SCOPE_MAP(STORE_SCOPE_ENUM)
#undef STORE_SCOPE_ENUM
	STORE_SCOPE_COUNT
};

/* "node", "cache_cpu", ...; NULL for a value outside the enum. */
const char *store_scope_name(enum store_scope scope);

/*
 * What a run is: its identity and provenance (design principle 8).  The
 * strings are copied into the database during store_run_begin() and need
 * not outlive the call.  Required: scenario, scenario_sha256, machine,
 * machine_sha256, workload, variant, kernel_model (non-empty; the hashes
 * are 64 lowercase hex digits of the files' SHA-256).  Optional fields
 * may be NULL (or 0 for started_ns).  A *_text given must hash to its
 * *_sha256 (checked; NS_EINTERNAL otherwise): it is kept once per content
 * in the `inputs` table so a database alone can reproduce its runs.
 */
struct store_run_info {
	const char *scenario;        /* scenario name */
	const char *scenario_file;   /* path as given on the command line */
	const char *scenario_sha256; /* SHA-256 of the scenario file's bytes */
	const char *scenario_text;   /* its content, kept in `inputs`, or NULL */
	int64_t point;               /* sweep point index, >= 0 */
	int64_t repetition;          /* repetition index, >= 0 */
	uint64_t seed;               /* the run's RNG seed, <= INT64_MAX */
	const char *machine;         /* machine name */
	const char *machine_file;
	const char *machine_sha256;
	const char *machine_text;
	const char *workload;        /* "pagealloc", "messaging", ... */
	const char *variant;         /* e.g. "zonelist_iter=682a3385" */
	const char *kernel_model;    /* e.g. "v4.6+682a3385" */
	const char *tool_version;    /* NULL: NUMASIM_VERSION */
	const char *host;            /* NULL: this host's name */
	const char *command;         /* the command line, or NULL */
	const char *invocation;      /* groups the runs of one command; NULL:
					"host:pid:open-time" of this store */
	int64_t started_ns;          /* CLOCK_REALTIME ns; 0: now */
};

struct store_profile_row {
	const char *function; /* modelled function, kernel name */
	int inlined;          /* 1 if inlined in this run's code layout */
	uint64_t calls;
	uint64_t self_cycles;  /* cycles in the function itself */
	uint64_t total_cycles; /* self + callees; >= self_cycles */
};

/* One call path of the simulated profile (table profile_paths). */
struct store_path_row {
	int64_t path_id;       /* >= 1 */
	int64_t parent_id;     /* 0: called from outside; else < path_id */
	const char *function;  /* the path's innermost function */
	uint64_t calls;        /* out-of-line calls that entered the path */
	uint64_t self_cycles;  /* cycles with this path innermost */
	uint64_t mispredicted; /* conditional mispredicts with it innermost */
};

struct store_branch_row {
	const char *site;     /* stable site name: "A18", "S5", ... */
	const char *function; /* enclosing modelled function, or NULL */
	int fallthrough;      /* condition value that falls through in this
				 layout: 0 or 1; -1 unknown */
	uint64_t executed;
	uint64_t taken;        /* times the branch jumped (<= executed) */
	uint64_t mispredicted; /* <= executed */
};

/* Start a run: BEGIN IMMEDIATE, insert its row; *run_id is its id. */
int store_run_begin(struct store *s, const struct store_run_info *info,
		    int64_t *run_id);
/* Mark run_id 'ok', set finished, commit. */
int store_run_commit(struct store *s, int64_t run_id);
/* Mark run_id 'failed' with message (non-empty), keep its rows, commit. */
int store_run_fail(struct store *s, int64_t run_id, const char *message);
/* Roll the open run back (no-op returning NS_OK when none is open). */
int store_run_abort(struct store *s);
/* The run whose transaction is open, 0 if none. */
int64_t store_open_run(const struct store *s);

/*
 * Group commit: up to max_runs finished runs share one transaction (one
 * fsync), each run a savepoint in it, so aborting or failing a run keeps
 * the group's other runs; the group commits when it holds max_runs runs,
 * when a run finishes max_ms (> 0) or more after the group's first, at
 * store_flush() and at store_close().  max_runs 1 (the default): every
 * run is its own transaction, as described at the top.  A crash loses
 * the open group's runs, whole.  Flushes the open group first.
 */
int store_set_group(struct store *s, int max_runs, int max_ms);
/* Commit the open group (NS_OK when none is open; NS_EINTERNAL while a
 * run is open).  NS_EDB when the commit fails, or when finished runs of
 * a group were rolled back by SQLite since the last flush (an I/O error
 * during a later run): the message says how many. */
int store_flush(struct store *s);
/* Finished runs waiting in the open group (0 when none is open). */
int store_group_runs(const struct store *s);
/* CLOCK_MONOTONIC nanoseconds at which the open group is due by max_ms;
 * 0 when no group with finished runs is open or there is no time bound. */
int64_t store_group_deadline_ns(const struct store *s);

/* params: flattened scenario values; a NULL value stores SQL NULL. */
int store_param(struct store *s, int64_t run_id, const char *key,
		const char *value);
int store_param_int(struct store *s, int64_t run_id, const char *key,
		    int64_t value);
int store_param_real(struct store *s, int64_t run_id, const char *key,
		     double value);
/* A named scalar result; NaN is stored as NULL (undefined). */
int store_metric(struct store *s, int64_t run_id, const char *name,
		 double value, const char *unit);
/* One sample of a series (idx >= 0); NaN is refused. */
int store_sample(struct store *s, int64_t run_id, const char *metric,
		 int64_t idx, double value);
/* n samples with idx 0..n-1. */
int store_samples(struct store *s, int64_t run_id, const char *metric,
		  const double *values, size_t n);
/* A kernel-named counter; (id, key) form scope_id as listed above. */
int store_counter(struct store *s, int64_t run_id, enum store_scope scope,
		  int64_t id, const char *key, const char *name, int64_t value);
int store_profile(struct store *s, int64_t run_id,
		  const struct store_profile_row *row);
/* One row of profile_charges: a function's self cycles of one charge
 * kind (cost/cpu.h enum cpu_charge), `numasim run --charges`. */
int store_profile_charge(struct store *s, int64_t run_id, const char *function,
			 const char *kind, uint64_t cycles);
/* One row of profile_work: a function's work cycles charged to one unit
 * of straight-line code and its executions (cost/cpu.h struct
 * cpu_unit_row), `numasim run --charges`; executed > 0. */
int store_profile_work(struct store *s, int64_t run_id, const char *function,
		       const char *unit, uint64_t executed, uint64_t cycles);
int store_branch(struct store *s, int64_t run_id,
		 const struct store_branch_row *row);
int store_call_path(struct store *s, int64_t run_id, const struct store_path_row *row);

#endif
