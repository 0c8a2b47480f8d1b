#!/usr/bin/env bash
# numasim report (issue "What a new user trips over", item 7): every branch
# site row names its function (stored by run in branches.function; for a
# database written before that, from numasim's own site tables); --run N
# prints the run's values once, not a one-column comparison against
# itself; --top N limits every section (machines, variants, policies,
# compare metrics, profile, branch sites, the per-run table); counts are
# integers and percentages have two decimals.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 not installed"; exit 77; }

P=$tmp/p.db
"$NUMASIM" run -q "$SRC/tests/scenarios/tiny-pagealloc.yaml" --db "$P" >/dev/null 2>"$tmp/err" ||
	{ cat "$tmp/err"; bad "run"; }

# --- functions of branch sites -----------------------------------------------------
check "stored functions" "$(sqlite3 "$P" "SELECT count(*) FROM branches WHERE function IS NULL OR function = ''")" 0
check "A30b is in __zone_watermark_ok" \
	"$(sqlite3 "$P" "SELECT DISTINCT function FROM branches WHERE site = 'A30b'")" __zone_watermark_ok
# summary table: the column after the site is never empty
"$NUMASIM" report "$P" >"$tmp/sum" || bad "report"
sed -n '/^Branch sites:/,/^([0-9]* rows)/p' "$tmp/sum" | sed '1,3d;$d' >"$tmp/br"
[ -s "$tmp/br" ] && ok || bad "summary branch table is empty"
check "summary: every site has a function" "$(awk 'NF != 7' "$tmp/br" | wc -l)" 0
# per-run table: the Function column, never '?'
"$NUMASIM" report "$P" --run 1 >"$tmp/r1" || bad "report --run 1"
grep -q '^  Site .* Fall-through  Function$' "$tmp/r1" && ok || bad "per-run branch header has no Function"
sed -n '/Branch sites (by executions)/,/^$/p' "$tmp/r1" | sed '1,2d;/^$/d' >"$tmp/br1"
check "per-run: every site has a function" "$(awk '$NF == "?" || NF != 8' "$tmp/br1" | wc -l)" 0
# an older database without stored functions: named from the site tables
cp "$P" "$tmp/old.db"
sqlite3 "$tmp/old.db" "UPDATE branches SET function = NULL"
"$NUMASIM" report "$tmp/old.db" --run 1 >"$tmp/o1" || bad "report old"
check "old database: same branch table" "$(sed -n '/Branch sites/,/^$/p' "$tmp/o1")" \
	"$(sed -n '/Branch sites/,/^$/p' "$tmp/r1")"

# --- --run N: the run's values once -----------------------------------------------
sed -n '/^pagealloc: scenario/,$p' "$tmp/r1" >"$tmp/t1"
grep -q '^Min      alloc-odr0-1  *[0-9]*\.[0-9][0-9]$' "$tmp/t1" && ok || bad "--run: values only: $(grep -m1 '^Min' "$tmp/t1")"
check "--run: no comparison with itself" "$(grep -c '%)' "$tmp/t1")" 0

# --- --top limits every section ------------------------------------------------------
"$NUMASIM" report "$P" --top 2 >"$tmp/t2" || bad "report --top 2"
check "--top 2 policies" "$(sed -n '/^Policies/,/^(/p' "$tmp/t2" | grep -c '^policy\.')" 2
check "--top 2 compare Min rows" "$(grep -c '^Min ' "$tmp/t2")" 2
check "--top 2 compare difference rows" "$(grep -c '^Diff     ' "$tmp/t2")" 2
grep -q '^(2 of 12 metrics; --top 0 prints all)$' "$tmp/t2" && ok || bad "--top 2: no note of the metrics left out"
check "--top 2 profile functions" "$(sed -n '/^Profile:/,/^(/p' "$tmp/t2" | sed '1,3d;$d' | awk '{print $1}' | sort -u | wc -l)" 2
check "--top 2 branch sites" "$(sed -n '/^Branch sites:/,/^(/p' "$tmp/t2" | sed '1,3d;$d' | awk '{print $1}' | sort -u | wc -l)" 2
"$NUMASIM" report "$P" --runs --top 2 >"$tmp/t3" || bad "report --runs --top 2"
check "--runs --top 2 table series" "$(sed -n '/^pagealloc: scenario/,$p' "$tmp/t3" | grep -c '^Min ')" 2
check "--runs --top 2 profile rows" "$(grep -c '^  *[0-9.]*%  ' "$tmp/t3")" 4

# --- formats: integer counts, two-decimal percentages ---------------------------------
sed -n '/^Profile:/,/^(/p' "$tmp/sum" | sed '1,3d;$d' >"$tmp/pr"
check "profile: integer counts, %.2f self_pct" \
	"$(awk '$3 !~ /^[0-9]+$/ || $4 !~ /^[0-9]+$/ || $5 !~ /^[0-9]+\.[0-9][0-9]$/' "$tmp/pr" | wc -l)" 0
check "branches: integer counts, %.2f rates" \
	"$(awk '$4 !~ /^[0-9]+$/ || $6 !~ /^[0-9]+$/ || $5 !~ /^[0-9]+\.[0-9][0-9]$/ || $7 !~ /^[0-9]+\.[0-9][0-9]$/' "$tmp/br" | wc -l)" 0
finish
