#!/usr/bin/env bash
# The progress bar of `numasim run`: drawn with carriage returns on a
# terminal (script(1) provides one), with runs done/total, the share
# done, the rate (runs/s, or s/run when slow) and an ETA, ending at 20/20
# and erased before the summary line; never drawn when stderr is not a
# terminal or with --quiet (no output at all then).  Progress within a
# run (one long run, trace, bench) is tests/cli/progress-run.sh's.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v script >/dev/null || { echo "SKIP: script(1) not installed"; exit 77; }

SWEEP=$SRC/tests/scenarios/sweep-small.yaml

script -qec "'$NUMASIM' run '$SWEEP' --db '$tmp/t.db' --jobs 2" /dev/null >"$tmp/tty" 2>&1
rc=$?
[ $rc -eq 0 ] && ok || { bad "run on a terminal: exit $rc"; cat "$tmp/tty"; }
tr '\r' '\n' <"$tmp/tty" | grep -aE '^\[[=> ]*\] [0-9]*/20 runs +[0-9]+%  ([0-9.]+ runs/s|[0-9.]+ s/run|-- s/run)  ETA [0-9:-]*' >"$tmp/bars"
[ "$(wc -l <"$tmp/bars")" -ge 1 ] && ok || { bad "no bar drawn"; cat -A "$tmp/tty" | head; }
grep -q '\] 20/20 runs  100% .* ETA 0:00' "$tmp/bars" && ok || bad "the bar does not end at 20/20"
# at most ~10 drawings a second, however many runs finish (the ticker
# draws every 0.1 s; the wall time is the summary's)
n=$(wc -l <"$tmp/bars")
wall=$(tr '\r' '\n' <"$tmp/tty" | grep -ao 'wall time [0-9.]* s' | awk '{print $3}')
awk -v n="$n" -v w="${wall:-0}" 'BEGIN { exit !(n <= 10 * w + 3) }' && ok || bad "$n drawings in $wall s"
# erased (blanked to the bar's width) before the table and the summary
grep -aqE $'\r {78}\r' "$tmp/tty" && ok || { bad "bar not erased"; tail -c 300 "$tmp/tty" | cat -A; }
tr '\r' '\n' <"$tmp/tty" | grep -a '^numasim run: 20 runs stored' | grep -q ETA && bad "bar left on the summary line" || ok

# stdout redirected (stderr still a terminal): no bar
script -qec "'$NUMASIM' run '$SWEEP' --db '$tmp/t2.db' >/dev/null" /dev/null >"$tmp/tty2" 2>&1
grep -aqE '(runs/s|s/run)  ETA' "$tmp/tty2" && bad "bar drawn with stdout redirected" || ok
grep -aq '^numasim run: 20 runs stored' "$tmp/tty2" && ok || bad "summary with stdout redirected"
# --quiet on a terminal: the table only
script -qec "'$NUMASIM' run '$SWEEP' --db '$tmp/t3.db' -q" /dev/null >"$tmp/tty3" 2>&1
grep -aq 'ETA\|runs stored' "$tmp/tty3" && bad "--quiet printed progress or summary" || ok
grep -aq '^point  kernel.zonelist_iter' "$tmp/tty3" && ok || bad "--quiet lost the table"

finish
