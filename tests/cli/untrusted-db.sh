#!/usr/bin/env bash
# Issue 51, findings 3 and 4: a database is untrusted input.
#   finding 3 (crashes on files that pass quick_check): a 100,000-frame
#     call path (flame.c recursed once per frame), a NULL function name
#     (profile_paths, or a redefined profile_stacks view) reaching strdup,
#     a NULL runs.workload reaching strcmp in the HTML report, a NULL
#     runs.variant crashing `run --resume` (table.c).  Now: the readers
#     refuse a redefined numasim view or table (exit 2, naming it), the
#     writers any object numasim did not create; what --trust-db lets
#     through is checked row by row (exit 2 naming the row), and call
#     paths are drawn without recursion, at most FLAME_MAX_DEPTH frames.
#   finding 4 (stored results changed silently): `run --db` fired a
#     trigger planted in the file; now the writer refuses triggers,
#     changed views and extra (virtual) tables before its first write
#     (exit 2, file unchanged) unless --trust-db.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TINY=$SRC/tests/scenarios/tiny-pagealloc.yaml
P=$tmp/p.db
"$NUMASIM" run -q "$TINY" --db "$P" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; bad "run"; }

# expect NAME STATUS GREP CMD...: exit STATUS (never a signal), stderr matching GREP (ERE)
expect() {
	local name=$1 want=$2 pat=$3
	shift 3
	timeout 120 "$@" >"$tmp/o" 2>"$tmp/e"
	local st=$?
	if [ $st = "$want" ]; then ok; else bad "$name: exit $st, want $want: $(head -c 300 "$tmp/e")"; fi
	if [ -z "$pat" ] || grep -Eq -- "$pat" "$tmp/e"; then ok; else
		bad "$name: stderr '$(head -c 300 "$tmp/e")' does not match '$pat'"; fi
}
copy() { rm -f "$2"; sqlite3 "$1" ".backup '$2'"; }
# unconstrained DB TABLE COLUMN: the file's TABLE without NOT NULL and
# CHECK on COLUMN (PRAGMA writable_schema, as an attacker would edit it)
unconstrained() {
	local sql
	sql=$(sqlite3 "$1" "SELECT sql FROM sqlite_schema WHERE name = '$2'")
	sql=$(sed -E "s/(\b$3 +TEXT) +NOT NULL( CHECK \([^)]*\))?/\1/" <<<"$sql")
	sqlite3 "$1" "PRAGMA writable_schema = ON;
		UPDATE sqlite_schema SET sql = '${sql//\'/\'\'}' WHERE name = '$2';" ||
		bad "cannot edit $2"
}

# --- finding 3: a 100,000-frame call path (a redefined profile_stacks)
D=$tmp/deep.db
copy "$P" "$D"
sqlite3 "$D" "DROP VIEW profile_stacks; CREATE VIEW profile_stacks AS
	WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
	SELECT 1 AS run_id, 1 AS path_id, 0 AS parent_id, 'f' AS function,
	  (SELECT group_concat('f', ';') FROM n) AS stack, 100000 AS depth, 1 AS calls,
	  1000 AS self_cycles, 0 AS mispredicted;"
expect "finding 3: plot --flame, 100,000 frames" 2 "view 'profile_stacks'" \
	"$NUMASIM" plot "$D" --flame --run 1 -o "$tmp/deep.svg"
expect "finding 3: report --format html, 100,000 frames" 2 "view 'profile_stacks'" \
	"$NUMASIM" report "$D" --format html -o "$tmp/deep.html"
# ... and a deep chain in the table itself: refused by the depth bound
D2=$tmp/deep2.db
copy "$P" "$D2"
sqlite3 "$D2" "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
	INSERT INTO profile_paths SELECT 1, 100000 + i, CASE i WHEN 1 THEN 0 ELSE 99999 + i END,
	'deep_' || i, 1, 1000, 0 FROM n;"
expect "finding 3: plot --flame, a 3,000-frame chain" 2 "more than 1024 frames" \
	"$NUMASIM" plot "$D2" --flame --run 1 -o "$tmp/deep2.svg"
expect "finding 3: export --format folded, a 3,000-frame chain" 2 "more than 1024 frames" \
	"$NUMASIM" export "$D2" --format folded --run 1
# a 1,000-frame chain is drawn (no recursion: the C stack does not grow)
D3=$tmp/deep3.db
copy "$P" "$D3"
sqlite3 "$D3" "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
	INSERT INTO profile_paths SELECT 1, 100000 + i, CASE i WHEN 1 THEN 0 ELSE 99999 + i END,
	'deep_' || i, 1, 1000, 0 FROM n;"
