#!/usr/bin/env bash
# Honest statistics and labels from what differs (issue 49, items 1 and 2;
# docs/design/statistics.md): (a) a deterministic workload's compare prints the
# exact difference and no p-value, and a workload whose runs draw from the
# seed gets Welch's test over runs; (b) the same plan run twice into one
# database is refused by compare, report and the HTML report unless
# --pool; (c) run says when the plan is already stored and suggests
# --resume; (d) compare's columns come from the --set values that differ;
# (e) the 2x2 interaction equals the difference of differences computed
# with query.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

S=$SRC/tests/scenarios/tiny-pagealloc.yaml
D=$tmp/d.db

# --- (a) deterministic: identical across seeds, exact, no p-value -------------------
"$NUMASIM" run -q "$S" --db "$D" --set repetitions=3 >/dev/null 2>"$tmp/e0" ||
	{ cat "$tmp/e0"; bad "run"; }
check "(a) seeds" "$("$NUMASIM" query "$D" "SELECT group_concat(DISTINCT seed) FROM runs" --format csv | tail -n1 | tr -d '\r"')" "7,8,9"
# the model has no random input: every repetition's samples are the same
check "(a) runs identical" "$("$NUMASIM" query "$D" "SELECT count(DISTINCT v) FROM (SELECT r.run_id, r.variant, group_concat(s.value) AS v FROM runs r JOIN samples s USING (run_id) WHERE s.metric = 'alloc-odr0-1' GROUP BY r.run_id) GROUP BY variant" --format csv | tail -n +2 | tr -d '\r' | tr '\n' ' ')" "1 1 "
"$NUMASIM" compare "$D" --metric 'alloc-odr0-1,alloc-odr0-64,free-odr0-1' >"$tmp/a" 2>"$tmp/ae"
check "(a) exit" "$?" 0
grep -q '^Diff      alloc-odr0-1   exact  *-50\.23$' "$tmp/a" && ok || bad "(a) exact difference: $(grep '^Diff' "$tmp/a")"
grep -q '^Diff      alloc-odr0-64  exact  *-24\.00$' "$tmp/a" && ok || bad "(a) exact alloc-odr0-64"
grep -q '^Diff      free-odr0-1    exact  *+0\.00$' "$tmp/a" && ok || bad "(a) exact free-odr0-1"
check "(a) no p-value" "$(grep -c 'p[<=]0\.\|Welch' "$tmp/a")" 0
check "(a) says deterministic" "$(grep -c '^exact, deterministic: identical across seeds' "$tmp/a")" 1
# the exact difference is the difference of the SQL means
want=$("$NUMASIM" query "$D" "SELECT printf('%.2f', (SELECT avg(value) FROM v_samples WHERE metric = 'alloc-odr0-1' AND variant = 'zonelist_iter=pre-682a3385') - (SELECT avg(value) FROM v_samples WHERE metric = 'alloc-odr0-1' AND variant = 'zonelist_iter=682a3385')) AS d" | sed -n 3p | tr -d ' ')
check "(a) exact = SQL" "$(awk '/^Diff      alloc-odr0-1 / { print substr($4, 2) }' "$tmp/a")" "$want"
# JSON: the kind of each difference
if command -v jq >/dev/null; then
	"$NUMASIM" compare "$D" --metric alloc-odr0-1 --format json >"$tmp/a.json"
	check "(a) json" "$(jq -r '.welch[0] | [.test, .runs, .runs_baseline, (.p == null)] | join(" ")' "$tmp/a.json")" "exact 3 3 true"
fi
# seeded workload: the runs differ, Welch over runs (3 per variant, not samples)
"$NUMASIM" run -q "$SRC/tests/scenarios/tiny-parallel.yaml" --db "$tmp/par.db" >/dev/null 2>"$tmp/e1" ||
	{ cat "$tmp/e1"; bad "parallel run"; }
