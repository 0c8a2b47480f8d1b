#!/usr/bin/env bash
# Issue "What a new user trips over", item 9: `numasim trace`.
#  - --limit N is the total over the plan and stops the simulation once
#    the N records are written (seed-slub --limit 5 took the whole plan's
#    2 min 50 s); --limit-per-run N caps each run; both are prefixes of
#    the unlimited trace.
#  - an event the workload never makes (slab_free of pagealloc) is an
#    error naming the events it does make, exit 2, no output.
#  - records are complete: a drain through unfreeze_partials lists every
#    slab of the chain in its stats and sites (they were cut at 16 stats
#    and 48 sites).
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_jq

TINY=$SRC/tests/scenarios/tiny-messaging.yaml

# --- --limit: total, and the simulation stops ------------------------------------
"$NUMASIM" trace "$TINY" --events slab_free --limit-per-run 3000 >"$tmp/per" 2>"$tmp/err"
check "per-run exit" "$?" 0
"$NUMASIM" trace "$TINY" --events slab_free --limit 5 >"$tmp/tot" 2>"$tmp/err"
check "total exit" "$?" 0
check "total lines" "$(wc -l <"$tmp/tot")" 5
check "total is a prefix" "$(head -5 "$tmp/per")" "$(cat "$tmp/tot")"
"$NUMASIM" trace "$TINY" --events slab_free --limit-per-run 3 --limit 10 >"$tmp/both" 2>/dev/null
check "both limits" "$(wc -l <"$tmp/both")" 10
check "both: 3 per run" "$(jq -r '"\(.point)/\(.repetition)"' "$tmp/both" | uniq -c | awk '{print $1}' | tr '\n' ' ')" "3 3 3 1 "
# seed-slub's plan simulates for minutes; five records take a moment
start=$(date +%s)
"$NUMASIM" trace "$SRC/scenarios/seed-slub.yaml" --events slab_free --format jsonl --limit 5 >"$tmp/seed" 2>"$tmp/err"
rc=$?
el=$(( $(date +%s) - start ))
check "seed-slub exit" "$rc" 0
check "seed-slub lines" "$(wc -l <"$tmp/seed")" 5
[ "$el" -le 30 ] && ok || bad "seed-slub --limit 5 took $el s: the plan was simulated to the end"
"$NUMASIM" trace "$SRC/scenarios/seed-zonelist.yaml" --events page_alloc --limit 3 >"$tmp/za" 2>"$tmp/err"
check "pagealloc limit" "$(wc -l <"$tmp/za")" 3

# --- events the workload never makes ----------------------------------------------
"$NUMASIM" trace "$SRC/scenarios/seed-zonelist.yaml" --events slab_free >"$tmp/o" 2>"$tmp/e"
check "no slab_free in pagealloc: exit" "$?" 2
[ ! -s "$tmp/o" ] && ok || bad "no slab_free: wrote output"
grep -q "^numasim trace: error: --events slab_free: .*pagealloc workload.*(it makes page_alloc, page_free)$" "$tmp/e" \
	&& ok || { bad "no slab_free: message"; cat "$tmp/e"; }
"$NUMASIM" trace "$SRC/scenarios/seed-zonelist.yaml" --events page_alloc,slab_free --limit 1 >"$tmp/o" 2>"$tmp/e"
check "mixed with a missing one: exit" "$?" 2

# --- complete records ----------------------------------------------------------------
"$NUMASIM" trace "$TINY" --events slab_free >"$tmp/full" 2>"$tmp/err"
check "full exit" "$?" 0
# the total runs on into the next run: a prefix of the whole trace
"$NUMASIM" trace "$TINY" --events slab_free --limit 40000 >"$tmp/tot2" 2>/dev/null
check "total across runs" "$(jq -r '"\(.point)/\(.repetition)"' "$tmp/tot2" | uniq | wc -l)" 2
cmp -s "$tmp/tot2" <(head -40000 "$tmp/full") && ok || bad "--limit 40000 is not the trace's first 40000 lines"
jq -c 'select(.stats | index("cpu_partial_drain"))' "$tmp/full" >"$tmp/drains"
n=$(wc -l <"$tmp/drains")
[ "$n" -gt 0 ] && ok || bad "no drain through unfreeze_partials traced"
check "stats longer than 16 kept" "$(jq -c 'select((.stats | length) > 16)' "$tmp/drains" | wc -l)" "$n"
# a drain visits every slab of the chain: one uf_loop per slab and one to
# end, one free_add_partial or deactivate_empty per slab
check "uf_loop per slab" "$(jq -c 'select(([.sites[][0] | select(. == "uf_loop")] | length) != (.cpu_partial | length) + 1)' "$tmp/drains" | wc -l)" 0
check "stat per slab" "$(jq -c 'select(([.stats[] | select(. == "free_add_partial" or . == "deactivate_empty")] | length) != (.cpu_partial | length))' "$tmp/drains" | wc -l)" 0
check "drain's last stats" "$(jq -c 'select(.stats[-2:] != ["cpu_partial_drain", "cpu_partial_free"])' "$tmp/drains" | wc -l)" 0
check "sites go on after the drain" "$(jq -c 'select(.sites | map(.[0]) | index("P3") | not)' "$tmp/drains" | wc -l)" 0
check "chain = cpu_partial_pages" "$(jq -c 'select((.cpu_partial | length) != .cpu_partial_pages)' "$tmp/full" | wc -l)" 0

finish
