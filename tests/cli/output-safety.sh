#!/usr/bin/env bash
# Output files are written safely (issue 18, finding 1 and item 2): every
# -o of export, import and plot replaces only a regular file or creates a
# missing one.  A character device, a FIFO, a socket and a directory are
# refused with exit 2 and stay what they were; a symbolic link is
# followed (the file it points to is replaced, the link stays a link); a
# link to a missing file is refused; an empty name is a usage error
# (exit 2), not ": error: ..." with exit 1.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

P=$tmp/p.db
"$NUMASIM" run -q "$SRC/tests/scenarios/tiny-pagealloc.yaml" --db "$P" >/dev/null 2>"$tmp/err" ||
	{ cat "$tmp/err"; bad "run"; }
# out CMD PATH: one of the three commands writing PATH
out() {
	case $1 in
	export) "$NUMASIM" export "$P" --format csv --table runs -o "$2" ;;
	import) "$NUMASIM" import numactl "$SRC/tests/fixtures/numactl/amd-epyc-2s-nps4-8node.txt" -o "$2" ;;
	plot) "$NUMASIM" plot "$P" --metric 'alloc-odr0-*' -o "$2" ;;
	esac
}
# refused CMD PATH WHAT TYPE: exit 2, a message naming WHAT, PATH still of TYPE
refused() {
	out "$1" "$2" >"$tmp/o" 2>"$tmp/e"
	local st=$?
	if [ $st = 2 ]; then ok; else bad "$1 -o $3: exit $st, want 2"; fi
	if grep -q "cannot write output file: it is $3" "$tmp/e"; then ok; else
		bad "$1 -o $3: message: $(cat "$tmp/e")"; fi
	if [ "$(stat -c %F "$2")" = "$4" ]; then ok; else
		bad "$1 -o $3: now a $(stat -c %F "$2")"; fi
	if [ ! -s "$tmp/o" ]; then ok; else bad "$1 -o $3: wrote to stdout"; fi
}
mkdir "$tmp/d" "$tmp/d.svg"
mkfifo "$tmp/fifo"
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$tmp/sock" 2>/dev/null
for c in export import plot; do
	[ "$c" = plot ] && ext=.svg || ext=
	if mknod "$tmp/null$c$ext" c 1 3 2>/dev/null; then
		refused $c "$tmp/null$c$ext" "a character device" "character special file"
	fi
	refused $c "$tmp/d$ext" "a directory" directory
	if [ $c != plot ]; then
		refused $c "$tmp/fifo" "a FIFO" fifo
		[ -S "$tmp/sock" ] && refused $c "$tmp/sock" "a socket" socket
	fi
	# a link is followed: the target is replaced, the link stays
	rm -f "$tmp/target$ext" "$tmp/link$ext"
	echo old >"$tmp/target$ext"
	chmod 0604 "$tmp/target$ext"
	ln -s "target$ext" "$tmp/link$ext"
	if out $c "$tmp/link$ext" >/dev/null 2>"$tmp/e"; then ok; else bad "$c -o link: $(cat "$tmp/e")"; fi
	if [ -L "$tmp/link$ext" ]; then ok; else bad "$c -o link: the link was replaced"; fi
	if [ "$(head -c 3 "$tmp/target$ext")" != old ] && [ -s "$tmp/target$ext" ]; then ok; else
		bad "$c -o link: the target was not written"; fi
	if [ "$(stat -c %a "$tmp/target$ext")" = 604 ]; then ok; else bad "$c -o link: target mode changed"; fi
	# a dangling link is refused and stays dangling
	rm -f "$tmp/dangling$ext"
	ln -s "missing$ext" "$tmp/dangling$ext"
	out $c "$tmp/dangling$ext" >/dev/null 2>"$tmp/e"
	st=$?
	if [ $st = 2 ] && grep -q "symbolic link to a missing file" "$tmp/e" && [ ! -e "$tmp/missing$ext" ]; then ok; else
		bad "$c -o dangling link: exit $st: $(cat "$tmp/e")"; fi
	# an empty name
	out $c "" >/dev/null 2>"$tmp/e"
	st=$?
	if [ $st = 2 ] && grep -q -e "^numasim.*: error: .*empty" -e "^numasim plot: error: .*not ''" "$tmp/e"; then ok; else
		bad "$c -o '': exit $st: $(cat "$tmp/e")"; fi
done
# (A character device made in $tmp stands for /dev/null: the test never
# points a command at the real one.)
if [ "$(find "$tmp" -mindepth 1 -name '*tmp*' | wc -l)" = 0 ]; then ok; else bad "temporary files left"; fi
finish
