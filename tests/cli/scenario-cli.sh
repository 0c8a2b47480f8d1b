#!/bin/bash
# CLI tests for the scenario options of `numasim run`, `validate` and
# `trace` (docs/reference/scenario-format.md, "From the command line"): --set and
# --sweep change values and axes without editing the file, the effective
# text and sha256 cover them, bad values are `numasim run: error: --set
# K=V: ...` with exit 2 and no database, and --machine/--workload run the
# one-off scenario "adhoc".
. "$(dirname "$0")/lib.sh"

TINY=$SRC/tests/scenarios/tiny-pagealloc.yaml
MACHINE=$SRC/configs/seed-2016-2s.yaml
quick=(--set workload.inner_iterations=1 --set workload.outer_samples=3
       --set workload.drop_samples=0 --set 'workload.batches=[1]')

# --sweep adds an axis, --set replaces the file's list: 2 x 1 points
"$NUMASIM" run "$TINY" "${quick[@]}" --set kernel.zonelist_iter=682a3385 \
	--sweep policy.cpuset=none,all --db "$tmp/a.db" -q >"$tmp/out" 2>"$tmp/err" &&
	ok || bad "run with --set/--sweep failed: $(cat "$tmp/err")"
labels=$(sqlite3 "$tmp/a.db" "SELECT group_concat(variant, ' ') FROM (SELECT variant FROM runs ORDER BY run_id)")
[ "$labels" = "policy.cpuset=none policy.cpuset=all" ] && ok || bad "labels: $labels"
v=$(sqlite3 "$tmp/a.db" "SELECT value FROM params WHERE run_id = 2 AND key = 'policy.cpuset'")
[ "$v" = all ] && ok || bad "params policy.cpuset of run 2: $v"
v=$(sqlite3 "$tmp/a.db" "SELECT value FROM params WHERE run_id = 1 AND key = 'kernel.zonelist_iter'")
[ "$v" = 682a3385 ] && ok || bad "--set kernel.zonelist_iter not applied: $v"
v=$(sqlite3 "$tmp/a.db" "SELECT value FROM params WHERE run_id = 1 AND key = 'workload.inner_iterations'")
[ "$v" = 1 ] && ok || bad "--set workload.inner_iterations not applied: $v"

# the stored text is the file plus one comment line per option; its hash
text=$(sqlite3 "$tmp/a.db" "SELECT i.content FROM runs r JOIN inputs i ON i.sha256 = r.scenario_sha256 WHERE r.run_id = 1" 2>/dev/null)
case $text in
*"# --sweep policy.cpuset=none,all") ok ;;
*) bad "stored scenario text does not end with the options" ;;
esac
plain=$(sha256sum "$TINY" | cut -d' ' -f1)
sha=$(sqlite3 "$tmp/a.db" "SELECT scenario_sha256 FROM runs WHERE run_id = 1")
[ -n "$sha" ] && [ "$sha" != "$plain" ] && ok || bad "scenario_sha256 ignores the options"
sha2=$(printf '%s' "$text" | sha256sum | cut -d' ' -f1)
[ "$sha" = "$sha2" ] && ok || bad "scenario_sha256 is not the hash of the stored text"

# overrides of machine values: one axis, the machine text changes
"$NUMASIM" run "$TINY" "${quick[@]}" --set kernel.zonelist_iter=682a3385 \
	--sweep overrides.costs.mispredict=14,20 --db "$tmp/o.db" -q >/dev/null 2>"$tmp/err" &&
	ok || bad "run with an override sweep failed: $(cat "$tmp/err")"
n=$(sqlite3 "$tmp/o.db" "SELECT count(DISTINCT machine_sha256) FROM runs")
[ "$n" = 2 ] && ok || bad "override sweep: $n distinct machines, expected 2"
v=$(sqlite3 "$tmp/o.db" "SELECT value FROM params WHERE run_id = 2 AND key = 'overrides.costs.mispredict'")
[ "$v" = 20 ] && ok || bad "params overrides.costs.mispredict: $v"

