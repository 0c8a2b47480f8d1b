#!/usr/bin/env bash
# scripts/docs-figures.sh: regenerate every figure and image the README and
# docs/results/ quote from the shipped scenarios (docs/README.md "Figures").
#
#   bash scripts/docs-figures.sh          # every step; numasim from build/ (or $NUMASIM)
#   bash scripts/docs-figures.sh STEP...  # only these steps: quickstart,
#                                         # seed-zonelist, seed-slub, cpuset,
#                                         # zone-reclaim, series-2016, html-layout,
#                                         # check;
#                                         # then the splice
#   bash scripts/docs-figures.sh --splice # only copy the stored outputs into
#                                         # the pages (and regenerate sites.md)
#
# Runs the commands the pages name, in a scratch directory, and writes
#   docs/results/out/*.txt   what each command printed (the pages quote it)
#   docs/results/out/*.csv   the data of each plot
#   docs/results/*.svg       the plots and flame graphs
#   docs/results/*.png       the HTML reports, rendered by headless Chromium
#   docs/results/out/check.txt  shortened runs of the same scenarios, which
#                            tests/cli/doc-figures.sh reruns to tell whether
#                            the binary still produces these outputs
#   docs/reference/sites.md  (scripts/docs-sites.py)
# then replaces every block of README.md and docs/**/*.md between
# `<!-- figure: FILE ... -->` and `<!-- /figure -->` by a fenced copy of
# FILE.  Numbers are never edited by hand: change a command here, run the
# script, commit what changed.  Takes several minutes (the main job's two
# seeds, 66 + 4 what-if runs) with --jobs 2.
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
NUMASIM=${NUMASIM:-$ROOT/build/numasim}
[ -x "$NUMASIM" ] || { echo "docs-figures: no numasim at $NUMASIM (build first)" >&2; exit 1; }
OUT=$ROOT/docs/results/out
IMG=$ROOT/docs/results
mkdir -p "$OUT"
all_steps="quickstart seed-zonelist seed-slub cpuset zone-reclaim series-2016 html-layout check"
steps=${*:-$all_steps}
[ "$steps" = --splice ] && steps=
for s in $steps; do
	case " $all_steps " in
	*" $s "*) ;;
	*) echo "docs-figures: unknown step '$s' (steps: $all_steps, or --splice)" >&2; exit 2 ;;
	esac
done
want() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"
# the commands print `numasim` as a user types it
ln -s "$NUMASIM" numasim
# and the shipped files by the paths the pages give, as in the source tree
ln -s "$ROOT/scenarios" scenarios
ln -s "$ROOT/configs" configs
export PATH=$W:$PATH
export NO_COLOR=1 COLUMNS=100

# fig FILE CMD...: run CMD (a string as the page shows it), FILE gets the
# command line after "$ " and what it printed on stdout
fig() {
	local file=$1
	shift
	{
		for c in "$@"; do
			echo "\$ $c"
			bash -c "$c" 2>"$W/fig.err" || { echo "docs-figures: failed: $c" >&2; cat "$W/fig.err" >&2; exit 1; }
		done
	} >"$file.tmp" || { echo "docs-figures: failed: $*" >&2; exit 1; }
	# drop the wall-time words of run's last line: they vary run to run
	sed -E 's/, wall time [0-9.]+ s, [0-9.]+ (runs\/s|s\/run)//' "$file.tmp" >"$file"
	rm -f "$file.tmp"
}
step() { echo "== $*" >&2; }
# shot NAME HEIGHT: the HTML report NAME.html rendered as docs/guide/plots.md
# says (1400 px wide, HEIGHT high, scaled to 1100 px and 64 colours)
shot() {
	chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--window-size=1400,$2 --screenshot="$W/$1.png" "file://$W/$1.html" >/dev/null 2>&1 ||
		{ echo "docs-figures: chromium failed on $1.html" >&2; exit 1; }
	convert "$W/$1.png" -resize 1100x -colors 64 "$IMG/report-$1.png"
}

# --- the quick start (README.md) --------------------------------------------------------
if want quickstart; then
step quickstart
fig "$OUT/quickstart.txt" \
	"numasim run seed-zonelist --machine rome-nps4 --set kernel.zonelist_iter=682a3385 --sweep policy.cpuset=none,all --set 'workload.batches=[1,64]' --db q.db -q" \
	"numasim query q.db \"SELECT run_id, function, calls, total_cycles FROM v_profile WHERE function LIKE '%zones_zonelist' OR function LIKE '%cpuset%' ORDER BY function, run_id\"" \
	"numasim plot q.db --flame --diff 1 2 -o cpuset-flame-diff.svg"
cp cpuset-flame-diff.svg "$IMG/cpuset-flame-diff.svg"
fi

# --- the first seed: the main job's run, its plot, flame graph and report ---------------
if want seed-zonelist; then
step seed-zonelist
fig "$OUT/seed-zonelist.txt" \
	"numasim run scenarios/seed-zonelist.yaml --db seed-zonelist.db --jobs 2"
numasim plot seed-zonelist.db --metric 'alloc-odr0-*' -o "$IMG/seed-zonelist-alloc.svg" \
	--data "$OUT/seed-zonelist-alloc.csv"
