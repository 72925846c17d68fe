#!/bin/sh
# A single-node Slurm cluster on this machine, from Debian's packages, so that the cluster
# paths of build-tables (--slurm) run where there is no cluster.
#
#   scripts/local-cluster.sh start    install slurm-wlm and munge when missing (as root),
#                                     write the configuration, start munged, slurmctld, slurmd,
#                                     requeue jobs shown running with no process behind them
#   scripts/local-cluster.sh stop     stop the three daemons
#   scripts/local-cluster.sh status   the daemons and the node as Slurm sees it
#
# The node offers every core of this machine and all its memory but 1 GB, both scheduled
# (cons_tres, CR_Core_Memory): a job that asks for memory (build-tables --slurm asks for the
# 6-piece tables' estimates) starts only where it fits, and one that does not ask gets its
# cores' share of the memory (DefMemPerCPU). The state lives in $RETRO_SLURM_DIR (default /var/lib/retro-slurm),
# the configuration in /etc/slurm/slurm.conf (an existing one that this script did not write is
# left alone, and the start refused). No accounting database: `squeue` and the job logs are
# what there is.
set -eu

STATE=${RETRO_SLURM_DIR:-/var/lib/retro-slurm}
CONF=/etc/slurm/slurm.conf
MARK="# written by Retro's scripts/local-cluster.sh"

need_root() {
    [ "$(id -u)" = 0 ] || { echo "local-cluster: $1 needs root" >&2; exit 1; }
}

install() {
    command -v slurmctld >/dev/null && command -v munged >/dev/null && return
    need_root "installing slurm-wlm and munge"
    DEBIAN_FRONTEND=noninteractive apt-get install -y slurm-wlm munge >&2
}

configure() {
    if [ -f "$CONF" ] && ! grep -q "^$MARK" "$CONF"; then
        echo "local-cluster: $CONF exists and is not ours; not touching it" >&2
        exit 1
    fi
    host=$(hostname -s)
    cpus=$(nproc)
    mem_mb=$(awk '/MemTotal/ { print int($2 / 1024) - 1024 }' /proc/meminfo)
    mkdir -p "$STATE/ctld" "$STATE/d" /etc/slurm
    cat > "$CONF" <<EOF
$MARK
ClusterName=retro
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/d
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=$STATE/slurmctld.log
SlurmdLogFile=$STATE/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
# Start jobs as soon as they can (the defaults wait seconds between scheduling passes).
SchedulerParameters=bf_interval=1,sched_min_interval=0,batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=$((mem_mb / cpus))
MpiDefault=none
ReturnToService=2
MinJobAge=600
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=retro Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
}

start_munge() {
    pgrep -x munged >/dev/null && return
    [ -s /etc/munge/munge.key ] || mungekey --create --keyfile=/etc/munge/munge.key
    chown munge:munge /etc/munge/munge.key 2>/dev/null || true
    chmod 400 /etc/munge/munge.key
    mkdir -p /run/munge && chown munge:munge /run/munge 2>/dev/null || true
    # munged refuses to run as root unless forced; as the munge user where it exists.
    if id munge >/dev/null 2>&1; then
        su -s /bin/sh munge -c "munged" || munged --force
    else
        munged --force
    fi
}

wait_node() {
    i=0
    while [ $i -lt 60 ]; do
        state=$(sinfo -h -N -o %t 2>/dev/null | head -1)
        case $state in
            idle|mix|alloc) echo "local-cluster: node $(hostname -s) $state, $(nproc) cores" >&2; return ;;
        esac
        i=$((i + 1))
        sleep 1
    done
    echo "local-cluster: the node did not come up; see $STATE/slurmctld.log and $STATE/slurmd.log" >&2
    exit 1
}

# After the machine stopped, or its processes were killed while it stayed up, the
# controller's saved state still shows the jobs that were running then, with no process behind
# them: a job shown running that has no `slurmstepd` of its own is requeued, with the same job
# id, so that the jobs after it still wait for it. A solve resumes from its checkpoint; a
# structure part starts again. (The boot time is no test: a machine whose processes were killed
# at a stop keeps its boot time.) Only jobs that started before this start ($1, seconds since the
# epoch) count: one that the node began just now may not have its slurmstepd yet.
requeue_lost() {
    squeue -h -t RUNNING -o '%i %A %S' 2>/dev/null | while read -r job raw started; do
        since=$(date -d "$started" +%s 2>/dev/null) || continue
        [ "$since" -lt "$1" ] || continue
        pgrep -f "^slurmstepd: \[$raw\." >/dev/null && continue
        if why=$(scontrol requeue "$job" 2>&1); then
            echo "local-cluster: job $job was running, with no process behind it; requeued" >&2
        else
            echo "local-cluster: job $job was running, with no process behind it; requeue failed ($why): cancel it and submit again" >&2
        fi
    done
}

case ${1:-} in
    start)
        need_root "starting the cluster"
        began=$(date +%s)
        install
        configure
        start_munge
        pgrep -x slurmctld >/dev/null || slurmctld
        pgrep -x slurmd >/dev/null || slurmd
        wait_node
        requeue_lost "$began"
        ;;
    stop)
        need_root "stopping the cluster"
        pkill -x slurmd 2>/dev/null || true
        pkill -x slurmctld 2>/dev/null || true
        pkill -x munged 2>/dev/null || true
        # Until they are gone: a start right after must not find them still saving state.
        i=0
        while { pgrep -x slurmd || pgrep -x slurmctld || pgrep -x munged; } >/dev/null && [ $i -lt 100 ]; do
            sleep 0.2
            i=$((i + 1))
        done
        echo "local-cluster: stopped" >&2
        ;;
    status)
        for d in munged slurmctld slurmd; do
            if pgrep -x $d >/dev/null; then echo "$d: running"; else echo "$d: stopped"; fi
        done
        sinfo -N 2>/dev/null || true
        ;;
    *)
        sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
        exit 2
        ;;
esac