# bad values: exit 2, one line naming the option, no database
check_bad() {
	local want=$1
	shift
	"$NUMASIM" "$@" --db "$tmp/bad.db" >"$tmp/bo" 2>"$tmp/be"
	local rc=$?
	[ "$rc" -eq 2 ] && ok || bad "$*: exit $rc, expected 2"
	[ ! -e "$tmp/bad.db" ] && ok || bad "$*: database created"
	[ ! -s "$tmp/bo" ] && ok || bad "$*: stdout not empty"
	grep -qF -- "$want" "$tmp/be" && ok || bad "$*: stderr '$(cat "$tmp/be")' lacks '$want'"
}
check_bad "numasim run: error: --set workload.inner_iterations=abc: inner_iterations must be" \
	run "$TINY" --set workload.inner_iterations=abc
check_bad "numasim run: error: --sweep policy.cpuset=none,7: policy.cpuset: node 7 is not a node" \
	run "$TINY" --sweep policy.cpuset=none,7
check_bad "numasim run: error: --sweep seed=1,2: 'seed': seed and repetitions cannot be swept" \
	run "$TINY" --sweep seed=1,2
check_bad "numasim run: error: --set workload.groups=3: 'workload.groups': workload 'pagealloc' has no parameter" \
	run "$TINY" --set workload.groups=3
check_bad "numasim run: error: --set overrides.costs.nope=3: machine override 'costs.nope'" \
	run "$TINY" --set overrides.costs.nope=3
check_bad "numasim run: error: --set nokey: expected KEY=VALUE" run "$TINY" --set nokey
check_bad "numasim run: error: --workload runs without a scenario file" \
	run "$TINY" --workload pagealloc
check_bad "numasim run: error: --workload needs --machine" run --workload pagealloc
check_bad "numasim run: error: --workload stream: unknown workload" \
	run --machine "$MACHINE" --workload stream
check_bad "numasim run: error: --machine /nonexistent.yaml: cannot read machine file" \
	run --machine /nonexistent.yaml --workload pagealloc

# the one-off scenario
"$NUMASIM" run --machine "$MACHINE" --workload pagealloc "${quick[@]}" \
	--db "$tmp/adhoc.db" -q >"$tmp/out" 2>"$tmp/err" && ok || bad "adhoc run failed: $(cat "$tmp/err")"
v=$(sqlite3 "$tmp/adhoc.db" "SELECT scenario || ' ' || workload || ' ' || machine FROM runs")
[ "$v" = "adhoc pagealloc seed-2016-2s" ] && ok || bad "adhoc run row: $v"
grep -q "alloc-odr0-1" "$tmp/out" && ok || bad "adhoc run printed no table"

# validate and trace take the same options
"$NUMASIM" validate --sweep kernel.min_free_kbytes=0,4096 "$TINY" >"$tmp/v" 2>&1 &&
	grep -q "4 points x 1 repetition" "$tmp/v" && ok || bad "validate --sweep: $(cat "$tmp/v")"
"$NUMASIM" validate --machine "$MACHINE" --workload messaging >"$tmp/v" 2>&1 &&
	grep -q "^adhoc: ok (scenario adhoc" "$tmp/v" && ok || bad "validate adhoc: $(cat "$tmp/v")"
"$NUMASIM" validate --set policy.mempolicy=bind "$TINY" >"$tmp/v" 2>&1
[ $? -eq 2 ] && grep -q "numasim validate: error: --set policy.mempolicy=bind: policy.mempolicy 'bind' needs policy.nodes" "$tmp/v" &&
	ok || bad "validate bad --set: $(cat "$tmp/v")"
"$NUMASIM" trace --machine "$MACHINE" --workload pagealloc "${quick[@]}" \
	--events page_alloc --limit 1 >"$tmp/t" 2>"$tmp/err" && ok || bad "adhoc trace failed: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/t")" -eq 1 ] && grep -q '"event":"mm_page_alloc"' "$tmp/t" &&
	ok || bad "adhoc trace output: $(head -c 300 "$tmp/t")"

finish
