#!/usr/bin/env bash
# CLI tests for the analysis commands on small databases built here (the
# tiny pagealloc and messaging scenarios): numasim compare (mmtests rows,
# percentages, Welch block, --by/--baseline/--metric/--where, several
# databases), query (formats, v_* views, writes refused with the file
# byte-identical), export (CSV/JSON, -o atomic, unknown table), plot (SVG
# well-formed with one series per variant and axis labels, bar charts,
# PNG through gnuplot or a clear error without it), report (the one-page
# summary), and the errors: missing paths, non-databases, empty files,
# unknown metrics, keys, tables, baselines: exit 2, nothing on stdout.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

P=$tmp/p.db
M=$tmp/m.db
xml_ok() {
	if command -v xmllint >/dev/null; then xmllint --noout "$1" 2>/dev/null
	else /usr/bin/python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$1"; fi
}

"$NUMASIM" run -q "$SRC/tests/scenarios/tiny-pagealloc.yaml" --db "$P" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; bad "run pagealloc"; }
"$NUMASIM" run -q "$SRC/tests/scenarios/tiny-messaging.yaml" --db "$M" >"$tmp/mrun" 2>"$tmp/err" || { cat "$tmp/err"; bad "run messaging"; }

# --- compare ---------------------------------------------------------------------
"$NUMASIM" compare "$P" --metric 'alloc-odr0-*' >"$tmp/c1" 2>"$tmp/err"
check "compare exit" "$?" 0
# a series' NAME.min metric is its Min row already: not listed again
check "no .min rows next to their series" "$(grep -c 'alloc-odr0-[0-9]*\.min' "$tmp/c1")" 0
for row in Min Amean Stddev CoeffVar Max; do
	check "compare $row rows" "$(grep -c "^$(printf '%-9s' $row) alloc-odr0-" "$tmp/c1")" 4
done
check "header 1" "$(sed -n 1p "$tmp/c1" | tr -s ' ')" " v4.6+patches1-4 v4.6+patches1-4+682a3385"
check "header 2" "$(sed -n 2p "$tmp/c1" | tr -s ' ')" "TSC ticks/op pre-682a3385 682a3385"
grep -q '^Min       alloc-odr0-1  *[0-9]*\.[0-9][0-9] (  0\.00%)  *[0-9]*\.[0-9][0-9] (  [0-9]\.[0-9][0-9]%)$' "$tmp/c1" &&
	ok || bad "Min row layout / positive improvement"
check "numeric order" "$(grep '^Min' "$tmp/c1" | awk '{print $2}' | tr '\n' ' ')" \
	"alloc-odr0-1 alloc-odr0-2 alloc-odr0-64 alloc-odr0-512 "
grep -q '^Difference against pre-682a3385 over runs' "$tmp/c1" && ok || bad "difference header"
# one run per variant: the difference of the runs, no test over a run's samples
check "one-run rows" "$(grep -c '^Diff      alloc-odr0-[0-9]*  *1 run  *-[0-9.]*$' "$tmp/c1")" 4
grep -q '^Diff      alloc-odr0-64  *1 run  *-24\.00$' "$tmp/c1" && ok || bad "alloc-odr0-64 difference row"

# Amean in the table equals the mean of the samples in SQL
want=$("$NUMASIM" query "$P" "SELECT printf('%.2f', avg(value)) FROM v_samples WHERE metric = 'alloc-odr0-2' AND variant = 'zonelist_iter=682a3385'" --format csv | tail -n1 | tr -d '\r')
check "Amean = SQL avg" "$(grep '^Amean     alloc-odr0-2 ' "$tmp/c1" | awk '{print $6}')" "$want"
# the same Min values as the table numasim run prints (analysis/table.c)
"$NUMASIM" report "$P" --runs >"$tmp/rr"
check "Min rows as run's table" "$(grep '^Min      alloc' "$tmp/rr" | tr -s ' ')" "$(grep '^Min' "$tmp/c1" | tr -s ' ')"
# messaging: max/min/avg/stdev per layout and the p-value
"$NUMASIM" compare "$M" --metric total_time_s >"$tmp/c2"
check "messaging exit" "$?" 0
check "messaging rows" "$(grep -c '^\(Min\|Amean\|Stddev\|CoeffVar\|Max\) *total_time_s' "$tmp/c2")" 5
grep -q '^Diff      total_time_s  *p=0\.[0-9]\{4\}' "$tmp/c2" && ok || bad "messaging p-value"
# --style seed: the seed's (and numasim run's) max./min./avg./stdev. and p-value
"$NUMASIM" compare "$M" --metric total_time_s --style seed >"$tmp/c2s"
check "seed style exit" "$?" 0
for row in max. min. avg. stdev.; do
	check "seed row $row" "$(grep "^$row " "$tmp/c2s" | tr -s ' ')" "$(grep "^$row " "$tmp/mrun" | tr -s ' ')"
