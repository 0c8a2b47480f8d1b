#!/bin/bash
# bad_input.sh FILE — check that `numasim validate FILE` rejects a bad input
# file the way the error policy says: exit status 2, nothing on stdout, and
# exactly one line on stderr of the form
#     FILE:LINE:COL: error: MESSAGE
# where LINE:COL and a substring of MESSAGE come from the file's first line,
#     # expect: LINE:COL: SUBSTRING
# (anything before "# expect:" on that line, e.g. a byte-order mark, is
# ignored).  Needs $NUMASIM, the numasim binary (set by tests/meson.build).
set -u

file=${1:?usage: bad_input.sh FILE}
: "${NUMASIM:?NUMASIM must name the numasim binary}"

fail() {
	printf 'FAIL %s: %s\n' "$file" "$1" >&2
	exit 1
}

first=$(head -n 1 -- "$file" | tr -d '\000' | LC_ALL=C grep -a -o '# expect: .*')
[ -n "$first" ] || fail "first line has no '# expect: LINE:COL: SUBSTRING' comment"
spec=${first#\# expect: }
pos=${spec%%: *}
want=${spec#*: }
case $pos in
*[!0-9:]* | :* | *: | *:*:*) fail "bad expect position '$pos'" ;;
*:*) ;;
*) fail "bad expect position '$pos'" ;;
esac
[ -n "$want" ] && [ "$want" != "$spec" ] || fail "expect line has no message substring"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$NUMASIM" validate "$file" >"$tmp/out" 2>"$tmp/err"
rc=$?

show() {
	printf -- '--- stdout:\n' >&2
	cat "$tmp/out" >&2
	printf -- '--- stderr:\n' >&2
	cat "$tmp/err" >&2
}

[ "$rc" -eq 2 ] || { show; fail "exit status $rc, expected 2"; }
[ ! -s "$tmp/out" ] || { show; fail "stdout is not empty"; }
lines=$(wc -l <"$tmp/err")
[ "$lines" -eq 1 ] && [ "$(tail -c 1 "$tmp/err" | od -An -c | tr -d ' ')" = '\n' ] ||
	{ show; fail "stderr has $lines lines, expected exactly one"; }
IFS= read -r got <"$tmp/err"
prefix="$file:$pos: error: "
[ "${got:0:${#prefix}}" = "$prefix" ] || { show; fail "stderr does not start with '$prefix'"; }
msg=${got:${#prefix}}
case $msg in
*"$want"*) ;;
*) show; fail "message does not contain '$want'" ;;
esac
printf 'ok %s: %s\n' "$file" "$got"
