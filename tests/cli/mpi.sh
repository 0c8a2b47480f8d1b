#!/usr/bin/env bash
# Distributed sweeps (`numasim run --mpi`, docs/guide/running.md): under
# `mpirun --allow-run-as-root --oversubscribe -n 2` (and -n 3 with
# --jobs 2) the sweep of tests/scenarios/sweep-small.yaml stores the same
# rows as --jobs 1 and --jobs 2 (tests/cli/rows.sh), prints the same
# table, and --resume works under MPI.  Skipped (77) when mpirun is
# missing or numasim was built without MPI; then `--mpi` must say so.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/rows.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 not installed"; exit 77; }

SWEEP=$SRC/tests/scenarios/sweep-small.yaml

if ! "$NUMASIM" run --help | grep -q -- "--mpi .*spread"; then
	bad "run --help lacks --mpi"
fi
if "$NUMASIM" run --help | grep -q "not in this build"; then
	"$NUMASIM" run "$SWEEP" --db "$tmp/x.db" --mpi >"$tmp/o" 2>"$tmp/e"
	rc=$?
	[ $rc -eq 2 ] && grep -q "numasim was built without MPI" "$tmp/e" && [ ! -e "$tmp/x.db" ] &&
		ok || bad "--mpi without MPI: exit $rc, $(cat "$tmp/e")"
	echo "SKIP: numasim built without MPI"
	[ "$fails" -eq 0 ] && exit 77
	finish
	exit
fi
command -v mpirun >/dev/null || { echo "SKIP: mpirun not installed"; exit 77; }

# Containers: no ssh/rsh launcher, no ptrace for single-copy, any core count.
export OMPI_MCA_plm=isolated OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_btl=self,vader
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI's own allocations are not ours to leak-check (ASan builds).
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
mpi() { timeout 240 mpirun --allow-run-as-root --oversubscribe "$@"; }

"$NUMASIM" run "$SWEEP" --db "$tmp/j1.db" --jobs 1 -q >"$tmp/j1.out" 2>"$tmp/j1.err"
[ $? -eq 0 ] && ok || { bad "--jobs 1"; cat "$tmp/j1.err"; }
"$NUMASIM" run "$SWEEP" --db "$tmp/j2.db" --jobs 2 -q >"$tmp/j2.out" 2>/dev/null
[ $? -eq 0 ] && ok || bad "--jobs 2"

mpi -n 2 "$NUMASIM" run "$SWEEP" --db "$tmp/m2.db" --mpi >"$tmp/m2.out" 2>"$tmp/m2.err"
rc=$?
[ $rc -eq 0 ] && ok || { bad "mpirun -n 2: exit $rc"; cat "$tmp/m2.err"; }
grep -q "^numasim run: 20 runs stored in $tmp/m2.db (run_id 1..20)" "$tmp/m2.err" && ok ||
	{ bad "mpirun -n 2 summary (rank 0 only)"; cat "$tmp/m2.err"; }
[ "$(grep -c "runs stored" "$tmp/m2.err")" = 1 ] && ok || bad "more than one rank printed"
same_rows "mpirun -n 2 vs --jobs 1" "$tmp/j1.db" "$tmp/m2.db"
same_rows "--jobs 2 vs --jobs 1" "$tmp/j1.db" "$tmp/j2.db"
cmp -s "$tmp/j1.out" "$tmp/m2.out" && ok || bad "mpirun -n 2 printed another table"
order="SELECT group_concat(point || '.' || repetition) FROM (SELECT * FROM runs ORDER BY run_id)"
[ "$(q "$tmp/j1.db" "$order")" = "$(q "$tmp/m2.db" "$order")" ] && ok || bad "MPI run order"
[ "$(q "$tmp/m2.db" "SELECT count(DISTINCT invocation) FROM runs")" = 1 ] && ok ||
	bad "the ranks' runs have different invocations"
[ "$(q "$tmp/m2.db" "PRAGMA integrity_check")" = ok ] && ok || bad "integrity"

# three ranks with two threads each
mpi -n 3 "$NUMASIM" run "$SWEEP" --db "$tmp/m3.db" --mpi --jobs 2 -q >"$tmp/m3.out" 2>"$tmp/m3.err"
rc=$?
[ $rc -eq 0 ] && ok || { bad "mpirun -n 3 --jobs 2: exit $rc"; cat "$tmp/m3.err"; }
same_rows "mpirun -n 3 --jobs 2 vs --jobs 1" "$tmp/j1.db" "$tmp/m3.db"

