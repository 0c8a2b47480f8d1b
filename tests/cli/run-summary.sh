#!/usr/bin/env bash
# Issue 51, finding 5: the run summary says what the file holds, and every
# "error:" exits non-zero.
#   - AUTOINCREMENT exhausted (runs' sqlite_sequence at its largest): the
#     insert fails and the summary said "1 run stored (run_id
#     9223372036854775807..)" while the file held none of this plan's;
#     now "0 runs stored", exit 1.
#   - every write of a 3-run plan committed in groups of 2 failed in turn
#     with ENOSPC (tests/faultshim.c, sticky: a full disk stays full): the
#     number of runs the summary says were stored is the number the file
#     holds (read back after the last commit), and a failure exits 1.
#   - `run --resume` whose table fails ("error: the runs have no pagealloc
#     samples") exits 2, not 0.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SHIM=${FAULTSHIM:?FAULTSHIM must name tests/faultshim.so}
PLAN=$SRC/tests/scenarios/fault-3runs.yaml
TINY=$SRC/tests/scenarios/tiny-pagealloc.yaml
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}:verify_asan_link_order=0
said() { sed -n 's/^numasim run: \([0-9]*\) runs\{0,1\} stored.*/\1/p' "$1"; }
have() { sqlite3 "$1" "SELECT count(*) FROM runs WHERE status <> 'running'" 2>/dev/null || echo 0; }

# --- AUTOINCREMENT exhaustion
A=$tmp/a.db
"$NUMASIM" run -q "$PLAN" --db "$A" >/dev/null 2>"$tmp/err" || bad "run: $(cat "$tmp/err")"
sqlite3 "$A" "UPDATE sqlite_sequence SET seq = 9223372036854775806 WHERE name = 'runs'"
"$NUMASIM" run "$PLAN" --db "$A" >/dev/null 2>"$tmp/err"
check "AUTOINCREMENT exhausted: exit" "$?" 1
check "AUTOINCREMENT exhausted: runs said stored" "$(said "$tmp/err")" 0
check "AUTOINCREMENT exhausted: runs in the file" "$(have "$A")" 3
grep -q 'run_id 9223372036854775807' "$tmp/err" && bad "the summary names a run id the file lacks" || ok

# --- a full disk at every write of a grouped commit
F=$tmp/f.db
FAULT_PATH=f.db FAULT_OP=write FAULT_N=0 FAULT_COUNT=$tmp/count LD_PRELOAD=$SHIM \
	"$NUMASIM" run "$PLAN" --db "$F" --commit-runs 2 >/dev/null 2>&1 || bad "fault-free run"
writes=$(cat "$tmp/count")
[ "${writes:-0}" -gt 10 ] && ok || bad "fault-free run counted ${writes:-no} writes"
for n in $(seq 1 "${writes:-0}"); do
	rm -f "$F" "$F-wal" "$F-shm" "$F-journal"
	FAULT_PATH=f.db FAULT_OP=write FAULT_N=$n FAULT_STICKY=1 LD_PRELOAD=$SHIM \
		"$NUMASIM" run "$PLAN" --db "$F" --commit-runs 2 >/dev/null 2>"$tmp/err"
	st=$?
	h=$(have "$F")
	s=$(said "$tmp/err")
	if [ -n "$s" ] && [ "$s" != "$h" ]; then bad "write $n: the summary says $s runs, the file holds $h"; else ok; fi
	if grep -q 'error:' "$tmp/err" && [ $st = 0 ]; then bad "write $n: an error with exit 0"; else ok; fi
done

# --- run --resume whose table fails
R=$tmp/r.db
"$NUMASIM" run -q "$TINY" --db "$R" >/dev/null 2>"$tmp/err" || bad "run: $(cat "$tmp/err")"
sqlite3 "$R" "DELETE FROM samples"
"$NUMASIM" run "$TINY" --db "$R" --resume >/dev/null 2>"$tmp/err"
check "run --resume, table error: exit" "$?" 2
grep -q 'error: the runs have no pagealloc samples' "$tmp/err" && ok || bad "message: $(cat "$tmp/err")"
finish
