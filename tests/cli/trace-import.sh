#!/usr/bin/env bash
# numasim import trace and the replay workload (docs/reference/trace-format.md,
# docs/guide/workloads.md "replay"): event counts of every fixture format equal
# a count taken with grep; the perf kmem stat summary of the v4.6 fixture
# equals the hand count; bad lines are file:line:col errors, exit 2, no
# output file; --skip-bad counts them; the compact file reads back to the
# same summary, from a file (mapped) or standard input (read); a replay of each fixture stores its calls and paths.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

fx=$SRC/tests/fixtures/traces
kinds="mm_page_alloc mm_page_free mm_page_free_batched mm_page_alloc_zone_locked
mm_page_pcpu_drain kmem_cache_alloc kmem_cache_alloc_node kmalloc kmalloc_node
kmem_cache_free kfree"

for f in ftrace-v4.6 ftrace-v6 trace-cmd-v5.15 perf-script-v6; do
	if "$NUMASIM" import trace "$fx/$f.txt" >"$tmp/$f.out" 2>"$tmp/$f.err"; then ok; else
		bad "$f: import failed: $(cat "$tmp/$f.err")"
		continue
	fi
	total=0
	for k in $kinds; do
		want=$(grep -cE "(^|[ :])$k:( |$)" "$fx/$f.txt")
		total=$((total + want))
		got=$(awk -v k="$k" '$1 == k { print $2 }' "$tmp/$f.out")
		check "$f: $k" "${got:-0}" "$want"
	done
	check "$f: events read" "$(awk '/^events read:/ { print $3 }' "$tmp/$f.out")" "$total"
	want=$(grep -c '^CPU:[0-9]* \[' "$fx/$f.txt")
	check "$f: lost-events lines" "$(awk '/lost-events lines/ { print $3 }' "$tmp/$f.out")" "$want"
done

# the summary of the v4.6 fixture, counted by hand (see the fixture)
o=$tmp/ftrace-v4.6.out
sum() { grep -F "$1" "$o" | sed 's/.*: //'; }
check "slab allocations" "$(sum 'Total allocations')" "4 (0 failed)"
check "slab frees" "$(sum 'Total frees')" "3 (0 free-only)"
check "bytes requested" "$(sum 'Total bytes requested')" 2604
check "bytes allocated" "$(sum 'Total bytes allocated')" 3584
check "bytes freed" "$(sum 'Total bytes freed')" 2304
check "slab pingpong" "$(grep -F 'Cross-CPU frees' "$o" | head -1 | sed 's/.*: //')" "1/2"
check "page requests" "$(sum 'Total allocation requests')" 4
check "page failures" "$(sum 'Total allocation failures')" 1
check "page free-only" "$(sum 'Total free-only requests')" 1
check "slab pages" "$(sum 'Slab pages')" "1 / 0"
check "page pingpong" "$(grep -F 'Cross-CPU frees' "$o" | tail -1 | sed 's/.*: //')" "1/2"
check "order 2 row" "$(awk '$1 == "2" && NF == 8 { print $2 }' "$o")" 1
check "kmalloc site" "$(awk '$1 == "ffffffff8156fa21" { print $2, $3, $4, $5, $7 }' "$o")" \
	"1 1 2048 1500 1"

# compact file: written atomically, reads back to the same report
if "$NUMASIM" import trace "$fx/perf-script-v6.txt" -o "$tmp/p.nst" >"$tmp/w.out" 2>&1; then ok; else
	bad "import -o: $(cat "$tmp/w.out")"
fi
check "magic" "$(head -c 8 "$tmp/p.nst")" NSKTRACE
"$NUMASIM" import trace "$tmp/p.nst" >"$tmp/r.out" 2>&1
check "compact reads back" "$(diff <(grep -v '^wrote' "$tmp/w.out" | sed '$d') "$tmp/r.out" && echo same)" same
# a regular file is mapped, standard input is read: the same bytes, the
# same compact file and the same report
"$NUMASIM" import trace - -o "$tmp/p-stdin.nst" <"$fx/perf-script-v6.txt" >/dev/null 2>&1
check "text from standard input" "$(cmp "$tmp/p.nst" "$tmp/p-stdin.nst" && echo same)" same
"$NUMASIM" import trace - <"$tmp/p.nst" >"$tmp/r-stdin.out" 2>&1
check "compact from standard input" "$(diff "$tmp/r.out" "$tmp/r-stdin.out" && echo same)" same

