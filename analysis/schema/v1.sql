-- Schema version 0 -> 1: the whole schema of a new results database
-- (docs/reference/schema.md documents every table, view and column here).
--
-- This file is SQL as numasim runs it: scripts/sql2c.py embeds it at build
-- time (analysis/meson.build), one C string per statement, and the store
-- runs the statements in order (analysis/store.c, migrate()).  SQLite
-- keeps each CREATE statement's text in the file's schema, byte for byte,
-- so an edit here changes every new database: a change to a released
-- version's file is a new migration (analysis/schema/vN.sql and
-- STORE_SCHEMA_VERSION), never an edit of this one.  Rules of the
-- generator: comments ("--" lines) and blank lines go between statements
-- only (inside one SQLite would store them); a statement ends with the
-- line whose last character is ";".  The unit CHECK of `metrics` holds a
-- space and a TAB character (byte 9) between its brackets.

CREATE TABLE schema_version (
  version      INTEGER NOT NULL PRIMARY KEY CHECK (version >= 1),
  applied      TEXT    NOT NULL,
  tool_version TEXT    NOT NULL
) STRICT;

CREATE TABLE inputs (
  sha256  TEXT NOT NULL PRIMARY KEY CHECK (length(sha256) = 64 AND sha256 NOT GLOB '*[^0-9a-f]*'),
  kind    TEXT NOT NULL CHECK (kind IN ('machine', 'scenario')),
  path    TEXT,
  content TEXT NOT NULL
) STRICT;

CREATE TABLE runs (
  run_id          INTEGER PRIMARY KEY AUTOINCREMENT,
  scenario        TEXT    NOT NULL CHECK (scenario <> ''),
  scenario_file   TEXT,
  scenario_sha256 TEXT    NOT NULL CHECK (length(scenario_sha256) = 64 AND scenario_sha256 NOT GLOB '*[^0-9a-f]*'),
  point           INTEGER NOT NULL CHECK (point >= 0),
  repetition      INTEGER NOT NULL CHECK (repetition >= 0),
  seed            INTEGER NOT NULL CHECK (seed >= 0),
  machine         TEXT    NOT NULL CHECK (machine <> ''),
  machine_file    TEXT,
  machine_sha256  TEXT    NOT NULL CHECK (length(machine_sha256) = 64 AND machine_sha256 NOT GLOB '*[^0-9a-f]*'),
  workload        TEXT    NOT NULL CHECK (workload <> ''),
  variant         TEXT    NOT NULL CHECK (variant <> ''),
  kernel_model    TEXT    NOT NULL CHECK (kernel_model <> ''),
  tool_version    TEXT    NOT NULL CHECK (tool_version <> ''),
  host            TEXT    NOT NULL,
  command         TEXT,
  invocation      TEXT    NOT NULL,
  started         TEXT    NOT NULL CHECK (julianday(started) IS NOT NULL),
  finished        TEXT    CHECK (finished IS NULL OR julianday(finished) IS NOT NULL),
  duration_s      REAL    GENERATED ALWAYS AS
                    ((julianday(finished) - julianday(started)) * 86400.0) VIRTUAL,
  status          TEXT    NOT NULL CHECK (status IN ('running', 'ok', 'failed')),
  message         TEXT,
  CHECK ((status = 'running') = (finished IS NULL)),
  CHECK ((status = 'failed') = (message IS NOT NULL))
) STRICT;

CREATE INDEX runs_by_scenario ON runs (scenario, point, variant, repetition);

CREATE INDEX runs_by_kernel ON runs (kernel_model, variant);

CREATE INDEX runs_by_machine ON runs (machine_sha256);

CREATE INDEX runs_by_invocation ON runs (invocation);

CREATE INDEX runs_by_started ON runs (started);

CREATE TABLE params (
  run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  key    TEXT    NOT NULL CHECK (key <> ''),
  value  ANY     CHECK (typeof(value) IN ('integer', 'real', 'text', 'null')),
  PRIMARY KEY (run_id, key)
) STRICT, WITHOUT ROWID;

