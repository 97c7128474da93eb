#!/usr/bin/env bash
# Start-up benchmark: the installed procflow (scripts/install.sh: static Swift runtime,
# position-dependent, stripped) validating a one-step workflow, side by side in one hyperfine
# run with a static-stdlib Swift program that only touches Foundation's FileManager, a
# static-stdlib Swift print("hi"), and the same procflow linked position-independent (the
# default). The target: procflow within 1.5x of the FileManager program.
# Needs hyperfine (installed with apt-get when missing and run as root) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v hyperfine >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update >&2 && apt-get install -y hyperfine >&2
    else
        echo "bench-startup.sh: error: hyperfine is missing: apt-get install -y hyperfine" >&2
        exit 1
    fi
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The default position-independent link first, then the installed binary, so that
# .build/release/procflow ends as install.sh leaves it.
swift build -c release --static-swift-stdlib --product procflow >&2
cp "$(swift build -c release --static-swift-stdlib --show-bin-path)/procflow" "$work/procflow-pie"
strip "$work/procflow-pie"
scripts/install.sh --prefix "$work" >&2

printf 'import Foundation\n_ = FileManager.default.fileExists(atPath: "/")\n' >"$work/filemanager.swift"
printf 'print("hi")\n' >"$work/hello.swift"
swiftc -O -static-stdlib "$work/filemanager.swift" -o "$work/filemanager" 2>/dev/null
swiftc -O -static-stdlib "$work/hello.swift" -o "$work/hello" 2>/dev/null
printf '{"procedures": [{"id": "hello", "kind": "shell", "run": "echo hi"}]}\n' >"$work/one.json"
"$work/bin/procflow" validate "$work/one.json" >&2

hyperfine -N --warmup 20 --runs 300 --export-markdown "$work/startup.md" \
    --export-json "$work/startup.json" \
    -n 'Swift print("hi"), static stdlib' "$work/hello" \
    -n 'Swift FileManager, static stdlib' "$work/filemanager" \
    -n 'procflow validate, 1 step (installed)' "$work/bin/procflow validate $work/one.json" \
    -n 'procflow validate, 1 step (PIE)' "$work/procflow-pie validate $work/one.json" >&2
cat "$work/startup.md"
python3 - "$work/startup.json" <<'PY'
import json, sys
results = {r["command"]: r["mean"] for r in json.load(open(sys.argv[1]))["results"]}
filemanager = results["Swift FileManager, static stdlib"]
print()
for name in ("procflow validate, 1 step (installed)", "procflow validate, 1 step (PIE)"):
    print(f"{name}: {results[name] / filemanager:.2f}x the FileManager program (target: 1.5x)")
PY
