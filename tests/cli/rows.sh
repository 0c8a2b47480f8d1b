# Sourced by the CLI tests that compare databases (determinism.sh,
# resume.sh, mpi.sh): `rows DB` prints every result row of DB keyed by
# (point, repetition) instead of run_id, in a fixed order, leaving out what
# may differ between equal runs: run ids, timestamps (started, finished,
# duration_s), host, invocation and the command line.  Two databases hold
# the same results exactly when their `rows` are equal.
rows() {
	sqlite3 -readonly -separator '|' "$1" "
SELECT 'run', point, repetition, scenario, scenario_file, scenario_sha256, seed,
       machine, machine_file, machine_sha256, workload, variant, kernel_model,
       tool_version, status, coalesce(message, '')
  FROM runs ORDER BY point, repetition;
SELECT 'param', r.point, r.repetition, p.key, typeof(p.value), p.value
  FROM params p JOIN runs r USING (run_id) ORDER BY 2, 3, 4;
SELECT 'metric', r.point, r.repetition, m.name, m.value, m.unit
  FROM metrics m JOIN runs r USING (run_id) ORDER BY 2, 3, 4;
SELECT 'sample', r.point, r.repetition, s.metric, s.idx, s.value
  FROM samples s JOIN runs r USING (run_id) ORDER BY 2, 3, 4, 5;
SELECT 'counter', r.point, r.repetition, c.scope, c.scope_id, c.name, c.value
  FROM counters c JOIN runs r USING (run_id) ORDER BY 2, 3, 4, 5, 6;
SELECT 'profile', r.point, r.repetition, p.function, p.inlined, p.calls,
       p.self_cycles, p.total_cycles
  FROM profile p JOIN runs r USING (run_id) ORDER BY 2, 3, 4;
SELECT 'path', r.point, r.repetition, p.path_id, p.parent_id, p.function, p.calls,
       p.self_cycles, p.mispredicted
  FROM profile_paths p JOIN runs r USING (run_id) ORDER BY 2, 3, 4;
SELECT 'branch', r.point, r.repetition, b.site, coalesce(b.function, ''),
       coalesce(b.fallthrough, ''), b.executed, b.taken, b.mispredicted
  FROM branches b JOIN runs r USING (run_id) ORDER BY 2, 3, 4;
SELECT 'input', sha256, kind, content FROM inputs ORDER BY 2;"
}

# same_rows NAME DB1 DB2: one check, with the first differences on failure.
same_rows() {
	rows "$2" >"$tmp/rows1" 2>&1
	rows "$3" >"$tmp/rows2" 2>&1
	if [ -s "$tmp/rows1" ] && cmp -s "$tmp/rows1" "$tmp/rows2"; then
		ok
	else
		bad "$1: rows differ ($(wc -l <"$tmp/rows1") vs $(wc -l <"$tmp/rows2") lines)"
		diff "$tmp/rows1" "$tmp/rows2" | head -10
	fi
}
