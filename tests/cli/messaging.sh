#!/usr/bin/env bash
# CLI tests for the messaging workload through `numasim run`: the tiny
# sched-messaging scenario (both __slab_free layouts, 3 repetitions) into a
# scratch database; the runs, params, total_time_s metrics, SLUB counters
# and __slab_free branch rows in the database; the printed report (per-run
# Total time lines, the seed-format summary, the Welch t-test lines, the
# sysfs-style SLUB stats, the branch table); FREE_FROZEN the majority of
# FREE_SLOWPATH; determinism (a second run prints the same report);
# strict validation of the workload and the SLUB knobs; numasim bench
# slub and messaging; numasim report on the stored runs.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 not installed"; exit 77; }

TINY=$SRC/tests/scenarios/tiny-messaging.yaml
db=$tmp/m.db


"$NUMASIM" run -q "$TINY" --db "$db" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "run exit" "$rc" 0
[ $rc -eq 0 ] || cat "$tmp/err"

# --- database rows --------------------------------------------------------------
check "runs" "$(q "$db" "SELECT count(*) FROM runs WHERE status = 'ok' AND workload = 'messaging'")" 6
check "variants" "$(q "$db" "SELECT group_concat(DISTINCT variant) FROM runs")" \
	"slab_free_layout=pre-c270cf30,slab_free_layout=c270cf30"
check "seeds" "$(q "$db" "SELECT group_concat(seed) FROM (SELECT DISTINCT seed FROM runs ORDER BY seed)")" "11,12,13"
check "kernel models" "$(q "$db" "SELECT group_concat(DISTINCT kernel_model) FROM runs")" "v5.9,v5.9+c270cf30"
check "total_time_s metrics" "$(q "$db" "SELECT count(*) FROM metrics WHERE name = 'total_time_s' AND value > 0 AND unit = 's'")" 6
check "messages" "$(q "$db" "SELECT group_concat(DISTINCT value) FROM metrics WHERE name = 'messages'")" "16000.0"
check "params" "$(q "$db" "SELECT value FROM params WHERE run_id = 2 AND key = 'kernel.slab_free_layout'")" "c270cf30"
check "params groups" "$(q "$db" "SELECT value FROM params WHERE run_id = 1 AND key = 'workload.groups'")" "2"
check "conservation" "$(q "$db" "SELECT count(*) FROM counters a JOIN counters b ON a.run_id = b.run_id AND a.scope_id = b.scope_id
	WHERE a.scope = 'cache' AND b.scope = 'cache' AND a.name = 'objects_allocated' AND b.name = 'objects_freed'
	AND a.scope_id IN ('skbuff_head_cache', 'kmalloc-512') AND a.value = b.value AND a.value = 16000")" 12
check "frozen majority" "$(q "$db" "SELECT count(*) FROM counters a JOIN counters b ON a.run_id = b.run_id AND a.scope_id = b.scope_id
	WHERE a.scope = 'cache' AND b.scope = 'cache' AND a.name = 'free_frozen' AND b.name = 'free_slowpath'
	AND a.scope_id IN ('skbuff_head_cache', 'kmalloc-512') AND 2 * a.value > b.value")" 12
check "per-cpu stats" "$(q "$db" "SELECT count(*) > 0 FROM counters WHERE scope = 'cache_cpu' AND scope_id GLOB 'kmalloc-512/*' AND name = 'free_frozen' AND value > 0")" 1
check "pre sites" "$(q "$db" "SELECT count(DISTINCT site) FROM branches JOIN runs USING (run_id) WHERE point = 0 AND site IN ('PRE6a', 'PRE6b', 'PRE7') AND executed > 0")" 3
check "post sites" "$(q "$db" "SELECT count(DISTINCT site) FROM branches JOIN runs USING (run_id) WHERE point = 1 AND site IN ('POST6', 'POST7') AND executed > 0")" 2

# --- printed report ---------------------------------------------------------------
check "per-run lines" "$(grep -c ' rep [0-2]: Total time: [0-9.]* \[sec\]$' "$tmp/out")" 6
for row in max. min. avg. stdev.; do
	grep -q "^$row  *[0-9.]* *[0-9.]*$" "$tmp/out" && ok || bad "summary row $row"
