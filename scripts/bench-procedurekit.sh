#!/usr/bin/env bash
# Scheduler benchmark: ProcedureKit's ProcedureQueue against Foundation's OperationQueue, side by
# side in one run, on N independent no-op operations, a chain of N and a fan-in of N into one,
# two at a time; then groups, result injection and BatchProcedure (up to 100k). Prints Markdown
# tables. Usage: scripts/bench-procedurekit.sh [--only SHAPE] [N ...]; `--only chain` (or any
# row's name) runs ProcedureKit alone on that row, to compare two builds shape by shape.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product ProcedureKitBenchmark >&2
exec .build/release/ProcedureKitBenchmark "$@"
