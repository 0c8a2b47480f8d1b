#!/usr/bin/env bash
# The database side of issue 18 (findings 2-5, items 3, 4, 6): the locked-
# down connection and the authorizer of query/export --query, a damaged
# file refused before run --db/--resume writes to it, corruption found
# mid-read reported as bad input (exit 2) by every reading command, and
# plot's tolerance of rounding and refusal of non-numeric values.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TINY=$SRC/tests/scenarios/tiny-pagealloc.yaml
P=$tmp/p.db
"$NUMASIM" run -q "$TINY" --db "$P" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; bad "run"; }
# expect STATUS GREP CMD...: exit STATUS, stderr matching GREP (ERE), stdout empty unless 0
expect() {
	local want=$1 pat=$2
	shift 2
	"$@" >"$tmp/o" 2>"$tmp/e"
	local st=$?
	if [ $st = "$want" ]; then ok; else bad "$*: exit $st, want $want: $(head -c 300 "$tmp/e")"; fi
	if [ -z "$pat" ] || grep -Eq -- "$pat" "$tmp/e"; then ok; else
		bad "$*: stderr '$(head -c 300 "$tmp/e")' does not match '$pat'"; fi
	if [ "$want" = 0 ] || [ ! -s "$tmp/o" ]; then ok; else bad "$*: printed output"; fi
}

# --- finding 2, item 3: the authorizer and the lockdown
expect 2 "fts3_tokenizer\(\) is not allowed" "$NUMASIM" query "$P" "SELECT fts3_tokenizer('simple')"
expect 2 "fts3_tokenizer\(\) is not allowed" "$NUMASIM" query "$P" "SELECT fts3_tokenizer('x', x'0000000000000000')"
expect 2 "load_extension\(\) is not allowed" "$NUMASIM" query "$P" "SELECT load_extension('/tmp/x.so')"
expect 2 "ATTACH is not allowed" "$NUMASIM" query "$P" "ATTACH '$tmp/x.db' AS x"
expect 2 "PRAGMA query_only = 0 sets a value" "$NUMASIM" query "$P" "PRAGMA query_only = 0"
expect 2 "PRAGMA journal_mode = delete sets a value" "$NUMASIM" query "$P" "PRAGMA journal_mode = delete"
expect 2 "PRAGMA writable_schema" "$NUMASIM" query "$P" "PRAGMA writable_schema"
expect 2 "DELETE writes" "$NUMASIM" query "$P" "DELETE FROM runs"
expect 2 "fts3_tokenizer\(\) is not allowed" "$NUMASIM" export "$P" --format csv --query "SELECT fts3_tokenizer('simple')"
# ... and what only reads still works (finding 5: journal_mode without an argument)
expect 0 "" "$NUMASIM" query "$P" "PRAGMA journal_mode"
if grep -q wal "$tmp/o" || grep -q delete "$tmp/o"; then ok; else bad "PRAGMA journal_mode printed $(cat "$tmp/o")"; fi
expect 0 "" "$NUMASIM" query "$P" "PRAGMA table_info(runs)"
expect 0 "" "$NUMASIM" query "$P" "SELECT name FROM pragma_table_info('runs') LIMIT 1"
expect 0 "" "$NUMASIM" query "$P" "SELECT count(*), round(avg(value), 2), sqrt(4) FROM v_metrics"
expect 0 "" "$NUMASIM" query "$P" "SELECT count(*) FROM json_each('[1,2,3]')"
expect 0 "" "$NUMASIM" query "$P" "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) SELECT sum(x) FROM c"
# a view planted in a file may not call an unsafe function (untrusted schema)
cp "$P" "$tmp/planted.db"
sqlite3 "$tmp/planted.db" "CREATE VIEW planted AS SELECT fts3_tokenizer('simple') AS p" 2>/dev/null
expect 2 "" "$NUMASIM" query "$tmp/planted.db" "SELECT * FROM planted"
if ! grep -Eq '[0-9a-f]{12}' "$tmp/o"; then ok; else bad "a planted view printed an address"; fi

