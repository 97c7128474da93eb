#!/usr/bin/env bash
# Scale benchmark: a generated workflow of N steps (100,000 by default) against the equivalent
# build.ninja, side by side in one run.
#
# Each step touches one output from one source (`touch out/N.txt`, `sources: ["in/N.txt"]`,
# `generates: ["out/N.txt"]`). The steps sit in groups of 1,000; a step depends on the step at
# its place in the group before (99,000 edges for 100,000 steps), and the first group's steps
# each take the previous one's output as a variable (999 wires; ninja gets the same edges as
# implicit inputs). Measured with GNU time (wall time and peak memory), one run each in turn:
#   - `procflow validate`;
#   - the full run from nothing (-j2), procflow and ninja;
#   - the no-op, procflow (with and without its snapshot) and ninja, three runs each.
#
# procflow is the static release build scripts/install.sh makes; ninja is Debian's. Missing
# tools are installed with apt-get. Prints a Markdown table.
#
# Usage: scripts/bench-scale.sh [N]
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
steps=${1:-100000}
case "$steps" in
    '' | *[!0-9]*) echo "usage: $0 [N]" >&2; exit 2 ;;
esac
# ninja is Debian's binary: a `ninja` earlier on PATH may be pip's Python wrapper (or a pyenv
# shim in front of it), which adds tens of milliseconds to every run.
ninja=/usr/bin/ninja
missing=()
for tool in $ninja:ninja-build /usr/bin/time:time python3:python3; do
    command -v "${tool%%:*}" > /dev/null || missing+=("${tool#*:}")
done
if ((${#missing[@]})); then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get > /dev/null; then
        echo "missing: ${missing[*]}; install them with: sudo apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
    apt-get update -qq && apt-get install -y -qq "${missing[@]}" > /dev/null
fi

tmp=$(mktemp -d /tmp/bench-scale.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$repo/scripts/install.sh" --prefix "$tmp/prefix" >&2
procflow=$tmp/prefix/bin/procflow

python3 - "$tmp" "$steps" <<'PY'
import json, os, sys
tmp, count = sys.argv[1], int(sys.argv[2])
size = 1000
os.makedirs(f"{tmp}/w/in")
os.makedirs(f"{tmp}/w/out")
for n in range(count):
    with open(f"{tmp}/w/in/{n}.txt", "w") as out:
        out.write(f"{n}\n")
groups, rules = [], []
for first in range(0, count, size):
    steps = []
    for n in range(first, min(first + size, count)):
        step = {"id": f"s{n}", "kind": "shell", "run": f"touch out/{n}.txt",
                "sources": [f"in/{n}.txt"], "generates": [f"out/{n}.txt"]}
        implicit = []
        if n >= size:
            step["dependsOn"] = [f"s{n - size}"]
            implicit.append(f"out/{n - size}.txt")
        elif n > 0:
            # The first group's steps take the one before's output: data along a chain.
            step["run"] = f"touch out/{n}.txt && test -n \"$PREVIOUS\""
            step["output"] = "text"
            step["inputs"] = {"PREVIOUS": {"from": f"s{n - 1}"}}
            implicit.append(f"out/{n - 1}.txt")
        if n < size:
            step["output"] = "text"
            step["run"] += f" && printf {n}"
        steps.append(step)
        rules.append(f"build out/{n}.txt: touch in/{n}.txt"
                     + (" | " + " ".join(implicit) if implicit else "") + "\n")
    groups.append({"id": f"g{first // size}", "kind": "group", "procedures": steps})
with open(f"{tmp}/w/flow.json", "w") as out:
    json.dump({"name": "scale", "procedures": groups}, out)
with open(f"{tmp}/w/build.ninja", "w") as out:
    out.write("rule touch\n  command = touch $out\n")
    out.writelines(rules)
PY

cd "$tmp/w"
# timed NAME COMMAND...: appends "NAME seconds KiB" to $tmp/times.
timed() {
    local name=$1
    shift
    /usr/bin/time -f "$name %e %M" -a -o "$tmp/times" "$@" > /dev/null 2> "$tmp/last.err" \
        || { cat "$tmp/last.err" >&2; echo "$name failed" >&2; exit 1; }
}
timed "validate" "$procflow" validate flow.json
timed "full run, ninja" "$ninja" -j 2
timed "full run, procflow" "$procflow" run flow.json -j 2
[ "$(ls out | wc -l)" = "$steps" ] || { echo "not every output was made" >&2; exit 1; }
sleep 1.5  # so that the files' statuses can be trusted: see workflows/README.md
"$procflow" run flow.json -j 2 > /dev/null  # leaves the snapshot
for round in 1 2 3; do
    timed "no-op, ninja" "$ninja" -j 2
    timed "no-op, procflow" "$procflow" run flow.json -j 2
    rm -f .procflow/flow.json-*.uptodate
    timed "no-op, procflow without its snapshot" "$procflow" run flow.json -j 2
    "$procflow" run flow.json -j 2 > /dev/null
done

python3 - "$tmp/times" "$steps" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, seconds, kib = line.rsplit(" ", 2)
    rows.setdefault(name, []).append((float(seconds), int(kib)))
print(f"\n{int(sys.argv[2]):,} steps, -j2 (GNU time; no-ops: median of 3)\n")
print("| measure | wall time | peak memory |")
print("| --- | ---: | ---: |")
for name, values in rows.items():
    seconds = statistics.median(v[0] for v in values)
    kib = statistics.median(v[1] for v in values)
    print(f"| {name} | {seconds:.2f} s | {kib / 1024:.0f} MiB |")
PY
