#!/usr/bin/env bash
# Slurm executor benchmark, on the one-node cluster of scripts/slurm-local.sh (started if no
# cluster answers), side by side in one run with Slurm used bare and with procflow's local
# executor:
#
#   200 independent `true` steps   procflow --executor slurm; bare Slurm (200 sbatch, then
#                                  squeue until none is left); procflow local, for scale
#   a 50-step chain of `true`      procflow --executor slurm; bare Slurm (50 `sbatch --wait`
#                                  one after the other); procflow local
#   1,000 jobs in flight           1,000 steps submitted held (--hold) with --max-jobs 1000,
#                                  each timing out after 60 s: procflow's own CPU time and
#                                  peak memory on the head node while it follows them
#
# Prints a table of wall times, the overhead per job against bare Slurm, jobs per second, and
# the head node's cost. Each figure is one run: the runs take minutes.
#
# Usage: scripts/bench-slurm.sh [--quick]     (--quick: 40 independent, a chain of 10, 200 held)
#        PROCFLOW=path/to/procflow scripts/bench-slurm.sh    (that binary, not a fresh install)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
independent=200 chain=50 held=1000
case "${1:-}" in
    "") ;;
    --quick) independent=40 chain=10 held=200 ;;
    *) echo "usage: $0 [--quick]" >&2; exit 2 ;;
esac

"$repo/scripts/slurm-local.sh" start >&2
command -v /usr/bin/time > /dev/null || {
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time > /dev/null
}

tmp=$(mktemp -d /var/tmp/bench-slurm.XXXXXX)
trap 'scancel --quiet --name=bench-bare 2> /dev/null || true; rm -rf "$tmp"' EXIT
procflow=${PROCFLOW:-}
if [ -z "$procflow" ]; then
    "$repo/scripts/install.sh" --prefix "$tmp/prefix" >&2
    procflow=$tmp/prefix/bin/procflow
fi
cd "$tmp"

python3 - "$independent" "$chain" "$held" << 'PY'
import json, sys
independent, chain, held = map(int, sys.argv[1:])
def write(name, procedures):
    json.dump({"procedures": procedures}, open(name, "w"))
write("independent.json", [{"id": f"s{i}", "kind": "shell", "run": "true"} for i in range(independent)])
write("chain.json", [dict({"id": f"s{i}", "kind": "shell", "run": "true"},
                          **({"dependsOn": [f"s{i - 1}"]} if i else {})) for i in range(chain)])
write("held.json", [{"id": f"h{i}", "kind": "shell", "run": "true", "timeout": 60,
                     "slurm": {"extraArgs": ["--hold"]}} for i in range(held)])
PY
printf '#!/bin/sh\nexec "$@"\n' > bare.sh

now() { date +%s.%N; }
elapsed() { python3 -c "print(f'{$2 - $1:.1f}')"; }
timed() { # label, command...: prints the wall seconds, keeps GNU time's figures in $tmp/label.time
    local label=$1
    shift
    /usr/bin/time -f '%e %U %S %M' -o "$tmp/$label.time" "$@" > "$tmp/$label.log" 2>&1 || true
    # GNU time puts "Command exited with non-zero status N" first when it did.
    tail -n 1 "$tmp/$label.time" > "$tmp/$label.figures"
    cut -d' ' -f1 "$tmp/$label.figures"
}

echo "independent: procflow slurm" >&2
ind_slurm=$(timed ind-slurm "$procflow" run independent.json --executor slurm --no-cache --output grouped)
echo "independent: bare slurm" >&2
start=$(now)
for _ in $(seq "$independent"); do sbatch --parsable --job-name=bench-bare --output=/dev/null bare.sh true > /dev/null; done
while [ -n "$(squeue --noheader --name=bench-bare --format=%i)" ]; do sleep 0.05; done
ind_bare=$(elapsed "$start" "$(now)")
ind_local=$(timed ind-local "$procflow" run independent.json --no-cache --output grouped)

echo "chain: procflow slurm" >&2
chain_slurm=$(timed chain-slurm "$procflow" run chain.json --executor slurm --no-cache --output grouped)
echo "chain: bare slurm" >&2
start=$(now)
for _ in $(seq "$chain"); do sbatch --wait --parsable --job-name=bench-bare --output=/dev/null bare.sh true > /dev/null; done
chain_bare=$(elapsed "$start" "$(now)")
chain_local=$(timed chain-local "$procflow" run chain.json --no-cache --output grouped)

echo "$held jobs in flight (about 60 s)" >&2
timed held "$procflow" run held.json --executor slurm --no-cache --output grouped --max-jobs "$held" > /dev/null
read -r held_wall held_user held_sys held_rss < "$tmp/held.figures"

python3 - << PY
independent, chain, held = $independent, $chain, $held
ind = dict(slurm=$ind_slurm, bare=$ind_bare, local=$ind_local)
ch = dict(slurm=$chain_slurm, bare=$chain_bare, local=$chain_local)
print(f"| workload | procflow --executor slurm | bare Slurm | procflow local |")
print(f"| --- | ---: | ---: | ---: |")
print(f"| {independent} independent \`true\` steps | {ind['slurm']:.1f} s | {ind['bare']:.1f} s | {ind['local']:.2f} s |")
print(f"| a {chain}-step chain | {ch['slurm']:.1f} s | {ch['bare']:.1f} s | {ch['local']:.2f} s |")
print()
print(f"- independent: {independent / ind['slurm']:.2f} jobs/s through procflow, {independent / ind['bare']:.2f} bare; "
      f"procflow adds {(ind['slurm'] - ind['bare']) / independent * 1000:+.0f} ms a job ({ind['slurm'] / ind['bare']:.3f}x)")
print(f"- chain: {ch['slurm'] / chain:.2f} s a step through procflow, {ch['bare'] / chain:.2f} s with \`sbatch --wait\`")
cpu = $held_user + $held_sys
print(f"- {held} jobs in flight for {$held_wall:.0f} s: procflow used {cpu:.1f} s of CPU "
      f"({cpu / $held_wall * 100:.1f}% of one core) and {$held_rss / 1024:.0f} MiB at its peak")
PY
for log in ind-slurm chain-slurm held; do grep -h 'slurm:' "$tmp/$log.log" | sed "s/^/- $log: /" || true; done