done
grep -q "^slab_free_layout=pre-c270cf30 - slab_free_layout=c270cf30: diff .* Welch t = .*, df = .*, p = 0\.[0-9]* (two-sided)" "$tmp/out" &&
	ok || bad "t-test line"
# the seed's published numbers belong to scenarios/seed-slub.yaml only
# (tests/cli/readable-output.sh runs that one)
grep -q "^seed's published numbers" "$tmp/out" && bad "seed t-test line in tiny-messaging" || ok
check "sysfs blocks" "$(grep -c '^# /sys/kernel/slab/\(skbuff_head_cache\|kmalloc-512\)/<stat>' "$tmp/out")" 4
# totals only; the per-CPU counts with --per-cpu (numasim report below)
check "stat lines" "$(grep -c '^free_frozen  *[0-9]*$' "$tmp/out")" 4
check "stat items" "$(grep -c '^[a-z_]*  *[0-9][0-9]*$' "$tmp/out")" $((4 * 26))
grep -q "^PRE6a  *[0-9]" "$tmp/out" && grep -q "^POST6 " "$tmp/out" && grep -q "^S2a " "$tmp/out" &&
	ok || bad "branch table rows"
grep -q "^/slow " "$tmp/out" && ok || bad "per-free branch row"
grep -q '^# Scheduler, mean per run' "$tmp/out" && ok || bad "scheduler block"
# the default placement, v5.9, is named, and its migrations are a column
grep -q '^# Scheduler, mean per run (% against the first point; task placement v5.9)$' "$tmp/out" &&
	ok || bad "scheduler block: no task placement v5.9"
mig0=$(printf '%.0f' "$(q "$db" "SELECT avg(value) FROM metrics JOIN runs USING (run_id) WHERE name = 'migrations' AND point = 0")")
check "scheduler migrations" "$(grep '^slab_free_layout=pre-c270cf30  *ctx_switches' "$tmp/out" | sed -n 's/.*  migrations \([0-9]*\)$/\1/p')" "$mig0"
check "scheduler rows" "$(grep -c '^slab_free_layout=[a-z0-9-]*  *ctx_switches [0-9]* .*receiver_blocks [0-9]*' "$tmp/out")" 2
ctx0=$(printf '%.0f' "$(q "$db" "SELECT avg(value) FROM metrics JOIN runs USING (run_id) WHERE name = 'ctx_switches' AND point = 0")")
check "scheduler mean" "$(grep '^slab_free_layout=pre-c270cf30  *ctx_switches' "$tmp/out" | sed 's/.*ctx_switches \([0-9]*\).*/\1/')" "$ctx0"
grep -q '^slab_free_layout=c270cf30  *ctx_switches [0-9]* ([+-][0-9.]* %)' "$tmp/out" && ok || bad "scheduler change"

# --- determinism --------------------------------------------------------------------
"$NUMASIM" run -q "$TINY" --db "$tmp/m2.db" >"$tmp/out2" 2>/dev/null
sed 's/(run [0-9]*)//' "$tmp/out" >"$tmp/o1"
sed 's/(run [0-9]*)//' "$tmp/out2" >"$tmp/o2"
cmp -s "$tmp/o1" "$tmp/o2" && ok || { bad "second run prints a different report"; diff "$tmp/o1" "$tmp/o2" | head; }
check "same metrics" "$(q "$tmp/m2.db" "SELECT group_concat(value) FROM metrics WHERE name = 'total_time_s' ORDER BY run_id")" \
	"$(q "$db" "SELECT group_concat(value) FROM metrics WHERE name = 'total_time_s' ORDER BY run_id")"

