#!/usr/bin/env bash
# bench/sweep1000.sh OUTDIR LABEL=NUMASIM[:EXTRA ARGS] ...: the 1,000-point
# sweep of docs/guide/running.md ("Throughput of a 1,000-point sweep"),
# alternating the given binaries (A/B/C, ... in one sitting), ROUNDS times
# each (default 5), each run on a fresh database in OUTDIR (on the disk
# the figures are for); prints one line per run: label, round, wall s,
# user s, sys s, peak RSS KiB, then per label the median wall and CPU (user + sys).
# Example:
#   bash bench/sweep1000.sh /work/x old=old/numasim new=build/numasim \
#       'new-j2=build/numasim:--jobs 2'
set -eu
out=$1
shift
rounds=${ROUNDS:-5}
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
run() {   # label exe extra...
	local label=$1 exe=$2
	shift 2
	rm -f "$out/$label.db" "$out/$label.db-wal" "$out/$label.db-shm"
	/usr/bin/time -f "%e %U %S %M" -o "$out/$label.time" "$exe" run \
		"$src/tests/scenarios/sweep-small.yaml" --db "$out/$label.db" --set repetitions=1 \
		--sweep "kernel.watermark_scale_factor=$(seq -s, 1 250)" \
		--sweep kernel.zonelist_iter=pre-682a3385,682a3385 \
		--sweep workload.inner_iterations=5,6 -q "$@" >/dev/null
	n=$(sqlite3 "$out/$label.db" "SELECT count(*) FROM runs WHERE status = 'ok'")
	[ "$n" = 1000 ] || { echo "$label: $n runs, not 1000" >&2; exit 1; }
}
: >"$out/results.txt"
for r in $(seq "$rounds"); do
	for spec in "$@"; do
		label=${spec%%=*}
		rest=${spec#*=}
		exe=${rest%%:*}
		extra=""
		[ "$rest" != "$exe" ] && extra=${rest#*:}
		# shellcheck disable=SC2086
		run "$label" "$exe" $extra
		echo "$label $r $(cat "$out/$label.time")" | tee -a "$out/results.txt"
	done
done
echo "label  median-wall-s  median-cpu-s"
for spec in "$@"; do
	label=${spec%%=*}
	awk -v l="$label" '$1 == l { w[++n] = $3; c[n] = $4 + $5 }
		function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
		END { printf "%s %.2f %.2f\n", l, med(w, n), med(c, n) }' "$out/results.txt"
done
