#!/usr/bin/env bash
# CLI tests of numasim annotate (issue 49, item 8): it charges each site
# what the run's timing model charged (cost.model of the run: inorder's
# branch + taken + mispredict figures; ooo's dispatch slot, taken-branch
# bubble and resolve + refill per mispredict), says which model, and shows
# each site's kernel file and condition; "other" is what is left of the
# function's self core cycles after its sites and the page allocator's
# blocks that end at them (each named, with its executions: its exit
# site's, and the core cycles of its straight-line code as the run's model
# charged them).
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 not installed"; exit 77; }
cd "$SRC" || exit 1

# the machine's figures (configs/seed-2016-2s.yaml)
fig() { sed -n "s/^  $1: {value: \([0-9.]*\),.*/\1/p" configs/seed-2016-2s.yaml; }
br=$(fig branch) tk=$(fig taken_branch) mp=$(fig mispredict) wd=$(fig dispatch_width)
[ -n "$br" ] && [ -n "$tk" ] && [ -n "$mp" ] && [ -n "$wd" ] && ok || bad "machine figures: '$br' '$tk' '$mp' '$wd'"

# sitecycles FILE SITE: the core cycles column of SITE's row
sitecycles() { awk -v s="$2" '$1 == s { print $7 }' "$1"; }
# counts DB RUN SITE: executed taken mispredicted
counts() { q "$1" "SELECT executed, taken, mispredicted FROM branches WHERE run_id = $2 AND site = '$3'" | tr '|' ' '; }

# --- in-order run: branch + taken + mispredict per site, exactly -----------------------
db=$tmp/in.db
"$NUMASIM" run tests/scenarios/tiny-pagealloc.yaml --db "$db" --inner 2 -q --set cost.model=inorder >/dev/null 2>"$tmp/err"
check "inorder run exit" "$?" 0
"$NUMASIM" annotate "$db" --run 2 get_page_from_freelist >"$tmp/a1" 2>"$tmp/err"
check "annotate exit" "$?" 0
grep -q "^Timing model of the run: inorder (cost.model), machine seed-2016-2s: $br per branch, +$tk taken, +$mp mispredicted (core cycles)$" "$tmp/a1" &&
	ok || bad "inorder model line"
for site in A24a A27 A31; do
	read -r e t m <<<"$(counts "$db" 2 $site)"
	check "inorder $site" "$(sitecycles "$tmp/a1" $site)" "$((e * br + t * tk + m * mp))"
done
# block gpfl_zone (no declared accesses) ends at A24a: ceil(uops / 2) per execution
read -r bn be bc bp bu rest <<<"$(awk '$1 == "gpfl_zone"' "$tmp/a1")"
check "inorder block row" "$bn $be ${rest}" "gpfl_zone $(counts "$db" 2 A24a | cut -d' ' -f1) uops, ends at A24a (mm/page_alloc.c)"
check "inorder block cycles" "$bc" "$((be * ((bu + 1) / 2)))"

# --- out-of-order run (the default model): the interval model's charges ---------------------
db=$tmp/ooo.db
"$NUMASIM" run tests/scenarios/tiny-pagealloc.yaml --db "$db" --inner 2 -q --set cost.model=ooo >/dev/null 2>"$tmp/err"
check "ooo run exit" "$?" 0
check "ooo stored" "$(q "$db" "SELECT DISTINCT value FROM params WHERE key = 'cost.model'")" ooo
"$NUMASIM" annotate "$db" --run 2 get_page_from_freelist >"$tmp/a2" 2>"$tmp/err"
check "ooo annotate exit" "$?" 0
grep -q "^Timing model of the run: ooo (cost.model), machine seed-2016-2s: a branch is 1/$wd core cycle of dispatch, +$tk a predicted taken one, +1+$mp a mispredicted one" "$tmp/a2" &&
	ok || bad "ooo model line"
for site in A24a A27 A31; do
	read -r e t m <<<"$(counts "$db" 2 $site)"
	want=$(awk -v e="$e" -v t="$t" -v m="$m" -v w="$wd" -v tk="$tk" -v mp="$mp" \
		'BEGIN { tt = t > m ? t - m : 0; printf "%.0f", e / w + tt * tk + m * (1 + mp) }')
	check "ooo $site" "$(sitecycles "$tmp/a2" $site)" "$want"
