-- Schema version 1 -> 2: the v_* views, the stable query interface of
-- `numasim query` and `export` (docs/reference/schema.md "Views for queries"):
-- every child table with the identity of its run (the same ten columns
-- first), so queries need no join.  Views only: a read-only connection to
-- a version-1 file creates the same views as TEMP views (analysis/store.c,
-- temp_views()), so this step must stay views-only.  The generator's
-- rules are in v1.sql.

CREATE VIEW v_runs AS
SELECT r.run_id, r.scenario, r.point, r.repetition, r.seed, r.machine,
       r.workload, r.variant, r.kernel_model, r.status,
       r.scenario_file, r.scenario_sha256, r.machine_file,
       r.machine_sha256, r.tool_version, r.host, r.command,
       r.invocation, r.started, r.finished, r.duration_s, r.message,
       p.params, p.params_json
FROM runs r JOIN run_params p ON p.run_id = r.run_id;

CREATE VIEW v_params AS
SELECT r.run_id, r.scenario, r.point, r.repetition, r.seed, r.machine,
       r.workload, r.variant, r.kernel_model, r.status, p.key, p.value
FROM runs r JOIN params p ON p.run_id = r.run_id;

CREATE VIEW v_metrics AS
SELECT r.run_id, r.scenario, r.point, r.repetition, r.seed, r.machine,
       r.workload, r.variant, r.kernel_model, r.status, m.name, m.value, m.unit
FROM runs r JOIN metrics m ON m.run_id = r.run_id;

CREATE VIEW v_samples AS
SELECT r.run_id, r.scenario, r.point, r.repetition, r.seed, r.machine,
       r.workload, r.variant, r.kernel_model, r.status, s.metric, s.idx, s.value
FROM runs r JOIN samples s ON s.run_id = r.run_id;

CREATE VIEW v_counters AS
SELECT r.run_id, r.scenario, r.point, r.repetition, r.seed, r.machine,
       r.workload, r.variant, r.kernel_model, r.status, c.scope, c.scope_id, c.node, c.cpu, c.object,
       c.name, c.value
FROM runs r JOIN counter_values c ON c.run_id = r.run_id;

CREATE VIEW v_profile AS
SELECT r.run_id, r.scenario, r.point, r.repetition, r.seed, r.machine,
       r.workload, r.variant, r.kernel_model, r.status, p.function, p.inlined, p.calls, p.self_cycles,
       p.total_cycles, p.self_pct, p.cycles_per_call
FROM runs r JOIN profile_report p ON p.run_id = r.run_id;

CREATE VIEW v_branches AS
SELECT r.run_id, r.scenario, r.point, r.repetition, r.seed, r.machine,
       r.workload, r.variant, r.kernel_model, r.status, b.site, b.function, b.fallthrough, b.executed,
       b.taken, b.mispredicted, b.cond_true, b.taken_pct,
       b.mispredict_pct
FROM runs r JOIN branch_stats b ON b.run_id = r.run_id;
