#!/usr/bin/env bash
# `meson install --destdir` into a scratch tree: a man page per command of
# `numasim --help` (generated from its --help text), `man numasim-run`
# shows the run command's options, the installed binary finds the shipped
# machines by name from another directory (and the tour's trace fixture by
# its source-tree path), and the installed bash
# completion completes commands, options, shipped names and, for
# `numasim run --set kernel.`, exactly the kernel knobs `numasim list keys`
# gives.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
MESON=${1:?usage: install.sh MESON}
build=$(dirname "$NUMASIM")
command -v man >/dev/null || { echo "SKIP: man not installed"; exit 77; }

dest=$tmp/dest
"$MESON" install -C "$build" --destdir "$dest" --no-rebuild --quiet >"$tmp/inst.out" 2>&1 &&
	ok || { bad "meson install"; cat "$tmp/inst.out"; }
exe=$(find "$dest" -type f -name numasim -path '*/bin/*' | head -1)
[ -x "$exe" ] && ok || bad "installed binary not found"
man1=$(dirname "$(find "$dest" -name numasim-run.1 | head -1)")
[ -d "$man1" ] && ok || bad "no man1 directory with numasim-run.1"

# one page per command numasim --help lists, and numasim(1)
for c in $("$NUMASIM" --help | awk '/^commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 }'); do
	[ -s "$man1/numasim-$c.1" ] && ok || bad "no man page for '$c'"
done
[ -s "$man1/numasim.1" ] && ok || bad "no numasim.1"

# man numasim-run, as a user would run it with the tree's man directory
page=$(MANPATH=$(dirname "$man1") MANWIDTH=100 man numasim-run 2>"$tmp/man.err")
printf '%s\n' "$page" | grep -q '^NAME' && ok || { bad "man numasim-run: no NAME"; cat "$tmp/man.err"; }
printf '%s\n' "$page" | grep -q 'numasim-run - run a scenario and store its results' &&
	ok || bad "man numasim-run: NAME line"
for opt in --commit-runs --commit-ms --format --resume --jobs; do
	printf '%s\n' "$page" | grep -q -- "$opt" && ok || bad "man numasim-run lacks $opt"
done
# the page is the --help text: every option line of --help is in it
"$NUMASIM" run --help | grep -E '^  --[a-z]' | sed 's/  */ /g; s/^ //' >"$tmp/help-opts"
printf '%s\n' "$page" | sed 's/  */ /g; s/^ //' >"$tmp/man-flat"
missing=$(grep -vxF -f "$tmp/man-flat" "$tmp/help-opts" | head -3)
[ -z "$missing" ] && ok || bad "man page differs from --help: $missing"
MANPATH=$(dirname "$man1") man numasim-bench 2>/dev/null | grep -q 'BENCHMARK PAGEALLOC' &&
	ok || bad "man numasim-bench has no pagealloc section"

# the installed binary resolves shipped names from anywhere
(cd "$tmp" && "$exe" list machines) >"$tmp/list.out" 2>&1
grep -q '^rome-nps4 ' "$tmp/list.out" && ok || { bad "installed list machines"; cat "$tmp/list.out"; }
(cd "$tmp" && "$exe" validate rome-nps4 -q) && ok || bad "installed validate rome-nps4"
# the README's tour: the trace fixture it imports is installed, and found
# by its source-tree path from another directory
[ -n "$(find "$dest" -path '*/numasim/tests/fixtures/traces/perf-script-v6.txt')" ] && ok ||
	bad "the tour's trace fixture is not installed"
(cd "$tmp" && "$exe" import trace tests/fixtures/traces/perf-script-v6.txt >/dev/null) && ok ||
	bad "installed import trace tests/fixtures/traces/perf-script-v6.txt from elsewhere"

# bash completion, installed where bash-completion looks for it
comp=$(find "$dest" -path '*bash-completion/completions/numasim' | head -1)
[ -s "$comp" ] && ok || bad "completion not installed"
out=$(bash -c '
	. "$1"
	complete -p numasim
	t() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _numasim; echo "${COMPREPLY[*]}"; }
	echo "cmds: $(t "$2" r)"
	echo "set: $(t "$2" run --set kernel.)"
	echo "sweep: $(t "$2" run scenarios/x.yaml --sweep workload.inner)"
	echo "machine: $(t "$2" run --machine rome)"
	echo "opts: $(t "$2" run x.yaml --comm)"
	echo "list: $(t "$2" list s)"
	echo "bench: $(t "$2" bench pagealloc --bp)"
	echo "format: $(t "$2" report x.db --format c)"
' _ "$comp" "$exe")
printf '%s\n' "$out" | grep -qx 'complete -F _numasim numasim' && ok || bad "complete -p: $out"
printf '%s\n' "$out" | grep -qx 'cmds: run report' && ok || bad "commands: $out"
want=$("$exe" list keys | grep '^kernel\.' | sed 's/$/=/' | tr '\n' ' ' | sed 's/ $//')
[ -n "$want" ] && ok || bad "no kernel keys listed"
printf '%s\n' "$out" | grep -qxF "set: $want" && ok || bad "--set kernel.: $(printf '%s\n' "$out" | grep '^set:') (want $want)"
printf '%s\n' "$out" | grep -qx 'sweep: workload.inner_iterations=' && ok || bad "--sweep: $out"
printf '%s\n' "$out" | grep -qx 'machine: rome-nps4' && ok || bad "--machine: $out"
printf '%s\n' "$out" | grep -qx 'opts: --commit-ms --commit-runs' && ok || bad "options: $out"
printf '%s\n' "$out" | grep -qx 'list: scenarios' && ok || bad "list: $out"
printf '%s\n' "$out" | grep -qx 'bench: --bpred' && ok || bad "bench options: $out"
printf '%s\n' "$out" | grep -qx 'format: csv' && ok || bad "--format: $out"
finish
