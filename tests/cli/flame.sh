#!/usr/bin/env bash
# CLI test of the call paths (table profile_paths), `export --format
# folded`, `plot --flame` and `annotate`, on a tiny pagealloc comparison
# (pre-682a3385 and 682a3385): the folded lines of each run sum to the
# run's profile self cycles, the out-of-line calls to its calls of
# out-of-line functions; the diff shows next_zones_zonelist only before
# the patch and draws it blue, untinted exactly the frames whose self
# change is under 0.1 % of the total, and the SVG is valid XML with its one
# script; report --children's self and children shares are the profile's
# self_pct and total cycles; annotate's counts are the branches table's
# and its cycles the machine's branch figures times them; bad input exits
# 2 with nothing written; a database written before schema version 3 is
# read (no call paths: a clear error).
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 not installed"; exit 77; }


db=$tmp/r.db
"$NUMASIM" run "$SRC/tests/scenarios/tiny-pagealloc.yaml" --db "$db" >/dev/null 2>&1 || bad "run failed"
pre=$(sqlite3 "$db" "SELECT run_id FROM runs WHERE variant GLOB '*pre-682a3385'")
post=$(sqlite3 "$db" "SELECT run_id FROM runs WHERE variant GLOB '*=682a3385'")
check "two runs" "$pre,$post" "1,2"

# folded output sums to the profile's total (self) cycles, per run
for r in $pre $post; do
	"$NUMASIM" export "$db" --format folded --run "$r" >"$tmp/f$r" || bad "export folded run $r"
	sum=$(awk '{s += $NF} END {printf "%d", s}' "$tmp/f$r")
	prof=$(sqlite3 "$db" "SELECT sum(self_cycles) FROM profile WHERE run_id = $r")
	check "run $r: folded cycles = profile self cycles" "$sum" "$prof"
	[ "$prof" -gt 0 ] && ok || bad "run $r: no cycles"
	calls=$("$NUMASIM" export "$db" --format folded --run "$r" --metric calls |
		awk '{s += $NF} END {printf "%d", s}')
	pcalls=$(sqlite3 "$db" "SELECT sum(calls) FROM profile WHERE run_id = $r AND inlined = 0")
	check "run $r: folded calls = out-of-line calls" "$calls" "$pcalls"
	miss=$("$NUMASIM" export "$db" --format folded --run "$r" --metric mispredicts |
		awk '{s += $NF} END {printf "%d", s}')
	bmiss=$(sqlite3 "$db" "SELECT sum(mispredicted) FROM branches WHERE run_id = $r")
	[ "$miss" -gt 0 ] && [ "$miss" -le "$bmiss" ] && ok ||
		bad "run $r: folded mispredicts $miss not in (0, $bmiss]"
	# the format: stack of identifiers joined by ';', one count
	if grep -qvE '^[A-Za-z_][A-Za-z0-9_]*(;[A-Za-z_][A-Za-z0-9_]*)* [0-9]+$' "$tmp/f$r"; then
		bad "run $r: a line is not folded-stack format"; grep -vE ' [0-9]+$' "$tmp/f$r" | head -3
	else ok; fi
done
check "sorted and unique" "$(sort -u "$tmp/f1" | cmp - "$tmp/f1" && echo same)" "same"
grep -q '^alloc_pages_current;__alloc_pages_nodemask;get_page_from_freelist [0-9]' "$tmp/f1" &&
	ok || bad "the allocator's main path is missing"

# 682a3385: next_zones_zonelist is gone (inlined); before it, it is out of line
"$NUMASIM" export "$db" --format folded --diff "$pre" "$post" >"$tmp/diff" || bad "export --diff"
nz=$(awk '$1 ~ /(^|;)next_zones_zonelist$/ {a += $2; b += $3} END {printf "%d %d", a, b}' "$tmp/diff")
check "next_zones_zonelist in B" "${nz#* }" "0"
[ "${nz% *}" -gt 0 ] && ok || bad "next_zones_zonelist has no cycles before 682a3385"
check "diff column A = run A" "$(awk '$2 > 0 {print $1, $2}' "$tmp/diff" | md5sum)" \
	"$(awk '{print $1, $2}' "$tmp/f$pre" | md5sum)"

"$NUMASIM" plot "$db" --flame --diff "$pre" "$post" -o "$tmp/d.svg" --data "$tmp/d.folded" ||
	bad "plot --flame --diff"
