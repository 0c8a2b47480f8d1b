#!/usr/bin/env bash
# help2man.sh NUMASIM CMD OUT VERSION: the man page of `numasim CMD` (CMD
# "numasim" for numasim(1) itself), generated at build time from the text
# `numasim CMD --help` prints, so the page and --help cannot drift: the
# usage lines become SYNOPSIS, the rest DESCRIPTION (kept as printed, in a
# no-fill block: its columns are aligned by hand), and the one-line summary
# of `numasim --help` the NAME line.  The options block of every --help
# is printed from the command's option table (cli/options.h), so every
# option is on the page.  `numasim bench` gets each
# benchmark's --help as a section of its own.
set -eu
exe=$1 cmd=$2 out=$3 version=$4

# roff-safe text: backslashes doubled, a leading . or ' escaped
esc() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }

if [ "$cmd" = numasim ]; then
	help=$("$exe" --help)
	name="numasim"
	summary="simulate Linux NUMA memory allocation"
else
	help=$("$exe" "$cmd" --help)
	name="numasim-$cmd"
	summary=$("$exe" --help | awk -v c="$cmd" '$1 == c { $1 = ""; sub(/^ +/, ""); print; exit }')
fi
# usage: the first paragraph (up to the first blank line)
usage=$(printf '%s\n' "$help" | awk 'NR == 1 { sub(/^usage: /, "") } /^$/ { exit } { print }')
body=$(printf '%s\n' "$help" | awk 'f { print } /^$/ && !f { f = 1 }')
upper=$(printf '%s' "$name" | tr 'a-z' 'A-Z')
{
	printf '.TH %s 1 "" "numasim %s" "numasim manual"\n' "$upper" "$version"
	printf '.SH NAME\n%s \\- %s\n' "$name" "$(printf '%s' "$summary" | esc)"
	printf '.SH SYNOPSIS\n.nf\n%s\n.fi\n' "$(printf '%s\n' "$usage" | sed 's/^ *//' | esc)"
	printf '.SH DESCRIPTION\n.nf\n%s\n.fi\n' "$(printf '%s\n' "$body" | esc)"
	if [ "$cmd" = bench ]; then
		for b in $("$exe" bench --help | awk '/^benchmarks:/ { f = 1; next } f && /^  [a-z]/ { print $1 } /^$/ && f { exit }'); do
			printf '.SH BENCHMARK %s\n.nf\n%s\n.fi\n' "$(printf '%s' "$b" | tr 'a-z' 'A-Z')" \
				"$("$exe" bench "$b" --help | esc)"
		done
	fi
	printf '.SH SEE ALSO\n'
	if [ "$cmd" = numasim ]; then
		"$exe" --help | awk '/^commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 }' |
			sed 's/.*/numasim-&(1)/' | paste -sd, - | sed 's/,/, /g'
	else
		printf 'numasim(1)\n'
	fi
	printf '\nThe documentation in docs/ of the numasim sources.\n'
} >"$out.tmp"
mv "$out.tmp" "$out"
