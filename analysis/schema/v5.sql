-- Schema version 4 -> 5: each function's work cycles split by unit of
-- straight-line code (docs/reference/schema.md "profile_work"), written
-- by `numasim run --charges` only (cost/cpu.h cpu_sys_units()): a code
-- block of a model (models/mm_tables.h MM_BLOCKS, models/slub_internal.h
-- SLUB_BLOCKS) or work a model charges outside its blocks, as the run's
-- timing model charged it.  A read-only connection to an older file gets
-- the table as an empty TEMP table (analysis/store.c, temp_views());
-- hence one statement, no index, nothing beyond what a TEMP table
-- accepts.  The generator's rules are in v1.sql.

CREATE TABLE profile_work (
  run_id      INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  function    TEXT    NOT NULL CHECK (function <> ''),
  unit        TEXT    NOT NULL CHECK (unit <> ''),
  executed    INTEGER NOT NULL CHECK (executed > 0),
  cycles      INTEGER NOT NULL CHECK (cycles >= 0),
  PRIMARY KEY (run_id, function, unit)
) STRICT, WITHOUT ROWID;
