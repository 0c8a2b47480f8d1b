#!/usr/bin/env bash
# CLI test for the shipped steady-state SLUB scenario
# (scenarios/slub-steady.yaml, docs/design/slub-model.md §9.2, §11.2): it
# validates, its plan is the 4 points x 1 repetition the docs' table
# describes (both __slab_free layouts x slub_stats on/off), and it runs
# the same machine and workload as seed-slub with only loops, repetitions
# and the slub_stats axis changed.  The scenario itself takes minutes to
# run, so nothing here simulates it.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

STEADY=$SRC/scenarios/slub-steady.yaml
SEED=$SRC/scenarios/seed-slub.yaml


# validate: exit 0, one line naming the plan, nothing on stderr
"$NUMASIM" validate "$STEADY" >"$tmp/out" 2>"$tmp/err"
check "validate exit" "$?" 0
check "validate stdout" "$(cat "$tmp/out")" \
	"$STEADY: ok (scenario slub-steady: machine skylake-2s, 4 points x 1 repetition = 4 runs)"
check "validate stderr" "$(cat "$tmp/err")" ""

# seed-slub with this scenario's loops, repetitions and slub_stats axis
# given on the command line is the same 4-run plan on the same machine.
"$NUMASIM" validate "$SEED" --set workload.loops=3000 --set repetitions=1 \
	--sweep kernel.slub_stats=on,off >"$tmp/seed" 2>&1
check "seed-slub at loops 3000 validates" "$?" 0
check "seed-slub at loops 3000 plan" "$(sed 's/^.*(scenario seed-slub: //' "$tmp/seed")" \
	"machine skylake-2s, 4 points x 1 repetition = 4 runs)"

# The scenario's values, as the docs state them; machine and workload as
# seed-slub's, so the two files cannot drift apart unnoticed.
steady_key() { grep -E "^  $1:" "$STEADY" | sed -E "s/^  $1: *//"; }
seed_key() { grep -E "^  $1:" "$SEED" | sed -E "s/^  $1: *//"; }
check "loops" "$(steady_key loops)" 3000
check "slub_stats axis" "$(steady_key slub_stats)" "[on, off]"
for k in type groups mode slab_free_layout compiler_layout; do
	check "$k as seed-slub" "$(steady_key "$k")" "$(seed_key "$k")"
done
check "machine as seed-slub" "$(grep '^machine:' "$STEADY")" "$(grep '^machine:' "$SEED")"
check "repetitions" "$(grep '^repetitions:' "$STEADY")" "repetitions: 1"
# its figures are of the placement-none model; the default is v5.9
check "placement none" "$(steady_key placement)" none

# A one-value override of the slub_stats axis leaves 2 points: the axis
# is really in the plan (not only in the comment).
"$NUMASIM" validate "$STEADY" --set kernel.slub_stats=on >"$tmp/one" 2>&1
check "slub_stats=on plan" "$(sed 's/^.*(scenario slub-steady: //' "$tmp/one")" \
	"machine skylake-2s, 2 points x 1 repetition = 2 runs)"

finish
