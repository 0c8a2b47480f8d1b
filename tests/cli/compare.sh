#!/usr/bin/env bash
# numasim compare (issue "What a new user trips over", item 6; issue 49):
# the difference block's columns line up; one run per group gets the
# difference and no p-value (a run's samples are not repetitions); with
# --by, a group pooling runs of different invocations or parameters gets a
# warning on stderr; without --by the columns are what differs;
# --by KEY,WITHIN prints "KEY vs KEY within each WITHIN"; --baseline V puts
# V's column first; mmtests' Hmean and BAmean-50/95/99 rows.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

S=$SRC/tests/scenarios/tiny-pagealloc.yaml
P=$tmp/p.db
"$NUMASIM" run -q "$S" --db "$P" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; bad "run"; }

# --- the difference block: over runs, aligned, exact when deterministic --------
"$NUMASIM" compare "$P" --metric 'alloc-odr0-*,free-odr0-1' >"$tmp/c1" 2>"$tmp/e1"
check "exit" "$?" 0
sed -n '/^Difference against/,$p' "$tmp/c1" | sed '1,2d' | grep '^Diff' >"$tmp/w"
check "difference rows" "$(wc -l <"$tmp/w")" 5
# kinds in one column, the differences right-aligned: every row as long as the others
check "kind column aligned" "$(awk '{ print index($0, " 1 run ") }' "$tmp/w" | sort -u)" 26
check "rows equally long" "$(awk '{ print length($0) }' "$tmp/w" | sort -u | wc -l)" 1
# one run per variant: the 13 samples of a run are not 13 runs, so no test
grep -q '^Diff      alloc-odr0-1  *1 run  *-50\.23$' "$tmp/w" && ok || bad "one run: $(grep odr0-1 "$tmp/w")"
check "no p-value over one run" "$(grep -c 'p[<=]' "$tmp/c1")" 0
# --- Hmean and BAmean rows ----------------------------------------------------------
for row in Hmean BAmean-50 BAmean-95 BAmean-99; do
	check "$row rows" "$(grep -c "^$(printf '%-9s' $row) alloc-odr0-" "$tmp/c1")" 4
done
# cycles: lower is better, so BAmean-50 (the best half) <= Amean; Hmean <= Amean
val() { grep "^$(printf '%-9s' "$1") alloc-odr0-1 " "$tmp/c1" | awk '{print $3}'; }
awk -v b="$(val BAmean-50)" -v a="$(val Amean)" -v h="$(val Hmean)" -v m="$(val Min)" \
	'BEGIN { exit !(m <= b && b <= a && h <= a) }' && ok || bad "Min <= BAmean-50 <= Amean, Hmean <= Amean"
# row order as mmtests prints it
check "row order" "$(awk '$2 == "alloc-odr0-1" { print $1 }' "$tmp/c1" | tr '\n' ' ')" \
	"Min Amean Hmean Stddev CoeffVar Max BAmean-50 BAmean-95 BAmean-99 Diff "

# --- --baseline: its column first ---------------------------------------------------
"$NUMASIM" compare "$P" --metric alloc-odr0-1 --baseline 682a3385 >"$tmp/c2" 2>/dev/null
check "baseline header" "$(sed -n 2p "$tmp/c2" | tr -s ' ')" "TSC ticks/op 682a3385 pre-682a3385"
grep -q '^Min       alloc-odr0-1  *703\.00 (  0\.00%)  *753\.00 ( -7\.11%)$' "$tmp/c2" && ok || bad "baseline column first"
check "difference against the baseline" "$(grep -c '^Difference against 682a3385 over runs' "$tmp/c2")" 1

# --- pooling warnings and --by KEY,WITHIN -------------------------------------------
"$NUMASIM" run -q "$S" --db "$P" --set workload.inner_iterations=10 >/dev/null 2>"$tmp/err" ||
	{ cat "$tmp/err"; bad "second run"; }
# no --by: the columns are what differs, the variant and inner_iterations
"$NUMASIM" compare "$P" --metric alloc-odr0-1 >"$tmp/c3w" 2>"$tmp/e3w"
check "what differs: exit" "$?" 0
check "what differs: heads" "$(sed -n 2p "$tmp/c3w" | tr -s ' ')" \
	"TSC ticks/op pre-682a3385,inner_iterations=20 pre-682a3385,inner_iterations=10 682a3385,inner_iterations=20 682a3385,inner_iterations=10"
check "what differs: no warning" "$(grep -c warning "$tmp/e3w")" 0
"$NUMASIM" compare "$P" --metric alloc-odr0-1 --by variant >"$tmp/c3" 2>"$tmp/e3"
check "pooled: exit" "$?" 0
grep -q "warning: group 'zonelist_iter=682a3385' pools runs with 2 different values of workload.inner_iterations (20,10)" "$tmp/e3" &&
	ok || bad "no warning for mixed inner_iterations: $(cat "$tmp/e3")"
grep -q "warning: group 'zonelist_iter=682a3385' pools runs with 2 different values of invocation" "$tmp/e3" &&
	ok || bad "no warning for mixed invocations"
check "warnings only on stderr" "$(grep -c warning "$tmp/c3")" 0
"$NUMASIM" compare "$P" --metric alloc-odr0-1 --where workload.inner_iterations=20 --where invocation="$(
	"$NUMASIM" query "$P" "SELECT invocation FROM runs ORDER BY run_id LIMIT 1" --format csv | tail -n1 | tr -d '\r')" \
	>/dev/null 2>"$tmp/e4"
check "like with like: no warning" "$(grep -c warning "$tmp/e4")" 0
"$NUMASIM" compare "$P" --metric alloc-odr0-1 --by variant,workload.inner_iterations >"$tmp/c5" 2>"$tmp/e5"
check "--by KEY,WITHIN exit" "$?" 0
check "one table per value" "$(grep '^## ' "$tmp/c5" | tr '\n' '|')" \
	"## workload.inner_iterations = 20|## workload.inner_iterations = 10|"
check "two columns per table" "$(grep -c '^Min       alloc-odr0-1  *[0-9.]* (  0\.00%)  *[0-9.]* (  [0-9.]*%)$' "$tmp/c5")" 2
check "--by KEY,WITHIN: no inner_iterations warning" "$(grep -c inner_iterations "$tmp/e5")" 0
"$NUMASIM" compare "$P" --by variant,nosuch >"$tmp/o6" 2>"$tmp/e6"
check "unknown WITHIN: exit" "$?" 2
grep -q "unknown key 'nosuch'" "$tmp/e6" && [ ! -s "$tmp/o6" ] && ok || bad "unknown WITHIN key: $(cat "$tmp/e6")"
"$NUMASIM" compare "$P" --by variant,a,b >"$tmp/o7" 2>"$tmp/e7"
check "--by with three keys: exit" "$?" 2
finish
