#!/usr/bin/env bash
# sched.placement: v5.9 (models/sched_fair.c's select_task_rq_fair and
# load balancing) on tests/scenarios/tiny-messaging.yaml: runs, migrates
# tasks, stores schedstat counters and the per-window path mix, gives the
# same rows with --jobs 1 and --jobs 2, is the default, and differs from
# placement none (`--set sched.placement=none`);
# a bad value and bad window/warm-up values exit 2 with file:line:col.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/rows.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 not installed"; exit 77; }

TINY=$SRC/tests/scenarios/tiny-messaging.yaml
V59=(--set sched.placement=v5.9 --set workload.window_ms=1 --set repetitions=2)

for j in 1 2; do
	"$NUMASIM" run "$TINY" "${V59[@]}" --db "$tmp/j$j.db" --jobs $j -q >"$tmp/j$j.out" 2>"$tmp/j$j.err"
	rc=$?
	if [ $rc -eq 0 ]; then ok; else bad "--jobs $j: exit $rc"; cat "$tmp/j$j.err"; fi
done
same_rows "placement v5.9: --jobs 2 vs --jobs 1" "$tmp/j1.db" "$tmp/j2.db"
cmp -s "$tmp/j1.out" "$tmp/j2.out" && ok || bad "--jobs 2 printed another report"

# tasks migrate and the counters are stored under their schedstat names
[ "$(q "$tmp/j1.db" "SELECT min(value) FROM metrics WHERE name = 'migrations'")" != "0.0" ] &&
	ok || bad "no migrations"
for n in ttwu_count MC.ttwu_wake_remote NUMA.ttwu_move_affine nr_migrations; do
	[ "$(q "$tmp/j1.db" "SELECT count(*) FROM counters WHERE scope = 'cpu' AND name = '$n'")" -gt 0 ] &&
		ok || bad "counter $n missing"
done
# counted migrations = the per-CPU nr_migrations summed
[ "$(q "$tmp/j1.db" "SELECT (SELECT sum(value) FROM counters WHERE run_id = 1 AND name = 'nr_migrations') = (SELECT value FROM metrics WHERE run_id = 1 AND name = 'migrations')")" = 1 ] &&
	ok || bad "migrations != sum of nr_migrations"
# the report prints the per-window path mix
grep -q '^# Path mix of the frees per window' "$tmp/j1.out" && ok || bad "no per-window mix"
grep -q 'frozen/slow' "$tmp/j1.out" && ok || bad "no frozen/slow column"
# windows: the cumulative frees of the last window are all the frees
[ "$(q "$tmp/j1.db" "SELECT (SELECT value FROM samples WHERE run_id = 1 AND metric = 'window.free_slowpath' ORDER BY idx DESC LIMIT 1) = (SELECT sum(value) FROM counters WHERE run_id = 1 AND scope = 'cache' AND name = 'free_slowpath')")" = 1 ] &&
	ok || bad "last window != all slow-path frees"

# the default is v5.9 (the kernel the CFS model follows): the same rows as
# placement v5.9 given explicitly, and the param names it
"$NUMASIM" run "$TINY" --set workload.window_ms=1 --set repetitions=2 --db "$tmp/def.db" -q \
	>/dev/null 2>"$tmp/def.err" && ok || bad "default placement: exit $?"
res() {   # the results of DB, without what the --set lines change (scenario text, sha)
	q "$1" "SELECT run_id, name, value FROM metrics ORDER BY 1, 2;
		SELECT run_id, scope, scope_id, name, value FROM counters ORDER BY 1, 2, 3, 4;
		SELECT run_id, key, value FROM params ORDER BY 1, 2"
}
[ -n "$(res "$tmp/def.db")" ] && [ "$(res "$tmp/def.db")" = "$(res "$tmp/j1.db")" ] && ok ||
	bad "the default placement's results are not placement v5.9's"
check "default placement param" "$(q "$tmp/def.db" "SELECT DISTINCT value FROM params WHERE key = 'sched.placement'")" "v5.9"

