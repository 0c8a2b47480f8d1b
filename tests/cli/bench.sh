#!/usr/bin/env bash
# CLI tests for `numasim bench`: the benchmark table in --help, phold's
# summary and its determinism across runs and --repeat, and usage errors
# (exit 2, nothing on stdout, "numasim bench...: error:" on stderr).
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# run_err NAME ARGS...: must exit 2 with empty stdout and an error on stderr
run_err() {
	local name=$1; shift
	"$NUMASIM" bench "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ $rc -ne 2 ]; then bad "$name: exit $rc, expected 2"; return; fi
	if [ -s "$tmp/out" ]; then bad "$name: wrote to stdout"; return; fi
	if ! grep -q "^numasim bench.*: error:" "$tmp/err"; then bad "$name: no error message"; cat "$tmp/err"; return; fi
	ok
}

# field FILE LABEL: the value after "LABEL:" in a summary
field() { sed -n "s/^  $2: *//p" "$1"; }

# --help lists the benchmarks as a table
if "$NUMASIM" bench --help >"$tmp/help" && grep -qE '^  phold +PHOLD' "$tmp/help"; then ok
else bad "bench --help does not list phold"; cat "$tmp/help"; fi
if "$NUMASIM" bench phold --help >"$tmp/phelp" && grep -q -- '--population P' "$tmp/phelp"; then ok
else bad "bench phold --help"; fi
if "$NUMASIM" help bench | grep -q phold; then ok; else bad "numasim help bench"; fi

# A small run: counts, and the same checksum on every run and repetition
args=(phold --lps 50 --events 20000 --seed 7)
"$NUMASIM" bench "${args[@]}" >"$tmp/a" 2>&1 || bad "phold run failed"
"$NUMASIM" bench "${args[@]}" --repeat 3 >"$tmp/b" 2>&1 || bad "phold --repeat failed"
"$NUMASIM" bench phold --lps=50 --events=20000 --seed=8 >"$tmp/c" 2>&1 || bad "phold --opt=value failed"
[ "$(field "$tmp/a" events)" = 20000 ] && ok || bad "events: $(field "$tmp/a" events)"
ca=$(field "$tmp/a" checksum); cb=$(field "$tmp/b" checksum); cc=$(field "$tmp/c" checksum)
[[ $ca =~ ^[0-9a-f]{16}$ ]] && ok || bad "checksum format '$ca'"
[ "$ca" = "$cb" ] && ok || bad "checksum differs with --repeat: $ca vs $cb"
[ "$ca" != "$cc" ] && ok || bad "seed 7 and 8 give the same checksum"
[ "$(field "$tmp/a" 'final simulated time')" = "$(field "$tmp/b" 'final simulated time')" ] && ok \
	|| bad "final time differs between runs"
grep -qE '^  M events/s: +min [0-9.]+  median [0-9.]+  max [0-9.]+$' "$tmp/b" && ok \
	|| { bad "--repeat summary lacks min/median/max"; cat "$tmp/b"; }
[ "$(grep -cE '^ +[123] +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$' "$tmp/b")" = 3 ] && ok \
	|| bad "--repeat 3 does not list 3 runs"

# Usage errors
run_err no-benchmark
run_err unknown-benchmark nosuch
run_err unknown-option phold --frobnicate
run_err zero-lps phold --lps 0
run_err negative-events phold --events -5
run_err junk-seed phold --seed 12abc
run_err missing-value phold --events
run_err zero-repeat phold --repeat 0
run_err huge-lps phold --lps 99999999999999999999
run_err too-many-pending phold --lps 10000000 --population 100000

finish
