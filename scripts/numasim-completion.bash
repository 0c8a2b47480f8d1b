# bash completion for numasim (installed as
# DATADIR/bash-completion/completions/numasim by `meson install`).
#
# Everything is asked of numasim itself, so the completion cannot drift
# from the program: commands from `numasim --help`, a command's options
# from its option table through the hidden `numasim __options CMD
# [BENCHMARK]` (one name a line; cli/options.h), shipped machines, scenarios and cost profiles
# from `numasim list ...`, the keys of --set/--sweep (kernel.KNOB,
# workload.PARAM, policy.KEY, ...) from `numasim list keys`, their values
# (--set policy.cpuset=<TAB>) from the reference's choices
# (_numasim_values) and `numasim list commits`, compare's --by keys from
# the runs columns and the keys.  Needs only
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

# The values of a --set/--sweep key: fixed choices as
# docs/reference/scenario-format.md lists them, commits and machines asked
# of numasim; nothing for free-form values (numbers, node lists, sizes).
_numasim_values() {     # EXE KEY
	case $2 in
	machine) _numasim_names "$1" machines ;;
	kernel.commit) "$1" list commits 2>/dev/null | awk 'NR > 1 && $2 ~ /^[0-9]+$/ { print $3 }' ;;
	kernel.zonelist_iter) echo pre-682a3385 682a3385 ;;
	kernel.slab_free_layout) echo pre-c270cf30 c270cf30 ;;
	kernel.zonelist_order) echo node zone ;;
	kernel.memoryless) echo online offline-x86 ;;
	kernel.slub_stats | kernel.slub_cpu_partial) echo on off ;;
	kernel.compiler_layout) echo gcc clang ;;
	kernel.zone_reclaim_mode) echo 0 1 2 3 4 5 6 7 pre-3.16 ;;
	kernel.swap) echo none ;;
	policy.cpuset) echo none all local ;;
	policy.mempolicy) echo default local bind preferred interleave ;;
	policy.nodes) echo all ;;
	workload.type) echo pagealloc messaging parallel fill replay ;;
	cost.model) echo ooo inorder ;;
	cost.bpred) echo gshare bimodal tage ;;
	cost.code) echo estimate compiled ;;
	cost.accounting) echo exact memo sampled ;;
	esac
}

# compare --by KEY: the runs columns and every scenario key.
_numasim_by_keys() {    # EXE
	echo variant kernel_model machine workload scenario point seed
	_numasim_names "$1" keys
}

# --set/--sweep KEY=VALUE with the cursor in VALUE: cur is what is typed
# of the value (after '=', and for --sweep after the last ','), key the
# key; COMP_WORDBREAKS usually holds '=', so the key is then a word of its
# own before a word '='.
_numasim_set_value() {  # EXE OPTION KEY CUR [PREFIX]
	local exe=$1 opt=$2 key=$3 cur=$4 pre=${5-} done=
	if [[ $opt == --sweep && $cur == *,* ]]; then
		done=${cur%,*},
		cur=${cur##*,}
	fi
	COMPREPLY=($(compgen -P "$pre$done" -W "$(_numasim_values "$exe" "$key")" -- "$cur"))
	compopt -o nospace 2>/dev/null
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
	# a value after --set KEY= / --sweep KEY= ('=' a word of its own)
	if [[ $prev == = ]] && ((COMP_CWORD >= 4)) &&
		[[ ${COMP_WORDS[COMP_CWORD - 3]} == --set || ${COMP_WORDS[COMP_CWORD - 3]} == --sweep ]]; then
		_numasim_set_value "$exe" "${COMP_WORDS[COMP_CWORD - 3]}" "${COMP_WORDS[COMP_CWORD - 2]}" "$cur"
		return
	fi
	if [[ $cur == = ]] && ((COMP_CWORD >= 3)) &&
		[[ ${COMP_WORDS[COMP_CWORD - 2]} == --set || ${COMP_WORDS[COMP_CWORD - 2]} == --sweep ]]; then
		# the word being replaced is the '=' itself: keep it
		_numasim_set_value "$exe" "${COMP_WORDS[COMP_CWORD - 2]}" "$prev" "" =
		return
	fi
	# the same when '=' is not a word break: the word is KEY=VALUE
	if [[ ($prev == --set || $prev == --sweep) && $cur == *=* ]]; then
		_numasim_set_value "$exe" "$prev" "${cur%%=*}" "${cur#*=}" "${cur%%=*}="
		return
	fi
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
		COMPREPLY=($(compgen -W "pagealloc messaging parallel fill" -- "$cur"))
		return ;;
	--by)
		[[ $cmd == compare || $cmd == diff || $cmd == plot || $cmd == report ]] || return
		COMPREPLY=($(compgen -W "$(_numasim_by_keys "$exe")" -- "$cur"))
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