# --- strict validation ------------------------------------------------------------------
mk() { sed "$1" "$TINY" >"$tmp/bad.yaml"; sed -i "s#\.\./\.\./configs#$SRC/configs#" "$tmp/bad.yaml"; }
# pipe mode is modelled (tests/cli/messaging-modes.sh runs it): it validates
mk 's/mode: socket/mode: pipe/'
"$NUMASIM" validate -q "$tmp/bad.yaml" >/dev/null 2>&1 && ok || bad "pipe mode refused"
mk 's/mode: socket/mode: sockets/'
run_err "bad mode" run "$tmp/bad.yaml" --db "$tmp/bad.db"
grep -q "expected socket or pipe" "$tmp/eerr" && ok || bad "bad mode message"
mk 's/groups: 2/groups: 0/'
run_err "zero groups" run "$tmp/bad.yaml" --db "$tmp/bad.db"
mk 's/loops: 20/loops: -1/'
run_err "negative loops" run "$tmp/bad.yaml" --db "$tmp/bad.db"
mk 's/loops: 20/loops: 20\n  colour: blue/'
run_err "unknown key" run "$tmp/bad.yaml" --db "$tmp/bad.db"
mk 's/pre-c270cf30, c270cf30/pre-c270cf30, v5.10/'
run_err "bad layout" run "$tmp/bad.yaml" --db "$tmp/bad.db"
grep -q "unknown slab_free_layout 'v5.10' (expected pre-c270cf30 or c270cf30)" "$tmp/eerr" && ok || bad "layout message"
mk 's/slub_stats: on/slub_stats: maybe/'
run_err "bad slub_stats" run "$tmp/bad.yaml" --db "$tmp/bad.db"
mk 's/compiler_layout: gcc/compiler_layout: icc/'
run_err "bad compiler" run "$tmp/bad.yaml" --db "$tmp/bad.db"
[ -e "$tmp/bad.db" ] && bad "a bad scenario created a database" || ok
# SLUB knobs in a pagealloc scenario
sed "s#\.\./\.\./configs#$SRC/configs#; s/^kernel:/kernel:\n  slub_stats: off/" \
	"$SRC/tests/scenarios/tiny-pagealloc.yaml" >"$tmp/pa.yaml"
run_err "slub knob with pagealloc" run "$tmp/pa.yaml" --db "$tmp/bad.db"
grep -q "kernel.slub_stats applies to the SLUB model" "$tmp/eerr" && ok || bad "slub knob message"

# --- numasim report on the stored runs ------------------------------------------------
"$NUMASIM" report "$db" --runs >"$tmp/rep" 2>"$tmp/reperr"
check "report exit" "$?" 0
grep -q "^messaging: scenario tiny-messaging, runs 1\.\.6 " "$tmp/rep" && ok || bad "report header"
# the report's tables are the ones `numasim run` printed
sed -n '/^# perf bench sched messaging, per run$/,$p' "$tmp/rep" | sed 's/(run [0-9]*)//' >"$tmp/rep1"
cmp -s "$tmp/rep1" "$tmp/o1" && ok || { bad "report differs from run's output"; diff "$tmp/o1" "$tmp/rep1" | head; }
# --per-cpu: each stat's total, then C<cpu>=<count> per CPU, as sysfs
"$NUMASIM" report "$db" --runs --per-cpu >"$tmp/repc" 2>"$tmp/reperr"
check "report --per-cpu exit" "$?" 0
check "per-cpu stat lines" "$(grep -c '^free_frozen  *[0-9]* C[0-9]*=' "$tmp/repc")" 4
check "per-cpu stat items" "$(grep -c '^[a-z_]*  *[0-9][0-9]*\( C[0-9]*=[0-9]*\)*$' "$tmp/repc")" $((4 * 26))
# --top limits the SLUB stats (largest first) and the branch sites too
"$NUMASIM" report "$db" --runs --top 3 >"$tmp/rep3" 2>"$tmp/reperr"
check "report --top 3 exit" "$?" 0
awk '/^# \/sys\/kernel\/slab\// { if (n) print n; n = 0; on = 1; next }
     on && /^[a-z_]+ +[0-9]+/ { n++ } on && /^$/ { on = 0 } END { if (n) print n }' "$tmp/rep3" | sort -u >"$tmp/nstat"
