#!/usr/bin/env bash
# scripts/build.sh DIR [MESON-OPTIONS...]: configure (or reconfigure) and build.
set -eu
dir=$1
shift
cd "$(dirname "$0")/.."
# a directory scripts/build-pgo.sh built (tests off, objects from a
# profile) starts over: reconfiguring it would keep those options
if [ -f "$dir/pgo-trained" ]; then
	rm -rf "$dir"
fi
if [ -f "$dir/build.ninja" ]; then
	meson setup --reconfigure "$dir" "$@" >/dev/null
else
	meson setup "$dir" "$@" >/dev/null
fi
meson compile -C "$dir" >/dev/null
