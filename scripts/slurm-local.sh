#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for procflow's Slurm executor tests and benchmark.
#
#   scripts/slurm-local.sh start    install slurm-wlm and munge if missing, then start munged,
#                                   slurmctld and slurmd; does nothing when a cluster answers
#   scripts/slurm-local.sh stop     stop only what `start` started, and remove what it wrote
#   scripts/slurm-local.sh status   exit 0 when a cluster answers `scontrol ping`
#
# Needs root (the daemons, /etc/slurm). The cluster has one node (this host, every core) and one
# partition, `debug`; it keeps finished jobs in `scontrol show job` for 10 minutes and logs them
# to a file (no slurmdbd, so no `sacct`). What it writes and the daemons' logs live in
# $PROCFLOW_SLURM_DIR (/var/tmp/procflow-slurm by default).
set -euo pipefail

dir=${PROCFLOW_SLURM_DIR:-/var/tmp/procflow-slurm}
conf=/etc/slurm/slurm.conf

log() { printf 'slurm-local: %s\n' "$*" >&2; }

answers() {
    command -v scontrol >/dev/null 2>&1 && timeout 10 scontrol ping 2>/dev/null | grep -q 'is UP'
}

install_packages() {
    command -v slurmctld >/dev/null 2>&1 && command -v munged >/dev/null 2>&1 && return
    log "installing slurm-wlm and munge"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
}

start_munge() {
    if [ -S /run/munge/munge.socket.2 ] && munge -n </dev/null >/dev/null 2>&1; then
        return
    fi
    if [ ! -s /etc/munge/munge.key ]; then
        mkdir -p /etc/munge
        dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
        touch "$dir/wrote-munge-key"
    fi
    chown -R munge:munge /etc/munge
    chmod 0700 /etc/munge
    chmod 0400 /etc/munge/munge.key
    mkdir -p /run/munge /var/lib/munge /var/log/munge
    chown munge:munge /run/munge /var/lib/munge /var/log/munge
    chmod 0755 /run/munge
    runuser -u munge -- munged --pid-file=/run/munge/procflow-munged.pid
    touch "$dir/started-munged"
}

write_config() {
    local host cpus memory
    host=$(hostname -s)
    cpus=$(nproc)
    memory=$(awk '/MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)
    mkdir -p "$dir/spool/ctld" "$dir/spool/d" /etc/slurm
    cat >"$dir/slurm.conf" <<EOF
# Written by procflow's scripts/slurm-local.sh: a one-node test cluster.
ClusterName=procflow-local
SlurmctldHost=$host
SlurmUser=root
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
StateSaveLocation=$dir/spool/ctld
SlurmdSpoolDir=$dir/spool/d
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
DefMemPerCPU=$((memory / cpus))
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.log
MinJobAge=600
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
    if [ -e "$conf" ] && ! cmp -s "$conf" "$dir/slurm.conf"; then
        if [ ! -e "$dir/wrote-conf" ]; then
            log "$conf exists and is not ours; leaving it (no cluster answers with it)"
            exit 1
        fi
    fi
    cp "$dir/slurm.conf" "$conf"
    touch "$dir/wrote-conf"
}

start() {
    if answers; then
        log "a cluster already answers; nothing started"
        return
    fi
    install_packages
    mkdir -p "$dir"
    chmod 0755 "$dir"
    start_munge
    write_config
    slurmctld
    touch "$dir/started-slurmctld"
    slurmd
    touch "$dir/started-slurmd"
    for _ in $(seq 1 300); do
        if answers && sinfo -h -o '%t' 2>/dev/null | grep -Eq '^(idle|mix|alloc)'; then
            log "up: $(sinfo -h -o '%P %D node(s) %c CPUs %t' | head -1)"
            return
        fi
        sleep 0.1
    done
    log "the cluster did not come up; see $dir/slurmctld.log and $dir/slurmd.log"
    exit 1
}

stop_daemon() {
    local name=$1 pidfile=$2
    [ -e "$dir/started-$name" ] || return 0
    if [ -s "$pidfile" ]; then
        local pid
        pid=$(cat "$pidfile")
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 1 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$dir/started-$name"
}

stop() {
    [ -d "$dir" ] || { log "nothing started here"; return; }
    if [ -e "$dir/started-slurmctld" ] && command -v scancel >/dev/null 2>&1; then
        timeout 10 scancel --full --quiet --user="$(id -un)" 2>/dev/null || true
    fi
    stop_daemon slurmd "$dir/slurmd.pid"
    stop_daemon slurmctld "$dir/slurmctld.pid"
    stop_daemon munged /run/munge/procflow-munged.pid
    if [ -e "$dir/wrote-conf" ]; then
        rm -f "$conf" "$dir/wrote-conf"
    fi
    if [ -e "$dir/wrote-munge-key" ]; then
        rm -f /etc/munge/munge.key "$dir/wrote-munge-key"
    fi
    log "stopped"
}

case ${1:-} in
start) start ;;
stop) stop ;;
status)
    if answers; then
        sinfo -h -o '%P %D node(s) %c CPUs %t'
    else
        log "no cluster answers"
        exit 1
    fi
    ;;
*)
    echo "usage: scripts/slurm-local.sh start|stop|status" >&2
    exit 2
    ;;
esac
