#!/usr/bin/env bash
# --format json|csv of compare, report, run, bench, validate and list, and
# query -o FILE (docs/reference/output-formats.md): every JSON document parses with
# jq, has the documented tables with exactly the documented keys (keys
# are stable: a change here is a change of the schema), and its values
# agree with the database; CSV has one header and a table column; a bad
# --format exits 2 with nothing on standard output.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_jq
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 not installed"; exit 77; }

# keys TABLE FILE: the sorted union of the keys of the rows of TABLE
keys() { jq -r --arg t "$1" '[.[$t][] | keys[]] | unique | join(",")' "$2"; }

db=$tmp/t.db
"$NUMASIM" run "$SRC/tests/scenarios/tiny-pagealloc.yaml" --db "$db" -q --format json >"$tmp/run.json"
check "run exit" "$?" 0
jq -e . "$tmp/run.json" >/dev/null && ok || bad "run json does not parse"
check "run command" "$(jq -r '.command + " " + (.format_version|tostring)' "$tmp/run.json")" "run 1"
check "run meta" "$(jq -r '[.scenario, .planned, .stored, .skipped] | map(tostring) | join(" ")' "$tmp/run.json")" "tiny-pagealloc 2 2 0"
check "run runs keys" "$(keys runs "$tmp/run.json")" "duration_s,kernel_model,machine,point,repetition,run_id,seed,status,variant,workload"
check "run params keys" "$(keys params "$tmp/run.json")" "key,run_id,value"
check "run metrics keys" "$(keys metrics "$tmp/run.json")" "name,run_id,unit,value"
check "run metrics rows" "$(jq '.metrics | length' "$tmp/run.json")" "$(sqlite3 "$db" 'SELECT count(*) FROM metrics')"
a=$(jq '.metrics[] | select(.run_id == 2 and .name == "alloc-odr0-1.min") | .value' "$tmp/run.json")
b=$(sqlite3 "$db" "SELECT value FROM metrics WHERE run_id = 2 AND name = 'alloc-odr0-1.min'")
awk -v a="$a" -v b="$b" 'BEGIN { exit !(a != "" && a == b + 0) }' && ok || bad "run metric value: $a vs $b"
check "run axes" "$(jq -r '[.axes[].key] | join(",")' "$tmp/run.json")" "kernel.zonelist_iter"

# --- compare ----------------------------------------------------------------------
"$NUMASIM" compare "$db" --metric 'alloc-odr0-*' --format json >"$tmp/c.json"
check "compare exit" "$?" 0
check "compare meta" "$(jq -r '[.command, .by, (.alpha|tostring), .metrics] | join(" ")' "$tmp/c.json")" "compare variant 0.05 alloc-odr0-*"
check "compare groups keys" "$(keys groups "$tmp/c.json")" "baseline,head,kernel_model,key,value"
check "compare stats keys" "$(keys stats "$tmp/c.json")" \
	"amean,amean_pct,bamean_50,bamean_50_pct,bamean_95,bamean_95_pct,bamean_99,bamean_99_pct,coeffvar,coeffvar_pct,group,hmean,hmean_pct,lower_is_better,max,max_pct,metric,min,min_pct,n,stddev,stddev_pct,unit"
check "compare welch keys" "$(keys welch "$tmp/c.json")" "alpha,baseline,ci_high,ci_low,df,diff,exact,group,metric,p,runs,runs_baseline,significant,t,test"
check "compare baseline first" "$(jq -r '.groups[0].baseline, .groups[1].baseline' "$tmp/c.json" | tr '\n' ' ')" "true false "
# 4 metrics (alloc-odr0-{1,2,64,512}) x 2 groups, 4 Welch rows
check "compare rows" "$(jq '[(.stats|length), (.welch|length)] | join(" ")' -r "$tmp/c.json")" "8 4"
# the values are the samples': Min of the baseline's alloc-odr0-1 samples
check "compare min" "$(jq '.stats[] | select(.metric == "alloc-odr0-1" and .group == "zonelist_iter=pre-682a3385") | .min' "$tmp/c.json")" \
	"$(sqlite3 "$db" "SELECT CAST(min(value) AS INTEGER) FROM samples s JOIN runs r USING (run_id) WHERE metric = 'alloc-odr0-1' AND variant = 'zonelist_iter=pre-682a3385'")"
check "compare n" "$(jq '.stats[0].n' "$tmp/c.json")" \
	"$(sqlite3 "$db" "SELECT count(*) FROM samples WHERE metric = 'alloc-odr0-1' AND run_id = 1")"
