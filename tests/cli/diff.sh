#!/usr/bin/env bash
# CLI test of `numasim diff` (analysis/diff.h) on tiny pagealloc databases:
# the two variants of one database (pre-682a3385 and 682a3385), the same
# two runs named with --run, the same as two databases, and three values
# of a parameter with --by.  Every figure of the JSON document is checked
# against `numasim query` on the same database (sums over the runs
# divided by the runs' allocs metric; Min and Amean of the samples);
# next_zones_zonelist's self cycles are gone after 682a3385 and its
# callers' grown, first in |delta| order, in text and JSON; the JSON is
# valid UTF-8 whatever the names, the CSV well-formed and formula-guarded;
# the HTML report has the section; bad input exits 2 with nothing on
# standard output.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_jq
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }

T=$SRC/tests/scenarios/tiny-pagealloc.yaml
db=$tmp/r.db pre=$tmp/pre.db post=$tmp/post.db three=$tmp/three.db
"$NUMASIM" run -q "$T" --db "$db" >/dev/null 2>&1 || bad "run"
"$NUMASIM" run -q "$T" --set kernel.zonelist_iter=pre-682a3385 --db "$pre" >/dev/null 2>&1 ||
	bad "run pre"
"$NUMASIM" run -q "$T" --set kernel.zonelist_iter=682a3385 --db "$post" >/dev/null 2>&1 ||
	bad "run post"
"$NUMASIM" run -q "$T" --set kernel.zonelist_iter=682a3385 \
	--sweep workload.inner_iterations=10,20,30 --db "$three" >/dev/null 2>&1 || bad "run three"

# qv DB SQL: the rows of numasim query as CSV, without the header
qv() { "$NUMASIM" query "$1" "$2" --format csv | tail -n +2 | tr -d '\r'; }

# --- the two variants of one database
"$NUMASIM" diff "$db" >"$tmp/text" 2>"$tmp/err" || { bad "diff text"; cat "$tmp/err"; }
"$NUMASIM" diff "$db" --format json >"$tmp/j" 2>"$tmp/err" || { bad "diff json"; cat "$tmp/err"; }
jq -e . "$tmp/j" >/dev/null && ok || bad "json does not parse"
check "groups" "$(jq -r '[.groups[] | .label] | join(" ")' "$tmp/j")" \
	"zonelist_iter=pre-682a3385 zonelist_iter=682a3385"
check "per operation" "$(jq -r .per "$tmp/j")" operation

# the first function: next_zones_zonelist, out of line before, inlined after,
# its self cycles gone; the next two its callers, grown
check "first function" "$(jq -r '.functions[0] | "\(.function) \(.layout_baseline) \(.layout) \(.self) \(.self_delta_pct)"' "$tmp/j")" \
	"next_zones_zonelist out of line inlined 0 -100"
check "then its callers, grown" "$(jq -r '[.functions[1,2] | select(.self_delta > 0) | .function] | sort | join(" ")' "$tmp/j")" \
	"__alloc_pages_nodemask get_page_from_freelist"
# sorted by |delta| of self cycles
unsorted=$(jq '[.functions[] | (.self_delta | fabs)] | . as $a | [range(1; length) | select($a[. - 1] < $a[.])] | length' "$tmp/j")
check "functions sorted by |delta self|" "$unsorted" 0
unsorted=$(jq '[.branches[] | (.executed_delta | fabs)] | . as $a | [range(1; length) | select($a[. - 1] < $a[.])] | length' "$tmp/j")
check "branch sites sorted by |delta executed|" "$unsorted" 0
# the text says the same: first row, its layout and percentages
row=$(awk '/^# Functions/ {getline; getline; print; exit}' "$tmp/text")
set -- $row
check "text: first function" "$1 $2 $5" "next_zones_zonelist oi -100.00%"
want=$(qv "$db" "SELECT printf('%.2f', p.self_cycles / m.value) FROM profile p JOIN metrics m
	ON m.run_id = p.run_id AND m.name = 'allocs' WHERE p.run_id = 1 AND p.function = 'next_zones_zonelist'")
check "text: its self cycles per allocation = query" "$3" "$want"

# every figure of the document against query: per function and run, the
# profile's self, total and calls / allocs; per site executed, mispredicted
fig() { jq -r "$2" "$1" | awk '{ printf "%s", $1; for (i = 2; i <= NF; i++) printf " %.6f", $i; print "" }' | sort; }
got=$(fig "$tmp/j" '.functions[] | "\(.function) \(.self_baseline) \(.total_baseline) \(.calls_baseline) \(.self) \(.total) \(.calls)"')
want=$(qv "$db" "SELECT a.function, a.self_cycles / ma.value, a.total_cycles / ma.value,
	a.calls / ma.value, b.self_cycles / mb.value, b.total_cycles / mb.value, b.calls / mb.value
	FROM profile a JOIN profile b ON b.function = a.function AND b.run_id = 2
	JOIN metrics ma ON ma.run_id = 1 AND ma.name = 'allocs'
	JOIN metrics mb ON mb.run_id = 2 AND mb.name = 'allocs'
	WHERE a.run_id = 1 AND (a.calls + a.self_cycles + a.total_cycles +
	b.calls + b.self_cycles + b.total_cycles) > 0" |
	tr ',' ' ' | awk '{ printf "%s", $1; for (i = 2; i <= NF; i++) printf " %.6f", $i; print "" }' | sort)
[ -n "$want" ] && ok || bad "query: no profile rows"
check "functions: every figure = query" "$got" "$want"
got=$(fig "$tmp/j" '.branches[] | "\(.site) \(.executed_baseline) \(.mispredicted_baseline) \(.executed) \(.mispredicted)"')
want=$(qv "$db" "WITH s AS (SELECT site FROM branches WHERE run_id IN (1, 2) GROUP BY site
	HAVING sum(executed + mispredicted) > 0),
	m AS (SELECT run_id, value FROM metrics WHERE name = 'allocs')
	SELECT s.site,
	  coalesce((SELECT executed FROM branches WHERE run_id = 1 AND site = s.site), 0) / m1.value,
	  coalesce((SELECT mispredicted FROM branches WHERE run_id = 1 AND site = s.site), 0) / m1.value,
	  coalesce((SELECT executed FROM branches WHERE run_id = 2 AND site = s.site), 0) / m2.value,
	  coalesce((SELECT mispredicted FROM branches WHERE run_id = 2 AND site = s.site), 0) / m2.value
	FROM s, m m1, m m2 WHERE m1.run_id = 1 AND m2.run_id = 2" |
	tr ',' ' ' | awk '{ printf "%s", $1; for (i = 2; i <= NF; i++) printf " %.6f", $i; print "" }' | sort)
