#!/usr/bin/env bash
# Incremental-run benchmark: procflow against ninja, GNU make and go-task, side by side in one
# run, with hyperfine.
#
# 1. A generated C project (300 .c files sharing 12 headers, and a link), built at -j2 by a
#    procflow workflow with depfiles, a build.ninja with `depfile`/`deps = gcc`, and a
#    Makefile with -MMD: a full build from nothing, a no-op, a header touched (its date
#    changes, not its content), a header edited (a new #define: 30 files include it), a .c
#    touched, and a .c edited (a new function: its object and the program change). The full
#    build is also timed with procflow's --no-cache, to show what the cache's own writes cost.
# 2. 2,000 steps that each `touch` one output from one source: the no-op against ninja's,
#    make's and go-task's (`sources`/`generates`, `method: checksum`).
#
# procflow is the static release build scripts/install.sh makes. Each tool builds its own
# copy of the project. The machine may be shared: each scenario is measured in rounds, the
# tools taking turns in each, so that a change of load weighs on all of them alike. Missing tools are installed: hyperfine and ninja-build with apt-get,
# go-task with `pip install go-task-bin`. Prints one Markdown table per part.
#
# Usage: scripts/bench-incremental.sh [--quick]
#   --quick  60 .c files and 200 touch steps, fewer runs: a check that it all works.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The full build varies most from run to run on a shared machine: it gets more rounds.
files=300 steps=2000 rounds=5 full_rounds=10 noop_runs=10
case "${1:-}" in
    "") ;;
    --quick) files=60 steps=200 rounds=1 full_rounds=1 noop_runs=5 ;;
    *) echo "usage: $0 [--quick]" >&2; exit 2 ;;
esac
jobs=2

missing=()
# ninja is Debian's binary: a `ninja` earlier on PATH may be pip's Python wrapper (or a pyenv
# shim in front of it), which adds tens of milliseconds to every run.
ninja=/usr/bin/ninja
for tool in hyperfine:hyperfine $ninja:ninja-build make:make cc:gcc python3:python3; do
    command -v "${tool%%:*}" > /dev/null || missing+=("${tool#*:}")
