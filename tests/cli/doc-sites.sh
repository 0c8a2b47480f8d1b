#!/usr/bin/env bash
# docs/reference/sites.md, the reference of every branch site and code
# block, is what scripts/docs-sites.py makes of the models' X-macro tables
# and code today (a site added, renamed or moved in models/ makes this
# fail until the page is regenerated), and every site a run stores in its
# `branches` table (page allocator, reclaim and SLUB runs) is on the page
# with the function and condition the run stores for it.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DOC=$SRC/docs/reference/sites.md
if python3 "$SRC/scripts/docs-sites.py" "$SRC" >"$tmp/sites.md" 2>"$tmp/err"; then ok; else
	bad "scripts/docs-sites.py failed: $(cat "$tmp/err")"
fi
if cmp -s "$tmp/sites.md" "$DOC"; then ok; else
	bad "docs/reference/sites.md is not what the models' tables give; regenerate it:
  python3 scripts/docs-sites.py > docs/reference/sites.md"
	diff "$DOC" "$tmp/sites.md" | head -20
fi

# the sites of real runs: page allocator, SLUB and messaging, reclaim (fill)
db=$tmp/r.db
for s in tiny-pagealloc tiny-messaging tiny-fill; do
	"$NUMASIM" run -q "$SRC/tests/scenarios/$s.yaml" --db "$db" >/dev/null 2>"$tmp/err" ||
		bad "run $s: $(cat "$tmp/err")"
done
n=$(q "$db" 'SELECT count(DISTINCT site) FROM branches')
[ "${n:-0}" -ge 50 ] && ok || bad "only ${n:-0} distinct sites stored by the runs"
# the page's table rows: | `SITE` | variant | `function` | `condition` | ...
perl -ne 'print "$1\t$2\t$3\n" if /^\| `([^`]+)` \| (?:both|PRE|POST) \| `?([^`|]*)`? \| `((?:[^`]|\\\|)*)` \|/' "$DOC" |
	sed 's/\\|/|/g' | sort -u >"$tmp/page"
[ "$(wc -l <"$tmp/page")" -ge 300 ] && ok || bad "only $(wc -l <"$tmp/page") site rows read from the page"
missing=$(q "$db" 'SELECT DISTINCT site FROM branches' | while read -r s; do
	grep -q "^$s	" "$tmp/page" || echo "$s"
done)
[ -z "$missing" ] && ok || bad "sites stored by runs but not on docs/reference/sites.md: $missing"
finish