# --- finding 3, item 4: a damaged file is refused before any write
# damage PAGE DB: flip a bit in the free-space fields of a b-tree page's header
damage() {
	python3 - "$1" "$2" <<'PY'
import sys
pg, path = int(sys.argv[1]), sys.argv[2]
with open(path, 'r+b') as f:
    d = bytearray(f.read())
    ps = int.from_bytes(d[16:18], 'big')
    d[(pg - 1) * ps + 4] ^= 0x10
    f.seek(0); f.write(d)
PY
}
cp "$P" "$tmp/damaged.db"
damage 12 "$tmp/damaged.db"
before=$(sqlite3 "$tmp/damaged.db" "PRAGMA integrity_check" | wc -l)
cp "$tmp/damaged.db" "$tmp/damaged.orig"
expect 2 "damaged database: PRAGMA quick_check says '.+'; numasim does not write" \
	"$NUMASIM" run -q "$TINY" --db "$tmp/damaged.db"
expect 2 "damaged database: PRAGMA quick_check" "$NUMASIM" run -q "$TINY" --db "$tmp/damaged.db" --resume
if cmp -s "$tmp/damaged.db" "$tmp/damaged.orig"; then ok; else bad "run --db changed a damaged file"; fi
after=$(sqlite3 "$tmp/damaged.db" "PRAGMA integrity_check" | wc -l)
if [ "$before" = "$after" ]; then ok; else bad "integrity_check lines $before -> $after"; fi
# an intact file is still appended to
cp "$P" "$tmp/intact.db"
expect 0 "" "$NUMASIM" run -q "$TINY" --db "$tmp/intact.db"

# --- finding 5, item 4: corruption found mid-read is bad input (exit 2) everywhere
# Page 5 is the runs table's root: every command reads it after the open.
cp "$P" "$tmp/mid.db"
python3 - "$tmp/mid.db" <<'PY'
import sys
with open(sys.argv[1], 'r+b') as f:
    d = bytearray(f.read()); ps = int.from_bytes(d[16:18], 'big')
    d[4 * ps] = 0x07      # an invalid b-tree page type
    f.seek(0); f.write(d)
PY
M=$tmp/mid.db
expect 2 "malformed" "$NUMASIM" report "$M"
expect 2 "malformed" "$NUMASIM" report "$M" --runs
expect 2 "malformed" "$NUMASIM" compare "$M" --metric '*'
expect 2 "malformed" "$NUMASIM" query "$M" "SELECT * FROM runs"
expect 2 "malformed" "$NUMASIM" export "$M" --format csv --table runs
expect 2 "malformed" "$NUMASIM" plot "$M" --metric 'alloc-odr0-*' -o "$tmp/mid.svg"
if [ ! -e "$tmp/mid.svg" ]; then ok; else bad "plot wrote a file from a damaged database"; fi

# --- finding 4, item 6: plot clamps the mean; non-numeric values are bad input
cp "$P" "$tmp/v.db"
sqlite3 "$tmp/v.db" "UPDATE samples SET value = 0.3"
expect 0 "" "$NUMASIM" plot "$tmp/v.db" --metric 'alloc-odr0-*' -o "$tmp/v.svg"
if [ -s "$tmp/v.svg" ]; then ok; else bad "plot of equal non-integer values wrote nothing"; fi
# (the tables are STRICT: text cannot get in; an infinity can)
sqlite3 "$tmp/v.db" "UPDATE samples SET value = 9e999 WHERE idx = 0"
expect 2 "metric 'alloc-odr0-[0-9]+' has the non-numeric value 'Inf'" "$NUMASIM" plot "$tmp/v.db" --metric 'alloc-odr0-*' -o "$tmp/w.svg"
finish
