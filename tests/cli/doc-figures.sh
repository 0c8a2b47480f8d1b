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
claim docs/results/README.md 'with loops scaled down to (\d+),' "$(val seed-slub loops)"
claim docs/results/README.md 'scaled down to \d+, (\d+) runs per layout' "$(val seed-slub repetitions)"
claim docs/results/README.md 'messaging -g (\d+)` with loops' "$(val seed-slub groups)"

# --- cpuset-vs-nocpuset, mempolicy ------------------------------------------------------
claim docs/results/cpuset.md 'both iterator variants \((\d+) runs\)' "$(runs cpuset-vs-nocpuset)"
claim docs/design/policies.md 'scenarios\/mempolicy\.yaml --jobs 2` \(release build\), (\d+) runs' "$(runs mempolicy)"
claim docs/design/policies.md 'The (\d+)-run mempolicy scenario' "$(runs mempolicy)"
claim scenarios/mempolicy.yaml '(\d+) inner iterations, \d+ samples' "$(val mempolicy inner_iterations)"
claim scenarios/mempolicy.yaml 'inner iterations, (\d+) samples of which' "$(val mempolicy outer_samples)"
claim scenarios/mempolicy.yaml 'samples of which (\d+) is dropped' "$(val mempolicy drop_samples)"
claim scenarios/mempolicy.yaml 'is dropped: (\d+) runs' "$(runs mempolicy)"

claim docs/results/zone-reclaim.md 'zone_reclaim_mode 0 and 1 \((\d+) runs\)' "$(runs zone-reclaim)"
claim docs/design/reclaim-model.md 'zone_reclaim_mode 0 and 1\. (\d+) runs' "$(runs zone-reclaim)"
claim scenarios/zone-reclaim.yaml '(\d+) runs; wall time in docs' "$(runs zone-reclaim)"

# --- figures and images made by scripts/docs-figures.sh -----------------------------------
# Every block of README.md and docs/**/*.md between `<!-- figure: FILE -->`
# and `<!-- /figure -->` is a copy of FILE, an output the script stored;
# the binary under test still produces those outputs (the shortened runs
# of docs/results/out/check.txt); the images are the script's and agree
# with the data and outputs stored beside them.  A failure here means:
# run `bash scripts/docs-figures.sh` and commit what it changed.
regen="(regenerate: bash scripts/docs-figures.sh)"
nblocks=0
for f in README.md $(cd "$SRC" && find docs -name "*.md" | sort); do
	perl -0ne 'while (/^<!-- figure: (\S+)[^\n]*-->\n```text\n(.*?)```\n<!-- \/figure -->/smg) {
		my ($file, $body) = ($1, $2); my $name = $file; $name =~ s{/}{%}g;
		open(my $o, ">", "'"$tmp"'/blk.$name") or die; print $o $body; close $o; print "$file\n" }' \
		"$SRC/$f" >"$tmp/blocks" || bad "$f: cannot read its figure blocks"
	opened=$(grep -c '^<!-- figure: ' "$SRC/$f")
	[ "$opened" = "$(wc -l <"$tmp/blocks")" ] && ok ||
		bad "$f: $opened figure markers but $(wc -l <"$tmp/blocks") well-formed blocks"
	while read -r file; do
		nblocks=$((nblocks + 1))
		if [ ! -f "$SRC/$file" ]; then bad "$f: figure $file does not exist $regen"; continue; fi
		if cmp -s "$tmp/blk.${file//\//%}" "$SRC/$file"; then ok; else
			bad "$f: the block of $file is not that file $regen"
			diff "$SRC/$file" "$tmp/blk.${file//\//%}" | head -10
		fi
	done <"$tmp/blocks"
done
[ "$nblocks" -ge 6 ] && ok || bad "only $nblocks figure blocks found in README.md and docs/"

# the binary still produces the stored figures
if NUMASIM=$NUMASIM bash "$SRC/scripts/docs-figures-check.sh" >"$tmp/check.txt" 2>"$tmp/check.err"; then ok; else
	bad "scripts/docs-figures-check.sh failed: $(tail -5 "$tmp/check.err")"
fi
if cmp -s "$tmp/check.txt" "$SRC/docs/results/out/check.txt"; then ok; else
	bad "the figures in docs/results/out/ are not what this binary produces $regen"
	diff "$SRC/docs/results/out/check.txt" "$tmp/check.txt" | head -20
