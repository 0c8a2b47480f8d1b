#!/usr/bin/env bash
# One exit policy across commands (issue 18, item 7; docs/reference/exit-status.md):
# per command, --help exits 0, an unknown option 2, a missing input file 2,
# and standard output that cannot be written (/dev/full) 1 with "writing
# standard output" on stderr; run stopped by SIGINT exits 130 (with the
# committed runs kept, tests/cli/run.sh has the details).
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

P=$tmp/p.db
PLAN=$SRC/tests/scenarios/fault-3runs.yaml
M=$SRC/configs/client-1node.yaml
"$NUMASIM" run -q "$PLAN" --db "$P" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; bad "run"; }
# status WANT LABEL CMD...: the exit status of CMD (stdout to $tmp/o)
status() {
	local want=$1 label=$2
	shift 2
	"$@" >"$tmp/o" 2>"$tmp/e"
	local st=$?
	if [ $st = "$want" ]; then ok; else bad "$label: exit $st, want $want: $(head -c 200 "$tmp/e")"; fi
}
# full LABEL CMD...: stdout on /dev/full -> 1 and the message
full() {
	local label=$1
	shift
	"$@" >/dev/full 2>"$tmp/e"
	local st=$?
	if [ $st = 1 ] && grep -q "writing standard output" "$tmp/e"; then ok; else
		bad "$label >/dev/full: exit $st: $(head -c 200 "$tmp/e")"; fi
}
# per command: the arguments of a good call and of a call naming a missing file
declare -A good missing
good[validate]="$M"
missing[validate]="$tmp/none.yaml"
good[topology]="$M"
missing[topology]="$tmp/none.yaml"
good[import]="numactl $SRC/tests/fixtures/numactl/single-node-8cpu.txt"
missing[import]="numactl $tmp/none.txt"
good[trace]="$PLAN --events page_alloc --limit 5"
missing[trace]="$tmp/none.yaml --events page_alloc"
good[run]="-q $PLAN --db $tmp/r.db"
missing[run]="$tmp/none.yaml --db $tmp/r2.db"
good[report]="$P"
missing[report]="$tmp/none.db"
good[compare]="$P --metric alloc-odr0-1"
missing[compare]="$tmp/none.db --metric alloc-odr0-1"
good[query]="$P SELECT\\ run_id\\ FROM\\ runs"
missing[query]="$tmp/none.db SELECT\\ 1"
good[export]="$P --format csv --table runs"
missing[export]="$tmp/none.db --format csv"
good[plot]="$P --metric alloc-odr0-\\* --data -"
missing[plot]="$tmp/none.db --metric alloc-odr0-\\* --data -"
good[annotate]="$P --run 1 get_page_from_freelist"
missing[annotate]="$tmp/none.db get_page_from_freelist"
good[diff]="$P --run 1 --run 2"
missing[diff]="$tmp/none.db"
for c in validate topology import trace run report compare query export plot annotate diff; do
	eval "g=(${good[$c]})"
	eval "m=(${missing[$c]})"
	status 0 "$c --help" "$NUMASIM" "$c" --help
	status 2 "$c --frobnicate" "$NUMASIM" "$c" --frobnicate
	status 0 "$c (good)" "$NUMASIM" "$c" "${g[@]}"
	status 2 "$c (missing file)" "$NUMASIM" "$c" "${m[@]}"
	if [ ! -s "$tmp/o" ]; then ok; else bad "$c (missing file) printed on stdout"; fi
	rm -f "$tmp/r.db"*
	full "$c" "$NUMASIM" "$c" "${g[@]}"
done
status 0 "list --help" "$NUMASIM" list --help
status 0 "list machines" "$NUMASIM" list machines
status 2 "list (unknown kind)" "$NUMASIM" list frobnicate
status 2 "list --frobnicate" "$NUMASIM" list machines --frobnicate
full "list" "$NUMASIM" list machines
status 0 "bench --help" "$NUMASIM" bench --help
status 2 "bench (unknown)" "$NUMASIM" bench frobnicate
status 2 "no command" "$NUMASIM"
status 2 "unknown command" "$NUMASIM" frobnicate
full "--help" "$NUMASIM" --help
full "version" "$NUMASIM" version
# run interrupted: 130 (sweep-small takes long enough to be caught)
"$NUMASIM" run -q "$SRC/tests/scenarios/sweep-small.yaml" --db "$tmp/int.db" >/dev/null 2>&1 &
pid=$!
sleep 1
kill -INT $pid 2>/dev/null
wait $pid
st=$?
if [ $st = 130 ] || [ $st = 0 ]; then ok; else bad "run interrupted: exit $st, want 130"; fi
finish