# the text table's Amean change for the same metric
txt=$("$NUMASIM" compare "$db" --metric 'alloc-odr0-1' | awk '$1 == "Amean" { gsub(/[()%]/, "", $NF); print $NF }')
js=$(jq -r '.stats[] | select(.metric == "alloc-odr0-1" and .baseline != true and .group == "zonelist_iter=682a3385") | .amean_pct * 100 | round / 100' "$tmp/c.json")
awk -v a="$txt" -v b="$js" 'BEGIN { exit !(a - b < 0.006 && b - a < 0.006) }' && ok || bad "Amean change: text $txt, json $js"
"$NUMASIM" compare "$db" --metric 'alloc-odr0-1' --by variant,workload --format json >"$tmp/cw.json"
check "compare within" "$(jq -r '.within + " " + (.stats[0].within)' "$tmp/cw.json")" "workload pagealloc"
"$NUMASIM" compare "$db" --metric 'alloc-odr0-1' --format csv >"$tmp/c.csv"
check "compare csv header" "$(head -1 "$tmp/c.csv" | cut -d, -f1-3)" "table,command,format_version"
check "compare csv stats rows" "$(grep -c '^stats,' "$tmp/c.csv")" 2
grep -q $'\r$' "$tmp/c.csv" && ok || bad "csv lines end in CRLF"

# --- report -----------------------------------------------------------------------
"$NUMASIM" report "$db" --format json >"$tmp/r.json"
check "report exit" "$?" 0
check "report tables" "$(jq -r 'keys | join(",")' "$tmp/r.json")" \
	"branches,command,database,format_version,groups,machines,overview,policies,profile,stats,top,variants,view,welch"
check "report overview" "$(jq -r '.overview[0] | "\(.runs) \(.ok) \(.failed)"' "$tmp/r.json")" "2 2 0"
check "report profile keys" "$(keys profile "$tmp/r.json")" "calls_per_run,function,self_core_cycles_per_run,self_pct,variant"
check "report branches keys" "$(keys branches "$tmp/r.json")" "executed_per_run,function,mispredict_pct,mispredicted_per_run,site,taken_pct,variant"
check "report compare labelled" "$(jq -r '[.stats[].workload] | unique | join(",")' "$tmp/r.json")" "pagealloc"
check "report self_pct is a number" "$(jq -r '.profile[0].self_pct | type' "$tmp/r.json")" "number"
"$NUMASIM" report "$db" --runs --top 3 --format json >"$tmp/rr.json"
check "report --runs tables" "$(jq -r '[.view, (.runs|length), ([.profile[].run_id]|unique|length), (.profile|length)] | map(tostring) | join(" ")' "$tmp/rr.json")" "runs 2 2 6"
check "report --runs profile keys" "$(keys profile "$tmp/rr.json")" "calls,cycles_per_call,function,inlined,run_id,self_cycles,self_pct,total_cycles"
check "report --runs branch keys" "$(keys branches "$tmp/rr.json")" "executed,fallthrough,function,mispredict_pct,mispredicted,run_id,site,taken,taken_pct"
check "report --runs top profile row" "$(jq -r '.profile[0] | "\(.function) \(.self_cycles)"' "$tmp/rr.json")" \
	"$(sqlite3 "$db" "SELECT function || ' ' || self_cycles FROM profile WHERE run_id = 1 ORDER BY self_cycles DESC LIMIT 1")"
"$NUMASIM" report "$db" --run 9 --format json >"$tmp/o" 2>"$tmp/e"
check "report unknown run exit" "$?" 2
check "report unknown run stdout" "$(wc -c <"$tmp/o")" 0
"$NUMASIM" report "$db" --format csv | head -2 | tr -d '\r' | tr '\n' ' ' | grep -q '^# meta command,format_version,' && ok || bad "report csv: the meta table first"

# --- bench ------------------------------------------------------------------------
"$NUMASIM" bench phold --lps 10 --events 2000 --repeat 2 --format json >"$tmp/b.json"
check "bench phold" "$(jq -r '[.benchmark, (.runs|length), .results[0].events] | map(tostring) | join(" ")' "$tmp/b.json")" "phold 2 2000"
check "bench phold runs keys" "$(keys runs "$tmp/b.json")" "cpu_s,events_per_cpu_s,events_per_s,host_s,run"
"$NUMASIM" bench pagealloc --pairs 3000 --profile 3 --format json >"$tmp/b.json"
check "bench pagealloc results keys" "$(keys results "$tmp/b.json")" "checksum,cycles_per_alloc,cycles_per_free,failed,pairs"
check "bench pagealloc profile rows" "$(jq '.profile | length' "$tmp/b.json")" 3
check "bench pagealloc counters" "$(jq -r '.counters[0].name' "$tmp/b.json")" "calls"
# the same cycles as the text report
t=$("$NUMASIM" bench pagealloc --pairs 3000 | awk '/sim cycles per alloc:/ { print $NF }')
check "bench pagealloc cycles" "$(jq -r '.results[0].cycles_per_alloc * 100 | round / 100' "$tmp/b.json")" "$(awk -v t="$t" 'BEGIN { print t + 0 }')"
"$NUMASIM" bench slub --pairs 2000 --format json >"$tmp/b.json"
check "bench slub" "$(jq -r '.benchmark + " " + (.results[0].pairs|tostring)' "$tmp/b.json")" "slub 2000"
"$NUMASIM" bench messaging --groups 1 --loops 5 --format json >"$tmp/b.json"
check "bench messaging keys" "$(keys results "$tmp/b.json")" \
	"ctx_switches,events,messages,preemptions,receiver_blocks,sender_blocks,total_time_s,wake_preemptions"

