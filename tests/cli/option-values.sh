#!/usr/bin/env bash
# Issue "What a new user trips over", item 12: a bad --set/--sweep value
# names the option and the key, not libyaml's view of a file the user
# never wrote ("malformed YAML ... line 1, column 2", "empty file: no YAML
# document"); exit 2, nothing on stdout, no database created.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TINY=$SRC/tests/scenarios/sweep-small.yaml

# expect NAME WANT ARGS...: exit 2, no stdout, no database, stderr one line
# containing WANT and none of libyaml's wording
expect() {
	local name=$1 want=$2; shift 2
	rm -f "$tmp/x.db"
	"$NUMASIM" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ $rc -ne 2 ]; then bad "$name: exit $rc, expected 2"; cat "$tmp/err"; return; fi
	if [ -s "$tmp/out" ] || [ -e "$tmp/x.db" ]; then bad "$name: wrote output"; return; fi
	if grep -q 'malformed YAML\|empty file\|no YAML document\|line 1, column' "$tmp/err"; then
		bad "$name: libyaml's wording leaked: $(cat "$tmp/err")"; return
	fi
	if ! grep -qF -- "$want" "$tmp/err"; then
		bad "$name: want '$want', got: $(cat "$tmp/err")"; return
	fi
	[ "$(wc -l <"$tmp/err")" -eq 1 ] && ok || { bad "$name: more than one line"; cat "$tmp/err"; }
}

K=workload.inner_iterations
expect "sweep of commas" "numasim run: error: --sweep $K=,: empty value" \
	run "$TINY" --db "$tmp/x.db" --sweep "$K=,"
expect "empty set" "numasim run: error: --set $K=: empty value" \
	run "$TINY" --db "$tmp/x.db" --set "$K="
expect "empty sweep" "numasim run: error: --sweep $K=: empty value" \
	run "$TINY" --db "$tmp/x.db" --sweep "$K="
expect "empty sweep item" "--sweep $K=1,,2: empty value: item 2 of the list of '$K'" \
	run "$TINY" --db "$tmp/x.db" --sweep "$K=1,,2"
expect "trailing comma" "--sweep $K=1,: empty value: item 2" \
	run "$TINY" --db "$tmp/x.db" --sweep "$K=1,"
expect "unbalanced bracket" "--sweep $K=1,[2: the value of '$K' is not valid YAML" \
	run "$TINY" --db "$tmp/x.db" --sweep "$K=1,[2"
expect "unbalanced quote" "--set name='x: the value of 'name' is not valid YAML" \
	run "$TINY" --db "$tmp/x.db" --set "name='x"
expect "validate too" "numasim validate: error: --set $K=: empty value" \
	validate "$TINY" --set "$K="
expect "trace too" "numasim trace: error: --sweep $K=,: empty value" \
	trace "$TINY" --events page_alloc --sweep "$K=,"
# a quoted comma is one value, not an empty item
"$NUMASIM" validate "$TINY" --sweep "name='a,b',c" >/dev/null 2>"$tmp/err"
rc=$?
grep -q 'empty value' "$tmp/err" && bad "quoted comma split: $(cat "$tmp/err")" || ok

finish
