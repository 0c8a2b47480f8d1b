#!/usr/bin/env bash
# Issue "What a new user trips over", item 14: the figures README.md and
# docs/*.md (and the shipped scenarios' own comments) quote about the
# shipped scenarios agree with the scenario files: inner iterations,
# samples, loops, groups, repetitions, pairs per run and runs per plan.
# docs/reference/scenario-format.md said seed-zonelist used 20 inner iterations
# while the file used 50.  A figure that moves in a scenario file makes
# this test fail until the text quoting it is updated.
#
# A claim is a phrase of a document (whitespace and line breaks folded to
# one space) with one number in it; the number must be the scenario's
# value.  Values are read from the file (flat keys: every shipped
# scenario has each key once) or, for runs, from `numasim validate`.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

val() {
	sed -nE "s/^[[:space:]]*$2:[[:space:]]*([^#[:space:]]+).*/\1/p" "$SRC/scenarios/$1.yaml" | head -1
}
runs() {
	"$NUMASIM" validate "$SRC/scenarios/$1.yaml" | sed -nE 's/.* = ([0-9]+) runs?\)$/\1/p'
}
# the document as one line
flat() { sed 's/^[[:space:]]*#//' "$SRC/$1" | tr '\n' ' ' | tr -s ' \t' '  '; }

# claim FILE 'PERL-REGEX with one (group)' WANT
claim() {
	local file=$1 re=$2 want=$3 got
	got=$(flat "$file" | perl -ne 'while (/'"$re"'/g) { print "$1\n" }')
	if [ -z "$got" ]; then
		bad "$file: no phrase /$re/ (reworded? update the claim)"
	elif [ "$(echo "$got" | sort -u)" != "$want" ]; then
		bad "$file: /$re/ says $(echo "$got" | sort -u | tr '\n' ' ')where the scenario has $want"
	else
		ok
	fi
}

SZ_INNER=$(val seed-zonelist inner_iterations)
SZ_OUTER=$(val seed-zonelist outer_samples)
# pairs per run: sum(N+1) over mmtests' batches 1..16384 (32782) x inner x outer
SZ_PAIRS=$(awk -v i="$SZ_INNER" -v o="$SZ_OUTER" 'BEGIN {
	p = 32782 * i * o; e = int(log(p) / log(10)); printf "%.1f x 10^%d", p / 10 ^ e, e }')
SZ_PAIRS_E=$(awk -v i="$SZ_INNER" -v o="$SZ_OUTER" 'BEGIN {
	p = 32782 * i * o; e = int(log(p) / log(10)); printf "%.1fe%d", p / 10 ^ e, e }')
[ -n "$SZ_INNER" ] && [ -n "$SZ_OUTER" ] && ok || bad "cannot read seed-zonelist's values"

# --- seed-zonelist ------------------------------------------------------------------
claim docs/reference/scenario-format.md 'seed-zonelist\.yaml` therefore uses (\d+) inner iterations' "$SZ_INNER"
claim docs/reference/scenario-format.md 'inner iterations \((\d\.\d x 10\^\d+) pairs per variant' "$SZ_PAIRS"
claim docs/results/seed-zonelist.md 'the shipped scenario runs (\d+) so that' "$SZ_INNER"
claim docs/guide/plots.md 'scenarios\/seed-zonelist\.yaml`, inner (\d+)' "$SZ_INNER"
claim scenarios/seed-zonelist.yaml "from mmtests' 10000 to (\d+)," "$SZ_INNER"
claim scenarios/seed-zonelist.yaml '= 32782 x (\d+) x \d+ =' "$SZ_INNER"
claim scenarios/seed-zonelist.yaml '= 32782 x \d+ x (\d+) =' "$SZ_OUTER"
claim scenarios/seed-zonelist.yaml '= 32782 x \d+ x \d+ = (\S+) pairs' "$SZ_PAIRS_E"
claim scenarios/seed-zonelist.yaml '(\d+) samples of which the first' "$SZ_OUTER"
claim scenarios/seed-zonelist.yaml 'samples of which the first (\d+) are dropped' "$(val seed-zonelist drop_samples)"
# a run of the shipped file, said to be at another inner count
for f in README.md $(cd "$SRC" && find docs -name "*.md" | sort); do
	bad_inner=$(flat "$f" | perl -ne 'while (/seed-zonelist\.yaml`?,? \(?inner (\d+)/g) { print "$1\n" }' | grep -vx "$SZ_INNER")
	[ -z "$bad_inner" ] && ok || bad "$f: seed-zonelist.yaml quoted at inner $bad_inner (the file has $SZ_INNER)"
done

# --- seed-slub, slub-steady ---------------------------------------------------------
claim docs/design/slub-model.md '`scenarios\/seed-slub\.yaml` \(skylake-2s, 72 CPUs, `-g (\d+)`' "$(val seed-slub groups)"
claim docs/design/slub-model.md '`scenarios\/seed-slub\.yaml` \(skylake-2s, 72 CPUs, `-g \d+`, loops (\d+)' "$(val seed-slub loops)"
claim docs/design/slub-model.md 'gcc layout, (\d+) repetitions per layout\)' "$(val seed-slub repetitions)"
claim docs/design/slub-model.md 'Why the seed-slub scenario stays at loops (\d+)' "$(val seed-slub loops)"
claim docs/design/slub-model.md "for seed-slub's (\d+) runs" "$(runs seed-slub)"
claim docs/design/slub-model.md "Its (\d+) runs at loops \d+ took" "$(runs seed-slub)"
claim docs/design/slub-model.md '`scenarios\/slub-steady\.yaml` \(skylake-2s, `-g (\d+)`' "$(val slub-steady groups)"
claim docs/design/slub-model.md '`scenarios\/slub-steady\.yaml` \(skylake-2s, `-g \d+`, loops (\d+)' "$(val slub-steady loops)"
claim docs/design/slub-model.md '\((\d+) runs; `numasim run scenarios\/slub-steady\.yaml' "$(runs slub-steady)"
claim docs/guide/running.md '\(seed-slub: (\d+) runs in' "$(runs seed-slub)"
claim README.md '\(loops scaled down, (\d+) runs per layout\)' "$(val seed-slub repetitions)"
claim README.md 'same machine and workload at loops (\d+) \(' "$(val slub-steady loops)"

# --- cpuset-vs-nocpuset, mempolicy ------------------------------------------------------
claim README.md 'order-0 pagealloc, (\d+) runs;' "$(runs cpuset-vs-nocpuset)"
claim docs/design/policies.md 'scenarios\/mempolicy\.yaml --jobs 2` \(release build\), (\d+) runs' "$(runs mempolicy)"
claim docs/design/policies.md 'The (\d+)-run mempolicy scenario' "$(runs mempolicy)"
claim scenarios/mempolicy.yaml '(\d+) inner iterations, \d+ samples' "$(val mempolicy inner_iterations)"
claim scenarios/mempolicy.yaml 'inner iterations, (\d+) samples of which' "$(val mempolicy outer_samples)"
claim scenarios/mempolicy.yaml 'samples of which (\d+) is dropped' "$(val mempolicy drop_samples)"
claim scenarios/mempolicy.yaml 'is dropped: (\d+) runs' "$(runs mempolicy)"

claim README.md 'zone-reclaim\.yaml --jobs 2` \((\d+) runs' "$(runs zone-reclaim)"
claim docs/design/reclaim-model.md 'zone_reclaim_mode 0 and 1\. (\d+) runs' "$(runs zone-reclaim)"
claim scenarios/zone-reclaim.yaml '(\d+) runs; wall time in docs' "$(runs zone-reclaim)"
finish
