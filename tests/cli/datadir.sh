#!/usr/bin/env bash
# CLI test of issue "What a new user trips over", item 10: shipped
# machines, cost profiles and scenarios are found from any directory.
# `meson install --destdir` puts the binary and the data (configs/,
# scenarios/*.yaml) into $tmp; from a directory with no numasim files the
# installed binary resolves bare names ("rome-nps4", "seed-zonelist",
# "zen2") and relative paths that do not exist there ("configs/x.yaml")
# in its installed data directory; the build's binary finds the same
# names in the source tree; an explicit path that exists wins.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
BUILD=$(dirname "$NUMASIM")
FX=$SRC/tests/fixtures/numactl

if ! meson install -C "$BUILD" --destdir "$tmp/dest" --no-rebuild --quiet \
	>"$tmp/install.log" 2>&1; then
	bad "meson install: $(tail -n 3 "$tmp/install.log")"
fi
inst=$(find "$tmp/dest" -path '*/bin/numasim' -type f | head -n 1)
data=$(find "$tmp/dest" -path '*/share/numasim' -type d | head -n 1)
[ -n "$inst" ] && ok || bad "no bin/numasim in the install tree"
[ -n "$data" ] && ok || bad "no share/numasim in the install tree"
# every shipped machine, profile and scenario is installed
for f in "$SRC"/configs/*.yaml "$SRC"/configs/costs/*.yaml "$SRC"/scenarios/*.yaml; do
	rel=${f#"$SRC"/}
	[ -n "$data" ] && cmp -s "$f" "$data/$rel" && ok || bad "not installed: $rel"
done
[ -n "$inst" ] || inst=$NUMASIM
[ -n "$data" ] || data=$tmp/none

mkdir -p "$tmp/elsewhere"
cd "$tmp/elsewhere" || exit 1

# expect_ok NAME GREP-REGEX CMD...: exit 0 and stdout matches
expect_ok() {
	local name=$1 re=$2; shift 2
	if "$@" >"$tmp/out" 2>"$tmp/err" && grep -Eq -- "$re" "$tmp/out"; then ok
	else bad "$name: $(head -c 400 "$tmp/err") $(head -c 200 "$tmp/out")"; fi
}

# the installed binary reads its installed data
expect_ok "installed validate rome-nps4" "^$data/configs/rome-nps4.yaml: ok" \
	"$inst" validate rome-nps4
expect_ok "installed validate seed-zonelist" "^$data/scenarios/seed-zonelist.yaml: ok .scenario seed-zonelist" \
	"$inst" validate seed-zonelist
expect_ok "installed validate configs/rome-nps4.yaml" "^$data/configs/rome-nps4.yaml: ok" \
	"$inst" validate configs/rome-nps4.yaml
expect_ok "installed topology rome-nps4" '^available: 8 nodes' "$inst" topology rome-nps4
expect_ok "installed bench pagealloc" 'machine seed-2016-2s' "$inst" bench pagealloc --pairs 2000
expect_ok "installed bench slub --machine" 'skylake-2s|machine' \
	"$inst" bench slub --machine skylake-2s --pairs 2000
expect_ok "installed import --costs zen2" "cost profile zen2 \(configs/costs/zen2.yaml\)" \
	"$inst" import numactl "$FX/single-node-8cpu.txt" --costs zen2
expect_ok "installed import --list-costs" "\($data/configs/costs/zen2.yaml\)" "$inst" import --list-costs

# the build's binary: the source tree (README's commands from any directory)
expect_ok "bench pagealloc from elsewhere" 'machine seed-2016-2s' "$NUMASIM" bench pagealloc --pairs 2000
expect_ok "bench messaging --machine name" 'Total time' \
	"$NUMASIM" bench messaging --machine seed-2016-2s --groups 1 --loops 2
expect_ok "topology configs/rome-nps4.yaml" '^available: 8 nodes' "$NUMASIM" topology configs/rome-nps4.yaml
expect_ok "run --machine rome-nps4" '^Run 1: adhoc|Min' \
	"$NUMASIM" run --machine rome-nps4 --workload pagealloc --db "$tmp/a.db"
expect_ok "run seed-zonelist --machine name" 'Min' \
	"$NUMASIM" run seed-zonelist --machine client-1node --set workload.inner_iterations=2 --set workload.outer_samples=3 \
	--set 'workload.batches=[1]' --db "$tmp/b.db"
expect_ok "run scenarios/seed-zonelist.yaml (its ../configs machine)" 'Min' \
	"$NUMASIM" run scenarios/seed-zonelist.yaml --set workload.inner_iterations=2 --set workload.outer_samples=3 \
	--set 'workload.batches=[1]' --db "$tmp/c.db"
expect_ok "sweep over machine names" 'machine .several., 4 points' \
	"$NUMASIM" validate seed-zonelist --sweep machine=rome-nps4,skylake-2s
expect_ok "trace seed-zonelist" '"event"' \
	"$NUMASIM" trace seed-zonelist --events page_alloc --limit 1 \
	--set workload.inner_iterations=2 --set 'workload.batches=[1]' --set workload.outer_samples=3
# a scenario on stdin names ../configs/seed-2016-2s.yaml: found all the same
expect_ok "scenario from stdin" '^<stdin>: ok .scenario seed-zonelist: machine seed-2016-2s' \
	"$NUMASIM" validate - <"$SRC/scenarios/seed-zonelist.yaml"

# an explicit path that exists wins over the shipped file of that name
mkdir -p configs
sed 's/^name: .*/name: "local-copy"/' "$SRC/configs/rome-nps4.yaml" >configs/rome-nps4.yaml
expect_ok "existing path wins" 'machine local-copy' "$NUMASIM" validate configs/rome-nps4.yaml
rm -r configs

# a name found nowhere: exit 2, says where it looked, nothing on stdout
"$NUMASIM" topology rome-nps5 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] &&
	grep -q "^rome-nps5: error: cannot open: no such file, and no shipped machine file of that name in .*configs" "$tmp/err"
then ok; else bad "unknown name: exit $rc: $(cat "$tmp/err")"; fi

finish