# placement none gives other results, and stores neither counters nor windows
"$NUMASIM" run "$TINY" --set sched.placement=none --set repetitions=2 --db "$tmp/none.db" \
	>"$tmp/none.out" 2>"$tmp/none.err" && ok || bad "placement none: exit $?"
grep -q '^# Scheduler, mean per run (% against the first point; task placement none)$' "$tmp/none.out" &&
	ok || bad "placement none: the scheduler block does not name it"
grep -q 'migrations' "$tmp/none.out" && bad "placement none: a migrations column" || ok
check "placement none param" "$(q "$tmp/none.db" "SELECT DISTINCT value FROM params WHERE key = 'sched.placement'")" "none"
[ "$(q "$tmp/none.db" "SELECT count(*) FROM counters WHERE name = 'ttwu_count'")" = 0 ] && ok ||
	bad "placement none stored schedstat counters"
[ "$(q "$tmp/none.db" "SELECT count(*) FROM metrics WHERE name = 'migrations'")" = 0 ] && ok ||
	bad "placement none stored migrations"
[ "$(q "$tmp/none.db" "SELECT value FROM metrics WHERE run_id = 1 AND name = 'total_time_s'")" != \
  "$(q "$tmp/j1.db" "SELECT value FROM metrics WHERE run_id = 1 AND name = 'total_time_s'")" ] &&
	ok || bad "placement v5.9 changed nothing"

# a measured part: stops early, extrapolates Total time inside its interval
"$NUMASIM" run "$TINY" --set sched.placement=v5.9 --set workload.loops=200 \
	--set workload.window_ms=1 --set workload.warmup_messages=20000 \
	--set workload.measure_messages=120000 --set repetitions=1 \
	--set kernel.slab_free_layout=c270cf30 --db "$tmp/m.db" -q >"$tmp/m.out" 2>"$tmp/m.err" && ok ||
	{ bad "measured run: exit $?"; cat "$tmp/m.err"; }
[ "$(q "$tmp/m.db" "SELECT value FROM metrics WHERE name = 'total_time_extrapolated'")" = "1.0" ] &&
	ok || bad "not extrapolated"
[ "$(q "$tmp/m.db" "SELECT value FROM metrics WHERE name = 'measured.messages'")" = "120000.0" ] &&
	ok || bad "measured messages"
[ "$(q "$tmp/m.db" "SELECT (SELECT value FROM metrics WHERE name = 'total_time_ci_low_s') <= t.value AND t.value <= (SELECT value FROM metrics WHERE name = 'total_time_ci_high_s') FROM metrics t WHERE t.name = 'total_time_s'")" = 1 ] &&
	ok || bad "Total time outside its interval"
grep -q 'Total time extrapolated to all messages' "$tmp/m.out" && ok || bad "report: no extrapolation"

# bad input: exit 2, file:line:col or the option, no database
cat >"$tmp/bad.yaml" <<YAML
name: bad
machine: $SRC/configs/skylake-2s.yaml
sched:
  placement: v6.0
workload: {type: messaging, groups: 1, loops: 1}
YAML
"$NUMASIM" run "$tmp/bad.yaml" --db "$tmp/bad.db" >/dev/null 2>"$tmp/bad.err"
[ $? -eq 2 ] && ok || bad "bad placement: exit status"
grep -q "bad.yaml:4:14: error: sched.placement: unknown placement 'v6.0'" "$tmp/bad.err" && ok ||
	{ bad "bad placement: message"; cat "$tmp/bad.err"; }
[ ! -e "$tmp/bad.db" ] && ok || bad "bad placement: a database was written"
"$NUMASIM" run "$TINY" --set workload.measure_messages=100000000 --db "$tmp/bad2.db" >/dev/null 2>"$tmp/bad2.err"
[ $? -eq 2 ] && ok || bad "measure_messages beyond the run: exit status"
grep -q "exceed the run's" "$tmp/bad2.err" && ok || { bad "measure_messages: message"; cat "$tmp/bad2.err"; }

finish