CREATE INDEX params_by_key ON params (key, value);

CREATE TABLE metrics (
  run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  name   TEXT    NOT NULL CHECK (name <> ''),
  value  REAL,
  unit   TEXT    NOT NULL CHECK (unit <> '' AND unit NOT GLOB '*[ 	]*'),
  PRIMARY KEY (run_id, name)
) STRICT, WITHOUT ROWID;

CREATE INDEX metrics_by_name ON metrics (name);

CREATE TABLE samples (
  run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  metric TEXT    NOT NULL CHECK (metric <> ''),
  idx    INTEGER NOT NULL CHECK (idx >= 0),
  value  REAL    NOT NULL,
  PRIMARY KEY (run_id, metric, idx)
) STRICT, WITHOUT ROWID;

CREATE TABLE counters (
  run_id   INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  scope    TEXT    NOT NULL CHECK (scope IN ('system', 'node', 'cpu', 'zone',
                                             'cache', 'cache_node', 'cache_cpu')),
  scope_id ANY     NOT NULL,
  name     TEXT    NOT NULL CHECK (name <> ''),
  value    INTEGER NOT NULL,
  PRIMARY KEY (run_id, scope, scope_id, name),
  CHECK (CASE scope
    WHEN 'system' THEN typeof(scope_id) = 'integer' AND scope_id = 0
    WHEN 'node' THEN typeof(scope_id) = 'integer' AND scope_id >= 0
    WHEN 'cpu' THEN typeof(scope_id) = 'integer' AND scope_id >= 0
    WHEN 'zone' THEN typeof(scope_id) = 'text' AND scope_id GLOB '[0-9]*/?*'
    WHEN 'cache' THEN typeof(scope_id) = 'text' AND scope_id <> ''
                      AND scope_id NOT GLOB '*/*'
    ELSE typeof(scope_id) = 'text' AND scope_id GLOB '?*/[0-9]*'
  END)
) STRICT, WITHOUT ROWID;

CREATE INDEX counters_by_name ON counters (name, scope);

CREATE TABLE profile (
  run_id       INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  function     TEXT    NOT NULL CHECK (function <> ''),
  inlined      INTEGER NOT NULL DEFAULT 0 CHECK (inlined IN (0, 1)),
  calls        INTEGER NOT NULL CHECK (calls >= 0),
  self_cycles  INTEGER NOT NULL CHECK (self_cycles >= 0),
  total_cycles INTEGER NOT NULL CHECK (total_cycles >= self_cycles),
  PRIMARY KEY (run_id, function)
) STRICT, WITHOUT ROWID;

CREATE INDEX profile_by_function ON profile (function);

CREATE TABLE branches (
  run_id       INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  site         TEXT    NOT NULL CHECK (site <> ''),
  function     TEXT,
  fallthrough  INTEGER CHECK (fallthrough IN (0, 1)),
  executed     INTEGER NOT NULL CHECK (executed >= 0),
  taken        INTEGER NOT NULL CHECK (taken BETWEEN 0 AND executed),
  mispredicted INTEGER NOT NULL CHECK (mispredicted BETWEEN 0 AND executed),
  PRIMARY KEY (run_id, site)
) STRICT, WITHOUT ROWID;

CREATE INDEX branches_by_site ON branches (site);

-- Views: the joins and derived figures everybody writes by hand.

CREATE VIEW run_overview AS
SELECT r.run_id, r.scenario, r.point, r.repetition, r.seed, r.machine,
       r.workload, r.variant, r.kernel_model, r.status, r.started,
       r.duration_s, r.invocation,
       (SELECT count(*) FROM metrics m WHERE m.run_id = r.run_id) AS n_metrics,
       (SELECT count(*) FROM samples s WHERE s.run_id = r.run_id) AS n_samples,
       r.message
FROM runs r;

CREATE VIEW run_params AS
SELECT r.run_id, r.scenario, r.point, r.repetition, r.variant,
       r.kernel_model, r.machine, r.status,
       group_concat(p.key || '=' || coalesce(p.value, '~'), ' ') AS params,
       coalesce(json_group_object(p.key, p.value)
                FILTER (WHERE p.key IS NOT NULL), '{}') AS params_json
