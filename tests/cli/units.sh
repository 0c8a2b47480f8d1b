#!/usr/bin/env bash
# CLI tests of the units (issue 49, item 7): one name per unit.  The
# pagealloc benchmark's figures are TSC ticks (read as rdtsc reads them:
# unit tsc_ticks/op in the database, "TSC ticks/op" in headers); the
# simulated core's clock is core cycles (the profile, annotate, the other
# workloads' latencies: core_cycles in the database, "core cycles" in
# headers).  Checked in the stored units, run's and compare's tables,
# CSV/JSON unit fields, report's profile, annotate, plot's axis label and
# the HTML report.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 not installed"; exit 77; }
cd "$SRC" || exit 1

db=$tmp/p.db
"$NUMASIM" run tests/scenarios/tiny-pagealloc.yaml --db "$db" --inner 2 -q >"$tmp/run" 2>"$tmp/err"
check "run exit" "$?" 0
# --- stored units ----------------------------------------------------------------------
check "series unit" "$(q "$db" "SELECT DISTINCT unit FROM metrics WHERE name GLOB '*-odr*'")" "tsc_ticks/op"
check "timed unit" "$(q "$db" "SELECT DISTINCT unit FROM metrics WHERE name = 'timed_cycles'")" "tsc_ticks"
check "no bare cycles" "$(q "$db" "SELECT count(*) FROM metrics WHERE unit GLOB 'cycles*'")" 0
# --- headers ---------------------------------------------------------------------------
check "run table corner" "$(sed -n 2p "$tmp/run" | awk '{ print $1, $2 }')" "TSC ticks/op"
"$NUMASIM" compare "$db" --metric 'alloc-odr0-*' >"$tmp/cmp" 2>"$tmp/err"
check "compare corner" "$(sed -n 2p "$tmp/cmp" | awk '{ print $1, $2 }')" "TSC ticks/op"
"$NUMASIM" compare "$db" --metric 'alloc-odr0-1' --format csv >"$tmp/cmp.csv" 2>"$tmp/err"
check "compare csv stats unit" "$(grep '^stats,' "$tmp/cmp.csv" | grep -vc ',alloc-odr0-1,tsc_ticks/op,')" 0
check "compare csv stats rows" "$(grep -c '^stats,.*,alloc-odr0-1,tsc_ticks/op,' "$tmp/cmp.csv")" 2
"$NUMASIM" run --machine seed-2016-2s --workload pagealloc --db "$tmp/one.db" --inner 2 -q >"$tmp/one" 2>"$tmp/err"
grep -qE '^alloc-odr0-1 +[0-9.]+ +[0-9.]+ +TSC ticks/op$' "$tmp/one" && ok || bad "one-run unit column"
grep -qE '^timed_cycles +[0-9]+ +TSC ticks$' "$tmp/one" && ok || bad "one-run timed_cycles unit"
"$NUMASIM" report "$db" --run 1 >"$tmp/rep" 2>"$tmp/err"
grep -q '^  Profile (simulated, by self core cycles)$' "$tmp/rep" && ok || bad "report profile title"
grep -qE '^ +Self% +Self core cycles +Total core cycles +Calls +Core cycles/call +Function$' "$tmp/rep" &&
	ok || bad "report profile header"
"$NUMASIM" report "$db" --format json >"$tmp/rep.json" 2>"$tmp/err"
grep -q '"self_core_cycles_per_run"' "$tmp/rep.json" && ok || bad "report json: self_core_cycles_per_run"
"$NUMASIM" annotate "$db" --run 1 get_page_from_freelist >"$tmp/ann" 2>"$tmp/err"
grep -qE '^site +executed +taken +taken% +mispredicted +miss% +core cycles +per call' "$tmp/ann" && ok ||
	bad "annotate header"
grep -q 'self [0-9]* core cycles' "$tmp/ann" && ok || bad "annotate calls line"
"$NUMASIM" plot "$db" --metric 'alloc-odr0-*' -o "$tmp/a.svg" 2>"$tmp/err"
check "plot exit" "$?" 0
grep -q 'alloc-odr0-\* \[TSC ticks/op\]' "$tmp/a.svg" && ok || bad "plot axis label"
"$NUMASIM" plot "$db" --bars profile -o "$tmp/p.svg" 2>"$tmp/err"
grep -q 'self core cycles per run' "$tmp/p.svg" && ok || bad "profile plot axis label"
"$NUMASIM" report "$db" --format html -o "$tmp/r.html" 2>"$tmp/err"
grep -q '<td rowspan="3">TSC ticks/op</td>' "$tmp/r.html" && ok || bad "html compare unit"
grep -q '<th>self core cycles</th>' "$tmp/r.html" && ok || bad "html profile header"
grep -q '<th>self_cycles</th>' "$tmp/r.html" && bad "html: a self_cycles header" || ok
# --- the simulated clock's metrics: core cycles -------------------------------------------
"$NUMASIM" run tests/scenarios/tiny-parallel.yaml --db "$tmp/par.db" -q >/dev/null 2>"$tmp/err"
check "parallel run exit" "$?" 0
check "parallel units" "$(q "$tmp/par.db" "SELECT group_concat(DISTINCT unit) FROM (SELECT unit FROM metrics WHERE name IN ('cycles_per_op', 'end_cycles') ORDER BY unit)")" \
	"core_cycles,core_cycles/op"

finish
