#!/usr/bin/env bash
# CLI tests for `numasim bench pagealloc`: the row in the benchmark table,
# the summary of a small run (deterministic checksum and cycle counts, PRE
# costs more than POST per allocation), and usage / input errors (exit 2,
# nothing on stdout).
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

M="$SRC/configs/seed-2016-2s.yaml"

run_err() {
	local name=$1; shift
	"$NUMASIM" bench pagealloc "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ $rc -ne 2 ]; then bad "$name: exit $rc, expected 2"; return; fi
	if [ -s "$tmp/out" ]; then bad "$name: wrote to stdout"; return; fi
	if ! grep -qE "error:" "$tmp/err"; then bad "$name: no error message"; cat "$tmp/err"; return; fi
	ok
}

field() { sed -n "s/^  $2: *//p" "$1"; }

if "$NUMASIM" bench --help | grep -qE '^  pagealloc +page allocator'; then ok
else bad "bench --help does not list pagealloc"; fi
if "$NUMASIM" bench pagealloc --help | grep -q -- '--variant V'; then ok
else bad "bench pagealloc --help"; fi

for v in pre post; do
	if "$NUMASIM" bench pagealloc --machine "$M" --pairs 20000 --variant $v --repeat 2 \
		>"$tmp/$v" 2>"$tmp/err"; then ok; else bad "run $v failed"; cat "$tmp/err"; fi
done
if [ "$(field "$tmp/pre" 'pairs')" = 20000 ]; then ok; else bad "pairs line"; cat "$tmp/pre"; fi
if [ "$(field "$tmp/pre" 'failed allocations')" = 0 ]; then ok; else bad "failed allocations"; fi
pre=$(field "$tmp/pre" 'sim cycles per alloc')
post=$(field "$tmp/post" 'sim cycles per alloc')
if awk -v a="$pre" -v b="$post" 'BEGIN { exit !(a > b && b > 0) }'; then ok
else bad "PRE ($pre) should cost more than POST ($post) per allocation"; fi
# same pages handed out by both variants (only costs differ)
if [ "$(field "$tmp/pre" 'checksum')" = "$(field "$tmp/post" 'checksum')" ]; then ok
else bad "PRE and POST allocate different pages"; fi
if grep -q 'next_zones_zonelist' "$tmp/pre" && ! grep -q '^  next_zones_zonelist ' "$tmp/post"; then ok
else bad "profile: next_zones_zonelist should appear for PRE only"; fi

run_err bad-variant --machine "$M" --variant sideways
run_err bad-pairs --machine "$M" --pairs 0
run_err bad-order --machine "$M" --order 5
run_err unknown-option --machine "$M" --frobnicate 1
run_err missing-value --machine "$M" --pairs
run_err no-such-cpu --machine "$M" --cpu 4000
printf 'name: x\nnodes: [\n' >"$tmp/bad.yaml"
run_err bad-machine --machine "$tmp/bad.yaml"
if grep -q "bad.yaml:[0-9]*:[0-9]*: error" "$tmp/err"; then ok; else bad "machine error not file:line:col"; cat "$tmp/err"; fi

finish