"$NUMASIM" compare "$tmp/par.db" --metric 'cycles_per_op,ops' >"$tmp/p" 2>/dev/null
grep -q '^Diff      cycles_per_op  p[<=]0\.[0-9]\{4\}' "$tmp/p" && ok || bad "(a) Welch over runs: $(grep '^Diff' "$tmp/p")"
grep -q '^Diff      ops  *exact  *+0\.00$' "$tmp/p" && ok || bad "(a) a fixed count is exact"
if command -v jq >/dev/null; then
	"$NUMASIM" compare "$tmp/par.db" --metric cycles_per_op --format json >"$tmp/p.json"
	check "(a) Welch df over runs" "$(jq -r '.welch[0] | [.test, .runs, (.df < 4)] | join(" ")' "$tmp/p.json")" "welch 3 true"
fi

# --- (b) the same plan twice into one database -------------------------------------
"$NUMASIM" run -q "$S" --db "$D" --set repetitions=3 >/dev/null 2>"$tmp/c"
check "(b) second run exit" "$?" 0
run_err_like "(b) compare refuses to pool" "runs 1 and 7 are the same run of one plan.*--pool" \
	compare "$D" --metric alloc-odr0-1
"$NUMASIM" compare "$D" --metric alloc-odr0-1 --pool >"$tmp/b" 2>/dev/null
check "(b) --pool exit" "$?" 0
grep -q '^Diff      alloc-odr0-1  exact  *-50\.23$' "$tmp/b" && ok || bad "(b) pooled difference"
check "(b) --pool says so" "$(grep -c '^pooled (--pool)' "$tmp/b")" 1
inv=$("$NUMASIM" query "$D" "SELECT invocation FROM runs ORDER BY run_id LIMIT 1" --format csv | tail -n1 | tr -d '\r')
"$NUMASIM" compare "$D" --metric alloc-odr0-1 --where invocation="$inv" >/dev/null 2>&1
check "(b) one invocation picked: exit" "$?" 0
"$NUMASIM" report "$D" >"$tmp/r" 2>/dev/null
check "(b) report exit" "$?" 0
grep -q '^Compare: pagealloc runs by variant: refused: runs 1 and 7 .*--pool' "$tmp/r" && ok || bad "(b) report refuses"
"$NUMASIM" report "$D" --pool >"$tmp/rp" 2>/dev/null
grep -q '^Diff     alloc-odr0-1 ' "$tmp/rp" && ok || bad "(b) report --pool compares"
"$NUMASIM" report "$D" --format html -o "$tmp/r.html" 2>/dev/null
grep -q 'no compare table: .*same run of one plan.*--pool' "$tmp/r.html" && ok || bad "(b) HTML refuses"
"$NUMASIM" report "$D" --format html --pool -o "$tmp/rp.html" 2>/dev/null
grep -q '<table class="cmp" id="compare-pagealloc"' "$tmp/rp.html" && ok || bad "(b) HTML --pool compares"

# --- (c) run says the plan is stored and suggests --resume ---------------------------
grep -q "^numasim run: note: .*d.db already holds 6 runs of this plan (scenario tiny-pagealloc, hash [0-9a-f]\{12\}, 1 invocation).*--resume" "$tmp/c" &&
	ok || bad "(c) no note: $(cat "$tmp/c")"
"$NUMASIM" run -q "$S" --db "$tmp/fresh.db" >/dev/null 2>"$tmp/c2"
check "(c) no note for a new plan" "$(grep -c 'already holds' "$tmp/c2")" 0
"$NUMASIM" run -q "$S" --db "$D" --set repetitions=3 --resume >/dev/null 2>"$tmp/c3"
check "(c) no note with --resume" "$(grep -c 'already holds' "$tmp/c3")" 0

