# bash completion for numasim (installed as
# DATADIR/bash-completion/completions/numasim by `meson install`).
#
# Everything is asked of numasim itself, so the completion cannot drift
# from the program: commands from `numasim --help`, a command's options
# from its option table through the hidden `numasim __options CMD
# [BENCHMARK]` (one name a line; cli/options.h), shipped machines, scenarios and cost profiles
# from `numasim list ...`, the keys of --set/--sweep (kernel.KNOB,
# workload.PARAM, policy.KEY, ...) from `numasim list keys`.  Needs only
# bash (no bash-completion helpers).

# The numasim being completed: the word typed, when it runs.
_numasim_exe() {
	local w=${COMP_WORDS[0]}
	w=${w/#\~/$HOME}
	if [[ $w == */* && -x $w ]] || type -P "$w" >/dev/null 2>&1; then
		printf '%s' "$w"
	else
		printf 'numasim'
	fi
}

# Words of a section of `numasim [CMD] --help`: the first column of the
# lines after a line "NAME:" (commands:, benchmarks:).
_numasim_section() {
	"$@" 2>/dev/null | awk -v s="$_numasim_sec" '$0 == s ":" { f = 1; next }
		f && /^  [a-z]/ { print $1; next } f && /^$/ { exit }'
}

_numasim_names() {      # machines | scenarios | costs | keys
	"$1" list "$2" 2>/dev/null | awk -v k="$2" 'k == "keys" || NR > 1 { print $1 }'
}

_numasim_options() {    # EXE CMD [SUB]: the options of its table
	local exe=$1
	shift
	"$exe" __options "$@" 2>/dev/null | sort -u
}

_numasim() {
	local exe cur prev cmd i words
	exe=$(_numasim_exe)
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()
	if ((COMP_CWORD == 1)); then
		words=$(_numasim_sec=commands _numasim_section "$exe" --help)
		COMPREPLY=($(compgen -W "$words help --help --version" -- "$cur"))
		return
	fi
	cmd=${COMP_WORDS[1]}
	case $prev in
	--machine)
		COMPREPLY=($(compgen -W "$(_numasim_names "$exe" machines)" -- "$cur")
			   $(compgen -f -X '!*.yaml' -- "$cur") $(compgen -d -- "$cur"))
		return ;;
	--costs)
		COMPREPLY=($(compgen -W "$(_numasim_names "$exe" costs)" -- "$cur")
			   $(compgen -f -X '!*.yaml' -- "$cur"))
		return ;;
	--set | --sweep)
		# KEY=VALUE: the keys, "=" appended and no space after it
		COMPREPLY=($(compgen -W "$(_numasim_names "$exe" keys)" -S = -- "$cur"))
		compopt -o nospace 2>/dev/null
		return ;;
	--format)
		COMPREPLY=($(compgen -W "$("$exe" "$cmd" --help 2>/dev/null |
			grep -oE -- '--format [a-z|]+' | head -1 | sed 's/--format //; s/|/ /g')" -- "$cur"))
		return ;;
	--workload)
		COMPREPLY=($(compgen -W "pagealloc messaging parallel" -- "$cur"))
		return ;;
	--db | -o | --output | --data)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	esac
	if [[ $cur == -* ]]; then
		local sub=$cmd
		[[ $cmd == bench && COMP_CWORD -gt 2 ]] && sub="bench ${COMP_WORDS[2]}"
		COMPREPLY=($(compgen -W "$(_numasim_options "$exe" $sub)" -- "$cur"))
		return
	fi
	case $cmd in
	list)
		((COMP_CWORD == 2)) && COMPREPLY=($(compgen -W "machines scenarios costs keys" -- "$cur"))
		;;
	bench)
		((COMP_CWORD == 2)) &&
			COMPREPLY=($(compgen -W "$(_numasim_sec=benchmarks _numasim_section "$exe" bench --help)" -- "$cur"))
		;;
	help)
		COMPREPLY=($(compgen -W "$(_numasim_sec=commands _numasim_section "$exe" --help)" -- "$cur"))
		;;
	run | trace)
		COMPREPLY=($(compgen -W "$(_numasim_names "$exe" scenarios)" -- "$cur")
			   $(compgen -f -X '!*.yaml' -- "$cur") $(compgen -d -- "$cur"))
		;;
	validate)
		COMPREPLY=($(compgen -W "$(_numasim_names "$exe" machines) $(_numasim_names "$exe" scenarios) $(_numasim_names "$exe" costs)" -- "$cur")
			   $(compgen -f -X '!*.yaml' -- "$cur") $(compgen -d -- "$cur"))
		;;
	topology)
		COMPREPLY=($(compgen -W "$(_numasim_names "$exe" machines)" -- "$cur")
			   $(compgen -f -X '!*.yaml' -- "$cur") $(compgen -d -- "$cur"))
		;;
	*)
		COMPREPLY=($(compgen -f -- "$cur"))
		;;
	esac
}
complete -F _numasim numasim