check "branch sites: every figure = query" "$got" "$want"
# metrics: Min and Amean of the samples, per variant
got=$(fig "$tmp/j" '.stats[] | "\(.metric)/\(.stat) \(.value_baseline) \(.value)"')
want=$(qv "$db" "SELECT a.metric || '/' || s.stat, CASE s.stat WHEN 'Min' THEN a.mn ELSE a.av END,
	CASE s.stat WHEN 'Min' THEN b.mn ELSE b.av END
	FROM (SELECT metric, min(value) AS mn, avg(value) AS av FROM samples WHERE run_id = 1
	      GROUP BY metric) a
	JOIN (SELECT metric, min(value) AS mn, avg(value) AS av FROM samples WHERE run_id = 2
	      GROUP BY metric) b USING (metric)
	CROSS JOIN (SELECT 'Min' AS stat UNION ALL SELECT 'Amean') s" |
	tr ',' ' ' | awk '{ printf "%s", $1; for (i = 2; i <= NF; i++) printf " %.6f", $i; print "" }' | sort)
[ "$(echo "$want" | wc -l)" -ge 24 ] && ok || bad "query: too few sample series"
check "metrics: Min and Amean = query" "$got" "$want"

# --- the same two runs by --run, and as two databases: the same figures
strip() { jq -c '[.functions[], .branches[], .stats[]] | map(del(.group))' "$1"; }
"$NUMASIM" diff "$db" --run 1 --run 2 --format json >"$tmp/jr" || bad "diff --run"
check "--run 1 --run 2 = the variants" "$(strip "$tmp/jr")" "$(strip "$tmp/j")"
check "--run labels" "$(jq -r '[.groups[].label] | join(",")' "$tmp/jr")" "run 1,run 2"
"$NUMASIM" diff "$pre" "$post" --format json >"$tmp/jd" || bad "diff two databases"
check "two databases = the variants" "$(strip "$tmp/jd")" "$(strip "$tmp/j")"
check "two databases: labels" "$(jq -r '[.groups[].label] | join(",")' "$tmp/jd")" "$pre,$post"
"$NUMASIM" diff "$pre" "$post" --run 1 --run 1 --format json >"$tmp/jdr" || bad "diff two databases --run"
check "two databases --run = the variants" "$(strip "$tmp/jdr")" "$(strip "$tmp/j")"
# --baseline turns the deltas round; a short variant name works
"$NUMASIM" diff "$db" --baseline 682a3385 --format json >"$tmp/jb" || bad "diff --baseline"
check "--baseline: next_zones_zonelist new" \
	"$(jq -r '.functions[] | select(.function == "next_zones_zonelist") | "\(.self_baseline) \(.self_delta_pct)"' "$tmp/jb")" "0 null"

# --- --by over three values: the baseline column, two delta columns
"$NUMASIM" diff "$three" --by workload.inner_iterations --format json >"$tmp/j3" || bad "diff --by"
check "--by: three groups, baseline first" "$(jq -r '[.groups[] | "\(.label):\(.baseline)"] | join(" ")' "$tmp/j3")" \
	"10:true 20:false 30:false"
nf=$(jq '[.functions[] | .function] | unique | length' "$tmp/j3")
check "--by: a row per function and other group" "$(jq '.functions | length' "$tmp/j3")" $((2 * nf))
got=$(jq -r '.functions[] | select(.function == "__rmqueue" and .group == "30") | .self' "$tmp/j3" |
	awk '{printf "%.6f", $1}')
