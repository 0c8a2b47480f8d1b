#!/usr/bin/env bash
# Issue 51, finding 6: no input can hang a command or take the host's memory.
#   - readers have a time limit (SQLite progress handler): `query
#     --timeout S` stops an endless recursive CTE with exit 1 naming the
#     limit; a database whose view was redefined as an endless CTE is
#     refused by `report` at once (the reader's schema check, exit 2)
#     instead of hanging;
#   - a value longer than the readers' length limit, and a row whose
#     values together pass the readers' heap limit (1 GiB), are an exit 1
#     naming the limit; printf('%999999999d', 1) no longer allocates
#     gigabytes;
#   - `import sysfs` opens with O_NONBLOCK and refuses what is not a
#     regular file: a FIFO in the tree (it blocked forever) and a
#     directory where a file should be (exit 1 before), both exit 2;
#   - `trace` streams its records (the first ones come at once; before,
#     nothing until the whole plan was simulated, all of it in memory), and
#     a full disk (a 64 KiB tmpfs, when the test may mount one) under -o FILE is exit 1 with
#     FILE unchanged and no temporary file left;
#   - a plan of more than plan_limits.runs (50,000) runs, or whose estimated
#     memory passes plan_limits.memory_mib, is refused until --yes (or the
#     key raised), its size said.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SHIM=${FAULTSHIM:?FAULTSHIM must name tests/faultshim.so}
TINY=$SRC/tests/scenarios/tiny-pagealloc.yaml
SWEEP=$SRC/tests/scenarios/sweep-small.yaml
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}:verify_asan_link_order=0
P=$tmp/p.db
"$NUMASIM" run -q "$TINY" --db "$P" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; bad "run"; }

# expect NAME STATUS GREP SECONDS CMD...: exit STATUS within SECONDS, stderr matching GREP
expect() {
	local name=$1 want=$2 pat=$3 secs=$4
	shift 4
	timeout "$secs" "$@" >"$tmp/o" 2>"$tmp/e"
	local st=$?
	if [ $st = "$want" ]; then ok; else bad "$name: exit $st, want $want: $(head -c 300 "$tmp/e")"; fi
	if [ -z "$pat" ] || grep -Eq -- "$pat" "$tmp/e"; then ok; else
		bad "$name: stderr '$(head -c 300 "$tmp/e")' does not match '$pat'"; fi
}

# --- time limits
expect "query --timeout 2, an endless CTE" 1 "time limit of 2 s reached" 60 \
	"$NUMASIM" query "$P" "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
	SELECT count(*) FROM c" --timeout 2
expect "query --timeout 0 is no limit" 0 "" 60 "$NUMASIM" query "$P" "SELECT 1" --timeout 0
expect "query --timeout -1" 2 "timeout" 60 "$NUMASIM" query "$P" "SELECT 1" --timeout -1
E=$tmp/endless.db
sqlite3 "$P" ".backup '$E'"
sqlite3 "$E" "DROP VIEW profile_report; CREATE VIEW profile_report AS
	WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
	SELECT 1 AS run_id, 'f' || x AS function, 0 AS inlined, 1 AS calls, 1 AS self_cycles,
	1.0 AS self_pct, 1 AS total_cycles, 1.0 AS cycles_per_call FROM c;"
expect "report, a view redefined as an endless CTE" 2 "view 'profile_report'" 30 \
	"$NUMASIM" report "$E" --format html -o "$tmp/e.html"

# --- length and memory
expect "a value longer than the length limit" 1 "longer than the limit of [0-9]+ bytes" 120 \
	"$NUMASIM" query "$P" "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c
	WHERE x < 300) SELECT length(group_concat(printf('%01000000d', x))) FROM c"
# five values of 230 MB in one row: each is under the length limit, together
# more than the readers' heap limit of 1 GiB
expect "a row over the heap limit" 1 "memory limit of 1024 MiB reached" 600 \
	"$NUMASIM" query "$P" "SELECT length(a) + length(b) + length(c) + length(d) + length(e)
	FROM (SELECT printf('%.*c', 230000000, 'a') AS a, printf('%.*c', 230000000, 'b') AS b,
	printf('%.*c', 230000000, 'c') AS c, printf('%.*c', 230000000, 'd') AS d,
	printf('%.*c', 230000000, 'e') AS e)"
