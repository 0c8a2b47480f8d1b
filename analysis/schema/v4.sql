-- Schema version 3 -> 4: the profile's self cycles split by charge kind
-- (docs/reference/schema.md "profile_charges"), written by `numasim run
-- --charges` only (cost/cpu.h enum cpu_charge).  A read-only connection
-- to an older file gets the table as an empty TEMP table (analysis/store.c,
-- temp_views()); hence one statement, no index, nothing beyond what a
-- TEMP table accepts.  The generator's rules are in v1.sql.

CREATE TABLE profile_charges (
  run_id      INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  function    TEXT    NOT NULL CHECK (function <> ''),
  kind        TEXT    NOT NULL CHECK (kind IN ('branch', 'work', 'mem', 'call',
                                                'lock', 'other')),
  cycles      INTEGER NOT NULL CHECK (cycles >= 0),
  PRIMARY KEY (run_id, function, kind)
) STRICT, WITHOUT ROWID;
