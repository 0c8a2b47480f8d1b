#!/usr/bin/env bash
# Issue 51, findings 1, 2 and 7 (SVG): nothing a sweep value or a database
# holds runs in a reader's browser or breaks an SVG.  analysis/markup.h is
# the one escaping layer of every HTML and SVG writer.
#   finding 1: a swept value (the variant label) in the flame graph's
#     subtitle of `plot --flame --diff` and of `report --format html`;
#   finding 2: runs.workload of a shared database in the HTML report;
#   finding 7: text that is not UTF-8, or holds control characters, in an
#     SVG (not well-formed XML before).
# Then every TEXT column of every table, in turn, holds a hostile value
# (a script element, quotes, "</svg>", "]]>", an img with onerror, control
# characters, bytes that are not UTF-8; written past the CHECK constraints
# as an attacker with sqlite3 would): every HTML and SVG output either
# refuses the file (exit 2) or is written with no element or attribute of
# the value's.  The pages are loaded in headless Chromium: the dumped DOM
# must hold no script but the page's own, no img, and not the id or title
# the injected scripts would set; every SVG must parse with xmllint and
# hold no script, img or on* attribute.  Chromium and xmllint are required
# (scripts/deps.sh installs them): missing, the test fails.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CHROMIUM=${NUMASIM_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
for t in "$CHROMIUM" xmllint sqlite3; do
	if [ -z "$t" ] || ! command -v "$t" >/dev/null; then
		echo "FAIL: ${t:-chromium} not installed (scripts/deps.sh installs it)"
		exit 1
	fi
done

chrome() {
	HOME=$tmp timeout 120 "$CHROMIUM" --headless --disable-gpu --no-sandbox \
		--no-first-run --user-data-dir="$tmp/profile" --v=0 \
		--virtual-time-budget=2000 "$@"
}

# page_clean NAME FILE: the page, loaded in Chromium, ran none of the data's
# scripts: one <script> (the page's own), no <img>, no id or title "pwned".
page_clean() {
	chrome --dump-dom "file://$2" >"$tmp/dom.html" 2>/dev/null ||
		{ bad "$1: chromium --dump-dom failed"; return; }
	local scripts imgs
	scripts=$(grep -o '<script' "$tmp/dom.html" | wc -l)
	imgs=$(grep -o '<img' "$tmp/dom.html" | wc -l)
	if [ "$scripts" -le 1 ] && [ "$imgs" = 0 ] &&
		! grep -q '<html[^>]* id="pwned"\|<title>pwned</title>' "$tmp/dom.html"; then
		ok
	else
		bad "$1: the page ran or holds the data's markup ($scripts scripts, $imgs img)"
		grep -o '.\{60\}pwned.\{20\}' "$tmp/dom.html" | head -3
	fi
}

# svg_clean NAME FILE: well-formed XML with no script (but a flame graph's
# own, numasim-flame-script, at most one), img or on* attribute.
svg_clean() {
	if ! xmllint --noout "$2" 2>"$tmp/xerr"; then
		bad "$1: not well-formed XML: $(head -c 300 "$tmp/xerr")"
		return
	fi
	local n own
	n=$(xmllint --xpath 'count(//*[(local-name()="script" and
		not(@id="numasim-flame-script")) or local-name()="img"] |
		//@*[starts-with(local-name(), "on")])' "$2" 2>/dev/null)
	own=$(xmllint --xpath 'count(//*[local-name()="script"])' "$2" 2>/dev/null)
	check "$1: script, img or on* in the SVG" "$n/$((own > 1))" 0/0
}

# status_0_or_2 NAME STATUS: a reader either writes or refuses (no crash)
status_0_or_2() {
	case $2 in
	0 | 2) ok ;;
	*) bad "$1: exit $2 (want 0, or 2 for a refused file)"; head -c 300 "$tmp/err" ;;
	esac
}

H='x<script>document.documentElement.id="pwned"</script>'"'"'"</svg>]]><img src=x onerror="document.title='"'"'pwned'"'"'">'

# --- finding 1: a sweep value in the flame graph's subtitle
d1=$tmp/sweep.db
"$NUMASIM" run -q "$SRC/tests/scenarios/tiny-pagealloc.yaml" --db "$d1" \
	--set kernel.zonelist_iter=682a3385 \
	--sweep 'overrides.description=a,<script>document.documentElement.id="pwned"</script>' \
	>/dev/null 2>"$tmp/err" || { bad "sweep run: $(cat "$tmp/err")"; }
"$NUMASIM" report "$d1" --format html -o "$tmp/f1.html" 2>"$tmp/err" ||
	bad "finding 1: report --format html: $(cat "$tmp/err")"