if ! grep -qa '__asan_init' "$NUMASIM"; then
	# without the sanitizers (which reserve terabytes of address space)
	expect "printf('%999999999d', 1) in 400 MB" 0 "" 60 \
		bash -c 'ulimit -v 400000; exec "$0" query "$1" "SELECT printf('"'%999999999d'"', 1) IS NULL"' \
		"$NUMASIM" "$P"
fi

# --- import sysfs: a FIFO and a directory where files should be
S=$tmp/sysfs
cp -r "$SRC/tests/fixtures/sysfs/intel-2s-pmem-zoneinfo" "$S"
rm "$S/sys/devices/system/node/node0/distance"
mkfifo "$S/sys/devices/system/node/node0/distance"
expect "import sysfs, a FIFO in the tree" 2 "distance: error: not a regular file \(a FIFO\)" 20 \
	"$NUMASIM" import sysfs "$S" -o "$tmp/m.yaml"
rm "$S/sys/devices/system/node/node0/distance"
mkdir "$S/sys/devices/system/node/node0/distance"
expect "import sysfs, a directory where a file should be" 2 "not a regular file \(a directory\)" 20 \
	"$NUMASIM" import sysfs "$S" -o "$tmp/m.yaml"

# --- trace streams
start=$(date +%s)
timeout 120 "$NUMASIM" trace "$SWEEP" --events page_alloc,page_free \
	--set workload.inner_iterations=400 2>/dev/null | head -c 200 >"$tmp/head"
took=$(($(date +%s) - start))
grep -q '"event":"mm_page_alloc"' "$tmp/head" && ok || bad "trace: no record at the head: $(cat "$tmp/head")"
[ "$took" -le 8 ] && ok || bad "trace took $took s to give its first records (streams: well under 8 s)"
# a full disk: a 64 KiB tmpfs (root); stdio's writes do not go through
# the fault shim's write()
M=$tmp/full
mkdir -p "$M"
if mount -t tmpfs -o size=64k tmpfs "$M" 2>/dev/null; then
	echo previous >"$M/trace.out"
	timeout 120 "$NUMASIM" trace "$TINY" --events page_alloc -o "$M/trace.out" >/dev/null 2>"$tmp/err"
	check "trace -o on a full disk: exit" "$?" 1
	grep -q 'No space left on device' "$tmp/err" && ok || bad "trace full disk: $(cat "$tmp/err")"
	check "trace -o on a full disk: the file is unchanged" "$(cat "$M/trace.out")" previous
	check "trace -o on a full disk: no temporary file" "$(ls "$M" | grep -c 'trace.out.tmp')" 0
	umount "$M"
else
	echo "note: no tmpfs mount (not root): the full-disk check of trace -o is left out"
fi

# --- a plan that is too large to start without a word
expect "a 100,000-run plan without --yes" 2 "the plan has 100000 runs .*--yes" 30 \
	"$NUMASIM" run "$SWEEP" --set repetitions=10000 --db "$tmp/big.db"
[ -e "$tmp/big.db" ] && bad "the refused plan created its database" || ok
expect "--yes lets it through (to the next check)" 2 "cannot create" 30 \
	"$NUMASIM" run "$SWEEP" --set repetitions=10000 --yes --db "$tmp/no/such/dir/big.db"
expect "plan_limits.runs raised with --set lets it through (to the next check)" 2 "cannot create" 30 \
	"$NUMASIM" run "$SWEEP" --set repetitions=10000 --set plan_limits.runs=200000 \
	--db "$tmp/no/such/dir/big.db"
# the memory estimate: the largest world as set up, times the jobs at once
expect "a plan over plan_limits.memory_mib" 2 "the plan needs at least [0-9]+ MiB .*plan_limits.memory_mib = 1: add --yes" 60 \
	"$NUMASIM" run "$TINY" --set plan_limits.memory_mib=1 --db "$tmp/mem.db"
[ -e "$tmp/mem.db" ] && bad "the plan refused for memory created its database" || ok
expect "plan_limits.memory_mib = 1 with --yes runs" 0 "" 120 \
	"$NUMASIM" run "$TINY" --set plan_limits.memory_mib=1 --yes --db "$tmp/mem.db"
expect "plan_limits cannot be swept" 2 "plan_limits cannot be swept" 30 \
	"$NUMASIM" run "$TINY" --sweep plan_limits.runs=1,2 --db "$tmp/sw.db"
finish
