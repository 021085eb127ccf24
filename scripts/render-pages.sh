#!/usr/bin/env bash
# Renders every page bench-sudoku wrote under a directory to PNGs with
# headless Chromium, so that a person can look at them:
#
#   scripts/render-pages.sh DIR [OUT_DIR]      (default OUT_DIR: DIR/screenshots)
#
# DIR may be a results directory (report.html), a scan directory (its
# charts/scan-*.svg and each value's report.html) or a trend --out directory
# (trend.html); every report.html, trend.html and charts/scan-*.svg under DIR
# is rendered, each to OUT_DIR/<its path with / as _>.png, and the PNGs
# written are listed. WIDTH (default 1400) sets the window's width; HEIGHT
# (default 4000) its height, i.e. how much of a long page is shot; a chart
# is shot at 1240x560.
#
# Needs Chromium (Debian/Ubuntu: `sudo apt-get install chromium`; elsewhere
# set CHROMIUM=/path/to/chrome). Installs nothing itself. The pages are
# self-contained, so the browser runs with networking features switched off.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  echo "usage: $0 DIR [OUT_DIR]" >&2
  exit 2
fi
dir=${1%/}
if [ ! -d "$dir" ]; then
  echo "$0: $dir is not a directory" >&2
  exit 2
fi
out=${2:-$dir/screenshots}
mkdir -p "$out"
out=$(cd "$out" && pwd)

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

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT

# shot PAGE PNG WIDTH HEIGHT: one screenshot, or a message and status 1.
shot() {
  "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run \
    --hide-scrollbars --user-data-dir="$profile" \
    --screenshot="$2" --window-size="$3,$4" "file://$1" >/dev/null 2>&1 || {
    echo "$0: $browser failed to render $1" >&2
    return 1
  }
  if [ ! -s "$2" ]; then
    echo "$0: no screenshot written for $1" >&2
    return 1
  fi
  echo "$2"
}

abs_dir=$(cd "$dir" && pwd)
found=0
status=0
while IFS= read -r -d '' page; do
  found=1
  rel=${page#"$abs_dir"/}
  png="$out/${rel//\//_}.png"
  case $page in
    *.svg) shot "$page" "$png" 1240 560 || status=1 ;;
    *) shot "$page" "$png" "${WIDTH:-1400}" "${HEIGHT:-4000}" || status=1 ;;
  esac
done < <(find "$abs_dir" -path "$out" -prune -o \
  \( -name report.html -o -name trend.html -o -path '*/charts/scan-*.svg' \) -type f -print0 | sort -z)

if [ $found = 0 ]; then
  echo "$0: no report.html, trend.html or charts/scan-*.svg under $dir" >&2
  exit 2
fi
exit $status
