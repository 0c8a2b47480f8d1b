#!/usr/bin/env bash
# Issue 49 item 11, defaults and small defects, one block per point:
# --jobs defaults to the host's CPUs; bench pagealloc runs run's timing
# model (ooo) and names it; run --inner below the default warns; "did you
# mean" for --set/--sweep keys; a shipped machine given as a scenario gets
# the kind hint; validate --all; the tour's commands from another
# directory; compare of one group says there is nothing to compare; report
# --format csv one table per section and --section; the documented jq
# example on compare's JSON; import numactl's SLIT interpolation note and
# its one-node file for "No NUMA available"; scripts/shell-setup.sh (what
# main.sh runs) for man pages and completion; value completion; compare's
# colour (a terminal, no NO_COLOR); the MPI example for root on two cores.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_jq

PA=$SRC/tests/scenarios/tiny-pagealloc.yaml
elsewhere=$tmp/elsewhere
mkdir -p "$elsewhere"

# --- --jobs: the host's online CPUs, said in --help -----------------------------
cpus=$(getconf _NPROCESSORS_ONLN)
[ "$cpus" -gt 64 ] && cpus=64
"$NUMASIM" run --help | tr -s ' \n' ' ' | grep -q "default: the host's online CPUs, $cpus here" &&
	ok || bad "run --help: --jobs default is not the host's CPUs ($cpus)"

# --- bench pagealloc: ooo by default, named -----------------------------------------
"$NUMASIM" bench pagealloc --pairs 2000 >"$tmp/b" 2>"$tmp/err"
check "bench exit" "$?" 0
grep -q '^# machine .*, timing model ooo, ' "$tmp/b" && ok || bad "bench header: $(sed -n 2p "$tmp/b")"
"$NUMASIM" bench pagealloc --pairs 2000 --cost-model inorder | grep -q '^# machine .*, timing model inorder, ' &&
	ok || bad "bench --cost-model inorder: header"
check "bench json cost_model" "$("$NUMASIM" bench pagealloc --pairs 2000 --format json | jq -r .cost_model)" ooo
"$NUMASIM" bench pagealloc --help | tr -s ' \n' ' ' | grep -q "timing model: ooo (the default" &&
	ok || bad "bench pagealloc --help: the default timing model"

# --- run --inner below the default warns ----------------------------------------------
"$NUMASIM" run "$PA" --db "$tmp/two.db" >"$tmp/out" 2>"$tmp/err"
check "run exit" "$?" 0
grep -q 'warning' "$tmp/err" && bad "run without --inner warns: $(cat "$tmp/err")" || ok
"$NUMASIM" run "$PA" --db "$tmp/inner.db" --inner 5 -q >"$tmp/out" 2>"$tmp/err"
check "run --inner exit" "$?" 0
grep -q "^numasim run: warning: --inner 5 is below the pagealloc workload's default 10000: each per-call sample is the mean over 5 iterations instead of 10000" "$tmp/err" &&
	grep -q "results differ from a run at the default" "$tmp/err" && ok || bad "--inner 5: $(cat "$tmp/err")"

# --- "did you mean" for --set and --sweep keys -------------------------------------------
mean() {   # NAME WANT OPTION SETTING
	run_err_like "$1" "$2" validate "$PA" "$3" "$4"
}
mean "policy key" "did you mean 'policy.cpuset'?" --set policy.cpusett=all
mean "policy key, sweep" "did you mean 'policy.cpuset'?" --sweep policy.cpusett=all,none
mean "kernel knob" "did you mean 'kernel.zonelist_iter'?" --sweep kernel.zonelist_itr=pre-682a3385,682a3385
mean "section" "did you mean 'policy.cpuset'?" --set polcy.cpuset=all
mean "workload parameter" "did you mean 'workload.inner_iterations'?" --set workload.inner_iteration=5
mean "cost key" "did you mean 'cost.model'?" --set cost.modle=ooo

