#!/usr/bin/env bash
# kernel.commit and `numasim list commits` (models/kcommit.h,
# docs/design/series-2016.md): the list in series order, the key's errors
# (file:line:col, "did you mean", exit 2, nothing on stdout), the old
# zonelist_iter key still accepted but not with kernel.commit, and a
# commit that changes nothing the benchmark executes printing the same
# table as the commit before it.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# --- list commits -----------------------------------------------------------
"$NUMASIM" list commits >"$tmp/list.txt" 2>"$tmp/err" || bad "list commits: exit $?"
check "list heading" "$(head -1 "$tmp/list.txt" | tr -s ' ')" "TREE V3 ID STATUS TITLE / CHANGES"
check "list first" "$(sed -n 2p "$tmp/list.txt" | awk '{print $2, $3, $4}')" "00 v4.6-rc2 modelled"
check "list 682a3385 is v3 05" "$(grep '682a3385e773' "$tmp/list.txt" | awk '{print $2}')" "05"
"$NUMASIM" list commits --format csv >"$tmp/list.csv" || bad "list commits csv"
check "csv rows" "$(grep -c '^commits,' "$tmp/list.csv")" "32"
check "csv mm rows" "$(grep -c '^commits,,,,mm,' "$tmp/list.csv")" "29"
check "csv order" "$(awk -F, '$1=="commits"{printf "%s ", $6}' "$tmp/list.csv" | cut -c1-20)" \
	"0 1 2 3 4 5 6 7 8 9 "
check "csv last of mm" "$(grep '^commits,,,,mm,' "$tmp/list.csv" | tail -1 | cut -d, -f5-8)" \
	"mm,28,479f854a207c,modelled"
# tree slub after it: v5.9 and the cpu-partial pair in order
check "csv slub" "$(grep '^commits,,,,slub,' "$tmp/list.csv" | cut -d, -f5-8 | tr '\n' ' ')" \
	"slub,0,v5.9,modelled slub,1,b47291ef02b0,modelled slub,2,23e98ad1ce89,modelled "
check "csv no-change" "$(grep -c ',no-change,' "$tmp/list.csv")" "9"
"$NUMASIM" list keys | grep -qx 'kernel.commit' && ok || bad "list keys has no kernel.commit"
run_err_like "list typo" "did you mean 'commits'" list comits

# --- the key ----------------------------------------------------------------
sc() {   # sc FILE KERNEL-LINES: a tiny pagealloc scenario
	{
		printf 'name: t\nmachine: %s/configs/seed-2016-2s.yaml\nkernel:\n' "$SRC"
		printf '%s\n' "$2"
		printf 'workload:\n  type: pagealloc\n  orders: [0]\n  batches: [1, 64]\n'
		printf '  inner_iterations: 2\n  outer_samples: 3\n  drop_samples: 2\n  cpu: 0\n'
		printf 'seed: 1\ncost:\n  model: inorder\n'
	} >"$1"
}
sc "$tmp/typo.yaml" "  commit: 682a3358e773"
run_err_like "typo" "typo.yaml:4:11: error: unknown commit '682a3358e773' in kernel.commit (did you mean '682a3385e773'?" \
	run "$tmp/typo.yaml" --db "$tmp/x.db"
[ -e "$tmp/x.db" ] && bad "typo: a database was written" || ok
sc "$tmp/far.yaml" "  commit: [v4.6-rc2, nothing-like-it]"
run_err_like "far" "far.yaml:4:22: error: unknown commit 'nothing-like-it'" \
	run "$tmp/far.yaml" --db "$tmp/x.db"
sc "$tmp/both.yaml" "  commit: v4.6-rc2
  zonelist_iter: 682a3385"
run_err_like "both keys" "error: kernel.commit and kernel.zonelist_iter both choose" \
	validate "$tmp/both.yaml"
sc "$tmp/set.yaml" "  zonelist_iter: 682a3385"
"$NUMASIM" validate "$tmp/set.yaml" >/dev/null 2>&1 && ok || bad "zonelist_iter alone refused"
run_err_like "--set typo" "did you mean 'v4.6-rc2'" \
	run "$tmp/typo.yaml" --set kernel.commit=v4.6-rc3 --db "$tmp/x.db"
"$NUMASIM" validate "$tmp/typo.yaml" --set kernel.commit=682a338 >/dev/null 2>&1 && ok ||
	bad "a 7-digit prefix refused"

# --- a commit that changes nothing the benchmark runs: the same table ----------
sc "$tmp/noop.yaml" "  commit: [754078eb45df, f75fb889d18d, c603844bdcb5]"
"$NUMASIM" run -q "$tmp/noop.yaml" --db "$tmp/noop.db" >"$tmp/noop.txt" 2>"$tmp/err" ||
	{ bad "noop run"; cat "$tmp/err"; }
check "noop runs" "$(q "$tmp/noop.db" "select count(*) from runs")" "3"
check "noop kernel_model" "$(q "$tmp/noop.db" "select kernel_model from runs where point = 2")" \
	"v4.6-rc2+series:c603844bdcb5"
# compare-kernels' table: the Min rows' three columns are equal
check "noop Min rows" "$(grep -c '^Min' "$tmp/noop.txt")" "6"
check "noop columns equal" "$(awk '$1 == "Min" && ($3 != $6 || $3 != $9 || $3 == "") { n++ } END { print n + 0 }' \
	"$tmp/noop.txt")" "0"
# samples equal too, not only the printed minimum
check "noop samples" "$(q "$tmp/noop.db" "select count(distinct v) from (select run_id, group_concat(metric || '=' || value) as v from (select * from samples order by run_id, metric, idx) group by run_id)")" "1"

finish
