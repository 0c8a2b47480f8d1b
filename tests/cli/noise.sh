#!/usr/bin/env bash
# Seeded noise sources (issue 49, item 1; docs/design/statistics.md "Noise
# sources"): (a) without them a pagealloc plan's repetitions are identical
# and compare says "exact"; (b) with them on the repetitions differ,
# compare runs Welch's test over the runs and prints the interval; (c) the
# same seed gives the same rows twice, another seed other rows, and memo
# accounting exact accounting's rows; (d) each source alone moves the
# runs apart and is stored as a parameter; (e) bad noise keys are input
# errors with their position.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

S=$SRC/tests/scenarios/tiny-pagealloc.yaml
ON='noise={page_placement: on, ticks: on, pollution: on}'

# rows DB: every metric and sample of every run, by variant and seed
rows() {
	q "$1" "SELECT r.variant, r.seed, m.name, m.value FROM runs r JOIN metrics m USING (run_id) ORDER BY 1, 2, 3;
		SELECT r.variant, r.seed, s.metric, group_concat(s.value) FROM runs r JOIN samples s USING (run_id) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
}
# distinct DB METRIC: how many distinct values the runs of each variant have
distinct() {
	q "$1" "SELECT count(DISTINCT m.value) FROM runs r JOIN metrics m USING (run_id) WHERE m.name = '$2' GROUP BY r.variant ORDER BY r.variant" | tr '\n' ' '
}

# --- (a) off: identical repetitions, exact ------------------------------------------
"$NUMASIM" run -q "$S" --db "$tmp/off.db" --set repetitions=4 >/dev/null 2>"$tmp/e" ||
	{ cat "$tmp/e"; bad "(a) run"; }
check "(a) timed_cycles identical" "$(distinct "$tmp/off.db" timed_cycles)" "1 1 "
check "(a) no noise params" "$(q "$tmp/off.db" "SELECT count(*) FROM params WHERE key LIKE 'noise.%'")" 0
"$NUMASIM" compare "$tmp/off.db" --metric 'timed_cycles,total-odr0-1' >"$tmp/a" 2>/dev/null
grep -q '^Diff      timed_cycles  *exact ' "$tmp/a" && ok || bad "(a) exact: $(grep '^Diff' "$tmp/a")"
check "(a) no p-value" "$(grep -c 'p[<=]0\.' "$tmp/a")" 0

# --- (b) on: the repetitions differ, Welch over runs ---------------------------------
"$NUMASIM" run -q "$S" --db "$tmp/on.db" --set repetitions=4 --set "$ON" >/dev/null 2>"$tmp/e" ||
	{ cat "$tmp/e"; bad "(b) run"; }
check "(b) timed_cycles differ" "$(distinct "$tmp/on.db" timed_cycles)" "4 4 "
"$NUMASIM" compare "$tmp/on.db" --metric 'timed_cycles,total-odr0-1' >"$tmp/b" 2>/dev/null
check "(b) exit" "$?" 0
grep -q '^Diff      timed_cycles  *p[<=]0\.[0-9]\{4\}\*\? *\[[-+][0-9.]*, [-+][0-9.]*\]$' "$tmp/b" && ok ||
	bad "(b) Welch with interval: $(grep '^Diff' "$tmp/b")"
grep -q 'Welch t-test' "$tmp/b" && ok || bad "(b) says Welch"
if command -v jq >/dev/null; then
	"$NUMASIM" compare "$tmp/on.db" --metric timed_cycles --format json >"$tmp/b.json"
	check "(b) json: over 4 runs" "$(jq -r '.welch[0] | [.test, .runs, .runs_baseline, (.p != null)] | join(" ")' "$tmp/b.json")" "welch 4 4 true"
fi
# the noise is what the runs stored it did
check "(b) params" "$(q "$tmp/on.db" "SELECT group_concat(key || '=' || value, ' ') FROM (SELECT DISTINCT key, value FROM params WHERE key LIKE 'noise.%' ORDER BY key)")" \
	"noise.hz=250 noise.page_placement=on noise.pollution=on noise.pollution_percent=10 noise.tick_lines=64 noise.tick_ns=750 noise.ticks=on"
check "(b) ticks delivered" "$(q "$tmp/on.db" "SELECT min(value) > 0 FROM metrics WHERE name = 'noise_ticks'")" 1

