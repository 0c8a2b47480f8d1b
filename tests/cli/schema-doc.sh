#!/usr/bin/env bash
# docs/reference/schema.md against the schema's SQL (analysis/schema/vN.sql, the
# statements every numasim database is created and upgraded with):
#  - every table and view the .sql files create has a "### `name`" section
#    under "## Tables" (a table) or the two view chapters (a view), and
#    every such section names an object of the SQL;
#  - a table's section has a "| column | ..." table whose first cells are
#    exactly the table's columns (generated ones included);
#  - a view's section names each of its columns as `column`, and every
#    `word` in it is a column of the view, a table or view, or a string
#    the SQL itself uses ('ok', 'zone', ...).
# Then it changes copies of the files (a column added to the SQL only, a
# column documented that does not exist, a view column left out, a
# table without a section) and checks that each is reported, so the check
# cannot pass vacuously.
# Last, scripts/sql2c.py (the build step that embeds the files) on small
# files: statements kept as written, its rules enforced.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 not installed"; exit 77; }

# schema_doc SQLDIR DOC: one line per disagreement, "DOC: error: ...";
# exit status 1 when there is any, 2 when the SQL does not run.
schema_doc() {
	local dir=$1 doc=$2 db
	db=$(mktemp "$tmp/schema-XXXXXX") || return 2
	rm -f "$db"
	# the migrations in order, as store.c applies them to a new file
	local files=() v=1
	while [ -f "$dir/v$v.sql" ]; do files+=("$dir/v$v.sql"); v=$((v + 1)); done
	[ ${#files[@]} -gt 0 ] || { echo "$dir: error: no v1.sql"; return 2; }
	cat "${files[@]}" | sqlite3 -bail "$db" || { echo "$dir: error: the SQL does not run"; return 2; }
	# "K OBJECT COLUMN" from the SQL: K is t (table) or v (view); one
	# line "K OBJECT" per object too
	sqlite3 -separator ' ' "$db" "
SELECT substr(o.type, 1, 1), o.name, '' FROM sqlite_schema o
 WHERE o.type IN ('table', 'view') AND o.name NOT LIKE 'sqlite_%'
UNION ALL
SELECT substr(o.type, 1, 1), o.name, c.name
  FROM sqlite_schema o, pragma_table_xinfo(o.name) c
 WHERE o.type IN ('table', 'view') AND o.name NOT LIKE 'sqlite_%';" |
		sed 's/ $//' | sort >"$db.sql" || return 2
	# the string literals of the SQL that are words: documented values
	cat "${files[@]}" | grep -v '^[[:space:]]*--' | grep -o "'[A-Za-z_][A-Za-z0-9_]*'" |
		tr -d "'" | sort -u >"$db.lit"
	# the same from the doc: "t OBJ", "t OBJ COL" for a row of its column
	# table; "v OBJ", "v OBJ WORD" for every `word` of a view's section
	awk '
	/^```/ { fence = !fence; next }
	fence { next }
	/^## / { chapter = ($0 == "## Tables") ? "t" : ($0 ~ /^## (Views for queries|Other views)/) ? "v" : ""; obj = ""; next }
	chapter == "" { next }
	/^### `[A-Za-z0-9_]+`$/ {
		obj = $0; sub(/^### `/, "", obj); sub(/`$/, "", obj)
		print chapter, obj; coltable = 0; next
	}
	/^### / { obj = ""; next }
	obj == "" { next }
	chapter == "t" {
		if ($0 ~ /^\| column \|/) { coltable = 1; next }
		if ($0 !~ /^\|/) { coltable = 0; next }
		if (coltable && $0 ~ /^\| `[A-Za-z0-9_]+` \|/) {
			c = $0; sub(/^\| `/, "", c); sub(/`.*/, "", c); print "t", obj, c
		}
		next
	}
	{
		line = $0
		while (match(line, /`[^`]*`/)) {
			w = substr(line, RSTART + 1, RLENGTH - 2); line = substr(line, RSTART + RLENGTH)
			if (w ~ /^[A-Za-z_][A-Za-z0-9_]*$/) print "v", obj, w
		}
	}' "$doc" | sort -u >"$db.doc"
	awk -v doc="$doc" -v sqlf="$db.sql" -v litf="$db.lit" '
	function err(m) { print doc ": error: " m; n++ }
	BEGIN {
		while ((getline l < sqlf) > 0) {
			k = split(l, f, " ")
			if (k == 2) { kind[f[2]] = f[1]; objs[f[2]] = 1 }
			else { col[f[2] " " f[3]] = 1; cols[f[2]] = cols[f[2]] " " f[3] }
		}
		while ((getline l < litf) > 0) lit[l] = 1
	}
	NF == 2 {
		sec[$2] = $1
		if (!($2 in kind)) err("section `" $2 "`: the schema has no table or view " $2)
		else if (kind[$2] != $1) err("`" $2 "` is a " (kind[$2] == "t" ? "table" : "view") " but documented with the " ($1 == "t" ? "tables" : "views"))
		next
	}
	$1 == "t" {
		seen[$2 " " $3] = 1
		if ($2 in kind && !(($2 " " $3) in col)) err("table `" $2 "`: documented column `" $3 "` is not in the SQL")
		next
	}
	{
		seen[$2 " " $3] = 1
		if (($2 " " $3) in col || $3 in objs || $3 in lit || !($2 in kind)) next
		err("view `" $2 "`: `" $3 "` is neither one of its columns, a table or view, nor a value of the SQL")
	}
	END {
		for (o in objs) {
			if (!(o in sec)) { err("no section ### `" o "` for the " (kind[o] == "t" ? "table" : "view") " " o); continue }
			k = split(cols[o], c, " ")
			for (i = 1; i <= k; i++)
				if (!((o " " c[i]) in seen))
					err((kind[o] == "t" ? "table" : "view") " `" o "`: column `" c[i] "` of the SQL is not documented")
		}
		exit n > 0
	}' "$db.doc"
}