fi

# every image the pages show under docs/results/ is written by the script
for img in $(cd "$SRC" && grep -ohE '\]\([^)]+\.(svg|png)\)' README.md $(find docs -name '*.md') |
	sed -E 's/^\]\(//; s/\)$//; s#.*/##' | sort -u); do
	case $img in
	report-*.png) made="shot ${img#report-}" made=${made%.png} ;;
	*) made=$img ;;
	esac
	grep -q "$made" "$SRC/scripts/docs-figures.sh" && ok || bad "image $img is not made by scripts/docs-figures.sh"
	[ -s "$SRC/docs/results/$img" ] && ok || bad "image docs/results/$img is missing $regen"
done
# the reports' screenshots: PNG, 1100 px wide, as the script scales them
for r in seed-zonelist seed-slub; do
	png=$SRC/docs/results/report-$r.png
	w=$(od -An -tu1 -j16 -N4 "$png" 2>/dev/null | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
	[ "$(head -c 8 "$png" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ] && [ "$w" = 1100 ] && ok ||
		bad "docs/results/report-$r.png is not an 1100 px PNG (width '$w') $regen"
done

# the plot shows the table the same run printed: Min ticks per page at
# N = 1 of each variant in the plot's data, in its SVG and in the table
# (the README once showed a plot of 731 at N = 1 beside a table of 382)
csv=$SRC/docs/results/out/seed-zonelist-alloc.csv
svg=$SRC/docs/results/seed-zonelist-alloc.svg
table=$SRC/docs/results/out/seed-zonelist.txt
row=$(grep -E '^Min +alloc-odr0-1 ' "$table" | head -1)
# "Min alloc-odr0-1   381.00 (  0.00%)   364.00 (  4.46%)": the values before "("
t_pre=$(echo "$row" | grep -oE '[0-9]+\.[0-9]+ +\(' | sed -n '1s/ .*//p')
t_post=$(echo "$row" | grep -oE '[0-9]+\.[0-9]+ +\(' | sed -n '2s/ .*//p')
[ -n "$t_pre" ] && [ -n "$t_post" ] && ok || bad "no 'Min alloc-odr0-1' row in $table"
# the data: series,x,mean,min,max,n; the SVG labels each point "x: mean [min, max]"
plot_vals=$(awk -F, 'NR > 1 && $2 == 1 { print $4 }' "$csv" 2>/dev/null | sort -n | tr '\n' ' ')
check "the plot's Min at N = 1 is the table's (pre, post)" "$plot_vals" "$(printf '%s\n%s\n' "${t_pre%.00}" "${t_post%.00}" | sort -n | tr '\n' ' ')"
npoints=0
while IFS=, read -r series x mean min max n; do
	npoints=$((npoints + 1))
	grep -q "<title>$x: [0-9.]* \[$min, $max\]</title>" "$svg" ||
		{ bad "$svg has no point $x [$min, $max] of its data ($series) $regen"; continue; }
	ok
done < <(tail -n +2 "$csv")
[ "$npoints" -ge 30 ] && ok || bad "only $npoints points in $csv"

# a flame graph's net change quoted in prose is the graph's own
net=$(sed -n 's/.*<text class="sub"[^>]*>[^<]*(\([-+0-9.]*\)%)<.*/\1/p' "$SRC/docs/results/seed-zonelist-flame-diff.svg")
[ -n "$net" ] && ok || bad "no net change in the subtitle of seed-zonelist-flame-diff.svg"
grep -qF "($net%)" "$SRC/docs/results/out/seed-zonelist-flame.txt" && ok ||
	bad "docs/results/out/seed-zonelist-flame.txt does not quote the graph's ($net%) $regen"
for f in README.md $(cd "$SRC" && find docs -name "*.md" | sort); do
	quoted=$(flat "$f" | perl -ne 'while (/net (?:saving|change|difference) (?:is|of) ([-+]?\d+\.\d+) ?%/g) { print "$1\n" }')
	for q in $quoted; do
		[ "$q" = "${net#-}" ] || [ "$q" = "$net" ] && ok || bad "$f quotes a net change of $q % where the flame graph has $net %"
	done
done
finish
