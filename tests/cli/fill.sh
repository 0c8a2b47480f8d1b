#!/usr/bin/env bash
# CLI tests for the fill workload and the reclaim model through `numasim
# run`: the shipped zone-reclaim what-if validates; tests/scenarios/
# tiny-fill.yaml (node 0 80 % page cache, zone_reclaim_mode 0 and 1) prints
# its per-run summary, and numasim compare of its database the table of
# tests/golden/tiny-fill.txt (NUMASIM_UPDATE_GOLDEN=1 rewrites
# it), spills to node 1 with mode 0 and reclaims locally with mode 1, and
# gives the same rows with --jobs 1 and 2; a bind policy on the full node
# reclaims (kswapd and direct reclaim) instead of failing; anonymous memory
# without swap ends in counted OOMs, with swap it is swapped out; bad
# reclaim input is refused with exit status 2 and no database.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 not installed"; exit 77; }

check_true() {
	if [ "$2" = 1 ]; then ok; else bad "$1: condition false ($2)"; fi
}
# metric DB VARIANT NAME
metric() {
	q "$1" "SELECT CASE WHEN m.value = CAST(m.value AS INTEGER) THEN CAST(m.value AS INTEGER)
		ELSE m.value END FROM metrics m JOIN runs r USING (run_id)
		WHERE r.variant = '$2' AND m.name = '$3'"
}
# counter DB VARIANT SCOPE ID NAME
counter() {
	q "$1" "SELECT coalesce(sum(c.value), 0) FROM counters c JOIN runs r USING (run_id)
		WHERE r.variant = '$2' AND c.scope = '$3' AND c.scope_id = $4 AND c.name = '$5'"
}
run_err() {
	local name=$1; shift
	rm -f "$tmp/bad.db"
	"$NUMASIM" "$@" --db "$tmp/bad.db" >"$tmp/eout" 2>"$tmp/eerr"
	local rc=$?
	if [ $rc -ne 2 ]; then bad "$name: exit $rc, expected 2"; cat "$tmp/eerr"; return; fi
	if [ -s "$tmp/eout" ] || [ -e "$tmp/bad.db" ]; then bad "$name: partial output"; return; fi
	# file:line:col for the file's values, "numasim run: error: --set" for --set
	if ! grep -Eq "(:[0-9]+:[0-9]+: error: |^numasim run: error: --set )" "$tmp/eerr"; then
		bad "$name: no error message"; cat "$tmp/eerr"; return
	fi
	ok
}

cd "$SRC" || exit 1
TINY=tests/scenarios/tiny-fill.yaml
GOLDEN=tests/golden/tiny-fill.txt

"$NUMASIM" validate -q scenarios/zone-reclaim.yaml >"$tmp/v" 2>&1
check "validate zone-reclaim" "$?" 0

# --- mode 0 spills, mode 1 reclaims locally ---------------------------------------
db=$tmp/f.db
"$NUMASIM" run "$TINY" --db "$db" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "fill run exit" "$rc" 0
[ $rc -eq 0 ] || cat "$tmp/err"
check "fill runs" "$(q "$db" "SELECT count(*) FROM runs WHERE status = 'ok'")" 2
# run prints the per-run summary (analysis/fill_report.h; tests/cli/
# readable-output.sh); the table of every metric is numasim compare's
check "fill summary rows" "$(grep -c '^[12]  ' "$tmp/out")" 2
"$NUMASIM" compare "$db" --by variant >"$tmp/cmp" 2>"$tmp/err"
check "fill compare exit" "$?" 0
golden "fill table" "$tmp/cmp" "$GOLDEN"
m0=zone_reclaim_mode=0
m1=zone_reclaim_mode=1
check_true "mode 0 spills" "$(q "$db" "SELECT $(metric "$db" $m0 remote_share) > 0.3")"
check_true "mode 1 stays local" "$(q "$db" "SELECT $(metric "$db" $m1 remote_share) < 0.001")"
check "mode 0 no zone_reclaim" "$(counter "$db" $m0 zone "'0/Normal'" zone_reclaim)" 0
check_true "mode 1 zone_reclaim" "$(q "$db" "SELECT $(counter "$db" $m1 zone "'0/Normal'" zone_reclaim) > 0")"
check_true "mode 1 steals page cache" \
	"$(q "$db" "SELECT $(counter "$db" $m1 zone "'0/Normal'" pgsteal_direct_normal) > 0")"
