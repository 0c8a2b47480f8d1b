#!/usr/bin/env bash
# CLI tests for `numasim topology`: JSON checked with jq on every test and
# shipped machine, text spot checks against hand-worked zonelists, '-' from
# stdin, and usage/input errors (exit 2, nothing on stdout).
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$SRC/tests/machines

need_jq

# expect_line FILE LINE: the exact line must occur in FILE
expect_line() {
	if grep -qxF -- "$2" "$1"; then ok; else bad "missing line '$2' in $1"; cat "$1"; fi
}

# run_err NAME ARGS...: must exit 2 with empty stdout and an error on stderr
run_err() {
	local name=$1; shift
	"$NUMASIM" topology "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ $rc -ne 2 ]; then bad "$name: exit $rc, expected 2"; return; fi
	if [ -s "$tmp/out" ]; then bad "$name: wrote to stdout"; return; fi
	if ! grep -q "error:" "$tmp/err"; then bad "$name: no error message"; return; fi
	ok
}

# Structural invariants of the JSON, for any machine and options.
JQ_INVARIANTS='
  . as $r
  | ([$r.nodes[] | select(.memory) | .id as $n | .zones[] | "\(.type)@\($n)"] | sort) as $all
  | ([ $r.nodes[] | select(.online) | . as $nd
      | ($nd.zonelist | map("\(.zone)@\(.node)")) as $zl
      | ($zl | sort) == $all
        and ($zl | unique | length) == ($zl | length)
        and $nd.fallback_order[0].node == $nd.id
        and ($nd.zonelist_nofallback | map("\(.zone)@\(.node)"))
            == ([$nd.zones[] | "\(.type)@\($nd.id)"] | reverse)
        and $nd.node_load >= 0 and $nd.node_load < $r.nr_online_nodes
    ] | all)
  and ([$r.nodes[] | select(.online | not) | .zonelist == null and .zonelist_nofallback == null] | all)
  and ([$r.nodes[] | select(.online)] | length) == $r.nr_online_nodes
  and ($r.distance | length) == ($r.nodes | length)
  and ([$r.nodes[] | select(.online) | .id] as $on
       | [$r.cpu_to_node[] | select(. != null) | . as $c | $on | index($c) != null] | all)
'

