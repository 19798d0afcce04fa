#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds throng's Debian packages (throng and throng-dev, from debian/)
# out of tree: the source is copied into a temporary directory, built
# there with dpkg-buildpackage (unsigned, binary only), and the .deb files
# are moved to OUTDIR (default: dist/).  Needs debhelper, dpkg-dev and
# fakeroot, and the build dependencies of debian/control
# (scripts/deps.sh installs them).
#
#   scripts/build-deb.sh [OUTDIR]
#   apt-get install ./dist/throng_*.deb ./dist/throng-dev_*.deb
set -euo pipefail

src="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$src/dist}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
version="$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)"
work="$(mktemp -d "${TMPDIR:-/tmp}/throng-deb.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# The tracked files when this is a git checkout, else the tree less its builds.
tree="$work/throng-$version"
mkdir -p "$tree"
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$src" ls-files -z --cached --others --exclude-standard \
        | (cd "$src" && xargs -0 tar -cf - --no-recursion --ignore-failed-read) \
        | tar -xf - -C "$tree"
else
    tar -C "$src" --exclude='./build*' --exclude=./dist -cf - . | tar -xf - -C "$tree"
fi

(cd "$tree" && dpkg-buildpackage -b -us -uc -j"${JOBS:-$(nproc)}" >&2)
for deb in "$work"/*.deb; do
    mv "$deb" "$out/"
    printf '%s\n' "$out/$(basename "$deb")"
done
