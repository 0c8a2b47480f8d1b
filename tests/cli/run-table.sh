#!/usr/bin/env bash
# Issue "What a new user trips over", item 8: the table `numasim run`
# prints.  A sweep over an axis of mappings (scenarios/mempolicy.yaml's
# `policy: {mempolicy: bind, nodes: "1"}`) names each point's value
# (local, bind:1, ...), not "-" for all; a plan of one run prints that
# run's metrics once (one line each, no Min/Amean/Max rows of one
# column, no 0.00 % against itself).
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

"$NUMASIM" run "$SRC/scenarios/mempolicy.yaml" --db "$tmp/m.db" --jobs 2 --inner 1 -q >"$tmp/m" 2>"$tmp/err"
[ $? -eq 0 ] && ok || { bad "mempolicy exit"; cat "$tmp/err"; }
awk 'NR > 2 { print $3 }' "$tmp/m" | tr '\n' ' ' >"$tmp/pol"
want="local bind:1 preferred:1 interleave:all local bind:1 preferred:1 interleave:all "
[ "$(cat "$tmp/pol")" = "$want" ] && ok || { bad "policy column: '$(cat "$tmp/pol")'"; cat "$tmp/m"; }
[ "$(awk 'NR > 2 { print $2 }' "$tmp/m" | sort -u | tr '\n' ' ')" = "big-1tib-8node seed-2016-2s " ] \
	&& ok || bad "machine column"

# one run: every metric once
ONE=(run "$SRC/tests/scenarios/tiny-pagealloc.yaml" --set kernel.zonelist_iter=682a3385 -q)
"$NUMASIM" "${ONE[@]}" --db "$tmp/one.db" >"$tmp/one" 2>"$tmp/err"
[ $? -eq 0 ] && ok || { bad "one-run exit"; cat "$tmp/err"; }
grep -q '^Run 1: tiny-pagealloc, point 0 (zonelist_iter=682a3385), repetition 0$' "$tmp/one" \
	&& ok || { bad "one-run header"; head -3 "$tmp/one"; }
grep -qE '^(Min|Amean|Max|Stddev) |0\.00%' "$tmp/one" && { bad "one-run table of statistics"; head "$tmp/one"; } || ok
# lines = the run's metrics less the NAME.min companions, plus 2 headers
nm=$(sqlite3 "$tmp/one.db" "SELECT count(*) FROM metrics WHERE name NOT GLOB '*.min'" 2>/dev/null || echo 16)
[ "$(wc -l <"$tmp/one")" -eq $((nm + 2)) ] && ok || bad "one-run: $(wc -l <"$tmp/one") lines for $nm metrics"
[ "$(awk 'NR > 2 { print $1 }' "$tmp/one" | sort | uniq -d | wc -l)" -eq 0 ] && ok || bad "a metric twice"
grep -qE '^alloc-odr0-64 +[0-9.]+ +[0-9.]+ +TSC ticks/op$' "$tmp/one" && ok || { bad "mean and min on one line"; cat "$tmp/one"; }
grep -qE '^allocs +174900 +count$' "$tmp/one" && ok || bad "counts as whole numbers"

# the parallel workload's one-run plan too (it printed numasim compare's table)
"$NUMASIM" run --machine "$SRC/configs/client-1node.yaml" --workload parallel --set workload.ops=200 \
	--db "$tmp/p.db" -q >"$tmp/p" 2>"$tmp/err"
[ $? -eq 0 ] && ok || { bad "parallel exit"; cat "$tmp/err"; }
grep -qE '^(Min|Amean|Max) ' "$tmp/p" && bad "parallel one run: statistics table" || ok
[ "$(grep -c '^cycles_per_op ' "$tmp/p")" -eq 1 ] && ok || { bad "parallel cycles_per_op once"; cat "$tmp/p"; }

finish
