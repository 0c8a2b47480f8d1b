#!/usr/bin/env bash
# CLI tests of numasim annotate's straight-line work (issue 49, item 8):
# `run --charges` books each function's work cycles per unit of work (a
# model's code block, SLUB's `!n` blocks: table profile_work), so the
# work no block accounts for ("work-rest") is under 5 % of every
# function's self cycles on a short seed-zonelist run and a short
# messaging run (both at the seeds' default ooo timing); the rows of an
# annotation (sites, blocks, the rests, mem, call, lock, other) sum to the
# function's self cycles; SLUB's functions show their blocks with the
# v5.9 source lines of their exit sites, with and without --charges.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 not installed"; exit 77; }
cd "$SRC" || exit 1

# work_rest DB: for every out-of-line function of every run with self
# cycles, "RUN FUNCTION SELF WORK-REST ROWSUM" from its annotation, where
# ROWSUM is the sum of the rows above "Self cycles by charge"
work_rest() {
	q "$1" "SELECT run_id, function, self_cycles FROM profile WHERE inlined = 0 AND
		self_cycles > 0 ORDER BY run_id, function" | tr '|' ' ' |
	while read -r r f s; do
		"$NUMASIM" annotate "$1" --run "$r" "$f" >"$tmp/a.txt" 2>"$tmp/err" || { echo "$r $f $s fail fail"; continue; }
		awk -v r="$r" -v f="$f" -v s="$s" '
			/^Self cycles by charge/ { done = 1 }
			/^site  *executed/ { in_sites = 1; next }
			/^block  *executed/ { in_sites = 0; in_blocks = 1; next }
			done { next }
			$1 == "work-rest" { rest = $2 }
			/^(branch-rest|work-rest|mem|call|lock|other) / { sum += $2; next }
			in_sites && NF >= 9 && $2 ~ /^[0-9]+$/ { sum += $7; next }
			in_blocks && $2 ~ /^[0-9]+$/ { sum += $3; next }
			END { printf "%s %s %s %s %.0f\n", r, f, s, (rest == "" ? "none" : rest), sum }' "$tmp/a.txt"
	done
}

# check_seed NAME DB: every function's work-rest under 5 % of its self
# cycles and its rows summing to self (each row rounded: within 1 cycle a row)
check_seed() {
	local name=$1 db=$2 n=0 worst=0
	[ "$(q "$db" "SELECT count(*) FROM profile_work")" -gt 0 ] && ok || bad "$name: no profile_work rows"
	# the units booked to a function sum to at most its work charge
	check "$name: units within the work charge" "$(q "$db" "SELECT count(*) FROM (SELECT run_id,
		function, sum(cycles) AS u FROM profile_work GROUP BY 1, 2) w JOIN profile_charges c
		USING (run_id, function) WHERE c.kind = 'work' AND w.u > c.cycles")" 0
	work_rest "$db" >"$tmp/$name.rows"
	while read -r r f s rest sum; do
		n=$((n + 1))
		if [ "$rest" = fail ] || [ "$rest" = none ]; then
			bad "$name run $r $f: no work-rest row ($rest)"
			continue
		fi
		small=$(awk -v a="$rest" -v b="$s" 'BEGIN { x = a < 0 ? -a : a; print (x < 0.05 * b) }')
		[ "$small" = 1 ] || bad "$name run $r $f: work-rest $rest of self $s (5 % or more)"
		near=$(awk -v a="$sum" -v b="$s" 'BEGIN { x = a - b; print (x < 0 ? -x : x) <= 40 }')
		[ "$near" = 1 ] || bad "$name run $r $f: rows sum to $sum, self $s"
	done <"$tmp/$name.rows"
	[ "$n" -gt 10 ] && ok || bad "$name: only $n functions annotated"
	ok
}

# --- a short seed-zonelist run (both variants) -------------------------------------
z=$tmp/z.db
"$NUMASIM" run scenarios/seed-zonelist.yaml --db "$z" --charges -q \
	--set workload.inner_iterations=2 --set 'workload.batches=[1,64]' >/dev/null 2>"$tmp/err"
