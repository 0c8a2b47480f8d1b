#!/usr/bin/env bash
# scripts/docs-figures-check.sh: shortened runs of the scenarios whose
# figures the README and docs/results/ quote, printed as one text.
# scripts/docs-figures.sh stores the text as docs/results/out/check.txt
# with the figures; tests/cli/doc-figures.sh runs this again and fails
# when the text differs: the binary no longer produces the stored
# figures (a model, a cost or an output changed), so they must be
# regenerated.  A few seconds: each run is a few batches or loops of the
# same scenario on the same machine, with the same kernels and settings.
#
#   NUMASIM=build/numasim bash scripts/docs-figures-check.sh
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NUMASIM=${NUMASIM:-$ROOT/build/numasim}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export NO_COLOR=1 COLUMNS=100

# show NAME ARGS...: run numasim ARGS into $W/NAME.db; print its compare
# table (the runs' metrics) and the profile of its last run
show() {
	local name=$1
	shift
	echo "== $name: numasim ${*//$ROOT\//}"
	"$NUMASIM" "$@" --db "$W/$name.db" -q >/dev/null
	"$NUMASIM" query "$W/$name.db" \
		"SELECT run_id, variant, name, value FROM v_metrics ORDER BY run_id, name" --format csv
	"$NUMASIM" query "$W/$name.db" \
		"SELECT run_id, function, calls, self_cycles, total_cycles FROM v_profile WHERE run_id = (SELECT max(run_id) FROM v_runs) ORDER BY total_cycles DESC, function LIMIT 12" --format csv
}

show seed-zonelist run "$ROOT/scenarios/seed-zonelist.yaml" \
	--set 'workload.batches=[1,64]' --set workload.inner_iterations=2 \
	--set workload.outer_samples=3 --set workload.drop_samples=1
show quickstart run seed-zonelist --machine rome-nps4 --set kernel.zonelist_iter=682a3385 \
	--sweep policy.cpuset=none,all --set 'workload.batches=[1,64]' \
	--set workload.inner_iterations=2 --set workload.outer_samples=3 --set workload.drop_samples=1
show cpuset run "$ROOT/scenarios/cpuset-vs-nocpuset.yaml" --sweep machine=seed-2016-2s,tr3960x-nps4 \
	--set 'workload.batches=[16]' --set workload.inner_iterations=2 \
	--set workload.outer_samples=3 --set workload.drop_samples=1
show seed-slub run "$ROOT/scenarios/seed-slub.yaml" --set workload.loops=2 --set repetitions=1
