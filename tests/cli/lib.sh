# Sourced by the CLI tests (tests/cli/*.sh): the binary under test, the source
# root, a scratch directory removed on exit, check counting and the common
# checks (check, run_2, run_err, run_err_like; a test may define its own under
# another name, or redefine one after sourcing).  A test
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

# check NAME GOT WANT: one check, that GOT is WANT.
check() {
	if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2', want '$3'"; fi
}

# q DB SQL: one read-only query of a result database.
q() { sqlite3 -readonly "$1" "$2"; }

# golden NAME FILE GOLDEN: one check, that FILE equals the golden file
# GOLDEN; NUMASIM_UPDATE_GOLDEN=1 first copies FILE over GOLDEN.
golden() {
	if [ "${NUMASIM_UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$2" "$3"
		echo "updated $3"
	fi
	if cmp -s "$2" "$3"; then ok; else
		bad "$1: table differs from $3 (NUMASIM_UPDATE_GOLDEN=1 to accept)"
		diff "$3" "$2" | head -40
	fi
}

# run_2 NAME ARGS...: run numasim ARGS, streams into $tmp/eout and $tmp/eerr;
# status 0 when it exited 2 (a usage or input error) with nothing on stdout,
# else 1 after counting the failure.  The callers below then check stderr.
run_2() {
	local name=$1; shift
	"$NUMASIM" "$@" >"$tmp/eout" 2>"$tmp/eerr"
	local rc=$?
	if [ $rc -ne 2 ]; then bad "$name: exit $rc, expected 2"; cat "$tmp/eerr"; return 1; fi
	if [ -s "$tmp/eout" ]; then bad "$name: wrote to stdout"; return 1; fi
	return 0
}

# run_err_like NAME PATTERN ARGS...: run_2, and stderr matches PATTERN (grep's
# basic regular expression).
run_err_like() {
	local name=$1 want=$2; shift 2
	run_2 "$name" "$@" || return
	if ! grep -q -- "$want" "$tmp/eerr"; then bad "$name: no '$want' in: $(cat "$tmp/eerr")"; return; fi
	ok
}

# run_err NAME ARGS...: the same with any "error:" message.
run_err() {
	local name=$1; shift
	run_err_like "$name" "error:" "$@"
}

# Exit 77 (meson's "skipped") when jq is missing.
need_jq() { command -v jq >/dev/null || { echo "SKIP: jq not installed"; exit 77; }; }

finish() {
	echo "$checks checks, $fails failed"
	[ "$fails" -eq 0 ]
}
