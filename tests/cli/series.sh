#!/usr/bin/env bash
# scenarios/series-2016.yaml as shipped, reduced in size only (inner 1,
# batches 1 and 64, 3 samples): its 29 runs' point numbers follow series
# order (point k = the k-th commit of `numasim list commits`, recorded as
# runs.kernel_model), it runs sampled accounting, and under exact rows
# (memo, as the seed) its points 4 (v3 04) and 5 (682a3385) equal the first
# seed's two kernels (scenarios/seed-zonelist.yaml, the same reduction)
# within 0.5 % per Min row (docs/design/series-2016.md; what sampled accounting
# moves at full size: docs/results/series-2016-2026-12-07.md).
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

small=(--set workload.inner_iterations=1 --set 'workload.batches=[1, 64]'
	--set workload.outer_samples=3 --set workload.drop_samples=2 --jobs 2)
"$NUMASIM" run -q "$SRC/scenarios/series-2016.yaml" --db "$tmp/s.db" "${small[@]}" \
	>"$tmp/s.txt" 2>"$tmp/err" || { bad "series run"; cat "$tmp/err"; }
"$NUMASIM" run -q "$SRC/scenarios/seed-zonelist.yaml" --db "$tmp/z.db" "${small[@]}" \
	>"$tmp/z.txt" 2>"$tmp/err" || { bad "seed run"; cat "$tmp/err"; }
check "series runs" "$(q "$tmp/s.db" "select count(*) from runs where status = 'ok'")" "29"
check "series accounting" "$(q "$tmp/s.db" "select count(*) from params where key = 'cost.accounting' and value = 'sampled'")" "29"
"$NUMASIM" run -q "$SRC/scenarios/series-2016.yaml" --db "$tmp/m.db" "${small[@]}" \
	--set cost.accounting=memo >/dev/null 2>"$tmp/err" || { bad "series run, memo"; cat "$tmp/err"; }

# --- point k is the k-th commit in series order ------------------------------
"$NUMASIM" list commits --format csv >"$tmp/list.csv" || bad "list commits"
awk -F, '$1 == "commits" && $5 == "mm" { k = $6 + 0; print k "|" ($7 == "v4.6-rc2" ? $7 : "v4.6-rc2+series:" $7) }' \
	"$tmp/list.csv" >"$tmp/want.txt"
q "$tmp/s.db" "select point, kernel_model from runs order by point" >"$tmp/got.txt"
check "points in series order" "$(diff "$tmp/want.txt" "$tmp/got.txt" >/dev/null && echo same)" "same"
check "point 5 is 682a3385" "$(q "$tmp/s.db" "select kernel_model from runs where point = 5")" \
	"v4.6-rc2+series:682a3385e773"

# --- points 4 and 5 against the seed's two kernels ----------------------------
mins() {   # mins DB POINT: metric|Min of every per-N series
	q "$1" "select s.metric, min(s.value) from samples s join runs r using (run_id)
		where r.point = $2 and s.metric glob '*-odr0-*' group by s.metric order by s.metric"
}
for pair in "4 0" "5 1"; do
	set -- $pair
	mins "$tmp/m.db" "$1" >"$tmp/a.txt"
	mins "$tmp/z.db" "$2" >"$tmp/b.txt"
	rows=$(wc -l <"$tmp/a.txt")
	[ "$rows" -ge 6 ] && ok || bad "point $1: $rows Min rows"
	far=$(paste -d'|' "$tmp/a.txt" "$tmp/b.txt" | awk -F'|' '
		$1 != $3 { n++; next }
		{ d = $2 - $4; if (d < 0) d = -d; if (d > 0.005 * $4) n++ }
		END { print n + 0 }')
	check "series point $1 = seed point $2 within 0.5 %" "$far" "0"
done

# --- the HTML report of the series: one column per kernel ---------------------
"$NUMASIM" report "$tmp/s.db" --format html -o "$tmp/s.html" --timeout 0 2>"$tmp/err" ||
	{ bad "report --timeout 0"; cat "$tmp/err"; }
cols=$(grep -o '<table class="cmp" id="compare-pagealloc".*</thead>' "$tmp/s.html" | grep -o '<th[ >]' | wc -l)
check "html compare columns" "$cols" "32"
pcols=$(sed -n '/<section id="profile"/,/<\/thead>/p' "$tmp/s.html" | grep -o '<th>' | wc -l)
check "html profile columns" "$pcols" "31"
run_err_like "report --timeout -1" "--timeout" report "$tmp/s.db" --timeout -1

finish
