#!/usr/bin/env bash
# CLI tests of the output people read (issue 49, item 9): the main job's
# closing "where to look" (scripts/main-where.sh on a scratch results
# folder) and its package-manager and build output kept off the terminal;
# messaging's per-CPU SLUB counts only with --per-cpu (run and report);
# the seed's published Welch line only for scenarios/seed-slub.yaml; a
# one-run point's summary prints its value, not '-'; the fill workload's
# per-run summary instead of every metric; numastat per node (numasim
# numastat's layout, report --runs, the HTML report).
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 not installed"; exit 77; }
cd "$SRC" || exit 1

# --- the main job ------------------------------------------------------------------
mkdir -p "$tmp/results"
: >"$tmp/results/seed-zonelist.db"
: >"$tmp/results/seed-zonelist.html"
: >"$tmp/results/seed-slub.db"
: >"$tmp/results/deps.log"
bash scripts/main-where.sh "$tmp/results" "$tmp/results/deps.log" "$tmp/results/nolog.log" >"$tmp/where" 2>&1
check "main-where exit" "$?" 0
grep -q '^== where to look$' "$tmp/where" && ok || bad "where-to-look heading"
check "databases listed" "$(grep -c '^  database  .*/seed-\(zonelist\|slub\)\.db$' "$tmp/where")" 2
check "html listed" "$(grep -c '^  report    .*/seed-zonelist\.html' "$tmp/where")" 1
grep -q 'seed-slub\.html' "$tmp/where" && bad "a report that was not written is listed" || ok
grep -q "^  log       $tmp/results/deps.log$" "$tmp/where" && ok || bad "log listed"
grep -q 'nolog.log' "$tmp/where" && bad "a missing log is listed" || ok
# main.sh: apt's output to a log, the build's progress, where to look at the end
grep -q '^step "installing what is missing (apt-get)" results/deps.log bash scripts/deps.sh$' scripts/main.sh &&
	ok || bad "main.sh: deps.sh output not to results/deps.log"
grep -q '^bash scripts/build-pgo.sh build 2>results/build.log' scripts/main.sh && ok || bad "main.sh: build messages not to a log"
check "build progress phases" "$(grep -c '^phase [123] ' scripts/build-pgo.sh)" 3
check "main.sh ends with where to look" "$(tail -n 1 scripts/main.sh)" \
	"bash scripts/main-where.sh results results/deps.log results/build.log"

# --- messaging: per-CPU counts, the seed's line, one-run statistics -----------------
db=$tmp/m.db
"$NUMASIM" run -q tests/scenarios/tiny-messaging.yaml --db "$db" --set repetitions=1 >"$tmp/m1" 2>"$tmp/err"
check "messaging run exit" "$?" 0
check "no per-CPU counts without --per-cpu" "$(grep -c ' C[0-9]*=' "$tmp/m1")" 0
grep -q '^alloc_fastpath  *[0-9][0-9]*$' "$tmp/m1" && ok || bad "stat totals"
grep -q "^seed's published numbers" "$tmp/m1" && bad "seed's Welch line outside the seed scenario" || ok
# one run per point: max., min. and avg. are its value
v=$(q "$db" "SELECT printf('%.9f', value) FROM metrics WHERE run_id = 1 AND name = 'total_time_s'")
check "one-run avg." "$(awk '$1 == "avg." { print $2 }' "$tmp/m1")" "$v"
check "one-run max." "$(awk '$1 == "max." { print $2 }' "$tmp/m1")" "$v"
check "one-run min." "$(awk '$1 == "min." { print $2 }' "$tmp/m1")" "$v"
"$NUMASIM" report "$db" --runs --per-cpu >"$tmp/rp" 2>"$tmp/err"
check "report --per-cpu exit" "$?" 0
grep -q '^free_frozen  *[0-9][0-9]* C[0-9]*=[0-9]' "$tmp/rp" && ok || bad "report --per-cpu: no C<cpu>= counts"
"$NUMASIM" report "$db" --runs >"$tmp/r0" 2>"$tmp/err"
check "report without --per-cpu" "$(grep -c ' C[0-9]*=' "$tmp/r0")" 0
"$NUMASIM" run -q tests/scenarios/tiny-messaging.yaml --db "$tmp/m2.db" --set repetitions=1 --per-cpu >"$tmp/m2" 2>"$tmp/err"
grep -q '^free_frozen  *[0-9][0-9]* C[0-9]*=[0-9]' "$tmp/m2" && ok || bad "run --per-cpu: no C<cpu>= counts"
# the seed scenario, scaled down: its published numbers' Welch line
"$NUMASIM" run -q scenarios/seed-slub.yaml --db "$tmp/s.db" --set repetitions=2 \
	--set workload.loops=1 --set workload.groups=1 >"$tmp/s" 2>"$tmp/err"
