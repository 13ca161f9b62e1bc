#!/usr/bin/env bash
# A one-node Slurm cluster on this machine from Debian's packages (slurmctld, slurmd, munge), to
# run the workflow's SLURM profile against a real Slurm (tests/workflow/test_slurm.py). Needs root.
#
#   tests/workflow/slurm_cluster.sh start [--accounting] [--install] [--cpus N]
#   tests/workflow/slurm_cluster.sh stop
#   tests/workflow/slurm_cluster.sh status
#
# start       writes /etc/slurm/slurm.conf for this host (partition "debug", all its CPUs, its memory
#             less 1 GiB, memory as a consumable resource) and starts munged, slurmctld and slurmd.
#             Without --accounting there is no accounting database (AccountingStorageType=none, as
#             on many small clusters: sacct answers "Slurm accounting storage is disabled"); with
#             --accounting a MariaDB server and slurmdbd hold one (sacct works).
# --install   apt-get installs the packages that are missing first (Debian/Ubuntu).
# --cpus N    the node offers N CPUs (default: this machine's) and as much more memory; more than
#             the machine has lets Slurm start that many one-thread jobs at once (the test DAG's
#             jobs mostly wait on Python's start).
# stop        stops the daemons this script started (and MariaDB if it started it).
#
# It refuses to touch a slurm.conf it did not write, so it cannot clobber a real cluster.
set -euo pipefail

STATE=/run/evalrank-slurm
CONF=/etc/slurm/slurm.conf
DBDCONF=/etc/slurm/slurmdbd.conf
MARK="# written by evalrank tests/workflow/slurm_cluster.sh"
HOST=$(hostname -s)

die() { echo "slurm_cluster.sh: $*" >&2; exit 1; }
need_root() { [ "$(id -u)" = 0 ] || die "must run as root (the daemons and /etc/slurm)"; }

ours() { [ ! -e "$1" ] || grep -qF "$MARK" "$1"; }

kill_pidfile() {
  local f=$1
  if [ -s "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null; then
    kill "$(cat "$f")" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$(cat "$f")" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$f"
}

install_packages() {
  local pkgs=(slurmctld slurmd slurm-client munge)
  [ "$1" = 1 ] && pkgs+=(slurmdbd mariadb-server)
  local missing=()
  for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    command -v apt-get >/dev/null || die "apt-get not found; install ${missing[*]} by hand"
    echo "installing ${missing[*]}" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 \
      || { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2; }
  fi
}

write_conf() {
  local accounting=$1 cpus=$2 mem
  # this machine's memory less 1 GiB, scaled like the CPUs when --cpus asks for more than it has
  mem=$(( ($(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo) - 1024) * cpus / $(nproc) ))
  mkdir -p /etc/slurm
  {
    echo "$MARK"
    cat <<EOF
ClusterName=evalrank
SlurmctldHost=$HOST
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmdSpoolDir=/var/lib/slurm/slurmd
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SlurmdParameters=config_overrides
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/linux
MinJobAge=300
# a short message timeout: with the daemons stopped, every Snakemake start (its Slurm plugin
# asks 'scontrol show config' when it loads) waits 2 s instead of 9
MessageTimeout=3
NodeName=$HOST CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
    if [ "$accounting" = 1 ]; then
      echo "AccountingStorageType=accounting_storage/slurmdbd"
      echo "AccountingStorageHost=$HOST"
    else
      echo "AccountingStorageType=accounting_storage/none"
    fi
  } > "$CONF"
}

start_accounting() {
  mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld 2>/dev/null || true
  if ! mysqladmin ping >/dev/null 2>&1; then
    [ -d /var/lib/mysql/mysql ] || mariadb-install-db --user=mysql >/dev/null 2>&1
    (setsid mysqld_safe >/dev/null 2>&1 &)
    for _ in $(seq 100); do mysqladmin ping >/dev/null 2>&1 && break; sleep 0.2; done
    mysqladmin ping >/dev/null 2>&1 || die "MariaDB did not start"
    touch "$STATE/mariadb-ours"
  fi
  mysql -e "CREATE DATABASE IF NOT EXISTS slurm_acct_db;
            CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'evalrank';
            GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost'; FLUSH PRIVILEGES;"
  { echo "$MARK"; cat <<EOF
AuthType=auth/munge
DbdHost=$HOST
SlurmUser=root
PidFile=$STATE/slurmdbd.pid
LogFile=/var/log/slurm/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=slurm
StoragePass=evalrank
StorageLoc=slurm_acct_db
EOF
  } > "$DBDCONF"
  chmod 600 "$DBDCONF"
  slurmdbd
  for _ in $(seq 100); do sacctmgr -n list cluster >/dev/null 2>&1 && break; sleep 0.2; done
  sacctmgr -i add cluster evalrank >/dev/null 2>&1 || true
}

start() {
  local accounting=0 install=0 cpus
  cpus=$(nproc)
  while [ $# -gt 0 ]; do
    case $1 in
      --accounting) accounting=1 ;;
      --install) install=1 ;;
      --cpus) shift; cpus=${1:?--cpus needs a number} ;;
      *) die "unknown option $1" ;;
    esac
    shift
  done
  need_root
  [ "$install" = 1 ] && install_packages "$accounting"
  for b in slurmctld slurmd munged sbatch squeue; do command -v $b >/dev/null || die "$b not found (use --install)"; done
  [ "$accounting" = 0 ] || command -v slurmdbd >/dev/null || die "slurmdbd not found (use --install)"
  ours "$CONF" || die "$CONF was not written by this script; not touching a real cluster's configuration"
  ours "$DBDCONF" || die "$DBDCONF was not written by this script"
  stop_daemons
  mkdir -p "$STATE" /var/lib/slurm/slurmd /var/lib/slurm/slurmctld /var/log/slurm /run/munge
  chown munge:munge /run/munge 2>/dev/null || true
  write_conf "$accounting" "$cpus"
  if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    [ -s /etc/munge/munge.key ] || { mungekey --create 2>/dev/null || create-munge-key -f; }
    if id munge >/dev/null 2>&1; then su -s /bin/sh munge -c munged; else munged --force; fi
    touch "$STATE/munge-ours"
  fi
  [ "$accounting" = 1 ] && start_accounting
  slurmctld
  slurmd
  for _ in $(seq 150); do
    sinfo -h -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)' && break
    sleep 0.2
  done
  sinfo -h -o %t | grep -qE '^(idle|mix|alloc)' || { sinfo >&2 || true; die "the node did not come up (see /var/log/slurm/)"; }
  echo "slurm cluster up: partition debug on $HOST ($cpus CPUs), accounting $([ "$accounting" = 1 ] && echo slurmdbd || echo none)"
}

stop_daemons() {
  kill_pidfile "$STATE/slurmd.pid"
  kill_pidfile "$STATE/slurmctld.pid"
  kill_pidfile "$STATE/slurmdbd.pid"
}

stop() {
  need_root
  stop_daemons
  if [ -e "$STATE/mariadb-ours" ]; then mysqladmin shutdown 2>/dev/null || true; rm -f "$STATE/mariadb-ours"; fi
  if [ -e "$STATE/munge-ours" ]; then pkill -x munged 2>/dev/null || true; rm -f "$STATE/munge-ours"; fi
  echo "slurm cluster stopped"
}

case ${1:-} in
  start) shift; start "$@" ;;
  stop) stop ;;
  status) sinfo && squeue ;;
  *) die "usage: $0 start [--accounting] [--install] | stop | status" ;;
esac
