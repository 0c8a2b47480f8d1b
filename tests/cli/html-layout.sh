#!/usr/bin/env bash
# Issue 49, item 5: the HTML report at 2, 6 and 29 variants, laid out in
# headless Chromium at 1400 px (tests/cli/html-layout.js, appended to a
# copy of each page): no element reaches past the page width (wide compare
# tables scroll inside their wrapper), every section has content, every
# internal link has its target, the compare table is a <table> with one
# column per variant and the baseline marked, the flame graph zooms on a
# click and highlights a search (embedded, and the standalone SVG of plot
# --flame on its own), and the diff flame graph is of the two
# variants' means over their runs; no console message.  A page whose scroll
# wrapper is taken away must fail the check (so it can fail).  Screenshots
# are taken and must not be blank.  The runs are short (2 batch sizes, few
# iterations).  Skipped (77) when chromium is not installed.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CHROMIUM=${NUMASIM_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[ -n "$CHROMIUM" ] || { echo "SKIP: chromium not installed (scripts/deps.sh installs it)"; exit 77; }
for t in convert identify sqlite3; do
	command -v "$t" >/dev/null || { echo "SKIP: $t not installed (scripts/deps.sh)"; exit 77; }
done

chrome() {
	HOME=$tmp timeout 120 "$CHROMIUM" --headless --disable-gpu --no-sandbox \
		--no-first-run --user-data-dir="$tmp/profile" --enable-logging=stderr --v=0 \
		--hide-scrollbars --window-size=1400,2400 --virtual-time-budget=3000 "$@"
}

# layout NAME PAGE: the check's verdict on the page
layout() {
	{ sed '/<\/body>/,$d' "$2"; printf '<script>\n'; cat "$SRC/tests/cli/html-layout.js"
	  printf '</script>\n</body></html>\n'; } >"$tmp/check.html"
	chrome --dump-dom "file://$tmp/check.html" >"$tmp/dom.html" 2>"$tmp/chrome.err" ||
		{ bad "$1: chromium --dump-dom failed"; return; }
	if grep -q 'CONSOLE' "$tmp/chrome.err"; then
		bad "$1: console messages: $(grep CONSOLE "$tmp/chrome.err" | head -3)"
	fi
	grep -o '<body[^>]*>' "$tmp/dom.html" | head -1 | sed -n 's/.*data-test="\([^"]*\)".*/\1/p'
}

scen=$SRC/tests/scenarios/tiny-pagealloc.yaml
short=(--set 'workload.batches=[1,64]' --jobs 2)
"$NUMASIM" run -q "$scen" --db "$tmp/v2.db" "${short[@]}" --set workload.inner_iterations=5 \
	--set repetitions=2 >/dev/null 2>&1 || bad "run: 2 variants"
"$NUMASIM" run -q "$scen" --db "$tmp/v6.db" "${short[@]}" \
	--sweep workload.inner_iterations=4,6,8 >/dev/null 2>&1 || bad "run: 6 variants"
"$NUMASIM" run -q "$scen" --db "$tmp/v29.db" "${short[@]}" --set kernel.zonelist_iter=682a3385 \
	--sweep "workload.inner_iterations=$(seq -s, 4 32)" >/dev/null 2>&1 || bad "run: 29 variants"

for n in 2 6 29; do
	page=$tmp/v$n.html
	"$NUMASIM" report "$tmp/v$n.db" --format html -o "$page" 2>"$tmp/err" ||
		{ bad "report v$n: $(cat "$tmp/err")"; continue; }
	check "$n variants: layout" "$(layout "v$n" "$page")" "ok"
	# the compare table: a column per variant (+ metric, unit, stat), the baseline marked
	cols=$(grep -o '<table class="cmp" id="compare-pagealloc".*</thead>' "$page" | grep -o '<th[ >]' | wc -l)
	check "$n variants: compare table columns" "$cols" "$((n + 3))"
	base=$(grep -o '<th class="grp base"' "$page" | wc -l)
	check "$n variants: one baseline column" "$base" 1
	# the profile: beyond 4 variants one row per function, a column per
	# variant (+ function, kernel_file); up to 4, a row per function and variant
	pcols=$(sed -n '/<section id="profile"/,/<\/thead>/p' "$page" | grep -o '<th>' | wc -l)
	check "$n variants: profile columns" "$pcols" "$([ "$n" -gt 4 ] && echo $((n + 2)) || echo 9)"
	grep -q '<td class="n[^"]*">[0-9.]* <span class="pct">([-+][0-9.]*%)</span></td>' "$page" &&
		ok || bad "$n variants: no value with its change"
	chrome --screenshot="$tmp/v$n.png" "file://$page" >/dev/null 2>&1
	if [ -s "$tmp/v$n.png" ]; then
		check "$n variants: screenshot size" "$(identify -format '%w %h' "$tmp/v$n.png")" "1400 2400"
		sd=$(convert "$tmp/v$n.png" -colorspace gray -format '%[fx:int(1000*standard_deviation)]' info:)
		[ "$sd" -gt 20 ] && ok || bad "$n variants: screenshot is blank (stddev $sd)"
	else
		bad "$n variants: no screenshot"
	fi
done

# the diff flame graph is of the two variants' means over their runs (two
# repetitions here, deterministic: each mean is each run's total)
sub=$(grep -o 'widths: A = [^<]*' "$tmp/v2.html")
a=$(sqlite3 "$tmp/v2.db" "SELECT sum(self_cycles) FROM profile WHERE run_id = 1")
b=$(sqlite3 "$tmp/v2.db" "SELECT sum(self_cycles) FROM profile WHERE run_id = 2")
check "flame diff of means" "$(sed 's/ (-\?[0-9.]*%)$//' <<<"$sub")" \
	"widths: A = zonelist_iter=pre-682a3385 (mean of 2 runs), $a cycles; B = zonelist_iter=682a3385 (mean of 2 runs), $b cycles"

# the standalone SVG of plot --flame: its own script answers a click, a
# search and Reset (tests/cli/flame-svg.js appended after it)
"$NUMASIM" plot "$tmp/v2.db" --flame --diff 1 2 -o "$tmp/f.svg" 2>"$tmp/err" || bad "plot --flame: $(cat "$tmp/err")"
{ sed '$d' "$tmp/f.svg"; printf '<script><![CDATA[\n'; cat "$SRC/tests/cli/flame-svg.js"
  printf ']]></script>\n</svg>\n'; } >"$tmp/fd.svg"
chrome --dump-dom "file://$tmp/fd.svg" >"$tmp/fdom" 2>"$tmp/chrome.err" || bad "chromium on the SVG failed"
grep -q 'CONSOLE' "$tmp/chrome.err" && bad "SVG console messages: $(grep CONSOLE "$tmp/chrome.err" | head -3)"
check "standalone flame SVG: click, search, reset" \
	"$(grep -o 'data-result="[^"]*"' "$tmp/fdom" | head -1)" 'data-result="ok"'

# the check can fail: without the scroll wrapper the 29-variant table overflows
sed 's|\.scroll{overflow-x:auto;max-width:100%}||' "$tmp/v29.html" >"$tmp/wide.html"
case $(layout "self-test" "$tmp/wide.html") in
*"page width"*) ok ;;
*) bad "the layout check does not see a table wider than the page" ;;
esac
# and a dead link
sed 's|<nav>|<nav><a href="#nowhere">x</a>|' "$tmp/v2.html" >"$tmp/dead.html"
case $(layout "self-test" "$tmp/dead.html") in
*"dead link #nowhere"*) ok ;;
*) bad "the layout check does not see a dead link" ;;
esac
finish
