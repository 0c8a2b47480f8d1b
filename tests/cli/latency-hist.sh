#!/usr/bin/env bash
# Latency histograms of the fill and replay workloads
# (analysis/latency_hist.h): a small fill run (tests/scenarios/tiny-fill.yaml)
# and a small replay run (tiny-replay.yaml) store log2 buckets of core cycles
# per call as metrics NAME.lt_2^k; `numasim report DB` prints them as bcc's
# funclatency does, `report --runs --run N` per run, the HTML report has a
# "latency" section with the same rows.  The bucket counts, as stored and
# as printed, sum to the calls the run measured (`numasim query` of the
# allocs or calls metric); the buckets are powers of two and the fullest
# bucket has the full bar; the generic metric tables leave the buckets out.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 not installed"; exit 77; }

# qv DB SQL: one value through `numasim query` (csv, no header)
qv() { "$NUMASIM" query "$1" "$2" --format csv | tail -n +2 | tr -d '\r'; }

# hist_sum FILE NAME: the sum of the counts of the first histogram NAME
# printed in FILE (the rows after its heading up to the next blank line)
hist_sum() {
	awk -v name="$2" '
		index($0, name) && index($0, "_hist: ") && !done { on = 1; next }
		on && /^$/ { on = 0; done = 1 }
		on && / -> / { split($0, a, ":"); split(a[2], b, "|"); s += b[1] }
		END { printf "%d\n", s }' "$1"
}

# rows_ok FILE: every printed row is "LOW -> HIGH : COUNT |BAR|" with
# HIGH = 2 LOW - 1 (0 -> 1 first), a bar of 0..40 '*' proportional to the
# count, and the fullest row of each histogram has 40.
rows_ok() {
	awk '
		/ -> / {
			n++
			lo = $1; hi = $3; c = $5
			if (!((lo == 0 && hi == 1) || hi == 2 * lo - 1)) { print "bad bounds: " $0; e = 1 }
			bar = $0; sub(/^[^|]*\|/, "", bar); sub(/\|$/, "", bar)
			if (length(bar) != 40) { print "bad bar width: " $0; e = 1 }
			stars = bar; gsub(/ /, "", stars)
			cnt[n] = c; st[n] = length(stars); grp[n] = g
			if (c > max[g]) max[g] = c
		}
		/: count     distribution$/ { g++ }
		END {
			if (!n) { print "no rows"; exit 1 }
			for (i = 1; i <= n; i++) {
				want = int(cnt[i] * 40 / max[grp[i]])
				if (st[i] != want) { print "row " i ": " st[i] " stars, want " want; e = 1 }
			}
			exit e
		}' "$1"
}

# --- fill -----------------------------------------------------------------
"$NUMASIM" run "$SRC/tests/scenarios/tiny-fill.yaml" --db "$tmp/f.db" -q >"$tmp/f.run" 2>"$tmp/err" ||
	{ bad "fill run: $(cat "$tmp/err")"; finish; exit; }
if grep -q "_hist\.lt_" "$tmp/f.run"; then bad "run's output lists bucket metrics"; else ok; fi
"$NUMASIM" report "$tmp/f.db" >"$tmp/f.rep" 2>"$tmp/err" || bad "fill report: $(cat "$tmp/err")"
if grep -q "^Latency histograms: core cycles per call" "$tmp/f.rep"; then ok; else bad "fill report: no latency heading"; fi
if grep -q "^     core cycles         : count     distribution$" "$tmp/f.rep"; then ok; else
	bad "fill report: no funclatency header"; fi
