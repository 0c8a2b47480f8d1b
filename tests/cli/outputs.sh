#!/usr/bin/env bash
# Issue 51, finding 7: outputs others open.
#   - CSV: a text cell starting with =, +, -, @, tab or CR is written with a
#     leading single quote (OWASP "CSV Injection"), by query and export;
#     numbers, negative ones too, stay numbers; --csv-raw writes text as
#     it is;
#   - JSON (query, export) is valid UTF-8 whatever the database holds: a
#     byte that is not well-formed UTF-8 becomes \ufffd;
#   - on a terminal, every reader (report, query, export, compare, and
#     their error messages) shows the control characters a database holds
#     (ESC as \x1b) instead of sending them (cli/term.h);
#   - the messaging report's sums of counters no run can have (near 2^63)
#     are refused (exit 2, naming the run and site), not signed overflow
#     (UBSan under build-asan; a silent wrap before).
# (SVGs with text that is not UTF-8 are tests/cli/escaping.sh's.)
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TINY=$SRC/tests/scenarios/tiny-pagealloc.yaml
P=$tmp/p.db
"$NUMASIM" run -q "$TINY" --db "$P" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; bad "run"; }

# --- CSV formula guard
"$NUMASIM" query "$P" "SELECT '=1+1' AS a, '+1' AS b, '-1+x' AS c, '@SUM(A1)' AS d,
	char(9) || 'x' AS e, char(13) || 'y' AS f, -5 AS g, -2.5 AS h, 'plain' AS i,
	'a=b' AS j" --format csv >"$tmp/q.csv" 2>"$tmp/err" || bad "query --format csv: $(cat "$tmp/err")"
check "query csv: formula cells quoted, numbers as numbers" "$(sed -n 2p "$tmp/q.csv" | tr '\t\r' 'TR')" \
	"\"'=1+1\",\"'+1\",\"'-1+x\",\"'@SUM(A1)\",\"'Tx\",\"'Ry\",-5,-2.5,plain,a=bR"
"$NUMASIM" query "$P" "SELECT '=1+1' AS a, -5 AS g" --format csv --csv-raw >"$tmp/r.csv" 2>"$tmp/err" ||
	bad "query --csv-raw: $(cat "$tmp/err")"
check "query --csv-raw" "$(sed -n 2p "$tmp/r.csv" | tr -d '\r')" "=1+1,-5"
D=$tmp/f.db
sqlite3 "$P" ".backup '$D'"
sqlite3 "$D" "UPDATE runs SET variant = '=HYPERLINK(\"http://x\",\"y\")' WHERE run_id = 1"
"$NUMASIM" export "$D" --format csv --table runs -o "$tmp/e.csv" 2>"$tmp/err" || bad "export: $(cat "$tmp/err")"
grep -q "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"" "$tmp/e.csv" && ok || bad "export csv: $(grep -o '[^,]*HYPERLINK[^,]*' "$tmp/e.csv")"
"$NUMASIM" export "$D" --format csv --table runs --csv-raw -o "$tmp/e2.csv" 2>"$tmp/err" || bad "export --csv-raw"
grep -q ',"=HYPERLINK(' "$tmp/e2.csv" && ok || bad "export --csv-raw changed the cell"

# --- JSON is UTF-8
U=$tmp/u.db
sqlite3 "$P" ".backup '$U'"
sqlite3 "$U" "UPDATE runs SET variant = 'a' || CAST(x'ff' AS TEXT) || 'b' || CAST(x'c0af' AS TEXT) ||
	CAST(x'eda080' AS TEXT) || 'é' WHERE run_id = 1"
