#!/usr/bin/env bash
# bench/compare.sh [OPTIONS] REV_A REV_B: host speed of two commits, in one
# sitting.  Each commit is exported (git archive, no work tree of git's) and
# built the way the main job builds (scripts/build-pgo.sh: profile-guided,
# link-time optimised; a commit's build is kept under the work directory
# and reused).  Then every bench runs ROUNDS times per commit as whole
# processes, A and B alternated (A B, B A, A B, ... so neither always runs
# second), each timed by /usr/bin/time (user + sys CPU seconds, peak RSS).
# Prints per bench the median CPU seconds of each commit, the median of
# the per-round ratios B/A with their min-max, the peak RSS, whether the
# two commits printed the same results (the bench output without its host
# timing lines), and the load average before and after.  With --insns it
# also counts host instructions per bench and commit (one run each under
# valgrind --tool=cachegrind --cache-sim=no: robust under load where CPU
# time is not).
#
# Options:
#   -r ROUNDS      rounds per bench (default 7)
#   -b 'ARGS'      a bench to run: numasim's arguments (repeatable; the
#                  default is the set below)
#   -w DIR         work directory (default /tmp/numasim-compare)
#   --insns        add instruction counts (slow: valgrind)
#   --insns-only   only the instruction counts
# A REV may also be a directory holding an already built numasim binary
# (e.g. a worktree's build-pgo/), labelled by its path.
# Example:
#   bash bench/compare.sh -r 9 df10681 HEAD
#   bash bench/compare.sh -b 'bench messaging --loops 10' --insns df10681 HEAD
set -eu
rounds=7
work=/tmp/numasim-compare
insns=0
timing=1
benches=()
while [ $# -gt 0 ]; do
	case $1 in
	-r) rounds=$2; shift 2 ;;
	-b) benches+=("$2"); shift 2 ;;
	-w) work=$2; shift 2 ;;
	--insns) insns=1; shift ;;
	--insns-only) insns=1; timing=0; shift ;;
	-h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "bench/compare.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || { echo "usage: bench/compare.sh [OPTIONS] REV_A REV_B" >&2; exit 2; }
if [ ${#benches[@]} -eq 0 ]; then
	benches=(
		"bench messaging"
		"bench slub --pairs 1000000"
		"bench pagealloc --pairs 1000000 --cost-model ooo"
		"bench pagealloc --pairs 1000000 --cost-model ooo --accounting memo"
		"bench pagealloc --pairs 5000000 --cost-model ooo --accounting sampled"
	)
fi
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$work"

# build REV: prints the numasim binary of REV (built once per commit)
build() {
	local rev=$1 sha dir
	if [ -x "$rev/numasim" ]; then
		echo "$(cd "$rev" && pwd)/numasim"
		return
	fi
	sha=$(git -C "$src" rev-parse --verify "$rev^{commit}")
	dir=$work/$sha
	if [ ! -x "$dir/build-pgo/numasim" ] || [ ! -f "$dir/build-pgo/pgo-trained" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		git -C "$src" archive "$sha" | tar -x -C "$dir"
		echo "building $rev ($sha) with scripts/build-pgo.sh ..." >&2
		(cd "$dir" && bash scripts/build-pgo.sh build-pgo) >&2
	fi
	echo "$dir/build-pgo/numasim"
}
a=$(build "$1")
b=$(build "$2")
echo "A = $1: $a"
echo "B = $2: $b"
echo "host: $(nproc) CPUs, $(uname -r), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# the results a bench printed, without its host timing and memory lines
results() {
	grep -v -E '(/s|per CPU second|cpu-s|peak RSS| in [0-9.]+ s|host)' "$1" || true
}

out=$work/out.$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
median() { sort -g | awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
minmax() { sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%s-%s", lo, hi}'; }

n=0
for args in "${benches[@]}"; do
	n=$((n + 1))
	echo
	echo "== numasim $args"
	if [ "$timing" = 1 ]; then
		: >"$out/$n.A" && : >"$out/$n.B" && : >"$out/$n.ratio"
		for r in $(seq "$rounds"); do
			if [ $((r % 2)) = 1 ]; then order="A B"; else order="B A"; fi
			for x in $order; do
				if [ "$x" = A ]; then exe=$a; else exe=$b; fi
				# shellcheck disable=SC2086
				/usr/bin/time -f "%U %S %M" -o "$out/time" "$exe" $args >"$out/$n.$x.stdout"
				read -r u s rss <"$out/time"
				echo "$(echo "$u + $s" | bc -l) $rss" >>"$out/$n.$x"
				results "$out/$n.$x.stdout" >"$out/$n.$x.results"
			done
			ta=$(tail -1 "$out/$n.A" | cut -d' ' -f1)
			tb=$(tail -1 "$out/$n.B" | cut -d' ' -f1)
			echo "$tb / $ta" | bc -l >>"$out/$n.ratio"
		done
		ma=$(cut -d' ' -f1 "$out/$n.A" | median)
		mb=$(cut -d' ' -f1 "$out/$n.B" | median)
		ra=$(cut -d' ' -f2 "$out/$n.A" | median)
		rb=$(cut -d' ' -f2 "$out/$n.B" | median)
		printf 'CPU s (user+sys), median of %d: A %.3f (%s)  B %.3f (%s)\n' "$rounds" \
			"$ma" "$(cut -d' ' -f1 "$out/$n.A" | minmax)" \
			"$mb" "$(cut -d' ' -f1 "$out/$n.B" | minmax)"
		printf 'B/A per round: median %.3f (min-max %s)\n' "$(median <"$out/$n.ratio")" \
			"$(awk '{printf "%.3f\n", $1}' "$out/$n.ratio" | minmax)"
		printf 'peak RSS, median: A %d KiB  B %d KiB\n' "$ra" "$rb"
		if cmp -s "$out/$n.A.results" "$out/$n.B.results"; then
			echo "results: identical"
		else
			echo "results: DIFFER"
			diff "$out/$n.A.results" "$out/$n.B.results" | head -20 || true
		fi
		echo "load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
	fi
	if [ "$insns" = 1 ]; then
		for x in A B; do
			if [ "$x" = A ]; then exe=$a; else exe=$b; fi
			# shellcheck disable=SC2086
			valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
				"$exe" $args >/dev/null 2>"$out/vg"
			echo "host instructions $x: $(grep -E 'I +refs' "$out/vg" | awk '{print $NF}')"
		done
	fi
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
