#!/usr/bin/env bash
# Runner benchmark: procflow against ninja and GNU make, side by side in one run, on three
# shapes of no-op steps (`true`), two at a time: independent steps, a chain, and a diamond
# lattice. procflow runs each shape three ways: `argv: ["true"]`; `run: "true"`, which procflow
# executes directly as make does (/usr/bin/true: one exec, as ninja's `sh -c true` is one exec
# of sh running its builtin); and `run: "true;"`, whose `;` sends it through /bin/sh -c exactly
# as ninja runs it. Then measures procflow's peak memory and wall time while one step writes
# 1 GiB to stdout, in the default and the grouped output mode.
#
# Usage: scripts/bench-runners.sh [--quick]
#   --quick  200 steps and a 10x20 lattice instead of 2,000 steps and a 50x40 lattice.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

steps=2000 layers=50 width=40
case "${1:-}" in
    "") ;;
    --quick) steps=200 layers=10 width=20 ;;
    *) echo "usage: $0 [--quick]" >&2; exit 2 ;;
esac
jobs=2
hyperfine_options=(-N --warmup 2 --runs 15 --style basic)

# Everything needed must already be installed.
missing=()
# ninja is Debian's binary: a `ninja` earlier on PATH may be pip's Python wrapper (or a pyenv
# shim in front of it), which adds tens of milliseconds to every run.
ninja=/usr/bin/ninja
for tool in $ninja:ninja-build hyperfine:hyperfine make:make python3:python3 /usr/bin/time:time; do
    command -v "${tool%%:*}" > /dev/null || missing+=("${tool#*:}")
