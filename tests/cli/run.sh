#!/usr/bin/env bash
# CLI tests for `numasim run` and `numasim report`: the tiny pagealloc
# scenario into a scratch database, every table filled as docs/reference/schema.md and
# docs/reference/scenario-format.md say, the printed table against a golden file
# (NUMASIM_UPDATE_GOLDEN=1 rewrites it), determinism across runs and --jobs,
# appending to a database, bad input leaving a database byte-identical,
# usage errors, `validate` on scenarios, report's output and errors, and
# Ctrl-C (SIGINT) keeping committed runs only.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 not installed"; exit 77; }

TINY=$SRC/tests/scenarios/tiny-pagealloc.yaml
GOLDEN=$SRC/tests/golden/tiny-pagealloc.txt
db=$tmp/r.db




# --- a run --------------------------------------------------------------------
"$NUMASIM" run "$TINY" --db "$db" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "run exit" "$rc" 0
[ $rc -eq 0 ] || cat "$tmp/err"
# stderr is not a terminal: no progress bar, only the summary line
[ "$(wc -l <"$tmp/err")" = 1 ] && ok || { bad "more than the summary on stderr"; cat "$tmp/err"; }
grep -q "^numasim run: 2 runs stored in $db (run_id 1..2), wall time " "$tmp/err" && ok ||
	{ bad "no summary line"; cat "$tmp/err"; }

# the table: both header lines, Min rows for alloc, free and total
head -1 "$tmp/out" | grep -q "v4.6+patches1-4 *v4.6+patches1-4+682a3385$" && ok || bad "header 1"
sed -n 2p "$tmp/out" | grep -q "pre-682a3385 *682a3385$" && ok || bad "header 2"
check "table rows" "$(grep -c '^Min      ' "$tmp/out")" 12
grep -q "^Min      alloc-odr0-1 .*(  0.00%) .*%)$" "$tmp/out" && ok || bad "alloc row format"
grep -q "^Min      total-odr0-512 " "$tmp/out" && ok || bad "total row"

# golden file of the printed table
if [ "${NUMASIM_UPDATE_GOLDEN:-0}" = 1 ]; then
	cp "$tmp/out" "$GOLDEN"
	echo "updated $GOLDEN"
fi
if cmp -s "$tmp/out" "$GOLDEN"; then ok; else
	bad "table differs from $GOLDEN (NUMASIM_UPDATE_GOLDEN=1 to accept)"
	diff "$GOLDEN" "$tmp/out"
fi

# --- the database -------------------------------------------------------------
check "runs" "$(q "$db" "SELECT count(*) FROM runs WHERE status = 'ok'")" 2
check "variants" "$(q "$db" "SELECT group_concat(variant, ' ') FROM (SELECT variant FROM runs ORDER BY run_id)")" \
	"zonelist_iter=pre-682a3385 zonelist_iter=682a3385"
check "kernel models" "$(q "$db" "SELECT group_concat(kernel_model, ' ') FROM (SELECT kernel_model FROM runs ORDER BY run_id)")" \
	"v4.6+patches1-4 v4.6+patches1-4+682a3385"
check "points" "$(q "$db" "SELECT group_concat(point) FROM (SELECT point FROM runs ORDER BY run_id)")" "0,1"
check "identity" "$(q "$db" "SELECT DISTINCT scenario || ' ' || machine || ' ' || workload || ' ' || seed || ' ' || repetition FROM runs")" \
	"tiny-pagealloc seed-2016-2s pagealloc 7 0"
check "scenario hash" "$(q "$db" "SELECT DISTINCT scenario_sha256 FROM runs")" "$(sha256sum <"$TINY" | cut -d' ' -f1)"
check "machine hash" "$(q "$db" "SELECT DISTINCT machine_sha256 FROM runs")" \
	"$(sha256sum <"$SRC/configs/seed-2016-2s.yaml" | cut -d' ' -f1)"
