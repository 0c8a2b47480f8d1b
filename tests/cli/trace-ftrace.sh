#!/usr/bin/env bash
# Issue 49 item 10: `numasim trace` records carry the simulated timestamp,
# the CPU, the task and the call's cycles; --format ftrace prints them as
# `trace-cmd report -t` does (a cpus=N line, `TASK-PID [CPU]
# SECONDS.NANOSECONDS: EVENT: FIELDS` with v4.6's kmem formats), the same
# records as the JSON lines, and `numasim import trace` reads that text
# back (the round trip).
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_jq

PA=$SRC/tests/scenarios/tiny-pagealloc.yaml
MSG=$SRC/tests/scenarios/tiny-messaging.yaml

# --- the JSON records: timestamp, CPU, task, cycles ---------------------------
"$NUMASIM" trace "$PA" --events page_alloc,page_free --limit 400 >"$tmp/pa.jsonl" 2>"$tmp/err"
check "jsonl exit" "$?" 0
check "jsonl records" "$(wc -l <"$tmp/pa.jsonl")" 400
check "keys ts_ns cpu task pid cycles" \
	"$(jq -c 'select((has("ts_ns") and has("cpu") and has("task") and has("pid") and has("cycles")) | not)' "$tmp/pa.jsonl" | wc -l)" 0
check "every call has cycles" "$(jq -c 'select(.cycles <= 0)' "$tmp/pa.jsonl" | wc -l)" 0
check "pagealloc's task" "$(jq -r '"\(.task)-\(.pid)"' "$tmp/pa.jsonl" | sort -u)" "pagealloc-100"
# one CPU's clock: the timestamps of a run never go back
check "timestamps ascend" "$(jq -r 'select(.repetition == 0) | "\(.point) \(.ts_ns)"' "$tmp/pa.jsonl" |
	awk '$1 == p && $2 < t { n++ } { p = $1; t = $2 } END { print n + 0 }')" 0
# an allocation's tracepoint closes the call, a free's opens it: the next
# call starts no earlier than an allocation's timestamp
check "alloc then free" "$(jq -r '"\(.point) \(.event) \(.ts_ns)"' "$tmp/pa.jsonl" |
	awk '$1 == p && e == "mm_page_alloc" && $2 == "mm_page_free" && $3 < t { n++ } { p = $1; e = $2; t = $3 } END { print n + 0 }')" 0

"$NUMASIM" trace "$MSG" --events slab_free --limit 300 >"$tmp/sf.jsonl" 2>"$tmp/err"
check "slab_free exit" "$?" 0
check "slab_free tasks" "$(jq -r '.task' "$tmp/sf.jsonl" | sort -u)" "sched-messaging"
check "slab_free pids" "$(jq -c 'select(.pid < 1000)' "$tmp/sf.jsonl" | wc -l)" 0
check "slab_free cycles" "$(jq -c 'select(.cycles <= 0 or .ts_ns <= 0)' "$tmp/sf.jsonl" | wc -l)" 0

# --- ftrace text ----------------------------------------------------------------
"$NUMASIM" trace "$PA" --events page_alloc,page_free --limit 400 --format ftrace >"$tmp/pa.txt" 2>"$tmp/err"
check "ftrace exit" "$?" 0
grep -q '^cpus=[0-9][0-9]*$' "$tmp/pa.txt" && ok || bad "no cpus=N line"
re='^ *[^ ]{1,15}-[0-9]+ +\[[0-9]{3}\] +[0-9]+\.[0-9]{9}: (mm_page_alloc: +page=[0-9a-f]{16} pfn=[0-9]+ order=[0-9]+ migratetype=[0-9]+ gfp_flags=[A-Za-z0-9_|]+|mm_page_free: +page=[0-9a-f]{16} pfn=[0-9]+ order=[0-9]+)$'
check "event lines" "$(grep -v '^#' "$tmp/pa.txt" | grep -v '^cpus=' | grep -cEv "$re")" 0
check "ftrace records" "$(grep -cE "$re" "$tmp/pa.txt")" 400
# trace-cmd's columns: the event name ends at column 22 after the timestamp
check "event column" "$(grep -E "$re" "$tmp/pa.txt" | sed 's/^.*[0-9]: //' | awk '{ print index($0, "page=") }' | sort -u)" 23
# the same records: pfns, CPUs, tasks and timestamps
check "same pfns" "$(grep -oE 'pfn=[0-9]+' "$tmp/pa.txt" | cut -d= -f2 | md5sum)" "$(jq -r .pfn "$tmp/pa.jsonl" | md5sum)"
check "same CPUs" "$(grep -oE '\[[0-9]{3}\]' "$tmp/pa.txt" | tr -d '[]' | sed 's/^0*\([0-9]\)/\1/' | md5sum)" "$(jq -r .cpu "$tmp/pa.jsonl" | md5sum)"
check "same timestamps" "$(grep -E "$re" "$tmp/pa.txt" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { sub(":", "", $i); split($i, a, "."); print a[1] * 1000000000 + a[2] } }' | md5sum)" \
	"$(jq -r .ts_ns "$tmp/pa.jsonl" | md5sum)"
