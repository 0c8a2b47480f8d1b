#!/usr/bin/env bash
# CLI test of the SLUB commits of kernel.commit (v5.9 | b47291ef02b0 |
# 23e98ad1ce89, models/kcommit.h's tree "slub", docs/design/slub-model.md §1) and
# their alias kernel.slub_cpu_partial, the shipped
# scenarios/slub-cpu-partial.yaml and `numasim report DB --slabinfo CACHE`
# (analysis/slabinfo.h):
#  - kernel.commit: a SLUB id selects the SLUB model's commit and leaves the
#    page allocator at its default; one id of each tree joined by '+';
#    errors for two ids of one tree, a SLUB id on a workload without SLUB,
#    kernel.commit's SLUB id with kernel.slub_cpu_partial; the alias gives
#    the same runs; `compare --by kernel.commit` has one column per commit;
#  - the knob's bad values: file:line:col, "did you mean" for a near miss,
#    the list of values otherwise, exit 2 and nothing on stdout; the same
#    through --set;
#  - the shipped scenario validates to its 3-point plan on the 8-CPU guest;
#  - a small run of the three settings (guest machine, -g 2, in-order):
#    the setting reaches the model (the drains and refills differ as the
#    accounting says) and --slabinfo prints slabinfo -r's tables from the
#    stored counters, with slabinfo's integer percentages; `numasim run`
#    prints the same tables per point when a point is not v5.9.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 not installed"; exit 77; }

SCN=$SRC/scenarios/slub-cpu-partial.yaml
M=$SRC/configs/guest-8cpu-4g.yaml

"$NUMASIM" validate "$SCN" >"$tmp/out" 2>"$tmp/err"
check "validate exit" "$?" 0
check "validate stdout" "$(cat "$tmp/out")" \
	"$SCN: ok (scenario slub-cpu-partial: machine guest-8cpu-4g, 3 points x 1 repetition = 3 runs)"
"$NUMASIM" validate "$M" >/dev/null 2>&1
check "guest machine validates" "$?" 0

# a scenario with the knob set to V; $tmp/k.yaml
knob_file() {
	cat >"$tmp/k.yaml" <<EOT
name: k
machine: $M
kernel:
  slub_cpu_partial: $1
workload:
  type: messaging
  groups: 2
  loops: 20
cost:
  model: inorder
EOT
}

knob_file b47291ef02b
run_err_like "near miss" \
	"k.yaml:4:21: error: unknown slub_cpu_partial 'b47291ef02b' (did you mean 'b47291ef02b0'?)" \
	validate "$tmp/k.yaml"
knob_file v5.10
run_err_like "near miss v5.9" "(did you mean 'v5.9'?)" validate "$tmp/k.yaml"
knob_file c270cf30
run_err_like "far value" \
	"k.yaml:4:21: error: unknown slub_cpu_partial 'c270cf30' (expected v5.9, b47291ef02b0 or 23e98ad1ce89)" \
	validate "$tmp/k.yaml"
knob_file 13
run_err_like "number" "k.yaml:4:21: error: unknown slub_cpu_partial '13'" validate "$tmp/k.yaml"
knob_file v5.9
run_err_like "--set" "(did you mean '23e98ad1ce89'?)" \
	run "$tmp/k.yaml" --db "$tmp/x.db" --set kernel.slub_cpu_partial=23e98ad1ce8
check "--set: no database" "$(test -e "$tmp/x.db" && echo yes || echo no)" no
for v in v5.9 b47291ef02b0 23e98ad1ce89; do
	knob_file "$v"
	"$NUMASIM" validate "$tmp/k.yaml" >/dev/null 2>&1
	check "value $v" "$?" 0
done

# the three settings, -g 2 -l 20 on the guest (in-order, fast)
knob_file "[v5.9, b47291ef02b0, 23e98ad1ce89]"
"$NUMASIM" run "$tmp/k.yaml" --db "$tmp/k.db" >"$tmp/run" 2>&1
check "run exit" "$?" 0
# numasim run prints slabinfo -r's tables of both caches per point
check "run's slabinfo sections" "$(grep -c '^# slabinfo -r \(skbuff_head_cache\|kmalloc-512\) of slub_cpu_partial=' "$tmp/run")" 6
check "run's slabinfo tables" "$(grep -c '^Slab Perf Counter ' "$tmp/run")" 6
# not for a run of v5.9 alone (the seed scenarios' output is unchanged)
knob_file v5.9
"$NUMASIM" run "$tmp/k.yaml" --db "$tmp/k59.db" >"$tmp/run59" 2>&1
check "v5.9 run exit" "$?" 0
check "v5.9 run: no slabinfo section" "$(grep -c '^# slabinfo -r' "$tmp/run59")" 0
knob_file "[v5.9, b47291ef02b0, 23e98ad1ce89]"
ctr() { q "$tmp/k.db" "SELECT value FROM counters c JOIN runs r USING (run_id) WHERE r.point = $1 AND c.scope = 'cache' AND c.scope_id = '$2' AND c.name = '$3'"; }
check "points' variants" "$(q "$tmp/k.db" "SELECT group_concat(variant, ' ') FROM (SELECT variant FROM runs ORDER BY point)")" \
	"slub_cpu_partial=v5.9 slub_cpu_partial=b47291ef02b0 slub_cpu_partial=23e98ad1ce89"
