#!/usr/bin/env bash
# CLI test of `numasim report DB --format html`, checked in a real browser:
# a database with pagealloc (an A/B pair and a 10-point sweep) and
# messaging runs; the page is self-contained (no URL but the SVG
# namespace, no external script, style sheet, image or font) and has its
# sections; headless Chromium (Debian's chromium, scripts/deps.sh) loads
# it with no console message, the page's own layout check (every section
# and plot has a non-zero size) says "ok" in the DOM Chromium dumps, and
# a screenshot is a non-blank image.  A page with a script error must
# show up in the console check (so the check can fail).  Bad usage exits
# 2 and writes nothing.  Skipped (77) only when chromium is not installed.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CHROMIUM=${NUMASIM_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[ -n "$CHROMIUM" ] || { echo "SKIP: chromium not installed (scripts/deps.sh installs it)"; exit 77; }
for t in sqlite3 convert; do
	command -v "$t" >/dev/null || { echo "SKIP: $t not installed (scripts/deps.sh)"; exit 77; }
done

# Chromium with a private profile, no sandbox (tests run as root in CI).
chrome() {
	HOME=$tmp timeout 120 "$CHROMIUM" --headless --disable-gpu --no-sandbox \
		--no-first-run --user-data-dir="$tmp/profile" --enable-logging=stderr --v=0 \
		--window-size=1400,3000 --virtual-time-budget=3000 "$@"
}

db=$tmp/r.db
for s in tiny-pagealloc sweep-small tiny-messaging; do
	"$NUMASIM" run "$SRC/tests/scenarios/$s.yaml" --db "$db" --jobs 2 >/dev/null 2>&1 ||
		bad "run $s failed"
done
"$NUMASIM" report "$db" --format html -o "$tmp/r.html" >"$tmp/out" 2>"$tmp/err" || {
	bad "report --format html failed"; cat "$tmp/err"; }
[ -s "$tmp/out" ] && bad "report -o wrote to stdout" || ok
"$NUMASIM" report "$db" --format html >"$tmp/r2.html" 2>/dev/null
cmp -s "$tmp/r.html" "$tmp/r2.html" && ok || bad "stdout and -o differ (or not deterministic)"

# self-contained: no URL but the SVG namespace; nothing loaded from outside
urls=$(grep -oE '(https?|ftp)://[^" )]*' "$tmp/r.html" | sort -u | tr '\n' ' ')
check "only the SVG namespace URL" "$urls" "http://www.w3.org/2000/svg "
if grep -qiE '<(script|img|link|iframe)[^>]* (src|href)=|@import|url\(' "$tmp/r.html"; then
	bad "the page references an external resource"; else ok; fi
for id in runs compare profile flame flamegraph diff diff-functions branches slub sched sweep plot-alloc \
	plot-free plot-total compare-pagealloc compare-messaging; do
	grep -q "id=\"$id\"" "$tmp/r.html" && ok || bad "no element #$id"
done
# the runs table lists every run, the branch table names site functions and files
runs=$(sqlite3 "$db" "SELECT count(*) FROM runs")
rows=$(sed -n '/<section id="runs"/,/<\/section>/p' "$tmp/r.html" | grep -c '^<tr><td class="n">')
check "runs table rows" "$rows" "$runs"
grep -q '<td>get_page_from_freelist</td><td>mm/page_alloc.c</td>' "$tmp/r.html" && ok ||
	bad "branch/profile tables lack function and kernel file"

# the browser: no console messages, the layout check, the plots
chrome --dump-dom "file://$tmp/r.html" >"$tmp/dom.html" 2>"$tmp/chrome.err" || bad "chromium --dump-dom failed"
if grep -q 'CONSOLE' "$tmp/chrome.err"; then bad "console messages:"; grep CONSOLE "$tmp/chrome.err"; else ok; fi
body=$(grep -o '<body[^>]*>' "$tmp/dom.html")
case $body in
*'data-layout="ok"'*) ok ;;
*) bad "layout check: $body" ;;
esac
plots=$(sed -n 's/.*data-plots="\([0-9]*\)".*/\1/p' <<<"$body")
[ "${plots:-0}" -ge 8 ] && ok || bad "plots in the page: ${plots:-none} (want >= 8: 3 compare, flame, sweep grid)"
# the console check sees script errors
printf '<!DOCTYPE html><html><body><script>undefinedFunction();</script></body></html>\n' >"$tmp/broken.html"
chrome --dump-dom "file://$tmp/broken.html" >/dev/null 2>"$tmp/broken.err"
grep -q 'CONSOLE.*Uncaught ReferenceError' "$tmp/broken.err" && ok || bad "console check cannot see a script error"
# a hidden section fails the layout check
sed 's|<section id="profile" data-check="profile">|<section id="profile" data-check="profile" style="display:none">|' \
	"$tmp/r.html" >"$tmp/hidden.html"
chrome --dump-dom "file://$tmp/hidden.html" 2>/dev/null | grep -q 'data-layout="missing: profile' && ok ||
	bad "layout check does not see a hidden section"

# the screenshot: rendered and not blank
chrome --screenshot="$tmp/shot.png" "file://$tmp/r.html" >/dev/null 2>&1
if [ -s "$tmp/shot.png" ]; then
	ok
	check "screenshot size" "$(identify -format '%w %h' "$tmp/shot.png")" "1400 3000"
	sd=$(convert "$tmp/shot.png" -colorspace gray -format '%[fx:int(1000*standard_deviation)]' info:)
	[ "$sd" -gt 20 ] && ok || bad "screenshot is blank (stddev $sd)"
else
	bad "no screenshot"
fi

# bad usage: exit 2, nothing written
for args in "--format pdf" "--format html --runs" "--format html --top 3"; do
	# shellcheck disable=SC2086
	"$NUMASIM" report "$db" $args -o "$tmp/bad.html" >"$tmp/eout" 2>"$tmp/eerr"
	check "report $args: exit" "$?" "2"
	[ -e "$tmp/bad.html" ] && bad "report $args wrote a file" || ok
done
"$NUMASIM" report "$tmp/none.db" --format html -o "$tmp/bad.html" 2>/dev/null
check "missing database: exit" "$?" "2"
finish
