#!/usr/bin/env bash
# Remote-cache benchmark: the 300-file C project of scripts/bench-incremental.sh, built at -j2
# against a real nginx serving Bazel's HTTP cache protocol on loopback, side by side in one run
# with hyperfine:
#
#   cold, no remote       procflow's full build from nothing, no remote cache
#   cold, uploading       the same with --remote-cache and an empty remote: it uploads all
#   second CI machine     a fresh checkout (no objects, empty state directory) against a warm
#                         remote: every step restored from it
#   ninja cold            ninja's full build from nothing
#   procflow no-op        procflow with nothing to do, for scale
#
# Targets (issue 21): uploading within 1.05x of not; the second machine at most 10% of ninja's
# cold build. Also prints the bytes and requests of an uploading build and of a second machine.
# Installs what is missing (hyperfine, ninja-build, nginx-light, gcc) with apt-get.
#
# Usage: scripts/bench-remote-cache.sh [--quick]     (--quick: 60 files, one run each)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
files=300 runs=5
case "${1:-}" in
    "") ;;
    --quick) files=60 runs=1 ;;
    *) echo "usage: $0 [--quick]" >&2; exit 2 ;;
esac

missing=()
for tool in hyperfine:hyperfine ninja:ninja-build cc:gcc; do
    command -v "${tool%%:*}" > /dev/null || missing+=("${tool#*:}")
done
[ -x /usr/sbin/nginx ] || command -v nginx > /dev/null || missing+=(nginx-light)
if ((${#missing[@]})); then
    echo "installing ${missing[*]} with apt-get" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" > /dev/null
fi

tmp=$(mktemp -d /tmp/bench-remote.XXXXXX)
nginx_pid=
cleanup() {
    [ -n "$nginx_pid" ] && kill "$nginx_pid" 2> /dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT

"$repo/scripts/install.sh" --prefix "$tmp/prefix" >&2
procflow=$tmp/prefix/bin/procflow

# --- nginx on a free loopback port ---------------------------------------------------------
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$tmp/nginx/root"
cat > "$tmp/nginx/nginx.conf" << EOF
$([ "$(id -u)" = 0 ] && echo "user root;")
worker_processes 1;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/error.log;
daemon off;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path $tmp/nginx/body;
  client_max_body_size 0;
  server {
    listen 127.0.0.1:$port;
    root $tmp/nginx/root;
    dav_methods PUT DELETE;
    create_full_put_path on;
  }
}
EOF
nginx=$(command -v nginx || echo /usr/sbin/nginx)
"$nginx" -c "$tmp/nginx/nginx.conf" -p "$tmp/nginx" &
nginx_pid=$!
for _ in $(seq 100); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2> /dev/null && break
    sleep 0.1
done
remote=http://127.0.0.1:$port

# --- The project: one copy for procflow's builds, one for the second machine, one for ninja ---
"$repo/scripts/generate-c-project.py" "$tmp" "$files" procflow ninja
cp -r "$tmp/c-procflow" "$tmp/c-second"
p=$tmp/c-procflow s=$tmp/c-second n=$tmp/c-ninja
run="$procflow run build.json --max-concurrent 2"
fresh="rm -rf obj app .procflow"

# The second machine's remote: filled once by a build of the first copy.
(cd "$p" && $run --remote-cache "$remote" > /dev/null 2> "$tmp/upload.log")
(cd "$s" && $run --remote-cache "$remote" > /dev/null 2> "$tmp/second.log")
(cd "$p" && $run > /dev/null 2>&1)

hyperfine --runs "$runs" --export-json "$tmp/results.json" \
    -n "cold, no remote" --prepare "cd $p && $fresh" "cd $p && $run" \
    -n "cold, uploading" --prepare "cd $p && $fresh && rm -rf $tmp/nginx/root/*" \
    "cd $p && $run --remote-cache $remote" \
    -n "second CI machine" --prepare "cd $s && $fresh" "cd $s && $run --remote-cache $remote" \
    -n "ninja cold" --prepare "cd $n && rm -rf obj app .ninja_log .ninja_deps" "cd $n && ninja -j2 > /dev/null" \
    -n "procflow no-op" --prepare "cd $p && $run > /dev/null" "cd $p && $run" >&2

python3 - "$tmp/results.json" "$tmp/upload.log" "$tmp/second.log" << 'PY'
import json, re, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
mean = {name: results[name]["mean"] for name in results}
print("| build | mean (s) | min (s) | max (s) |")
print("| --- | ---: | ---: | ---: |")
for name, result in results.items():
    print(f"| {name} | {result['mean']:.3f} | {result['min']:.3f} | {result['max']:.3f} |")
print()
print(f"- uploading / no remote: {mean['cold, uploading'] / mean['cold, no remote']:.3f}x "
      "(target: at most 1.05x)")
print(f"- second CI machine / ninja cold: {100 * mean['second CI machine'] / mean['ninja cold']:.1f}% "
      "(target: at most 10%)")
print(f"- second CI machine / procflow no-op: {mean['second CI machine'] / mean['procflow no-op']:.1f}x")
for label, path in (("uploading build", sys.argv[2]), ("second CI machine", sys.argv[3])):
    line = next((l for l in open(path) if "remote cache" in l), "").strip()
    print(f"- {label}: {re.sub(r'^procflow: remote cache [^:]+: ', '', line)}")
PY
