#!/usr/bin/env bash
# The whole test suite: an optimised build and an ASan+UBSan build (-O1),
# both with -Werror, each running every meson test; then build-fuzz, clang with
# ASan+UBSan and -Dfuzz=true (tests/fuzz only: -Dtests=false), running the
# fuzz suite, each target for FUZZ_SECONDS (30) seconds.  The last line is
# "N passed, N failed", counted from the builds' meson-logs/testlog.json
# (meson's own exit status is the failure count mod 256, so it is not
# trusted alone).  Exits non-zero on any failure or when no test ran.
set -u
cd "$(dirname "$0")/.."
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=detect_leaks=1
status=0
builds="build build-asan build-fuzz"
for b in $builds; do rm -f "$b/meson-logs/testlog.json"; done
bash scripts/build.sh build --buildtype=release --werror || status=1
# -O1, as the fuzz build and the sanitizers' own docs recommend: at -O0 the
# sanitized suite ran 3-5x longer (tiny-pagealloc 16.6 against 3.1 CPU-s,
# cli-cost-model 418 against 142 s, 2026-12-02) and CI overran its budget
bash scripts/build.sh build-asan --buildtype=debug -Doptimization=1 --werror \
	-Db_sanitize=address,undefined -Db_lundef=false || status=1
CC=clang bash scripts/build.sh build-fuzz --buildtype=debug -Doptimization=1 --werror \
	-Db_sanitize=address,undefined -Db_lundef=false -Dtests=false -Dfuzz=true || status=1
for b in $builds; do
	[ -f "$b/build.ninja" ] || continue
	# Sanitizer builds run several times slower: give their tests more time.
	mult=1
	[ "$b" = build-asan ] && mult=4
	echo "== meson test -C $b"
	meson test -C "$b" --print-errorlogs --num-processes 2 --timeout-multiplier $mult || status=1
done
summary=$(
	for b in $builds; do
		f="$b/meson-logs/testlog.json"
		[ -f "$f" ] && cat "$f"
	done | jq -rs '
		[ .[] | .result ] as $r
		| ($r | map(select(. == "OK" or . == "EXPECTEDFAIL")) | length) as $p
		| ($r | map(select(. != "OK" and . != "EXPECTEDFAIL" and . != "SKIP")) | length) as $f
		| ($r | map(select(. == "SKIP")) | length) as $s
		| "\($p) passed, \($f) failed" + (if $s > 0 then ", \($s) skipped" else "" end)'
)
[ -n "$summary" ] || summary="0 passed, 0 failed"
passed=${summary%% passed*}
failed=${summary#*, }
failed=${failed%% failed*}
if [ "$passed" = 0 ] || [ "$failed" != 0 ]; then
	status=1
fi
echo "$summary"
exit $status