# 1. JSON for every test machine under every option set, and for every
#    shipped config as seen after boot and at the x86 boot build.
shopt -s nullglob
check_json() {  # check_json MACHINE OPTS...
	local f=$1; shift
	if ! "$NUMASIM" topology "$f" --format json "$@" >"$tmp/j" 2>"$tmp/err"; then
		# offline-x86 may legitimately refuse a machine without 4 MiB nodes
		if grep -q "no node has at least" "$tmp/err"; then ok; return; fi
		bad "$f $*: exit status"; cat "$tmp/err"; return
	fi
	# jq -e fails on invalid JSON as well as on a false result
	if jq -e "$JQ_INVARIANTS" "$tmp/j" >/dev/null; then ok; else bad "$f $*: invariants"; fi
}
tests_machines=("$M"/*.yaml)
[ ${#tests_machines[@]} -gt 0 ] || bad "no machine files in $M"
for f in "${tests_machines[@]}"; do
	check_json "$f"
	check_json "$f" --zonelist-order zone
	check_json "$f" --cpus-at-build none
	check_json "$f" --memoryless offline-x86
	check_json "$f" --x86-boot --zonelist-order zone
done
for f in "$SRC"/configs/*.yaml; do
	check_json "$f"
	check_json "$f" --x86-boot
done
# deterministic output
f=$M/zl-sparse-memoryless.yaml
"$NUMASIM" topology "$f" --format json >"$tmp/j1"
"$NUMASIM" topology "$f" --format json >"$tmp/j2"
cmp -s "$tmp/j1" "$tmp/j2" && ok || bad "output differs between runs"

# 2. The issue's machine: 4 nodes, all remote distances 21.
f=$M/zl-4node-equal.yaml
"$NUMASIM" topology "$f" --format json >"$tmp/j"
got=$(jq -c '[.nodes[] | [.fallback_order[].node]]' "$tmp/j")
[ "$got" = '[[0,1,2,3],[1,2,3,0],[2,3,0,1],[3,0,1,2]]' ] && ok || bad "4node orders: $got"
got=$(jq -r '.machine + " " + .zonelist_order + " " + (.nr_online_nodes|tostring) + " " + .policy_zone' "$tmp/j")
[ "$got" = "zl-4node-equal node 4 Normal" ] && ok || bad "4node header: $got"
got=$(jq -c '.nodes[0].zonelist[0:4]' "$tmp/j")
[ "$got" = '[{"node":0,"zone":"Normal"},{"node":0,"zone":"DMA32"},{"node":0,"zone":"DMA"},{"node":1,"zone":"Normal"}]' ] \
	&& ok || bad "4node node 0 zonelist: $got"
got=$(jq -c '.distance' "$tmp/j")
[ "$got" = '[[10,21,21,21],[21,10,21,21],[21,21,10,21],[21,21,21,10]]' ] && ok || bad "distance: $got"

"$NUMASIM" topology "$f" >"$tmp/t"
expect_line "$tmp/t" "available: 4 nodes (0-3)"
expect_line "$tmp/t" "node 0 cpus: 0 1 2 3"
expect_line "$tmp/t" "node 0 size: 8192 MB"
expect_line "$tmp/t" "node 0 free: 8192 MB"
expect_line "$tmp/t" "node distances:"
expect_line "$tmp/t" "node   0   1   2   3 "
expect_line "$tmp/t" "  0:  10  21  21  21 "
expect_line "$tmp/t" "node 0 zonelist: Normal@0 DMA32@0 DMA@0 Normal@1 Normal@2 Normal@3"
expect_line "$tmp/t" "node 0 zonelist nofallback: Normal@0 DMA32@0 DMA@0"
expect_line "$tmp/t" "node 2 zonelist: Normal@2 Normal@3 Normal@0 DMA32@0 DMA@0 Normal@1"
expect_line "$tmp/t" "node 3 fallback nodes: 3 0 1 2"

"$NUMASIM" topology "$f" --zonelist-order zone >"$tmp/t"
expect_line "$tmp/t" "node 0 zonelist: Normal@0 Normal@1 Normal@2 Normal@3 DMA32@0 DMA@0"
expect_line "$tmp/t" "node 1 zonelist: Normal@1 Normal@2 Normal@3 Normal@0 DMA32@0 DMA@0"
expect_line "$tmp/t" "Built 4 zonelists in Zone order (cpus at build: given, memoryless nodes: online)"

# 3. Sparse ids, a memoryless node, a CPU-less node.
f=$M/zl-sparse-memoryless.yaml
"$NUMASIM" topology "$f" >"$tmp/t"
expect_line "$tmp/t" "available: 4 nodes (0-1,3-4)"
expect_line "$tmp/t" "node 4 cpus:"
expect_line "$tmp/t" "node 3 size: 0 MB"
expect_line "$tmp/t" "node   0   1   3   4 "
expect_line "$tmp/t" "  3:  21  16  10  21 "
expect_line "$tmp/t" "node 0 zonelist: Normal@0 DMA32@0 DMA@0 Normal@4 Movable@1 Normal@1"
expect_line "$tmp/t" "node 3 zonelist: Movable@1 Normal@1 Normal@4 Normal@0 DMA32@0 DMA@0"
expect_line "$tmp/t" "node 3 zonelist nofallback: (empty)"
expect_line "$tmp/t" "node 1 zonelist nofallback: Movable@1 Normal@1"

# the boot build: empty CPU masks, memoryless node 3 offline
"$NUMASIM" topology "$f" --x86-boot >"$tmp/t"
expect_line "$tmp/t" "available: 3 nodes (0-1,4)"
expect_line "$tmp/t" "node 1 cpus: 2 3 4 5"
expect_line "$tmp/t" "node 0 zonelist: Normal@0 DMA32@0 DMA@0 Movable@1 Normal@1 Normal@4"
expect_line "$tmp/t" "node 3 offline: no memory (x86 brings a node online only with >= 4 MB); cpus 4 5 map to node 1"
"$NUMASIM" topology "$f" --x86-boot --format json >"$tmp/j"
got=$(jq -c '[.nodes[] | {id, online, cpus_map_to}]' "$tmp/j")
[ "$got" = '[{"id":0,"online":true,"cpus_map_to":0},{"id":1,"online":true,"cpus_map_to":1},{"id":3,"online":false,"cpus_map_to":1},{"id":4,"online":true,"cpus_map_to":4}]' ] \
	&& ok || bad "x86-boot nodes: $got"
got=$(jq -c '.cpu_to_node' "$tmp/j")
[ "$got" = '[0,0,1,1,1,1]' ] && ok || bad "cpu_to_node: $got"
got=$(jq -c '[.cpus_at_build, .memoryless]' "$tmp/j")
[ "$got" = '["none","offline-x86"]' ] && ok || bad "x86-boot options: $got"
# the same as spelling both options out
"$NUMASIM" topology "$f" --cpus-at-build none --memoryless=offline-x86 --format=json >"$tmp/j2"
cmp -s "$tmp/j" "$tmp/j2" && ok || bad "--x86-boot differs from its expansion"

# only the CPU masks: node 1 and headless node 4 tie, lower id first
"$NUMASIM" topology "$f" --cpus-at-build none >"$tmp/t"
expect_line "$tmp/t" "node 0 fallback nodes: 0 1 4"

# 4. '-' reads the machine from standard input.
"$NUMASIM" topology - --format json <"$M/zl-4node-equal.yaml" >"$tmp/j1" && ok || bad "stdin run"
"$NUMASIM" topology "$M/zl-4node-equal.yaml" --format json >"$tmp/j2"
cmp -s "$tmp/j1" "$tmp/j2" && ok || bad "stdin output differs from file output"

# 5. Names with JSON specials are escaped.
sed "s/^name: zl-4node-equal/name: 'q\"uo\\\\te'/" "$M/zl-4node-equal.yaml" >"$tmp/q.yaml"
"$NUMASIM" topology "$tmp/q.yaml" --format json >"$tmp/j" 2>"$tmp/err" || { bad "quoted name run"; cat "$tmp/err"; }
got=$(jq -r '.machine' "$tmp/j")
[ "$got" = 'q"uo\te' ] && ok || bad "escaped name: $got"
grep -qF '"machine":"q\"uo\\te"' "$tmp/j" && ok || bad "raw JSON escapes"

# 6. Bad usage and bad input: exit 2, nothing on stdout.
run_err "no machine"
run_err "two machines" "$M/zl-4node-equal.yaml" "$M/zl-4node-equal.yaml"
run_err "unknown option" --frobnicate "$M/zl-4node-equal.yaml"
run_err "bad format" --format xml "$M/zl-4node-equal.yaml"
run_err "missing value" "$M/zl-4node-equal.yaml" --format
run_err "bad order" --zonelist-order numa "$M/zl-4node-equal.yaml"
run_err "bad cpus" --cpus-at-build some "$M/zl-4node-equal.yaml"
run_err "bad memoryless" --memoryless=offline "$M/zl-4node-equal.yaml"
run_err "x86-boot conflict" --x86-boot --cpus-at-build given "$M/zl-4node-equal.yaml"
run_err "missing file" "$tmp/does-not-exist.yaml"
printf 'name: broken\nnodes: [\n' >"$tmp/broken.yaml"
run_err "malformed YAML" "$tmp/broken.yaml"
grep -q "broken.yaml:[0-9]*:[0-9]*: error:" "$tmp/err" && ok || bad "no file:line:col diagnostic"
sed 's/- \[21, 10, 21, 21\]/- [21, 10, 21]/' "$M/zl-4node-equal.yaml" >"$tmp/ragged.yaml"
run_err "ragged distance" "$tmp/ragged.yaml"
printf 'name: broken\nnodes: [\n' | "$NUMASIM" topology - >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && [ ! -s "$tmp/out" ] && ok || bad "malformed stdin"
# no node with 4 MiB: x86 would not boot
sed -e 's/size: 8GiB/size: 1MiB/' -e 's/size: 6GiB/size: 1MiB/' -e '/type: DMA/d' \
	"$M/zl-4node-equal.yaml" >"$tmp/tiny.yaml"
"$NUMASIM" topology "$tmp/tiny.yaml" >/dev/null && ok || bad "tiny machine, memoryless online"
run_err "no online node" --x86-boot "$tmp/tiny.yaml"

# 7. Help.
"$NUMASIM" topology --help >"$tmp/out" && grep -q "^usage: numasim topology" "$tmp/out" && ok || bad "--help"
"$NUMASIM" help topology >"$tmp/out" && grep -q "free" "$tmp/out" && ok || bad "help topology"

finish
