#!/usr/bin/env bash
# scripts/fuzz-long.sh SECONDS [TARGET...]: the long fuzz runs (docs/guide/fuzzing.md).
# Builds build-fuzz (clang, ASan+UBSan, -Dfuzz=true) if needed, then runs
# each target (default: all eight) for SECONDS, one at a time at the lowest
# priority (nice -n 19), keeping its corpus in $b/fuzz-corpus/NAME
# (so a later run goes on from it) and any crash input in
# $b/fuzz-artifacts.  Prints per target libFuzzer's totals and
# exits non-zero if any target failed.
set -u
cd "$(dirname "$0")/.."
secs=${1:?usage: scripts/fuzz-long.sh SECONDS [TARGET...]}
shift
targets=${*:-machine scenario numactl sysfs db markup trace change}
# FUZZ_BUILD names another build directory of the same kind (default build-fuzz).
b=${FUZZ_BUILD:-build-fuzz}
[ -f "$b/build.ninja" ] || CC=clang meson setup "$b" --buildtype=debug \
	-Doptimization=1 --werror -Db_sanitize=address,undefined -Db_lundef=false \
	-Dtests=false -Dfuzz=true >/dev/null || exit 1
ninja -C "$b" >/dev/null || exit 1
status=0
for t in $targets; do
	mkdir -p "$b/fuzz-corpus/$t"
	log=$b/fuzz-long-$t.log
	FUZZ_SECONDS=$secs FUZZ_CORPUS=$b/fuzz-corpus/$t \
		FUZZ_ARTIFACTS=$b/fuzz-artifacts NUMASIM=$PWD/$b/numasim \
		NUMASIM_SRC=$PWD nice -n 19 bash tests/fuzz/run.sh "$t" \
		"$b/tests/fuzz/fuzz_$t" >"$log" 2>&1
	rc=$?
	[ $rc = 0 ] || status=1
	echo "$t: exit $rc: $(grep -E '^Done ' "$log" | tail -1)" \
		"(corpus $(find "$b/fuzz-corpus/$t" -type f | wc -l) inputs; log $log)"
done
exit $status