check "fill report: two runs' histograms" "$(grep -c "alloc_latency_hist: " "$tmp/f.rep")" 2
if msg=$(rows_ok "$tmp/f.rep"); then ok; else bad "fill rows: $msg"; fi
if grep -q "_hist\.lt_" "$tmp/f.rep"; then bad "report's tables list bucket metrics"; else ok; fi
allocs=$(qv "$tmp/f.db" "SELECT value FROM metrics WHERE run_id = 1 AND name = 'allocs'")
check "fill: printed counts sum to allocs" "$(hist_sum "$tmp/f.rep" "run 1 (fill")" "${allocs%.0}"
for run in 1 2; do
	check "fill run $run: stored buckets sum to allocs" \
		"$(qv "$tmp/f.db" "SELECT sum(value) = (SELECT value FROM metrics WHERE run_id = $run AND name = 'allocs') FROM metrics WHERE run_id = $run AND name GLOB 'alloc_latency_hist.lt_*'")" 1
done
check "fill: bucket names are powers of two" \
	"$(q "$tmp/f.db" "SELECT count(*) FROM metrics WHERE name GLOB '*_hist.lt_*' AND (unit <> 'count' OR (CAST(substr(name, instr(name, 'lt_') + 3) AS INTEGER) & (CAST(substr(name, instr(name, 'lt_') + 3) AS INTEGER) - 1)) <> 0)")" 0
"$NUMASIM" report "$tmp/f.db" --runs --run 2 >"$tmp/f2.rep" 2>"$tmp/err" || bad "report --runs: $(cat "$tmp/err")"
allocs2=$(qv "$tmp/f.db" "SELECT value FROM metrics WHERE run_id = 2 AND name = 'allocs'")
check "report --runs --run 2: counts sum to allocs" "$(hist_sum "$tmp/f2.rep" "alloc_latency_hist")" "${allocs2%.0}"
"$NUMASIM" compare "$tmp/f.db" >"$tmp/f.cmp" 2>"$tmp/err" || bad "compare: $(cat "$tmp/err")"
if grep -q "_hist" "$tmp/f.cmp"; then bad "compare lists bucket metrics"; else ok; fi

# --- replay ---------------------------------------------------------------
"$NUMASIM" run "$SRC/tests/scenarios/tiny-replay.yaml" --db "$tmp/r.db" -q >/dev/null 2>"$tmp/err" ||
	{ bad "replay run: $(cat "$tmp/err")"; finish; exit; }
"$NUMASIM" report "$tmp/r.db" >"$tmp/r.rep" 2>"$tmp/err" || bad "replay report: $(cat "$tmp/err")"
if msg=$(rows_ok "$tmp/r.rep"); then ok; else bad "replay rows: $msg"; fi
calls=$(qv "$tmp/r.db" "SELECT value FROM metrics WHERE run_id = 1 AND name = 'calls'")
a=$(hist_sum "$tmp/r.rep" "run 1 (replay, zonelist_iter=pre-682a3385) alloc_latency_hist")
f=$(hist_sum "$tmp/r.rep" "run 1 (replay, zonelist_iter=pre-682a3385) free_latency_hist")
if [ "$a" -gt 0 ] && [ "$f" -gt 0 ]; then ok; else bad "replay: alloc $a, free $f calls printed"; fi
check "replay: printed alloc + free counts sum to calls" "$((a + f))" "${calls%.0}"
check "replay: stored buckets sum to calls" \
	"$(qv "$tmp/r.db" "SELECT sum(value) = (SELECT value FROM metrics WHERE run_id = 2 AND name = 'calls') FROM metrics WHERE run_id = 2 AND name GLOB '*_latency_hist.lt_*'")" 1

# --- HTML -----------------------------------------------------------------
for db in f r; do
	"$NUMASIM" report "$tmp/$db.db" --format html -o "$tmp/$db.html" 2>"$tmp/err" || bad "html $db: $(cat "$tmp/err")"
	if grep -q '<section id="latency"' "$tmp/$db.html" && grep -q 'href="#latency"' "$tmp/$db.html"; then ok; else
		bad "html $db: no latency section in the navigation"; fi
done
# the first table's counts (third cell of each row) sum to run 1's allocs
html_sum=$(awk '/<table class="lhist">/ { on = 1; next } on && /<\/table>/ { exit }
	on && /<tr><td/ { split($0, c, "<td class=\"n\">"); sub(/<.*/, "", c[4]); s += c[4] }
	END { printf "%d\n", s }' "$tmp/f.html")
check "html: first histogram sums to run 1's allocs" "$html_sum" "${allocs%.0}"
check "html: one table per histogram" "$(grep -c '<table class="lhist">' "$tmp/r.html")" 4

finish
