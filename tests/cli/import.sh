#!/usr/bin/env bash
# CLI tests for `numasim import`: every numactl fixture is imported and read
# back through `numasim topology --format json`; node ids, CPUs, memory and
# the distance matrix must equal what an independent awk reading of the
# fixture says.  Also: the sysfs fixture trees, -o OUT (atomic, nothing
# written on error), stdin, bad inputs (exit 2, file:line:col, empty
# stdout), usage errors and determinism.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
FX=$SRC/tests/fixtures/numactl
SYS=$SRC/tests/fixtures/sysfs

need_jq

# What a numactl fixture says, as JSON {ids, cpus, pages, distance},
# read with awk independently of the C parser.
expect_json() {
	awk '
	function flush_cpus(   i, n, t, a, b, k, out) {
		if (cur == "") return
		n = split(cpubuf, t, /[ ,\t]+/)
		out = ""
		for (i = 1; i <= n; i++) {
			if (t[i] == "" || t[i] ~ /^\(/) continue
			if (t[i] ~ /-/) { split(t[i], ab, "-"); a = ab[1]; b = ab[2] }
			else { a = t[i]; b = t[i] }
			for (k = a + 0; k <= b + 0; k++) out = out (out == "" ? "" : ",") k
		}
		cpus[cur] = out
		cur = ""
	}
	/^available:/ { next }
	/^node distances:/ { flush_cpus(); indist = 1; next }
	/^No distance information available\./ { flush_cpus(); nodist = 1; next }
	indist && /^[ \t]*node/ { next }
	indist && /^[ \t]*[0-9]+:/ {
		sub(/^[ \t]*[0-9]+:[ \t]*/, ""); gsub(/[ \t]+$/, "")
		gsub(/[ \t]+/, ","); rows[nrows++] = "[" $0 "]"; next
	}
	/^node [0-9]+ cpus:/ {
		flush_cpus(); cur = $2; ids[nids++] = $2
		line = $0; sub(/^node [0-9]+ cpus:/, "", line); cpubuf = line; next
	}
	/^node [0-9]+ size:/ { flush_cpus(); pages[$2] = $4 * 256; next }
	/^node [0-9]+ free:/ { flush_cpus(); next }
	/^[ \t]*[0-9][0-9 \t]*$/ && cur != "" { cpubuf = cpubuf " " $0; next }
	END {
		flush_cpus()
		printf "{\"ids\":["
		for (i = 0; i < nids; i++) printf "%s%s", (i ? "," : ""), ids[i]
		printf "],\"cpus\":["
		for (i = 0; i < nids; i++) printf "%s[%s]", (i ? "," : ""), cpus[ids[i]]
		printf "],\"pages\":["
		for (i = 0; i < nids; i++) printf "%s%d", (i ? "," : ""), pages[ids[i]]
		printf "],\"distance\":["
		if (nodist) printf "[10]"
		for (i = 0; i < nrows; i++) printf "%s%s", (i ? "," : ""), rows[i]
		printf "]}\n"
	}' "$1" | tr -d '\r' | jq -cS .
}

# --- every good fixture: import | topology --format json ---------------
nfix=0
for f in "$FX"/*.txt; do
	name=$(basename "$f" .txt)
	nfix=$((nfix + 1))
	if ! "$NUMASIM" import numactl "$f" >"$tmp/$name.yaml" 2>"$tmp/err"; then
		bad "$name: import failed: $(cat "$tmp/err")"; continue
	fi
	if ! "$NUMASIM" topology - --format json <"$tmp/$name.yaml" >"$tmp/$name.json" 2>"$tmp/err"; then
		bad "$name: topology failed: $(cat "$tmp/err")"; continue
	fi
	want=$(expect_json "$f")
	got=$(jq -cS '{ids: [.nodes[].id], cpus: [.nodes[].cpus],
	              pages: [.nodes[].mem_pages], distance: .distance}' "$tmp/$name.json")
	if [ "$want" = "$got" ]; then ok; else
		bad "$name: topology differs from the fixture"
		echo "  want: ${want:0:300}"; echo "  got:  ${got:0:300}"
	fi
	# zones add up to the node totals and use only x86 zone types
	if jq -e 'all(.nodes[]; ([.zones[].pages] | add // 0) == .mem_pages) and
	          all(.nodes[].zones[]; .type == "DMA" or .type == "DMA32" or .type == "Normal")' \
	          "$tmp/$name.json" >/dev/null; then ok; else bad "$name: zones inconsistent"; fi
	if "$NUMASIM" validate -q "$tmp/$name.yaml" 2>"$tmp/err"; then ok; else
		bad "$name: validate: $(cat "$tmp/err")"; fi
done
[ "$nfix" -ge 8 ] && ok || bad "only $nfix numactl fixtures"

# --arch: arm64 has no DMA32 and picks the arm64 profile; none is all Normal
"$NUMASIM" import numactl "$FX/kunpeng920-4826-4node.txt" --arch arm64 >"$tmp/kp.yaml" &&
	"$NUMASIM" topology "$tmp/kp.yaml" --format json >"$tmp/kp.json"
if jq -e '[.nodes[0].zones[].type] == ["DMA", "Normal"] and .nodes[0].zones[0].pages == 1048576' \
	"$tmp/kp.json" >/dev/null && grep -q 'cost profile kunpeng920' "$tmp/kp.yaml"; then ok
else bad "arm64 layout/profile"; fi
"$NUMASIM" import numactl "$FX/power9-sparse-0-8.txt" --arch none | "$NUMASIM" topology - --format json >"$tmp/p9.json"
if jq -e '[.nodes[].zones[].type] == ["Normal", "Normal"] and [.nodes[].id] == [0, 8]' "$tmp/p9.json" >/dev/null
then ok; else bad "--arch none layout"; fi

# --- sysfs trees ----------------------------------------------------------
for t in "$SYS"/*/; do
	name=$(basename "$t")
	if "$NUMASIM" import sysfs "$t" -o "$tmp/$name-sysfs.yaml" 2>"$tmp/err" &&
	   "$NUMASIM" validate -q "$tmp/$name-sysfs.yaml" 2>>"$tmp/err"; then ok
	else bad "sysfs $name: $(cat "$tmp/err")"; fi
done
"$NUMASIM" topology "$tmp/intel-2s-pmem-zoneinfo-sysfs.yaml" --format json >"$tmp/z.json"
if jq -e '.nodes[0].zones == [{"type":"DMA","pages":3998},{"type":"DMA32","pages":474224},{"type":"Normal","pages":7864320}]
          and .nodes[1].zones == [{"type":"Normal","pages":8388608}] and .distance == [[10,21],[21,10]]' \
	"$tmp/z.json" >/dev/null; then ok; else bad "sysfs zoneinfo present pages"; cat "$tmp/z.json" | head -c 600; fi
"$NUMASIM" topology "$tmp/ppc-sparse-memoryless-sysfs.yaml" --format json >"$tmp/p.json"
if jq -e '[.nodes[].id] == [0, 2] and .nodes[0].mem_pages == 0 and .nodes[1].cpus == [] and
          .nodes[1].mem_pages == 1835008 and .distance == [[10,40],[40,10]]' "$tmp/p.json" >/dev/null
then ok; else bad "sysfs sparse/memoryless tree"; fi
if [ -r /sys/devices/system/node/online ]; then
	if "$NUMASIM" import sysfs >"$tmp/live.yaml" 2>"$tmp/err" && "$NUMASIM" validate -q "$tmp/live.yaml"
	then ok; else bad "live sysfs import: $(cat "$tmp/err")"; fi
fi

# --- stdin, -o, determinism, names ------------------------------------------
"$NUMASIM" import numactl - --name stdin-box <"$FX/intel-4s-e7-4870.txt" >"$tmp/s.yaml"
if grep -qx 'name: "stdin-box"' "$tmp/s.yaml" && grep -q 'output of standard input' "$tmp/s.yaml"
then ok; else bad "stdin import / --name"; fi
"$NUMASIM" import numactl "$FX/intel-4s-e7-4870.txt" >"$tmp/d1.yaml"
"$NUMASIM" import numactl "$FX/intel-4s-e7-4870.txt" >"$tmp/d2.yaml"
cmp -s "$tmp/d1.yaml" "$tmp/d2.yaml" && ok || bad "import is not deterministic"
out=$("$NUMASIM" import numactl "$FX/intel-4s-e7-4870.txt" -o "$tmp/o.yaml")
# identical but for the header line recording the command
if [ -z "$out" ] && diff <(tail -n +2 "$tmp/o.yaml") <(tail -n +2 "$tmp/d1.yaml") >/dev/null
then ok; else bad "-o OUT"; fi
if grep -q '^costs:' "$tmp/o.yaml" && grep -q '\[PE-NUMA\]' "$tmp/o.yaml"; then ok
else bad "costs block (with its sources) not copied"; fi
if "$NUMASIM" import numactl "$FX/intel-4s-e7-4870.txt" --costs "$SRC/configs/costs/zen2.yaml" |
	grep -q 'cost profile zen2'; then ok; else bad "--costs PATH"; fi
if NUMASIM_CONFIGS=$SRC/configs "$NUMASIM" import numactl "$FX/single-node-8cpu.txt" --costs zen3 |
	grep -q 'cost profile zen3'; then ok; else bad "NUMASIM_CONFIGS"; fi
"$NUMASIM" import --list-costs >"$tmp/list" && grep -q '^skylake-sp' "$tmp/list" && ok || bad "--list-costs"

# --- errors: exit 2, message with position, nothing written --------------
# run_err NAME EXPECTED-STDERR-REGEX ARGS...
run_err() {
	local name=$1 re=$2; shift 2
	"$NUMASIM" import "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ $rc -ne 2 ]; then bad "$name: exit $rc, expected 2"; return; fi
	if [ -s "$tmp/out" ]; then bad "$name: wrote to stdout"; return; fi
	if grep -Eq -- "$re" "$tmp/err"; then ok; else bad "$name: stderr '$(cat "$tmp/err")' !~ /$re/"; fi
}
run_err fake-numa 'fake-numa-12node-shared-cpus.txt:8:14: error: CPU 0 is already in node 0' \
	numactl "$FX/bad/fake-numa-12node-shared-cpus.txt"
run_err zero-nodes 'zero-nodes-docker.txt:1:12: error:' numactl "$FX/bad/zero-nodes-docker.txt"
head -n 12 "$FX/intel-4s-e7-4870.txt" >"$tmp/trunc.txt"
run_err truncated 'trunc.txt:13:1: error: input ends without a .node distances:. table' numactl "$tmp/trunc.txt"
head -n 17 "$FX/intel-4s-e7-4870.txt" >"$tmp/trunc2.txt"
run_err truncated-table 'trunc2.txt:18:1: error: distance table ends after 2 of 4 rows' numactl "$tmp/trunc2.txt"
sed 's/^node 2 size: 65536 MB/node 2 size: 64 GB/' "$FX/intel-4s-e7-4870.txt" >"$tmp/gb.txt"
run_err size-unit 'gb.txt:9:17: error: expected .MB.' numactl "$tmp/gb.txt"
printf 'available: 1 nodes (0)\nnode 0 cpus: 0\nnode 0 size: 1 MB\n' >"$tmp/nodist.txt"
run_err stdin-name '<stdin>:4:1: error:' numactl - <"$tmp/nodist.txt"
run_err missing-file 'nosuch.txt: error' numactl "$tmp/nosuch.txt"
run_err missing-tree 'nosuch/sys/devices/system/node/online: error' sysfs "$tmp/nosuch"
run_err bad-profile 'bad-profile-negative.yaml:5:' numactl "$FX/single-node-8cpu.txt" \
	--costs "$SRC/tests/fixtures/import/bad-profile-negative.yaml"
run_err no-profile "no cost profile 'nosuch'" numactl "$FX/single-node-8cpu.txt" --costs nosuch
run_err usage-kind 'numasim import: error: unknown input kind' lscpu x
run_err usage-nofile 'needs a FILE' numactl
run_err usage-arch '--arch takes x86_64, arm64 or none' numactl "$FX/single-node-8cpu.txt" --arch ppc64
run_err usage-opt "unknown option '--frobnicate'" numactl "$FX/single-node-8cpu.txt" --frobnicate
run_err usage-value '-o needs a value' numactl "$FX/single-node-8cpu.txt" -o

# an error must not create or touch -o OUT
echo keep >"$tmp/keep.yaml"
"$NUMASIM" import numactl "$tmp/trunc.txt" -o "$tmp/keep.yaml" 2>/dev/null
if [ "$(cat "$tmp/keep.yaml")" = keep ]; then ok; else bad "-o OUT overwritten on error"; fi
"$NUMASIM" import numactl "$tmp/trunc.txt" -o "$tmp/new.yaml" 2>/dev/null
if [ ! -e "$tmp/new.yaml" ] && [ -z "$(ls "$tmp" | grep 'new.yaml.tmp')" ]; then ok
else bad "-o OUT created on error"; fi

"$NUMASIM" import --help | grep -q '^usage: numasim import numactl' && ok || bad "--help"

# CPU 8192 is one past MACHINE_MAX_CPUS (NR_CPUS 8192: CPUs 0..8191):
# refused as out of range, exit 2 (found by fuzz_numactl: a heap overflow
# in nl_add_cpu when the bound was inclusive).
printf 'available: 1 nodes (0)\nnode 0 cpus: 0 8192\nnode 0 size: 1024 MB\nnode 0 free: 512 MB\nnode distances:\nnode   0\n  0:  10\n' >"$tmp/cpu8192.txt"
"$NUMASIM" import numactl "$tmp/cpu8192.txt" >"$tmp/o" 2>"$tmp/e"
st=$?
if [ $st = 2 ] && grep -q "CPU number out of range (at most 8191)" "$tmp/e" && [ ! -s "$tmp/o" ]; then ok; else
	bad "cpu 8192: exit $st: $(head -c 200 "$tmp/e")"; fi
printf 'available: 1 nodes (0)\nnode 0 cpus: 0-8192\nnode 0 size: 1024 MB\nnode 0 free: 512 MB\nnode distances:\nnode   0\n  0:  10\n' >"$tmp/cpu8192r.txt"
"$NUMASIM" import numactl "$tmp/cpu8192r.txt" >"$tmp/o" 2>"$tmp/e"
st=$?
if [ $st = 2 ] && grep -q "at most 8191" "$tmp/e"; then ok; else bad "cpus 0-8192: exit $st: $(head -c 200 "$tmp/e")"; fi

finish
