#!/usr/bin/env bash
# `numasim run --resume` and interruptions (docs/guide/running.md): a sweep
# (group commit of 1-3 runs per transaction) killed with SIGKILL at random moments leaves a database that passes
# PRAGMA integrity_check with no half-written run (no status 'running', no
# orphan rows); --resume then completes it, and the result equals an
# uninterrupted run row for row (tests/cli/rows.sh).  Also: SIGTERM stops
# cleanly (exit 130), a resume of a complete plan runs nothing and prints
# the whole plan's table, a different scenario (another hash) is not
# skipped, failed-free output with --quiet is empty on stderr.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/rows.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 not installed"; exit 77; }

SWEEP=$SRC/tests/scenarios/sweep-small.yaml

# --- the reference: one uninterrupted run -------------------------------------
"$NUMASIM" run "$SWEEP" --db "$tmp/ref.db" >"$tmp/ref.out" 2>"$tmp/ref.err"
check "reference exit" "$?" 0
check "reference runs" "$(q "$tmp/ref.db" "SELECT count(*) FROM runs WHERE status = 'ok'")" 20
# not a terminal: nothing on stderr but the summary line
check "stderr is one line" "$(wc -l <"$tmp/ref.err")" 1
# (the rate reads s/run when the host is slow: less than a run a second;
# a pagealloc sweep says it ran memo, its default accounting)
grep -qE "^numasim run: 20 runs stored in $tmp/ref.db \(run_id 1..20\), wall time [0-9.]* s, [0-9.]* (runs/s|s/run), memo accounting$" \
	"$tmp/ref.err" && ok || { bad "summary line"; cat "$tmp/ref.err"; }

