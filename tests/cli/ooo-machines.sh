#!/usr/bin/env bash
# CLI tests for the core figures of cost.model ooo on every shipped machine
# and cost profile (docs/reference/machines.md, docs/design/cost-model.md section 2):
#  - every machine in configs/ carries the figures cpu_ooo_missing() needs,
#    each with a source whose [TAG]s docs/reference/machines.md defines;
#  - a machine that embeds a profile ("Costs: copy of configs/costs/X.yaml")
#    has the profile's core figures line for line (clocks may be the box's),
#    unless its header says "Core figures (cost.model ooo): own";
#  - `bench pagealloc --cost-model ooo` runs on every machine: cycles per
#    alloc and per free > 0, no failed allocation, the same work as inorder
#    (checksum), fewer cycles than inorder (the core overlaps work);
#  - inorder does not read the figures: the machine with them stripped gives
#    the same inorder results bit for bit, and is refused under ooo;
#  - `numasim import --costs P` copies every profile's core figures, and the
#    imported machine runs under ooo.
. "$(dirname "$0")/lib.sh"
need_jq

# the figures cpu_ooo_missing() requires (cost/cpu.c), then the optional ones
need="dispatch_width rob_size load_queue load_ports fill_buffers call_uops ret_uops"
core="$need prefetch_streams prefetch_distance prefetch_degree"
core_re="^  ($(echo $core | tr ' ' '|')):"
all_re="^  ($(echo $core tsc_ghz core_ghz | tr ' ' '|')):"

# the core-figure lines of a machine file or profile (without the clocks)
core_lines() { grep -E "$core_re" "$1"; }

bench() { # bench MACHINE MODEL OUT: one short run, json on OUT
	"$NUMASIM" bench pagealloc --machine "$1" --cost-model "$2" --pairs 2000 \
		--format json >"$3" 2>"$tmp/berr"
}

# --- the figures and their sources ---------------------------------------------------
for m in "$SRC"/configs/*.yaml; do
	n=$(basename "$m" .yaml)
	for f in $need; do
		grep -Eq "^  $f: \{value: [1-9][0-9]*, source: \"[^\"]+\"\}" "$m" && ok ||
			bad "$n: no sourced $f"
	done
	# every [TAG] a core figure cites is defined in docs/reference/machines.md
	for t in $(grep -E "$all_re" "$m" | grep -o '\[[A-Z0-9-]*\]' | sort -u); do
		grep -qF -- "$t" "$SRC/docs/reference/machines.md" && ok || bad "$n: tag $t not in docs/reference/machines.md"
	done
	# the embedded profile's core figures, line for line
	# unless its header says the core figures are its own (a stand-in profile
	# for the rest: spr-cxl, power9-ac922), and then they must differ
	p=$(sed -n 's|^# Costs: copy of configs/costs/\([a-z0-9-]*\)\.yaml.*|\1|p' "$m")
	if [ -n "$p" ] && grep -q '^# Core figures (cost.model ooo): own' "$m"; then
		cmp -s <(core_lines "$m") <(core_lines "$SRC/configs/costs/$p.yaml") &&
			bad "$n: says its core figures are its own, but they are $p's" || ok
	elif [ -n "$p" ]; then
		if diff <(core_lines "$m") <(core_lines "$SRC/configs/costs/$p.yaml") >"$tmp/d"; then ok; else
			bad "$n: core figures differ from configs/costs/$p.yaml"; head -20 "$tmp/d"
		fi
	fi
done
for p in "$SRC"/configs/costs/*.yaml; do
	n=$(basename "$p" .yaml)
	check "profile $n core figures" "$(core_lines "$p" | wc -l)" 10
done

# --- ooo on every machine; inorder the same work, not fewer cycles -----------------
for m in "$SRC"/configs/*.yaml; do
	n=$(basename "$m" .yaml)
	bench "$n" ooo "$tmp/o.json"
	check "$n ooo exit" $? 0
	bench "$n" inorder "$tmp/i.json"
	check "$n inorder exit" $? 0
	r=$(jq -r '.results[0] | "\(.cycles_per_alloc) \(.cycles_per_free) \(.failed) \(.checksum)"' "$tmp/o.json")
	read -r oa of ofail osum <<<"$r"
	read -r ia if_ ifail isum <<<"$(jq -r '.results[0] | "\(.cycles_per_alloc) \(.cycles_per_free) \(.failed) \(.checksum)"' "$tmp/i.json")"
	awk -v a="$oa" -v f="$of" 'BEGIN { exit !(a > 0 && f > 0 && a < 5000 && f < 5000) }' && ok ||
		bad "$n ooo: implausible cycles per alloc/free: $oa / $of"
	check "$n ooo failed" "$ofail" 0
	check "$n same work (checksum)" "$osum" "$isum"
	awk -v o="$oa" -v i="$ia" 'BEGIN { exit !(o < i) }' && ok ||
		bad "$n: ooo cycles per alloc $oa not below inorder $ia"
	# inorder without the core figures: the same results, bit for bit
	grep -Ev "$all_re" "$m" >"$tmp/$n-bare.yaml"
	bench "$tmp/$n-bare.yaml" inorder "$tmp/b.json"
	check "$n bare inorder exit" $? 0
	check "$n inorder ignores the core figures" "$(jq -c '.results, .counters' "$tmp/b.json")" \
		"$(jq -c '.results, .counters' "$tmp/i.json")"
	run_err_like "$n bare ooo refused" "cost.model ooo needs the core figure 'dispatch_width'" \
		run "$SRC/tests/scenarios/tiny-pagealloc.yaml" --db "$tmp/bare.db" \
		--set machine="$tmp/$n-bare.yaml" --set cost.model=ooo
	[ -e "$tmp/bare.db" ] && bad "$n: a refused run left a database" || ok
done

# --- import copies each profile's figures; the result runs under ooo ---------------
for p in "$SRC"/configs/costs/*.yaml; do
	n=$(basename "$p" .yaml)
	"$NUMASIM" import numactl "$SRC/tests/fixtures/numactl/single-node-8cpu.txt" --costs "$p" \
		>"$tmp/imp-$n.yaml" 2>/dev/null
	check "import --costs $n exit" $? 0
	if diff <(core_lines "$tmp/imp-$n.yaml") <(core_lines "$p") >/dev/null; then ok; else
		bad "import --costs $n: core figures not copied"
	fi
	bench "$tmp/imp-$n.yaml" ooo "$tmp/p.json"
	check "imported $n ooo exit" $? 0
	c=$(jq -r '.results[0].cycles_per_alloc' "$tmp/p.json")
	awk -v a="$c" 'BEGIN { exit !(a > 0) }' && ok || bad "imported $n ooo: cycles per alloc $c"
done
finish
