#!/usr/bin/env bash
# CLI tests for the machine key `free:` (the memory free when a simulation
# starts): `numasim import numactl` writes it from the "node N free: M MB"
# lines of every numactl fixture (`import sysfs` from nodeN/meminfo
# MemFree), `numasim topology` prints it back as
# "node N free:" (text, the fixture's own lines) and free_pages (JSON), a
# machine without the key starts with everything free, and a numactl
# "free" above "size" is refused with its position (exit 2, no output).
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
FX=$SRC/tests/fixtures/numactl

need_jq

for f in "$FX"/*.txt; do
	name=$(basename "$f" .txt)
	out=$tmp/$name.yaml
	if ! "$NUMASIM" import numactl "$f" -o "$out" 2>/dev/null; then
		bad "$name: import failed"
		continue
	fi
	# nodes with memory: one `free:` key each, the fixture's MB
	want=$(awk '/^node [0-9]+ size:/ { size[$2] = $4 }
		    /^node [0-9]+ free:/ { free[$2] = $4 }
		    END { for (n in free) if (size[n] > 0) print n, free[n] }' "$f" | sort -n)
	[ -n "$want" ] || continue
	got=$("$NUMASIM" topology "$out" --format json |
	      jq -r '.nodes[] | select(.mem_pages > 0) |
		     "\(.id) \(.free_pages * 4096 / 1048576 | floor)"' | sort -n)
	check "$name: free_pages per node" "$got" "$want"
	nfree=$(grep -c '^    free: ' "$out")
	check "$name: free: keys written" "$nfree" "$(printf '%s\n' "$want" | wc -l)"
done

# text: the fixture's own "node N free:" lines come back
f=$FX/intel-2s-e5-2695v4.txt
"$NUMASIM" import numactl "$f" -o "$tmp/intel.yaml" 2>/dev/null
got=$("$NUMASIM" topology "$tmp/intel.yaml" | grep '^node [0-9]* free:')
check "topology text free lines" "$got" "$(grep '^node [0-9]* free:' "$f")"
check "written free of node 0" "$(grep -m1 '^    free: ' "$tmp/intel.yaml")" "    free: 121570MiB"

# without the key: free equals size
sed '/^    free: /d' "$tmp/intel.yaml" >"$tmp/nofree.yaml"
got=$("$NUMASIM" topology "$tmp/nofree.yaml" --format json |
      jq -r '[.nodes[] | .free_pages == .mem_pages] | all')
check "no free: key, all free" "$got" "true"

# a hand-written key in pages, validated
sed 's/^    free: 121570MiB/    free: 1000/' "$tmp/intel.yaml" >"$tmp/pages.yaml"
got=$("$NUMASIM" topology "$tmp/pages.yaml" --format json | jq -r '.nodes[0].free_pages')
check "free: in pages" "$got" "1000"

# sysfs: nodeN/meminfo MemFree
for t in "$SRC"/tests/fixtures/sysfs/*/; do
	name=$(basename "$t")
	if ! "$NUMASIM" import sysfs "$t" -o "$tmp/$name-sysfs.yaml" 2>/dev/null; then
		bad "$name: sysfs import failed"
		continue
	fi
	want=$(cat "$t"/sys/devices/system/node/node*/meminfo |
	       awk '$3 == "MemTotal:" && $4 > 0 { mem[$2] = 1 }
		    $3 == "MemFree:" { free[$2] = int($4 * 1024 / 4096) }
		    END { for (n in mem) print n, free[n] }' | sort -n)
	got=$("$NUMASIM" topology "$tmp/$name-sysfs.yaml" --format json |
	      jq -r '.nodes[] | select(.mem_pages > 0) | "\(.id) \(.free_pages)"' | sort -n)
	check "$name: sysfs MemFree per node" "$got" "$want"
done

# a node with nothing free: free: 0
printf 'available: 1 nodes (0)\nnode 0 cpus: 0 1\nnode 0 size: 1024 MB\nnode 0 free: 0 MB\nnode distances:\nnode   0\n  0:  10\n' >"$tmp/zero.txt"
"$NUMASIM" import numactl "$tmp/zero.txt" -o "$tmp/zero.yaml" 2>/dev/null
check "free 0: written" "$(grep '^    free: ' "$tmp/zero.yaml")" "    free: 0"
check "free 0: topology" "$("$NUMASIM" topology "$tmp/zero.yaml" | grep '^node 0 free:')" "node 0 free: 0 MB"

# numactl free above size: refused where it is
printf 'available: 1 nodes (0)\nnode 0 cpus: 0 1\nnode 0 size: 1024 MB\nnode 0 free: 2048 MB\nnode distances:\nnode   0\n  0:  10\n' >"$tmp/over.txt"
"$NUMASIM" import numactl "$tmp/over.txt" -o "$tmp/over.yaml" >"$tmp/o" 2>"$tmp/e"
check "free over size: exit" "$?" "2"
check "free over size: message" "$(grep -c "^$tmp/over.txt:4:1: error: node 0: 'free:' (2048 MB) is more than 'size:' (1024 MB)" "$tmp/e")" "1"
check "free over size: no output" "$([ -e "$tmp/over.yaml" ] || [ -s "$tmp/o" ]; echo $?)" "1"

finish