fig "$OUT/seed-zonelist-flame.txt" \
	"numasim plot seed-zonelist.db --flame --diff 1 2 --width 1600 -o seed-zonelist-flame-diff.svg" \
	"sed -n 's/.*<text class=\"sub\"[^>]*>\\([^<]*\\)<.*/\\1/p' seed-zonelist-flame-diff.svg"
cp seed-zonelist-flame-diff.svg "$IMG/seed-zonelist-flame-diff.svg"
numasim report seed-zonelist.db --format html -o seed-zonelist.html
shot seed-zonelist 3000
fi

# --- the second seed ----------------------------------------------------------------------
if want seed-slub; then
step seed-slub
fig "$OUT/seed-slub.txt" \
	"numasim run scenarios/seed-slub.yaml --db seed-slub.db --jobs 2"
numasim report seed-slub.db --format html -o seed-slub.html
shot seed-slub 3600
fi

# --- the what-ifs ------------------------------------------------------------------------------
if want cpuset; then
step cpuset
fig "$OUT/cpuset.txt" \
	"numasim run scenarios/cpuset-vs-nocpuset.yaml --db cpuset.db --jobs 2"
fi
if want zone-reclaim; then
step zone-reclaim
numasim run scenarios/zone-reclaim.yaml --db zone-reclaim.db --jobs 2 -q >/dev/null
fig "$OUT/zone-reclaim.txt" \
	"numasim query zone-reclaim.db \"SELECT machine, (SELECT value FROM v_params p WHERE p.run_id = m.run_id AND p.key = 'kernel.zone_reclaim_mode') AS mode, CAST(round(max(CASE name WHEN 'alloc_latency_p50' THEN value END)) AS INTEGER) AS p50, CAST(round(max(CASE name WHEN 'alloc_latency_p99' THEN value END)) AS INTEGER) AS p99, CAST(round(max(CASE name WHEN 'alloc_latency_max' THEN value END)) AS INTEGER) AS max, CAST(round(max(CASE name WHEN 'alloc_latency_mean' THEN value END)) AS INTEGER) AS mean, printf('%.1f %%', 100 * max(CASE name WHEN 'remote_share' THEN value END)) AS remote, CAST(round(max(CASE name WHEN 'reclaim_cycles_per_alloc' THEN value END)) AS INTEGER) AS reclaim_per_alloc, CAST(round(max(CASE name WHEN 'reclaimed_prefill' THEN value END)) AS INTEGER) AS reclaimed, CAST(round(max(CASE name WHEN 'kswapd_steps' THEN value END)) AS INTEGER) AS kswapd_steps, CAST(round(max(CASE name WHEN 'access_cycles_local' THEN value END)) AS INTEGER) AS read_local, CAST(round(max(CASE name WHEN 'access_cycles_remote' THEN value END)) AS INTEGER) AS read_remote FROM v_metrics m GROUP BY run_id ORDER BY machine, mode\""

fi

# --- the 2016 series as shipped: its report, one column per kernel (about 7 min of 2 cores) ---
if want series-2016; then
step series-2016
numasim run -q scenarios/series-2016.yaml --db series-2016.db --jobs 2 >/dev/null
numasim report series-2016.db --format html -o series-2016.html
shot series-2016 4000
fi

# --- the HTML report at 2, 6 and 29 variants (docs/guide/plots.md, tests/cli/html-layout.sh) ---
if want html-layout; then
step html-layout
s=$ROOT/tests/scenarios/tiny-pagealloc.yaml
short="--set workload.batches=[1,64] --jobs 2"
numasim run -q $s --db v2.db $short --set workload.inner_iterations=5 --set repetitions=2 >/dev/null
numasim run -q $s --db v6.db $short --sweep workload.inner_iterations=4,6,8 >/dev/null
numasim run -q $s --db v29.db $short --set kernel.zonelist_iter=682a3385 \
	--sweep workload.inner_iterations=$(seq -s, 4 32) >/dev/null
for n in 2 6 29; do
	numasim report v$n.db --format html -o html-$n.html
done
shot html-2 2400
shot html-6 2400
shot html-29 2400
fi

# --- the shortened runs the test repeats ----------------------------------------------------
if want check; then
step check
NUMASIM=$NUMASIM bash "$ROOT/scripts/docs-figures-check.sh" >"$OUT/check.txt"
fi

# --- generated reference, and the marked blocks of the pages ----------------------------
step splice
cd "$ROOT"
python3 scripts/docs-sites.py >docs/reference/sites.md
for f in README.md $(find docs -name '*.md' | sort); do
	grep -q '<!-- figure: ' "$f" || continue
	perl -0pi -e '
		s{^(<!-- figure: (\S+)[^\n]*-->\n).*?(<!-- /figure -->)}{
			my ($open, $file, $close) = ($1, $2, $3);
			if (open(my $fh, "<", $file)) {
				local $/; my $t = <$fh>; close $fh;
				$t .= "\n" unless $t =~ /\n\z/;
				$open . "```text\n" . $t . "```\n" . $close
			} else {
				warn "docs-figures: $ARGV: no $file yet (run its step)\n";
				$&
			}
		}gsme' "$f"
done
echo "docs-figures: done; review with git diff, then commit" >&2
