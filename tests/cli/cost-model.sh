#!/usr/bin/env bash
# CLI tests for cost.model, cost.bpred and cost.code (docs/cost-model.md,
# docs/compiled-counts.md): the tiny pagealloc scenario under each timing
# model and work layout against its golden table
# (NUMASIM_UPDATE_GOLDEN=1 rewrites them), `inorder` given explicitly is
# the default bit for bit, the params of a run name the model only when
# it was given, and bad values are refused with exit 2 and no output.
. "$(dirname "$0")/lib.sh"
TINY=$SRC/tests/scenarios/tiny-pagealloc.yaml
MSG=$SRC/tests/scenarios/tiny-messaging.yaml




# --- inorder: the default, bit for bit -----------------------------------------
"$NUMASIM" run "$TINY" --db "$tmp/in.db" --set cost.model=inorder >"$tmp/in.txt" 2>/dev/null
check "inorder exit" $? 0
golden "inorder" "$tmp/in.txt" "$SRC/tests/golden/tiny-pagealloc.txt"
check "inorder param" "$(sqlite3 "$tmp/in.db" "SELECT value FROM params WHERE run_id = 1 AND key = 'cost.model'")" inorder

# --- ooo ----------------------------------------------------------------------------
"$NUMASIM" run "$TINY" --db "$tmp/ooo.db" --set cost.model=ooo >"$tmp/ooo.txt" 2>/dev/null
check "ooo exit" $? 0
golden "ooo" "$tmp/ooo.txt" "$SRC/tests/golden/tiny-pagealloc-ooo.txt"
check "ooo param" "$(sqlite3 "$tmp/ooo.db" "SELECT value FROM params WHERE run_id = 1 AND key = 'cost.model'")" ooo
# the ooo counters are kept, and the predictor is TAGE unless told otherwise
uops=$(sqlite3 "$tmp/ooo.db" "SELECT sum(value) FROM counters WHERE run_id = 1 AND name = 'uops'")
[ "${uops:-0}" -gt 0 ] && ok || bad "ooo: no uops counted ($uops)"
inuops=$(sqlite3 "$tmp/in.db" "SELECT sum(value) FROM counters WHERE run_id = 1 AND name = 'uops'")
check "inorder uops" "$inuops" 0
# gshare under ooo: the same work, other mispredicts
"$NUMASIM" run "$TINY" --db "$tmp/g.db" --set cost.model=ooo --set cost.bpred=gshare >/dev/null 2>&1
check "ooo gshare exit" $? 0
check "bpred param" "$(sqlite3 "$tmp/g.db" "SELECT value FROM params WHERE run_id = 1 AND key = 'cost.bpred'")" gshare
q="SELECT sum(value) FROM counters WHERE run_id = 1 AND name = 'branches'"
check "same branches" "$(sqlite3 "$tmp/g.db" "$q")" "$(sqlite3 "$tmp/ooo.db" "$q")"
q="SELECT sum(value) FROM counters WHERE run_id = 1 AND name = 'branch_mispredict'"
[ "$(sqlite3 "$tmp/g.db" "$q")" != "$(sqlite3 "$tmp/ooo.db" "$q")" ] && ok || bad "gshare and tage mispredict alike"
# deterministic
"$NUMASIM" run "$TINY" --db "$tmp/ooo2.db" --set cost.model=ooo >"$tmp/ooo2.txt" 2>/dev/null
cmp -s "$tmp/ooo.txt" "$tmp/ooo2.txt" && ok || bad "ooo not deterministic"
# --- cost.code: the work layout (docs/compiled-counts.md) ------------------------
# ooo's default is the compiled layout (the golden above); the estimate layout
# under ooo is the ooo table of the release before cost.code, bit for bit
"$NUMASIM" run "$TINY" --db "$tmp/oe.db" --set cost.model=ooo --set cost.code=estimate >"$tmp/oe.txt" 2>/dev/null
check "ooo estimate exit" $? 0
golden "ooo estimate" "$tmp/oe.txt" "$SRC/tests/golden/tiny-pagealloc-ooo-estimate.txt"
check "code param" "$(sqlite3 "$tmp/oe.db" "SELECT value FROM params WHERE run_id = 1 AND key = 'cost.code'")" estimate
check "code param only when given" "$(sqlite3 "$tmp/ooo.db" "SELECT count(*) FROM params WHERE key = 'cost.code'")" 0
# inorder with the compiled layout: other cycles, the same work done
"$NUMASIM" run "$TINY" --db "$tmp/ic.db" --set cost.code=compiled >"$tmp/ic.txt" 2>/dev/null
check "inorder compiled exit" $? 0
cmp -s "$tmp/ic.txt" "$tmp/in.txt" && bad "inorder compiled: same table as estimate" || ok
for n in branches branches_taken calls mem_load_dep mem_load mem_store; do
	q="SELECT sum(value) FROM counters WHERE name = '$n'"
	check "same $n" "$(sqlite3 "$tmp/ic.db" "$q")" "$(sqlite3 "$tmp/in.db" "$q")"
done
# a messaging run under ooo (skylake-2s has the core figures)
"$NUMASIM" run "$MSG" --db "$tmp/msg.db" --set cost.model=ooo >/dev/null 2>"$tmp/msg.err"
check "ooo messaging exit" $? 0

# --- bad values -------------------------------------------------------------------
run_err "bad model" run "$TINY" --db "$tmp/x.db" --set cost.model=ooo2
grep -q "unknown cost.model 'ooo2' (expected inorder or ooo)" "$tmp/eerr" && ok || { bad "model message"; cat "$tmp/eerr"; }
run_err "bad bpred" run "$TINY" --db "$tmp/x.db" --set cost.bpred=perceptron
grep -q "unknown cost.bpred 'perceptron'" "$tmp/eerr" && ok || { bad "bpred message"; cat "$tmp/eerr"; }
run_err "bad code" run "$TINY" --db "$tmp/x.db" --set cost.code=gcc
grep -q "unknown cost.code 'gcc' (expected estimate or compiled)" "$tmp/eerr" && ok || { bad "code message"; cat "$tmp/eerr"; }
run_err "bad bench code" bench pagealloc --pairs 10 --cost-code gcc
run_err "bad key" run "$TINY" --db "$tmp/x.db" --set cost.width=4
grep -q "cost has no key 'width' (known: model, bpred, code)" "$tmp/eerr" && ok || { bad "key message"; cat "$tmp/eerr"; }
# a machine without the core figures (a test fixture: every shipped machine has them)
run_err "no core figures" run "$TINY" --db "$tmp/x.db" --set cost.model=ooo \
	--set machine="$SRC/tests/machines/two-node.yaml"
grep -q "cost.model ooo needs the core figure 'dispatch_width'" "$tmp/eerr" && ok || { bad "figures message"; cat "$tmp/eerr"; }
[ -e "$tmp/x.db" ] && bad "a refused run left a database" || ok
finish
