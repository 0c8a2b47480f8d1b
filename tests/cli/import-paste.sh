#!/usr/bin/env bash
# CLI test of issue "What a new user trips over", item 1: numactl
# --hardware text as people paste it (a shell prompt or a "Command:"
# header before it, a prompt after it) imports like the bare output, with
# the skipped lines counted on stderr and positions still those of the
# pasted text; text without an 'available:' line is still refused.
# Standard input is named from -o (or the prompt's host), not "stdin", so
# imported boxes do not collide in runs.machine; the cost profile follows
# the CPU when the input names it (a sysfs tree's proc/cpuinfo, pasted
# lscpu lines) and the choice is said on stderr.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
FX=$SRC/tests/fixtures/numactl
SYS=$SRC/tests/fixtures/sysfs
need_jq

topo() { "$NUMASIM" topology "$1" --format json | jq -cS '{n: [.nodes[] | {id, cpus, mem_pages}], d: .distance}'; }

"$NUMASIM" import numactl "$FX/amd-epyc-2s-nps4-8node.txt" -o "$tmp/plain.yaml" 2>/dev/null
want=$(topo "$tmp/plain.yaml")

# prompt before and after
{ echo '[alice@epyc-box ~]$ numactl --hardware'; cat "$FX/amd-epyc-2s-nps4-8node.txt"
  echo '[alice@epyc-box ~]$ '; } >"$tmp/prompt.txt"
if "$NUMASIM" import numactl "$tmp/prompt.txt" -o "$tmp/prompt.yaml" 2>"$tmp/err"; then ok
else bad "prompt paste refused: $(cat "$tmp/err")"; fi
[ -s "$tmp/prompt.yaml" ] && [ "$(topo "$tmp/prompt.yaml")" = "$want" ] && ok || bad "prompt paste: topology differs"
grep -q '^numasim import: skipped 1 line before and 1 line after the numactl --hardware output' "$tmp/err" &&
	ok || bad "prompt paste: skipped lines not said: $(cat "$tmp/err")"

# a header and a blank line, on standard input, named from -o
{ echo 'Command: numactl --hardware'; echo; cat "$FX/intel-2s-e5-2695v4.txt"; } >"$tmp/header.txt"
if "$NUMASIM" import numactl - -o "$tmp/mybox.yaml" <"$tmp/header.txt" 2>"$tmp/err"; then ok
else bad "header paste refused: $(cat "$tmp/err")"; fi
grep -qx 'name: "mybox"' "$tmp/mybox.yaml" 2>/dev/null && ok || bad "stdin not named from -o: $(grep ^name "$tmp/mybox.yaml" 2>/dev/null)"
grep -q "skipped 1 line before and 0 lines after" "$tmp/err" && ok || bad "header: $(cat "$tmp/err")"
grep -q "machine name 'mybox' (the -o file's name)" "$tmp/err" && ok || bad "name not said: $(cat "$tmp/err")"
# standard input to standard output: the prompt's host names it
"$NUMASIM" import numactl - <"$tmp/prompt.txt" 2>/dev/null | grep -qx 'name: "epyc-box"' && ok ||
	bad "stdin not named from the prompt's host"
# two boxes from stdin do not collide
"$NUMASIM" import numactl - -o "$tmp/boxa.yaml" <"$FX/intel-2s-e5-2695v4.txt" 2>/dev/null
"$NUMASIM" import numactl - -o "$tmp/boxb.yaml" <"$FX/intel-4s-e7-4870.txt" 2>/dev/null
[ "$(grep ^name: "$tmp/boxa.yaml" 2>/dev/null)" != "$(grep ^name: "$tmp/boxb.yaml" 2>/dev/null)" ] && ok ||
	bad "two stdin imports have the same name"

# errors keep the pasted text's positions (line 1 is the prompt)
sed 's/^node 2 size: 65536 MB/node 2 size: 64 GB/' "$FX/intel-4s-e7-4870.txt" | sed '1i [bob@host ~]$ numactl -H' >"$tmp/gb.txt"
"$NUMASIM" import numactl "$tmp/gb.txt" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q 'gb.txt:10:17: error: expected .MB.' "$tmp/err" && ok ||
	bad "pasted error position: exit $rc: $(cat "$tmp/err")"