valid_json() { python3 -c 'import json,sys; json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))' "$1"; }
"$NUMASIM" query "$U" "SELECT variant FROM runs WHERE run_id = 1" --format json >"$tmp/q.json" 2>"$tmp/err"
valid_json "$tmp/q.json" 2>"$tmp/perr" && ok || bad "query json is not UTF-8 JSON: $(tail -1 "$tmp/perr")"
grep -q 'a\\ufffdb\\ufffd\\ufffd\\ufffd\\ufffd\\ufffdé' "$tmp/q.json" && ok || bad "query json: $(cat "$tmp/q.json")"
"$NUMASIM" export "$U" --format json --table runs -o "$tmp/e.json" 2>"$tmp/err" || bad "export json"
valid_json "$tmp/e.json" 2>"$tmp/perr" && ok || bad "export json is not UTF-8 JSON: $(tail -1 "$tmp/perr")"

# --- control characters on a terminal
T=$tmp/t.db
sqlite3 "$P" ".backup '$T'"
sqlite3 "$T" "UPDATE runs SET variant = 'v' || char(27) || ']0;pwned' || char(7) || char(27) || '[2J' WHERE run_id = 1"
# every reader, on a terminal (stdout and stderr: `script` gives both one)
on_tty() {
	local name=$1
	shift
	script -qec "$(printf '%q ' "$@")" /dev/null >"$tmp/tty.out" 2>&1
	# compare's own colours (green, red, reset: defaults.sh) aside
	sed 's/\x1b\[3[12]m//g; s/\x1b\[0m//g' "$tmp/tty.out" | grep -q $'\x1b' &&
		bad "$name sent ESC from the database to the terminal" || ok
	grep -q 'v\\x1b\]0;pwned\\x07\\x1b\[2J' "$tmp/tty.out" && ok ||
		bad "$name on a terminal: $(grep -a -o 'v.\{0,30\}pwned.\{0,20\}' "$tmp/tty.out" | head -1 | od -c | head -3)"
}
on_tty report "$NUMASIM" report "$T"
on_tty "report --runs" "$NUMASIM" report "$T" --runs
on_tty query "$NUMASIM" query "$T" "SELECT variant FROM runs"
on_tty "export (to stdout)" "$NUMASIM" export "$T" --format csv --table runs
on_tty compare "$NUMASIM" compare "$T" --by variant
on_tty "compare (the groups named in an error)" "$NUMASIM" compare "$T" --baseline nosuch
# a UTF-8 character cut between two writes of the stream (its buffer is
# BUFSIZ, 8192 bytes, after the 2-byte header) stays whole
for n in 8187 8188 8189 8190 8191; do
	script -qec "$(printf '%q ' "$NUMASIM" query "$T" "SELECT printf('%.*c', $n, 'a') || '€é' AS x" --format csv)" \
		/dev/null >"$tmp/tty.out" 2>&1
	grep -q 'a€é' "$tmp/tty.out" && ok || bad "a UTF-8 character cut at a buffer end ($n) was replaced"
done
"$NUMASIM" report "$T" >"$tmp/pipe.out" 2>/dev/null
grep -q $'\x1b' "$tmp/pipe.out" && ok || bad "report into a pipe changed the bytes"

# --- counters near 2^63 in the messaging report
M=$tmp/m.db
"$NUMASIM" run -q "$SRC/tests/scenarios/tiny-messaging.yaml" --db "$M" >/dev/null 2>"$tmp/err" ||
	bad "messaging run: $(cat "$tmp/err")"
sqlite3 "$M" "UPDATE branches SET executed = 9223372036854775000, taken = 9223372036854775000
	WHERE function = '__slab_free'"
"$NUMASIM" run "$SRC/tests/scenarios/tiny-messaging.yaml" --db "$M" --resume >/dev/null 2>"$tmp/err"
check "messaging report, counters near 2^63: exit" "$?" 2
grep -q 'the sum of the counters is beyond 2^63' "$tmp/err" && ok || bad "overflow: $(cat "$tmp/err")"
grep -q 'runtime error' "$tmp/err" && bad "UBSan: $(grep 'runtime error' "$tmp/err")" || ok
finish
