#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Screenshots of an html report for the docs: the top of the page (header,
# verdict, summary table) and each chart alone, taken by headless Chromium
# from the file itself.  Each chart is isolated by a copy of the page with
# one extra style rule that hides everything else.
#   scripts/html-screenshots.sh html-report.html docs/images
set -euo pipefail

page=${1:?usage: $0 PAGE.html OUTDIR}
outdir=${2:?usage: $0 PAGE.html OUTDIR}
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
    echo "$0: chromium is not installed (apt-get install chromium)" >&2
    exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$outdir"

# shot NAME HEIGHT CSS: a screenshot of the page with CSS added, 1000 px wide.
shot () {
    local name=$1 height=$2 css=$3
    sed "s|</head>|<style>$css</style></head>|" "$page" > "$work/$name.html"
    "$chromium" --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
        --user-data-dir="$work/profile" --window-size="1000,$height" \
        --screenshot="$outdir/html-$name.png" "file://$work/$name.html" 2>/dev/null
}

shot overview 1000 'section#over-time,section#distribution,section#errors{display:none}'
for chart in throughput latency users connections cpu lag histogram percentiles codes \
    outcome-latency step-rps; do
    height=400
    # The step charts' legend has a line per step.
    [ "$chart" = step-rps ] && height=460
    shot "$chart" "$height" "header,h2,h3,section>p,section>table,#verdict,#summary,#errors,figure.chart{display:none}#$chart{display:block!important}"
done
ls -l "$outdir"/html-*.png
