#!/usr/bin/env bash
# Code-change files (kernel.change, scenarios/kchange.h,
# docs/reference/changes.md) and `numasim list functions|sites|blocks`:
# the lists against the tables; each shipped change file that expresses a
# commit of the 2016 series (v3 04 060e74173f29, v3 16 83d4ca8148fd, v3 25
# 0b423ca22f95) applied on the commit before it gives the built-in
# commit's cycles within 0.5 % (in fact every metric and counter equal),
# while the commit before it differs; the layout parts of 682a3385 and
# c270cf30, which a change file cannot express whole, measured and
# printed; the run parameter and label that name the change; two files
# applied in order; a model's name the run does not have refused at its
# place; every operation kind taking effect under exact, memo and
# in-order accounting.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
CH=$SRC/scenarios/changes

# --- the lists ----------------------------------------------------------------
"$NUMASIM" list functions >"$tmp/fn.txt" 2>"$tmp/err" || bad "list functions: exit $?"
check "functions heading" "$(head -1 "$tmp/fn.txt" | tr -s ' ')" "FUNCTION MODEL LAYOUT SOURCE KEY-CALLERS KERNEL"
# the kernel source lines (models/kcode_lines.h, scripts/kernel-lines.py)
check "zone_statistics source" "$(awk '$1=="zone_statistics"{print $4}' "$tmp/fn.txt")" "mm/vmstat.c:582"
check "__slab_free source" "$(awk '$1=="__slab_free"{print $4}' "$tmp/fn.txt")" "mm/slub.c:2958"
check "zone_statistics inline" "$(awk '$1=="zone_statistics"{print $2, $3}' "$tmp/fn.txt")" \
	"mm inline"
check "__slab_free" "$(awk '$1=="__slab_free"{print $2, $3}' "$tmp/fn.txt")" "slub out-of-line"
# every function and site of the tables, once: the X(...) rows of each
# table's #define (its lines up to the first without a backslash)
rows() {   # rows FILE TABLE PATTERN: the count of PATTERN in TABLE's rows
	awk -v t="$2" '$0 ~ "^#define "t"\\(X\\)" {on=1} on {print} on && !/\\$/ {on=0}' "$1" |
		grep -o "$3" | wc -l
}
fx='X([A-Za-z_0-9]*)'
want=$(( $(rows "$SRC/models/mm_tables.h" MM_FUNCS "$fx") + $(rows "$SRC/models/mm_tables.h" MM_SERIES_FUNCS "$fx") +
	$(rows "$SRC/models/mm_tables.h" VM_FUNCS "$fx") + $(rows "$SRC/models/slub_internal.h" SLUB_FUNCS "$fx") ))
"$NUMASIM" list functions --format csv >"$tmp/fn.csv" || bad "list functions csv"
check "functions rows" "$(grep -c '^functions,' "$tmp/fn.csv")" "$want"
sx='X([A-Za-z0-9_]*, "'
want=$(( $(rows "$SRC/models/mm_tables.h" MM_SITES "$sx") + $(rows "$SRC/models/mm_tables.h" MM_SERIES_SITES "$sx") +
	$(rows "$SRC/models/mm_tables.h" VM_SITES "$sx") + $(rows "$SRC/models/slub_internal.h" SLUB_SITES "$sx") ))
"$NUMASIM" list sites --format csv >"$tmp/sites.csv" || bad "list sites csv"
check "sites rows" "$(grep -c '^sites,' "$tmp/sites.csv")" "$want"
[ "$want" -gt 300 ] && ok || bad "sites: the tables were not read ($want rows)"
"$NUMASIM" list sites >"$tmp/sites.txt" || bad "list sites"
check "A42a" "$(awk '$1=="A42a"{print $2, $3, $4, $5}' "$tmp/sites.txt")" \
	"mm zone_statistics unlikely hinted"
check "PRE6b" "$(awk '$1=="PRE6b"{print $2, $3, $4, $5}' "$tmp/sites.txt")" \
	"slub __slab_free - false"
