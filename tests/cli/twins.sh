#!/usr/bin/env bash
# Twin points (scenarios/run.c plan_twins): a sweep point whose
# kernel.commit differs from an earlier point's only by commits that change
# nothing the model executes ('N' in `numasim list commits`) is written
# from that point's simulation, with the param same_as_point; every row is
# what --simulate-all stores for it.  A twin whose lead was kept by
# --resume is simulated itself.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# 754078eb45df is v3 06 ('M'); v3 07-12 are 'N'; v3-13 is 'M' again
sweep=(--sweep kernel.commit=682a3385e773,754078eb45df,f75fb889d18d,5bb1b1697578,v3-13-empty-zonelist
	--set workload.inner_iterations=1 --set 'workload.batches=[1, 64]'
	--set workload.outer_samples=3 --set workload.drop_samples=0 --set cost.accounting=memo)
"$NUMASIM" run "$SRC/scenarios/series-2016.yaml" --db "$tmp/t.db" "${sweep[@]}" --jobs 2 \
	>/dev/null 2>"$tmp/err" || { bad "run with twins"; cat "$tmp/err"; }
"$NUMASIM" run -q "$SRC/scenarios/series-2016.yaml" --db "$tmp/a.db" "${sweep[@]}" --simulate-all \
	>/dev/null 2>&1 || bad "run --simulate-all"
check "summary names the twins" "$(grep -c '2 of them written from a twin' "$tmp/err")" "1"
check "twins and their lead" "$(q "$tmp/t.db" "select group_concat(r.point || ':' || p.value, ' ') from params p
	join runs r using (run_id) where p.key = 'same_as_point'")" "2:1 3:1"
check "no twin param with --simulate-all" "$(q "$tmp/a.db" "select count(*) from params where key = 'same_as_point'")" "0"
check "runs" "$(q "$tmp/t.db" "select count(*) from runs where status = 'ok'")" "5"

# every row of every table keyed by run (run ids are the same: plan order)
for t in metrics samples counter_values profile profile_paths branches; do
	q "$tmp/t.db" "select * from $t order by 1, 2, 3" >"$tmp/t.txt"
	q "$tmp/a.db" "select * from $t order by 1, 2, 3" >"$tmp/a.txt"
	check "$t rows as simulated" "$(cmp -s "$tmp/t.txt" "$tmp/a.txt" && echo same)" "same"
	[ -s "$tmp/t.txt" ] || bad "$t is empty"
done
check "params but same_as_point" "$(diff <(q "$tmp/t.db" "select * from params where key <> 'same_as_point' order by 1, 2") \
	<(q "$tmp/a.db" "select * from params order by 1, 2") >/dev/null && echo same)" "same"
check "kernel models" "$(q "$tmp/t.db" "select group_concat(kernel_model, ' ') from (select kernel_model from runs order by point)")" \
	"v4.6-rc2+series:682a3385e773 v4.6-rc2+series:754078eb45df v4.6-rc2+series:f75fb889d18d v4.6-rc2+series:5bb1b1697578 v4.6-rc2+series:v3-13-empty-zonelist"
check "compare is the same" "$(diff <("$NUMASIM" compare "$tmp/t.db" 2>&1) <("$NUMASIM" compare "$tmp/a.db" 2>&1) >/dev/null && echo same)" "same"

# --resume after the lead was stored alone: its twins are simulated
"$NUMASIM" run -q "$SRC/scenarios/series-2016.yaml" --db "$tmp/r.db" "${sweep[@]}" \
	--sweep kernel.commit=682a3385e773,754078eb45df >/dev/null 2>&1 || bad "partial run"
sqlite3 "$tmp/r.db" "update runs set scenario_sha256 = '$(q "$tmp/t.db" "select scenario_sha256 from runs limit 1")'"
"$NUMASIM" run "$SRC/scenarios/series-2016.yaml" --db "$tmp/r.db" "${sweep[@]}" --resume \
	>/dev/null 2>"$tmp/err" || { bad "resume"; cat "$tmp/err"; }
check "resume: 2 kept" "$(grep -c '2 of 5 skipped' "$tmp/err")" "1"
check "resume: the twins of a kept lead are simulated, later twins reuse" \
	"$(q "$tmp/r.db" "select count(*) from params where key = 'same_as_point'")" "1"
q "$tmp/r.db" "select m.name, m.value from metrics m join runs r using (run_id) where r.point = 3 and r.status = 'ok' order by 1" >"$tmp/r3.txt"
q "$tmp/a.db" "select m.name, m.value from metrics m join runs r using (run_id) where r.point = 3 order by 1" >"$tmp/a3.txt"
check "resume: point 3's rows as simulated" "$(cmp -s "$tmp/r3.txt" "$tmp/a3.txt" && echo same)" "same"

# kcommit_effective: an 'N' entry behaves as the 'M' entry before it
check "list commits says no-change for v3 07" "$("$NUMASIM" list commits --format csv | awk -F, '$7 == "f75fb889d18d" { print $8 }')" "no-change"
# ... which holds while no model code tests an 'N' entry: the table's 'N'
# names must not appear in the model's sources
nnames=$(grep -oE 'X\(([a-z0-9_]+), "[a-z]+", [0-9]+, "[^"]+", .N.' "$SRC/models/kcommit.h" |
	sed -E 's/X\(([a-z0-9_]+),.*/KC_\1/')
check "nine 'N' entries" "$(echo "$nnames" | wc -l)" "9"
used=$(for n in $nnames; do grep -rlw "$n" "$SRC"/{base,sim,machine,cost,models,analysis,workloads,scenarios,cli} \
	--include='*.c' --include='*.h' | grep -v 'models/kcommit\.[ch]$'; done)
check "no model code tests an 'N' entry" "$used" ""
finish
