#!/usr/bin/env bash
# Offers of a held lane for a preemption by virtual time on two lanes (docs/host.md, "Held-lane
# offers: what the rule covers"): a 2-lane `vsched host`; VM "other" is one hog (it keeps a
# whole lane: at equal VM weights the wake leaves it its rate); VM "heldvt2": vCPU 0 a hog in
# group bg (weight 100), vCPU 1 in fg (weight 400) wakes every 2 ms (duty:200/2000). A wake-up
# of vCPU 1 that finds it behind vCPU 0 by more than min_run takes vCPU 0's lane by virtual
# time; the daemon decides that ahead (sched_wake_vt_lane(): the other holder keeps its lane,
# and its charges before the honour cannot bring the key under the margin) and offers the held
# lane to the VM. Judged on `--stats`: runtime.held_offers > 0 (0 on main: on several lanes
# only a cpu.idle holder's lane was offered), both vCPUs ran, both VMs exited 0. Thread
# backend, then KVM.
. "$(dirname "$0")/runtime-lib.sh"
. "$(dirname "$0")/host-lib.sh"
host_test_begin host-heldvt2
mkdir -p "$VSCHED_RUN_DIR"

host_daemon_start --cpus 2 --no-ctl

for accel in $(test_accels); do
	st=$TMPD/$accel.json
	"$VSCHED" run --host --accel "$accel" --name "other$accel" --vcpus 1 --payload hog \
		--no-ctl --duration 3s >"$TMPD/$accel-other.log" 2>&1 &
	op=$!
	PIDS="$PIDS $op"
	sleep 0.3
	"$VSCHED" run --host --accel "$accel" --name "heldvt2$accel" --vcpus 2 \
		--payload 0=hog,1=duty:200/2000 --group bg:weight=100 --group fg:weight=400 \
		--assign 0=bg --assign 1=fg --no-ctl \
		--duration 2s --stats "$st" >"$TMPD/$accel.log" 2>&1 || fail "$accel: the VM exited $?"
	wait "$op" || fail "$accel: VM other exited $?"
	held=$(sed -nE 's/.*"held_offers": ([0-9]+).*/\1/p' "$st")
	sleeps=$(sed -nE 's/.*"id": 1,.*"sleeps": ([0-9]+),.*/\1/p' "$st")
	cpu0=$(sed -nE 's/.*"id": 0,.*"cpu_ns": ([0-9]+),.*/\1/p' "$st")
	cpu1=$(sed -nE 's/.*"id": 1,.*"cpu_ns": ([0-9]+),.*/\1/p' "$st")
	echo "$accel: ${held:-?} held lanes taken by vCPU 1 in ${sleeps:-?} wake-ups; vCPU CPU ${cpu0:-?} / ${cpu1:-?} ns"
	[ -n "$held" ] && [ -n "$sleeps" ] || fail "$accel: no held_offers or sleeps in --stats"
	check "$sleeps >= 100" || fail "$accel: vCPU 1 slept only $sleeps times"
	check "$held > 0" || fail "$accel: no held lane taken in $sleeps wake-ups"
	check "$cpu0 > 0 && $cpu1 > 0" || fail "$accel: a vCPU did not run"
done
host_daemon_stop
echo "ok"
