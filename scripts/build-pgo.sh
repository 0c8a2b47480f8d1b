#!/usr/bin/env bash
# scripts/build-pgo.sh DIR: an optimised numasim built twice, as CPython's
# --enable-optimizations and GCC's own profiledbootstrap do: first
# instrumented (-fprofile-generate), trained on short runs of every
# accounting mode and workload the benches and the main job use (and a
# short trace import and replay), then
# rebuilt from that profile with link-time optimisation (-fprofile-use
# -flto).  The results are the plain release build's, bit for bit (the
# same C, no -ffast-math: ISO C11 keeps floating-point contraction off);
# only host speed changes (docs/design/cost-model.md §10, "A profile-guided
# build, idle end states and lazy sample baselines").  The test programs
# are not built here (-Dtests=false): scripts/test.sh builds and tests a
# plain release build.  The whole script takes about 1 min 40 s on
# 2 cores, training about 30 s of it.
set -eu
dir=$1
shift
cd "$(dirname "$0")/.."
opts=(--buildtype=release -Dtests=false "$@")
# every build starts over (both of its phases compile every object
# anyway): a directory of scripts/build.sh's has another build's options
# and objects, and one of this script's own, reconfigured in place, came
# out without the link-time inlining of a fresh one (2026-12-06: 3,128 M
# against 2,598 M host instructions for `bench pagealloc --pairs 2000000
# --cost-model ooo --accounting sampled --sample-period 1000
# --sample-warm none`, the same tree)
if [ -f "$dir/build.ninja" ]; then
	rm -rf "$dir"
fi
# progress: one line per phase on standard output, with the seconds it took
t0=$SECONDS
phase() { echo "   build-pgo $1/3: $2 (${3:-started})"; }
phase 1 "instrumented build (-fprofile-generate)"
meson setup "$dir" "${opts[@]}" -Db_lto=false -Db_pgo=generate >/dev/null
meson compile -C "$dir" >/dev/null
phase 2 "training on the benches and the tests' scenarios" "after $((SECONDS - t0)) s"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n="$dir/numasim"
train() { "$n" "$@" >/dev/null; }
for model in inorder ooo; do
	train bench pagealloc --pairs 200000 --cost-model "$model"
	train bench pagealloc --pairs 200000 --cost-model "$model" --accounting memo
	for warm in none caches stores; do
		train bench pagealloc --pairs 1000000 --cost-model "$model" \
			--accounting sampled --sample-warm "$warm"
	done
done
train bench pagealloc --pairs 100000 --variant pre --bpred tage
train bench slub --pairs 100000
train bench slub --pairs 300000 --accounting sampled --sample-warm stores
train bench messaging --loops 3
for warm in none stores; do
	train bench messaging --loops 5 --accounting sampled --sample-warm "$warm"
done
# the instrumented binary runs several times slower, and threads
# (--jobs) share its counters: the scenarios are the tests' small ones
train run tests/scenarios/tiny-pagealloc.yaml --db "$tmp/z.db" --quiet
train run tests/scenarios/tiny-pagealloc.yaml --db "$tmp/z.db" --quiet \
	--set cost.model=ooo --set cost.accounting=memo
train run tests/scenarios/tiny-messaging.yaml --db "$tmp/s.db" --quiet
train report "$tmp/z.db" --top 12
# the replay workload (a main use: `numasim import trace` and `run` of a
# replay scenario): the import's text parser and the replay's dispatch
# over a short generated trace, replayed as fast as it goes
bash tests/fixtures/traces/gen-long.sh 20000 >"$tmp/trace.txt"
train import trace "$tmp/trace.txt" -o "$tmp/trace.nst"
printf 'name: pgo-replay\nmachine: %s\nworkload:\n  type: replay\n  trace: %s\n  timing: asap\n' \
	"$PWD/configs/seed-2016-2s.yaml" "$tmp/trace.nst" >"$tmp/replay.yaml"
train run "$tmp/replay.yaml" --db "$tmp/r.db" --quiet
phase 3 "optimised build from the profile (-fprofile-use -flto)" "after $((SECONDS - t0)) s"
meson configure "$dir" -Db_lto=true -Db_pgo=use >/dev/null
meson compile -C "$dir" >/dev/null
touch "$dir/pgo-trained"
echo "   build-pgo: done in $((SECONDS - t0)) s: $dir/numasim"