check "stats per cache with --top 3" "$(cat "$tmp/nstat")" 3
grep -q '^(3 of [0-9]* stats, largest first; --top 0 prints all)$' "$tmp/rep3" && ok || bad "stats cut line"
awk '/^# \/sys\/kernel\/slab\/skbuff_head_cache/ { on = 1; next } on && /^[a-z_]+ +[0-9]+/ { print $2 } on && /^\(/ { exit }' "$tmp/rep3" >"$tmp/tot3"
sort -rn "$tmp/tot3" | cmp -s - "$tmp/tot3" && ok || bad "stats not largest first"
check "branch site rows with --top 3" "$(sed -n '/^# __slab_free branch sites/,/^all /p' "$tmp/rep3" | grep -cE '^(S[0-9]|PRE|POST)')" 3
grep -q '^(3 of [0-9]* executed sites, most executed; --top 0 prints all)$' "$tmp/rep3" && ok || bad "sites cut line"
check "all row unchanged by --top" "$(grep '^all ' "$tmp/rep3")" "$(grep '^all ' "$tmp/rep")"

# --- numasim bench slub / messaging ---------------------------------------------------
"$NUMASIM" bench slub --pairs 20000 --machine "$SRC/configs/skylake-2s.yaml" >"$tmp/bs" 2>&1 &&
	grep -q "^20000 pairs in [0-9.]* s: [0-9.]* M pairs/s (host)$" "$tmp/bs" && ok || { bad "bench slub"; cat "$tmp/bs"; }
"$NUMASIM" bench messaging --groups 1 --loops 5 --variant post --machine "$SRC/configs/skylake-2s.yaml" >"$tmp/bm" 2>&1 &&
	grep -q "^Total time: [0-9.]* \[sec\] (simulated)$" "$tmp/bm" &&
	grep -q "^2000 messages in [0-9.]* s: " "$tmp/bm" && ok || { bad "bench messaging"; cat "$tmp/bm"; }
"$NUMASIM" bench slub --pairs 5000 --repeat 2 --machine "$SRC/configs/skylake-2s.yaml" >"$tmp/bs2" 2>&1 && ok || bad "bench slub --repeat"
check "bench slub runs" "$(grep -c '^run [12]: 5000 pairs in [0-9.]* s: [0-9.]* M pairs/s (host), [0-9.]* M pairs per CPU second$' "$tmp/bs2")" 2
grep -q '^M pairs/s (host) over 2 runs: min [0-9.]*  median [0-9.]*  max [0-9.]*$' "$tmp/bs2" && ok || bad "bench slub spread"
grep -q '^simulated: [0-9.]* cycles per pair .*, the same in every run$' "$tmp/bs2" && ok || bad "bench slub same"
"$NUMASIM" bench messaging --groups 1 --loops 5 --variant post --repeat 3 --machine "$SRC/configs/skylake-2s.yaml" >"$tmp/bm3" 2>&1 && ok || bad "bench messaging --repeat"
check "bench messaging runs" "$(grep -c '^run [1-3]: 2000 messages in ' "$tmp/bm3")" 3
check "bench messaging total" "$(grep '^Total time' "$tmp/bm3")" "$(grep '^Total time' "$tmp/bm")"
# --free local: alloc and free on one CPU (fast paths), cheaper than remote frees
"$NUMASIM" bench slub --pairs 5000 --free local --machine "$SRC/configs/skylake-2s.yaml" >"$tmp/bsl" 2>&1 && ok || bad "bench slub --free local"
grep -q "alloc on CPU 0, free on CPU 0 " "$tmp/bsl" && ok || { bad "bench slub local CPUs"; cat "$tmp/bsl"; }
local_cyc=$(sed -n 's/^simulated: \([0-9.]*\) cycles per pair (one CPU, idle excluded).*/\1/p' "$tmp/bsl")
remote_cyc=$(sed -n 's/^simulated: \([0-9.]*\) cycles per pair (both CPUs, idle excluded).*/\1/p' "$tmp/bs2")
awk -v l="$local_cyc" -v r="$remote_cyc" 'BEGIN { exit !(l > 0 && r > l) }' && ok ||
	bad "local pairs ($local_cyc cycles) should cost less than remote ($remote_cyc)"
run_err "bench slub bad free" bench slub --free elsewhere
grep -q "expected remote or local" "$tmp/eerr" && ok || bad "bench slub bad free message"
run_err "bench slub zero repeat" bench slub --repeat 0
run_err "bench slub bad variant" bench slub --variant x
run_err "bench messaging zero groups" bench messaging --groups 0
run_err "bench messaging bad machine" bench messaging --machine "$tmp/none.yaml"

finish
