#!/usr/bin/env bash
# The scheduler events of bench/host_part.sh's partition scenario: sched_switch, sched_waking,
# sched_wakeup and sched_migrate_task for WINDOW seconds (default 0.5), 2 s after its four VMMs
# are up (a fixed 3 s from the start traced none on a loaded machine) in a 4 s run,
# from a tracefs instance of its own (other users of tracefs are left alone). Writes OUT.trace
# (the events), OUT.tids (pid, tid, thread name, VM name: the daemon's threads have none) and
# OUT.part (host_part.sh's table). Needs root and tracefs (mounted here if it is not).
# usage: bench/host_trace.sh [path/to/vsched] [thread|kvm] OUT [WINDOW]
# bench/host_gaps.sh OUT: the lanes' stretches without a vCPU and the vCPUs' wake-ups from it.
set -u
V=$(readlink -f "${1:-build/vsched}")
accel=${2:-thread}
out=${3:?usage: host_trace.sh vsched accel OUT [WINDOW]}
win=${4:-0.5}
T=/sys/kernel/tracing
[ -e $T/instances ] || mount -t tracefs nodev $T || exit 1
I=$T/instances/vsched-host-trace
EV="sched_switch sched_waking sched_wakeup sched_migrate_task"
mkdir -p $I || exit 1
trap 'echo 0 >$I/tracing_on; for e in $EV; do echo 0 >$I/events/sched/$e/enable; done; rmdir $I' EXIT
echo 0 >$I/tracing_on
echo 8192 >$I/buffer_size_kb
for e in $EV; do echo 1 >$I/events/sched/$e/enable; done
echo >$I/trace
bash "$(dirname "$0")/host_part.sh" "$V" "$accel" 4 >"$out.part" 2>&1 &
bp=$!
for i in $(seq 200); do [ "$(pgrep -fc "^$V run")" -ge 4 ] && break; sleep 0.05; done
sleep 2
for p in $(pgrep -f "^$V (host|run)"); do
	for t in /proc/$p/task/*; do
		echo "$p ${t##*/} $(cat "$t/comm") $(tr '\0' ' ' </proc/$p/cmdline | grep -o 'name [^ ]*')"
	done
done >"$out.tids"
echo 1 >$I/tracing_on
sleep "$win"
echo 0 >$I/tracing_on
cat $I/trace >"$out.trace"
wait $bp