# bad inputs: file:line:col, exit 2, nothing written
for b in garbage:1:1 missing-pfn:1:49 order-range:2:103 truncated:3:91 unknown-field:1:182; do
	name=${b%%:*}
	rm -f "$tmp/bad.nst"
	run_err_like "bad $name" "$name.txt:${b#*:}: error:" import trace "$fx/bad/$name.txt" -o "$tmp/bad.nst"
	if [ -e "$tmp/bad.nst" ]; then bad "bad $name: output written"; else ok; fi
done
"$NUMASIM" import trace "$fx/bad/order-range.txt" --skip-bad >"$tmp/skip.out" 2>&1
check "--skip-bad exit" $? 0
check "--skip-bad count" "$(awk '/bad lines skipped/ { print $4 }' "$tmp/skip.out")" 1
check "--skip-bad events" "$(awk '/^events read:/ { print $3 }' "$tmp/skip.out")" 1
run_err_like "no file" "import trace needs a FILE" import trace

# replay: every fixture, both timings; the run stores its calls
for f in ftrace-v4.6 ftrace-v6 trace-cmd-v5.15 perf-script-v6; do
	for timing in recorded asap; do
		cat >"$tmp/r.yaml" <<YAML
name: replay-$f
machine: $SRC/configs/seed-2016-2s.yaml
workload:
  type: replay
  trace: $fx/$f.txt
  timing: $timing
YAML
		rm -f "$tmp/r.db"
		if "$NUMASIM" run "$tmp/r.yaml" --db "$tmp/r.db" >"$tmp/run.out" 2>&1; then ok; else
			bad "replay $f $timing: $(tail -5 "$tmp/run.out")"
			continue
		fi
		m() { q "$tmp/r.db" "SELECT CAST(value AS INTEGER) FROM metrics WHERE name = '$1'"; }
		check "$f $timing: events" "$(m events)" "$(awk '/^events read:/ { print $3 }' "$tmp/$f.out")"
		# alloc-only objects and pages the replay ran (the summary's, less the
		# slab pages): v4.6's kmalloc_node and kmem_cache_alloc_node
		case $f in ftrace-v4.6) live=2 ;; *) live=0 ;; esac
		check "$f $timing: live at the end" "$(m live_at_end)" $live
	done
done
cat >"$tmp/r.yaml" <<YAML
name: replay-v46
machine: $SRC/configs/seed-2016-2s.yaml
workload: {type: replay, trace: $fx/ftrace-v4.6.txt, timing: asap}
YAML
"$NUMASIM" run "$tmp/r.yaml" --db "$tmp/v.db" >/dev/null 2>&1
mv() { q "$tmp/v.db" "SELECT CAST(value AS INTEGER) FROM metrics WHERE name = '$1'"; }
check "v4.6 free_unknown" "$(mv free_unknown)" 1
check "v4.6 kfree(NULL)" "$(mv free_null)" 1
check "v4.6 recorded failure" "$(mv recorded_failures)" 1
check "v4.6 internal events" "$(mv internal_events)" 2
check "v4.6 slab page skipped" "$(mv slab_pages_skipped)" 1
check "v4.6 order-2 allocation" "$(mv alloc_pages.odr2.buddy.calls)" 1
# the shipped test scenario: both zonelist iterators, the kernel named
"$NUMASIM" run "$SRC/tests/scenarios/tiny-replay.yaml" --db "$tmp/t.db" -q >/dev/null 2>&1
check "tiny-replay runs" "$(q "$tmp/t.db" "SELECT COUNT(*) FROM runs")" 2
check "tiny-replay kernels" "$(q "$tmp/t.db" "SELECT GROUP_CONCAT(kernel_model, ';') FROM (SELECT kernel_model FROM runs ORDER BY run_id)")" \
	"v4.6+patches1-4 / v5.9;v4.6+patches1-4+682a3385 / v5.9"
check "tiny-replay calls" "$(q "$tmp/t.db" "SELECT DISTINCT CAST(value AS INTEGER) FROM metrics WHERE name = 'calls'")" 10
# a device is not a trace
run_err_like "device" "is a device" import trace /dev/null
cat >"$tmp/rb.yaml" <<YAML
name: replay-bad
machine: $SRC/configs/seed-2016-2s.yaml
workload: {type: replay, trace: $fx/bad/truncated.txt}
YAML
run_err_like "replay of a bad trace" "truncated.txt:3:91: error:" validate "$tmp/rb.yaml"
finish
