#!/usr/bin/env bash
# Issue "What a new user trips over", item 2: progress within a run.  A
# plan of one long run (seed-zonelist's runs take minutes) drew nothing
# until the run ended, and the summary said "0.0 runs/s".  On a terminal
# (script(1) provides one) `run`, `trace` and `bench` draw a bar that
# moves while the first run is still going (0/N runs, a share above 0 %,
# an ETA); nothing of it when stdout/stderr are not terminals; the
# summary of a one-run plan has no rate, a slow plan's reads s/run.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v script >/dev/null || { echo "SKIP: script(1) not installed"; exit 77; }

# One pagealloc run of a few seconds: both variants' batch sizes at inner 2
ONE=("$SRC/scenarios/seed-zonelist.yaml" --set kernel.zonelist_iter=682a3385 --set workload.inner_iterations=2)

# moving NAME FILE: a bar of the first run, before any run was stored
moving() {
	tr '\r' '\n' <"$2" | grep -aE '^\[[=> ]*\] 0/[0-9]+ runs +([1-9][0-9]?)%  [0-9.]+ (runs/s|s/run)  ETA [0-9]+:[0-9][0-9]' \
		>"$tmp/inrun"
	[ -s "$tmp/inrun" ] && ok || { bad "$1: no progress within the run"; tr '\r' '\n' <"$2" | head -5; }
}

script -qec "'$NUMASIM' run ${ONE[*]} --db '$tmp/r.db'" /dev/null >"$tmp/run.tty" 2>&1
[ $? -eq 0 ] && ok || { bad "run on a terminal"; tail -3 "$tmp/run.tty"; }
moving "run" "$tmp/run.tty"
# the share grows
first=$(head -1 "$tmp/inrun" | grep -o '[0-9]*%' | tr -d %)
last=$(tail -1 "$tmp/inrun" | grep -o '[0-9]*%' | tr -d %)
[ "$last" -gt "$first" ] && ok || bad "run: the share does not grow ($first% .. $last%)"
tr '\r' '\n' <"$tmp/run.tty" | grep -a '^numasim run: 1 run stored' >"$tmp/sum"
[ -s "$tmp/sum" ] && ok || bad "run: no summary"
grep -q 'runs/s\|s/run' "$tmp/sum" && bad "run: a rate for one run: $(cat "$tmp/sum")" || ok

script -qec "'$NUMASIM' trace ${ONE[*]} --events page_alloc --limit 300000 -o '$tmp/t.jsonl'" /dev/null >"$tmp/trace.tty" 2>&1
[ $? -eq 0 ] && ok || { bad "trace on a terminal"; tail -3 "$tmp/trace.tty"; }
moving "trace" "$tmp/trace.tty"
grep -aqE $'\r {78}\r' "$tmp/trace.tty" && ok || bad "trace: bar not erased"

script -qec "'$NUMASIM' bench pagealloc --machine '$SRC/configs/seed-2016-2s.yaml' --pairs 3000000" /dev/null >"$tmp/bench.tty" 2>&1
[ $? -eq 0 ] && ok || { bad "bench on a terminal"; tail -3 "$tmp/bench.tty"; }
moving "bench" "$tmp/bench.tty"
tr '\r' '\n' <"$tmp/bench.tty" | grep -aq "^# Running 'pagealloc' benchmark" && ok || bad "bench: report lost"

# --- not a terminal: nothing of the bar -------------------------------------------
"$NUMASIM" run "${ONE[@]}" --db "$tmp/r2.db" >"$tmp/out" 2>"$tmp/err"
grep -q $'\r' "$tmp/err" "$tmp/out" && bad "run: carriage returns off a terminal" || ok
[ "$(wc -l <"$tmp/err")" -eq 1 ] && ok || { bad "run: stderr off a terminal"; cat "$tmp/err"; }
"$NUMASIM" trace "${ONE[@]}" --events page_alloc --limit 10 >"$tmp/out" 2>"$tmp/err"
[ ! -s "$tmp/err" ] && ok || { bad "trace: stderr off a terminal"; cat -A "$tmp/err" | head -3; }
"$NUMASIM" bench pagealloc --machine "$SRC/configs/seed-2016-2s.yaml" --pairs 200000 >"$tmp/out" 2>"$tmp/err"
[ ! -s "$tmp/err" ] && ! grep -q $'\r' "$tmp/out" && ok || bad "bench: progress off a terminal"
# stderr a terminal but stdout a file: run and bench stay quiet (the table
# or report is being captured); trace, whose records always go to a
# file or a pipe, draws on the terminal
script -qec "'$NUMASIM' run ${ONE[*]} --db '$tmp/r3.db' >'$tmp/o3'" /dev/null >"$tmp/run3.tty" 2>&1
grep -aq ' ETA ' "$tmp/run3.tty" && bad "run: bar with stdout redirected" || ok
script -qec "'$NUMASIM' bench pagealloc --machine '$SRC/configs/seed-2016-2s.yaml' --pairs 200000 >'$tmp/o4'" /dev/null >"$tmp/b4.tty" 2>&1
grep -aq ' ETA ' "$tmp/b4.tty" "$tmp/o4" && bad "bench: bar with stdout redirected" || ok

finish
