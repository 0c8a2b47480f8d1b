#!/usr/bin/env bash
# CLI tests for policies and the parallel workload through `numasim run`:
# the shipped cpuset-vs-nocpuset scenario validates, and a shrunk run of it
# on one machine shows the 682a3385 facts in the database (an all-node
# cpuset costs more cycles per allocation than none and its profile has
# __next_zones_zonelist calls; pre-682a3385 keeps the same out-of-line
# iterator calls with or without the cpuset); a parallel scenario stores
# its metrics and numastat counters (interleave_hit on both nodes), gives
# the same rows with --jobs 1 and --jobs 2, and bad policy input is refused
# with exit status 2.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 not installed"; exit 77; }

check_true() {
	if [ "$2" = 1 ]; then ok; else bad "$1: condition false ($2)"; fi
}

cd "$SRC" || exit 1

# --- cpuset vs no cpuset ----------------------------------------------------------
"$NUMASIM" validate -q scenarios/cpuset-vs-nocpuset.yaml >"$tmp/v" 2>&1
check "validate cpuset-vs-nocpuset" "$?" 0

db=$tmp/cs.db
"$NUMASIM" run -q scenarios/cpuset-vs-nocpuset.yaml --db "$db" --jobs 2 \
	--set machine=configs/seed-2016-2s.yaml --set 'workload.batches=[16]' \
	--set workload.inner_iterations=20 --set workload.outer_samples=3 \
	--set workload.drop_samples=1 >"$tmp/out" 2>"$tmp/err"
rc=$?
check "cpuset run exit" "$rc" 0
[ $rc -eq 0 ] || cat "$tmp/err"
check "cpuset runs" "$(q "$db" "SELECT count(*) FROM runs WHERE status = 'ok'")" 6

# value(iter, cpuset, SQL expression over run r)
val() {
	q "$db" "SELECT $3 FROM runs r
		JOIN params i ON i.run_id = r.run_id AND i.key = 'kernel.zonelist_iter' AND i.value = '$1'
		JOIN params c ON c.run_id = r.run_id AND c.key = 'policy.cpuset' AND c.value = '$2'"
}
cyc="(SELECT value FROM metrics m WHERE m.run_id = r.run_id AND m.name = 'alloc-odr0-16.min')"
nnz="(SELECT coalesce(sum(calls), 0) FROM profile p WHERE p.run_id = r.run_id AND p.function = '__next_zones_zonelist')"
nzl="(SELECT coalesce(sum(calls), 0) FROM profile p WHERE p.run_id = r.run_id AND p.function = 'next_zones_zonelist' AND p.inlined = 0)"
post_none=$(val 682a3385 none "$cyc"); post_all=$(val 682a3385 all "$cyc")
pre_none=$(val pre-682a3385 none "$cyc"); pre_all=$(val pre-682a3385 all "$cyc")
check_true "682a3385: all-node cpuset costs more ($post_all > $post_none)" \
	"$(q "$db" "SELECT $post_all > $post_none")"
check "682a3385 no cpuset: no __next_zones_zonelist" "$(val 682a3385 none "$nnz")" 0
check_true "682a3385 all-node cpuset: __next_zones_zonelist calls" \
	"$(q "$db" "SELECT $(val 682a3385 all "$nnz") > 0")"
check "pre-682a3385: same next_zones_zonelist calls with and without the cpuset" \
	"$(val pre-682a3385 all "$nzl")" "$(val pre-682a3385 none "$nzl")"
check "pre-682a3385: no __next_zones_zonelist" "$(val pre-682a3385 all "$nnz")" 0
check_true "the cpuset adds more with 682a3385 than with its parent" \
	"$(q "$db" "SELECT ($post_all - $post_none) > ($pre_all - $pre_none)")"

# policy.cpuset: local is numa_mem_id() of the task's CPU: on tr3960x-nps4
# CPU 0 sits on the memoryless node 0, whose nearest memory node is 1
"$NUMASIM" run -q scenarios/cpuset-vs-nocpuset.yaml --db "$tmp/loc.db" \
	--set machine=configs/tr3960x-nps4.yaml --set policy.cpuset=local \
	--set kernel.zonelist_iter=682a3385 --set 'workload.batches=[16]' \
	--set workload.inner_iterations=5 --set workload.outer_samples=2 \
	--set workload.drop_samples=1 >/dev/null 2>"$tmp/err"
check "cpuset local run" "$?" 0
check "cpuset local: pages from node 1 only" \
	"$(q "$tmp/loc.db" "SELECT group_concat(DISTINCT scope_id) FROM counters
		WHERE name IN ('numa_hit', 'numa_miss') AND scope = 'node' AND value > 0")" 1

# --- the parallel workload -------------------------------------------------------------
cat >"$tmp/par.yaml" <<EOY
name: par
machine: $SRC/configs/seed-2016-2s.yaml
policy:
  cpus: "0-3,16-19"
  mempolicy: interleave
  nodes: "0-1"
workload:
  type: parallel
  tasks: 8
  ops: 400
  page_share: 0.5
  orders: [0, 1]
  object_sizes: [64, 512]
  lifetime: 16
  remote_free: 0.25
  think_cycles: 200
repetitions: 2
seed: 3
EOY
for j in 1 2; do
	"$NUMASIM" run -q "$tmp/par.yaml" --db "$tmp/p$j.db" --jobs $j >"$tmp/pout" 2>"$tmp/perr"
	rc=$?
	check "parallel run --jobs $j exit" "$rc" 0
	[ $rc -eq 0 ] || cat "$tmp/perr"
done
pdb=$tmp/p1.db
check "parallel runs" "$(q "$pdb" "SELECT count(*) FROM runs WHERE status = 'ok' AND workload = 'parallel'")" 2
check "parallel ops" "$(q "$pdb" "SELECT group_concat(value) FROM metrics WHERE name = 'ops'")" "3200.0,3200.0"
check_true "remote frees" "$(q "$pdb" "SELECT min(value) > 0 FROM metrics WHERE name = 'remote_frees'")"
check_true "allocations freed" "$(q "$pdb" "SELECT count(*) = 2 FROM metrics a JOIN metrics f USING (run_id)
	WHERE a.name = 'page_allocs' AND f.name = 'page_frees' AND a.value = f.value")"
check_true "interleave_hit on both nodes" "$(q "$pdb" "SELECT count(DISTINCT scope_id) = 2 FROM counters
	WHERE scope = 'node' AND name = 'interleave_hit' AND value > 0")"
rows="SELECT run_id, name, value FROM metrics ORDER BY run_id, name"
check "parallel --jobs 1 = --jobs 2" "$(q "$tmp/p1.db" "$rows" | md5sum)" "$(q "$tmp/p2.db" "$rows" | md5sum)"

# --- bad policy input ------------------------------------------------------------------
sed 's/nodes: "0-1"/nodes: "0-9"/' "$tmp/par.yaml" >"$tmp/bad.yaml"
"$NUMASIM" validate "$tmp/bad.yaml" >"$tmp/eout" 2>"$tmp/eerr"
check "node outside the machine: exit 2" "$?" 2
grep -q "error:" "$tmp/eerr" && ok || bad "no error message for a bad node"

finish
