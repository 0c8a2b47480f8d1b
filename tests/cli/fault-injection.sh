#!/usr/bin/env bash
# I/O fault injection (issue 18, item 5), as SQLite's own tests do it: a
# 3-run plan (tests/scenarios/fault-3runs.yaml) is run once to count the
# writes and syncs on its database files (tests/faultshim.c, LD_PRELOAD),
# then again for every N, failing the Nth write with ENOSPC (sticky: a
# full disk stays full) and, separately, the Nth fsync/fdatasync with EIO.
# After each fault:
#   - numasim exits 1 (a runtime failure) and says what failed: "No space
#     left on device" for ENOSPC, "fsync failed" (with the errno's text
#     where SQLite kept it) for the sync, or
#     exits 0 when the fault left nothing to lose (then all 3 runs are in);
#   - the database (if any) passes PRAGMA integrity_check;
#   - it holds exactly a prefix of the plan's runs, each identical to the
#     fault-free reference (every param, metric, sample and counter), no
#     partial run and no 'running' row;
#   - run --resume without faults completes it to the reference.
# FAULT_STRIDE=K tests every Kth N only (for a quick look; default 1).
set -u

# On tmpfs the ~500 runs' fsyncs cost nothing (the shim counts and fails
# them all the same): 14 s instead of 1 min 50 s on disk.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
	export TMPDIR=/dev/shm
fi
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SHIM=${FAULTSHIM:?FAULTSHIM must name tests/faultshim.so}
PLAN=$SRC/tests/scenarios/fault-3runs.yaml
stride=${FAULT_STRIDE:-1}
# ASan must come first among the libraries; the shim goes before it.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}:verify_asan_link_order=0

# The results of a database's ok runs, in run order, without what differs
# between two executions (times, host, invocation, command, run_id).
dump() {
	# a file whose schema was never committed holds no runs
	[ "$(sqlite3 "$1" "SELECT count(*) FROM sqlite_schema WHERE name = 'runs'")" = 1 ] || return 0
	sqlite3 "$1" "
		SELECT r.point, r.repetition, r.seed, r.variant, r.status,
		  (SELECT group_concat(key || '=' || coalesce(value, '~'), ';')
		     FROM (SELECT key, value FROM params p WHERE p.run_id = r.run_id ORDER BY key)),
		  (SELECT group_concat(name || '=' || coalesce(value, '~'), ';')
		     FROM (SELECT name, value FROM metrics m WHERE m.run_id = r.run_id ORDER BY name)),
		  (SELECT group_concat(metric || '/' || idx || '=' || value, ';')
		     FROM (SELECT metric, idx, value FROM samples s WHERE s.run_id = r.run_id
		           ORDER BY metric, idx)),
		  (SELECT group_concat(scope || '/' || scope_id || '/' || name || '=' || value, ';')
		     FROM (SELECT scope, scope_id, name, value FROM counters c WHERE c.run_id = r.run_id
		           ORDER BY scope, scope_id, name))
		FROM runs r ORDER BY r.run_id"
}

# run DB [FAULT-ENV...]: the plan into DB under the shim
run() {
	local db=$1
	shift
	env LD_PRELOAD="$SHIM" FAULT_PATH="/$(basename "$db")" "$@" \
		"$NUMASIM" run -q "$PLAN" --db "$db" >/dev/null 2>"$tmp/err"
}

run "$tmp/ref.db" FAULT_OP=write FAULT_N=0 FAULT_COUNT="$tmp/nwrite" ||
	{ cat "$tmp/err"; bad "reference run"; }
rm -f "$tmp/ref.db"*
run "$tmp/ref.db" FAULT_OP=sync FAULT_N=0 FAULT_COUNT="$tmp/nsync" ||
	{ cat "$tmp/err"; bad "reference run"; }
dump "$tmp/ref.db" >"$tmp/ref"
nwrite=$(cat "$tmp/nwrite")
nsync=$(cat "$tmp/nsync")
if [ "$(wc -l <"$tmp/ref")" = 3 ]; then ok; else bad "reference holds $(wc -l <"$tmp/ref") runs"; fi
if [ "$nwrite" -gt 10 ] && [ "$nsync" -gt 3 ]; then ok; else
	bad "the shim counted $nwrite writes and $nsync syncs"; fi
echo "a 3-run plan: $nwrite writes, $nsync syncs on its database files"

# check OP N ERRNO-TEXT: the state after the Nth OP failed
check() {
	local what="$1 $2" st=$3 want=$4 db=$tmp/f.db
	if [ "$st" = 1 ] && grep -q "$want" "$tmp/err"; then ok
	elif [ "$st" = 0 ] && [ "$(dump "$db" | wc -l)" = 3 ]; then ok
	else bad "$what: exit $st: $(head -c 300 "$tmp/err")"; fi
	if [ -s "$db" ]; then
		local ic
		ic=$(sqlite3 "$db" "PRAGMA integrity_check" 2>&1)
		if [ "$ic" = ok ]; then ok; else bad "$what: integrity_check: $ic"; fi
		dump "$db" >"$tmp/got" 2>&1
		if head -n "$(wc -l <"$tmp/got")" "$tmp/ref" | cmp -s - "$tmp/got"; then ok; else
			bad "$what: the runs left are not a prefix of the reference:"
			diff "$tmp/ref" "$tmp/got" | head -c 400; echo
		fi
	fi
	# --resume without faults completes the plan
	if "$NUMASIM" run -q "$PLAN" --db "$db" --resume >/dev/null 2>"$tmp/err2" &&
		dump "$db" | cmp -s - "$tmp/ref"; then ok; else
		bad "$what: --resume did not complete the plan: $(head -c 300 "$tmp/err2")"; fi
}

failed=0
for op in write sync; do
	if [ $op = write ]; then n=$nwrite err=ENOSPC text="No space left on device" sticky=1
	else n=$nsync err=EIO text="fsync failed" sticky=0; fi
	for ((i = 1; i <= n; i += stride)); do
		rm -f "$tmp/f.db" "$tmp/f.db-wal" "$tmp/f.db-shm"
		before=$fails
		run "$tmp/f.db" FAULT_OP=$op FAULT_N=$i FAULT_ERRNO=$err FAULT_STICKY=$sticky
		check "$op" "$i" $? "$text"
		[ $fails = "$before" ] || failed=$((failed + 1))
	done
done
echo "faults injected: $(( (nwrite + stride - 1) / stride )) writes, $(( (nsync + stride - 1) / stride )) syncs; $failed with a failed check"
finish
