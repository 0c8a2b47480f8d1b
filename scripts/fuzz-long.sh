#!/usr/bin/env bash
# scripts/fuzz-long.sh SECONDS [TARGET...]: the long fuzz runs (docs/fuzzing.md).
# Builds build-fuzz (clang, ASan+UBSan, -Dfuzz=true) if needed, then runs
# each target (default: all five) for SECONDS, one at a time at the lowest
# priority (nice -n 19), keeping its corpus in build-fuzz/fuzz-corpus/NAME
# (so a later run goes on from it) and any crash input in
# build-fuzz/fuzz-artifacts.  Prints per target libFuzzer's totals and
# exits non-zero if any target failed.
set -u
cd "$(dirname "$0")/.."
secs=${1:?usage: scripts/fuzz-long.sh SECONDS [TARGET...]}
shift
targets=${*:-machine scenario numactl sysfs db}
[ -f build-fuzz/build.ninja ] || CC=clang meson setup build-fuzz --buildtype=debug \
	-Doptimization=1 --werror -Db_sanitize=address,undefined -Db_lundef=false \
	-Dtests=false -Dfuzz=true >/dev/null || exit 1
ninja -C build-fuzz >/dev/null || exit 1
status=0
for t in $targets; do
	mkdir -p "build-fuzz/fuzz-corpus/$t"
	log=build-fuzz/fuzz-long-$t.log
	FUZZ_SECONDS=$secs FUZZ_CORPUS=build-fuzz/fuzz-corpus/$t \
		FUZZ_ARTIFACTS=build-fuzz/fuzz-artifacts NUMASIM=$PWD/build-fuzz/numasim \
		NUMASIM_SRC=$PWD nice -n 19 bash tests/fuzz/run.sh "$t" \
		"build-fuzz/tests/fuzz/fuzz_$t" >"$log" 2>&1
	rc=$?
	[ $rc = 0 ] || status=1
	echo "$t: exit $rc: $(grep -E '^Done ' "$log" | tail -1)" \
		"(corpus $(find "build-fuzz/fuzz-corpus/$t" -type f | wc -l) inputs; log $log)"
done
exit $status
