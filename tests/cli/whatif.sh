#!/usr/bin/env bash
# The shipped what-if (scenarios/whatif-trace.yaml, docs/guide/whatif.md):
# the recorded-style trace is the one its generator writes; its three
# commands run (the trace replayed under v4.6-rc2, the whole 2016 series
# and v4.6-rc2 with scenarios/changes/series-layout.yaml) and `numasim
# diff` of the database names what should change: under the series
# next_zones_zonelist is gone (682a3385, inline) and __zone_watermark_ok
# nearly so (v3 20's shortcut), under the change file zone_statistics
# and get_pfnblock_flags_mask become inline (layout o -> i) with their
# self cycles moved to their callers, and what the change does not touch
# (__zone_watermark_ok, next_zones_zonelist) does not move; in text and JSON.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cmp -s <(bash "$SRC/tests/fixtures/traces/gen-whatif.sh") "$SRC/scenarios/whatif-trace.txt" && ok ||
	bad "scenarios/whatif-trace.txt is not what gen-whatif.sh writes"

db=$tmp/whatif.db
"$NUMASIM" run -q "$SRC/scenarios/whatif-trace.yaml" --db "$db" >/dev/null 2>"$tmp/err" ||
	{ bad "run 1"; cat "$tmp/err"; }
"$NUMASIM" run -q "$SRC/scenarios/whatif-trace.yaml" --db "$db" --set kernel.commit=v4.6-rc2 \
	--set "kernel.change=$SRC/scenarios/changes/series-layout.yaml" >/dev/null 2>"$tmp/err" ||
	{ bad "run 2"; cat "$tmp/err"; }
check "runs" "$(q "$db" "select group_concat(variant, ' ') from (select variant from runs order by run_id)" |
	sed 's/@[0-9a-f]*//')" "commit=v4.6-rc2 commit=479f854a207c commit=v4.6-rc2,change=series-layout"
check "events replayed" "$(q "$db" "select group_concat(cast(value as int), ' ') from v_metrics where name = 'calls'")" \
	"2232 2232 2232"

"$NUMASIM" diff "$db" >"$tmp/diff.txt" 2>"$tmp/err" || { bad "diff"; cat "$tmp/err"; }
check "groups" "$(grep -c '^# \[[0-9]\]' "$tmp/diff.txt")" "3"
# group [1] is the change file, [2] the series
grep -q '^# \[1\] commit=v4.6-rc2,change=series-layout' "$tmp/diff.txt" && ok || bad "[1] is not the change"
grep -q '^# \[2\] commit=479f854a207c' "$tmp/diff.txt" && ok || bad "[2] is not the series"
# a row: function layout self[0] delta[1] delta%[1] delta[2] delta%[2] ...
fn() {   # fn NAME: the function's row of the text diff
	awk -v f="$1" '/^# Functions/ {on=1} on && $1 == f {print; exit}' "$tmp/diff.txt"
}
set -- $(fn next_zones_zonelist)
check "next_zones_zonelist layout" "$2" "ooi"
check "next_zones_zonelist untouched by the change" "$4" "+0.00"
check "next_zones_zonelist gone under the series" "$7" "-100.00%"
set -- $(fn zone_statistics)
check "zone_statistics layout" "$2" "oii"
check "zone_statistics self gone under the change" "$5" "-100.00%"
set -- $(fn get_pfnblock_flags_mask)
check "get_pfnblock_flags_mask layout" "$2" "oii"
check "get_pfnblock_flags_mask under the change" "$5" "-100.00%"
set -- $(fn __zone_watermark_ok)
check "__zone_watermark_ok untouched by the change" "$4" "+0.00"
# the callers grow: get_page_from_freelist's self cycles under both
set -- $(fn get_page_from_freelist)
case $4$6 in +*+*) ok ;; *) bad "get_page_from_freelist's self should grow: $4 $6" ;; esac
# sorted by the largest |delta| of self cycles over the groups
awk '/^# Functions/ {on=1; getline; next}
	on && NF <= 3 {exit}
	on {a = $4; b = $6; sub(/^[+-]/, "", a); sub(/^[+-]/, "", b); print (a + 0 > b + 0 ? a : b)}' \
	"$tmp/diff.txt" >"$tmp/order"
[ -s "$tmp/order" ] && ok || bad "no function rows"
sort -g -r "$tmp/order" | cmp -s - "$tmp/order" && ok || bad "functions not sorted by |delta|"

if command -v jq >/dev/null; then
	"$NUMASIM" diff "$db" --format json >"$tmp/diff.json" || bad "diff json"
	check "json change: zone_statistics" "$(jq -r '.functions[] | select(.function == "zone_statistics" and
		(.group | test("change="))) | "\(.layout_baseline)/\(.layout) \(.self)"' "$tmp/diff.json")" "out of line/inlined 0"
	check "json series: next_zones_zonelist" "$(jq -r '.functions[] | select(.function == "next_zones_zonelist" and
		.group == "commit=479f854a207c") | .self' "$tmp/diff.json")" "0"
	check "json cycles_per_call better under both" "$(jq -r '[.stats[] | select(.metric == "cycles_per_call" and
		.stat == "Min") | (.value_delta < 0)] | all' "$tmp/diff.json")" "true"
fi
finish
