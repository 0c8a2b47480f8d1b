# Sourced by the CLI tests (tests/cli/*.sh): the binary under test, the source
# root, a scratch directory removed on exit, and check counting.  A test
# script calls ok/bad per check and ends with `finish`, which prints
# "N checks, N failed" and sets the exit status.
NUMASIM=${NUMASIM:?NUMASIM must name the numasim binary}
SRC=${NUMASIM_SRC:?NUMASIM_SRC must name the source root}
fails=0
checks=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*"; }

# Exit 77 (meson's "skipped") when jq is missing.
need_jq() { command -v jq >/dev/null || { echo "SKIP: jq not installed"; exit 77; }; }

finish() {
	echo "$checks checks, $fails failed"
	[ "$fails" -eq 0 ]
}