# pages accounting (1 slab for these caches on 8 CPUs) drains more often
# than v5.9's pobjects > 13; the larger defaults (4 slabs) less often
d0=$(ctr 0 skbuff_head_cache cpu_partial_drain)
d1=$(ctr 1 skbuff_head_cache cpu_partial_drain)
d2=$(ctr 2 skbuff_head_cache cpu_partial_drain)
check "b47291ef02b0 drains more than v5.9 ($d1 vs $d0)" "$([ "$d1" -gt "$d0" ] && echo yes)" yes
check "23e98ad1ce89 drains less than b47291ef02b0 ($d2 vs $d1)" "$([ "$d2" -lt "$d1" ] && echo yes)" yes
# the where_* counters partition the slow-path frees
for p in 0 1 2; do
	w=$(q "$tmp/k.db" "SELECT sum(value) FROM counters c JOIN runs r USING (run_id) WHERE r.point = $p AND c.scope = 'cache' AND c.scope_id = 'skbuff_head_cache' AND c.name LIKE 'where_%' AND c.name <> 'where_by_alloc_cpu'")
	check "where_* sum, point $p" "$w" "$(ctr $p skbuff_head_cache free_slowpath)"
done

# report --slabinfo: one section per run, slabinfo's rows and arithmetic
"$NUMASIM" report "$tmp/k.db" --slabinfo skbuff_head_cache >"$tmp/si" 2>"$tmp/sierr"
check "slabinfo exit" "$?" 0
check "slabinfo stderr" "$(cat "$tmp/sierr")" ""
check "slabinfo sections" "$(grep -c '^Slabcache: skbuff_head_cache ' "$tmp/si")" 3
check "slabinfo header" "$(grep -m1 '^Slab Perf Counter' "$tmp/si")" "Slab Perf Counter       Alloc     Free %Al %Fr"
row() { grep "^$1 " "$tmp/si" | sed -n "$2p"; }
for p in 0 1 2; do
	n=$((p + 1))
	af=$(ctr $p skbuff_head_cache alloc_fastpath); as=$(ctr $p skbuff_head_cache alloc_slowpath)
	ff=$(ctr $p skbuff_head_cache free_fastpath); fs=$(ctr $p skbuff_head_cache free_slowpath)
	fz=$(ctr $p skbuff_head_cache free_frozen); rf=$(ctr $p skbuff_head_cache deactivate_remote_frees)
	cpa=$(ctr $p skbuff_head_cache cpu_partial_alloc); cpf=$(ctr $p skbuff_head_cache cpu_partial_free)
	ta=$((af + as)); tf=$((ff + fs))
	check "Fastpath row, point $p" "$(row Fastpath $n)" \
		"$(printf 'Fastpath             %8d %8d %3d %3d' "$af" "$ff" $((af * 100 / ta)) $((ff * 100 / tf)))"
	check "Slowpath row, point $p" "$(row Slowpath $n)" \
		"$(printf 'Slowpath             %8d %8d %3d %3d' "$as" "$fs" $((as * 100 / ta)) $((fs * 100 / tf)))"
	check "Cpu partial row, point $p" "$(grep '^Cpu partial list ' "$tmp/si" | sed -n "${n}p")" \
		"$(printf 'Cpu partial list     %8d %8d %3d %3d' "$cpa" "$cpf" $((cpa * 100 / ta)) $((cpf * 100 / tf)))"
	check "RemoteObj/SlabFrozen row, point $p" "$(row RemoteObj/SlabFrozen $n)" \
		"$(printf 'RemoteObj/SlabFrozen %8d %8d %3d %3d' "$rf" "$fz" $((rf * 100 / ta)) $((fz * 100 / tf)))"
	check "Total row, point $p" "$(row Total $n)" "$(printf 'Total                %8d %8d' "$ta" "$tf")"
done
check "model's where table marked" "$(grep -c '^Model only (numasim where_\* counters)' "$tmp/si")" 3
"$NUMASIM" report "$tmp/k.db" --slabinfo kmalloc-512 >"$tmp/si512" 2>&1
check "kmalloc-512 exit" "$?" 0
check "kmalloc-512 sections" "$(grep -c '^Slabcache: kmalloc-512 ' "$tmp/si512")" 3
run_err_like "unknown cache" "no SLUB counters of cache 'skbuff' (caches with slabs: kmalloc-512, skbuff_head_cache)" \
	report "$tmp/k.db" --slabinfo skbuff
run_err_like "--slabinfo with --format" "--slabinfo is a text report of its own" \
	report "$tmp/k.db" --slabinfo skbuff_head_cache --format json
run_err_like "--slabinfo without a cache" "error" report "$tmp/k.db" --slabinfo