# --- SIGKILL at random moments, then --resume --------------------------------------
# Each round resumes the plan and is killed at a random moment: 0-0.2 s
# after its first commit (the plan takes 0.3-0.5 s on an idle host, runs
# of ~10 ms plus a sync per group; seconds on a loaded one); rounds go on until one
# kill has landed in the middle of the plan (some runs committed, not
# all), at most 8 rounds.
db=$tmp/killed.db
mid=0
for round in 1 2 3 4 5 6 7 8; do
	before=0
	[ -e "$db" ] && before=$(q "$db" "SELECT count(*) FROM runs")
	# group commit in groups of 1, 2 or 3 runs (the default group would
	# hold the whole 20-run plan): a kill loses the open group, whole
	"$NUMASIM" run "$SWEEP" --db "$db" --resume --jobs $((round % 2 + 1)) -q \
		--commit-runs $((round % 3 + 1)) --commit-ms 0 \
		>/dev/null 2>"$tmp/kill.err" &
	pid=$!
	# wait for this round's first commit, then a random 0-0.2 s
	for _ in $(seq 400); do
		[ -e "$db" ] && [ "$(q "$db" "SELECT count(*) FROM runs" 2>/dev/null || echo 0)" -gt "$before" ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.02
	done
	sleep "0.$(printf '%03d' $((RANDOM % 200)))"
	kill -KILL $pid 2>/dev/null
	wait $pid 2>/dev/null
	rc=$?
	n=$(q "$db" "SELECT count(*) FROM runs")
	echo "round $round: exit $rc, runs committed $before -> $n"
	check "round $round integrity" "$(q "$db" "PRAGMA integrity_check")" ok
	check "round $round foreign keys" "$(q "$db" "PRAGMA foreign_key_check")" ""
	check "round $round no running run" "$(q "$db" "SELECT count(*) FROM runs WHERE status <> 'ok'")" 0
	# every committed run is whole: all its samples (2 batches x 3 series x
	# 3 kept samples) and its branch rows
	check "round $round whole runs" \
		"$(q "$db" "SELECT count(*) FROM runs r WHERE (SELECT count(*) FROM samples s WHERE s.run_id = r.run_id) <> 6 * 3 OR (SELECT count(*) FROM branches b WHERE b.run_id = r.run_id) = 0")" 0
	check "round $round no duplicates" \
		"$(q "$db" "SELECT count(*) FROM (SELECT point, repetition FROM runs GROUP BY 1, 2 HAVING count(*) > 1)")" 0
	if [ $rc -eq 137 ] && [ "$n" -gt "$before" ] && [ "$n" -lt 20 ]; then
		mid=1
		break
	fi
	[ "$n" -ge 20 ] && rm -f "$db" "$db-wal" "$db-shm"   # finished: start over
done
check "a kill landed mid-plan" "$mid" 1
"$NUMASIM" run "$SWEEP" --db "$db" --resume >"$tmp/res.out" 2>"$tmp/res.err"
check "resume exit" "$?" 0
grep -q "^numasim run: [0-9]* runs\? stored in $db.*, [0-9]* of 20 skipped (already complete), wall time" \
	"$tmp/res.err" && ok || { bad "resume summary"; cat "$tmp/res.err"; }
check "resumed runs" "$(q "$db" "SELECT count(*) FROM runs WHERE status = 'ok'")" 20
check "resumed integrity" "$(q "$db" "PRAGMA integrity_check")" ok
same_rows "killed + resumed vs uninterrupted" "$tmp/ref.db" "$db"
cmp -s "$tmp/ref.out" "$tmp/res.out" && ok || bad "resumed table differs from the uninterrupted one"

# --- resuming a complete plan: nothing runs, the whole table is printed -----------------
"$NUMASIM" run "$SWEEP" --db "$db" --resume >"$tmp/res2.out" 2>"$tmp/res2.err"
check "complete resume exit" "$?" 0
grep -q "^numasim run: 0 runs stored in $db, 20 of 20 skipped (already complete)" "$tmp/res2.err" && ok ||
	{ bad "complete resume summary"; cat "$tmp/res2.err"; }
cmp -s "$tmp/ref.out" "$tmp/res2.out" && ok || bad "complete resume table differs"
check "nothing added" "$(q "$db" "SELECT count(*) FROM runs")" 20
"$NUMASIM" run "$SWEEP" --db "$db" --resume -q >/dev/null 2>"$tmp/res3.err"
[ ! -s "$tmp/res3.err" ] && ok || bad "--quiet wrote to stderr"

# --- another scenario (another hash) is not taken for done ---------------------------------
sed 's/^seed: 11$/seed: 12/' "$SWEEP" >"$tmp/other.yaml"
sed -i "s|^machine: .*|machine: $SRC/configs/seed-2016-2s.yaml|" "$tmp/other.yaml"
"$NUMASIM" run "$tmp/other.yaml" --db "$db" --resume -q >/dev/null 2>&1
check "other scenario exit" "$?" 0
check "other scenario ran" "$(q "$db" "SELECT count(*) FROM runs")" 40

# --- --set is part of the hash: another value runs again, the same value resumes -----------
"$NUMASIM" run "$SWEEP" --db "$tmp/set.db" --set workload.inner_iterations=3 -q >/dev/null 2>&1
check "--set run" "$?" 0
"$NUMASIM" run "$SWEEP" --db "$tmp/set.db" --set workload.inner_iterations=3 --resume >/dev/null 2>"$tmp/set.err"
grep -q "^numasim run: 0 runs stored in .*, 20 of 20 skipped" "$tmp/set.err" && ok || { bad "--set resume"; cat "$tmp/set.err"; }
"$NUMASIM" run "$SWEEP" --db "$tmp/set.db" --set workload.inner_iterations=4 --resume >/dev/null 2>"$tmp/set.err"
grep -q "^numasim run: 20 runs stored in .*, 0 of 20 skipped" "$tmp/set.err" && ok || { bad "--set other value"; cat "$tmp/set.err"; }
# --- runs another numasim version stored are not taken for done -------------------------
# (scenarios/run.c plan_find_done: a release may model or default otherwise)
sqlite3 "$tmp/set.db" "UPDATE runs SET tool_version = '0.0.1' WHERE run_id <= 10"
"$NUMASIM" run "$SWEEP" --db "$tmp/set.db" --set workload.inner_iterations=4 --resume >/dev/null 2>"$tmp/ver.err"
grep -q "^numasim run: 0 runs stored in .*, 20 of 20 skipped" "$tmp/ver.err" && ok || { bad "version: newer runs"; cat "$tmp/ver.err"; }
sqlite3 "$tmp/set.db" "UPDATE runs SET tool_version = '0.0.1' WHERE run_id > 20 AND run_id <= 30"
"$NUMASIM" run "$SWEEP" --db "$tmp/set.db" --set workload.inner_iterations=4 --resume >/dev/null 2>"$tmp/ver.err"
grep -q "^numasim run: 10 runs stored in .*, 10 of 20 skipped" "$tmp/ver.err" && ok || { bad "version: other version's runs skipped"; cat "$tmp/ver.err"; }
check "version: this release's runs" "$(q "$tmp/set.db" "SELECT count(*) FROM runs WHERE tool_version = '$("$NUMASIM" version | head -n 1 | cut -d' ' -f2)'")" 30
# --inner is outside the hash: refused with --resume
"$NUMASIM" run "$SWEEP" --db "$tmp/set.db" --inner 3 --resume >"$tmp/o" 2>"$tmp/e"
check "--inner --resume exit" "$?" 2
grep -q "error: --inner cannot be combined with --resume" "$tmp/e" && ok || bad "--inner --resume message"

# --- a failed run is run again ------------------------------------------------------------
cp "$tmp/ref.db" "$tmp/f.db"
sqlite3 "$tmp/f.db" "UPDATE runs SET status = 'failed', message = 'test' WHERE point = 3 AND repetition = 1"
"$NUMASIM" run "$SWEEP" --db "$tmp/f.db" --resume -q >/dev/null 2>&1
check "failed rerun exit" "$?" 0
check "failed rerun" "$(q "$tmp/f.db" "SELECT count(*) || ' ' || max(run_id) FROM runs WHERE point = 3 AND repetition = 1 AND status = 'ok'")" "1 21"

# --- SIGTERM stops cleanly ---------------------------------------------------------------
"$NUMASIM" run "$SWEEP" --db "$tmp/term.db" --inner 100000 -q >"$tmp/tout" 2>"$tmp/terr" &
pid=$!
sleep 1
kill -TERM $pid
wait $pid
check "SIGTERM exit" "$?" 130
grep -q "^numasim run: interrupted: [0-9]* of 20 runs stored in $tmp/term.db" "$tmp/terr" && ok ||
	{ bad "SIGTERM message"; cat "$tmp/terr"; }
check "SIGTERM integrity" "$(q "$tmp/term.db" "PRAGMA integrity_check")" ok
check "SIGTERM no running run" "$(q "$tmp/term.db" "SELECT count(*) FROM runs WHERE status <> 'ok'")" 0
# the open group (default: up to 64 runs) was committed at the stop: the
# message's K is what the database holds
k=$(sed -n 's/^numasim run: interrupted: \([0-9]*\) of 20.*/\1/p' "$tmp/terr")
check "SIGTERM commits the open group" "$(q "$tmp/term.db" "SELECT count(*) FROM runs")" "$k"

# --- group commit's time bound: a group is committed --commit-ms after its
# first run even while the next run is being simulated ---------------------------------
"$NUMASIM" run "$SWEEP" --db "$tmp/tb.db" --inner 3000 --commit-runs 1000 --commit-ms 200 -q \
	>/dev/null 2>"$tmp/tb.err" &
pid=$!
seen=0
for _ in $(seq 300); do
	kill -0 $pid 2>/dev/null || break
	n=$( [ -e "$tmp/tb.db" ] && q "$tmp/tb.db" "SELECT count(*) FROM runs" 2>/dev/null || echo 0)
	if [ "${n:-0}" -gt 0 ] && [ "$n" -lt 20 ]; then seen=1; break; fi
	sleep 0.1
done
kill -KILL $pid 2>/dev/null
wait $pid 2>/dev/null
check "time-bounded group committed mid-plan" "$seen" 1
check "time-bounded group integrity" "$(q "$tmp/tb.db" "PRAGMA integrity_check")" ok
# option values
"$NUMASIM" run "$SWEEP" --db "$tmp/x.db" --commit-runs 0 >"$tmp/o" 2>"$tmp/e"
check "--commit-runs 0 exit" "$?" 2
grep -q "^numasim run: error: --commit-runs takes a whole number from 1 to" "$tmp/e" && ok || bad "--commit-runs 0 message"
[ ! -e "$tmp/x.db" ] && ok || bad "--commit-runs 0 created the database"

finish