# --- (d) labels from the --set values that differ --------------------------------------
L=$tmp/l.db
"$NUMASIM" run -q "$S" --db "$L" --set repetitions=2 >/dev/null 2>&1
"$NUMASIM" run -q "$S" --db "$L" --set repetitions=2 --set workload.inner_iterations=10 >/dev/null 2>&1
"$NUMASIM" compare "$L" --metric alloc-odr0-1 >"$tmp/d" 2>"$tmp/de"
check "(d) exit" "$?" 0
check "(d) heads" "$(sed -n 2p "$tmp/d" | tr -s ' ')" \
	"TSC ticks/op pre-682a3385,inner_iterations=20 pre-682a3385,inner_iterations=10 682a3385,inner_iterations=20 682a3385,inner_iterations=10"
check "(d) no pooling warning" "$(grep -c warning "$tmp/de")" 0
# the plot's legend and the HTML report's compare table name them too
"$NUMASIM" plot "$L" --metric 'alloc-odr0-*' --data "$tmp/l.csv" >/dev/null 2>&1
check "(d) plot series" "$(tail -n +2 "$tmp/l.csv" | cut -d, -f1-2 | tr -d '"' | awk -F, '{print $1","$2}' | sort -u | sed -n '1p;$p' | tr '\n' '|')" \
	"zonelist_iter=682a3385,inner_iterations=10|zonelist_iter=pre-682a3385,inner_iterations=20|"
"$NUMASIM" report "$L" --format html -o "$tmp/l.html" 2>/dev/null
grep -q '682a3385,inner_iterations=10' "$tmp/l.html" && ok || bad "(d) HTML compare columns"
# a value the same in every run is not in the label
"$NUMASIM" compare "$L" --metric alloc-odr0-1 --where workload.inner_iterations=10 >"$tmp/d2"
check "(d) one value: variant only" "$(sed -n 2p "$tmp/d2" | tr -s ' ')" "TSC ticks/op pre-682a3385 682a3385"

# --- (e) the 2x2 interaction is the difference of differences ------------------------
# (the two kernels differ in kernel.commit and kernel.zonelist_iter together:
# the zonelist_iter values select the series' commits v3 04 and v3 05)
grep -Eq '^Interaction of kernel\.commit\+kernel\.zonelist_iter \(060e74173f29 -> 682a3385e773\) and workload\.inner_iterations \(20 -> 10\) over runs' "$tmp/d" &&
	ok || bad "(e) interaction header: $(grep -A1 '^Interaction' "$tmp/d")"
got=$(awk '/^Inter     alloc-odr0-1 / { print $4 }' "$tmp/d")
want=$("$NUMASIM" query "$L" "WITH rv AS (SELECT r.run_id, r.variant AS v, (SELECT value FROM params p WHERE p.run_id = r.run_id AND p.key = 'workload.inner_iterations') AS ii, avg(s.value) AS m FROM runs r JOIN samples s USING (run_id) WHERE s.metric = 'alloc-odr0-1' GROUP BY r.run_id), g AS (SELECT v, ii, avg(m) AS m FROM rv GROUP BY v, ii) SELECT printf('%+.2f', (SELECT m FROM g WHERE v = 'zonelist_iter=682a3385' AND ii = 10) - (SELECT m FROM g WHERE v = 'zonelist_iter=pre-682a3385' AND ii = 10) - (SELECT m FROM g WHERE v = 'zonelist_iter=682a3385' AND ii = 20) + (SELECT m FROM g WHERE v = 'zonelist_iter=pre-682a3385' AND ii = 20)) AS i" | sed -n 3p | tr -d ' ')
check "(e) interaction = query's difference of differences" "$got" "$want"
[ -n "$want" ] && [ "$want" != "+0.00" ] && ok || bad "(e) a nonzero interaction to compare ($want)"
grep -q '^Inter     alloc-odr0-1  exact ' "$tmp/d" && ok || bad "(e) exact: deterministic"
# not a 2x2: no interaction
check "(e) no interaction for two groups" "$(grep -c '^Interaction' "$tmp/d2")" 0
finish