page_clean "finding 1: report --format html of a swept value" "$tmp/f1.html"
"$NUMASIM" plot "$d1" --flame --diff 1 2 -o "$tmp/f1.svg" 2>"$tmp/err" ||
	bad "finding 1: plot --flame --diff: $(cat "$tmp/err")"
svg_clean "finding 1: plot --flame --diff of a swept value" "$tmp/f1.svg"
page_clean "finding 1: plot --flame --diff in Chromium" "$tmp/f1.svg"

# --- the base database: an A/B pair, a sweep, messaging runs
base=$tmp/base.db
for s in tiny-pagealloc sweep-small tiny-messaging; do
	"$NUMASIM" run -q "$SRC/tests/scenarios/$s.yaml" --db "$base" --jobs 2 >/dev/null 2>&1 ||
		bad "run $s failed"
done

# hostile DB TABLE COLUMN: a copy of base whose TABLE.COLUMN holds the value
# (plus control characters and bytes that are not UTF-8) in every row.
hostile() {
	rm -f "$1" "$1-wal" "$1-shm"
	sqlite3 "$base" ".backup '$1'"
	local v=${H//\'/\'\'}
	sqlite3 "$1" "PRAGMA ignore_check_constraints = ON; PRAGMA foreign_keys = OFF;
		UPDATE \"$2\" SET \"$3\" = '$v' || char(1) || char(27) || '[2J' ||
		CAST(x'fffec0' AS TEXT) || ' ' || coalesce(\"$3\", '');" 2>"$tmp/serr" ||
		bad "cannot plant the value in $2.$3: $(cat "$tmp/serr")"
}

# --- finding 2: runs.workload in the HTML report
hostile "$tmp/f2.db" runs workload
"$NUMASIM" report "$tmp/f2.db" --format html -o "$tmp/f2.html" 2>"$tmp/err"
status_0_or_2 "finding 2: report --format html" $?
[ -s "$tmp/f2.html" ] && page_clean "finding 2: runs.workload in the report" "$tmp/f2.html"

# --- every TEXT column of every table, through every HTML and SVG output
cols=$(sqlite3 "$base" "SELECT m.name || '.' || p.name FROM sqlite_schema m,
	pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'
	AND p.type = 'TEXT' ORDER BY 1")
[ "$(wc -w <<<"$cols")" -ge 30 ] && ok || bad "only $(wc -w <<<"$cols") text columns found"
for tc in $cols; do
	t=${tc%%.*} c=${tc#*.}
	db=$tmp/h.db
	hostile "$db" "$t" "$c"
	rm -f "$tmp"/h.html "$tmp"/h-*.svg
	"$NUMASIM" report "$db" --format html -o "$tmp/h.html" 2>"$tmp/err"
	status_0_or_2 "$tc: report --format html" $?
	[ -s "$tmp/h.html" ] && page_clean "$tc: report --format html" "$tmp/h.html"
	"$NUMASIM" plot "$db" --flame --run 1 -o "$tmp/h-flame.svg" 2>"$tmp/err"
	status_0_or_2 "$tc: plot --flame" $?
	"$NUMASIM" plot "$db" --flame --diff 1 2 -o "$tmp/h-diff.svg" 2>"$tmp/err"
	status_0_or_2 "$tc: plot --flame --diff" $?
	"$NUMASIM" plot "$db" --metric 'alloc-odr0-*' -o "$tmp/h-line.svg" 2>"$tmp/err"
	status_0_or_2 "$tc: plot --metric" $?
	"$NUMASIM" plot "$db" --bars profile -o "$tmp/h-bars.svg" 2>"$tmp/err"
	status_0_or_2 "$tc: plot --bars" $?
	for f in "$tmp"/h-*.svg; do
		[ -s "$f" ] && svg_clean "$tc: $(basename "$f")" "$f"
	done
done
# the check can fail: an unescaped script is seen
printf '<!DOCTYPE html><html><head><title>t</title></head><body><script>document.documentElement.id="pwned"</script></body></html>\n' >"$tmp/bad.html"
before=$fails
page_clean "self-test (expected to fail)" "$tmp/bad.html" >/dev/null
if [ "$fails" -eq $((before + 1)) ]; then fails=$before; ok; else bad "the page check cannot see a script"; fi
printf '<svg xmlns="http://www.w3.org/2000/svg"><text>\xff</text></svg>' >"$tmp/bad.svg"
before=$fails
svg_clean "self-test (expected to fail)" "$tmp/bad.svg" >/dev/null
if [ "$fails" -eq $((before + 1)) ]; then fails=$before; ok; else bad "xmllint does not see bad UTF-8"; fi
finish
