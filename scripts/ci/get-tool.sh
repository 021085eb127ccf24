#!/usr/bin/env bash
# Puts bench-sudoku on this CI runner for the action (action.yml): a prebuilt binary of the
# release the action was used at, checked against its published checksum, or else a build
# of the action's own source with `cargo install --locked` (cached by the action).
#
# usage: get-tool.sh MODE
#   MODE  auto      the release binary when the action's ref is a release, else a build
#         prebuilt  the release binary, or fail
#         build     a build of the source
#         PATH      an existing bench-sudoku executable
# Environment: ACTION_PATH (the action's source), ACTION_REPOSITORY and ACTION_REF (whose
# release to download), TOOL_DIR (where to put it). Prints, as GitHub step outputs:
#   bin=PATH of the executable (empty when a build is needed), key=the build's cache key,
#   build=1 when the caller must build (then: cargo install --locked --path ACTION_PATH
#   --root TOOL_DIR/KEY).
set -euo pipefail
mode=${1:-auto}
src=${ACTION_PATH:?ACTION_PATH: the action source}
dir=${TOOL_DIR:-${RUNNER_TOOL_CACHE:-$HOME/.cache}/bench-sudoku}

out() { echo "$1" >>"${GITHUB_OUTPUT:-/dev/stdout}"; }

case $mode in
  auto | prebuilt | build) ;;
  *)
    [ -x "$mode" ] || { echo "get-tool: $mode: not an executable" >&2; exit 2; }
    out "bin=$mode"
    exit 0
    ;;
esac

# The build's cache key: the source it is built from (every tracked input of the build).
key=$(cd "$src" && find Cargo.toml Cargo.lock build.rs .cargo src capi/Cargo.toml capi/src \
  -type f 2>/dev/null | LC_ALL=C sort | xargs cat | { sha256sum 2>/dev/null || shasum -a 256; } | cut -c1-16)
out "key=$key"

target() {
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) echo x86_64-unknown-linux-gnu ;;
    Linux-aarch64 | Linux-arm64) echo aarch64-unknown-linux-gnu ;;
    Darwin-x86_64) echo x86_64-apple-darwin ;;
    Darwin-arm64) echo aarch64-apple-darwin ;;
    *) return 1 ;;
  esac
}

prebuilt() {
  local ref=${ACTION_REF:-} repo=${ACTION_REPOSITORY:-} t
  case $ref in v[0-9]*) ;; *) echo "get-tool: the action's ref ${ref:-(none)} is not a release tag" >&2; return 1 ;; esac
  [ -n "$repo" ] || { echo "get-tool: no action repository to download from" >&2; return 1; }
  t=$(target) || { echo "get-tool: no prebuilt binary for $(uname -s) $(uname -m)" >&2; return 1; }
  local name="bench-sudoku-$t" url="https://github.com/$repo/releases/download/$ref"
  local into="$dir/$ref"
  mkdir -p "$into"
  curl -fsSL --retry 3 -o "$into/$name.tar.gz" "$url/$name.tar.gz" || return 1
  curl -fsSL --retry 3 -o "$into/$name.tar.gz.sha256" "$url/$name.tar.gz.sha256" || return 1
  (cd "$into" && { sha256sum -c "$name.tar.gz.sha256" 2>/dev/null || shasum -a 256 -c "$name.tar.gz.sha256"; }) >&2 \
    || { echo "get-tool: $name.tar.gz does not match its checksum" >&2; return 1; }
  tar -xzf "$into/$name.tar.gz" -C "$into"
  out "bin=$into/$name/bench-sudoku"
}

if [ "$mode" != build ] && prebuilt; then
  exit 0
fi
if [ "$mode" = prebuilt ]; then
  echo "get-tool: no prebuilt binary (tool: prebuilt)" >&2
  exit 2
fi
out "bin=$dir/$key/bin/bench-sudoku"
out "build=1"