done
if ((${#missing[@]})); then
    echo "missing tools; install them with: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi

tmp=$(mktemp -d /tmp/bench-runners.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# A copy of the binary, so a rebuild during the run cannot swap it.
(cd "$repo" && swift build -c release --product procflow) >&2
cp "$repo/.build/release/procflow" "$tmp/procflow"
procflow=$tmp/procflow

# Writes, for each shape, into $tmp/SHAPE/: argv.json and sh.json (procflow), build.ninja and
# Makefile. Every step runs `true`; ninja outputs and make targets are never created (and make's
# are .PHONY), so every step runs on every invocation.
python3 - "$tmp" "$steps" "$layers" "$width" <<'PY'
import json, os, sys

tmp, steps, layers, width = sys.argv[1], *map(int, sys.argv[2:])

def lattice():
    node = lambda i, j: f"s{i}_{j}"
    return [(node(i, j), [node(i - 1, j), node(i - 1, (j + 1) % width)] if i else [])
            for i in range(layers) for j in range(width)]

shapes = {
    "independent": [(f"s{i}", []) for i in range(steps)],
    "chain": [(f"s{i}", [f"s{i - 1}"] if i else []) for i in range(steps)],
    "lattice": lattice(),
}

for shape, graph in shapes.items():
    folder = os.path.join(tmp, shape)
    os.makedirs(folder)
    for variant, command in (("argv", {"argv": ["true"]}), ("run", {"run": "true"}),
                             ("sh", {"run": "true;"})):
        procedures = [{"id": step, "kind": "shell", **command, **({"dependsOn": deps} if deps else {})}
                      for step, deps in graph]
        with open(os.path.join(folder, f"{variant}.json"), "w") as out:
            json.dump({"name": f"{shape}-{variant}", "procedures": procedures}, out)
    with open(os.path.join(folder, "build.ninja"), "w") as out:
        out.write("rule noop\n  command = true\n")
        for step, deps in graph:
            out.write(f"build {step}: noop" + (" | " + " ".join(deps) if deps else "") + "\n")
        out.write("build all: phony " + " ".join(step for step, _ in graph) + "\ndefault all\n")
    with open(os.path.join(folder, "Makefile"), "w") as out:
        names = " ".join(step for step, _ in graph)
        out.write(f"all: {names}\n.PHONY: all {names}\n")
        for step, deps in graph:
            out.write(f"{step}: {' '.join(deps)}\n\ttrue\n")
PY

# The commands timed for a shape, as "label|command" (split on spaces; no quoting needed). make
# gets -r: no built-in implicit rules to consult.
commands() {
    local dir=$tmp/$1
    echo "ninja|$ninja -C $dir -j$jobs"
    echo "make|make -r -C $dir -j$jobs"
    echo "procflow (argv)|$procflow run $dir/argv.json --max-concurrent $jobs"
    echo "procflow (run)|$procflow run $dir/run.json --max-concurrent $jobs"
    echo "procflow (sh -c)|$procflow run $dir/sh.json --max-concurrent $jobs"
}

# check SHAPE TOOL EXPECTED COUNT: fails unless the tool ran the expected number of commands.
check() {
    if [[ $4 != "$3" ]]; then
        echo "error: $1: $2 ran ${4:-no} commands, expected $3" >&2
        exit 1
    fi
}

# Runs each tool once on a shape and counts the commands it ran. ninja runs twice, so the
# counted run also proves that nothing was considered up to date.
verify() {
    local shape=$1 expected=$2 dir=$tmp/$1
    $ninja -C "$dir" -j$jobs > /dev/null
    check "$shape" ninja "$expected" \
        "$($ninja -C "$dir" -j$jobs -v | grep -c '^\[[0-9]*/[0-9]*\] true$' || true)"
    check "$shape" make "$expected" "$(make -r -C "$dir" -j$jobs | grep -cx true || true)"
    for variant in argv run sh; do
        check "$shape" "procflow ($variant)" "$expected" \
            "$("$procflow" run "$dir/$variant.json" --max-concurrent $jobs --events json |
                grep -c '"event":"step.finished"' || true)"
    done
    echo "$shape: every tool ran $expected commands" >&2
}

shapes=(independent chain lattice)
declare -A titles=(
    [independent]="$steps independent steps"
    [chain]="a $steps-step chain"
    [lattice]="a ${layers}x$width diamond lattice"
)
for shape in "${shapes[@]}"; do
    expected=$steps
    [[ $shape == lattice ]] && expected=$((layers * width))
    verify "$shape" "$expected"
    named=()
    while IFS='|' read -r label command; do named+=(-n "$label" "$command"); done < <(commands "$shape")
    hyperfine "${hyperfine_options[@]}" --export-json "$tmp/$shape.json" "${named[@]}" >&2
done

# Markdown tables from hyperfine's JSON: one per shape, then all shapes together.
python3 - "$tmp" "$jobs" "independent=${titles[independent]}" "chain=${titles[chain]}" \
    "lattice=${titles[lattice]}" <<'PY'
import json, sys

tmp, jobs = sys.argv[1:3]
titles = dict(argument.split("=", 1) for argument in sys.argv[3:])
tools = ["ninja", "make", "procflow (argv)", "procflow (run)", "procflow (sh -c)"]
means = {}
for shape, title in titles.items():
    results = {r["command"]: r for r in json.load(open(f"{tmp}/{shape}.json"))["results"]}
    ninja = results["ninja"]["mean"]
    means[shape] = {tool: results[tool]["mean"] for tool in tools}
    print(f"### {title}, {jobs} at once\n")
    print("| tool | mean ± σ (s) | ratio to ninja |\n| --- | --- | --- |")
    for tool in tools:
        r = results[tool]
        print(f"| {tool} | {r['mean']:.3f} ± {r['stddev']:.3f} | {r['mean'] / ninja:.2f} |")
    print()
print("### All shapes (mean seconds)\n")
print("| shape | ninja | make | procflow (argv) | procflow (run) | procflow (sh -c) "
      "| argv/ninja | run/ninja | sh -c/ninja |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for shape, title in titles.items():
    m = means[shape]
    cells = [f"{m[tool]:.3f}" for tool in tools]
    ratios = [f"{m[tool] / m['ninja']:.2f}" for tool in tools[2:]]
    print(f"| {title} | " + " | ".join(cells + ratios) + " |")
print()
PY

# Peak memory while a step writes 1 GiB to stdout as 100-byte lines. GNU time reports the
# largest resident set of procflow and its (small) commands.
cat > "$tmp/flood.json" <<'JSON'
{"procedures": [{"id": "flood", "kind": "shell",
  "run": "head -c 1073741824 /dev/zero | tr '\\0' 'x' | fold -w 100"}]}
JSON
echo "### procflow, one step writing 1 GiB to stdout (stdout to /dev/null)"
echo
echo "| output mode | exit status | max RSS (MiB) | wall time (m:ss) |"
echo "| --- | --- | --- | --- |"
for mode in default grouped; do
    options=()
    [[ $mode == grouped ]] && options=(--output grouped)
    status=0
    /usr/bin/time -v -o "$tmp/time.txt" "$procflow" run "$tmp/flood.json" "${options[@]}" \
        > /dev/null 2> "$tmp/stderr.txt" || status=$?
    rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$tmp/time.txt")
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$tmp/time.txt")
    echo "| $mode | $status | $rss | $wall |"
    if ((status)); then sed 's/^/    /' "$tmp/stderr.txt" >&2; fi
done