check "seed-zonelist --charges exit" "$?" 0
check_seed zonelist "$z"
"$NUMASIM" annotate "$z" --run 2 get_page_from_freelist >"$tmp/g.txt"
# its blocks as charged: gpfl_zone's executions are the calls' zones
grep -q '^gpfl_zone  *[0-9][0-9]*  *[0-9][0-9]*  *[0-9.]*  25 uops, ends at A24a (mm/page_alloc\.c)$' "$tmp/g.txt" &&
	ok || bad "gpfl_zone's row"
check "gpfl_zone cycles as recorded" "$(awk '$1 == "gpfl_zone" { print $3 }' "$tmp/g.txt")" \
	"$(q "$z" "SELECT cycles FROM profile_work WHERE run_id = 2 AND function = 'get_page_from_freelist' AND unit = 'gpfl_zone'")"
# an inlined callee's block is named with its function
grep -q '^zone_statistics .*, ends at A42a (mm/vmstat\.c:[0-9]*), in zone_statistics$' "$tmp/g.txt" &&
	ok || bad "an inlined callee's block"
# the charges section's work line says what the blocks hold
grep -q '^work .*(the blocks above: [0-9]*, as charged; outside any block: [0-9]*)$' "$tmp/g.txt" &&
	ok || bad "the work line of the charges section"

# --- a short messaging run (seed-slub, both layouts) --------------------------------
m=$tmp/m.db
"$NUMASIM" run scenarios/seed-slub.yaml --db "$m" --charges -q \
	--set workload.loops=2 --set repetitions=1 >/dev/null 2>"$tmp/err"
check "seed-slub --charges exit" "$?" 0
check_seed messaging "$m"

# SLUB's blocks in annotate, with v5.9 source lines (models/kcode_lines.h)
"$NUMASIM" annotate "$m" --run 1 __slab_free >"$tmp/sf.txt"
for b in slab_free_entry slab_free_try nblock_frozen; do
	grep -q "^$b  *[0-9]" "$tmp/sf.txt" && ok || bad "__slab_free: no block $b"
done
grep -q '^slab_free_entry .* uops, accesses D, ends at S0 (mm/slub\.c)$' "$tmp/sf.txt" && ok || bad "slab_free_entry's description"
grep -q '^S5  .*  mm/slub\.c:3020: __slab_free: likely(!n)$' "$tmp/sf.txt" && ok || bad "S5's source line"
"$NUMASIM" annotate "$m" --run 1 get_partial_node >"$tmp/gp.txt"
grep -q '^partial_node_entry .* ends at gpn_empty (mm/slub\.c:1962)$' "$tmp/gp.txt" && ok || bad "get_partial_node's block"
# an inlined function: its blocks, booked to its caller
"$NUMASIM" annotate "$m" --run 1 slab_alloc_node >"$tmp/sa.txt"
grep -q '^alloc_entry .* ends at alloc_slow (mm/slub\.c:2851); booked to kmem_cache_alloc$' "$tmp/sa.txt" &&
	ok || bad "slab_alloc_node's block, booked to kmem_cache_alloc"

# without --charges: SLUB's blocks from their exit sites' counts
p=$tmp/p.db
"$NUMASIM" run scenarios/seed-slub.yaml --db "$p" -q --set workload.loops=2 --set repetitions=1 >/dev/null 2>"$tmp/err"
check "seed-slub run exit" "$?" 0
"$NUMASIM" annotate "$p" --run 1 __slab_free >"$tmp/psf.txt"
check "slab_free_entry's executions are S0's" "$(awk '$1 == "slab_free_entry" { print $2 }' "$tmp/psf.txt")" \
	"$(q "$p" "SELECT executed FROM branches WHERE run_id = 1 AND site = 'S0'")"
grep -q '^(run with --charges to split the self cycles by charge: branch, work per block' "$tmp/psf.txt" &&
	ok || bad "the --charges hint"
# the listings name SLUB's blocks and sites too
"$NUMASIM" list blocks >"$tmp/lb.txt" 2>&1
grep -q '^alloc_entry  *slub .* mm/slub\.c:2851 ' "$tmp/lb.txt" && ok || bad "list blocks: alloc_entry"
"$NUMASIM" list sites >"$tmp/ls.txt" 2>&1
grep -q 'S5' "$tmp/ls.txt" && ok || bad "list sites: S5"
finish