cmp -s "$tmp/d.folded" "$tmp/diff" && ok || bad "plot --data differs from export --diff"
# every next_zones_zonelist frame is blue (fewer cycles in B: rgb(x,x,255))
nzf=$(grep -c '<title>next_zones_zonelist ' "$tmp/d.svg")
nzb=$(grep '<title>next_zones_zonelist ' "$tmp/d.svg" | grep -c 'fill="rgb([0-9]*,[0-9]*,255)"')
[ "$nzf" -gt 0 ] && [ "$nzf" = "$nzb" ] && ok || bad "next_zones_zonelist frames: $nzf, blue: $nzb"
# the diff's tint: a frame is untinted (rgb(228,228,224)) exactly when its
# self value changed by less than 0.1 % of the larger total
read -r ta tb <<<"$(grep -o 'widths: A = [^<]*' "$tmp/d.svg" |
	sed -E 's/.*, ([0-9]+) cycles; B = .*, ([0-9]+) cycles.*/\1 \2/')"
tint=$(grep -o 'self: A [0-9]*, B [0-9]*, B-A [-+][0-9]*)</title><rect [^>]*fill="[^"]*"' "$tmp/d.svg" |
	sed -E 's/.*B-A [-+]?([0-9]+)\).*fill="([^"]*)"/\1 \2/' |
	awk -v t="$(( (ta > tb ? ta : tb) ))" '{ grey = ($2 == "rgb(228,228,224)"); small = ($1 < 0.001 * t)
		n++; if (grey != small) bad++ } END { printf "%d %d", n, bad }')
[ "${tint% *}" -gt 5 ] && [ "${tint#* }" = 0 ] && ok || bad "diff tint threshold: frames, wrong: $tint"
grep -q 'fill="rgb(228,228,224)"' "$tmp/d.svg" && ok || bad "no untinted frame in the diff"
# the standalone SVG carries its script, in CDATA, and stays valid XML
if command -v xmllint >/dev/null; then
	xmllint --noout "$tmp/d.svg" && ok || bad "the flame SVG is not well-formed XML"
	check "one script in the SVG" "$(xmllint --xpath 'count(//*[local-name()="script" and @id="numasim-flame-script"])' "$tmp/d.svg")" 1
fi
"$NUMASIM" plot "$db" --flame --run "$post" -o "$tmp/p.svg" || bad "plot --flame"
grep -q '<title>next_zones_zonelist ' "$tmp/p.svg" && bad "682a3385 graph has next_zones_zonelist" || ok
if command -v rsvg-convert >/dev/null; then
	rsvg-convert "$tmp/d.svg" -o "$tmp/d.png" && [ -s "$tmp/d.png" ] && ok || bad "flame SVG does not render"
fi
"$NUMASIM" plot "$db" --flame --run "$post" -o "$tmp/p2.svg"
cmp -s "$tmp/p.svg" "$tmp/p2.svg" && ok || bad "flame SVG not deterministic"

# report --children (perf report --children): self shares are the profile's
# self_pct and sum to 100; the outermost functions' children shares sum to
# 100; get_page_from_freelist's caller is __alloc_pages_nodemask
"$NUMASIM" report "$db" --children --run "$post" --top 0 >"$tmp/ch" || bad "report --children"
self_sum=$(awk '/^ +[0-9.]+% +[0-9.]+%  / {s += $2} END {printf "%.0f", s}' "$tmp/ch")
check "children view: self shares sum" "$self_sum" "100"
gpf=$(awk '$3 == "get_page_from_freelist" && /%  / {print $2}' "$tmp/ch")
want=$(sqlite3 "$db" "SELECT printf('%.2f%%', self_pct) FROM profile_report WHERE run_id = $post AND function = 'get_page_from_freelist'")
check "children view: get_page_from_freelist self" "$gpf" "$want"
# its children share is the profile's total (with callees) over the run's self cycles
gpfc=$(awk '$3 == "get_page_from_freelist" && /%  / {print $1}' "$tmp/ch")
want=$(sqlite3 "$db" "SELECT printf('%.2f%%', 100.0 * total_cycles / (SELECT sum(self_cycles) FROM profile WHERE run_id = $post)) FROM profile WHERE run_id = $post AND function = 'get_page_from_freelist'")
check "children view: get_page_from_freelist children" "$gpfc" "$want"
roots=$(awk '/^ +[0-9.]+% +[0-9.]+%  / {c = $1} /--\(root\)$/ {s += c} END {printf "%.0f", s}' "$tmp/ch")
check "children view: outermost functions' children sum" "$roots" "100"
awk '$3 == "get_page_from_freelist" && /%  / {f = 1; next} f && /callers:/ {getline; print; exit}' "$tmp/ch" |
	grep -q -- '--__alloc_pages_nodemask$' && ok || bad "children view: caller of get_page_from_freelist"
