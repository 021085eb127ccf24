#!/usr/bin/env bash
# Renders a results directory's report.html to one PNG with headless
# Chromium (scripts/render-pages.sh renders every page under a directory;
# this is that, for the one report, at a path of your choice):
#
#   scripts/render-report.sh DIR [OUT.png]     (default OUT: DIR/report.png)
#
# WIDTH and HEIGHT set the window, i.e. the image size (default 1400x3000).
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  echo "usage: $0 RESULTS_DIR [OUT.png]" >&2
  exit 2
fi
dir=${1%/}
if [ ! -f "$dir/report.html" ]; then
  echo "$0: $dir/report.html not found (run \`bench-sudoku report $dir\` first)" >&2
  exit 2
fi
out=${2:-$dir/report.png}
shots=$(mktemp -d)
trap 'rm -rf "$shots"' EXIT
# Only the report itself: a copy of it alone in a directory of its own.
mkdir "$shots/page"
cp "$dir/report.html" "$shots/page/report.html"
HEIGHT=${HEIGHT:-3000} "$(dirname "$0")/render-pages.sh" "$shots/page" "$shots/png" >/dev/null
mv "$shots/png/report.html.png" "$out"
echo "$out"
