-- Schema version 2 -> 3: the call paths of the simulated profile (flame
-- graphs, docs/reference/schema.md "profile_paths") and profile_stacks, each path's
-- chain of functions as a folded stack "a;b;c".  A read-only connection
-- to an older file gets the table as an empty TEMP table (analysis/store.c,
-- temp_views()), so readers see "no call paths" rather than an error;
-- hence one statement per object, no index, nothing in the CREATE TABLE
-- beyond what a TEMP table accepts.  The generator's rules are in v1.sql.

CREATE TABLE profile_paths (
  run_id       INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  path_id      INTEGER NOT NULL CHECK (path_id >= 1),
  parent_id    INTEGER NOT NULL CHECK (parent_id >= 0 AND parent_id < path_id),
  function     TEXT    NOT NULL CHECK (function <> ''),
  calls        INTEGER NOT NULL CHECK (calls >= 0),
  self_cycles  INTEGER NOT NULL CHECK (self_cycles >= 0),
  mispredicted INTEGER NOT NULL CHECK (mispredicted >= 0),
  PRIMARY KEY (run_id, path_id)
) STRICT, WITHOUT ROWID;

CREATE VIEW profile_stacks AS
WITH RECURSIVE chain (run_id, path_id, stack, depth) AS (
  SELECT run_id, path_id, function, 1 FROM profile_paths WHERE parent_id = 0
  UNION ALL
  SELECT p.run_id, p.path_id, c.stack || ';' || p.function, c.depth + 1
  FROM profile_paths p JOIN chain c
       ON p.run_id = c.run_id AND p.parent_id = c.path_id)
SELECT c.run_id, c.path_id, p.parent_id, p.function, c.stack, c.depth,
       p.calls, p.self_cycles, p.mispredicted
FROM chain c JOIN profile_paths p
     ON p.run_id = c.run_id AND p.path_id = c.path_id;