# --- a shipped machine where a scenario is expected ---------------------------------------
(cd "$elsewhere" && "$NUMASIM" run rome-nps4 >"$tmp/eout" 2>"$tmp/eerr")
check "run rome-nps4 exit" "$?" 2
grep -qF "'rome-nps4' is a shipped machine; numasim run takes a scenario: numasim run SCENARIO --machine rome-nps4" "$tmp/eerr" &&
	ok || bad "run rome-nps4: $(cat "$tmp/eerr")"
run_err_like "topology of a scenario" "'seed-zonelist' is a shipped scenario, not a machine file" topology seed-zonelist

# --- validate --all ------------------------------------------------------------------------
"$NUMASIM" validate --all >"$tmp/all" 2>"$tmp/err"
check "validate --all exit" "$?" 0
n=$(( $("$NUMASIM" list machines | tail -n +2 | wc -l) + $("$NUMASIM" list costs | tail -n +2 | wc -l) +
      $("$NUMASIM" list scenarios | tail -n +2 | wc -l) ))
check "validate --all: one ok per shipped file" "$(grep -c ': ok (' "$tmp/all")" "$n"
check "validate --all: machines" "$(grep -c ': ok (machine ' "$tmp/all")" "$("$NUMASIM" list machines | tail -n +2 | wc -l)"
check "validate --all: scenarios" "$(grep -c ': ok (scenario ' "$tmp/all")" "$("$NUMASIM" list scenarios | tail -n +2 | wc -l)"

# --- the README's tour from another directory ------------------------------------------------
(cd "$elsewhere" && "$NUMASIM" import trace tests/fixtures/traces/perf-script-v6.txt -o k.nst >"$tmp/t1" 2>"$tmp/e1")
check "tour: import trace of the shipped fixture" "$?" 0
[ -s "$elsewhere/k.nst" ] && ok || bad "tour: import trace wrote no k.nst: $(cat "$tmp/e1")"
(cd "$elsewhere" && "$NUMASIM" validate scenarios/seed-zonelist.yaml -q)
check "tour: validate scenarios/seed-zonelist.yaml" "$?" 0
check "tour: trace scenarios/seed-slub.yaml" \
	"$(cd "$elsewhere" && "$NUMASIM" trace scenarios/seed-slub.yaml --events slab_free --format jsonl --limit 5 2>/dev/null | wc -l)" 5
(cd "$elsewhere" && "$NUMASIM" topology rome-nps4 >/dev/null)
check "tour: topology rome-nps4" "$?" 0
grep -q "tests/fixtures/traces/perf-script-v6.txt" "$SRC/meson.build" && ok ||
	bad "meson.build does not install the tour's trace fixture"

# --- compare of one group ---------------------------------------------------------------------------
"$NUMASIM" run "$PA" --db "$tmp/one.db" --set kernel.zonelist_iter=682a3385 -q >/dev/null 2>&1
"$NUMASIM" compare "$tmp/one.db" >"$tmp/c1" 2>"$tmp/e1"
check "compare one group exit" "$?" 0
grep -q "nothing to compare" "$tmp/e1" && ok || bad "compare of one group: $(cat "$tmp/e1")"
"$NUMASIM" compare "$tmp/two.db" >"$tmp/c2" 2>"$tmp/e2"
grep -q "nothing to compare" "$tmp/e2" && bad "compare of two groups says nothing to compare" || ok

# --- report --format csv: a table per section, --section --------------------------------------------
"$NUMASIM" report "$tmp/two.db" --format csv >"$tmp/r.csv" 2>"$tmp/err"
check "report csv exit" "$?" 0
tr -d '\r' <"$tmp/r.csv" >"$tmp/r.txt"
check "report csv sections" "$(grep '^# ' "$tmp/r.txt" | cut -c3- | tr '\n' ' ')" \
	"meta $("$NUMASIM" report "$tmp/two.db" --format json | jq -r 'to_entries[] | select(.value | type == "array") | .key' | tr '\n' ' ')"