vm=0
while read -r page pfn; do
	[ "$(printf '%016x' $((0xffffea0000000000 + pfn * 64)))" = "$page" ] || vm=$((vm + 1))
done < <(grep -E "$re" "$tmp/pa.txt" | head -20 | sed -E 's/.* page=([0-9a-f]+) pfn=([0-9]+) .*/\1 \2/')
check "v4.6 page= is vmemmap + 64 x pfn" "$vm" 0

# --- the round trip: import trace reads what trace wrote ---------------------------
"$NUMASIM" import trace "$tmp/pa.txt" -o "$tmp/pa.nst" >"$tmp/imp" 2>"$tmp/err"
check "import exit" "$?" 0
check "import read every record" "$(awk '/^events read:/ { print $3 }' "$tmp/imp")" 400
check "import allocs" "$(awk '$1 == "mm_page_alloc" { print $2 }' "$tmp/imp")" "$(jq -c 'select(.event == "mm_page_alloc")' "$tmp/pa.jsonl" | wc -l)"
check "import frees" "$(awk '$1 == "mm_page_free" { print $2 }' "$tmp/imp")" "$(jq -c 'select(.event == "mm_page_free")' "$tmp/pa.jsonl" | wc -l)"
check "import bad lines" "$(awk '/bad lines skipped/ { print $4 }' "$tmp/imp")" 0
[ -s "$tmp/pa.nst" ] && ok || bad "import wrote no compact file"
# and the replay workload takes it
printf 'name: rt\nmachine: %s\nworkload: {type: replay, trace: %s}\n' \
	"$(awk '/^machine:/ {print $2}' "$PA")" "$tmp/pa.nst" >"$tmp/rt.yaml"
"$NUMASIM" validate "$tmp/rt.yaml" >"$tmp/v" 2>&1 && ok || bad "replay of the round trip: $(cat "$tmp/v")"

# __slab_free (no tracepoint): numasim's slab_free event, counted as other
"$NUMASIM" trace "$MSG" --events slab_free --limit 300 --format ftrace >"$tmp/sf.txt" 2>"$tmp/err"
check "slab_free ftrace exit" "$?" 0
check "slab_free lines" "$(grep -cE '^ *sched-messag[^ ]*-[0-9]+ +\[[0-9]{3}\] +[0-9]+\.[0-9]{9}: slab_free: +page=[0-9a-f]{16} name=[^ ]+ cnt=[0-9]+ inuse=[0-9]+ frozen=[01] node=[0-9]+ path=[a-z_]+ cycles=[0-9]+$' "$tmp/sf.txt")" 300
"$NUMASIM" import trace "$tmp/sf.txt" >"$tmp/imp2" 2>"$tmp/err"
check "slab_free import exit" "$?" 0
check "slab_free as other" "$(awk '/^  other events/ { print $5 }' "$tmp/imp2")" 300

# --- usage ---------------------------------------------------------------------------
run_err_like "bad format" "unknown format 'xml' (jsonl, ftrace)" trace "$PA" --events page_alloc --format xml
"$NUMASIM" trace --help | grep -q -- '--format F' && "$NUMASIM" trace --help | grep -q 'ftrace' && ok ||
	bad "trace --help does not describe --format ftrace"

finish
