#!/usr/bin/env bash
# numasim compare (issue "What a new user trips over", item 6): the Welch
# block's columns line up; two groups without variance get "n/a" and the
# exact difference, not p<0.0001 with an empty interval; a group pooling
# runs of different invocations or parameters gets a warning on stderr;
# --by KEY,WITHIN prints "KEY vs KEY within each WITHIN"; --baseline V puts
# V's column first; mmtests' Hmean and BAmean-50/95/99 rows.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

S=$SRC/tests/scenarios/tiny-pagealloc.yaml
P=$tmp/p.db
"$NUMASIM" run -q "$S" --db "$P" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; bad "run"; }

# --- the Welch block: aligned columns, zero variance -----------------------------
"$NUMASIM" compare "$P" --metric 'alloc-odr0-*,free-odr0-1' >"$tmp/c1" 2>"$tmp/e1"
check "exit" "$?" 0
sed -n '/^Welch t-test/,$p' "$tmp/c1" | sed '1,2d' >"$tmp/w"
check "Welch rows" "$(wc -l <"$tmp/w")" 5
# p-values in one column (p=, p< and n/a start at the same offset), the
# intervals right-aligned: every row as long as the others
check "p column aligned" "$(awk '{ print index($0, $3) }' "$tmp/w" | sort -u | wc -l)" 1
check "rows equally long" "$(awk '{ print length($0) }' "$tmp/w" | sort -u | wc -l)" 1
grep -q '^Welch     alloc-odr0-1  *p<0\.0001\* \[-[0-9.]*, -[0-9.]*\]$' "$tmp/w" && ok || bad "significant row"
# alloc-odr0-64 and free-odr0-1 take the same cycles at every sample
grep -q '^Welch     alloc-odr0-64  *n/a  *exact -24\.00$' "$tmp/w" && ok || bad "no variance: $(grep odr0-64 "$tmp/w")"
grep -q '^Welch     free-odr0-1  *n/a  *exact +0\.00$' "$tmp/w" && ok || bad "no variance, no difference"
check "no p-value without variance" "$(grep -c 'odr0-64 .*p[<=]' "$tmp/w")" 0

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
	"Min Amean Hmean Stddev CoeffVar Max BAmean-50 BAmean-95 BAmean-99 Welch "

# --- --baseline: its column first ---------------------------------------------------
"$NUMASIM" compare "$P" --metric alloc-odr0-1 --baseline 682a3385 >"$tmp/c2" 2>/dev/null
check "baseline header" "$(sed -n 2p "$tmp/c2" | tr -s ' ')" " 682a3385 pre-682a3385"
grep -q '^Min       alloc-odr0-1  *703\.00 (  0\.00%)  *753\.00 ( -7\.11%)$' "$tmp/c2" && ok || bad "baseline column first"
check "Welch against the baseline" "$(grep -c '^Welch t-test against 682a3385' "$tmp/c2")" 1

# --- pooling warnings and --by KEY,WITHIN -------------------------------------------
"$NUMASIM" run -q "$S" --db "$P" --set workload.inner_iterations=10 >/dev/null 2>"$tmp/err" ||
	{ cat "$tmp/err"; bad "second run"; }
"$NUMASIM" compare "$P" --metric alloc-odr0-1 >"$tmp/c3" 2>"$tmp/e3"
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