check "report csv overview header" "$(grep -A1 '^# overview$' "$tmp/r.txt" | tail -1)" "runs,ok,failed,scenarios,invocations,first,last"
"$NUMASIM" report "$tmp/two.db" --format csv --section stats | tr -d '\r' >"$tmp/stats.csv"
check "--section stats header" "$(head -1 "$tmp/stats.csv" | cut -d, -f1-3)" "workload,metric,unit"
check "--section stats rows" "$(($(wc -l <"$tmp/stats.csv") - 1))" "$("$NUMASIM" report "$tmp/two.db" --format json | jq '.stats | length')"
grep -q '^#' "$tmp/stats.csv" && bad "--section output has a title line" || ok
run_err_like "--section unknown" "no section 'nope' in this report (it has: meta, overview," report "$tmp/two.db" --format csv --section nope
run_err_like "--section without csv" "--section picks a table of --format csv" report "$tmp/two.db" --section stats

# --- the documented jq example keeps .group ------------------------------------------------------------
ex=$(grep -A1 "^numasim compare r.db --metric 'alloc-odr0-\*' --format json |" "$SRC/docs/reference/output-formats.md" | tail -1 | sed 's/^ *jq -r //')
case $ex in *".group"*) ok ;; *) bad "the jq example does not use .group: $ex" ;; esac
eval "jq -r $ex" <<<"$("$NUMASIM" compare "$tmp/two.db" --metric 'alloc-odr0-*' --format json)" >"$tmp/jq.out" 2>&1
check "jq example rows" "$(wc -l <"$tmp/jq.out")" "$("$NUMASIM" compare "$tmp/two.db" --metric 'alloc-odr0-*' --format json | jq '[.stats[].metric] | unique | length')"
grep -q '^alloc-odr0-1 ' "$tmp/jq.out" && ok || bad "jq example: $(cat "$tmp/jq.out")"

# --- import numactl: interpolated SLIT latencies, no NUMA ---------------------------------------------------
"$NUMASIM" import numactl "$SRC/tests/fixtures/numactl/amd-epyc-2s-nps4-8node.txt" -o "$tmp/epyc.yaml" 2>"$tmp/err"
check "import epyc exit" "$?" 0
grep -q "SLIT distance 12 (node 0 to node 1): the cost profile gives no memory latency for it; interpolated between distance 10" "$tmp/err" &&
	ok || bad "no interpolation note: $(cat "$tmp/err")"
grep -q "SLIT distance 32 (node 0 to node 4): beyond the cost profile's last memory latency" "$tmp/err" &&
	ok || bad "no extrapolation note: $(cat "$tmp/err")"
"$NUMASIM" import numactl "$SRC/tests/fixtures/numactl/intel-2s-e5-2695v4.txt" -o "$tmp/intel.yaml" 2>"$tmp/err"
grep -q "SLIT distance" "$tmp/err" && bad "a note for distances the profile lists: $(cat "$tmp/err")" || ok
"$NUMASIM" import numactl "$SRC/tests/fixtures/numactl/bad/no-numa-rk3588.txt" -o "$tmp/one-node.yaml" --cpus 4 --memory 8192 2>"$tmp/err"
check "no NUMA: exit" "$?" 0
grep -q "numactl reports no NUMA (a kernel without CONFIG_NUMA): one node 0 with 4 CPUs and 8192 MiB" "$tmp/err" &&
	ok || bad "no NUMA note: $(cat "$tmp/err")"
check "no NUMA: the file" "$("$NUMASIM" validate "$tmp/one-node.yaml")" "$tmp/one-node.yaml: ok (machine no-numa-rk3588: 1 node, 4 CPUs, 8 GiB)"
printf 'No NUMA available on this system\n' | "$NUMASIM" import numactl - -o "$tmp/host.yaml" 2>"$tmp/err"
check "no NUMA, this host: exit" "$?" 0
check "no NUMA, this host's CPUs" "$("$NUMASIM" validate "$tmp/host.yaml" | sed -n 's/.* 1 node, \([0-9]*\) CPUs.*/\1/p')" "$(getconf _NPROCESSORS_CONF)"