done
if ((${#missing[@]})); then
    echo "installing ${missing[*]} with apt-get" >&2
    apt-get update -qq && apt-get install -y -qq "${missing[@]}" > /dev/null
fi
if ! command -v task > /dev/null; then
    echo "installing go-task with pip (go-task-bin)" >&2
    python3 -m pip install -q go-task-bin
fi

tmp=$(mktemp -d /tmp/bench-incremental.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

"$repo/scripts/install.sh" --prefix "$tmp/prefix" >&2
procflow=$tmp/prefix/bin/procflow

# --- The projects --------------------------------------------------------------------------

"$repo/scripts/generate-c-project.py" "$tmp" "$files" procflow ninja make

python3 - "$tmp" "$steps" <<'PY'
import json, os, sys

tmp, steps = sys.argv[1], int(sys.argv[2])


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as out:
        out.write(text)

# 2,000 steps touching one output from one source each.
for i in range(steps):
    write(f"{tmp}/touch/in/{i}.txt", f"{i}\n")
os.makedirs(f"{tmp}/touch/out", exist_ok=True)
write(f"{tmp}/touch/flow.json", json.dumps({"name": "touch", "procedures": [
    {"id": f"t{i}", "kind": "shell", "run": f"touch out/{i}.txt",
     "sources": [f"in/{i}.txt"], "generates": [f"out/{i}.txt"]} for i in range(steps)]}))
write(f"{tmp}/touch/build.ninja", "rule touch\n  command = touch $out\n"
      + "".join(f"build out/{i}.txt: touch in/{i}.txt\n" for i in range(steps)))
write(f"{tmp}/touch/Makefile", "all: " + " ".join(f"out/{i}.txt" for i in range(steps))
      + "\nout/%.txt: in/%.txt\n\ttouch $@\n")
write(f"{tmp}/touch/Taskfile.yml", "version: '3'\nmethod: checksum\ntasks:\n  default:\n    deps: ["
      + ", ".join(f"t{i}" for i in range(steps)) + "]\n"
      + "".join(f"  t{i}:\n    sources: [in/{i}.txt]\n    generates: [out/{i}.txt]\n"
                f"    cmds: [touch out/{i}.txt]\n" for i in range(steps)))
PY

# --- The C project ---------------------------------------------------------------------------

c=$tmp/c-procflow
run_procflow=("$procflow" run "$c/build.json" --max-concurrent "$jobs")
run_ninja=("$ninja" -C "$tmp/c-ninja" -j "$jobs")
run_make=(make -C "$tmp/c-make" -r -j "$jobs")
quiet() { "$@" > /dev/null 2>&1; }
hyperfine_options=(-N --style basic)
# Prepare commands run through bash: with -N, hyperfine splits them into words itself.
sh() { printf "bash -c %q" "$1"; }
# measure NAME ROUNDS RUNS [--warmup N] COMMANDS...: ROUNDS rounds of hyperfine, RUNS runs of
# each command a round, exported to $tmp/NAME-ROUND.json. The commands are groups of five
# (--prepare CMD -n NAME CMD); each round starts one group later than the one before, so that
# no tool always runs right after the same other one.
measure() {
    local name=$1 count=$2 runs=$3 options=()
    shift 3
    if [[ $1 == --warmup ]]; then
        options=(--warmup "$2")
        shift 2
    fi
    local groups=$(($# / 5)) arguments=("$@")
    for round in $(seq "$count"); do
        local rotated=() first=$(((round - 1) % groups))
        for index in $(seq 0 $((groups - 1))); do
            local group=$(((first + index) % groups))
            rotated+=("${arguments[@]:$((group * 5)):5}")
        done
        hyperfine "${hyperfine_options[@]}" "${options[@]}" --runs "$runs" \
            --export-json "$tmp/$name-$round.json" "${rotated[@]}" >&2
    done
}

# Checks that each tool built the program and that it runs.
for tool in procflow ninja make; do
    rm -rf "$tmp/c-$tool/obj" "$tmp/c-$tool/app"
done
quiet "${run_procflow[@]}"; quiet "${run_ninja[@]}"; quiet "${run_make[@]}"
for tool in procflow ninja make; do
    "$tmp/c-$tool/app" 0 || [ $? -le 1 ] || { echo "the $tool build does not run" >&2; exit 1; }
done

clean="rm -rf obj app .procflow .ninja_log .ninja_deps"
measure full "$full_rounds" 1 \
    --prepare "$(sh "cd $tmp/c-ninja && $clean")" -n ninja "${run_ninja[*]}" \
    --prepare "$(sh "cd $tmp/c-make && $clean")" -n make "${run_make[*]}" \
    --prepare "$(sh "cd $c && $clean")" -n procflow "${run_procflow[*]}" \
    --prepare "$(sh "cd $c && $clean")" -n "procflow --no-cache" "${run_procflow[*]} --no-cache" >&2

# The last full build may have been the one with --no-cache, which leaves no state: record the
# build once, so that the no-op finds what it made up to date.
quiet "${run_procflow[@]}"
sleep 1.5  # so that the files' statuses can be trusted: see workflows/README.md
measure noop "$rounds" "$noop_runs" --warmup 3 \
    --prepare true -n ninja "${run_ninja[*]}" --prepare true -n make "${run_make[*]}" \
    --prepare true -n procflow "${run_procflow[*]}" \
    --prepare "$(sh "rm -f $c/.procflow/build.json-*.uptodate")" \
    -n "procflow (no snapshot)" "${run_procflow[*]}" >&2

for change in touch-header edit-header touch-c edit-c; do
    case $change in
        touch-header) edit() { echo "touch $1/src/mod3.h"; } ;;
        edit-header) edit() { echo "echo \"#define EDIT_\$(date +%s%N) 1\" >> $1/src/mod3.h"; } ;;
        touch-c) edit() { echo "touch $1/src/f017.c"; } ;;
        edit-c) edit() { echo "echo \"int extra\$(date +%s%N)(void) { return 7; }\" >> $1/src/f017.c"; } ;;
    esac
    measure "$change" "$rounds" 2 \
        --prepare "$(sh "$(edit "$tmp/c-ninja")")" -n ninja "${run_ninja[*]}" \
        --prepare "$(sh "$(edit "$tmp/c-make")")" -n make "${run_make[*]}" \
        --prepare "$(sh "$(edit "$c")")" -n procflow "${run_procflow[*]}" >&2
done

# --- 2,000 touch steps -----------------------------------------------------------------------

t=$tmp/touch
quiet "$procflow" run "$t/flow.json" --max-concurrent "$jobs"
quiet $ninja -C "$t" -j "$jobs"
quiet make -C "$t" -r -j "$jobs"
quiet task -d "$t" --concurrency "$jobs"
sleep 1.5
measure touch-noop "$rounds" "$noop_runs" --warmup 3 \
    --prepare true -n ninja "$ninja -C $t -j $jobs" \
    --prepare true -n make "make -C $t -r -j $jobs" \
    --prepare true -n go-task "task -d $t --concurrency $jobs" \
    --prepare true -n procflow "$procflow run $t/flow.json --max-concurrent $jobs" \
    --prepare "$(sh "rm -f $t/.procflow/flow.json-*.uptodate")" \
    -n "procflow (no snapshot)" "$procflow run $t/flow.json --max-concurrent $jobs" >&2

# --- Tables ----------------------------------------------------------------------------------

python3 - "$tmp" "$files" "$steps" <<'PY'
import glob, json, statistics, sys

tmp, files, steps = sys.argv[1], sys.argv[2], sys.argv[3]

def results(name):
    """Every round's times of each command, as mean and standard deviation."""
    times = {}
    for path in sorted(glob.glob(f"{tmp}/{name}-*.json")):
        with open(path) as data:
            for result in json.load(data)["results"]:
                times.setdefault(result["command"], []).extend(result["times"])
    return {command: {"mean": statistics.mean(values),
                      "stddev": statistics.stdev(values) if len(values) > 1 else 0}
            for command, values in times.items()}

def cell(result):
    mean, sd = result["mean"], result["stddev"] or 0
    if mean < 1:
        return f"{mean * 1000:.1f} ± {sd * 1000:.1f} ms"
    return f"{mean:.2f} ± {sd:.2f} s"

print(f"\nC project, {files} files, -j2 (mean ± σ; ratio = procflow / ninja)\n")
print("| scenario | ninja | make | procflow | ratio |")
print("| --- | ---: | ---: | ---: | ---: |")
names = {"full": "full build", "noop": "no-op", "touch-header": "one header touched",
         "edit-header": "one header edited", "touch-c": "one .c touched", "edit-c": "one .c edited"}
for key, label in names.items():
    r = results(key)
    row = f"| {label} | {cell(r['ninja'])} | {cell(r['make'])} | {cell(r['procflow'])} | " \
          f"{r['procflow']['mean'] / r['ninja']['mean']:.2f} |"
    print(row)
    if "procflow --no-cache" in r:
        s = r["procflow --no-cache"]
        print(f"| full build, procflow with --no-cache | | | {cell(s)} | "
              f"{s['mean'] / r['ninja']['mean']:.2f} |")
    if "procflow (no snapshot)" in r:
        s = r["procflow (no snapshot)"]
        print(f"| no-op, procflow without its snapshot | | | {cell(s)} | "
              f"{s['mean'] / r['ninja']['mean']:.2f} |")

def round_ratios(name, command):
    """procflow's time over ninja's in each round, of a scenario timed once a round."""
    ratios = []
    for path in sorted(glob.glob(f"{tmp}/{name}-*.json")):
        with open(path) as data:
            means = {result["command"]: result["mean"] for result in json.load(data)["results"]}
        ratios.append(means[command] / means["ninja"])
    return ratios

# The rounds' ratios: the tools take turns within a round, so that a change of the machine's
# load between rounds weighs less on them than on the means.
full = {command: round_ratios("full", command) for command in ("procflow", "procflow --no-cache")}
print(f"\nFull build, the ratio to ninja in each of {len(full['procflow'])} rounds: median "
      f"{statistics.median(full['procflow']):.2f} (procflow), "
      f"{statistics.median(full['procflow --no-cache']):.2f} (with --no-cache); procflow's: "
      + ", ".join(f"{ratio:.2f}" for ratio in full["procflow"]))

r = results("touch-noop")
print(f"\n{steps} touch steps, no-op (mean ± σ; ratio to ninja)\n")
print("| tool | mean | ratio |")
print("| --- | ---: | ---: |")
for tool in ("ninja", "make", "go-task", "procflow", "procflow (no snapshot)"):
    print(f"| {tool} | {cell(r[tool])} | {r[tool]['mean'] / r['ninja']['mean']:.2f} |")
PY
