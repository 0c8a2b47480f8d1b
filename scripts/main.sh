#!/usr/bin/env bash
# The main job: install what is missing, build an optimised numasim, and run
# it on the first seed's machine (topology and zonelists) plus the engine
# benchmark.  The seed reproduction (682a3385's pagealloc table) replaces the
# second half once the page allocator model lands.
set -eu
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh build --buildtype=release
echo "== numasim validate configs/*.yaml configs/costs/*.yaml"
build/numasim validate configs/*.yaml configs/costs/*.yaml
echo
echo "== numasim topology configs/seed-2016-2s.yaml"
build/numasim topology configs/seed-2016-2s.yaml
echo
echo "== numasim bench phold --lps 1000 --events 10000000"
build/numasim bench phold --lps 1000 --events 10000000