done
check "seed p-value" "$(grep -o 'Welch t = .*' "$tmp/c2s")" "$(grep -o 'Welch t = .*' "$tmp/mrun" | head -n1)"
run_err_like "compare bad style" "unknown style" compare "$M" --style fancy
# --baseline swaps the sign and puts the baseline's column first (mmtests);
# --by a parameter; --where; two databases
"$NUMASIM" compare "$P" --metric alloc-odr0-1 --baseline 682a3385 >"$tmp/c3"
grep -q '^Min       alloc-odr0-1  *[0-9.]* (  0\.00%)  *[0-9.]* ( *-[0-9.]*%)$' "$tmp/c3" &&
	ok || bad "baseline swap"
"$NUMASIM" compare "$P" --by kernel.zonelist_iter --metric alloc-odr0-1 >"$tmp/c4"
check "by param header" "$(sed -n 1p "$tmp/c4" | tr -s ' ')" " kernel.zonelist_iter kernel.zonelist_iter"
"$NUMASIM" compare "$P" "$M" --by workload --metric 'total_time_s,alloc-odr0-1' >"$tmp/c5"
check "two databases" "$(sed -n 2p "$tmp/c5" | tr -s ' ')" " pagealloc messaging"
"$NUMASIM" compare "$M" --where variant=slab_free_layout=c270cf30 --metric total_time_s >"$tmp/c6"
check "where" "$(grep -c '^Diff ' "$tmp/c6")" 0
run_err_like "compare unknown key" "unknown key 'nosuch.key'" compare "$P" --by nosuch.key
run_err_like "compare unknown metric" "no metric matches" compare "$P" --metric 'nosuch*'
run_err_like "compare unknown baseline" "unknown baseline 'xyz'" compare "$P" --baseline xyz
run_err_like "compare where matches nothing" "no runs" compare "$P" --where machine=none
run_err_like "compare bad where" "KEY=VALUE" compare "$P" --where novalue
run_err_like "compare missing file" "no such file" compare "$tmp/missing.db"
run_err_like "compare no db" "no database" compare

