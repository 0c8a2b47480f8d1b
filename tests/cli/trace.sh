#!/usr/bin/env bash
# CLI tests for `numasim trace` on the tiny sched-messaging scenario (2
# layouts x 3 repetitions): every line is JSON with the issue's keys;
# --limit-per-run applies per run and every run is traced (--limit, the
# total, is tests/cli/trace-limits.sh's); FREE_FROZEN records
# have frozen=true; the sites start with the reference's S-sites and the
# variant's !n sites match the variant; stats start with free_slowpath;
# page_alloc/page_free records in the kmem tracepoint style; -o writes the
# same bytes; determinism; usage and scenario errors exit 2 with no output.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_jq

TINY=$SRC/tests/scenarios/tiny-messaging.yaml


# --- slab_free, whole runs --------------------------------------------------------
# the first 3000 records of each run (of about 32000): enough for every
# check below and quick for jq
"$NUMASIM" trace "$TINY" --events slab_free --format jsonl --limit-per-run 3000 >"$tmp/all" 2>"$tmp/err"
check "trace exit" "$?" 0
n=$(wc -l <"$tmp/all")
if [ "$n" -gt 100 ]; then ok; else bad "only $n slab_free records"; fi
check "every line parses" "$(jq -c . "$tmp/all" >/dev/null 2>&1; echo $?)" 0
keys='["event","point","repetition","cache","variant","has_cpu_partial","frozen","inuse","objects","freelist_empty","cnt","node","nr_partial","min_partial","cpu_partial_limit","cpu_partial","cpu_partial_pages","cpu_partial_pobjects","stats","sites","path"]'
check "keys present" "$(jq -c --argjson k "$keys" 'select(. as $o | $k | map(. as $x | $o | has($x)) | all | not)' "$tmp/all" | wc -l)" 0
check "runs traced" "$(jq -r '"\(.point)/\(.repetition)"' "$tmp/all" | sort -u | wc -l)" 6
check "variants" "$(jq -r .variant "$tmp/all" | sort -u | tr '\n' ' ')" "post pre "
check "variant matches point" \
	"$(jq -c 'select((.variant == "pre") != (.point | test("pre-c270cf30")))' "$tmp/all" | wc -l)" 0
check "free_frozen => frozen" \
	"$(jq -c 'select((.stats | index("free_frozen")) and (.frozen | not))' "$tmp/all" | wc -l)" 0
check "frozen => free_frozen" \
	"$(jq -c 'select(.frozen and (.stats | index("free_frozen") | not))' "$tmp/all" | wc -l)" 0
check "path free_frozen = frozen" \
	"$(jq -c 'select((.path == "free_frozen") != .frozen)' "$tmp/all" | wc -l)" 0
check "sites start S0,S1,S2a" \
	"$(jq -c 'select(.sites[0:3] | map(.[0]) != ["S0","S1","S2a"])' "$tmp/all" | wc -l)" 0
check "S5 follows the last S4" \
	"$(jq -c 'select((.sites | map(.[0]) | index("S5")) as $i | $i == null or .sites[$i - 1][0] != "S4")' "$tmp/all" | wc -l)" 0
check "pre has no POST sites" \
	"$(jq -c 'select(.variant == "pre" and (.sites | map(.[0]) | any(startswith("POST"))))' "$tmp/all" | wc -l)" 0
check "post has no PRE sites" \
	"$(jq -c 'select(.variant == "post" and (.sites | map(.[0]) | any(startswith("PRE"))))' "$tmp/all" | wc -l)" 0
check "stats start free_slowpath" \
	"$(jq -c 'select(.stats[0] != "free_slowpath")' "$tmp/all" | wc -l)" 0
check "freelist_empty => S2b true" \
	"$(jq -c 'select(.freelist_empty and .inuse > .cnt and (.sites | any(. == ["S2b", true]) | not))' "$tmp/all" | wc -l)" 0
check "chain head counters" \
	"$(jq -c 'select((.cpu_partial | length == 0) != (.cpu_partial_pages == 0) or (.cpu_partial | length) != .cpu_partial_pages)' "$tmp/all" | wc -l)" 0
