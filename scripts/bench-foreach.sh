#!/usr/bin/env bash
# forEach benchmark: a forEach over N items that another step produces at run time, against N
# static steps doing the same no-op (`argv: ["true"]`), side by side with hyperfine, two at a
# time. Reports each run's time, the cost per step, and the ratio of the two.
#
# Usage: scripts/bench-foreach.sh [N]      (N = 10000 by default)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
count=${1:-10000}
case "$count" in
    '' | *[!0-9]*) echo "usage: $0 [N]" >&2; exit 2 ;;
esac
command -v hyperfine > /dev/null || {
    echo "hyperfine is missing; install it with: sudo apt-get install -y hyperfine" >&2
    exit 1
}

tmp=$(mktemp -d /tmp/bench-foreach.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
(cd "$repo" && swift build -c release --product procflow) >&2
cp "$repo/.build/release/procflow" "$tmp/procflow"

python3 - "$tmp" "$count" <<'PY'
import json, sys
directory, count = sys.argv[1], int(sys.argv[2])
static = {"procedures": [{"id": f"s{i}", "kind": "shell", "argv": ["true"]} for i in range(count)]}
json.dump(static, open(f"{directory}/static.json", "w"))
dynamic = {"procedures": [
    {"id": "list", "kind": "shell", "argv": ["seq", "-s", ",", "1", str(count)], "output": "text"},
    {"id": "items", "kind": "file", "op": "replace", "find": "\n", "replace": "]",
     "input": {"from": "list"}},
    {"id": "array", "kind": "shell", "run": "printf '['; cat", "input": {"from": "items"},
     "output": "json"},
    {"id": "each", "kind": "shell", "forEach": {"from": "array"}, "argv": ["true"]},
]}
json.dump(dynamic, open(f"{directory}/dynamic.json", "w"))
PY

cd "$tmp"
# Both must run every step: N static, N instances (+3 for the list).
./procflow run static.json --max-concurrent 2 --events json | grep -c '"event":"step.finished"' \
    | grep -qx "$count" || { echo "static run did not finish $count steps" >&2; exit 1; }
./procflow run dynamic.json --max-concurrent 2 --events json | grep -c '"event":"step.finished"' \
    | grep -qx "$((count + 4))" || { echo "forEach run did not finish $count instances" >&2; exit 1; }

hyperfine -N --warmup 1 --runs 5 --style basic --export-json times.json \
    -n "$count static steps" "./procflow run static.json --max-concurrent 2 --output grouped" \
    -n "forEach over $count items" "./procflow run dynamic.json --max-concurrent 2 --output grouped" >&2

python3 - "$count" <<'PY'
import json, sys
count = int(sys.argv[1])
results = json.load(open("times.json"))["results"]
static, dynamic = results[0]["mean"], results[1]["mean"]
print(f"| shape | mean | per step |")
print(f"| --- | ---: | ---: |")
print(f"| {count} static steps | {static:.3f} s | {static / count * 1e6:.0f} µs |")
print(f"| forEach over {count} items | {dynamic:.3f} s | {dynamic / count * 1e6:.0f} µs |")
print(f"\nforEach / static: {dynamic / static:.2f}")
PY