# --- (c) the same seed: the same rows ------------------------------------------------
"$NUMASIM" run -q "$S" --db "$tmp/on2.db" --set repetitions=4 --set "$ON" >/dev/null 2>&1 ||
	bad "(c) run"
rows "$tmp/on.db" >"$tmp/r1"
rows "$tmp/on2.db" >"$tmp/r2"
if [ -s "$tmp/r1" ] && cmp -s "$tmp/r1" "$tmp/r2"; then ok; else bad "(c) rows differ between two runs of one seed"; fi
# another seed: other rows
"$NUMASIM" run -q "$S" --db "$tmp/on3.db" --set repetitions=4 --set seed=100 --set "$ON" >/dev/null 2>&1 ||
	bad "(c) seed 100"
a=$(q "$tmp/on.db" "SELECT group_concat(value) FROM (SELECT value FROM metrics WHERE name = 'timed_cycles' ORDER BY run_id)")
b=$(q "$tmp/on3.db" "SELECT group_concat(value) FROM (SELECT value FROM metrics WHERE name = 'timed_cycles' ORDER BY run_id)")
[ -n "$a" ] && [ "$a" != "$b" ] && ok || bad "(c) seed 100 gave seed 7's rows"

# memo accounting (pagealloc's default) gives exact accounting's rows with
# the noise on: the ticks and the pollution change the caches between
# top-level calls, which memo's paths see
"$NUMASIM" run -q "$S" --db "$tmp/ex.db" --set repetitions=2 --set kernel.zonelist_iter=682a3385 \
	--set "$ON" --set cost.accounting=exact >/dev/null 2>&1 || bad "(c) exact run"
"$NUMASIM" run -q "$S" --db "$tmp/me.db" --set repetitions=2 --set kernel.zonelist_iter=682a3385 \
	--set "$ON" >/dev/null 2>&1 || bad "(c) memo run"
rows "$tmp/ex.db" >"$tmp/rex"
rows "$tmp/me.db" >"$tmp/rme"
if [ -s "$tmp/rex" ] && cmp -s "$tmp/rex" "$tmp/rme"; then ok; else bad "(c) memo's rows are not exact's"; fi

# --- (d) each source alone ------------------------------------------------------------
for src in page_placement ticks pollution; do
	"$NUMASIM" run -q "$S" --db "$tmp/$src.db" --set repetitions=3 --set kernel.zonelist_iter=682a3385 \
		--set "noise.$src=on" >/dev/null 2>"$tmp/e" || { cat "$tmp/e"; bad "(d) $src run"; }
	check "(d) $src: runs differ" "$(distinct "$tmp/$src.db" timed_cycles)" "3 "
	check "(d) $src: param" "$(q "$tmp/$src.db" "SELECT DISTINCT value FROM params WHERE key = 'noise.$src'")" on
done
# a sweep of one source: two columns, labelled by it
"$NUMASIM" run -q "$S" --db "$tmp/sw.db" --set repetitions=2 --set kernel.zonelist_iter=682a3385 \
	--sweep noise.pollution=off,on >/dev/null 2>&1 || bad "(d) sweep"
check "(d) sweep variants" "$(q "$tmp/sw.db" "SELECT group_concat(DISTINCT variant) FROM runs")" \
	"noise.pollution=off,noise.pollution=on"

# --- (e) bad input ----------------------------------------------------------------------
run_err_like "(e) unknown key" "noise has no key 'tickz'" run "$S" --db "$tmp/x.db" --set noise.tickz=on
run_err_like "(e) hz range" "noise.hz must be between 24 and 10000" run "$S" --db "$tmp/x.db" --set noise.hz=1
run_err_like "(e) ticks need pagealloc" "workload 'messaging' does not deliver" \
	run "$SRC/tests/scenarios/tiny-messaging.yaml" --db "$tmp/x.db" --set noise.ticks=on
sed 's|^machine: \.\./\.\./|machine: '"$SRC"'/|' "$S" >"$tmp/bad.yaml"
printf 'noise:\n  ticks: maybe\n' >>"$tmp/bad.yaml"
line=$(wc -l <"$tmp/bad.yaml")
run_err_like "(e) position" "bad.yaml:$line:10: error: noise.ticks must be 'on' or 'off'" \
	run "$tmp/bad.yaml" --db "$tmp/x.db"
check "(e) nothing stored" "$([ -e "$tmp/x.db" ] && echo yes || echo no)" no

finish
