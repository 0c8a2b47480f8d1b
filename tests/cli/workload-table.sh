#!/usr/bin/env bash
# Adding a workload is one file plus one table line (docs/guide/workloads.md,
# "Adding a workload"): the diff shown there, applied to a copy of the
# source tree, builds warning-free, and `numasim run` runs a scenario of
# the new workload and stores its parameter and metric.  Compiles the tree
# once (a long test).
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tree=$tmp/tree
mkdir -p "$tree"
(cd "$SRC" && tar --exclude='./build*' --exclude=./.git -cf - .) | tar -xf - -C "$tree"

# the diff of docs/guide/workloads.md, applied
awk '/^```diff$/ { on = 1; next } /^```$/ { on = 0 } on' "$SRC/docs/guide/workloads.md" >"$tmp/idle.diff"
if (cd "$tree" && patch -s -p1 <"$tmp/idle.diff") >"$tmp/patch.out" 2>&1; then ok; else
	bad "the diff of docs/guide/workloads.md does not apply: $(cat "$tmp/patch.out")"
fi
# it touches exactly the new file and the table line
check "files of the diff" "$(grep -c '^+++ ' "$tmp/idle.diff")" 2
check "lines it changes outside the new file" \
	"$(awk '/^\+\+\+ / { f = $2 } f !~ /wl_idle\.c$/ && /^[-+][^-+]/' "$tmp/idle.diff")" \
	"+	X(idle, IDLE)                                                          \\"

if meson setup "$tmp/b" "$tree" --buildtype=plain --werror -Dtests=false -Dmpi=disabled \
	>"$tmp/setup.out" 2>&1 &&
	meson compile -C "$tmp/b" numasim >"$tmp/build.out" 2>&1; then ok; else
	bad "the tree with the new workload does not build"
	tail -20 "$tmp/setup.out" "$tmp/build.out"
	finish
fi
bin=$tmp/b/numasim

cat >"$tmp/idle.yaml" <<YAML
name: idle-test
machine: $SRC/configs/client-1node.yaml
workload:
  type: idle
  steps: 3
YAML
if "$bin" run "$tmp/idle.yaml" --db "$tmp/idle.db" >"$tmp/out" 2>"$tmp/err"; then ok; else
	bad "numasim run of the idle workload failed: $(cat "$tmp/err")"
fi
check "stored workload" "$(q "$tmp/idle.db" "SELECT workload FROM runs")" idle
check "stored parameter" \
	"$(q "$tmp/idle.db" "SELECT value FROM params WHERE key = 'workload.steps'")" 3
check "stored metric" "$(q "$tmp/idle.db" "SELECT CAST(value AS INTEGER) FROM metrics WHERE name = 'steps'")" 3
# the loader knows its keys and names it among the known workloads
"$bin" list keys >"$tmp/keys" 2>&1
if grep -qx 'workload.steps' "$tmp/keys"; then ok; else bad "no workload.steps in list keys"; fi
cat >"$tmp/bad.yaml" <<YAML
name: x
machine: $SRC/configs/client-1node.yaml
workload: {type: nonesuch}
YAML
"$bin" validate "$tmp/bad.yaml" >"$tmp/vout" 2>"$tmp/verr"
if grep -q "known: pagealloc, messaging, parallel, fill, replay, idle" "$tmp/verr"; then ok; else
	bad "unknown type does not list idle: $(cat "$tmp/verr")"
fi
finish
