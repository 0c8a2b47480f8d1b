#!/usr/bin/env bash
# CLI test of issue "What a new user trips over", item 11: a machine file,
# cost profile or scenario given to a command that takes another kind is
# refused with what the file is and which command takes it (at the key
# that tells the kinds apart), exit 2 and nothing written, instead of the
# loader's "unknown key".
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$SRC/configs/rome-nps4.yaml
S=$SRC/scenarios/seed-zonelist.yaml
C=$SRC/configs/costs/zen2.yaml
FX=$SRC/tests/fixtures/numactl

# wrong NAME STDERR-REGEX CMD...: exit 2, empty stdout, stderr matches
wrong() {
	local name=$1 re=$2; shift 2
	"$NUMASIM" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ $rc -ne 2 ]; then bad "$name: exit $rc, expected 2: $(cat "$tmp/err")"; return; fi
	if [ -s "$tmp/out" ]; then bad "$name: wrote to stdout"; return; fi
	if grep -Eq -- "$re" "$tmp/err"; then ok; else bad "$name: stderr '$(cat "$tmp/err")' !~ /$re/"; fi
}

wrong "run MACHINE" "rome-nps4.yaml:13:1: error: this is a machine file .it has 'nodes'., not a scenario: numasim run takes a scenario; .numasim topology .*rome-nps4.yaml. shows it, .numasim run --machine .*rome-nps4.yaml --workload" \
	run "$M" --db "$tmp/r.db"
[ ! -e "$tmp/r.db" ] && ok || bad "run MACHINE created the database"
wrong "trace MACHINE" "this is a machine file .*numasim trace takes a scenario" \
	trace "$M" --events page_alloc
wrong "run COSTS" "zen2.yaml:8:1: error: this is a cost profile .*not a scenario.*--costs" run "$C" --db "$tmp/r.db"
wl_line=$(grep -n '^workload:' "$S" | cut -d: -f1)
wrong "topology SCENARIO" "seed-zonelist.yaml:$wl_line:1: error: this is a scenario .it has 'workload'., not a machine file: numasim topology takes a machine file; .numasim run .*seed-zonelist.yaml. runs it" \
	topology "$S"
wrong "topology COSTS" "this is a cost profile .*numasim topology takes a machine file" topology "$C"
wrong "bench pagealloc --machine SCENARIO" "this is a scenario .*numasim bench pagealloc --machine takes a machine file" \
	bench pagealloc --machine "$S"
wrong "bench slub --machine COSTS" "this is a cost profile .*numasim bench slub --machine takes a machine file" \
	bench slub --machine "$C"
wrong "import --costs MACHINE" "this is a machine file .*numasim import --costs takes a cost profile" \
	import numactl "$FX/single-node-8cpu.txt" --costs "$M"
# the right kinds still work
"$NUMASIM" topology "$M" >/dev/null 2>&1 && ok || bad "topology MACHINE"
"$NUMASIM" validate -q "$M" "$S" "$C" && ok || bad "validate all three kinds"

finish
