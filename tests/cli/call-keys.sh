#!/usr/bin/env bash
# Calls behind a static key in code-change files (kernel.change `call:` and
# `function:` with `static-key:`, scenarios/kchange.h, cost/cpu_key.c,
# docs/reference/changes.md): `numasim list functions` names the calls a
# key can take; on a short pagealloc run of the first seed's benchmark
# (v4.6-rc2), `static-key: off` on buffered_rmqueue's call of
# zone_statistics takes that call's cycles out of its caller, exactly
# (ooo, the caller's total), with the call, its __inc_zone_state calls,
# their branches and memory accesses gone and the NUMA counters the model
# keeps unchanged; `on` adds one uop per call (in-order: one cycle); memo
# accounting gives exact's figures; sampled is refused at the operation's
# place; `function:` keys every caller.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# --- the list -----------------------------------------------------------------
"$NUMASIM" list functions >"$tmp/fn.txt" || bad "list functions"
check "zone_statistics callers" "$(awk '$1=="zone_statistics"{print $5}' "$tmp/fn.txt")" \
	"buffered_rmqueue"
check "check_new_page callers" "$(awk '$1=="check_new_page"{print $5}' "$tmp/fn.txt")" \
	"prep_new_page,buffered_rmqueue,rmqueue_bulk"
check "__mod_zone_page_state refused" \
	"$(awk '$1=="__mod_zone_page_state"{print $5}' "$tmp/fn.txt")" "-"
check "keyable callees" "$(awk 'NR > 1 && $5 != "-"' "$tmp/fn.txt" | wc -l)" "5"
"$NUMASIM" list functions --format csv >"$tmp/fn.csv" || bad "list functions csv"
grep -q '^functions,.*,zone_statistics,mm,.*,buffered_rmqueue' "$tmp/fn.csv" && ok ||
	bad "csv: no key_callers for zone_statistics: $(grep zone_statistics, "$tmp/fn.csv")"

# --- a short pagealloc run ------------------------------------------------------
{
	printf 'name: t\nmachine: %s/configs/seed-2016-2s.yaml\n' "$SRC"
	printf 'kernel:\n  commit: v4.6-rc2\n'
	printf 'workload:\n  type: pagealloc\n  orders: [0]\n  batches: [1, 64, 1024]\n'
	printf '  inner_iterations: 2\n  outer_samples: 3\n  drop_samples: 2\n  cpu: 0\n'
	printf 'seed: 1\n'
} >"$tmp/t.yaml"
printf 'change: zs-off\noperations:\n  - call: buffered_rmqueue -> zone_statistics\n    static-key: off\n' >"$tmp/off.yaml"
printf 'change: zs-on\noperations:\n  - call: buffered_rmqueue -> zone_statistics\n    static-key: on\n' >"$tmp/on.yaml"
printf 'change: stats-off\noperations:\n  - function: __inc_zone_state\n    static-key: off\n' >"$tmp/inc.yaml"

# prof DB RUN FUNCTION COLUMN: a profile row's value (0 when no row)
prof() { q "$1" "select coalesce((select $4 from v_profile where run_id = $2 and function = '$3'), 0)"; }
ctr() { q "$1" "select coalesce(sum(value), 0) from counter_values where run_id = $2 and scope = '$3' and name = '$4'"; }
metrics() { q "$1" "select name, value from v_metrics where run_id = $2 order by name"; }

