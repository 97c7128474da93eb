#!/usr/bin/env bash
# Fixed-cost benchmark: what a run costs around the commands it runs, procflow against ninja,
# side by side in one run with hyperfine (the tools take turns, round after round, so that a
# change of the shared machine's load weighs on both alike).
#
# Two projects, each built once by both tools, then timed in the run every developer makes
# most: one step that always runs (a `check` that runs `true`) and nothing else to do.
#   - Lua 5.4 (the sources of the lupa 2.8 package on PyPI, fetched once): 33 objects with
#     depfiles, the library (`ar`), the interpreter's link, a smoke test, and the check.
#   - The benchmarks' generated C project (scripts/generate-c-project.py): 300 objects and a
#     link, and the check.
# For each: ninja's no-op (nothing runs), ninja running only the check, and procflow running
# only the check (every other step up to date). procflow's fixed cost is its time less the
# command's, given also less what its `cacheKey` command (`cc --version`, which every run of the
# C workflow runs) adds to its no-op; the target is ninja's no-op time plus 1 ms. Then, on the C
# project, one `.c` edited (its object and the link run) by each tool.
#
# procflow is the static release build scripts/install.sh makes. Missing tools are installed
# with apt-get (hyperfine, ninja-build, gcc, binutils). Prints Markdown tables.
#
# Usage: scripts/bench-fixed-cost.sh [--quick]
#   --quick  fewer rounds and runs: a check that it all works.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rounds=5 runs=15
case "${1:-}" in
    "") ;;
    --quick) rounds=1 runs=3 ;;
    *) echo "usage: $0 [--quick]" >&2; exit 2 ;;
esac

# ninja is Debian's binary: a `ninja` earlier on PATH may be pip's Python wrapper (or a pyenv
# shim in front of it), which adds tens of milliseconds to every run.
ninja=/usr/bin/ninja
missing=()
for tool in hyperfine:hyperfine $ninja:ninja-build cc:gcc ar:binutils python3:python3; do
    command -v "${tool%%:*}" > /dev/null || missing+=("${tool#*:}")
