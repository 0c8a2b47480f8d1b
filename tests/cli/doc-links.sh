#!/usr/bin/env bash
# The documentation's links resolve and point inside the repository:
#  - every relative link of README.md and docs/**/*.md (markdown
#    `[text](target)`, `![alt](image)` and HTML `src=`/`href=`) names a file
#    or folder that exists, relative to the document, and an anchor
#    (`#...`) in a link to a markdown page names one of its headings;
#  - every repository path of a page or image under docs/ written anywhere in the
#    sources, scripts, tests, configs and docs names a file that exists
#    (comments and --help texts point at the docs by that path);
#  - no file of the project refers to the workspace folder beside the
#    repository (the pattern below): what a user needs is in the
#    repository.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cd "$SRC" || exit 1
docs=$(find README.md docs -name '*.md' | sort)
[ -n "$docs" ] && ok || bad "no README.md or docs/*.md under $SRC"

# anchors GitHub makes of a page's headings: lower case, punctuation but
# '-' and '_' dropped, spaces to '-'
anchors() {
	sed -n 's/^#\{1,6\} \(.*\)/\1/p' "$1" | tr 'A-Z' 'a-z' |
		sed -e 's/[^a-z0-9 _-]//g' -e 's/ /-/g'
}

nlinks=0
for d in $docs; do
	dir=$(dirname "$d")
	# markdown links and images (not inside code spans is not attempted:
	# the docs put no links in code), then src= and href= of raw HTML
	targets=$( { perl -ne 'while (/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g) { print "$1\n" }' "$d"
		perl -ne 'while (/\b(?:src|href)="([^"]+)"/g) { print "$1\n" }' "$d"; } | sort -u)
	for t in $targets; do
		case $t in
		*://* | mailto:*) continue ;;
		esac
		nlinks=$((nlinks + 1))
		file=${t%%#*}
		frag=
		[ "$file" != "$t" ] && frag=${t#*#}
		if [ -z "$file" ]; then
			target=$d
		else
			target=$dir/$file
		fi
		if [ ! -e "$target" ]; then
			bad "$d: link '$t' does not resolve ($target)"
			continue
		fi
		case $target in
		/*) bad "$d: link '$t' is absolute"; continue ;;
		esac
		# inside the repository: no more '..' than the document is deep
		real=$(cd "$(dirname "$target")" && pwd -P)
		case $real/ in
		"$(pwd -P)"/*) ;;
		*) bad "$d: link '$t' leaves the repository"; continue ;;
		esac
		if [ -n "$frag" ] && [ "${target%.md}" != "$target" ]; then
			if anchors "$target" | grep -qxF -- "$frag"; then ok; else
				bad "$d: link '$t': no heading with anchor #$frag in $target"
			fi
		else
			ok
		fi
	done
done
[ "$nlinks" -ge 20 ] && ok || bad "only $nlinks relative links found in README and docs (the extraction broke?)"

# the project's files: sources, scripts, tests, configs, scenarios, docs;
# not build directories, results or version-control data
project_files() {
	find . \( -name '.git' -o -name 'build*' -o -name 'results' -o -name '.cache' \) -prune -o \
		-type f \( -name '*.[ch]' -o -name '*.md' -o -name '*.sh' -o -name '*.py' \
		-o -name '*.yaml' -o -name '*.sql' -o -name 'meson.build' -o -name 'meson_options.txt' \
		-o -name '*.bash' -o -name '*.patch' -o -path './.ci/*' \) -print | sort
}
files=$(project_files)
[ "$(echo "$files" | wc -l)" -ge 100 ] && ok || bad "too few project files found: $(echo "$files" | wc -l)"

# repository paths of docs files written anywhere
# shellcheck disable=SC2086
missing=$(perl -ne 'while (m{(?:(?<![\w/.-])|(?<=\$SRC/)|(?<=\$ROOT/)|(?<=%s/)|(?<=\}/))(docs/(?:(?:guide|reference|design|results)/)?[A-Za-z0-9_.-]+?\.(?:md|svg|png))(?![\w-])}g) { print "$ARGV: $1\n" }' $files |
	while read -r where path; do
		[ -e "$path" ] || echo "$where $path"
	done)
[ -z "$missing" ] && ok || bad "paths of docs that do not exist:
$missing"

# nothing outside the repository
# shellcheck disable=SC2086
outside=$(grep -nE '\.\./shared|shared/(reference|seeds|design)' $files /dev/null)
[ -z "$outside" ] && ok || bad "files that refer to the workspace outside the repository:
$outside"
finish