SQL=$SRC/analysis/schema
DOC=$SRC/docs/reference/schema.md

schema_doc "$SQL" "$DOC" >"$tmp/out" 2>&1
rc=$?
if [ $rc -eq 0 ] && [ ! -s "$tmp/out" ]; then ok; else bad "docs/reference/schema.md disagrees with analysis/schema (exit $rc):"; cat "$tmp/out"; fi
# not vacuous: the SQL gives the objects and columns the store has
cat "$SQL"/v*.sql | sqlite3 "$tmp/real.db" || bad "the SQL does not run"
check "tables and views" "$(sqlite3 "$tmp/real.db" "SELECT count(*) FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'")" 28
check "columns of runs" "$(sqlite3 "$tmp/real.db" "SELECT count(*) FROM pragma_table_xinfo('runs')")" 22

# expect_error NAME PATTERN: the check of the copies in $tmp/m fails with
# PATTERN among its messages.
expect_error() {
	schema_doc "$tmp/m" "$tmp/m/schema.md" >"$tmp/mout" 2>&1
	local rc=$?
	[ -n "${SCHEMA_DOC_VERBOSE:-}" ] && cat "$tmp/mout"
	if [ $rc -eq 1 ] && grep -q -- "$2" "$tmp/mout"; then ok; else
		bad "$1: exit $rc, no '$2' in: $(cat "$tmp/mout")"
	fi
}
# fresh copies of the SQL and the doc in $tmp/m
copies() {
	rm -rf "$tmp/m" && mkdir "$tmp/m" && cp "$SQL"/v*.sql "$DOC" "$tmp/m/"
}

copies
sed -i 's/^  message         TEXT,$/  message         TEXT,\n  note            TEXT,/' "$tmp/m/v1.sql"
grep -q '^  note ' "$tmp/m/v1.sql" || bad "could not add a column to the copy of v1.sql"
expect_error "a column in the SQL only" 'table `runs`: column `note` of the SQL is not documented'

copies
sed -i 's/^| `message` | TEXT, nullable | why/| `note` | TEXT | a note |\n&/' "$tmp/m/schema.md"
expect_error "a documented column not in the SQL" 'table `runs`: documented column `note` is not in the SQL'

copies
sed -i 's/`n_metrics` and `n_samples`/`n_metrics`/' "$tmp/m/schema.md"
expect_error "a view column left out" 'view `run_overview`: column `n_samples` of the SQL is not documented'

copies
sed -i 's/`sem` (standard error/`sem`, `median` (standard error/' "$tmp/m/schema.md"
expect_error "a view column that does not exist" 'view `metric_summary`: `median` is neither'

copies
printf '\nCREATE TABLE notes (run_id INTEGER, note TEXT);\n' >>"$tmp/m/v3.sql"
expect_error "a table without a section" 'no section ### `notes` for the table notes'

copies
sed -i 's/^### `branch_stats`$/### `branch_rates`/' "$tmp/m/schema.md"
expect_error "a section of no object" 'section `branch_rates`: the schema has no table or view branch_rates'

# The generator that embeds the files (scripts/sql2c.py) keeps a
# statement's text as the file has it and refuses what SQLite would store
# other than the file shows.
gen() { python3 "$SRC/scripts/sql2c.py" "$tmp/g.c" "$@" >"$tmp/gout" 2>&1; }
if command -v python3 >/dev/null; then
	mkdir -p "$tmp/g"
	printf -- '-- a comment\n\nCREATE TABLE t (\n  a TEXT CHECK (a NOT GLOB '"'"'*[ \t]*'"'"')\n) STRICT;\nCREATE VIEW w AS SELECT "a" FROM t;\n' >"$tmp/g/v1.sql"
	if gen "$tmp/g/v1.sql" && grep -qF '"CREATE TABLE t (\n"' "$tmp/g.c" &&
		grep -qF "\"  a TEXT CHECK (a NOT GLOB '*[ \\t]*')\\n\"" "$tmp/g.c" &&
		grep -qF '") STRICT",' "$tmp/g.c" && grep -qF '"CREATE VIEW w AS SELECT \"a\" FROM t",' "$tmp/g.c"; then
		ok
	else
		bad "sql2c.py: statements not kept as written: $(cat "$tmp/gout" "$tmp/g.c")"
	fi
	printf 'CREATE TABLE t (\n  -- why\n  a TEXT\n);\n' >"$tmp/g/v1.sql"
	gen "$tmp/g/v1.sql" && bad "sql2c.py took a comment inside a statement" ||
		{ grep -q 'v1.sql:2: error: a comment inside a statement' "$tmp/gout" && ok || bad "sql2c.py: $(cat "$tmp/gout")"; }
	printf 'CREATE TABLE t (a TEXT)\n' >"$tmp/g/v1.sql"
	gen "$tmp/g/v1.sql" && bad "sql2c.py took a statement without its ';'" ||
		{ grep -q "v1.sql:1: error: statement without its final ';'" "$tmp/gout" && ok || bad "sql2c.py: $(cat "$tmp/gout")"; }
	printf 'CREATE TABLE t (a TEXT);\n' >"$tmp/g/v2.sql"
	gen "$tmp/g/v2.sql" && bad "sql2c.py took v2.sql as the first migration" ||
		{ grep -q 'must be named v1.sql' "$tmp/gout" && ok || bad "sql2c.py: $(cat "$tmp/gout")"; }
fi

finish