# --- validate ---------------------------------------------------------------------
"$NUMASIM" validate "$SRC/configs/rome-nps4.yaml" "$SRC/configs/costs/zen2.yaml" \
	"$SRC/tests/scenarios/tiny-pagealloc.yaml" "$SRC/tests/bad/machines/alias.yaml" \
	--format json >"$tmp/v.json" 2>"$tmp/v.err"
check "validate exit" "$?" 2
check "validate statuses" "$(jq -r '[.files[].status] | join(",")' "$tmp/v.json")" "ok,ok,ok,error"
check "validate kinds" "$(jq -r '[.files[0:3][].kind] | join(",")' "$tmp/v.json")" "machine,costs,scenario"
check "validate machine" "$(jq -r '.files[0] | "\(.name) \(.nodes) \(.cpus)"' "$tmp/v.json")" "rome-nps4 8 256"
check "validate error" "$(jq -r '.files[3] | "\(.line):\(.col) \(.exit_status)"' "$tmp/v.json")" "2:7 2"
check "validate doc exit" "$(jq '.exit_status' "$tmp/v.json")" 2
grep -q 'alias.yaml:2:7: error:' "$tmp/v.err" && ok || bad "validate error on stderr"

# --- list -------------------------------------------------------------------------
"$NUMASIM" list machines --format json >"$tmp/l.json"
check "list machines" "$(jq '.machines | length' "$tmp/l.json")" "$(ls "$SRC"/configs/*.yaml | wc -l)"
check "list machine keys" "$(keys machines "$tmp/l.json")" "cpus,description,memory_bytes,name,nodes,path"
# the same machine as validate sees it
check "list seed machine" "$(jq -r '.machines[] | select(.name == "seed-2016-2s") | "\(.nodes) \(.cpus) \(.memory_bytes)"' "$tmp/l.json")" \
	"$("$NUMASIM" validate seed-2016-2s --format json | jq -r '.files[0] | "\(.nodes) \(.cpus) \(.memory_bytes)"')"
"$NUMASIM" list machines | awk 'NR > 1 { print $1 }' >"$tmp/names"
check "list text names" "$(tr '\n' ' ' <"$tmp/names")" "$(ls "$SRC"/configs/*.yaml | xargs -n1 basename | sed 's/\.yaml$//' | tr '\n' ' ')"
check "list scenarios" "$("$NUMASIM" list scenarios --format json | jq '.scenarios | length')" "$(ls "$SRC"/scenarios/*.yaml | wc -l)"
check "list costs" "$("$NUMASIM" list costs --format csv | grep -c '^costs,')" "$(ls "$SRC"/configs/costs/*.yaml | wc -l)"
"$NUMASIM" list keys | grep -qx 'kernel.watermark_scale_factor' && ok || bad "list keys"
# every listed key is one --set accepts (the loader's own tables)
for k in $("$NUMASIM" list keys | grep -E '^(kernel|workload\.inner|policy\.cpuset)'); do
	"$NUMASIM" validate "$SRC/tests/scenarios/tiny-pagealloc.yaml" --set "$k=__bogus__" -q >/dev/null 2>"$tmp/e"
	grep -q 'unknown key\|unknown kernel knob' "$tmp/e" && bad "key $k refused as unknown" || ok
done

# --- query -o ---------------------------------------------------------------------
"$NUMASIM" query "$db" "SELECT count(*) AS n FROM runs" --format json -o "$tmp/q.json"
check "query -o exit" "$?" 0
check "query -o content" "$(jq '.[0].n' "$tmp/q.json")" 2
"$NUMASIM" query "$db" "SELECT * FROM nope" -o "$tmp/q2.json" 2>/dev/null
check "query -o bad SQL exit" "$?" 2
[ ! -e "$tmp/q2.json" ] && ok || bad "query -o wrote a file for bad SQL"

# --- bad --format: exit 2, nothing on stdout -----------------------------------------
for c in "compare $db" "report $db" "run $SRC/tests/scenarios/tiny-pagealloc.yaml --db $tmp/x.db" \
	 "bench pagealloc" "validate $SRC/configs/rome-nps4.yaml" "list machines"; do
	# shellcheck disable=SC2086
	"$NUMASIM" $c --format yaml >"$tmp/o" 2>"$tmp/e"
	check "$c --format yaml exit" "$?" 2
	check "$c --format yaml stdout" "$(wc -c <"$tmp/o")" 0
done
[ ! -e "$tmp/x.db" ] && ok || bad "run --format yaml created the database"
finish
