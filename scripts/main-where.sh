#!/usr/bin/env bash
# scripts/main-where.sh DIR [LOG...]: the closing "where to look" of the
# main job (scripts/main.sh): every results database in DIR with its HTML
# report (when written) and the commands that read it, then the log files
# given (the package manager's output, the build's).  Only what exists is
# listed; tests/cli/readable-output.sh runs it on a scratch directory.
set -eu
dir=$1
shift
echo "== where to look"
found=0
for db in "$dir"/*.db; do
	[ -e "$db" ] || continue
	found=1
	html=${db%.db}.html
	echo "  database  $db"
	if [ -e "$html" ]; then
		echo "  report    $html (open in a browser)"
	fi
	echo "            numasim report $db --runs | less; numasim compare $db; numasim numastat $db --run 1"
done
[ "$found" = 1 ] || echo "  (no databases in $dir)"
for log in "$@"; do
	[ -e "$log" ] && echo "  log       $log"
done
echo "  docs      docs/README.md (guide, reference, results: what these tables mean)"
