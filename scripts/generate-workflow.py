#!/usr/bin/env python3
"""Writes a synthetic workflow of N procedures for benchmarks: chains of shell steps wired by
JSON outputs, file transforms, groups with bound input and output, and conditions.

Usage: scripts/generate-workflow.py N OUTPUT.json
"""
import json
import sys


def generate(count):
    procedures = []
    made = 0
    index = 0
    while made < count:
        base = f"s{index}"
        previous = procedures[-1]["id"] if procedures else None
        step = {"id": base, "kind": "shell", "run": "printf '{\"n\": 1}'", "output": "json"}
        if previous:
            step["dependsOn"] = [previous]
        procedures.append(step)
        made += 1
        if made < count:
            procedures.append({
                "id": f"{base}-pick", "kind": "file", "op": "select", "pointer": "/n",
                "input": {"from": base},
                "when": {"any": [{"env": "CI"}, {"output": {"from": base, "select": "/n"}, "equals": 1}]},
            })
            made += 1
        if made + 3 <= count:
            procedures.append({
                "id": f"{base}-group", "kind": "group", "input": {"from": base},
                "inputTo": f"{base}-in", "outputFrom": f"{base}-out",
                "procedures": [
                    {"id": f"{base}-in", "kind": "file", "op": "render", "text": "n={{n}}"},
                    {"id": f"{base}-out", "kind": "shell", "run": "cat", "input": {"from": f"{base}-in"},
                     "inputs": {"N": {"from": base, "select": "/n"}}, "output": "text",
                     "retry": {"attempts": 2}, "timeout": 30},
                ],
            })
            made += 3
        index += 1
    return {"name": f"synthetic-{count}", "vars": {"target": "debug"}, "procedures": procedures}


if __name__ == "__main__":
    count, path = int(sys.argv[1]), sys.argv[2]
    with open(path, "w") as output:
        json.dump(generate(count), output, indent=1)
