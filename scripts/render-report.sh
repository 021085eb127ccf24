#!/usr/bin/env bash
# Renders a results directory's report.html to a PNG with headless Chromium.
#
#   scripts/render-report.sh DIR [OUT.png]     (default OUT: DIR/report.png)
#
# Needs Chromium (Debian/Ubuntu: `sudo apt-get install chromium`; elsewhere set
# CHROMIUM=/path/to/chrome). Installs nothing itself. The page is
# self-contained, so the browser runs with networking features switched off.
# WIDTH and HEIGHT (default 1400x3000) set the window, i.e. the image size.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  echo "usage: $0 RESULTS_DIR [OUT.png]" >&2
  exit 2
fi
dir=$1
page="$dir/report.html"
if [ ! -f "$page" ]; then
  echo "$0: $page not found (run \`bench-sudoku report $dir\` first)" >&2
  exit 2
fi
out=${2:-$dir/report.png}

browser=${CHROMIUM:-}
if [ -z "$browser" ]; then
  for b in chromium chromium-browser google-chrome google-chrome-stable; do
    if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
  done
fi
if [ -z "$browser" ]; then
  echo "$0: no Chromium found; install it (Debian/Ubuntu: sudo apt-get install chromium) or set CHROMIUM=/path/to/chrome" >&2
  exit 2
fi

abs_page="$(cd "$(dirname "$page")" && pwd)/$(basename "$page")"
case $out in
  /*) abs_out=$out ;;
  *) abs_out="$(pwd)/$out" ;;
esac
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT

"$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --disable-sync --no-first-run \
  --hide-scrollbars --user-data-dir="$profile" \
  --screenshot="$abs_out" --window-size="${WIDTH:-1400},${HEIGHT:-3000}" \
  "file://$abs_page" >/dev/null 2>&1 || {
  echo "$0: $browser failed to render $page" >&2
  exit 1
}
if [ ! -s "$abs_out" ]; then
  echo "$0: no screenshot written to $out" >&2
  exit 1
fi
echo "$out"
