#!/usr/bin/env bash
# scripts/layering.sh [ROOT]: check that the source tree's layers include
# only downwards.  The layers, bottom up (README "Layout"):
#
#   base  sim  sim/hw  models  analysis  scenarios  cli
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

layers="base sim sim/hw models analysis scenarios cli"

# rank FOLDER: the folder's position in $layers (0-based); 100 for tests/
# and bench/ (on top); -1 when it is not a layer.
rank() {
	local i=0 l
	for l in $layers; do
		[ "$l" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
	case $1 in tests | tests/* | bench | bench/*) echo 100 ;; *) echo -1 ;; esac
}

# Every C file and header below the root, build directories left out.
files=$(find . -path './build*' -prune -o -path './.git' -prune -o \
	\( -name '*.c' -o -name '*.h' \) -type f -print | sed 's|^\./||' | sort)

errors=0
err() { echo "$1: error: $2"; errors=$((errors + 1)); }

for f in $files; do
	dir=$(dirname "$f")
	r=$(rank "$dir")
	if [ "$r" -lt 0 ]; then
		err "$f:1" "folder '$dir' is not a layer (scripts/layering.sh lists: $layers)"
		continue
	fi
	# line number and included name of every #include "..."
	while IFS=: read -r line name; do
		[ -n "$name" ] || continue
		if [ "$name" = numasim_config.h ]; then
			continue
		fi
		case $name in
		*/*) ;;
		*)
			err "$f:$line" "#include \"$name\": name the header's folder from the source root"
			continue
			;;
		esac
		if [ ! -f "$name" ]; then
			err "$f:$line" "#include \"$name\": no such header in the source tree"
			continue
		fi
		hdir=$(dirname "$name")
		hr=$(rank "$hdir")
		if [ "$hr" -lt 0 ]; then
			err "$f:$line" "#include \"$name\": folder '$hdir' is not a layer"
		elif [ "$hr" -eq 100 ] && [ "${hdir%%/*}" != "${dir%%/*}" ]; then
			err "$f:$line" "#include \"$name\": $dir/ may not include $hdir/"
		elif [ "$hr" -gt "$r" ]; then
			err "$f:$line" "#include \"$name\": $dir/ is below $hdir/ and may not include it"
		fi
		case $name in
		*_internal.h)
			[ "$hdir" = "$dir" ] ||
				err "$f:$line" "#include \"$name\": private to $hdir/"
			;;
		esac
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
		sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1:\2/')
done

if [ "$errors" -gt 0 ]; then
	echo "layering: $errors violation(s)"
	exit 1
fi
echo "layering: $(echo "$files" | wc -l) files, no violations"
