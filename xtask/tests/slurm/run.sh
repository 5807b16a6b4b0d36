#!/bin/bash
# The guide's (grading.md) Slurm array job, run on a real one-node Slurm cluster started here.
#
# Needs root: it installs Debian's slurm-wlm and munge when they are missing, then starts its
# own munged, slurmctld and slurmd (private socket, ports, spool and state folders, all in one
# temporary folder), clones this checkout beside a class of 40 submissions, submits the
# guide's (grading.md) grade.sh with `sbatch --array=1-4`, waits for it, merges the four shards with the
# guide's (grading.md) merge command, and checks the merged grades.csv and grades.json equal one
# `cargo xtask grade` of the whole class, byte for byte. It ends only the daemons it started
# (by pid) and removes its folder. Not part of CI: it takes several minutes (two gradings of
# 40 students over the whole columns corpus). Exit status 0 when the files are equal (or the
# run is skipped, with the reason printed), 1 when they differ or a step fails.
#
# Usage: xtask/tests/slurm/run.sh [STUDENTS]   (default 40)
set -euo pipefail

students=${1:-40}
repo=$(cd "$(dirname "$0")/../../.." && pwd)

if [ "$(id -u)" != 0 ]; then
    echo "slurm: skipped: needs root (installs slurm-wlm, starts munged, slurmctld and slurmd)"
    exit 0
fi
if ! command -v sbatch >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
    echo "slurm: installing slurm-wlm and munge"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends slurm-wlm munge >/dev/null
fi
[ -s /etc/munge/munge.key ] || { echo "slurm: /etc/munge/munge.key is missing (mungekey --create makes one)"; exit 1; }

work=$(mktemp -d /tmp/gridjudge-slurm.XXXXXX)
chmod 755 "$work"
pids=()
finish() {
    status=$?
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    if [ "$status" != 0 ]; then
        for log in "$work"/*.log "$work"/slurm-*.out; do
            [ -f "$log" ] && { echo "--- $log"; tail -n 20 "$log"; }
        done
    fi
    rm -rf "$work"
    exit "$status"
}
trap finish EXIT

host=$(hostname -s)
# A version manager's `python3` (pyenv, asdf) is a shell script that starts the real
# interpreter: put the real one first on PATH, or its start-up, not grading, sets the time.
python=$(python3 -c 'import sys; print(sys.executable)')
export PATH="$(dirname "$python"):$PATH"
export SLURM_CONF="$work/slurm.conf"

# munge, on a socket of its own, as the munge user.
mkdir -p "$work/munge"
chown munge: "$work/munge"
chmod 755 "$work/munge"
runuser -u munge -- munged --foreground --force \
    --socket="$work/munge/munge.socket" --pid-file="$work/munge/munged.pid" \
    --log-file="$work/munge/munged.log" --seed-file="$work/munge/munged.seed" 2>/dev/null &
pids+=($!)
for _ in $(seq 50); do [ -S "$work/munge/munge.socket" ] && break; sleep 0.1; done

mkdir -p "$work/state" "$work/spool"
cat >"$SLURM_CONF" <<EOF
ClusterName=gridjudge
SlurmctldHost=$host
SlurmUser=root
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -i 2>/dev/null &
pids+=($!)
slurmd -D 2>/dev/null &
pids+=($!)
for _ in $(seq 100); do
    state=$(sinfo -h -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.2
done
[ "$state" = idle ] || { echo "slurm: the node did not come up (state: ${state:-none})"; exit 1; }
echo "slurm: one-node cluster up: $(sinfo -h -o '%P %D %c %T')"

# The checkout, built once before the jobs (so the shards time grading, not compiling).
git clone --quiet "$repo" "$work/gridjudge"
(cd "$work/gridjudge" && cargo build --quiet --release && cargo build --quiet -p xtask --bins)

# A class: each student's project4.py plays columns through the `mutant` program in its
# folder, with one of a few known bugs or none.
variants=(none columns-rotate-backwards none columns-no-vertical none columns-one-run)
for k in $(seq 0 $((students - 1))); do
    student="$work/submissions/student-$(printf %02d "$k")"
    mkdir -p "$student"
    cp "$work/gridjudge/target/debug/mutant" "$student/mutant"
    variant=${variants[$((k % ${#variants[@]}))]}
    printf "import subprocess, sys\nsys.exit(subprocess.call(['./mutant', '%s', 'columns']))\n" \
        "$variant" >"$student/project4.py"
done

# The guide's (grading.md) array job script and merge command, as written there.
awk '/^A Slurm array job/ {found=1} found && /^```sh$/ {inside=1; next} inside && /^```$/ {exit} inside {print}' \
    "$repo/docs/guide/src/grading.md" >"$work/grade.sh"
grep -q SLURM_ARRAY_TASK_ID "$work/grade.sh" || { echo "slurm: no array job script in the guide (grading.md)"; exit 1; }
merge=$(awk '/^A Slurm array job/ {found=1} found && /^```sh$/ {exit} found {print}' "$repo/docs/guide/src/grading.md" |
    tr '\n' ' ' | grep -o 'cargo xtask merge [^`]*' || true)
[ -n "$merge" ] || { echo "slurm: no merge command for the Slurm shards in the guide (grading.md)"; exit 1; }

cd "$work"
start=$(date +%s)
sbatch --array=1-4 --wait --quiet grade.sh
echo "slurm: the array job (4 shards, $students students) took $(($(date +%s) - start)) s"
squeue -h -t all 2>/dev/null || true
for f in slurm-*.out; do echo "$f: $(tail -n 1 "$f")"; done
echo "slurm: $merge"
(cd "$work/gridjudge" && eval "$merge")

start=$(date +%s)
(cd "$work/gridjudge" && cargo xtask grade --spec columns --submissions ../submissions \
    --run 'python3 project4.py' --out ../whole >/dev/null)
echo "slurm: one grading of the whole class took $(($(date +%s) - start)) s"

for file in grades.csv grades.json; do
    cmp "$work/grades/$file" "$work/whole/$file"
done
echo "slurm: merged shards equal one run: $(($(wc -l <"$work/grades/grades.csv") - 1)) students"
head -n 4 "$work/grades/grades.csv"
