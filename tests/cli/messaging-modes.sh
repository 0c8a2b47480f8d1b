#!/usr/bin/env bash
# perf bench sched messaging's -p (workload.mode: pipe) and -t
# (workload.threads: true) on tests/scenarios/tiny-messaging.yaml: each
# prints the table of its golden file (NUMASIM_UPDATE_GOLDEN=1 rewrites
# them), stores its parameters and (pipe) the pipe.* page counts, which
# add up; --jobs 1 and --jobs 2 store the same rows; placement v5.9 forks
# through fork balancing (sbf_* counters); bad values exit 2 with
# file:line:col and no database.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/rows.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 not installed"; exit 77; }

TINY=$SRC/tests/scenarios/tiny-messaging.yaml


# --- pipe mode ---------------------------------------------------------------
for j in 1 2; do
	"$NUMASIM" run "$TINY" --set workload.mode=pipe --set repetitions=2 \
		--db "$tmp/p$j.db" --jobs $j >"$tmp/p$j.out" 2>"$tmp/p$j.err"
	check "pipe --jobs $j exit" $? 0
done
golden "pipe" "$tmp/p1.out" "$SRC/tests/golden/tiny-messaging-pipe.txt"
same_rows "pipe: --jobs 2 vs --jobs 1" "$tmp/p1.db" "$tmp/p2.db"
check "pipe param" "$(q "$tmp/p1.db" "SELECT value FROM params WHERE run_id = 1 AND key = 'workload.mode'")" pipe
m() { q "$tmp/p1.db" "SELECT CAST(value AS INTEGER) FROM metrics WHERE run_id = 1 AND name = '$1'"; }
msgs=$(m messages)
check "pipe messages" "$msgs" $((2 * 20 * 20 * 20))
# every write merged or started a buffer; every buffer was released
check "merges + buffers = messages" $(( $(m pipe.merges) + $(m pipe.alloc_page) + $(m pipe.tmp_page_reuse) )) "$msgs"
check "keep + put = buffers" $(( $(m pipe.tmp_page_keep) + $(m pipe.put_page) )) \
	$(( $(m pipe.alloc_page) + $(m pipe.tmp_page_reuse) ))
# no slab object per message in pipe mode
check "pipe: no slab frees" "$(q "$tmp/p1.db" "SELECT sum(value) FROM counters WHERE run_id = 1 AND scope = 'cache' AND name IN ('free_fastpath', 'free_slowpath')")" 0
# the page allocator saw the pages: pgalloc grows by at least alloc_page
pg=$(q "$tmp/p1.db" "SELECT sum(value) FROM counters WHERE run_id = 1 AND name LIKE 'pgalloc_%'")
[ "${pg:-0}" -ge "$(m pipe.alloc_page)" ] && ok || bad "pgalloc $pg < alloc_page $(m pipe.alloc_page)"

# --- thread mode ---------------------------------------------------------------
"$NUMASIM" run "$TINY" --set workload.threads=true --set repetitions=2 \
	--db "$tmp/t.db" >"$tmp/t.out" 2>"$tmp/t.err"
check "threads exit" $? 0
golden "threads" "$tmp/t.out" "$SRC/tests/golden/tiny-messaging-threads.txt"
check "threads param" "$(q "$tmp/t.db" "SELECT value FROM params WHERE run_id = 1 AND key = 'workload.threads'")" true
# processes (the default) store no workload.threads row: their rows stay as before
"$NUMASIM" run "$TINY" --set repetitions=1 --db "$tmp/proc.db" -q >/dev/null 2>&1
check "processes: no threads row" "$(q "$tmp/proc.db" "SELECT count(*) FROM params WHERE key = 'workload.threads'")" 0
[ "$(q "$tmp/proc.db" "SELECT value FROM metrics WHERE run_id = 1 AND name = 'total_time_s'")" != \
  "$(q "$tmp/t.db" "SELECT value FROM metrics WHERE run_id = 1 AND name = 'total_time_s'")" ] &&
	ok || bad "threads changed nothing"

# --- fork balancing under v5.9 placement ------------------------------------------
"$NUMASIM" run "$TINY" --set sched.placement=v5.9 --set workload.threads=true \
	--set repetitions=1 --db "$tmp/f.db" -q >/dev/null 2>"$tmp/f.err"
check "v5.9 threads exit" $? 0
for n in NUMA.sbf_count MC.sbf_pushed; do
	[ "$(q "$tmp/f.db" "SELECT count(*) FROM counters WHERE scope = 'cpu' AND name = '$n'")" -gt 0 ] &&
		ok || bad "counter $n missing"
done

# --- bad values ------------------------------------------------------------------
bad_scn() { # NAME YAML-TAIL
	printf '%s\n' "name: b" "machine: $SRC/configs/skylake-2s.yaml" "workload:" \
		"  type: messaging" "  groups: 1" "  loops: 1" "$2" >"$tmp/b.yaml"
	"$NUMASIM" run "$tmp/b.yaml" --db "$tmp/bad.db" >"$tmp/eout" 2>"$tmp/eerr"
	local rc=$?
	if [ $rc -ne 2 ]; then bad "$1: exit $rc, expected 2"; cat "$tmp/eerr"; return; fi
	if [ -s "$tmp/eout" ] || [ -e "$tmp/bad.db" ]; then bad "$1: partial output"; return; fi
	grep -Eq "b.yaml:[0-9]+:[0-9]+: error: " "$tmp/eerr" && ok || { bad "$1: no file:line:col"; cat "$tmp/eerr"; }
}
bad_scn "mode pipes" "  mode: pipes"
bad_scn "threads maybe" "  threads: maybe"
bad_scn "pipe with inflight_limit" "  mode: pipe
  inflight_limit: 10"
"$NUMASIM" list keys | grep -qx workload.threads && ok || bad "list keys: no workload.threads"

finish