check "inputs" "$(q "$db" "SELECT group_concat(kind) FROM (SELECT kind FROM inputs ORDER BY kind)")" "machine,scenario"
check "params zonelist_iter" "$(q "$db" "SELECT group_concat(value, ' ') FROM (SELECT value FROM params WHERE key = 'kernel.zonelist_iter' ORDER BY run_id)")" \
	"pre-682a3385 682a3385"
check "params inner" "$(q "$db" "SELECT DISTINCT value FROM params WHERE key = 'workload.inner_iterations'")" 20
check "params batches" "$(q "$db" "SELECT DISTINCT value FROM params WHERE key = 'workload.batches'")" "1,2,64,512"
check "series per run" "$(q "$db" "SELECT count(DISTINCT metric) FROM samples WHERE run_id = 1")" 12
check "13 kept samples each" "$(q "$db" "SELECT count(*) FROM (SELECT run_id, metric, count(*) AS n FROM samples GROUP BY run_id, metric) WHERE n != 13")" 0
check "samples are whole" "$(q "$db" "SELECT count(*) FROM samples WHERE value != CAST(value AS INTEGER) OR value <= 0")" 0
check "total = alloc + free" "$(q "$db" "SELECT count(*) FROM samples t JOIN samples a ON a.run_id = t.run_id AND a.idx = t.idx AND a.metric = 'alloc' || substr(t.metric, 6) JOIN samples f ON f.run_id = t.run_id AND f.idx = t.idx AND f.metric = 'free' || substr(t.metric, 6) WHERE t.metric LIKE 'total-%' AND t.value != a.value + f.value")" 0
check "metrics min" "$(q "$db" "SELECT count(*) FROM metrics m JOIN (SELECT run_id, metric, min(value) AS mn FROM samples GROUP BY run_id, metric) s ON s.run_id = m.run_id AND m.name = s.metric || '.min' WHERE m.value = s.mn AND m.unit = 'tsc_ticks/op'")" 24
check "metrics mean" "$(q "$db" "SELECT count(*) FROM metrics m JOIN sample_summary s ON s.run_id = m.run_id AND m.name = s.metric WHERE abs(m.value - s.mean) < 1e-9")" 24
check "allocs" "$(q "$db" "SELECT value FROM metrics WHERE run_id = 1 AND name = 'allocs'")" \
	"$(( (2 + 3 + 65 + 513) * 20 * 15 )).0"
[ "$(q "$db" "SELECT count(*) FROM profile WHERE run_id = 2 AND calls > 0")" -gt 3 ] && ok || bad "profile rows"
[ "$(q "$db" "SELECT count(*) FROM branches WHERE run_id = 2 AND executed > 0")" -gt 3 ] && ok || bad "branch rows"
[ "$(q "$db" "SELECT count(*) FROM counters WHERE run_id = 1 AND scope = 'cpu' AND scope_id = 0")" -gt 10 ] && ok || bad "cpu counters"
[ "$(q "$db" "SELECT count(*) FROM counters WHERE run_id = 1 AND scope IN ('zone', 'node')")" -gt 0 ] && ok || bad "allocator counters"
check "inlined iterator in 682a3385" "$(q "$db" "SELECT group_concat(inlined) FROM (SELECT inlined FROM profile WHERE function = 'next_zones_zonelist' ORDER BY run_id)")" "0,1"
check "store check" "$(q "$db" "PRAGMA integrity_check")" ok

