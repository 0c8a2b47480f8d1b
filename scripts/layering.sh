#!/usr/bin/env bash
# scripts/layering.sh [ROOT]: check that the source tree's layers include
# only downwards.  The layers, bottom up (README "Layout"):
#
#   base  sim  machine  cost  models  analysis  workloads  scenarios  cli
#
# A C file or header in one of these folders may include a project header
# only from its own folder or a folder listed before it.  Project includes
# name the folder from the source root ("models/page_alloc.h"); a bare
# "x.h" would be found next to the including file and hide the layer, so
# it is refused too (numasim_config.h, generated in the build root, is the
# one exception).  A header named *_internal.h is private to its folder.
# tests/ and bench/ sit on top and may include anything but each other's
# files.  A C file in a folder that is not a layer is refused, so a new
# folder has to be placed in the list above.
#
# Prints one line per violation, "file:line: error: ...", and exits 1 when
# there is any, 0 otherwise.
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || { echo "layering: error: cannot enter $root" >&2; exit 2; }

layers="base sim machine cost models analysis workloads scenarios cli"

# Every C file and header below the root, build directories left out.
list=$(mktemp) || exit 2
trap 'rm -f "$list"' EXIT
find . -path './build*' -prune -o -path './.git' -prune -o \
	\( -name '*.c' -o -name '*.h' \) -type f -print | sed 's|^\./||' | sort >"$list"

# One awk pass: the file list first (which headers exist), then every
# file's lines.  rank(): the folder's position in $layers, 100 for tests/
# and bench/ (on top), -1 for a folder that is not a layer.
mapfile -t files <"$list"
awk -v layers="$layers" -v list="$list" '
function rank(d,   i) {
	if (d in pos) return pos[d]
	if (d ~ /^(tests|bench)(\/|$)/) return 100
	return -1
}
function dir(f) { return f ~ /\// ? substr(f, 1, match(f, /\/[^\/]*$/) - 1) : "." }
function top(d) { sub(/\/.*/, "", d); return d }
function err(where, msg) { print where ": error: " msg; errors++ }
BEGIN {
	n = split(layers, l, " ")
	for (i = 1; i <= n; i++) pos[l[i]] = i - 1
	while ((getline f < list) > 0) { exists[f] = 1; nfiles++ }
}
FNR == 1 {
	fdir = dir(FILENAME); frank = rank(fdir)
	if (frank < 0) err(FILENAME ":1", "folder \047" fdir "\047 is not a layer (scripts/layering.sh lists: " layers ")")
}
frank >= 0 && /^[ \t]*#[ \t]*include[ \t]*"/ {
	name = $0; sub(/^[^"]*"/, "", name); sub(/".*/, "", name)
	where = FILENAME ":" FNR; inc = "#include \"" name "\""
	if (name == "numasim_config.h") next
	if (name !~ /\//) { err(where, inc ": name the header\047s folder from the source root"); next }
	if (!(name in exists)) { err(where, inc ": no such header in the source tree"); next }
	hdir = dir(name); hrank = rank(hdir)
	if (hrank < 0)
		err(where, inc ": folder \047" hdir "\047 is not a layer")
	else if (hrank == 100 && top(hdir) != top(fdir))
		err(where, inc ": " fdir "/ may not include " hdir "/")
	else if (hrank > frank)
		err(where, inc ": " fdir "/ is below " hdir "/ and may not include it")
	if (name ~ /_internal\.h$/ && hdir != fdir)
		err(where, inc ": private to " hdir "/")
}
END {
	if (errors) { print "layering: " errors " violation(s)"; exit 1 }
	print "layering: " nfiles " files, no violations"
}' "${files[@]}"