check "seed-slub run exit" "$?" 0
grep -q "^seed's published numbers (189.154 sd 1.37 vs 188.086 sd 0.99, n=10 each): .*Welch t = 1\.998" "$tmp/s" &&
	ok || bad "seed's Welch line in seed-slub"

# --- numastat ------------------------------------------------------------------------
pdb=$tmp/p.db
"$NUMASIM" run -q tests/scenarios/tiny-pagealloc.yaml --db "$pdb" --inner 2 >/dev/null 2>"$tmp/err"
check "pagealloc run exit" "$?" 0
"$NUMASIM" numastat "$pdb" --run 1 >"$tmp/ns" 2>"$tmp/err"
check "numastat exit" "$?" 0
check "numastat rows" "$(awk 'NR > 1 { print $1 }' "$tmp/ns" | tr '\n' ' ')" \
	"numa_hit numa_miss numa_foreign interleave_hit local_node other_node "
check "numastat header" "$(head -n 1 "$tmp/ns")" "$(printf '%16s%16s%16s' '' node0 node1)"
# the node's counter, which is the sum of its zones' (node_read_numastat)
want=$(q "$pdb" "SELECT sum(value) FROM counters WHERE run_id = 1 AND name = 'numa_hit' AND scope = 'zone' AND scope_id GLOB '0/*'")
check "numa_hit node0" "$(awk '$1 == "numa_hit" { print $2 }' "$tmp/ns")" "$want"
check "local_node node0" "$(awk '$1 == "local_node" { print $2 }' "$tmp/ns")" \
	"$(q "$pdb" "SELECT value FROM counters WHERE run_id = 1 AND name = 'local_node' AND scope = 'node' AND scope_id = 0")"
[ "$want" -gt 0 ] 2>/dev/null && ok || bad "numa_hit of node 0 is '$want'"
check "numastat line width" "$(awk 'NR > 1 { print length($0) }' "$tmp/ns" | sort -u)" 48
run_err_like "numastat unknown run" "no run 99" numastat "$pdb" --run 99
run_err_like "numastat not a database" "error:" numastat "$tmp/where"
run_err_like "numastat needs --run" "choose one with" numastat "$pdb"
"$NUMASIM" report "$pdb" --runs --run 2 >"$tmp/rr" 2>"$tmp/err"
grep -q '^  numastat (per node; numasim numastat DB --run 2)$' "$tmp/rr" && ok || bad "report --runs: numastat block"
grep -q '^numa_hit  ' "$tmp/rr" && ok || bad "report --runs: numa_hit row"
"$NUMASIM" report "$pdb" --format html -o "$tmp/p.html" 2>"$tmp/err"
check "html exit" "$?" 0
grep -q '<section id="numastat" data-check="numastat"><h2>numastat per node</h2>' "$tmp/p.html" && ok || bad "html numastat section"
check "html numastat tables" "$(grep -o '<table class="numastat">' "$tmp/p.html" | wc -l)" 2
grep -q '<th>interleave_hit</th>' "$tmp/p.html" && ok || bad "html numastat rows"

# --- fill: the per-run summary ----------------------------------------------------------
"$NUMASIM" run tests/scenarios/tiny-fill.yaml --db "$tmp/f.db" -q >"$tmp/f" 2>"$tmp/err"
check "fill run exit" "$?" 0
head -n 1 "$tmp/f" | grep -Eq '^run +machine +zone_reclaim_mode +alloc p50 +alloc p99 +alloc max +alloc mean +remote +reclaim/alloc +reclaimed +kswapd +read local +read remote$' &&
	ok || { bad "fill summary header"; head -n 3 "$tmp/f"; }
check "fill summary rows" "$(grep -c '^[12]  ' "$tmp/f")" 2
[ "$(wc -l <"$tmp/f")" -le 10 ] && ok || bad "fill summary is $(wc -l <"$tmp/f") lines"
p99=$(q "$tmp/f.db" "SELECT CAST(round(value) AS INTEGER) FROM metrics WHERE run_id = 2 AND name = 'alloc_latency_p99'")
check "fill p99 of run 2" "$(awk '$1 == 2 { print $5 }' "$tmp/f")" "$p99"
check "fill units row" "$(sed -n 2p "$tmp/f" | grep -o 'core cycles' | wc -l)" 7

finish