check "A48 source" "$(awk '$1=="A48"{print $6}' "$tmp/sites.txt")" "mm/page_alloc.c:3370"
check "PRE6b unresolved" "$(awk '$1=="PRE6b"{print $6}' "$tmp/sites.txt")" "-"
# every row of the generated table is printed, and no other line
for k in FN:functions SITE:sites BLOCK:blocks; do
	n=$(grep -c "X(KCODE_${k%%:*}," "$SRC/models/kcode_lines.h")
	"$NUMASIM" list "${k#*:}" --format json >"$tmp/src.json" || bad "list ${k#*:} json"
	if command -v jq >/dev/null; then
		check "${k#*:} with a source line" \
			"$(jq "[.${k#*:}[] | select(.source_line != null)] | length" "$tmp/src.json")" "$n"
	fi
	[ "$n" -gt 0 ] && ok || bad "kcode_lines.h: no ${k#*:} row"
done
"$NUMASIM" list blocks >"$tmp/blocks.txt" || bad "list blocks"
check "block alloc_nodemask" "$(awk '$1=="alloc_nodemask"{print $2, $3, $4, $6}' "$tmp/blocks.txt")" \
	"mm alloc_nodemask - A09"
check "block watermark_fast" "$(awk '$1=="watermark_fast"{print $2, $4, $6}' "$tmp/blocks.txt")" \
	"mm-series L A30f"
if command -v jq >/dev/null; then
	check "blocks json" "$("$NUMASIM" list blocks --format json |
		jq -r '.blocks[] | select(.name == "free_fast") | .model + " " + .accesses')" "slub LS"
fi
run_err_like "list typo" "did you mean 'sites'" list sitse

# --- a small pagealloc scenario ------------------------------------------------
sc() {   # sc FILE: a tiny pagealloc scenario on the first seed's machine
	{
		printf 'name: t\nmachine: %s/configs/seed-2016-2s.yaml\n' "$SRC"
		printf 'workload:\n  type: pagealloc\n  orders: [0]\n  batches: [1, 64, 1024]\n'
		printf '  inner_iterations: 2\n  outer_samples: 3\n  drop_samples: 2\n  cpu: 0\n'
		printf 'seed: 1\n'
	} >"$1"
}
sc "$tmp/t.yaml"

# metrics DB RUN: the run's metrics, one "name value" a line
metrics() { q "$1" "select name, value from v_metrics where run_id = $2 order by name"; }
counters() { q "$1" "select scope, scope_id, name, object, value from counter_values where run_id = $2 order by 1, 2, 3, 4"; }

# equiv NAME BEFORE AFTER FILE: BEFORE + FILE against AFTER, the built-in
# commit: every metric within 0.5 % (printed: the largest difference),
# every metric and counter equal; BEFORE itself differs from AFTER.
equiv() {
	local name=$1 before=$2 after=$3 file=$4 db=$tmp/$1.db
	"$NUMASIM" run -q "$tmp/t.yaml" --sweep "kernel.commit=$before,$after" --db "$db" >/dev/null 2>"$tmp/err" ||
		{ bad "$name: commits run"; cat "$tmp/err"; return; }
	"$NUMASIM" run -q "$tmp/t.yaml" --set "kernel.commit=$before" --set "kernel.change=$file" \
		--db "$db" >/dev/null 2>"$tmp/err" || { bad "$name: change run"; cat "$tmp/err"; return; }
	local worst
	worst=$(q "$db" "select printf('%.4f', max(abs(c.value - a.value) * 100.0 / abs(a.value)))
		from v_metrics a join v_metrics c on c.name = a.name
		where a.run_id = 2 and c.run_id = 3 and a.value != 0 and a.name like '%odr0%'")
	echo "$name: $(basename "$file") on $before against $after: largest difference ${worst} %"
	awk -v w="$worst" 'BEGIN { exit !(w != "" && w <= 0.5) }' && ok ||
		bad "$name: more than 0.5 % from $after ($worst %)"
	[ "$(metrics "$db" 2)" = "$(metrics "$db" 3)" ] && ok || bad "$name: metrics differ from $after"
	[ "$(counters "$db" 2)" = "$(counters "$db" 3)" ] && ok || bad "$name: counters differ from $after"
	[ "$(metrics "$db" 1)$(counters "$db" 1)" != "$(metrics "$db" 2)$(counters "$db" 2)" ] && ok ||
		bad "$name: $before and $after run the same (the check could not fail)"
	check "$name param" "$(q "$db" "select value from params where run_id = 3 and key = 'kernel.change'")" \
		"$(basename "$file" .yaml)@$(sha256sum "$file" | cut -c1-12)"
	check "$name no param without a change" \
		"$(q "$db" "select count(*) from params where run_id < 3 and key = 'kernel.change'")" "0"
	check "$name label" "$(q "$db" "select variant from runs where run_id = 3" | sed 's/.*,change=/change=/')" \
		"change=$(basename "$file" .yaml)@$(sha256sum "$file" | cut -c1-12)"
}
equiv v3-04 b9f00e147f27 060e74173f29 "$CH/inline-zone-statistics.yaml"
equiv v3-16 v3-15-might-sleep 83d4ca8148fd "$CH/hardwall-out-of-fastpath.yaml"
equiv v3-25 e5b31ac2ca2c 0b423ca22f95 "$CH/inline-pfnblock.yaml"

# --- 682a3385's layout part: part of the commit, not all of it -----------------
db=$tmp/nzl.db
"$NUMASIM" run -q "$tmp/t.yaml" --sweep kernel.commit=060e74173f29,682a3385e773 --db "$db" >/dev/null &&
	"$NUMASIM" run -q "$tmp/t.yaml" --set kernel.commit=060e74173f29 \
		--set "kernel.change=$CH/inline-zonelist-iterator.yaml" --db "$db" >/dev/null ||
	bad "682a3385 runs"
v=$(q "$db" "select group_concat(cast(value as int), ' ') from (select value from v_metrics
	where name = 'total-odr0-1' order by run_id)")
echo "682a3385: total-odr0-1 v3 04, 682a3385, v3 04 + inline-zonelist-iterator: $v"
set -- $v
[ "$3" -lt "$1" ] && [ "$3" -ne "$2" ] && ok ||
	bad "682a3385: the layout part should gain part of the commit's cycles ($v)"

# --- two files in order; a name the run does not have --------------------------
"$NUMASIM" run -q "$tmp/t.yaml" --set kernel.commit=b9f00e147f27 \
	--set "kernel.change=[$CH/inline-zone-statistics.yaml, $CH/inline-pfnblock.yaml]" \
	--db "$tmp/two.db" >/dev/null 2>"$tmp/err" || { bad "two files"; cat "$tmp/err"; }
check "two files param" "$(q "$tmp/two.db" "select value from params where key = 'kernel.change'" |
	sed 's/@[0-9a-f]*//g')" "inline-zone-statistics+inline-pfnblock"
printf 'change: series\noperations:\n  - site: A48p\n    hint: none\n' >"$tmp/series.yaml"
run_err_like "series site on 682a3385" \
	"series.yaml:3:11: error: 'A48p' is not in this scenario's run: it is a site, function or block of the 2016 series' code" \
	run "$tmp/t.yaml" --set kernel.commit=682a3385e773 --set "kernel.change=$tmp/series.yaml" --db "$tmp/x.db"
[ -e "$tmp/x.db" ] && bad "series site: a database was written" || ok
"$NUMASIM" validate "$tmp/t.yaml" --set kernel.commit=4fcb0971175f --set "kernel.change=$tmp/series.yaml" \
	>/dev/null 2>&1 && ok || bad "a series site refused under a series commit"
run_err_like "missing file" "t.yaml:.*cannot read change file\|no-such.yaml" \
	validate "$tmp/t.yaml" --set "kernel.change=$tmp/no-such.yaml"

# --- every kind of operation takes effect, the same under exact and memo ------
printf 'change: flip\noperations:\n  - site: A36a\n    fall-through: false\n' >"$tmp/flip.yaml"
printf 'change: work\noperations:\n  - block: buffered_pcp\n    uops: 8\n    dep-loads: 2\n    stores: 1\n' >"$tmp/work.yaml"
printf 'change: key\noperations:\n  - block: alloc_nodemask\n    static-key: off\n' >"$tmp/key.yaml"
printf 'change: ool\noperations:\n  - out-of-line: buffered_rmqueue\n' >"$tmp/ool.yaml"
for acc in exact memo; do
	db=$tmp/ops-$acc.db
	"$NUMASIM" run -q "$tmp/t.yaml" --set cost.model=inorder --set cost.accounting=$acc \
		--set kernel.commit=v4.6-rc2 --db "$db" >/dev/null || bad "ops base $acc"
	for c in flip work key ool; do
		"$NUMASIM" run -q "$tmp/t.yaml" --set cost.model=inorder --set cost.accounting=$acc \
			--set kernel.commit=v4.6-rc2 --set "kernel.change=$tmp/$c.yaml" --db "$db" \
			>/dev/null 2>"$tmp/err" || { bad "ops $c $acc"; cat "$tmp/err"; }
	done
	for r in 2 3 4 5; do
		[ "$(metrics "$db" 1)" != "$(metrics "$db" $r)" ] && ok ||
			bad "ops $acc: the change of run $r changed nothing"
	done
	q "$db" "select run_id, name, value from v_metrics where name like '%odr0%' order by 1, 2" >"$tmp/ops-$acc.txt"
done
cmp -s "$tmp/ops-exact.txt" "$tmp/ops-memo.txt" && ok || bad "ops: memo accounting differs from exact"
check "work: 2 loads and a store more per buffered_rmqueue" \
	"$(q "$tmp/ops-exact.db" "select (select value from counter_values where run_id = 3 and scope = 'cpu' and name = 'mem_accesses') -
		(select value from counter_values where run_id = 1 and scope = 'cpu' and name = 'mem_accesses')")" \
	"$(q "$tmp/ops-exact.db" "select cast(3 * (select value from v_metrics where run_id = 1 and name = 'allocs') as int)")"

# --- a removed site (`fixed:`): not charged, the fixed side followed, the ----
# model's disagreements counted; no such counter without one.  A42a
# (zone_statistics: unlikely(flags & __GFP_OTHER_NODE)) fixed false: the
# test gone and nothing else; A45i (prep_new_page: gfp_flags & __GFP_ZERO)
# fixed true: every page cleared although no allocation asked for it
printf 'change: nogfp\noperations:\n  - site: A42a\n    fixed: false\n' >"$tmp/fixf.yaml"
printf 'change: zero\noperations:\n  - site: A45i\n    fixed: true\n' >"$tmp/fixt.yaml"
for acc in exact memo sampled; do
	db=$tmp/fix-$acc.db
	for c in none "$tmp/fixf.yaml" "$tmp/fixt.yaml"; do
		"$NUMASIM" run -q "$tmp/t.yaml" --set cost.model=inorder --set cost.accounting=$acc \
			--set kernel.commit=v4.6-rc2 --set "kernel.change=$c" --db "$db" >/dev/null 2>"$tmp/err" ||
			{ bad "fixed $c $acc"; cat "$tmp/err"; }
	done
	dis() { q "$db" "select coalesce(sum(value), -1) from counter_values where run_id = $1 and scope = 'system' and name = 'removed_site_disagree.$2'"; }
	br() { q "$db" "select count(*) from branches where run_id = $1 and site = '$2'"; }
	tot() { q "$db" "select value from v_metrics where run_id = $1 and name = 'alloc-odr0-1'"; }
	check "fixed $acc: no counter without a removed site" \
		"$(q "$db" "select count(*) from counter_values where run_id = 1 and name like 'removed_site%'")" "0"
	check "fixed $acc: charged without the change" "$(br 1 A42a)$(br 1 A45i)" "11"
	check "fixed $acc: not charged when removed" "$(br 2 A42a)$(br 3 A45i)" "00"
	check "fixed false $acc: the model's condition never true" "$(dis 2 A42a)" "0"
	check "fixed true $acc: every allocation disagreed" "$(dis 3 A45i)" \
		"$(q "$db" "select sum(executed) from branches where run_id = 1 and site = 'A45i'")"
	awk -v a="$(tot 1)" -v b="$(tot 2)" -v z="$(tot 3)" 'BEGIN { exit !(b < a && z > 2 * a) }' && ok ||
		bad "fixed $acc: alloc-odr0-1 $(tot 1), without the test $(tot 2) (less), clearing $(tot 3) (more)"
done
check "fixed: exact and memo the same" \
	"$(q "$tmp/fix-exact.db" "select group_concat(value) from v_metrics where name like '%odr0%'")" \
	"$(q "$tmp/fix-memo.db" "select group_concat(value) from v_metrics where name like '%odr0%'")"

finish
