#!/usr/bin/env bash
# Install what numasim needs on Debian 12, and only what is missing.
# clang-14 and libclang-rt-14-dev (libFuzzer, clang's sanitizers) build the
# fuzz targets of tests/fuzz in build-fuzz (scripts/test.sh).  python3 (meson
# needs it too) runs scripts/sql2c.py, which embeds analysis/schema/*.sql.
# chromium and libxml2-utils (xmllint) check the HTML and SVG outputs
# (tests/cli/html-report.sh, tests/cli/escaping.sh): required, not skipped.
set -eu
pkgs="python3 meson ninja-build pkg-config gcc libc6-dev libgsl-dev libyaml-dev libsqlite3-dev libcmocka-dev jq sqlite3 libopenmpi-dev openmpi-bin librsvg2-bin imagemagick clang-14 libclang-rt-14-dev man-db chromium libxml2-utils"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "installing:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >&2
fi
