#!/usr/bin/env bash
# The main job: install what is missing, build an optimised numasim and
# reproduce the first seed (682a3385's mmtests pagealloc table) on the
# shipped 2016 2-socket machine.  The runs are appended to
# results/seed-zonelist.db; the tables printed come from that database.
set -eu
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh build --buildtype=release
mkdir -p results
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
