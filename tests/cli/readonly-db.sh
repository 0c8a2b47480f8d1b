#!/usr/bin/env bash
# Read-only databases and output paths numasim cannot create (issue "What a
# new user trips over", item 4).  The readers (report, query, compare,
# export, plot) create nothing next to a database (no -wal, no -shm) and
# read one in a read-only directory (dir 555, file 444) as another user:
# a cleanly closed database, and one left in WAL mode (-wal and -shm, with
# a change only the log holds); a log whose -shm cannot be created is
# refused with exit 2 instead of being read without the log.  Writers
# (run --db, import -o, export -o, plot -o) into a read-only or missing
# directory exit 2 with the system's reason, and write nothing.
#
# Permission checks need an unprivileged user: as root they run under
# setpriv as nobody (65534); as another user they run as that user.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 not installed"; exit 77; }

if [ "$(id -u)" -eq 0 ]; then
	command -v setpriv >/dev/null || { echo "SKIP: root without setpriv"; exit 77; }
	as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
else
	as_user() { "$@"; }
fi
chmod 755 "$tmp"
# name, want (stderr pattern), command...: exit 2, nothing on stdout
want_err() {
	local name=$1 want=$2; shift 2
	"$@" >"$tmp/eout" 2>"$tmp/eerr"
	local rc=$?
	if [ $rc -ne 2 ]; then bad "$name: exit $rc, expected 2: $(cat "$tmp/eerr")"; return; fi
	if [ -s "$tmp/eout" ]; then bad "$name: wrote to stdout"; return; fi
	if ! grep -q -- "$want" "$tmp/eerr"; then bad "$name: no '$want' in: $(cat "$tmp/eerr")"; return; fi
	ok
}
# name, dir: the directory holds exactly the files given after it
files_are() {
	local name=$1 dir=$2; shift 2
	check "$name" "$(cd "$dir" && ls -A | tr '\n' ' ')" "$* "
}
# The readers, each with its output in $tmp/out/NAME; $1 runs them (as_user
# or nothing), $2 is the database.
readers() {
	local how=$1 db=$2 tag=$3
	$how "$NUMASIM" report "$db" >"$tmp/out/$tag.report" 2>"$tmp/out/$tag.err" &&
		$how "$NUMASIM" report "$db" --runs >>"$tmp/out/$tag.report" 2>>"$tmp/out/$tag.err" &&
		$how "$NUMASIM" query "$db" "SELECT run_id, scenario FROM runs ORDER BY run_id" \
			--format csv >"$tmp/out/$tag.query" 2>>"$tmp/out/$tag.err" &&
		$how "$NUMASIM" compare "$db" --metric 'alloc-odr0-*' >"$tmp/out/$tag.compare" 2>>"$tmp/out/$tag.err" &&
		$how "$NUMASIM" export "$db" --format csv --table v_metrics >"$tmp/out/$tag.export" 2>>"$tmp/out/$tag.err" &&
		$how "$NUMASIM" plot "$db" --metric 'alloc-odr0-*' -o "$tmp/out/$tag.svg" 2>>"$tmp/out/$tag.err"
}
mkdir "$tmp/out" && chmod 777 "$tmp/out"

P=$tmp/p.db
"$NUMASIM" run -q "$SRC/tests/scenarios/tiny-pagealloc.yaml" --db "$P" >/dev/null 2>"$tmp/err" ||
	{ cat "$tmp/err"; bad "run"; }
cp "$P" "$tmp/p.orig"

# --- readers create nothing, even where they could -----------------------------
mkdir "$tmp/rw" && cp "$P" "$tmp/rw/p.db"
if readers "" "$tmp/rw/p.db" rw; then ok; else bad "readers in a writable directory: $(cat "$tmp/out/rw.err")"; fi
files_are "readers create no side files" "$tmp/rw" p.db
cmp -s "$tmp/rw/p.db" "$P" && ok || bad "readers changed the database"

# --- a cleanly closed database in a read-only directory, another user ------------
mkdir "$tmp/ro" && cp "$P" "$tmp/ro/p.db" && chmod 444 "$tmp/ro/p.db" && chmod 555 "$tmp/ro"
if readers as_user "$tmp/ro/p.db" ro; then ok; else bad "readers, read-only directory: $(cat "$tmp/out/ro.err")"; fi
files_are "read-only directory: nothing created" "$tmp/ro" p.db
for t in query compare export; do
	cmp -s "$tmp/out/ro.$t" "$tmp/out/rw.$t" && ok || bad "read-only $t differs from the writable one"