done
read -r bn be bc bp bu rest <<<"$(awk '$1 == "gpfl_zone"' "$tmp/a2")"
check "ooo block executions" "$be" "$(counts "$db" 2 A24a | cut -d' ' -f1)"
check "ooo block cycles" "$bc" "$(awk -v e="$be" -v u="$bu" -v w="$wd" 'BEGIN { printf "%.0f", e * u / w }')"
grep -q '^block  *executed  *core cycles  *per call  straight-line code charged as one unit$' "$tmp/a2" && ok || bad "block heading"
# the two models charge differently: annotate does not recompute with another
[ "$(sitecycles "$tmp/a1" A24a)" != "$(sitecycles "$tmp/a2" A24a)" ] && ok || bad "ooo and inorder charge A24a alike"
# other = self - the sites' cycles - the blocks'
self=$(q "$db" "SELECT self_cycles FROM profile WHERE run_id = 2 AND function = 'get_page_from_freelist'")
sites=$(awk '/  mm\/page_alloc\.c(:[0-9]+)?: / { s += $7 } END { print s }' "$tmp/a2")
blocks=$(awk '/ uops.*, ends at / { s += $3 } END { print s }' "$tmp/a2")
other=$(awk '$1 == "other" { print $2 }' "$tmp/a2")
d=$(awk -v a="$self" -v b="$sites" -v k="$blocks" -v c="$other" 'BEGIN { x = a - b - k - c; print (x < 0 ? -x : x) <= 20 }')
check "other is the rest" "$d" 1
[ "${blocks:-0}" -gt 0 ] && ok || bad "no block cycles"
grep -q '^other .* the rest of the self cycles: memory and the waits for it, calls, blocks ending elsewhere, inlined callees$' "$tmp/a2" &&
	ok || bad "other's line names what it holds"

# --- the condition and kernel file per site ---------------------------------------------------
grep -q '^A24a .*  mm/page_alloc\.c: get_page_from_freelist: cpusets_enabled() (static key)$' "$tmp/a2" &&
	ok || bad "A24a condition"
grep -q '^Kernel source: mm/page_alloc\.c, get_page_from_freelist(), kernel model ' "$tmp/a2" && ok || bad "kernel source line"

# --- run --charges: the self cycles split by charge kind, recorded -------------------------
# Each function's rows of profile_charges sum to its profile self cycles;
# annotate lists them and its "other" (cycles no charging step booked)
# stays under 20 % of self; the rows the run stores are the same with and
# without --charges (memo accounting then runs exact: the same results).
for model in ooo inorder; do
	db=$tmp/charges-$model.db
	"$NUMASIM" run tests/scenarios/tiny-pagealloc.yaml --db "$db" --inner 2 -q --charges \
		--set cost.model=$model >/dev/null 2>"$tmp/err"
	check "$model --charges run exit" "$?" 0
	nofn=$(q "$db" "SELECT count(*) FROM profile p LEFT JOIN (SELECT run_id, function,
		sum(cycles) AS s FROM profile_charges GROUP BY 1, 2) c USING (run_id, function)
		WHERE p.self_cycles <> coalesce(c.s, 0)")
	check "$model charges sum to self for every function" "$nofn" 0
	[ "$(q "$db" "SELECT count(*) FROM profile_charges")" -gt 0 ] && ok || bad "$model: no charges stored"
	plain=$tmp/plain-$model.db
	"$NUMASIM" run tests/scenarios/tiny-pagealloc.yaml --db "$plain" --inner 2 -q \
		--set cost.model=$model >/dev/null 2>"$tmp/err"
	for t in profile metrics counters branches; do
		check "$model $t unchanged by --charges" \
			"$(q "$db" "SELECT * FROM $t ORDER BY 1, 2, 3" | md5sum)" \
			"$(q "$plain" "SELECT * FROM $t ORDER BY 1, 2, 3" | md5sum)"
	done
	"$NUMASIM" annotate "$db" --run 2 get_page_from_freelist >"$tmp/c-$model" 2>"$tmp/err"
	check "$model annotate --charges exit" "$?" 0
	self=$(q "$db" "SELECT self_cycles FROM profile WHERE run_id = 2 AND function = 'get_page_from_freelist'")
	# the charges table: rows branch .. other, 6 of them, summing to self
	sed -n '/^charge  *core cycles/,$p' "$tmp/c-$model" | tail -n +2 >"$tmp/k-$model"
	check "$model charge rows" "$(awk '{ printf "%s ", $1 }' "$tmp/k-$model")" "branch work mem call lock other "
	check "$model charge rows sum to self" "$(awk '{ s += $2 } END { print s }' "$tmp/k-$model")" "$self"
	other=$(awk '$1 == "other" { print $2 }' "$tmp/k-$model")
	small=$(awk -v o="$other" -v s="$self" 'BEGIN { print (s > 0 && o < 0.2 * s) }')
	check "$model other under 20 % of self ($other of $self)" "$small" 1
	# the site table's remainder rows: sites + blocks + the rests + mem,
	# call, lock, other = self (each rounded: within 20 cycles)
	sum=$(awk '/  mm\/page_alloc\.c(:[0-9]+)?: / { s += $7 } / uops.*, ends at / { s += $3 }
		/^(branch-rest|work-rest|mem|call|lock|other) / && !done { s += $2 }
		/^Self cycles by charge/ { done = 1 } END { printf "%.0f", s }' "$tmp/c-$model")
	d=$(awk -v a="$self" -v b="$sum" 'BEGIN { x = a - b; print (x < 0 ? -x : x) <= 20 }')
	check "$model site table accounts for self ($sum of $self)" "$d" 1
done
grep -q '^(run with --charges to split the self cycles by charge' "$tmp/a2" && ok || bad "the --charges hint"
run_err_like "--charges under sampled" "needs cost.accounting exact or memo" \
	run tests/scenarios/tiny-pagealloc.yaml --db "$tmp/s.db" --inner 2 -q --charges \
	--set cost.accounting=sampled
finish
