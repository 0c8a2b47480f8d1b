#!/usr/bin/env bash
# The layering rule (scripts/layering.sh): the source tree passes, and a
# copy of it with one wrong include of each kind fails, naming the file and
# line.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
CHECK=$SRC/scripts/layering.sh

if bash "$CHECK" "$SRC" >"$tmp/out" 2>&1; then ok; else bad "source tree: $(cat "$tmp/out")"; fi

# copy_tree: the C sources and headers of the tree, in $tmp/t
copy_tree() {
	rm -rf "$tmp/t"
	mkdir -p "$tmp/t"
	(cd "$SRC" && find . -path './build*' -prune -o -path './.git' -prune -o \
		\( -name '*.c' -o -name '*.h' \) -type f -print | tar -cf - -T -) | tar -xf - -C "$tmp/t"
}

# expect_violation NAME FILE LINE-TEXT MESSAGE: append LINE-TEXT to FILE of
# a fresh copy; the check must exit 1 and print MESSAGE for FILE.
expect_violation() {
	local name=$1 file=$2 text=$3 msg=$4
	copy_tree
	printf '%s\n' "$text" >>"$tmp/t/$file"
	local line
	line=$(wc -l <"$tmp/t/$file")
	bash "$CHECK" "$tmp/t" >"$tmp/out" 2>&1
	local rc=$?
	if [ $rc -ne 1 ]; then bad "$name: exit $rc, expected 1"; cat "$tmp/out"; return; fi
	if grep -qF "$file:$line: error: $msg" "$tmp/out"; then ok; else
		bad "$name: no '$file:$line: error: $msg'"; cat "$tmp/out"
	fi
}

expect_violation "hardware includes a kernel model" cost/cpu.c '#include "models/slub.h"' \
	'#include "models/slub.h": cost/ is below models/ and may not include it'
expect_violation "engine includes hardware" sim/eventq.c '#include "cost/cpu.h"' \
	'#include "cost/cpu.h": sim/ is below cost/ and may not include it'
expect_violation "base includes the engine" base/diag.c '#include "sim/ctx.h"' \
	'#include "sim/ctx.h": base/ is below sim/ and may not include it'
expect_violation "model includes a workload" models/slub.c '#include "scenarios/run.h"' \
	'#include "scenarios/run.h": models/ is below scenarios/ and may not include it'
expect_violation "analysis includes a scenario" analysis/store.c '#include "scenarios/scenario.h"' \
	'#include "scenarios/scenario.h": analysis/ is below scenarios/ and may not include it'
expect_violation "workload includes the scenario language" workloads/wl_fill.c '#include "scenarios/scenario.h"' \
	'#include "scenarios/scenario.h": workloads/ is below scenarios/ and may not include it'
expect_violation "run plan includes the command line" scenarios/run.c '#include "cli/cli.h"' \
	'#include "cli/cli.h": scenarios/ is below cli/ and may not include it'
expect_violation "bare include" models/slub.c '#include "zonelist.h"' \
	'#include "zonelist.h": name the header'
expect_violation "missing header" cli/main.c '#include "models/nonesuch.h"' \
	'#include "models/nonesuch.h": no such header'

# a header private to a folder, and a folder that is not a layer
copy_tree
printf '#define X 1\n' >"$tmp/t/models/fake_internal.h"
printf '#include "models/fake_internal.h"\n' >>"$tmp/t/scenarios/run.c"
line=$(wc -l <"$tmp/t/scenarios/run.c")
if bash "$CHECK" "$tmp/t" >"$tmp/out" 2>&1; then bad "internal header: passed"; else
	grep -qF "scenarios/run.c:$line: error: #include \"models/fake_internal.h\": private to models/" "$tmp/out" &&
		ok || { bad "internal header: wrong message"; cat "$tmp/out"; }
fi
copy_tree
mkdir -p "$tmp/t/util"
printf 'int util;\n' >"$tmp/t/util/x.c"
if bash "$CHECK" "$tmp/t" >"$tmp/out" 2>&1; then bad "unknown folder: passed"; else
	grep -qF "util/x.c:1: error: folder 'util' is not a layer" "$tmp/out" && ok ||
		{ bad "unknown folder: wrong message"; cat "$tmp/out"; }
fi

finish
