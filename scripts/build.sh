#!/usr/bin/env bash
# scripts/build.sh DIR [MESON-OPTIONS...]: configure (or reconfigure) and build.
set -eu
dir=$1
shift
cd "$(dirname "$0")/.."
if [ -f "$dir/build.ninja" ]; then
	meson setup --reconfigure "$dir" "$@" >/dev/null
else
	meson setup "$dir" "$@" >/dev/null
fi
meson compile -C "$dir" >/dev/null
