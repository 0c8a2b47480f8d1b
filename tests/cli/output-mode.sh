#!/usr/bin/env bash
# Output files of export -o, import -o and plot -o (issue "What a new user
# trips over", item 5): a new file gets 0666 & ~umask (0644 under umask
# 022, 0640 under 027), like any other tool's output, not mkstemp's 0600; a
# replaced file keeps its own mode; no temporary file is left behind.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

mode() { stat -c %a "$1"; }

P=$tmp/p.db
"$NUMASIM" run -q "$SRC/tests/scenarios/tiny-pagealloc.yaml" --db "$P" >/dev/null 2>"$tmp/err" ||
	{ cat "$tmp/err"; bad "run"; }
mkdir "$tmp/o"
# write NAME: the three commands' outputs, FILE.csv, FILE.yaml, FILE.svg
write() {
	"$NUMASIM" export "$P" --format csv --table runs -o "$tmp/o/$1.csv" &&
		"$NUMASIM" import numactl "$SRC/tests/fixtures/numactl/amd-epyc-2s-nps4-8node.txt" \
			-o "$tmp/o/$1.yaml" &&
		"$NUMASIM" plot "$P" --metric 'alloc-odr0-*' -o "$tmp/o/$1.svg"
}
for m in 022 027 077; do
	if (umask $m && write "u$m"); then ok; else bad "writing under umask $m"; fi
	want=$(printf '%o' $((0666 & ~8#$m)))
	for ext in csv yaml svg; do
		check "new .$ext under umask $m" "$(mode "$tmp/o/u$m.$ext")" "$want"
	done
done
# replacing keeps the file's mode (under any umask)
for ext in csv yaml svg; do
	chmod 0604 "$tmp/o/u022.$ext"
done
if (umask 077 && write u022); then ok; else bad "replacing"; fi
for ext in csv yaml svg; do
	check "replaced .$ext keeps its mode" "$(mode "$tmp/o/u022.$ext")" 604
done
check "no temporary files left" "$(find "$tmp/o" -name '*tmp*' | wc -l)" 0
finish
