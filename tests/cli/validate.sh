#!/usr/bin/env bash
# CLI tests for `numasim validate`: ok lines for good machine files and cost
# profiles, '-' from stdin, --quiet, several files with a bad one among them
# (every file still checked, exit 2), unknown kinds, missing files, usage.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
M=$SRC/tests/machines
B=$SRC/tests/bad/machines

# run EXPECTED_RC ARGS...: run validate, check the exit status
run() {
	local want=$1; shift
	"$NUMASIM" validate "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ "$rc" -eq "$want" ]; then ok; else
		bad "validate $*: exit $rc, expected $want"; cat "$tmp/out" "$tmp/err"; fi
}

# same FILE TEXT: FILE must contain exactly TEXT (plus a final newline)
same() {
	if [ "$(cat "$1")" = "$2" ]; then ok; else
		bad "unexpected output in $1:"; cat "$1"; echo "--- wanted:"; echo "$2"; fi
}

run 0 "$M/two-node.yaml"
same "$tmp/out" "$M/two-node.yaml: ok (machine cascadelake-2s: 2 nodes, 104 CPUs, 192.02 GiB)"
same "$tmp/err" ""

run 0 "$M/two-node.yaml" "$M/sparse.yaml" "$M/memoryless.yaml" "$SRC/tests/costs/cascadelake.yaml"
same "$tmp/out" "$M/two-node.yaml: ok (machine cascadelake-2s: 2 nodes, 104 CPUs, 192.02 GiB)
$M/sparse.yaml: ok (machine sparse-3n: 3 nodes, 24 CPUs, 48 GiB)
$M/memoryless.yaml: ok (machine cxl-memoryless: 3 nodes, 64 CPUs, 192.02 GiB)
$SRC/tests/costs/cascadelake.yaml: ok (cost profile cascadelake)"

# standard input
"$NUMASIM" validate - <"$M/sparse.yaml" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && ok || bad "stdin: exit $rc"
same "$tmp/out" "<stdin>: ok (machine sparse-3n: 3 nodes, 24 CPUs, 48 GiB)"
printf 'name: x\nsources: []\nnodes: 5\ndistance: []\ncosts: {}\n' | "$NUMASIM" validate - >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && ok || bad "bad stdin: exit $rc"
same "$tmp/err" "<stdin>:3:8: error: 'nodes' must be a sequence, got the integer 5"

# --quiet, also after the file names
run 0 --quiet "$M/two-node.yaml" "$M/sparse.yaml"
same "$tmp/out" ""
run 0 "$M/two-node.yaml" -q
same "$tmp/out" ""

# a bad file among good ones: all are checked, exit 2
run 2 "$M/two-node.yaml" "$B/alias.yaml" "$M/sparse.yaml"
same "$tmp/out" "$M/two-node.yaml: ok (machine cascadelake-2s: 2 nodes, 104 CPUs, 192.02 GiB)
$M/sparse.yaml: ok (machine sparse-3n: 3 nodes, 24 CPUs, 48 GiB)"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && ok || bad "one error line expected"
grep -q "^$B/alias.yaml:2:7: error: YAML aliases" "$tmp/err" && ok || bad "alias error"

# the same bytes give the same answer whatever the file is called
cp "$B/zone-size-overflow.yaml" "$tmp/x.yaml"
run 2 "$tmp/x.yaml"
same "$tmp/err" "$tmp/x.yaml:8:30: error: zone size '99999999999TiB' overflows 64 bits"

# unknown kind, missing file, directory
printf 'workloads: pagealloc\n' >"$tmp/s.yaml"
run 2 "$tmp/s.yaml"
same "$tmp/err" "$tmp/s.yaml:1:1: error: unknown file kind: a machine file has a 'nodes' key, a cost profile has 'costs' and no 'nodes'"
# a 'workload' key makes a scenario (docs/reference/scenario-format.md)
printf 'workload: pagealloc\n' >"$tmp/s.yaml"
run 2 "$tmp/s.yaml"
same "$tmp/err" "$tmp/s.yaml:1:1: error: missing required key 'name' in scenario file"
run 2 "$tmp/does-not-exist.yaml"
same "$tmp/err" "$tmp/does-not-exist.yaml: error: cannot open: No such file or directory"
run 2 "$tmp"
same "$tmp/err" "$tmp: error: is a directory, not a file"

# a file that starts with '-' after --
cp "$M/sparse.yaml" "$tmp/-m.yaml"
(cd "$tmp" && "$NUMASIM" validate -- -m.yaml >out2 2>err2)
rc=$?
[ $rc -eq 0 ] && ok || bad "-- file: exit $rc"
same "$tmp/out2" "-m.yaml: ok (machine sparse-3n: 3 nodes, 24 CPUs, 48 GiB)"

# usage
run 2
grep -q "^numasim validate: error: no input files" "$tmp/err" && ok || bad "no files"
same "$tmp/out" ""
run 2 --frobnicate "$M/sparse.yaml"
grep -q "^numasim validate: error: unknown option '--frobnicate'" "$tmp/err" && ok || bad "unknown option"
same "$tmp/out" ""
run 0 --help
grep -q "^usage: numasim validate" "$tmp/out" && ok || bad "--help"
"$NUMASIM" help validate >"$tmp/out" 2>&1 && grep -q "^usage: numasim validate" "$tmp/out" && ok ||
	bad "numasim help validate"
"$NUMASIM" --help | grep -q "^  validate " && ok || bad "validate missing from numasim --help"

finish