want=$(qv "$three" "SELECT printf('%.6f', p.self_cycles / m.value) FROM profile p JOIN metrics m
	ON m.run_id = p.run_id AND m.name = 'allocs' WHERE p.run_id = 3 AND p.function = '__rmqueue'")
check "--by: a third group's figure = query" "$got" "$want"
"$NUMASIM" diff "$three" --by workload.inner_iterations >"$tmp/t3" || bad "diff --by text"
grep -q 'delta%\[2\]' "$tmp/t3" && ok || bad "--by text: no delta%[2] column"
"$NUMASIM" diff "$three" --by workload.inner_iterations --group 30 --group 10 --format json >"$tmp/j3s" ||
	bad "diff --group"
check "--group order" "$(jq -r '[.groups[].label] | join(",")' "$tmp/j3s")" "30,10"

# --- CSV: well-formed, formula cells guarded; JSON valid UTF-8 whatever the names
"$NUMASIM" diff "$db" --format csv >"$tmp/c" || bad "diff csv"
python3 - "$tmp/c" <<'EOF' && ok || bad "csv is not well-formed"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
assert rows[0][0] == 'table' and len(rows) > 100, rows[:1]
assert all(len(r) == len(rows[0]) for r in rows)
assert {r[0] for r in rows[1:]} >= {'meta', 'groups', 'stats', 'functions', 'branches'}
EOF
ed=$tmp/edited.db
cp "$db" "$ed"
sqlite3 "$ed" "UPDATE branches SET site = '=HYPERLINK(\"x\")' WHERE site = 'A10a';
	UPDATE profile SET function = CAST(X'6E6578745FFF7A6F6E6573' AS TEXT) || '<b>'
	WHERE function = 'next_zones_zonelist';" || bad "edit"
"$NUMASIM" diff "$ed" --format csv >"$tmp/ce" || bad "diff csv, edited"
grep -q '^branches,.*,"'"'"'=HYPERLINK(""x"")",' "$tmp/ce" && ok || bad "csv: formula cell not guarded"
"$NUMASIM" diff "$ed" --format json >"$tmp/je" || bad "diff json, edited"
python3 -c "import json,sys; json.loads(open(sys.argv[1],'rb').read().decode('utf-8', 'strict'))" "$tmp/je" &&
	ok || bad "json is not valid UTF-8"
check "json: the bad byte is U+FFFD" "$(jq -r '.functions[0].function' "$tmp/je")" $'next_\uFFFDzones<b>'

# --- the HTML report's section
"$NUMASIM" report "$db" --format html -o "$tmp/r.html" || bad "report html"
grep -q '<section id="diff"' "$tmp/r.html" && ok || bad "html: no diff section"
sec=$(sed -n '/<section id="diff"/,/<\/section>/p' "$tmp/r.html")
grep -q '<tr><td>next_zones_zonelist</td><td>oi</td>' <<<"$sec" && ok ||
	bad "html: next_zones_zonelist not in the diff section"
"$NUMASIM" report "$ed" --format html -o "$tmp/e.html" || bad "report html, edited"
grep -q 'zones&lt;b&gt;' "$tmp/e.html" && ok || bad "html: a name not escaped"

# --- bad input: exit 2, nothing on stdout
run_err_like "unknown variant" "did you mean 'zonelist_iter=682a3385'" diff "$db" \
	--group zonelist_iter=682a3358
run_err_like "unknown baseline" "did you mean '682a3385'" diff "$db" --baseline 682a335
run_err_like "unknown run" "no run 9" diff "$db" --run 1 --run 9
run_err_like "unknown key" "unknown key 'kernel.nothing'" diff "$db" --by kernel.nothing
run_err_like "one group" "only one group" diff "$pre"
run_err_like "--run with --by" "takes no --by" diff "$db" --run 1 --run 2 --by variant
run_err_like "runs per database" "give 2 --run" diff "$pre" "$post" --run 1
run_err_like "missing database" "no such file" diff "$tmp/none.db"
run_err_like "no database" "no database file" diff
run_err_like "bad --where" "error:" diff "$db" --where variant
# an edited table (a NULL where the schema says NOT NULL) is refused, named
nul=$tmp/null.db
cp "$db" "$nul"
sql=$(sqlite3 "$nul" "SELECT sql FROM sqlite_schema WHERE name = 'profile'")
sql=$(sed -E 's/(\bcalls +INTEGER) +NOT NULL( CHECK \([^)]*\))?/\1/' <<<"$sql")
sqlite3 "$nul" "PRAGMA writable_schema = ON;
	UPDATE sqlite_schema SET sql = '${sql//\'/\'\'}' WHERE name = 'profile';" || bad "schema edit"
sqlite3 "$nul" "UPDATE profile SET calls = NULL WHERE run_id = 2 AND function = 'expand'" ||
	bad "null edit"
run_err_like "NULL calls" "profile" diff "$nul"
finish
