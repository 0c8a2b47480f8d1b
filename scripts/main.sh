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
# The package manager's and the compiler's output go to results/deps.log
# and results/build.log (shown when a step fails); the job ends with where
# to look (scripts/main-where.sh).
set -eu
cd "$(dirname "$0")/.."
mkdir -p results
# step NAME LOG CMD...: one progress line, the command's output to LOG,
# its last lines and exit status when it fails
step() {
	local name=$1 log=$2 t0=$SECONDS
	shift 2
	echo "== $name (output: $log)"
	if ! "$@" >"$log" 2>&1; then
		echo "main.sh: $name failed; the end of $log:" >&2
		tail -n 20 "$log" >&2
		exit 1
	fi
	echo "   done in $((SECONDS - t0)) s"
}
step "installing what is missing (apt-get)" results/deps.log bash scripts/deps.sh
# optimised and trained on the benches (scripts/build-pgo.sh: about 1.3x
# faster than a plain release build, the same results); its progress
# lines go to the terminal, meson's messages to the log
echo "== building an optimised numasim (scripts/build-pgo.sh; messages: results/build.log)"
bash scripts/build-pgo.sh build 2>results/build.log || {
	echo "main.sh: the build failed; the end of results/build.log:" >&2
	tail -n 20 results/build.log >&2
	exit 1
}
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
echo
bash scripts/main-where.sh results results/deps.log results/build.log