# --- determinism: same scenario again, and with two jobs ------------------------
dump() {
	q "$1" "SELECT r.point, s.metric, s.idx, s.value FROM samples s JOIN runs r USING (run_id) ORDER BY 1, 2, 3;
		SELECT r.point, c.scope, c.scope_id, c.name, c.value FROM counters c JOIN runs r USING (run_id) ORDER BY 1, 2, 3, 4;
		SELECT r.point, p.function, p.calls, p.self_cycles, p.total_cycles FROM profile p JOIN runs r USING (run_id) ORDER BY 1, 2;
		SELECT r.point, b.site, b.executed, b.taken, b.mispredicted FROM branches b JOIN runs r USING (run_id) ORDER BY 1, 2"
}
"$NUMASIM" run "$TINY" --db "$tmp/r2.db" --quiet >"$tmp/out2" 2>"$tmp/err2"
check "second run exit" "$?" 0
cmp -s "$tmp/out" "$tmp/out2" && ok || bad "second run printed a different table"
[ "$(dump "$db")" = "$(dump "$tmp/r2.db")" ] && ok || bad "second run stored different rows"
[ -s "$tmp/err2" ] && bad "--quiet wrote to stderr" || ok
"$NUMASIM" run "$TINY" --db "$tmp/r3.db" --jobs 2 -q >"$tmp/out3" 2>/dev/null
check "jobs run exit" "$?" 0
cmp -s "$tmp/out" "$tmp/out3" && ok || bad "--jobs 2 printed a different table"
[ "$(dump "$db")" = "$(dump "$tmp/r3.db")" ] && ok || bad "--jobs 2 stored different rows"

# --- appending, --inner ------------------------------------------------------------
"$NUMASIM" run "$TINY" --db "$tmp/r2.db" --inner 2 >"$tmp/out4" 2>"$tmp/err4"
check "append exit" "$?" 0
check "appended runs" "$(q "$tmp/r2.db" "SELECT count(*) FROM runs")" 4
check "two invocations" "$(q "$tmp/r2.db" "SELECT count(DISTINCT invocation) FROM runs")" 2
check "--inner in params" "$(q "$tmp/r2.db" "SELECT group_concat(value) FROM (SELECT value FROM params WHERE key = 'workload.inner_iterations' ORDER BY run_id)")" "20,20,2,2"
grep -q "run_id 3..4" "$tmp/err4" && ok || bad "append summary names runs 3..4"
check "appended table has two columns" "$(sed -n 2p "$tmp/out4" | sed "s,^TSC ticks/op,," | wc -w)" 2

# --- bad input leaves the database alone ------------------------------------------
before=$(sha256sum <"$db")
run_err "bad scenario" run "$SRC/tests/bad/scenarios/iter-bad-value.yaml" --db "$db"
grep -q "iter-bad-value.yaml:6:18: error: unknown zonelist_iter" "$tmp/eerr" && ok || bad "bad scenario message"
check "db unchanged" "$(sha256sum <"$db")" "$before"
[ ! -e "$tmp/none.db" ] || bad "stale file"
run_err "bad scenario, new db" run "$SRC/tests/bad/scenarios/cpu-not-in-machine.yaml" --db "$tmp/none.db"
[ ! -e "$tmp/none.db" ] && ok || bad "a bad scenario created the database"
echo "not a database" >"$tmp/notes.txt"
run_err "not a database" run "$TINY" --db "$tmp/notes.txt"
grep -q "not a numasim results database" "$tmp/eerr" && ok || bad "not-a-db message"
check "text file unchanged" "$(cat "$tmp/notes.txt")" "not a database"
run_err "missing scenario" run "$tmp/nope.yaml" --db "$db"

# --- usage ---------------------------------------------------------------------------
run_err "no scenario" run
run_err "two scenarios" run "$TINY" "$TINY"
run_err "unknown option" run "$TINY" --frobnicate
run_err "--inner 0" run "$TINY" --inner 0
run_err "--jobs 0" run "$TINY" --jobs 0
run_err "--db without value" run "$TINY" --db
"$NUMASIM" run --help >"$tmp/help" 2>&1 && grep -q "^usage: numasim run SCENARIO" "$tmp/help" && ok || bad "run --help"
check "db still unchanged" "$(sha256sum <"$db")" "$before"