# --- query -----------------------------------------------------------------------
sum0=$(sha256sum <"$P")
run_err_like "query DELETE" "writes" query "$P" "DELETE FROM runs"
run_err_like "query DROP" "writes" query "$P" "DROP TABLE runs"
run_err_like "query INSERT" "writes" query "$P" "INSERT INTO runs (run_id) VALUES (99)"
run_err_like "query two statements" "more than one" query "$P" "SELECT 1; DELETE FROM runs"
run_err_like "query bad SQL" "bad SQL" query "$P" "SELEKT 1"
run_err_like "query unknown table" "no such table" query "$P" "SELECT * FROM nosuch"
check "checksum unchanged" "$(sha256sum <"$P")" "$sum0"
"$NUMASIM" query "$P" "SELECT variant, count(*) AS n FROM v_metrics GROUP BY variant ORDER BY variant" >"$tmp/q1"
check "query exit" "$?" 0
check "query table" "$(cat "$tmp/q1")" "variant                      n
--------------------------  --
zonelist_iter=682a3385      28
zonelist_iter=pre-682a3385  28
(2 rows)"
check "query csv" "$("$NUMASIM" query "$P" "SELECT 'a,b' AS x, 'say \"hi\"' AS y, NULL AS z, 1.5 AS w" --format csv | od -c | head -2 | tr -s ' ')" \
	"$(printf 'x,y,z,w\r\n"a,b","say ""hi""",,1.5\r\n' | od -c | head -2 | tr -s ' ')"
check "query json" "$("$NUMASIM" query "$P" "SELECT 1 AS a, 'x\"y' AS b, NULL AS c" --format json)" '[
  {"a": 1, "b": "x\"y", "c": null}
]'
for v in v_runs v_params v_metrics v_samples v_counters v_profile v_branches; do
	n=$("$NUMASIM" query "$P" "SELECT count(*) FROM $v WHERE variant <> ''" --format csv | tail -n1 | tr -d '\r')
	[ "$n" -gt 0 ] 2>/dev/null && ok || bad "view $v empty ($n)"
done
check "v_samples rows" "$("$NUMASIM" query "$P" "SELECT (SELECT count(*) FROM v_samples) = (SELECT count(*) FROM samples)" --format csv | tail -n1 | tr -d '\r')" 1
run_err_like "query bad format" "unknown format" query "$P" "SELECT 1" --format xml
run_err_like "query missing db" "no such file" query "$tmp/none.db" "SELECT 1"
printf 'hello, this is not a database\n' >"$tmp/text.db"
run_err_like "query text file" "not a numasim results database" query "$tmp/text.db" "SELECT 1"
: >"$tmp/empty.db"
run_err_like "query empty file" "empty file" query "$tmp/empty.db" "SELECT 1"
check "empty file untouched" "$(stat -c %s "$tmp/empty.db")" 0

# --- export ----------------------------------------------------------------------
"$NUMASIM" export "$P" --format csv --table v_metrics -o "$tmp/m.csv"
check "export exit" "$?" 0
check "export csv rows" "$(wc -l <"$tmp/m.csv" | tr -d ' ')" 57
head -n1 "$tmp/m.csv" | grep -q '^run_id,scenario,point,repetition,seed,machine,workload,variant,kernel_model,status,name,value,unit' &&
	ok || bad "export csv header"
"$NUMASIM" export "$P" --format json --query "SELECT run_id, name, value FROM metrics WHERE name = 'allocs' ORDER BY run_id" >"$tmp/e.json"
check "export json" "$(tr -d ' \n' <"$tmp/e.json")" '[{"run_id":1,"name":"allocs","value":174900},{"run_id":2,"name":"allocs","value":174900}]'
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d) == 56' <(
	"$NUMASIM" export "$P" --format json --table metrics) && ok || bad "export json parses"
run_err_like "export unknown table" "no table or view 'nosuch'" export "$P" --format csv --table nosuch
run_err_like "export no format" "--format" export "$P" --table runs
run_err_like "export table and query" "either" export "$P" --format csv --table runs --query "SELECT 1"
run_err_like "export writing query" "writes" export "$P" --format csv --query "DELETE FROM runs" -o "$tmp/x.csv"
[ ! -e "$tmp/x.csv" ] && ok || bad "export left a file on failure"
check "no temp files" "$(ls "$tmp" | grep -c tmp)" 0

# --- plot ------------------------------------------------------------------------
"$NUMASIM" plot "$P" --metric 'alloc-odr0-*' -o "$tmp/l.svg"
check "plot exit" "$?" 0
xml_ok "$tmp/l.svg" && ok || bad "line SVG not well-formed"
check "line series" "$(grep -c '<g class="series"' "$tmp/l.svg")" 2
check "line points" "$(grep -c '<circle' "$tmp/l.svg")" 8
check "error bars" "$(grep -c 'class="errorbar"' "$tmp/l.svg")" 8
grep -q 'class="xlabel"[^>]*>batch size' "$tmp/l.svg" && grep -q 'class="ylabel"[^>]*>alloc-odr0-\*' "$tmp/l.svg" &&
	ok || bad "axis labels"
grep -q 'data-name="zonelist_iter=682a3385"' "$tmp/l.svg" && ok || bad "series names"
grep -q '(log scale)' "$tmp/l.svg" && ok || bad "log x axis for batches 1..512"
"$NUMASIM" plot "$P" --metric 'alloc-odr0-*' -o "$tmp/l2.svg"
cmp -s "$tmp/l.svg" "$tmp/l2.svg" && ok || bad "plot not deterministic"
"$NUMASIM" plot "$P" --bars profile --top 5 -o "$tmp/b.svg"
xml_ok "$tmp/b.svg" && ok || bad "bar SVG not well-formed"
check "bar series" "$(grep -c '<g class="series"' "$tmp/b.svg")" 2
check "bars" "$(grep -c '<rect x=.*<title>' "$tmp/b.svg")" 10
grep -q '>get_page_from_freelist</text>' "$tmp/b.svg" && ok || bad "profile category"
"$NUMASIM" plot "$M" --bars mispredicted --top 4 -o "$tmp/bm.svg"
xml_ok "$tmp/bm.svg" && check "branch bars" "$(grep -c '<rect x=.*<title>' "$tmp/bm.svg")" 8
run_err_like "plot unknown metric" "no metric matches" plot "$P" --metric 'nosuch*' -o "$tmp/n.svg"
run_err_like "plot unknown by" "unknown key" plot "$P" --metric 'alloc-odr0-*' --by nosuch -o "$tmp/n.svg"
run_err_like "plot bad bars" "unknown bar chart" plot "$P" --bars pie -o "$tmp/n.svg"
run_err_like "plot bad suffix" "must end in .svg or .png" plot "$P" --bars profile -o "$tmp/n.pdf"
run_err_like "plot no -o" "no output file" plot "$P" --bars profile
[ ! -e "$tmp/n.svg" ] && ok || bad "plot left a file on failure"
NUMASIM_GNUPLOT=$tmp/no-gnuplot run_err_like "png without gnuplot" "needs gnuplot" plot "$P" --bars profile -o "$tmp/n.png"
if command -v gnuplot >/dev/null; then
	"$NUMASIM" plot "$P" --metric 'alloc-odr0-*' -o "$tmp/l.png" 2>"$tmp/err"
	check "png exit" "$?" 0
	check "png magic" "$(head -c 4 "$tmp/l.png" | od -An -c | tr -d ' ')" '211PNG'
fi

# --- report ----------------------------------------------------------------------
"$NUMASIM" report "$P" >"$tmp/r1"
check "report exit" "$?" 0
for s in '^Runs$' '^Machines$' '^Variants$' '^Policies' '^Compare: pagealloc runs by variant' \
	'^Profile: top 15 functions' '^Branch sites: top 15'; do
	grep -q "$s" "$tmp/r1" && ok || bad "report lacks $s"
done
check "report Min rows" "$(grep -c '^Min      ' "$tmp/r1")" 12
check "report no Max rows" "$(grep -c '^Max      ' "$tmp/r1")" 0
grep -q '^seed-2016-2s ' "$tmp/r1" && ok || bad "report machine"
check "report profile top 15" "$(sed -n '/^Profile/,/rows)/p' "$tmp/r1" | grep -c 'zonelist_iter=682a3385')" 15
"$NUMASIM" report "$M" >"$tmp/r2"
grep -q '^Diff     total_time_s' "$tmp/r2" && ok || bad "report messaging compare"
grep -q '^__slab_free ' "$tmp/r2" && ok || bad "report messaging profile"
run_err_like "report missing" "no such file" report "$tmp/none.db"
run_err_like "report text" "not a numasim results database" report "$tmp/text.db"

# --- a numasim database without runs -------------------------------------------------
if command -v sqlite3 >/dev/null; then
	E=$tmp/e.db
	cp "$P" "$E"
	sqlite3 "$E" "PRAGMA foreign_keys = ON; DELETE FROM runs; PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
	run_err_like "report no runs" "no runs in this database" report "$E"
	run_err_like "compare no runs" "no runs" compare "$E"
	run_err_like "plot no runs" "no metric matches" plot "$E" --metric 'alloc-*' -o "$tmp/e.svg"
	run_err_like "plot bars no runs" "no profile rows" plot "$E" --bars profile -o "$tmp/e.svg"
	check "query no runs" "$("$NUMASIM" query "$E" "SELECT count(*) FROM v_runs" --format csv | tail -n1 | tr -d '\r')" 0
fi

finish
