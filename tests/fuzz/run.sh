#!/usr/bin/env bash
# tests/fuzz/run.sh NAME BINARY [LIBFUZZER-OPTIONS...]: run one fuzz target
# (tests/fuzz/fuzz_*.c) on a fresh corpus seeded from the tree, for
# FUZZ_SECONDS (default 30) or as the extra options say (-runs=N,
# -max_total_time=S; later options win).  Seeds are read from the tree and
# never written: new inputs go to a scratch corpus, or to FUZZ_CORPUS
# when set (a long run keeps its corpus there).  A crash, leak, timeout
# or UB report, or a check failure (tests/fuzz/fuzz.h) fails the test; its
# input is saved as FUZZ_ARTIFACTS/NAME-crash-* (default
# $MESON_BUILD_ROOT/fuzz-artifacts or ./fuzz-artifacts).  The last lines
# printed are libFuzzer's totals ("Done N runs in S second(s)").
set -u
name=$1
bin=$2
shift 2
SRC=${NUMASIM_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seeds=$tmp/seeds
mkdir -p "$seeds"
case $name in
machine)
	dirs="$SRC/configs $SRC/tests/bad/machines $SRC/tests/machines $SRC/tests/costs" ;;
scenario)
	dirs="$SRC/scenarios $SRC/tests/scenarios $SRC/tests/bad/scenarios $SRC/tests/fuzz/seeds/scenario" ;;
numactl)
	dirs="$SRC/tests/fixtures/numactl" ;;
sysfs)
	# Each fixture tree as one input: "==> PATH <==" and the file, per file.
	for t in "$SRC"/tests/fixtures/sysfs/*/; do
		(cd "$t" && find . -type f | sort | while read -r f; do
			printf '==> %s <==\n' "${f#./}"
			cat "$f"
		done) >"$seeds/$(basename "$t")"
	done
	dirs="" ;;
db)
	# A small database (two runs of 1-page batches), made by this build's
	# numasim; its -wal is folded in, so the image is one file.
	NUMASIM=${NUMASIM:?NUMASIM must name the numasim binary}
	"$NUMASIM" run -q "$SRC/tests/scenarios/tiny-pagealloc.yaml" --db "$seeds/pagealloc.db" \
		--set 'workload.batches=[1]' >/dev/null 2>&1 || { echo "cannot make a seed database"; exit 1; }
	rm -f "$seeds"/*-wal "$seeds"/*-shm
	# and the inputs that once crashed a reader (regressions)
	dirs="$SRC/tests/fuzz/seeds/db" ;;
markup)
	# strings for the HTML and SVG writers, one per line
	dirs="$SRC/tests/fuzz/seeds/markup" ;;
trace)
	# the text fixtures, good and bad, and a compact file made from one
	NUMASIM=${NUMASIM:?NUMASIM must name the numasim binary}
	"$NUMASIM" import trace "$SRC/tests/fixtures/traces/trace-cmd-v5.15.txt" \
		-o "$seeds/trace-cmd-v5.15.nst" >/dev/null 2>&1 ||
		{ echo "cannot make a seed compact trace"; exit 1; }
	dirs="$SRC/tests/fixtures/traces $SRC/tests/fixtures/traces/bad" ;;
change)
	# the shipped change files and the bad ones
	dirs="$SRC/scenarios/changes $SRC/tests/bad/changes" ;;
*)
	echo "run.sh: unknown fuzz target '$name'" >&2
	exit 2 ;;
esac
corpus=${FUZZ_CORPUS:-$tmp/corpus}
mkdir -p "$corpus"
art=${FUZZ_ARTIFACTS:-${MESON_BUILD_ROOT:-.}/fuzz-artifacts}
mkdir -p "$art"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
# -error_exitcode=1: libFuzzer's default for a crash, 77, is meson's "skipped"
# shellcheck disable=SC2086
exec "$bin" -max_total_time="${FUZZ_SECONDS:-30}" -timeout=20 -rss_limit_mb=2048 -error_exitcode=1 \
	-max_len="$([ "$name" = db ] && echo 262144 || echo 16384)" \
	-close_fd_mask=3 -print_final_stats=1 -dict="$SRC/tests/fuzz/$name.dict" \
	-artifact_prefix="$art/$name-" "$@" "$corpus" "$seeds" $dirs