for model in ooo inorder; do
	for acc in exact memo; do
		db=$tmp/$model-$acc.db
		for c in none "$tmp/off.yaml" "$tmp/on.yaml" "$tmp/inc.yaml"; do
			"$NUMASIM" run -q "$tmp/t.yaml" --set cost.model=$model --set cost.accounting=$acc \
				--set "kernel.change=$c" --db "$db" >/dev/null 2>"$tmp/err" ||
				{ bad "$model $acc $(basename "$c")"; cat "$tmp/err"; }
		done
		q "$db" "select run_id, function, calls, self_cycles, total_cycles from v_profile order by 1, 2" \
			>"$tmp/prof-$model-$acc.txt"
	done
	cmp -s "$tmp/prof-$model-exact.txt" "$tmp/prof-$model-memo.txt" && ok ||
		bad "$model: memo accounting differs from exact"
	db=$tmp/$model-exact.db
	zs=$(prof "$db" 1 zone_statistics total_cycles)
	calls=$(prof "$db" 1 zone_statistics calls)
	[ "$zs" -gt 0 ] && [ "$calls" -gt 0 ] && ok || bad "$model: no zone_statistics in the base run"
	# off: the call and what it calls are gone
	check "$model off: zone_statistics calls" "$(prof "$db" 2 zone_statistics calls)" "0"
	check "$model off: __inc_zone_state calls" "$(prof "$db" 2 __inc_zone_state calls)" "0"
	check "$model off: its branches" \
		"$(q "$db" "select count(*) from branches where run_id = 2 and site in ('A42a', 'A42b', 'A42c')")" "0"
	check "$model off: calls counted" "$(( $(ctr "$db" 1 cpu calls) - $(ctr "$db" 2 cpu calls) ))" \
		"$(( calls + $(prof "$db" 1 __inc_zone_state calls) ))"
	[ "$(ctr "$db" 2 cpu mem_accesses)" -lt "$(ctr "$db" 1 cpu mem_accesses)" ] && ok ||
		bad "$model off: the call's memory accesses stayed"
	# the model's C still runs: the NUMA counters it keeps are counted
	check "$model off: numa_hit kept" "$(ctr "$db" 2 zone numa_hit)" "$(ctr "$db" 1 zone numa_hit)"
	[ "$(metrics "$db" 1)" != "$(metrics "$db" 2)" ] && ok || bad "$model off: the metrics did not move"
	drop=$(( $(prof "$db" 1 buffered_rmqueue total_cycles) - $(prof "$db" 2 buffered_rmqueue total_cycles) ))
	echo "$model: buffered_rmqueue total cycles lower by $drop with the call off; zone_statistics took $zs in $calls calls"
	if [ $model = ooo ]; then
		check "ooo off: the caller's cycles less exactly the call's" "$drop" "$zs"
	else
		# in-order, the branches the call no longer makes leave the
		# predictor's history, which moves other branches' predictions
		[ "$drop" -ge "$zs" ] && ok || bad "inorder off: $drop less than the call's $zs"
	fi
	# on: the call's work plus one uop each
	check "$model on: calls kept" "$(prof "$db" 3 zone_statistics calls)" "$calls"
	check "$model on: zone_statistics unchanged" "$(prof "$db" 3 zone_statistics total_cycles)" "$zs"
	if [ $model = ooo ]; then
		check "ooo on: one uop a call" "$(( $(ctr "$db" 3 cpu uops) - $(ctr "$db" 1 cpu uops) ))" "$calls"
	else
		check "inorder on: one cycle a call" "$(( $(ctr "$db" 3 cpu cycles) - $(ctr "$db" 1 cpu cycles) ))" "$calls"
	fi
	# function: every caller of __inc_zone_state; zone_statistics stays
	check "$model function: __inc_zone_state calls" "$(prof "$db" 4 __inc_zone_state calls)" "0"
	check "$model function: zone_statistics calls" "$(prof "$db" 4 zone_statistics calls)" "$calls"
done
# the run parameter names the change
check "param" "$(q "$tmp/ooo-exact.db" "select value from params where run_id = 2 and key = 'kernel.change'")" \
	"zs-off@$(sha256sum "$tmp/off.yaml" | cut -c1-12)"

# --- the table of keyable calls is the models' calls ------------------------------
# a file keying off every call `list functions` names (call: CALLER ->
# CALLEE for each KEY-CALLERS entry) leaves no call of a keyable callee,
# on v4.6-rc2 and on v3 28 (479f854a207c), which adds the checks at the
# pcp refill and drain: a caller missing from the table would keep calls
{
	printf 'change: all-off\noperations:\n'
	awk 'NR > 1 && $5 != "-" { n = split($5, c, ","); for (i = 1; i <= n; i++)
		printf "  - call: %s -> %s\n    static-key: off\n", c[i], $1 }' "$tmp/fn.txt"
} >"$tmp/all.yaml"
db=$tmp/all.db
for k in v4.6-rc2 479f854a207c; do
	for c in none "$tmp/all.yaml"; do
		"$NUMASIM" run -q "$tmp/t.yaml" --set cost.accounting=exact --set kernel.commit=$k \
			--set "kernel.change=$c" --db "$db" >/dev/null 2>"$tmp/err" ||
			{ bad "all-off $k $(basename "$c")"; cat "$tmp/err"; }
	done
done
keyed="'zone_statistics', '__inc_zone_state', 'inc_zone_page_state', 'check_new_page', 'free_pages_check'"
kcalls() { q "$db" "select coalesce(sum(calls), 0) from v_profile where run_id = $1 and function in ($keyed)"; }
[ "$(kcalls 1)" -gt 0 ] && [ "$(kcalls 3)" -gt 0 ] && ok || bad "all-off: no keyable call to take"
check "all-off v4.6-rc2: no keyable call left" "$(kcalls 2)" "0"
check "all-off v3 28: no keyable call left" "$(kcalls 4)" "0"
[ "$(prof "$db" 3 check_new_page calls)" -gt 0 ] && [ "$(prof "$db" 3 free_pages_check calls)" -gt 0 ] &&
	ok || bad "v3 28: the checks at the pcp refill and drain were not called"

# --- sampled accounting refuses it, at the operation ----------------------------
run_err_like "sampled" "off.yaml:3:31: error: .*a call behind a static key needs cost.accounting exact or memo" \
	run "$tmp/t.yaml" --set cost.accounting=sampled --set "kernel.change=$tmp/off.yaml" --db "$tmp/s.db"
[ -e "$tmp/s.db" ] && bad "sampled: a database was written" || ok

finish
