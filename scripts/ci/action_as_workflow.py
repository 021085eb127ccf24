#!/usr/bin/env python3
"""Writes a composite action (action.yml) as a workflow, for actionlint to check.

actionlint checks workflows, and the `with:` of a workflow's steps against the metadata
of the actions they use; the steps inside a composite action it does not check. This
makes one job of those steps, inside a workflow_call workflow whose inputs are the
action's, so that actionlint checks them as it checks any workflow: expressions and
contexts, the actions they use and their inputs, shellcheck on every `run:` script.

usage: action_as_workflow.py ACTION_YML OUT_YML
"""
import sys

import yaml


def main(src, dst):
    with open(src, encoding="utf-8") as f:
        action = yaml.safe_load(f)
    runs = action.get("runs") or {}
    if runs.get("using") != "composite":
        sys.exit(f"{src}: not a composite action (runs.using: {runs.get('using')!r})")
    for key in ("name", "description"):
        if not action.get(key):
            sys.exit(f"{src}: the action has no {key}")
    inputs = {}
    for name, spec in (action.get("inputs") or {}).items():
        spec = spec or {}
        if not spec.get("description"):
            sys.exit(f"{src}: input {name!r} has no description")
        entry = {"type": "string", "required": bool(spec.get("required", False))}
        if "default" in spec:
            entry["default"] = str(spec["default"])
        inputs[name] = entry
    steps = []
    for i, step in enumerate(runs.get("steps") or []):
        if "run" in step and "shell" not in step:
            sys.exit(f"{src}: step {i + 1} runs a script without a shell (composite steps need one)")
        steps.append(step)
    workflow = {
        "name": f"action {action['name']} (checked as a workflow)",
        "on": {"workflow_call": {"inputs": inputs}},
        "jobs": {"action": {"runs-on": "ubuntu-latest", "steps": steps}},
    }
    # Step outputs of the action refer to steps of the job: the same ids.
    with open(dst, "w", encoding="utf-8") as f:
        yaml.safe_dump(workflow, f, sort_keys=False)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