check_true "mode 1 reclaim cycles" \
	"$(q "$db" "SELECT $(metric "$db" $m1 reclaim_cycles_per_alloc) > 0")"
check "same allocations" "$(metric "$db" $m0 allocs)" "$(metric "$db" $m1 allocs)"
check "no failures" "$(metric "$db" $m1 alloc_failed)" 0
check_true "LRU samples" "$(q "$db" "SELECT count(*) > 10 FROM samples WHERE metric = 'nr_inactive_file'")"
check_true "remote reads dearer" "$(q "$db" "SELECT $(metric "$db" $m0 access_cycles_remote) > $(metric "$db" $m0 access_cycles_local)")"

# determinism: --jobs 2, same metric and counter rows
db2=$tmp/f2.db
"$NUMASIM" run -q "$TINY" --db "$db2" --jobs 2 >/dev/null 2>"$tmp/err" || cat "$tmp/err"
rows() { q "$1" "SELECT r.variant, m.name, m.value FROM metrics m JOIN runs r USING (run_id) ORDER BY 1, 2;
	SELECT r.variant, c.scope, c.scope_id, c.name, c.value FROM counters c JOIN runs r USING (run_id) ORDER BY 1, 2, 3, 4"; }
if [ "$(rows "$db")" = "$(rows "$db2")" ]; then ok; else bad "jobs 1 and 2 differ"; fi

# --- bind to the full node: kswapd and direct reclaim, no failure --------------------
db3=$tmp/b.db
"$NUMASIM" run -q "$TINY" --db "$db3" --set kernel.zone_reclaim_mode=0 \
	--set policy.mempolicy=bind --set policy.nodes=0 >/dev/null 2>"$tmp/err"
check "bind run exit" "$?" 0
v=zone_reclaim_mode=0
check "bind remote" "$(metric "$db3" $v remote_pages)" 0
check "bind no failure" "$(metric "$db3" $v alloc_failed)" 0
check_true "bind kswapd ran" "$(q "$db3" "SELECT $(metric "$db3" $v kswapd_steps) > 0")"
check_true "bind kswapd stole" \
	"$(q "$db3" "SELECT $(counter "$db3" $v zone "'0/Normal'" pgsteal_kswapd_normal) > 0")"
check "bind no oom" "$(counter "$db3" $v node 0 oom)" 0

# --- anonymous memory without swap: OOM counted; with swap: swapped out -----------
db4=$tmp/o.db
"$NUMASIM" run -q "$TINY" --db "$db4" --set kernel.zone_reclaim_mode=0 \
	--set policy.mempolicy=bind --set policy.nodes=0 --set workload.anon=1 \
	--set 'workload.prefill={node: 0, file: 0}' --sweep kernel.swap=none,1GiB >/dev/null 2>"$tmp/err"
check "oom run exit" "$?" 0
o0=$(q "$db4" "SELECT c.value FROM counters c JOIN params p USING (run_id)
	WHERE p.key = 'kernel.swap' AND p.value = 'none' AND c.scope = 'node' AND c.scope_id = 0 AND c.name = 'oom'")
o1=$(q "$db4" "SELECT c.value FROM counters c JOIN params p USING (run_id)
	WHERE p.key = 'kernel.swap' AND p.value = '1GiB' AND c.scope = 'node' AND c.scope_id = 0 AND c.name = 'oom'")
check_true "oom without swap" "$(q "$db4" "SELECT ${o0:-0} > 0")"
check "no oom with swap" "${o1:-x}" 0
check_true "swapped out" "$(q "$db4" "SELECT sum(c.value) > 0 FROM counters c JOIN params p USING (run_id)
	WHERE p.key = 'kernel.swap' AND p.value = '1GiB' AND c.name = 'pswpout'")"

# --- bad input ------------------------------------------------------------------
run_err "zone_reclaim_mode 9" run "$TINY" --set kernel.zone_reclaim_mode=9
run_err "swap size" run "$TINY" --set kernel.swap=12XB
run_err "prefill node" run "$TINY" --set 'workload.prefill={node: 5, file: 0.5}'
run_err "pages range" run "$TINY" --set workload.pages=20
run_err "reclaim knob on pagealloc" run tests/scenarios/tiny-pagealloc.yaml \
	--set kernel.zone_reclaim_mode=1

finish