expect "a 1,000-frame chain is drawn" 0 "" \
	bash -c "ulimit -s 1024; exec \"\$0\" plot \"\$1\" --flame --run 1 -o \"\$2\"" \
	"$NUMASIM" "$D3" "$tmp/deep3.svg"

# --- finding 3: a NULL function name: a redefined view, an edited table
N1=$tmp/null-view.db
copy "$P" "$N1"
sqlite3 "$N1" "DROP VIEW profile_stacks; CREATE VIEW profile_stacks AS SELECT run_id,
	path_id, parent_id, NULL AS function, NULL AS stack, 1 AS depth, calls, self_cycles,
	mispredicted FROM profile_paths;"
expect "finding 3: plot --flame, NULL stack from a view" 2 "view 'profile_stacks'" \
	"$NUMASIM" plot "$N1" --flame --run 1 -o "$tmp/n1.svg"
expect "finding 3: export --format folded, NULL stack from a view" 2 "view 'profile_stacks'" \
	"$NUMASIM" export "$N1" --format folded --run 1
N2=$tmp/null-fn.db
copy "$P" "$N2"
unconstrained "$N2" profile_paths function
sqlite3 "$N2" "UPDATE profile_paths SET function = NULL WHERE run_id = 1 AND path_id = 2"
expect "finding 3: plot --flame, NULL in profile_paths.function" 2 "table 'profile_paths'" \
	"$NUMASIM" plot "$N2" --flame --run 1 -o "$tmp/n2.svg"

# --- finding 3: NULL runs.workload in the HTML report, NULL runs.variant in run --resume
N3=$tmp/null-wl.db
copy "$P" "$N3"
unconstrained "$N3" runs workload
sqlite3 "$N3" "UPDATE runs SET workload = NULL WHERE run_id = 1"
expect "finding 3: report --format html, NULL runs.workload" 2 "table 'runs'" \
	"$NUMASIM" report "$N3" --format html -o "$tmp/n3.html"
N4=$tmp/null-var.db
copy "$P" "$N4"
unconstrained "$N4" runs variant
sqlite3 "$N4" "UPDATE runs SET variant = NULL"
expect "finding 3: run --resume, NULL runs.variant" 2 "table 'runs'" \
	"$NUMASIM" run -q "$TINY" --db "$N4" --resume
# with --trust-db the row itself is refused, named
expect "run --resume --trust-db, NULL runs.variant" 2 "has no variant" \
	"$NUMASIM" run -q "$TINY" --db "$N4" --resume --trust-db

# --- finding 4: a planted trigger, a changed view, an extra virtual table
sum() { sqlite3 "$1" "SELECT count(*), total(value) FROM samples"; }
T=$tmp/trigger.db
copy "$P" "$T"
sqlite3 "$T" "CREATE TRIGGER wipe AFTER INSERT ON runs BEGIN
	DELETE FROM runs WHERE run_id < NEW.run_id; UPDATE samples SET value = 0; END;"
before=$(sum "$T")
expect "finding 4: run --db with a trigger" 2 "trigger 'wipe' that numasim did not create" \
	"$NUMASIM" run -q "$TINY" --db "$T"
check "finding 4: samples unchanged" "$(sum "$T")" "$before"
check "finding 4: runs unchanged" "$(sqlite3 "$T" "SELECT count(*) FROM runs")" 2
expect "finding 4: run --resume with a trigger" 2 "trigger 'wipe'" \
	"$NUMASIM" run -q "$TINY" --db "$T" --resume
# readers never fire it, and read
expect "a reader reads a file with a trigger" 0 "" "$NUMASIM" report "$T"
# --trust-db writes anyway (and the trigger does what it does)
expect "run --trust-db" 0 "" "$NUMASIM" run -q "$TINY" --db "$T" --trust-db
V=$tmp/view.db
copy "$P" "$V"
sqlite3 "$V" "DROP VIEW v_runs; CREATE VIEW v_runs AS SELECT * FROM runs WHERE 0;"
expect "finding 4: run --db with a changed view" 2 "view 'v_runs'" \
	"$NUMASIM" run -q "$TINY" --db "$V"
expect "a reader refuses a changed view" 2 "view 'v_runs'" \
	"$NUMASIM" query "$V" "SELECT count(*) FROM v_runs"
X=$tmp/vtab.db
copy "$P" "$X"
sqlite3 "$X" "CREATE VIRTUAL TABLE notes USING fts5(body);"
expect "finding 4: run --db with an extra virtual table" 2 "table 'notes'" \
	"$NUMASIM" run -q "$TINY" --db "$X"
check "the refused files are unchanged" "$(sqlite3 "$X" "SELECT count(*) FROM runs")" 2
# the files numasim writes pass the check (a second run appends)
expect "run --db appends to its own file" 0 "" "$NUMASIM" run -q "$TINY" --db "$P"
finish
