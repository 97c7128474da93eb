#!/usr/bin/env bash
# Loading benchmark: `procflow validate` on a generated workflow of 10,000 procedures (with
# groups, wiring and conditions), and on a one-procedure file against the start-up of a Swift
# "hello" that imports Foundation, side by side with hyperfine. Needs python3 and hyperfine.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "hyperfine is missing: apt-get install -y hyperfine" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

swift build -c release --product procflow >&2
python3 scripts/generate-workflow.py 10000 "$work/big.json"
python3 scripts/generate-workflow.py 1 "$work/one.json"
printf 'import Foundation\nprint("hello")\n' > "$work/hello.swift"
swiftc -O "$work/hello.swift" -o "$work/hello"

procflow=.build/release/procflow
"$procflow" validate "$work/big.json" >&2

hyperfine -N --warmup 5 --runs 40 --export-markdown "$work/startup.md" \
    -n 'swift hello' "$work/hello" \
    -n 'procflow validate (1 procedure)' "$procflow validate $work/one.json" >&2
hyperfine -N --warmup 3 --runs 20 --export-markdown "$work/big.md" \
    -n 'procflow validate (10,000 procedures)' "$procflow validate $work/big.json" >&2
cat "$work/startup.md" "$work/big.md"
