#!/usr/bin/env bash
# The main job: install what is missing, build an optimised numasim
# (link-time and profile-guided optimisation) and
# reproduce both seeds on shipped machines:
#  1. 682a3385 (the inlined zonelist iterator): mmtests' pagealloc table on
#     the 2016 2-socket machine, runs appended to results/seed-zonelist.db;
#  2. c270cf30 (likely(was_frozen) first in __slab_free): perf bench sched
#     messaging, 10 runs per layout, on the Skylake 2-socket machine, runs
#     appended to results/seed-slub.db, with the Welch t-test.
# Every table printed comes from those databases; each database also gets
# its HTML report (results/seed-zonelist.html, results/seed-slub.html).
set -eu
cd "$(dirname "$0")/.."
bash scripts/deps.sh
# optimised and trained on the benches (scripts/build-pgo.sh: about 1.3x
# faster than a plain release build, the same results)
bash scripts/build-pgo.sh build
mkdir -p results
echo "== numasim version (the build the figures below came from)"
build/numasim version
echo
db=results/seed-zonelist.db
echo "== numasim topology configs/seed-2016-2s.yaml"
build/numasim topology configs/seed-2016-2s.yaml
echo
echo "== numasim run scenarios/seed-zonelist.yaml --db $db --jobs 2"
build/numasim run scenarios/seed-zonelist.yaml --db "$db" --jobs 2
echo
last=$(sqlite3 "$db" 'SELECT max(run_id) FROM runs')
echo "== numasim report $db --run $last --top 12 (the last run: 682a3385)"
build/numasim report "$db" --run "$last" --top 12
echo
db2=results/seed-slub.db
echo "== numasim run scenarios/seed-slub.yaml --db $db2 --jobs 2"
build/numasim run scenarios/seed-slub.yaml --db "$db2" --jobs 2
echo
# The HTML report of each database (docs/guide/plots.md "--format html"): one
# self-contained page per database, next to it.
for d in "$db" "$db2"; do
	build/numasim report "$d" --format html -o "${d%.db}.html"
	echo "== numasim report $d --format html -o ${d%.db}.html (written)"
done
# man pages and completion for the user's shell: how to use them
# (NUMASIM_INSTALL=1: meson install first)
bash scripts/shell-setup.sh build ${NUMASIM_INSTALL:+--install}