# no 'available:' line at all: still refused
printf '[bob@host ~]$ numactl --hardware\nbash: numactl: command not found\n[bob@host ~]$\n' >"$tmp/none.txt"
"$NUMASIM" import numactl "$tmp/none.txt" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q "none.txt:1:1: error: expected numactl --hardware output starting with 'available:" "$tmp/err" &&
	ok || bad "text without available: exit $rc: $(cat "$tmp/err")"
# a damaged table after a complete one is not taken for a prompt
{ cat "$FX/intel-2s-e5-2695v4.txt"; echo '  2:  21  21'; } >"$tmp/extra.txt"
"$NUMASIM" import numactl "$tmp/extra.txt" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'unexpected text after the distance table' "$tmp/err" && ok || bad "extra row: $(cat "$tmp/err")"

# cost profile: numactl text does not name the CPU -> default, said so
"$NUMASIM" import numactl "$tmp/prompt.txt" 2>"$tmp/err" >/dev/null
grep -q '^numasim import: cost profile skylake-sp: the default for --arch x86_64, as the numactl --hardware output does not name the CPU' \
	"$tmp/err" && ok || bad "default profile not said: $(cat "$tmp/err")"
# ... pasted lscpu lines do
{ printf 'Architecture:        x86_64\nVendor ID:           AuthenticAMD\nModel name:          AMD EPYC 7742 64-Core Processor\nCPU family:          23\nModel:               49\n'
  cat "$tmp/prompt.txt"; } >"$tmp/lscpu.txt"
"$NUMASIM" import numactl "$tmp/lscpu.txt" -o "$tmp/lscpu.yaml" 2>"$tmp/err"
grep -q 'cost profile zen2: the shipped profile nearest to the CPU AMD EPYC 7742 64-Core Processor (family 0x17 model 0x31)' "$tmp/err" &&
	grep -q 'cost profile zen2' "$tmp/lscpu.yaml" && ok || bad "lscpu profile: $(cat "$tmp/err")"
# sysfs tree with proc/cpuinfo: vendor and model pick the profile
cp -r "$SYS/intel-2s-pmem-zoneinfo" "$tmp/tree"
printf 'processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\nmodel name\t: AMD EPYC 7763 64-Core Processor\n\nprocessor\t: 1\nvendor_id\t: AuthenticAMD\n' >"$tmp/tree/proc/cpuinfo"
"$NUMASIM" import sysfs "$tmp/tree" -o "$tmp/tree.yaml" 2>"$tmp/err"
grep -q 'cost profile zen3: the shipped profile nearest to the CPU AMD EPYC 7763 64-Core Processor (family 0x19 model 0x1) in .*tree/proc/cpuinfo' "$tmp/err" &&
	grep -q 'cost profile zen3' "$tmp/tree.yaml" && ok || bad "sysfs cpuinfo profile: $(cat "$tmp/err")"
printf 'processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 79\nmodel name\t: Intel(R) Xeon(R) CPU E5-2695 v4 @ 2.10GHz\n' >"$tmp/tree/proc/cpuinfo"
"$NUMASIM" import sysfs "$tmp/tree" 2>"$tmp/err" | grep -q 'cost profile broadwell-ep' && ok || bad "broadwell cpuinfo: $(cat "$tmp/err")"
printf 'processor\t: 0\nBogoMIPS\t: 200.00\nCPU implementer\t: 0x48\nCPU architecture: 8\nCPU part\t: 0xd01\n' >"$tmp/tree/proc/cpuinfo"
"$NUMASIM" import sysfs "$tmp/tree" 2>"$tmp/err" | grep -q 'cost profile kunpeng920' && ok || bad "arm64 cpuinfo: $(cat "$tmp/err")"
# --costs wins over the CPU (into a file, not `| grep -q`: grep's early exit
# killed numasim with SIGPIPE before it wrote its notes once the output
# passed one 4 KiB stdio buffer)
"$NUMASIM" import sysfs "$tmp/tree" --costs zen2 >"$tmp/z.yaml" 2>"$tmp/err"
grep -q 'cost profile zen2' "$tmp/z.yaml" &&
	grep -q 'cost profile zen2: given with --costs' "$tmp/err" && ok || bad "--costs: $(cat "$tmp/err")"

finish