fz=$(jq -c 'select(.path == "free_frozen")' "$tmp/all" | wc -l)
if [ "$fz" -gt $((n / 2)) ]; then ok; else bad "free_frozen $fz of $n, not the majority"; fi

# --- --limit-per-run, determinism, -o --------------------------------------------
"$NUMASIM" trace "$TINY" --events slab_free --limit-per-run 4 >"$tmp/lim" 2>"$tmp/err"
check "limit exit" "$?" 0
check "limit lines" "$(wc -l <"$tmp/lim")" 24
check "limit per run" "$(jq -r '"\(.point)/\(.repetition)"' "$tmp/lim" | sort | uniq -c | awk '{print $1}' | sort -u)" 4
check "limit is a prefix" "$(jq -c 'select(.point | test("pre-c270cf30")) | select(.repetition == 0)' "$tmp/all" | head -4)" \
	"$(jq -c 'select(.point | test("pre-c270cf30")) | select(.repetition == 0)' "$tmp/lim")"
"$NUMASIM" trace "$TINY" --events slab_free --limit-per-run 3000 >"$tmp/all2" 2>/dev/null
if cmp -s "$tmp/all" "$tmp/all2"; then ok; else bad "trace not deterministic"; fi
"$NUMASIM" trace "$TINY" --events slab_free --limit-per-run 4 -o "$tmp/file.jsonl" >"$tmp/o" 2>/dev/null
check "-o exit" "$?" 0
if cmp -s "$tmp/lim" "$tmp/file.jsonl" && [ ! -s "$tmp/o" ]; then ok; else bad "-o output differs"; fi

# --- page allocator events ------------------------------------------------------
"$NUMASIM" trace "$TINY" --events page_alloc,page_free >"$tmp/pg" 2>"$tmp/err"
check "page exit" "$?" 0
check "page lines parse" "$(jq -c . "$tmp/pg" >/dev/null 2>&1; echo $?)" 0
check "page events" "$(jq -r .event "$tmp/pg" | sort -u | tr '\n' ' ')" "mm_page_alloc mm_page_free "
check "alloc keys" "$(jq -c 'select(.event == "mm_page_alloc" and ([has("pfn","order","gfp","migratetype","node","cpu")] | all | not))' "$tmp/pg" | wc -l)" 0
check "free keys" "$(jq -c 'select(.event == "mm_page_free" and ([has("pfn","order","node","cpu")] | all | not))' "$tmp/pg" | wc -l)" 0
check "slab pages are compound" "$(jq -c 'select(.event == "mm_page_alloc" and .order > 0 and (.gfp | test("__GFP_COMP") | not))' "$tmp/pg" | wc -l)" 0
check "no slab_free" "$(jq -c 'select(.event == "slab_free")' "$tmp/pg" | wc -l)" 0
"$NUMASIM" trace "$TINY" --events page_alloc,slab_free --limit-per-run 2 >"$tmp/mix" 2>/dev/null
check "mixed limit" "$(wc -l <"$tmp/mix")" 12

# --- errors ------------------------------------------------------------------------
run_err "no events" trace "$TINY"
run_err "bad event" trace "$TINY" --events slab_alloc
run_err "trailing comma" trace "$TINY" --events slab_free,
run_err "bad format" trace "$TINY" --events slab_free --format csv
run_err "bad limit" trace "$TINY" --events slab_free --limit 0
run_err "no scenario" trace --events slab_free
run_err "missing file" trace "$tmp/nope.yaml" --events slab_free
printf 'name: x\nmachine: [\n' >"$tmp/bad.yaml"
run_err "bad yaml" trace "$tmp/bad.yaml" --events slab_free
if grep -q "bad.yaml:[0-9]*:[0-9]*: error" "$tmp/eerr"; then ok; else bad "no file:line:col"; cat "$tmp/eerr"; fi
"$NUMASIM" trace --help >"$tmp/h" 2>&1
check "help exit" "$?" 0

finish