run_err_like "children without --run" "choose one with --run" report "$db" --children
run_err_like "children with --format" "--children is a text view" report "$db" --children --run 1 --format json

# annotate: counts from the branches table, cycles = branch figures x counts
# (tiny-pagealloc runs the in-order model; tests/cli/annotate.sh has ooo)
"$NUMASIM" annotate "$db" --run "$post" get_page_from_freelist >"$tmp/ann" || bad "annotate"
grep -q '^Kernel source: mm/page_alloc.c, get_page_from_freelist()' "$tmp/ann" && ok || bad "annotate source line"
read -r kb kt km <<<"$(sed -n 's/^Timing model of the run: inorder (cost.model), machine [^:]*: \([0-9]*\) per branch, +\([0-9]*\) taken, +\([0-9]*\) mispredicted.*/\1 \2 \3/p' "$tmp/ann")"
[ -n "${km:-}" ] && ok || bad "annotate: no branch cost line"
sqlite3 -separator ' ' "$db" "SELECT site, executed, taken, mispredicted FROM branches WHERE run_id = $post AND function = 'get_page_from_freelist'" >"$tmp/br"
[ -s "$tmp/br" ] && ok || bad "no branch rows for get_page_from_freelist"
while read -r site e t m; do
	line=$(awk -v s="$site" '$1 == s' "$tmp/ann")
	want="$site $e $t $m $((e * kb + t * kt + m * km))"
	got=$(awk '{print $1, $2, $3, $5, $7}' <<<"$line")
	check "annotate $site" "$got" "$want"
done <"$tmp/br"
# source order: the sites appear in the model's table order (A24a before A31 before A44)
order=$(awk '$1 == "A24a" || $1 == "A31" || $1 == "A44" {printf "%s ", $1}' "$tmp/ann")
check "annotate order" "$order" "A24a A31 A44 "
run_err_like "annotate unknown function" "did you mean 'get_page_from_freelist'" annotate "$db" --run 1 get_page_from_freelst
run_err_like "annotate unknown run" "no run 99" annotate "$db" --run 99 get_page_from_freelist
run_err_like "annotate two runs, no --run" "choose one with --run" annotate "$db" get_page_from_freelist
run_err_like "annotate no function" "no function name" annotate "$db"

# bad input: exit 2, no output file
run_err_like "folded without --run" "choose one with --run" export "$db" --format folded
run_err_like "folded unknown run" "no run 42" export "$db" --format folded --run 42
run_err_like "folded bad metric" "did you mean 'cycles'" export "$db" --format folded --run 1 --metric cycle
run_err_like "folded with --table" "--table and --query are for csv|json" export "$db" --format folded --table runs
run_err_like "--run without folded" "options of --format folded" export "$db" --format csv --run 1
run_err_like "--diff needs two" "needs two run ids" export "$db" --format folded --diff 1
run_err_like "flame png" "draws SVG" plot "$db" --flame --run 1 -o "$tmp/x.png"
run_err_like "flame with --bars" "takes --run" plot "$db" --flame --run 1 --bars profile -o "$tmp/x.svg"
run_err_like "--diff without --flame" "are for --flame" plot "$db" --metric 'alloc-*' --diff 1 2 -o "$tmp/x.svg"
[ -e "$tmp/x.svg" ] || [ -e "$tmp/x.png" ] && bad "a failed plot wrote a file" || ok

# a database of schema version 2 (before call paths), read read-only
old=$tmp/old.db
cp "$db" "$old"
sqlite3 "$old" "DROP VIEW profile_stacks; DROP TABLE profile_paths; DROP TABLE profile_charges; DROP TABLE profile_work;
	DELETE FROM schema_version WHERE version >= 3; PRAGMA user_version = 2;"
run_err_like "v2 database" "has no call paths" export "$old" --format folded --run 1
"$NUMASIM" report "$old" --format html -o "$tmp/old.html" && ok || bad "html report of a v2 database"
grep -q 'no flame graph' "$tmp/old.html" && ok || bad "v2 html report: no note about the flame graph"
check "v2 file untouched" "$(sqlite3 "$old" 'PRAGMA user_version')" "2"
finish