# --- main.sh: man pages and completion for the user's shell -----------------------------------------------------
grep -q 'scripts/shell-setup.sh' "$SRC/scripts/main.sh" && ok || bad "main.sh does not run scripts/shell-setup.sh"
for sh in bash zsh fish; do
	SHELL=/bin/$sh bash "$SRC/scripts/shell-setup.sh" "$(dirname "$NUMASIM")" >"$tmp/setup.$sh" 2>&1
	check "shell-setup $sh exit" "$?" 0
	grep -q "man -l .*numasim-run.1\|MANPATH" "$tmp/setup.$sh" && ok || bad "shell-setup $sh: no man pages: $(cat "$tmp/setup.$sh")"
done
grep -q "numasim-completion.bash" "$tmp/setup.bash" && grep -q "bashcompinit" "$tmp/setup.zsh" && ok ||
	bad "shell-setup: completion for bash and zsh"
grep -qi "no completion" "$tmp/setup.fish" && ok || bad "shell-setup fish: $(cat "$tmp/setup.fish")"

# --- value completion -----------------------------------------------------------------------------------------------
comp=$(PATH=$(dirname "$NUMASIM"):$PATH bash -c '
	. "$1"
	t() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _numasim; echo "${COMPREPLY[*]}"; }
	echo "cpuset: $(t numasim run x.yaml --set policy.cpuset = "")"
	echo "cpuset=: $(t numasim run x.yaml --set policy.cpuset =)"
	echo "sweep: $(t numasim run x.yaml --sweep policy.cpuset = none,a)"
	echo "nobreak: $(t numasim run x.yaml --set cost.model=i)"
	echo "commit: $(t numasim run x.yaml --set kernel.commit = 682)"
	echo "by: $(t numasim compare r.db --by kern)"
' _ "$SRC/scripts/numasim-completion.bash")
printf '%s\n' "$comp" | grep -qx 'cpuset: none all local' && ok || bad "--set policy.cpuset=: $comp"
printf '%s\n' "$comp" | grep -qx 'cpuset=: =none =all =local' && ok || bad "--set policy.cpuset= (cursor on =): $comp"
printf '%s\n' "$comp" | grep -qx 'sweep: none,all' && ok || bad "--sweep policy.cpuset=none,a: $comp"
printf '%s\n' "$comp" | grep -qx 'nobreak: cost.model=inorder' && ok || bad "--set cost.model=i: $comp"
printf '%s\n' "$comp" | grep -qx 'commit: 682a3385e773' && ok || bad "--set kernel.commit=682: $comp"
printf '%s\n' "$comp" | grep -q '^by: kernel_model kernel\.' && ok || bad "compare --by kern: $comp"

# --- compare's colour: a terminal without NO_COLOR ---------------------------------------------------------------------
if command -v script >/dev/null; then
	tty_compare() { env "$@" script -qec "'$NUMASIM' compare '$tmp/two.db' --metric alloc-odr0-1" /dev/null; }
	tty_compare TERM=xterm >"$tmp/tty1" 2>&1
	grep -q $'\x1b\[32m(' "$tmp/tty1" && ok || bad "compare on a terminal: no colour"
	tty_compare TERM=xterm NO_COLOR=1 >"$tmp/tty2" 2>&1
	grep -q $'\x1b' "$tmp/tty2" && bad "compare with NO_COLOR: colour" || ok
	tty_compare TERM=dumb >"$tmp/tty3" 2>&1
	grep -q $'\x1b' "$tmp/tty3" && bad "compare with TERM=dumb: colour" || ok
	check "colour changes no text" "$(sed 's/\x1b\[[0-9]*m//g' "$tmp/tty1" | md5sum)" "$(md5sum <"$tmp/tty2")"
else
	echo "note: script(1) missing, the terminal checks are skipped"
fi
"$NUMASIM" compare "$tmp/two.db" --metric alloc-odr0-1 | grep -q $'\x1b' && bad "compare into a pipe: colour" || ok

# --- the MPI example for root on a two-core machine -----------------------------------------------------------------------
grep -qE '^mpirun --allow-run-as-root --oversubscribe -n 2 numasim run ' "$SRC/docs/guide/running.md" &&
	ok || bad "docs/guide/running.md: no MPI example for root on two cores"
grep -q "cli/mpi.sh" "$SRC/tests/meson.build" && ok || bad "tests/cli/mpi.sh is not registered"

finish
