#!/usr/bin/env bash
# CLI test of numasim plot's layout, checked on the rendered image: each
# chart (a line plot whose four legend entries are long sweep-point names,
# a bar chart of the profile with long rotated function names, a y range
# whose tick step used to overshoot into the title band, a fixed canvas)
# is rendered to PNG with rsvg-convert and measured with ImageMagick:
# nothing reaches the canvas' border (so nothing was cut off), the legend
# entries lie inside the legend box and the box inside the canvas, the
# rotated category labels end above the x axis label, the y ticks start
# below the title.  Each piece is measured alone: a copy of the SVG that
# keeps only that element.  Then the options: --where (compare's
# KEY=VALUE filters), --title, --width/--height (too small: exit 2 with
# the size needed, no file), --data (the plotted points as CSV).
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

for t in rsvg-convert convert sqlite3; do
	command -v "$t" >/dev/null || { echo "SKIP: $t not installed (scripts/deps.sh)"; exit 77; }
done


# attr FILE ELEMENT-PATTERN NAME: the value of attribute NAME of the first
# element matching the pattern ('' if none).
attr() {
	grep -o "$2[^>]*" "$1" | head -n1 | grep -o " $3=\"[^\"]*\"" | head -n1 | sed 's/.*="\(.*\)"/\1/'
}
# only FILE PATTERN...: a copy of the SVG with its header (XML declaration,
# <svg>, white background) and the lines matching any pattern, on stdout.
only() {
	local f=$1; shift
	head -n3 "$f"
	for pat in "$@"; do sed -n "$pat" "$f"; done
	echo '</svg>'
}
# bbox SVG: "X0 Y0 X1 Y1" (inclusive pixels) of what is drawn on the white
# canvas, rendered by rsvg-convert; "none" for a blank image.
bbox() {
	rsvg-convert -o "$1.png" "$1" || { echo "render-failed"; return; }
	local g
	g=$(convert "$1.png" -fuzz 2% -format '%@' info: 2>/dev/null)
	local w=${g%%x*} rest=${g#*x}
	local h=${rest%%+*} xy=${rest#*+}
	local x=${xy%%+*} y=${xy#*+}
	if [ "$w" -le 0 ] || [ "$h" -le 0 ]; then echo none; return; fi
	echo "$x $y $((x + w - 1)) $((y + h - 1))"
}
size() { convert "$1" -format '%w %h' info:; }
# within NAME "X0 Y0 X1 Y1" LEFT TOP RIGHT BOTTOM: the box lies within the bounds.
within() {
	local name=$1 b=$2; shift 2
	# shellcheck disable=SC2086
	set -- $b "$@"
	if [ $# -ne 8 ]; then bad "$name: no bounding box ($b)"; return; fi
	if awk -v x0="$1" -v y0="$2" -v x1="$3" -v y1="$4" -v l="$5" -v t="$6" -v r="$7" -v bo="$8" \
		'BEGIN { exit !(x0 >= l && y0 >= t && x1 <= r && y1 <= bo) }'; then ok
	else bad "$name: drawn at [$b], outside [$5 $6 $7 $8]"; fi
}

# layout SVG NAME: the rendered chart lies inside the canvas less a 2-pixel
# border, the legend entries inside the legend box, the box inside the
# canvas, the y ticks below the title and the x tick labels above the x
# axis label.
layout() {
	local svg=$1 name=$2
	[ -s "$svg" ] || { bad "$name: no SVG"; return; }
	local W H
	W=$(attr "$svg" '<svg' width)
	H=$(attr "$svg" '<svg' height)
	check "$name: PNG is the canvas" "$(rsvg-convert -o "$tmp/full.png" "$svg" && size "$tmp/full.png")" "$W $H"
	within "$name: whole chart" "$(bbox "$svg")" 2 2 $((W - 3)) $((H - 3))
	# the legend box (the old SVG has none: the canvas stands in for it)
	local lx ly lw lh
	lx=$(attr "$svg" 'class="legend-box"' x); ly=$(attr "$svg" 'class="legend-box"' y)
	lw=$(attr "$svg" 'class="legend-box"' width); lh=$(attr "$svg" 'class="legend-box"' height)
	[ -n "$lx" ] || { lx=0; ly=0; lw=$W; lh=$H; }
	only "$svg" '/class="legend"/p' >"$tmp/legend.svg"
	within "$name: legend entries in the legend box" "$(bbox "$tmp/legend.svg")" \
		"$(awk -v v="$lx" 'BEGIN { print int(v) + 2 }')" "$(awk -v v="$ly" 'BEGIN { print int(v) + 2 }')" \
		"$(awk -v v="$lx" -v w="$lw" 'BEGIN { print int(v + w) - 2 }')" \
		"$(awk -v v="$ly" -v h="$lh" 'BEGIN { print int(v + h) - 2 }')"
	awk -v x="$lx" -v w="$lw" -v y="$ly" -v h="$lh" -v W="$W" -v H="$H" \
		'BEGIN { exit !(x >= 0 && y >= 0 && x + w <= W - 2 && y + h <= H - 2) }' &&
		ok || bad "$name: legend box $lx,$ly ${lw}x$lh outside the ${W}x$H canvas"
	# the title band: the title ends above the first y tick / grid line
	only "$svg" '/class="title"/p' >"$tmp/title.svg"
	only "$svg" '/<g class="yticks"/,/<\/g>/p' >"$tmp/yticks.svg"
	local tb yb
	tb=$(bbox "$tmp/title.svg"); yb=$(bbox "$tmp/yticks.svg")
	# shellcheck disable=SC2086
	set -- $tb $yb
	if [ $# -eq 8 ] && [ "$4" -lt "$6" ]; then ok
	else bad "$name: y ticks [$yb] reach into the title [$tb]"; fi
	# the x tick (category) labels end above the x axis label
	only "$svg" '/class="xlabel"/p' >"$tmp/xlabel.svg"
	only "$svg" '/<g class="xticks"/,/<\/g>/p' >"$tmp/xticks.svg"
	local xb lb
	xb=$(bbox "$tmp/xticks.svg"); lb=$(bbox "$tmp/xlabel.svg")
	# shellcheck disable=SC2086
	set -- $xb $lb
	if [ $# -eq 8 ] && [ "$4" -lt "$6" ]; then ok
	else bad "$name: x tick labels [$xb] reach into the x axis label [$lb]"; fi
	within "$name: x tick labels on the canvas" "$xb" 2 2 $((W - 3)) $((H - 3))
}

# Four sweep points: legend names like zonelist_iter=682a3385,policy.cpuset=all.
D=$tmp/w.db
"$NUMASIM" run -q "$SRC/tests/scenarios/tiny-pagealloc.yaml" --db "$D" \
	--sweep policy.cpuset=none,all >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; bad "run sweep"; }
# A y range of 340..731: step 50 over 300..750, where the old code drew
# its ticks with the step 100 of the rounded range, up to 800 (y < 50).
T=$tmp/ticks.db
cp "$D" "$T"
sqlite3 "$T" "UPDATE samples SET value = 500 WHERE metric GLOB 'alloc-odr0-*';
	UPDATE samples SET value = 340 WHERE metric = 'alloc-odr0-64';
	UPDATE samples SET value = 731 WHERE metric = 'alloc-odr0-1';
	PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null

"$NUMASIM" plot "$D" --metric 'alloc-odr0-*' -o "$tmp/line.svg" 2>"$tmp/err"
check "line plot exit" "$?" 0
check "line series" "$(grep -c '<g class="series"' "$tmp/line.svg")" 4
layout "$tmp/line.svg" "line, 4 long legend names"

"$NUMASIM" plot "$D" --bars profile -o "$tmp/bars.svg" 2>"$tmp/err"
check "bar chart exit" "$?" 0
layout "$tmp/bars.svg" "profile bars"

"$NUMASIM" plot "$T" --metric 'alloc-odr0-*' -o "$tmp/ticks.svg" 2>"$tmp/err"
check "tick plot exit" "$?" 0
layout "$tmp/ticks.svg" "y range 340..731"
# every grid line inside the plot area (the old 800 line was at y = 7.8)
top=$(attr "$tmp/ticks.svg" 'class="plotarea"' y)
ph=$(attr "$tmp/ticks.svg" 'class="plotarea"' height)
grep -o '<line [^>]*stroke="#ddd"' "$tmp/ticks.svg" | sed 's/.* y1="\([^"]*\)".*/\1/' |
	awk -v t="${top:-50}" -v h="${ph:-380}" '$1 < t - 0.05 || $1 > t + h + 0.05 { bad = 1 } END { exit bad }' &&
	ok || bad "grid lines outside the plot area"

# --- the options ------------------------------------------------------------
"$NUMASIM" plot "$D" --metric 'alloc-odr0-*' --where policy.cpuset=all \
	--title 'cpuset <all> & 682a3385' -o "$tmp/where.svg" 2>"$tmp/err"
check "--where exit" "$?" 0
check "--where series" "$(grep -o 'data-name="[^"]*"' "$tmp/where.svg" | tr '\n' ' ')" \
	'data-name="zonelist_iter=pre-682a3385,policy.cpuset=all" data-name="zonelist_iter=682a3385,policy.cpuset=all" '
grep -q 'class="title"[^>]*>cpuset &lt;all&gt; &amp; 682a3385</text>' "$tmp/where.svg" && ok || bad "--title"
"$NUMASIM" plot "$D" --bars profile --where variant=zonelist_iter=682a3385,policy.cpuset=none \
	--where policy.cpuset=none -o "$tmp/wb.svg" 2>"$tmp/err"
check "--where bars" "$(grep -c '<g class="series"' "$tmp/wb.svg")" 1
run_err_like "--where unknown key" "unknown key 'nosuch'" plot "$D" --metric 'alloc-odr0-*' --where nosuch=1 -o "$tmp/n.svg"
run_err_like "--where no =" "KEY=VALUE" plot "$D" --metric 'alloc-odr0-*' --where policy.cpuset -o "$tmp/n.svg"
run_err_like "--where nothing left" "pass the --where filters" plot "$D" --metric 'alloc-odr0-*' --where policy.cpuset=local -o "$tmp/n.svg"

"$NUMASIM" plot "$D" --metric 'alloc-odr0-*' --width 1200 --height 700 -o "$tmp/big.svg" 2>"$tmp/err"
check "--width/--height" "$(attr "$tmp/big.svg" '<svg' width) $(attr "$tmp/big.svg" '<svg' height)" "1200 700"
layout "$tmp/big.svg" "1200 x 700"
"$NUMASIM" plot "$D" --bars profile --width 900 --height 560 -o "$tmp/bars9.svg" 2>"$tmp/err"
check "bars at 900 x 560" "$?" 0
layout "$tmp/bars9.svg" "profile bars, 900 x 560"
run_err_like "--width too small" "needs at least" plot "$D" --metric 'alloc-odr0-*' --width 500 -o "$tmp/n.svg" --data "$tmp/n.csv"
# 15 rotated names need 20 px each: a narrower plot area is refused,
# and the width the message names works
run_err_like "bars too crowded" "needs at least" plot "$D" --bars profile --width 700 -o "$tmp/n.svg"
need=$(sed -n 's/.*needs at least \([0-9]*\).*/\1/p' "$tmp/eerr")
"$NUMASIM" plot "$D" --bars profile --width "${need:-0}" -o "$tmp/need.svg" 2>"$tmp/err"
check "bars at the width needed" "$?" 0
layout "$tmp/need.svg" "profile bars, the width needed"
run_err_like "--height too small" "needs at least" plot "$D" --bars profile --height 250 -o "$tmp/n.svg"
run_err_like "--width not a number" "--width" plot "$D" --bars profile --width wide -o "$tmp/n.svg"
[ ! -e "$tmp/n.svg" ] && [ ! -e "$tmp/n.csv" ] && ok || bad "a failed plot left a file"

"$NUMASIM" plot "$D" --metric 'alloc-odr0-*' --data "$tmp/line.csv" 2>"$tmp/err"
check "--data alone" "$?" 0
check "csv header" "$(head -n1 "$tmp/line.csv")" "series,x,mean,min,max,n"
check "csv rows" "$(tail -n +2 "$tmp/line.csv" | wc -l)" 16
want=$("$NUMASIM" query "$D" "SELECT printf('%.6f', avg(value)) FROM v_samples WHERE metric = 'alloc-odr0-64' AND variant = 'zonelist_iter=682a3385,policy.cpuset=all'" --format csv | tail -n1 | tr -d '\r')
check "csv mean = SQL avg" "$(grep '^"zonelist_iter=682a3385,policy.cpuset=all",64,' "$tmp/line.csv" | awk -F, '{ printf "%.6f", $4 }')" "$want"
check "csv n" "$(grep '^"zonelist_iter=682a3385,policy.cpuset=all",64,' "$tmp/line.csv" | awk -F, '{ print $7 }')" 13
"$NUMASIM" plot "$D" --bars profile --top 3 -o "$tmp/b3.svg" --data "$tmp/bars.csv" 2>"$tmp/err"
check "bars csv header" "$(head -n1 "$tmp/bars.csv")" "series,category,mean"
check "bars csv rows" "$(tail -n +2 "$tmp/bars.csv" | wc -l)" 12
grep -q '<g class="series"' "$tmp/b3.svg" && ok || bad "-o with --data"

finish