# --- validate on scenarios ---------------------------------------------------------
"$NUMASIM" validate "$TINY" "$SRC/scenarios/seed-zonelist.yaml" >"$tmp/v" 2>&1
check "validate exit" "$?" 0
check "validate line" "$(head -1 "$tmp/v")" \
	"$TINY: ok (scenario tiny-pagealloc: machine seed-2016-2s, 2 points x 1 repetition = 2 runs)"

# --- report ----------------------------------------------------------------------------
"$NUMASIM" report "$db" --runs >"$tmp/rep" 2>"$tmp/reperr"
check "report exit" "$?" 0
check "report runs" "$(grep -c '^run [0-9]*: scenario tiny-pagealloc' "$tmp/rep")" 2
check "report profiles" "$(grep -c 'Profile (simulated, by self core cycles)' "$tmp/rep")" 2
check "report branches" "$(grep -c 'Branch sites (by executions)' "$tmp/rep")" 2
grep -q "get_page_from_freelist" "$tmp/rep" && ok || bad "report lacks get_page_from_freelist"
check "report Min rows" "$(grep -c '^Min      ' "$tmp/rep")" 12
check "report Amean rows" "$(grep -c '^Amean    ' "$tmp/rep")" 12
# the report's Min rows are the run's table
[ "$(grep '^Min ' "$tmp/rep")" = "$(grep '^Min ' "$tmp/out")" ] && ok || bad "report table differs from run's"
"$NUMASIM" report "$db" --run 2 --top 3 >"$tmp/rep2"
check "report --run exit" "$?" 0
check "report --run runs" "$(grep -c '^run ' "$tmp/rep2")" 1
check "report --top 3" "$(sed -n '/Profile/,/Branch/p' "$tmp/rep2" | grep -c '%  *[0-9]')" 3
run_err "report unknown run" report "$db" --run 99
run_err "report missing file" report "$tmp/missing.db"
run_err "report not a db" report "$tmp/notes.txt"
run_err "report no file" report
run_err "report bad --top" report "$db" --top -1
[ ! -e "$tmp/missing.db" ] && ok || bad "report created a database"
check "db unchanged by report" "$(sha256sum <"$db")" "$before"

# --- Ctrl-C: committed runs stay, nothing half-written -------------------------------
"$NUMASIM" run "$TINY" --db "$tmp/int.db" --inner 100000 -q >"$tmp/iout" 2>"$tmp/ierr" &
pid=$!
sleep 1
kill -INT $pid
wait $pid
check "interrupted exit" "$?" 130
grep -q "^numasim run: interrupted: 0 of 2 runs stored in $tmp/int.db" "$tmp/ierr" && ok ||
	{ bad "interrupt message"; cat "$tmp/ierr"; }
[ ! -s "$tmp/iout" ] && ok || bad "interrupted run printed a table"
check "no runs after interrupt" "$(q "$tmp/int.db" "SELECT count(*) FROM runs")" 0

# --- a sweep of more than 6 points: one row per point ------------------------------
"$NUMASIM" run "$SRC/tests/scenarios/sweep-small.yaml" --db "$tmp/pt.db" -q >"$tmp/pt" 2>/dev/null
check "point table exit" "$?" 0
check "point table rows" "$(grep -c '^ *[0-9]' "$tmp/pt")" 10
grep -q '^point  kernel.zonelist_iter  kernel.watermark_scale_factor  alloc-odr0-1  alloc-odr0-8$' \
	"$tmp/pt" && ok || { bad "point table header"; cat "$tmp/pt"; }
# each row's Min equals the smallest stored sample of the point's runs
want=$(q "$tmp/pt.db" "SELECT CAST(min(s.value) AS INTEGER) FROM samples s JOIN runs r USING (run_id)
	WHERE r.point = 9 AND s.metric = 'alloc-odr0-8'")
check "point 9 min" "$(awk '$1 == 9 { print $5 }' "$tmp/pt")" "$want"

finish