# --- kernel.commit's SLUB tree ------------------------------------------------
# kc_file KERNEL-LINES [WORKLOAD-TYPE]: $tmp/c.yaml
kc_file() {
	{
		printf 'name: c\nmachine: %s\nkernel:\n%s\n' "$M" "$1"
		if [ "${2:-messaging}" = messaging ]; then
			printf 'workload:\n  type: messaging\n  groups: 2\n  loops: 20\n'
		else
			printf 'workload:\n  type: pagealloc\n  orders: [0]\n  batches: [1]\n'
		fi
		printf 'cost:\n  model: inorder\n'
	} >"$tmp/c.yaml"
}
kc_file "  commit: b47291ef02b0"
"$NUMASIM" validate "$tmp/c.yaml" >/dev/null 2>&1
check "kernel.commit b47291ef02b0 validates" "$?" 0
kc_file "  commit: 682a3385e773+23e98ad1ce89"
"$NUMASIM" validate "$tmp/c.yaml" >/dev/null 2>&1
check "kernel.commit with one id of each tree" "$?" 0
kc_file "  commit: 23e98ad1ce89
  zonelist_iter: pre-682a3385"
"$NUMASIM" validate "$tmp/c.yaml" >/dev/null 2>&1
check "a SLUB commit with zonelist_iter" "$?" 0
kc_file "  commit: v5.9+23e98ad1ce89"
run_err_like "two SLUB ids" \
	"c.yaml:4:11: error: kernel.commit 'v5.9+23e98ad1ce89' names two commits of one tree" \
	validate "$tmp/c.yaml"
kc_file "  commit: 682a3385e773+b47291ef02b9"
run_err_like "misspelt SLUB id" \
	"c.yaml:4:11: error: unknown commit 'b47291ef02b9' in kernel.commit (did you mean 'b47291ef02b0'?" \
	validate "$tmp/c.yaml"
kc_file "  commit: 23e98ad1ce89" pagealloc
run_err_like "SLUB id on pagealloc" \
	"c.yaml:4:11: error: kernel.commit '23e98ad1ce89' names SLUB commit 23e98ad1ce89, and the pagealloc workload does not use the SLUB model" \
	validate "$tmp/c.yaml"
kc_file "  commit: b47291ef02b0
  slub_cpu_partial: 23e98ad1ce89"
run_err_like "kernel.commit and its alias" \
	"c.yaml:5:21: error: kernel.commit names a SLUB commit and kernel.slub_cpu_partial chooses one too" \
	validate "$tmp/c.yaml"
kc_file "  commit: 682a3385e773
  slub_cpu_partial: 23e98ad1ce89"
"$NUMASIM" validate "$tmp/c.yaml" >/dev/null 2>&1
check "an mm commit with the alias" "$?" 0
# the three commits through kernel.commit: the alias's runs, counter for counter
kc_file "  commit: [v5.9, b47291ef02b0, 23e98ad1ce89]"
"$NUMASIM" run "$tmp/c.yaml" --db "$tmp/c.db" >"$tmp/crun" 2>&1
check "kernel.commit run exit" "$?" 0
check "kernel.commit points" "$(q "$tmp/c.db" "SELECT group_concat(variant || ' ' || kernel_model, ', ') FROM (SELECT variant, kernel_model FROM runs ORDER BY point)")" \
	"commit=v5.9 v5.9, commit=b47291ef02b0 v5.9+b47291ef02b0, commit=23e98ad1ce89 v5.9+b47291ef02b0+23e98ad1ce89"
check "the alias is kept as a parameter" "$(q "$tmp/c.db" "SELECT group_concat(value, ' ') FROM (SELECT value FROM params JOIN runs USING (run_id) WHERE key = 'kernel.slub_cpu_partial' ORDER BY point)")" \
	"v5.9 b47291ef02b0 23e98ad1ce89"
check "the page allocator at its default" "$(q "$tmp/c.db" "SELECT DISTINCT value FROM params WHERE key = 'kernel.zonelist_iter'")" "682a3385"
cnt() { q "$1" "SELECT group_concat(r.point || c.scope_id || c.name || '=' || c.value, ',') FROM counters c JOIN runs r USING (run_id) WHERE c.scope = 'cache' ORDER BY r.point, c.scope_id, c.name"; }
check "kernel.commit's counters are the alias's" "$(cnt "$tmp/c.db" | sha256sum)" "$(cnt "$tmp/k.db" | sha256sum)"
check "run's slabinfo sections (kernel.commit)" "$(grep -c '^# slabinfo -r \(skbuff_head_cache\|kmalloc-512\) of commit=' "$tmp/crun")" 6
"$NUMASIM" compare "$tmp/c.db" --by kernel.commit >"$tmp/cmp" 2>"$tmp/cmperr"
check "compare --by kernel.commit exit" "$?" 0
check "compare's columns" "$(sed -n 2p "$tmp/cmp" | tr -s ' ' | sed 's/^ //')" "v5.9 b47291ef02b0 23e98ad1ce89"

finish