done
# the report names its file: the same report apart from that path
check "read-only report" "$(sed "s#$tmp/ro/#DIR/#g" "$tmp/out/ro.report" | md5sum)" \
	"$(sed "s#$tmp/rw/#DIR/#g" "$tmp/out/rw.report" | md5sum)"

# --- a database left in WAL mode: -wal holds a change the main file does not ------
mkdir "$tmp/wal" && cp "$P" "$tmp/wal/w.db"
sqlite3 "$tmp/wal/w.db" ".dbconfig no_ckpt_on_close on" \
	"UPDATE runs SET scenario = 'only-in-wal' WHERE run_id = 1" >/dev/null
files_are "WAL fixture" "$tmp/wal" w.db w.db-shm w.db-wal
cmp -s "$tmp/wal/w.db" "$P" && ok || bad "WAL fixture: the change reached the main file"
chmod 444 "$tmp/wal"/* && chmod 555 "$tmp/wal"
out=$(as_user "$NUMASIM" query "$tmp/wal/w.db" "SELECT scenario FROM runs WHERE run_id = 1" --format csv 2>&1)
check "WAL database, read-only directory: the log's change is read" "$(echo "$out" | tail -n1 | tr -d '\r')" only-in-wal
if as_user "$NUMASIM" report "$tmp/wal/w.db" >"$tmp/wrep" 2>&1 && grep -q '^Runs' "$tmp/wrep"; then ok
else bad "report of a WAL database in a read-only directory: $(head -3 "$tmp/wrep")"; fi
files_are "WAL database: nothing created" "$tmp/wal" w.db w.db-shm w.db-wal
# the same without its -shm: cannot be read without creating one; refused
chmod 755 "$tmp/wal" && rm -f "$tmp/wal/w.db-shm" && chmod 555 "$tmp/wal"
want_err "WAL without -shm, read-only directory" "w.db-shm is missing" \
	as_user "$NUMASIM" query "$tmp/wal/w.db" "SELECT scenario FROM runs"
files_are "WAL without -shm: nothing created" "$tmp/wal" w.db w.db-wal

# --- writers into a read-only or missing directory: exit 2, errno text ---------
# The other user reads its inputs from copies in $tmp: the source tree may
# sit below a directory only its owner can enter (a clone in mktemp -d).
mkdir -p "$tmp/src/tests/scenarios" "$tmp/src/configs"
cp "$SRC/tests/scenarios/tiny-pagealloc.yaml" "$tmp/src/tests/scenarios/"
cp "$SRC/configs/seed-2016-2s.yaml" "$tmp/src/configs/"
cp -r "$SRC/configs/costs" "$tmp/src/configs/"
cp "$SRC/tests/fixtures/numactl/amd-epyc-2s-nps4-8node.txt" "$tmp/src/numactl.txt"
chmod -R a+rX "$tmp/src"
S=$tmp/src/tests/scenarios/tiny-pagealloc.yaml
want_err "run --db, read-only directory" "ro/new.db: error: cannot create database: Permission denied" \
	as_user "$NUMASIM" run -q "$S" --db "$tmp/ro/new.db"
want_err "run --db, read-only file" "ro/p.db: error: cannot write the database: Permission denied" \
	as_user "$NUMASIM" run -q "$S" --db "$tmp/ro/p.db"
want_err "run --db, no such directory" "cannot create database: No such file or directory" \
	"$NUMASIM" run -q "$S" --db "$tmp/nodir/r.db"
export NUMASIM_CONFIGS=$tmp/src/configs   # the cost profiles, readable by the other user
want_err "import -o, read-only directory" "ro/m.yaml: error: cannot create output file: Permission denied" \
	as_user "$NUMASIM" import numactl "$tmp/src/numactl.txt" -o "$tmp/ro/m.yaml"
unset NUMASIM_CONFIGS
want_err "export -o, read-only directory" "ro/x.csv: error: cannot create output file: Permission denied" \
	as_user "$NUMASIM" export "$P" --format csv -o "$tmp/ro/x.csv"
want_err "plot -o, read-only directory" "ro/x.svg: error: cannot create output file: Permission denied" \
	as_user "$NUMASIM" plot "$P" --metric 'alloc-odr0-*' -o "$tmp/ro/x.svg"
want_err "export -o, no such directory" "cannot create output file: No such file or directory" \
	"$NUMASIM" export "$P" --format csv -o "$tmp/nodir/x.csv"
files_are "writers created nothing" "$tmp/ro" p.db
cmp -s "$tmp/ro/p.db" "$tmp/p.orig" && ok || bad "read-only database changed"

chmod -R u+w "$tmp/ro" "$tmp/wal"
finish
