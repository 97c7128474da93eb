#!/usr/bin/env bash
# SHA-256 benchmark: procflow hashing a large source file against coreutils' sha256sum, side by
# side with hyperfine, the file in the page cache for both. procflow hashes it where a user
# meets the hashing: an incremental step whose source's date changed (`touch`) and whose
# content did not, so the run reads and hashes the whole file, finds it unchanged and runs
# nothing (that the digests are sha256sum's is the tests' business: SHA256Tests). Prints each
# tool's time and throughput.
#
# Usage: scripts/bench-sha256.sh [MiB]     (1024 by default)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
size=${1:-1024}
case "$size" in
    '' | *[!0-9]*) echo "usage: $0 [MiB]" >&2; exit 2 ;;
esac
if ! command -v hyperfine > /dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
        apt-get update -qq >&2 && apt-get install -y -qq hyperfine > /dev/null
    else
        echo "hyperfine is missing; install it with: sudo apt-get install -y hyperfine" >&2
        exit 1
    fi
fi

tmp=$(mktemp -d /tmp/bench-sha256.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
(cd "$repo" && swift build -c release --product procflow) >&2
cp "$repo/.build/release/procflow" "$tmp/procflow"
head -c "$((size * 1024 * 1024))" /dev/urandom > "$tmp/big.bin"
cat > "$tmp/flow.json" <<'JSON'
{"procedures": [{"id": "hash", "kind": "shell", "argv": ["true"], "sources": ["big.bin"]}]}
JSON
cd "$tmp"
./procflow run flow.json > /dev/null
grep -m1 -o 'sha_ni' /proc/cpuinfo > /dev/null && echo "CPU: SHA extensions (sha_ni)" \
    || echo "CPU: no SHA extensions (portable code)"

hyperfine -N --warmup 2 --runs 10 --export-json "$tmp/sha.json" \
    --prepare "touch $tmp/big.bin" \
    -n "procflow (a touched ${size} MiB source)" "$tmp/procflow run $tmp/flow.json" \
    -n "sha256sum (${size} MiB)" "sha256sum $tmp/big.bin" >&2
python3 - "$tmp/sha.json" "$size" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
size = int(sys.argv[2])
print("| tool | mean ± σ | MB/s |")
print("| --- | ---: | ---: |")
for result in results:
    mean, sigma = result["mean"], result["stddev"]
    print(f"| {result['command']} | {mean:.3f} ± {sigma:.3f} s | {size * 1.048576 / mean:,.0f} |")
PY