done
if ((${#missing[@]})); then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get > /dev/null; then
        echo "missing: ${missing[*]}; install them with: sudo apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
    echo "installing ${missing[*]} with apt-get" >&2
    apt-get update -qq && apt-get install -y -qq "${missing[@]}" > /dev/null
fi

tmp=$(mktemp -d /tmp/bench-fixed-cost.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$repo/scripts/install.sh" --prefix "$tmp/prefix" >&2
procflow=$tmp/prefix/bin/procflow

# --- Lua -------------------------------------------------------------------------------------

lua_cache=${XDG_CACHE_HOME:-$HOME/.cache}/procflow-bench/lua54
if [ ! -f "$lua_cache/lvm.c" ]; then
    echo "fetching the Lua 5.4 sources (lupa 2.8 on PyPI)" >&2
    python3 - "$lua_cache" <<'PY'
import hashlib, io, os, sys, tarfile, urllib.request
target = sys.argv[1]
url = ("https://files.pythonhosted.org/packages/c3/a6/"
       "0f869fbb07c393f15473b1eefefb7b5bec162fb7481803d040ed4dc46002/lupa-2.8.tar.gz")
with urllib.request.urlopen(url, timeout=300) as response:
    data = response.read()
if hashlib.sha256(data).hexdigest() != \
        "d8022641b9ec8ecf2c5ecbe9f47e5a70e0b87c4b5ae921b92cb02a638e0acd08":
    sys.exit("the lupa 2.8 archive is not the one expected")
archive = tarfile.open(fileobj=io.BytesIO(data))
os.makedirs(target, exist_ok=True)
prefix = "lupa-2.8/third-party/lua54/"
for member in archive.getmembers():
    name = member.name[len(prefix):]
    if member.isfile() and member.name.startswith(prefix) and "/" not in name \
            and name.endswith((".c", ".h")):
        with open(os.path.join(target, name), "wb") as out:
            out.write(archive.extractfile(member).read())
PY
fi

python3 - "$tmp" "$lua_cache" <<'PY'
import json, os, shutil, sys
tmp, sources = sys.argv[1], sys.argv[2]
core = ("lapi lcode lctype ldebug ldo ldump lfunc lgc llex lmem lobject lopcodes lparser "
        "lstate lstring ltable ltm lundump lvm lzio").split()
libs = ("lauxlib lbaselib lcorolib ldblib liolib lmathlib loadlib loslib lstrlib ltablib "
        "lutf8lib linit").split()
units = core + libs + ["lua"]
flags = "-O2 -std=gnu99 -DLUA_COMPAT_5_3 -DLUA_USE_LINUX -MMD"
library = [f"obj/{unit}.o" for unit in core + libs]
for tool in ("procflow", "ninja"):
    shutil.copytree(sources, f"{tmp}/lua-{tool}/src")
setup = {"id": "obj", "kind": "shell", "run": "mkdir -p obj && touch obj/.dir",
         "generates": ["obj/.dir"], "cache": True}
steps = [setup] + [{
    "id": f"cc-{unit}", "kind": "shell", "dependsOn": ["obj"],
    "run": f"cc {flags} -MF obj/{unit}.d -c src/{unit}.c -o obj/{unit}.o",
    "sources": [f"src/{unit}.c"], "depfile": f"obj/{unit}.d", "generates": [f"obj/{unit}.o"],
} for unit in units] + [
    {"id": "lib", "kind": "shell", "run": "rm -f liblua.a && ar rcs liblua.a " + " ".join(library),
     "dependsOn": [f"cc-{unit}" for unit in core + libs], "sources": library,
     "generates": ["liblua.a"]},
    {"id": "link", "kind": "shell", "run": "cc -o lua obj/lua.o liblua.a -lm -ldl",
     "dependsOn": ["lib", "cc-lua"], "sources": ["obj/lua.o", "liblua.a"], "generates": ["lua"]},
    {"id": "smoke", "kind": "shell", "dependsOn": ["link"],
     "run": "./lua -e 'assert(string.format(\"%d\", 6 * 7) == \"42\")' && touch smoke.ok",
     "sources": ["lua"], "generates": ["smoke.ok"]},
    {"id": "check", "kind": "shell", "dependsOn": ["smoke"], "run": "true"},
]
with open(f"{tmp}/lua-procflow/build.json", "w") as out:
    json.dump({"name": "lua", "procedures": steps}, out, indent=1)
# The same without the check: a no-op.
with open(f"{tmp}/lua-procflow/noop.json", "w") as out:
    json.dump({"name": "lua", "procedures": steps[:-1]}, out, indent=1)
with open(f"{tmp}/lua-ninja/build.ninja", "w") as out:
    out.write(f"rule cc\n  command = cc {flags} -MF $out.d -c $in -o $out\n  depfile = $out.d\n"
              "  deps = gcc\nrule ar\n  command = rm -f $out && ar rcs $out $in\n"
              "rule link\n  command = cc -o $out $in -lm -ldl\n"
              "rule smoke\n  command = ./lua -e 'assert(string.format(\"%d\", 6 * 7) == \"42\")'"
              " && touch $out\n"
              # The check never makes its output: ninja runs it every time.
              "rule check\n  command = true\n")
    for unit in units:
        out.write(f"build obj/{unit}.o: cc src/{unit}.c\n")
    out.write("build liblua.a: ar " + " ".join(library) + "\n")
    out.write("build lua: link obj/lua.o liblua.a\nbuild smoke.ok: smoke lua\n"
              "build check.never: check smoke.ok\ndefault check.never\n")
PY

# --- The C project, with a check -------------------------------------------------------------

"$repo/scripts/generate-c-project.py" "$tmp" 300 procflow ninja
python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
path = f"{tmp}/c-procflow/build.json"
workflow = json.load(open(path))
# Without the check: a no-op; and a no-op without the cacheKey command (`cc --version`), which
# every run of the workflow runs, the no-op too.
json.dump(workflow, open(f"{tmp}/c-procflow/noop.json", "w"), indent=1)
json.dump({k: v for k, v in workflow.items() if k != "cacheKey"},
          open(f"{tmp}/c-procflow/noop-nokey.json", "w"), indent=1)
workflow["procedures"].append(
    {"id": "check", "kind": "shell", "dependsOn": ["link"], "run": "true"})
json.dump(workflow, open(path, "w"), indent=1)
with open(f"{tmp}/c-ninja/build.ninja", "a") as out:
    out.write("rule check\n  command = true\nbuild check.never: check app\ndefault check.never\n")
PY

# --- Timing ----------------------------------------------------------------------------------

quiet() { "$@" > /dev/null 2>&1; }
for project in lua c; do
    quiet "$ninja" -C "$tmp/$project-ninja" -j 2
    # Each workflow file keeps its own state: each builds once.
    for workflow in "$tmp/$project-procflow"/*.json; do quiet "$procflow" run "$workflow" -j 2; done
done
"$tmp/lua-ninja/lua" -v > /dev/null && "$tmp/lua-procflow/lua" -v > /dev/null
sleep 1.5  # so that the files' statuses can be trusted: see workflows/README.md
for project in lua c; do
    # Every step but the check is up to date, for both tools; the no-ops leave their snapshots.
    for workflow in "$tmp/$project-procflow"/*.json; do quiet "$procflow" run "$workflow" -j 2; done
done

# measure NAME COMMANDS...: $rounds rounds of hyperfine ($runs runs of each command), the
# commands given as (NAME COMMAND) pairs, each round starting one pair later.
measure() {
    local name=$1
    shift
    local pairs=$(($# / 2)) arguments=("$@")
    for round in $(seq "$rounds"); do
        local rotated=() first=$(((round - 1) % pairs))
        for index in $(seq 0 $((pairs - 1))); do
            local pair=$(((first + index) % pairs))
            rotated+=(-n "${arguments[$((pair * 2))]}" "${arguments[$((pair * 2 + 1))]}")
        done
        hyperfine -N --style basic --warmup 3 --runs "$runs" \
            --export-json "$tmp/$name-$round.json" "${rotated[@]}" >&2
    done
}
for project in lua c; do
    n=$tmp/$project-ninja p=$tmp/$project-procflow
    target=$([ "$project" = lua ] && echo smoke.ok || echo app)
    nokey=()
    [ -f "$p/noop-nokey.json" ] && nokey=("procflow no-op, no cacheKey" "$procflow run $p/noop-nokey.json -j 2")
    measure "$project" \
        "ninja no-op" "$ninja -C $n -j 2 $target" \
        "ninja, the check runs" "$ninja -C $n -j 2" \
        "procflow, the check runs" "$procflow run $p/build.json -j 2" \
        "true" "true" \
        "procflow no-op" "$procflow run $p/noop.json -j 2" "${nokey[@]}"
done
# One .c edited: each run compiles it again and links.
edit() { printf 'bash -c %q' "echo \"int extra\$(date +%s%N)(void) { return 7; }\" >> $1/src/f017.c"; }
for round in $(seq "$rounds"); do
    hyperfine -N --style basic --runs 3 --export-json "$tmp/edit-$round.json" \
        --prepare "$(edit "$tmp/c-ninja")" -n ninja "$ninja -C $tmp/c-ninja -j 2" \
        --prepare "$(edit "$tmp/c-procflow")" -n procflow "$procflow run $tmp/c-procflow/build.json -j 2" >&2
done

python3 - "$tmp" <<'PY'
import glob, json, statistics, sys
tmp = sys.argv[1]

def times(name):
    found = {}
    for path in sorted(glob.glob(f"{tmp}/{name}-*.json")):
        for result in json.load(open(path))["results"]:
            found.setdefault(result["command"], []).extend(result["times"])
    return found

def ms(values):
    return f"{statistics.median(values) * 1000:.1f} ms"

print("\nOne step that always runs (`true`), everything else up to date; medians, -j2\n")
# The cacheKey command (`cc --version`) is a command the run runs too, one ninja has no
# counterpart of: its cost is taken as what it adds to procflow's no-op (the no-op with it
# less the no-op without it), and the fixed cost is given with and without it.
print("| project | ninja no-op | ninja, the check runs | procflow, the check runs | `true` alone "
      "| procflow's fixed cost | the same, less its `cacheKey` command "
      "| target (ninja no-op + 1 ms) |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for project, label in (("lua", "Lua 5.4 (33 objects)"), ("c", "C, 300 files")):
    t = times(project)
    noop, check = statistics.median(t["ninja no-op"]), statistics.median(t["ninja, the check runs"])
    ours, true = statistics.median(t["procflow, the check runs"]), statistics.median(t["true"])
    nokey = t.get("procflow no-op, no cacheKey")
    key = statistics.median(t["procflow no-op"]) - statistics.median(nokey) if nokey else 0
    print(f"| {label} | {noop * 1000:.1f} ms | {check * 1000:.1f} ms | {ours * 1000:.1f} ms | "
          f"{true * 1000:.1f} ms | {(ours - true) * 1000:.1f} ms | "
          f"{(ours - true - key) * 1000:.1f} ms{'' if nokey else ' (no cacheKey)'} | "
          f"{(noop + 0.001) * 1000:.1f} ms |")
print("\nThe no-op (nothing runs; procflow from its snapshot); medians\n")
print("| project | ninja | procflow | procflow, no cacheKey command |")
print("| --- | ---: | ---: | ---: |")
for project, label in (("lua", "Lua 5.4 (33 objects)"), ("c", "C, 300 files")):
    t = times(project)
    nokey = t.get("procflow no-op, no cacheKey")
    print(f"| {label} | {ms(t['ninja no-op'])} | {ms(t['procflow no-op'])} | "
          f"{ms(nokey) if nokey else 'no cacheKey'} |")
t = times("edit")
ratio = statistics.median(t["procflow"]) / statistics.median(t["ninja"])
print(f"\nOne .c edited (C project, -j2; medians): ninja {ms(t['ninja'])}, procflow "
      f"{ms(t['procflow'])} ({ratio:.2f}x)")
PY
