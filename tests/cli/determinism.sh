#!/usr/bin/env bash
# Determinism of `numasim run` across --jobs: the sweep of
# tests/scenarios/sweep-small.yaml (20 runs) with --jobs 1, 2 and 3 stores
# the same rows (every table, keyed by point and repetition, timestamps,
# host and invocation left out: tests/cli/rows.sh), in the same run order,
# and prints the same table.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/rows.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 not installed"; exit 77; }

SWEEP=$SRC/tests/scenarios/sweep-small.yaml

for j in 1 2 3; do
	"$NUMASIM" run "$SWEEP" --db "$tmp/j$j.db" --jobs $j -q >"$tmp/j$j.out" 2>"$tmp/j$j.err"
	rc=$?
	if [ $rc -eq 0 ]; then ok; else bad "--jobs $j: exit $rc"; cat "$tmp/j$j.err"; fi
done
[ "$(q "$tmp/j1.db" "SELECT count(*) FROM runs WHERE status = 'ok'")" = 20 ] && ok || bad "20 runs"
# the rows differ between points (the comparison is not vacuous)
[ "$(q "$tmp/j1.db" "SELECT count(DISTINCT value) FROM metrics WHERE name = 'total-odr0-8'")" -gt 1 ] &&
	ok || bad "all points gave the same result"
for j in 2 3; do
	same_rows "--jobs $j vs --jobs 1" "$tmp/j1.db" "$tmp/j$j.db"
	cmp -s "$tmp/j1.out" "$tmp/j$j.out" && ok || bad "--jobs $j printed another table"
	order="SELECT group_concat(point || '.' || repetition) FROM (SELECT * FROM runs ORDER BY run_id)"
	[ "$(q "$tmp/j1.db" "$order")" = "$(q "$tmp/j$j.db" "$order")" ] && ok || bad "--jobs $j: run order"
done
# a run id is the plan position: repetition-major
[ "$(q "$tmp/j2.db" "SELECT point || '.' || repetition FROM runs WHERE run_id = 11")" = "0.1" ] &&
	ok || bad "run 11 is point 0 repetition 1"

finish
