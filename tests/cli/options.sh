#!/usr/bin/env bash
# The option tables (cli/options.h) drive --help, completion and "did you
# mean": for every command and every benchmark of `numasim bench`, each
# option of its table (`numasim __options CMD [BENCHMARK]`, the hidden
# listing the completion reads)
#   - appears in its --help (so in its man page, generated from --help);
#   - is offered by the bash completion (scripts/numasim-completion.bash)
#     for "numasim CMD -";
#   - mistyped (its last two letters swapped) is an unknown option, exit 2,
#     one line naming it as the nearest: "(did you mean '--opt'?)".
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

comp=$SRC/scripts/numasim-completion.bash

# completion of "numasim WORDS... -" (COMPREPLY, one a line)
complete_dash() {
	bash -c '
		. "$1"
		shift
		COMP_WORDS=("$@" -)
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_numasim
		printf "%s\n" "${COMPREPLY[@]}"
	' _ "$comp" "$NUMASIM" "$@"
}

# the option with its last two letters swapped ("--limti")
typo() {
	local o=$1 n=${#1}
	printf '%s%s%s' "${o:0:n-2}" "${o:n-1:1}" "${o:n-2:1}"
}

commands=$("$NUMASIM" --help | awk '/^commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 }')
benches=$("$NUMASIM" bench --help | awk '/^benchmarks:/ { f = 1; next }
	f && /^  [a-z]/ { print $1; next } f && /^$/ { exit }')
[ -n "$commands" ] && ok || bad "no commands in numasim --help"
[ -n "$benches" ] && ok || bad "no benchmarks in numasim bench --help"

cases=()
for c in $commands; do cases+=("$c"); done
for b in $benches; do cases+=("bench $b"); done

for words in "${cases[@]}"; do
	# shellcheck disable=SC2086
	set -- $words
	"$NUMASIM" __options "$@" >"$tmp/names"
	[ -s "$tmp/names" ] && ok || { bad "$words: __options lists nothing"; continue; }
	grep -qx -- --help "$tmp/names" && grep -qx -- -h "$tmp/names" && ok ||
		bad "$words: __options lacks -h/--help"
	"$NUMASIM" "$@" --help >"$tmp/help" 2>&1 && ok || bad "$words --help: exit $?"
	complete_dash "$@" >"$tmp/comp"
	while read -r opt; do
		# in --help: as a word of its own (not a prefix of a longer name)
		grep -qE -- "(^|[ ,])$opt([ ,=]|\$)" "$tmp/help" && ok ||
			bad "$words: $opt not in --help"
		grep -qxF -- "$opt" "$tmp/comp" && ok || bad "$words: $opt not completed"
		case $opt in --help | -h) continue ;; esac
		[ ${#opt} -ge 5 ] || continue     # "-o", "--x": no room for a typo
		t=$(typo "$opt")
		grep -qxF -- "$t" "$tmp/names" && continue   # the typo is an option
		want="numasim $words: error: unknown option '$t' (did you mean '$opt'?)"
		"$NUMASIM" "$@" "$t" >"$tmp/out" 2>"$tmp/err" </dev/null
		rc=$?
		[ $rc -eq 2 ] && ok || bad "$words $t: exit $rc, want 2"
		[ -s "$tmp/out" ] && bad "$words $t: wrote to stdout" || ok
		[ "$(cat "$tmp/err")" = "$want" ] && ok ||
			bad "$words $t: got '$(cat "$tmp/err")', want '$want'"
	done <"$tmp/names"
done

# the hidden listing is not a command: not in --help, not a suggestion
"$NUMASIM" --help | grep -q __options && bad "__options in numasim --help" || ok
"$NUMASIM" __option >/dev/null 2>"$tmp/err"
grep -q "__options" "$tmp/err" && bad "__options suggested: $(cat "$tmp/err")" || ok
[ -z "$("$NUMASIM" __options frobnicate)" ] && ok || bad "__options of an unknown command"

finish
