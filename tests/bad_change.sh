#!/bin/bash
# bad_change.sh FILE — check that a bad code-change file (kernel.change,
# scenarios/kchange.h) is rejected the way the error policy says:
# `numasim validate` of a small pagealloc scenario on the first seed's
# machine (kernel.commit v4.6-rc2) with `--set kernel.change=FILE` exits 2,
# prints nothing on stdout and exactly one line on stderr,
#     FILE:LINE:COL: error: MESSAGE
# where LINE:COL and a substring of MESSAGE come from the file's first line,
#     # expect: LINE:COL: SUBSTRING
# Then `numasim run` of the same writes no database.  Needs $NUMASIM and
# $NUMASIM_SRC (set by tests/meson.build).
set -u

file=${1:?usage: bad_change.sh FILE}
: "${NUMASIM:?NUMASIM must name the numasim binary}"
src=${NUMASIM_SRC:-$(dirname "$0")/..}

fail() {
	printf 'FAIL %s: %s\n' "$file" "$1" >&2
	exit 1
}

first=$(head -n 1 -- "$file" | LC_ALL=C grep -a -o '# expect: .*')
[ -n "$first" ] || fail "first line has no '# expect: LINE:COL: SUBSTRING' comment"
spec=${first#\# expect: }
pos=${spec%%: *}
want=${spec#*: }
case $pos in
*[!0-9:]* | :* | *: | *:*:*) fail "bad expect position '$pos'" ;;
*:*) ;;
*) fail "bad expect position '$pos'" ;;
esac

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/s.yaml" <<YAML
name: bad-change
machine: $src/configs/seed-2016-2s.yaml
kernel:
  commit: v4.6-rc2
workload:
  type: pagealloc
  orders: [0]
  batches: [1]
  inner_iterations: 1
  outer_samples: 3
  drop_samples: 2
  cpu: 0
YAML

show() {
	printf -- '--- stdout:\n' >&2
	cat "$tmp/out" >&2
	printf -- '--- stderr:\n' >&2
	cat "$tmp/err" >&2
}

"$NUMASIM" validate "$tmp/s.yaml" --set "kernel.change=$file" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] || { show; fail "exit status $rc, expected 2"; }
[ ! -s "$tmp/out" ] || { show; fail "stdout is not empty"; }
lines=$(wc -l <"$tmp/err")
[ "$lines" -eq 1 ] || { show; fail "stderr has $lines lines, expected exactly one"; }
IFS= read -r got <"$tmp/err"
prefix="$file:$pos: error: "
[ "${got:0:${#prefix}}" = "$prefix" ] || { show; fail "stderr does not start with '$prefix'"; }
case ${got:${#prefix}} in
*"$want"*) ;;
*) show; fail "message does not contain '$want'" ;;
esac
"$NUMASIM" run -q "$tmp/s.yaml" --set "kernel.change=$file" --db "$tmp/x.db" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] || { show; fail "run: exit status $rc, expected 2"; }
[ ! -e "$tmp/x.db" ] || fail "run: a database was written"
printf 'ok %s: %s\n' "$file" "$got"
