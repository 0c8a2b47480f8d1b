#!/usr/bin/env bash
# Issue "What a new user trips over", item 13: an unknown command or
# option is one line on stderr, "error: unknown ... (did you mean 'X'?)"
# with the nearest known name (edit distance, transpositions count one),
# or a pointer to --help when nothing is near; never the whole usage;
# exit 2 and nothing on stdout.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# one NAME WANT ARGS...: exit 2, empty stdout, exactly the line WANT on stderr
one() {
	local name=$1 want=$2; shift 2
	run_2 "$name" "$@" || return
	if [ "$(cat "$tmp/eerr")" != "$want" ]; then
		bad "$name: got:"; cat "$tmp/eerr"; echo "want: $want"; return
	fi
	ok
}

one "top-level option" "numasim: error: unknown option '--frob' (see 'numasim --help')" --frob
one "top-level option typo" "numasim: error: unknown option '--versoin' (did you mean '--version'?)" --versoin
one "command transposed" "numasim: error: unknown command 'rnu' (did you mean 'run'?)" rnu
one "command typo" "numasim: error: unknown command 'toplogy' (did you mean 'topology'?)" toplogy
one "command far" "numasim: error: unknown command 'frobnicate' (see 'numasim --help')" frobnicate
one "run option far" "numasim run: error: unknown option '--frob' (see 'numasim run --help')" run --frob
one "run option typo" "numasim run: error: unknown option '--jbos' (did you mean '--jobs'?)" run x.yaml --jbos 2
one "run option =" "numasim run: error: unknown option '--swep=a=1' (did you mean '--sweep'?)" run --swep=a=1
one "trace" "numasim trace: error: unknown option '--limt' (did you mean '--limit'?)" trace --limt 3
one "validate" "numasim validate: error: unknown option '--quite' (did you mean '--quiet'?)" validate --quite
one "topology" "numasim topology: error: unknown option '--fromat' (did you mean '--format'?)" topology --fromat json
one "import" "numasim import: error: unknown option '--nmae' (did you mean '--name'?)" import --nmae x
one "compare" "numasim compare: error: unknown option '--metrc' (did you mean '--metric'?)" compare x.db --metrc a
one "export" "numasim export: error: unknown option '--tabel' (did you mean '--table'?)" export x.db --tabel runs
one "plot" "numasim plot: error: unknown option '--metirc' (did you mean '--metric'?)" plot x.db --metirc a
one "report" "numasim report: error: unknown option '--tpo' (did you mean '--top'?)" report x.db --tpo 3
one "bench" "numasim bench: error: unknown benchmark 'phlod' (did you mean 'phold'?)" bench phlod
one "bench phold" "numasim bench phold: error: unknown option '--lsp' (did you mean '--lps'?)" bench phold --lsp 3
one "bench pagealloc" "numasim bench pagealloc: error: unknown option '--pairz' (did you mean '--pairs'?)" bench pagealloc --pairz 3
one "bench pagealloc, no value" "numasim bench pagealloc: error: unknown option '--frob' (see 'numasim bench pagealloc --help')" bench pagealloc --frob
one "version" "numasim version: error: unknown option '--frob' (see 'numasim version --help')" version --frob

finish