# --resume under MPI: drop some runs, the ranks redo exactly those
cp "$tmp/m2.db" "$tmp/r.db"
sqlite3 "$tmp/r.db" "PRAGMA foreign_keys = ON; DELETE FROM runs WHERE run_id % 3 = 0"
mpi -n 2 "$NUMASIM" run "$SWEEP" --db "$tmp/r.db" --mpi --resume >"$tmp/r.out" 2>"$tmp/r.err"
rc=$?
[ $rc -eq 0 ] && ok || { bad "mpirun --resume: exit $rc"; cat "$tmp/r.err"; }
grep -q "^numasim run: 6 runs stored in .*, 14 of 20 skipped" "$tmp/r.err" && ok ||
	{ bad "MPI resume summary"; cat "$tmp/r.err"; }
same_rows "MPI resumed vs --jobs 1" "$tmp/j1.db" "$tmp/r.db"
cmp -s "$tmp/j1.out" "$tmp/r.out" && ok || bad "MPI resume printed another table"

# a worker that fails (its scratch database cannot be created): rank 0
# reports the worker's message, keeps the runs written so far, exit != 0
mpi -n 1 "$NUMASIM" run "$SWEEP" --db "$tmp/w.db" --mpi : \
	-n 1 env TMPDIR=/nonexistent "$NUMASIM" run "$SWEEP" --db "$tmp/w.db" --mpi >/dev/null 2>"$tmp/w.err"
rc=$?
[ $rc -ne 0 ] && grep -q "error: MPI rank 1: cannot create a scratch database in /nonexistent" "$tmp/w.err" &&
	ok || { bad "failing worker: exit $rc"; cat "$tmp/w.err"; }
[ "$(q "$tmp/w.db" "PRAGMA integrity_check")" = ok ] && ok || bad "failing worker: integrity"
[ "$(q "$tmp/w.db" "SELECT count(*) FROM runs WHERE status <> 'ok'")" = 0 ] && ok || bad "failing worker: status"

# Ctrl-C on mpirun after the first commit: whole runs only
# (mpirun itself in the background: a function or timeout(1) would be a
# subshell that keeps SIGINT ignored, as background jobs of scripts do)
mpirun --allow-run-as-root --oversubscribe -n 2 "$NUMASIM" run "$SWEEP" --db "$tmp/i.db" --mpi \
	--set workload.inner_iterations=20000 >/dev/null 2>"$tmp/i.err" &
pid=$!
for _ in $(seq 1000); do
	[ "$(q "$tmp/i.db" "SELECT count(*) FROM runs" 2>/dev/null || echo 0)" -gt 0 ] && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.05
done
kill -INT $pid
wait $pid
rc=$?
n=$(q "$tmp/i.db" "SELECT count(*) FROM runs")
echo "interrupted mpirun: exit $rc, $n runs committed"
[ $rc -ne 0 ] && [ "$n" -lt 20 ] && ok || bad "interrupted mpirun: exit $rc with $n runs"
grep -q "^numasim run: interrupted: $n of 20 runs stored in $tmp/i.db" "$tmp/i.err" && ok ||
	{ bad "interrupted: rank 0's message"; cat "$tmp/i.err"; }
[ "$(q "$tmp/i.db" "PRAGMA integrity_check")" = ok ] && ok || bad "interrupted: integrity"
[ "$(q "$tmp/i.db" "SELECT count(*) FROM runs WHERE status <> 'ok'")" = 0 ] && ok || bad "interrupted: status"

# a bad scenario: every rank refuses it, exit 2, no database
mpi -n 2 "$NUMASIM" run "$SRC/tests/bad/scenarios/iter-bad-value.yaml" --db "$tmp/bad.db" --mpi \
	>"$tmp/b.out" 2>"$tmp/b.err"
rc=$?
[ $rc -ne 0 ] && grep -q "error: unknown zonelist_iter" "$tmp/b.err" && [ ! -e "$tmp/bad.db" ] &&
	ok || { bad "bad scenario under MPI: exit $rc"; cat "$tmp/b.err"; }

finish