FROM runs r LEFT JOIN (SELECT * FROM params ORDER BY run_id, key) p
     ON p.run_id = r.run_id
GROUP BY r.run_id;

CREATE VIEW metric_values AS
SELECT r.run_id, r.scenario, r.scenario_sha256, r.machine, r.machine_sha256,
       r.workload, r.point, r.repetition, r.seed, r.variant, r.kernel_model,
       m.name, m.value, m.unit
FROM runs r JOIN metrics m ON m.run_id = r.run_id
WHERE r.status = 'ok';

CREATE VIEW metric_summary AS
SELECT scenario, scenario_sha256, machine, machine_sha256, workload, point,
       variant, kernel_model, name, unit,
       count(value) AS n, avg(value) AS mean, min(value) AS min,
       max(value) AS max,
       CASE WHEN count(value) > 1 THEN
         sqrt(sum((value - mu) * (value - mu)) / (count(value) - 1)) END AS stddev,
       CASE WHEN count(value) > 1 THEN
         sqrt(sum((value - mu) * (value - mu)) / (count(value) - 1)
              / count(value)) END AS sem
FROM (SELECT *, avg(value) OVER (PARTITION BY scenario, scenario_sha256,
        machine, machine_sha256, workload, point, variant, kernel_model,
        name, unit) AS mu
      FROM metric_values)
GROUP BY scenario, scenario_sha256, machine, machine_sha256, workload, point,
         variant, kernel_model, name, unit;

CREATE VIEW sample_summary AS
SELECT s.run_id, s.metric, m.unit, count(*) AS n, avg(s.value) AS mean,
       min(s.value) AS min, max(s.value) AS max,
       CASE WHEN count(*) > 1 THEN
         sqrt(sum((s.value - s.mu) * (s.value - s.mu)) / (count(*) - 1)) END
         AS stddev
FROM (SELECT *, avg(value) OVER (PARTITION BY run_id, metric) AS mu
      FROM samples) s
LEFT JOIN metrics m ON m.run_id = s.run_id AND m.name = s.metric
GROUP BY s.run_id, s.metric;

CREATE VIEW counter_values AS
SELECT run_id, scope, scope_id, name, value,
  CASE scope WHEN 'node' THEN scope_id
    WHEN 'zone' THEN CAST(substr(scope_id, 1, instr(scope_id, '/') - 1) AS INTEGER)
    WHEN 'cache_node' THEN CAST(substr(scope_id, instr(scope_id, '/') + 1) AS INTEGER)
  END AS node,
  CASE scope WHEN 'cpu' THEN scope_id
    WHEN 'cache_cpu' THEN CAST(substr(scope_id, instr(scope_id, '/') + 1) AS INTEGER)
  END AS cpu,
  CASE scope WHEN 'zone' THEN substr(scope_id, instr(scope_id, '/') + 1)
    WHEN 'cache' THEN scope_id
    WHEN 'cache_node' THEN substr(scope_id, 1, instr(scope_id, '/') - 1)
    WHEN 'cache_cpu' THEN substr(scope_id, 1, instr(scope_id, '/') - 1)
  END AS object
FROM counters;

CREATE VIEW profile_report AS
SELECT run_id, function, inlined, calls, self_cycles, total_cycles,
       100.0 * self_cycles
         / nullif(sum(self_cycles) OVER (PARTITION BY run_id), 0) AS self_pct,
       CAST(total_cycles AS REAL) / nullif(calls, 0) AS cycles_per_call
FROM profile;

CREATE VIEW branch_stats AS
SELECT run_id, site, function, fallthrough, executed, taken, mispredicted,
       CASE fallthrough WHEN 0 THEN taken WHEN 1 THEN executed - taken END
         AS cond_true,
       100.0 * taken / nullif(executed, 0) AS taken_pct,
       100.0 * mispredicted / nullif(executed, 0) AS mispredict_pct
FROM branches;
